#!/usr/bin/env bash
# Late edits after a migration: `wsl-place migrate --sync --yes` against `rsync -a --delete` of
# the same edits into an identical copy of the destination, the source served by the slowfs
# emulator (drvfs-9p profile, scale 1); each tool's median wall time over RUNS runs, taken in a
# rotating order, and the ratio.
#
#   bench/sync.sh REPO                     # REPO: any directory (a clone of a public repository,
#                                          # with node_modules if you like); copied, never changed
#   RUNS=5 CHANGED=50 ADDED=20 REMOVED=10 SCALE=1 BENCH_DIR=/var/tmp bench/sync.sh REPO
#
# Once: REPO is copied into the emulator's backing folder, migrated from the mount to the local
# disk (`migrate --yes`), and the destination and the state folder (manifest, snapshot, record)
# are kept aside; then the late edits are made at the source through the mount: CHANGED files
# get a line appended, ADDED new files (half in a new folder), REMOVED files are deleted, all
# chosen (seeded) among the files outside .git and node_modules.
#
# Each run starts from a copy of that destination (`cp -a`, untimed) and:
#   - wsl-place: the kept state folder, then `migrate SRC --to DEST --sync --yes`: walk the
#     source, compare with the manifest and the destination, time both sides for the plan, copy
#     and read back each file (CRC32), seal, rename into place, `git update-index --refresh`.
#     `cp -a` gives every file of the copy a new inode and ctime, so the destination's snapshot
#     is left out and the sync compares the copy with the manifest by size and mtime (the way it
#     does for a migration made before snapshots were kept): one walk either way.
#   - rsync -a --delete: walk the source, compare size and mtime, copy what differs, delete what
#     the source no longer has (--delete, because the sync removes those too). rsync reads back
#     nothing, and would overwrite a file changed at the destination since (the sync keeps it).
# After each run the copy is compared with the source's backing folder byte for byte
# (`rsync -rlptcnO --delete`, git's index excepted: the sync refreshes it on purpose).
set -euo pipefail
cd "$(dirname "$0")/.."

REPO=$(realpath "${1:?usage: bench/sync.sh REPO}")
[ -d "$REPO" ] || { echo "bench/sync.sh: $REPO is not a directory" >&2; exit 2; }
RUNS=${RUNS:-5}
SCALE=${SCALE:-1}
CHANGED=${CHANGED:-50}
ADDED=${ADDED:-20}
REMOVED=${REMOVED:-10}
BENCH_DIR=${BENCH_DIR:-${TMPDIR:-/tmp}}
BIN=${BIN:-target/release/wsl-place}
SLOWFS=${SLOWFS:-target/release/examples/slowfs}

for tool in cp rsync python3; do
    command -v "$tool" >/dev/null || { echo "bench/sync.sh needs $tool" >&2; exit 2; }
done
# SKIP_BUILD=1 when the binaries were just built (the build may wait for a shared slot).
[ -n "${SKIP_BUILD:-}" ] || cargo build --release --quiet --bin wsl-place --example slowfs

WORK=$(mktemp -d "$BENCH_DIR/wsl-place-sync.XXXXXX")
. bench/slowfs-mount.sh
trap slowfs_cleanup EXIT

mkdir -p "$WORK/backing" "$WORK/mnt" "$WORK/home" "$WORK/dst"
cp -a "$REPO" "$WORK/backing/app"
slowfs_mount "$SLOWFS" "$WORK/slowfs.log" --profile drvfs-9p --scale "$SCALE" || exit 1
SRC="$WORK/mnt/app"
DEST="$WORK/dst/app"
wsl() { HOME="$WORK/home" XDG_STATE_HOME="$WORK/state" NO_COLOR=1 "$BIN" "$@"; }
now_ns() { date +%s%N; }
echo "tree: $(find "$WORK/backing/app" -mindepth 1 | wc -l) entries, $(du -sb "$WORK/backing/app" | cut -f1) bytes, from $REPO on slowfs drvfs-9p --scale $SCALE"

