// SPDX-License-Identifier: GPL-2.0
/*
 * Allocates at call sites of its own (slab, pages of order 0 and 2,
 * vmalloc, percpu) and hands everything to unload_holder, so that it is
 * unloaded with its allocations alive.
 */
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/gfp.h>
#include <linux/vmalloc.h>
#include <linux/percpu.h>

enum { HOLD_KMALLOC, HOLD_PAGES, HOLD_VMALLOC, HOLD_PERCPU };
int unload_holder_keep(void *p, int kind, unsigned int order);

static int keep(void *p, int kind, unsigned int order)
{
	return p ? unload_holder_keep(p, kind, order) : -ENOMEM;
}

static int __init unload_leaker_init(void)
{
	int i, ret = 0;

	for (i = 0; i < 3 && !ret; i++)
		ret = keep(kmalloc(1000, GFP_KERNEL), HOLD_KMALLOC, 0);
	if (!ret)
		ret = keep(alloc_pages(GFP_KERNEL, 0), HOLD_PAGES, 0);
	if (!ret)
		ret = keep(alloc_pages(GFP_KERNEL, 2), HOLD_PAGES, 2);
	if (!ret)
		ret = keep(vmalloc(3 * PAGE_SIZE), HOLD_VMALLOC, 0);
	if (!ret)
		ret = keep((void __force *)alloc_percpu(u64), HOLD_PERCPU, 0);
	return ret;
}

static void __exit unload_leaker_exit(void)
{
}

module_init(unload_leaker_init);
module_exit(unload_leaker_exit);
MODULE_LICENSE("GPL");
