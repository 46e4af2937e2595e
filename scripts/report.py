#!/usr/bin/env python3
"""Turn the serial logs of `make test` into one result line per test.

usage:
  report.py scan LOG [--allow REGEX]...
      Print the kernel reports (BUG, WARNING, KASAN, lockdep, ...) found in
      LOG; exit 1 if there are any.
  report.py summary MANIFEST SUMMARY_FILE
      Read the boots listed in MANIFEST (written by test.sh), print
      "config: test: ok|FAIL|SKIP" lines, the details of every failure and,
      as the last line, "N passed, N failed, N skipped". Also written to
      SUMMARY_FILE. Exit 1 on any failure.

MANIFEST lines are tab-separated:
  config  build  BUILD_LOG  ok|fail
  config  main   RUN  LOG  STATUS_FILE  KUNIT(0|1)  KSFT_TARGETS(comma list or -)
  config  boot   RUN  LOG  STATUS_FILE  SCRIPT
"""
import os
import re
import sys

# ---------------------------------------------------------------------------
# Serial log lines

TIMESTAMP = re.compile(r'^\[\s*\d+\.\d+\] ?')


class Line:
    """One console line: its number, the text, whether printk wrote it."""

    def __init__(self, number, raw):
        self.number = number
        self.raw = raw
        m = TIMESTAMP.match(raw)
        self.kernel = bool(m)
        self.text = raw[m.end():] if m else raw


def read_log(path):
    try:
        with open(path, 'rb') as f:
            data = f.read().decode('utf-8', 'replace')
    except OSError:
        return []
    data = data.replace('\r', '')
    return [Line(i + 1, raw) for i, raw in enumerate(data.split('\n'))]


def read_status(path):
    status = {}
    try:
        with open(path) as f:
            for line in f:
                if '=' in line:
                    k, v = line.strip().split('=', 1)
                    status[k] = v
    except OSError:
        pass
    return status


# ---------------------------------------------------------------------------
# Kernel report scanner

REPORT_PATTERNS = [
    r'BUG:', r'WARNING:', r'\bOops\b', r'KASAN', r'UBSAN',
    r'possible circular locking', r'inconsistent lock state',
    r'possible recursive locking', r'suspicious RCU usage',
    r'INFO: lockdep is turned off', r'DEBUG_LOCKS_WARN_ON', r'held lock freed',
    r'lock held when returning to user space',
    r'sleeping function called from invalid context', r'Call Trace:',
    r'Kernel panic', r'underflow', r'general protection fault',
    r'kernel BUG at', r'list_add corruption', r'list_del corruption',
    r'refcount_t:', r'soft lockup', r'hung_task', r'blocked for more than',
    r'rcu_sched self-detected stall', r'rcu: INFO:',
    r'^BUG \S+ \((Not t|T)ainted\)',  # SLUB debug object reports
    r'Unable to handle kernel',
    # Reports of allocation profiling itself (CONFIG_MEM_ALLOC_PROFILING_DEBUG
    # and the module unload check); test_alloc_tag_leak leaks on purpose.
    r'was allocated without a call site tag', r'alloc_tag: negative sum',
    r'alloc_tag: call site tag changed',
    # Kernel test suites that report failures without failing their load.
    r'Test failed',
]
REPORT_RE = re.compile('|'.join(f'(?:{p})' for p in REPORT_PATTERNS))


# A module unloaded with allocations alive is a leak unless they are freed
# later in the same boot (RCU-deferred frees are); test_alloc_tag_leak leaks
# on purpose, and its tests free what it left.
UNLOAD_LIVE_RE = re.compile(r'alloc_tag: module (\S+) unloaded with .* still alive')
UNLOAD_FREED_RE = re.compile(r'alloc_tag: module (\S+): the last allocation left after unload was freed')


def scan(lines, allow):
    """Line indexes of kernel reports not exempted by an allow regex."""
    hits = []
    pending = {}
    for i, line in enumerate(lines):
        if REPORT_RE.search(line.text) and not any(a.search(line.text) for a in allow):
            hits.append(i)
        m = UNLOAD_LIVE_RE.search(line.text)
        if m and m.group(1) != 'test_alloc_tag_leak':
            pending.setdefault(m.group(1), i)
        m = UNLOAD_FREED_RE.search(line.text)
        if m:
            pending.pop(m.group(1), None)
    return sorted(hits + [i for i in pending.values()
                          if not any(a.search(lines[i].text) for a in allow)])


