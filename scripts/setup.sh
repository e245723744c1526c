# What scripts/test.sh and scripts/reliability.sh both need before their
# tests run. Sourced, not run: it defines
#
#   log_dir              a scratch directory, removed on exit
#   cleanup_steps        commands run on exit (append to it)
#   install_missing P…   installs Debian packages P… (nothing when empty)
#   provide_postgres N   exports DYNAMO_TEST_DATABASE_URL and DYNAMO_PG_BIN:
#                        the URL already set, else a server answering on
#                        127.0.0.1:5432, else a throwaway cluster (at most N
#                        connections) started here and stopped on exit
#   pg_bin               PostgreSQL's bin directory ("" when not installed)

log_dir=$(mktemp -d)
trap 'cleanup' EXIT
cleanup_steps=()
cleanup() {
  for step in "${cleanup_steps[@]}"; do eval "$step" || true; done
  rm -rf "$log_dir"
}

as_root() {
  if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi
}

newest_pg_bin() { ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true; }
pg_bin=$(newest_pg_bin)

install_missing() {
  [ $# -gt 0 ] || return 0
  echo "installing: $*"
  as_root apt-get update -qq
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" >"$log_dir/apt.log" 2>&1 \
    || { cat "$log_dir/apt.log"; exit 1; }
  pg_bin=$(newest_pg_bin)
}

provide_postgres() {
  local max_connections=$1
  if [ -z "${DYNAMO_TEST_DATABASE_URL:-}" ]; then
    if "$pg_bin/pg_isready" -q -h 127.0.0.1 -p 5432 >/dev/null 2>&1 &&
      "$pg_bin/psql" -h 127.0.0.1 -U postgres -d postgres -Atc 'select 1' >/dev/null 2>&1; then
      export DYNAMO_TEST_DATABASE_URL="postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"
    else
      start_throwaway_postgres "$max_connections"
    fi
  fi
  export DYNAMO_PG_BIN="$pg_bin"
  echo "PostgreSQL for tests: $DYNAMO_TEST_DATABASE_URL"
}

# start_throwaway_postgres runs a cluster owned by an unprivileged user,
# because initdb refuses to run as root.
start_throwaway_postgres() {
  pg_user=$(id -un)
  if [ "$(id -u)" = 0 ]; then
    pg_user=postgres
    id -u "$pg_user" >/dev/null 2>&1 || useradd --system --no-create-home "$pg_user"
  fi
  pg_dir=$(mktemp -d /tmp/dynamo-pg.XXXXXX)
  chown "$pg_user" "$pg_dir"
  run_pg() { if [ "$(id -u)" = 0 ]; then runuser -u "$pg_user" -- "$@"; else "$@"; fi; }
  run_pg "$pg_bin/initdb" -D "$pg_dir/data" -U postgres -A trust -E UTF8 --locale=C.UTF-8 >"$log_dir/initdb.log" 2>&1 \
    || { cat "$log_dir/initdb.log"; exit 1; }
  local port=55432
  run_pg "$pg_bin/pg_ctl" -D "$pg_dir/data" -l "$pg_dir/log" -w \
    -o "-p $port -k $pg_dir -c listen_addresses=127.0.0.1 -c max_connections=$1 -c fsync=off" start >/dev/null
  cleanup_steps+=("run_pg '$pg_bin/pg_ctl' -D '$pg_dir/data' -m immediate stop >/dev/null; rm -rf '$pg_dir'")
  export DYNAMO_TEST_DATABASE_URL="postgres://postgres@127.0.0.1:$port/postgres?sslmode=disable"
  echo "started a throwaway PostgreSQL on 127.0.0.1:$port"
}
