/*
 * lib/trace/trace_sync.c - what the tracing runtime's writers and controllers
 * share: the processor count and the caller's processor, the cached
 * process id, the count of forks, the control lock, the table of running sessions,
 * the read-side sections that let a controller wait for writers in flight
 * (see lib/trace/trace_core.h, "Lifetime"), and what a forked child does
 * to all of these. It is the bottom of the runtime and calls nothing
 * above it: the session layer hands it what it must do in a forked child
 * (etl__rt_set_fork_child()).
 *
 * Why it is enough. A writer's section begins with a seq_cst increment of
 * its processor's counter and every pointer it then follows (a session in
 * etl__rt_sessions, a provider's registration) is loaded seq_cst or after
 * it. A controller clears those pointers with seq_cst stores before it
 * reads the counters (seq_cst): in the single total order either the
 * writer's increment comes first - and the controller waits for it - or
 * the writer's loads come after the clearing and see nothing. The two
 * halves keep synchronize from starving under a steady stream of writers:
 * new sections enter the other half while the old one drains.
 *
 * The kick: a counter a thread sleeps on (a futex) until someone adds to
 * it, so that a writer wakes a session's logger without taking a lock that
 * a preempted thread might hold (lib/trace/trace_pool.c).
 */
#define ETL_BUILDING_LIB 1
#define _GNU_SOURCE 1
#include <errno.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include "lib/trace/trace_core.h"

struct etl__rt_rd *etl__rt_rds;
_Atomic unsigned etl__rt_rd_idx;
_Atomic(struct etl_session *) etl__rt_sessions[ETL_RT_MAX_SESSIONS];

static uint32_t g_nproc;
static pthread_once_t g_once = PTHREAD_ONCE_INIT;
static pthread_mutex_t g_ctl;
static pthread_mutex_t g_sync = PTHREAD_MUTEX_INITIALIZER;
static _Atomic uint32_t g_pid;

/* A spare array for when allocation fails at first use: one processor. */
static struct etl__rt_rd g_rd_one[1];

_Atomic uint32_t etl__rt_forks;

/* What the session layer does in a forked child (control lock). */
static void (*g_fork_child)(void);

/* fork(): the control lock is taken around it, so the child inherits a
 * consistent state. In the child only the forking thread exists: no writer
 * is in a section, and the parent's sessions have no logger thread - the
 * session layer's hook orphans them, and the child starts afresh. */
static void before_fork(void)
{
	pthread_mutex_lock(&g_ctl);
}

static void after_fork_parent(void)
{
	pthread_mutex_unlock(&g_ctl);
}

static void after_fork_child(void)
{
	atomic_fetch_add_explicit(&etl__rt_forks, 1, memory_order_relaxed);
	atomic_store_explicit(&g_pid, (uint32_t)getpid(), memory_order_relaxed);
	for (uint32_t i = 0; i < g_nproc; i++) {
		atomic_store_explicit(&etl__rt_rds[i].n[0], 0, memory_order_relaxed);
		atomic_store_explicit(&etl__rt_rds[i].n[1], 0, memory_order_relaxed);
	}
	pthread_mutex_init(&g_sync, NULL);
	if (g_fork_child)
		g_fork_child();
	/* The child's thread has another id than the one that locked g_ctl, so
	 * a recursive mutex cannot be unlocked here: it is made anew. */
	pthread_mutexattr_t a;
	pthread_mutexattr_init(&a);
	pthread_mutexattr_settype(&a, PTHREAD_MUTEX_RECURSIVE);
	pthread_mutex_init(&g_ctl, &a);
	pthread_mutexattr_destroy(&a);
}

static void init_once(void)
{
	long n = sysconf(_SC_NPROCESSORS_CONF);
	g_nproc = n < 1 ? 1 : n > 4096 ? 4096 : (uint32_t)n;
	etl__rt_rds = aligned_alloc(64, sizeof(struct etl__rt_rd) * g_nproc);
	if (!etl__rt_rds) {
		etl__rt_rds = g_rd_one;
		g_nproc = 1;
	}
	for (uint32_t i = 0; i < g_nproc; i++) {
		atomic_init(&etl__rt_rds[i].n[0], 0);
		atomic_init(&etl__rt_rds[i].n[1], 0);
	}
	pthread_mutexattr_t a;
	pthread_mutexattr_init(&a);
	pthread_mutexattr_settype(&a, PTHREAD_MUTEX_RECURSIVE);
	pthread_mutex_init(&g_ctl, &a);
	pthread_mutexattr_destroy(&a);
	atomic_store(&g_pid, (uint32_t)getpid());
	pthread_atfork(before_fork, after_fork_parent, after_fork_child);
}

uint32_t etl__rt_nproc(void)
{
	pthread_once(&g_once, init_once);
	return g_nproc;
}

uint32_t etl__rt_cpu(void)
{
	/* g_nproc is set once every caller has gone through etl__rt_nproc()
	 * (sessions and providers do before any write can reach here). */
	int c = sched_getcpu();
	uint32_t n = g_nproc;
	if (c < 0)
		return 0;
	return (uint32_t)c < n ? (uint32_t)c : (uint32_t)c % n;
}

uint32_t etl__rt_pid(void)
{
	return atomic_load_explicit(&g_pid, memory_order_relaxed);
}

void etl__rt_ctl_lock(void)
{
	pthread_once(&g_once, init_once);
	pthread_mutex_lock(&g_ctl);
}

void etl__rt_ctl_unlock(void)
{
	pthread_mutex_unlock(&g_ctl);
}

void etl__rt_set_fork_child(void (*fn)(void))
{
	g_fork_child = fn;
}

int etl__rt_kick_wait(_Atomic uint32_t *kick, uint32_t seen, const struct timespec *until)
{
	/* FUTEX_WAIT_BITSET: an absolute CLOCK_MONOTONIC deadline. */
	long r = syscall(SYS_futex, (uint32_t *)kick, FUTEX_WAIT_BITSET_PRIVATE, seen, until, NULL,
	                 FUTEX_BITSET_MATCH_ANY);
	return r != 0 && errno == ETIMEDOUT ? ETIMEDOUT : 0;
}

void etl__rt_kick(_Atomic uint32_t *kick)
{
	atomic_fetch_add(kick, 1);
	syscall(SYS_futex, (uint32_t *)kick, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

static void wait_drained(unsigned half)
{
	for (unsigned spins = 0;; spins++) {
		long sum = 0;
		for (uint32_t i = 0; i < g_nproc; i++)
			sum += atomic_load_explicit(&etl__rt_rds[i].n[half], memory_order_seq_cst);
		if (sum == 0)
			return;
		if (spins < 64) {
			sched_yield();
		} else {
			struct timespec ts = { 0, 50000 };
			nanosleep(&ts, NULL);
		}
	}
}

void etl__rt_synchronize(void)
{
	pthread_once(&g_once, init_once);
	pthread_mutex_lock(&g_sync);
	unsigned cur = atomic_load_explicit(&etl__rt_rd_idx, memory_order_seq_cst) & 1u;
	/* Stragglers that read the index before the last flip and counted in
	 * the idle half: they may have seen the state before our change. */
	wait_drained(cur ^ 1u);
	atomic_store_explicit(&etl__rt_rd_idx, cur ^ 1u, memory_order_seq_cst);
	wait_drained(cur);
	pthread_mutex_unlock(&g_sync);
}
