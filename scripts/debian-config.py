#!/usr/bin/env python3
"""Give the test kernels Debian's values for the options of the core Kconfig files.

usage:
  debian-config.py generate TREE DEBIAN_CONFIG OUT_FRAGMENT [ARCH]
  debian-config.py report DEBIAN_CONFIG FINAL_CONFIG...

ARCH (x86_64 by default, or arm64): the architecture of DEBIAN_CONFIG
(config.arm64_none_cloud-arm64 for configs/debian-mm.arm64.config); its
own Kconfig file takes the place of arch/x86/Kconfig in the core set, the
trial configuration is cross-compiled, and configs/base.ARCH.config joins
base.config.

generate: write OUT_FRAGMENT (configs/debian-mm.config) with Debian's value
  for every option that is defined in a core Kconfig file of TREE (mm/,
  init/Kconfig, kernel/'s preemption, HZ and lock files, security/'s and
  lib/'s own files without lib/'s test options, fs/Kconfig, arch/Kconfig,
  arch/x86/Kconfig: CORE_DIRS and CORE_FILES below) and set, or explicitly not set, in
  DEBIAN_CONFIG (Debian's config.amd64_none_cloud-amd64 of the same
  version), except
    - the options that base.config or production.config set (they say why
      there; merged into every guest kernel, before and after this
      fragment), and
    - the classes listed in EXCLUDED below, each with its reason.
  Then it configures TREE (allnoconfig + base.config + the candidate +
  production.config + olddefconfig, in a scratch O= directory) and keeps
  only the options that end up with Debian's value: the others depend on
  what is outside the core (drivers, net/, crypto/) or on an excluded
  option, and are listed at the end of the fragment.  Regenerate it with
  `scripts/debian-config.sh` when BASE_VERSION changes.

report: for each FINAL_CONFIG (a built kernel's .config), the options of
  the core set whose value differs from Debian's, with the fragment of
  configs/ that sets them (for the README's list).
"""
import importlib.util
import os
import re
import subprocess
import sys
import tempfile

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# parse() of a config or fragment: scripts/kconfig-verify.py's.
_spec = importlib.util.spec_from_file_location(
    'kconfig_verify', os.path.join(TOP, 'scripts', 'kconfig-verify.py'))
_kv = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_kv)
parse = _kv.parse
CONFIGS = os.path.join(TOP, 'configs')
GENERATED = 'debian-mm.config'

DEFINE = re.compile(r'^\s*(?:menu)?config\s+([A-Za-z0-9_]+)\s*$')

# Core Kconfig files: the ones that decide how memory is allocated, freed,
# moved and hardened (every Kconfig* file below CORE_DIRS, and CORE_FILES).
# Not the rest of kernel/, security/ or block/ (tracing, BPF, the LSMs and
# integrity, hibernation, kexec, I/O schedulers): they cost build and boot
# time in every CI kernel without changing an allocation path, and `make
# distro-check` builds and boots Debian's whole config.
CORE_DIRS = ('mm',)
CORE_FILES = ('init/Kconfig', 'kernel/Kconfig.preempt', 'kernel/Kconfig.hz',
              'kernel/Kconfig.locks', 'security/Kconfig',
              'security/Kconfig.hardening', 'lib/Kconfig', 'lib/Kconfig.debug',
              'lib/Kconfig.kfence', 'lib/Kconfig.kasan', 'fs/Kconfig',
              'arch/Kconfig')
# The architecture's own Kconfig file, and how to cross-compile for it.
ARCHES = {'x86_64': ('arch/x86/Kconfig', ''),
          'arm64': ('arch/arm64/Kconfig', 'aarch64-linux-gnu-')}

# lib/'s test options: its KUnit suites and test modules.
LIB_TEST = re.compile(r'(^|_)(TEST|TESTS|KUNIT|BENCHMARK|SELFTEST)(_|$)|^KUNIT')

