/**
 * End to end: two resources generated into a copy of the repository, between them every field
 * type and every access level (none included). The copy is built, linted and type-checked; the
 * generated tests run; the whole stack starts from the copy's own scripts/lib/stack.cjs and the
 * new endpoints answer through the gateway as their levels say.
 *
 * Needs jest's global setup (MONGODB_URL, AMQP_URL). Takes about a minute; set
 * RESTGATE_KEEP_GENERATED=1 to keep the copy for a look.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { MongoClient } from 'mongodb';
import { uniqueSuffix } from '@restgate/shared/testing';
import { client, type Client, type Reply } from '../support/http';
import { copyRepo, generate, removeCopy, ROOT, runBin, type RunResult } from './support/repo-copy';

const GADGETS = [
  'resource',
  'gadgets',
  '--fields',
  'name:string:required:max=80,notes:text,count:integer:min=0:max=1000,price:number:min=0,active:boolean,releasedAt:date,contact:email,homepage:url,status:enum(draft|published|archived):required',
  '--access',
  'create=user,list=public,read=owner,update=admin,delete=master',
  '--search',
  'name,notes,contact',
];
const FIELD_NOTES = [
  'resource',
  'field-notes',
  '--fields',
  'title:string:required:max=120,body:text:required:min=1',
  '--access',
  'create=admin,list=user,read=public,update=none,delete=owner',
  '--default-sort',
  'title',
];

/** The repository's checks of what the generator edits: compose file, gateway policy, README configuration table. */
const STATIC_CHECKS = ['test/static/compose.unit.test.ts', 'gateway/test/policy.unit.test.ts', 'test/ops/config-table.unit.test.ts'];

const timings: Record<string, number> = {};
async function timed<T>(what: string, work: () => Promise<T> | T): Promise<T> {
  const started = Date.now();
  try {
    return await work();
  } finally {
    timings[what] = Date.now() - started;
  }
}

/** The command's output when it failed, so the test report shows why. */
function expectSuccess(what: string, res: RunResult): void {
  if (res.status !== 0) throw new Error(`${what} failed (exit ${res.status}):\n${res.stdout.slice(-6000)}\n${res.stderr.slice(-6000)}`);
}

let copy: string;
let built: RunResult;

beforeAll(async () => {
  copy = await timed('copy', () => copyRepo());
  const gadgets = await timed('generate gadgets', () => generate(copy, GADGETS));
  expectSuccess('generate gadgets', gadgets);
  const notes = await timed('generate field-notes', () => generate(copy, FIELD_NOTES));
  expectSuccess('generate field-notes', notes);
  built = await timed('tsc -b', () => runBin(copy, 'tsc', ['-b']));
}, 180_000);

afterAll(() => {
  removeCopy(copy);
  const line = Object.entries(timings)
    .map(([what, ms]) => `${what} ${(ms / 1000).toFixed(1)} s`)
    .join(' · ');
  process.stderr.write(`[generator e2e] ${line}\n`);
});

