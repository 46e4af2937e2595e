/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Shared between allocbpf.bpf.c (the BPF program) and allocbpf.c (its
 * loader): the values of the maps.
 */
#ifndef ALLOCBPF_H
#define ALLOCBPF_H

/* objs: object (slab pointer or pfn) -> what it was charged to. */
struct obj_info {
	__u64 site;	/* call site, page order (call_site mode) or stack id */
	__u64 size;	/* bytes charged */
};

/* sites: site -> its sums. */
struct site_stats {
	__s64 bytes;		/* live bytes (decremented on free) */
	__s64 calls;		/* live allocations */
	__u64 total_calls;	/* allocations since the start, never decremented */
	__u64 total_bytes;	/* bytes allocated since the start */
};

/*
 * Sites of the call_site mode that are not return addresses: the page
 * events have no call site, so pages are summed per order, at these
 * keys (order 0..10 -> 1..11). Kernel text addresses are far above.
 */
#define SITE_PAGE_ORDER(order)	((__u64)(order) + 1)
#define SITE_PAGE_MAX		16
/* Stack mode: the stack could not be stored (stack map full or hash
 * collision). */
#define SITE_NO_STACK		(~0ULL)

/* counters: per-CPU failure counts, indices. */
enum {
	CNT_OBJ_FULL,	/* objs full: an allocation not tracked */
	CNT_OBJ_ERR,	/* objs update failed otherwise (-EBUSY: nested) */
	CNT_SITE_FULL,	/* sites full: an allocation not summed */
	CNT_STACK_FAIL,	/* bpf_get_stackid() failed: summed at SITE_NO_STACK */
	CNT_STALE,	/* an object allocated again, its free never seen */
	NR_COUNTERS
};

/* Frames kept per stack (the stack map's value size / 8). */
#define STACK_DEPTH	32

#endif
