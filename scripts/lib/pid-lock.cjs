'use strict';
// A lock between processes on one machine: a file created exclusively, holding the owner's pid.
// A lock whose owner has died (a crashed build or install) is taken over rather than waited for.
// Node built-ins only: this runs before `npm install`.

const fs = require('node:fs');

/** Takes the lock when it is free (or its owner is dead); false while a live process holds it. */
function tryLock(lockFile) {
  for (let attempt = 0; attempt < 2; attempt += 1) {
    try {
      fs.writeFileSync(lockFile, String(process.pid), { flag: 'wx' });
      return true;
    } catch (err) {
      if (err.code !== 'EEXIST') throw err;
      if (lockHolderAlive(lockFile)) return false;
      fs.rmSync(lockFile, { force: true });
    }
  }
  return false;
}

/** The pid written in the lock file, or null. */
function lockHolder(lockFile) {
  try {
    const pid = Number.parseInt(fs.readFileSync(lockFile, 'utf8'), 10);
    return Number.isInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}

function lockHolderAlive(lockFile) {
  const pid = lockHolder(lockFile);
  if (pid === null) {
    // Just created, pid not written yet: give the writer the benefit of the doubt.
    try {
      return Date.now() - fs.statSync(lockFile).mtimeMs < 10000;
    } catch {
      return false;
    }
  }
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return err.code === 'EPERM';
  }
}

function unlock(lockFile) {
  if (lockHolder(lockFile) === process.pid) fs.rmSync(lockFile, { force: true });
}

module.exports = { lockHolder, tryLock, unlock };
