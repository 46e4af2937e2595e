// SPDX-License-Identifier: GPL-2.0-only
/*
 * allocbpf: the loader of allocbpf.bpf.c, live per-site accounting of
 * kernel allocations with BPF on the kmem tracepoints (a peer row of
 * "make bench": what a user can run on a stock 6.1 kernel).
 *
 *   allocbpf [-m call_site|stack] [-o OBJ] [-n OBJECTS] [-s SITES]
 *            [-k STACKS] [-r READY_FILE] [-t TOP] [-p PREFIX]
 *
 * Checks the record layout of the kmem events against their format files
 * in tracefs, loads the programs of one attribution mode, attaches them,
 * creates READY_FILE and waits. On SIGTERM, SIGINT or SIGUSR1 it prints
 * what it holds as machine-readable lines and exits:
 *
 *   PREFIX mode MODE
 *   PREFIX map NAME entries N max N memlock BYTES      (one per map)
 *   PREFIX map_bytes BYTES prog_bytes BYTES memfree_delta BYTES
 *   PREFIX drops obj_full N obj_err N site_full N stack_fail N stale N
 *   PREFIX live calls N bytes N sites N                (all sites)
 *   PREFIX top RANK calls=N bytes=N live_calls=N live_bytes=N site=SYM [stack=SYM;SYM;...]
 *
 * (calls and bytes since the start; the live ones net of frees; SYM is
 * symbol+0xoff/0xsize[module] from /proc/kallsyms, page-order-N for the
 * pages of the call_site mode, no-stack for stacks that could not be
 * stored.) Built statically against libbpf (libbpf.a, libelf.a, libz.a,
 * libzstd.a) so that it runs in the busybox guest.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/types.h>

#include "allocbpf.h"

static const char *prefix = "BENCH-BPF";

static void die(const char *fmt, ...)
{
	va_list ap;

	printf("%s error ", prefix);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	exit(1);
}

/* --- the record layout of the events, against tracefs --- */

struct field_check {
	const char *event;
	const char *field;
	int offset;
	int size;
};

/* The offsets allocbpf.bpf.c's context structs use. */
static const struct field_check layout[] = {
	{ "kmalloc", "call_site", 8, 8 },
	{ "kmalloc", "ptr", 16, 8 },
	{ "kmalloc", "bytes_alloc", 32, 8 },
	{ "kmem_cache_alloc", "call_site", 8, 8 },
	{ "kmem_cache_alloc", "ptr", 16, 8 },
	{ "kmem_cache_alloc", "bytes_alloc", 32, 8 },
	{ "kfree", "ptr", 16, 8 },
	{ "kmem_cache_free", "ptr", 16, 8 },
	{ "mm_page_alloc", "pfn", 8, 8 },
	{ "mm_page_alloc", "order", 16, 4 },
	{ "mm_page_free", "pfn", 8, 8 },
};

static const char *tracefs(void)
{
	static const char *dirs[] = { "/sys/kernel/tracing",
				      "/sys/kernel/debug/tracing" };
	char path[256];
	unsigned int i;

	for (i = 0; i < 2; i++) {
		snprintf(path, sizeof(path), "%s/events/kmem", dirs[i]);
		if (access(path, R_OK) == 0)
			return dirs[i];
	}
	return NULL;
}

/* Finds "field:TYPE NAME;\toffset:N;\tsize:N;" in an event's format. */
static int check_layout(void)
{
	const char *dir = tracefs();
	char path[256], line[512], want[80];
	unsigned int i;

	if (!dir)
		die("no tracefs with kmem events (mount -t tracefs nodev /sys/kernel/tracing)");
	for (i = 0; i < sizeof(layout) / sizeof(layout[0]); i++) {
		const struct field_check *f = &layout[i];
		int found = 0, off = -1, size = -1;
		FILE *fh;

		snprintf(path, sizeof(path), "%s/events/kmem/%s/format", dir, f->event);
		fh = fopen(path, "r");
		if (!fh)
			die("cannot read %s", path);
		snprintf(want, sizeof(want), " %s;", f->field);
		while (fgets(line, sizeof(line), fh)) {
			char *p = strstr(line, "field:"), *o, *s;

			if (!p || !strstr(p, want))
				continue;
			o = strstr(p, "offset:");
			s = strstr(p, "size:");
			if (!o || !s)
				continue;
			off = atoi(o + 7);
			size = atoi(s + 5);
			found = 1;
			break;
		}
		fclose(fh);
		if (!found)
			die("kmem:%s has no field %s", f->event, f->field);
		if (off != f->offset || size != f->size)
			die("kmem:%s field %s at offset %d size %d, the program expects %d and %d",
			    f->event, f->field, off, size, f->offset, f->size);
	}
	return 0;
}

