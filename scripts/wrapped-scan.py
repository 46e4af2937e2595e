#!/usr/bin/env python3
"""Find the uses of wrapped allocator names that are not plain calls.

usage:
  wrapped-scan.py names TREE
  wrapped-scan.py scan TREE [--explained TSV] [--out TSV]

The series turns allocator functions into macros of the same name (in
include/: "#define kmalloc(...) alloc_hooks(kmalloc_noprof(__VA_ARGS__))"),
so that every call site gets a tag of its own.  A function-like macro is
expanded only where its name is followed by "(", so a use of such a name
that is not a plain call either does not see the macro (and, if it meant
the function, refers to a name that no longer exists: a compile error) or
sees it in a way the author of the code did not expect:

  member   after "->" or ".": a struct member of that name; called as
           ops->kmalloc(...), the macro expands into the member access
  nocall   not followed by "(": a function pointer, a parameter, a struct
           field, a designated initializer, a function declared without
           parameters in parentheses
  define   the name #define'd (or #undef'd: undef) outside the series' own
           wrapper definitions: the file replaces the wrapper
  ifdef    tested with #ifdef/#ifndef/defined(): it is a macro now
  paste    pasted with "##" or stringified with "#" in a macro body: the
           name is built or printed, not called
  decl     a declaration or definition of a function of that name (the
           name follows a type): the macro expands into it

names: print the wrapped names found in TREE's include/, one a line, with
  the header that defines them.
scan: tokenize every .c and .h file of TREE (comments and string and
  character literals stripped, backslash-newlines joined), print each
  flagged use as "path<TAB>line<TAB>name<TAB>kind<TAB>explanation" (the
  explanation: "-" when none), and a summary on stderr.  With --explained,
  a use is explained by the first line of TSV (columns: path glob, name
  or "*", kind or "*", why; "#" starts a comment) that matches it.  Exit
  status 1 if a use is unexplained, 0 otherwise.  tools/ and scripts/ are
  user-space programs built against tools/include or the C library, never
  against include/linux/: they are scanned too, and explained as such in
  tests/distro/scan-explained.tsv.
"""
import fnmatch
import os
import re
import sys

# Macros of alloc_tag.h that are the machinery, not wrappers.
HOOKS = {'alloc_hooks', 'alloc_hooks_tag'}
# A helper that emits a tag itself: its body uses DEFINE_ALLOC_TAG.
TAG_DEFINERS = {'DEFINE_ALLOC_TAG', 'DEFINE_ALLOC_TAG_FILE'}

TOKEN = re.compile(r'''
    (?P<ws>[ \t\f\v\r]+)
  | (?P<nl>\n)
  | (?P<cont>\\\r?\n)
  | (?P<lcom>//(?:[^\n\\]|\\\r?\n|\\.)*)
  | (?P<bcom>/\*.*?\*/)
  | (?P<str>(?:u8|[uUL])?"(?:[^"\\\n]|\\(?:.|\n))*")
  | (?P<chr>(?:[uUL])?'(?:[^'\\\n]|\\(?:.|\n))*')
  | (?P<id>[A-Za-z_$][A-Za-z0-9_$]*)
  | (?P<num>\.?[0-9](?:[eEpP][+-]|[A-Za-z0-9_.])*)
  | (?P<punct>->|\#\#|<<=|>>=|\.\.\.|\+\+|--|<<|>>|<=|>=|==|!=|&&|\|\||[-+*/%&|^!=<>]=|[][(){}.,;:?~!*&+\-/%<>=^|\#])
  | (?P<other>.)
''', re.S | re.X)

# Identifiers after which a name is an operand, not a declared name.
EXPR_KEYWORDS = {'return', 'case', 'sizeof', 'typeof', '__typeof__', '__typeof',
                 'else', 'do', 'goto', 'defined', 'alignof', '_Alignof',
                 '__alignof__', 'throw'}
TYPE_WORDS = {'void', 'char', 'short', 'int', 'long', 'unsigned', 'signed',
              'float', 'double', 'const', 'volatile', 'struct', 'union',
              'enum', 'static', 'extern', 'inline', '__always_inline',
              '__percpu', '__iomem', '__user', '__rcu', 'bool', 'size_t',
              'gfp_t'}


def tokens(text):
    """(kind, value, line, bol) of each token; comments and literals become
    one placeholder token ("str") so that what surrounds them keeps its
    neighbours; bol is True for the first token of a logical line."""
    line = 1
    bol = True
    out = []
    pos = 0
    n = len(text)
    while pos < n:
        m = TOKEN.match(text, pos)
        kind = m.lastgroup
        val = m.group(kind)
        pos = m.end()
        if kind == 'nl':
            out.append(('nl', '\n', line, False))
            line += 1
            bol = True
            continue
        if kind == 'cont':
            line += 1
            continue
        if kind in ('ws',):
            continue
        if kind in ('lcom', 'bcom'):
            line += val.count('\n')
            continue
        if kind in ('str', 'chr'):
            out.append(('str', '', line, bol))
            line += val.count('\n')
            bol = False
            continue
        out.append((kind, val, line, bol))
        bol = False
    return out


