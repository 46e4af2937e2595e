// SPDX-License-Identifier: GPL-2.0-only
/*
 * Allocator micro-benchmark for memory allocation profiling.
 *
 * Loading the module times tight loops of allocation/free pairs through
 * the most used allocator entry points and prints, for each, the time one
 * pair takes:
 *
 *   alloc_tag_bench: <name> <ns per pair> ns (<pairs> pairs, best of <n>)
 *
 * It is meant to be run in a guest whose clock counts instructions (QEMU
 * -icount shift=0,sleep=off: one nanosecond per instruction retired), where
 * the figures are instruction counts and the same on every run.  Comparing
 * them between kernels with and without allocation profiling gives the
 * cost of the accounting on the fast paths.
 *
 * The module uses nothing but the allocator API of every kernel since 6.1,
 * so the same source builds against a kernel without the profiling series
 * (and against later kernels that have their own implementation).  Its call
 * sites are ordinary allocation call sites: with profiling compiled in they
 * are tagged like any other module's.
 *
 * The __GFP_ACCOUNT case is charged to the memory cgroup of the task that
 * loads the module: load it from a task in a non-root cgroup to include
 * memcg's kernel memory accounting.
 *
 * Last, the memory of the per-object vectors that slabs of accounted
 * objects carry (memcg's obj_cgroup pointers, and the tag references where
 * profiling shares them), per object the slabs hold:
 *
 *   alloc_tag_bench: vectors <bytes> bytes for <objects> objects in <n> slabs
 *
 * read off the slabs' memcg_data words, ksize() of each vector.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitmap.h>
#include <linux/gfp.h>
#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

static unsigned int pairs = 20000;
module_param(pairs, uint, 0444);
MODULE_PARM_DESC(pairs, "allocation/free pairs per timed run (default 20000; a tenth of that for vmalloc)");

static unsigned int runs = 5;
module_param(runs, uint, 0444);
MODULE_PARM_DESC(runs, "timed runs per case, the fastest is reported (default 5)");

static char *only;
module_param(only, charp, 0444);
MODULE_PARM_DESC(only, "run only the case of this name");

/* Sizes 8..240 in steps of 8: kmalloc-8 up to kmalloc-256. */
#define BENCH_NR_SIZES	30
static size_t bench_sizes[BENCH_NR_SIZES];

/* Where results go, so that the compiler cannot drop an allocation. */
static void *bench_sink;

static struct kmem_cache *bench_cache;

#define BENCH_CACHE_SIZE	64
#define BENCH_VMALLOC_SIZE	(64 * 1024)

/*
 * Each case runs @n pairs and returns the number it ran (0 on allocation
 * failure).  The kmalloc cases go through every size of bench_sizes[]; the
 * sizes are not compile time constants, so the calls are the generic
 * kmalloc path that most callers take.
 */
static unsigned int bench_kmalloc_gfp(unsigned int n, gfp_t gfp)
{
	unsigned int i, done = 0;
	void *p;

	while (done < n) {
		for (i = 0; i < BENCH_NR_SIZES; i++) {
			p = kmalloc(READ_ONCE(bench_sizes[i]), gfp);
			if (!p)
				return 0;
			WRITE_ONCE(bench_sink, p);
			kfree(p);
		}
		done += BENCH_NR_SIZES;
	}
	return done;
}

static unsigned int bench_kmalloc(unsigned int n)
{
	return bench_kmalloc_gfp(n, GFP_KERNEL);
}

static unsigned int bench_kmalloc_account(unsigned int n)
{
	return bench_kmalloc_gfp(n, GFP_KERNEL_ACCOUNT);
}

static unsigned int bench_cache_alloc(unsigned int n)
{
	unsigned int i;
	void *p;

	for (i = 0; i < n; i++) {
		p = kmem_cache_alloc(bench_cache, GFP_KERNEL);
		if (!p)
			return 0;
		WRITE_ONCE(bench_sink, p);
		kmem_cache_free(bench_cache, p);
	}
	return n;
}

static unsigned int bench_pages_order(unsigned int n, unsigned int order)
{
	struct page *page;
	unsigned int i;

	for (i = 0; i < n; i++) {
		page = alloc_pages(GFP_KERNEL, order);
		if (!page)
			return 0;
		WRITE_ONCE(bench_sink, page);
		__free_pages(page, order);
	}
	return n;
}

static unsigned int bench_page(unsigned int n)
{
	struct page *page;
	unsigned int i;

	for (i = 0; i < n; i++) {
		page = alloc_page(GFP_KERNEL);
		if (!page)
			return 0;
		WRITE_ONCE(bench_sink, page);
		__free_page(page);
	}
	return n;
}

static unsigned int bench_pages_order2(unsigned int n)
{
	return bench_pages_order(n, 2);
}

static unsigned int bench_vmalloc(unsigned int n)
{
	unsigned int i;
	void *p;

	n = max(n / 10, 1U);
	for (i = 0; i < n; i++) {
		p = vmalloc(BENCH_VMALLOC_SIZE);
		if (!p)
			return 0;
		WRITE_ONCE(bench_sink, p);
		vfree(p);
	}
	return n;
}

/*
 * A vmlinux call site: bitmap_alloc() kmalloc()s 64 bytes for 512 bits at
 * its own line of lib/bitmap.c, which the "capture" row of make bench
 * captures (context capture) before loading this module.
 */
