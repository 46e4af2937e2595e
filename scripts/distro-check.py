#!/usr/bin/env python3
"""The bookkeeping of make distro-check (scripts/distro-check.sh).

usage:
  distro-check.py plan DRYRUN_LOG PLAN_TSV
  distro-check.py layout PLAN_TSV N
  distro-check.py members PLAN_TSV N K [DIR...]
  distro-check.py diag SRC LOG
  distro-check.py new SERIES_DIAG STOCK_DIAG
  distro-check.py targets TREE PLAN_TSV DOTCONFIG ARCH SCAN_TSV
  distro-check.py table RESULTS_DIR VERSION FLAVOUR N [FLAVOUR N]...
  distro-check.py filter-tags OUT TAGSIZE FILTER [KO...]

plan: read the output of "make -n -k <image> modules" run in a configured
  and prepared O= directory where nothing else was built yet (so make
  prints every compile), and write what the config builds: one line per
  compiled object ("o", path, "b" built in or "m" module, source) and per
  module ("k", path of the .ko, its objects).  The dry run is kbuild's own
  reading of the tree and the config: nothing here parses a Makefile.

layout: the shards of N (shard 1: vmlinux and the image, every built-in
  object; shards 2..N: the modules, see members) with their size.

members: what shard K of N builds, one target a line: shard 1 prints the
  built-in objects (informational: it is built with the image target),
  shards 2..N the .ko files they build.  With DIRs (the test-only
  SHARD_DIRS of distro-check.sh) the shard is instead every module and
  every built-in object under those directories.

  The modules are sorted by path and cut into N-1 runs of about equal
  weight (weight of a module: its compiled objects, plus one for its
  .mod.o and final link): each shard is a contiguous range of the
  directory tree, the same for the same tree and config.

diag: the diagnostics of a build log written with make -O (each recipe's
  output in one piece, after its "  CC  path.o" line): one line per
  diagnostic, "object<TAB>kind<TAB>file<TAB>message" (kind: warning,
  error, modpost, undefined), with the source prefix SRC removed and line
  and column numbers and code offsets dropped (they move with the series).

new: the warnings (file, message) of SERIES_DIAG that STOCK_DIAG lacks.

targets: for each file of SCAN_TSV (wrapped-scan.py's output), whether
  this config builds it and which objects compile it: its own object if
  the plan has it; for a header, the planned files that #include it
  directly; for a .c file #included by another, that file.  Prints
  "path<TAB>decision<TAB>objects (comma separated, '-')<TAB>reason".

table: the results of RESULTS_DIR/FLAVOUR/*.txt as a markdown table,
  marking those of another series version than VERSION as stale.

filter-tags: what CONFIG_MEM_ALLOC_PROFILING_FILTER=FILTER (path
  prefixes, space separated) would leave of the tags of this build: of
  vmlinux (the objects of OUT/vmlinux.a) or of the modules KO (the
  objects of their .mod files).  A translation unit under a prefix keeps
  one tag, the file's, if it had any (every allocation of the unit goes
  through it, per-CPU ones included); the others keep theirs, and so do
  the units whose Makefile says ALLOC_TAG_PER_LINE[_obj.o] := y.  Exact,
  not a model: Kbuild decides per unit, from its path and Makefile, as
  this does.  Prints "TAGS FILE_TAGS BEFORE".
"""
import collections
import glob
import os
import re
import sys

OBJ = re.compile(r"echo '  (CC|AS)( \[M\])? +(\S+\.o)'")
MOD = re.compile(r"printf '%s\\n' +(.*?) *\| *awk '!x\[\$0\]\+\+ \{ print\(\"([^\"]*)\"\$0\) \}' > (\S+)\.mod;")
SRCARG = re.compile(r" -c -o (\S+) (\S+)")


