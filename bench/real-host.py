"""The record bench/real-host.sh writes (see there): one JSON of what wsl-place sees on this host."""
import argparse, json, os, shutil, subprocess, sys, time
from pathlib import Path

TOOL = os.environ.get("WSL_PLACE", "wsl-place")
DRIVE_FSTYPES = {"9p", "virtiofs", "drvfs", "lxfs", "wslfs"}


def run(args, limit, cwd=None, env=None):
    """(exit code, stdout, first line of stderr) of args within limit seconds; code None when it
    could not start or took longer."""
    try:
        done = subprocess.run(args, capture_output=True, timeout=limit, cwd=cwd, env=env,
                              stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired) as e:
        return None, b"", str(e)
    err = done.stderr.decode("utf-8", "replace").strip().splitlines()
    return done.returncode, done.stdout, err[0] if err else ""


def tool_json(args, limit=300):
    """A wsl-place command's JSON document, or {"error": what it said}."""
    code, out, err = run([TOOL, *args, "--format", "json"], limit)
    if code in (0, 1):
        try:
            return json.loads(out)
        except ValueError:
            pass
    return {"error": err or f"exit {code}", "command": " ".join(["wsl-place", *args])}


def unescape(field):
    """mountinfo's octal escapes (\\040 space, \\134 backslash)."""
    out, i = bytearray(), 0
    raw = field.encode("utf-8", "surrogateescape")
    while i < len(raw):
        if raw[i] == 0x5C and i + 3 < len(raw) and all(0x30 <= b <= 0x37 for b in raw[i + 1:i + 4]):
            out.append(int(raw[i + 1:i + 4], 8))
            i += 4
        else:
            out.append(raw[i])
            i += 1
    return out.decode("utf-8", "surrogateescape")


def mounts(proc):
    """Each mount line of a Windows drive or of WSL itself (and /), with the tool's classification;
    and the first of those reports, for what it says of the host and the Windows side."""
    rows, first = [], {}
    for line in (proc / "self/mountinfo").read_text("utf-8", "surrogateescape").splitlines():
        fields = line.split()
        if " - " not in line or len(fields) < 7:
            continue
        fstype = line.split(" - ", 1)[1].split()[0]
        point = unescape(fields[4])
        if fstype not in DRIVE_FSTYPES and point != "/":
            continue
        row = {"line": line}
        report = tool_json(["check", "--no-probe", "--scan-budget-ms", "200", point], 60)
        if "error" in report:
            row["error"] = report["error"]
        else:
            row["mount"] = report.get("mount")
            row["windows_path"] = report.get("paths", {}).get("windows")
            first = first or report
        rows.append(row)
    return rows, first


def virtiofs_tags(proc):
    """WSL's links /run/wsl/virtiofs/<tag> -> Windows path, beside a /proc root named proc."""
    if proc.name != "proc":
        return {}
    links = proc.parent / "run/wsl/virtiofs"
    try:
        return {p.name: os.readlink(p) for p in sorted(links.iterdir()) if p.is_symlink()}
    except OSError:
        return {}


def decode(raw):
    """Windows programs answer in UTF-16LE (wsl.exe without WSL_UTF8) or the console's code page."""
    text = raw.decode("utf-16-le", "replace") if b"\x00" in raw else raw.decode("utf-8", "replace")
    return "\n".join(l.strip() for l in text.replace("\r", "").splitlines() if l.strip()) or None


def windows_program(drive, name):
    """name from the C: drive's System32 (present whatever appendWindowsPath says), else PATH."""
    local = Path(drive) / "Windows/System32" / name if drive else None
    return str(local) if local and os.access(local, os.X_OK) else shutil.which(name)


def versions(drive):
    """`wsl.exe --version` and `cmd.exe /c ver`, started from the C: drive, when interop is on."""
    found = {"wsl": None, "windows": None, "interop": bool(os.environ.get("WSL_INTEROP"))}
    if not found["interop"]:
        return found
    cwd = drive if drive and os.path.isdir(drive) else None
    asks = {"wsl": ("wsl.exe", ["--version"]), "windows": ("cmd.exe", ["/d", "/c", "ver"])}
    for key, (name, args) in asks.items():
        program = windows_program(drive, name)
        if program:
            code, out, _ = run([program, *args], 5, cwd=cwd, env={**os.environ, "WSL_UTF8": "1"})
            found[key] = decode(out) if code == 0 else None
    return found


def record(args):
    proc = Path(os.environ.get("WSL_PLACE_PROC_ROOT") or "/proc")
    rows, first = mounts(proc)
    drive = args.drive or next((r["mount"]["mount_point"] for r in rows
                                if r.get("windows_path") == "C:\\" and r.get("mount")), None)
    drive = drive or ("/mnt/c" if os.path.isdir("/mnt/c") else None)
    budget = ["--probe-budget-ms", str(args.probe_budget_ms)] if args.probe_budget_ms else []
    home = os.environ.get("HOME")
    verify = tool_json(["check", "--verify", *budget, args.repo]) if args.repo else None
    windows = (verify or {}).get("windows") or first.get("windows")
    code, out, _ = run([TOOL, "--version"], 10)
    return {
        "schema": 1,
        "recorded_unix": int(time.time()),
        "wsl_place": out.decode("utf-8", "replace").strip() if code == 0 else None,
        "host": first.get("host"),
        "versions": versions(drive),
        "mounts": rows,
        "virtiofs_tags": virtiofs_tags(proc),
        "probe": {
            "c_drive": tool_json(["probe", *budget, drive]) if drive else None,
            "home": tool_json(["probe", *budget, home]) if home else None,
        },
        "check_verify": verify,
        "windows": windows,
    }


def main():
    parser = argparse.ArgumentParser(description="Record what wsl-place sees on this WSL host.")
    parser.add_argument("--repo")
    parser.add_argument("--out", default="wsl-place-record.json")
    parser.add_argument("--drive")
    parser.add_argument("--probe-budget-ms", type=int)
    parser.add_argument("--yes", action="store_true")
    args = parser.parse_args()
    if shutil.which(TOOL) is None and not os.access(TOOL, os.X_OK):
        sys.exit(f"{TOOL} was not found; install wsl-place or set WSL_PLACE to the binary.")
    if args.repo and not os.path.isdir(args.repo):
        sys.exit(f"{args.repo} is not a folder; pass --repo the repository to check.")
    text = json.dumps(record(args), indent=2, ensure_ascii=False) + "\n"
    print(text, end="")
    print(f"\nAbove is everything that would be written to {args.out}: paths, user names, mount lines.",
          file=sys.stderr)
    if not args.yes:
        if not sys.stdin.isatty():
            sys.exit("Not written: answer y on a terminal, or pass --yes.")
        if input(f"Write it to {args.out}? [y/N] ").strip().lower() not in ("y", "yes"):
            sys.exit("Not written.")
    try:
        Path(args.out).write_text(text, "utf-8")
    except OSError as e:
        sys.exit(f"Cannot write {args.out}: {e.strerror}; pass --out a file in a folder you can write.")
    print(f"Written to {args.out}: attach it to the issue.", file=sys.stderr)


if __name__ == "__main__":
    main()
