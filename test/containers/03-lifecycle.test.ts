/**
 * The stack's life under compose: `docker compose stop` stops every service gracefully within its
 * grace period; after `docker compose restart` the data and a mail queued while the mailer was
 * down are still there; a SIGKILLed mailer is restarted by compose, and across that and a broker
 * restart no reset mail is lost or sent twice (counted in Mailpit). The tests run in order and
 * share the stack: each leaves it running and healthy.
 */
import fs from 'node:fs';
import { aUser, anArticle } from '../support/actors';
import { readRegistry } from '../../gateway/src/registry';
import { expectProblem } from '../support/shapes';
import {
  allHealthy,
  api,
  compose,
  container,
  containers,
  deleteAllMail,
  docker,
  eventually,
  mails,
  mailsWithSubject,
  requestReset,
  signIn,
  signedUp,
  type ContainerState,
} from './support';

// Sign-up sends a verification mail too: these tests count the reset mails.
const resetMailsTo = (email: string) => mailsWithSubject(email, 'Reset your password');

const registry = readRegistry();
/** The Node processes compose runs: the gateway and every service of the registry. */
const NODE_SERVICES = [registry.gateway, ...registry.services].map((s) => s.name);

/** Messages ready and unacknowledged in the broker's queues, by queue name. */
async function queues(): Promise<Record<string, { ready: number; unacked: number }>> {
  const out = await compose([
    'exec',
    '-T',
    'rabbitmq',
    'rabbitmqctl',
    '-q',
    'list_queues',
    'name',
    'messages_ready',
    'messages_unacknowledged',
  ]);
  const rows = out
    .split('\n')
    .map((line) => line.trim().split(/\s+/))
    .filter((cols) => cols.length === 3 && /^\d+$/.test(cols[1]!) && /^\d+$/.test(cols[2]!));
  return Object.fromEntries(rows.map(([name, ready, unacked]) => [name, { ready: Number(ready), unacked: Number(unacked) }]));
}

const queuedTotal = async () => Object.values(await queues()).reduce((sum, q) => sum + q.ready + q.unacked, 0);

/** Grace periods from the resolved compose model: stop_grace_period, compose's default 10 s otherwise. */
async function gracePeriodsMs(): Promise<Record<string, number>> {
  const model = JSON.parse(await compose(['config', '--format', 'json']));
  const toMs = (d: string | undefined) => {
    if (!d) return 10_000;
    const m = /^(?:(\d+)m)?(?:(\d+(?:\.\d+)?)s)?$/.exec(d);
    if (!m) throw new Error(`unexpected stop_grace_period ${d}`);
    return (Number(m[1] ?? 0) * 60 + Number(m[2] ?? 0)) * 1000;
  };
  return Object.fromEntries(
    Object.entries(model.services as Record<string, { stop_grace_period?: string }>).map(([s, spec]) => [s, toMs(spec.stop_grace_period)]),
  );
}

async function finishedAt(c: ContainerState): Promise<number> {
  return Date.parse((await docker(['inspect', '--format', '{{.State.FinishedAt}}', c.id])).trim());
}

async function logsSince(c: ContainerState, since: Date): Promise<string> {
  return docker(['logs', '--since', since.toISOString(), c.id]).catch((e: Error) => e.message);
}

