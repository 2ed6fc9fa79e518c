#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""repath.py DIR OLD NEW [OLD NEW]: in every text file and symlink under
DIR, OLD becomes NEW, the file's times kept: kbuild's saved commands name
the source and build directories by absolute path, and a copied build
tree must see the same commands with its own paths, or every object
rebuilds (mutants.sh)."""
import os
import sys


def main(top, *args):
    pairs = [(args[i].encode(), args[i + 1].encode())
             for i in range(0, len(args), 2)]
    for d, _, names in os.walk(top):
        for n in names:
            p = os.path.join(d, n)
            if os.path.islink(p):
                t = os.readlink(p).encode()
                for old, new in pairs:
                    t = t.replace(old, new)
                os.unlink(p)
                os.symlink(t, p)
                continue
            data = open(p, 'rb').read()
            if b'\0' in data:
                continue
            new = data
            for old, rep in pairs:
                new = new.replace(old, rep)
            if new != data:
                st = os.stat(p)
                open(p, 'wb').write(new)
                os.utime(p, ns=(st.st_atime_ns, st.st_mtime_ns))


if __name__ == '__main__':
    if len(sys.argv) < 4 or len(sys.argv) % 2:
        sys.exit(__doc__)
    main(*sys.argv[1:])
