#!/usr/bin/env python3
"""Write a newc cpio archive (an initramfs) without needing root.

usage: mkcpio.py OUTPUT [--node PATH:c|b:MAJOR:MINOR[:MODE]]... [DIR]...

Every DIR is merged into the archive root in order (later ones override
earlier ones). Entries are owned by root, have mtime 0 and keep their
permission bits, so the archive is reproducible. --node adds a device node.
"""
import os
import stat
import sys


class Cpio:
    def __init__(self, out):
        self.out = out
        self.ino = 1000
        self.pos = 0

    def _write(self, data):
        self.out.write(data)
        self.pos += len(data)

    def _pad(self):
        if self.pos % 4:
            self._write(b'\0' * (4 - self.pos % 4))

    def entry(self, name, mode, data=b'', rdev=(0, 0), nlink=1):
        name_b = name.encode() + b'\0'
        self.ino += 1
        fields = [self.ino, mode, 0, 0, nlink, 0, len(data), 0, 0,
                  rdev[0], rdev[1], len(name_b), 0]
        self._write(b'070701' + b''.join(b'%08X' % f for f in fields))
        self._write(name_b)
        self._pad()
        self._write(data)
        self._pad()

    def trailer(self):
        self.entry('TRAILER!!!', 0)
        # Pad to 512 so that archives can be concatenated.
        if self.pos % 512:
            self._write(b'\0' * (512 - self.pos % 512))


def add_tree(cpio, root, seen):
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames.sort()
        rel_dir = os.path.relpath(dirpath, root)
        names = sorted(dirnames + filenames)
        if rel_dir != '.' and rel_dir not in seen:
            st = os.lstat(dirpath)
            cpio.entry(rel_dir, stat.S_IFDIR | stat.S_IMODE(st.st_mode), nlink=2)
            seen.add(rel_dir)
        for name in names:
            path = os.path.join(dirpath, name)
            rel = os.path.normpath(os.path.join(rel_dir, name))
            st = os.lstat(path)
            if stat.S_ISDIR(st.st_mode):
                continue  # emitted when walked
            perm = stat.S_IMODE(st.st_mode)
            if stat.S_ISLNK(st.st_mode):
                cpio.entry(rel, stat.S_IFLNK | 0o777, os.readlink(path).encode())
            elif stat.S_ISREG(st.st_mode):
                with open(path, 'rb') as f:
                    cpio.entry(rel, stat.S_IFREG | perm, f.read())
            seen.add(rel)


def main(argv):
    if not argv:
        sys.exit(__doc__)
    output, args = argv[0], argv[1:]
    nodes, dirs = [], []
    while args:
        a = args.pop(0)
        if a == '--node':
            nodes.append(args.pop(0))
        else:
            dirs.append(a)
    tmp = output + '.tmp'
    with open(tmp, 'wb') as f:
        cpio = Cpio(f)
        seen = set()
        for d in dirs:
            add_tree(cpio, d, seen)
        for spec in nodes:
            parts = spec.split(':')
            path, kind, major, minor = parts[:4]
            mode = int(parts[4], 8) if len(parts) > 4 else 0o600
            fmt = stat.S_IFCHR if kind == 'c' else stat.S_IFBLK
            cpio.entry(path.lstrip('/'), fmt | mode, rdev=(int(major), int(minor)))
        cpio.trailer()
    os.replace(tmp, output)


if __name__ == '__main__':
    main(sys.argv[1:])
