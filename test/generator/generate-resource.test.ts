/**
 * End to end: docs/generator.md's command generates volumes into a copy of the repository, and a second
 * resource, gadgets, takes every field type and other access levels; the copy is then built,
 * type-checked and linted, the new services' own tests (articles' tests, renamed) run against
 * the real database, and a black-box test of volumes' data API runs through the copy's gateway. Outside services/volumes the command may touch four files, none of
 * them under gateway/src; it works before npm install; remove takes it all back.
 *
 * Needs jest's global setup (MONGODB_URL). Takes a minute or two; set RESTGATE_KEEP_GENERATED=1
 * to keep the copy for a look.
 */
import fs from 'node:fs';
import path from 'node:path';
import { changedFiles, copyRepo, generate, removeCopy, runBin, treeHash, type RunResult } from './support/repo-copy';

const VOLUMES = ['resource', 'volumes', '--fields', 'title:string:required,pages:integer'];
const GADGETS = [
  'resource',
  'gadgets',
  '--fields',
  'name:string:required:max=80,notes:text,count:integer:min=0:max=1000:index,price:number:min=0,active:boolean,releasedAt:date,contact:email,homepage:url,status:enum(draft|published|archived):required',
  '--access',
  'create=admin,list=user,read=owner,update=admin,delete=user',
  '--search',
  'name,notes,contact',
];
/** A resource with rules and a field rule (docs/api.md, "Rules"), for test/generator/fixtures/memos-rules.test.ts.txt. */
const MEMOS = [
  'resource',
  'memos',
  '--fields',
  'title:string:required:max=200,status:enum(draft|published):required,secret:string',
  '--rule',
  'list=status = "published" || user.id = @auth.id',
  '--rule',
  'read=status = "published" || user.id = @auth.id',
  '--rule',
  'update=user.id = @auth.id',
  '--rule',
  'delete=user.id = @auth.id || @auth.role = "admin"',
  '--rule',
  'create=@request.body.status != "published" || @auth.role = "admin"',
  '--field-rule',
  'secret:read=user.id = @auth.id',
];
/** What a resource may change outside its folder: the registry, compose, the project references and npm's lock. */
const SHARED_FILES = ['docker-compose.yml', 'package-lock.json', 'services.json', 'tsconfig.json'];
/** With the packages installed the generator also makes the swarm stack file again, so the resource joins the fleet. */
const INSTALLED_SHARED_FILES = ['deploy/swarm/stack.yml', ...SHARED_FILES].map((f) => f.split('/').join(path.sep));

/** The command's output when it failed, so the test report shows why. */
function expectSuccess(what: string, res: RunResult): void {
  if (res.status !== 0) throw new Error(`${what} failed (exit ${res.status}):\n${res.stdout.slice(-6000)}\n${res.stderr.slice(-6000)}`);
}