def context(lines, hits, before=3, after=12, limit=80):
    """Log excerpt around the hits, '>' marking the matching lines."""
    out, shown, last = [], 0, -1
    hit_set = set(hits)
    for h in hits:
        lo, hi = max(0, h - before, last + 1), min(len(lines), h + after + 1)
        if lo >= hi:
            continue
        if last >= 0 and lo > last + 1:
            out.append('      ...')
        for i in range(lo, hi):
            mark = '>' if i in hit_set else ' '
            out.append(f'  {mark}{lines[i].number:6d}| {lines[i].raw}')
            shown += 1
        last = hi - 1
        if shown >= limit:
            rest = len([x for x in hits if x > last])
            if rest:
                out.append(f'      ... and {rest} more matching line(s)')
            break
    return out


# ---------------------------------------------------------------------------
# KTAP

KTAP_VERSION = re.compile(r'^(?:K?TAP) version \d+')
KTAP_SUBTEST = re.compile(r'^# Subtest: (.*)$')
KTAP_PLAN = re.compile(r'^1\.\.(\d+)')
KTAP_RESULT = re.compile(r'^(not ok|ok) (\d+)(?: -)?(?: (.*?))?\s*$')


class Group:
    def __init__(self):
        self.name = None
        self.plan = None
        self.results = []


class Result:
    def __init__(self, ok, number, desc, directive, line_no):
        self.ok = ok
        self.number = number
        self.desc = desc
        self.directive = directive
        self.line_no = line_no
        self.children = None  # Group of nested results, if any

    @property
    def skipped(self):
        return self.directive.upper().startswith('SKIP')


def parse_ktap(lines):
    """Parse KTAP/TAP lines into a list of top-level Groups.

    Nesting follows indentation: a subtest's header, plan and results are
    indented four more spaces than its own result line. Non-KTAP lines are
    ignored, so interleaved console noise does not matter.
    """
    tops = []
    open_groups = {}  # indent -> Group

    def group_at(indent, new=False):
        if new or indent not in open_groups:
            g = Group()
            open_groups[indent] = g
            # A fresh group invalidates deeper ones.
            for k in [k for k in open_groups if k > indent]:
                del open_groups[k]
            if indent == 0:
                tops.append(g)
            return g
        return open_groups[indent]

    for line in lines:
        stripped = line.text.lstrip(' ')
        indent = len(line.text) - len(stripped)
        stripped = stripped.rstrip()
        if KTAP_VERSION.match(stripped):
            g = open_groups.get(indent)
            # Re-use a group that only has a name so far ("# Subtest" first).
            if g is None or g.results or g.plan is not None:
                group_at(indent, new=True)
            continue
        m = KTAP_SUBTEST.match(stripped)
        if m:
            g = group_at(indent)
            if g.results or g.name is not None:
                g = group_at(indent, new=True)
            g.name = m.group(1).strip()
            continue
        m = KTAP_PLAN.match(stripped)
        if m:
            group_at(indent).plan = int(m.group(1))
            continue
        m = KTAP_RESULT.match(stripped)
        if m:
            desc, directive = m.group(3) or '', ''
            if ' # ' in desc or desc.startswith('# '):
                desc, directive = re.split(r'\s*#\s*', desc, maxsplit=1)
            r = Result(m.group(1) == 'ok', int(m.group(2)), desc.strip(),
                       directive.strip(), line.number)
            child = open_groups.pop(indent + 4, None)
            for k in [k for k in open_groups if k > indent + 4]:
                del open_groups[k]
            if child is not None:
                r.children = child
            group_at(indent).results.append(r)
    return tops


def flatten(group, prefix, out, problems):
    """Leaf results as (name, state, result); plan problems appended."""
    if group.plan is not None and group.plan != len(group.results):
        problems.append((f'{prefix}plan' if prefix else 'plan',
                         f'plan says 1..{group.plan} but {len(group.results)} '
                         f'result(s) were printed (crash or truncated output?)'))
    for r in group.results:
        name = f'{prefix}{r.desc or r.number}'
        if r.children is not None and r.children.results:
            flatten(r.children, name + '.', out, problems)
            child_failed = any(not c.ok for c in r.children.results)
            if not r.ok and not child_failed:
                out.append((name, 'FAIL', r))
            continue
        if r.children is not None and r.children.plan not in (None, 0):
            problems.append((name, f'plan says 1..{r.children.plan} but no results'))
        if not r.ok:
            out.append((name, 'FAIL', r))
        elif r.skipped:
            out.append((name, 'SKIP', r))
        else:
            out.append((name, 'ok', r))


