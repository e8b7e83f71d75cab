#!/usr/bin/env python3
"""The held-out accuracy table's steps, driven by bench/heldout.sh (read it first).

  heldout.py list                          the projects' names, in table order
  heldout.py prepare NAME SRC_DIR          clone (mirror or GitHub), pin, fill the caches once
  heldout.py row NAME DIR DISK RUNS OUT    predict (`check --format json`), then measure; one
                                           JSON line appended to OUT
  heldout.py table OUT                     the markdown rows of every line in OUT

Each project is installed as its README (or its contributing guide) says, from its own lock,
offline from the package cache the prepare step filled: npm `npm ci --offline`, pnpm
`pnpm install --offline --frozen-lockfile`, yarn classic `yarn install --offline
--frozen-lockfile`, bun `bun install --offline --frozen-lockfile`, uv `uv sync --offline
--frozen`; pip `pip install -r requirements.txt` into a fresh virtualenv (made untimed, as the
project's scripts/install does), which asks the index about every package (pip has no offline
mode) and takes the files from its cache.
"""
import json
import os
import shutil
import statistics
import subprocess
import sys
import time

# name, GitHub repository, pinned commit, manager. No project here was used to fit or tune the
# model (koa and express were, and pallets/werkzeug and pallets/flask for uv's and pip's fits:
# they are left out on purpose).
PROJECTS = [
    ("nodemon", "remy/nodemon", "1d0a639b67f6d9dfa6dc3089d53461993106ebab", "npm"),
    ("mocha", "mochajs/mocha", "e6b9ee773481fd739ae24caeb42f32ac0b010f95", "npm"),
    ("axios", "axios/axios", "23a25af0688d1db2c396deb09229d2271cc24f6c", "npm"),
    ("consola", "unjs/consola", "c47faac1738b7383971c6c20b5a34ffa15e7cc3b", "pnpm"),
    ("pinia", "vuejs/pinia", "254eec764ecccd120ab9dbc31352d76ffd6ecfa3", "pnpm"),
    ("ofetch", "unjs/ofetch", "dfbe3ca4ef8a22fc023fca5a5ef530e525f5e523", "pnpm"),
    ("prop-types", "facebook/prop-types", "1c9c6311c1fb8778bffc7a1ca70c273ee8a8654d", "yarn"),
    ("immer", "immerjs/immer", "061c2425e1c9dff89e4e4189d42af1b7839dfe0a", "yarn"),
    ("hono", "honojs/hono", "28a9c128912de19f3fb28b00ae289c9b93f6f392", "bun"),
    ("click", "pallets/click", "2c8cd3ac958a7eb316d67f2d316c27086c4c0369", "uv"),
    ("attrs", "python-attrs/attrs", "c1dc5dcba16ed827aa6dcad896b41a3afedb4e32", "uv"),
    ("starlette", "encode/starlette", "cb8f84f5284dc301ca7a31eb732b9e140769dd48", "pip"),
    ("uvicorn", "encode/uvicorn", "e6c7ce791fc634b6eedee40e0d0207faa8a9aefd", "pip"),
    ("httpx", "encode/httpx", "ae1b9f66238f75ced3ced5e4485408435de10768", "pip"),
    # The koa-from-lock case (koa was fitted on: not a held-out row, run by KOA=1).
    ("koa", "koajs/koa", "e0ba8ef39d27fe5dae5492f9fe753d155124f994", "npm"),
]

QUIET_NPM = ["--no-audit", "--no-fund", "--loglevel=error"]
# manager: (the reinstall, timed; the same online, to fill the cache; what it installs into)
INSTALL = {
    "npm": (["npm", "ci", "--offline", *QUIET_NPM], ["npm", "ci", *QUIET_NPM], ["node_modules"]),
    "pnpm": (
        ["pnpm", "install", "--offline", "--frozen-lockfile", "--reporter=silent"],
        ["pnpm", "install", "--frozen-lockfile", "--reporter=silent"],
        ["node_modules"],
    ),
    "yarn": (
        ["yarn", "install", "--offline", "--frozen-lockfile", "--silent", "--non-interactive"],
        ["yarn", "install", "--frozen-lockfile", "--silent", "--non-interactive"],
        ["node_modules"],
    ),
    "bun": (
        ["bun", "install", "--offline", "--frozen-lockfile", "--silent"],
        ["bun", "install", "--frozen-lockfile", "--silent"],
        ["node_modules"],
    ),
    "uv": (["uv", "sync", "--offline", "--frozen", "--quiet"], ["uv", "sync", "--frozen", "--quiet"], [".venv"]),
    "pip": (
        ["venv/bin/pip", "install", "-q", "--disable-pip-version-check", "-r", "requirements.txt"],
        ["venv/bin/pip", "install", "-q", "--disable-pip-version-check", "-r", "requirements.txt"],
        ["venv"],
    ),
}
INSTALL_BAR, STATUS_BAR = 0.35, 0.20


