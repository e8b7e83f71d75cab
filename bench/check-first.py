"""The first and the next `check` of a Node repository against one `git status` in the same run,
on the slowfs emulator (drvfs-9p) at each scale, and the install prediction from the sampled
node_modules against `--exact`'s (issue 43). Driven by bench/check-first.sh, which builds,
makes the synthetic tree and cleans up.

    check-first.py WORK TOOL SLOWFS RUNS SCALES REPO...

Per scale the emulator is mounted over WORK/backing (copies of the REPOs) at WORK/mnt. Before
the runs, one check of a warm-up repository on the same mount fills what a machine keeps (the
Linux disk's probe, git's version, the package manager's timing); the very first check of the
whole run is reported apart. Each of RUNS rounds then remounts the emulator (the kernel's
caches of it dropped), forgets this repository's earlier checks (the state, advisory and
dependency-figure folders), and times `check -q` (first), `check -q` again (next), `git status --porcelain`
(after the first check: the status a person runs next), and `check --format json` and
`check --format json --exact` for the install predictions. Medians are printed as rows of a
Markdown table; the install's sampled / exact is the median of each round's ratio, and the
node_modules figures (files, folders, bytes) are compared apart, since each prediction also
carries its own probe's spread.
"""
import json
import os
import shutil
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pairs import ms, timed  # noqa: E402


def mount(slowfs, work, scale):
    log = open(os.path.join(work, "slowfs.log"), "a")
    proc = subprocess.Popen([slowfs, "--profile", "drvfs-9p", "--scale", str(scale),
                             os.path.join(work, "backing"), os.path.join(work, "mnt")],
                            stderr=log)
    point = " %s " % os.path.join(work, "mnt")
    for _ in range(200):
        with open("/proc/self/mountinfo") as f:
            if point in f.read():
                return proc
        time.sleep(0.05)
    proc.terminate()
    raise SystemExit("slowfs did not mount; see %s/slowfs.log" % work)


def unmount(proc, work):
    proc.terminate()
    proc.wait()
    subprocess.run(["fusermount3", "-u", "-z", os.path.join(work, "mnt")],
                   stderr=subprocess.DEVNULL)


def forget_checks(home):
    """This repository's earlier checks: the verdict history, the hook's cache and the
    dependency figures kept for a next check."""
    for sub in (".local/state", ".cache/wsl-place/advisory", ".cache/wsl-place/dependencies"):
        shutil.rmtree(os.path.join(home, sub), ignore_errors=True)


def report(tool, repo, exact):
    # --exact walks everything, however long it takes: the reference.
    whole = ["--exact", "--scan-budget-ms", "600000"] if exact else []
    cmd = [tool, "check", "--format", "json", *whole, repo]
    out = subprocess.run(cmd, capture_output=True)
    return json.loads(out.stdout)


def install_ms(rep):
    install = (rep.get("predict") or {}).get("install_ms") or {}
    return install.get("current")


def dependency_figures(rep):
    """Files, folders and bytes of the node_modules trees: what the sample estimates, apart
    from the probe's own run-to-run spread, which the install prediction also carries."""
    trees = rep["scan"]["node_modules"]
    return tuple(sum(t[k] for t in trees) for k in ("files", "dirs", "bytes"))


def dependency_note(rep):
    trees = rep["scan"]["node_modules"]
    if not trees:
        return "no node_modules"
    sample = trees[0].get("sample")
    if not sample:
        return "walked whole"
    by = "pnpm's store" if "pnpm" in sample.get("method", "") else "entries"
    return "%d of %d packages by %s, files ±%.0f%%" % (
        sample["walked"], sample["packages"], by, sample["files_error"] * 100)


def main():
    work, tool, slowfs, runs = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    scales = [float(s) for s in sys.argv[5].split(",")]
    repos = sys.argv[6:]
    home = os.environ["HOME"]
    print("| repository | scale | very first check | first check | next check | git status "
          "| first / status | next / status | phases of a first check (ms) | node_modules "
          "| install, sampled | install, --exact | sampled / exact (paired) "
          "| files, folders, bytes: sampled / exact |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    warmed = False
    for scale in scales:
        for repo in repos:
            name = os.path.basename(repo)
            target = os.path.join(work, "mnt", name)
            very_first = None
            firsts, nexts, statuses, sampled, exact, phases = [], [], [], [], [], []
            ratios, figures = [], []
            for _ in range(runs):
                proc = mount(slowfs, work, scale)
                try:
                    if not warmed:
                        # The machine's first check ever: nothing cached at all.
                        very_first = timed([tool, "check", "-q", target])
                        warmed = True
                    forget_checks(home)
                    firsts.append(timed([tool, "check", "-q", target]))
                    nexts.append(timed([tool, "check", "-q", target]))
                    statuses.append(ms(["git", "-C", target, "status", "--porcelain"]))
                    forget_checks(home)
                    first = report(tool, target, False)
                    phases.append(first["phases"])
                    sampled.append(install_ms(first))
                    whole = report(tool, target, True)
                    exact.append(install_ms(whole))
                    if sampled[-1] and exact[-1]:
                        ratios.append(sampled[-1] / exact[-1])
                    figures.append((dependency_figures(first), dependency_figures(whole)))
                finally:
                    unmount(proc, work)
            f, n, s = (statistics.median(v) for v in (firsts, nexts, statuses))
            keys = ("scan_ms", "probe_current_ms", "manager_ms", "probe_baseline_ms",
                    "hints_ms", "total_ms")
            phase = ", ".join("%s %d" % (k[:-3], statistics.median(p[k] or 0 for p in phases))
                              for k in keys)
            samp = [v for v in sampled if v]
            ex = [v for v in exact if v]
            si = statistics.median(samp) if samp else float("nan")
            ei = statistics.median(ex) if ex else float("nan")
            # Each round's sampled and exact predictions side by side (their probes ran a few
            # seconds apart), then the median of those ratios.
            paired = statistics.median(ratios) if ratios else float("nan")
            off = ", ".join("%+.1f%%" % ((statistics.median(a[i] / max(b[i], 1)
                                                            for a, b in figures) - 1) * 100)
                            for i in range(3))
            print("| %s | %g | %s | %.0f ms | %.0f ms | %.0f ms | %.2fx | %.2fx | %s | %s "
                  "| %.1f s | %.1f s | %+.1f%% | %s |" % (
                      name, scale, "%.0f ms" % very_first if very_first else "-", f, n, s,
                      f / s, n / s, phase, dependency_note(first), si / 1e3, ei / 1e3,
                      (paired - 1) * 100, off))
            sys.stdout.flush()


if __name__ == "__main__":
    main()
