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

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pairs import ms  # noqa: E402

TOOL, WORK, RUNS = sys.argv[1], sys.argv[2], int(sys.argv[3])
BASELINE = os.path.join(WORK, "local")
ROWS = []
# What `check` and its probe cost, as multiples of one real `git status` (medians).
COSTS = []
# The verdict rows: 10 back-to-back checks, the cold --advisory against the full check.
VERDICTS = []
LOADS = []


def check(path, *extra, env=None):
    out = subprocess.run([TOOL, "check", "--format", "json", "--baseline", BASELINE, *extra, path],
                         check=True, capture_output=True, text=True, env=env).stdout
    return json.loads(out)


def timed_check(path):
    """A check and its wall time in ms."""
    t = time.perf_counter()
    report = check(path)
    return report, (time.perf_counter() - t) * 1000


def load():
    LOADS.append(os.getloadavg()[0])


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
    """Steady git status on both mounts, and the first status after the copy, interleaved with
    checks. Each first status starts from the index as the copy left it (saved before git ran
    here), whose stat data are another tree's, so git re-reads and hashes every file each time."""
    res = {}
    for where, repo in (("ext4", local), ("slowfs", slow)):
        index = os.path.join(repo, ".git", "index")
        as_copied = os.path.join(WORK, "index-as-copied-%s-%s" % (where, name))
        shutil.copyfile(index, as_copied)
        firsts, pred_firsts, ts, preds, speedups, checks, probes = [], [], [], [], [], [], []
        for _ in range(RUNS):
            shutil.copyfile(as_copied, index)
            firsts.append(status(repo))
            ts.append(status(repo))
            report, took = timed_check(repo)
            pred_firsts.append(report["predict"]["first_git_status_ms"]["current"])
            p = report["predict"]["git_status_ms"]
            preds.append(p["current"])
            speedups.append(p["speedup"] or 1.0)
            checks.append(took)
            probes.append(report["probe"]["current"]["elapsed_ms"])
        res[where] = dict(first=statistics.median(firsts), very_first=firsts[0],
                          pred_first=statistics.median(pred_firsts),
                          status=statistics.median(ts), pred=statistics.median(preds),
                          speedup=statistics.median(speedups))
        one = statistics.median(ts)
        COSTS.append(("%s, %s" % (name, where), one, statistics.median(checks),
                      statistics.median(probes)))
    load()
    e, s = res["ext4"], res["slowfs"]
    row("%s: git status, ext4" % name, e["pred"], e["status"])
    row("%s: git status, slowfs" % name, s["pred"], s["status"], s["speedup"],
        s["status"] / e["status"])
    row("%s: first status after copy, ext4" % name, e["pred_first"], e["first"])
    row("%s: first status after copy, slowfs" % name, s["pred_first"], s["first"],
        s["pred_first"] / e["pred_first"], s["first"] / e["first"])
    # The very first run, right after `cp -a` wrote the tree (dirty pages, cold dentries), is
    # one of the runs the median is taken over, and shown on its own as well: a slow one
    # would show here before it could move a median of three.
    sys.stderr.write("   the very first status after the copy: %.0f ms on ext4, %.0f ms on slowfs\n"
                     % (e["very_first"], s["very_first"]))


def install_pair(name, local, slow):
    """`rm -rf node_modules && npm install --offline` on both mounts, each followed by a check
    of the installed tree (what a person who wonders about reinstalling would run)."""
    res = {}
    for where, proj in (("ext4", local), ("slowfs", slow)):
        subprocess.run(["npm", "install", "--offline", "--no-audit", "--no-fund"], cwd=proj,
                       check=True, capture_output=True)
        runs, preds, speedups, managers = [], [], [], []
        for _ in range(RUNS):
            shutil.rmtree(os.path.join(proj, "node_modules"))
            runs.append(ms(["npm", "install", "--offline", "--no-audit", "--no-fund"], cwd=proj))
            report = check(proj)
            p = report["predict"]["install_ms"]
            preds.append(p["current"])
            speedups.append(p["speedup"])
            managers.append(report["predict"]["install_manager_ms"])
        res[where] = dict(pred=statistics.median(preds), speedup=statistics.median(speedups),
                          real=statistics.median(runs), manager=statistics.median(managers),
                          source=(report["predict"]["install_manager"] or {}).get("source"))
        load()
    e, s = res["ext4"], res["slowfs"]
    row("%s: npm reinstall, ext4" % name, e["pred"], e["real"])
    row("%s: npm reinstall, slowfs" % name, s["pred"], s["real"], s["speedup"], s["real"] / e["real"])
    sys.stderr.write("   npm's own work: %.0f ms (%s)\n" % (s["manager"] or 0, s["source"]))


