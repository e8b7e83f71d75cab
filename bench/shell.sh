#!/usr/bin/env bash
# What `wsl-place init` adds to each change of directory, against the same shell without it.
#
# For each shell (bash; zsh and fish when installed) and each pair of directories, a loop of
# N changes of directory, each followed by what the shell does before its next prompt (bash:
# `eval "$PROMPT_COMMAND"`, zsh: the precmd functions, fish: `emit fish_prompt`), timed inside
# the shell; once with the hook loaded and once without (the peer: a plain shell), RUNS times
# interleaved so the machine's changing pace moves both alike. Prints medians in ms per `cd`
# and the difference, which is the hook's cost.
#
# Pairs: two folders on the local disk (the hook stops at the mount table); a git repository on the
# slowfs emulator (drvfs-9p profile, --scale SCALE) with a cached answer already shown today
# (the cache and the state file; nothing printed); and two folders of that mount outside
# any repository (looked at upward once, then remembered).
#
# Usage: bench/shell.sh [N] [RUNS] [SCALE]   (defaults 200, 7, 1; needs /dev/fuse, fusermount3,
#        git, python3; WORK=DIR to build somewhere else than /var/tmp)
set -euo pipefail
cd "$(dirname "$0")/.."
N=${1:-200}
RUNS=${2:-7}
SCALE=${3:-1}

cargo build --release --bin wsl-place --example slowfs >&2
TOOL=$PWD/target/release/wsl-place
SLOWFS=$PWD/target/release/examples/slowfs

WORK=$(mktemp -d "${WORK:-/var/tmp}/wsl-place-shell.XXXXXX")
. bench/slowfs-mount.sh
. bench/repos.sh
trap slowfs_cleanup EXIT
mkdir -p "$WORK/local/a" "$WORK/local/b" "$WORK/backing/plain/a" "$WORK/backing/plain/b" "$WORK/mnt"
make_repo "$WORK/backing/app" 200
slowfs_mount "$SLOWFS" "$WORK/slowfs.log" --profile drvfs-9p --scale "$SCALE" || exit 1

export XDG_CACHE_HOME=$WORK/cache XDG_CONFIG_HOME=$WORK/config
# The cached answer a hook or a full check leaves, and the day's nudge already shown.
"$TOOL" check --advisory "$WORK/mnt/app"
(cd "$WORK/mnt/app" && "$TOOL" __nudge)

SHELLS=(bash)
command -v zsh >/dev/null && SHELLS+=(zsh)
command -v fish >/dev/null && SHELLS+=(fish)

python3 - "$N" "$RUNS" "$TOOL" "$WORK" "${SHELLS[@]}" <<'PY'
import statistics, subprocess, sys
n, runs, tool, work = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4]
shells = sys.argv[5:]
pairs = {
    "local disk": (f"{work}/local/a", f"{work}/local/b"),
    "slowfs repository": (f"{work}/mnt/app", f"{work}/mnt/app/src"),
    "slowfs, no repository": (f"{work}/mnt/plain/a", f"{work}/mnt/plain/b"),
}
# Each prints the nanoseconds its loop took; `date` runs once before and once after.
loops = {
    "bash": ('{load}\nt0=$(date +%s%N)\nfor ((i=0; i<{n}; i++)); do cd "$A"; eval "${{PROMPT_COMMAND-}}"; '
             'cd "$B"; eval "${{PROMPT_COMMAND-}}"; done\necho $(( $(date +%s%N) - t0 ))',
             'eval "$({tool} init bash)"'),
    "zsh": ('{load}\nt0=$(date +%s%N)\nfor ((i=0; i<{n}; i++)); do cd "$A"; for f in $precmd_functions; do $f; done; '
            'cd "$B"; for f in $precmd_functions; do $f; done; done\necho $(( $(date +%s%N) - t0 ))',
            'eval "$({tool} init zsh)"'),
    "fish": ('{load}\nset t0 (date +%s%N)\nfor i in (seq {n}); cd "$A"; emit fish_prompt; cd "$B"; emit fish_prompt; end\n'
             'math (date +%s%N) - $t0',
             '{tool} init fish | source'),
}
argv = {"bash": ["bash", "--norc", "--noprofile", "-c"], "zsh": ["zsh", "-f", "-c"],
        "fish": ["fish", "--no-config", "-c"]}
def per_cd(shell, hooked, a, b):
    body, load = loops[shell]
    script = body.format(load=load.format(tool=tool) if hooked else "", n=n)
    out = subprocess.run(argv[shell] + [script], check=True, capture_output=True, text=True,
                         env={**__import__("os").environ, "A": a, "B": b}).stdout
    return int(out.strip().split()[-1]) / (2 * n) / 1e6
print(f"ms per cd, median of {runs} interleaved runs of {2 * n} cds")
print(f"{'shell':6} {'directories':24} {'plain':>8} {'hooked':>8} {'added':>8}")
for shell in shells:
    for name, (a, b) in pairs.items():
        plain, hooked = [], []
        for _ in range(runs):
            plain.append(per_cd(shell, False, a, b))
            hooked.append(per_cd(shell, True, a, b))
        p, h = statistics.median(plain), statistics.median(hooked)
        print(f"{shell:6} {name:24} {p:8.3f} {h:8.3f} {h - p:8.3f}", flush=True)
PY
