import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as packages from '../../scripts/lib/packages.cjs';
import * as pidLock from '../../scripts/lib/pid-lock.cjs';

describe('Debian packages (scripts/lib/packages.cjs)', () => {
  test('when apt-get says another process holds a lock, then that process is named', () => {
    expect(packages.lockHolder('E: Could not get lock /var/lib/apt/lists/lock. It is held by process 2929 (apt-get)\n')).toBe(
      'process 2929 (apt-get) on /var/lib/apt/lists/lock',
    );
    expect(packages.lockHolder('E: Could not get lock /var/lib/dpkg/lock - open (11: Resource temporarily unavailable)')).toBe(
      'another process',
    );
  });

  test('when apt-get fails for another reason, then it is not taken for a lock to wait on', () => {
    expect(packages.lockHolder('E: Unable to locate package no-such-package')).toBeNull();
    expect(packages.lockHolder('')).toBeNull();
  });

  test('when every package is installed, then nothing is installed and nothing is logged, even for calls at once', async () => {
    const present = ['dpkg', 'bash'].filter((name) => packages.isInstalled(name));
    if (present.length === 0) throw new Error('this test needs a Debian machine (dpkg and bash installed)');
    const logged: string[] = [];
    const log = (msg: string) => logged.push(msg);
    const results = await Promise.all([packages.ensurePackages(present, { log }), packages.ensurePackages(present, { log })]);
    expect(results).toEqual([[], []]);
    expect(logged).toEqual([]);
  });
});

describe('the lock between processes (scripts/lib/pid-lock.cjs)', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pid-lock-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  test('when a live process holds it, then it is not taken; when its holder is dead, then it is taken over', () => {
    const file = path.join(dir, 'lock');
    fs.writeFileSync(file, String(process.ppid));
    expect(pidLock.tryLock(file)).toBe(false);

    fs.writeFileSync(file, '999999999');
    expect(pidLock.tryLock(file)).toBe(true);
    expect(pidLock.lockHolder(file)).toBe(process.pid);
    pidLock.unlock(file);
    expect(fs.existsSync(file)).toBe(false);
  });
});
