#!/usr/bin/env bash
# The accuracy table of `check --verify`: for each repository given (a git clone), predicted
# against measured `git status` (git --no-optional-locks status, the median of 3) with the
# model alone (--fresh, no correction, an empty record), on the Linux disk and on slowfs
# (drvfs-9p latencies, scale 1). Each copy gets one ordinary `git status` a second after its
# checkout, so its index matches its files as a repository in use has it: run within the
# checkout's second, it leaves every entry racily clean (as old as the index), and each later
# status reads every such file again (flask on the Linux disk: 25 ms instead of 3-12 ms).
# ROUNDS checks (default 3) per copy, each predicting and then measuring: the table has the
# medians of both and the error of the medians, and the range of the rounds' own errors; then,
# from an empty record, four verified checks as a user would run them: the last one's error,
# with the correction the first three made.
#   [ROUNDS=N] bench/verify-accuracy.sh REPO...
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${BIN:-$PWD/target/release/wsl-place}
SLOWFS=${SLOWFS:-$PWD/target/release/examples/slowfs}
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
ROUNDS=${ROUNDS:-3}
sleep 1.1
printf '| repository | tracked | where | predicted | measured | error | rounds | corrected after 3 verified checks |\n|---|---|---|---|---|---|---|---|\n'
for repo in "$@"; do
    name=$(basename "$repo")
    for place in "$WORK/home/linux/$name" "$WORK/mnt/$name"; do
        git -C "$place" status >/dev/null
        where=$([[ $place == "$WORK/mnt/"* ]] && echo "slowfs drvfs-9p" || echo "Linux disk")
        for ((i = 1; i <= ROUNDS; i++)); do
            rm -rf "$WORK/home/.local/state" "$WORK/home/.cache"
            HOME=$WORK/home "$BIN" check --fresh --verify --format json "$place" > "$WORK/out-$i.json"
        done
        # The same place as a user meets it: three verified checks fill this machine's record,
        # and the fourth prediction carries the correction they make (docs/accuracy.md).
        rm -rf "$WORK/home/.local/state" "$WORK/home/.cache"
        for ((i = 1; i <= 4; i++)); do
            HOME=$WORK/home "$BIN" check --verify --format json "$place" > "$WORK/corrected.json"
        done
        python3 - "$WORK" "$ROUNDS" "$name" "$where" <<'PY'
import json, statistics, sys
work, rounds, name, where = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
runs = [json.load(open(f"{work}/out-{i}.json")) for i in range(1, rounds + 1)]
p = [r["verify"]["predicted_ms"] for r in runs]
m = [r["verify"]["measured_ms"] for r in runs]
e = sorted(r["verify"]["error"] * 100 for r in runs)
mp, mm = statistics.median(p), statistics.median(m)
c = json.load(open(f"{work}/corrected.json"))
factor = ((c.get("accuracy") or {}).get("correction") or {}).get("git_status") or {}
corrected = f"{c['verify']['error'] * 100:+.0f}% (x{factor['factor']:.2f})" if factor else f"{c['verify']['error'] * 100:+.0f}% (none)"
print(f"| {name} | {runs[0]['scan']['tracked']} | {where} | {mp:.0f} ms | {mm:.0f} ms | {(mm / mp - 1) * 100:+.0f}% | {e[0]:+.0f}% to {e[-1]:+.0f}% | {corrected} |")
PY
    done
done
