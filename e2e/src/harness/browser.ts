/** An answer of the gateway, its body parsed. */
export interface Answer {
  status: number;
  body: Record<string, unknown> | undefined;
  setCookie: string[];
}

/** The string field `key` of an answer's body; throws, naming it, when there is none. */
export function field(answer: Answer, key: string): string {
  const value = answer.body?.[key];
  if (typeof value !== 'string') throw new Error(`the answer (${answer.status}) has no string ${key}: ${JSON.stringify(answer.body)}`);
  return value;
}

/**
 * What a browser does with the dashboard's API: keeps the `hw_session` cookie it is given, sends it back, and
 * sends the session's CSRF token on unsafe methods.
 */
export class Browser {
  cookie: string | undefined;
  csrf: string | undefined;

  constructor(private readonly baseUrl: string) {}

  async call(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Answer> {
    const unsafe = !['GET', 'HEAD'].includes(method);
    const response = await fetch(`${this.baseUrl}/v1${path}`, {
      method,
      headers: {
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...(this.cookie ? { cookie: this.cookie } : {}),
        ...(unsafe && this.csrf ? { 'x-csrf-token': this.csrf } : {}),
        ...headers,
      },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(15_000),
    });
    const setCookie = response.headers.getSetCookie();
    for (const line of setCookie) {
      const [pair] = line.split(';');
      if (!pair?.startsWith('hw_session=')) continue;
      this.cookie = pair === 'hw_session=' ? undefined : pair;
      if (!this.cookie) this.csrf = undefined;
    }
    const text = await response.text();
    return { status: response.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : undefined, setCookie };
  }

  /** Reads the session (and its CSRF token) after a sign-in. */
  async readSession(): Promise<Answer> {
    const answer = await this.call('GET', '/session');
    if (answer.status === 200) this.csrf = field(answer, 'csrf_token');
    return answer;
  }
}
