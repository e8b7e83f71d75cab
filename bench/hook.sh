#!/usr/bin/env bash
# The hook's cold cost (issue 24): `wsl-place check --advisory` with an empty cache, and with the
# mount already probed but a repository it has not seen, against one `git status` in the same
# repository, on slowfs (drvfs-9p, scale 1). Medians of RUNS interleaved rounds.
#
#   bench/hook.sh REPO [RUNS]
#
# REPO: a git repository on the local disk (e.g. a clone of expressjs/express after
# `npm install`); it is copied twice into the emulator's backing folder (never committed here).
# Run as root (FUSE) on a quiet machine (`uptime`: 1-minute load under ~2.5).
set -euo pipefail

REPO=${1:?usage: bench/hook.sh REPO [RUNS]}
RUNS=${2:-5}
HERE=$(cd "$(dirname "$0")/.." && pwd)
BIN=$HERE/target/release/wsl-place
SLOWFS=$HERE/target/release/examples/slowfs
(cd "$HERE" && cargo build --release --quiet && cargo build --release --quiet --example slowfs)

WORK=$(mktemp -d)
# shellcheck source=bench/slowfs-mount.sh
. "$HERE/bench/slowfs-mount.sh"
trap slowfs_cleanup EXIT
mkdir -p "$WORK/backing" "$WORK/mnt" "$WORK/home"
cp -a "$REPO" "$WORK/backing/first"
cp -a "$REPO" "$WORK/backing/second"
slowfs_mount "$SLOWFS" "$WORK/slowfs.log" --profile drvfs-9p --scale 1

# ms CMD...: wall time of CMD in milliseconds, its output discarded.
ms() {
    local start end
    start=$(date +%s%N)
    "$@" >/dev/null 2>&1 || true
    end=$(date +%s%N)
    echo $(((end - start) / 1000000))
}
hook() { HOME=$WORK/home XDG_CACHE_HOME=$WORK/home/.cache "$BIN" check --advisory "$1"; }
median() { sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }

empty=() probed=() status=()
echo "load before: $(cut -d' ' -f1 /proc/loadavg)"
for _ in $(seq "$RUNS"); do
    rm -rf "$WORK/home/.cache"
    empty+=("$(ms hook "$WORK/mnt/first")")
    # The mount and the Linux disk are timed now; the second repository has no answer yet.
    rm -rf "$WORK/home/.cache/wsl-place/advisory"
    probed+=("$(ms hook "$WORK/mnt/second")")
    status+=("$(ms git -C "$WORK/mnt/first" status --porcelain)")
done
echo "load after: $(cut -d' ' -f1 /proc/loadavg)"
e=$(printf '%s\n' "${empty[@]}" | median)
p=$(printf '%s\n' "${probed[@]}" | median)
s=$(printf '%s\n' "${status[@]}" | median)
echo "| run (median of $RUNS, ms) | wsl-place | one git status | ratio |"
echo "|---|---|---|---|"
awk -v e="$e" -v p="$p" -v s="$s" 'BEGIN {
    printf "| cold hook, empty cache | %d | %d | %.2fx |\n", e, s, e / s
    printf "| cold hook, mount probed, new repository | %d | %d | %.2fx |\n", p, s, p / s
}'
