# shellcheck shell=bash
# Sourced by provision.sh (which sets ROOT, CACHE, BIN, SUITE, the pinned versions, say and die):
# the images made from the root file systems and binaries, in the running engine.

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

  # Made again whenever what goes into it changes (the FerretDB build, the entry point, the SQL).
  local mongo=restgate-standin/mongo:7-postgresql
  local mongo_files=("$BIN/ferretdb" "$ROOT/scripts/containers/mongosh-ping.cjs" "$ROOT/scripts/containers/mongo-entrypoint.sh" "$ROOT/scripts/lib/postgres-gin-siblings.sql")
  local mongo_inputs; mongo_inputs=$(cat "${mongo_files[@]}" | sha256sum | cut -c1-16)
  if [ "$(docker image inspect -f '{{index .Config.Labels "restgate.inputs"}}' "$mongo" 2>/dev/null)" != "$mongo_inputs" ]; then
    say "image $mongo (FerretDB on PostgreSQL)"
    have_image "$mongo-rootfs" || import_tar "$mongo-rootfs" "$CACHE/rootfs-$SUITE-mongo.tar" "$PATH_ENV"
    mkdir -p "$ctx/mongo"; cp -L "$BIN/ferretdb" "$ctx/mongo/ferretdb"
    cp "$ROOT/scripts/containers/mongosh-ping.cjs" "$ctx/mongo/mongosh"
    cp "$ROOT/scripts/containers/mongo-entrypoint.sh" "$ctx/mongo/entrypoint"
    cp "$ROOT/scripts/lib/postgres-gin-siblings.sql" "$ctx/mongo/gin-siblings.sql"
    # node for the mongosh shim (the compose file's health check runs it).
    printf '%s\n' "FROM $mongo-rootfs" "COPY --from=$node /usr/local/bin/node /usr/local/bin/node" \
      'COPY ferretdb /usr/local/bin/ferretdb' 'COPY mongosh /usr/local/bin/mongosh' 'COPY entrypoint /usr/local/bin/mongo-entrypoint' \
      'COPY gin-siblings.sql /usr/local/share/restgate/gin-siblings.sql' \
      'RUN chmod 755 /usr/local/bin/mongosh /usr/local/bin/mongo-entrypoint && chmod 644 /usr/local/share/restgate/gin-siblings.sql && mkdir -p /data/db /state' \
      'ENV FERRETDB_TELEMETRY=disable DO_NOT_TRACK=1' 'EXPOSE 27017' 'VOLUME /data/db' \
      "LABEL restgate.inputs=$mongo_inputs" \
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

fresh_image() {
  docker info >/dev/null 2>&1 || die "no docker engine answers"
  local tag=restgate-fresh/machine:$SUITE
  have_image "$tag" && return 0
  say "image $tag (a pristine machine)"
  import_tar "$tag" "$CACHE/rootfs-$SUITE-fresh-machine.tar" \
    'ENV PATH=/usr/local/go/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' 'WORKDIR /root'
}
