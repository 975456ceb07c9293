import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';

const root = path.join(__dirname, '..');

// openapi-typescript's dependencies are ES modules, which jest's CommonJS runtime cannot load: its Node API
// runs in a child Node, which prints the types exactly as the CLI writes them (its header, then the AST).
const GENERATE = `
import { readFileSync } from 'node:fs';
import openapiTS, { astToString, COMMENT_HEADER } from 'openapi-typescript';
const document = JSON.parse(readFileSync('openapi.json', 'utf8'));
process.stdout.write(COMMENT_HEADER + astToString(await openapiTS(document, { silent: true })));
`;

describe('src/generated/schema.ts', () => {
  it('is exactly what openapi-typescript generates from openapi.json', () => {
    const expected = execFileSync(process.execPath, ['--input-type=module', '-e', GENERATE], { cwd: root, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
    const actual = readFileSync(path.join(root, 'src/generated/schema.ts'), 'utf8');
    if (actual !== expected) {
      throw new Error('src/generated/schema.ts is not what openapi.json generates: run `npm run openapi:generate -w @hashwatch/sdk` (after building the gateway)');
    }
  }, 60_000);
});
