// SPDX-License-Identifier: GPL-2.0
/*
 * Holds memory that unload_leaker allocated at its own call sites, past
 * that module's unload, and frees it on request (a write to the "free"
 * parameter) or at its own unload: the frees then uncharge the call sites
 * of a module that is gone.
 */
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/gfp.h>
#include <linux/vmalloc.h>
#include <linux/percpu.h>

#define HOLD_MAX 64

enum { HOLD_KMALLOC, HOLD_PAGES, HOLD_VMALLOC, HOLD_PERCPU };

static struct {
	void *p;
	int kind;
	unsigned int order;
} held[HOLD_MAX];
static unsigned int nr_held;
static DEFINE_MUTEX(hold_lock);

int unload_holder_keep(void *p, int kind, unsigned int order)
{
	int ret = -ENOSPC;

	mutex_lock(&hold_lock);
	if (nr_held < HOLD_MAX) {
		held[nr_held].p = p;
		held[nr_held].kind = kind;
		held[nr_held].order = order;
		nr_held++;
		ret = 0;
	}
	mutex_unlock(&hold_lock);
	return ret;
}
EXPORT_SYMBOL_GPL(unload_holder_keep);

static unsigned int unload_holder_free_all(void)
{
	unsigned int i, n;

	mutex_lock(&hold_lock);
	n = nr_held;
	for (i = 0; i < nr_held; i++) {
		switch (held[i].kind) {
		case HOLD_KMALLOC:
			kfree(held[i].p);
			break;
		case HOLD_PAGES:
			__free_pages(held[i].p, held[i].order);
			break;
		case HOLD_VMALLOC:
			vfree(held[i].p);
			break;
		case HOLD_PERCPU:
			free_percpu((void __percpu *)held[i].p);
			break;
		}
	}
	nr_held = 0;
	mutex_unlock(&hold_lock);
	return n;
}

static int free_set(const char *val, const struct kernel_param *kp)
{
	pr_info("unload_holder: freed %u allocations\n", unload_holder_free_all());
	return 0;
}

static const struct kernel_param_ops free_ops = { .set = free_set };
module_param_cb(free, &free_ops, NULL, 0200);

static void __exit unload_holder_exit(void)
{
	unload_holder_free_all();
}

static int __init unload_holder_init(void)
{
	return 0;
}

module_init(unload_holder_init);
module_exit(unload_holder_exit);
MODULE_LICENSE("GPL");