# ---------------------------------------------------------------------------
# Collecting results

class Report:
    def __init__(self):
        self.results = []  # (config, name, state)
        self.details = []  # (config, name, [lines])
        self.skip_why = {}  # (config, name) -> the directive of a skip

    def add(self, config, name, state, detail=None):
        self.results.append((config, name, state))
        if detail:
            self.details.append((config, name, detail))

    def fail(self, config, name, why, log=None, excerpt=None):
        detail = [why]
        if log:
            detail.append(f'log: {log}')
        if excerpt:
            detail.extend(excerpt)
        self.add(config, name, 'FAIL', detail)


def between(lines, begin, end):
    """(start index, end index or None) pairs of marker-delimited sections."""
    sections, start = [], None
    for i, line in enumerate(lines):
        if line.kernel:
            continue
        if begin(line.text):
            if start is not None:
                sections.append((start, None))
            start = i
        elif start is not None and end(line.text):
            sections.append((start, i))
            start = None
    if start is not None:
        sections.append((start, None))
    return sections


def excerpt_around(lines, index, before=5, after=15):
    return context(lines, [index], before, after)


def check_boot(rep, config, run, lines, status, allow, log):
    """The per-boot checks: timeout, ALLOCPROF-EXIT, kernel reports."""
    name = f'boot.{run}.log'
    if not lines:
        rep.fail(config, name, 'no serial log (QEMU did not start?)', log)
        return
    if status.get('timed_out') == '1':
        rep.fail(config, name, f'timeout: the guest was killed after {status.get("timeout")}s',
                 log, context(lines, [len(lines) - 1], before=30, after=0))
        return
    hits = scan(lines, allow)
    if hits:
        rep.fail(config, name, f'{len(hits)} kernel report line(s) in the serial log', log,
                 context(lines, hits))
        return
    if status.get('guest_exit', 'none') == 'none':
        rep.fail(config, name, 'no ALLOCPROF-EXIT line: the guest crashed, panicked or '
                 f'rebooted (qemu status {status.get("qemu_status")})', log,
                 context(lines, [len(lines) - 1], before=30, after=0))
        return
    rep.add(config, name, 'ok')
    check_audit(rep, config, run, lines, log)


AUDIT_RE = re.compile(r'^ALLOCPROF-AUDIT (?:persistent=(\d+)|(none|failed.*))')


def check_audit(rep, config, run, lines, log):
    """The global accounting audit the guest ran after its tests (debug
    kernels, scripts/guest/allocprof-audit): no persistent difference."""
    for i, line in enumerate(lines):
        m = AUDIT_RE.match(line.text)
        if not m:
            continue
        name = f'boot.{run}.audit'
        if m.group(2) == 'none':
            return
        if m.group(2):
            rep.fail(config, name, f'the audit could not run: {line.text}', log,
                     excerpt_around(lines, i, before=30, after=2))
        elif int(m.group(1)):
            rep.fail(config, name, f'{m.group(1)} site(s) differ from their references '
                     'in every audit', log, excerpt_around(lines, i, before=40, after=2))
        else:
            rep.add(config, name, 'ok')
        return


def user_lines(lines, start, end):
    return [l for l in lines[start + 1:end] if not l.kernel]


def report_ktap(rep, config, prefix, doc_lines, log, lines):
    tops = parse_ktap(doc_lines)
    results, problems = [], []
    for g in tops:
        flatten(g, prefix, results, problems)
    for name, state, r in results:
        if state == 'FAIL':
            idx = next((i for i, l in enumerate(lines) if l.number == r.line_no), 0)
            rep.fail(config, name, f'not ok (log line {r.line_no})', log,
                     excerpt_around(lines, idx, before=12, after=2))
        else:
            rep.add(config, name, state)
            if state == 'SKIP':
                rep.skip_why[(config, name)] = r.directive
    for name, why in problems:
        rep.fail(config, name, f'malformed result: {why}', log)
    return tops, results


