"""Measures what bench/accuracy.sh prints: predictions of `wsl-place check` against the real thing.

Called by bench/accuracy.sh with the tool, the work directory, the runs and the rows to measure;
every timing is a median of interleaved runs (a real operation, then a `check`), so a change of
the machine's pace moves both alike.
"""
import json
import os
import shutil
import statistics
import subprocess
import sys
import time

TOOL, WORK, RUNS = sys.argv[1], sys.argv[2], int(sys.argv[3])
BASELINE = os.path.join(WORK, "local")
ROWS = []


def ms(cmd, **kw):
    t = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, **kw)
    return (time.perf_counter() - t) * 1000


def check(path, *extra, env=None):
    out = subprocess.run([TOOL, "check", "--format", "json", "--baseline", BASELINE, *extra, path],
                         check=True, capture_output=True, text=True, env=env).stdout
    return json.loads(out)


def status(repo):
    return ms(["git", "-C", repo, "status", "--porcelain"])


def row(label, predicted, measured, pred_speedup=None, meas_speedup=None):
    ROWS.append((label, predicted, measured, pred_speedup, meas_speedup))
    print_row(ROWS[-1], sys.stderr)


def fmt(v, unit="ms"):
    if v is None:
        return "-"
    return "%.1f s" % (v / 1000) if unit == "ms" and v >= 10_000 else "%.0f %s" % (v, unit)


def print_row(r, out):
    label, pred, meas, ps, msu = r
    err = (pred - meas) / meas * 100
    serr = "%+.0f%%" % ((ps - msu) / msu * 100) if ps and msu else "-"
    out.write("| %s | %s | %s | %+.0f%% | %s | %s | %s |\n" % (
        label, fmt(pred), fmt(meas), err,
        "%.1fx" % ps if ps else "-", "%.1fx" % msu if msu else "-", serr))
    out.flush()


def git_pair(name, local, slow):
    """Steady git status on both mounts, interleaved with checks; first status after the copy."""
    res = {}
    for where, repo in (("ext4", local), ("slowfs", slow)):
        report = check(repo)
        pred_first = report["predict"]["first_git_status_ms"]["current"]
        first = status(repo)
        ts, preds, speedups = [], [], []
        for _ in range(RUNS):
            ts.append(status(repo))
            p = check(repo)["predict"]["git_status_ms"]
            preds.append(p["current"])
            speedups.append(p["speedup"] or 1.0)
        res[where] = dict(first=first, pred_first=pred_first, status=statistics.median(ts),
                          pred=statistics.median(preds), speedup=statistics.median(speedups))
    e, s = res["ext4"], res["slowfs"]
    row("%s: git status, ext4" % name, e["pred"], e["status"])
    row("%s: git status, slowfs" % name, s["pred"], s["status"], s["speedup"],
        s["status"] / e["status"])
    row("%s: first status after copy, ext4" % name, e["pred_first"], e["first"])
    row("%s: first status after copy, slowfs" % name, s["pred_first"], s["first"], None, None)


def install_pair(name, local, slow):
    """`rm -rf node_modules && npm install --offline` on both mounts; predictions from check."""
    res = {}
    for where, proj in (("ext4", local), ("slowfs", slow)):
        subprocess.run(["npm", "install", "--offline", "--no-audit", "--no-fund"], cwd=proj,
                       check=True, capture_output=True)
        report = check(proj)
        p = report["predict"]["install_ms"]
        runs = []
        for _ in range(max(2, RUNS // 2)):
            shutil.rmtree(os.path.join(proj, "node_modules"))
            runs.append(ms(["npm", "install", "--offline", "--no-audit", "--no-fund"], cwd=proj))
        res[where] = dict(pred=p["current"], base=p["baseline"], speedup=p["speedup"],
                          real=statistics.median(runs), manager=report["predict"]["install_manager_ms"],
                          source=(report["predict"]["install_manager"] or {}).get("source"))
    e, s = res["ext4"], res["slowfs"]
    row("%s: npm reinstall, ext4" % name, e["pred"], e["real"])
    row("%s: npm reinstall, slowfs" % name, s["pred"], s["real"], s["speedup"], s["real"] / e["real"])
    sys.stderr.write("   npm's own work: %.0f ms (%s)\n" % (s["manager"] or 0, s["source"]))


def stability(repo):
    """10 back-to-back checks: how many verdicts; a cold --advisory vs a full check."""
    levels = [check(repo)["verdict"]["level"] for _ in range(10)]
    cache = os.path.join(WORK, "cold-cache")
    shutil.rmtree(cache, ignore_errors=True)
    env = dict(os.environ, XDG_CACHE_HOME=cache)
    out = subprocess.run([TOOL, "check", "--advisory", "--format", "json", "--baseline", BASELINE,
                          repo], capture_output=True, text=True, env=env).stdout
    advisory = json.loads(out)
    full = check(repo, env=env)["verdict"]
    shutil.rmtree(cache, ignore_errors=True)
    print("10 back-to-back checks on %s: %s" % (repo, ", ".join(
        "%s x%d" % (lv, levels.count(lv)) for lv in sorted(set(levels)))))
    print("cold --advisory: %s%s; full check after it: %s (kept: %s, confidence %s)" % (
        advisory["level"], " (provisional)" if advisory.get("provisional") else "",
        full["level"], full["kept_previous"], full["confidence"]))


def main():
    jobs = json.loads(sys.argv[4])
    for job in jobs:
        kind = job.pop(0)
        {"git": git_pair, "install": install_pair, "stability": stability}[kind](*job)
    print()
    print("| row | predicted | measured | error | predicted speedup | measured speedup | speedup error |")
    print("|---|---|---|---|---|---|---|")
    for r in ROWS:
        print_row(r, sys.stdout)


main()
