// SPDX-License-Identifier: GPL-2.0
/*
 * tools/mm/allocinfo with a fake /proc, for the host tests of what it
 * reads from the kernel: the ioctls of /proc/allocinfo (--ioctl) and the
 * cumulative counters with their sysctls (hot).
 *
 *   cc ... -I tools/mm -idirafter include/uapi allocinfo-fakeproc.c
 *
 * The tool's source is compiled in with open(), fopen(), access(), close()
 * and ioctl() replaced. A path under /proc/ is looked up under the
 * directory $ALLOCINFO_FAKE_PROC instead: /proc/allocinfo is
 * $ALLOCINFO_FAKE_PROC/allocinfo, /proc/sys/vm/mem_profiling is
 * $ALLOCINFO_FAKE_PROC/sys/vm/mem_profiling. The ioctls of
 * <linux/alloc_tag.h> on an open /proc/allocinfo answer from the lines
 * that file had when it was opened, one record per line, as the kernel
 * answers from its tags:
 *
 *   - a name longer than ALLOCINFO_STR_SIZE - 1 is cut to its last
 *     ALLOCINFO_STR_SIZE - 1 characters, the module of built-in code is "";
 *   - ALLOCINFO_IOC_GET_AT: the first line at or after position pos (the
 *     first data line is 0) that matches the filter, exact strings on the
 *     cut names, sizes inclusive and unsigned; the filter stays with the
 *     open file; EINVAL for unknown mask bits or a string without NUL;
 *   - ALLOCINFO_IOC_GET_NEXT: the next match; EINVAL before any GET_AT;
 *   - both ENOENT when there is no (more) match.
 *
 * Environment:
 *   ALLOCINFO_FAKE_PROC=DIR    the fake /proc (required for /proc paths)
 *   ALLOCINFO_FAKE_NO_IOCTL=1  every ioctl fails with ENOTTY (old kernel)
 *   ALLOCINFO_FAKE_UNSTABLE=K  the set of sites "changes" during each of
 *                              the first K reads: ALLOCINFO_IOC_CONTENT_ID
 *                              returns 1, 2, ..., 2K + 1, then 2K + 1
 *   ALLOCINFO_FAKE_LOG=FILE    append a line per ioctl to FILE: its name,
 *                              and for GET_AT the filter it was given
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <linux/alloc_tag.h>

#define KEPT	(ALLOCINFO_STR_SIZE - 1)

struct record {
	struct allocinfo_tag_data d;
};

static struct {
	int fd;			/* the open /proc/allocinfo, or -1 */
	struct record *rec;
	size_t nr;
	bool walking;
	size_t next;
	struct allocinfo_filter filter;
	unsigned long id_calls;
} fake = { .fd = -1 };

static char *fake_path(const char *path)
{
	const char *dir = getenv("ALLOCINFO_FAKE_PROC");
	char *p;

	if (strncmp(path, "/proc/", 6))
		return NULL;
	if (!dir) {
		fprintf(stderr, "fakeproc: ALLOCINFO_FAKE_PROC is not set\n");
		abort();
	}
	if (asprintf(&p, "%s/%s", dir, path + 6) < 0)
		abort();
	return p;
}

static void fake_log(const char *fmt, ...)
{
	const char *path = getenv("ALLOCINFO_FAKE_LOG");
	va_list ap;
	FILE *f;

	if (!path)
		return;
	f = fopen(path, "a");
	if (!f)
		abort();
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	fclose(f);
}

static void cut(char *dst, const char *name, size_t len)
{
	if (len > KEPT) {
		name += len - KEPT;
		len = KEPT;
	}
	memcpy(dst, name, len);
	dst[len] = '\0';
}

