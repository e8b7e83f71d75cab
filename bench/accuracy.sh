#!/usr/bin/env bash
# Accuracy of the cost model: predicted vs measured, on the local disk and in the slowfs emulator
# (drvfs-9p profile at --scale SCALE), every row with its error and, for the slow mount, the
# predicted vs measured speedup (slowfs / ext4).
#
# Rows:
# - synthetic repositories of 1,000 and 10,000 tracked files in directories of 100 (one file
#   modified): steady `git status` and the first `git status` after a copy (`cp -a`);
# - a repository whose ignored directory (`vendor/`, in .gitignore) holds 8,000 tracked files,
#   which git `lstat`s but never lists;
# - each repository in REAL_REPOS (paths of real public clones; they are copied, never changed):
#   steady and first-after-copy `git status`;
# - a real Node project reinstalled with its real package manager, `rm -rf node_modules && npm
#   install --offline` with a warm cache, on both mounts, each run followed by a `check` of the
#   installed tree (NODE_PROJECT: a directory with
#   package.json and package-lock.json; by default express 5's dependency set, installed once
#   online to fill the cache);
# - a real Python project (PYTHON_PROJECT: a clone with a pyproject.toml; locked here when it has
#   no uv.lock; PYTHON_ALL_GROUPS=1 installs all its dependency groups) reinstalled from cache
#   with `rm -rf .venv && uv sync --offline --frozen --no-install-project` (its dependencies,
#   not its own build), and the same packages (`uv export`, the
#   project itself left out) with pip into a fresh virtualenv (made without pip, the pip of
#   python3 linked in, not timed): `pip install -r requirements.txt`, which asks the index about
#   each package (pip has no offline mode) and reads the files from its cache;
# - a real Rust project (RUST_PROJECT: a clone whose target/ is built): its target/ written
#   afresh into a fresh folder on each disk from a copy held in memory (as a build writes it:
#   each file created and written in 64 KiB pieces, hard links linked), against the tool's
#   figure for rebuilding it (file writes only);
# - 10 back-to-back `check`s on the first real repository on slowfs (one verdict?, each run's
#   prediction and range on stderr), and a cold `check --advisory` against the full `check`
#   after it;
# - what `check` and its probe cost as multiples of one real `git status`, and the 1-minute load
#   average through the run.
# Steady figures are medians of RUNS pairs of a real run and a `check`, interleaved, so that a
# change of the machine's pace moves both. So is each first status after a copy: before each,
# the index is put back as the copy left it (saved before git ran there), so git finds every
# file's stat data changed and re-reads and hashes it all, as after a move. The manager's timing is made in this run (a private
# XDG_CACHE_HOME).
#
# Usage: REAL_REPOS="DIR DIR" [NODE_PROJECT=DIR] [PYTHON_PROJECT=DIR [PYTHON_ALL_GROUPS=1]] [RUST_PROJECT=DIR]
#        [NO_NODE=1] [NO_IGNORED=1] [NO_PIP=1] bench/accuracy.sh [RUNS] [SCALE]
#        (defaults 5 and 0.2; needs /dev/fuse, fusermount3, git, python3, npm; WORK=DIR to build
#        somewhere else than /var/tmp, such as a journaled ext4 of bench/loop-ext4.sh; SIZES="1000"
#        for fewer synthetic rows)
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${1:-5}
SCALE=${2:-0.2}
# Synthetic repository sizes (tracked files).
SIZES=${SIZES:-1000 10000}

cargo build --release --bin wsl-place --example slowfs >&2
TOOL=$PWD/target/release/wsl-place
SLOWFS=$PWD/target/release/examples/slowfs
BENCH=$PWD/bench

WORK=$(mktemp -d "${WORK:-/var/tmp}/wsl-place-accuracy.XXXXXX")
. bench/slowfs-mount.sh
. bench/repos.sh
trap slowfs_cleanup EXIT
# A signal still unmounts and cleans up (the EXIT trap runs on exit).
trap 'exit 130' INT
trap 'exit 143' TERM
mkdir -p "$WORK/build" "$WORK/local" "$WORK/backing" "$WORK/mnt" "$WORK/cache"
. bench/disk.sh
disk_note "$WORK"
export XDG_CACHE_HOME=$WORK/cache

