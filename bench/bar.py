"""The bar of issue 27, three ratios measured in one run on the local disk (ext4):

1. a real uv project's reinstall from cache, `check`'s prediction over the real time
   (`rm -rf .venv && uv sync --offline --frozen --no-install-project`);
2. the first `git status` after `cp -a` of a real repository of mixed files, predicted over real
   (page cache warm, as right after a migration);
3. what one `check` costs over one `git status` of a repository of about 3,000 files.

Each is the median of RUNS interleaved runs. The first two pass within +-35%, the third at 1.5x
or less. Called by bench/bar.sh; exit status 1 when any ratio misses its bound.
"""
import json
import os
import shutil
import statistics
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pairs import check_vs_status, ms, tracked_files  # noqa: E402

TOOL, WORK, RUNS = sys.argv[1], sys.argv[2], int(sys.argv[3])
PYTHON_PROJECT, MIXED_REPO, REPO_3000, PYTHON_NAME = sys.argv[4:8]


def check(path, *extra):
    """The report of `check` in `path`, the Linux disk's baseline in WORK: its disk is the one
    the uv cache and the repositories are on, as a home's is (WORK may be a journaled ext4 of
    bench/loop-ext4.sh, where the machine's own home is on an ext4 without one)."""
    out = subprocess.run([TOOL, "check", "--format", "json", "--baseline", WORK, *extra, path],
                         check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def uv_row():
    """The project's reinstall into a fresh copy of it each run (as after a move; on an ext4
    without a journal a virtualenv removed and made again in one folder slows run after run:
    bench/loop-ext4.sh), then the check of the installed tree."""
    real, predicted = [], []
    sync = ["uv", "sync", "--offline", "--frozen", "--no-install-project", "-q"]
    for i in range(RUNS):
        copy = os.path.join(WORK, "uv-run-%d" % i)
        subprocess.run(["cp", "-a", PYTHON_PROJECT, copy], check=True)
        real.append(ms(sync, cwd=copy))
        report = check(copy)["predict"]
        predicted.append(report["install_ms"]["current"])
        shutil.rmtree(copy)
    manager = report["install_manager"] or {}
    sys.stderr.write("uv's own work: %s (sample %s ms); installed: %s\n"
                     % (manager.get("source"), manager.get("sample_ms"),
                        report["inputs"]["install"]))
    return statistics.median(predicted), statistics.median(real)


def first_status_row():
    """A fresh `cp -a` each run: the prediction, then the real first status in the copy."""
    real, predicted = [], []
    for i in range(RUNS):
        copy = os.path.join(WORK, "first-%d" % i)
        subprocess.run(["cp", "-a", MIXED_REPO, copy], check=True)
        predicted.append(check(copy, "--fresh")["predict"]["first_git_status_ms"]["current"])
        real.append(ms(["git", "-C", copy, "status", "--porcelain"]))
        shutil.rmtree(copy)
    return statistics.median(predicted), statistics.median(real)


def cost_row():
    """`check -q` against `git status` in a copy of the repository (bench/pairs.py)."""
    copy = os.path.join(WORK, "cost")
    subprocess.run(["cp", "-a", REPO_3000, copy], check=True)
    return check_vs_status(TOOL, copy, RUNS, baseline=WORK)


def main():
    print("load before: %.2f" % os.getloadavg()[0])
    rows = []
    p, r = uv_row()
    rows.append(("%s: uv reinstall from cache, predicted / real" % PYTHON_NAME,
                 p, r, p / r, 0.65 <= p / r <= 1.35, "0.65-1.35"))
    p, r = first_status_row()
    rows.append(("%s (%d files): first git status after cp -a, predicted / real"
                 % (os.path.basename(MIXED_REPO), tracked_files(MIXED_REPO)),
                 p, r, p / r, 0.65 <= p / r <= 1.35, "0.65-1.35"))
    c, s = cost_row()
    rows.append(("%s (%d files): check -q / git status"
                 % (os.path.basename(REPO_3000), tracked_files(REPO_3000)),
                 c, s, c / s, c / s <= 1.5, "<= 1.5"))
    print("load after: %.2f" % os.getloadavg()[0])
    print("| ratio (ext4, medians of %d) | tool | peer | ratio | bound | |" % RUNS)
    print("|---|---|---|---|---|---|")
    for label, a, b, ratio, ok, bound in rows:
        print("| %s | %.1f ms | %.1f ms | %.2f | %s | %s |"
              % (label, a, b, ratio, bound, "pass" if ok else "FAIL"))
    sys.exit(0 if all(r[4] for r in rows) else 1)


main()
