#!/usr/bin/env bash
# The first and the next `check` of Node repositories against one `git status` in the same run,
# on the slowfs emulator (drvfs-9p) at scales 1 and 0.2, and the install prediction from a
# sampled node_modules against `--exact`'s (issue 43; targets: first check at most 2x one
# `git status`, next at most 1x, install within ±10% of --exact's). bench/check-first.py
# describes the runs.
#
#   [WORK=DIR] [SCALES=1,0.2] bench/check-first.sh RUNS [REPO...]
#
# The synthetic tree (bench/node-tree.py: 300 tracked files beside a node_modules of 800
# packages, 37,080 files) is always measured; REPO are real Node projects with their
# dependencies installed, copied (never changed), e.g.
#   git clone https://github.com/expressjs/express && (cd express && npm install)
#   git clone https://github.com/antfu/ni && (cd ni && pnpm install)   # pnpm: npm i -g pnpm
# Run on a quiet machine (`uptime`: 1-minute load under ~2.5); the load is printed.
set -euo pipefail

RUNS=${1:?usage: bench/check-first.sh RUNS [REPO...]}
shift
HERE=$(cd "$(dirname "$0")/.." && pwd)
BIN=$HERE/target/release/wsl-place
SLOWFS=$HERE/target/release/examples/slowfs
(cd "$HERE" && cargo build --release --quiet && cargo build --release --quiet --example slowfs)

WORK=$(mktemp -d "${WORK:-/var/tmp}/check-first.XXXXXX")
cleanup() {
    fusermount3 -u -z "$WORK/mnt" 2>/dev/null || true
    rm -rf "$WORK"
}
trap cleanup EXIT
mkdir -p "$WORK/backing" "$WORK/mnt" "$WORK/home"
export HOME=$WORK/home XDG_CACHE_HOME=$WORK/home/.cache XDG_STATE_HOME=$WORK/home/.local/state

python3 "$HERE/bench/node-tree.py" "$WORK/backing/synthetic" 800 300
for repo in "$@"; do
    cp -a "$repo" "$WORK/backing/$(basename "$repo")"
done
names=("$WORK/backing/synthetic")
for repo in "$@"; do
    names+=("$WORK/backing/$(basename "$repo")")
done

echo "load before: $(cut -d' ' -f1 /proc/loadavg)"
python3 "$HERE/bench/check-first.py" "$WORK" "$BIN" "$SLOWFS" "$RUNS" "${SCALES:-1,0.2}" "${names[@]}"
echo "load after: $(cut -d' ' -f1 /proc/loadavg)"
