// SPDX-License-Identifier: GPL-2.0-only
/*
 * Live per-site accounting of kernel allocations with BPF, on a stock 6.1
 * kernel: what a user can build without allocation profiling. Programs on
 * the kmem tracepoints keep a hash map from each live object (slab pointer
 * or pfn) to the site it was charged to and its size, and per-site sums
 * of bytes and calls, decremented when the object is freed.
 *
 * Two attribution modes, one set of programs each (the loader loads one):
 *   *_site   the tracepoint's call_site (the return address of the
 *            allocator entry point); the page events have none, so pages
 *            are summed per order
 *   *_stack  bpf_get_stackid(): the kernel call chain, in a stack map
 *
 * No BTF and no CO-RE: the contexts are the trace events' records, as
 * /sys/kernel/tracing/events/kmem/EVENT/format of 6.1 lays them out (the
 * loader checks the offsets against those files before it loads).
 *
 * Build: clang -target bpf -O2 -g -c allocbpf.bpf.c
 */
#include <linux/types.h>
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#include "allocbpf.h"

/* The common fields of every trace event record (8 bytes). */
struct trace_common {
	unsigned short common_type;
	unsigned char common_flags;
	unsigned char common_preempt_count;
	int common_pid;
};

/* kmem:kmalloc and kmem:kmem_cache_alloc (which adds "bool accounted"). */
struct kmem_alloc_ctx {
	struct trace_common c;
	unsigned long call_site;	/* offset 8 */
	const void *ptr;		/* 16 */
	__u64 bytes_req;		/* 24, size_t */
	__u64 bytes_alloc;		/* 32, size_t */
	unsigned long gfp_flags;	/* 40 */
	int node;			/* 48 */
};

/* kmem:kfree and kmem:kmem_cache_free (which adds __data_loc name). */
struct kmem_free_ctx {
	struct trace_common c;
	unsigned long call_site;	/* 8 */
	const void *ptr;		/* 16 */
};

/* kmem:mm_page_alloc */
struct page_alloc_ctx {
	struct trace_common c;
	unsigned long pfn;		/* 8 */
	unsigned int order;		/* 16 */
	unsigned long gfp_flags;	/* 24 */
	int migratetype;		/* 32 */
};

/* kmem:mm_page_free */
struct page_free_ctx {
	struct trace_common c;
	unsigned long pfn;		/* 8 */
	unsigned int order;		/* 16 */
};

/* Sizes are the loader's to set (bpf_map__set_max_entries). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 262144);
	__type(key, __u64);
	__type(value, struct obj_info);
} objs SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, __u64);
	__type(value, struct site_stats);
} sites SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_STACK_TRACE);
	__uint(max_entries, 16384);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, STACK_DEPTH * sizeof(__u64));
} stacks SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, NR_COUNTERS);
	__type(key, __u32);
	__type(value, __u64);
} counters SEC(".maps");

static __always_inline void count(__u32 what)
{
	__u64 *n = bpf_map_lookup_elem(&counters, &what);

	if (n)
		(*n)++;	/* per CPU: no atomic needed */
}

static __always_inline void site_add(__u64 site, __u64 size)
{
	struct site_stats *s = bpf_map_lookup_elem(&sites, &site);

	if (!s) {
		struct site_stats zero = {};

		/* -EEXIST: another CPU added it first, fine. */
		int err = bpf_map_update_elem(&sites, &site, &zero, BPF_NOEXIST);

		if (err == -7 /* -E2BIG */) {
			count(CNT_SITE_FULL);
			return;
		}
		s = bpf_map_lookup_elem(&sites, &site);
		if (!s)
			return;
	}
	__sync_fetch_and_add(&s->bytes, size);
	__sync_fetch_and_add(&s->calls, 1);
	__sync_fetch_and_add(&s->total_calls, 1);
	__sync_fetch_and_add(&s->total_bytes, size);
}

static __always_inline void site_sub(__u64 site, __u64 size)
{
	struct site_stats *s = bpf_map_lookup_elem(&sites, &site);

	if (s) {
		__sync_fetch_and_add(&s->bytes, -(__s64)size);
		__sync_fetch_and_add(&s->calls, -1);
	}
}

