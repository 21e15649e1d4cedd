/*
 * jobs_bench.c - etlconvert -j figures for bench/convert (not part of the
 * library; "make bench" builds it): how fast the whole tool converts with
 * one, two and all online processors, in the same run.
 *
 *   jobs_bench [-r REPS] [-t SECONDS] [-s SMALLFILE] ETLCONVERT [-m MANIFEST]...
 *              [-x XMLFILE]... FILE...
 *
 * For JSONL and XML, runs ETLCONVERT -q -f FMT -j N --allow-same-input
 * [--manifest MANIFEST]... on the FILEs (XML: on the XMLFILEs when given,
 * XML being an order of magnitude slower; several files are merged in time
 * order), given K times each so that one -j 1 run takes at least SECONDS
 * of CPU time (default 1, whatever the machine's load; the start -
 * process, manifest loading - then weighs little, as in the multi-gigabyte
 * conversions -j is for), output to /dev/null. N is 1, 2 and the processors online when
 * there are more than 2. Each figure is the best of REPS wall-clock runs
 * (default 3); the runs of the different N take turns, so that a change
 * in the machine's load falls on all of them. Prints "name value unit"
 * lines (Mev = 10^6 events, counted as the lines of a JSONL output), the
 * CPU time of the best runs as comments, the load average before and
 * after, and convert.scaling_j2 (JSONL, -j 2 over -j 1) with PASS/MISS
 * against 1.7 x. Exit status 0 whether or not the target is met; 1 when
 * a run fails.
 *
 * For JSONL, each round also runs two -j 1 conversions side by side
 * (started together, timed until both ended): convert.machine_scaling_j2
 * is 2 x the best -j 1 time over the best of those, what the machine gives
 * two independent conversions at that moment, convert.machine_cpu_j2 their
 * least summed CPU time over twice -j 1's (above 1 when the two processors
 * slow each other down: shared caches, memory, or a host running other
 * machines' work on the same cores), and convert.scaling_j2_vs_machine
 * is convert.scaling_j2 over convert.machine_scaling_j2. Before each JSONL
 * round, handoff_ns() measures how far apart the host has put the first two
 * processors (a cache line's round trip between them); each round's -j 1
 * and -j 2 CPU times and the pair's are printed beside it, and the median
 * of the rounds as convert.machine_handoff_ns.
 *
 * With -s SMALLFILE (a trace of a few MiB, converted once per run, to
 * JSONL with the manifests): the cost of threads where there is little
 * to share, the case of converting many small traces one by one. -j 1,
 * -j <processors online> and -j 8 take turns, SMALL_REPS runs each, and
 * the least wall-clock and CPU times are printed as
 * convert.small.jN.ms and convert.small.jN.cpu_ms, with
 * convert.small.jN.wall_vs_j1 and convert.small.jN.cpu_vs_j1 (each extra
 * thread loads the manifests again; small inputs start them only when the
 * work left is worth it).
 *
 * The CPU time tells what wall-clock figures on a busy machine cannot:
 * convert.jsonl.cpu_j2 is -j 2's least CPU time over -j 1's (the work the
 * threads add: copies, hand-overs, a decoder per thread), and 2 over it
 * the most -j 2 can gain on two idle processors. With Linux's
 * sched_autogroup a program gets its session's share of the processors
 * however many threads it runs, so while other sessions keep the
 * processors busy, -j 2 cannot be much faster than -j 1.
 */
/* pthread_setaffinity_np() and the CPU_SET macros, for handoff_ns(). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#define BENCH_NAME "jobs_bench"
#include "bench_util.h"

extern char **environ;

#define TARGET_SCALING 1.7

/* Runs of each -j on the small file: a run takes some 50 ms. */
#define SMALL_REPS 10

struct cmd {
	char **argv;
	int argc;
};

static void push(struct cmd *c, const char *arg)
{
	char **v = realloc(c->argv, (size_t)(c->argc + 2) * sizeof *v);
	if (!v)
		die("out of memory%s", "");
	c->argv = v;
	v[c->argc++] = (char *)arg;
	v[c->argc] = NULL;
}

/* The command line: -f fmt -j jobs, the manifests, the files k times. */
static struct cmd command(const char *tool, const char *fmt, const char *jobs, char **mans, int nman,
                          char **files, int nfiles, int k)
{
	struct cmd c = { NULL, 0 };
	const char *head[] = { tool, "-q", "-f", fmt, "-j", jobs, "--allow-same-input" };
	for (size_t i = 0; i < sizeof head / sizeof head[0]; i++)
		push(&c, head[i]);
	for (int i = 0; i < nman; i++) {
		push(&c, "--manifest");
		push(&c, mans[i]);
	}
	for (int r = 0; r < k; r++)
		for (int i = 0; i < nfiles; i++)
			push(&c, files[i]);
	return c;
}