/* --- /proc/kallsyms --- */

struct ksym {
	unsigned long addr;
	char *name;	/* "name" or "name[module]" */
};

static struct ksym *ksyms;
static size_t nr_ksyms;

static int ksym_cmp(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static void load_kallsyms(void)
{
	FILE *fh = fopen("/proc/kallsyms", "r");
	char line[512], name[256], mod[128], type;
	size_t cap = 0;
	unsigned long addr;

	if (!fh)
		return;
	while (fgets(line, sizeof(line), fh)) {
		int n;

		mod[0] = 0;
		n = sscanf(line, "%lx %c %255s [%127[^]]]", &addr, &type, name, mod);
		if (n < 3 || !addr)
			continue;
		/* Text symbols only (T t W w), and not the data ones. */
		if (type != 'T' && type != 't' && type != 'W' && type != 'w')
			continue;
		if (nr_ksyms == cap) {
			cap = cap ? 2 * cap : 65536;
			ksyms = realloc(ksyms, cap * sizeof(*ksyms));
			if (!ksyms)
				die("out of memory");
		}
		ksyms[nr_ksyms].addr = addr;
		if (mod[0]) {
			size_t len = strlen(name) + strlen(mod) + 3;

			ksyms[nr_ksyms].name = malloc(len);
			snprintf(ksyms[nr_ksyms].name, len, "%s[%s]", name, mod);
		} else {
			ksyms[nr_ksyms].name = strdup(name);
		}
		nr_ksyms++;
	}
	fclose(fh);
	qsort(ksyms, nr_ksyms, sizeof(*ksyms), ksym_cmp);
}

/* symbol+0xoff/0xsize[module] (the size: up to the next symbol) */
static const char *sym(unsigned long addr, char *buf, size_t len)
{
	size_t lo = 0, hi = nr_ksyms;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (ksyms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || !nr_ksyms) {
		snprintf(buf, len, "0x%lx", addr);
		return buf;
	}
	if (lo == nr_ksyms) {
		/* Past the last symbol (freed init text, say): unknown. */
		snprintf(buf, len, "0x%lx", addr);
		return buf;
	}
	{
		const struct ksym *k = &ksyms[lo - 1];
		const char *br = strchr(k->name, '[');
		unsigned long size = ksyms[lo].addr - k->addr;
		int nlen = br ? (int)(br - k->name) : (int)strlen(k->name);

		snprintf(buf, len, "%.*s+0x%lx/0x%lx%s", nlen, k->name,
			 addr - k->addr, size, br ? br : "");
	}
	return buf;
}

/* --- memory --- */

static long fdinfo_memlock(int fd)
{
	char path[64], line[256];
	long v = -1;
	FILE *fh;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	fh = fopen(path, "r");
	if (!fh)
		return -1;
	while (fgets(line, sizeof(line), fh))
		if (sscanf(line, "memlock: %ld", &v) == 1)
			break;
	fclose(fh);
	return v;
}

static long memfree(void)
{
	char line[256];
	long kb = -1;
	FILE *fh = fopen("/proc/meminfo", "r");

	if (!fh)
		return -1;
	while (fgets(line, sizeof(line), fh))
		if (sscanf(line, "MemFree: %ld kB", &kb) == 1)
			break;
	fclose(fh);
	return kb * 1024;
}

/* --- the maps, at the end --- */

static long map_entries(int fd, size_t key_size)
{
	char key[16], next[16];
	void *prev = NULL;
	long n = 0;

	while (bpf_map_get_next_key(fd, prev, next) == 0) {
		n++;
		memcpy(key, next, key_size);
		prev = key;
	}
	return n;
}

struct site {
	__u64 key;
	struct site_stats st;
};

static int site_cmp(const void *a, const void *b)
{
	const struct site *x = a, *y = b;

	if (x->st.total_calls != y->st.total_calls)
		return x->st.total_calls < y->st.total_calls ? 1 : -1;
	return x->key < y->key ? -1 : x->key > y->key;
}

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: allocbpf [-m call_site|stack] [-o OBJ] [-n OBJECTS] [-s SITES]\n"
		"                [-k STACKS] [-r READY_FILE] [-t TOP] [-p PREFIX]\n");
	exit(2);
}

