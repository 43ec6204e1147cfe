import { randomBytes } from 'node:crypto';
import http from 'node:http';
import { listen, type RunningServer } from '@restgate/shared/http';
import { capturingLogger } from '@restgate/shared/testing';
import { startGateway, type TestGateway } from './support/gateway';
import { startUpstream, type TestUpstream } from './support/upstream';

/**
 * A reset or verification token in a path the gateway can't route (`//password-resets/<t>`)
 * reached its access log as it was (audit 27). Each request here carries a live-looking token in
 * a path shaped to slip past a matcher, and no log line may hold the token in any form.
 */
let identity: TestUpstream;
let articles: TestUpstream;
let gateway: TestGateway;
let server: RunningServer;
const log = capturingLogger();

beforeAll(async () => {
  identity = await startUpstream();
  articles = await startUpstream();
  gateway = startGateway({ IDENTITY_URL: identity.url, ARTICLES_URL: articles.url }, log.logger);
  server = await listen(gateway.app, 0, '127.0.0.1');
});

afterAll(async () => {
  await server.stop(1_000);
  gateway.close();
  await Promise.all([identity.close(), articles.close()]);
});

/** A token as identity makes them: 32 random bytes, base64url. */
const aToken = () => randomBytes(32).toString('base64url');

/** Every character percent-encoded, as a link through an over-eager encoder may arrive. */
const encodedEach = (text: string) => [...text].map((c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`).join('');

/** Sends `path` byte for byte (fetch and supertest would normalise it first) and waits for the answer. */
async function send(method: string, path: string): Promise<number> {
  return (await exchange(method, path)).status;
}

function exchange(method: string, path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port: server.port, method, path }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** A text decoded until it stops changing (malformed escapes left as they are). */
function fullyDecoded(text: string): string {
  let current = text;
  for (let i = 0; i < 5; i += 1) {
    let next: string;
    try {
      next = decodeURIComponent(current);
    } catch {
      next = current.replace(/%([0-9a-f]{2})/gi, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16)));
    }
    if (next === current) break;
    current = next;
  }
  return current;
}

const SHAPES: Array<(t: string, page: string) => string> = [
  (t, page) => `//${page}/${t}`,
  (t, page) => `/${page}//${t}`,
  (t, page) => `/${page}/${t}/`,
  (t, page) => `/${page}/${t}//`,
  (t, page) => `/${page.toUpperCase()}/${t}`,
  (t, page) => `/${page}/${t}/extra`,
  (t, page) => `/${page.replace('-', '%2D')}/${t}`,
  (t, page) => `/%${page.charCodeAt(0).toString(16)}${page.slice(1)}/${t}`,
  (t, page) => `/${page}%2F${t}`,
  (t, page) => `/${page}%2f${t}`,
  (t, page) => `/${page.replace('-', '%252D')}/${t}`,
  (t, page) => `/./${page}/${t}`,
  (t, page) => `/x/../${page}/${t}`,
  (t, page) => `/${page}\\${t}`,
  (t, page) => `/${page}/${t};x=1`,
  (t, page) => `/${page}/${t}%00`,
  (t, page) => `/api/${page}/${t}`,
  (t, page) => `/${page}?next=/${t}`,
  (t, page) => `/${page}/${encodedEach(t)}`,
  (t, page) => `/${page}/${t}?access_token=x`,
  (t) => `/reset/${t}`,
];

describe('the access log', () => {
  test.each(['password-resets', 'email-verifications'])(
    'when a %s token comes in a path shaped to slip past the matcher, then no log line holds it in any form',
    async (page) => {
      const sent: Array<{ method: string; path: string; token: string; status: number }> = [];
      for (const method of ['GET', 'PUT', 'POST', 'DELETE', 'HEAD']) {
        for (const shape of SHAPES) {
          const token = aToken();
          const path = shape(token, page);
          sent.push({ method, path, token, status: await send(method, path) });
        }
      }
      // The access line is written when the answer ends: give the last ones a moment.
      await new Promise((resolve) => setTimeout(resolve, 50));

      const lines = log.lines().map((line) => JSON.stringify(line));
      const leaks = sent.filter(({ token }) => lines.some((line) => line.includes(token) || fullyDecoded(line).includes(token)));
      expect(leaks.map(({ method, path, status }) => `${method} ${path} (${status})`)).toEqual([]);
      // Each request was logged (so the search could find something), its token as [redacted].
      expect(lines.filter((line) => line.includes('[redacted]')).length).toBeGreaterThanOrEqual(sent.length);
    },
  );

  test('when the gateway answers such a path itself (404, 405), then its answer does not echo the token either', async () => {
    const answers = [];
    for (const page of ['password-resets', 'email-verifications']) {
      for (const shape of SHAPES) {
        const token = aToken();
        const path = shape(token, page);
        for (const method of ['GET', 'DELETE']) answers.push({ path, token, ...(await exchange(method, path)) });
      }
    }

    // The test upstream echoes what reached it; only the gateway's own answers are in question.
    const own = answers.filter(({ body }) => !body.includes('"echoed"'));
    const echoed = own.filter(({ body, token }) => body.includes(token) || fullyDecoded(body).includes(token));
    expect(echoed.map(({ path, status, body }) => `${path} (${status}): ${body.slice(0, 200)}`)).toEqual([]);
    expect(own.filter(({ status }) => status === 404).length).toBeGreaterThan(20);
  });

  test('when paths carry no token, then the log shows them as they came', async () => {
    const paths = [
      '/articles/0123456789abcdef01234567',
      '/articles?q=password&page=2',
      '/users/me',
      '/no-such-route/a-long-lowercase-slug-of-forty-two-chars-x',
    ];
    for (const path of paths) await send('GET', path);
    await new Promise((resolve) => setTimeout(resolve, 50));

    const urls = log.lines().map((line) => (line.req as { url?: string } | undefined)?.url);
    expect(urls).toEqual(expect.arrayContaining(paths));
  });
});
