#!/usr/bin/env bash
# `wsl-place survey` on folders of repositories inside the slowfs emulator, against its peer:
# `wsl-place check -q` run on each repository of the folder in turn.
#
# Sets of repositories (SETS, default "public fifty deep twelve"), each a folder in the
# emulator's backing folder (drvfs-9p profile at --scale SCALE):
#   public  clones of the git directories named in PUBLIC (space-separated; e.g. local mirrors
#           of expressjs/express, BurntSushi/ripgrep and psf/requests); skipped when unset
#   fifty   50 repositories of 1,000 to 5,000 tracked files (directories of 100, packed)
#   deep    12 repositories of 1,000 files each in 20 chains 10 folders deep
#   twelve  12 repositories of 200 to 4,000 tracked files, with `git status` on each as the
#           reference for the predictions (the set the first version of survey was measured on)
#   six     6 repositories of 300 to 3,000 tracked files (issue 54's bar: survey at most 0.5x
#           of check on each, the mounts' probes cached for both: the first survey fills them)
# Then RUNS rounds per set, interleaved so the machine's changing pace moves both alike: one
# `survey --format json` of the folder, then `check -q` of every repository. Prints medians:
# survey, its discovery (the search for repositories) and its scans, check on each, the ratio,
# and whether every repository was listed; a markdown row per set for docs/survey.md.
# BEFORE=path/to/an/older/wsl-place adds that build's survey to every round, for a before/after.
#
# Usage: bench/survey.sh [RUNS] [SCALE]   (defaults 3 and 0.2; needs /dev/fuse, fusermount3, git,
#        python3; WORK=DIR to build somewhere else than /var/tmp; NO_BUILD=1 when the release
#        binary and the slowfs example are built already)
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${1:-3}
SCALE=${2:-0.2}
SETS=${SETS:-"public fifty deep twelve"}

# On a shared machine builds queue behind `slot` when it is there.
[ "${NO_BUILD:-0}" = 1 ] || $(command -v slot || true) cargo build --release --bin wsl-place --example slowfs >&2
TOOL=$PWD/target/release/wsl-place
SLOWFS=$PWD/target/release/examples/slowfs

WORK=$(mktemp -d "${WORK:-/var/tmp}/wsl-place-survey.XXXXXX")
. bench/slowfs-mount.sh
. bench/repos.sh
trap slowfs_cleanup EXIT
mkdir -p "$WORK/local" "$WORK/mnt"

# make_deep_repo DIR: 1,000 files in 20 chains of 10 nested folders, 5 files at each level.
make_deep_repo() {
    python3 - "$1" <<'PY'
import os, sys
root = sys.argv[1]
for chain in range(20):
    d = os.path.join(root, "c%02d" % chain)
    for level in range(10):
        d = os.path.join(d, "l%d" % level)
        os.makedirs(d, exist_ok=True)
        for f in range(5):
            with open(os.path.join(d, "f%d.txt" % f), "w") as out:
                out.write("chain %d level %d file %d\n" % (chain, level, f) * 8)
PY
    git -C "$1" init -q
    commit_all "$1" init
    git -C "$1" gc -q
}

for set in $SETS; do
    dir=$WORK/backing/$set
    mkdir -p "$dir"
    case $set in
    public)
        for src in ${PUBLIC:-}; do
            name=$(basename "$(dirname "$src")")
            [ "$(basename "$src")" = repo ] || name=$(basename "$src" .git)
            echo "== cloning $name" >&2
            git clone -q --no-hardlinks "$src" "$dir/$name"
        done
        ;;
    fifty)
        for i in $(seq 0 49); do
            files=$((1000 + i * 4000 / 49))
            echo "== building fifty/$i ($files files)" >&2
            make_repo "$dir/$(printf "repo-%02d-%d" "$i" "$files")" "$files"
        done
        ;;
    deep)
        for i in $(seq 0 11); do
            echo "== building deep/$i" >&2
            make_deep_repo "$dir/$(printf "deep-%02d" "$i")"
        done
        ;;
    twelve)
        SIZES=(200 300 400 500 700 900 1200 1500 2000 2500 3000 4000)
        for i in "${!SIZES[@]}"; do
            echo "== building twelve/$i" >&2
            make_repo "$dir/$(printf "repo-%02d-%d" "$i" "${SIZES[$i]}")" "${SIZES[$i]}"
        done
        ;;
    six)
        SIZES=(300 500 1000 1500 2000 3000)
        for i in "${!SIZES[@]}"; do
            echo "== building six/$i" >&2
            make_repo "$dir/$(printf "repo-%02d-%d" "$i" "${SIZES[$i]}")" "${SIZES[$i]}"
        done
        ;;
    *)
        echo "unknown set $set (public, fifty, deep, twelve, six)" >&2
        exit 2
        ;;
    esac
