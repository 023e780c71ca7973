#!/usr/bin/env bash
# Runs `temporal server start-dev` in the foreground on loopback, with the Web UI and our search attributes.
# Env: TEMPORAL_PORT (7233), TEMPORAL_UI_PORT (8233), TEMPORAL_DB_FILE (SQLite file; empty = in memory),
#      TEMPORAL_HEADLESS=1 (no UI), TEMPORAL_NAMESPACE (default), TEMPORAL_LOG_LEVEL (warn),
#      TEMPORAL_DYNAMIC_CONFIG (space-separated key=value server settings), TEMPORAL_EXTRA_NAMESPACES (space-separated
#      namespaces created beside TEMPORAL_NAMESPACE).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
cli="$("$here/ensure-cli.sh")"
args=(server start-dev --ip 127.0.0.1 --port "${TEMPORAL_PORT:-7233}" --log-level "${TEMPORAL_LOG_LEVEL:-warn}"
  --namespace "${TEMPORAL_NAMESPACE:-default}"
  --dynamic-config-value frontend.enableUpdateWorkflowExecution=true
  --dynamic-config-value frontend.enableExecuteMultiOperation=true)
for ns in ${TEMPORAL_EXTRA_NAMESPACES:-}; do args+=(--namespace "$ns"); done
for kv in ${TEMPORAL_DYNAMIC_CONFIG:-}; do args+=(--dynamic-config-value "$kv"); done
if [ "${TEMPORAL_HEADLESS:-0}" = "1" ]; then args+=(--headless); else args+=(--ui-port "${TEMPORAL_UI_PORT:-8233}"); fi
if [ -n "${TEMPORAL_DB_FILE:-}" ]; then mkdir -p "$(dirname "$TEMPORAL_DB_FILE")"; args+=(--db-filename "$TEMPORAL_DB_FILE"); fi
while IFS= read -r line; do
  case "$line" in ''|'#'*) ;; *) args+=(--search-attribute "$line") ;; esac
done < "$here/search-attributes.txt"
exec "$cli" "${args[@]}"
