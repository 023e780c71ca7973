#!/usr/bin/env bash
# Prints the path of a Temporal CLI (dev server + Web UI), building the pinned version with Go once if needed.
# Order: $TEMPORAL_CLI, a `temporal` on PATH, the copy built into .tools/bin, else `go install` into .tools/bin.
set -euo pipefail
VERSION="v1.5.1" # last tag whose go.mod has no replace directive, so `go install pkg@version` works
root="$(cd "$(dirname "$0")/.." && pwd)"
built="$root/.tools/bin/temporal"

if [ -n "${TEMPORAL_CLI:-}" ]; then
  [ -x "$TEMPORAL_CLI" ] || { echo "TEMPORAL_CLI=$TEMPORAL_CLI is not an executable" >&2; exit 1; }
  echo "$TEMPORAL_CLI"; exit 0
fi
if command -v temporal >/dev/null 2>&1; then command -v temporal; exit 0; fi
if [ -x "$built" ]; then echo "$built"; exit 0; fi

gobin="$(command -v go || true)"
[ -z "$gobin" ] && [ -x /usr/local/go/bin/go ] && gobin=/usr/local/go/bin/go
if [ -z "$gobin" ]; then
  cat >&2 <<MSG
No Temporal CLI found and no Go toolchain to build one.
Install one of:
  - the Temporal CLI (https://docs.temporal.io/cli), then set TEMPORAL_CLI=/path/to/temporal or put it on PATH
  - Go >= 1.25, then run: npm start (it builds github.com/temporalio/cli/cmd/temporal@$VERSION into .tools/bin)
Or point the service at an existing cluster with TEMPORAL_ADDRESS=host:7233.
MSG
  exit 1
fi
echo "Building the Temporal CLI $VERSION with $("$gobin" version) into .tools/bin (once; takes a few minutes)..." >&2
mkdir -p "$root/.tools/bin"
GOBIN="$root/.tools/bin" GOFLAGS=-mod=mod "$gobin" install "github.com/temporalio/cli/cmd/temporal@$VERSION" >&2
echo "$built"