static __always_inline int on_alloc(void *ctx, __u64 key, __u64 size,
				    __u64 site, int by_stack)
{
	struct obj_info info, *old;
	/*
	 * int: 6.1's hash map ops return int and the verifier calls them
	 * directly, so only the low 32 bits of the result are meaningful.
	 */
	int err;

	if (!key)
		return 0;	/* a failed allocation */
	if (by_stack) {
		long id = bpf_get_stackid(ctx, &stacks, 0);

		if (id < 0) {
			count(CNT_STACK_FAIL);
			site = SITE_NO_STACK;
		} else {
			site = id;
		}
	}
	info.site = site;
	info.size = size;
	err = bpf_map_update_elem(&objs, &key, &info, BPF_NOEXIST);
	if (err == -17 /* -EEXIST */) {
		/*
		 * The object's free was not seen (freed by a path without
		 * a tracepoint, e.g. the bulk allocators): take it off its
		 * old site and reuse the entry.
		 */
		old = bpf_map_lookup_elem(&objs, &key);
		if (!old)
			return 0;
		count(CNT_STALE);
		site_sub(old->site, old->size);
		old->site = site;
		old->size = size;
	} else if (err) {
		count(err == -7 /* -E2BIG */ ? CNT_OBJ_FULL : CNT_OBJ_ERR);
		return 0;
	}
	site_add(site, size);
	return 0;
}

static __always_inline int on_free(__u64 key)
{
	struct obj_info *info;
	__u64 site, size;

	info = bpf_map_lookup_elem(&objs, &key);
	if (!info)
		return 0;	/* allocated before we started, or not tracked */
	/* Copy first: a deleted element can be reused at once. */
	site = info->site;
	size = info->size;
	bpf_map_delete_elem(&objs, &key);
	site_sub(site, size);
	return 0;
}

/* call_site mode */

SEC("tracepoint/kmem/kmalloc")
int kmalloc_site(struct kmem_alloc_ctx *ctx)
{
	return on_alloc(ctx, (__u64)ctx->ptr, ctx->bytes_alloc, ctx->call_site, 0);
}

SEC("tracepoint/kmem/kmem_cache_alloc")
int kmem_cache_alloc_site(struct kmem_alloc_ctx *ctx)
{
	return on_alloc(ctx, (__u64)ctx->ptr, ctx->bytes_alloc, ctx->call_site, 0);
}

SEC("tracepoint/kmem/mm_page_alloc")
int page_alloc_site(struct page_alloc_ctx *ctx)
{
	unsigned int order = ctx->order;

	if (ctx->pfn == ~0UL)
		return 0;
	return on_alloc(ctx, ctx->pfn, 4096ULL << order,
			SITE_PAGE_ORDER(order < SITE_PAGE_MAX - 1 ? order : SITE_PAGE_MAX - 1), 0);
}

/* stack mode */

SEC("tracepoint/kmem/kmalloc")
int kmalloc_stack(struct kmem_alloc_ctx *ctx)
{
	return on_alloc(ctx, (__u64)ctx->ptr, ctx->bytes_alloc, 0, 1);
}

SEC("tracepoint/kmem/kmem_cache_alloc")
int kmem_cache_alloc_stack(struct kmem_alloc_ctx *ctx)
{
	return on_alloc(ctx, (__u64)ctx->ptr, ctx->bytes_alloc, 0, 1);
}

SEC("tracepoint/kmem/mm_page_alloc")
int page_alloc_stack(struct page_alloc_ctx *ctx)
{
	if (ctx->pfn == ~0UL)
		return 0;
	return on_alloc(ctx, ctx->pfn, 4096ULL << ctx->order, 0, 1);
}

/* both modes */

SEC("tracepoint/kmem/kfree")
int kfree_any(struct kmem_free_ctx *ctx)
{
	return on_free((__u64)ctx->ptr);
}

SEC("tracepoint/kmem/kmem_cache_free")
int kmem_cache_free_any(struct kmem_free_ctx *ctx)
{
	return on_free((__u64)ctx->ptr);
}

/*
 * Every page free passes free_pages_prepare(), which fires mm_page_free;
 * mm_page_free_batched (free_unref_page_list()) fires for the same pages
 * again, so it is not attached.
 */
SEC("tracepoint/kmem/mm_page_free")
int page_free_any(struct page_free_ctx *ctx)
{
	return on_free(ctx->pfn);
}

char LICENSE[] SEC("license") = "GPL";
