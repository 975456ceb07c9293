import { apiTimestamps } from './posts.service';

describe('apiTimestamps', () => {
  it.each([
    ['2026-11-22T01:24:59.123001', '2026-11-22T01:24:59.123Z'],
    ['2026-11-22T01:24:59.120001', '2026-11-22T01:24:59.120Z'],
    ['2026-11-22T01:24:59.000001', '2026-11-22T01:24:59.000Z'],
  ])('writes %s as %s, in every item of the page', (stored, api) => {
    const item = (id: number) => `{"id":"post_${id}","posted_at":"${stored}","detected_at":"${stored}","engagement":{"updated_at":"${stored}"}}`;
    const expected = (id: number) => `{"id":"post_${id}","posted_at":"${api}","detected_at":"${api}","engagement":{"updated_at":"${api}"}}`;
    expect(apiTimestamps(`${item(1)},${item(2)}`)).toBe(`${expected(1)},${expected(2)}`);
  });

  it('leaves nulls, other keys and look-alikes inside strings alone', () => {
    const json = JSON.stringify({
      text: '"posted_at":"2026-11-22T01:24:59.100001" and {"detected_at":"2026-11-22T01:24:59.000001"}',
      author_name: 'posted_at',
      posted_at: null,
      count: '2026-11-22T01:24:59.100001',
    });
    expect(apiTimestamps(json)).toBe(json);
  });
});