describe('a generated resource in a copy of the repository', () => {
  test('when the copy is built (tsc -b), then it compiles with no hand edits', () => {
    expectSuccess('tsc -b', built);
    expect(fs.existsSync(path.join(copy, 'services', 'gadgets', 'dist', 'start.js'))).toBe(true);
    expect(fs.existsSync(path.join(copy, 'services', 'field-notes', 'dist', 'start.js'))).toBe(true);
  });

  test('when type-checked with its tests and linted, then there is nothing to report', async () => {
    // The repository's own check, narrowed to what the generator wrote (the rest is not its business).
    fs.writeFileSync(
      path.join(copy, 'tsconfig.generated.json'),
      JSON.stringify({ extends: './tsconfig.check.json', include: ['services/gadgets', 'services/field-notes'] }),
    );
    const [types, lint] = await timed('type-check + lint', () =>
      Promise.all([
        runBin(copy, 'tsc', ['-p', 'tsconfig.generated.json']),
        runBin(copy, 'eslint', ['services/gadgets', 'services/field-notes', 'gateway/src', 'scripts/lib/stack.cjs']),
      ]),
    );

    expectSuccess('tsc -p tsconfig.generated.json', types);
    expectSuccess('eslint', lint);
  }, 120_000);

  test('when its generated tests run (npx jest services/<name>), then they all pass', async () => {
    const res = await timed('generated tests', () =>
      runBin(copy, 'jest', ['--ci', 'services/gadgets', 'services/field-notes'], {
        MONGODB_URL: process.env.MONGODB_URL!,
        AMQP_URL: process.env.AMQP_URL ?? '',
      }),
    );

    expectSuccess('jest services/gadgets services/field-notes', res);
    expect(res.stderr).toMatch(/Test Suites: 15 passed, 15 total/);
  }, 180_000);

  test('when the compose, gateway policy and README table checks run, then the generator made no new failure', async () => {
    const outcome = async (dir: string): Promise<{ failed: string[]; passed: string[] }> => {
      const report = path.join(os.tmpdir(), `generator-static-${uniqueSuffix()}.json`);
      await runBin(dir, 'jest', ['--ci', '--json', `--outputFile=${report}`, ...STATIC_CHECKS], {
        MONGODB_URL: process.env.MONGODB_URL!,
        AMQP_URL: process.env.AMQP_URL ?? '',
      });
      const results = JSON.parse(fs.readFileSync(report, 'utf8')) as {
        testResults: Array<{ assertionResults: Array<{ fullName: string; status: string }> }>;
      };
      fs.rmSync(report, { force: true });
      const all = results.testResults.flatMap((file) => file.assertionResults);
      return {
        failed: all.filter((a) => a.status === 'failed').map((a) => a.fullName),
        passed: all.filter((a) => a.status === 'passed').map((a) => a.fullName),
      };
    };

    const [inCopy, inRepository] = await timed('static checks', () => Promise.all([outcome(copy), outcome(ROOT)]));

    // Whatever fails in the repository itself is someone else's work in progress.
    expect(inCopy.failed.filter((name) => !inRepository.failed.includes(name))).toEqual([]);
    expect(inCopy.passed).toEqual(
      expect.arrayContaining([
        expect.stringContaining('gadgets: its container environment satisfies its config schema'),
        expect.stringContaining('field-notes: its container environment satisfies its config schema'),
        expect.stringContaining('when a service package has a src/start.ts, then the compose file builds it'),
        expect.stringContaining('settings that point at another service use its port'),
        expect.stringContaining('its table is the one generated from every config schema'),
      ]),
    );
  }, 120_000);
});

// -------------------------------------------------------------------------------------------------
// Through the gateway

interface StackHandle {
  gatewayUrl: string;
  stop: () => Promise<void>;
}
interface StackLib {
  startStack(options: {
    env: Record<string, string>;
    ports: Record<string, number>;
    logDir: string;
    serviceEnv?: Record<string, Record<string, string>>;
  }): Promise<StackHandle>;
  SERVICES: Array<{ name: string }>;
  GATEWAY: { name: string };
}