static unsigned int bench_bitmap(unsigned int n)
{
	unsigned long *p;
	unsigned int i;

	for (i = 0; i < n; i++) {
		p = bitmap_alloc(512, GFP_KERNEL);
		if (!p)
			return 0;
		WRITE_ONCE(bench_sink, p);
		bitmap_free(p);
	}
	return n;
}

struct bench_case {
	const char *name;
	unsigned int (*run)(unsigned int n);
};

static const struct bench_case bench_cases[] = {
	{ "kmalloc-8-240",		bench_kmalloc },
	{ "kmem_cache-64",		bench_cache_alloc },
	{ "page-order0",		bench_page },
	{ "page-order2",		bench_pages_order2 },
	{ "vmalloc-64k",		bench_vmalloc },
	{ "kmalloc-account-8-240",	bench_kmalloc_account },
	{ "bitmap-64",			bench_bitmap },
};

/* Best time of @runs runs, in tenths of a nanosecond per pair. */
static int bench_one(const struct bench_case *bc)
{
	u64 best = U64_MAX, t, ns;
	unsigned int r, done = 0;

	/* An untimed run first: slabs, per-CPU lists and caches filled. */
	if (!bc->run(pairs))
		goto fail;
	for (r = 0; r < runs; r++) {
		t = ktime_get_ns();
		done = bc->run(pairs);
		ns = ktime_get_ns() - t;
		if (!done)
			goto fail;
		best = min(best, div_u64(ns * 10, done));
	}
	pr_info("%s %llu.%llu ns (%u pairs, best of %u)\n", bc->name,
		div_u64(best, 10), best % 10, done, runs);
	return 0;
fail:
	pr_err("%s: allocation failed\n", bc->name);
	return -ENOMEM;
}

/*
 * Objects of a SLAB_ACCOUNT cache, allocated by the loading task (in a
 * memcg): every slab they fill gets memcg's vector.  A vector is the
 * address in the slab's memcg_data word (low bits are flags in every
 * kernel); ksize() says what it takes.  In this series a slab given tag
 * references after a boot with profiling off has two vectors (bit 2): not
 * the case here, profiling is never switched during the bench.
 */
#define VEC_OBJECTS	1024

static int bench_vectors(void)
{
	struct kmem_cache *c;
	static struct folio *seen[VEC_OBJECTS];
	unsigned long bytes = 0, objects = 0;
	unsigned int i, j, nr = 0;
	void **objs;
	int ret = 0;

	c = kmem_cache_create("alloc_tag_bench_vec", BENCH_CACHE_SIZE, 0,
			      SLAB_ACCOUNT, NULL);
	objs = kcalloc(VEC_OBJECTS, sizeof(*objs), GFP_KERNEL);
	if (!c || !objs) {
		ret = -ENOMEM;
		goto out;
	}
	for (i = 0; i < VEC_OBJECTS; i++) {
		objs[i] = kmem_cache_alloc(c, GFP_KERNEL);
		if (!objs[i]) {
			ret = -ENOMEM;
			goto out;
		}
	}
	for (i = 0; i < VEC_OBJECTS; i++) {
		struct folio *folio = virt_to_folio(objs[i]);
		unsigned long vec;

		for (j = 0; j < nr && seen[j] != folio; j++)
			;
		if (j < nr)
			continue;
		seen[nr++] = folio;
		objects += folio_size(folio) / BENCH_CACHE_SIZE;
		vec = READ_ONCE(folio->memcg_data) & ~7UL;
		if (vec)
			bytes += ksize((void *)vec);
	}
	pr_info("vectors %lu bytes for %lu objects in %u slabs\n", bytes,
		objects, nr);
out:
	if (objs)
		for (i = 0; i < VEC_OBJECTS; i++)
			if (objs[i])
				kmem_cache_free(c, objs[i]);
	kfree(objs);
	kmem_cache_destroy(c);
	if (ret)
		pr_err("vectors: allocation failed\n");
	return ret;
}

static int __init alloc_tag_bench_init(void)
{
	unsigned int i;
	int ret = 0, found = 0;

	if (!pairs || !runs)
		return -EINVAL;
	for (i = 0; i < BENCH_NR_SIZES; i++)
		bench_sizes[i] = 8 * (i + 1);
	bench_cache = kmem_cache_create("alloc_tag_bench", BENCH_CACHE_SIZE,
					0, 0, NULL);
	if (!bench_cache)
		return -ENOMEM;

	for (i = 0; i < ARRAY_SIZE(bench_cases); i++) {
		if (only && strcmp(only, bench_cases[i].name))
			continue;
		found++;
		ret = bench_one(&bench_cases[i]);
		if (ret)
			break;
	}
	if (!ret && (!only || !strcmp(only, "vectors"))) {
		found++;
		ret = bench_vectors();
	}
	if (!ret && !found) {
		pr_err("no case named %s\n", only);
		ret = -EINVAL;
	}
	if (!ret)
		pr_info("done\n");
	kmem_cache_destroy(bench_cache);
	return ret;
}

static void __exit alloc_tag_bench_exit(void)
{
}

module_init(alloc_tag_bench_init);
module_exit(alloc_tag_bench_exit);
MODULE_DESCRIPTION("Allocator micro-benchmark for memory allocation profiling");
MODULE_LICENSE("GPL");