def cmd_plan(dry, out):
    objs = collections.OrderedDict()
    srcs = {}
    mods = collections.OrderedDict()
    with open(dry, errors='replace') as f:
        for line in f:
            m = OBJ.search(line)
            if m:
                obj = m.group(3)
                objs[obj] = 'm' if m.group(2) else 'b'
                s = SRCARG.search(line)
                if s and s.group(1) == obj:
                    srcs[obj] = s.group(2)
                continue
            m = MOD.search(line)
            if m:
                mods[m.group(3) + '.ko'] = [m.group(2) + x for x in m.group(1).split()]
    if not objs or not mods and not any(k == 'm' for k in objs.values()):
        if not objs:
            sys.exit('distro-check.py plan: no compile in %s (not a dry run of a prepared tree?)' % dry)
    nb = sum(1 for k in objs.values() if k == 'b')
    nm = len(objs) - nb
    with open(out, 'w') as f:
        f.write('# plan: %d built-in objects, %d module objects, %d modules\n' % (nb, nm, len(mods)))
        for o, k in objs.items():
            f.write('o\t%s\t%s\t%s\n' % (o, k, srcs.get(o, '-')))
        for ko, parts in mods.items():
            f.write('k\t%s\t%s\n' % (ko, ' '.join(parts)))
    print('%d built-in objects, %d module objects, %d modules' % (nb, nm, len(mods)))


def read_plan(path):
    objs = collections.OrderedDict()
    srcs = {}
    mods = collections.OrderedDict()
    with open(path) as f:
        for line in f:
            if line.startswith('#'):
                continue
            c = line.rstrip('\n').split('\t')
            if c[0] == 'o':
                objs[c[1]] = c[2]
                srcs[c[1]] = c[3]
            elif c[0] == 'k':
                mods[c[1]] = c[2].split()
    return objs, srcs, mods


def weight(mods, ko, objs):
    return sum(1 for o in mods[ko] if o in objs) + 1


def partition(objs, mods, n):
    """[[ko, ...] for shards 2..n]: contiguous runs of the sorted modules,
    cut where the running weight is nearest to i/(n-1) of the total."""
    kos = sorted(mods)
    ws = [weight(mods, k, objs) for k in kos]
    total = sum(ws)
    parts = n - 1
    cuts = []
    acc = 0
    i = 0
    for p in range(1, parts):
        target = total * p / parts
        while i < len(kos) and abs(acc + ws[i] - target) <= abs(acc - target):
            acc += ws[i]
            i += 1
        cuts.append(i)
    bounds = [0] + cuts + [len(kos)]
    return [kos[bounds[j]:bounds[j + 1]] for j in range(parts)]


def under(path, dirs):
    return any(path == d or path.startswith(d.rstrip('/') + '/') for d in dirs)


def members(objs, mods, n, k, dirs):
    if dirs:
        kos = [ko for ko in sorted(mods) if under(ko, dirs)]
        builtin = [o for o, t in objs.items() if t == 'b' and under(o, dirs)]
        return kos, builtin
    if k == 1:
        return [], [o for o, t in objs.items() if t == 'b']
    return partition(objs, mods, n)[k - 2], []


def shard_objects(objs, mods, kos, builtin):
    """The compiled objects a shard covers."""
    out = list(builtin)
    for ko in kos:
        out.extend(o for o in mods[ko] if o in objs)
    return out


def top_dirs(paths, depth=2):
    c = collections.Counter('/'.join(p.split('/')[:depth]) for p in paths)
    return ', '.join('%s %d' % (d, c[d]) for d in sorted(c, key=lambda d: (-c[d], d))[:6])


def cmd_layout(plan, n):
    objs, srcs, mods = read_plan(plan)
    nb = sum(1 for t in objs.values() if t == 'b')
    print('shard 1/%d: vmlinux and the image: %d built-in objects' % (n, nb))
    for k, kos in enumerate(partition(objs, mods, n), 2):
        w = sum(weight(mods, ko, objs) for ko in kos)
        no = sum(weight(mods, ko, objs) - 1 for ko in kos)
        if kos:
            print('shard %d/%d: %d modules, %d objects (weight %d): %s .. %s (%s)'
                  % (k, n, len(kos), no, w, kos[0], kos[-1], top_dirs(kos)))
        else:
            print('shard %d/%d: no module' % (k, n))


def cmd_members(plan, n, k, dirs):
    objs, srcs, mods = read_plan(plan)
    kos, builtin = members(objs, mods, n, k, dirs)
    for t in kos + builtin:
        print(t)