def report_kunit(rep, config, lines, log, prefix=''):
    kernel = [l for l in lines if l.kernel]
    tops, results = report_ktap(rep, config, prefix, kernel, log, lines)
    if not tops:
        rep.fail(config, prefix + 'kunit', 'KUnit expected but no KUnit KTAP output in the boot log', log)
    elif not results:
        rep.fail(config, prefix + 'kunit', 'KUnit ran no test at all', log)


def report_kselftests(rep, config, lines, log, targets, feature=True):
    sections = between(lines, lambda t: t.startswith('ALLOCPROF-KSFT-BEGIN '),
                       lambda t: t.startswith('ALLOCPROF-KSFT-END '))
    seen_targets, seen_progs = set(), set()
    for start, end in sections:
        prog = lines[start].text.split()[1]
        target, _, pname = prog.partition('/')
        seen_targets.add(target)
        seen_progs.add(prog)
        base = f'ksft.{target}.{pname}'
        if end is None:
            rep.fail(config, base, 'ALLOCPROF-KSFT-BEGIN without END: the program '
                     'hung or the guest crashed', log, excerpt_around(lines, start, 0, 30))
            continue
        parts = lines[end].text.split()
        code = int(parts[2]) if len(parts) > 2 and parts[2].isdigit() else -1
        doc = user_lines(lines, start, end)
        tops, results = report_ktap(rep, config, base + '.', doc, log, lines)
        failed = any(s == 'FAIL' for _, s, _ in results)
        if not results:
            if code == 0 and not feature:
                rep.add(config, base, 'ok')
            elif code == 0:
                rep.fail(config, base, 'exit status 0 but no KTAP result', log,
                         excerpt_around(lines, end, 20, 0))
            elif code == 4:
                rep.add(config, base, 'SKIP')
            else:
                rep.fail(config, base, f'exit status {code}' +
                         (' (timeout)' if code in (124, 143) else ''), log,
                         excerpt_around(lines, end, 20, 0))
        elif code not in (0, 4) and not failed:
            rep.fail(config, base, f'exit status {code}' +
                     (' (timeout)' if code in (124, 143) else '') +
                     ' although no case failed', log, excerpt_around(lines, end, 20, 0))
    for t in targets:
        target, _, progs = t.partition('=')
        if target not in seen_targets:
            rep.fail(config, f'ksft.{target}', 'installed in the guest but no results in the log', log)
            continue
        for p in filter(None, progs.split('+')):
            if f'{target}/{p}' not in seen_progs:
                rep.fail(config, f'ksft.{target}.{p}', 'in the target\'s list but it did not report', log)


def report_boot_test(rep, config, run, lines, log, status):
    base = f'boot.{run}'
    sections = between(lines, lambda t: t.startswith('ALLOCPROF-RUN-BEGIN'),
                       lambda t: re.match(r'^ALLOCPROF-EXIT \d+$', t) is not None)
    if not sections:
        rep.fail(config, base, 'the run script never started (no ALLOCPROF-RUN-BEGIN)', log)
        return
    start, end = sections[-1]
    doc = user_lines(lines, start, end if end is not None else len(lines))
    tops, results = report_ktap(rep, config, base + '.', doc, log, lines)
    if not tops or tops[0].plan is None:
        rep.fail(config, base + '.plan', 'no KTAP plan (ktap_plan N) printed', log)
    elif not results:
        # A plan of 0 ("1..0 # SKIP ...") is a skip of the whole test.
        if tops[0].plan == 0:
            rep.add(config, base, 'SKIP')
        else:
            rep.fail(config, base, 'no results', log)
    code = status.get('guest_exit', 'none')
    if code not in ('none', '0'):
        rep.fail(config, base + '.exit', f'the boot test script exited with status {code}',
                 log, excerpt_around(lines, end, 20, 0) if end is not None else None)


