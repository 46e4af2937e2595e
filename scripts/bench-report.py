#!/usr/bin/env python3
"""The tables of "make bench" (markdown on stdout).

    bench-report.py BENCH_DIR < rows_table

BENCH_DIR has rows.list (the rows run, in order), rows/ROW-MODE-MEM.txt (the
BENCH- lines of each boot) and size-KERNEL (text data bss of vmlinux). The
rows table (id|kernel|boot parameters|setup|label) comes on stdin.
"""
import os
import sys

CASES = [
    ("kmalloc-8-240", "kmalloc 8..240"),
    ("kmem_cache-64", "kmem_cache 64"),
    ("page-order0", "page order 0"),
    ("page-order2", "pages order 2"),
    ("vmalloc-64k", "vmalloc 64K"),
    ("kmalloc-account-8-240", "kmalloc ACCOUNT memcg"),
    ("bitmap-64", "bitmap_alloc 64"),
]
MEMORY_ROWS = ["stock", "off", "never", "enabled", "pageext", "compressed",
               "up-stock", "up-never", "up-enabled", "up-compressed",
               "deb-stock", "deb-disabled", "deb-enabled", "deb-up-stock",
               "deb-up-disabled", "deb-up-enabled"]
WORKLOADS = [
    ("hackbench", "hackbench pipe (FIFO)"),
    ("fork-exec", "fork+exec+exit"),
    ("tmpfs", "tmpfs files"),
    ("ext4", "ext4 files"),
    ("tcp", "loopback TCP"),
    ("mix", "mix"),
    ("hackbench-cfs", "hackbench pipe (CFS)"),
]
TAG_COUNTER_BYTES = 16  # two u64 per tag and CPU


def read_rows_table():
    rows = {}
    for line in sys.stdin:
        f = line.rstrip("\n").split("|")
        if len(f) == 5:
            rows[f[0]] = {"kernel": f[1], "append": f[2], "setup": f[3],
                          "label": f[4]}
    return rows


def parse(path):
    d = {"results": {}, "mem": {}}
    if not os.path.exists(path):
        return None
    with open(path) as fh:
        for line in fh:
            f = line.split()
            if not f:
                continue
            if f[0] == "BENCH-RESULT" and len(f) >= 3:
                d["results"][f[1]] = float(f[2])
            elif f[0] == "BENCH-MEM" and len(f) >= 3:
                d["mem"][f[1]] = int(f[2]) * 1024
            elif f[0] == "BENCH-PAGE-EXT":
                d["page_ext"] = d.get("page_ext", 0) + int(f[1])
            elif f[0] == "BENCH-TAGS":
                d["tags"] = int(f[1])
            elif f[0] == "BENCH-VECTORS":
                d["vectors"] = int(f[1])
            elif f[0] == "BENCH-VECTORS-OBJ" and len(f) >= 3 and int(f[2]):
                d["vec_per_obj"] = int(f[1]) / int(f[2])
            elif f[0] == "BENCH-WORK" and len(f) >= 3:
                d.setdefault("work", {}).setdefault(f[1], []).append(
                    int(f[2]))
            elif f[0] == "BENCH-READ" and len(f) >= 3:
                d.setdefault("read", {})[f[1]] = f[2:]
            elif f[0] == "BENCH-BPF" and len(f) >= 2:
                parse_bpf(d.setdefault("bpf", {"maps": {}, "top": []}), f)
            elif f[0] == "BENCH-BPF-MEMCG" and len(f) >= 3:
                d.setdefault("bpf", {"maps": {}, "top": []})["memcg"] = \
                    [int(x) if x.isdigit() else None for x in f[1:3]]
    return d


def parse_bpf(b, f):
    """One BENCH-BPF line of bench/bpf/allocbpf.c into b."""
    what = f[1]

    def pairs(words):
        # "k v k v ..." -> dict of ints where they are ints
        out = {}
        for k, v in zip(words[0::2], words[1::2]):
            out[k] = int(v) if v.lstrip("-").isdigit() else v
        return out
    if what == "mode" and len(f) >= 3:
        b["mode"] = f[2]
    elif what == "map" and len(f) >= 3:
        b["maps"][f[2]] = pairs(f[3:])
    elif what in ("map_bytes", "drops", "live"):
        b.setdefault(what, {}).update(pairs(f[1:] if what == "map_bytes"
                                            else f[2:]))
    elif what == "top" and len(f) >= 3:
        t = dict(x.split("=", 1) for x in f[3:] if "=" in x)
        b["top"].append(t)


