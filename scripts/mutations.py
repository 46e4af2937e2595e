#!/usr/bin/env python3
"""Mutations of the series: each breaks the kernel's accounting on purpose,
one family at a time, so that make test can show it fails (make
mutation-check; see README "Tests").

    mutations.py list          the names
    mutations.py NAME TREE     apply NAME to the kernel tree TREE
"""
import sys
M = {
 # pages: skip the uncharge of a freed page
 'pages-skip-uncharge': ('include/linux/pgalloc_tag.h',
   '''	alloc_tag_counters_add(ct_to_alloc_tag(ct), -((s64)PAGE_SIZE << order),
			       -1);
}''', '''	/* MUTATION: the uncharge is skipped */
}'''),
 # slab: uncharge a freed object twice
 'slab-double-uncharge': ('mm/slab.h',
   '''	off = obj_to_index(s, slab, p[0]);
	alloc_tag_ref_sub(&slab_exts_tag_refs(slab, exts)[off],''', '''	off = obj_to_index(s, slab, p[0]);
	/* MUTATION: uncharged twice */
	if (slab_exts_tag_refs(slab, exts)[off].ct &&
	    !is_codetag_empty(&slab_exts_tag_refs(slab, exts)[off]))
		alloc_tag_counters_add(ct_to_alloc_tag(slab_exts_tag_refs(slab, exts)[off].ct),
				       -(s64)s->object_size, -1);
	alloc_tag_ref_sub(&slab_exts_tag_refs(slab, exts)[off],'''),
 # vmalloc: the area's pages charged to vmalloc's own line, not the caller's
 'vmalloc-wrong-tag': ('mm/vmalloc.c',
   '''			page = alloc_pages_noprof(alloc_gfp, order);''',
   '''			page = alloc_pages(alloc_gfp, order); /* MUTATION */'''),
 # percpu: skip the uncharge of a freed area
 'percpu-skip-uncharge': ('mm/percpu.c',
   '''	if (ref.ct)
		alloc_tag_ref_sub(&ref, size * num_possible_cpus(),
				  (void __force *)ptr, "percpu area");''', '''	/* MUTATION: the uncharge is skipped */'''),
 # mempool: an element leaving the reserve keeps the creator's charge
 'mempool-wrong-tag': ('mm/mempool.c',
   '''	if (!mem_alloc_profiling_enabled())
		return;
	if (pool->alloc == mempool_alloc_pages)''', '''	if (!mem_alloc_profiling_enabled() || 1) /* MUTATION */
		return;
	if (pool->alloc == mempool_alloc_pages)'''),
 # modules: the tags of every module are refused at load
 'modules-refuse-tags': ('lib/alloc_tag.c',
   '''	/* vmlinux tags have static counters of their own. */
	if (!range->count || !range->mod)
		return 0;''', '''	/* vmlinux tags have static counters of their own. */
	if (!range->count || !range->mod)
		return 0;
	return -ENOMEM;	/* MUTATION */'''),
}
if len(sys.argv) == 2 and sys.argv[1] == 'list':
    print('\n'.join(M))
    sys.exit(0)
if len(sys.argv) != 3 or sys.argv[1] not in M:
    sys.exit(__doc__)
name, tree = sys.argv[1], sys.argv[2]
path, a, b = M[name]
p = f'{tree}/{path}'
s = open(p).read()
if s.count(a) != 1:
    sys.exit(f'mutation {name}: {path} does not have the code it breaks')
open(p, 'w').write(s.replace(a, b))
print(f'mutation {name}: {path}')
