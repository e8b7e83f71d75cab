#!/usr/bin/env bash
# `wsl-place survey` on a folder of a dozen repositories inside the slowfs emulator, against
# its peer: `wsl-place check` run on each repository in turn.
#
# Builds 12 repositories of 200 to 4,000 tracked files (directories of 100, packed as a clone
# is) and copies them into the emulator's backing folder (drvfs-9p profile at --scale SCALE).
# Then RUNS rounds, interleaved so the machine's changing pace moves both alike: one
# `survey --format json` of the mounted folder, and one `check --format json` of every
# repository, then one real `git status` of every repository (the thing both predict). Prints
# the survey's table once, then the medians, their ratio, and how far each tool's predicted
# `git status` (summed over the repositories) is from the measured sum.
#
# Usage: bench/survey.sh [RUNS] [SCALE]     (defaults 5 and 0.05; needs /dev/fuse, fusermount3,
#        git, python3; WORK=DIR to build somewhere else than /var/tmp)
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${1:-5}
SCALE=${2:-0.05}

cargo build --release --bin wsl-place --example slowfs >&2
TOOL=$PWD/target/release/wsl-place
SLOWFS=$PWD/target/release/examples/slowfs

WORK=$(mktemp -d "${WORK:-/var/tmp}/wsl-place-survey.XXXXXX")
. bench/slowfs-mount.sh
. bench/repos.sh
trap slowfs_cleanup EXIT
mkdir -p "$WORK/build" "$WORK/local" "$WORK/backing/source" "$WORK/mnt"

SIZES=(200 300 400 500 700 900 1200 1500 2000 2500 3000 4000)
for i in "${!SIZES[@]}"; do
    name=$(printf "repo-%02d-%d" "$i" "${SIZES[$i]}")
    echo "== building $name" >&2
    make_repo "$WORK/build/$name" "${SIZES[$i]}"
    cp -a "$WORK/build/$name" "$WORK/backing/source/$name"
done

slowfs_mount "$SLOWFS" "$WORK/slowfs.log" --profile drvfs-9p --scale "$SCALE" || exit 1
FOLDER=$WORK/mnt/source
# The first status after the copy re-hashes every file; both tools should see the steady state.
for repo in "$FOLDER"/*/; do git -C "$repo" status --porcelain >/dev/null; done

echo "== wsl-place survey $FOLDER (drvfs-9p profile, scale $SCALE)"
"$TOOL" survey --baseline "$WORK/local" --color never "$FOLDER"

python3 - "$RUNS" "$TOOL" "$FOLDER" "$WORK/local" <<'PY'
import json, os, statistics, subprocess, sys, time
runs, tool, folder, baseline = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
repos = sorted(os.path.join(folder, d) for d in os.listdir(folder))
def timed(cmd):
    t = time.perf_counter()
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    return (time.perf_counter() - t) * 1000, out
surveys, checks, statuses, probes = [], [], [], []
predicted_survey, predicted_check = [], []
for _ in range(runs):
    ms, out = timed([tool, "survey", "--format", "json", "--baseline", baseline, folder])
    surveys.append(ms)
    report = json.loads(out)
    assert report["summary"]["repositories"] == len(repos), report["summary"]
    probes.append(len(report["probes"]))
    predicted_survey.append(sum(r["predict"]["git_status_ms"]["current"] for r in report["repositories"]))
    total, predicted = 0.0, 0.0
    for repo in repos:
        ms, out = timed([tool, "check", "--format", "json", "--baseline", baseline, repo])
        total += ms
        predicted += json.loads(out)["predict"]["git_status_ms"]["current"]
    checks.append(total)
    predicted_check.append(predicted)
    total = 0.0
    for repo in repos:
        ms, _ = timed(["git", "-C", repo, "status", "--porcelain"])
        total += ms
    statuses.append(total)
s, c, g = (statistics.median(x) for x in (surveys, checks, statuses))
print(f"repositories {len(repos)}, runs {runs}, probes per survey {sorted(set(probes))}")
print(f"survey (median)                 {s:9.0f} ms")
print(f"check on each, summed (median)  {c:9.0f} ms   survey/check = {s / c:.2f}")
print(f"git status on each, summed      {g:9.0f} ms   survey/git status = {s / g:.2f}")
ps, pc = statistics.median(predicted_survey), statistics.median(predicted_check)
print(f"git status predicted, summed:   survey {ps:.0f} ms ({ps / g - 1:+.0%}), check {pc:.0f} ms ({pc / g - 1:+.0%})")
PY
