// SPDX-License-Identifier: GPL-2.0
/*
 * make bench, read rows: call sites to read.  Loaded before
 * bench/readbench.c runs, so that /proc/allocinfo has a few thousand
 * sites, as a distribution kernel with its modules has (a small guest's
 * vmlinux has about a thousand).  2816 allocation call sites, never
 * called; on kernels with allocation profiling each gets its tag.
 */
#include <linux/module.h>
#include <linux/slab.h>

#define SITES_1		kfree(kmalloc(8, GFP_KERNEL))
#define SITES_4		do { SITES_1; SITES_1; SITES_1; SITES_1; } while (0)
#define SITES_16	do { SITES_4; SITES_4; SITES_4; SITES_4; } while (0)
#define SITES_64	do { SITES_16; SITES_16; SITES_16; SITES_16; } while (0)
#define SITES_256	do { SITES_64; SITES_64; SITES_64; SITES_64; } while (0)

static noinline __used void readbench_sites(void)
{
	SITES_256; SITES_256; SITES_256; SITES_256;
	SITES_256; SITES_256; SITES_256; SITES_256;
	SITES_256; SITES_256; SITES_256;
}

static int __init readbench_sites_init(void)
{
	return 0;
}

static void __exit readbench_sites_exit(void)
{
}

module_init(readbench_sites_init);
module_exit(readbench_sites_exit);
MODULE_DESCRIPTION("Call sites for the read rows of make bench");
MODULE_LICENSE("GPL");
