#!/usr/bin/env bash
# Accuracy of the cost model: predicted vs measured `git status`.
#
# Builds synthetic repositories (1,000 and 10,000 tracked files in directories of 100, one file
# modified) on the local disk and inside the slowfs emulator (drvfs-9p profile at --scale
# SCALE). In each, the first real `git status` after the copy re-hashes every file and is
# reported as first_gs; then RUNS pairs of a real `git status` and `wsl-place check --format
# json` (the baseline is the local work dir), interleaved. It prints the medians, predicted vs
# measured with the error, and what `check` and its probe cost, each as a ratio to one real
# `git status` there. Both repositories are `cp -a` copies of one built elsewhere, so first_gs
# is the first status after a move.
#
# Usage: bench/accuracy.sh [RUNS] [SCALE]     (defaults 5 and 0.05; needs /dev/fuse, fusermount3,
#        git, python3; WORK=DIR to build the repositories somewhere else than /var/tmp; LOOSE=1
#        keeps every object loose instead of packing them as a clone would)
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${1:-5}
SCALE=${2:-0.05}

cargo build --release --bin wsl-place --example slowfs >&2
TOOL=$PWD/target/release/wsl-place
SLOWFS=$PWD/target/release/examples/slowfs

WORK=$(mktemp -d "${WORK:-/var/tmp}/wsl-place-accuracy.XXXXXX")
. bench/slowfs-mount.sh
trap slowfs_cleanup EXIT
mkdir -p "$WORK/build" "$WORK/local" "$WORK/backing" "$WORK/mnt"

make_repo() { # DIR FILES
    python3 - "$1" "$2" <<'PY'
import os, sys
root, n = sys.argv[1], int(sys.argv[2])
for i in range(n):
    d = os.path.join(root, "src", "d%03d" % (i // 100))
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "f%03d.txt" % (i % 100)), "w") as f:
        f.write("file %d\n" % i * 20)
PY
    git -C "$1" init -q
    git -C "$1" add -A
    git -C "$1" -c gc.auto=0 -c maintenance.auto=false -c user.name=bench -c user.email=bench@example.invalid commit -q -m init
    # Packed, as a clone is: ten thousand loose objects would be a repository nobody has.
    [ "${LOOSE:-0}" = 1 ] || git -C "$1" gc -q
    echo modified >>"$1/src/d000/f005.txt"
}

for n in 1000 10000; do
    echo "== building repo-$n" >&2
    make_repo "$WORK/build/repo-$n" "$n"
    # Both are copies, so the first status in each re-hashes every file, as after a move.
    cp -a "$WORK/build/repo-$n" "$WORK/local/repo-$n"
    cp -a "$WORK/build/repo-$n" "$WORK/backing/repo-$n"
done

slowfs_mount "$SLOWFS" "$WORK/slowfs.log" --profile drvfs-9p --scale "$SCALE" || exit 1

measure() { # LABEL REPO
    python3 - "$1" "$2" "$RUNS" "$TOOL" "$WORK/local" <<'PY'
import json, statistics, subprocess, sys, time
label, repo, runs, tool, baseline = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5]
status = ["git", "-C", repo, "status", "--porcelain"]
# The first status after the copy refreshes the index (new inodes); it is not the steady state.
t = time.perf_counter()
out = subprocess.run(status, check=True, capture_output=True, text=True).stdout
first = (time.perf_counter() - t) * 1000
assert out.strip() == "M src/d000/f005.txt", out
# Interleaved: each check runs right after a git status, so a machine that changes pace between
# runs (this one does, by 2x) moves both figures of a pair alike.
ts, checks, probes, predicted, speedups, firsts = [], [], [], [], [], []
for _ in range(runs):
    t = time.perf_counter()
    subprocess.run(status, check=True, capture_output=True)
    ts.append((time.perf_counter() - t) * 1000)
    t = time.perf_counter()
    out = subprocess.run([tool, "check", "--format", "json", "--baseline", baseline, repo],
                         check=True, capture_output=True, text=True).stdout
    checks.append((time.perf_counter() - t) * 1000)
    report = json.loads(out)
    p = report["predict"]["git_status_ms"]
    predicted.append(p["current"])
    speedups.append(p["speedup"] or 1.0)
    firsts.append(report["predict"]["first_git_status_ms"]["current"])
    probes.append(report["probe"]["elapsed_ms"])
measured = statistics.median(ts)
pred = statistics.median(predicted)
check = statistics.median(checks)
probe = statistics.median(probes)
err = (pred - measured) / measured * 100
pfirst = statistics.median(firsts)
print("%-22s %10.1f %10.1f %+7.0f%% %10.0f %8.1fx %8.0f %8.2fx %10.1f %10.1f %+7.0f%% %8.1fx" %
      (label, pred, measured, err, check, check / measured, probe, probe / measured, pfirst,
       first, (pfirst - first) / first * 100, statistics.median(speedups)))
PY
}

echo
echo "git status, predicted vs measured (medians of $RUNS interleaved pairs), ms; slowfs drvfs-9p --scale $SCALE"
printf '%-22s %10s %10s %8s %10s %9s %8s %9s %10s %10s %8s %9s\n' repository predicted measured error \
    check_ms "check/gs" probe_ms "probe/gs" pred_first first_gs error speedup
for n in 1000 10000; do measure "local ext4, $n" "$WORK/local/repo-$n"; done
for n in 1000 10000; do measure "slowfs, $n" "$WORK/mnt/repo-$n"; done
