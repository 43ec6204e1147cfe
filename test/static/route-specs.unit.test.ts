/**
 * The gateway loads each routed service's compiled route specs (dist/api.js) at start, in its own
 * process and image, where only its production dependencies are installed. So src/api.ts, and
 * every file it imports in turn, may use only joi and @restgate/shared at run time, and never a
 * file that wires or reaches storage (start, app, data/).
 */
import fs from 'node:fs';
import path from 'node:path';
import { readRegistry, ROOT_DIR, routedServices } from '../../gateway/src/registry';

// @restgate/shared's entry points (/http for defineSpec, /data for listings, /resource for the resource
// schemas) come with the gateway's install too.
const ALLOWED_PACKAGES = ['joi', '@restgate/shared', '@restgate/shared/http', '@restgate/shared/data', '@restgate/shared/resource'];

/** Run-time imports (type-only ones vanish in the build), followed through relative files. */
function importsOf(entry: string): { files: string[]; packages: string[] } {
  const files = new Set<string>();
  const packages = new Set<string>();
  const visit = (file: string) => {
    if (files.has(file)) return;
    files.add(file);
    const text = fs.readFileSync(file, 'utf8');
    for (const match of text.matchAll(/^import\s+(type\s+)?[^'";]*?from\s+'([^']+)'|^import\s+'([^']+)'/gm)) {
      if (match[1]) continue;
      const specifier = (match[2] ?? match[3])!;
      if (!specifier.startsWith('.')) packages.add(specifier);
      else visit(`${path.resolve(path.dirname(file), specifier)}.ts`);
    }
  };
  visit(entry);
  return { files: [...files].map((f) => path.relative(ROOT_DIR, f)), packages: [...packages] };
}

describe.each(routedServices(readRegistry()).map((s) => [s.name, s] as const))('%s: src/api.ts', (_name, service) => {
  const entry = path.join(ROOT_DIR, service.dir, 'src', 'api.ts');

  test('exists and exports `api`', () => {
    expect(fs.readFileSync(entry, 'utf8')).toMatch(/^export const api\b/m);
  });

  test('needs only joi and @restgate/shared at run time, and no wiring or storage file', () => {
    const { files, packages } = importsOf(entry);

    expect(packages.filter((p) => !ALLOWED_PACKAGES.includes(p))).toEqual([]);
    expect(files.filter((f) => /\/src\/(start|app)\.ts$|\/src\/data\/|\.(repository|store)\.ts$/.test(f))).toEqual([]);
  });
});

test('the import reader sees through to a heavy dependency (it would catch the password hasher)', () => {
  const { packages } = importsOf(path.join(ROOT_DIR, 'services', 'identity', 'src', 'accounts', 'password-hasher.ts'));

  expect(packages).toContain('piscina');
});
