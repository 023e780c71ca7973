#!/usr/bin/env bash
# Runs a Temporal cluster on PostgreSQL in the foreground: frontend, two history, matching and worker services, each
# its own temporal-server process, from a config generated under TEMPORAL_CLUSTER_DIR. Creates the schemas first
# (setup-schema.sh), starts the frontend and then the others, registers the namespace and our search attributes
# (search-attributes.txt), and prints "Temporal cluster ready" when they are. If any service exits, all stop, but for
# one taken down on purpose: `start-cluster.sh kill <service>` kills it (SIGKILL, as a crash) and the others keep
# running; `start-cluster.sh restart <service>` starts it again. Services: frontend, history, history2, matching,
# worker; each one's pid is in TEMPORAL_CLUSTER_DIR/run/<service>.pid.
# Env: TEMPORAL_DB_URL (postgres://postgres@127.0.0.1:5432) and TEMPORAL_DB_NAME (temporal): see db-url.sh;
#      TEMPORAL_PORT (7233: the frontend; history, the second history, matching and worker take the next four
#      ports, and each service's membership port is its gRPC port + 20, all below 32768),
#      TEMPORAL_NAMESPACE (default),
#      TEMPORAL_CLUSTER_DIR (.data/temporal-cluster: config and one log per service), TEMPORAL_LOG_LEVEL (warn),
#      TEMPORAL_DYNAMIC_CONFIG (space-separated key=value server settings), TEMPORAL_CLI (the CLI that registers).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
run="${TEMPORAL_CLUSTER_DIR:-$here/../.data/temporal-cluster}/run"
case "${1:-}" in
kill | restart)
  case "${2:-}" in frontend | history | history2 | matching | worker) ;; *)
    echo "usage: $0 kill|restart frontend|history|history2|matching|worker" >&2
    exit 1
    ;;
  esac
  # Each returns once the cluster has taken the service down or started it again: its pid file gone, or back.
  what="$1 $2"
  within_30s() { # test...
    local deadline=$((SECONDS + 30))
    until test "$@"; do
      ((SECONDS < deadline)) || { echo "$what: the cluster did not act within 30 s" >&2 && exit 1; }
      sleep 0.1
    done
  }
  if [[ $1 == kill ]]; then
    [[ -f "$run/$2.pid" ]] || { echo "$2 is not running" >&2 && exit 1; }
    touch "$run/$2.down" # before the kill: the cluster reads it when the service exits
    kill -KILL "$(<"$run/$2.pid")"
    within_30s ! -f "$run/$2.pid"
  else
    [[ ! -f "$run/$2.pid" ]] || { echo "$2 is running" >&2 && exit 1; }
    echo "$2" >"$run/restart"
    kill -USR1 "$(<"$run/cluster.pid")"
    within_30s -f "$run/$2.pid"
  fi
  exit 0
  ;;
esac
source "$here/db-url.sh"
port="${TEMPORAL_PORT:-7233}"
# Temporal's PostgreSQL schema stores membership ports as smallint.
if ((port + 24 > 32767)); then
  echo "TEMPORAL_PORT=$port: the cluster uses ports up to TEMPORAL_PORT + 24, which must stay below 32768" >&2
  exit 1
fi
bin="$("$here/ensure-server.sh")"
cli="$("$here/ensure-cli.sh")"
namespace="${TEMPORAL_NAMESPACE:-default}"
dir="${TEMPORAL_CLUSTER_DIR:-$here/../.data/temporal-cluster}"
mkdir -p "$dir/config" "$dir/logs" "$dir/run"
dir="$(cd "$dir" && pwd)"
rm -f "$dir/run/"* "$dir/logs/"{frontend,history,history2,matching,worker}.log

"$here/setup-schema.sh" >"$dir/logs/setup-schema.log" 2>&1 || {
  cat "$dir/logs/setup-schema.log" >&2
  exit 1
}

# The same settings start-dev.sh gives the dev server, plus a search attribute cache that never serves stale entries.
{
  for kv in frontend.enableUpdateWorkflowExecution=true frontend.enableExecuteMultiOperation=true \
    system.forceSearchAttributesCacheRefreshOnRead=true ${TEMPORAL_DYNAMIC_CONFIG:-}; do
    printf '%s:\n  - value: %s\n' "${kv%%=*}" "${kv#*=}"
  done
} >"$dir/config/dynamicconfig.yaml"

datastore() {
  cat <<YAML
    $1:
      sql:
        pluginName: postgres12
        databaseName: $2
        connectAddr: "$DB_HOST:$DB_PORT"
        connectProtocol: tcp
        user: "$DB_USER"
        password: "$DB_PASSWORD"
        maxConns: $3
        maxIdleConns: $3
        maxConnLifetime: 1h
YAML
}
service() { # name, gRPC port
  printf '  %s:\n    rpc:\n      grpcPort: %s\n      membershipPort: %s\n      bindOnLocalHost: true\n' \
    "$1" "$2" $(($2 + 20))
}
# Each process reads base.yaml, then the file of its --env if there is one: history2.yaml moves the second history
# process's ports; the other services run with --env cluster, which has no file of its own.
# numHistoryShards is fixed when the persistence database is first used: changing it later needs a new database.
cat >"$dir/config/base.yaml" <<YAML
log:
  stdout: true
  level: ${TEMPORAL_LOG_LEVEL:-warn}
