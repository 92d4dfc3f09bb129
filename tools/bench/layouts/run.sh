#!/usr/bin/env bash
# Replays a job's claim and completion through pgbench in two layouts of the step row, with and
# without the run's update at completion: today's (one wide row) and a split one (a narrow hot
# row for the claim and the state-partial indexes, a wide cold row for the rest). See README.md.
#
#   tools/bench/layouts/run.sh SERVER_URL [ROUNDS] [JOBS] [CLIENTS]
#
# SERVER_URL names a server, not a database (postgres://postgres@127.0.0.1:5499): the script
# creates cyclone_layout_cur and cyclone_layout_split there, migrated, and drops nothing else.
# LAYOUTS="cur split norun splitnorun" selects the variants. The server's CPU per job is read
# from /proc when the server runs on this machine (run as root or its owner), `-` otherwise.
set -euo pipefail

server=${1:?usage: run.sh SERVER_URL [ROUNDS] [JOBS] [CLIENTS]}
rounds=${2:-3}
jobs=${3:-100000}
clients=${4:-4}
layouts=${LAYOUTS:-cur split norun splitnorun}
pgbench=${PGBENCH:-pgbench}
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../../.." && pwd)
batch=500

sql() { psql -X -q -At -v ON_ERROR_STOP=1 "$server/$1" "${@:2}"; }

# The same plan for every layout: an ordered walk of the claim index and primary-key lookups,
# planned for each execution (a generic plan of these ad-hoc statements can turn to a scan of
# the table's history).
export PGOPTIONS="-c enable_bitmapscan=off -c enable_seqscan=off -c plan_cache_mode=force_custom_plan"

for layout in cur split; do
  db=cyclone_layout_$layout
  PGOPTIONS="-c client_min_messages=warning" sql postgres -c "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db"
  node "$repo/packages/cli/bin/cyclone.js" migrate --database-url "$server/$db" >/dev/null
  sql "$db" -c "CREATE SEQUENCE layout_ids"
  [ "$layout" = split ] && sql "$db" -f "$here/split.sql"
done

# The variants without the run's update: the full drain cut before its run update.
scripts=$(mktemp -d)
trap 'rm -rf "$scripts"' EXIT
for layout in cur split; do
  cp "$here/drain-$layout.sql" "$scripts/drain-$layout.sql"
  variant=norun; [ "$layout" = split ] && variant=splitnorun
  { sed '/^), per_run/,$d' "$here/drain-$layout.sql"; echo ')'; echo 'SELECT count(*) FROM done;'; } \
    >"$scripts/drain-$variant.sql"
done

data_dir=$(sql postgres -c "SHOW data_directory")
# CPU ticks of the server: its live processes, and the exited backends (the postmaster's
# children's time).
server_ticks() {
  local pm sum p u s
  pm=$(head -1 "$data_dir/postmaster.pid" 2>/dev/null) || { echo -; return; }
  sum=$(awk '{print $16 + $17}' "/proc/$pm/stat")
  for p in $(pgrep -P "$pm"); do
    read -r u s < <(awk '{print $14, $15}' "/proc/$p/stat" 2>/dev/null) && sum=$((sum + u + s))
  done
  echo "$sum"
}
ticks_per_s=$(getconf CLK_TCK)

printf '%-6s %-11s %9s %9s %12s %14s %10s\n' round layout jobs/s 'WAL B/job' 'server us/job' 'row versions' 'HOT'
for round in $(seq 1 "$rounds"); do
  for layout in $layouts; do
    case $layout in
      cur | norun) db=cyclone_layout_cur fill=fill-cur.sql steps=cyclone_steps ;;
      split | splitnorun) db=cyclone_layout_split fill=fill-split.sql steps=cyclone_steps_hot ;;
      *) echo "unknown layout: $layout" >&2; exit 2 ;;
    esac
    sql "$db" -v n="$jobs" -f "$here/$fill"
    sql "$db" -c "VACUUM ANALYZE" -c "CHECKPOINT"
    wal0=$(sql "$db" -c "SELECT pg_current_wal_lsn()")
    upd0=$(sql "$db" -c "SELECT sum(n_tup_upd) || ' ' || sum(n_tup_hot_upd) FROM pg_stat_user_tables")
    cpu0=$(server_ticks)
    per_client=$((jobs / batch / clients + 1))
    out=$("$pgbench" -n --protocol=prepared -f "$scripts/drain-$layout.sql" -c "$clients" -j "$clients" \
      -t "$per_client" "$server/$db" 2>&1)
    cpu1=$(server_ticks)
    left=$(sql "$db" -c "SELECT count(*) FROM $steps WHERE state IN ('available', 'running')")
    [ "$left" = 0 ] || { echo "$layout: $left jobs left undrained" >&2; exit 1; }
    sleep 1 # pgbench's backends report their table statistics as they exit
    wal=$(sql "$db" -c "SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), '$wal0')")
    upd1=$(sql "$db" -c "SELECT sum(n_tup_upd) || ' ' || sum(n_tup_hot_upd) FROM pg_stat_user_tables")
    tps=$(sed -nE 's/^tps = ([0-9.]+).*/\1/p' <<<"$out")
    cpu=-
    [ "$cpu0" != - ] && cpu=$(((cpu1 - cpu0) * 1000000 / ticks_per_s / jobs))
    read -r versions hot < <(awk -v n="$jobs" '{printf "%.2f %.2f\n", ($3 - $1) / n, ($4 - $2) / n}' <<<"$upd0 $upd1")
    printf '%-6s %-11s %9.0f %9d %12s %14s %10s\n' "$round" "$layout" "$(awk -v t="$tps" -v n="$jobs" -v x=$((per_client * clients)) 'BEGIN{print t * n / x}')" \
      $((${wal%.*} / jobs)) "$cpu" "$versions" "$hot"
  done
done
