#!/usr/bin/env bash
# Creates (or brings up to date) Temporal's persistence and visibility schemas in PostgreSQL, each in its own database
# (TEMPORAL_DB_NAME, default `temporal`, and `<that>_visibility`) on the server at TEMPORAL_DB_URL
# (postgres://postgres@127.0.0.1:5432).
# Idempotent: an existing database is kept, and update-schema applies only the versions it has not seen. The schema
# files are the ones embedded in temporal-sql-tool, so they always match the server built beside it.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
source "$here/db-url.sh"
bin="$("$here/ensure-server.sh")"
for store in "temporal:$DB_NAME" "visibility:$DB_VISIBILITY_NAME"; do
  schema="postgresql/v12/${store%%:*}"
  sql=("$bin/temporal-sql-tool" --plugin postgres12 --endpoint "$DB_HOST" --port "$DB_PORT" --user "$DB_USER"
    --password "$DB_PASSWORD" --database "${store#*:}")
  "${sql[@]}" create-database
  "${sql[@]}" setup-schema --version 0.0
  "${sql[@]}" update-schema --schema-name "$schema"
done
