/**
 * The webhooks service in-process against the test's MongoDB and RabbitMQ, delivering to a real
 * HTTP receiver on loopback: change events in, signed deliveries out, verified with the
 * `standardwebhooks` package as a receiver would; retries, the log, rotation, order and bounds.
 */
import { Webhook } from 'standardwebhooks';
import { articleEvent, call, startWebhooks, USER, type TestService } from './support/harness';
import { startReceiver, type Receiver } from '../../../test/support/webhook-receiver';

let service: TestService;
let receiver: Receiver;

beforeAll(async () => {
  [service, receiver] = await Promise.all([startWebhooks(), startReceiver()]);
});

afterAll(async () => {
  await service?.stop();
  await receiver?.close();
});

let paths = 0;
/** An endpoint of its own path at the receiver, subscribed to `events`. */
async function anEndpoint(events: string[] = ['articles.*']): Promise<{ id: string; secret: string; path: string }> {
  const path = `/hook-${++paths}`;
  const res = await call(service.app, 'post', '/webhooks')
    .send({ url: receiver.url(path), events })
    .expect(201);
  return { id: res.body.id as string, secret: res.body.secret as string, path };
}

async function deliveriesOf(id: string, query = ''): Promise<Array<Record<string, any>>> {
  const res = await call(service.app, 'get', `/webhooks/${id}/deliveries${query}`).expect(200);
  return res.body.rows as Array<Record<string, any>>;
}