def venv_for_pip(proj):
    """A virtualenv without pip, with the pip of `python3` linked in: as the tool's own sample
    makes it, so that making it (seconds with ensurepip) stays out of the timing."""
    venv = os.path.join(proj, ".venv")
    shutil.rmtree(venv, ignore_errors=True)
    subprocess.run(["python3", "-m", "venv", "--without-pip", venv], check=True)
    pip = subprocess.run(["python3", "-c", "import os, pip; print(os.path.dirname(pip.__file__))"],
                         check=True, capture_output=True, text=True).stdout.strip()
    lib = os.path.join(venv, "lib")
    site = os.path.join(lib, os.listdir(lib)[0], "site-packages")
    os.symlink(pip, os.path.join(site, "pip"))


def fresh_copy(proj):
    """`proj` made again from its first state (kept beside it as `PROJ.template`), without its
    virtualenv; the files are copied on the local side of the mount, not through it."""
    local = proj.replace(os.path.join(WORK, "mnt"), os.path.join(WORK, "backing"), 1)
    template = local + ".template"
    if not os.path.exists(template):
        shutil.rmtree(os.path.join(local, ".venv"), ignore_errors=True)
        os.rename(local, template)
    shutil.rmtree(local, ignore_errors=True)
    subprocess.run(["cp", "-a", template, local], check=True)


TREES = {}


def tree_in_memory(root):
    """The tree under `root` read once into memory, in walk order: ("dir", rel, mode),
    ("link", rel, target), ("hardlink", rel, first_rel) or ("file", rel, mode, bytes)."""
    if root not in TREES:
        entries, first = [], {}
        for dirpath, dirs, files in os.walk(root):
            for name in sorted(dirs) + sorted(files):
                path = os.path.join(dirpath, name)
                rel = os.path.relpath(path, root)
                st = os.lstat(path)
                if os.path.islink(path):
                    entries.append(("link", rel, os.readlink(path)))
                elif name in dirs:
                    entries.append(("dir", rel, st.st_mode & 0o7777))
                elif (st.st_dev, st.st_ino) in first:
                    entries.append(("hardlink", rel, first[(st.st_dev, st.st_ino)]))
                else:
                    first[(st.st_dev, st.st_ino)] = rel
                    with open(path, "rb") as f:
                        entries.append(("file", rel, st.st_mode & 0o7777, f.read()))
            dirs.sort()
        TREES[root] = entries
    return TREES[root]


# A build's writes, on average: strace of `cargo build` of ripgrep 15.1.0 (debug, from an empty
# target/) counted 5,187 write calls for 330 MiB into 1,437 files, 65 KiB a call; the linker
# writes its binaries through a mapping. On a mount where each request is a round trip the
# piece size sets the count of requests: the emulator wrote 100 MiB in 1 MiB pieces in 0.14 s.
PIECE = 64 << 10


def write_tree(entries, dest):
    """Writes the tree as a build does, from memory: each file created and written in
    `PIECE`s, each further name of a file hard-linked to its first (cargo links its binaries
    from deps/). A copy (`cp -a`) would time reading the source too: from this machine's page
    cache 0.10 s of its 0.20 s for ripgrep's target/, and more when the pages were evicted."""
    os.mkdir(dest)
    for entry in entries:
        kind, path = entry[0], os.path.join(dest, entry[1])
        if kind == "dir":
            os.mkdir(path, entry[2])
        elif kind == "link":
            os.symlink(entry[2], path)
        elif kind == "hardlink":
            os.link(os.path.join(dest, entry[2]), path)
        else:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, entry[2])
            view = memoryview(entry[3])
            for at in range(0, len(view), PIECE):
                os.write(fd, view[at:at + PIECE])
            os.close(fd)


def reinstall(kind, proj, target_from):
    """One timed reinstall of `kind` in `proj`: uv and pip from their caches, or writing a
    real target/ tree (`target_from`, held in memory) into the fresh folder."""
    if kind == "uv":
        # The dependencies from the cache, not the project's own build (an editable install of
        # the project runs its build backend, which is no reinstall from a cache). Into a fresh
        # copy of the project each run (made on the backing side, not timed), as after a move.
        # (On an ext4 without a journal, such as this machine's root, a virtualenv removed and
        # made again slows run after run: uv's mkdir went from 115 us to 780 us in 40
        # reinstalls of psf/requests; see bench/loop-ext4.sh.)
        fresh_copy(proj)
        return ms(["uv", "sync", "--offline", "--frozen", "--no-install-project", "-q"], cwd=proj)
    if kind == "pip":
        venv_for_pip(proj)
        return ms([os.path.join(proj, ".venv", "bin", "python"), "-m", "pip", "install", "-q",
                   "--disable-pip-version-check", "-r", "requirements.txt"], cwd=proj)
    shutil.rmtree(os.path.join(proj, "target"), ignore_errors=True)
    # Flushed before and after (not timed): each run writes hundreds of MB, and the next write,
    # or the check's probe of the disk, would otherwise wait behind the flush of the last one.
    subprocess.run(["sync"], check=True)
    entries = tree_in_memory(target_from)
    start = time.perf_counter()
    write_tree(entries, os.path.join(proj, "target"))
    took = (time.perf_counter() - start) * 1000
    subprocess.run(["sync"], check=True)
    return took


