#!/usr/bin/env bash
# The held-out accuracy table (docs/accuracy.md, "Held-out projects"): `check`'s install and
# `git status` predictions against the real thing, on public projects the model was never
# fitted or tuned on (bench/heldout.py PROJECTS names them, each pinned to a commit), on a
# journaled ext4 (bench/loop-ext4.sh: WSL's Linux disk is one; the machine's own root ext4 here
# has no journal) and on the slowfs emulator's drvfs-9p profile at --scale SCALE.
#
# For each project: clone it (from MIRROR/owner+name/repo when there, else GitHub) and pin it,
# install it once online to fill the package caches (HOME is on the ext4, so every cache is),
# then on each disk: `wsl-place check --format json` with nothing installed (its install
# prediction, its sample, its `git status` prediction), `git status` timed STATUS_RUNS times
# (median), and the reinstall from the lock, offline from the cache (bench/heldout.py says which
# command per manager), timed RUNS times on the ext4 (median) and once on slowfs. The tool's
# cache and record are emptied once at the start: the projects are checked in table order on a
# machine that has seen none of them before, as a person would meet them.
#
# Usage (root, needs /dev/fuse and fusermount3; build first: cargo build --release --bin
# wsl-place --example slowfs):
#   bench/heldout.sh [NAME...]        (default: every project of bench/heldout.py list)
#   RUNS=3 STATUS_RUNS=5 SCALE=0.2 NO_SLOWFS=1 NO_EXT4=1
#   KOA=1 KOA_SCALE=0.5: also the issue's koa-from-lock case (a clone of koajs/koa with its lock
#   only, predicted then reinstalled once on slowfs at KOA_SCALE, the tool's cache emptied first)
#   KEEP_TOOL_CACHE=1: keep the tool's cache and record (a machine that has seen the projects)
#   REUSE_INSTALLS=FILE[:FILE]: take each row's installs from earlier results files instead of
#   installing again (an install does not depend on the tool; its predictions and `git status`
#   are still made afresh; the table says when the installs were measured)
#   STATUS_ONLY=1: `git status` alone: no managers set up, no install (the warm-up one nor the
#   timed ones; REUSE_INSTALLS still fills the install cells), so a run takes minutes and needs
#   no network; check's install prediction is then whatever it makes with empty caches
#   TOOL, SLOWFS: other builds of the two (an older wsl-place for a before/after)
#   HELDOUT (default /var/tmp/heldout): clones, managers, the ext4 image and the results
#   (HELDOUT/results-*.jsonl; `python3 bench/heldout.py table FILE` prints a table again).
# Prints the markdown rows on stdout, progress on stderr. Undo: umount HELDOUT/ext4 && rm -r HELDOUT.
set -euo pipefail
cd "$(dirname "$0")/.."
[[ $(id -u) == 0 ]] || { echo "bench/heldout.sh mounts a loop ext4 and a FUSE file system: run it as root" >&2; exit 1; }
TOOL=${TOOL:-$PWD/target/release/wsl-place}
SLOWFS=${SLOWFS:-$PWD/target/release/examples/slowfs}
[[ -x $TOOL && -x $SLOWFS ]] || { echo "build first: cargo build --release --bin wsl-place --example slowfs" >&2; exit 1; }
HELDOUT=${HELDOUT:-/var/tmp/heldout}
RUNS=${RUNS:-3}
SCALE=${SCALE:-0.2}
export STATUS_RUNS=${STATUS_RUNS:-5} TOOL
read -r -a NAMES <<<"${*:-$(python3 bench/heldout.py list)}"
started=$(date +%s)

mkdir -p "$HELDOUT"
bash bench/loop-ext4.sh "$HELDOUT/ext4" 24G

