/**
 * The change outbox under a crash: the articles service is SIGKILLed while its events cannot be
 * published (its broker URL leads nowhere) and while a burst of writes is in flight; a second
 * process with the real broker then publishes what the first left. Every record has every event
 * of its versions, and no event names a change that never happened.
 */
import amqplib, { type ChannelModel } from 'amqplib';
import { MongoClient } from 'mongodb';
import type { Principal } from '@restgate/shared';
import type { ChangeEvent } from '@restgate/shared/resource';
import { asPrincipal, uniqueDbName, uniqueSuffix } from '@restgate/shared/testing';
import { aSecret, backing, sleep, startProcess, tempDir, type RunningProcess } from './support/processes';

const work = tempDir('change-crash');
const secret = aSecret();
const prefix = `crash${uniqueSuffix()}.`;
const dbName = uniqueDbName('articles_crash');
const user: Principal = { kind: 'user', id: 'aaaaaaaaaaaaaaaaaaaaaaaa', role: 'user' };
let mongo: MongoClient;
let connection: ChannelModel;
const received = new Map<string, ChangeEvent>();
const running: RunningProcess[] = [];

async function startArticles(amqpUrl: string): Promise<RunningProcess> {
  const proc = await startProcess({
    name: `articles-${running.length + 1}`,
    dir: 'services/articles',
    env: {
      MONGODB_URL: process.env.MONGODB_URL!,
      MONGODB_DB: dbName,
      PRINCIPAL_SECRET: secret,
      AMQP_URL: amqpUrl,
      TOPOLOGY_PREFIX: prefix,
      OUTBOX_POLL_MS: '200',
    },
    logDir: work.dir,
  });
  running.push(proc);
  return proc;
}

function write(base: string, method: 'POST' | 'PATCH', path: string, body: Record<string, unknown>) {
  return fetch(`${base}${path}`, {
    method,
    headers: { 'content-type': 'application/json', ...asPrincipal(user, method, path, secret) },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(10_000),
  });
}

beforeAll(async () => {
  mongo = await MongoClient.connect(process.env.MONGODB_URL!);
  connection = await amqplib.connect(process.env.AMQP_URL!);
  const channel = await connection.createChannel();
  await channel.assertExchange(`${prefix}events`, 'topic', { durable: true });
  const { queue } = await channel.assertQueue('', { exclusive: true });
  await channel.bindQueue(queue, `${prefix}events`, '#');
  await channel.consume(queue, (message) => {
    if (!message) return;
    const event = JSON.parse(message.content.toString()) as ChangeEvent;
    received.set(event.id, event);
    channel.ack(message);
  });
}, 60_000);

afterAll(async () => {
  for (const proc of running) await proc.stop();
  await connection?.close();
  await mongo?.db(dbName).dropDatabase();
  await mongo?.close();
  work.cleanup();
}, 60_000);

test('SIGKILL between the writes and their publishing, and during a burst of writes, loses no event and invents none', async () => {
  // A broker address where nothing listens: the first process's relay never publishes.
  const nowhere = `amqp://guest:guest@127.0.0.1:${await backing.freePort()}`;
  const first = await startArticles(nowhere);
  const ids: string[] = [];
  for (let i = 0; i < 20; i += 1) {
    const res = await write(first.url, 'POST', '/articles', { title: `crash ${i}`, content: 'c' });
    expect(res.status).toBe(201);
    ids.push(((await res.json()) as { id: string }).id);
  }
  for (const id of ids.slice(0, 10))
    expect((await write(first.url, 'PATCH', `/articles/${id}`, { title: `changed ${id}` })).status).toBe(200);
  // A burst in flight when the kill comes: some writes done, some not, some half way.
  const burst = Array.from({ length: 120 }, (_, i) =>
    write(first.url, 'POST', '/articles', { title: `burst ${i}`, content: 'b' }).catch(() => null),
  );
  await sleep(60);
  first.signal('SIGKILL');
  await first.exited;
  await Promise.all(burst);

  const second = await startArticles(process.env.AMQP_URL!);
  const records = mongo.db(dbName).collection<{ _id: unknown; version: number }>('articles');
  const outbox = mongo.db(dbName).collection<{ status: string }>('outbox_changes');
  const until = Date.now() + 60_000;
  // The relay voids a dead writer's claim 10 s after it was made, and publishes the rest.
  while ((await outbox.countDocuments({ status: 'pending' })) > 0 && Date.now() < until) await sleep(250);
  expect(await outbox.countDocuments({ status: 'pending' })).toBe(0);
  await sleep(500);

  const stored = await records.find({}).toArray();
  const events = [...received.values()];
  const byRecord = new Map<string, number[]>();
  for (const event of events) byRecord.set(event.recordId, [...(byRecord.get(event.recordId) ?? []), event.seq]);
  // Every stored record has an event for each of its versions, and only those.
  const missing = stored.filter((doc) => {
    const seqs = (byRecord.get(String(doc._id)) ?? []).sort((a, b) => a - b);
    return seqs.join() !== Array.from({ length: doc.version }, (_, i) => i + 1).join();
  });
  expect(missing.map((doc) => String(doc._id))).toEqual([]);
  // No event for a record that was never stored (a claim whose write never happened).
  const storedIds = new Set(stored.map((doc) => String(doc._id)));
  expect(events.filter((event) => !storedIds.has(event.recordId)).map((e) => e.recordId)).toEqual([]);
  expect(stored.length).toBeGreaterThanOrEqual(20);
  process.stderr.write(
    `[crash] ${stored.length} records (20 before the kill, ${stored.length - 20} of the 120 in the burst), ${events.length} events, ${second.logLines().filter((l) => l.msg === 'change event voided: its change never happened').length} claims voided\n`,
  );
}, 120_000);