def reinstall_pair(kind, name, local, slow, target_from=""):
    """A Python reinstall (uv or pip) or a Rust target/ written afresh, on both mounts, each
    run followed by a check of the result."""
    res = {}
    for where, proj in (("ext4", local), ("slowfs", slow)):
        reinstall(kind, proj, target_from)
        runs, preds, speedups, managers = [], [], [], []
        for _ in range(RUNS):
            runs.append(reinstall(kind, proj, target_from))
            report = check(proj)
            p = report["predict"]["install_ms"]
            preds.append(p["current"])
            speedups.append(p["speedup"])
            managers.append(report["predict"]["install_manager_ms"] or 0)
        sys.stderr.write("   %s runs: real %s ms, predicted %s ms\n" % (
            where, [round(r) for r in runs], [round(p) for p in preds]))
        m = report["predict"]["install_manager"] or {}
        res[where] = dict(pred=statistics.median(preds), speedup=statistics.median(speedups),
                          real=statistics.median(runs), manager=statistics.median(managers),
                          source="%s %s" % (m.get("manager"), m.get("source")),
                          inputs=report["predict"]["inputs"]["install"])
        load()
    e, s = res["ext4"], res["slowfs"]
    what = {"uv": "uv sync --offline --no-install-project", "pip": "pip install -r requirements.txt",
            "target": "target/ written afresh"}[kind]
    row("%s: %s, ext4" % (name, what), e["pred"], e["real"])
    row("%s: %s, slowfs" % (name, what), s["pred"], s["real"], s["speedup"], s["real"] / e["real"])
    sys.stderr.write("   own work: %.0f ms (%s); %s\n" % (s["manager"], s["source"], s["inputs"]))


def stability(repo):
    """10 back-to-back checks: how many verdicts; a cold --advisory vs a full check."""
    runs = []
    for _ in range(10):
        r = check(repo)
        g = r["predict"]["git_status_ms"]
        runs.append((r["verdict"]["level"], r["verdict"]["kept_previous"], g["current"],
                     g["current_range"], g["speedup"]))
    levels = [lv for lv, *_ in runs]
    for lv, kept, cur, rng, sp in runs:
        sys.stderr.write("   %s%s: git status %s (%s-%s), %.0fx\n" % (
            lv, " (kept)" if kept else "", fmt(cur), fmt(rng[0]), fmt(rng[1]), sp or 0))
    cache = os.path.join(WORK, "cold-cache")
    shutil.rmtree(cache, ignore_errors=True)
    env = dict(os.environ, XDG_CACHE_HOME=cache)
    out = subprocess.run([TOOL, "check", "--advisory", "--format", "json", "--baseline", BASELINE,
                          repo], capture_output=True, text=True, env=env).stdout
    advisory = json.loads(out)
    full = check(repo, env=env)["verdict"]
    shutil.rmtree(cache, ignore_errors=True)
    name = os.path.basename(repo)
    counts = ", ".join("%s x%d" % (lv, levels.count(lv)) for lv in sorted(set(levels)))
    VERDICTS.append(("10 back-to-back `check`s, %s on slowfs" % name, counts,
                     "yes" if len(set(levels)) == 1 else "NO"))
    VERDICTS.append(("cold `check --advisory`, then a full `check` (%s, slowfs)" % name,
                     "%s%s; full: %s (kept: %s, %s)" % (
                         advisory["level"], " (provisional)" if advisory.get("provisional") else "",
                         full["level"], full["kept_previous"], full["confidence"]),
                     "yes" if advisory["level"] == full["level"] else "NO"))
    load()


def main():
    jobs = json.loads(sys.argv[4])
    load()
    for job in jobs:
        kind = job.pop(0)
        {"git": git_pair, "install": install_pair, "stability": stability,
         "uv": lambda *a: reinstall_pair("uv", *a), "pip": lambda *a: reinstall_pair("pip", *a),
         "target": lambda *a: reinstall_pair("target", *a)}[kind](*job)
    print()
    print("| row | predicted | measured | error | predicted speedup | measured speedup | speedup error |")
    print("|---|---|---|---|---|---|---|")
    for r in ROWS:
        print_row(r, sys.stdout)
    if VERDICTS:
        print()
        print("| verdicts | result | one verdict / agree |")
        print("|---|---|---|")
        for label, result, ok in VERDICTS:
            print("| %s | %s | %s |" % (label, result, ok))
    print()
    print("What `check` costs (medians): one real `git status`, a whole `check`, its probe of the "
          "repository's mount")
    print()
    print("| repository | git status | check | check / git status | probe | probe / git status |")
    print("|---|---|---|---|---|---|")
    for label, one, whole, probe in COSTS:
        print("| %s | %s | %s | %.1fx | %s | %.1fx |" % (
            label, fmt(one), fmt(whole), whole / one, fmt(probe), probe / one))
    print()
    print("1-minute load average during the run: %s (min %.1f, max %.1f)" % (
        ", ".join("%.1f" % v for v in LOADS), min(LOADS), max(LOADS)))


main()