def project(name):
    for p in PROJECTS:
        if p[0] == name:
            return p
    sys.exit(f"heldout.py: no project named {name}")


def run(cmd, cwd, check=True):
    r = subprocess.run(cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if check and r.returncode != 0:
        sys.exit(f"heldout.py: `{' '.join(cmd)}` in {cwd} failed ({r.returncode}): {r.stderr.strip()[-600:]}")
    return r


def timed(cmd, cwd):
    t0 = time.monotonic()
    r = run(cmd, cwd, check=False)
    ms = (time.monotonic() - t0) * 1000
    return ms, (None if r.returncode == 0 else r.stderr.strip().splitlines()[-1:] or [f"exit {r.returncode}"])


def uninstall(manager, cwd):
    """Everything the install makes: its folder at the root and, in a workspace (pinia), each
    package's own node_modules, which `rm -rf node_modules` at the root leaves and `check`
    would price as an installed tree."""
    for d in INSTALL[manager][2]:
        shutil.rmtree(os.path.join(cwd, d), ignore_errors=True)
    if INSTALL[manager][2] == ["node_modules"] and workspace(cwd):
        for root, dirs, _ in os.walk(cwd):
            dirs[:] = [d for d in dirs if d != ".git"]
            if "node_modules" in dirs:
                shutil.rmtree(os.path.join(root, "node_modules"), ignore_errors=True)
                dirs.remove("node_modules")


def workspace(cwd):
    if os.path.exists(os.path.join(cwd, "pnpm-workspace.yaml")):
        return True
    try:
        with open(os.path.join(cwd, "package.json")) as f:
            return "workspaces" in json.load(f)
    except (OSError, ValueError):
        return False


def clean(manager, cwd):
    uninstall(manager, cwd)
    if manager == "pip":
        # Untimed, as the project's scripts/install makes it before installing.
        run(["python3", "-m", "venv", "venv"], cwd)


def prepare(name, src_dir):
    _, repo, commit, manager = project(name)
    dest = os.path.join(src_dir, name)
    if not os.path.isdir(os.path.join(dest, ".git")):
        mirror = os.path.join(os.environ.get("MIRROR", "/work/.mirror"), repo.replace("/", "+"), "repo")
        url = mirror if os.path.isdir(mirror) else f"https://github.com/{repo}.git"
        run(["git", "clone", "-q", url, dest], src_dir)
    run(["git", "checkout", "-q", commit], dest)
    with open(os.path.join(dest, ".git", "info", "exclude"), "a") as f:
        f.write("\n".join(["node_modules/", ".venv/", "venv/", ""]))
    marker = os.path.join(dest, ".git", "heldout-warmed")
    if not os.path.exists(marker) and not os.environ.get("STATUS_ONLY"):
        clean(manager, dest)
        run(INSTALL[manager][1], dest)
        open(marker, "w").close()
    uninstall(manager, dest)
    # A fresh checkout's files are as new as its index (racily clean): a plain status after the
    # second has passed rewrites the index, as a clone in use has it.
    time.sleep(1.1)
    run(["git", "status"], dest)


def sample_note(m):
    if not m:
        return "none"
    parts = [m.get("source", "?")]
    for key in sorted(m):
        if key.startswith("sample_") and key not in ("sample_ms", "sample_packages", "sample_files",
                                                      "sample_dirs", "sample_bytes", "sample_failed",
                                                      "sample_skipped"):
            value = m[key]
            # A sentence (why a timing is not shared) is named, not quoted: the JSON has it.
            named = isinstance(value, str) and len(value) > 24 or value is True
            parts.append(key[7:].replace("_", " ") if named else f"{key[7:].replace('_', ' ')} {value}")
    if m.get("source") != "estimated":
        parts.append(f"{m.get('sample_packages', 0)} pkgs / {m.get('sample_files', 0)} files")
    if m.get("sample_failed"):
        parts.append("failed: " + m["sample_failed"][:90])
    if m.get("sample_skipped"):
        parts.append("skipped: " + m["sample_skipped"][:90])
    return ", ".join(parts)


def row(name, cwd, disk, runs, out):
    _, repo, commit, manager = project(name)
    tool, status_runs = os.environ["TOOL"], int(os.environ.get("STATUS_RUNS", "5"))
    uninstall(manager, cwd)
    run(["git", "status"], cwd)  # the index refreshed, as in a clone in use (after a copy: first status)
    load = os.getloadavg()[0]
    t0 = time.monotonic()
    r = subprocess.run([tool, "check", "--format", "json", cwd], capture_output=True, text=True)
    check_ms = (time.monotonic() - t0) * 1000
    try:
        predict = json.loads(r.stdout)["predict"]
    except (ValueError, KeyError):
        sys.exit(f"heldout.py: `wsl-place check --format json {cwd}` gave no prediction: {r.stderr.strip()[-400:]}")
    status = [timed(["git", "status"], cwd)[0] for _ in range(status_runs)]
    installs, failed, earlier = [], None, earlier_installs(name, disk)
    if earlier:
        installs, failed = earlier["install_runs"], earlier["install_failed"]
    for _ in range(0 if earlier or os.environ.get("STATUS_ONLY") else runs):
        clean(manager, cwd)
        ms, err = timed(INSTALL[manager][0], cwd)
        if err:
            failed = err[0][:160]
            break
        installs.append(ms)
    uninstall(manager, cwd)  # left installed, the next copy of the clone (onto slowfs) would carry it
    rec = {
        "name": name, "repo": repo, "commit": commit, "manager": manager, "disk": disk,
        "install_pred": (predict.get("install_ms") or {}).get("current"),
        "install_range": (predict.get("install_ms") or {}).get("current_range"),
        "install_manager": predict.get("install_manager"),
        "install_runs": installs, "install_failed": failed,
        "status_pred": (predict.get("git_status_ms") or {}).get("current"),
        "status_range": (predict.get("git_status_ms") or {}).get("current_range"),
        "status_runs": status, "check_ms": check_ms, "load": load,
        "installs_from": earlier and earlier.get("at"), "at": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
    }
    with open(out, "a") as f:
        f.write(json.dumps(rec) + "\n")
    print(f"  {name} on {disk}: " + " | ".join(cells(rec)[3:]), file=sys.stderr)


def earlier_installs(name, disk):
    """The installs of this project on this disk from REUSE_INSTALLS (earlier results files, by :), so
    that a new binary's predictions can be set against installs measured before (an install
    does not depend on the tool); None when not asked for or not there."""
    found = []
    for path in filter(None, os.environ.get("REUSE_INSTALLS", "").split(":")):
        with open(path) as f:
            found += [r for r in map(json.loads, f) if r["name"] == name and r["disk"] == disk
                      and (r["install_runs"] or r["install_failed"]) and not r.get("installs_from")]
    found.sort(key=lambda r: bool(r["install_runs"]))  # a failed install only where none succeeded
    return found[-1] if found else None


def fmt(ms):
    if ms is None:
        return "-"
    if ms >= 60000:
        return f"{int(ms // 60000)} min {ms % 60000 / 1000:.0f} s"
    return f"{ms / 1000:.2f} s" if ms >= 1000 else f"{ms:.1f} ms" if ms < 100 else f"{ms:.0f} ms"


def verdict(pred, meas, bar):
    if meas is None:
        return "-"
    if pred is None:
        return "**miss** (none predicted)"
    err = pred / meas - 1
    return f"{err * 100:+.0f}%" + ("" if abs(err) <= bar else " **miss**")


def cells(rec):
    inst = statistics.median(rec["install_runs"]) if rec["install_runs"] else None
    stat = statistics.median(rec["status_runs"])
    n = len(rec["install_runs"])
    meas = f"{fmt(inst)} ({'median of ' + str(n) if n > 1 else 'one run'})" if inst else f"failed: {rec['install_failed']}"
    if rec.get("installs_from"):
        meas += f", measured {rec['installs_from'][11:]}"
    return [
        f"{rec['name']} ({rec['repo']}@{rec['commit'][:7]})", rec["manager"], rec["disk"],
        sample_note(rec["install_manager"]),
        fmt(rec["install_pred"]), meas, verdict(rec["install_pred"], inst, INSTALL_BAR),
        fmt(rec["status_pred"]), f"{fmt(stat)} (median of {len(rec['status_runs'])})",
        verdict(rec["status_pred"], stat, STATUS_BAR), f"{rec['load']:.1f}",
    ]


def table(out):
    print("| project (repo@commit) | manager | disk | sample (source, method, size) | install predicted | "
          "install measured | error | git status predicted | git status measured | error | load |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    with open(out) as f:
        for line in f:
            print("| " + " | ".join(cells(json.loads(line))) + " |")


def main(argv):
    cmd = argv[1]
    if cmd == "list":
        print(" ".join(p[0] for p in PROJECTS if p[0] != "koa"))
    elif cmd == "manager":
        print(project(argv[2])[3])
    elif cmd == "prepare":
        prepare(argv[2], argv[3])
    elif cmd == "row":
        row(argv[2], argv[3], argv[4], int(argv[5]), argv[6])
    elif cmd == "table":
        table(argv[2])
    else:
        sys.exit(f"heldout.py: unknown step {cmd}")


if __name__ == "__main__":
    main(sys.argv)
