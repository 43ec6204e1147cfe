import amqplib, { type Channel, type ChannelModel, type ConsumeMessage } from 'amqplib';
import { setTimeout as sleep } from 'node:timers/promises';
import { ObjectId } from 'mongodb';
import { actorOf, changeEvent, ChangeOutbox, type ChangeEvent } from '@restgate/shared/resource';
import { articleResource } from '../src/resource';
import { ACCESS, aCreator, anArticle, callerFor, describeUnless, MARKER_FIELD } from './support/builders';
import { call, startArticles, type TestService } from './support/harness';

const NAME = articleResource.name;
const FIELD = MARKER_FIELD;
type Received = ChangeEvent & { routingKey: string };

let service: TestService;
let connection: ChannelModel;
let channel: Channel;
const received: Received[] = [];

beforeAll(async () => {
  service = await startArticles({}, { events: true });
  connection = await amqplib.connect(process.env.AMQP_URL!);
  channel = await connection.createChannel();
  await channel.assertExchange(service.eventsExchange, 'topic', { durable: true });
  const { queue } = await channel.assertQueue('', { exclusive: true });
  await channel.bindQueue(queue, service.eventsExchange, `${NAME}.*`);
  await channel.consume(queue, (message: ConsumeMessage | null) => {
    if (message) received.push({ ...(JSON.parse(message.content.toString()) as ChangeEvent), routingKey: message.fields.routingKey });
  });
});

afterAll(async () => {
  await connection?.close();
  await service?.stop();
});

async function eventsOf(recordId: string, count: number): Promise<Received[]> {
  const until = Date.now() + 10_000;
  const mine = () => received.filter((event) => event.recordId === recordId);
  while (mine().length < count && Date.now() < until) await sleep(25);
  return mine();
}

describeUnless(
  'create',
  'update',
  'delete',
  'read',
)(`${NAME}: change events of HTTP writes`, () => {
  it('publishes one event per create, update and delete, in order, with the envelope the contract names', async () => {
    const user = aCreator();
    const updater = callerFor(ACCESS.update, user);
    const deleter = callerFor(ACCESS.delete, user);
    const created = await call(service.app, 'post', `/${NAME}`, user).set('X-Request-Id', 'req-create-1').send(anArticle()).expect(201);
    const id = created.body.id as string;
    const changed = await call(service.app, 'patch', `/${NAME}/${id}`, updater)
      .set('X-Request-Id', 'req-update-1')
      .send({ [FIELD]: `changed ${id}` })
      .expect(200);
    await call(service.app, 'delete', `/${NAME}/${id}`, deleter).set('X-Request-Id', 'req-delete-1').expect(204);

    const events = await eventsOf(id, 3);
    expect(events.map((e) => [e.type, e.routingKey, e.seq])).toEqual([
      [`${NAME}.created`, `${NAME}.created`, 1],
      [`${NAME}.updated`, `${NAME}.updated`, 2],
      [`${NAME}.deleted`, `${NAME}.deleted`, 3],
    ]);
    const [create, update, remove] = events as [Received, Received, Received];
    expect(new Set(events.map((e) => e.id)).size).toBe(3);
    expect(create).toMatchObject({
      resource: NAME,
      recordId: id,
      requestId: 'req-create-1',
      actor: { id: user.id, role: user.role },
      changed: [],
    });
    expect(create.record).toMatchObject({ id, userId: user.id, version: 1, [FIELD]: created.body[FIELD] });
    expect(update).toMatchObject({ requestId: 'req-update-1', actor: actorOf(updater), changed: [FIELD] });
    expect(update.record).toMatchObject({ id, version: 2, [FIELD]: changed.body[FIELD], updatedAt: changed.body.updatedAt });
    // A delete carries the record as it was, and whoever deleted it as its actor.
    expect(remove).toMatchObject({ requestId: 'req-delete-1', actor: actorOf(deleter) });
    expect(remove.record).toMatchObject({ id, version: 2, [FIELD]: changed.body[FIELD] });
    expect(Date.parse(remove.at)).toBeGreaterThanOrEqual(Date.parse(update.at));
  });

  it('makes a write wait for the version another write holds, so each version has one event', async () => {
    const user = aCreator();
    const updater = callerFor(ACCESS.update, user);
    const created = await call(service.app, 'post', `/${NAME}`, user).send(anArticle()).expect(201);
    const id = created.body.id as string;
    const writes = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        call(service.app, 'patch', `/${NAME}/${id}`, updater)
          .send({ [FIELD]: `write ${i}` })
          .then((res) => res.status),
      ),
    );
    expect(writes).toEqual(Array(6).fill(200));
    const events = await eventsOf(id, 7);
    expect(events.map((e) => e.seq)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    // Each event's record is the one its write made: the last one is what is stored.
    const stored = await call(service.app, 'get', `/${NAME}/${id}`, updater).expect(200);
    expect(events[6]!.record[FIELD]).toBe(stored.body[FIELD]);
  });
});

describe(`${NAME}: the change outbox`, () => {
  it('voids an event whose change never happened (a writer that died between its claim and its write), publishes nothing for it, and frees its version', async () => {
    const outbox = new ChangeOutbox(service.db);
    const ghost = { id: new ObjectId().toHexString(), [FIELD]: 'never stored' };
    const event = changeEvent(NAME, 'created', ghost, 1, [], new Date());
    // Claimed 20 s ago: past the relay's 10 s, so the relay decides at once.
    expect(await outbox.claim(event, new Date(Date.now() - 20_000))).not.toBeNull();
    const until = Date.now() + 10_000;
    let entry = await outbox.entries.findOne({ _id: `${ghost.id}:1` });
    while (entry && Date.now() < until) {
      await sleep(50);
      entry = await outbox.entries.findOne({ _id: `${ghost.id}:1` });
    }
    // Voided: removed, so that the version is free for the next writer.
    expect(entry).toBeNull();
    expect(await outbox.claim(changeEvent(NAME, 'created', ghost, 1))).not.toBeNull();
    await outbox.entries.deleteOne({ _id: `${ghost.id}:1` });
    await sleep(300);
    expect(received.filter((e) => e.recordId === ghost.id)).toEqual([]);
  });
});
