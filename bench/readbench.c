// SPDX-License-Identifier: GPL-2.0
/*
 * make bench, read rows: what it costs to read the allocation profile.
 *
 * Run in the guest under QEMU -icount shift=0 (a nanosecond of guest time
 * is an instruction).  Prints, for the kernel it runs on:
 *
 *   BENCH-READ sites <n>                 lines of /proc/allocinfo
 *   BENCH-READ text <ns>                 one full read() of the text
 *   BENCH-READ ioctl-all <ns> <n>        GET_AT + GET_NEXT over every site
 *   BENCH-READ ioctl-file <ns> <n> <f>   the sites of one file of vmlinux,
 *                                        filtered in the kernel (<n> of them)
 *   BENCH-READ cumulative-text <ns>      one full read of the cumulative file
 *   BENCH-ERROR <text>                   something went wrong
 *
 * Each figure is the smallest of RUNS runs, after one warm-up run.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>
#include <linux/alloc_tag.h>

#define RUNS	5

static char buf[1 << 16];

static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* One full read of @path; the number of lines, or -1. */
static long read_all(const char *path)
{
	long lines = 0;
	ssize_t n, i;
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		return -1;
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		for (i = 0; i < n; i++)
			lines += buf[i] == '\n';
	close(fd);
	return n < 0 ? -1 : lines;
}

/* Every site matching @f through the ioctls; the number, or -1. */
static long ioctl_all(int fd, const struct allocinfo_filter *f)
{
	static struct allocinfo_get_at req;
	struct allocinfo_tag_data d;
	long n = 0;

	memset(&req, 0, sizeof(req));
	req.filter = *f;
	if (ioctl(fd, ALLOCINFO_IOC_GET_AT, &req))
		return errno == ENOENT ? 0 : -1;
	n++;
	while (!ioctl(fd, ALLOCINFO_IOC_GET_NEXT, &d))
		n++;
	return errno == ENOENT ? n : -1;
}

static unsigned long long best_text(const char *path, long *lines)
{
	unsigned long long best = ~0ULL, t;
	int i;

	for (i = 0; i <= RUNS; i++) {
		t = now_ns();
		*lines = read_all(path);
		t = now_ns() - t;
		if (*lines < 0)
			return 0;
		if (i && t < best)
			best = t;
	}
	return best;
}

static unsigned long long best_ioctl(int fd, const struct allocinfo_filter *f,
				     long *n)
{
	unsigned long long best = ~0ULL, t;
	int i;

	for (i = 0; i <= RUNS; i++) {
		t = now_ns();
		*n = ioctl_all(fd, f);
		t = now_ns() - t;
		if (*n < 0)
			return 0;
		if (i && t < best)
			best = t;
	}
	return best;
}

/*
 * Parse the file name out of a line of /proc/allocinfo into @file, trimmed
 * as the ABI trims it; false if the line is a header or a module's site.
 */
static bool vmlinux_file(char *line, char *file)
{
	char *p = line, *colon;
	size_t len;

	if (line[0] == '#' || !strncmp(line, "allocinfo", 9) ||
	    strstr(line, " ["))
		return false;
	while (*p == ' ')
		p++;
	p = strchr(p, ' ');	/* after bytes */
	while (p && *p == ' ')
		p++;
	p = p ? strchr(p, ' ') : NULL;	/* after calls */
	while (p && *p == ' ')
		p++;
	colon = p ? strchr(p, ':') : NULL;
	if (!colon)
		return false;
	*colon = '\0';
	len = strlen(p);
	if (len >= ALLOCINFO_STR_SIZE)
		p += len - (ALLOCINFO_STR_SIZE - 1);
	strcpy(file, p);
	return true;
}

/*
 * The file of the vmlinux site in the middle of the vmlinux sites: a file
 * with a few sites, as a tool following one driver or subsystem asks for.
 */
static int middle_file(char *file)
{
	char line[1024], name[ALLOCINFO_STR_SIZE];
	long n = 0, i = 0;
	FILE *f;

	f = fopen("/proc/allocinfo", "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		n += vmlinux_file(line, name);
	rewind(f);
	while (fgets(line, sizeof(line), f)) {
		if (!vmlinux_file(line, name) || i++ < n / 2)
			continue;
		strcpy(file, name);
		fclose(f);
		return 0;
	}
	fclose(f);
	return -1;
}

int main(void)
{
	struct allocinfo_filter all = {}, byfile = {};
	unsigned long long t;
	long lines, n;
	int fd;

	t = best_text("/proc/allocinfo", &lines);
	if (!t) {
		printf("BENCH-ERROR cannot read /proc/allocinfo\n");
		return 1;
	}
	printf("BENCH-READ sites %ld\n", lines - 2);
	printf("BENCH-READ text %llu\n", t);

	fd = open("/proc/allocinfo", O_RDONLY);
	if (fd < 0) {
		printf("BENCH-ERROR cannot open /proc/allocinfo\n");
		return 1;
	}
	t = best_ioctl(fd, &all, &n);
	if (!t && errno == ENOTTY) {
		/* A kernel without the ioctls (upstream before 7.3). */
		printf("BENCH-READ ioctl none\n");
		goto cumulative;
	}
	if (!t) {
		printf("BENCH-ERROR ioctl read: %s\n", strerror(errno));
		return 1;
	}
	printf("BENCH-READ ioctl-all %llu %ld\n", t, n);

	byfile.mask = ALLOCINFO_FILTER_MASK_FILENAME;
	if (middle_file(byfile.fields.filename)) {
		printf("BENCH-ERROR cannot pick a file\n");
		return 1;
	}
	t = best_ioctl(fd, &byfile, &n);
	if (!t || !n) {
		printf("BENCH-ERROR ioctl read of %s: %s\n",
		       byfile.fields.filename, n ? strerror(errno) : "no site");
		return 1;
	}
	printf("BENCH-READ ioctl-file %llu %ld %s\n", t, n,
	       byfile.fields.filename);
cumulative:
	close(fd);
	t = best_text("/proc/allocinfo_cumulative", &lines);
	if (t)
		printf("BENCH-READ cumulative-text %llu\n", t);
	return 0;
}
