#!/usr/bin/env bash
# Verified copy by `wsl-place migrate --yes` against `cp -a` and `rsync -a` on the same tree in
# the same run: each tool's median wall time over RUNS runs, taken in a rotating order, and the
# ratios.
#
#   bench/migrate.sh                       # local: 50,000 small files on the local disk
#   bench/migrate.sh --slow-source REPO    # the user's case: REPO served by the slowfs emulator
#                                          # (drvfs-9p profile, scale 1), copied to the local disk
#   FILES=10000 RUNS=3 BENCH_DIR=/mnt/ext4 bench/migrate.sh
#
# Local mode: wsl-place also flushes the copy (syncfs) before renaming it into place, which cp and
# rsync do not, so `rsync -a; sync -f` is measured as well. The page cache is warm for all of
# them (the script never drops caches, which would disturb other users of the machine).
#
# Slow-source mode (root, fuse3): REPO (any directory, typically a clone of a public repository;
# it is copied, never changed) is copied into the emulator's backing directory; each run copies
# it from the mount to the local disk. It also reports:
#   - the prediction's error: the median of RUNS `migrate --dry-run --format json`'s
#     predicted_copy_ms against the median of what it predicts, measured by each `migrate --yes
#     --format json` run (copy_ms: a one-pass run's walk, planning, copy with read-back, count,
#     flush and fix-ups; docs/json.md);
#   - time to the first prompt: an interactive `migrate` on a pseudo-terminal, from start to the
#     first question, against the wall time of `check --no-probe` on the same tree.
# SCALE (default 1) multiplies the emulator's latencies.
# BEFORE=path/to/older/wsl-place adds that binary's `migrate --yes` to the same rotation (tool
# "before", its copy checked the same way), so a change is measured against the old code in one run.
set -euo pipefail
cd "$(dirname "$0")/.."

SLOW_REPO=
if [ "${1:-}" = --slow-source ]; then
    SLOW_REPO=$(realpath "${2:?--slow-source needs a directory}")
    [ -d "$SLOW_REPO" ] || { echo "bench/migrate.sh: $SLOW_REPO is not a directory" >&2; exit 2; }
fi
FILES=${FILES:-50000}
RUNS=${RUNS:-5}
SCALE=${SCALE:-1}
BENCH_DIR=${BENCH_DIR:-${TMPDIR:-/tmp}}
BIN=${BIN:-target/release/wsl-place}
BEFORE=${BEFORE:-}
SLOWFS=${SLOWFS:-target/release/examples/slowfs}

for tool in cp rsync python3 diff; do
    command -v "$tool" >/dev/null || { echo "bench/migrate.sh needs $tool" >&2; exit 2; }
done
if [ -n "${NO_BUILD:-}" ]; then
    : # NO_BUILD=1: BIN and SLOWFS are built already (on a shared machine, through its build slots)
elif [ -n "$SLOW_REPO" ]; then
    cargo build --release --quiet --bin wsl-place --example slowfs
else
    [ -x "$BIN" ] || cargo build --release --quiet --bin wsl-place
fi

WORK=$(mktemp -d "$BENCH_DIR/wsl-place-bench.XXXXXX")
# A state folder of the bench's own, emptied before every run: each migration leaves a record of
# its copy, and a source copied before is asked about first ("already copied ... make another
# copy?"), which would time that question instead of the plan's, and leave the user's record
# full of bench copies.
export XDG_STATE_HOME=$WORK/state
. bench/slowfs-mount.sh
trap slowfs_cleanup EXIT

if [ -n "$SLOW_REPO" ]; then
    mkdir -p "$WORK/backing" "$WORK/mnt"
    name=$(basename "$SLOW_REPO")
    cp -a "$SLOW_REPO" "$WORK/backing/$name"
    REFERENCE="$WORK/backing/$name"
    slowfs_mount "$SLOWFS" "$WORK/slowfs.log" --profile drvfs-9p --scale "$SCALE" || exit 1
    SRC="$WORK/mnt/$name"
    ENTRIES=$(find "$REFERENCE" -mindepth 1 | wc -l)
    echo "tree: $ENTRIES entries, $(du -sb "$REFERENCE" | cut -f1) bytes, from $SLOW_REPO on slowfs drvfs-9p --scale $SCALE"
else
    SRC="$WORK/src/app"
    REFERENCE="$SRC"
    python3 - "$SRC" "$FILES" <<'PY'
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
PY
    echo "tree: $FILES files, $(du -sb "$SRC" | cut -f1) bytes, in $SRC ($(df -T "$WORK" | awk 'NR==2{print $2}'))"
fi

now_ns() { date +%s%N; }

run_tool() { # $1 tool, $2 destination
    case "$1" in
        cp) cp -a "$SRC" "$2" ;;
        rsync) rsync -a "$SRC/" "$2/" ;;
        rsync+sync) rsync -a "$SRC/" "$2/" && sync -f "$2" ;;
        wsl-place) "$BIN" migrate "$SRC" --to "$2" --yes --format json >"$WORK/report.json" ;;
        before) "$BEFORE" migrate "$SRC" --to "$2" --yes --format json >"$WORK/before.json" ;;
    esac
}