make_ignored_repo() { # DIR: 8,000 tracked files in vendor/ (80 dirs), then vendor/ ignored
    python3 - "$1" <<'PY'
import os, sys
root = sys.argv[1]
for i in range(8000):
    d = os.path.join(root, "vendor", "p%02d" % (i // 100))
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "f%03d.js" % (i % 100)), "w") as f:
        f.write("module.exports = %d;\n" % i * 10)
for i in range(400):
    d = os.path.join(root, "src", "d%d" % (i // 100))
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "f%03d.c" % (i % 100)), "w") as f:
        f.write("int f%d;\n" % i * 20)
PY
    git -C "$1" init -q
    commit_all "$1" init
    echo "vendor/" >"$1/.gitignore"
    commit_all "$1" ignore
    git -C "$1" gc -q
}

JOBS='['
add_job() { JOBS="$JOBS$1,"; }

for n in $SIZES; do
    echo "== building repo-$n" >&2
    make_repo "$WORK/build/repo-$n" "$n"
    echo modified >>"$WORK/build/repo-$n/src/d000/f005.txt"
    # Both are copies, so the first status in each re-hashes every file, as after a move.
    cp -a "$WORK/build/repo-$n" "$WORK/local/repo-$n"
    cp -a "$WORK/build/repo-$n" "$WORK/backing/repo-$n"
done

if [ -z "${NO_IGNORED:-}" ]; then
    echo "== building ignored-vendor" >&2
    make_ignored_repo "$WORK/build/ignored-vendor"
    cp -a "$WORK/build/ignored-vendor" "$WORK/local/ignored-vendor"
    cp -a "$WORK/build/ignored-vendor" "$WORK/backing/ignored-vendor"
fi
for n in $SIZES ignored-vendor; do
    [ "$n" = ignored-vendor ] && name=$n || name=repo-$n
    [ -d "$WORK/local/$name" ] || continue
    add_job "[\"git\", \"$name\", \"$WORK/local/$name\", \"$WORK/mnt/$name\"]"
done

FIRST_REAL=
for repo in ${REAL_REPOS:-}; do
    name=$(basename "$repo")
    [ -d "$repo/.git" ] || { echo "REAL_REPOS: $repo is not a git clone" >&2; exit 2; }
    echo "== copying $name" >&2
    cp -a "$repo" "$WORK/build/$name"
    cp -a "$WORK/build/$name" "$WORK/local/$name"
    cp -a "$WORK/build/$name" "$WORK/backing/$name"
    add_job "[\"git\", \"$name\", \"$WORK/local/$name\", \"$WORK/mnt/$name\"]"
    FIRST_REAL=${FIRST_REAL:-$name}
done
[ -n "${REAL_REPOS:-}" ] || echo "REAL_REPOS is empty: no rows for real repositories" >&2

if [ -n "${PYTHON_PROJECT:-}" ]; then
    py=$WORK/build/py-uv
    echo "== uv sync (online: fills the cache) and pip's requirements" >&2
    git clone -q "$PYTHON_PROJECT" "$py"
    # PYTHON_ALL_GROUPS=1: every dependency group is installed, as `dev` is by default (for a
    # project such as psf/requests, whose groups are `test` and `typecheck`; the copy's
    # pyproject.toml must not have a [tool.uv] table of its own).
    [ -z "${PYTHON_ALL_GROUPS:-}" ] || printf '\n[tool.uv]\ndefault-groups = "all"\n' >>"$py/pyproject.toml"
    # A project that commits no uv.lock is locked here (online), as a person adopting uv would.
    [ -f "$py/uv.lock" ] || (cd "$py" && uv lock -q)
    (cd "$py" && uv sync -q --frozen && rm -rf .venv)
    echo ".venv/" >>"$py/.git/info/exclude"
    cp -a "$py" "$WORK/local/py-uv"
    cp -a "$py" "$WORK/backing/py-uv"
    add_job "[\"uv\", \"$(basename "$PYTHON_PROJECT") (uv)\", \"$WORK/local/py-uv\", \"$WORK/mnt/py-uv\"]"
    pip=$WORK/build/py-pip
    cp -a "$py" "$pip"
    # The packages uv installs, less the project itself: both rows reinstall the same tree.
    (cd "$pip" && uv export -q --frozen --no-hashes --no-emit-project -o requirements.txt \
        && rm uv.lock && python3 -m venv .venv && .venv/bin/pip install -q -r requirements.txt \
        && rm -rf .venv)
    cp -a "$pip" "$WORK/local/py-pip"
    cp -a "$pip" "$WORK/backing/py-pip"
    # NO_PIP=1 leaves pip's rows out (on slowfs each of its reinstalls takes minutes).
    [ -n "${NO_PIP:-}" ] || add_job "[\"pip\", \"$(basename "$PYTHON_PROJECT") (pip)\", \"$WORK/local/py-pip\", \"$WORK/mnt/py-pip\"]"
