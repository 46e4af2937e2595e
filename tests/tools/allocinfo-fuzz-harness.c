// SPDX-License-Identifier: GPL-2.0
/*
 * Fork server for allocinfo-fuzz.py.
 *
 * Starting a program built with -fsanitize=address,undefined costs tens of
 * milliseconds on the build host, and a LeakSanitizer check as much again,
 * too much for thousands of fuzz runs. This harness compiles the tool's
 * source in (its main() renamed), starts the sanitizer runtime once, and
 * runs the tool's main() in a forked child per job, with the job's own
 * argv, standard output and standard error:
 *
 *   cc -fsanitize=address,undefined ... -I tools/mm -idirafter include/uapi \
 *      allocinfo-fuzz-harness.c
 *
 * Jobs come on standard input, one per line, fields separated by tabs:
 * LEAKCHECK (0 or 1), OUT, ERR, then the tool's arguments. For each job it
 * prints the child's wait status on a line of its own. With LEAKCHECK 1
 * the child runs a LeakSanitizer check when it exits (run the harness with
 * ASAN_OPTIONS=detect_leaks=1:leak_check_at_exit=0); a leak is reported
 * on the job's ERR and gives exit status 23.
 */
#define main allocinfo_main
#include "allocinfo.c"
#undef main

#include <fcntl.h>
#include <sanitizer/lsan_interface.h>
#include <sys/wait.h>

static void leak_check(void)
{
	if (__lsan_do_recoverable_leak_check())
		_exit(23);
}

static void run_job(char *job)
{
	char *fields[64], *p;
	int n = 0, fd, status;
	pid_t pid;

	for (p = strtok(job, "\t"); p && n < 63; p = strtok(NULL, "\t"))
		fields[n++] = p;
	if (n < 3) {
		fprintf(stderr, "harness: bad job line\n");
		exit(125);
	}
	fields[n] = NULL;
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		perror("harness: fork");
		exit(125);
	}
	if (!pid) {
		/*
		 * Jobs may come from a file: keep the child's exit() from
		 * moving the offset the harness shares with it.
		 */
		fd = open("/dev/null", O_RDONLY);
		if (fd < 0 || dup2(fd, 0) < 0)
			_exit(125);
		close(fd);
		fd = open(fields[1], O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd < 0 || dup2(fd, 1) < 0)
			_exit(125);
		close(fd);
		fd = open(fields[2], O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd < 0 || dup2(fd, 2) < 0)
			_exit(125);
		close(fd);
		if (fields[0][0] == '1')
			atexit(leak_check);
		/* argv[0] replaces the ERR field */
		fields[2] = "allocinfo";
		exit(allocinfo_main(n - 2, fields + 2));
	}
	if (waitpid(pid, &status, 0) < 0) {
		perror("harness: waitpid");
		exit(125);
	}
	printf("%d\n", status);
	fflush(stdout);
}

int main(void)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;

	while ((len = getline(&line, &cap, stdin)) > 0) {
		if (line[len - 1] == '\n')
			line[len - 1] = '\0';
		run_job(line);
	}
	free(line);
	return 0;
}
