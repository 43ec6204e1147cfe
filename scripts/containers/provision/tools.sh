# shellcheck shell=bash
# Sourced by provision.sh (which sets ROOT, CACHE, BIN, the pinned versions, say and die): the
# engine's packages and the tools built from their Go modules, none of which needs an engine.

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

go_tools() {
  install_compose
  install_buildx
  install_mailpit
  install_ferretdb
}
