#!/usr/bin/env bash
# Repository scan benchmark (issue 3). Not a test: figures for the README.
#
#   bench/scan.sh [FILES] [RUNS]
#
# Builds (once, cached) a tree of FILES files (default 100000) with a node_modules, a committed
# git repository and some build output under $SCAN_BENCH_DATA (default /work/wt/scan-bench-data),
# then reports, in the same run and on the same warm tree, medians of RUNS (default 5):
#   - `wsl-place check --no-probe --format json` against `find . | wc -l` and `du -s`
#   - peak RSS of wsl-place (/usr/bin/time -v)
#   - the traversal engines (examples/scan_engines: sequential, parallel:N, plain walkdir)
#   - with SLOWFS=path/to/slowfs and root: the same engines on a drvfs-9p-like FUSE mount of a
#     smaller tree (SLOW_FILES, default 3000), where per-operation latency dominates.
set -euo pipefail

FILES=${1:-100000}
RUNS=${2:-5}
DATA=${SCAN_BENCH_DATA:-/work/wt/scan-bench-data}
HERE=$(cd "$(dirname "$0")/.." && pwd)
BIN=$HERE/target/release/wsl-place
ENGINES=$HERE/target/release/examples/scan_engines

(cd "$HERE" && cargo build --release --quiet && cargo build --release --quiet --example scan_engines)

# make_tree DIR FILES: about 40% node_modules, 10% committed sources, the rest build output
# and assorted directories; sizes 0-4 KiB.
make_tree() {
    local dir=$1 files=$2
    if [[ -f $dir/.complete ]]; then return; fi
    rm -rf "$dir"
    mkdir -p "$dir"
    python3 - "$dir" "$files" <<'PY'
import os, sys, random
root, total = sys.argv[1], int(sys.argv[2])
random.seed(7)
def fill(base, n, per_dir):
    made = 0
    d = 0
    while made < n:
        sub = os.path.join(base, f"d{d // 20}", f"p{d}")
        os.makedirs(sub, exist_ok=True)
        for i in range(min(per_dir, n - made)):
            with open(os.path.join(sub, f"f{i}.txt"), "wb") as f:
                f.write(b"x" * random.randrange(0, 4096))
            made += 1
        d += 1
plan = [("node_modules", 0.40, 12), ("src", 0.10, 25), ("target/debug", 0.25, 40), ("assets", 0.25, 60)]
for name, share, per_dir in plan:
    fill(os.path.join(root, name), int(total * share), per_dir)
PY
    git -C "$dir" init -q
    printf 'node_modules/\ntarget/\nassets/\n' > "$dir/.gitignore"
    git -C "$dir" add -A
    git -C "$dir" -c user.name=bench -c user.email=bench@example.invalid commit -q -m tree
    touch "$dir/.complete"
}

median() { sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }

# ms CMD...: wall-clock milliseconds of one run, output discarded.
ms() {
    local t0 t1
    t0=$(date +%s%N)
    "$@" >/dev/null 2>&1
    t1=$(date +%s%N)
    echo $(((t1 - t0) / 1000000))
}

TREE=$DATA/tree-$FILES
make_tree "$TREE" "$FILES"
cd "$TREE"
echo "tree: $TREE ($(findmnt -no FSTYPE -T "$TREE")), $(git ls-files | wc -l) tracked, $RUNS runs, warm cache"
# Timed runs get a budget they cannot exhaust, so they count everything, like find and du.
FULL=(--no-probe --format json --scan-budget-ms 3600000)
find . >/dev/null; du -s . >/dev/null; "$BIN" check "${FULL[@]}" . >/dev/null

declare -a W F D
for _ in $(seq "$RUNS"); do
    W+=("$(ms "$BIN" check "${FULL[@]}" .)")
    F+=("$(ms sh -c 'find . | wc -l')")
    D+=("$(ms du -s .)")
done
w=$(printf '%s\n' "${W[@]}" | median)
f=$(printf '%s\n' "${F[@]}" | median)
d=$(printf '%s\n' "${D[@]}" | median)
echo "median ms: wsl-place check --no-probe $w | find . | wc -l $f | du -s $d | find+du $((f + d))"
awk -v w="$w" -v f="$f" -v d="$d" 'BEGIN {printf "ratio wsl-place / (find + du) = %.2f\n", w / (f + d)}'
summary() {
    python3 -c '
import json, sys
s = json.load(sys.stdin)["scan"]
print("  files", s["files"], "dirs", s["dirs"], "symlinks", s["symlinks"], "(+1 root) tracked", s["tracked"], "complete", s["complete"], "engine", s["engine"], "elapsed_ms", s["elapsed_ms"])'
}
echo "counts: find says $(find . | wc -l) entries; wsl-place (no budget limit) says:"
"$BIN" check "${FULL[@]}" . | summary
echo "with the default budget (3000 ms):"
"$BIN" check --no-probe --format json . | summary
rss=$(/usr/bin/time -v "$BIN" check "${FULL[@]}" . 2>&1 >/dev/null | awk -F: '/Maximum resident/ {gsub(/ /, "", $2); print $2}')
echo "peak RSS of wsl-place check: $rss KiB"

engines() {
    local dir=$1 runs=$2
    shift 2
    for engine in "$@"; do
        local t=()
        for _ in $(seq "$runs"); do
            t+=("$("$ENGINES" "$dir" "$engine" | awk '{print $2}')")
        done
        echo "  $engine: median $(printf '%s\n' "${t[@]}" | median) ms"
    done
}
echo "engines on $(findmnt -no FSTYPE -T "$TREE"), warm:"
engines "$TREE" "$RUNS" walkdir sequential parallel:2 parallel:4 parallel:8 parallel:16

if [[ -n ${SLOWFS:-} ]]; then
    SLOW_FILES=${SLOW_FILES:-3000}
    SLOW_TREE=$DATA/tree-$SLOW_FILES
    make_tree "$SLOW_TREE" "$SLOW_FILES"
    MNT=$DATA/mnt
    mkdir -p "$MNT"
    "$SLOWFS" --profile drvfs-9p ${SLOWFS_ARGS:-} "$SLOW_TREE" "$MNT" 2>"$DATA/slowfs.log" &
    SLOWFS_PID=$!
    trap 'umount "$MNT" 2>/dev/null || fusermount -u "$MNT" 2>/dev/null; kill "$SLOWFS_PID" 2>/dev/null || true' EXIT
    for _ in $(seq 50); do mountpoint -q "$MNT" && break; sleep 0.1; done
    echo "engines on slowfs --profile drvfs-9p ${SLOWFS_ARGS:-} ($SLOW_FILES files, medians of 3):"
    engines "$MNT" 3 walkdir sequential parallel:4 parallel:8 parallel:16
    f=$(ms sh -c "find '$MNT' | wc -l"); d=$(ms du -s "$MNT"); w=$(ms "$BIN" check --no-probe --format json "$MNT")
    echo "  one run: find $f ms, du $d ms, wsl-place check $w ms"
fi
