import amqplib, { type ChannelModel } from 'amqplib';
import { setTimeout as sleep } from 'node:timers/promises';
import { eventsExchangeName, type ChangeEvent } from '@restgate/shared/resource';
import { MASTER, startIdentity, type IdentityHarness } from './support/identity-harness';

let h: IdentityHarness;
let connection: ChannelModel;
const received: Array<ChangeEvent & { routingKey: string }> = [];

beforeAll(async () => {
  h = await startIdentity();
  h.start();
  await h.amqp.waitUntilConnected(10_000);
  connection = await amqplib.connect(process.env.AMQP_URL!);
  const channel = await connection.createChannel();
  const exchange = eventsExchangeName(h.config.TOPOLOGY_PREFIX);
  await channel.assertExchange(exchange, 'topic', { durable: true });
  const { queue } = await channel.assertQueue('', { exclusive: true });
  await channel.bindQueue(queue, exchange, 'users.*');
  await channel.consume(queue, (message) => {
    if (message) received.push({ ...(JSON.parse(message.content.toString()) as ChangeEvent), routingKey: message.fields.routingKey });
  });
});

afterAll(async () => {
  await connection?.close();
  await h?.close();
});

async function eventsOf(recordId: string, count: number) {
  const until = Date.now() + 20_000;
  while (received.filter((e) => e.recordId === recordId).length < count && Date.now() < until) await sleep(25);
  return received.filter((e) => e.recordId === recordId);
}

describe('users: change events', () => {
  test('a sign-up, a rename and a delete publish users.created, users.updated and users.deleted, without anything of the password', async () => {
    const password = `pw-secret-${Date.now()}`;
    const created = await h
      .call('post', '/users', MASTER)
      .set('X-Request-Id', 'req-signup')
      .send({ email: `ev${Date.now()}@example.com`, password, name: 'Eve' });
    expect(created.status).toBe(201);
    const user = (created.body.user ?? created.body) as { id: string; role: 'user' };
    const principal = { kind: 'user' as const, id: user.id, role: user.role };
    await h.call('patch', '/users/me', principal).set('X-Request-Id', 'req-rename').send({ name: 'Eve Renamed' }).expect(200);
    const admin = await h.aUser({ role: 'admin' });
    await h.call('delete', `/users/${user.id}`, admin.principal).set('X-Request-Id', 'req-delete').expect(204);

    const events = await eventsOf(user.id, 3);
    expect(events.map((e) => [e.routingKey, e.seq, e.requestId])).toEqual([
      ['users.created', 1, 'req-signup'],
      ['users.updated', 2, 'req-rename'],
      ['users.deleted', 3, 'req-delete'],
    ]);
    expect(events[0]).toMatchObject({
      resource: 'users',
      actor: { id: null, role: 'master' },
      record: { id: user.id, name: 'Eve', role: 'user' },
    });
    expect(events[1]).toMatchObject({
      actor: { id: user.id, role: 'user' },
      changed: ['name'],
      record: { name: 'Eve Renamed', version: 2 },
    });
    expect(events[2]).toMatchObject({ actor: { id: admin.id, role: 'admin' }, record: { name: 'Eve Renamed' } });
    // Nothing of the credentials leaves the service: neither the hash nor any field about it.
    const text = JSON.stringify(events);
    expect(text).not.toMatch(/passwordHash|passwordProven|credentials|\$argon2|\$2[aby]\$/);
    expect(text).not.toContain(password);
  });
});
