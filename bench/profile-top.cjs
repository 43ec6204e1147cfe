#!/usr/bin/env node
'use strict';
// The top of a V8 CPU profile (node --cpu-prof, or npm run bench -- --profile <dir>): self time
// by package and by function, and total time by function (with what it calls), as a share of the
// non-idle samples.
//
//   node bench/profile-top.cjs <file.cpuprofile> [--top 25]

const fs = require('node:fs');

const file = process.argv[2];
if (!file) throw new Error('usage: node bench/profile-top.cjs <file.cpuprofile> [--top 25]');
const topIndex = process.argv.indexOf('--top');
const top = topIndex === -1 ? 25 : Number(process.argv[topIndex + 1]);
const profile = JSON.parse(fs.readFileSync(file, 'utf8'));

const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const selfMicros = new Map();
for (let i = 0; i < profile.samples.length; i += 1) {
  const id = profile.samples[i];
  selfMicros.set(id, (selfMicros.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
}

/** "express", "@restgate/shared", "node:internal", "(garbage collector)", … */
function packageOf(url) {
  if (!url) return '(native)';
  if (url.startsWith('node:')) return 'node:' + url.slice(5).split('/')[0];
  const m = url.match(/node_modules\/((?:@[^/]+\/)?[^/]+)/);
  if (m) return m[1];
  const own = url.match(/\/(gateway|shared|services\/[^/]+)\/(?:dist|src)\//);
  return own ? `restgate ${own[1]}` : url;
}

function fnKeyOf(callFrame) {
  const where = callFrame.url
    ? `${callFrame.url.replace(/^.*\/(node_modules|gateway|shared|services)\//, '$1/')}:${callFrame.lineNumber + 1}`
    : '';
  return `${callFrame.functionName || '(anonymous)'} ${where}`;
}

const parentOf = new Map();
for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node.id);

const fnTotals = new Map();
const pkgTotals = new Map();
/** Time in a function and in everything it called, each function counted once per sample. */
const fnInclusive = new Map();
let busy = 0;
for (const [id, micros] of selfMicros) {
  const { callFrame } = byId.get(id);
  if (callFrame.functionName === '(idle)' || callFrame.functionName === '(program)') continue;
  busy += micros;
  const fnKey = fnKeyOf(callFrame);
  fnTotals.set(fnKey, (fnTotals.get(fnKey) ?? 0) + micros);
  const pkg = callFrame.url ? packageOf(callFrame.url) : callFrame.functionName;
  pkgTotals.set(pkg, (pkgTotals.get(pkg) ?? 0) + micros);
  const onStack = new Set();
  for (let at = id; at !== undefined; at = parentOf.get(at)) {
    const key = fnKeyOf(byId.get(at).callFrame);
    if (key.startsWith('(root)') || onStack.has(key)) continue;
    onStack.add(key);
    fnInclusive.set(key, (fnInclusive.get(key) ?? 0) + micros);
  }
}

const pct = (micros) => `${((100 * micros) / busy).toFixed(1).padStart(5)} %`;
const print = (title, totals) => {
  process.stdout.write(`${title}\n`);
  for (const [key, micros] of [...totals].sort((a, b) => b[1] - a[1]).slice(0, top)) process.stdout.write(`  ${pct(micros)}  ${key}\n`);
};
process.stdout.write(`${file}: ${(busy / 1e6).toFixed(2)} s busy\n`);
print('self time by package', pkgTotals);
print('self time by function', fnTotals);
print('total time by function (itself and what it calls)', fnInclusive);
