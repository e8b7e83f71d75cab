#!/usr/bin/env bash
# The hook's first look, cold, N times (default 20) on a 400-file repository: on slowfs (drvfs-9p
# latencies, scale 1) and on the Linux disk (ext4 or whatever holds $TMPDIR). Each run starts
# with an empty cache (no answer, no mount figures), under a policy with move_git_status_ms =
# 200, and prints the first look's figure, its range, the speedup's range, the levels and
# whether `--fail-on move` blocked. Provisional figures: the lead reruns on a quiet machine.
#   bench/first-look-spread.sh [N]
set -euo pipefail
cd "$(dirname "$0")/.."
N=${1:-20}
BIN=target/release/wsl-place
SLOWFS=target/release/examples/slowfs
[[ -x $BIN && -x $SLOWFS ]] || { echo "build first: cargo build --release --examples" >&2; exit 1; }
WORK=$(mktemp -d)
source bench/slowfs-mount.sh
trap slowfs_cleanup EXIT
mkdir -p "$WORK/backing/repo" "$WORK/home" "$WORK/mnt"
(cd "$WORK/backing/repo" && git init -q && for d in $(seq 1 8); do mkdir -p "d$d"; for f in $(seq 1 50); do echo "$d $f" > "d$d/f$f.txt"; done; done && git add . && git -c user.email=b@b -c user.name=b commit -qm init)
cp -r "$WORK/backing/repo" "$WORK/home/repo-ext4"
printf '[thresholds]\nmove_git_status_ms = 200\n' > "$WORK/policy.toml"
slowfs_mount "$SLOWFS" "$WORK/slowfs.log" --profile drvfs-9p --scale 1
git -C "$WORK/mnt/repo" status >/dev/null
for place in "$WORK/mnt/repo" "$WORK/home/repo-ext4"; do
    echo "== $place"
    for i in $(seq "$N"); do
        rm -rf "$WORK/home/.cache"
        set +e
        HOME=$WORK/home XDG_CACHE_HOME=$WORK/home/.cache "$BIN" check --advisory --fail-on move \
            --policy "$WORK/policy.toml" --format json "$place" > "$WORK/out.json"
        code=$?
        set -e
        rm -rf "$WORK/home/.cache"
        python3 - "$WORK/out.json" "$code" <<'PY'
import json, sys
e = json.load(open(sys.argv[1]))
r = (e.get("recent") or [{}])[-1].get("git_status_ms")
print(f"exit {sys.argv[2]} level {e['level']} levels {e.get('levels')} git_status {r}")
PY
    done
done