export HOME=$HELDOUT/ext4/home UV_PYTHON_DOWNLOADS=never
unset npm_config_cache XDG_CACHE_HOME XDG_DATA_HOME XDG_STATE_HOME XDG_CONFIG_HOME
mkdir -p "$HOME"
if [[ -z ${STATUS_ONLY:-} ]]; then
    # The managers at the versions .ci/run tests (one major each), in prefixes of their own; uv in
    # a virtualenv. npm is the one on PATH.
    TOOLS=$HELDOUT/tools
    for build in pnpm@10.34.9 yarn@1.22.22 bun@1.4.5; do
        prefix=$TOOLS/${build/@/-}
        [[ -x $prefix/bin/${build%@*} ]] || npm install --global --prefix "$prefix" --loglevel=error --no-fund --no-audit "$build" >/dev/null
        PATH=$prefix/bin:$PATH
    done
    [[ -x $TOOLS/py/bin/uv ]] || { python3 -m venv "$TOOLS/py" && "$TOOLS/py/bin/pip" install -q uv==0.13.9; }
    export PATH=$TOOLS/py/bin:$PATH
    # Two settings of this machine, for the tool's samples and the installs alike: pnpm 10 would
    # switch to the version a project's packageManager field names, which it refuses here (the
    # registry this machine reaches serves no signatures), and immer's lock holds semantic-release
    # 25, whose engines field asks for Node.js 22 (Node.js 20 here), which yarn classic refuses.
    export npm_config_manage_package_manager_versions=false
    # pnpm keeps its store on the project's own file system: a project on another one (the slowfs
    # mount, a Windows drive) gets a new, empty store at that file system's root, which an offline
    # install cannot fill. The store in HOME is named, as for a project on the Linux disk; pnpm then
    # copies from it onto the other file system.
    npm_config_store_dir=$(cd "$HOME" && pnpm store path)
    export npm_config_store_dir
    yarn config set ignore-engines true >/dev/null
    for tool in npm pnpm yarn bun uv git python3 fusermount3; do
        command -v "$tool" >/dev/null || { echo "$tool is not installed" >&2; exit 1; }
    done
    echo "npm $(npm --version), pnpm $(pnpm --version), yarn $(yarn --version), bun $(bun --version), $(uv --version), $(python3 -m pip --version | cut -d' ' -f1-2), $(git --version)" >&2
else
    echo "STATUS_ONLY: git status alone, $(git --version)" >&2
fi

SRC=$HELDOUT/ext4/src
OUT=$HELDOUT/results-$(date -u +%Y%m%dT%H%M%SZ).jsonl
mkdir -p "$SRC"
for name in "${NAMES[@]}"; do
    echo "== preparing $name" >&2
    python3 bench/heldout.py prepare "$name" "$SRC"
done

WORK=
. bench/slowfs-mount.sh
trap '[[ -z $WORK ]] || slowfs_cleanup' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
[[ -n ${KEEP_TOOL_CACHE:-} ]] || rm -rf "$HOME/.cache/wsl-place" "$HOME/.local/state/wsl-place"
if [[ -z ${NO_EXT4:-} ]]; then
    for name in "${NAMES[@]}"; do
        python3 bench/heldout.py row "$name" "$SRC/$name" "ext4 (journaled)" "$RUNS" "$OUT"
    done
fi

# slowfs_mount_copies SCALE NAME...: a fresh slowfs mount at SCALE over copies of the clones.
slowfs_mount_copies() {
    local scale=$1
    shift
    WORK=$(mktemp -d "$HELDOUT/ext4/slowfs.XXXXXX")
    mkdir -p "$WORK/backing" "$WORK/mnt"
    for name in "$@"; do
        cp -a "$SRC/$name" "$WORK/backing/$name"
        # An install left by an interrupted run is removed here, not through the slow mount.
        rm -rf "$WORK/backing/$name"/{node_modules,.venv,venv}
    done
    slowfs_mount "$SLOWFS" "$WORK/slowfs.log" --profile drvfs-9p --scale "$scale"
}
if [[ -z ${NO_SLOWFS:-} ]]; then
    slowfs_mount_copies "$SCALE" "${NAMES[@]}"
    for name in "${NAMES[@]}"; do
        python3 bench/heldout.py row "$name" "$WORK/mnt/$name" "slowfs drvfs-9p x$SCALE" 1 "$OUT"
    done
    slowfs_cleanup
    WORK=
fi
if [[ -n ${KOA:-} ]]; then
    echo "== koa from its lock, slowfs x${KOA_SCALE:-0.5}" >&2
    python3 bench/heldout.py prepare koa "$SRC"
    rm -rf "$HOME/.cache/wsl-place" "$HOME/.local/state/wsl-place"
    slowfs_mount_copies "${KOA_SCALE:-0.5}" koa
    python3 bench/heldout.py row koa "$WORK/mnt/koa" "slowfs drvfs-9p x${KOA_SCALE:-0.5}" 1 "$OUT"
    slowfs_cleanup
    WORK=
fi

echo
python3 bench/heldout.py table "$OUT"
echo "results: $OUT; load $load_before before, $(cut -d' ' -f1-3 /proc/loadavg) after; $(($(date +%s) - started)) s" >&2
