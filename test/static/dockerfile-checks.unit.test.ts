/**
 * The Dockerfile and .dockerignore rules can fail: each test breaks a copy of the real file in one
 * way and expects the rule to name what broke.
 */
import path from 'node:path';
import { finalEnvironment, parseDockerfile } from './support/dockerfile';
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
import { isIgnored, parseDockerignore } from './support/dockerignore';
import { ROOT, readRepoFile } from './support/stack';

const real = readRepoFile('Dockerfile');
const ignore = parseDockerignore(readRepoFile('.dockerignore'));
const identityArgs = { SERVICE: 'services/identity', PORT: '9001' };

/** The real Dockerfile with one replacement, which must apply. */
function broken(search: string | RegExp, replacement: string) {
  const text = real.replace(search, replacement);
  if (text === real) throw new Error(`the Dockerfile no longer contains ${search}`);
  return parseDockerfile(text);
}

describe('Dockerfile reader', () => {
  test('reads stages, continued lines, flags and the exec form', () => {
    const df = parseDockerfile(
      '# c\nARG V=1\nFROM node:26-slim AS a\nRUN --mount=type=cache,target=/x echo \\\n  one \\\n  # inside\n  two\nFROM a\nCMD ["node", "x.js"]\n',
    );
    expect(df.globalArgs.map((a) => a.args)).toEqual(['V=1']);
    expect(df.stages.map((s) => [s.name, s.from])).toEqual([
      ['a', 'node:26-slim'],
      [undefined, 'a'],
    ]);
    expect(df.stages[0]!.instructions[0]).toMatchObject({ keyword: 'RUN', flags: { mount: 'type=cache,target=/x' }, args: 'echo one two' });
    expect(df.stages[1]!.instructions[0]!.exec).toEqual(['node', 'x.js']);
  });

  test('the real image sets NODE_ENV and the PORT its build argument names', () => {
    expect(finalEnvironment(parseDockerfile(real), identityArgs)).toEqual({ NODE_ENV: 'production', PORT: '9001' });
  });
});

