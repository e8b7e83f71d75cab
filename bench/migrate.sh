#!/usr/bin/env bash
# Copy+verify of a tree of small files by `wsl-place migrate`, against `cp -a` and `rsync -a` on
# the same tree in the same run. Prints each tool's median wall time over RUNS runs and the
# ratios. The tools take turns in a rotating order; the page cache is warm for all of them (the
# script never drops caches, which would disturb other users of the machine).
#
# wsl-place also flushes the copy to disk (syncfs) before it renames it into place, which cp and
# rsync do not, so `rsync -a; sync -f` is measured as well for a like-for-like durability figure.
#
#   bench/migrate.sh                 # 50,000 files, 5 runs, under $TMPDIR
#   FILES=10000 RUNS=3 BENCH_DIR=/mnt/ext4 bench/migrate.sh
set -euo pipefail
cd "$(dirname "$0")/.."

FILES=${FILES:-50000}
RUNS=${RUNS:-5}
BENCH_DIR=${BENCH_DIR:-${TMPDIR:-/tmp}}
BIN=${BIN:-target/release/wsl-place}

for tool in cp rsync python3; do
    command -v "$tool" >/dev/null || { echo "bench/migrate.sh needs $tool" >&2; exit 2; }
done
[ -x "$BIN" ] || cargo build --release --quiet

WORK=$(mktemp -d "$BENCH_DIR/wsl-place-bench.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
SRC="$WORK/src/app"

python3 - "$SRC" "$FILES" <<'EOF'
import os, random, sys
root, count = sys.argv[1], int(sys.argv[2])
rng = random.Random(42)
for i in range(count):
    d = os.path.join(root, f"pkg{i % 100}", f"mod{i % 7}")
    os.makedirs(d, exist_ok=True)
    # Source-tree-like sizes: mostly under 4 KiB, a few larger.
    size = int(rng.expovariate(1 / 2500)) if i % 50 else rng.randint(20_000, 200_000)
    with open(os.path.join(d, f"file{i}.txt"), "wb") as f:
        f.write(rng.randbytes(size))
EOF
BYTES=$(du -sb "$SRC" | cut -f1)
echo "tree: $FILES files, $BYTES bytes, in $SRC ($(df -T "$WORK" | awk 'NR==2{print $2}'))"

now_ns() { date +%s%N; }

run_tool() { # $1 tool, $2 destination
    case "$1" in
        cp) cp -a "$SRC" "$2" ;;
        rsync) rsync -a "$SRC/" "$2/" ;;
        rsync+sync) rsync -a "$SRC/" "$2/" && sync -f "$2" ;;
        wsl-place) "$BIN" --quiet migrate "$SRC" --to "$2" --yes ;;
    esac
}

TOOLS=(cp rsync rsync+sync wsl-place)
declare -A TIMES
for ((run = 0; run < RUNS; run++)); do
    for ((k = 0; k < ${#TOOLS[@]}; k++)); do
        tool=${TOOLS[$(((k + run) % ${#TOOLS[@]}))]}
        dest="$WORK/dst/$tool"
        rm -rf "$WORK/dst"
        mkdir -p "$WORK/dst"
        sync -f "$WORK"
        start=$(now_ns)
        run_tool "$tool" "$dest"
        end=$(now_ns)
        ms=$(((end - start) / 1000000))
        TIMES[$tool]+="$ms "
        echo "run $((run + 1))/$RUNS $tool: $ms ms" >&2
        if [ "$tool" = wsl-place ]; then
            # The verified copy must match byte for byte; a fast wrong copy is no result.
            diff -r "$SRC" "$dest" >/dev/null || { echo "wsl-place copy differs" >&2; exit 1; }
        fi
    done
done

median() { tr ' ' '\n' | grep -v '^$' | sort -n | awk '{a[NR]=$1} END{print a[int((NR+1)/2)]}'; }
echo "median wall time over $RUNS runs (ms):"
declare -A MED
for tool in "${TOOLS[@]}"; do
    MED[$tool]=$(echo "${TIMES[$tool]}" | median)
    printf '  %-11s %6d   (runs: %s)\n' "$tool" "${MED[$tool]}" "${TIMES[$tool]}"
done
ratio() { awk -v a="$1" -v b="$2" 'BEGIN{printf "%.2f", a / b}'; }
echo "ratios (wsl-place copy+verify+sync / peer; below 1.00 is faster):"
for peer in cp rsync rsync+sync; do
    echo "  wsl-place / $peer = $(ratio "${MED[wsl-place]}" "${MED[$peer]}")"
done