start=$(now_ns)
wsl migrate "$SRC" --to "$DEST" --yes >/dev/null
echo "migration (once): $((($(now_ns) - start) / 1000000)) ms"
# Kept aside: the manifest and the record name DEST, where each run's copy goes.
mkdir -p "$WORK/base"
cp -a "$DEST" "$WORK/base/app"
cp -a "$WORK/state" "$WORK/state0"
rm -f "$WORK"/state0/wsl-place/destinations/*.snapshot

python3 - "$SRC" "$CHANGED" "$ADDED" "$REMOVED" <<'PY'
import os, random, sys
root, changed, added, removed = sys.argv[1], *map(int, sys.argv[2:])
files = []
for d, dirs, names in os.walk(root):
    dirs[:] = sorted(x for x in dirs if x not in (".git", "node_modules"))
    files += sorted(os.path.join(d, n) for n in names if os.path.isfile(os.path.join(d, n)))
rng = random.Random(25)
picked = rng.sample(files, changed + removed)
for path in picked[:changed]:
    with open(path, "ab") as f:
        f.write(b"\n// a late edit\n")
for path in picked[changed:]:
    os.remove(path)
os.makedirs(os.path.join(root, "late"), exist_ok=True)
for i in range(added):
    where = os.path.join(root, "late") if i % 2 else os.path.dirname(rng.choice(files))
    with open(os.path.join(where, f"late-{i}.js"), "wb") as f:
        f.write(rng.randbytes(rng.randint(200, 6000)))
print(f"late edits at the source: {changed} changed, {added} added, {removed} removed")
PY

run_tool() {
    case "$1" in
        wsl-place) wsl migrate "$SRC" --to "$DEST" --sync --yes --format json >"$WORK/report.json" ;;
        rsync) rsync -a --delete "$SRC/" "$DEST/" ;;
    esac
}

TOOLS=(wsl-place rsync)
declare -A TIMES
SYNCS=
for ((run = 0; run < RUNS; run++)); do
    for ((k = 0; k < ${#TOOLS[@]}; k++)); do
        tool=${TOOLS[$(((k + run) % ${#TOOLS[@]}))]}
        rm -rf "$DEST" "$WORK/state"
        cp -a "$WORK/base/app" "$DEST"
        cp -a "$WORK/state0" "$WORK/state"
        sync -f "$WORK/dst"
        start=$(now_ns)
        run_tool "$tool"
        ms=$((($(now_ns) - start) / 1000000))
        TIMES[$tool]+="$ms "
        echo "run $((run + 1))/$RUNS $tool: $ms ms" >&2
        if [ "$tool" = wsl-place ]; then
            SYNCS+="$(python3 -c 'import json, sys; s = json.load(open(sys.argv[1]))["sync"]; print("%s:%s:%s/%s/%s" % (s["sync_ms"], s["predicted_ms"], s["added"], s["changed"], s["removed"]))' "$WORK/report.json") "
        fi
        differs=$(rsync -rlptcnO --delete --itemize-changes --exclude=/.git/index \
            "$WORK/backing/app/" "$DEST/")
        [ -z "$differs" ] || { echo "$tool's copy differs from the source: $differs" >&2; exit 1; }
    done
done

median() { tr ' ' '\n' | grep . | sort -n | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : int((a[NR/2]+a[NR/2+1])/2))}'; }
echo
echo "| | median ms | runs (ms) |"
echo "|---|---|---|"
for tool in "${TOOLS[@]}"; do
    echo "| $tool | $(echo "${TIMES[$tool]}" | median) | ${TIMES[$tool]}|"
done
SYNC_MS=$(echo "$SYNCS" | tr ' ' '\n' | grep . | cut -d: -f1 | tr '\n' ' ')
PREDICTED=$(echo "$SYNCS" | tr ' ' '\n' | grep . | cut -d: -f2 | tr '\n' ' ')
echo "| of which after the plan (sync_ms) | $(echo "$SYNC_MS" | median) | $SYNC_MS|"
echo "| predicted (predicted_ms) | $(echo "$PREDICTED" | median) | $PREDICTED|"
echo "applied (added/changed/removed): $(echo "$SYNCS" | tr ' ' '\n' | grep . | cut -d: -f3 | sort -u | tr '\n' ' ')"
W=$(echo "${TIMES[wsl-place]}" | median)
R=$(echo "${TIMES[rsync]}" | median)
python3 -c "import sys; w, r = map(int, sys.argv[1:]); print(f'ratio wsl-place / rsync = {w / r:.2f}')" "$W" "$R"
