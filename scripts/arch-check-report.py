#!/usr/bin/env python3
"""The table of make arch-check (scripts/arch-check.sh).

usage: arch-check-report.py BUILDS_TSV LOGDIR OUTDIR TEST_SUMMARY

BUILDS_TSV: config, arch, toolchain, build seconds, warnings, warnings in
files the series changes (one line per config). From each config's boot
log (LOGDIR/<config>-main.log, or -arch-kunit.log): the page reference mode, the call
sites of vmlinux, the page size; from TEST_SUMMARY (make test's lines
"config: name: ok|FAIL|SKIP"): passed, failed and skipped KUnit cases and
kselftests.
"""
import os
import re
import sys

PAGE_REFS = re.compile(r'alloc_tag: page references in (page->flags: \d+ of \d+ free bits'
                       r'|page_ext[^\r\n]*)')
SITES = re.compile(r'alloc_tag: (\d+) allocation call sites')
AUDIT = re.compile(r'^ALLOCPROF-AUDIT (.*)$')


def main(argv):
    builds, logdir, outdir, summary = argv
    results = {}
    if os.path.exists(summary):
        for line in open(summary, errors='replace'):
            m = re.match(r'^(\S+): (\S+): (ok|FAIL|SKIP)$', line.strip())
            if not m:
                continue
            config, name, verdict = m.groups()
            kind = 'ksft' if name.startswith('ksft.') else \
                'boot' if name.startswith('boot.') or name == 'build' else 'kunit'
            r = results.setdefault(config, {})
            r.setdefault((kind, verdict), 0)
            r[(kind, verdict)] += 1
    print('| config | arch | toolchain | page size | build | warnings (series files) '
          '| page references | vmlinux sites | KUnit ok/failed | kselftests ok/failed/skipped | audit |')
    print('|---|---|---|---|---|---|---|---|---|---|---|')
    for line in open(builds):
        config, arch, tc, secs, nwarn, new = line.rstrip('\n').split('\t')
        log = os.path.join(logdir, f'{config}-main.log')
        if not os.path.exists(log):
            log = os.path.join(logdir, f'{config}-arch-kunit.log')
        text = open(log, errors='replace').read().replace('\r', '') if os.path.exists(log) else ''
        m = PAGE_REFS.search(text)
        refs = m.group(1) if m else '?'
        m = SITES.search(text)
        sites = m.group(1) if m else '?'
        audits = AUDIT.findall(text)
        audit = audits[-1] if audits else '?'
        page = '?'
        cfg = os.path.join(outdir, config, '.config')
        if os.path.exists(cfg):
            c = open(cfg).read()
            for size, opt in (('16K', 'CONFIG_ARM64_16K_PAGES=y'),
                              ('64K', 'CONFIG_ARM64_64K_PAGES=y')):
                if opt in c:
                    page = size
            if page == '?':
                page = '4K'
        r = results.get(config, {})
        kunit = f"{r.get(('kunit', 'ok'), 0)}/{r.get(('kunit', 'FAIL'), 0)}"
        ksft = (f"{r.get(('ksft', 'ok'), 0)}/{r.get(('ksft', 'FAIL'), 0)}/"
                f"{r.get(('ksft', 'SKIP'), 0)}")
        print(f'| {config} | {arch} | {tc} | {page} | {int(secs) // 60}m{int(secs) % 60:02d}s '
              f'| {nwarn} ({new}) | {refs} | {sites} | {kunit} | {ksft} | {audit} |')


if __name__ == '__main__':
    main(sys.argv[1:])
