#!/usr/bin/env bash
# Issue 52's bar for the package manager's sample: a real npm project of the issue's shape
# (chokidar 2.1.8, express 4.21.2, webpack 4.47.0: 414 packages, 3,896 files; its lock lists
# macOS's fsevents and its nan, which npm never downloads on Linux), checked after a
# one-package project (is-number) on the same machine, predicted against the real reinstall
# (`rm -rf node_modules && npm ci --offline`, median of RUNS). Three cases per binary, each with
# an empty wsl-place cache:
#   bar       check tiny, then big (installed): big's predicted reinstall vs the real one
#   lockonly  check tiny, then a clone of big with its lock alone (no node_modules)
#   uncached  npm's cache empty: check tiny, then big; the second check's manager phase is
#             what a failed sample costs (issue 54 bar w4o)
#
#   [WORK=/var/tmp/sample-bar] bench/sample-bar.sh RUNS BIN [BIN...]
#
# BIN are wsl-place binaries to compare (e.g. one built from main and one from this branch).
# The projects are installed from the registry once into WORK (never committed); HOME is
# WORK/home, so npm's cache holds exactly what their installs fetched.
set -euo pipefail

RUNS=${1:?usage: bench/sample-bar.sh RUNS BIN [BIN...]}
shift
WORK=${WORK:-/var/tmp/sample-bar}
mkdir -p "$WORK"
export HOME=$WORK/home
mkdir -p "$HOME"
export npm_config_audit=false npm_config_fund=false npm_config_update_notifier=false

# A git repository with a package.json naming DEPS (JSON object), installed once.
project() {
    local name=$1 deps=$2 dir=$WORK/$1
    if [ ! -d "$dir/node_modules" ]; then
        rm -rf "$dir"
        mkdir -p "$dir"
        printf '{"name":"%s","version":"1.0.0","private":true,"dependencies":%s}\n' "$name" "$deps" >"$dir/package.json"
        printf 'node_modules/\n' >"$dir/.gitignore"
        (cd "$dir" && npm install --ignore-scripts --loglevel=error >/dev/null &&
            git init -q && git add -A && git -c user.name=b -c user.email=b@b commit -qm init)
    fi
    echo "$dir"
}

big=$(project big '{"chokidar":"2.1.8","express":"4.21.2","webpack":"4.47.0"}')
tiny=$(project tiny '{"is-number":"7.0.0"}')
lockonly=$WORK/lockonly
[ -d "$lockonly" ] || git clone -q "$big" "$lockonly"
echo "big: $(find "$big/node_modules" -type f | wc -l) files; lock-only clone: $lockonly"

# The real reinstall, RUNS times in a copy of big: the median in ms.
real=$WORK/real
rm -rf "$real" && cp -a "$big" "$real"
times=()
for _ in $(seq "$RUNS"); do
    rm -rf "$real/node_modules"
    start=$(date +%s%N)
    (cd "$real" && npm ci --offline --loglevel=error >/dev/null)
    times+=($((($(date +%s%N) - start) / 1000000)))
done
real_ms=$(printf '%s\n' "${times[@]}" | sort -n | sed -n "$(((RUNS + 1) / 2))p")
echo "real npm ci --offline of big: ${times[*]} ms, median $real_ms ms (load $(cut -d' ' -f1 /proc/loadavg))"

# One check's figures as a line: install prediction, manager source, sample, phase.
figures() {
    python3 -c '
import json, sys
r = json.load(sys.stdin)
p = r.get("predict") or {}
m = p.get("install_manager") or {}
i = (p.get("install_ms") or {}).get("current")
real = float(sys.argv[1])
vs = "" if i is None or real <= 0 else " (%+.0f%% vs real)" % (100 * (i / real - 1))
why = m.get("sample_failed") or m.get("sample_not_shared") or ""
print("install %s ms%s; manager %s, sample %s pkgs from %s, uncached %s; manager phase %s ms%s" % (
    "-" if i is None else round(i), vs, m.get("source"), m.get("sample_packages"),
    m.get("sample_source", "-"), m.get("sample_uncached", 0),
    (r.get("phases") or {}).get("manager_ms"), ("; " + why[:110]) if why else ""))
' "$1"
}

check() {
    local bin=$1 cache=$2 dir=$3 real=$4
    XDG_CACHE_HOME=$cache "$bin" check --format json --probe-budget-ms 300 "$dir" | figures "$real"
}

for bin in "$@"; do
    echo "== $bin"
    for case in bar lockonly uncached; do
        cache=$WORK/cache-$case
        rm -rf "$cache"
        target=$big
        [ "$case" = lockonly ] && target=$lockonly
        if [ "$case" = uncached ]; then
            # The same projects on a machine whose npm cache is empty.
            mv "$HOME/.npm" "$HOME/.npm-kept"
            trap 'mv "$HOME/.npm-kept" "$HOME/.npm" 2>/dev/null || true' EXIT
        fi
        echo "$case, tiny first: $(check "$bin" "$cache" "$tiny" 0)"
        echo "$case, then big:   $(check "$bin" "$cache" "$target" "$real_ms")"
        if [ "$case" = uncached ]; then
            rm -rf "$HOME/.npm"
            mv "$HOME/.npm-kept" "$HOME/.npm"
            trap - EXIT
        fi
    done
done
echo "load after: $(cut -d' ' -f1 /proc/loadavg)"
