/**
 * What the fleet scenarios share: where the fleet answers (set by scripts/fleet/test-fleet.cjs), the
 * swarm's services and containers, a probe inside the stack's network (each replica, Mailpit), and
 * the steady mixed load every scenario runs under, which counts every answer by kind.
 */
import { execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { aUser, type UserInput } from '../support/actors';

function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set: run these tests with npm run test:fleet`);
  return value;
}

export const gatewayUrl = required('RESTGATE_FLEET_URL');
export const masterKey = required('RESTGATE_FLEET_MASTER_KEY');
export const stackName = required('RESTGATE_FLEET_STACK');
/**
 * Requests per second of the steady load (RESTGATE_FLEET_RATE, 50 by default): on a 2-core
 * machine that also runs the whole fleet, with the stand-in's FerretDB serving lookups, pages and
 * counts from PostgreSQL's indexes; with real MongoDB, or more cores, raise it.
 */
export const LOAD_RATE = Number(process.env.RESTGATE_FLEET_RATE ?? 50);
/** The Node image the probe runs on (the one the services were built on). */
const probeImage = required('RESTGATE_FLEET_PROBE_IMAGE');

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

// --- the engine ----------------------------------------------------------------------------

/** Runs `docker <args>`; resolves with stdout, rejects with stderr on a non-zero exit. */
export function docker(args: string[], timeoutMs = 120_000): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile('docker', args, { timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) => {
      if (err) reject(new Error(`docker ${args.slice(0, 4).join(' ')}…: ${err.message}\n${stderr}`));
      else resolve(stdout);
    });
  });
}

export const serviceName = (service: string) => `${stackName}_${service}`;

/** The running containers of a service's tasks. */
export async function containersOf(service: string): Promise<string[]> {
  const out = await docker(['ps', '-q', '--filter', `label=com.docker.swarm.service.name=${serviceName(service)}`]);
  return out.split('\n').filter(Boolean);
}

/** Every container the service has had in the stack, stopped ones included (swarm keeps a few per replica). */
export async function allContainersOf(service: string): Promise<string[]> {
  const out = await docker(['ps', '-a', '-q', '--filter', `label=com.docker.swarm.service.name=${serviceName(service)}`]);
  return out.split('\n').filter(Boolean);
}

/** The JSON log records (pino's lines on stdout) of every container the service has had. */
export async function logRecordsOf(service: string): Promise<Array<Record<string, unknown>>> {
  const records: Array<Record<string, unknown>> = [];
  for (const container of await allContainersOf(service)) {
    for (const line of (await docker(['logs', container])).split('\n')) {
      if (!line.startsWith('{')) continue;
      try {
        records.push(JSON.parse(line) as Record<string, unknown>);
      } catch {
        // not one of pino's lines
      }
    }
  }
  return records;
}

/** Running and desired replicas of a service. */
export async function replicas(service: string): Promise<{ running: number; desired: number }> {
  const out = await docker(['service', 'ls', '--filter', `name=${serviceName(service)}`, '--format', '{{.Name}} {{.Replicas}}']);
  const line = out.split('\n').find((l) => l.startsWith(`${serviceName(service)} `));
  const [running, desired] = (line?.split(' ')[1] ?? '0/0').split('/').map((n) => parseInt(n, 10));
  return { running: running ?? 0, desired: desired ?? 0 };
}

/** Waits until `check` returns a value (not undefined), every `everyMs`, at most `limitMs`. */
export async function eventually<T>(what: string, check: () => Promise<T | undefined>, limitMs = 300_000, everyMs = 1000): Promise<T> {
  const deadline = Date.now() + limitMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined) return value;
    } catch (err) {
      lastError = err;
    }
    if (Date.now() > deadline) throw new Error(`${what}: not within ${limitMs / 1000} s${lastError ? ` (${String(lastError)})` : ''}`);
    await sleep(everyMs);
  }
}

/** Runs a script with Node inside the stack's internal network; its stdout parsed as JSON. */
export async function probe<T>(script: string, timeoutMs = 120_000): Promise<T> {
  const out = await docker(['run', '--rm', '--network', `${stackName}_internal`, probeImage, 'node', '-e', script], timeoutMs);
  return JSON.parse(out.trim().split('\n').pop() ?? 'null') as T;
}

/** Each running replica of a Node service is ready (its /ready 200), as many as desired. */
export async function allReady(services: Array<[string, number]>): Promise<void> {
  await eventually(
    `every replica of ${services.map(([s]) => s).join(', ')} ready`,
    async () => {
      const wanted = await Promise.all(services.map(async ([s]) => (await replicas(s)).desired));
      const statuses = await probe<Record<string, number[]>>(`
        const dns = require('node:dns').promises;
        (async () => {
          const out = {};
          for (const [name, port] of ${JSON.stringify(services)}) {
            const addresses = await dns.resolve4('tasks.' + name).catch(() => []);
            out[name] = await Promise.all(addresses.map((a) => fetch('http://' + a + ':' + port + '/ready', { signal: AbortSignal.timeout(3000) }).then((r) => r.status, () => 0)));
          }
          console.log(JSON.stringify(out));
        })();`);
      const ok = services.every(([s], i) => (statuses[s] ?? []).length === wanted[i] && statuses[s]!.every((c) => c === 200));
      return ok ? true : undefined;
    },
    300_000,
    2000,
  );
}

export const NODE_SERVICES: Array<[string, number]> = [
  ['gateway', 9000],
  ['identity', 9001],
  ['articles', 9002],
  ['mailer', 9003],
];

/** Waits until every service runs as many replicas as it should and every Node replica is ready. */
export async function fleetSettled(): Promise<void> {
  for (const [service] of NODE_SERVICES) {
    await eventually(`${service} at its desired replicas`, async () => {
      const r = await replicas(service);
      return r.running === r.desired && r.desired > 0 ? true : undefined;
    });
  }
  await allReady(NODE_SERVICES);
}

/** One container the orchestrator asked to stop (SIGTERM), as `docker events` saw it. */
export interface Stop {
  service: string;
  container: string;
  /** Milliseconds from the SIGTERM to the process's end; undefined while it still runs. */
  tookMs?: number;
  exitCode?: string;
  /** Whether it had to be SIGKILLed (past its stop grace period). */
  killed: boolean;
}

/**
 * Follows the stack's containers' stops (`docker events`: a `kill` event per signal sent, a `die`
 * event with the exit code) until `done()`, which returns each container sent a SIGTERM meanwhile.
 */
export function watchStops(): { done: () => Promise<Stop[]> } {
  const events = spawn(
    'docker',
    [
      'events',
      '--filter',
      'type=container',
      '--filter',
      `label=com.docker.stack.namespace=${stackName}`,
      '--filter',
      'event=kill',
      '--filter',
      'event=die',
      '--format',
      '{{json .}}',
    ],
    { stdio: ['ignore', 'pipe', 'ignore'] },
  );
  const stops = new Map<string, Stop & { termAt: number }>();
  let buffered = '';
  events.stdout.on('data', (chunk: Buffer) => {
    buffered += chunk.toString();
    const lines = buffered.split('\n');
    buffered = lines.pop()!;
    for (const line of lines) {
      const event = JSON.parse(line) as { status: string; id: string; timeNano: number; Actor: { Attributes: Record<string, string> } };
      const attributes = event.Actor.Attributes;
      const at = event.timeNano / 1e6;
      const known = stops.get(event.id);
      if (event.status === 'kill' && attributes.signal === '15' && !known) {
        const service = (attributes['com.docker.swarm.service.name'] ?? '').replace(`${stackName}_`, '');
        stops.set(event.id, { service, container: event.id.slice(0, 12), termAt: at, killed: false });
      } else if (event.status === 'kill' && attributes.signal === '9' && known) {
        known.killed = true;
      } else if (event.status === 'die' && known) {
        known.tookMs = Math.round(at - known.termAt);
        known.exitCode = attributes.exitCode;
      }
    }
  });
  return {
    done: async () => {
      // The last stop's die event may still be on its way.
      await sleep(1_000);
      events.kill();
      return [...stops.values()].map(({ termAt: _termAt, ...stop }) => stop);
    },
  };
}

/** DRAIN_DELAY_MS as the stack gives it to the service (0 when it sets none). */
export async function drainDelayOf(service: string): Promise<number> {
  const env = JSON.parse(
    await docker(['service', 'inspect', '--format', '{{json .Spec.TaskTemplate.ContainerSpec.Env}}', serviceName(service)]),
  ) as string[] | null;
  const entry = (env ?? []).find((e) => e.startsWith('DRAIN_DELAY_MS='));
  return entry ? Number(entry.split('=')[1]) : 0;
}

/** Starts a rolling update of each service (all at once; each one replica at a time, as the stack says) and waits for all to end. */
export async function rollingUpdate(services: string[]): Promise<void> {
  await Promise.all(services.map((s) => docker(['service', 'update', '--quiet', '--force', serviceName(s)], 15 * 60_000)));
  for (const s of services) {
    const state = (
      await docker(['service', 'inspect', '--format', '{{if .UpdateStatus}}{{.UpdateStatus.State}}{{end}}', serviceName(s)])
    ).trim();
    if (state && state !== 'completed') throw new Error(`the rolling update of ${s} ended ${state}`);
  }
}

// --- the API -------------------------------------------------------------------------------

export interface Answer {
  status: number;
  body: any;
  /** The X-Request-Id the request carried: every service's log lines about it carry it as `requestId`. */
  requestId: string;
}

/** One request through the balancer, bounded in time. */
/**
 * How long the load waits for an answer: past the gateway's own bound (UPSTREAM_TIMEOUT_MS, 10 s
 * in the stack), which answers 504 when a service stays silent. A request that slow is then
 * counted by its 504; one that got no answer at all in this time is counted as a timeout. A
 * client giving up at exactly the gateway's bound raced it, and counted a service's 9.8 s answer
 * (seen in CI, on 2 cores during a rolling update of four services) as lost.
 */
const CLIENT_PATIENCE_MS = 15_000;

export async function call(
  method: string,
  path: string,
  {
    form,
    bearer,
    basic,
    timeoutMs = CLIENT_PATIENCE_MS,
  }: { form?: Record<string, string>; bearer?: string; basic?: UserInput; timeoutMs?: number } = {},
): Promise<Answer> {
  const requestId = `fleet-${RUN}-${++requestSeq}`;
  const headers: Record<string, string> = { 'x-request-id': requestId };
  let body: string | undefined;
  if (form) {
    headers['content-type'] = 'application/x-www-form-urlencoded';
    body = new URLSearchParams(form).toString();
  }
  if (bearer) headers.authorization = `Bearer ${bearer}`;
  if (basic) headers.authorization = `Basic ${Buffer.from(`${basic.email}:${basic.password}`).toString('base64')}`;
  let res: Response;
  try {
    res = await fetch(`${gatewayUrl}${path}`, { method, headers, body, signal: AbortSignal.timeout(timeoutMs) });
  } catch (err) {
    // Kept on the error, so that a request that got no answer can be found in the logs.
    throw Object.assign(err as object, { requestId });
  }
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    // not JSON: kept as text
  }
  return { status: res.status, body: parsed, requestId };
}
/** Unique per load of this module: jest loads it once per scenario file, in one process. */
const RUN = randomBytes(4).toString('hex');
let requestSeq = 0;

export interface Account {
  user: UserInput;
  id: string;
  token: string;
  refreshToken: string;
}

export async function signUp(user: UserInput = aUser()): Promise<{ user: UserInput; id: string }> {
  const reply = await call('POST', '/users', { form: { ...user, access_token: masterKey } });
  if (reply.status !== 201) throw new Error(`sign-up: ${reply.status} ${JSON.stringify(reply.body)}`);
  return { user, id: reply.body.id };
}

export async function signIn(user: UserInput): Promise<Answer> {
  return call('POST', '/auth', { basic: user, form: { access_token: masterKey } });
}

export async function anAccount(): Promise<Account> {
  const { user, id } = await signUp();
  const session = await signIn(user);
  if (session.status !== 201) throw new Error(`sign-in: ${session.status} ${JSON.stringify(session.body)}`);
  return { user, id, token: session.body.token, refreshToken: session.body.refreshToken };
}

/** `count` accounts, made a few at a time. */
export async function accounts(count: number): Promise<Account[]> {
  const made: Account[] = [];
  while (made.length < count) made.push(...(await Promise.all(Array.from({ length: Math.min(4, count - made.length) }, anAccount))));
  return made;
}

// --- the load --------------------------------------------------------------------------------

/** The content of every article the load creates, by which they are removed again. */
const LOAD_CONTENT = 'created by the fleet load';

export type Kind = 'read' | 'list' | 'create' | 'sign-in' | 'refresh' | 'reset';
const IDEMPOTENT: Record<Kind, boolean> = { read: true, list: true, create: false, 'sign-in': false, refresh: false, reset: false };
/** Shares of the mix, per 20 requests. */
const MIX: Array<[Kind, number]> = [
  ['read', 7],
  ['list', 3],
  ['create', 3],
  ['sign-in', 2],
  ['refresh', 3],
  ['reset', 2],
];

export interface Failure {
  kind: Kind;
  idempotent: boolean;
  /** The status, or the error when no answer came. */
  what: string;
  at: number;
  requestId?: string;
}

export interface LoadReport {
  sent: number;
  answered: Record<Kind, number>;
  /** 5xx answers, connection errors and timeouts. */
  failures: Failure[];
  /** 4xx answers the request should not get (a lost session, a refused refresh). */
  unexpected: Failure[];
  /** The accepted reset requests (202), by e-mail address. */
  resets: string[];
}

export interface LoadOptions {
  /** Requests per second, spread evenly. */
  rate?: number;
  accounts: Account[];
  /** Addresses reset requests go to, each at most once; when they run out, resets go to `accounts` (not counted). */
  resetAddresses?: string[];
}

/**
 * A steady, bounded mixed load through the balancer: `rate` requests a second until `stop()`,
 * which waits for the last answers and reports. Sessions refresh one request at a time each (a
 * refresh token is used once), so a refused refresh is a lost session, never the load's own race.
 */
export function startLoad({ rate = LOAD_RATE, accounts: pool, resetAddresses = [] }: LoadOptions) {
  const report: LoadReport = {
    sent: 0,
    answered: { read: 0, list: 0, create: 0, 'sign-in': 0, refresh: 0, reset: 0 },
    failures: [],
    unexpected: [],
    resets: [],
  };
  const articles: string[] = [];
  const refreshing = new Set<Account>();
  const resets = [...resetAddresses];
  const inFlight = new Set<Promise<void>>();
  const pending = new Map<Promise<void>, Kind>();
  /** The requests of each open `inFlightDuring` window. */
  const windows = new Set<Map<Promise<void>, Kind>>();
  const deck: Kind[] = MIX.flatMap(([kind, n]) => Array<Kind>(n).fill(kind));
  let tick = 0;
  const started = Date.now();
  const any = () => pool[Math.floor(Math.random() * pool.length)]!;

  /**
   * A refresh as a careful client does it: when no answer came (or a 5xx), it presents the same
   * refresh token again at once, which the retry grace answers with the same successor. The first
   * failure still counts; the session goes on.
   */
  async function refresh(account: Account): Promise<void> {
    const attempt = () => call('POST', '/auth/refresh', { form: { refreshToken: account.refreshToken } });
    // An abort is a DOMException, which is not an Error here: an answer is what has a status.
    let answer: Answer | Error;
    try {
      answer = await attempt();
    } catch (err) {
      answer = err as Error;
    }
    const answered = (a: Answer | Error): a is Answer => typeof (a as Answer).status === 'number';
    const failed = !answered(answer) || answer.status >= 500;
    if (!answered(answer)) record('refresh', answer);
    else check('refresh', answer, [201]);
    for (let retry = 0; failed && retry < 3; retry++) {
      await sleep(300);
      const again = await attempt().catch(() => undefined);
      if (again?.status === 201) {
        answer = again;
        break;
      }
    }
    if (answered(answer) && answer.status === 201) {
      account.refreshToken = answer.body.refreshToken;
      account.token = answer.body.token;
    }
  }

  function check(kind: Kind, answer: Answer, ok: number[]): boolean {
    report.answered[kind]++;
    if (ok.includes(answer.status)) return true;
    const failure = {
      kind,
      idempotent: IDEMPOTENT[kind],
      what: `${answer.status} ${JSON.stringify(answer.body)?.slice(0, 200)}`,
      at: Date.now() - started,
      requestId: answer.requestId,
    };
    (answer.status >= 500 ? report.failures : report.unexpected).push(failure);
    return false;
  }

  function record(kind: Kind, err: Error): void {
    report.answered[kind]++;
    const e = err as Error & { cause?: { code?: string }; requestId?: string };
    report.failures.push({
      kind,
      idempotent: IDEMPOTENT[kind],
      what: `${e.name}: ${e.cause?.code ?? e.message}`,
      at: Date.now() - started,
      requestId: e.requestId,
    });
  }

  async function one(kind: Kind): Promise<void> {
    const account = any();
    try {
      switch (kind) {
        case 'read': {
          const id = articles[Math.floor(Math.random() * articles.length)];
          if (!id) return one('list');
          check(kind, await call('GET', `/articles/${id}`), [200]);
          return;
        }
        case 'list':
          check(kind, await call('GET', '/articles?limit=5'), [200]);
          return;
        case 'create': {
          const answer = await call('POST', '/articles', { bearer: account.token, form: { title: `load ${tick}`, content: LOAD_CONTENT } });
          if (check(kind, answer, [201])) articles.push(answer.body.id);
          return;
        }
        case 'sign-in':
          check(kind, await signIn(account.user), [201]);
          return;
        case 'refresh': {
          const free = pool.find((a) => !refreshing.has(a));
          if (!free) return one('list');
          refreshing.add(free);
          try {
            await refresh(free);
          } finally {
            refreshing.delete(free);
          }
          return;
        }
        case 'reset': {
          // A fresh address is counted (its mail is checked); the pool's, past the per-address cap, may get none.
          const counted = resets.shift();
          const answer = await call('POST', '/password-resets', {
            form: { email: counted ?? account.user.email, access_token: masterKey },
          });
          if (check(kind, answer, [202]) && counted) report.resets.push(counted);
          return;
        }
      }
    } catch (err) {
      record(kind, err as Error);
    }
  }

  const timer = setInterval(() => {
    const kind = deck[tick++ % deck.length]!;
    report.sent++;
    const p: Promise<void> = one(kind).finally(() => {
      inFlight.delete(p);
      pending.delete(p);
    });
    inFlight.add(p);
    pending.set(p, kind);
    for (const window of windows) window.set(p, kind);
  }, 1000 / rate);

  return {
    report,
    /** The requests waiting for an answer now, and how many of them are not idempotent. */
    inFlight: () => ({ all: inFlight.size, nonIdempotent: [...pending.values()].filter((k) => !IDEMPOTENT[k]).length }),
    /**
     * Counts the requests in flight from now until `end()`: those waiting now and those sent
     * meanwhile. For a fault whose moment is known only to within a command's run (a `docker
     * kill` takes effect somewhere between its start and its return).
     */
    inFlightDuring: () => {
      const seen = new Map(pending);
      windows.add(seen);
      return {
        end: () => {
          windows.delete(seen);
          return { all: seen.size, nonIdempotent: [...seen.values()].filter((k) => !IDEMPOTENT[k]).length };
        },
      };
    },
    async stop(): Promise<LoadReport> {
      clearInterval(timer);
      await Promise.all([...inFlight]);
      return report;
    },
  };
}

export type Load = ReturnType<typeof startLoad>;

/**
 * Removes the articles earlier loads created (their content is `LOAD_CONTENT`), so that every
 * scenario starts from the same data. The MongoDB stand-in (FerretDB) counts and sorts a listing in
 * its own memory, at a cost that grows with the collection: left to grow over six scenarios, the
 * load's listings would end up measuring the stand-in, not the fleet. It runs inside an articles
 * replica, with that service's driver and database settings.
 */
export async function removeLoadArticles(): Promise<number> {
  const [container] = await containersOf('articles');
  if (!container) throw new Error('no running articles replica to remove the load\'s articles through');
  const script = `
    const { MongoClient } = require('mongodb');
    const client = new MongoClient(process.env.MONGODB_URL);
    client.db(process.env.MONGODB_DB || 'articles').collection('articles').deleteMany({ content: ${JSON.stringify(LOAD_CONTENT)} })
      .then((r) => console.log(r.deletedCount), (e) => { console.error(e.message); process.exitCode = 1; })
      .finally(() => client.close());`;
  const removed = Number((await docker(['exec', container, 'node', '-e', script])).trim());
  if (!Number.isInteger(removed)) throw new Error('removing the load\'s articles: no count came back');
  return removed;
}

/**
 * Runs `during` under the load, with 5 s of it before and after; stops the load whatever happens,
 * prints its counts, and returns its report with what `during` returned.
 */
export async function underLoad<T>(
  name: string,
  options: LoadOptions,
  during: (load: Load) => Promise<T>,
): Promise<{ report: LoadReport; result: T }> {
  const removed = await removeLoadArticles();
  if (removed > 0) process.stdout.write(`[fleet] ${name}: first removed the ${removed} articles earlier loads created\n`);
  const load = startLoad(options);
  let result: T;
  try {
    await sleep(5_000);
    result = await during(load);
    await sleep(5_000);
  } finally {
    const report = await load.stop();
    process.stdout.write(`${summary(name, report)}\n`);
    if (report.failures.length > 0) process.stdout.write(await failureTrace(report.failures));
  }
  return { report: load.report, result };
}

/** One line per kind, then each distinct failure with its count and first time, for the scenario's output. */
export function summary(name: string, report: LoadReport): string {
  const kinds = Object.entries(report.answered)
    .map(([k, n]) => `${k} ${n}`)
    .join(', ');
  const lines = [
    `[fleet] ${name}: ${report.sent} requests (${kinds}); failed ${report.failures.length} (idempotent ${report.failures.filter((f) => f.idempotent).length}), unexpected 4xx ${report.unexpected.length}`,
  ];
  const groups = new Map<string, { count: number; first: number }>();
  for (const f of [...report.failures, ...report.unexpected]) {
    // Numbers after the status (retry-after seconds, request ids) would split one kind of failure.
    const key = `${f.kind}: ${f.what.slice(0, 160).replace(/(?<=\s.*)\d+/g, 'N')}`;
    const group = groups.get(key) ?? { count: 0, first: f.at };
    group.count++;
    groups.set(key, group);
  }
  for (const [key, { count, first }] of groups) lines.push(`[fleet]   ${count} × ${key} (first at ${first} ms)`);
  return lines.join('\n');
}

/** The services a request through the balancer can have passed. */
const TRACED = ['gateway', 'identity', 'articles'];
const TRACE_FIELDS = ['level', 'msg', 'upstream', 'errCode', 'errMessage', 'timedOut', 'attempt', 'res', 'responseTime', 'aborted', 'err'];

/**
 * What the services logged about the failed requests (their `requestId`), so that a failure in
 * CI, where the stack is gone by the time anyone reads the output, says where the request stopped.
 */
export async function failureTrace(failures: Failure[], limit = 20): Promise<string> {
  const wanted = new Map(failures.slice(0, limit).flatMap((f) => (f.requestId ? [[f.requestId, f] as const] : [])));
  const byRequest = new Map<string, string[]>();
  for (const service of TRACED) {
    let records: Array<Record<string, unknown>>;
    try {
      records = await logRecordsOf(service);
    } catch (err) {
      return `[fleet]   (no trace: the logs of ${service} could not be read: ${(err as Error).message})\n`;
    }
    for (const record of records) {
      const id = record.requestId as string | undefined;
      if (!id || !wanted.has(id)) continue;
      const fields = TRACE_FIELDS.filter((k) => record[k] !== undefined).map((k) => `${k}=${JSON.stringify(record[k])}`);
      byRequest.set(id, [...(byRequest.get(id) ?? []), `${service}: ${fields.join(' ').slice(0, 300)}`]);
    }
  }
  const lines: string[] = [];
  for (const [id, failure] of wanted) {
    lines.push(`[fleet]   trace ${id} (${failure.kind} at ${failure.at} ms, ${failure.what.slice(0, 80)}):`);
    for (const line of byRequest.get(id) ?? ['no service logged it']) lines.push(`[fleet]     ${line}`);
  }
  return `${lines.join('\n')}\n`;
}

// --- Mailpit, from inside the network --------------------------------------------------------

/** The recipients of every mail with this subject that Mailpit holds (one entry per mail). */
export async function mailRecipients(subject: string): Promise<string[]> {
  return probe<string[]>(`
    (async () => {
      const out = [];
      for (let start = 0; ; start += 500) {
        const page = await (await fetch('http://mailpit:8025/api/v1/messages?limit=500&start=' + start)).json();
        for (const m of page.messages) if (m.Subject === ${JSON.stringify(subject)}) out.push(...m.To.map((t) => t.Address.toLowerCase()));
        if (page.messages.length < 500) break;
      }
      console.log(JSON.stringify(out));
    })();`);
}

export async function deleteAllMail(): Promise<void> {
  await probe<boolean>(`fetch('http://mailpit:8025/api/v1/messages', { method: 'DELETE' }).then((r) => console.log(JSON.stringify(r.ok)))`);
}
