# Sourced by the bench scripts that time file creation on the local disk.

# disk_note DIR: one line naming the file system under DIR, printed with the results; on an
# ext4 without a journal, a warning that creates there are unsteady (see bench/loop-ext4.sh).
disk_note() {
    local source fstype
    source=$(findmnt -n -o SOURCE -T "$1")
    fstype=$(findmnt -n -o FSTYPE -T "$1")
    echo "disk under $1: $fstype on $source"
    if [ "$fstype" = ext4 ] && ! ls /proc/fs/jbd2 2>/dev/null | grep -q "^$(basename "$source")-"; then
        echo "WARNING: this ext4 has no journal, unlike WSL's: its creates are unsteady here;" \
            "make a journaled one with bench/loop-ext4.sh DIR and run with WORK=DIR" >&2
    fi
}
