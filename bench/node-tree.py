"""A synthetic Node project for the benches of issue 43: a few hundred tracked files beside a
node_modules of many packages of varied sizes, the shape of most Node repositories.

    bench/node-tree.py DIR [PACKAGES] [TRACKED] [SEED]

DIR gets `src/` (TRACKED files, default 300), `package.json`, a `package-lock.json`
(lockfileVersion 3) naming every package, `.gitignore` (node_modules) committed in a fresh git
repository, and `node_modules/` with PACKAGES packages (default 800): a tenth scoped
(`@scope/name`), one in twenty with its own nested `node_modules/` of one to three packages,
and `.bin/` links. Files per package follow a log-normal spread (median about 18, a few
thousand at most) so the tree holds about 40,000 files at 800 packages; a package's files sit
in a few folders (lib/, dist/, ...) as published packages' do.
"""
import json
import math
import os
import random
import subprocess
import sys


def package(root, rng, files):
    """Writes one package of `files` files below `root`."""
    os.makedirs(root, exist_ok=True)
    with open(os.path.join(root, "package.json"), "w") as f:
        json.dump({"name": os.path.basename(root), "version": "1.0.0"}, f)
    folders = [""] + ["lib", "dist", "src", "types", "esm", "cjs"][: max(1, int(math.log2(files + 1)) - 1)]
    for i in range(files - 1):
        sub = folders[i % len(folders)]
        if files > 200 and sub:
            sub = os.path.join(sub, "m%02d" % (i % 17))
        d = os.path.join(root, sub)
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, "f%04d.js" % i), "w") as f:
            f.write("module.exports = %d;\n" % i * rng.randint(1, 60))


def main():
    root = sys.argv[1]
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 800
    tracked = int(sys.argv[3]) if len(sys.argv) > 3 else 300
    rng = random.Random(int(sys.argv[4]) if len(sys.argv) > 4 else 43)
    for i in range(tracked):
        d = os.path.join(root, "src", "d%02d" % (i // 50))
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, "f%03d.ts" % i), "w") as f:
            f.write("export const v%d = %d;\n" % (i, i) * 8)
    nm = os.path.join(root, "node_modules")
    os.makedirs(os.path.join(nm, ".bin"), exist_ok=True)
    lock = {"": {"name": "synthetic", "version": "1.0.0"}}
    total = 0
    for i in range(n):
        name = ("@scope%d/pkg%04d" % (i % 7, i)) if i % 10 == 0 else "pkg%04d" % i
        files = max(1, min(4000, int(rng.lognormvariate(math.log(18), 1.3))))
        package(os.path.join(nm, name), rng, files)
        total += files
        lock["node_modules/" + name] = {"version": "1.0.0"}
        if i % 20 == 7:
            for j in range(rng.randint(1, 3)):
                inner = "node_modules/%s/node_modules/dep%d" % (name, j)
                k = max(1, int(rng.lognormvariate(math.log(10), 1.0)))
                package(os.path.join(root, inner), rng, k)
                total += k
                lock[inner] = {"version": "0.1.0"}
        if i % 40 == 3:
            os.symlink("../%s/f0000.js" % name, os.path.join(nm, ".bin", "bin%04d" % i))
    with open(os.path.join(nm, ".package-lock.json"), "w") as f:
        json.dump({"lockfileVersion": 3, "packages": lock}, f)
    with open(os.path.join(root, "package-lock.json"), "w") as f:
        json.dump({"name": "synthetic", "lockfileVersion": 3, "packages": lock}, f, indent=1)
    with open(os.path.join(root, "package.json"), "w") as f:
        json.dump({"name": "synthetic", "version": "1.0.0"}, f)
    with open(os.path.join(root, ".gitignore"), "w") as f:
        f.write("node_modules/\n")
    git = ["git", "-C", root, "-c", "gc.auto=0", "-c", "maintenance.auto=false",
           "-c", "user.name=bench", "-c", "user.email=bench@example.invalid"]
    subprocess.run(git[:3] + ["init", "-q"], check=True)
    subprocess.run(git + ["add", "-A"], check=True)
    subprocess.run(git + ["commit", "-q", "-m", "init"], check=True)
    subprocess.run(git[:3] + ["gc", "-q"], check=True)
    print("%s: %d packages, %d files in node_modules" % (root, len(lock) - 1, total), file=sys.stderr)


if __name__ == "__main__":
    main()
