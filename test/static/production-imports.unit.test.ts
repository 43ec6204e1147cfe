import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

/**
 * What the images install is each service's production dependencies (`npm ci --omit=dev` in the
 * Dockerfile), and `@restgate/shared` lists `ajv` among its devDependencies: only
 * `@restgate/shared/testing` uses it. So no production source may import `ajv`, nor
 * `@restgate/shared/testing` (whose other helpers are for tests too).
 */
const ROOT = path.resolve(__dirname, '../..');
const TEST_ONLY = ['ajv', '@restgate/shared/testing'];

function productionSources(): string[] {
  const out = execFileSync(
    'git',
    ['ls-files', '--cached', '--others', '--exclude-standard', 'gateway/src', 'services/*/src', 'shared/src'],
    {
      cwd: ROOT,
      encoding: 'utf8',
    },
  );
  return out.split('\n').filter((file) => file.endsWith('.ts') && !file.endsWith('.d.ts') && !file.startsWith('shared/src/testing/'));
}

test('no production source imports what only tests have (ajv, @restgate/shared/testing)', () => {
  const offending = productionSources().flatMap((file) =>
    ts
      .preProcessFile(readFileSync(path.join(ROOT, file), 'utf8'), true, false)
      .importedFiles.map((ref) => ref.fileName)
      .filter((name) => TEST_ONLY.some((only) => name === only || name.startsWith(`${only}/`)))
      .map((name) => `${file}: ${name}`),
  );

  expect(productionSources().length).toBeGreaterThan(50);
  expect(offending).toEqual([]);
});

test('ajv is a devDependency of @restgate/shared, not a dependency', () => {
  const manifest = JSON.parse(readFileSync(path.join(ROOT, 'shared/package.json'), 'utf8')) as Record<
    string,
    Record<string, string> | undefined
  >;

  expect(manifest.dependencies?.ajv).toBeUndefined();
  expect(manifest.devDependencies?.ajv).toBeDefined();
});
