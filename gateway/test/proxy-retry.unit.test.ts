import type { Pool } from 'undici';
import { mayRetry, requestWithRetries } from '../src/proxy';

const failure = (code: string) => Object.assign(new Error(code), { code });

describe('mayRetry', () => {
  test('when no connection was made, then any method may go again', () => {
    for (const method of ['GET', 'POST', 'PATCH', 'DELETE']) {
      expect(mayRetry(method, failure('ECONNREFUSED'))).toBe(true);
      expect(mayRetry(method, failure('UND_ERR_CONNECT_TIMEOUT'))).toBe(true);
    }
  });

  test('when the connection broke with the request sent, then only a safe method goes again', () => {
    expect(mayRetry('GET', failure('ECONNRESET'))).toBe(true);
    expect(mayRetry('HEAD', failure('UND_ERR_SOCKET'))).toBe(true);
    expect(mayRetry('POST', failure('ECONNRESET'))).toBe(false);
    expect(mayRetry('PUT', failure('UND_ERR_SOCKET'))).toBe(false);
  });

  test('when the service was slow, or the failure is not the connection, then nothing goes again', () => {
    expect(mayRetry('GET', failure('UND_ERR_HEADERS_TIMEOUT'))).toBe(false);
    expect(mayRetry('GET', new Error('no code'))).toBe(false);
  });
});

describe('requestWithRetries', () => {
  type Answer = Awaited<ReturnType<Pool['request']>>;
  const answer = { statusCode: 201 } as Answer;

  /** A pool whose request fails with `codes`, one per call, then answers. */
  function poolFailing(...codes: string[]): { pool: Pick<Pool, 'request'>; calls: () => number } {
    let calls = 0;
    const request = (async () => {
      const code = codes[calls];
      calls += 1;
      if (code) throw failure(code);
      return answer;
    }) as unknown as Pool['request'];
    return { pool: { request }, calls: () => calls };
  }
  const post = () => ({ method: 'POST' as const, path: '/articles', signal: new AbortController().signal });

  test('when the first connection is refused, then a POST is sent again and answered', async () => {
    const { pool, calls } = poolFailing('ECONNREFUSED');
    const retried: unknown[] = [];

    await expect(requestWithRetries(pool, post(), (err) => retried.push(err))).resolves.toBe(answer);
    expect(calls()).toBe(2);
    expect(retried).toHaveLength(1);
  });

  test('when every try is refused, then the third failure is thrown', async () => {
    const { pool, calls } = poolFailing('ECONNREFUSED', 'ECONNREFUSED', 'ECONNREFUSED', 'ECONNREFUSED');

    await expect(requestWithRetries(pool, post(), () => undefined)).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    expect(calls()).toBe(3);
  });

  test('when the client has left, then a failure is not retried', async () => {
    const { pool, calls } = poolFailing('ECONNREFUSED');
    const left = new AbortController();
    left.abort();

    await expect(requestWithRetries(pool, { ...post(), signal: left.signal }, () => undefined)).rejects.toMatchObject({
      code: 'ECONNREFUSED',
    });
    expect(calls()).toBe(1);
  });
});
