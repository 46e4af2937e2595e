// SPDX-License-Identifier: GPL-2.0
/*
 * workloads: the real workloads of "make bench", each bounded by a count
 * (never by time: under QEMU's icount a guest nanosecond is one
 * instruction, and TCG runs the guest far slower than hardware).
 *
 *   workloads fork COUNT           fork, exec a static program, exit, wait
 *   workloads files DIR COUNT      create, write 12 KiB, close, unlink in DIR
 *   workloads tcp COUNT ROUNDS     COUNT loopback TCP connections, each with
 *                                  ROUNDS request/response exchanges
 *   workloads mix COUNT            a kernel-heavy mix (see mix_one())
 *   workloads exec CMD [ARG...]    run CMD (output to /dev/null)
 *   workloads exec-fifo CMD [ARG...]
 *                                  the same, CMD and its children under
 *                                  SCHED_FIFO (see do_exec())
 *   workloads noop                 exit at once (what "fork" executes)
 *
 * Each prints the nanoseconds (CLOCK_MONOTONIC) the case took on stdout and
 * exits 0, or prints the failing call on stderr and exits 1.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static const char *self;

static void fail(const char *what)
{
	fprintf(stderr, "workloads: %s: %s\n", what, strerror(errno));
	exit(1);
}

static unsigned long long now_ns(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_MONOTONIC, &ts))
		fail("clock_gettime");
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static long count_arg(const char *s)
{
	char *end;
	long n;

	errno = 0;
	n = strtol(s, &end, 10);
	if (errno || *end || n <= 0 || n > 10000000) {
		fprintf(stderr, "workloads: bad count '%s'\n", s);
		exit(2);
	}
	return n;
}

static void wait_ok(pid_t pid, const char *what)
{
	int status;

	if (waitpid(pid, &status, 0) != pid)
		fail(what);
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(stderr, "workloads: %s: child status %#x\n", what, status);
		exit(1);
	}
}

static void full_write(int fd, const void *buf, size_t len, const char *what)
{
	const char *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			fail(what);
		}
		p += n;
		len -= n;
	}
}

static void full_read(int fd, void *buf, size_t len, const char *what)
{
	char *p = buf;

	while (len) {
		ssize_t n = read(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (!n)
				errno = EPIPE;
			fail(what);
		}
		p += n;
		len -= n;
	}
}

static void do_fork(long count)
{
	char *const argv[] = { (char *)self, "noop", NULL };
	char *const envp[] = { NULL };
	long i;

	for (i = 0; i < count; i++) {
		pid_t pid = fork();

		if (pid < 0)
			fail("fork");
		if (!pid) {
			execve(self, argv, envp);
			_exit(127);
		}
		wait_ok(pid, "fork: exec");
	}
}

/* Three pages per file: the page cache, and on ext4 delayed allocation. */
static void do_files(const char *dir, long count)
{
	static char buf[12288];
	char path[256];
	long i;

	memset(buf, 'f', sizeof(buf));
	for (i = 0; i < count; i++) {
		int fd;

		snprintf(path, sizeof(path), "%s/w%ld", dir, i % 16);
		fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0600);
		if (fd < 0)
			fail("files: open");
		full_write(fd, buf, sizeof(buf), "files: write");
		if (close(fd))
			fail("files: close");
		if (unlink(path))
			fail("files: unlink");
	}
}

#define TCP_REQ 64
#define TCP_RESP 512

static void tcp_server(int lfd, long count)
{
	char req[TCP_REQ], resp[TCP_RESP];
	long i;

	memset(resp, 'r', sizeof(resp));
	for (i = 0; i < count; i++) {
		int fd = accept(lfd, NULL, NULL);
		ssize_t n;

		if (fd < 0)
			fail("tcp: accept");
		for (;;) {
			n = recv(fd, req, sizeof(req), MSG_WAITALL);
			if (n == 0)
				break;
			if (n != sizeof(req))
				fail("tcp: server recv");
			full_write(fd, resp, sizeof(resp), "tcp: server send");
		}
		close(fd);
	}
}

static void tcp_client(const struct sockaddr_in *addr, long count, long rounds)
{
	char req[TCP_REQ], resp[TCP_RESP];
	int one = 1;
	long i, r;

	memset(req, 'q', sizeof(req));
	for (i = 0; i < count; i++) {
		int fd = socket(AF_INET, SOCK_STREAM, 0);

		if (fd < 0)
			fail("tcp: socket");
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		if (connect(fd, (const struct sockaddr *)addr, sizeof(*addr)))
			fail("tcp: connect");
		for (r = 0; r < rounds; r++) {
			full_write(fd, req, sizeof(req), "tcp: client send");
			full_read(fd, resp, sizeof(resp), "tcp: client recv");
		}
		close(fd);
	}
}

static void do_tcp(long count, long rounds)
{
	struct sockaddr_in addr = { .sin_family = AF_INET };
	socklen_t len = sizeof(addr);
	int lfd, one = 1;
	pid_t pid;

	addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	lfd = socket(AF_INET, SOCK_STREAM, 0);
	if (lfd < 0)
		fail("tcp: socket");
	setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(lfd, (struct sockaddr *)&addr, sizeof(addr)) ||
	    getsockname(lfd, (struct sockaddr *)&addr, &len) || listen(lfd, 16))
		fail("tcp: listen");
	pid = fork();
	if (pid < 0)
		fail("fork");
	if (!pid) {
		setsockopt(lfd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		tcp_server(lfd, count);
		_exit(0);
	}
	close(lfd);
	tcp_client(&addr, count, rounds);
	wait_ok(pid, "tcp: server");
}

