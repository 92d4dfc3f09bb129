#!/usr/bin/env bash
# PgBouncer in transaction mode in front of a PostgreSQL server, for the pooler suite
# (`npm run test:pooler`, docs/poolers.md). Every database of the server is reachable through it
# under its own name, with trust authentication for the given user, on 127.0.0.1 only.
#
#   scripts/pgbouncer.sh start [SERVER_URL]   prints "POOLER_URL RUN_DIR" once PgBouncer answers
#   scripts/pgbouncer.sh stop RUN_DIR         stops it and removes RUN_DIR
#
# SERVER_URL defaults to postgres://postgres@127.0.0.1:5432/postgres. The port is the first free
# one from $CYCLONE_PGBOUNCER_PORT (default 6439). As root, PgBouncer runs as the `postgres` user
# (it refuses to run as root). Its log is RUN_DIR/pgbouncer.log.
set -euo pipefail

port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

start() {
  local server=${1:-postgres://postgres@127.0.0.1:5432/postgres}
  if ! command -v pgbouncer >/dev/null 2>&1 && [[ ! -x /usr/sbin/pgbouncer ]]; then
    echo "pgbouncer is not installed (Debian: apt-get install -y pgbouncer)" >&2
    return 1
  fi
  local bin
  bin=$(command -v pgbouncer || echo /usr/sbin/pgbouncer)
  # host, port and user of the server URL; a password is not supported (the suite uses trust).
  local rest=${server#*://}
  local user=${rest%%@*}
  [[ $user == "$rest" ]] && user=postgres
  user=${user%%:*}
  local hostport=${rest#*@}
  hostport=${hostport%%/*}
  local host=${hostport%%:*} serverport=5432
  [[ $hostport == *:* ]] && serverport=${hostport##*:}

  local port=${CYCLONE_PGBOUNCER_PORT:-6439} tries=0
  until port_free "$port"; do
    port=$((port + 1))
    tries=$((tries + 1))
    if ((tries > 50)); then
      echo "no free port from ${CYCLONE_PGBOUNCER_PORT:-6439} to $port" >&2
      return 1
    fi
  done

  local dir
  dir=$(mktemp -d "${TMPDIR:-/tmp}/cyclone-pgbouncer.XXXXXX")
  printf '"%s" ""\n' "$user" >"$dir/userlist.txt"
  cat >"$dir/pgbouncer.ini" <<INI
[databases]
* = host=$host port=$serverport

[pgbouncer]
listen_addr = 127.0.0.1
listen_port = $port
unix_socket_dir =
auth_type = trust
auth_file = $dir/userlist.txt
admin_users = $user
pool_mode = transaction
max_client_conn = 400
default_pool_size = 20
server_reset_query =
logfile = $dir/pgbouncer.log
pidfile = $dir/pgbouncer.pid
INI
  local run=()
  if [[ $(id -u) == 0 ]]; then
    chown -R postgres "$dir"
    run=(runuser -u postgres --)
  fi
  "${run[@]}" "$bin" -d "$dir/pgbouncer.ini" >/dev/null

  local url="postgres://$user@127.0.0.1:$port/postgres"
  for _ in $(seq 1 50); do
    if pg_isready -q -h 127.0.0.1 -p "$port" -t 1 2>/dev/null; then
      echo "$url $dir"
      return 0
    fi
    sleep 0.1
  done
  echo "pgbouncer did not answer on port $port; its log:" >&2
  cat "$dir/pgbouncer.log" >&2 || true
  stop "$dir"
  return 1
}

stop() {
  local dir=${1:?usage: scripts/pgbouncer.sh stop RUN_DIR}
  if [[ -f $dir/pgbouncer.pid ]]; then
    local pid
    pid=$(cat "$dir/pgbouncer.pid")
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 1 50); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.1
    done
  fi
  rm -rf "$dir"
}

case ${1:-} in
  start) start "${2:-}" ;;
  stop) stop "${2:-}" ;;
  *)
    echo "usage: scripts/pgbouncer.sh start [SERVER_URL] | stop RUN_DIR" >&2
    exit 2
    ;;
esac