/* Runs `copies` instances of c at once (1, or 2 for the machine's own
 * scaling), each with its standard output to out_fd. @return : wall
 * seconds until the last one ended; *cpu the children's user + system
 * seconds, summed. Dies when one fails. */
static double run_copies(const struct cmd *c, int copies, int out_fd, double *cpu)
{
	posix_spawn_file_actions_t fa;
	pid_t pid[2];
	int started = 0, failed = 0;
	if (copies < 1 || copies > (int)(sizeof pid / sizeof pid[0]))
		die("run_copies: copies out of range%s", "");
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, out_fd, STDOUT_FILENO);
	double t = now();
	for (; started < copies; started++)
		if (posix_spawn(&pid[started], c->argv[0], &fa, NULL, c->argv, environ) != 0) {
			failed = 1;     /* the copies started are stopped below */
			break;
		}
	*cpu = 0;
	/* Every copy started is waited for before any failure is reported,
	 * so that none is left running after the bench. */
	for (int i = 0; i < started; i++) {
		int st;
		struct rusage ru;
		if (failed)
			kill(pid[i], SIGTERM);
		while (wait4(pid[i], &st, 0, &ru) < 0)
			if (errno != EINTR)
				die("wait for %s failed", c->argv[0]);
		if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
			failed = failed ? failed : 2;
		*cpu += (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6 +
		        (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec * 1e-6;
	}
	t = now() - t;
	posix_spawn_file_actions_destroy(&fa);
	if (failed == 1)
		die("cannot run %s", c->argv[0]);
	if (failed)
		die("%s failed (exit status not 0)", c->argv[0]);
	return t;
}

/* Runs c with its standard output to out_fd. @return : wall seconds;
 * *cpu the child's user + system seconds. Dies when it fails. */
static double run(const struct cmd *c, int out_fd, double *cpu)
{
	return run_copies(c, 1, out_fd, cpu);
}

/* ---- where the host puts the processors ----------------------------------
 *
 * On a virtual machine the host decides which of its cores run the guest's
 * processors, and may change it within seconds. Two processors close
 * together share a cache and hand a cache line over in tens of
 * nanoseconds; far apart, in hundreds. -j 2 hands batches and the reading
 * turn from one thread to the other, so it pays for the distance, and two
 * independent -j 1 runs (the machine's reference) do not. handoff_ns()
 * measures the distance, one of the host's effects on convert.scaling_j2;
 * the other, the host running other work on the same cores, shows in the
 * pair's CPU time printed beside it (bench/README.md has rounds of each). */

/* Sorts a[0..n) in increasing order (a few values: insertion). */
static void sort_doubles(double *a, int n)
{
	for (int i = 1; i < n; i++)
		for (int j = i; j > 0 && a[j] < a[j - 1]; j--) {
			double x = a[j];
			a[j] = a[j - 1];
			a[j - 1] = x;
		}
}

#define HANDOFF_TRIPS 20000
#define HANDOFF_SAMPLES 5

struct handoff {
	_Alignas(64) atomic_int ball;   /* see handoff_partner()   */
	_Alignas(64) int cpu;           /* the partner's processor */
};

static int pin(int cpu)
{
	cpu_set_t set;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return pthread_setaffinity_np(pthread_self(), sizeof set, &set);
}

/* The ball: 0 until the partner has pinned itself, then 2 (ready) or -1
 * (pinning refused: it ends there); then 1 while it is the partner's turn
 * and 0 while it is the main thread's (the partner waits for 1 only). */
static void *handoff_partner(void *arg)
{
	struct handoff *h = arg;
	if (pin(h->cpu) != 0) {
		atomic_store_explicit(&h->ball, -1, memory_order_release);
		return NULL;
	}
	atomic_store_explicit(&h->ball, 2, memory_order_release);
	for (int i = 0; i < HANDOFF_TRIPS; i++) {
		while (atomic_load_explicit(&h->ball, memory_order_acquire) != 1)
			;
		atomic_store_explicit(&h->ball, 0, memory_order_release);
	}
	return NULL;
}

/* The median, over HANDOFF_SAMPLES measurements, of the time one cache
 * line takes to go from the first processor the bench may run on to the
 * second and back (ns). 0 when there are not two processors to pin to. */
static double handoff_ns(void)
{
	cpu_set_t mine;
	int cpus[2], n = 0;
	if (sched_getaffinity(0, sizeof mine, &mine) != 0)
		return 0;
	for (int c = 0; c < CPU_SETSIZE && n < 2; c++)
		if (CPU_ISSET(c, &mine))
			cpus[n++] = c;
	if (n < 2)
		return 0;
	double t[HANDOFF_SAMPLES];
	int ok = pin(cpus[0]) == 0;
	for (int s = 0; s < HANDOFF_SAMPLES && ok; s++) {
		struct handoff h = { .cpu = cpus[1] };
		pthread_t th;
		atomic_init(&h.ball, 0);
		if (pthread_create(&th, NULL, handoff_partner, &h) != 0) {
			ok = 0;
			break;
		}
		int ready;
		while ((ready = atomic_load_explicit(&h.ball, memory_order_acquire)) == 0)
			;
		if (ready < 0) {
			ok = 0;
		} else {
			double t0 = now();
			for (int i = 0; i < HANDOFF_TRIPS; i++) {
				atomic_store_explicit(&h.ball, 1, memory_order_release);
				while (atomic_load_explicit(&h.ball, memory_order_acquire) != 0)
					;
			}
			t[s] = (now() - t0) / HANDOFF_TRIPS * 1e9;
		}
		pthread_join(th, NULL);
	}
	sched_setaffinity(0, sizeof mine, &mine);      /* the children run anywhere */
	if (!ok)
		return 0;
	sort_doubles(t, HANDOFF_SAMPLES);
	return t[HANDOFF_SAMPLES / 2];
}

/* The lines c writes (the events of a JSONL conversion). */
static uint64_t count_lines(const struct cmd *c)
{
	FILE *tmp = tmpfile();
	double cpu;
	if (!tmp)
		die("cannot make a temporary file%s", "");
	run(c, fileno(tmp), &cpu);
	rewind(tmp);
	uint64_t n = 0;
	int ch;
	while ((ch = getc(tmp)) != EOF)
		n += ch == '\n';
	fclose(tmp);
	return n;
}

/* -s: -j 1, -j ncpu and -j 8 on one small file, in turns; prints the
 * least wall and CPU times and their ratios to -j 1's. */
static void small_file(const char *tool, char **mans, int nman, char *file, int ncpu, int devnull)
{
	char jn[16];
	snprintf(jn, sizeof jn, "%d", ncpu);
	const char *jobs[3] = { "1", jn, "8" };
	int njobs = ncpu == 1 || ncpu == 8 ? 2 : 3;
	if (ncpu == 1)
		jobs[1] = "8";
	struct cmd c[3];
	double wall[3], cpu_min[3];
	for (int j = 0; j < njobs; j++) {
		c[j] = command(tool, "jsonl", jobs[j], mans, nman, &file, 1, 1);
		wall[j] = cpu_min[j] = 1e30;
	}
	printf("# small input: %s, -j 1, -j %s%s, %d runs each in turns\n", file, jobs[1],
	       njobs == 3 ? " and -j 8" : "", SMALL_REPS);
	for (int r = 0; r < SMALL_REPS; r++) {
		for (int j = 0; j < njobs; j++) {
			double cpu, t = run(&c[j], devnull, &cpu);
			if (t < wall[j])
				wall[j] = t;
			if (cpu < cpu_min[j])
				cpu_min[j] = cpu;
		}
	}
	for (int j = 0; j < njobs; j++) {
		printf("convert.small.j%s.ms %.1f ms\n", jobs[j], wall[j] * 1e3);
		printf("convert.small.j%s.cpu_ms %.1f ms\n", jobs[j], cpu_min[j] * 1e3);
		if (j > 0) {
			printf("convert.small.j%s.wall_vs_j1 %.2f x\n", jobs[j], wall[j] / wall[0]);
			printf("convert.small.j%s.cpu_vs_j1 %.2f x\n", jobs[j], cpu_min[j] / cpu_min[0]);
		}
		free(c[j].argv);
	}
	fflush(stdout);
}

/* convert.machine_handoff_ns: the median of the JSONL rounds' round trips
 * (sorts h; 0 for a round not measured), with their range. */
static void print_handoff(double *h, int n)
{
	sort_doubles(h, n);
	int z = 0;                  /* rounds not measured (0) sort first */
	while (z < n && h[z] <= 0)
		z++;
	if (z == n) {
		printf("# convert.machine_handoff_ns: not measured (fewer than two processors to pin to)\n");
		return;
	}
	printf("convert.machine_handoff_ns %.0f ns\n", h[z + (n - z) / 2]);
	printf("# cache-line round trip between the first two processors, %d JSONL rounds: %.0f-%.0f ns"
	       " (tens of ns: they share a cache; hundreds: the host placed them apart, which makes each of"
	       " -j 2's hand-overs dearer)\n", n - z, h[z], h[n - 1]);
}

static void load(const char *when)
{
	double l[3];
	if (getloadavg(l, 3) == 3)
		printf("# load average %s: %.2f %.2f %.2f\n", when, l[0], l[1], l[2]);
	fflush(stdout);
}

int main(int argc, char **argv)
{
	int reps = 3, opt;
	double min_t = 1.0;
	char *small = NULL;
	while ((opt = getopt(argc, argv, "+r:t:s:")) != -1) {
		if (opt == 'r')
			reps = atoi(optarg);
		else if (opt == 't')
			min_t = atof(optarg);
		else if (opt == 's')
			small = optarg;
		else
			die("usage: %s [-r REPS] [-t SECONDS] [-s SMALLFILE] ETLCONVERT [-m MANIFEST]... FILE...",
			    BENCH_NAME);
	}
	int i = optind;
	if (i >= argc)
		die("usage: %s [-r REPS] [-t SECONDS] [-s SMALLFILE] ETLCONVERT [-m MANIFEST]... FILE...",
		    BENCH_NAME);
	const char *tool = argv[i++];
	char **mans = calloc((size_t)argc, sizeof *mans);
	char **inputs[2] = { calloc((size_t)argc, sizeof(char *)), calloc((size_t)argc, sizeof(char *)) };
	int nman = 0, ninputs[2] = { 0, 0 };
	if (!mans || !inputs[0] || !inputs[1])
		die("out of memory%s", "");
	for (; i < argc; i++) {
		if (strcmp(argv[i], "-m") == 0 && i + 1 < argc)
			mans[nman++] = argv[++i];
		else if (strcmp(argv[i], "-x") == 0 && i + 1 < argc)
			inputs[1][ninputs[1]++] = argv[++i];
		else
			inputs[0][ninputs[0]++] = argv[i];
	}
	if (ninputs[0] == 0)
		die("no input files%s", "");
	if (ninputs[1] == 0) {
		free(inputs[1]);
		inputs[1] = inputs[0];
		ninputs[1] = ninputs[0];
	}
	if (reps < 1)
		reps = 1;
	long online = sysconf(_SC_NPROCESSORS_ONLN);
	int ncpu = online < 1 ? 1 : online > 64 ? 64 : (int)online;
	char jn[16];
	snprintf(jn, sizeof jn, "%d", ncpu);
	const char *jobs[3] = { "1", "2", jn };
	int njobs = ncpu > 2 ? 3 : 2;
	int devnull = open("/dev/null", O_WRONLY);
	if (devnull < 0)
		die("cannot open %s", "/dev/null");

	printf("# jobs_bench: %s -f jsonl|xml -j N, %d processors online, best of %d wall-clock runs,"
	       " output to /dev/null, Mev = 10^6 events\n", tool, ncpu, reps);
	for (int f = 0; f < ninputs[0]; f++)
		printf("# input: %s\n", inputs[0][f]);
	for (int f = 0; inputs[1] != inputs[0] && f < ninputs[1]; f++)
		printf("# xml input: %s\n", inputs[1][f]);
	for (int m = 0; m < nman; m++)
		printf("# manifest: %s\n", mans[m]);
	load("before");

	static const char *const fmts[] = { "jsonl", "xml" };
	double *handoff = calloc((size_t)reps, sizeof *handoff);
	if (!handoff)
		die("out of memory%s", "");
	double rate[2][3] = { { 0 } }, cpu_ratio = 0, machine = 0, machine_cpu = 0;
	for (int f = 0; f < 2; f++) {
		char **files = inputs[f];
		int nfiles = ninputs[f];
		struct cmd once = command(tool, "jsonl", "1", mans, nman, files, nfiles, 1);
		uint64_t events = count_lines(&once);
		free(once.argv);
		/* K copies, so that a -j 1 run takes min_t of CPU. */
		double cpu;
		struct cmd probe = command(tool, fmts[f], "1", mans, nman, files, nfiles, 1);
		run(&probe, devnull, &cpu);
		free(probe.argv);
		int k = cpu >= min_t ? 1 : (int)(min_t / cpu) + 1;
		printf("# %s: the inputs %d times, %llu events a run\n", fmts[f], k,
		       (unsigned long long)(events * (uint64_t)k));
		struct cmd c[3];
		double best[3], best_cpu[3], min_cpu[3];
		for (int j = 0; j < njobs; j++) {
			c[j] = command(tool, fmts[f], jobs[j], mans, nman, files, nfiles, k);
			best[j] = min_cpu[j] = 1e30;
			best_cpu[j] = 0;
		}
		/* JSONL: two -j 1 runs side by side as well, taking their turn
		 * with the others: what the machine gives two independent
		 * conversions at that moment. */
		double pair_best = 1e30, pair_cpu = 0, pair_min_cpu = 1e30;
		for (int r = 0; r < reps; r++) {
			double round_cpu[3] = { 0 };
			if (f == 0)
				handoff[r] = handoff_ns();
			for (int j = 0; j < njobs; j++) {
				double t = run(&c[j], devnull, &cpu);
				round_cpu[j] = cpu;
				if (cpu < min_cpu[j])
					min_cpu[j] = cpu;
				if (t < best[j]) {
					best[j] = t;
					best_cpu[j] = cpu;
				}
			}
			if (f == 0) {
				char trip[48] = "not measured";
				if (handoff[r] > 0)
					snprintf(trip, sizeof trip, "%.0f ns", handoff[r]);
				double t = run_copies(&c[0], 2, devnull, &cpu);
				if (cpu < pair_min_cpu)
					pair_min_cpu = cpu;
				if (t < pair_best) {
					pair_best = t;
					pair_cpu = cpu;
				}
				printf("# jsonl round %d: cache-line round trip between processors %s; CPU time"
				       " -j 1 %.2f s, -j 2 %.2f s (%.2f x), two -j 1 side by side %.2f s (%.2f x)\n",
				       r + 1, trip, round_cpu[0], round_cpu[1], round_cpu[1] / round_cpu[0], cpu,
				       cpu / (2 * round_cpu[0]));
			}
		}
		if (f == 0) {
			cpu_ratio = min_cpu[1] / min_cpu[0];
			machine = 2 * best[0] / pair_best;
			machine_cpu = pair_min_cpu / (2 * min_cpu[0]);
			printf("# two -j 1 runs side by side: %.2f s wall, %.2f s CPU (user + system, both)\n",
			       pair_best, pair_cpu);
		}
		for (int j = 0; j < njobs; j++) {
			rate[f][j] = (double)events * k / best[j] / 1e6;
			printf("convert.%s.j%s %.2f Mev/s\n", fmts[f], jobs[j], rate[f][j]);
			printf("# convert.%s.j%s: %.2f s wall, %.2f s CPU (user + system)\n", fmts[f], jobs[j],
			       best[j], best_cpu[j]);
			free(c[j].argv);
		}
		fflush(stdout);
	}
	double s_jsonl = rate[0][1] / rate[0][0], s_xml = rate[1][1] / rate[1][0];
	printf("convert.scaling_j2 %.2f x\n", s_jsonl);
	printf("convert.xml.scaling_j2 %.2f x\n", s_xml);
	printf("convert.jsonl.cpu_j2 %.2f x\n", cpu_ratio);
	printf("# JSONL -j 2 on two idle processors: at most %.2f x (2 / convert.jsonl.cpu_j2)\n",
	       2 / cpu_ratio);
	printf("convert.machine_scaling_j2 %.2f x\n", machine);
	printf("convert.machine_cpu_j2 %.2f x\n", machine_cpu);
	printf("convert.scaling_j2_vs_machine %.2f x\n", s_jsonl / machine);
	printf("# the machine: two -j 1 JSONL runs side by side finish %.2f x as many events per second as"
	       " one, and each takes %.2f x the CPU time of a run alone (more than 1: the processors slow"
	       " each other down, which slows -j 2's threads too)\n", machine, machine_cpu);
	print_handoff(handoff, reps);
	free(handoff);
	if (small)
		small_file(tool, mans, nman, small, ncpu, devnull);
	load("after");
	double l[1];
	if (getloadavg(l, 1) == 1 && l[0] > ncpu)
		printf("# busy machine: a program gets its session's share of the processors, however many"
		       " threads it runs (sched_autogroup), so the wall-clock scaling is low\n");
	printf("# target (JSONL, -j 2 over -j 1)\n");
	printf("%s convert.scaling_j2 %.3f x (target >= %.1f x)\n", s_jsonl >= TARGET_SCALING ? "PASS" : "MISS",
	       s_jsonl, TARGET_SCALING);
	close(devnull);
	free(mans);
	if (inputs[1] != inputs[0])
		free(inputs[1]);
	free(inputs[0]);
	return 0;
}
