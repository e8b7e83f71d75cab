# Sourced by the bench scripts that build synthetic git repositories.

# commit_all DIR MESSAGE: commits everything in DIR, with no background gc or maintenance to
# disturb the timings.
commit_all() {
    git -C "$1" add -A
    git -C "$1" -c gc.auto=0 -c maintenance.auto=false -c user.name=bench -c user.email=bench@example.invalid commit -q -m "$2"
}

# make_repo DIR FILES: FILES tracked files of about 160 bytes under DIR/src, in directories of
# 100, committed and packed as a clone is (LOOSE=1 keeps the objects loose: ten thousand loose
# objects would be a repository nobody has, but the scan then lstats them in .git).
make_repo() {
    python3 - "$1" "$2" <<'PY'
import os, sys
root, n = sys.argv[1], int(sys.argv[2])
for i in range(n):
    d = os.path.join(root, "src", "d%03d" % (i // 100))
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "f%03d.txt" % (i % 100)), "w") as f:
        f.write("file %d\n" % i * 20)
PY
    git -C "$1" init -q
    commit_all "$1" init
    [ "${LOOSE:-0}" = 1 ] || git -C "$1" gc -q
}