# ---- diagnostics ------------------------------------------------------------

QUIET = re.compile(r'^  ([A-Z][A-Z0-9_]*)( \[M\])? +(\S+)\s*$')
DIAG = re.compile(r'^(\S+?):(\d+:)?(\d+:)? (warning|error|fatal error): (.*)$')
MODPOST = re.compile(r'^(WARNING|ERROR): modpost: (.*)$')
UNDEF = re.compile(r'^"([^"]+)" \[([^\]]+)\] undefined!$')
MAKEERR = re.compile(r'^make(\[\d+\])?: \*\*\* (\[.*)$')


def norm_path(p, src):
    if src and p.startswith(src.rstrip('/') + '/'):
        p = p[len(src.rstrip('/')) + 1:]
    while p.startswith('../') or p.startswith('./'):
        p = p[3:] if p.startswith('../') else p[2:]
    return p


def norm_msg(m, src):
    if src:
        m = m.replace(src.rstrip('/') + '/', '')
    m = re.sub(r'\+0x[0-9a-f]+', '+0x?', m)
    m = re.sub(r'\x1b\[[0-9;]*[mK]', '', m)
    return m.strip()


def cmd_diag(src, log):
    cur = '-'
    seen = set()
    with open(log, errors='replace') as f:
        for raw in f:
            line = re.sub(r'\x1b\[[0-9;]*[mK]', '', raw.rstrip('\n'))
            m = QUIET.match(line)
            if m:
                cur = m.group(3)
                continue
            rec = None
            m = MODPOST.match(line)
            if m:
                u = UNDEF.match(m.group(2))
                if u:
                    rec = (u.group(2), 'undefined', u.group(2), u.group(1))
                elif 'is missing' in m.group(2) or 'unresolved symbol warnings' in m.group(2):
                    continue
                else:
                    rec = ('modpost', 'error' if m.group(1) == 'ERROR' else 'modpost', '-',
                           norm_msg(m.group(2), src))
            else:
                m = DIAG.match(line)
                if m:
                    kind = 'error' if 'error' in m.group(4) else 'warning'
                    rec = (cur, kind, norm_path(m.group(1), src), norm_msg(m.group(5), src))
                else:
                    m = MAKEERR.match(line)
                    if m and 'Error' in m.group(2):
                        rec = (cur, 'make', '-', norm_msg(m.group(2), src))
            if rec and rec not in seen:
                seen.add(rec)
                print('\t'.join(rec))


def read_diag(path):
    out = []
    if path and os.path.exists(path):
        with open(path) as f:
            for line in f:
                c = line.rstrip('\n').split('\t')
                if len(c) == 4:
                    out.append(c)
    return out


def cmd_new(series, stock):
    have = {(c[2], c[3]) for c in read_diag(stock) if c[1] == 'warning'}
    done = set()
    for c in read_diag(series):
        if c[1] == 'warning' and (c[2], c[3]) not in have and (c[2], c[3]) not in done:
            done.add((c[2], c[3]))
            print('%s: %s' % (c[2], c[3]))


# ---- which flagged files the config builds ----------------------------------

INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]', re.M)
COND = re.compile(r'^\s*#\s*(if|ifdef|ifndef|elif|else|endif)\b(.*)$')


def read_config(path):
    val = {}
    with open(path) as f:
        for line in f:
            m = re.match(r'^(CONFIG_[A-Za-z0-9_]+)=(.*)$', line)
            if m:
                val[m.group(1)] = m.group(2)
    return val


def include_targets(tree, rel, arch):
    """{included path (relative to the tree)}: the direct includes of rel
    that resolve to a file of the tree."""
    try:
        text = open(os.path.join(tree, rel), errors='replace').read()
    except OSError:
        return {}
    out = {}
    here = os.path.dirname(rel)
    srcarch = 'x86' if arch == 'x86_64' else arch
    for m in INCLUDE.finditer(text):
        name = m.group(2)
        cands = []
        if m.group(1) == '"':
            cands.append(os.path.normpath(os.path.join(here, name)))
        cands += ['include/' + name, 'arch/%s/include/%s' % (srcarch, name)]
        for c in cands:
            if os.path.isfile(os.path.join(tree, c)):
                line = text.count('\n', 0, m.start()) + 1
                out.setdefault(c, line)
                break
    return out