/** The host pid of the node process in a service's container (a child of compose's init, PID 1 inside). */
function nodePid(c: ContainerState): number {
  const children = fs.readFileSync(`/proc/${c.pid}/task/${c.pid}/children`, 'utf8').trim().split(/\s+/).map(Number);
  // By its command line: node 26 names its main thread node-MainThread, which is what comm shows.
  const node = children.find((pid) => fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')[0] === 'node');
  if (!node) throw new Error(`no node process under pid ${c.pid} (${c.service})`);
  return node;
}

describe('stop and restart', () => {
  const seeded: { user: ReturnType<typeof aUser>; articleId: string; queuedFor: ReturnType<typeof aUser> } = {} as never;

  beforeAll(async () => {
    const { user } = await signedUp();
    const token = (await signIn(user)).body.token as string;
    const article = await api.post('/articles', { form: { ...anArticle(), access_token: token } });
    expect(article.status).toBe(201);
    seeded.user = user;
    seeded.articleId = article.body.id;

    // A mail queued while nobody consumes it: the mailer stopped, the reset asked for.
    await compose(['stop', 'mailer']);
    seeded.queuedFor = (await signedUp()).user;
    expect((await requestReset(seeded.queuedFor.email)).status).toBe(202);
    await eventually('the reset mail request queued in RabbitMQ', async () => ((await queuedTotal()) >= 1 ? true : undefined));
  });

  test('docker compose stop: exit code 0; every container stops within its grace period, the Node services with exit code 0 and "stopped" in their log', async () => {
    const grace = await gracePeriodsMs();
    const before = await containers();
    const since = new Date();
    const started = Date.now();

    await compose(['stop'], 5 * 60_000); // rejects on a non-zero exit code

    const took = Date.now() - started;
    const after = await containers();
    const report = await Promise.all(
      after.map(async (c) => ({
        service: c.service,
        state: c.state,
        exitCode: c.exitCode,
        withinGrace: (await finishedAt(c)) - started < grace[c.service]!,
        stoppedLogged: /"msg":"stopped"/.test(await logsSince(c, since)),
      })),
    );
    process.stdout.write(`docker compose stop took ${Math.round(took / 100) / 10} s\n`);
    expect(after.map((c) => c.service).sort()).toEqual(before.map((c) => c.service).sort());
    for (const r of report) {
      const wasRunning = before.find((c) => c.service === r.service)!.state === 'running';
      expect(r).toEqual({
        service: r.service,
        state: 'exited',
        exitCode: 0,
        withinGrace: true,
        // The mailer was stopped before (and logged it then); the others log it now.
        stoppedLogged: NODE_SERVICES.includes(r.service) && wasRunning,
      });
    }
  });

  test('docker compose restart: healthy again; the user, the article and the mail queued while the mailer was down are all there', async () => {
    await compose(['restart'], 5 * 60_000);
    await allHealthy();

    const signedIn = await signIn(seeded.user);
    const article = await api.get(`/articles/${seeded.articleId}`);
    const queuedMail = await eventually('the queued reset mail in Mailpit', async () =>
      (await resetMailsTo(seeded.queuedFor.email)).length > 0 ? true : undefined,
    );

    expect(signedIn.status).toBe(201);
    expect(article.status).toBe(200);
    expect(article.body.id).toBe(seeded.articleId);
    expect(queuedMail).toBe(true);
    await eventually('the queues drained', async () => ((await queuedTotal()) === 0 ? true : undefined));
    expect(await resetMailsTo(seeded.queuedFor.email)).toHaveLength(1);
  });
});

describe('a SIGKILLed mailer and a broker restart', () => {
  // The mailer is killed while idle: a kill in the instant between the SMTP server's acceptance and
  // the mailer's record of it leaves the outcome unknown, and the mailer then sends again once the
  // sending lease (SENDING_LEASE_MS) runs out — at least once, by design; that is not this test.
  test('compose restarts the mailer; every reset asked while it is down, during a broker restart and after sends exactly one mail', async () => {
    await deleteAllMail();
    const users = await Promise.all(Array.from({ length: 9 }, () => signedUp().then((s) => s.user)));
    await eventually('the queues drained', async () => ((await queuedTotal()) === 0 ? true : undefined));
    const mailer = await container('mailer');

    process.kill(nodePid(mailer), 'SIGKILL');
    // Three while the mailer is down or coming back: they wait in the broker.
    for (const u of users.slice(0, 3)) expect((await requestReset(u.email)).status).toBe(202);
    const restarted = await eventually('the mailer restarted by compose', async () => {
      const c = await container('mailer');
      return c.restartCount > mailer.restartCount && c.state === 'running' ? c : undefined;
    });

    // Three more while the broker restarts: identity keeps them in its outbox until it is back.
    const brokerRestart = compose(['restart', 'rabbitmq'], 5 * 60_000);
    for (const u of users.slice(3, 6)) expect((await requestReset(u.email)).status).toBe(202);
    await brokerRestart;
    await allHealthy();
    // And three after.
    for (const u of users.slice(6)) expect((await requestReset(u.email)).status).toBe(202);

    await eventually('a mail for every user in Mailpit', async () => {
      const counts = await Promise.all(users.map(async (u) => (await resetMailsTo(u.email)).length));
      return counts.every((n) => n >= 1) ? true : undefined;
    });
    // Nothing left to deliver: a duplicate, had there been one, would be in Mailpit by now.
    await eventually('the queues drained', async () => ((await queuedTotal()) === 0 ? true : undefined));

    expect(restarted.restartCount).toBe(mailer.restartCount + 1);
    const perUser = await Promise.all(users.map(async (u) => ({ email: u.email, mails: (await resetMailsTo(u.email)).length })));
    expect(perUser).toEqual(users.map((u) => ({ email: u.email, mails: 1 })));
    // And no reset mail went to anyone else (every user also got one verification mail at sign-up).
    expect((await mails()).filter((m) => m.Subject === 'Reset your password')).toHaveLength(users.length);
    expectProblem(await api.get('/articles/000000000000000000000000'), 404); // the stack still serves
  });
});
