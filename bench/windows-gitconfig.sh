#!/usr/bin/env bash
# The bar for the Windows half's one write (docs/windows.md): on a fixture WSL host (a fixture
# /proc whose drive mount is a real folder shaped like C:\, with Git for Windows installed and a
# .gitconfig of CRLF lines and other content), `migrate --yes` must add exactly the copy's two
# safe.directory lines, which git itself must read back beside the file's own; a second run must
# add nothing; `migrate --abort` must restore the file byte for byte. Timed against the peer, two
# `git config --file F --add safe.directory` on a copy of the same file. Exits 1 when a check fails.
#
# Usage: bench/windows-gitconfig.sh [RUNS]   (default 5; needs git and python3)
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${1:-5}
cargo build --release --quiet --bin wsl-place
TOOL=$PWD/target/release/wsl-place
WORK=$(mktemp -d "${WORK:-/var/tmp}/wsl-place-gitconfig.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
trap 'exit 130' INT

drive=$WORK/c
profile=$drive/Users/me
mkdir -p "$profile/AppData/Local/GitHubDesktop" "$drive/Program Files/Git/cmd" "$WORK/proc/self" \
    "$WORK/proc/sys/fs/binfmt_misc" "$WORK/home"
: >"$drive/Program Files/Git/cmd/git.exe"
echo "Linux version 5.15.167.4-microsoft-standard-WSL2 (root@x) #1 SMP" >"$WORK/proc/version"
cat >"$WORK/proc/self/mountinfo" <<EOF
61 66 8:48 / / rw,relatime - ext4 /dev/sdd rw
66 61 0:63 / $drive rw,noatime - 9p C:\\134 rw,aname=drvfs;path=C:\\134;uid=1000;gid=1000
EOF
# Windows' global config: CRLF, 200 sections of other content, no line ending at the end.
python3 - "$profile/.gitconfig" <<'EOF'
import sys
lines = ["[user]", "\tname = Me Myself", "\temail = me@example.com", "[core]", "\tautocrlf = true"]
for i in range(200):
    lines += [f'[alias "a{i}"]', f"\tcmd = log --oneline -n {i}"]
lines += ["[safe]", "\tdirectory = D:/work/other"]
open(sys.argv[1], "wb").write("\r\n".join(lines).encode())
EOF
cp "$profile/.gitconfig" "$WORK/before"

run() {
    env -u WSL_INTEROP HOME="$WORK/home" XDG_CACHE_HOME="$WORK/home/.cache" \
        WSL_PLACE_PROC_ROOT="$WORK/proc" WSL_DISTRO_NAME=Ubuntu USER=me NO_COLOR=1 \
        "$TOOL" migrate "$@"
}
ms() { python3 -c 'import time; print(time.perf_counter() * 1000)'; }
fail() { echo "FAIL: $*" >&2; exit 1; }

edit_ms=()
peer_ms=()
for run_number in $(seq "$RUNS"); do
    src=$profile/src/app$run_number
    dest=$WORK/home/src/app$run_number
    mkdir -p "$src" && echo a >"$src/a.txt"
    start=$(ms)
    run "$src" --to "$dest" --yes --quiet
    edit_ms+=("$(python3 -c "print($(ms) - $start)")")
    # Exactly the old bytes, then the two lines, CRLF; and git reads all three entries.
    python3 - "$WORK/before" "$profile/.gitconfig" "Ubuntu$dest" <<'EOF' || fail "the edit is not exactly the two lines"
import sys
before, after, tail = open(sys.argv[1], "rb").read(), open(sys.argv[2], "rb").read(), sys.argv[3]
block = (f"\r\n[safe]\r\n\tdirectory = %(prefix)///wsl.localhost/{tail}\r\n"
         f"\tdirectory = %(prefix)///wsl$/{tail}\r\n").encode()
sys.exit(0 if after == before + block else 1)
EOF
    [ "$(git config --file "$profile/.gitconfig" --get-all safe.directory | wc -l)" = 3 ] ||
        fail "git does not read the three safe.directory entries"
    cp "$profile/.gitconfig" "$WORK/after"
    run "$src" --to "$dest" --yes --quiet
    cmp -s "$profile/.gitconfig" "$WORK/after" || fail "a second run changed the file"
    run "$src" --to "$dest" --abort --quiet
    cmp -s "$profile/.gitconfig" "$WORK/before" || fail "--abort did not restore the file byte for byte"

    cp "$WORK/before" "$WORK/peer"
    start=$(ms)
    git config --file "$WORK/peer" --add safe.directory "%(prefix)///wsl.localhost/Ubuntu$dest"
    git config --file "$WORK/peer" --add safe.directory "%(prefix)///wsl\$/Ubuntu$dest"
    peer_ms+=("$(python3 -c "print($(ms) - $start)")")
done

python3 - "${edit_ms[*]}" "${peer_ms[*]}" <<'EOF'
import statistics, sys
edit = statistics.median(map(float, sys.argv[1].split()))
peer = statistics.median(map(float, sys.argv[2].split()))
print(f"edit, rerun and --abort: every byte as required ({len(sys.argv[1].split())} runs)")
print(f"migrate --yes of a 1-file repository with the edit: {edit:.1f} ms (median)")
print(f"peer, two `git config --file --add`: {peer:.1f} ms (median)")
EOF
