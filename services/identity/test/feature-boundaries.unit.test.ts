import fs from 'node:fs';
import path from 'node:path';

/**
 * Identity is an accounts core with features around it, each one folder that `identity.ts`
 * composes. A feature reaches the core (and the outbox) but never another feature, and the core
 * reaches no feature: it asks its ports (accounts-deps.ts), which the composition fills. The
 * outbox and the audit trail serve the core and every feature alike, and know nothing of either.
 */
const SRC = path.resolve(__dirname, '..', 'src');
const FEATURES = ['mfa', 'social', 'emailed-links'];
const SHARED_FOLDERS = ['accounts', 'outbox', 'audit'];
/** Files at the root of src that any folder may import: the error catalogue and the config's types. */
const ROOT_IMPORTABLE = new Set(['errors.ts', 'config.ts', 'abuse.config.ts']);

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

/** The files of src that `file` imports (relative imports only), as paths relative to src. */
function importsOf(file: string): string[] {
  const text = fs.readFileSync(file, 'utf8');
  return [...text.matchAll(/(?:from|import)\s*\(?\s*'(\.{1,2}\/[^']+)'/g)].map((m) =>
    path.relative(SRC, path.resolve(path.dirname(file), `${m[1]}.ts`)),
  );
}

const folderOf = (relative: string) => (relative.includes(path.sep) ? relative.split(path.sep)[0]! : null);

const edges = sourceFiles(SRC).flatMap((file) => {
  const from = path.relative(SRC, file);
  return importsOf(file).map((to) => ({ from, to }));
});

describe("identity's feature boundaries", () => {
  test('the import graph was read (a broken reader would make every rule below pass)', () => {
    expect(edges.length).toBeGreaterThan(100);
    expect(edges.some(({ from, to }) => from.startsWith('mfa') && to.startsWith('accounts'))).toBe(true);
  });

  test('no feature imports another feature', () => {
    const crossing = edges.filter(({ from, to }) => {
      const a = folderOf(from);
      const b = folderOf(to);
      return a !== null && b !== null && a !== b && FEATURES.includes(a) && FEATURES.includes(b);
    });
    expect(crossing).toEqual([]);
  });

  test('the core (accounts), the outbox and the audit trail import no feature', () => {
    const upward = edges.filter(({ from, to }) => SHARED_FOLDERS.includes(folderOf(from) ?? '') && FEATURES.includes(folderOf(to) ?? ''));
    expect(upward).toEqual([]);
  });

  test('the outbox and the audit trail import nothing of the core', () => {
    expect(edges.filter(({ from, to }) => ['outbox', 'audit'].includes(folderOf(from) ?? '') && folderOf(to) === 'accounts')).toEqual([]);
    expect(edges.some(({ from, to }) => folderOf(from) === 'accounts' && folderOf(to) === 'audit')).toBe(true);
  });

  test('no folder imports the composition (identity.ts, api.ts, routes.ts, start.ts)', () => {
    const intoRoot = edges.filter(({ from, to }) => folderOf(from) !== null && folderOf(to) === null && !ROOT_IMPORTABLE.has(to));
    expect(intoRoot).toEqual([]);
  });

  test('every file of src is at the root or in the core, the outbox, the audit trail or a feature folder', () => {
    const folders = new Set(
      sourceFiles(SRC)
        .map((file) => folderOf(path.relative(SRC, file)))
        .filter((f): f is string => f !== null),
    );
    expect([...folders].sort()).toEqual([...FEATURES, ...SHARED_FOLDERS].sort());
  });
});
