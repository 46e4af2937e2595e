#!/usr/bin/env python3
"""Check that every option the config fragments ask for is in the final .config.

usage: kconfig-verify.py [--warn] FINAL_CONFIG FRAGMENT...

Fragments are read in order (a later one overrides an earlier one, as with
merge_config.sh). `CONFIG_X=v` must appear exactly so in the final .config;
`# CONFIG_X is not set` (or CONFIG_X=n) is satisfied when X is unset or
absent. Prints one line per dropped option; exits 1 if any (0 with --warn).
"""
import re
import sys

SET = re.compile(r'^(CONFIG_[A-Za-z0-9_]+)=(.*)$')
UNSET = re.compile(r'^# (CONFIG_[A-Za-z0-9_]+) is not set$')


def parse(path):
    """Return {option: value}; value None means 'not set'."""
    opts = {}
    with open(path) as f:
        for line in f:
            line = line.strip()
            m = SET.match(line)
            if m:
                opts[m.group(1)] = None if m.group(2) == 'n' else m.group(2)
                continue
            m = UNSET.match(line)
            if m:
                opts[m.group(1)] = None
    return opts


def main(argv):
    warn_only = False
    if argv and argv[0] == '--warn':
        warn_only = True
        argv = argv[1:]
    if len(argv) < 2:
        sys.exit(__doc__)
    final = parse(argv[0])
    wanted = {}
    origin = {}
    for frag in argv[1:]:
        for opt, val in parse(frag).items():
            wanted[opt] = val
            origin[opt] = frag
    bad = []
    for opt, val in wanted.items():
        got = final.get(opt)
        if got != val:
            want_s = 'not set' if val is None else val
            got_s = 'not set' if got is None else got
            bad.append(f'{opt}: wanted {want_s}, got {got_s} '
                       f'(from {origin[opt].rsplit("/", 1)[-1]})')
    for line in bad:
        print(f'  dropped: {line}')
    print(f'{len(wanted) - len(bad)}/{len(wanted)} requested options are set '
          f'as asked in {argv[0]}')
    return 1 if bad and not warn_only else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
