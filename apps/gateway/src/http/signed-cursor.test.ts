import { z } from 'zod';
import { isAppError } from '@hashwatch/errors';
import { generateSecretsKey } from '@hashwatch/secrets';
import { signedCursor } from './signed-cursor';

const schema = z.strictObject({ t: z.number().int(), id: z.string() });

function codeOf(work: () => unknown): string {
  try {
    work();
  } catch (error) {
    return isAppError(error) ? `${error.code}: ${error.message}` : String(error);
  }
  return 'no error';
}

describe('signedCursor', () => {
  const cursor = signedCursor(generateSecretsKey(), 'test-cursor', schema, 'repeat the filters');
  const scope = ['usr_1', 'btc'];
  const position = { t: 1_764_000_000_000, id: 'post_a' };

  it('decodes what it encoded, for the same scope only', () => {
    const value = cursor.encode(position, scope);
    expect(cursor.decode(value, scope)).toEqual(position);
    expect(codeOf(() => cursor.decode(value, ['usr_2', 'btc']))).toMatch(/^invalid_request: cursor: not valid for this request.*repeat the filters/);
  });

  it('verifies the MAC alone, with the messages of decode', () => {
    const value = cursor.encode(position, scope);
    expect(codeOf(() => cursor.verify(value, scope))).toBe('no error');
    expect(codeOf(() => cursor.verify(value, ['usr_2', 'btc']))).toMatch(/^invalid_request: cursor: not valid for this request/);
    expect(codeOf(() => cursor.verify('short', scope))).toMatch(/^invalid_request: cursor: malformed/);
    expect(codeOf(() => cursor.verify(`${value}!`, scope))).toMatch(/^invalid_request: cursor: malformed/);
  });

  it('peeks at the position a cursor claims without its MAC, and at nothing in a malformed one', () => {
    const value = cursor.encode(position, scope);
    const forged = `${Buffer.from(JSON.stringify({ t: 1, id: 'post_b' })).toString('base64url')}${value.slice(-43)}`;
    expect(cursor.peek(value)).toEqual(position);
    expect(cursor.peek(forged)).toEqual({ t: 1, id: 'post_b' });
    expect(codeOf(() => cursor.verify(forged, scope))).toMatch(/not valid for this request/);
    const notJson = `${Buffer.from('nope').toString('base64url')}${value.slice(-43)}`;
    const wrongShape = `${Buffer.from('{"t":"x"}').toString('base64url')}${value.slice(-43)}`;
    for (const malformed of ['', 'short', `${value}=`, notJson, wrongShape]) expect(cursor.peek(malformed)).toBeUndefined();
  });
});
