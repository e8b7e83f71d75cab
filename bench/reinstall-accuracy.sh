#!/usr/bin/env bash
# The reinstall bar: `check`'s reinstall prediction against a measured reinstall, paired, for
# koajs/koa 3.2.0 with npm (its package-lock.json) and the same project with pnpm (its lock
# imported by `pnpm import`), on a journaled ext4 (bench/loop-ext4.sh: WSL's Linux disk is
# one) with HOME, and so the package caches and the tool's sample, on it too. The caches are
# filled by installing from the lock once (network), as a clone is installed; then, ROUNDS
# times in turns, `check --fresh` (its sample timed afresh, no cached figures) and the
# reinstall (`rm -rf node_modules && npm ci --offline`, `pnpm install --offline
# --frozen-lockfile`). Prints each pair, then the medians and their error; the bar is ±35%, and
# the script exits 1 when a median misses it.
#
# Usage (root, for the loop mount): bench/reinstall-accuracy.sh [KOA_REPO]
#   KOA_REPO: a clone URL or path of koajs/koa (default https://github.com/koajs/koa.git);
#   WORK (default /var/tmp/reinstall-accuracy) holds the image and the mount; ROUNDS default 3.
# About 2-3 minutes on a quiet 2-core machine. Undo: umount $WORK/ext4 && rm -r $WORK.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=$PWD/target/release/wsl-place
[[ -x $BIN ]] || { echo "build first: cargo build --release" >&2; exit 1; }
for tool in npm pnpm git python3; do
    command -v "$tool" >/dev/null || { echo "$tool is not installed" >&2; exit 1; }
done
KOA=${1:-https://github.com/koajs/koa.git}
WORK=${WORK:-/var/tmp/reinstall-accuracy}
ROUNDS=${ROUNDS:-3}
mkdir -p "$WORK"
bash bench/loop-ext4.sh "$WORK/ext4" 4G
export HOME=$WORK/ext4/home
mkdir -p "$HOME"
unset npm_config_cache XDG_CACHE_HOME XDG_DATA_HOME

ms() { python3 -c 'import sys,time; print(int(time.time()*1000))'; }

# One project: its name, the reinstall command, then ROUNDS pairs.
pairs() {
    local name=$1 dir=$2
    shift 2
    local predicted=() measured=()
    for ((i = 1; i <= ROUNDS; i++)); do
        rm -rf "$HOME/.cache/wsl-place"
        local p
        p=$("$BIN" check --fresh --format json "$dir" | python3 -c '
import json, sys
r = json.load(sys.stdin)["predict"]
m = r["install_manager"]
print(round(r["install_ms"]["current"]), m["source"], m.get("sample_failed") or "")')
        rm -rf "$dir/node_modules"
        local t0 t1
        t0=$(ms)
        (cd "$dir" && "$@" >/dev/null 2>&1)
        t1=$(ms)
        read -r pred source failed <<<"$p"
        predicted+=("$pred")
        measured+=("$((t1 - t0))")
        echo "  $name round $i: predicted $pred ms ($source${failed:+: $failed}), measured $((t1 - t0)) ms"
    done
    python3 - "$name" "${predicted[*]}" "${measured[*]}" <<'PY'
import statistics, sys
name, p, m = sys.argv[1], [float(x) for x in sys.argv[2].split()], [float(x) for x in sys.argv[3].split()]
mp, mm = statistics.median(p), statistics.median(m)
err = mp / mm - 1
print(f"| {name} | {mp:.0f} ms | {mm:.0f} ms | {err*100:+.0f}% | {'within' if abs(err) <= 0.35 else 'OUTSIDE'} ±35% |")
PY
}

load_before=$(cut -d' ' -f1-3 /proc/loadavg)
echo "koajs/koa from $KOA into $WORK/ext4 (journaled ext4), HOME=$HOME" >&2
for copy in koa koa-pnpm; do
    [[ -d $WORK/ext4/$copy ]] || git clone -q "$KOA" "$WORK/ext4/$copy"
    git -C "$WORK/ext4/$copy" checkout -q 3.2.0 2>/dev/null || true
done
(cd "$WORK/ext4/koa" && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
(
    cd "$WORK/ext4/koa-pnpm"
    [[ -f pnpm-lock.yaml ]] || pnpm import >/dev/null 2>&1
    rm -f package-lock.json
    pnpm install --frozen-lockfile --reporter=silent >/dev/null 2>&1
)
table=()
table+=("$(pairs "koa (npm ci)" "$WORK/ext4/koa" npm ci --offline --no-audit --no-fund --loglevel=error | tee /dev/stderr | tail -1)")
table+=("$(pairs "koa (pnpm)" "$WORK/ext4/koa-pnpm" pnpm install --offline --frozen-lockfile --reporter=silent | tee /dev/stderr | tail -1)")
printf '\n| project | predicted (median) | measured (median) | predicted vs measured | bar |\n|---|---|---|---|---|\n'
printf '%s\n' "${table[@]}"
echo "load: $load_before before, $(cut -d' ' -f1-3 /proc/loadavg) after" >&2
# A bar: any median outside ±35% fails the run.
! printf '%s\n' "${table[@]}" | grep -q OUTSIDE