describe('npm run generate -- resource volumes, in a copy of the repository', () => {
  let copy: string;
  let generated: RunResult;
  let pristine: string;
  // The port the registry has next (9004 in this repository, later when a resource was generated before).
  let nextPort: number;
  beforeAll(() => {
    copy = copyRepo();
    pristine = treeHash(copy);
    const before = JSON.parse(fs.readFileSync(path.join(copy, 'services.json'), 'utf8')) as {
      gateway: { port: number };
      services: Array<{ port: number }>;
    };
    nextPort = Math.max(before.gateway.port, ...before.services.map((s) => s.port)) + 1;
    generated = generate(copy, VOLUMES);
  });
  afterAll(() => {
    removeCopy(copy);
  });

  test('when run, then it writes services/volumes and edits only the four shared files and the swarm stack file, none under gateway/src', () => {
    expectSuccess('generate', generated);

    const outside = changedFiles(copy).filter((file) => !file.startsWith(`services${path.sep}volumes${path.sep}`));

    expect(outside).toEqual(INSTALLED_SHARED_FILES);
    expect(fs.readFileSync(path.join(copy, 'deploy', 'swarm', 'stack.yml'), 'utf8')).toMatch(
      /^ {2}volumes:\n {4}image: \$\{RESTGATE_IMAGE_PREFIX:-\}restgate-volumes:/m,
    );
    expect(fs.readFileSync(path.join(copy, 'services', 'volumes', 'src', 'resource.ts'), 'utf8')).toContain(
      "title: { type: 'string', required: true },\n    pages: { type: 'integer' },",
    );
    expect(JSON.parse(fs.readFileSync(path.join(copy, 'services.json'), 'utf8')).services).toContainEqual({
      name: 'volumes',
      dir: 'services/volumes',
      port: nextPort,
      portEnv: 'VOLUMES_PORT',
      urlEnv: 'VOLUMES_URL',
      owns: { database: 'volumes' },
      secrets: ['PRINCIPAL_SECRET', 'AMQP_URL'],
    });
  });

  test('when built, type-checked with its tests and linted (with gadgets and memos beside it), then there is nothing to report', async () => {
    expectSuccess('generate gadgets', generate(copy, GADGETS));
    // Rules are checked with the built shared library: memos comes after a build.
    expectSuccess('tsc -b', await runBin(copy, 'tsc', ['-b']));
    expectSuccess('generate memos', generate(copy, MEMOS));
    expect(fs.readFileSync(path.join(copy, 'services', 'memos', 'src', 'resource.ts'), 'utf8')).toContain(
      `secret: { type: 'string', read: 'user.id = @auth.id' },`,
    );
    const built = await runBin(copy, 'tsc', ['-b']);
    expectSuccess('tsc -b', built);
    // The repository's own check, narrowed to what the generator wrote.
    fs.writeFileSync(
      path.join(copy, 'tsconfig.generated.json'),
      JSON.stringify({ extends: './tsconfig.check.json', include: ['services/volumes', 'services/gadgets', 'services/memos'] }),
    );
    const [types, lint] = await Promise.all([
      runBin(copy, 'tsc', ['-p', 'tsconfig.generated.json']),
      runBin(copy, 'eslint', ['services/volumes', 'services/gadgets', 'services/memos']),
    ]);

    expect(fs.existsSync(path.join(copy, 'services', 'volumes', 'dist', 'start.js'))).toBe(true);
    expectSuccess('tsc -p tsconfig.generated.json', types);
    expectSuccess('eslint services/volumes services/gadgets services/memos', lint);
  }, 180_000);

  test("when the new services' own tests run (npx jest services/volumes services/gadgets), then they all pass", async () => {
    const res = await runBin(copy, 'jest', ['--ci', 'services/volumes', 'services/gadgets'], {
      MONGODB_URL: process.env.MONGODB_URL!,
      AMQP_URL: process.env.AMQP_URL ?? '',
    });

    expectSuccess('jest services/volumes services/gadgets', res);
    expect(res.stderr).toMatch(/Test Suites: 26 passed, 26 total/);
  }, 180_000);

  test("when memos' own tests run, then those of its rules pass, and the level tests of its ruled actions are skipped", async () => {
    const res = await runBin(copy, 'jest', ['--ci', 'services/memos'], {
      MONGODB_URL: process.env.MONGODB_URL!,
      AMQP_URL: process.env.AMQP_URL ?? '',
    });

    expectSuccess('jest services/memos', res);
    expect(res.stderr).toMatch(/PASS integration services\/memos\/test\/memo\.rules\.test\.ts/);
    expect(res.stderr).toMatch(/Tests: {7}\d+ skipped, \d+ passed, \d+ total/);
  }, 180_000);

  test('when the stack runs with volumes, then its data API works through the gateway (filters, cursors, count, conditions)', async () => {
    const target = path.join(copy, 'test', 'contract', 'volumes-data-api.test.ts');
    fs.copyFileSync(path.join(__dirname, 'fixtures', 'volumes-data-api.test.ts.txt'), target);
    try {
      const res = await runBin(copy, 'jest', ['--ci', 'test/contract/volumes-data-api.test.ts'], {
        MONGODB_URL: process.env.MONGODB_URL!,
        AMQP_URL: process.env.AMQP_URL ?? '',
        REDIS_URL: process.env.REDIS_URL ?? '',
      });

      expectSuccess('jest test/contract/volumes-data-api.test.ts', res);
      expect(res.stderr).toMatch(/Tests: {7}7 passed, 7 total/);
    } finally {
      fs.rmSync(target, { force: true });
    }
  }, 240_000);

  test('when the stack runs with memos, then its rules hold through the gateway (lists, reads, writes, a field rule, the docs, a webhook)', async () => {
    const target = path.join(copy, 'test', 'contract', 'memos-rules.test.ts');
    fs.copyFileSync(path.join(__dirname, 'fixtures', 'memos-rules.test.ts.txt'), target);
    try {
      const res = await runBin(copy, 'jest', ['--ci', 'test/contract/memos-rules.test.ts'], {
        MONGODB_URL: process.env.MONGODB_URL!,
        AMQP_URL: process.env.AMQP_URL ?? '',
        REDIS_URL: process.env.REDIS_URL ?? '',
      });

      expectSuccess('jest test/contract/memos-rules.test.ts', res);
      expect(res.stderr).toMatch(/Tests: {7}6 passed, 6 total/);
    } finally {
      fs.rmSync(target, { force: true });
    }
  }, 240_000);

  test('when removed again, then the tree is exactly as before', () => {
    fs.rmSync(path.join(copy, 'tsconfig.generated.json'), { force: true });
    fs.rmSync(path.join(copy, 'services', 'volumes', 'dist'), { recursive: true, force: true });

    fs.rmSync(path.join(copy, 'services', 'gadgets', 'dist'), { recursive: true, force: true });
    fs.rmSync(path.join(copy, 'services', 'memos', 'dist'), { recursive: true, force: true });
    expectSuccess('remove memos', generate(copy, ['remove', 'memos']));
    expectSuccess('remove gadgets', generate(copy, ['remove', 'gadgets']));
    expectSuccess('remove volumes', generate(copy, ['remove', 'volumes']));

    // What tsc -b built in the copy: shared and every registry entry (a resource generated earlier, too).
    const registry = JSON.parse(fs.readFileSync(path.join(copy, 'services.json'), 'utf8')) as {
      gateway: { dir: string };
      services: Array<{ dir: string }>;
    };
    for (const built of ['shared', registry.gateway.dir, ...registry.services.map((s) => s.dir)]) {
      fs.rmSync(path.join(copy, built, 'dist'), { recursive: true, force: true });
    }
    for (const file of fs.readdirSync(copy, { recursive: true }) as string[]) {
      if (file.endsWith('.tsbuildinfo') && !file.includes('node_modules')) fs.rmSync(path.join(copy, file), { force: true });
    }
    expect(treeHash(copy)).toBe(pristine);
  });
});

describe('npm run generate in a clone before npm install', () => {
  let copy: string;
  beforeAll(() => {
    copy = copyRepo('restgate-generator-bare-', { installed: false });
  });
  afterAll(() => {
    removeCopy(copy);
  });

  test('when run with no node_modules, then it succeeds, edits the same four files, and says to install first', () => {
    const res = generate(copy, VOLUMES);

    expectSuccess('generate', res);
    expect(res.stderr).toBe('');
    expect(res.stdout).toContain('Next: npm install && npx tsc -b && npx jest services/volumes');
    expect(changedFiles(copy).filter((file) => !file.startsWith(`services${path.sep}volumes${path.sep}`))).toEqual(SHARED_FILES);
  });
});