describe('the generated resources through the gateway (the copy’s stack, as npm start runs it)', () => {
  const secret = () => randomBytes(32).toString('base64url');
  const secrets = { MASTER_KEY: secret(), JWT_SECRET: secret(), PRINCIPAL_SECRET: secret() };
  const databases: Record<string, string> = {};
  let stack: StackHandle | undefined;
  let logDir: string;
  let api: Client;
  let owner: { id: string; token: string };
  let other: { id: string; token: string };
  let admin: { id: string; token: string };

  async function signedIn(role?: 'admin'): Promise<{ id: string; token: string }> {
    const email = `generated.${uniqueSuffix()}@example.com`;
    const password = `pw-${uniqueSuffix()}`;
    const created = await api.post('/users', { form: { email, password, access_token: secrets.MASTER_KEY, ...(role ? { role } : {}) } });
    const auth = await api.post('/auth', { basic: { user: email, password }, form: { access_token: secrets.MASTER_KEY } });
    if (created.status !== 201 || auth.status !== 201) throw new Error(`sign-up/in failed: ${created.text} ${auth.text}`);
    return { id: created.body.id, token: auth.body.token };
  }

  beforeAll(async () => {
    expectSuccess('tsc -b', built);
    // The copy's own scripts, so the stack is what `npm start` in the copy would run.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const stackLib = require(path.join(copy, 'scripts', 'lib', 'stack.cjs')) as StackLib;
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { freePort } = require(path.join(copy, 'scripts', 'lib', 'backing.cjs')) as { freePort: () => Promise<number> };
    expect(stackLib.SERVICES.map((s) => s.name)).toEqual(expect.arrayContaining(['gadgets', 'field-notes']));
    const ports: Record<string, number> = {};
    for (const def of [stackLib.GATEWAY, ...stackLib.SERVICES]) ports[def.name] = await freePort();
    const suffix = uniqueSuffix();
    for (const def of stackLib.SERVICES) databases[def.name] = `generated_${def.name.replace(/-/g, '_')}_${suffix}`;
    logDir = fs.mkdtempSync(path.join(os.tmpdir(), 'restgate-generated-stack-'));
    stack = await timed('stack start', () =>
      stackLib.startStack({
        env: {
          ...secrets,
          NODE_ENV: 'test',
          MONGODB_URL: process.env.MONGODB_URL!,
          ...(process.env.AMQP_URL ? { AMQP_URL: process.env.AMQP_URL } : {}),
          LOG_LEVEL: 'warn',
          BCRYPT_ROUNDS: '4',
        },
        ports,
        logDir,
        serviceEnv: Object.fromEntries(Object.entries(databases).map(([name, db]) => [name, { MONGODB_DB: db }])),
      }),
    );
    api = client(stack.gatewayUrl);
    [owner, other, admin] = await Promise.all([signedIn(), signedIn(), signedIn('admin')]);
  }, 120_000);

  afterAll(async () => {
    await stack?.stop();
    const mongo = new MongoClient(process.env.MONGODB_URL!, { serverSelectionTimeoutMS: 5_000 });
    await Promise.allSettled(Object.values(databases).map((db) => mongo.db(db).dropDatabase()));
    await mongo.close();
    if (logDir) fs.rmSync(logDir, { recursive: true, force: true });
  }, 60_000);

  const aGadget = (name: string, count: number) => ({
    name,
    notes: '  kept as sent  ',
    count: String(count),
    price: '12.5',
    active: 'true',
    releasedAt: '2026-05-06',
    contact: 'Ada@Example.com',
    homepage: 'https://example.com/gadget',
    status: 'published',
  });
  const expectRefused = (reply: Reply, status: number) => {
    expect(reply.status).toBe(status);
    expect(reply.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  };

  test('when the merged OpenAPI document is asked, then it has the new paths and methods', async () => {
    const doc = (await api.get('/openapi.json')).body as { paths: Record<string, Record<string, unknown>> };

    expect(Object.keys(doc.paths['/gadgets'] ?? {}).sort()).toEqual(['get', 'post']);
    expect(Object.keys(doc.paths['/gadgets/{id}'] ?? {}).sort()).toEqual(['delete', 'get', 'patch', 'put']);
    expect(Object.keys(doc.paths['/field-notes'] ?? {}).sort()).toEqual(['get', 'post']);
    expect(Object.keys(doc.paths['/field-notes/{id}'] ?? {}).sort()).toEqual(['delete', 'get']);
  });

  test('gadgets: create (user, form body), list (q, sort, fields), read (owner), update (admin), delete (master key), and each refused level', async () => {
    const marker = `mk${uniqueSuffix()}`;

    // create = user
    const created = await Promise.all(
      [3, 1, 2].map((count) => api.post('/gadgets', { form: { ...aGadget(`${marker} ${count}`, count), access_token: owner.token } })),
    );
    expect(created.map((r) => r.status)).toEqual([201, 201, 201]);
    expect(created[0]!.body).toMatchObject({
      name: `${marker} 3`,
      notes: '  kept as sent  ',
      count: 3,
      price: 12.5,
      active: true,
      releasedAt: '2026-05-06T00:00:00.000Z',
      contact: 'ada@example.com',
      homepage: 'https://example.com/gadget',
      status: 'published',
      user: { id: owner.id },
    });
    expectRefused(await api.post('/gadgets', { form: aGadget(marker, 1) }), 401);
    expectRefused(await api.post('/gadgets', { form: { ...aGadget(marker, 1), access_token: secrets.MASTER_KEY } }), 403);
    const invalid = await api.post('/gadgets', { json: { ...aGadget(marker, 1), status: 'lost' }, bearer: owner.token });
    expect(invalid.status).toBe(400);
    expect(invalid.body.param).toBe('status');

    // list = public, with q, sort and fields
    const listed = await api.get('/gadgets', { query: { q: marker.toUpperCase(), sort: '-count', fields: 'name,count' } });
    expect(listed.status).toBe(200);
    expect(listed.body.count).toBe(3);
    expect(listed.body.rows).toEqual([3, 2, 1].map((count) => ({ id: expect.any(String), name: `${marker} ${count}`, count })));
    expect(listed.headers.get('x-total-count')).toBe('3');

    // read = owner (or an admin)
    const path = `/gadgets/${created[0]!.body.id}`;
    expect((await api.get(path, { bearer: owner.token })).body).toEqual(created[0]!.body);
    expect((await api.get(path, { bearer: admin.token })).status).toBe(200);
    expectRefused(await api.get(path, { bearer: other.token }), 403);
    expectRefused(await api.get(path), 401);

    // update = admin
    const patched = await api.request('PATCH', path, { form: { count: '7', access_token: admin.token } });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ count: 7, name: `${marker} 3`, user: { id: owner.id } });
    expectRefused(await api.request('PUT', path, { form: { count: '8', access_token: owner.token } }), 403);
    expectRefused(await api.request('PATCH', path, { form: { count: '8' } }), 401);

    // delete = master
    expectRefused(await api.request('DELETE', path, { bearer: admin.token }), 403);
    expectRefused(await api.request('DELETE', path), 401);
    expect((await api.request('DELETE', path, { query: { access_token: secrets.MASTER_KEY } })).status).toBe(204);
    expect((await api.get(path, { bearer: owner.token })).status).toBe(404);
  });

  test('field-notes: create (admin), list (user, default sort by title), read (public), no update route, delete (owner), and each refused level', async () => {
    const marker = `mk${uniqueSuffix()}`;

    // create = admin; the admin who creates is the owner
    const created = await Promise.all(
      ['b', 'a'].map((x) => api.post('/field-notes', { json: { title: `${marker} ${x}`, body: 'seen' }, bearer: admin.token })),
    );
    expect(created.map((r) => r.status)).toEqual([201, 201]);
    expect(created[0]!.body.user).toEqual({ id: admin.id });
    expectRefused(await api.post('/field-notes', { json: { title: marker, body: 'x' }, bearer: owner.token }), 403);
    expectRefused(await api.post('/field-notes', { json: { title: marker, body: 'x' } }), 401);

    // list = user, sorted by title when no sort is given
    const listed = await api.get('/field-notes', { query: { q: marker }, bearer: other.token });
    expect(listed.status).toBe(200);
    expect(listed.body.rows.map((r: { title: string }) => r.title)).toEqual([`${marker} a`, `${marker} b`]);
    expectRefused(await api.get('/field-notes', { query: { q: marker } }), 401);
    expectRefused(await api.get('/field-notes', { query: { q: marker, access_token: secrets.MASTER_KEY } }), 403);

    // read = public; update = none
    const path = `/field-notes/${created[0]!.body.id}`;
    expect((await api.get(path)).body).toEqual(created[0]!.body);
    expect((await api.request('PUT', path, { json: { title: 'x' }, bearer: admin.token })).status).toBe(405);

    // delete = owner (the creating admin), or any admin
    expectRefused(await api.request('DELETE', path, { bearer: other.token }), 403);
    expect((await api.request('DELETE', path, { bearer: admin.token })).status).toBe(204);
    expect((await api.get(path)).status).toBe(404);
  });
});