/* One data line of the text, as the kernel has it in a tag. */
static bool parse_record(char *line, struct allocinfo_tag_data *d)
{
	char *save, *tok, *colon;
	int i = 0;

	memset(d, 0, sizeof(*d));
	d->counter.accurate = 1;
	for (tok = strtok_r(line, " \t\n", &save); tok;
	     tok = strtok_r(NULL, " \t\n", &save), i++) {
		if (i == 0) {
			d->counter.bytes = (__u64)strtoll(tok, NULL, 10);
		} else if (i == 1) {
			d->counter.calls = (__u64)strtoll(tok, NULL, 10);
		} else if (i == 2) {
			colon = strrchr(tok, ':');
			if (!colon)
				return false;
			cut(d->tag.filename, tok, colon - tok);
			d->tag.lineno = strtoull(colon + 1, NULL, 10);
		} else if (tok[0] == '[') {
			cut(d->tag.modname, tok + 1, strlen(tok) - 2);
		} else if (!strncmp(tok, "func:", 5)) {
			cut(d->tag.function, tok + 5, strlen(tok + 5));
		} else if (!strcmp(tok, "accurate:no")) {
			d->counter.accurate = 0;
		}
	}
	return i >= 4;
}

static void load_records(FILE *f)
{
	char *line = NULL;
	size_t cap = 0, alloc = 0;
	bool first = true;

	free(fake.rec);
	fake.rec = NULL;
	fake.nr = 0;
	while (getline(&line, &cap, f) >= 0) {
		if (first || line[0] == '#') {
			first = false;
			continue;
		}
		if (fake.nr == alloc) {
			alloc = alloc ? 2 * alloc : 64;
			fake.rec = realloc(fake.rec, alloc * sizeof(*fake.rec));
			if (!fake.rec)
				abort();
		}
		if (parse_record(line, &fake.rec[fake.nr].d))
			fake.nr++;
	}
	free(line);
}

static int fake_open(const char *path, int flags, ...)
{
	char *p = fake_path(path);
	mode_t mode = 0;
	va_list ap;
	FILE *f;
	int fd;

	if (flags & O_CREAT) {
		va_start(ap, flags);
		mode = va_arg(ap, mode_t);
		va_end(ap);
	}
	fd = open(p ? p : path, flags, mode);
	if (fd >= 0 && p && !strcmp(path, "/proc/allocinfo")) {
		f = fopen(p, "r");
		if (!f)
			abort();
		load_records(f);
		fclose(f);
		fake.fd = fd;
		fake.walking = false;
	}
	free(p);
	return fd;
}

static FILE *fake_fopen(const char *path, const char *mode)
{
	char *p = fake_path(path);
	FILE *f = fopen(p ? p : path, mode);

	free(p);
	return f;
}

static int fake_access(const char *path, int mode)
{
	char *p = fake_path(path);
	int ret = access(p ? p : path, mode);

	free(p);
	return ret;
}

static int fake_close(int fd)
{
	if (fd == fake.fd) {
		fake.fd = -1;
		free(fake.rec);
		fake.rec = NULL;
		fake.nr = 0;
	}
	return close(fd);
}

static bool str_ok(const char *s)
{
	return memchr(s, '\0', ALLOCINFO_STR_SIZE);
}

static bool matches(const struct allocinfo_filter *f,
		    const struct allocinfo_tag_data *d)
{
	if ((f->mask & ALLOCINFO_FILTER_MASK_MODNAME) &&
	    strcmp(f->fields.modname, d->tag.modname))
		return false;
	if ((f->mask & ALLOCINFO_FILTER_MASK_FUNCTION) &&
	    strcmp(f->fields.function, d->tag.function))
		return false;
	if ((f->mask & ALLOCINFO_FILTER_MASK_FILENAME) &&
	    strcmp(f->fields.filename, d->tag.filename))
		return false;
	if ((f->mask & ALLOCINFO_FILTER_MASK_LINENO) &&
	    f->fields.lineno != d->tag.lineno)
		return false;
	if ((f->mask & ALLOCINFO_FILTER_MASK_INACCURATE) &&
	    f->inaccurate != !d->counter.accurate)
		return false;
	if ((f->mask & ALLOCINFO_FILTER_MASK_MIN_SIZE) &&
	    d->counter.bytes < f->min_size)
		return false;
	if ((f->mask & ALLOCINFO_FILTER_MASK_MAX_SIZE) &&
	    d->counter.bytes > f->max_size)
		return false;
	return true;
}