def logical_lines(toks):
    """Split tokens into logical lines (lists of tokens, no 'nl')."""
    cur = []
    for t in toks:
        if t[0] == 'nl':
            if cur:
                yield cur
            cur = []
        else:
            cur.append(t)
    if cur:
        yield cur


def read(path):
    with open(path, 'rb') as f:
        return f.read().decode('utf-8', 'replace')


def macro_defs(path):
    """(name, params or None, body token values, line) of each #define."""
    defs = []
    for ln in logical_lines(tokens(read(path))):
        if len(ln) >= 3 and ln[0][1] == '#' and ln[1][1] == 'define' and ln[2][0] == 'id':
            name = ln[2][1]
            rest = ln[3:]
            params = None
            if rest and rest[0][1] == '(':
                depth = 0
                for i, t in enumerate(rest):
                    if t[1] == '(':
                        depth += 1
                    elif t[1] == ')':
                        depth -= 1
                        if depth == 0:
                            params = [x[1] for x in rest[1:i]]
                            rest = rest[i + 1:]
                            break
            defs.append((name, params, [t[1] for t in rest], ln[0][2]))
    return defs


def headers(tree):
    for d, dirs, files in os.walk(os.path.join(tree, 'include')):
        dirs.sort()
        for f in sorted(files):
            if f.endswith('.h'):
                yield os.path.join(d, f)


def wrapped_names(tree):
    """{name: (header, [definition lines])}: the function-like macros of
    include/ that charge a call site, directly (their body invokes
    alloc_hooks() or alloc_hooks_tag()) or through a helper whose body
    defines a tag (DEFINE_ALLOC_TAG), e.g. percpu.h's
    __alloc_percpu_hooks().  The helpers and the machinery itself are not
    wrappers.  Every definition of a wrapper name in include/ whose body
    names NAME_noprof or a hook is a wrapper definition (both branches of
    #ifdef CONFIG_MEM_ALLOC_PROFILING where they differ)."""
    alldefs = []
    for h in headers(tree):
        rel = os.path.relpath(h, tree)
        for name, params, body, line in macro_defs(h):
            if params is not None:
                alldefs.append((rel, name, body, line))
    helpers = {name for rel, name, body, line in alldefs
               if TAG_DEFINERS & set(body)} - TAG_DEFINERS
    hooks = HOOKS | helpers
    names = {}
    for rel, name, body, line in alldefs:
        if name in hooks or name in TAG_DEFINERS:
            continue
        if hooks & set(body):
            names.setdefault(name, (rel, []))
    for rel, name, body, line in alldefs:
        if name in names and (hooks & set(body) or name + '_noprof' in body):
            if rel == names[name][0]:
                names[name][1].append(line)
    return names


def source_files(tree):
    for d, dirs, files in os.walk(tree):
        rel = os.path.relpath(d, tree)
        if rel == '.':
            dirs[:] = sorted(x for x in dirs if not x.startswith('.'))
        else:
            dirs.sort()
        for f in sorted(files):
            if f.endswith(('.c', '.h')):
                p = os.path.join(d, f)
                if os.path.isfile(p) and not os.path.islink(p):
                    yield os.path.relpath(p, tree)


# Before a plain call: an operator or punctuation that cannot end a type,
# a member access, a paste or a directive.
CALL_BEFORE = set('=(,!&|?:;{}[+<>%^~')


def plain_calls_only(text, occurrences):
    """True if every occurrence is, on the raw text, obviously a call (next
    non-blank character "(", previous one in CALL_BEFORE, not on a
    directive or continued line).  Conservative: such a file has nothing
    to flag, so it need not be tokenized."""
    for m in occurrences:
        a, b = m.span()
        j = b
        while j < len(text) and text[j] in ' \t':
            j += 1
        if j >= len(text) or text[j] != '(':
            return False
        i = a - 1
        while i >= 0 and text[i] in ' \t':
            i -= 1
        if i < 0 or text[i] not in CALL_BEFORE:
            return False
        bol = text.rfind('\n', 0, a) + 1
        if text[bol:a].lstrip().startswith('#'):
            return False
        if bol >= 2 and text[bol - 2] == '\\':
            return False
    return True


class NameFinder:
    """finditer(text): the spans of the whole identifiers of text that are
    wrapped names.  Found from a few substrings the names share (a regular
    expression of 93 alternatives is several times slower)."""
    STEMS = ('alloc', 'dup', 'printf', 'mempool', 'get_free_pages', 'get_zeroed_page')

    def __init__(self, names):
        self.names = set(names)
        stems = [st for st in self.STEMS if any(st in n for n in names)]
        stems += [n for n in names if not any(st in n for st in stems)]
        self.stem = re.compile('|'.join(map(re.escape, stems)))

    def finditer(self, text):
        ident = IDENT_CHARS
        spans = set()
        n = len(text)
        for m in self.stem.finditer(text):
            a, b = m.span()
            while a > 0 and text[a - 1] in ident:
                a -= 1
            while b < n and text[b] in ident:
                b += 1
            if (a, b) not in spans and text[a:b] in self.names:
                spans.add((a, b))
        return [Span(a, b) for a, b in sorted(spans)]


