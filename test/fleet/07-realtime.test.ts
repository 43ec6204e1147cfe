/**
 * Scenario 7: realtime through the balancer. 200 event streams are open while articles are created
 * at 10/s, and meanwhile (a) every gateway replica is replaced by a rolling update, then one is
 * SIGKILLed; (b) one is frozen (SIGSTOP): the balancer's health check takes it out and cuts its
 * streams, which resume on another replica. After de-duplicating by event id every stream has
 * the created event of every article whose create was answered 201: none missing.
 */
import fs from 'node:fs';
import { EventSource } from 'eventsource';
import { anAccount, call, containersOf, docker, fleetSettled, gatewayUrl, rollingUpdate, type Account } from './support';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const STREAMS = 200;
const WRITES_PER_SECOND = 10;

interface Subscriber {
  source: EventSource;
  /** Article ids of the created events received, by event id (de-duplicated). */
  created: Map<string, string>;
  opens: number;
}

function subscribe(): Subscriber {
  const subscriber: Subscriber = { source: new EventSource(`${gatewayUrl}/realtime?topics=articles`), created: new Map(), opens: 0 };
  subscriber.source.addEventListener('connected', () => (subscriber.opens += 1));
  subscriber.source.addEventListener('articles.created', (event) => {
    const data = JSON.parse(event.data) as { id: string; record: { id: string } };
    subscriber.created.set(data.id, data.record.id);
  });
  subscriber.source.onerror = () => undefined;
  return subscriber;
}

/** Creates articles at WRITES_PER_SECOND until `stop()`; resolves with the ids answered 201. */
function writer(account: Account) {
  let running = true;
  const ids: string[] = [];
  const pending: Array<Promise<void>> = [];
  const loop = (async () => {
    for (let i = 0; running; i += 1) {
      pending.push(
        call('POST', '/articles', { bearer: account.token, form: { title: `realtime ${i}`, content: 'created by the fleet load' } }).then(
          (answer) => {
            if (answer.status === 201) ids.push(answer.body.id);
          },
          () => undefined,
        ),
      );
      await sleep(1000 / WRITES_PER_SECOND);
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      await Promise.all(pending);
      return ids;
    },
  };
}

async function missingAfter(subscribers: Subscriber[], ids: string[], limitMs: number) {
  const deadline = Date.now() + limitMs;
  const missing = () => subscribers.map((s) => ids.filter((id) => ![...s.created.values()].includes(id)).length);
  while (missing().some((n) => n > 0) && Date.now() < deadline) await sleep(500);
  return missing();
}

/**
 * The gateway's own process in a container, by its host pid: a signal to the container (docker
 * kill) reaches its init process, which passes SIGSTOP on to nobody, and the gateway would run on.
 */
async function nodePidOf(container: string): Promise<number> {
  const init = Number((await docker(['inspect', '--format', '{{.State.Pid}}', container])).trim());
  const children = fs.readFileSync(`/proc/${init}/task/${init}/children`, 'utf8').trim().split(/\s+/).map(Number);
  const node = children.find((pid) => fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')[0] === 'node');
  if (!node) throw new Error(`no node process under pid ${init} of ${container}`);
  return node;
}

let subscribers: Subscriber[] = [];

beforeAll(async () => {
  await fleetSettled();
});

afterAll(() => {
  for (const s of subscribers) s.source.close();
});

test('200 streams through a rolling update and a SIGKILL of gateway replicas, with writes at 10/s: every stream has every event', async () => {
  subscribers = Array.from({ length: STREAMS }, subscribe);
  const account = await anAccount();
  const writes = writer(account);
  await sleep(3_000);
  await rollingUpdate(['gateway']);
  await fleetSettled();
  const [victim] = await containersOf('gateway');
  await docker(['kill', '--signal', 'KILL', victim!]);
  await sleep(5_000);
  await fleetSettled();
  await sleep(3_000);
  const ids = await writes.stop();
  const missing = await missingAfter(subscribers, ids, 60_000);
  const reconnects = subscribers.reduce((sum, s) => sum + s.opens - 1, 0);
  process.stdout.write(
    `[fleet]   realtime: ${ids.length} articles created, ${STREAMS} streams, ${reconnects} reconnects; missing per stream max ${Math.max(...missing)}\n`,
  );

  expect(ids.length).toBeGreaterThan(100);
  expect(reconnects).toBeGreaterThanOrEqual(STREAMS);
  expect(missing.filter((n) => n > 0)).toEqual([]);
});

test('a frozen gateway (SIGSTOP) is taken out by the balancer, and its streams resume on another replica with nothing missing', async () => {
  // Streams of their own, spread over the replicas as they are now (the earlier test's have
  // crowded onto the replicas that survived its kill).
  for (const s of subscribers) s.source.close();
  subscribers = Array.from({ length: STREAMS }, subscribe);
  const deadline = Date.now() + 60_000;
  while (subscribers.some((s) => s.opens === 0) && Date.now() < deadline) await sleep(250);
  const account = await anAccount();
  const before = subscribers.reduce((sum, s) => sum + s.opens, 0);
  const writes = writer(account);
  const [frozen] = await containersOf('gateway');
  const pid = await nodePidOf(frozen!);
  await sleep(2_000);
  process.kill(pid, 'SIGSTOP');
  try {
    // The balancer checks /ready every 500 ms and takes a replica out after 2 failures, cutting its streams.
    await sleep(10_000);
    const ids = await writes.stop();
    const missing = await missingAfter(subscribers, ids, 60_000);
    const reopened = subscribers.reduce((sum, s) => sum + s.opens, 0) - before;
    process.stdout.write(
      `[fleet]   realtime, frozen replica: ${ids.length} articles created, ${reopened} streams reopened elsewhere; missing per stream max ${Math.max(...missing)}\n`,
    );

    expect(reopened).toBeGreaterThan(0);
    expect(missing.filter((n) => n > 0)).toEqual([]);
  } finally {
    process.kill(pid, 'SIGCONT');
  }
  // It is alive again and must come back into service.
  await fleetSettled();
  expect((await call('GET', '/ready')).status).toBe(200);
});
