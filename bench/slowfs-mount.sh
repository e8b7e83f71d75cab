# Sourced by the bench scripts that mount the slowfs emulator at "$WORK/mnt" over
# "$WORK/backing". They set WORK first; PID is the emulator while it runs.
PID=

# Stops the emulator, unmounts, and removes WORK: the EXIT trap.
slowfs_cleanup() {
    if [ -n "$PID" ]; then
        kill -TERM "$PID" 2>/dev/null || true
        wait "$PID" 2>/dev/null || true
    fi
    fusermount3 -u -z "$WORK/mnt" 2>/dev/null || true
    rm -rf "$WORK"
}

# slowfs_mount BIN LOG ARGS...: starts BIN ARGS "$WORK/backing" "$WORK/mnt" in the
# background with its stderr in LOG, sets PID, and waits up to 10 s for the mount (printing
# LOG and failing when it does not appear).
slowfs_mount() {
    local bin=$1 log=$2
    shift 2
    "$bin" "$@" "$WORK/backing" "$WORK/mnt" 2>"$log" &
    PID=$!
    for _ in $(seq 200); do
        grep -q " $WORK/mnt " /proc/self/mountinfo && return 0
        sleep 0.05
    done
    cat "$log" >&2
    return 1
}
