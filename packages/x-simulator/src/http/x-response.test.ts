import { get, type IncomingHttpHeaders } from 'node:http';
import { gunzipSync } from 'node:zlib';
import { APP_HEADERS as APP, recordedAnswerText, useTestSimulator } from '../testing';
import { acceptsGzip, xDate, xJson } from './x-response';

describe('xJson', () => {
  it.each(['tweepy__home_timeline', 'tweepy__list_tweets', 'tweepy__liked_tweets', 'tweepy__search_recent_default_fields_with_RT'])(
    'writes the recorded body %s back byte for byte: emoji as upper-case surrogate escapes, other characters as UTF-8',
    (name) => {
      const recorded = recordedAnswerText(name);
      expect(xJson(JSON.parse(recorded))).toBe(recorded);
    },
  );

  it('escapes only characters beyond the BMP', () => {
    expect(xJson({ text: 'Schrödinger ’ ✈️ 🗯' })).toBe('{"text":"Schrödinger ’ ✈️ \\uD83D\\uDDEF"}');
  });
});

describe('acceptsGzip and xDate', () => {
  it('takes gzip when listed or matched by *, unless q=0', () => {
    expect(acceptsGzip('gzip, deflate, br')).toBe(true);
    expect(acceptsGzip('deflate, *')).toBe(true);
    expect(acceptsGzip('gzip;q=0, deflate')).toBe(false);
    expect(acceptsGzip('identity')).toBe(false);
    expect(acceptsGzip(undefined)).toBe(false);
  });

  it('writes the Date header as X does, ending in UTC', () => {
    expect(xDate(Date.parse('2022-10-07T23:07:42Z'))).toBe('Fri, 07 Oct 2022 23:07:42 UTC');
  });
});

/** A GET whose body is read as the bytes that came, undecoded. */
function rawGet(url: string, headers: Record<string, string>): Promise<{ headers: IncomingHttpHeaders; body: Buffer }> {
  return new Promise((resolve, reject) => {
    get(url, { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    }).on('error', reject);
  });
}

describe('answers on the wire', () => {
  const simulator = useTestSimulator({ now: () => Date.parse('2026-11-22T12:00:00Z') });

  beforeAll(() => {
    simulator.sim.state.injectPost({ author: 'alice', text: 'gm 🐍 #btc' });
  });

  it('gzips the body when the request takes gzip, with content type, Date and rate-limit headers', async () => {
    const res = await rawGet(`${simulator.url}/2/tweets/search/recent?query=%23btc`, { ...APP, 'Accept-Encoding': 'gzip, deflate' });
    expect(res.headers['content-encoding']).toBe('gzip');
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(res.headers.date).toBe('Sun, 22 Nov 2026 12:00:00 UTC');
    expect(res.headers).toMatchObject({ 'x-rate-limit-limit': '450', 'x-rate-limit-remaining': '449', 'x-rate-limit-reset': expect.stringMatching(/^\d+$/) });
    const body = gunzipSync(res.body).toString('utf8');
    expect(body).toContain('"text":"gm \\uD83D\\uDC0D #btc"');
    expect(JSON.parse(body).data[0].text).toBe('gm 🐍 #btc');
  });

  it('sends identity bytes when the request does not take gzip, and rate-limit headers on a 400 too', async () => {
    const plain = await rawGet(`${simulator.url}/2/tweets/search/recent?query=%23btc`, APP);
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body.toString('utf8')).toContain('"text":"gm \\uD83D\\uDC0D #btc"');
    const invalid = await rawGet(`${simulator.url}/2/tweets/search/recent?query=(`, { ...APP, 'Accept-Encoding': 'gzip' });
    expect(invalid.headers['content-type']).toBe('application/problem+json; charset=utf-8');
    expect(invalid.headers['x-rate-limit-remaining']).toMatch(/^\d+$/);
    expect(JSON.parse(gunzipSync(invalid.body).toString('utf8')).title).toBe('Invalid Request');
  });
});