IDENT_CHARS = frozenset('abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_$')


class Span:
    def __init__(self, a, b):
        self.a, self.b = a, b

    def span(self):
        return self.a, self.b


def scan_file(tree, rel, names, skip_lines, name_re):
    """Flagged (line, name, kind) of file rel."""
    found = []
    text = read(os.path.join(tree, rel))
    occ = list(name_re.finditer(text))
    if not occ or plain_calls_only(text, occ):
        return found
    for ln in logical_lines(tokens(text)):
        directive = None
        if ln[0][1] == '#' and len(ln) > 1 and ln[1][0] == 'id':
            directive = ln[1][1]
        vals = [t[1] for t in ln]
        for i, t in enumerate(ln):
            if t[0] != 'id' or t[1] not in names:
                continue
            name = t[1]
            line = t[2]
            prev = vals[i - 1] if i > 0 else None
            prev2 = vals[i - 2] if i > 1 else None
            nxt = vals[i + 1] if i + 1 < len(vals) else None
            kind = None
            if directive in ('define', 'undef') and i == 2:
                if (rel, ln[0][2]) in skip_lines:
                    continue
                kind = directive
            elif directive in ('ifdef', 'ifndef') and i == 2:
                kind = 'ifdef'
            elif directive in ('if', 'elif') and (
                    prev == 'defined' or (prev == '(' and prev2 == 'defined')):
                kind = 'ifdef'
            elif directive in ('include', 'error', 'warning', 'pragma', 'line'):
                continue
            elif prev == '##' or nxt == '##' or (directive == 'define' and prev == '#'):
                kind = 'paste'
            elif prev in ('->', '.'):
                kind = 'member'
            elif nxt != '(':
                kind = 'nocall'
            elif prev is not None and (
                    (ln[i - 1][0] == 'id' and prev not in EXPR_KEYWORDS)
                    or (prev == '*' and i > 1 and (
                        prev2 in TYPE_WORDS or prev2 == '*'))):
                kind = 'decl'
            if kind:
                found.append((line, name, kind))
    return found


def load_explained(path):
    rules = []
    if not path:
        return rules
    with open(path) as f:
        for n, raw in enumerate(f, 1):
            line = raw.rstrip('\n')
            if not line.strip() or line.lstrip().startswith('#'):
                continue
            cols = line.split('\t')
            if len(cols) < 4 or not cols[3].strip():
                sys.exit('%s:%d: want path<TAB>name<TAB>kind<TAB>why' % (path, n))
            rules.append((cols[0], cols[1], cols[2], cols[3], n))
    return rules


def explain(rules, rel, name, kind):
    for pat, nm, kd, why, n in rules:
        if fnmatch.fnmatchcase(rel, pat) and nm in ('*', name) and kd in ('*', kind):
            return why, n
    return None, None


def main(argv):
    if len(argv) < 3 or argv[1] not in ('names', 'scan'):
        sys.exit(__doc__)
    cmd, tree = argv[1], argv[2]
    opts = {}
    rest = argv[3:]
    while rest:
        if rest[0] in ('--explained', '--out') and len(rest) > 1:
            opts[rest[0]] = rest[1]
            rest = rest[2:]
        else:
            sys.exit(__doc__)
    names = wrapped_names(tree)
    if not names:
        sys.exit('wrapped-scan: no wrapped allocator in %s/include (not the series tree?)' % tree)
    if cmd == 'names':
        for name in sorted(names):
            print('%s\t%s' % (name, names[name][0]))
        return 0
    skip = {(rel, line) for name, (rel, lines) in names.items() for line in lines}
    rules = load_explained(opts.get('--explained'))
    used = set()
    out = open(opts['--out'], 'w') if '--out' in opts else sys.stdout
    nfiles = nflag = nbad = 0
    name_re = NameFinder(names)
    for rel in source_files(tree):
        nfiles += 1
        for line, name, kind in scan_file(tree, rel, names, skip, name_re):
            nflag += 1
            why, n = explain(rules, rel, name, kind)
            if why is None:
                nbad += 1
                why = '-'
            else:
                used.add(n)
            out.write('%s\t%d\t%s\t%s\t%s\n' % (rel, line, name, kind, why))
    if out is not sys.stdout:
        out.close()
    for pat, nm, kd, why, n in rules:
        if n not in used:
            sys.stderr.write('wrapped-scan: explanation at line %d (%s %s %s) matches nothing\n'
                             % (n, pat, nm, kd))
    sys.stderr.write('wrapped-scan: %d wrapped names, %d files, %d flagged uses, %d unexplained\n'
                     % (len(names), nfiles, nflag, nbad))
    return 1 if nbad else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
