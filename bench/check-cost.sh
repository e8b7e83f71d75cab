#!/usr/bin/env bash
# What `wsl-place check` costs against the `git status` it predicts, in the same repository,
# on the local disk (issue 27: at most 1.5x one `git status` on a repository of 3,000 files,
# under 10 ms on one of 300) and, with SLOW=1, in the slowfs emulator (drvfs-9p, scale 1:
# at most 0.25x).
#
#   [WORK=DIR] [SYNTHETIC=3000] [BEFORE=path/to/an/older/wsl-place] bench/check-cost.sh RUNS [REPO...]
#
# WORK: where the copies and a private HOME go (default /var/tmp; see bench/loop-ext4.sh).
# SYNTHETIC: a synthetic repository of that many tracked files (bench/repos.sh, directories of
# 100, packed) is always measured first (issue 54's bar: 3,000 files, at most 1.2x); 0 skips it.
# BEFORE: an older build's `check -q` timed in the same rounds, for a before/after.
#
# REPO: git repositories on the local disk (public clones; copied into a scratch folder, never
# changed or committed). Each is checked once first, as a user's second check finds the Linux
# disk's figures and git's facts cached for this boot; then RUNS interleaved pairs of
# `check -q` and `git status --porcelain`, medians. Run on a quiet machine (`uptime`: 1-minute
# load under ~2.5); the load is printed before and after.
set -euo pipefail

RUNS=${1:?usage: bench/check-cost.sh RUNS [REPO...]}
shift
HERE=$(cd "$(dirname "$0")/.." && pwd)
BIN=$HERE/target/release/wsl-place
SLOWFS=$HERE/target/release/examples/slowfs
# On a shared machine builds queue behind `slot` when it is there.
SLOT=$(command -v slot || true)
(cd "$HERE" && $SLOT cargo build --release --quiet && $SLOT cargo build --release --quiet --example slowfs)

WORK=$(mktemp -d "${WORK:-/var/tmp}/check-cost.XXXXXX")
# shellcheck source=bench/slowfs-mount.sh
. "$HERE/bench/slowfs-mount.sh"
trap slowfs_cleanup EXIT
mkdir -p "$WORK/backing" "$WORK/mnt" "$WORK/home" "$WORK/local"
# shellcheck source=bench/disk.sh
. "$HERE/bench/disk.sh"
disk_note "$WORK"
export HOME=$WORK/home XDG_CACHE_HOME=$WORK/home/.cache XDG_STATE_HOME=$WORK/home/.local/state

# row LABEL DIR: one table row of `check -q` against `git status` in DIR (bench/pairs.py).
row() {
    python3 "$HERE/bench/pairs.py" "$1" "$2" "$BIN" "$RUNS" "${BEFORE:-}"
}

SYNTHETIC=${SYNTHETIC:-3000}
if [ "$SYNTHETIC" != 0 ]; then
    # shellcheck source=bench/repos.sh
    . "$HERE/bench/repos.sh"
    make_repo "$WORK/synthetic-$SYNTHETIC" "$SYNTHETIC"
fi

echo "load before: $(cut -d' ' -f1 /proc/loadavg)"
if [ -n "${BEFORE:-}" ]; then
    echo "| repository | tracked files | check -q (ms) | git status (ms) | check / git status | before: check -q (ms) | before / git status |"
    echo "|---|---|---|---|---|---|---|"
else
    echo "| repository | tracked files | check -q (ms) | git status (ms) | check / git status |"
    echo "|---|---|---|---|---|"
fi
[ "$SYNTHETIC" = 0 ] || row "synthetic (local disk)" "$WORK/synthetic-$SYNTHETIC"
for repo in "$@"; do
    name=$(basename "$repo")
    cp -a "$repo" "$WORK/local/$name"
    row "$name (local disk)" "$WORK/local/$name"
done
if [ "${SLOW:-0}" = 1 ]; then
    for repo in "$@"; do
        cp -a "$repo" "$WORK/backing/$(basename "$repo")"
    done
    slowfs_mount "$SLOWFS" "$WORK/slowfs.log" --profile drvfs-9p --scale 1
    for repo in "$@"; do
        row "$(basename "$repo") (slowfs drvfs-9p)" "$WORK/mnt/$(basename "$repo")"
    done
fi
echo "load after: $(cut -d' ' -f1 /proc/loadavg)"
