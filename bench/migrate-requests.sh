#!/usr/bin/env bash
# What copying a tree off a slow mount asks of it, counted rather than timed, so a loaded
# machine cannot move it: REPO is copied onto the slowfs emulator (drvfs-9p, --scale SCALE,
# with --stats) and the FUSE requests of one `cp -a`, one `migrate --yes` (BIN) and, with
# BEFORE=older binary, the older `migrate --yes` are counted (SIGUSR1 before and after), each
# per entry of the tree (files, folders and symlinks), by request kind, and priced at the
# emulator's own per-request latencies at scale 1 (`emu`: the serial work, without overlap).
#
# Usage (root: FUSE): bench/migrate-requests.sh REPO
#   BIN=target/release/wsl-place BEFORE=path/to/older/wsl-place SLOWFS=target/release/examples/slowfs
#   SCALE=0.1 (the counts do not depend on it; a small scale keeps the run short)
set -euo pipefail
REPO=$(realpath "${1:?usage: bench/migrate-requests.sh REPO}")
BIN=$(realpath "${BIN:-target/release/wsl-place}")
BEFORE=${BEFORE:+$(realpath "$BEFORE")}
SLOWFS=$(realpath "${SLOWFS:-target/release/examples/slowfs}")
SCALE=${SCALE:-0.1}
WORK=$(mktemp -d "${BENCH_DIR:-/var/tmp}/migrate-requests.XXXXXX")
. "$(dirname "$0")/slowfs-mount.sh"
trap slowfs_cleanup EXIT
mkdir -p "$WORK/backing" "$WORK/mnt"
name=$(basename "$REPO")
cp -a "$REPO" "$WORK/backing/$name"
slowfs_mount "$SLOWFS" "$WORK/slowfs.log" --profile drvfs-9p --scale "$SCALE" --stats

SPID=$PID WORK=$WORK SRC="$WORK/mnt/$name" BIN=$BIN BEFORE=$BEFORE python3 - <<'EOF'
import os, re, shutil, subprocess, time

work, src = os.environ["WORK"], os.environ["SRC"]
# drvfs-9p at scale 1, ms per request (examples/slowfs/latency.rs).
MS = dict(lookup=.83, getattr=.57, readlink=.6, open=.1, read=.1, write=2.6, flush=.1,
          release=.1, opendir=.8, readdir=1.5, releasedir=.1, access=.6, create=10.0,
          unlink=1.2, rename=3.0, setattr=1.0, statfs=.6)


def stats():
    os.kill(int(os.environ["SPID"]), 10)
    time.sleep(0.3)
    line = [l for l in open(f"{work}/slowfs.log") if "stats:" in l][-1]
    return {k: int(v) for k, v in re.findall(r"(\w+)=(\d+)", line)}


entries = sum(len(d) + len(f) for _, d, f in os.walk(os.path.join(work, "backing",
                                                                   os.path.basename(src))))
tools = [("cp -a", ["cp", "-a", src]), ("migrate --yes", [os.environ["BIN"], "migrate", src,
                                                          "--yes", "--format", "json", "--to"])]
if os.environ["BEFORE"]:
    tools.append(("before", [os.environ["BEFORE"], "migrate", src, "--yes", "--format", "json",
                             "--to"]))
print(f"{entries} entries; FUSE requests per entry (emu_ms: priced at scale 1, serial)")
for label, cmd in tools:
    dest = os.path.join(work, "dst")
    shutil.rmtree(dest, ignore_errors=True)
    os.makedirs(dest)
    stats()  # each report resets the counts: this one drops what came before
    subprocess.run(cmd + [os.path.join(dest, "copy")], check=True, stdout=subprocess.DEVNULL)
    diff = stats()
    total = sum(diff.values())
    emu = sum(MS.get(k, 0) * v for k, v in diff.items())
    kinds = " ".join(f"{k}={v / entries:.2f}" for k, v in sorted(diff.items()) if v)
    print(f"  {label:14} {total / entries:5.2f} per entry ({total}), emu {emu / 1000:.1f} s: {kinds}")
shutil.rmtree(os.path.join(work, "dst"), ignore_errors=True)
EOF
