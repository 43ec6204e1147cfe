// @ts-check
'use strict';
// Writes a plan all at once, or not at all: every file is first written beside its target, then
// renamed into place; if anything fails, what was already changed is put back.

const fs = require('node:fs');
const path = require('node:path');

/**
 * @param {string} root
 * @param {{ writes: Array<{ path: string, content: string, temp?: string }>, links: Array<{ path: string, target: string }>,
 *           unlinks: string[], removeDirs: string[] }} plan
 */
function applyPlan(root, plan) {
  const tag = `.generate-${process.pid}`;
  const abs = (rel) => path.join(root, rel);
  const undo = [];
  const temps = [];
  try {
    // Directories about to disappear are moved aside first, so they can come back.
    for (const rel of plan.removeDirs) {
      const aside = `${abs(rel)}${tag}.removed`;
      fs.renameSync(abs(rel), aside);
      undo.push(() => fs.renameSync(aside, abs(rel)));
    }
    for (const write of plan.writes) {
      const target = abs(write.path);
      const created = [];
      for (let dir = path.dirname(target); !fs.existsSync(dir); dir = path.dirname(dir)) created.unshift(dir);
      for (const dir of created) {
        fs.mkdirSync(dir);
        undo.push(() => fs.rmSync(dir, { recursive: true, force: true }));
      }
      const temp = `${target}${tag}.tmp`;
      fs.writeFileSync(temp, write.content);
      temps.push(temp);
      write.temp = temp;
    }
    for (const write of plan.writes) {
      const target = abs(write.path);
      const before = fs.existsSync(target) ? fs.readFileSync(target) : null;
      const temp = /** @type {string} */ (write.temp); // written above
      if (before !== null) {
        const mode = fs.statSync(target).mode;
        fs.chmodSync(temp, mode);
      }
      fs.renameSync(temp, target);
      undo.push(() => (before === null ? fs.rmSync(target, { force: true }) : fs.writeFileSync(target, before)));
    }
    for (const link of plan.links) {
      fs.symlinkSync(link.target, abs(link.path), 'dir');
      undo.push(() => fs.unlinkSync(abs(link.path)));
    }
    for (const rel of plan.unlinks) {
      const target = fs.readlinkSync(abs(rel));
      fs.unlinkSync(abs(rel));
      undo.push(() => fs.symlinkSync(target, abs(rel), 'dir'));
    }
  } catch (err) {
    for (const temp of temps) fs.rmSync(temp, { force: true });
    for (const step of undo.reverse()) {
      try {
        step();
      } catch {
        // best effort: report the original failure
      }
    }
    throw err;
  }
  for (const rel of plan.removeDirs) fs.rmSync(`${abs(rel)}${tag}.removed`, { recursive: true, force: true });
}

module.exports = { applyPlan };