# (regex, reason): option classes not taken from Debian.
EXCLUDED = [
    (r'^(NR_CPUS|MAXSMP|NODES_SHIFT|NUMA_BALANCING.*|LRU_GEN.*|ZONE_DEVICE|'
     r'MEMORY_FAILURE|HWPOISON_INJECT)$',
     'page->flags layout: the debug kernel takes Debian\'s '
     '(debian-layout.config), the others keep free bits so that page '
     'references in page->flags are tested too'),
    (r'^(DEBUG_INFO.*|GDB_SCRIPTS)$',
     'debugging information: build time and disk, no effect on what the '
     'kernel does'),
    (r'^MODULE_(SIG|COMPRESS).*$',
     'module signing with Debian\'s key and module compression: the test '
     'modules are built here, unsigned and uncompressed'),
    (r'^(EFI.*|X86_PMEM_LEGACY.*)$',
     'firmware the guests do not have (they boot from SeaBIOS, without '
     'persistent memory): build time of every CI kernel, never run'),
    (r'^(LOCALVERSION.*|BUILD_SALT|DEFAULT_HOSTNAME|INITRAMFS_SOURCE|'
     r'CMDLINE.*)$',
     'the kernel\'s name and built-in command line: the harness\'s own'),
]

# Fragments that are not guest configs of the CI matrix.
NOT_CI = re.compile(r'^(bench.*|build-check-on|distro-on)\.config$')


def kconfig_files(tree, arch='x86_64'):
    for d in CORE_DIRS:
        for root, dirs, files in os.walk(os.path.join(tree, d)):
            dirs.sort()
            for name in sorted(files):
                if name.startswith('Kconfig'):
                    yield os.path.join(root, name)
    for f in CORE_FILES + (ARCHES[arch][0],):
        yield os.path.join(tree, f)


def core_symbols(tree, arch='x86_64'):
    """{option: Kconfig file (relative)} of the core set."""
    syms = {}
    for path in kconfig_files(tree, arch):
        rel = os.path.relpath(path, tree)
        with open(path, errors='replace') as f:
            for line in f:
                m = DEFINE.match(line)
                if not m:
                    continue
                name = m.group(1)
                if rel.startswith('lib/') and (
                        rel.startswith('lib/kunit/') or LIB_TEST.search(name)):
                    continue
                syms.setdefault('CONFIG_' + name, rel)
    return syms


# The fragments of every guest kernel besides this one: base.config is
# merged before it, production.config (which includes it) after.
EVERY_KERNEL = ('base.config', 'production.config')


def own_fragments(names=EVERY_KERNEL):
    """{option: fragment name} set by our hand-written fragments."""
    own = {}
    for name in names:
        for opt in parse(os.path.join(CONFIGS, name)):
            own[opt] = name
    return own


def all_fragments():
    """Every hand-written guest fragment of configs/, in name order."""
    return [n for n in sorted(os.listdir(CONFIGS))
            if n.endswith('.config') and not n.startswith('debian-mm.') and
            not NOT_CI.match(n)]


def excluded(opt):
    for rx, why in EXCLUDED:
        if re.match(rx, opt[len('CONFIG_'):]):
            return why
    return None


def fmt(opt, val):
    return f'# {opt} is not set' if val is None else f'{opt}={val}'


def configure(tree, frags, arch='x86_64'):
    """The final .config of allnoconfig + frags + olddefconfig."""
    out = tempfile.mkdtemp(prefix='debian-config-')
    env = dict(os.environ)
    for k in ('MAKEFLAGS', 'MFLAGS', 'MAKELEVEL', 'MAKEOVERRIDES'):
        env.pop(k, None)

    def kmake(*args):
        subprocess.run(['make', '-s', '-C', tree, f'O={out}', f'ARCH={arch}',
                        f'CROSS_COMPILE={ARCHES[arch][1]}', *args],
                       check=True, env=env, stdout=subprocess.DEVNULL)
    kmake('allnoconfig')
    subprocess.run([os.path.join(tree, 'scripts/kconfig/merge_config.sh'),
                    '-m', '-O', out, os.path.join(out, '.config'), *frags],
                   check=True, cwd=out, env=env, stdout=subprocess.DEVNULL)
    kmake('olddefconfig')
    final = parse(os.path.join(out, '.config'))
    subprocess.run(['rm', '-rf', out], check=True)
    return final


