"""One `check -q` against one `git status` in the same repository, pair by pair, for
bench/check-cost.sh and bench/bar.py: each run timed from its spawn to its exit (no shell in
between: a `date` before and after would add the start-up of a process, about 1.5 ms here, to
both sides).

As a script: `pairs.py LABEL REPO TOOL RUNS` prints one table row of bench/check-cost.sh.
"""
import statistics
import subprocess
import sys
import time


def ms(cmd, check=True, **kw):
    """Milliseconds from spawn to exit of `cmd`, its output discarded; with `check`, a failed
    run stops the bench (bench/accuracy.py and bench/bar.py time with it too)."""
    t = time.perf_counter()
    subprocess.run(cmd, check=check, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, **kw)
    return (time.perf_counter() - t) * 1000


def timed(cmd):
    """`ms` of a run whose exit status says nothing of its success: `check -q` exits with the
    verdict's code, so any exit is a finished run."""
    return ms(cmd, check=False)


def check_vs_status(tool, repo, runs, baseline=None):
    """One check and one status first (a user's second check finds the Linux disk's figures and
    git's facts cached for this boot), then `runs` interleaved pairs: the medians. `baseline`:
    the Linux disk's folder when it is not the home's."""
    check = [tool, "check", "-q", *(["--baseline", baseline] if baseline else []), repo]
    status = ["git", "-C", repo, "status", "--porcelain"]
    timed(check)
    timed(status)
    checks, statuses = [], []
    for _ in range(runs):
        checks.append(timed(check))
        statuses.append(timed(status))
    return statistics.median(checks), statistics.median(statuses)


def with_before(tool, before, repo, runs):
    """`check_vs_status` with an older build's `check -q` in every round too (BEFORE=), the
    three interleaved so the machine's changing pace moves all alike: medians (check, status,
    before's check)."""
    check = [tool, "check", "-q", repo]
    old = [before, "check", "-q", repo]
    status = ["git", "-C", repo, "status", "--porcelain"]
    for cmd in (check, old, status):
        timed(cmd)
    checks, statuses, olds = [], [], []
    for _ in range(runs):
        checks.append(timed(check))
        statuses.append(timed(status))
        olds.append(timed(old))
    return statistics.median(checks), statistics.median(statuses), statistics.median(olds)


def tracked_files(repo):
    out = subprocess.run(["git", "-C", repo, "ls-files", "-z"], check=True,
                         capture_output=True).stdout
    return out.count(b"\0")


if __name__ == "__main__":
    label, repo, tool, runs = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    before = sys.argv[5] if len(sys.argv) > 5 else ""
    if before:
        c, s, b = with_before(tool, before, repo, runs)
        print("| %s | %d | %.1f | %.1f | %.2fx | %.1f | %.2fx |"
              % (label, tracked_files(repo), c, s, c / s, b, b / s))
    else:
        c, s = check_vs_status(tool, repo, runs)
        print("| %s | %d | %.1f | %.1f | %.2fx |" % (label, tracked_files(repo), c, s, c / s))
