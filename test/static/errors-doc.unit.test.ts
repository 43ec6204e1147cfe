/**
 * docs/errors.md is generated from the error catalogues (scripts/errors-table.cjs); these tests
 * fail when the page, the catalogues, the route specs that list their entries, or the codes the
 * API pages name by status disagree.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { ServiceApi } from '@restgate/shared/http';
import * as errorsTable from '../../scripts/errors-table.cjs';
import { readRegistry, routedServices } from '../../gateway/src/registry';

const ROOT_DIR = path.resolve(__dirname, '..', '..');

/** Every package's catalogue from its source (what the build turns into dist/errors.js), so no build is needed here. */
function sourceCatalogues() {
  return errorsTable.packageDirs(ROOT_DIR).map(({ name, dir }) => {
    const file = path.join(ROOT_DIR, dir, 'src', 'errors.ts');
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    return { name, dir, entries: errorsTable.catalogueOf(require(file) as Record<string, unknown>, file) };
  });
}

const catalogues = sourceCatalogues();
const byCode = new Map(catalogues.flatMap((pkg) => pkg.entries.map((entry) => [entry.code, { ...entry, owner: pkg.name }] as const)));

describe('docs/errors.md', () => {
  test('when the page is read, then it is the one generated from every error catalogue', () => {
    const page = fs.readFileSync(errorsTable.PAGE, 'utf8');

    expect(catalogues.map((c) => c.name)).toEqual(expect.arrayContaining(['shared', 'gateway', 'identity', 'articles', 'mailer']));
    // On a mismatch: `npm run docs:errors`.
    expect(page).toBe(errorsTable.renderErrorsPage(catalogues));
  });
});

describe('the error catalogues', () => {
  test('when all are read, then no code is in two of them', () => {
    const codes = catalogues.flatMap((pkg) => pkg.entries.map((entry) => `${pkg.name}:${entry.code}`));
    const seen = new Map<string, string[]>();
    for (const tagged of codes) {
      const code = tagged.split(':')[1]!;
      seen.set(code, [...(seen.get(code) ?? []), tagged]);
    }

    expect([...seen.values()].filter((owners) => owners.length > 1)).toEqual([]);
  });

  test('when an entry is read, then its code is snake_case, its status an error status, and it has a title and a detail', () => {
    const bad = [...byCode.values()].filter(
      (e) => !/^[a-z]+(_[a-z]+)*$/.test(e.code) || e.status < 400 || e.status > 599 || !e.title.trim() || !e.detail.trim(),
    );

    expect(bad).toEqual([]);
  });
});

describe.each(routedServices(readRegistry()).map((s) => [s.name, s] as const))('%s: the error answers of src/api.ts', (_name, service) => {
  test('when a route lists catalogue entries for a status, then each entry answers that status', () => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { api } = require(path.join(ROOT_DIR, service.dir, 'src', 'api.ts')) as { api: ServiceApi };
    const wrong: string[] = [];
    let listed = 0;
    for (const [operation, spec] of Object.entries(api)) {
      for (const [status, doc] of Object.entries(spec.responses ?? {})) {
        for (const entry of doc.errors ?? []) {
          listed += 1;
          if (entry.status !== Number(status)) wrong.push(`${operation} ${status}: ${entry.code} is ${entry.status}`);
          if (byCode.get(entry.code)?.status !== entry.status) wrong.push(`${operation} ${status}: ${entry.code} is in no catalogue`);
        }
      }
    }

    expect(listed).toBeGreaterThan(0);
    expect(wrong).toEqual([]);
  });
});

describe.each(['api.md', 'accounts.md'])('docs/%s', (page) => {
  test('when it names a code after a status ("401 `mfa_required`"), then a catalogue has that code with that status', () => {
    const text = fs.readFileSync(path.join(ROOT_DIR, 'docs', page), 'utf8');
    const named = [...text.matchAll(/\b([45]\d\d) `([a-z]+(?:_[a-z]+)+|[a-z]+)`/g)].map((m) => ({ status: Number(m[1]), code: m[2]! }));

    expect(named.length).toBeGreaterThan(0);
    expect(named.filter(({ status, code }) => byCode.get(code)?.status !== status)).toEqual([]);
  });
});
