/**
 * The SSRF guard with WEBHOOK_ALLOW_PRIVATE_NETWORKS off (at registration and when connecting),
 * the 100-endpoint bound, and an endpoint turned off after its deliveries failed for too long.
 */
import { createSender } from '../src/delivery/sender';
import { articleEvent, call, startWebhooks, type TestService } from './support/harness';
import { startReceiver, type Receiver } from '../../../test/support/webhook-receiver';

let receiver: Receiver;
beforeAll(async () => {
  receiver = await startReceiver();
});
afterAll(() => receiver?.close());

describe('with private networks not allowed', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startWebhooks({ WEBHOOK_ALLOW_PRIVATE_NETWORKS: false, NODE_ENV: 'production' });
  });
  afterAll(() => service?.stop());

  it.each([
    ['an IP literal on loopback', 'https://127.0.0.1:8443/hook'],
    ['a name resolving to loopback', 'https://localhost:8443/hook'],
    ['the cloud metadata address', 'https://169.254.169.254/latest/meta-data'],
    ['a private network address', 'https://10.1.2.3/hook'],
    ['an IPv4 address written as IPv6', 'https://[::ffff:127.0.0.1]/hook'],
    ['plain http in production', 'http://example.com/hook'],
  ])('refuses %s with 400 naming url', async (_, url) => {
    const res = await call(service.app, 'post', '/webhooks')
      .send({ url, events: ['articles.*'] })
      .expect(400);
    expect(res.body).toMatchObject({ code: 'validation_failed', param: 'url' });
    expect(await service.db.collection('endpoints').countDocuments()).toBe(0);
  });

  it('refuses, when connecting, a name that resolves to 127.0.0.1 (a name can resolve elsewhere after it was registered)', async () => {
    const sender = createSender({ timeoutMs: 2_000, allowPrivateNetworks: false });
    const before = receiver.received().length;
    const port = new URL(receiver.url('/')).port;
    const attempt = await sender.send(`http://localhost:${port}/guarded`, {}, '{}');
    await sender.close();
    expect(attempt.status).toBeUndefined();
    expect(attempt.error).toMatch(/^address not allowed: localhost is (127\.0\.0\.1|::1)/);
    expect(receiver.received().length).toBe(before);
  });

  it('the same sender with private networks allowed reaches it (the refusal above is the guard)', async () => {
    const sender = createSender({ timeoutMs: 2_000, allowPrivateNetworks: true });
    const port = new URL(receiver.url('/')).port;
    const attempt = await sender.send(`http://localhost:${port}/guarded`, {}, '{}');
    await sender.close();
    expect(attempt.status).toBe(200);
  });
});

describe('bounds and failing endpoints', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startWebhooks({ WEBHOOK_RETRY_SCHEDULE: [100, 100, 100, 100, 100, 100, 100, 100], WEBHOOK_DISABLE_AFTER_MS: 300 });
  });
  afterAll(() => service?.stop());

  it('turns off an endpoint whose deliveries have failed for longer than WEBHOOK_DISABLE_AFTER_MS, saying why, and sends it nothing more', async () => {
    const path = '/always-failing';
    receiver.answer(path, ...Array.from({ length: 50 }, () => ({ status: 500 })));
    const created = await call(service.app, 'post', '/webhooks')
      .send({ url: receiver.url(path), events: ['articles.*'] })
      .expect(201);
    const id = created.body.id as string;
    await service.publish(articleEvent());

    const until = Date.now() + 10_000;
    let endpoint: Record<string, any> = {};
    while (Date.now() < until) {
      endpoint = (await call(service.app, 'get', `/webhooks/${id}`).expect(200)).body;
      if (!endpoint.active) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(endpoint).toMatchObject({ active: false, disabled: { reason: expect.stringContaining('HTTP 500') } });
    const sent = receiver.received(path).length;
    await service.publish(articleEvent());
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(receiver.received(path).length).toBe(sent);

    // Turned on again by an admin: the reason goes.
    const on = await call(service.app, 'patch', `/webhooks/${id}`).send({ active: true }).expect(200);
    expect(on.body).toMatchObject({ active: true, disabled: null, failingSince: null });
  });

  it('refuses a 101st endpoint with 400 endpoint_limit_reached', async () => {
    const existing = await service.db.collection('endpoints').countDocuments();
    for (let i = existing; i < 100; i++)
      await call(service.app, 'post', '/webhooks')
        .send({ url: `https://example.com/${i}`, events: ['*'], active: false })
        .expect(201);
    const res = await call(service.app, 'post', '/webhooks')
      .send({ url: 'https://example.com/101', events: ['*'] })
      .expect(400);
    expect(res.body).toMatchObject({ code: 'endpoint_limit_reached' });
    expect(await service.db.collection('endpoints').countDocuments()).toBe(100);
  });
});
