import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

/**
 * No import cycles in our TypeScript, type-only imports included: a cycle means two modules can't
 * be read, tested or moved apart (say, a domain module and the repository that stores it). ESLint
 * cycle rules skip `import type`, which is exactly how such layering mistakes slip in, so this
 * walks every import itself.
 */
const ROOT = path.resolve(__dirname, '../..');

function trackedTsFiles(): string[] {
  const out = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '*.ts'], { cwd: ROOT, encoding: 'utf8' });
  return out
    .split('\n')
    .filter((file) => file && !file.endsWith('.d.ts') && !file.includes('node_modules/') && !file.includes('/dist/'))
    .map((file) => path.join(ROOT, file))
    .filter((file) => existsSync(file));
}

/** Where an import points, for imports of our own files (relative, or `@restgate/shared[/entry]`); undefined for packages. */
function resolveImport(from: string, specifier: string): string | undefined {
  let base: string;
  if (specifier.startsWith('.')) base = path.resolve(path.dirname(from), specifier);
  else if (specifier === '@restgate/shared') base = path.join(ROOT, 'shared/src/index');
  else if (specifier.startsWith('@restgate/shared/')) base = path.join(ROOT, 'shared/src', specifier.slice('@restgate/shared/'.length));
  else return undefined;
  return [`${base}.ts`, path.join(base, 'index.ts')].find((candidate) => existsSync(candidate));
}

function importGraph(files: string[]): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, false);
    const targets = importedFiles.map((ref) => resolveImport(file, ref.fileName)).filter((target): target is string => !!target);
    graph.set(file, [...new Set(targets)]);
  }
  return graph;
}

/** Strongly connected components with more than one module, or a module importing itself (Tarjan). */
function cycles(graph: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  function visit(node: string): void {
    index.set(node, next);
    low.set(node, next);
    next++;
    stack.push(node);
    onStack.add(node);
    for (const target of graph.get(node) ?? []) {
      if (!index.has(target)) {
        visit(target);
        low.set(node, Math.min(low.get(node)!, low.get(target)!));
      } else if (onStack.has(target)) {
        low.set(node, Math.min(low.get(node)!, index.get(target)!));
      }
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    if (component.length > 1 || graph.get(node)?.includes(node)) found.push(component.map((file) => path.relative(ROOT, file)).sort());
  }
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return found;
}

describe('imports', () => {
  test('when every TypeScript file is read, then no import cycle is found (type-only imports count)', () => {
    const files = trackedTsFiles();
    expect(files.length).toBeGreaterThan(100);
    expect(cycles(importGraph(files))).toEqual([]);
  });

  test('when two modules import each other (even for types only), then the check reports them', () => {
    const a = path.join(ROOT, 'services/x/src/domain/a.ts');
    const b = path.join(ROOT, 'services/x/src/data/b.ts');
    const c = path.join(ROOT, 'services/x/src/c.ts');
    expect(
      cycles(
        new Map([
          [a, [b]],
          [b, [a]],
          [c, [a]],
        ]),
      ),
    ).toEqual([['services/x/src/data/b.ts', 'services/x/src/domain/a.ts']]);
  });
});
