'use strict';
// Preloaded with NODE_OPTIONS=--require (node refuses --cpu-prof there): profiles the whole
// process, like --cpu-prof, and writes <RESTGATE_CPU_PROFILE_DIR>/<name>-<pid>.cpuprofile at exit.
// The same-thread inspector session answers synchronously, so this works inside 'exit'.

const fs = require('node:fs');
const inspector = require('node:inspector');
const path = require('node:path');

const dir = process.env.RESTGATE_CPU_PROFILE_DIR;
if (dir) {
  const session = new inspector.Session();
  session.connect();
  session.post('Profiler.enable');
  session.post('Profiler.setSamplingInterval', { interval: 100 });
  // RESTGATE_CPU_PROFILE_DELAY_MS: start later, so start-up (module loading) stays out of it.
  const delay = Number(process.env.RESTGATE_CPU_PROFILE_DELAY_MS ?? 0);
  if (delay > 0) setTimeout(() => session.post('Profiler.start'), delay).unref();
  else session.post('Profiler.start');
  process.once('exit', () => {
    session.post('Profiler.stop', (err, result) => {
      if (err) return;
      fs.mkdirSync(dir, { recursive: true });
      const name = path.basename(path.dirname(path.dirname(process.argv[1] ?? 'node')));
      fs.writeFileSync(path.join(dir, `${name}-${process.pid}.cpuprofile`), JSON.stringify(result.profile));
    });
  });
}
