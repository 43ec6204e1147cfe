'use strict';
// The README's configuration table (scripts/config-table.cjs) lists every service's environment,
// and a test holds the README to it; so adding or removing a service rewrites the table. The
// config schemas are read from the TypeScript sources, transpiled in memory (no build needed),
// with the files the generator is about to write taken from the plan rather than the disk.

const fs = require('node:fs');
const Module = require('node:module');
const path = require('node:path');

/** A loader for `.ts` sources: `load(file, source?)` returns the module's exports. */
function tsLoader(root, overrides) {
  const ts = require('typescript');
  const cache = new Map();
  const resolveTs = (from, request) => {
    const base = path.resolve(path.dirname(from), request);
    for (const candidate of [`${base}.ts`, path.join(base, 'index.ts'), base]) {
      if (overrides.has(candidate) || (fs.existsSync(candidate) && fs.statSync(candidate).isFile())) return candidate;
    }
    return null;
  };
  const load = (file) => {
    if (cache.has(file)) return cache.get(file).exports;
    const mod = new Module(file, null);
    mod.filename = file;
    mod.paths = Module._nodeModulePaths(path.dirname(file));
    cache.set(file, mod);
    const source = overrides.get(file) ?? fs.readFileSync(file, 'utf8');
    const { outputText } = ts.transpileModule(source, {
      fileName: file,
      compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, esModuleInterop: true },
    });
    const localRequire = (request) => {
      if (request === '@restgate/shared') return load(path.join(root, 'shared', 'src', 'index.ts'));
      if (request.startsWith('@restgate/shared/'))
        return load(path.join(root, 'shared', 'src', request.slice('@restgate/shared/'.length), 'index.ts'));
      if (request.startsWith('.')) {
        const target = resolveTs(file, request);
        if (target && target.endsWith('.ts')) return load(target);
      }
      return mod.require(request);
    };
    new Function('exports', 'require', 'module', '__filename', '__dirname', outputText)(
      mod.exports,
      localRequire,
      mod,
      file,
      path.dirname(file),
    );
    return mod.exports;
  };
  return load;
}

/**
 * README.md with its configuration table as it will be once the plan is written, or null when
 * the repository has no such table.
 *
 * @param {string} root
 * @param {{ add?: string, remove?: string, sources: Record<string, string> }} change  the service folder
 *   added or removed (services/books), and the new text of files the plan writes (relative paths)
 */
function readmeWithConfigTable(root, { add, remove, sources }) {
  const readmeFile = path.join(root, 'README.md');
  const libFile = path.join(root, 'scripts', 'config-table.cjs');
  if (!fs.existsSync(readmeFile) || !fs.existsSync(libFile)) return null;
  const lib = require(libFile);
  const readme = fs.readFileSync(readmeFile, 'utf8');
  if (lib.extractTable(readme) === undefined) return null;

  let dirs = lib.packageDirs(root).filter((dir) => dir !== remove);
  if (add && !dirs.includes(add)) dirs = ['gateway', ...[...dirs.filter((d) => d !== 'gateway'), add].sort()];
  const overrides = new Map(Object.entries(sources).map(([rel, text]) => [path.join(root, rel), text]));
  const load = tsLoader(root, overrides);
  const packages = dirs.map((dir) => {
    const file = path.join(root, dir, 'src', 'config.ts');
    return { service: path.basename(dir), schema: lib.schemaOf(load(file), file) };
  });
  return lib.replaceTable(readme, lib.renderConfigTable(packages));
}

module.exports = { readmeWithConfigTable, tsLoader };
