#!/usr/bin/env bash
# The accuracy table of `check --verify`: for each repository given (a git clone), predicted
# against measured `git status` (git --no-optional-locks status, the median of 3) with the
# model alone (--fresh, no correction, an empty record), on the Linux disk and on slowfs
# (drvfs-9p latencies, scale 1). Each copy gets one ordinary `git status` first, so its index
# matches its files as a repository in use has it.
#   bench/verify-accuracy.sh REPO...
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=$PWD/target/release/wsl-place
SLOWFS=$PWD/target/release/examples/slowfs
[[ -x $BIN && -x $SLOWFS ]] || { echo "build first: cargo build --release --examples" >&2; exit 1; }
(($#)) || { echo "usage: bench/verify-accuracy.sh REPO..." >&2; exit 2; }
WORK=$(mktemp -d)
source bench/slowfs-mount.sh
trap slowfs_cleanup EXIT
mkdir -p "$WORK/backing" "$WORK/mnt" "$WORK/home/linux"
for repo in "$@"; do
    name=$(basename "$repo")
    git clone -q "$repo" "$WORK/home/linux/$name"
    git clone -q "$repo" "$WORK/backing/$name"
done
slowfs_mount "$SLOWFS" "$WORK/slowfs.log" --profile drvfs-9p --scale 1
printf '| repository | tracked | where | predicted | measured | error |\n|---|---|---|---|---|---|\n'
for repo in "$@"; do
    name=$(basename "$repo")
    for place in "$WORK/home/linux/$name" "$WORK/mnt/$name"; do
        git -C "$place" status >/dev/null
        where=$([[ $place == "$WORK/mnt/"* ]] && echo "slowfs drvfs-9p" || echo "Linux disk")
        rm -rf "$WORK/home/.local/state" "$WORK/home/.cache"
        HOME=$WORK/home "$BIN" check --fresh --verify --format json "$place" > "$WORK/out.json"
        python3 - "$WORK/out.json" "$name" "$where" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
v = r["verify"]
print(f"| {sys.argv[2]} | {r['scan']['tracked']} | {sys.argv[3]} | {v['predicted_ms']:.0f} ms | {v['measured_ms']:.0f} ms | {v['error']*100:+.0f}% |")
PY
    done
done
