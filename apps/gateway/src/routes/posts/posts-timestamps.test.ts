import { apiTimestamps } from './posts.service';

describe('apiTimestamps', () => {
  it.each([
    ['2026-11-22T01:24:59.123', '2026-11-22T01:24:59.123Z'],
    ['2026-11-22T01:24:59.12', '2026-11-22T01:24:59.120Z'],
    ['2026-11-22T01:24:59.1', '2026-11-22T01:24:59.100Z'],
    ['2026-11-22T01:24:59', '2026-11-22T01:24:59.000Z'],
    ['2026-11-22T01:24:59.123999', '2026-11-22T01:24:59.123Z'],
  ])('writes %s as %s', (stored, api) => {
    expect(apiTimestamps(`{"posted_at":"${stored}","detected_at":"${stored}","engagement":{"updated_at":"${stored}"}}`)).toBe(
      `{"posted_at":"${api}","detected_at":"${api}","engagement":{"updated_at":"${api}"}}`,
    );
  });

  it('leaves nulls, other keys and look-alikes inside strings alone', () => {
    const json = JSON.stringify({
      text: '"posted_at":"2026-11-22T01:24:59.1" and {"detected_at":"2026-11-22T01:24:59"}',
      author_name: 'posted_at',
      posted_at: null,
      created_at: '2026-11-22T01:24:59.1',
    });
    expect(apiTimestamps(json)).toBe(json);
  });
});
