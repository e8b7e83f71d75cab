#!/usr/bin/env bash
# A journaled ext4 on a loop device, mounted at DIR, for the benches' WORK (`WORK=DIR
# bench/accuracy.sh ...`) on a machine whose own ext4 has no journal.
#
# Why: WSL's Linux disk is a journaled ext4 (in a VHDX). On an ext4 without a journal the
# kernel's inode allocator checks each free inode it considers for a recent deletion
# (`recently_deleted()` in fs/ext4/ialloc.c), so a create's cost depends on what was deleted
# before it: on the virtual machine these benches were run on (root ext4 mounted without a
# journal, `discard`), 1,000 creates took 80-830 us each from one minute to the next, and
# writing a 345 MB target/ tree of 1,457 files from memory took 0.23 s in one run and 1.3 s in
# the next; on a journaled ext4 image on the same disk, 25 us and 0.22-0.23 s, run after run.
#
# Usage: bench/loop-ext4.sh DIR [SIZE]   (root; SIZE of the sparse image DIR.img, default 16G;
#        a DIR that is already a mount point is left as it is; undo: umount DIR && rm DIR.img)
set -euo pipefail
DIR=${1:?usage: bench/loop-ext4.sh DIR [SIZE]}
SIZE=${2:-16G}
mkdir -p "$DIR"
if mountpoint -q "$DIR"; then
    echo "$DIR is already a mount point: left as it is" >&2
    exit 0
fi
[ -e "$DIR.img" ] || { truncate -s "$SIZE" "$DIR.img" && mkfs.ext4 -q -F "$DIR.img"; }
mount -o loop "$DIR.img" "$DIR"
echo "journaled ext4 ($SIZE image $DIR.img) mounted at $DIR" >&2
