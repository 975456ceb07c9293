/**
 * A response body that is already JSON text (PostgreSQL built it), sent as it is: no parse into
 * objects and no JSON.stringify on the way out. With response validation on, ApiBuilder still parses it
 * and checks it against the route's documented schema.
 */
export class JsonText {
  constructor(readonly text: string) {}
}
