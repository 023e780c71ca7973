#!/usr/bin/env bash
# Prints the directory holding `temporal-server` and `temporal-sql-tool`, building the pinned release with Go once.
# The release matches docker-compose.yml's images and its go.mod has no replace directive, so `go install pkg@version`
# works. Builds run under `nice -n 19` (compiling the server takes minutes of CPU).
set -euo pipefail
VERSION="v1.29.1"
root="$(cd "$(dirname "$0")/.." && pwd)"
bin="$root/.tools/bin"

# A copy of another release (VERSION moved on) is built again.
built="$("$bin/temporal-server" --version 2>/dev/null || true)"
if [ "$built" = "temporal version ${VERSION#v}" ] && [ -x "$bin/temporal-sql-tool" ]; then echo "$bin"; exit 0; fi

gobin="$(command -v go || true)"
[ -z "$gobin" ] && [ -x /usr/local/go/bin/go ] && gobin=/usr/local/go/bin/go
if [ -z "$gobin" ]; then
  echo "Building temporal-server needs Go >= 1.25 (or put prebuilt temporal-server and temporal-sql-tool in $bin)." >&2
  exit 1
fi
echo "Building temporal-server and temporal-sql-tool $VERSION with $("$gobin" version) into .tools/bin" \
  "(once; takes several minutes)..." >&2
# go install names binaries after their package directories (server, sql), so build into a scratch dir and rename.
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
GOBIN="$scratch" GOFLAGS=-mod=mod nice -n 19 "$gobin" install \
  "go.temporal.io/server/cmd/server@$VERSION" "go.temporal.io/server/cmd/tools/sql@$VERSION" >&2
mkdir -p "$bin"
mv "$scratch/server" "$bin/temporal-server"
mv "$scratch/sql" "$bin/temporal-sql-tool"
echo "$bin"
