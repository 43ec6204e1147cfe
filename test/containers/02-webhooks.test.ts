/**
 * Webhooks under compose, through faults: 200 articles created while the webhooks service's
 * process is SIGKILLed once and the broker restarted once. A receiver on this host (the address the egress
 * network's containers reach it by) must get every article's created event, each verified with the
 * standardwebhooks package; counted by `webhook-id`, none missing (a repeat is allowed: delivery
 * is at least once, and the id is how a receiver tells).
 */
import { Webhook } from 'standardwebhooks';
import { aUser, anArticle } from '../support/actors';
import { startReceiver, type Receiver } from '../support/webhook-receiver';
import { allHealthy, api, compose, container, docker, eventually, killNode, masterKey, restarted, signIn, signedUp } from './support';

const ARTICLES = 200;
let receiver: Receiver;

beforeAll(async () => {
  await allHealthy();
  // The egress network's gateway is this host's address on it.
  const network = (await compose(['config', '--format', 'json']).then((out) => JSON.parse(out).networks.egress.name)) as string;
  const gateway = (await docker(['network', 'inspect', network, '--format', '{{(index .IPAM.Config 0).Gateway}}'])).trim();
  receiver = await startReceiver(gateway);
});

afterAll(async () => {
  await receiver?.close();
  await allHealthy();
});

test('200 articles across a SIGKILL of webhooks and a broker restart: the receiver gets every created event, none missing', async () => {
  const admin = aUser();
  expect((await api.post('/users', { form: { ...admin, role: 'admin', access_token: masterKey } })).status).toBe(201);
  const adminToken = (await signIn(admin)).body.token as string;
  const author = aUser();
  await signedUp(author);
  const token = (await signIn(author)).body.token as string;
  const endpoint = await api.post('/webhooks', { bearer: adminToken, form: { url: receiver.url('/faults'), events: 'articles.created' } });
  expect(endpoint.status).toBe(201);
  const secret = endpoint.body.secret as string;

  const created: string[] = [];
  for (let i = 0; i < ARTICLES; i++) {
    if (i === 50) {
      const webhooks = await container('webhooks');
      killNode(webhooks.pid);
      await restarted('webhooks', webhooks);
    }
    if (i === 120) {
      const rabbit = await container('rabbitmq');
      await compose(['restart', 'rabbitmq'], 180_000);
      await restarted('rabbitmq', rabbit);
    }
    const res = await api.post('/articles', { bearer: token, form: anArticle() });
    expect(res.status).toBe(201);
    created.push(res.body.id as string);
  }

  const hook = new Webhook(secret);
  const byId = new Map<string, string>();
  const got = await eventually(
    'a delivery of every article',
    async () => {
      for (const r of receiver.received('/faults')) {
        const payload = hook.verify(r.body, {
          'webhook-id': String(r.headers['webhook-id']),
          'webhook-timestamp': String(r.headers['webhook-timestamp']),
          'webhook-signature': String(r.headers['webhook-signature']),
        }) as { data: { id: string } };
        byId.set(String(r.headers['webhook-id']), payload.data.id);
      }
      const delivered = new Set(byId.values());
      return created.every((id) => delivered.has(id)) ? delivered : undefined;
    },
    180_000,
    1_000,
  );
  const requests = receiver.received('/faults').length;
  const missing = created.filter((id) => !got.has(id));
  process.stdout.write(
    `[containers] webhooks across a SIGKILL and a broker restart: ${ARTICLES} articles, ${requests} requests, ${byId.size} distinct webhook-ids, ${missing.length} missing\n`,
  );
  expect(missing).toEqual([]);
  expect(byId.size).toBe(ARTICLES);
});
