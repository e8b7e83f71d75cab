#!/usr/bin/env bash
# The lock-sample tests (tests/it/lock_samples.rs) with the package managers the npm registry
# serves today as `latest` (pnpm, yarn, bun; npm's own latest needs a newer Node.js than some
# machines have, so npm is the one on PATH): a new major that breaks the samples shows here
# before a user meets it. Prints each manager's version and the tests' result.
#
#   bench/managers-today.sh        (npm and network for the registry; cargo)
#
# The managers are installed into a temporary prefix, removed at the end; nothing global is
# touched and nothing is written to this repository but cargo's target/.
set -euo pipefail

HERE=$(cd "$(dirname "$0")/.." && pwd)
WORK=$(mktemp -d /var/tmp/wsl-place-managers.XXXXXX)
trap 'rm -rf "$WORK"' EXIT

bins=()
for name in pnpm yarn bun; do
    npm install --global --prefix "$WORK/$name" --loglevel=error --no-fund --no-audit "$name@latest" >/dev/null
    bins+=("$WORK/$name/bin")
    echo "$name latest: $(cd / && "$WORK/$name/bin/$name" --version)"
done
echo "npm on PATH: $(cd / && npm --version)"
WSL_PLACE_TEST_JS_BINS=$(IFS=:; echo "${bins[*]}")
export WSL_PLACE_TEST_JS_BINS
# Every build must run: a manager that will not start is a failure, not a skip.
export WSL_PLACE_REQUIRE_FUSE=1
cd "$HERE"
cargo test --release --test it lock_samples -- --nocapture --test-threads 1 2>&1 |
    grep -E '^(test |[a-z]+ [0-9][^ ]*: )|test result' | cut -c1-160
