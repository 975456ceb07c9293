import { readFileSync } from 'node:fs';
import { request, useGateway } from '../../test-support/gateway-harness';

const REGENERATE = 'npm run build -w @hashwatch/gateway && npm run openapi:generate -w @hashwatch/sdk';

describe('the SDK’s copy of the OpenAPI document', () => {
  const gw = useGateway();

  it('equals the document GET /v1/openapi.json serves, so the SDK’s types match the API', async () => {
    const served = (await request(gw.app).get('/v1/openapi.json').expect(200)).body as unknown;
    const snapshot = JSON.parse(readFileSync(require.resolve('@hashwatch/sdk/openapi.json'), 'utf8')) as unknown;
    if (JSON.stringify(served) !== JSON.stringify(snapshot)) {
      // toEqual's diff names the part that moved; the message says how to bring the SDK along.
      expect({ hint: `packages/sdk/openapi.json is stale: run \`${REGENERATE}\``, document: snapshot }).toEqual({ hint: 'up to date', document: served });
    }
  });
});
