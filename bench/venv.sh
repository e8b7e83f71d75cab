#!/usr/bin/env bash
# A uv project's virtualenv after a migration: what pointing it at the new place costs, against
# recreating it (`uv sync --offline`) and against `cp -a` of the same tree; and the bar: after
# `migrate --yes` the editable install imports the copy's code and `activate` names the copy
# (exits 1 otherwise).
#
#   bench/venv.sh [RUNS]                   # default 5; BENCH_DIR=/var/tmp to work elsewhere
#
# The project: a `src/` layout with a console script, built by uv's own backend (offline, no
# index), installed editable by `uv sync`; PROJECT=DIR uses a uv project of yours instead (copied,
# never changed; its packages must be in uv's cache for the offline recreate).
# Each run, on the local disk: `cp -a` of the tree; `wsl-place migrate --yes --format json` of
# it (copy, CRC32 read-back, fix-ups), with the virtualenv fix-up's own milliseconds read from
# its `fixups.done` line; and `rm -rf .venv && uv sync --offline` in a copy. Medians printed.
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${1:-5}
BENCH_DIR=${BENCH_DIR:-${TMPDIR:-/tmp}}
for tool in uv python3 cp; do
    command -v "$tool" >/dev/null || { echo "bench/venv.sh needs $tool" >&2; exit 2; }
done
[ -n "${SKIP_BUILD:-}" ] || cargo build --release --quiet --bin wsl-place
BIN=$PWD/target/release/wsl-place
WORK=$(mktemp -d "$BENCH_DIR/wsl-place-venv.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
trap 'exit 130' INT
export HOME=$WORK/home XDG_CACHE_HOME=$WORK/home/.cache UV_PYTHON_DOWNLOADS=never
mkdir -p "$HOME"

src=$WORK/app
if [ -n "${PROJECT:-}" ]; then
    cp -a "$PROJECT" "$src"
else
    mkdir -p "$src/src/pkg"
    cat >"$src/pyproject.toml" <<'TOML'
[project]
name = "pkg"
version = "0.1.0"
requires-python = ">=3.8"
dependencies = []

[project.scripts]
pkg-hello = "pkg:main"

[build-system]
requires = ["uv_build>=0.7"]
build-backend = "uv_build"
TOML
    printf 'def main():\n    print("hello")\n' >"$src/src/pkg/__init__.py"
fi
(cd "$src" && uv sync -q)

ms() { echo $(( $(date +%s%N) / 1000000 )); }
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
: >"$WORK/cp" ; : >"$WORK/migrate" ; : >"$WORK/fixup" ; : >"$WORK/recreate"
for i in $(seq "$RUNS"); do
    t=$(ms); cp -a "$src" "$WORK/cp-$i"; echo $(( $(ms) - t )) >>"$WORK/cp"
    t=$(ms)
    "$BIN" migrate "$src" --to "$WORK/moved-$i" --yes --format json >"$WORK/result-$i.json" 2>/dev/null
    echo $(( $(ms) - t )) >>"$WORK/migrate"
    python3 - "$WORK/result-$i.json" >>"$WORK/fixup" <<'PY'
import json, re, sys
done = json.load(open(sys.argv[1]))["fixups"]["done"]
print(sum(int(m.group(1)) for d in done if "virtualenv" in d for m in [re.search(r"\((\d+) ms\)", d)] if m))
PY
    t=$(ms); (cd "$WORK/cp-$i" && rm -rf .venv && uv sync -q --offline); echo $(( $(ms) - t )) >>"$WORK/recreate"
    # The bar: the copy's virtualenv imports the copy's code, and activate names the copy.
    moved=$WORK/moved-$i
    got=$("$moved/.venv/bin/python" -c 'import pkg; print(pkg.__file__)')
    case $got in "$moved"/*) ;; *) echo "FAIL: import pkg gives $got, not a file in $moved" >&2; exit 1 ;; esac
    grep -q "^VIRTUAL_ENV=['\"]\\?$moved/.venv" "$moved/.venv/bin/activate" \
        || { echo "FAIL: $moved/.venv/bin/activate does not name the copy" >&2; exit 1; }
    if grep -rIlF "$src" "$moved/.venv" >/dev/null; then
        echo "FAIL: text files in $moved/.venv still name $src" >&2; exit 1
    fi
done
echo "runs: $RUNS, $(find "$src" -type f | wc -l) files, .venv $(du -sh "$src/.venv" | cut -f1) (medians, ms)"
echo "  cp -a of the tree:                 $(median <"$WORK/cp")"
echo "  wsl-place migrate --yes (all):     $(median <"$WORK/migrate")"
echo "  of which the virtualenv rewrite:   $(median <"$WORK/fixup")"
echo "  uv sync --offline (recreate):      $(median <"$WORK/recreate")"
echo "bar: editable import and activate name the copy in every run: ok"
