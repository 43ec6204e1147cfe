import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { makePrivate } from '../../scripts/lib/backing.cjs';

describe('makePrivate (the .data/ folder of npm start)', () => {
  let umask: number;
  let root: string;
  beforeEach(() => {
    umask = process.umask();
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'private-data-'));
  });
  afterEach(() => {
    process.umask(umask);
    fs.rmSync(root, { recursive: true, force: true });
  });

  test('when an older run left it readable, then folders become 0700 and files 0600, and new files are private', () => {
    const data = path.join(root, '.data');
    fs.mkdirSync(path.join(data, 'outbox'), { recursive: true, mode: 0o755 });
    fs.chmodSync(data, 0o755);
    fs.writeFileSync(path.join(data, 'outbox', 'a.eml'), 'link', { mode: 0o644 });
    fs.writeFileSync(path.join(data, 'tool'), '#!/bin/sh', { mode: 0o755 });

    makePrivate(data);
    fs.writeFileSync(path.join(data, 'new.log'), 'line');

    const mode = (p: string) => fs.statSync(path.join(data, p)).mode & 0o777;
    expect([mode('.'), mode('outbox'), mode('outbox/a.eml'), mode('tool'), mode('new.log')]).toEqual([0o700, 0o700, 0o600, 0o700, 0o600]);
  });

  test('when the folder does not exist, then it is created 0700', () => {
    const data = path.join(root, 'fresh', '.data');

    makePrivate(data);

    expect(fs.statSync(data).mode & 0o777).toBe(0o700);
  });
});
