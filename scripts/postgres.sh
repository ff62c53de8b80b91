#!/usr/bin/env bash
# A throwaway PostgreSQL server for the tests: `source scripts/postgres.sh` starts one on
# 127.0.0.1 (a free port, a temporary data directory), exports LOCALFORCE_TEST_POSTGRES_URL,
# and stops and removes it when the calling shell exits. Uses the distribution's PostgreSQL
# (installed by scripts/test.sh); runs it as the `postgres` user when invoked as root.

pg_bin=""
for candidate in /usr/lib/postgresql/*/bin; do [ -x "$candidate/initdb" ] && pg_bin="$candidate"; done
if [ -z "$pg_bin" ] && command -v initdb >/dev/null 2>&1; then pg_bin="$(dirname "$(command -v initdb)")"; fi
if [ -z "$pg_bin" ]; then echo "PostgreSQL's initdb was not found" >&2; return 1 2>/dev/null || exit 1; fi

pg_dir="$(mktemp -d /tmp/msync-pg.XXXXXX)"
pg_port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')"
as_pg() {
  if [ "$(id -u)" -eq 0 ]; then su postgres -s /bin/bash -c "$*"; else bash -c "$*"; fi
}
[ "$(id -u)" -eq 0 ] && chown postgres "$pg_dir"
as_pg "'$pg_bin/initdb' -D '$pg_dir/data' -A scram-sha-256 -U msync --pwfile=<(echo msync) -E UTF8 >'$pg_dir/initdb.log' 2>&1" \
  || { cat "$pg_dir/initdb.log" >&2; return 1 2>/dev/null || exit 1; }
as_pg "'$pg_bin/pg_ctl' -D '$pg_dir/data' -l '$pg_dir/server.log' -w -o \"-p $pg_port -k '$pg_dir' -c listen_addresses=127.0.0.1 -c max_connections=200\" start >/dev/null" \
  || { cat "$pg_dir/server.log" >&2; return 1 2>/dev/null || exit 1; }
PGPASSWORD=msync "$pg_bin/psql" -h 127.0.0.1 -p "$pg_port" -U msync -d postgres -qc "CREATE DATABASE localforce" >/dev/null
export LOCALFORCE_TEST_POSTGRES_URL="postgres://msync:msync@127.0.0.1:$pg_port/localforce"
stop_test_postgres() {
  as_pg "'$pg_bin/pg_ctl' -D '$pg_dir/data' -m fast stop >/dev/null 2>&1" || true
  rm -rf "$pg_dir"
}
trap stop_test_postgres EXIT
echo "PostgreSQL for the tests: 127.0.0.1:$pg_port"
