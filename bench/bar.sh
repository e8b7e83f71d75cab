#!/usr/bin/env bash
# The bar for the predictions on the local disk, three ratios in one run (bench/bar.py):
# a real uv project's reinstall predicted over real, the first `git status` after a copy of a
# mixed repository predicted over real, and one `check` over one `git status` on a repository
# of about 3,000 files. Exits 1 when a ratio misses its bound.
#
# Usage: PYTHON_PROJECT=DIR [PYTHON_ALL_GROUPS=1] MIXED_REPO=DIR REPO_3000=DIR bench/bar.sh [RUNS]
#        (default 5 runs; the three are clones on the local disk, copied, never changed;
#        PYTHON_PROJECT has a pyproject.toml, locked here when it has no uv.lock, its packages
#        fetched once online into a private cache; needs git, uv, python3)
# Run it on a quiet machine (1-minute load under ~1.5): the load is printed before and after.
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${1:-5}
: "${PYTHON_PROJECT:?set PYTHON_PROJECT to a Python project clone (pyproject.toml)}"
: "${MIXED_REPO:?set MIXED_REPO to a repository clone of mixed files}"
: "${REPO_3000:?set REPO_3000 to a repository clone of about 3,000 files}"

cargo build --release --quiet --bin wsl-place
TOOL=$PWD/target/release/wsl-place
WORK=$(mktemp -d "${WORK:-/var/tmp}/wsl-place-bar.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
trap 'exit 130' INT
# A private cache for the tool (its mount and manager figures are measured in this run) and for
# uv (filled online below, then read offline).
mkdir -p "$WORK/cache"
. bench/disk.sh
disk_note "$WORK"
export XDG_CACHE_HOME=$WORK/cache

py=$WORK/uv-project
git clone -q "$PYTHON_PROJECT" "$py"
# PYTHON_ALL_GROUPS=1: every dependency group is installed (as bench/accuracy.sh does).
[ -z "${PYTHON_ALL_GROUPS:-}" ] || printf '\n[tool.uv]\ndefault-groups = "all"\n' >>"$py/pyproject.toml"
[ -f "$py/uv.lock" ] || (cd "$py" && uv lock -q)
(cd "$py" && uv sync -q --frozen --no-install-project && rm -rf .venv)
echo ".venv/" >>"$py/.git/info/exclude"

python3 bench/bar.py "$TOOL" "$WORK" "$RUNS" "$py" "$MIXED_REPO" "$REPO_3000" "$(basename "$PYTHON_PROJECT")"