async function eventually<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 10_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > until) throw new Error(`not within ${timeoutMs} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

const headersOf = (r: { headers: Record<string, unknown> }) => ({
  'webhook-id': String(r.headers['webhook-id']),
  'webhook-timestamp': String(r.headers['webhook-timestamp']),
  'webhook-signature': String(r.headers['webhook-signature']),
});

describe('registering an endpoint', () => {
  it('answers 201 with the secret once; reads never show it, and the database holds it only sealed', async () => {
    const { id, secret } = await anEndpoint(['articles.*', 'users.created']);
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);

    const read = await call(service.app, 'get', `/webhooks/${id}`).expect(200);
    expect(read.body).toMatchObject({ id, events: ['articles.*', 'users.created'], active: true, disabled: null });
    expect(JSON.stringify(read.body)).not.toContain(secret.slice(6));
    const listed = await call(service.app, 'get', '/webhooks?count=true').expect(200);
    expect(JSON.stringify(listed.body)).not.toContain(secret.slice(6));
    const stored = await service.db.collection('endpoints').find({}).toArray();
    expect(JSON.stringify(stored)).not.toContain(secret.slice(6));
  });

  it.each([
    ['a URL that is not absolute http(s)', { url: 'ftp://example.com/x', events: ['articles.*'] }, 'url'],
    ['a relative URL', { url: '/hook', events: ['articles.*'] }, 'url'],
    ['an unknown resource', { url: 'https://example.com/x', events: ['invoices.*'] }, 'events'],
    ['an unknown action', { url: 'https://example.com/x', events: ['articles.archived'] }, 'events'],
    ['no events', { url: 'https://example.com/x', events: [] }, 'events'],
  ])('refuses %s with 400 naming the field, and registers nothing', async (_, body, param) => {
    const before = await service.db.collection('endpoints').countDocuments();
    const res = await call(service.app, 'post', '/webhooks').send(body).expect(400);
    expect(res.body).toMatchObject({ code: 'validation_failed', param });
    expect(await service.db.collection('endpoints').countDocuments()).toBe(before);
  });

  it('is for admins only', async () => {
    await call(service.app, 'post', '/webhooks', USER)
      .send({ url: 'https://example.com/x', events: ['*'] })
      .expect(403);
    await call(service.app, 'get', '/webhooks', USER).expect(403);
  });
});

describe('delivering change events', () => {
  it('POSTs each subscribed event once, signed so that the standardwebhooks package verifies it, with the admin view as data', async () => {
    const { id, secret, path } = await anEndpoint(['articles.created']);
    const event = articleEvent();
    await service.publish(articleEvent({ type: 'articles.deleted' })); // not subscribed
    await service.publish(event);

    const [got] = await receiver.waitFor(path, 1);
    const payload = new Webhook(secret).verify(got!.body, headersOf(got!)) as Record<string, any>;
    expect(got!.headers['webhook-id']).toBe(event.id);
    expect(got!.headers['content-type']).toBe('application/json');
    expect(payload).toEqual({
      type: 'articles.created',
      timestamp: event.at,
      data: expect.objectContaining({ id: event.recordId, title: 'A title' }),
    });
    // A signature under another secret does not verify.
    expect(() => new Webhook(`whsec_${Buffer.alloc(32, 7).toString('base64')}`).verify(got!.body, headersOf(got!))).toThrow();
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(receiver.received(path)).toHaveLength(1);
    const [logged] = await deliveriesOf(id);
    expect(logged).toMatchObject({ eventId: event.id, type: 'articles.created', status: 'succeeded', requestId: 'req-test' });
    expect(logged!.attempts).toEqual([expect.objectContaining({ status: 200, response: 'ok' })]);
  });

  it('a receiver failing twice then answering 200 gets the same webhook-id three times, and the log shows three attempts', async () => {
    const { id, secret, path } = await anEndpoint();
    receiver.answer(path, { status: 503, body: 'busy' }, { status: 500 });
    const event = articleEvent();
    await service.publish(event);

    const got = await receiver.waitFor(path, 3);
    expect(got.map((r) => r.headers['webhook-id'])).toEqual([event.id, event.id, event.id]);
    for (const r of got) expect(() => new Webhook(secret).verify(r.body, headersOf(r))).not.toThrow();
    const [logged] = await eventually('the third attempt logged', async () => {
      const rows = await deliveriesOf(id);
      return rows[0]?.status === 'succeeded' ? rows : undefined;
    });
    expect(logged!.attempts.map((a: { status: number }) => a.status)).toEqual([503, 500, 200]);
    expect(logged!.attempts[0].response).toBe('busy');
  });

  it('a 400 from the receiver is not retried: the delivery has failed, and the failed filter finds it', async () => {
    const { id, path } = await anEndpoint();
    receiver.answer(path, { status: 400, body: 'no' });
    await service.publish(articleEvent());

    await receiver.waitFor(path, 1);
    const [failed] = await eventually('the delivery failed', async () => {
      const rows = await deliveriesOf(id, '?status[eq]=failed');
      return rows.length === 1 ? rows : undefined;
    });
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(receiver.received(path)).toHaveLength(1);
    expect(failed).toMatchObject({ status: 'failed', nextAt: null });
    expect(await deliveriesOf(id, '?status[eq]=succeeded')).toEqual([]);

    // Sent again by hand: once more, now.
    await call(service.app, 'post', `/webhooks/${id}/deliveries/${failed!.id}/retry`).expect(202);
    await receiver.waitFor(path, 2);
  });

  it('honours Retry-After on a 429', async () => {
    const { path } = await anEndpoint();
    receiver.answer(path, { status: 429, headers: { 'retry-after': '1' } });
    await service.publish(articleEvent());

    const [first, second] = await receiver.waitFor(path, 2, 5_000);
    expect(second!.at - first!.at).toBeGreaterThanOrEqual(950);
  });

  it("delivers one record's events in their order, a later one waiting while an earlier one is retried", async () => {
    const { path } = await anEndpoint();
    receiver.answer(path, { status: 503 });
    const first = articleEvent({ seq: 1 });
    const recordId = first.recordId;
    await service.publish(first);
    await receiver.waitFor(path, 1);
    await service.publish(articleEvent({ recordId, seq: 2, id: `${recordId}:2`, type: 'articles.updated' }));
    await service.publish(articleEvent({ recordId, seq: 3, id: `${recordId}:3`, type: 'articles.deleted' }));

    const got = await receiver.waitFor(path, 4);
    expect(got.map((r) => r.headers['webhook-id'])).toEqual([`${recordId}:1`, `${recordId}:1`, `${recordId}:2`, `${recordId}:3`]);
  });

  it('an event delivered twice by the broker is delivered once', async () => {
    const { path } = await anEndpoint();
    const event = articleEvent();
    await service.publish(event);
    await service.publish(event);
    await receiver.waitFor(path, 1);
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(receiver.received(path)).toHaveLength(1);
  });

  it('POST /webhooks/:id/test sends a webhook.test event to that endpoint', async () => {
    const { id, secret, path } = await anEndpoint(['users.deleted']);
    const res = await call(service.app, 'post', `/webhooks/${id}/test`).expect(202);
    const [got] = await receiver.waitFor(path, 1);
    expect(got!.headers['webhook-id']).toBe(res.body.eventId);
    expect(new Webhook(secret).verify(got!.body, headersOf(got!))).toMatchObject({ type: 'webhook.test', data: { endpointId: id } });
  });
});

describe('rotating the secret', () => {
  it('signs with both the old and the new secret during the overlap', async () => {
    const { id, secret: old, path } = await anEndpoint();
    const rotated = await call(service.app, 'post', `/webhooks/${id}/secret`).expect(200);
    const fresh = rotated.body.secret as string;
    expect(fresh).not.toBe(old);
    await service.publish(articleEvent());

    const [got] = await receiver.waitFor(path, 1);
    expect(String(got!.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(() => new Webhook(old).verify(got!.body, headersOf(got!))).not.toThrow();
    expect(() => new Webhook(fresh).verify(got!.body, headersOf(got!))).not.toThrow();
  });
});

describe('receivers that misbehave', () => {
  it('a redirect is not followed, and fails the delivery', async () => {
    const { id, path } = await anEndpoint();
    receiver.answer(path, { status: 302, headers: { location: receiver.url('/elsewhere') } });
    await service.publish(articleEvent());
    const [failed] = await eventually('the delivery failed', async () => {
      const rows = await deliveriesOf(id, '?status[eq]=failed');
      return rows.length === 1 ? rows : undefined;
    });
    expect(failed!.attempts[0]).toMatchObject({ status: 302, error: 'redirect not followed' });
    expect(receiver.received('/elsewhere')).toHaveLength(0);
  });

  it('keeps only the first 4 KiB of a huge answer', async () => {
    const { id, path } = await anEndpoint();
    receiver.answer(path, { status: 200, body: Buffer.alloc(8 * 1024 * 1024, 'x') });
    await service.publish(articleEvent());
    const [done] = await eventually('the delivery logged', async () => {
      const rows = await deliveriesOf(id);
      return rows[0]?.status === 'succeeded' ? rows : undefined;
    });
    expect(done!.attempts[0].response).toHaveLength(4_096);
  });

  it("an endpoint that never answers does not hold up another endpoint's deliveries", async () => {
    const slow = await anEndpoint();
    const fast = await anEndpoint();
    receiver.answer(slow.path, ...Array.from({ length: 20 }, () => 'hang' as const));
    for (let i = 0; i < 10; i++) await service.publish(articleEvent());
    const started = Date.now();
    await receiver.waitFor(fast.path, 10, 5_000);
    // The slow endpoint's attempts wait for the 2 s timeout; the fast one's did not.
    expect(Date.now() - started).toBeLessThan(1_500);
  });
});