def generate(tree, debian_path, out_path, arch='x86_64'):
    debian = parse(debian_path)
    syms = core_symbols(tree, arch)
    own = own_fragments()
    candidate, skipped = {}, {}
    for opt in sorted(syms):
        if opt not in debian:
            continue
        why = excluded(opt)
        if why is None and opt in own:
            why = f'set by {own[opt]}'
        if why is None:
            candidate[opt] = debian[opt]
        else:
            skipped[opt] = why
    with tempfile.NamedTemporaryFile('w', suffix='.config',
                                     delete=False) as tmp:
        for opt, val in candidate.items():
            tmp.write(fmt(opt, val) + '\n')
    base = [os.path.join(CONFIGS, 'base.config')]
    if arch != 'x86_64':
        base.append(os.path.join(CONFIGS, f'base.{arch}.config'))
    final = configure(tree, base + [tmp.name,
                                    os.path.join(CONFIGS, 'production.config')],
                      arch)
    os.unlink(tmp.name)
    kept = {o: v for o, v in candidate.items() if final.get(o) == v}
    dropped = sorted(o for o in candidate if o not in kept)
    version = os.path.basename(debian_path)
    arch_note = ''
    if arch != 'x86_64':
        arch_note = (
            f'\n# On {arch} this file stands in for debian-mm.config '
            f'(configs/X.{arch}.config\n# replaces X.config in the includes '
            f'of a kernel whose fragment says\n# "# arch: {arch}", '
            f'scripts/lib.sh), with base.{arch}.config after base.config.')
    with open(out_path, 'w') as f:
        f.write(f"""\
# generated-by: scripts/debian-config.sh
# debian-mm: Debian's values for the options of the Kconfig files that
# decide how memory is allocated, freed, moved and hardened (mm/,
# init/Kconfig, kernel/Kconfig.{{preempt,hz,locks}}, security/Kconfig*,
# lib/Kconfig{{,.debug,.kfence,.kasan}} without lib/'s tests, fs/Kconfig,
# arch/Kconfig, {ARCHES[arch][0]}), from {version} of
# linux-config-6.1 at the version of BASE_VERSION.  GENERATED by
# scripts/debian-config.sh: do not edit; regenerate when BASE_VERSION
# changes.  Included by production.config, so every guest kernel of the CI
# matrix (off, profiling, debug) has them (a later fragment of a kernel
# overrides them, and says why): slab merging, freelist hardening
# and randomization, page shuffling, init_on_alloc, memory hotplug,
# deferred struct page init, page reporting, balloon compaction, voluntary
# preemption, KASLR, hardened usercopy, KFENCE, memcg.{arch_note}
#
# {len(kept)} options.  Not taken from Debian ({len(skipped)}), by reason:
""")
        reasons = {}
        for opt, why in skipped.items():
            reasons.setdefault(why if not why.startswith('set by ') else
                               'set by base.config or production.config (they say why)',
                               []).append(opt)
        for why, opts in reasons.items():
            f.write(f'#   {why}: {len(opts)}\n')
        f.write(f"""\
# and {len(dropped)} that need what the guests do not build (drivers, net/,
# crypto/ options) or an option above, listed at the end.

""")
        for opt, val in kept.items():
            f.write(fmt(opt, val) + '\n')
        f.write('\n# Left at the guest\'s value (Debian\'s in brackets):\n')
        for opt in dropped:
            f.write(f'#   {opt} [{fmt(opt, candidate[opt])}]\n')
    print(f'{out_path}: {len(kept)} options from Debian, {len(skipped)} '
          f'excluded, {len(dropped)} left at the guest\'s value')


def report(debian_path, finals, tree):
    debian = parse(debian_path)
    syms = core_symbols(tree)
    own = {}
    for name in all_fragments():
        for opt in parse(os.path.join(CONFIGS, name)):
            own.setdefault(opt, []).append(name)
    own = {o: ', '.join(n) for o, n in own.items()}
    for path in finals:
        final = parse(path)
        diffs = []
        for opt in sorted(syms):
            if opt not in debian or final.get(opt) == debian[opt]:
                continue
            why = own.get(opt) or excluded(opt) or \
                'follows from the options above, or needs a driver or net/ ' \
                'option the guests do not build'
            diffs.append((why, opt, final.get(opt), debian[opt]))
        print(f'{path}: {len(diffs)} core options differ from Debian')
        for why, opt, got, want in sorted(diffs):
            g = 'n' if got is None else got
            w = 'n' if want is None else want
            print(f'  {opt}={g} (Debian {w}): {why}')


def main(argv):
    if len(argv) in (4, 5) and argv[0] == 'generate':
        generate(*argv[1:])
    elif len(argv) >= 3 and argv[0] == 'report':
        report(argv[1], argv[2:], os.environ.get('TREE', 'build/linux'))
    else:
        sys.exit(__doc__)


if __name__ == '__main__':
    main(sys.argv[1:])
