#!/bin/sh
# The mongo stand-in's entry point: FerretDB (the stack's patched build) storing in a PostgreSQL of
# its own, in the container, set up as scripts/lib/postgres.cjs sets up `npm start`'s.
# PostgreSQL (not SQLite) because FerretDB uses its indexes there: with SQLite every query scans
# its collection, which a fleet under load cannot afford. Both keep their files under /data/db,
# the official image's volume path.
set -eu
PG=/usr/lib/postgresql/15/bin
PGDATA=/data/db/postgres
mkdir -p "$PGDATA" /run/postgresql
chown postgres:postgres "$PGDATA" /run/postgresql
chmod 700 "$PGDATA"
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  su postgres -s /bin/sh -c "$PG/initdb -D $PGDATA -U postgres -A trust -E UTF8 --locale=C --no-sync" >/dev/null
fi
# Loopback only: FerretDB, in this container, is its one client.
su postgres -s /bin/sh -c "$PG/pg_ctl -D $PGDATA -w -t 60 -l $PGDATA/server.log -o '-c listen_addresses=127.0.0.1 -c unix_socket_directories=/run/postgresql -c fsync=off -c plan_cache_mode=force_custom_plan' start" >/dev/null
su postgres -s /bin/sh -c "$PG/psql -h 127.0.0.1 -U postgres -tAc \"SELECT 1 FROM pg_database WHERE datname = 'ferretdb'\"" | grep -q 1 ||
  su postgres -s /bin/sh -c "$PG/createdb -h 127.0.0.1 -U postgres ferretdb"
# GIN siblings of FerretDB's indexes (scripts/lib/postgres-gin-siblings.sql says why), at every start.
su postgres -s /bin/sh -c "$PG/psql -h 127.0.0.1 -U postgres -d ferretdb -X -q -v ON_ERROR_STOP=1 -f /usr/local/share/restgate/gin-siblings.sql" >/dev/null
stop() {
  kill -TERM "$child" 2>/dev/null || true
  wait "$child" || true
  su postgres -s /bin/sh -c "$PG/pg_ctl -D $PGDATA -m fast stop" >/dev/null || true
  exit 0
}
trap stop TERM INT
# The nested pushdown flag as `npm start` runs it (scripts/lib/mongo.cjs).
ferretdb --handler=postgresql --postgresql-url=postgres://postgres@127.0.0.1:5432/ferretdb \
  --test-enable-nested-pushdown --state-dir=/state --listen-addr=0.0.0.0:27017 --debug-addr=127.0.0.1:8088 --telemetry=disable &
child=$!
wait "$child"
