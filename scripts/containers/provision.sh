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

# The parts define functions (and images.sh its PATH line); the command below picks what runs.
PARTS=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/provision
# shellcheck source=provision/tools.sh
. "$PARTS/tools.sh"
# shellcheck source=provision/rootfs.sh
. "$PARTS/rootfs.sh"
# shellcheck source=provision/images.sh
. "$PARTS/images.sh"

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

case "${1:-}" in
  tools) tools ;;
  go-tools) go_tools ;;
  root-filesystems) root_filesystems ;;
  images) images ;;
  fresh-rootfs) fresh_rootfs ;;
  fresh-image) fresh_image ;;
  *) echo "usage: $0 tools|images|fresh-rootfs|fresh-image (or go-tools, root-filesystems: parts of tools)" >&2; exit 2 ;;
esac
