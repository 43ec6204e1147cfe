#!/usr/bin/env node
'use strict';
// Runs the README's "Try it" walk-through literally, from the repository root, against the stack
// `npm start` is running, and checks every answer's status against what the README says of it.
// Node built-ins only. Exits 1 when a status differs, or when the walk-through can't be read.
//
// The README's shape, which this relies on and checks: one ```sh block under "## Try it";
// paragraphs separated by blank lines; a paragraph's comment says what its calls answer, as
// "→ 201 …", every status code after the arrow in order ("→ 204; … refused (401)" is two calls),
// and its command lines hold exactly that many `curl` calls.

const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..', '..');

/** The walk-through's paragraphs: { comment, commands, expected: number[] }. */
function readWalkThrough(readme) {
  const section = readme.split(/^## /m).find((part) => part.startsWith('Try it'));
  if (!section) throw new Error('README.md has no "## Try it" section');
  const block = /```sh\n([\s\S]*?)```/.exec(section);
  if (!block) throw new Error('the "Try it" section has no ```sh block');
  return block[1]
    .split(/\n\s*\n/)
    .map((paragraph) => paragraph.split('\n').filter((line) => line.trim()))
    .filter((lines) => lines.length)
    .map((lines) => {
      const comment = lines.filter((l) => l.trim().startsWith('#')).join(' ');
      const commands = lines.filter((l) => !l.trim().startsWith('#'));
      const promise = comment.includes('→') ? comment.slice(comment.indexOf('→')) : '';
      const expected = (promise.match(/\b[1-5]\d\d\b/g) || []).map(Number);
      const calls = commands.join('\n').match(/\bcurl\s/g)?.length ?? 0;
      if (calls !== expected.length) {
        throw new Error(
          `a "Try it" paragraph makes ${calls} curl calls but its comment promises ${expected.length} statuses:\n${lines.join('\n')}`,
        );
      }
      return { comment, commands, expected };
    });
}

function main() {
  const steps = readWalkThrough(fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8'));
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'restgate-try-it-'));
  const statusFile = path.join(work, 'statuses');
  // curl as the README calls it, plus its status code on a line of a file of ours (the %{stderr}
  // write-out goes to curl's stderr, which we send there): the walk-through's own output and the
  // values it captures with $(…) stay exactly as a user gets them.
  const script = [
    'set -uo pipefail',
    `curl() { command curl --write-out '%{stderr}%{http_code}\\n' "$@" 2>>${JSON.stringify(statusFile)}; }`,
    ...steps.map((s) => s.commands.join('\n')),
    '',
  ].join('\n');
  const result = spawnSync('bash', ['-c', script], { cwd: ROOT, encoding: 'utf8', timeout: 120_000 });
  process.stdout.write(result.stdout);
  process.stderr.write(result.stderr);
  const got = fs.existsSync(statusFile) ? fs.readFileSync(statusFile, 'utf8').trim().split('\n').filter(Boolean).map(Number) : [];
  fs.rmSync(work, { recursive: true, force: true });

  let index = 0;
  let failures = 0;
  for (const step of steps) {
    for (const want of step.expected) {
      const answer = got[index++];
      const ok = answer === want;
      if (!ok) failures += 1;
      process.stdout.write(
        `\n[try-it] ${ok ? 'ok ' : 'BAD'} ${want} expected, ${answer ?? 'no call'} answered: ${step.comment.replace(/^#\s*/, '')}`,
      );
    }
  }
  const expectedCount = steps.reduce((n, s) => n + s.expected.length, 0);
  if (got.length !== expectedCount) {
    failures += 1;
    process.stdout.write(`\n[try-it] BAD ${expectedCount} calls expected, ${got.length} made`);
  }
  process.stdout.write(
    `\n[try-it] ${failures === 0 ? 'every' : `${failures} of the`} ${expectedCount} statuses ${failures === 0 ? 'as' : 'not as'} the README says\n`,
  );
  return failures === 0 && result.status === 0 ? 0 : 1;
}

module.exports = { readWalkThrough };

if (require.main === module) {
  try {
    process.exitCode = main();
  } catch (err) {
    process.stderr.write(`[try-it] ${err.message}\n`);
    process.exitCode = 1;
  }
}
