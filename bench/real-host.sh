#!/usr/bin/env bash
# A record of this WSL host as wsl-place sees it, one JSON file to attach to an issue: the WSL and
# Windows versions (when interop is on: `wsl.exe --version`, `cmd.exe /c ver`, 5 s each), every
# mount line of a Windows drive or WSL's own with the tool's classification (`check --format json`
# on its mount point), WSL's virtiofs tag records (/run/wsl/virtiofs), `probe` on the C: drive and
# on ~, `check --verify` on a repository you name, and the Windows tools found.
#
# Nothing is written before you have seen all of it: the script prints the whole record (it holds
# paths with your Linux and Windows user names, your mount options and the repository's path)
# and asks y/N.
#
# usage: bench/real-host.sh [--repo DIR] [--out FILE] [--drive DIR] [--probe-budget-ms MS] [--yes]
#   --repo DIR     a repository to run `check --verify` on (none: left out)
#   --out FILE     where to write (default: ./wsl-place-record.json)
#   --drive DIR    the C: drive's mount point (default: the mount wsl-place places at C:\, else /mnt/c)
#   --yes          write without asking (for tests)
# environment: WSL_PLACE (the binary; default `wsl-place` on PATH); WSL_PLACE_PROC_ROOT (a fixture
# /proc root, as the tests use; WSL's records are read from the `run` folder beside a root named proc).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
command -v python3 >/dev/null || { echo "real-host.sh needs python3 (sudo apt install python3)" >&2; exit 2; }
exec python3 "$here/real-host.py" "$@"
