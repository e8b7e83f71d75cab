#!/usr/bin/env bash
# The first `git status` after a copy on the local disk (ext4), predicted against real, with the
# page cache warm (right after `cp -a`, as after a migration) and cold (caches dropped after
# the copy: `sync; echo 3 > /proc/sys/vm/drop_caches`, which needs root); with STATES
# including `slowfs`, also in the slowfs emulator (drvfs-9p at --scale SCALE, default 0.2),
# the copy made in its backing folder.
#
# For each repository in REPOS (clones on the local disk; they are copied, never changed), each
# run: `cp -a` it into a fresh folder, ask `wsl-place check --fresh --format json` there for
# `predict.first_git_status_ms` (warm) and `predict.first_git_status_cold_ms` (cold), then time
# the real first `git status` in the copy: once right away (warm), and, on a second fresh copy,
# once after the caches are dropped (cold). Runs are interleaved (run 1 of every repository
# and state, then run 2, ...) so that a change of the machine's pace moves every row; each row
# is the median of RUNS. The 1-minute load average is printed before and after: the warm rows
# are CPU work, and on a busy 2-core machine other work's share of the CPU lands in them; the
# last column is the CPU pace `check` calibrated (`probe.cpu_sha1_us_per_mib`; the model's CPU
# terms are fitted at 580), which scales every CPU term of the prediction.
# RT=1 runs each timed `git status`, and the `check` before it, at a real-time priority
# (`chrt -f 10`), so other work on the machine stays out of their core (root only).
#
# Usage: REPOS="DIR DIR" [STATES="warm cold slowfs"] [SCALE=0.2] [RT=1] [WORK=DIR] [NO_BUILD=1] \
#        bench/first-status.sh [RUNS]
#        (default 3 runs; needs git, python3, root for the cold rows, /dev/fuse and fusermount3
#        for slowfs; NO_BUILD=1 uses the built target/release/wsl-place and slowfs as they are)
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${1:-3}
STATES=${STATES:-warm cold}
: "${REPOS:?set REPOS to the clones to copy, e.g. REPOS=\"/var/tmp/src/git /var/tmp/src/redis\"}"

if [ "${NO_BUILD:-0}" != 1 ]; then
    cargo build --release --bin wsl-place --example slowfs >&2
fi
TOOL=$PWD/target/release/wsl-place
WORK=$(mktemp -d "${WORK:-/var/tmp}/wsl-place-first-status.XXXXXX")
. bench/slowfs-mount.sh
trap slowfs_cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
OUT=$WORK/results.tsv
: >"$OUT"

PRIO=()
if [ "${RT:-0}" = 1 ]; then
    PRIO=(chrt -f 10)
fi

now_ns() { date +%s%N; }

mkdir -p "$WORK/backing" "$WORK/mnt"
. bench/disk.sh
disk_note "$WORK"
case " $STATES " in
*" slowfs "*)
    slowfs_mount "$PWD/target/release/examples/slowfs" "$WORK/slowfs.log" \
        --profile drvfs-9p --scale "${SCALE:-0.2}"
    ;;
esac

# One run: copy REPO, predict, drop the caches for STATE=cold, time the first git status.
one_run() {
    local repo=$1 state=$2 name copy json start end
    name=$(basename "$repo")
    rm -rf "$WORK/copy" "$WORK/backing/copy"
    if [ "$state" = slowfs ]; then
        # Copied into the emulator's backing folder; git and check see it through the mount.
        mkdir -p "$WORK/backing/copy"
        cp -a "$repo" "$WORK/backing/copy/$name"
        copy=$WORK/mnt/copy/$name
    else
        mkdir -p "$WORK/copy"
        copy=$WORK/copy/$name
        cp -a "$repo" "$copy"
    fi
    # The prediction at the same priority, so that its CPU calibration sees the CPU git gets.
    json=$("${PRIO[@]}" "$TOOL" check --fresh --format json "$copy")
    if [ "$state" = cold ]; then
        sync
        echo 3 >/proc/sys/vm/drop_caches
    fi
    start=$(now_ns)
    "${PRIO[@]}" git -C "$copy" status --porcelain >/dev/null
    end=$(now_ns)
    python3 - "$name" "$state" "$(((end - start) / 1000))" "$json" >>"$OUT" <<'PY'
import json, sys
name, state, real_us, raw = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
p = json.loads(raw)["predict"]
field = "first_git_status_cold_ms" if state == "cold" else "first_git_status_ms"
got = p.get(field)
predicted = got["current"] if isinstance(got, dict) else (got if got is not None else float("nan"))
pace = json.loads(raw)["probe"].get("cpu_sha1_us_per_mib") or 0
print(f"{name}\t{state}\t{p['inputs']['tracked']}\t{predicted:.1f}\t{real_us / 1000:.1f}\t{pace:.0f}")
PY
}

echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
for run in $(seq "$RUNS"); do
    for repo in $REPOS; do
        for state in $STATES; do
            one_run "$repo" "$state"
        done
    done
    echo "run $run done, load $(cut -d' ' -f1 /proc/loadavg)" >&2
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"

python3 - "$OUT" $REPOS <<'PY'
import statistics, subprocess, sys
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1]) if l.strip()]
commits = {}
for repo in sys.argv[2:]:
    name = repo.rstrip("/").split("/")[-1]
    commits[name] = subprocess.run(["git", "-C", repo, "rev-parse", "--short=9", "HEAD"],
                                   capture_output=True, text=True).stdout.strip()
print("| repository | commit | files | state | predicted | real (median) | error | SHA-1 us/MiB |")
print("|---|---|---|---|---|---|---|---|")
keys = []
for name, state, *_ in rows:
    if (name, state) not in keys:
        keys.append((name, state))
for name, state in keys:
    mine = [r for r in rows if r[0] == name and r[1] == state]
    predicted = statistics.median(float(r[3]) for r in mine)
    real = statistics.median(float(r[4]) for r in mine)
    pace = statistics.median(float(r[5]) for r in mine)
    error = (predicted - real) / real * 100
    print(f"| {name} | {commits.get(name, '?')} | {mine[0][2]} | {state} | {predicted:.0f} ms "
          f"| {real:.0f} ms | {error:+.0f}% | {pace:.0f} |")
PY
