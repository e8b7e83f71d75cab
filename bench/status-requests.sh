#!/usr/bin/env bash
# What one `git status` asks of the file system, counted rather than timed, so a loaded machine
# cannot move it: each clone is copied onto the slowfs emulator (drvfs-9p, --scale SCALE, with
# --stats) and the FUSE requests of one plain `git status` there are counted (SIGUSR1 before and
# after), then priced at the emulator's own per-request latencies (`emu_ms`: the serial work git
# waits for, without the emulator's real round trips or any scheduling delay). Beside it: the
# tool's `git status` prediction, and the same prediction rebuilt from the counts'
# per-request latencies (`model_ms`), so the model's call counting is checked without timing.
# Then on the Linux disk: `git --version` and `git status` interleaved RUNS times with git at a
# real-time priority (chrt -f; the quietest this shared machine gets), medians, and the tool's
# prediction.
#
# Used for GIT_STATUS_FIXED_CALLS and GIT_SETUP_STARTUPS (src/model/git_status.rs) on
# koajs/koa, psf/requests, hynek/structlog, expressjs/express, unjs/h3, pallets/werkzeug and
# tokio-rs/tokio; the held-out projects of docs/accuracy.md are the check.
#
# Usage (root: FUSE and chrt): bench/status-requests.sh CLONE...   (clones of public projects)
#   TOOL=target/release/wsl-place SLOWFS=target/release/examples/slowfs SCALE=0.2 RUNS=21
set -euo pipefail
TOOL=${TOOL:-target/release/wsl-place}
SLOWFS=${SLOWFS:-target/release/examples/slowfs}
SCALE=${SCALE:-0.2}
RUNS=${RUNS:-21}
TOOL=$(realpath "$TOOL")
SLOWFS=$(realpath "$SLOWFS")
WORK=$(mktemp -d /var/tmp/status-requests.XXXXXX)
. "$(dirname "$0")/slowfs-mount.sh"
trap slowfs_cleanup EXIT
mkdir -p "$WORK/backing" "$WORK/mnt" "$WORK/home"
for clone in "$@"; do cp -a "$clone" "$WORK/backing/"; done
slowfs_mount "$SLOWFS" "$WORK/slowfs.log" --profile drvfs-9p --scale "$SCALE" --stats
sleep 1.1 # past the copy's second: no racily clean entries
for clone in "$@"; do git -C "$WORK/mnt/$(basename "$clone")" status >/dev/null; done

HOME="$WORK/home" SPID=$PID WORK=$WORK TOOL=$TOOL SCALE=$SCALE RUNS=$RUNS \
    chrt -f 50 python3 - "$@" <<'EOF'
import json, os, re, statistics, subprocess, sys, time

work, tool, scale = os.environ["WORK"], os.environ["TOOL"], float(os.environ["SCALE"])
# drvfs-9p at scale 1, ms per request (examples/slowfs/latency.rs).
MS = dict(lookup=.83, getattr=.57, readlink=.6, open=.1, read=.1, write=2.6, flush=.1,
          release=.1, opendir=.8, readdir=1.5, releasedir=.1, access=.6, create=10.0,
          unlink=1.2, rename=3.0, setattr=1.0, statfs=.6)
LOOKUP, GETATTR = MS["lookup"] * scale, MS["getattr"] * scale


def stats():
    os.kill(int(os.environ["SPID"]), 10)
    time.sleep(0.25)
    line = [l for l in open(f"{work}/slowfs.log") if "stats:" in l][-1]
    return {k: int(v) for k, v in re.findall(r"(\w+)=(\d+)", line)}


def predict(d):
    out = subprocess.run([tool, "check", "--format", "json", d], capture_output=True, text=True)
    j = json.loads(out.stdout)
    return j["predict"]["git_status_ms"]["current"], j["predict"]["inputs"]


def timed(cmd, cwd):
    t0 = time.monotonic()
    subprocess.run(cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return (time.monotonic() - t0) * 1000


print("| repository | tracked | walked dirs | FUSE requests | lookups | emu_ms | slowfs predicted | "
      "ext4 git --version | ext4 git status | ext4 predicted | error |")
print("|---|---|---|---|---|---|---|---|---|---|---|")
for clone in sys.argv[1:]:
    name = os.path.basename(clone.rstrip("/"))
    slow = f"{work}/mnt/{name}"
    stats()
    subprocess.run(["git", "status"], cwd=slow, stdout=subprocess.DEVNULL)
    c = stats()
    emu = sum(MS.get(k, 0) * scale * v for k, v in c.items())
    slow_pred, inputs = predict(slow)
    version, status = [], []
    for _ in range(int(os.environ["RUNS"])):
        version.append(timed(["git", "--version"], clone))
        status.append(timed(["git", "status"], clone))
    ext4_pred, _ = predict(clone)
    v, s = statistics.median(version), statistics.median(status)
    print(f"| {name} | {inputs['tracked']} | {inputs['worktree_dirs']} | {sum(c.values())} | "
          f"{c.get('lookup', 0)} | {emu:.1f} ms | {slow_pred:.1f} ms | {v:.2f} ms | {s:.2f} ms | "
          f"{ext4_pred:.2f} ms | {(ext4_pred / s - 1) * 100:+.0f}% |")
EOF
