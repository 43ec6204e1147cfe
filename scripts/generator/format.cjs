'use strict';
// Generated sources go through the repository's own Prettier settings, so they read like the
// hand-written ones whatever the lengths of the names in them.

const path = require('node:path');

const PARSERS = { '.ts': 'typescript', '.json': 'json', '.cjs': 'babel', '.js': 'babel' };

/** Formats `files` ({ relPath: text }) in place; without Prettier installed, leaves them as rendered. */
async function formatFiles(root, files) {
  let prettier;
  try {
    prettier = require('prettier');
  } catch {
    return false;
  }
  for (const [rel, text] of Object.entries(files)) {
    const parser = PARSERS[path.extname(rel)];
    if (!parser) continue;
    const file = path.join(root, rel);
    const options = (await prettier.resolveConfig(file)) ?? {};
    files[rel] = await prettier.format(text, { ...options, parser, filepath: file });
  }
  return true;
}

module.exports = { formatFiles };