static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (level == LIBBPF_DEBUG)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

int main(int argc, char **argv)
{
	const char *mode = "call_site", *objpath = "/opt/bench/allocbpf.bpf.o";
	const char *ready = NULL;
	unsigned int n_objs = 262144, n_sites = 16384, n_stacks = 16384, top = 20;
	int by_stack, opt, ncpus, i, nprogs = 0;
	struct bpf_object *obj;
	struct bpf_program *prog;
	struct bpf_map *map;
	long before, after, map_bytes = 0, prog_bytes = 0;
	__u64 drops[NR_COUNTERS] = { 0 };
	struct site *sites = NULL;
	size_t nsites = 0, cap = 0;
	__u64 key, *next_prev = NULL, next;
	__s64 live_calls = 0, live_bytes = 0;
	sigset_t mask, old;
	char buf[256];

	while ((opt = getopt(argc, argv, "m:o:n:s:k:r:t:p:")) != -1) {
		switch (opt) {
		case 'm': mode = optarg; break;
		case 'o': objpath = optarg; break;
		case 'n': n_objs = strtoul(optarg, NULL, 0); break;
		case 's': n_sites = strtoul(optarg, NULL, 0); break;
		case 'k': n_stacks = strtoul(optarg, NULL, 0); break;
		case 'r': ready = optarg; break;
		case 't': top = strtoul(optarg, NULL, 0); break;
		case 'p': prefix = optarg; break;
		default: usage();
		}
	}
	if (!strcmp(mode, "call_site"))
		by_stack = 0;
	else if (!strcmp(mode, "stack"))
		by_stack = 1;
	else
		usage();
	setvbuf(stdout, NULL, _IOLBF, 0);
	libbpf_set_print(libbpf_print);

	/* Block the signals until we wait for them: no stop is lost. */
	sigemptyset(&mask);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGUSR1);
	sigprocmask(SIG_BLOCK, &mask, &old);
	signal(SIGTERM, on_signal);
	signal(SIGINT, on_signal);
	signal(SIGUSR1, on_signal);

	check_layout();
	before = memfree();
	obj = bpf_object__open_file(objpath, NULL);
	if (!obj)
		die("cannot open %s: %s", objpath, strerror(errno));
	bpf_object__for_each_program(prog, obj) {
		const char *name = bpf_program__name(prog);
		size_t len = strlen(name);
		int mine = (len > 4 && !strcmp(name + len - 4, "_any")) ||
			   (by_stack ? len > 6 && !strcmp(name + len - 6, "_stack")
				     : len > 5 && !strcmp(name + len - 5, "_site"));

		bpf_program__set_autoload(prog, mine);
	}
	bpf_object__for_each_map(map, obj) {
		const char *name = bpf_map__name(map);

		if (!strcmp(name, "objs"))
			bpf_map__set_max_entries(map, n_objs);
		else if (!strcmp(name, "sites"))
			bpf_map__set_max_entries(map, n_sites);
		else if (!strcmp(name, "stacks"))
			/* Not used by the call_site mode: keep it tiny. */
			bpf_map__set_max_entries(map, by_stack ? n_stacks : 1);
	}
	if (bpf_object__load(obj))
		die("cannot load %s: %s", objpath, strerror(errno));
	bpf_object__for_each_program(prog, obj) {
		if (!bpf_program__autoload(prog))
			continue;
		if (!bpf_program__attach(prog))
			die("cannot attach %s: %s", bpf_program__name(prog), strerror(errno));
		prog_bytes += fdinfo_memlock(bpf_program__fd(prog));
		nprogs++;
	}
	after = memfree();
	printf("%s attached mode %s programs %d\n", prefix, mode, nprogs);
	if (ready) {
		int fd = open(ready, O_WRONLY | O_CREAT | O_TRUNC, 0644);

		if (fd < 0)
			die("cannot create %s", ready);
		close(fd);
	}

	while (!stop)
		sigsuspend(&old);

	/*
	 * The programs stay attached while we read: the figures are those
	 * of a moment, as any reader of live counters gets them.
	 */
	load_kallsyms();
	printf("%s mode %s\n", prefix, mode);
	bpf_object__for_each_map(map, obj) {
		int fd = bpf_map__fd(map);
		long mem = fdinfo_memlock(fd), n = -1;
		const char *name = bpf_map__name(map);

		if (!strcmp(name, "objs") || !strcmp(name, "sites") ||
		    (!strcmp(name, "stacks") && by_stack))
			n = map_entries(fd, bpf_map__key_size(map));
		if (mem > 0)
			map_bytes += mem;
		printf("%s map %s entries %ld max %u memlock %ld\n", prefix, name, n,
		       bpf_map__max_entries(map), mem);
	}
	printf("%s map_bytes %ld prog_bytes %ld memfree_delta %ld\n", prefix,
	       map_bytes, prog_bytes, before > 0 && after > 0 ? before - after : -1);

	ncpus = libbpf_num_possible_cpus();
	if (ncpus > 0) {
		__u64 *v = calloc(ncpus, sizeof(__u64));
		__u32 k;
		int fd = bpf_object__find_map_fd_by_name(obj, "counters");

		for (k = 0; v && k < NR_COUNTERS; k++)
			if (bpf_map_lookup_elem(fd, &k, v) == 0)
				for (i = 0; i < ncpus; i++)
					drops[k] += v[i];
		free(v);
	}
	printf("%s drops obj_full %llu obj_err %llu site_full %llu stack_fail %llu stale %llu\n",
	       prefix, (unsigned long long)drops[CNT_OBJ_FULL],
	       (unsigned long long)drops[CNT_OBJ_ERR],
	       (unsigned long long)drops[CNT_SITE_FULL],
	       (unsigned long long)drops[CNT_STACK_FAIL],
	       (unsigned long long)drops[CNT_STALE]);

	{
		int fd = bpf_object__find_map_fd_by_name(obj, "sites");

		while (bpf_map_get_next_key(fd, next_prev, &next) == 0) {
			key = next;
			next_prev = &key;
			if (nsites == cap) {
				cap = cap ? 2 * cap : 1024;
				sites = realloc(sites, cap * sizeof(*sites));
				if (!sites)
					die("out of memory");
			}
			if (bpf_map_lookup_elem(fd, &key, &sites[nsites].st))
				continue;
			sites[nsites].key = key;
			live_calls += sites[nsites].st.calls;
			live_bytes += sites[nsites].st.bytes;
			nsites++;
		}
	}
	printf("%s live calls %lld bytes %lld sites %zu\n", prefix,
	       (long long)live_calls, (long long)live_bytes, nsites);
	qsort(sites, nsites, sizeof(*sites), site_cmp);
	for (i = 0; (size_t)i < nsites && (unsigned int)i < top; i++) {
		const struct site *s = &sites[i];

		printf("%s top %d calls=%llu bytes=%llu live_calls=%lld live_bytes=%lld",
		       prefix, i + 1, (unsigned long long)s->st.total_calls,
		       (unsigned long long)s->st.total_bytes,
		       (long long)s->st.calls, (long long)s->st.bytes);
		if (s->key == SITE_NO_STACK) {
			printf(" site=no-stack\n");
		} else if (!by_stack) {
			if (s->key <= SITE_PAGE_MAX)
				printf(" site=page-order-%llu\n",
				       (unsigned long long)s->key - 1);
			else
				printf(" site=%s\n", sym(s->key, buf, sizeof(buf)));
		} else {
			__u64 ips[STACK_DEPTH] = { 0 };
			__u32 id = s->key;
			int fd = bpf_object__find_map_fd_by_name(obj, "stacks"), j;

			printf(" site=stack-%u stack=", id);
			if (bpf_map_lookup_elem(fd, &id, ips) == 0)
				for (j = 0; j < STACK_DEPTH && ips[j]; j++)
					printf("%s%s", j ? ";" : "",
					       sym(ips[j], buf, sizeof(buf)));
			printf("\n");
		}
	}
	printf("%s done\n", prefix);
	bpf_object__close(obj);
	return 0;
}
