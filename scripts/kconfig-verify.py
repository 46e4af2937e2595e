#!/usr/bin/env python3
"""Check that every option the config fragments ask for is in the final .config.

usage: kconfig-verify.py [--warn] FINAL_CONFIG FRAGMENT...

Fragments are read in order (a later one overrides an earlier one, as with
merge_config.sh). `CONFIG_X=v` must appear exactly so in the final .config;
`# CONFIG_X is not set` (or CONFIG_X=n) is satisfied when X is unset or
absent. Prints one line per dropped option; exits 1 if any (0 with --warn).

A generated fragment (configs/debian-mm.config: Debian's values of the
core options, checked satisfiable when it is generated) is a baseline, not a
request: a later fragment's options may select or rule out some of its
options (MEM_ALLOC_PROFILING selects PAGE_EXTENSION). Those are listed as
changed, without failing.

Options of another architecture than the final .config's (CONFIG_X86* on an
arm64 kernel, CONFIG_ARM64* on an x86 one) are skipped and counted: the
fragments every kernel shares may name one (NUMA's firmware option).
"""
import re
import sys

SET = re.compile(r'^(CONFIG_[A-Za-z0-9_]+)=(.*)$')
UNSET = re.compile(r'^# (CONFIG_[A-Za-z0-9_]+) is not set$')


def parse(path):
    """Return {option: value}; value None means 'not set'. (A .xz file is
    read decompressed: Debian's configs.)"""
    opts = {}
    if path.endswith('.xz'):
        import lzma
        opener = lzma.open
    else:
        opener = open
    with opener(path, 'rt') as f:
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


# Option name prefixes that only an architecture's own Kconfig defines.
ARCH_PREFIX = {'arm64': re.compile(r'^CONFIG_ARM64(_|$)'),
               'x86': re.compile(r'^CONFIG_X86(_|$)')}


def foreign(final):
    """The prefix regexes of the architectures the final .config is not."""
    mine = 'arm64' if final.get('CONFIG_ARM64') == 'y' else 'x86'
    return [rx for arch, rx in ARCH_PREFIX.items() if arch != mine]


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
    soft = set()
    for frag in argv[1:]:
        with open(frag) as f:
            if f.readline().startswith('# generated-by: '):
                soft.add(frag)
        for opt, val in parse(frag).items():
            wanted[opt] = val
            origin[opt] = frag
    bad = []
    changed = []
    other = foreign(final)
    skipped = [o for o in wanted if any(rx.match(o) for rx in other)]
    for opt in skipped:
        del wanted[opt]
    for opt, val in wanted.items():
        got = final.get(opt)
        if got != val:
            want_s = 'not set' if val is None else val
            got_s = 'not set' if got is None else got
            line = (f'{opt}: wanted {want_s}, got {got_s} '
                    f'(from {origin[opt].rsplit("/", 1)[-1]})')
            (changed if origin[opt] in soft else bad).append(line)
    for line in changed:
        print(f'  changed by a later fragment: {line}')
    for line in bad:
        print(f'  dropped: {line}')
    print(f'{len(wanted) - len(bad) - len(changed)}/{len(wanted)} requested '
          f'options are set as asked in {argv[0]}'
          + (f' ({len(changed)} of the generated baseline changed by later '
             f'fragments)' if changed else '')
          + (f'; {len(skipped)} of another architecture skipped'
             if skipped else ''))
    return 1 if bad and not warn_only else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