def eval_cond(d, expr, config):
    """True/False for the simple tests of one CONFIG_ option (#ifdef X,
    #ifndef X, #if [!]defined(X), #if [!]IS_ENABLED(X) and the like), None
    for anything else."""
    expr = expr.split('/*')[0].split('//')[0].strip()
    if d in ('ifdef', 'ifndef'):
        m = re.match(r'^(CONFIG_[A-Za-z0-9_]+)$', expr)
        neg = d == 'ifndef'
    else:
        m = re.match(r'^(!\s*)?(?:defined\s*\(\s*|defined\s+|IS_ENABLED\s*\(\s*|IS_BUILTIN\s*\(\s*)?'
                     r'(CONFIG_[A-Za-z0-9_]+)\s*\)?$', expr)
        neg = bool(m and m.group(1))
    if not m:
        return None
    on = config.get(m.group(m.lastindex), 'n') in ('y', 'm')
    return on != neg


def guard_of(tree, rel, line, config):
    """The #if lines around line `line` of rel, and whether the config
    satisfies them all (True/False; None when one is not a simple test of
    a CONFIG_ option)."""
    stack = []
    with open(os.path.join(tree, rel), errors='replace') as f:
        for n, text in enumerate(f, 1):
            if n >= line:
                break
            m = COND.match(text)
            if not m:
                continue
            d, rest = m.group(1), m.group(2).strip()
            if d in ('if', 'ifdef', 'ifndef'):
                stack.append([(d, rest)])
            elif d in ('elif', 'else') and stack:
                stack[-1].append((d, rest))
            elif d == 'endif' and stack:
                stack.pop()
    if not stack:
        return None, None
    verdict = True
    texts = []
    for chain in stack:
        # This branch: its own test, and the earlier tests of its chain false.
        d, rest = chain[-1]
        texts.append('#%s %s' % (d, rest) if d != 'else' else '#else of #%s %s' % chain[0])
        vals = [eval_cond('if' if x == 'elif' else x, r, config) for x, r in chain[:-1]]
        if d != 'else':
            vals.append(eval_cond('if' if d == 'elif' else d, rest, config))
            own = vals.pop()
        else:
            own = True
        prev = [None if v is None else not v for v in vals]
        for v in prev + [own]:
            if v is False:
                verdict = False
            elif v is None and verdict is not False:
                verdict = None
    return ', '.join(texts), verdict