fi

if [ -n "${RUST_PROJECT:-}" ]; then
    [ -d "$RUST_PROJECT/target" ] || { echo "RUST_PROJECT: $RUST_PROJECT/target is not built" >&2; exit 2; }
    rs=$WORK/build/rust-project
    git clone -q "$RUST_PROJECT" "$rs"
    echo "target/" >>"$rs/.git/info/exclude"
    cp -a "$rs" "$WORK/local/rust-project"
    cp -a "$rs" "$WORK/backing/rust-project"
    add_job "[\"target\", \"$(basename "$RUST_PROJECT")\", \"$WORK/local/rust-project\", \"$WORK/mnt/rust-project\", \"$RUST_PROJECT/target\"]"
fi

if [ -n "${NO_NODE:-}" ]; then
    echo "NO_NODE: no npm rows" >&2
elif command -v npm >/dev/null; then
    node=$WORK/build/node-project
    if [ -n "${NODE_PROJECT:-}" ]; then
        cp -a "$NODE_PROJECT" "$node"
        rm -rf "$node/node_modules"
    else
        # express 5.2's dependencies and devDependencies: 406 packages, ~6,600 files.
        mkdir -p "$node"
        cat >"$node/package.json" <<'JSON'
{"name": "accuracy-node-project", "version": "1.0.0", "private": true,
 "dependencies": {"accepts": "^2.0.0", "body-parser": "^2.2.1", "content-disposition": "^2.0.1",
  "content-type": "^2.0.0", "cookie": "^0.7.1", "cookie-signature": "^1.2.1", "debug": "^4.4.0",
  "depd": "^2.0.0", "encodeurl": "^2.0.0", "escape-html": "^1.0.3", "etag": "^1.8.1",
  "finalhandler": "^2.1.0", "fresh": "^2.0.0", "http-errors": "^2.0.0", "merge-descriptors": "^2.0.0",
  "mime-types": "^3.0.0", "on-finished": "^2.4.1", "once": "^1.4.0", "parseurl": "^1.3.3",
  "proxy-addr": "^2.0.7", "qs": "^6.15.2", "range-parser": "^1.2.1", "router": "^2.2.0",
  "send": "^1.1.0", "serve-static": "^2.2.0", "statuses": "^2.0.1", "type-is": "^2.1.0", "vary": "^1.1.2"},
 "devDependencies": {"after": "0.8.2", "connect-redis": "^8.0.1", "cookie-parser": "1.4.7",
  "cookie-session": "2.1.1", "ejs": "^3.1.10", "eslint": "8.47.0", "express-session": "^1.18.1",
  "hbs": "4.2.1", "marked": "^15.0.3", "method-override": "3.0.0", "mocha": "^11.7.5",
  "morgan": "1.11.0", "nyc": "^17.1.0", "pbkdf2-password": "1.2.1", "supertest": "^6.3.0",
  "vhost": "~3.0.2"}}
JSON
    fi
    # Online, so the cache holds every package's metadata as well as its tarball: an install
    # with --prefer-offline can leave metadata out that --offline then needs.
    echo "== npm install (online: fills the cache)" >&2
    (cd "$node" && npm install --no-audit --no-fund >/dev/null && rm -rf node_modules)
    echo "node_modules/" >"$node/.gitignore"
    git -C "$node" init -q && commit_all "$node" init
    cp -a "$node" "$WORK/local/node-project"
    cp -a "$node" "$WORK/backing/node-project"
    add_job "[\"install\", \"node-project\", \"$WORK/local/node-project\", \"$WORK/mnt/node-project\"]"
else
    echo "npm is not installed: no install rows" >&2
fi

slowfs_mount "$SLOWFS" "$WORK/slowfs.log" --profile drvfs-9p --scale "$SCALE" || exit 1
[ -n "$FIRST_REAL" ] && add_job "[\"stability\", \"$WORK/mnt/$FIRST_REAL\"]"
JOBS="${JOBS%,}]"

echo
echo "Predicted vs measured, slowfs drvfs-9p --scale $SCALE, medians of $RUNS interleaved pairs"
python3 "$BENCH/accuracy.py" "$TOOL" "$WORK" "$RUNS" "$JOBS"