def report_host_test(rep, config, run, lines, log, status):
    """A test run on the build host: KTAP on stdout, exit status."""
    base = f'{run}'
    doc = [l for l in lines if not l.kernel]
    tops, results = report_ktap(rep, config, base + '.', doc, log, lines)
    code = status.get('exit', 'none')
    if not results:
        rep.fail(config, base, f'no KTAP results (exit status {code})', log,
                 [f'   | {l.raw}' for l in lines[-40:]])
    elif code != '0' and not any(s == 'FAIL' for _, s, _ in results):
        rep.fail(config, base + '.exit', f'exit status {code} although no case failed',
                 log, [f'   | {l.raw}' for l in lines[-20:]])


HEADER_LINE = re.compile(r'^# (CONFIGS|LONG|APPEND|ALLOW-LOG|TIMEOUT|KUNIT|MEM|TOOLS|VIRTIO-MEM): ?(.*?)\s*$')


def read_header(script):
    """The '# KEY: value' lines of the leading comment block of a boot test."""
    hdr = {'allow': [], 'append': [], 'configs': [], 'long': [], 'timeout': None,
           'kunit': False, 'mem': None, 'tools': [], 'virtio_mem': None}
    with open(script) as f:
        for number, line in enumerate(f, 1):
            line = line.rstrip('\n')
            if line.startswith('#!') and number == 1:
                continue
            if not line.startswith('#') and line.strip():
                break  # the header ends at the first line of code
            m = HEADER_LINE.match(line)
            if not m:
                continue
            key, val = m.groups()
            if key == 'ALLOW-LOG':
                hdr['allow'].append(re.compile(val))
            elif key == 'APPEND':
                hdr['append'].append(val)
            elif key == 'CONFIGS':
                hdr['configs'].extend(val.split())
            elif key == 'LONG':
                # Configs (of CONFIGS) where the boot takes minutes: it runs
                # in `make test-long` there, not in `make test`.
                hdr['long'].extend(val.split())
            elif key == 'TOOLS':
                # Debian packages whose program of the same name the test
                # runs in the guest (test.sh copies it and its libraries).
                for tool in val.split():
                    if not re.fullmatch(r'[a-z0-9][a-z0-9+.-]*', tool):
                        raise SystemExit(f'{script}:{number}: TOOLS: {tool!r} is not a package name')
                    hdr['tools'].append(tool)
            elif key == 'KUNIT':
                if val not in ('yes', 'no'):
                    raise SystemExit(f'{script}:{number}: KUNIT must be yes or no')
                hdr['kunit'] = val == 'yes'
            elif key == 'VIRTIO-MEM':
                # A virtio-mem device of this size (requested size 0 at
                # boot; the test plugs and unplugs through QMP).
                if not re.fullmatch(r'[0-9]+[MG]', val):
                    raise SystemExit(f'{script}:{number}: VIRTIO-MEM must be a size like 512M or 4G')
                hdr['virtio_mem'] = val
            elif key == 'MEM':
                if not re.fullmatch(r'[0-9]+[MG]', val):
                    raise SystemExit(f'{script}:{number}: MEM must be a size like 512M or 4G')
                hdr['mem'] = val
            elif not val.isdigit():
                raise SystemExit(f'{script}:{number}: TIMEOUT must be a number of seconds')
            else:
                hdr['timeout'] = val
    return hdr