def cmd_targets(tree, plan, dotconfig, arch, scan):
    tree = os.path.abspath(tree)
    objs, srcs, mods = read_plan(plan)
    config = read_config(dotconfig)
    srcarch = 'x86' if arch == 'x86_64' else arch
    by_src = {}
    for o, s in srcs.items():
        if s != '-':
            by_src.setdefault(norm_path(s, tree), o)
    flagged = sorted({l.split('\t')[0] for l in open(scan) if l.strip()})
    includers = collections.defaultdict(list)
    want = set(flagged)
    # Direct includes of every planned source and of the image's own
    # objects (arch/ARCH/boot: built after vmlinux, so not in the plan).
    sources = set(by_src)
    bootdir = os.path.join(tree, 'arch', srcarch, 'boot')
    for d, dirs, files in os.walk(bootdir):
        for fn in files:
            if fn.endswith('.c'):
                sources.add(os.path.relpath(os.path.join(d, fn), tree))
    for s in sorted(sources):
        for inc, line in include_targets(tree, s, arch).items():
            if inc in want:
                includers[inc].append((s, line))
    state = {True: 'set', False: 'not set', None: 'not evaluated'}
    for f in flagged:
        own = None
        if f.endswith('.c'):
            own = by_src.get(f)
        inc = []
        for s, l in includers.get(f, []):
            g, ok = guard_of(tree, s, l, config)
            inc.append((s, l, g, ok))
        built = [x for x in inc if x[0] in by_src and x[3] is not False]
        off = [x for x in inc if x[0] in by_src and x[3] is False]
        boot = [x for x in inc if x[0] not in by_src]
        notes = []
        if boot:
            notes.append('#included by the boot image (built with it in shard 1, after vmlinux; not alone): %s' % '; '.join(
                '%s:%d%s' % (s, l, ' under %s (%s)' % (g, state[ok]) if g else '') for s, l, g, ok in boot))
        if off:
            notes.append('#included only where this config does not reach: %s' % '; '.join(
                '%s:%d (%s)' % (s, l, g) for s, l, g, ok in off))
        extra = ('; ' + '; '.join(notes)) if notes else ''
        if own:
            print('%s\tbuilt\t%s\tits object is in the plan (%s)%s' % (
                f, own, 'module' if objs[own] == 'm' else 'built in', extra))
        elif built:
            pick = sorted(built, key=lambda x: (os.path.dirname(x[0]) != os.path.dirname(f), x[0]))[:2]
            print('%s\tbuilt\t%s\t#included directly by %d planned file(s); compiling %s%s' % (
                f, ','.join(by_src[x[0]] for x in pick), len(built),
                ', '.join('%s%s' % (x[0], ' (under %s: %s)' % (x[2], state[x[3]]) if x[2] else '') for x in pick), extra))
        elif boot and any(x[3] is not False for x in boot):
            print('%s\timage\t-\t%s' % (f, '; '.join(notes)))
        elif notes:
            print('%s\tnot-built\t-\t%s' % (f, '; '.join(notes)))
        else:
            if f.startswith(('tools/', 'scripts/')):
                why = 'a user-space program of tools/ or scripts/'
            elif f.startswith('arch/') and not f.startswith('arch/%s/' % srcarch):
                why = 'another architecture'
            elif f.endswith('.h'):
                why = 'no file this config compiles #includes it directly (indirect includes not followed)'
            else:
                why = 'its object is not in the plan (make -n) and no planned file #includes it'
            print('%s\tnot-built\t-\t%s' % (f, why))


# ---- the table --------------------------------------------------------------

def read_result(path):
    head = {}
    sections = collections.defaultdict(list)
    cur = None
    with open(path) as f:
        for line in f:
            line = line.rstrip('\n')
            if line.startswith('## '):
                cur = line[3:]
                continue
            if cur is None:
                m = re.match(r'^([a-z0-9-]+): (.*)$', line)
                if m:
                    head[m.group(1)] = m.group(2)
            elif line and line != '(none)':
                sections[cur].append(line)
    return head, sections


def cmd_table(results, version, pairs):
    rows = []
    notes = []
    for flavour, n in pairs:
        n = int(n)
        res = {}
        for p in sorted(glob.glob(os.path.join(results, flavour, '*.txt'))):
            res[os.path.basename(p)[:-4]] = read_result(p)
        order = ['scan'] + ['shard-%d-of-%d' % (k, n) for k in range(1, n + 1)]
        for name in order + sorted(r for r in res if r not in order):
            label = name.replace('shard-', 'shard ').replace('-of-', '/')
            if name not in res:
                rows.append('| %s | %s | - | not yet run | - | - | - | - | - |' % (flavour, label))
                continue
            h = res[name][0]
            cur = 'current' if h.get('version') == version else 'stale'
            rows.append('| %s | %s | %s (%s) | %s | %s | %s | %s | %s | %s |' % (
                flavour, label, h.get('version', '?'), cur, h.get('status', '?'),
                h.get('date', '?')[:10], h.get('errors', '-'),
                h.get('new-warnings', '-'), h.get('tags', '-'),
                h.get('elapsed', '-').split(' (')[0]))

        def current(name):
            return name in res and res[name][0].get('version') == version

        done = [k for k in range(1, n + 1) if current('shard-%d-of-%d' % (k, n))
                and res['shard-%d-of-%d' % (k, n)][0].get('status') == 'passed']
        scan = 'passed' if current('scan') and res['scan'][0].get('status') == 'passed' else 'not passed'
        note = '%s: scan %s, %d of %d shards passed on the current series' % (flavour, scan, len(done), n)
        if len(done) < n:
            note += ' (missing: %s)' % ', '.join(str(k) for k in range(1, n + 1) if k not in done)
        # The series symbols the module shards need, against what shard 1
        # found vmlinux exports.
        one = 'shard-1-of-%d' % n
        if current(one):
            exports = set(res[one][1].get('exports', []))
            needs = set()
            for k in range(2, n + 1):
                name = 'shard-%d-of-%d' % (k, n)
                if current(name):
                    exports |= set(res[name][1].get('module exports', []))
                    needs |= set(res[name][1].get('needs', []))
            missing = needs - exports
            note += '; series symbols the modules need and vmlinux does not export: %s' % (
                ', '.join(sorted(missing)) if missing else 'none')
        notes.append(note + '.')
    print('| flavour | step | series | status | date | errors | new warnings | tags | time |')
    print('|---|---|---|---|---|---|---|---|---|')
    for r in rows:
        print(r)
    print('')
    for n in notes:
        print(n)


