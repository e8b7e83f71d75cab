#!/usr/bin/env bash
# The first and the next `check` of Node repositories against one `git status` in the same run,
# on the slowfs emulator (drvfs-9p) at scales 1 and 0.2, and the install prediction from a
# sampled node_modules against `--exact`'s (issue 43; targets: first check at most 2x one
# `git status`, next at most 1x, install within ±10% of --exact's). bench/check-first.py
# describes the runs.
#
#   [WORK=DIR] [SCALES=1,0.2] [STORE_ON_MOUNT=1] [REPOS=DIR] bench/check-first.sh RUNS [REPO...]
#
# The synthetic tree (bench/node-tree.py: 300 tracked files beside a node_modules of 800
# packages, 37,080 files) is always measured; REPO are real Node projects, copied (never
# changed): a folder with its dependencies installed, or a git URL (a path to a clone will
# do) that is cloned into REPOS (/var/tmp/check-first-repos) and installed there unattended
# the first time, with the manager its lock names (pnpm-lock.yaml: `pnpm install
# --frozen-lockfile`, pnpm from PATH or else `npx pnpm@<its packageManager>`;
# package-lock.json: `npm ci`; CI=1, no browser downloads), e.g.
#   bench/check-first.sh 3 https://github.com/expressjs/express https://github.com/antfu/ni
#   bench/check-first.sh 3 vite=/path/to/a/clone/of/vite
# A pnpm project's store is where its install put it (by default the Linux disk); with
# STORE_ON_MOUNT=1 the index files its `.modules.yaml` store holds are copied onto the mount
# and the copy's `storeDir` names them there, as pnpm does on WSL when the home is on another
# drive (a store at the root of /mnt/c).
# Run on a quiet machine (`uptime`: 1-minute load under ~2.5); the load is printed.
set -euo pipefail

RUNS=${1:?usage: bench/check-first.sh RUNS [REPO...]}
shift
HERE=$(cd "$(dirname "$0")/.." && pwd)
BIN=$HERE/target/release/wsl-place
SLOWFS=$HERE/target/release/examples/slowfs
# On a shared machine builds queue behind `slot` when it is there.
SLOT=$(command -v slot || true)
(cd "$HERE" && $SLOT cargo build --release --quiet && $SLOT cargo build --release --quiet --example slowfs)

REPOS=${REPOS:-/var/tmp/check-first-repos}
# A git URL (or NAME=URL) cloned and installed once into REPOS; a folder as it is.
prepared() {
    local spec=$1 name=
    case $spec in
        *=*) name=${spec%%=*} spec=${spec#*=} ;;
    esac
    if [ -d "$spec/node_modules" ] || { [ -d "$spec" ] && [ ! -d "$spec/.git" ] && [ ! -f "$spec/HEAD" ]; }; then
        echo "$spec"
        return
    fi
    [ -n "$name" ] || name=$(basename "${spec%.git}")
    local dir=$REPOS/$name
    if [ ! -d "$dir/node_modules" ]; then
        mkdir -p "$REPOS"
        [ -d "$dir/.git" ] || git clone -q "$spec" "$dir" >&2
        (
            cd "$dir"
            export CI=1 PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 PUPPETEER_SKIP_DOWNLOAD=1
            if [ -f pnpm-lock.yaml ]; then
                local want
                want=$(python3 -c 'import json; print(json.load(open("package.json")).get("packageManager", "pnpm@9").split("+")[0])')
                if command -v pnpm >/dev/null && [ "pnpm@$(pnpm --version | cut -d. -f1)" = "${want%%.*}" ]; then
                    pnpm install --frozen-lockfile --config.manage-package-manager-versions=false
                else
                    npx --yes "$want" install --frozen-lockfile --config.manage-package-manager-versions=false
                fi
            elif [ -f package-lock.json ]; then
                npm ci --no-audit --no-fund
            else
                npm install --no-audit --no-fund
            fi
        ) >&2
    fi
    echo "$dir"
}

WORK=$(mktemp -d "${WORK:-/var/tmp}/check-first.XXXXXX")
cleanup() {
    fusermount3 -u -z "$WORK/mnt" 2>/dev/null || true
    rm -rf "$WORK"
}
trap cleanup EXIT
mkdir -p "$WORK/backing" "$WORK/mnt" "$WORK/home"
export HOME=$WORK/home XDG_CACHE_HOME=$WORK/home/.cache XDG_STATE_HOME=$WORK/home/.local/state

python3 "$HERE/bench/node-tree.py" "$WORK/backing/synthetic" 800 300
names=("$WORK/backing/synthetic")
for spec in "$@"; do
    repo=$(prepared "$spec")
    copy=$WORK/backing/$(basename "$repo")
    cp -a "$repo" "$copy"
    names+=("$copy")
    modules=$copy/node_modules/.modules.yaml
    if [ "${STORE_ON_MOUNT:-}" = 1 ] && [ -f "$modules" ]; then
        store=$(sed -n 's/^ *"\{0,1\}storeDir"\{0,1\}: *"\{0,1\}\([^",]*\).*/\1/p' "$modules")
        layout=$(basename "$store")
        mkdir -p "$WORK/backing/.pnpm-store/$layout"
        # The index files only: the scan reads nothing else of the store.
        for sub in files index; do
            [ ! -d "$store/$sub" ] || (cd "$store" && find "$sub" -name '*.json' -print0 |
                xargs -0 -r cp --parents -t "$WORK/backing/.pnpm-store/$layout")
        done
        sed -i "s|$store|$WORK/mnt/.pnpm-store/$layout|" "$modules"
        echo "$(basename "$copy"): its store's index files on the mount ($(find "$WORK/backing/.pnpm-store/$layout" -type f | wc -l) files)"
    fi
done

echo "load before: $(cut -d' ' -f1 /proc/loadavg)"
python3 "$HERE/bench/check-first.py" "$WORK" "$BIN" "$SLOWFS" "$RUNS" "${SCALES:-1,0.2}" "${names[@]}"
echo "load after: $(cut -d' ' -f1 /proc/loadavg)"