def summary(manifest, summary_file):
    rep = Report()
    configs = []
    with open(manifest) as f:
        entries = [line.rstrip('\n').split('\t') for line in f if line.strip()]
    feature = {}
    allow = {}  # config -> the skips it allows (configs/NAME.config)
    for e in entries:
        config, kind = e[0], e[1]
        if config not in configs:
            configs.append(config)
        if kind == 'feature':
            feature[config] = e[2] != 'none'
            continue
        if kind == 'allow-skip':
            try:
                allow.setdefault(config, []).append(re.compile(e[2]))
            except re.error as err:
                rep.fail(config, 'allow-skip', f'configs/{config}.config: allow-skip '
                         f'{e[2]!r} is not a regular expression: {err}')
            continue
        if kind == 'build':
            log, state = e[2], e[3]
            if state == 'ok':
                rep.add(config, 'build', 'ok')
            else:
                lines = read_log(log)
                rep.fail(config, 'build', 'the kernel did not build (or configure)', log,
                         [f'   | {l.raw}' for l in lines[-40:]])
            continue
        run, log, status_file = e[2], e[3], e[4]
        lines = read_log(log)
        status = read_status(status_file)
        if kind == 'host':
            report_host_test(rep, config, run, lines, log, status)
            continue
        if kind == 'main':
            kunit, targets = e[5] == '1', [t for t in e[6].split(',') if t and t != '-']
            check_boot(rep, config, run, lines, status, [], log)
            if kunit:
                report_kunit(rep, config, lines, log)
            report_kselftests(rep, config, lines, log, targets, feature.get(config, True))
        else:
            hdr = read_header(e[5])
            check_boot(rep, config, run, lines, status, hdr['allow'], log)
            report_boot_test(rep, config, run, lines, log, status)
            if len(e) > 6 and e[6] == '1':
                report_kunit(rep, config, lines, log, f'boot.{run}.kunit.')
    # A skip is for a config without the feature (off); in one with it,
    # whatever the test missed (a module, a tool, a cgroup) is a failure.
    for i, (c, n, s) in enumerate(rep.results):
        why = f"{n} # {rep.skip_why.get((c, n), '')}"
        if s == 'SKIP' and any(p.search(why) for p in allow.get(c, [])):
            continue
        if s == 'SKIP' and feature.get(c, True):
            rep.results[i] = (c, n, 'FAIL')
            rep.details.append((c, n, ['skipped in a config that has memory allocation '
                                       'profiling: a test may skip only where the '
                                       'feature is absent (see the log for the reason)']))
    for config in configs:
        built = any(c == config and n == 'build' and s == 'ok' for c, n, s in rep.results)
        tests = [(n, s) for c, n, s in rep.results
                 if c == config and n != 'build' and not n.endswith('.log')]
        if built and not tests:
            rep.fail(config, 'tests', 'zero test results in this config')
        elif built and all(s == 'SKIP' for _, s in tests):
            rep.fail(config, 'tests', f'all {len(tests)} tests of this config skipped: '
                     'nothing was tested')

    out = [f'{c}: {n}: {s}' for c, n, s in rep.results]
    if rep.details:
        out.append('')
        out.append('==== failures ====')
        for c, n, detail in rep.details:
            out.append(f'---- {c}: {n} ----')
            out.extend(f'  {d}' if not d.startswith('  ') else d for d in detail)
        out.append('')
    passed = sum(1 for r in rep.results if r[2] == 'ok')
    failed = sum(1 for r in rep.results if r[2] == 'FAIL')
    skipped = sum(1 for r in rep.results if r[2] == 'SKIP')
    out.append(f'{passed} passed, {failed} failed, {skipped} skipped')
    text = '\n'.join(out) + '\n'
    sys.stdout.write(text)
    os.makedirs(os.path.dirname(os.path.abspath(summary_file)), exist_ok=True)
    with open(summary_file, 'w') as f:
        f.write(text)
    return 1 if failed or not rep.results else 0


def main(argv):
    if len(argv) >= 2 and argv[0] == 'scan':
        allow, args = [], argv[2:]
        while args:
            if args[0] == '--allow' and len(args) > 1:
                allow.append(re.compile(args[1]))
                args = args[2:]
            else:
                sys.exit(__doc__)
        lines = read_log(argv[1])
        hits = scan(lines, allow)
        for line in context(lines, hits):
            print(line)
        return 1 if hits else 0
    if len(argv) == 3 and argv[0] == 'summary':
        return summary(argv[1], argv[2])
    if len(argv) == 2 and argv[0] == 'header':
        # Used by test.sh: print the header of a boot test as shell variables.
        hdr = read_header(argv[1])
        print('CONFIGS=' + shell_quote(' '.join(hdr['configs'])))
        print('HEADER_LONG=' + shell_quote(' '.join(hdr['long'])))
        print('BOOT_APPEND=' + shell_quote(' '.join(hdr['append'])))
        print('HEADER_TIMEOUT=' + shell_quote(hdr['timeout'] or ''))
        print('HEADER_KUNIT=' + ('1' if hdr['kunit'] else ''))
        print('HEADER_MEM=' + (hdr['mem'] or ''))
        print('HEADER_VIRTIO_MEM=' + (hdr['virtio_mem'] or ''))
        print('HEADER_TOOLS=' + shell_quote(' '.join(hdr['tools'])))
        return 0
    sys.exit(__doc__)


def shell_quote(s):
    return "'" + s.replace("'", "'\\''") + "'"


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
