#!/usr/bin/env bash
# The README's sample screens, rendered again by the built binary on a real tree and written
# into README.md in place: each block that follows a `<!-- readme-screen: NAME -->` line.
#
#   [SOURCE=URL|DIR] [CLONE=DIR] [SKIP_BUILD=1] bench/readme-screens.sh
#                                  (root, for FUSE; git, npm and network for the first clone)
#
# The tree is expressjs/express after `npm install` (kept in $CLONE, default
# /var/tmp/wsl-place-screens-express, and reused), served by the slowfs emulator with WSL2's
# /mnt/c latencies (--profile drvfs-9p --scale 1), as the README says. Screens, each at 110
# columns without colour, exactly as the release binary prints them:
#   check     `wsl-place --color never check .` in the repository on the mount
#   advisory  `wsl-place check --advisory .` there, the hook's line, after that check
# Figures are measured, so they move from run to run: tests/it/release.rs checks what does not
# (each marked block is there, no line is wider than 110 columns, the answer is the first line);
# the lead runs this again after merging changes to a screen. Nothing else in README.md changes.
set -euo pipefail

HERE=$(cd "$(dirname "$0")/.." && pwd)
BIN=$HERE/target/release/wsl-place
SLOWFS=$HERE/target/release/examples/slowfs
CLONE=${CLONE:-/var/tmp/wsl-place-screens-express}
# SKIP_BUILD=1 when the binaries were just built (the build may wait for a shared slot).
[ -n "${SKIP_BUILD:-}" ] || (cd "$HERE" && cargo build --release --quiet --bin wsl-place --example slowfs)

if [ ! -d "$CLONE/node_modules" ]; then
    rm -rf "$CLONE"
    git clone -q "${SOURCE:-https://github.com/expressjs/express}" "$CLONE"
    (cd "$CLONE" && npm install --silent --no-audit --no-fund >/dev/null)
fi

# A fixed, short folder, so the paths on the screens stay the same from one run to the next and
# the hook's line (at most 100 characters besides the path) fits 110 columns.
WORK=/tmp/wp
if mountpoint -q "$WORK/mnt"; then
    echo "bench/readme-screens.sh: $WORK/mnt is still mounted (another run?): unmount it, then run this again." >&2
    exit 1
fi
rm -rf "$WORK" && mkdir -p "$WORK"
# shellcheck source=bench/slowfs-mount.sh
. "$HERE/bench/slowfs-mount.sh"
trap slowfs_cleanup EXIT
trap 'exit 130' INT
mkdir -p "$WORK/backing" "$WORK/mnt" "$WORK/home" "$WORK/screens"
cp -a "$CLONE" "$WORK/backing/express"
slowfs_mount "$SLOWFS" "$WORK/slowfs.log" --profile drvfs-9p --scale 1

# A person's terminal: 110 columns, their own empty home, in the repository; npm's cache is the
# machine's (the one `npm install` above filled), as a person's would be, so the package sample
# can run offline from it.
npm_cache=$(npm config get cache)
run() {
    (cd "$WORK/mnt/express" && env -u NO_COLOR -u CLICOLOR_FORCE HOME="$WORK/home" \
        npm_config_cache="$npm_cache" \
        XDG_CACHE_HOME="$WORK/home/.cache" XDG_STATE_HOME="$WORK/home/.local/state" \
        XDG_CONFIG_HOME="$WORK/home/.config" COLUMNS=110 "$BIN" "$@")
}
# The verdict is the screen, whatever it is: `--fail-on` is not given, so the exit code is 0.
run --color never check . >"$WORK/screens/check"
run check --advisory . >"$WORK/screens/advisory"

python3 - "$HERE/README.md" "$WORK/screens" <<'PY'
import pathlib, re, sys
readme, screens = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
text = readme.read_text()
marker = re.compile(r"(<!-- readme-screen: (\w+) -->\n```\n)(.*?)(```)", re.S)
seen = set()
def fill(m):
    seen.add(m.group(2))
    shown = (screens / m.group(2)).read_text()
    return m.group(1) + shown.rstrip("\n") + "\n" + m.group(4)
text = marker.sub(fill, text)
missing = {p.name for p in screens.iterdir()} - seen
if missing:
    sys.exit(f"README.md has no `<!-- readme-screen: NAME -->` block for {sorted(missing)}")
readme.write_text(text)
print(f"README.md: {len(seen)} screens written: {', '.join(sorted(seen))}")
PY
