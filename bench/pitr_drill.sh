#!/usr/bin/env bash
# Point-in-time recovery drill with the tools that ship with PostgreSQL (the embedded server's own binaries):
# a throw-away cluster with WAL archiving, pg_basebackup, writes after it, a bad change at a known moment, then a
# restore of the base backup replaying the archive up to just before that moment. Prints the figures for
# docs/scaling.md ("Backups and point-in-time recovery"). Touches nothing but its own folder.
#
#   bench/pitr_drill.sh [scale]     # pgbench scale of the data (default 20: 2,000,000 rows, about 300 MB)
set -euo pipefail
SCALE=${1:-20}
BIN=${PGBIN:-$(cd "$(dirname "$0")/.." && .venv/bin/python -c \
  "import pgserver, os; print(os.path.join(os.path.dirname(pgserver.__file__), 'pginstall', 'bin'))")}
if [ "$(id -u)" = 0 ]; then  # PostgreSQL refuses to run as root: as the user the embedded server runs as
  exec runuser -u "${PGUSER_SYSTEM:-pgserver}" -- env PGBIN="$BIN" bash -s "$@" < "$0"
fi
WORK=$(mktemp -d /tmp/anamnesis-pitr.XXXXXX)
PORT=${PITR_PORT:-54329}
PRIMARY=$WORK/primary RESTORED=$WORK/restored ARCHIVE=$WORK/archive BASE=$WORK/base
mkdir -p "$ARCHIVE"
psql() { "$BIN/psql" -X -q -h "$WORK" -p "$PORT" -U postgres -d postgres -At "$@"; }
stop() { "$BIN/pg_ctl" -D "$1" -m fast -w stop >/dev/null 2>&1 || true; }
trap 'stop "$PRIMARY"; stop "$RESTORED"; rm -rf "$WORK"' EXIT
secs() { python3 -c "import time; print(f'{time.time() - $1:.1f}')"; }

"$BIN/initdb" -D "$PRIMARY" -U postgres -A trust >/dev/null
cat >> "$PRIMARY/postgresql.conf" <<CONF
listen_addresses = ''
unix_socket_directories = '$WORK'
port = $PORT
wal_level = replica
archive_mode = on
archive_command = 'test ! -f $ARCHIVE/%f && cp %p $ARCHIVE/%f'
archive_timeout = 60
CONF
"$BIN/pg_ctl" -D "$PRIMARY" -l "$WORK/primary.log" -w start >/dev/null
"$BIN/pgbench" -q -i -s "$SCALE" -h "$WORK" -p "$PORT" -U postgres postgres >/dev/null 2>&1
echo "data: $(psql -c "SELECT pg_size_pretty(pg_database_size('postgres'))"), $(psql -c 'SELECT count(*) FROM pgbench_accounts') rows"

t0=$(date +%s.%N)
"$BIN/pg_basebackup" -h "$WORK" -p "$PORT" -U postgres -D "$BASE" -X fetch -c fast
echo "pg_basebackup: $(secs "$t0") s, $(du -sh "$BASE" | cut -f1)"

# a minute of ordinary writes after the backup, then the moment to return to, then the mistake
"$BIN/pgbench" -n -T 20 -c 2 -h "$WORK" -p "$PORT" -U postgres postgres >/dev/null 2>&1
psql -c "CREATE TABLE drill_marker AS SELECT now() AS at, (SELECT sum(abalance) FROM pgbench_accounts) AS total"
sleep 1
TARGET=$(psql -c "SELECT now()")
EXPECTED=$(psql -c "SELECT sum(abalance) FROM pgbench_accounts")
sleep 1
psql -c "DELETE FROM pgbench_accounts WHERE aid % 2 = 0"   # the mistake
psql -c "SELECT pg_switch_wal()" >/dev/null
sleep 2
stop "$PRIMARY"
echo "archive: $(ls "$ARCHIVE" | wc -l) WAL segments, $(du -sh "$ARCHIVE" | cut -f1)"

t0=$(date +%s.%N)
cp -a "$BASE" "$RESTORED"
touch "$RESTORED/recovery.signal"
cat >> "$RESTORED/postgresql.conf" <<CONF
restore_command = 'cp $ARCHIVE/%f %p'
recovery_target_time = '$TARGET'
recovery_target_action = 'promote'
archive_mode = off
CONF
"$BIN/pg_ctl" -D "$RESTORED" -l "$WORK/restored.log" -w -t 600 start >/dev/null
until [ "$(psql -c 'SELECT pg_is_in_recovery()')" = "f" ]; do sleep 0.2; done
echo "restore to $TARGET: $(secs "$t0") s (copy of the base backup and WAL replay)"
GOT=$(psql -c "SELECT sum(abalance) FROM pgbench_accounts")
ROWS=$(psql -c "SELECT count(*) FROM pgbench_accounts")
echo "after restore: $ROWS rows, balance total $GOT (expected $EXPECTED); marker $(psql -c 'SELECT count(*) FROM drill_marker')"
[ "$GOT" = "$EXPECTED" ] && [ "$ROWS" = "$((SCALE * 100000))" ] && echo "PITR drill: OK" || { echo "PITR drill: FAILED"; exit 1; }