persistence:
  defaultStore: default
  visibilityStore: visibility
  numHistoryShards: 4
  datastores:
$(datastore default "$DB_NAME" 20)
$(datastore visibility "$DB_VISIBILITY_NAME" 5)
global:
  membership:
    maxJoinDuration: 10s
    broadcastAddress: 127.0.0.1
services:
$(service frontend "$port")
$(service history $((port + 1)))
$(service matching $((port + 3)))
$(service worker $((port + 4)))
clusterMetadata:
  enableGlobalNamespace: false
  failoverVersionIncrement: 10
  masterClusterName: active
  currentClusterName: active
  clusterInformation:
    active:
      enabled: true
      initialFailoverVersion: 1
      rpcName: frontend
      rpcAddress: 127.0.0.1:$port
dcRedirectionPolicy:
  policy: noop
dynamicConfigClient:
  filepath: $dir/config/dynamicconfig.yaml
  pollInterval: 10s
YAML
printf 'services:\n%s\n' "$(service history $((port + 2)))" >"$dir/config/history2.yaml"

declare -A pids # service name -> pid
stop() {
  trap - INT TERM EXIT
  kill "${pids[@]}" 2>/dev/null || true
  wait || true
}
trap stop EXIT
trap 'stop; exit 0' INT TERM
start() { # name: frontend, history, history2, matching, worker
  local service="${1%2}" env=cluster
  [[ $1 == history2 ]] && env=history2
  rm -f "$dir/run/$1.down"
  "$bin/temporal-server" --root "$dir" --config config --env "$env" --allow-no-auth start --service "$service" \
    >>"$dir/logs/$1.log" 2>&1 &
  pids[$1]=$!
  echo $! >"$dir/run/$1.pid"
}
address="127.0.0.1:$port"
cli_quiet() { "$cli" "$@" --address "$address" --namespace "$namespace" >/dev/null 2>&1; }
retry() { # what, command...: the frontend, then its namespace cache, take a few seconds to answer
  local deadline=$((SECONDS + 60)) pid
  until "${@:2}"; do
    for pid in "${pids[@]}"; do
      kill -0 "$pid" 2>/dev/null && continue
      echo "Temporal cluster: a service exited while starting (logs in $dir/logs)" >&2
      exit 1
    done
    if ((SECONDS > deadline)); then
      echo "Temporal cluster: $1 failed for 60s (logs in $dir/logs)" >&2
      exit 1
    fi
    sleep 0.5
  done
}
# The frontend first: the first process on fresh databases records the cluster's metadata, and several processes
# starting together there race to record it (all but one exit).
start frontend
retry "reaching the frontend" cli_quiet operator cluster health
for name in history history2 matching worker; do start "$name"; done
cli_quiet operator namespace describe ||
  retry "creating namespace $namespace" cli_quiet operator namespace create --retention 24h
existing="$("$cli" operator search-attribute list --address "$address" --namespace "$namespace" 2>/dev/null || true)"
while IFS='=' read -r name type; do
  case "$name" in '' | '#'*) continue ;; esac
  grep -qw "$name" <<<"$existing" ||
    retry "registering search attribute $name" cli_quiet operator search-attribute create --name "$name" --type "$type"
done <"$here/search-attributes.txt"
echo "Temporal cluster ready on $address (namespace $namespace; logs in $dir/logs)"

# Any service exiting stops the cluster, but for one `kill` took down: it stays down until `restart` (a USR1, which
# ends the wait) starts it again.
echo $$ >"$dir/run/cluster.pid"
restart=''
trap 'restart=1' USR1
set +e
while ((${#pids[@]})); do
  [[ $restart ]] || wait -n "${pids[@]}"
  code=$?
  for name in "${!pids[@]}"; do
    kill -0 "${pids[$name]}" 2>/dev/null && continue
    [[ -f "$dir/run/$name.down" ]] || {
      echo "Temporal cluster: $name exited ($code); stopping the others (logs in $dir/logs)" >&2
      exit 1
    }
    echo "Temporal cluster: $name killed; the others keep running until it is restarted" >&2
    unset "pids[$name]"
    rm "$dir/run/$name.pid"
  done
  if [[ $restart ]]; then
    restart=''
    name="$(<"$dir/run/restart")"
    [[ ${pids[$name]:-} ]] || start "$name"
  fi
done
echo "Temporal cluster: every service was killed" >&2
exit 1
