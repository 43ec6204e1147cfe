#!/usr/bin/env bash
# Inside the pristine machine of `npm run test:fresh`, as root: what a new user does with the
# README. Two clones of the repository (/src, mounted read-only) start `npm start` at the same
# time, the second on other ports: both must come up, which is how two installers racing for the
# package database show themselves. Then the README's "Try it" walk-through runs, literally,
# against the first; then Ctrl-C (SIGINT to each one's process group, as a terminal sends it):
# both must exit 0 and leave no process behind.
#
# RESTGATE_FRESH_REF: the commit both clones check out (default: the branch /src has checked out).
set -euo pipefail
set -m # every background job in a process group of its own, as a terminal would run it

READY_TIMEOUT_S=${RESTGATE_FRESH_READY_TIMEOUT_S:-2400}
STOP_TIMEOUT_S=60
LISTENING='restgate gateway listening on'

say() { printf '[fresh] %s\n' "$*"; }
fail() {
  say "FAILED: $*"
  exit 1
}

clone() { # dir
  git clone -q /src "$1"
  if [ -n "${RESTGATE_FRESH_REF:-}" ]; then git -C "$1" checkout -q "$RESTGATE_FRESH_REF"; fi
}

say "machine: $(. /etc/os-release && echo "$PRETTY_NAME"), node $(node --version), npm $(npm --version), $(go version | cut -d' ' -f3), $(python3 --version)"
for tool in rabbitmq-server redis-server postgres mongod ferretdb; do
  if command -v "$tool" >/dev/null; then fail "$tool is already on this machine: it is not pristine"; fi
done
[ -e "$HOME/.cache/restgate" ] && fail "$HOME/.cache/restgate exists: it is not pristine"

clone /root/a
clone /root/b
say "cloned $(git -C /root/a log -1 --format='%h %s') twice"

started=$(date +%s)
(cd /root/a && exec npm start) >/root/a.log 2>&1 &
pid_a=$!
# The second stack's ports: every process's registry port plus 100 (PORT=9100, IDENTITY_PORT=9101, …).
b_ports=$(cd /root/b && node -p "const r = require('./services.json'); [r.gateway, ...r.services].map((s) => s.portEnv + '=' + (s.port + 100)).join(' ')")
(cd /root/b && exec env $b_ports npm start) >/root/b.log 2>&1 &
pid_b=$!
say "npm start in /root/a (gateway :9000) and /root/b (gateway :9100), at the same time"

alive() { kill -0 "$1" 2>/dev/null; }
ready_a=''
ready_b=''
while [ -z "$ready_a" ] || [ -z "$ready_b" ]; do
  now=$(date +%s)
  for x in a b; do
    var=ready_$x pid_var=pid_$x
    [ -n "${!var}" ] && continue
    if grep -q "$LISTENING" "/root/$x.log"; then
      printf -v "$var" '%s' "$((now - started))"
      say "/root/$x is ready after ${!var} s"
    elif ! alive "${!pid_var}"; then
      say "npm start in /root/$x exited before it was ready; its output:"
      tail -n 60 "/root/$x.log"
      fail "npm start in /root/$x did not come up"
    fi
  done
  if [ $((now - started)) -gt "$READY_TIMEOUT_S" ]; then
    tail -n 30 /root/a.log /root/b.log
    fail "not both ready within $READY_TIMEOUT_S s"
  fi
  sleep 2
done

# The second stack answers on its own ports.
code=$(curl -s -o /dev/null -w '%{http_code}' http://127.0.0.1:9100/ready)
[ "$code" = 200 ] || fail "GET :9100/ready answered $code"

say "the README's \"Try it\", literally, in /root/a"
(cd /root/a && node scripts/fresh/try-it.cjs) || fail "the README's \"Try it\" walk-through"

say "Ctrl-C to both"
kill -INT -- "-$pid_a" "-$pid_b"
for x in a b; do
  pid_var=pid_$x
  waited=0
  while alive "${!pid_var}" && [ $waited -lt $STOP_TIMEOUT_S ]; do
    sleep 1
    waited=$((waited + 1))
  done
  alive "${!pid_var}" && fail "npm start in /root/$x still runs $STOP_TIMEOUT_S s after Ctrl-C"
  rc=0
  wait "${!pid_var}" || rc=$?
  [ $rc -eq 0 ] || {
    tail -n 30 "/root/$x.log"
    fail "npm start in /root/$x exited $rc after Ctrl-C"
  }
  say "npm start in /root/$x exited 0"
done

# Whatever still runs besides the container's init, its main process and this script's own line
# of processes was left behind.
left=$(python3 - "$$" <<'PY'
import os, sys
def stat(pid):
    with open(f'/proc/{pid}/stat') as f:
        data = f.read()
    comm = data[data.index('(') + 1:data.rindex(')')]
    return comm, int(data[data.rindex(')') + 2:].split()[1])
mine = set()
pid = os.getpid()
while pid > 0:
    mine.add(pid)
    pid = stat(pid)[1]
pid = int(sys.argv[1])
mine.add(pid)
for p in sorted(int(d) for d in os.listdir('/proc') if d.isdigit()):
    try:
        comm, ppid = stat(p)
        cmd = open(f'/proc/{p}/cmdline', 'rb').read().replace(b'\0', b' ').decode(errors='replace').strip()
    except FileNotFoundError:
        continue
    if p == 1 or p in mine or (ppid == 1 and cmd == 'sleep infinity'):
        continue
    print(f'{p} {comm}: {cmd[:160]}')
PY
)
if [ -n "$left" ]; then
  printf '%s\n' "$left"
  fail "processes left behind after Ctrl-C"
fi
say "no process left behind"
# Where the first run's time went, in npm start's own words.
for x in a b; do
  grep -hE 'added [0-9]+ packages in|installed .* in [0-9]+ s|waiting for another run|built FerretDB|RabbitMQ ready|ready in [0-9.]+ s' "/root/$x.log" |
    sed "s|^|  /root/$x: |" || true
done
say "PASSED: first run of npm start on a pristine machine: /root/a ready in $ready_a s, /root/b in $ready_b s (started together)"
