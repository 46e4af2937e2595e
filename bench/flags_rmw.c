// SPDX-License-Identifier: GPL-2.0
/*
 * Host micro-benchmark behind the page->flags write of the tag index: the
 * cost of a plain read-modify-write of a word against a cmpxchg loop (what
 * the series uses), single-threaded on a cached line, and whether a flag
 * bit set atomically by another thread survives each of them.
 *
 *   gcc -O2 -pthread -o flags_rmw flags_rmw.c && perf stat ./flags_rmw
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define MASK	(0xffffffUL << 32)
#define FLAG	(1UL << 5)
#define N	100000000UL

static volatile unsigned long word;
static volatile int stop;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static inline void set_plain(unsigned long idx)
{
	word = (word & ~MASK) | (idx << 32);
}

static inline void set_cmpxchg(unsigned long idx)
{
	unsigned long old = word, new;

	do {
		new = (old & ~MASK) | (idx << 32);
	} while (!__atomic_compare_exchange_n(&word, &old, new, 0,
					      __ATOMIC_SEQ_CST,
					      __ATOMIC_RELAXED));
}

/* Sets and clears FLAG atomically, counting the times it was undone. */
static void *flipper(void *arg)
{
	unsigned long *lost = arg;

	while (!stop) {
		__atomic_fetch_or(&word, FLAG, __ATOMIC_SEQ_CST);
		if (!(word & FLAG))
			++*lost;
		__atomic_fetch_and(&word, ~FLAG, __ATOMIC_SEQ_CST);
	}
	return NULL;
}

static void race(const char *name, int atomic)
{
	unsigned long lost = 0, i;
	pthread_t t;

	stop = 0;
	pthread_create(&t, NULL, flipper, &lost);
	for (i = 0; i < N / 10; i++) {
		if (atomic)
			set_cmpxchg(i & 0xffffff);
		else
			set_plain(i & 0xffffff);
	}
	stop = 1;
	pthread_join(t, NULL);
	printf("%-8s with a concurrent atomic flag writer: %lu flag sets undone\n",
	       name, lost);
}

int main(void)
{
	double t0, t1, t2;
	unsigned long i;

	t0 = now();
	for (i = 0; i < N; i++)
		set_plain(i & 0xffffff);
	t1 = now();
	for (i = 0; i < N; i++)
		set_cmpxchg(i & 0xffffff);
	t2 = now();
	printf("plain RMW: %.2f ns per write\n", (t1 - t0) * 1e9 / N);
	printf("cmpxchg:   %.2f ns per write\n", (t2 - t1) * 1e9 / N);
	race("plain", 0);
	race("cmpxchg", 1);
	return 0;
}
