#!/usr/bin/env bash
# The long run of tests/it/sequences/interrupted.rs (issue 63): random sequences of edits,
# commits and migrate, --sync, --abort and --remove-source, some stopped by SIGINT or SIGKILL at a
# random point, each followed by what `check` at both places says to do; after every step no file
# and no commit is lost. CI runs 40 cases; this runs CASES (default 2000) and prints the counts.
#   bench/advice-followed.sh [CASES]
set -euo pipefail
cd "$(dirname "$0")/.."
cases=${1:-2000}
started=$(date +%s)
WSL_PLACE_ADVICE_CASES=$cases cargo test --release --test it \
    sequences::interrupted::following_the_advice_after_any_interrupt_loses_nothing \
    -- --nocapture 2>&1 | grep -E '^advice followed|^test result|panicked|lost|Test failed'
echo "cases: $cases in $(( $(date +%s) - started )) s"