/*
 * One round of the mix: the system calls a busy server or a build makes
 * most, each reaching a different allocator user: seq_file and its buffer,
 * path lookup, anonymous memory with its page tables and VMAs, a pipe, a
 * UNIX socket's skbs, a tmpfs file's inode, dentry and page, a directory
 * read, and every eighth round a process.
 */
static void mix_one(long i, char *buf)
{
	char path[64];
	struct stat st;
	int fd, p[2], s[2];
	DIR *d;
	char *m;
	size_t off;

	fd = open("/proc/self/stat", O_RDONLY);
	if (fd < 0 || read(fd, buf, 4096) <= 0 || close(fd))
		fail("mix: /proc/self/stat");
	if (stat(self, &st))
		fail("mix: stat");

	m = mmap(NULL, 16 * 4096, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		fail("mix: mmap");
	for (off = 0; off < 16 * 4096; off += 4096)
		m[off] = 1;
	if (munmap(m, 16 * 4096))
		fail("mix: munmap");

	if (pipe(p))
		fail("mix: pipe");
	full_write(p[1], buf, 128, "mix: pipe write");
	full_read(p[0], buf, 128, "mix: pipe read");
	close(p[0]);
	close(p[1]);

	if (socketpair(AF_UNIX, SOCK_STREAM, 0, s))
		fail("mix: socketpair");
	full_write(s[0], buf, 256, "mix: unix send");
	full_read(s[1], buf, 256, "mix: unix recv");
	close(s[0]);
	close(s[1]);

	snprintf(path, sizeof(path), "/tmp/mix%ld", i % 8);
	fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0600);
	if (fd < 0)
		fail("mix: open");
	full_write(fd, buf, 4096, "mix: write");
	close(fd);
	if (unlink(path))
		fail("mix: unlink");

	d = opendir("/proc/self/fd");
	if (!d)
		fail("mix: opendir");
	while (readdir(d))
		;
	closedir(d);

	if (i % 8 == 0) {
		pid_t pid = fork();

		if (pid < 0)
			fail("mix: fork");
		if (!pid)
			_exit(0);
		wait_ok(pid, "mix: child");
	}
}

static void do_mix(long count)
{
	static char buf[4096];
	long i;

	memset(buf, 'm', sizeof(buf));
	for (i = 0; i < count; i++)
		mix_one(i, buf);
}

/*
 * With fifo, CMD runs under SCHED_FIFO: a task runs until it blocks, and a
 * woken task waits its turn at the tail of the queue. Neither the tick nor
 * a wakeup preempts, so a program of processes that talk through pipes
 * (hackbench) takes the same schedule, the same number of context
 * switches, on every run and every kernel: the instructions it retires
 * are the work it does, not the number of times CFS happened to switch.
 * The caller lifts the RT throttle (sched_rt_runtime_us = -1).
 */
static void do_exec(char **argv, int fifo)
{
	pid_t pid = fork();

	if (pid < 0)
		fail("fork");
	if (!pid) {
		struct sched_param sp = { .sched_priority = 1 };
		int fd = open("/dev/null", O_WRONLY);

		if (fd >= 0) {
			dup2(fd, 1);
			close(fd);
		}
		if (fifo && sched_setscheduler(0, SCHED_FIFO, &sp))
			fail("sched_setscheduler SCHED_FIFO");
		execv(argv[0], argv);
		fprintf(stderr, "workloads: exec %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	wait_ok(pid, argv[0]);
}

static void usage(void)
{
	fprintf(stderr,
		"usage: workloads fork COUNT | files DIR COUNT | tcp COUNT ROUNDS |\n"
		"       mix COUNT | exec CMD [ARG...] | exec-fifo CMD [ARG...] | noop\n");
	exit(2);
}

int main(int argc, char **argv)
{
	unsigned long long start;
	const char *c;

	self = argv[0];
	if (argc < 2)
		usage();
	c = argv[1];
	if (!strcmp(c, "noop"))
		return 0;
	/* A client whose server died must fail, not die of SIGPIPE. */
	signal(SIGPIPE, SIG_IGN);

	start = now_ns();
	if (!strcmp(c, "fork") && argc == 3)
		do_fork(count_arg(argv[2]));
	else if (!strcmp(c, "files") && argc == 4)
		do_files(argv[2], count_arg(argv[3]));
	else if (!strcmp(c, "tcp") && argc == 4)
		do_tcp(count_arg(argv[2]), count_arg(argv[3]));
	else if (!strcmp(c, "mix") && argc == 3)
		do_mix(count_arg(argv[2]));
	else if (!strcmp(c, "exec") && argc >= 3)
		do_exec(argv + 2, 0);
	else if (!strcmp(c, "exec-fifo") && argc >= 3)
		do_exec(argv + 2, 1);
	else
		usage();
	printf("%llu\n", now_ns() - start);
	return 0;
}
