#!/bin/bash
# Starts PgBouncer in front of the PostgreSQL at DATABASE_DIRECT_URL
# (postgresql://user:password@host[:port]/database[?…]): fills the server's host, port and database into the
# config template (PGBOUNCER_TEMPLATE, default /etc/hashwatch/pgbouncer.ini) and writes the user list (that user
# and password) into PGBOUNCER_RUN_DIR (default /run/pgbouncer), then runs PgBouncer in the foreground.
# The password is written to a file only this user reads; it is never printed.
set -euo pipefail

template="${PGBOUNCER_TEMPLATE:-/etc/hashwatch/pgbouncer.ini}"
run_dir="${PGBOUNCER_RUN_DIR:-/run/pgbouncer}"
binary="${PGBOUNCER_BIN:-/usr/sbin/pgbouncer}"

fail() {
  echo "pgbouncer-entrypoint: $1" >&2
  exit 64
}

# %XX escapes decoded; any other character kept as it is.
url_decode() {
  local escaped="${1//\\/\\\\}"
  printf '%b' "${escaped//%/\\x}"
}

url="${DATABASE_DIRECT_URL:-}"
[[ -n "$url" ]] || fail 'DATABASE_DIRECT_URL is not set: the PostgreSQL server PgBouncer stands in front of'
pattern='^postgres(ql)?://([^:@/]+)(:([^@/]*))?@([^:/?]+)(:([0-9]+))?/([^?/]+)(\?.*)?$'
[[ "$url" =~ $pattern ]] || fail 'DATABASE_DIRECT_URL is not postgresql://user:password@host[:port]/database'
user="$(url_decode "${BASH_REMATCH[2]}")"
password="$(url_decode "${BASH_REMATCH[4]}")"
host="${BASH_REMATCH[5]}"
port="${BASH_REMATCH[7]:-5432}"
database="$(url_decode "${BASH_REMATCH[8]}")"
[[ "$database" =~ ^[A-Za-z0-9_]+$ ]] || fail 'the database name in DATABASE_DIRECT_URL must be letters, digits and _'
[[ "$host" =~ ^[A-Za-z0-9._-]+$ ]] || fail 'the host in DATABASE_DIRECT_URL must be a name or an IPv4 address'
[[ -n "$password" ]] || fail 'DATABASE_DIRECT_URL has no password: clients prove it to PgBouncer (auth_type scram-sha-256)'
[[ -r "$template" ]] || fail "cannot read the config template $template"

mkdir -p "$run_dir"
umask 077
# The user list: "user" "password", a " inside either written twice.
printf '"%s" "%s"\n' "${user//\"/\"\"}" "${password//\"/\"\"}" > "$run_dir/userlist.txt"
sed -e "s|@SERVER_HOST@|$host|g" -e "s|@SERVER_PORT@|$port|g" -e "s|@SERVER_DB@|$database|g" -e "s|@RUN_DIR@|$run_dir|g" \
  "$template" > "$run_dir/pgbouncer.ini"

exec "$binary" "$run_dir/pgbouncer.ini"
