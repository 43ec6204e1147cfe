/**
 * Webhooks through the stack: an admin registers an endpoint at a real receiver on loopback; an
 * article written through the gateway reaches it signed (verified with the standardwebhooks
 * package, as a receiver would); retries, the log, rotation; and the SSRF guard of a stack that
 * does not allow private networks.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { Webhook } from 'standardwebhooks';
import { aSignedInUser, anArticle } from '../support/actors';
import { client, type Client } from '../support/http';
import { startTestStack, type TestStack } from '../support/stack';
import { startReceiver, type Receiver, type Received } from '../support/webhook-receiver';

let stack: TestStack;
let api: Client;
let receiver: Receiver;
let admin: { id: string; token: string };
let author: { id: string; token: string };

beforeAll(async () => {
  [stack, receiver] = await Promise.all([startTestStack(), startReceiver()]);
  api = client(stack.url);
  [admin, author] = await Promise.all([aSignedInUser(api, stack, { role: 'admin' }), aSignedInUser(api, stack)]);
}, 120_000);

afterAll(async () => {
  await stack?.stop();
  await receiver?.close();
});

const headersOf = (r: Received) => ({
  'webhook-id': String(r.headers['webhook-id']),
  'webhook-timestamp': String(r.headers['webhook-timestamp']),
  'webhook-signature': String(r.headers['webhook-signature']),
});

let paths = 0;
async function anEndpoint(events = 'articles.*'): Promise<{ id: string; secret: string; path: string }> {
  const path = `/contract-hook-${++paths}`;
  const res = await api.post('/webhooks', { bearer: admin.token, form: { url: receiver.url(path), events } });
  expect(res.status).toBe(201);
  return { id: res.body.id, secret: res.body.secret, path };
}

async function anArticleWritten(): Promise<{ id: string; title: string }> {
  const res = await api.post('/articles', { bearer: author.token, form: anArticle() });
  expect(res.status).toBe(201);
  return res.body;
}

async function logOf(id: string, until: (rows: any[]) => boolean): Promise<any[]> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const res = await api.get(`/webhooks/${id}/deliveries`, { bearer: admin.token });
    expect(res.status).toBe(200);
    if (until(res.body.rows)) return res.body.rows;
    if (Date.now() > deadline) throw new Error(`the log did not come to the expected state: ${JSON.stringify(res.body.rows)}`);
    await sleep(100);
  }
}

describe('webhooks through the gateway', () => {
  test('an article created through the gateway is delivered signed, verified by the standardwebhooks package, with the article as data', async () => {
    const { secret, path } = await anEndpoint('articles.created');
    const article = await anArticleWritten();

    const got = (await receiver.waitFor(path, 1)).find((r) => JSON.parse(r.body).data.id === article.id)!;
    const payload = new Webhook(secret).verify(got.body, headersOf(got)) as { type: string; data: Record<string, unknown> };
    expect(payload).toMatchObject({ type: 'articles.created', data: { id: article.id, title: article.title, user: { id: author.id } } });
    expect(payload.data).not.toHaveProperty('version');
  });

  test('a receiver failing twice then succeeding gets the same webhook-id three times, and the log shows three attempts', async () => {
    const { id, secret, path } = await anEndpoint();
    receiver.answer(path, { status: 500 }, { status: 503 });
    await anArticleWritten();

    const got = await receiver.waitFor(path, 3);
    expect(new Set(got.map((r) => r.headers['webhook-id'])).size).toBe(1);
    for (const r of got) expect(() => new Webhook(secret).verify(r.body, headersOf(r))).not.toThrow();
    const [delivery] = await logOf(id, (rows) => rows[0]?.status === 'succeeded');
    expect(delivery.eventId).toBe(got[0]!.headers['webhook-id']);
    expect(delivery.attempts.map((a: { status: number }) => a.status)).toEqual([500, 503, 200]);
  });

  test('a 400 from the receiver is not retried', async () => {
    const { id, path } = await anEndpoint();
    receiver.answer(path, { status: 400, body: 'bad' });
    await anArticleWritten();

    await logOf(id, (rows) => rows[0]?.status === 'failed');
    await sleep(700);
    expect(receiver.received(path)).toHaveLength(1);
    const failed = await api.get(`/webhooks/${id}/deliveries`, { bearer: admin.token, query: { 'status[eq]': 'failed' } });
    expect(failed.body.rows).toHaveLength(1);
    expect(failed.body.rows[0].attempts[0]).toMatchObject({ status: 400, response: 'bad' });
  });

  test('after a rotation, deliveries carry two signatures: the old secret and the new one both verify', async () => {
    const { id, secret: old, path } = await anEndpoint();
    const rotated = await api.post(`/webhooks/${id}/secret`, { bearer: admin.token });
    expect(rotated.status).toBe(200);
    await anArticleWritten();

    const [got] = await receiver.waitFor(path, 1);
    expect(String(got!.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(() => new Webhook(old).verify(got!.body, headersOf(got!))).not.toThrow();
    expect(() => new Webhook(rotated.body.secret).verify(got!.body, headersOf(got!))).not.toThrow();
  });

  test('only admins manage webhooks, the answers with a secret say no-store, and the secret is never shown again', async () => {
    const created = await api.post('/webhooks', { bearer: admin.token, form: { url: receiver.url('/no-store'), events: 'articles.*' } });
    expect(created.headers.get('cache-control')).toBe('no-store');
    const { id, secret } = created.body as { id: string; secret: string };
    const rotated = await api.post(`/webhooks/${id}/secret`, { bearer: admin.token });
    expect(rotated.headers.get('cache-control')).toBe('no-store');
    expect((await api.get(`/webhooks/${id}`, { bearer: admin.token })).headers.get('cache-control')).not.toBe('no-store');
    expect((await api.get('/webhooks', { bearer: author.token })).status).toBe(403);
    expect((await api.get('/webhooks')).status).toBe(401);
    const read = await api.get(`/webhooks/${id}`, { bearer: admin.token });
    expect(read.status).toBe(200);
    expect(read.text).not.toContain(secret.slice(6));
    expect(read.text).not.toContain((rotated.body.secret as string).slice(6));
  });
});

describe('a stack that does not allow private networks', () => {
  let guarded: TestStack;
  let guardedApi: Client;
  beforeAll(async () => {
    guarded = await startTestStack({ env: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'false' } });
    guardedApi = client(guarded.url);
  }, 120_000);
  afterAll(() => guarded?.stop());

  test('refuses with 400 naming url an endpoint whose host resolves to 127.0.0.1', async () => {
    const someone = await aSignedInUser(guardedApi, guarded, { role: 'admin' });
    const port = new URL(receiver.url('/')).port;
    for (const url of [`http://localhost:${port}/hook`, `http://127.0.0.1:${port}/hook`]) {
      const res = await guardedApi.post('/webhooks', { bearer: someone.token, form: { url, events: 'articles.*' } });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code: 'validation_failed', param: 'url' });
    }
    expect((await guardedApi.get('/webhooks', { bearer: someone.token })).body.rows).toEqual([]);
  });
});
