# Sourced by the cluster scripts: splits TEMPORAL_DB_URL (postgres://user[:password]@host[:port], any path or query
# ignored) into DB_HOST, DB_PORT, DB_USER and DB_PASSWORD, and names Temporal's own two databases on that server:
# DB_NAME (TEMPORAL_DB_NAME, default `temporal`) and DB_VISIBILITY_NAME (`<DB_NAME>_visibility`).
# Percent-encoded characters in the user or password are not decoded.
TEMPORAL_DB_URL="${TEMPORAL_DB_URL:-postgres://postgres@127.0.0.1:5432}"
if [[ ! "$TEMPORAL_DB_URL" =~ ^postgres(ql)?://([^:@/]+)(:([^@/]*))?@([^:/?]+)(:([0-9]+))?([/?].*)?$ ]]; then
  echo "TEMPORAL_DB_URL=$TEMPORAL_DB_URL is not postgres://user[:password]@host[:port]" >&2
  exit 1
fi
DB_USER="${BASH_REMATCH[2]}"
DB_PASSWORD="${BASH_REMATCH[4]}"
DB_HOST="${BASH_REMATCH[5]}"
DB_PORT="${BASH_REMATCH[7]:-5432}"
DB_NAME="${TEMPORAL_DB_NAME:-temporal}"
DB_VISIBILITY_NAME="${DB_NAME}_visibility"
