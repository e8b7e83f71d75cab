#!/usr/bin/env bash
# The screens issue 39's closing note shows, from one unattended run: a real repository
# (expressjs/express after `npm install`) on the slowfs emulator (drvfs-9p, scale 1), its
# `check` screen at 110 columns and 40 rows with its line count, then the old place after a
# migration: `check`, the hook's line (`check --advisory`) and the shell nudge's line, before
# and after an edit there, and after `--sync`.
#
#   [SOURCE=URL|DIR] bench/screens.sh    (root, for FUSE; git, npm and network for the first clone)
#
# SOURCE is what is cloned (default https://github.com/expressjs/express; a local clone of it
# works too, where github.com is out of reach); `npm install` then fetches its dependencies.
# The clone and its node_modules are kept in $CLONE (default /var/tmp/wsl-place-screens-express)
# and reused; the emulator's backing folder, the home (cache, state, the copy) and the mount live
# in a temporary folder under /var/tmp, removed at the end. Nothing is written to this repository.
set -euo pipefail

HERE=$(cd "$(dirname "$0")/.." && pwd)
# BIN and SLOWFS name binaries already built (a debug build, say); else the release ones are
# built here, through `slot` where the machine gates builds with it.
CLONE=${CLONE:-/var/tmp/wsl-place-screens-express}
if [ -z "${BIN:-}" ] || [ -z "${SLOWFS:-}" ]; then
    BIN=$HERE/target/release/wsl-place
    SLOWFS=$HERE/target/release/examples/slowfs
    GATE=$(command -v slot || true)
    (cd "$HERE" && $GATE cargo build --release --quiet && $GATE cargo build --release --quiet --example slowfs)
fi

if [ ! -d "$CLONE/node_modules" ]; then
    rm -rf "$CLONE"
    git clone -q "${SOURCE:-https://github.com/expressjs/express}" "$CLONE"
    (cd "$CLONE" && npm install --silent --no-audit --no-fund >/dev/null)
fi

WORK=$(mktemp -d /var/tmp/wsl-place-screens.XXXXXX)
# shellcheck source=bench/slowfs-mount.sh
. "$HERE/bench/slowfs-mount.sh"
trap slowfs_cleanup EXIT
trap 'exit 130' INT
mkdir -p "$WORK/backing" "$WORK/mnt" "$WORK/home/.config/wsl-place" "$WORK/home/.local/state"
cp -a "$CLONE" "$WORK/backing/express"
slowfs_mount "$SLOWFS" "$WORK/slowfs.log" --profile drvfs-9p --scale 1
OLD=$WORK/mnt/express
NEW=$WORK/home/src/express
# The nudge on every visit, as a person who wants to see it each time sets it.
echo "nudge_every_hours = 0" >"$WORK/home/.config/wsl-place/config.toml"

# A person's terminal: 110 columns, 40 rows, their own home, no colour in a pasted note.
run() {
    env -u NO_COLOR HOME="$WORK/home" XDG_CACHE_HOME="$WORK/home/.cache" \
        XDG_STATE_HOME="$WORK/home/.local/state" XDG_CONFIG_HOME="$WORK/home/.config" \
        COLUMNS=110 LINES=40 NO_COLOR=1 "$@"
}
# shows TITLE CMD...: the command line as typed, then what it printed (stdout and stderr).
shows() {
    local title=$1
    shift
    echo
    echo "### $title"
    echo "\$ ${*/#$BIN/wsl-place}"
    run "$@" 2>&1 || echo "(exit $?)"
}
# The shell nudge's line, as the hook runs it before a prompt in the old place.
nudge() { (cd "$OLD" && run "$BIN" __nudge) || true; }

echo "machine: $(uname -sr), not WSL: slowfs emulates drvfs-9p at scale 1; load $(cut -d' ' -f1 /proc/loadavg)"
echo "repository: expressjs/express $(git -C "$CLONE" rev-parse --short HEAD), $(git -C "$CLONE" ls-files | wc -l) tracked files, node_modules installed"

echo
echo "### check at 110x40 (first check: hook's first look beforehand, as a cd would start it)"
run "$BIN" check --advisory "$OLD" >/dev/null 2>&1 || true
screen=$(run "$BIN" check "$OLD" 2>&1 || true)
echo "\$ wsl-place check $OLD"
echo "$screen"
echo "(${#screen} characters, $(printf '%s\n' "$screen" | wc -l) lines; a 40-row terminal shows 40)"

echo
echo "### migrate (its output left out here: mscreen's screens)"
if run "$BIN" migrate "$OLD" --to "$NEW" --yes >"$WORK/migrate.log" 2>&1; then
    echo "migrated to $NEW"
else
    echo "migrate failed:"
    cat "$WORK/migrate.log"
    exit 1
fi

old_place() {
    shows "check at the old place, $1" "$BIN" check "$OLD"
    shows "hook line at the old place, $1" "$BIN" check --advisory "$OLD"
    echo
    echo "### nudge at the old place, $1"
    nudge
}

old_place "right after the move"
echo "edited" >>"$OLD/Readme.md"
echo "new" >"$OLD/notes.txt"
sleep 1
old_place "after an edit and a new file there"
shows "sync" "$BIN" migrate "$OLD" --sync --yes
old_place "after --sync"
echo
echo "load after: $(cut -d' ' -f1 /proc/loadavg)"
