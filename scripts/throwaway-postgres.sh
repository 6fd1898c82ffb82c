#!/usr/bin/env bash
# A throwaway PostgreSQL cluster on a loopback port, for the multi-worker fleet tests.
#
#   scripts/throwaway-postgres.sh start DIR [PORT]   # prints postgresql://dpt@127.0.0.1:PORT/postgres
#   scripts/throwaway-postgres.sh stop DIR
#
# Uses the server binaries of the Debian `postgresql` package (/usr/lib/postgresql/*/bin)
# or whatever pg_ctl is on PATH. The cluster trusts local connections, listens on
# 127.0.0.1 only, keeps no data worth keeping (fsync off) and lives in DIR. As root it
# runs as the `postgres` system user (the server refuses to run as root).
set -euo pipefail

cmd=${1:?usage: throwaway-postgres.sh start DIR [PORT] | stop DIR}
dir=${2:?the cluster directory}

bindir=""
for candidate in /usr/lib/postgresql/*/bin; do
  [ -x "$candidate/pg_ctl" ] && bindir=$candidate
done
if [ -z "$bindir" ]; then
  pg_ctl_path=$(command -v pg_ctl || true)
  [ -n "$pg_ctl_path" ] || { echo "throwaway-postgres: no pg_ctl found (apt-get install postgresql)" >&2; exit 3; }
  bindir=$(dirname "$pg_ctl_path")
fi

as_owner() {
  if [ "$(id -u)" = 0 ]; then
    runuser -u postgres -- "$@"
  else
    "$@"
  fi
}

case "$cmd" in
  start)
    if [ -f "$dir/postmaster.pid" ] && as_owner "$bindir/pg_ctl" -D "$dir" status >/dev/null 2>&1; then
      echo "postgresql://dpt@127.0.0.1:$(sed -n 4p "$dir/postmaster.pid")/postgres"   # already running
      exit 0
    fi
    port=${3:-}
    if [ -z "$port" ]; then
      port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    fi
    mkdir -p "$dir"
    [ "$(id -u)" = 0 ] && chown postgres: "$dir"
    if [ ! -f "$dir/PG_VERSION" ]; then
      as_owner "$bindir/initdb" -D "$dir" -U dpt -A trust --no-sync --no-instructions >"$dir.initdb.log" 2>&1 \
        || { cat "$dir.initdb.log" >&2; exit 1; }
    fi
    as_owner "$bindir/pg_ctl" -D "$dir" -l "$dir/server.log" -w -t 30 \
      -o "-p $port -k $dir -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200" \
      start >/dev/null || { cat "$dir/server.log" >&2; exit 1; }
    echo "postgresql://dpt@127.0.0.1:$port/postgres"
    ;;
  stop)
    [ -f "$dir/postmaster.pid" ] && as_owner "$bindir/pg_ctl" -D "$dir" -m immediate -w stop >/dev/null
    ;;
  *)
    echo "usage: throwaway-postgres.sh start DIR [PORT] | stop DIR" >&2
    exit 2
    ;;
esac