def section_entries(path, name, size):
    """Entries of SIZE bytes in the ELF section NAME of PATH (0 without)."""
    import subprocess
    r = subprocess.run(['readelf', '-S', '-W', path], capture_output=True, text=True)
    for line in r.stdout.splitlines():
        f = line.replace('[ ', '[').split()
        if name in f[1:3]:
            return int(f[f.index(name) + 4], 16) // size
    return 0


def cmd_filter_tags(out, tagsize, filt, kos):
    prefixes = filt.split()
    objs = []
    if not kos:
        import subprocess
        r = subprocess.run(['ar', 't', os.path.join(out, 'vmlinux.a')], capture_output=True,
                           text=True, check=True)
        for o in r.stdout.split():
            objs.append(os.path.relpath(o, out) if os.path.isabs(o) or os.path.exists(o) else o)
    else:
        for ko in kos:
            with open(os.path.join(out, ko[:-3] + '.mod')) as f:
                objs.extend(f.read().split())
    src = os.path.realpath(os.path.join(out, 'source'))
    makefiles = {}

    def per_line(obj):
        """The Makefile's word for OBJ (y, n) before the filter's, or None."""
        d, stem = os.path.dirname(obj), os.path.basename(obj)
        if d not in makefiles:
            try:
                with open(os.path.join(src, d, 'Makefile')) as f:
                    makefiles[d] = f.read()
            except OSError:
                makefiles[d] = ''
        for var in (f'ALLOC_TAG_PER_LINE_{re.escape(stem)}', 'ALLOC_TAG_PER_LINE'):
            m = re.search(rf'^{var}\s*:?=\s*([yn])', makefiles[d], re.M)
            if m:
                return m.group(1)
        return None

    after = files = before = 0
    for o in objs:
        n = section_entries(os.path.join(out, o), 'alloc_tags', int(tagsize))
        before += n
        word = per_line(o)
        if word == 'n' or (word is None and any(o.startswith(p) for p in prefixes)):
            files += 1 if n else 0
        else:
            after += n
    print(after + files, files, before)


def main(argv):
    if len(argv) < 2:
        sys.exit(__doc__)
    cmd, a = argv[1], argv[2:]
    try:
        if cmd == 'plan' and len(a) == 2:
            cmd_plan(*a)
        elif cmd == 'layout' and len(a) == 2:
            cmd_layout(a[0], int(a[1]))
        elif cmd == 'members' and len(a) >= 3:
            cmd_members(a[0], int(a[1]), int(a[2]), a[3:])
        elif cmd == 'diag' and len(a) == 2:
            cmd_diag(*a)
        elif cmd == 'new' and len(a) == 2:
            cmd_new(*a)
        elif cmd == 'targets' and len(a) == 5:
            cmd_targets(*a)
        elif cmd == 'filter-tags' and len(a) >= 3:
            cmd_filter_tags(a[0], a[1], a[2], a[3:])
        elif cmd == 'table' and len(a) >= 4 and len(a) % 2 == 0:
            cmd_table(a[0], a[1], list(zip(a[2::2], a[3::2])))
        else:
            sys.exit(__doc__)
    except BrokenPipeError:
        pass
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