if [ -n "$SLOW_REPO" ]; then TOOLS=(cp rsync wsl-place); else TOOLS=(cp rsync rsync+sync wsl-place); fi
[ -z "$BEFORE" ] || TOOLS+=(before)
declare -A TIMES
COPIES=
for ((run = 0; run < RUNS; run++)); do
    for ((k = 0; k < ${#TOOLS[@]}; k++)); do
        tool=${TOOLS[$(((k + run) % ${#TOOLS[@]}))]}
        dest="$WORK/dst/$tool"
        rm -rf "$WORK/dst" "$XDG_STATE_HOME"
        mkdir -p "$WORK/dst"
        sync -f "$WORK"
        start=$(now_ns)
        run_tool "$tool" "$dest"
        end=$(now_ns)
        ms=$(((end - start) / 1000000))
        TIMES[$tool]+="$ms "
        echo "run $((run + 1))/$RUNS $tool: $ms ms" >&2
        if [ "$tool" = wsl-place ]; then
            # The span the plan's prediction covers, as the run measured it (after the walk).
            COPIES+="$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["copy_ms"])' \
                "$WORK/report.json") "
        fi
        if [ "$tool" = wsl-place ] || [ "$tool" = before ]; then
            # The verified copy must match byte for byte (contents, modes, times, symlinks, no
            # extra or missing entry); a fast wrong copy is no result. The git index is the one
            # file migrate rewrites on purpose (`git update-index --refresh`).
            differs=$(rsync -rlptcnO --delete --itemize-changes --exclude=/.git/index \
                "$REFERENCE/" "$dest/")
            [ -z "$differs" ] || { echo "$tool copy differs: $differs" >&2; exit 1; }
        fi
    done
done
rm -rf "$WORK/dst"

median() { tr ' ' '\n' | grep -v '^$' | sort -n | awk '{a[NR]=$1} END{print a[int((NR+1)/2)]}'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN{printf "%.2f", a / b}'; }
echo "median wall time over $RUNS runs (ms):"
declare -A MED
for tool in "${TOOLS[@]}"; do
    MED[$tool]=$(echo "${TIMES[$tool]}" | median)
    printf '  %-11s %6d   (runs: %s)\n' "$tool" "${MED[$tool]}" "${TIMES[$tool]}"
done
echo "ratios (wsl-place verified copy / peer; below 1.00 is faster):"
for tool in "${TOOLS[@]}"; do
    [ "$tool" = wsl-place ] || [ "$tool" = before ] ||
        echo "  wsl-place / $tool = $(ratio "${MED[wsl-place]}" "${MED[$tool]}")"
done
if [ -n "$BEFORE" ]; then
    echo "  before / cp = $(ratio "${MED[before]}" "${MED[cp]}")"
    echo "  wsl-place / before = $(ratio "${MED[wsl-place]}" "${MED[before]}")"
fi
[ -n "$SLOW_REPO" ] || exit 0

# The prediction, from dry runs (which walk and plan exactly as a real run does; the median of
# RUNS, as the copy's is: each times the source afresh, and one slow call moves one of them).
PREDICTIONS=
for ((run = 0; run < RUNS; run++)); do
    rm -rf "$XDG_STATE_HOME"
    PREDICTIONS+="$("$BIN" migrate "$SRC" --to "$WORK/dst/predicted" --dry-run --format json |
        python3 -c 'import json, sys; print(json.load(sys.stdin).get("predicted_copy_ms") or 0)') "
done
predicted=$(echo "$PREDICTIONS" | median)
copied=$(echo "$COPIES" | median)
echo "predicted copy median: $predicted ms (runs: $PREDICTIONS); measured copy (copy_ms) median:" \
    "$copied ms (runs: $COPIES); predicted / measured = $(ratio "$predicted" "$copied")"
echo "whole migrate --yes median (walk and timing included): ${MED[wsl-place]} ms"

# Time to the first prompt against check --no-probe, interleaved.
first_prompt_ms() { # interactive migrate on a pty: ms until it asks, then answers no
    python3 - "$BIN" "$SRC" "$WORK/dst/asked" <<'PY'
import os, pty, select, sys, time
binary, src, dst = sys.argv[1:4]
start = time.monotonic()
pid, fd = pty.fork()
if pid == 0:
    os.execv(binary, [binary, "--no-color", "migrate", src, "--to", dst])
seen = b""
asked = None
while True:
    ready, _, _ = select.select([fd], [], [], 300)
    if not ready:
        break
    try:
        chunk = os.read(fd, 4096)
    except OSError:
        break
    if not chunk:
        break
    seen += chunk
    if asked is None and b"?" in seen.split(b"\n")[-1]:
        asked = time.monotonic()
        os.write(fd, b"\x03")  # Ctrl-C: leave without copying
os.waitpid(pid, 0)
print(int(((asked or time.monotonic()) - start) * 1000) if asked else -1)
PY
}
PROMPTS= CHECKS=
for ((run = 0; run < RUNS; run++)); do
    rm -rf "$WORK/dst" "$XDG_STATE_HOME"; mkdir -p "$WORK/dst"
    start=$(now_ns)
    "$BIN" check --quiet --no-probe "$SRC" >/dev/null || true
    CHECKS+="$((($(now_ns) - start) / 1000000)) "
    PROMPTS+="$(first_prompt_ms) "
done
check_ms=$(echo "$CHECKS" | median)
prompt_ms=$(echo "$PROMPTS" | median)
echo "time to first prompt: $prompt_ms ms (runs: $PROMPTS); check --no-probe: $check_ms ms (runs: $CHECKS);" \
    "prompt / check = $(ratio "$prompt_ms" "$check_ms")"