def base_of(row):
    """The row a row's ratios are taken against: same tree, same layout."""
    if row.startswith("deb-up-"):
        return "deb-up-stock"
    if row.startswith("deb-"):
        return "deb-stock"
    if row.startswith("arm64-"):
        return "arm64-stock"
    return "up-stock" if row.startswith("up-") else "stock"


def fmt_int(n):
    return f"{n:,}"


def fmt_kib(n):
    if n is None:
        return "-"
    return f"{n / 1024:,.0f} KiB" if abs(n) >= 1024 else f"{n} B"


def workload_tables(table, wrows, work):
    """The real workloads: ratios of the best runs, then the runs."""
    out = ["", "## Real workloads", "",
           "Instructions of a whole run (user and kernel, every process; "
           "scripts/guest/bench.sh has the counts), from a task in a "
           "memcg. Ratios against the base row (stock 6.1; upstream 6.12 "
           "for its rows): of the best runs, then of the median runs; in "
           "brackets, the spread of the base row's and this row's runs, "
           "(max - min) / min, the larger.", "",
           "| row | " + " | ".join(w[1] for w in WORKLOADS) + " |",
           "|---|" + "---|" * len(WORKLOADS)]

    def spread(v):
        return (max(v) - min(v)) / min(v)

    def median(v):
        v = sorted(v)
        n = len(v)
        return v[n // 2] if n % 2 else (v[n // 2 - 1] + v[n // 2]) / 2

    for r in wrows:
        w = work[r]["work"]
        b = work.get(base_of(r))
        b = b["work"] if b and "work" in b else {}
        cells = []
        for k, _ in WORKLOADS:
            if k not in w or k not in b:
                cells.append("-")
                continue
            sp = max(spread(w[k]), spread(b[k]))
            cells.append(f"{min(w[k]) / min(b[k]):.3f} / "
                         f"{median(w[k]) / median(b[k]):.3f} "
                         f"({100 * sp:.1f}%)")
        out.append(f"| {table[r]['label']} | " + " | ".join(cells) + " |")
    out += ["", "Instructions of the best run, millions (runs, spread):",
            "", "| row | " + " | ".join(w[1] for w in WORKLOADS) + " |",
            "|---|" + "---|" * len(WORKLOADS)]
    for r in wrows:
        w = work[r]["work"]
        cells = [f"{min(w[k]) / 1e6:,.2f} ({len(w[k])}, "
                 f"{100 * spread(w[k]):.1f}%)" if k in w else "-"
                 for k, _ in WORKLOADS]
        out.append(f"| {table[r]['label']} | " + " | ".join(cells) + " |")
    return out


BPF_CASES = [("kmalloc-8-240", "kmalloc"), ("kmem_cache-64", "kmem_cache"),
             ("page-order0", "page order 0"), ("page-order2", "order 2")]
# The bench module's own allocation sites, and the wrappers it calls.
BPF_BENCH_SYMS = ("[alloc_tag_bench]", "bitmap_alloc", "page-order-")


def short_frame(sym):
    """bench_page+0x2e/0x70[alloc_tag_bench] -> bench_page+0x2e [alloc_tag_bench]"""
    name, _, mod = sym.partition("[")
    name = name.split("/")[0]
    return f"{name} [{mod.rstrip(']')}]" if mod else name


def bpf_section(table, rows, brows, data):
    """The BPF peer: cost over the same kernel with nothing attached, the
    memory of its maps, what it dropped and what it attributed."""
    base = "peers-off" if "peers-off" in rows and data.get("peers-off") \
        else None
    stock = data.get("stock")
    out = ["", "## BPF peer", "",
           "bench/bpf/allocbpf.c: BPF programs on the kmem tracepoints "
           "(kmalloc, kmem_cache_alloc, kfree, kmem_cache_free, "
           "mm_page_alloc, mm_page_free) keep a hash map from each live "
           "object (pointer or pfn) to its site and size and per-site sums "
           "of bytes and calls, decremented on free, as a user can on a "
           "stock 6.1 kernel (bench-peers: BPF_SYSCALL, BPF_JIT, "
           "BPF_EVENTS; no BTF). Sites: the tracepoint's call_site (pages "
           "have none: summed per order), or the kernel call chain "
           "(bpf_get_stackid, a stack map of 32 frames). Instructions per "
           "pair, over the same kernel with nothing attached (peers-off) "
           "and in brackets the ratio against stock 6.1. Map memory: the "
           "kernel's memlock figure of the maps (fdinfo); memcg: the "
           "kernel memory charged to the loader's memcg (maps, programs). "
           "Objects: entries of the object map at the end / its size; "
           "dropped: allocations not tracked because a map was full "
           "(objects, sites) or a stack could not be stored.", ""]
    out.append("| row | " + " | ".join(f"{c[1]} (+ over peers-off)"
                                       for c in BPF_CASES) +
               " | map memory (memlock) | memcg kernel | objects | sites "
               "| dropped (objects, sites, stacks) |")
    out.append("|---|" + "---|" * (len(BPF_CASES) + 5))
    for r in brows:
        d, b = data[r], data[r]["bpf"]
        cells = []
        for c, _ in BPF_CASES:
            v = d["results"].get(c)
            if v is None:
                cells.append("-")
                continue
            cell = f"{v:,.0f}"
            if base and c in data[base]["results"]:
                cell += f" (+{v - data[base]['results'][c]:,.0f})"
            if stock and stock["results"].get(c):
                cell += f" [{v / stock['results'][c]:.2f}x]"
            cells.append(cell)
        mb = b.get("map_bytes", {})
        memcg = b.get("memcg") or [None, None]
        objs, sites = b["maps"].get("objs", {}), b["maps"].get("sites", {})
        dr = b.get("drops", {})
        cells += [
            fmt_kib(mb.get("map_bytes")),
            fmt_kib(memcg[0]) if memcg[0] is not None else "-",
            f"{fmt_int(objs.get('entries', 0))} / "
            f"{fmt_int(objs.get('max', 0))}" if objs else "-",
            f"{fmt_int(sites.get('entries', 0))} / "
            f"{fmt_int(sites.get('max', 0))}" if sites else "-",
            f"{dr.get('obj_full', '-')}, {dr.get('site_full', '-')}, "
            f"{dr.get('stack_fail', '-')}" if dr else "-"]
        out.append(f"| {table[r]['label']} | " + " | ".join(cells) + " |")
    out += ["", "What each row attributed the bench's allocations to: its "
            "sites with the most allocations during the run (calls, "
            "/proc/kallsyms of the guest; by call chain: the frames from "
            "the allocator down to the first frame of the bench module).",
            ""]
    for r in brows:
        b = data[r]["bpf"]
        out.append(f"{table[r]['label']} ({b.get('mode', '?')}):")
        out.append("")
        out.append("| calls | site |")
        out.append("|---|---|")
        shown = {}  # call chains that differ below the bench's frame: one line
        for t in b["top"]:
            if "stack" in t:
                frames = t["stack"].split(";")
                keep = []
                for fr in frames:
                    keep.append(short_frame(fr))
                    if "[alloc_tag_bench]" in fr:
                        break
                if not any("[alloc_tag_bench]" in fr for fr in frames):
                    keep = keep[:6] + (["..."] if len(frames) > 6 else [])
                site = " < ".join(keep)
            else:
                site = short_frame(t.get("site", "?"))
            n, chains = shown.get(site, (0, 0))
            shown[site] = (n + int(t.get("calls", 0)), chains + 1)
        for site, (n, chains) in sorted(shown.items(),
                                        key=lambda x: -x[1][0]):
            more = f" ({chains} call chains)" if chains > 1 else ""
            out.append(f"| {fmt_int(n)} | {site}{more} |")
        out.append("")
    return out


def main():
    bench = sys.argv[1]
    table = read_rows_table()
    with open(os.path.join(bench, "rows.list")) as fh:
        rows = [r.strip() for r in fh if r.strip()]
    data = {r: parse(os.path.join(bench, "rows", f"{r}-bench-1G.txt"))
            for r in rows}
    mem4 = {r: parse(os.path.join(bench, "rows", f"{r}-memory-4G.txt"))
            for r in rows}
    sizes = {}
    for r in rows:
        k = table[r]["kernel"]
        p = os.path.join(bench, f"size-{k}")
        if os.path.exists(p):
            with open(p) as fh:
                sizes[k] = sum(int(x) for x in fh.read().split())

    out = []
    out.append("# make bench")
    out.append("")
    out.append("Instructions retired per allocation/free pair (QEMU "
               "`-icount shift=0,sleep=off`, one vCPU, best of 5 runs of "
               "20000 pairs; 2000 for vmalloc). Ratios against stock 6.1 "
               "built from the same config; the upstream rows against "
               "upstream 6.12 built from the same config; the arm64 rows "
               "(QEMU's virt machine, -cpu max) against stock 6.1 for arm64.")
    out.append("")
    out.append("| row | " + " | ".join(c[1] for c in CASES) + " |")
    out.append("|---|" + "---|" * len(CASES))
    for r in rows:
        d, b = data[r], data.get(base_of(r))
        cells = []
        for c, _ in CASES:
            if not d or c not in d["results"] or not b or \
                    c not in b["results"] or not b["results"][c]:
                cells.append("-")
            else:
                cells.append(f"{d['results'][c] / b['results'][c]:.3f}")
        out.append(f"| {table[r]['label']} | " + " | ".join(cells) + " |")
    out.append("")
    out.append("Instructions per pair:")
    out.append("")
    out.append("| row | boot parameters | " +
               " | ".join(c[1] for c in CASES) + " |")
    out.append("|---|---|" + "---|" * len(CASES))
    for r in rows:
        d = data[r]
        cells = [f"{d['results'][c]:,.1f}" if d and c in d["results"]
                 else "-" for c, _ in CASES]
        params = table[r]["append"] or "-"
        if table[r]["setup"]:
            params += f" (+ {table[r]['setup']} setup)"
        out.append(f"| {table[r]['label']} | `{params}` | " +
                   " | ".join(cells) + " |")

    first = parse(os.path.join(bench, "rows", "stock-first-1G.txt"))
    if first and data.get("stock"):
        same = first["results"] == data["stock"]["results"]
        out.append("")
        if same:
            out.append("The stock row, booted twice, gave the same figures "
                       "both times.")
        else:
            diffs = ", ".join(
                f"{c}: {first['results'].get(c)} vs "
                f"{data['stock']['results'].get(c)}"
                for c, _ in CASES
                if first["results"].get(c) != data["stock"]["results"].get(c))
            out.append(f"The stock row, booted twice, differed: {diffs}.")

    mrows = [r for r in rows if r in MEMORY_ROWS]
    if mrows:
        out.append("")
        out.append("## Memory")
        out.append("")
        out.append("page_ext: what page_ext allocated at boot (all its "
                   "users). Used at boot: MemFree of the stock kernel "
                   "minus this kernel's, right after boot (kernel image, "
                   "page_ext, slab vectors, counters, everything). "
                   "Slab vectors: their memory at boot (the vectors' own "
                   "line of /proc/allocinfo). Vector B/object: the "
                   "vectors of the slabs of 1024 objects of a SLAB_ACCOUNT "
                   "cache allocated in a memcg, per object the slabs hold "
                   "(memcg's obj_cgroup pointers, plus the tag references "
                   "where they share the vector). "
                   "Counters: per-CPU bytes of the tag counters per CPU. "
                   "vmlinux: text + data + bss against the base kernel.")
        out.append("")
        out.append("| row | page_ext 1 GiB | page_ext 4 GiB | bytes/page "
                   "| slab vectors | vector B/object (memcg) "
                   "| used at boot 1 GiB | used at boot 4 GiB "
                   "| counters/CPU | vmlinux | tags |")
        out.append("|---|---|---|---|---|---|---|---|---|---|---|")
        for r in mrows:
            d, m = data[r], mem4.get(r)
            b, bm = data.get(base_of(r)), mem4.get(base_of(r))
            pe1 = d.get("page_ext", 0) if d else None
            pe4 = m.get("page_ext", 0) if m else None
            per_page = f"{pe4 / (4 << 30 >> 12):.1f}" if pe4 is not None \
                else "-"
            used1 = used4 = None
            if d and b and "MemFree" in d["mem"] and "MemFree" in b["mem"]:
                used1 = b["mem"]["MemFree"] - d["mem"]["MemFree"]
            if m and bm and "MemFree" in m["mem"] and "MemFree" in bm["mem"]:
                used4 = bm["mem"]["MemFree"] - m["mem"]["MemFree"]
            tags = d.get("tags") if d else None
            k, bk = table[r]["kernel"], table[base_of(r)]["kernel"]
            vml = "-"
            if k in sizes and bk in sizes:
                vml = f"{sizes[k] - sizes[bk]:+,} B"
            out.append("| " + " | ".join([
                table[r]["label"], fmt_kib(pe1), fmt_kib(pe4), per_page,
                fmt_kib(d.get("vectors")) if d and "vectors" in d else "-",
                f"{d['vec_per_obj']:.1f}" if d and "vec_per_obj" in d
                else "-",
                fmt_kib(used1) if used1 is not None else "-",
                fmt_kib(used4) if used4 is not None else "-",
                fmt_kib(tags * TAG_COUNTER_BYTES) if tags else "-",
                vml, fmt_int(tags) if tags else "-"]) + " |")
    brows = [r for r in rows if data.get(r) and "bpf" in data[r]]
    if brows:
        out.extend(bpf_section(table, rows, brows, data))
    work = {r: parse(os.path.join(bench, "rows", f"{r}-work-1G.txt"))
            for r in rows}
    wrows = [r for r in rows if work[r] and "work" in work[r]]
    if wrows:
        out.extend(workload_tables(table, wrows, work))
    reads = {r: parse(os.path.join(bench, "rows", f"{r}-read-1G.txt"))
             for r in rows}
    rrows = [r for r in rows if reads[r] and "read" in reads[r]]
    if rrows:
        out.append("")
        out.append("## Reading the profile")
        out.append("")
        out.append("Instructions for one full read() of /proc/allocinfo "
                   "(in 64 KiB reads), per site; for the binary reads "
                   "(ioctl GET_AT + GET_NEXT) of every site, and of the "
                   "sites of one file filtered in the kernel (the file of "
                   "the middle vmlinux line); best of 5 runs, booted with the "
                   "possible CPUs shown (`possible_cpus=`: every site's "
                   "counters are summed over the possible CPUs; one of "
                   "them runs). Last column: how many times cheaper the "
                   "filtered binary read is than the text.")
        out.append("")
        out.append("| row | possible CPUs | sites | text read | per site "
                   "| ioctl, all sites | ioctl, one file (sites) "
                   "| text / one file | cumulative text |")
        out.append("|---|---|---|---|---|---|---|---|---|")
        for r in rrows:
            rd = reads[r]["read"]

            def num(k):
                return int(rd[k][0]) if k in rd and \
                    rd[k][0].isdigit() else None
            text, sites = num("text"), num("sites")
            io_all, io_file = num("ioctl-all"), num("ioctl-file")
            cum = num("cumulative-text")
            out.append("| " + " | ".join([
                table[r]["label"], rd.get("cpus", ["-"])[0],
                fmt_int(sites) if sites else "-",
                fmt_int(text) if text else "-",
                f"{text / sites:,.0f}" if text and sites else "-",
                fmt_int(io_all) if io_all else "-",
                f"{fmt_int(io_file)} ({rd['ioctl-file'][1]})"
                if io_file else "-",
                f"{text / io_file:.0f}x" if text and io_file else "-",
                fmt_int(cum) if cum else "-"]) + " |")
        refused = [table[r]["label"] for r in rrows
                   if reads[r]["read"].get("extra-sites") == ["refused"]]
        if refused:
            out.append("")
            out.append("Refused the module of the 2816 extra sites "
                       "(bench/readbench_sites.c), so counted with the "
                       "vmlinux sites only: " + ", ".join(refused) +
                       ". Upstream 6.12 allocates a module's tag counters "
                       "as one per-CPU allocation, which cannot exceed "
                       "32 KiB: a module with more than 2048 allocation "
                       "sites does not load.")
    bits = os.path.join(bench, "page-flags-bits.txt")
    if os.path.exists(bits):
        out.append("")
        out.append("## Room for compressed page references")
        out.append("")
        out.append("Free bits of page->flags (between the page flags and "
                   "the node/zone/section/... fields), the tag indices "
                   "they hold (at most 32 bits are used) and the tags of "
                   "vmlinux (0: built without profiling; modules add "
                   "theirs when loaded).")
        out.append("")
        out.append("| kernel config | page flags | fields above | free bits "
                   "| tag capacity | vmlinux tags |")
        out.append("|---|---|---|---|---|---|")
        with open(bits) as fh:
            for line in fh:
                f = line.split()
                if not f:
                    continue
                kv = dict(x.split("=", 1) for x in f[1:] if "=" in x)
                out.append(f"| {f[0]} | {kv.get('nr_pageflags', '-')} | "
                           f"{kv.get('used_above', '-')} | "
                           f"{kv.get('free_bits', '-')} | "
                           f"{int(kv.get('capacity', 0)):,} | "
                           f"{int(kv.get('tags', 0)):,} |")
    print("\n".join(out))


if __name__ == "__main__":
    main()