/* From position @pos on, the first match into @d; -ENOENT if none. */
static int find(size_t pos, struct allocinfo_tag_data *d)
{
	for (; pos < fake.nr; pos++) {
		if (matches(&fake.filter, &fake.rec[pos].d)) {
			*d = fake.rec[pos].d;
			fake.next = pos + 1;
			return 0;
		}
	}
	fake.next = fake.nr;
	return -ENOENT;
}

static int fake_ioctl(int fd, unsigned long req, ...)
{
	const char *env = getenv("ALLOCINFO_FAKE_UNSTABLE");
	struct allocinfo_content_id *id;
	struct allocinfo_get_at *at;
	const struct allocinfo_filter *f;
	unsigned long k;
	va_list ap;
	void *arg;
	int ret;

	va_start(ap, req);
	arg = va_arg(ap, void *);
	va_end(ap);
	if (fd != fake.fd || getenv("ALLOCINFO_FAKE_NO_IOCTL")) {
		errno = ENOTTY;
		return -1;
	}
	switch (req) {
	case ALLOCINFO_IOC_CONTENT_ID:
		id = arg;
		k = env ? strtoul(env, NULL, 10) : 0;
		fake.id_calls++;
		id->id = fake.id_calls < 2 * k + 1 ? fake.id_calls : 2 * k + 1;
		fake_log("CONTENT_ID %llu\n", (unsigned long long)id->id);
		return 0;
	case ALLOCINFO_IOC_GET_AT:
		at = arg;
		f = &at->filter;
		fake_log("GET_AT pos=%llu mask=%#llx modname=%.64s function=%.64s filename=%.64s min=%llu\n",
			 (unsigned long long)at->pos,
			 (unsigned long long)f->mask,
			 f->mask & ALLOCINFO_FILTER_MASK_MODNAME ?
			 f->fields.modname : "-",
			 f->mask & ALLOCINFO_FILTER_MASK_FUNCTION ?
			 f->fields.function : "-",
			 f->mask & ALLOCINFO_FILTER_MASK_FILENAME ?
			 f->fields.filename : "-",
			 (unsigned long long)f->min_size);
		if ((f->mask & ~(__u64)ALLOCINFO_FILTER_MASKS) ||
		    ((f->mask & ALLOCINFO_FILTER_MASK_MODNAME) &&
		     !str_ok(f->fields.modname)) ||
		    ((f->mask & ALLOCINFO_FILTER_MASK_FUNCTION) &&
		     !str_ok(f->fields.function)) ||
		    ((f->mask & ALLOCINFO_FILTER_MASK_FILENAME) &&
		     !str_ok(f->fields.filename)) ||
		    ((f->mask & ALLOCINFO_FILTER_MASK_INACCURATE) &&
		     f->inaccurate > 1)) {
			errno = EINVAL;
			return -1;
		}
		fake.filter = *f;
		fake.walking = true;
		ret = find(at->pos < fake.nr ? at->pos : fake.nr, &at->data);
		break;
	case ALLOCINFO_IOC_GET_NEXT:
		if (!fake.walking) {
			errno = EINVAL;
			return -1;
		}
		ret = find(fake.next, arg);
		break;
	default:
		errno = ENOTTY;
		return -1;
	}
	if (ret) {
		errno = -ret;
		return -1;
	}
	return 0;
}

#define open(...)	fake_open(__VA_ARGS__)
#define fopen(...)	fake_fopen(__VA_ARGS__)
#define access(...)	fake_access(__VA_ARGS__)
#define close(...)	fake_close(__VA_ARGS__)
#define ioctl(...)	fake_ioctl(__VA_ARGS__)

#include "allocinfo.c"