done

slowfs_mount "$SLOWFS" "$WORK/slowfs.log" --profile drvfs-9p --scale "$SCALE" || exit 1

for set in $SETS; do
    FOLDER=$WORK/mnt/$set
    [ -n "$(ls -A "$FOLDER")" ] || continue
    if [ "$set" = twelve ]; then
        # The first status after building re-hashes nothing, but through the mount git still
        # refreshes its index once; both tools should see the steady state.
        for repo in "$FOLDER"/*/; do git -C "$repo" status --porcelain >/dev/null; done
    fi
    echo "== wsl-place survey $FOLDER (drvfs-9p profile, scale $SCALE)"
    "$TOOL" survey --baseline "$WORK/local" --color never "$FOLDER" | tail -n 6
    python3 - "$RUNS" "$TOOL" "$FOLDER" "$WORK/local" "$set" "$SCALE" "${BEFORE:-}" <<'PY'
import json, os, statistics, subprocess, sys, time
runs, tool, folder, baseline, name, scale, before = int(sys.argv[1]), *sys.argv[2:]
repos = sorted(os.path.join(folder, d) for d in os.listdir(folder))
def timed(cmd):
    t = time.perf_counter()
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    return (time.perf_counter() - t) * 1000, out
surveys, discoveries, scans, checks, statuses, listed = [], [], [], [], [], []
predicted, befores, before_discoveries, before_listed = [], [], [], []
for _ in range(runs):
    if before:
        ms, out = timed([before, "survey", "--format", "json", "--baseline", baseline, folder])
        befores.append(ms)
        old = json.loads(out)
        before_discoveries.append(old["discovery"]["elapsed_ms"])
        before_listed.append(len(old["repositories"]))
    ms, out = timed([tool, "survey", "--format", "json", "--baseline", baseline, folder])
    report = json.loads(out)
    surveys.append(ms)
    discoveries.append(report["discovery"]["elapsed_ms"])
    scans.append(report["scans"]["elapsed_ms"])
    found = sorted(r["path"] for r in report["repositories"])
    listed.append(found == repos and report["scans"]["stopped"] == 0)
    predicted.append(sum(r["predict"]["git_status_ms"]["current"] for r in report["repositories"]))
    total = 0.0
    for repo in repos:
        ms, _ = timed([tool, "check", "-q", "--baseline", baseline, repo])
        total += ms
    checks.append(total)
    if name == "twelve":
        total = 0.0
        for repo in repos:
            ms, _ = timed(["git", "-C", repo, "status", "--porcelain"])
            total += ms
        statuses.append(total)
s, d, sc, c = (statistics.median(x) for x in (surveys, discoveries, scans, checks))
tracked = report["summary"]["repositories"], sum(r["scan"]["tracked"] or 0 for r in report["repositories"])
print(f"set {name}: {tracked[0]} repositories, {tracked[1]} tracked files, runs {runs}, scale {scale}")
print(f"  survey (median)               {s:9.0f} ms   discovery {d:.0f} ms ({d / s:.0%}), scans {sc:.0f} ms ({sc / s:.0%}), {report['scans']['threads']} threads")
print(f"  check -q on each (median)     {c:9.0f} ms   survey/check = {s / c:.2f}")
print(f"  every repository listed, every scan complete: {all(listed)}")
was = ""
if befores:
    b, bd = statistics.median(befores), statistics.median(before_discoveries)
    print(f"  survey before (median)        {b:9.0f} ms   discovery {bd:.0f} ms ({bd / b:.0%}), before/check = {b / c:.2f}, listed {min(before_listed)} to {max(before_listed)} of {len(repos)}")
    was = f" {b:,.0f} ms ({b / c:.2f}) |"
if statuses:
    g, p = statistics.median(statuses), statistics.median(predicted)
    print(f"  git status on each, summed    {g:9.0f} ms   predicted by survey {p:.0f} ms ({p / g - 1:+.0%})")
print(f"| {name} | {tracked[0]} | {tracked[1]:,} | {s:,.0f} ms | {d:,.0f} ms ({d / s:.0%}) | {sc:,.0f} ms | {c:,.0f} ms | {s / c:.2f} | {'yes' if all(listed) else 'NO'} |{was}")
PY
done