describe('Dockerfile rules on broken copies', () => {
  test('when there is one stage only, then it is named', () => {
    expect(multiStageProblems(parseDockerfile('FROM node:26-slim\nCMD ["node", "a.js"]\n'))).toEqual(['the Dockerfile has a single stage']);
  });

  test('when a base image is unpinned or latest, then it is named', () => {
    expect(baseImageProblems(broken('ARG NODE_IMAGE=node:26-trixie-slim', 'ARG NODE_IMAGE=node'))).toEqual([
      'stage base: base image node is not pinned to a version',
    ]);
    expect(baseImageProblems(broken('ARG NODE_IMAGE=node:26-trixie-slim', 'ARG NODE_IMAGE=node:latest'))).toHaveLength(1);
  });

  test('when the runtime is an odd (never LTS) or too old Node, or not slim, then it is named', () => {
    expect(nodeRuntimeProblems(broken('node:26-trixie-slim', 'node:25-trixie-slim'), 20)).toEqual([
      'node 25 is not an LTS line (odd majors never become LTS)',
    ]);
    expect(nodeRuntimeProblems(broken('node:26-trixie-slim', 'node:18-bookworm-slim'), 20)).toEqual([
      'node 18 is older than package.json engines allow (20)',
    ]);
    expect(nodeRuntimeProblems(broken('node:26-trixie-slim', 'node:26-trixie'), 20)).toEqual(['node:26-trixie is not a slim image']);
  });

  test('when the final stage has no USER, or root, then it is named', () => {
    expect(runtimeProblems(broken(/^USER .*$/m, ''))).toEqual(['the final stage has no USER: it would run as root']);
    expect(runtimeProblems(broken(/^USER .*$/m, 'USER root'))).toEqual(['the final stage runs as root']);
    expect(runtimeProblems(broken(/^USER .*$/m, 'USER 0:0'))).toEqual(['the final stage runs as 0:0']);
  });

  test('when there is no HEALTHCHECK, or it is NONE, then it is named', () => {
    expect(runtimeProblems(broken(/^HEALTHCHECK[^\n]*\\\n[^\n]*\n/m, ''))).toEqual(['the final stage has no HEALTHCHECK']);
    expect(runtimeProblems(broken(/^HEALTHCHECK[^\n]*\\\n[^\n]*\n/m, 'HEALTHCHECK NONE\n'))).toEqual([
      'the final stage has no HEALTHCHECK',
    ]);
  });

  test('when CMD is in shell form or starts npm, then it is named', () => {
    expect(runtimeProblems(broken(/^CMD .*$/m, 'CMD node dist/start.js'))).toEqual([
      'CMD is not in exec form (a shell as PID 1 does not pass SIGTERM on)',
    ]);
    expect(runtimeProblems(broken(/^CMD .*$/m, 'CMD ["npm", "start"]'))).toEqual([
      'CMD starts npm, not node (npm or a shell in between swallows SIGTERM)',
    ]);
  });

  test('when a secret is an ARG or ENV, then it is named', () => {
    const problems = bakedSecretProblems(broken('ARG PORT\nENV NODE_ENV', 'ARG PORT\nARG NPM_TOKEN\nENV JWT_SECRET=x NODE_ENV'));
    expect(problems.join('\n')).toMatch(/ARG NPM_TOKEN[\s\S]*ENV JWT_SECRET/);
  });

  test('when dependencies install with npm install, or dev dependencies reach the runtime, then it is named', () => {
    expect(installProblems(broken('npm ci --omit=dev', 'npm install --omit=dev'))).toEqual([
      expect.stringMatching(/npm install instead of npm ci/),
      'no RUN installs the production dependencies alone (npm ci --omit=dev)',
    ]);
  });

  test('when a COPY source is missing from the context or excluded by .dockerignore, then it is named', () => {
    const missing = broken('COPY . .\nRUN if', 'COPY no-such-file.json ./\nCOPY . .\nRUN if');
    expect(contextProblems(missing, ROOT, ignore, [identityArgs])).toEqual([expect.stringMatching(/no-such-file\.json does not exist/)]);
    const perService = broken('COPY . .\nRUN if', 'COPY ${SERVICE}/nope ./\nCOPY . .\nRUN if');
    expect(contextProblems(perService, ROOT, ignore, [identityArgs])).toEqual([
      expect.stringMatching(/services\/identity\/nope does not exist/),
    ]);
    const ignoredFile = broken('COPY . .\nRUN if', 'COPY jest.config.js ./\nCOPY . .\nRUN if');
    expect(contextProblems(ignoredFile, ROOT, ignore, [identityArgs])).toEqual([
      expect.stringMatching(/jest\.config\.js is excluded by \.dockerignore/),
    ]);
  });
});

describe('.dockerignore matcher', () => {
  test('matches folders anywhere with **, their contents, and lets ! re-include', () => {
    const rules = parseDockerignore('**/node_modules\n/.env\n**/test\n!test/package.json\n*.md\n');
    expect(isIgnored(rules, 'services/identity/node_modules/x/y.js')).toBe(true);
    expect(isIgnored(rules, 'node_modules')).toBe(true);
    expect(isIgnored(rules, '.env')).toBe(true);
    expect(isIgnored(rules, 'test/contract/a.test.ts')).toBe(true);
    expect(isIgnored(rules, 'test/package.json')).toBe(false);
    expect(isIgnored(rules, 'README.md')).toBe(true);
    expect(isIgnored(rules, 'docs/README.md')).toBe(false);
    expect(isIgnored(rules, 'shared/src/testing/index.ts')).toBe(false);
  });

  test('when .dockerignore forgets .env or keeps out a needed file, then it is named', () => {
    const rules = parseDockerignore('**/node_modules\nservices/identity/workers\n');
    expect(ignoreProblems(rules, ['.env'], [path.posix.join('services/identity/workers/password.worker.cjs')])).toEqual([
      '.dockerignore lets .env into the build context',
      '.dockerignore keeps out services/identity/workers/password.worker.cjs, which the build needs',
    ]);
  });
});
