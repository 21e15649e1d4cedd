/*
 * replay_bench.c - replay-speed driver for bench/replay (not part of the
 * library; built by bench/replay against lib/libetl.a).
 *
 * Modes:
 *   replay_bench synth FILE EVENTS
 *       Writes a synthetic trace of EVENTS EVENT_HEADER64 events with the
 *       .etl writer: 8 processors, 16 providers, payloads of 16 to 95
 *       bytes, every fourth event with a RELATED_ACTIVITYID item, 10 us
 *       apart. The large input of the figures.
 *   replay_bench synth FILE EVENTS scenarios
 *       The same events, but from the providers of Windows' boot scenario
 *       (doc/sem.md §7), in cycles of 32: Kernel-BootDiagnostics 501 (a
 *       start event, the cycle's activity id), 30 context events of
 *       Services and Winlogon, Winlogon 5007 (its end event): what the SEM
 *       works on when a trace is full of scenarios (replay_sem.scenarios).
 *   replay_bench run -r REPS -c wall|cpu -o DIR -x ETLREPLAY -e ETLCONVERT
 *                    [-s SEM_ARGS] SHORT=FILE ...
 *       For each file: its events (the records outside the header buffer,
 *       counted with the reader), then, REPS times each, alternating,
 *       `etlreplay FILE -o DIR/r.etl` and `etlconvert -f etl FILE -o
 *       DIR/c.etl` (the re-encode the replay is held to), and with -s
 *       `etlreplay FILE -o DIR/s.etl SEM_ARGS` (the SEM active). Each is a
 *       process of its own, timed on the wall clock or on its CPU time
 *       (user + system of all its threads, wait4()), the best of REPS
 *       kept; its peak resident set (ru_maxrss) is the largest seen.
 *       Prints "name value unit" lines: replay.SHORT, convert.SHORT (M
 *       events/s), ratio.SHORT (replay / convert), input.SHORT (its size),
 *       rss.SHORT, rss_beyond_input.SHORT (the peak less the input's
 *       mapped pages), rss_convert.SHORT (MiB), and with -s replay_sem.SHORT
 *       (M events/s) and sem_ratio.SHORT (replay_sem / replay); then the
 *       targets with PASS/MISS: the replay of each file >= 2 M events/s,
 *       and >= 0.5 x its re-encode.
 * Exit status 0 when everything ran, whether or not targets were met; 1
 * when a program fails.
 */
#define _GNU_SOURCE 1
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "etl.h"

static void die(const char *fmt, const char *arg)
{
	fputs("replay_bench: ", stderr);
	fprintf(stderr, fmt, arg);
	fputc('\n', stderr);
	exit(1);
}

/* ---- the synthetic trace ------------------------------------------------ */

/* Event i of a trace of boot scenarios: 501 starts cycle i / 32, 5007 ends
 * it, Services 7036 and Winlogon 811 between, with keywords their filters
 * on WdiContextLog pass. */
static void scenario_event(struct etl_event *ev, long i)
{
	static const struct etl_guid bootdiag = { 0x96AC7637u, 0x5950, 0x4A30,
		                                  { 0xB8, 0xF7, 0xE0, 0x7E, 0x8E, 0x57, 0x34, 0xC1 } };
	static const struct etl_guid winlogon = { 0xDBE9B383u, 0x7CF3, 0x4331,
		                                  { 0x91, 0xCC, 0xA3, 0xCB, 0x16, 0xA3, 0xB5, 0x38 } };
	static const struct etl_guid services = { 0x0063715Bu, 0xEEDA, 0x4007,
		                                  { 0x94, 0x29, 0xAD, 0x52, 0x6F, 0x62, 0x69, 0x6E } };
	long k = i % 32;
	memset(&ev->activity_id, 0, sizeof ev->activity_id);
	ev->level = 4;
	if (k == 0 || k == 31) {
		ev->provider = k == 0 ? bootdiag : winlogon;
		ev->id = k == 0 ? 501 : 5007;
		ev->keyword = k == 0 ? 0x8000000000000000ull : 0x20000;
		ev->activity_id.data1 = (uint32_t)(i / 32 + 1);
		ev->activity_id.data2 = 0xbe;
	} else {
		ev->provider = k % 2 ? services : winlogon;
		ev->id = k % 2 ? 7036 : 811;
		ev->keyword = k % 2 ? 0x8000000000000000ull : 0x10000;
	}
}

static int synth(const char *path, long n, int scenarios)
{
	struct etl_writer_options o;
	etl_writer_options_init(&o);
	o.number_of_processors = 8;
	o.logger_name = "replay-bench";
	etl_writer *w = etl_writer_new();
	if (!w || etl_writer_open_file(w, path, &o) != ETL_OK)
		die("cannot write %s", path);
	uint8_t payload[96], item[8 + 16];
	memset(item, 0, sizeof item);
	item[0] = 8 + 16;                     /* item size                    */
	item[2] = 0x01;                       /* RELATED_ACTIVITYID           */
	item[6] = 16;                         /* data size                    */
	for (long i = 0; i < n; i++) {
		struct etl_event ev;
		memset(&ev, 0, sizeof ev);
		ev.kind = ETL_HDR_EVENT_HEADER64;
		ev.present = ETL_EVF_PID | ETL_EVF_CPU_TIMES | ETL_EVF_TIMESTAMP | ETL_EVF_PROVIDER |
		             ETL_EVF_DESCRIPTOR | ETL_EVF_ACTIVITY;
		ev.provider.data1 = 0x5e1ec700u + (uint32_t)(i % 16);
		ev.provider.data2 = 0xbe;
		ev.pid = 1000 + (uint32_t)(i % 5);
		ev.tid = 2000 + (uint32_t)(i % 23);
		ev.processor = (uint16_t)((i / 7) % 8);
		ev.id = (uint16_t)(i % 40);
		ev.level = (uint8_t)(1 + i % 5);
		ev.keyword = 1ULL << (i % 48);
		ev.timestamp = o.start_timestamp + i * 100;
		ev.activity_id.data1 = (uint32_t)i;
		memset(payload, (int)i, sizeof payload);
		ev.payload = payload;
		ev.payload_size = 16 + (uint32_t)(i % 80);
		if (scenarios)
			scenario_event(&ev, i);
		if (i % 4 == 0) {
			ev.header_flags = 0x0001;     /* EXTENDED_INFO */
			ev.ext = item;
			ev.ext_size = sizeof item;
			ev.ext_count = 1;
		}
		if (etl_writer_write_event(w, &ev) != ETL_OK)
			die("cannot write an event: %s", etl_writer_errmsg(w));
	}
	if (etl_writer_close(w) != ETL_OK)
		die("cannot finish %s", path);
	etl_writer_free(w);
	return 0;
}

/* ---- timing a program ---------------------------------------------------- */

static int use_cpu;

/* Runs argv; *secs its time (wall or CPU), *rss_kib its peak RSS. */
static void run(char *const argv[], double *secs, long *rss_kib)
{
	struct timespec a, b;
	clock_gettime(CLOCK_MONOTONIC, &a);
	pid_t pid = fork();
	if (pid < 0)
		die("cannot fork: %s", strerror(errno));
	if (pid == 0) {
		int fd = open("/dev/null", O_WRONLY);
		if (fd >= 0)
			dup2(fd, STDOUT_FILENO);
		execv(argv[0], argv);
		_exit(127);
	}
	int st;
	struct rusage ru;
	while (wait4(pid, &st, 0, &ru) < 0)
		if (errno != EINTR)
			die("wait4: %s", strerror(errno));
	clock_gettime(CLOCK_MONOTONIC, &b);
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
		die("%s failed", argv[0]);
	if (use_cpu)
		*secs = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6 +
		        (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec * 1e-6;
	else
		*secs = (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) * 1e-9;
	*rss_kib = ru.ru_maxrss;
}

/* Records outside the header buffer: the events a replay writes. */
static uint64_t count_events(const char *path)
{
	etl_reader *r = etl_reader_new();
	if (!r || etl_reader_set_order(r, ETL_ORDER_FILE) != ETL_OK || etl_reader_open_file(r, path) < 0)
		die("cannot read %s", path);
	const struct etl_event *ev;
	uint64_t n = 0;
	int st;
	while ((st = etl_reader_next(r, &ev)) != ETL_END && st != ETL_FATAL)
		if (st == ETL_OK && ev->buffer_offset != 0)
			n++;
	etl_reader_free(r);
	return n;
}

static void figure(const char *name, const char *shrt, double v, const char *unit)
{
	printf("%s.%s %.*f %s\n", name, shrt, v < 10 ? 2 : 1, v, unit);
	fflush(stdout);
}

struct target {
	char name[96];
	double value, min;
	const char *unit;
};

static int cmd_run(int argc, char **argv)
{
	int reps = 5, opt;
	const char *dir = NULL, *replay = NULL, *convert = NULL, *sem = NULL;
	while ((opt = getopt(argc, argv, "r:c:o:x:e:s:")) != -1) {
		switch (opt) {
		case 'r': reps = atoi(optarg); break;
		case 'c': use_cpu = strcmp(optarg, "cpu") == 0; break;
		case 'o': dir = optarg; break;
		case 'x': replay = optarg; break;
		case 'e': convert = optarg; break;
		case 's': sem = optarg; break;
		default: die("usage: %s", "run -r REPS -c wall|cpu -o DIR -x ETLREPLAY -e ETLCONVERT SHORT=FILE...");
		}
	}
	if (!dir || !replay || !convert || reps < 1)
		die("usage: %s", "run -r REPS -c wall|cpu -o DIR -x ETLREPLAY -e ETLCONVERT SHORT=FILE...");
	char rout[4096], cout[4096], sout[4096];
	snprintf(rout, sizeof rout, "%s/r.etl", dir);
	snprintf(cout, sizeof cout, "%s/c.etl", dir);
	snprintf(sout, sizeof sout, "%s/s.etl", dir);
	struct target tg[64];
	int nt = 0;
	for (int i = optind; i < argc; i++) {
		char *eq = strchr(argv[i], '=');
		if (!eq)
			die("expected SHORT=FILE: %s", argv[i]);
		*eq = 0;
		const char *shrt = argv[i], *file = eq + 1;
		uint64_t n = count_events(file);
		char *ra[] = { (char *)replay, (char *)file, "-q", "-o", rout, NULL };
		char *ca[] = { (char *)convert, "-q", "-f", "etl", (char *)file, "-o", cout, NULL };
		double best_r = 1e30, best_c = 1e30, t;
		long rss = 0, rss_c = 0, k;
		for (int r = 0; r < reps; r++) {
			run(ra, &t, &k);
			best_r = t < best_r ? t : best_r;
			rss = k > rss ? k : rss;
			run(ca, &t, &k);
			best_c = t < best_c ? t : best_c;
			rss_c = k > rss_c ? k : rss_c;
		}
		double er = (double)n / best_r / 1e6, ec = (double)n / best_c / 1e6;
		printf("# %s: %llu events, %s\n", shrt, (unsigned long long)n, file);
		figure("replay", shrt, er, "Mevents/s");
		figure("convert", shrt, ec, "Mevents/s");
		figure("ratio", shrt, er / ec, "x");
		/* The input is mapped while it is read: its pages count in the
		 * resident set of both tools; what is beyond them is the
		 * replay's own memory (buffers in flight, the tools' code). */
		struct stat sb;
		double in_mib = stat(file, &sb) == 0 ? (double)sb.st_size / 1048576.0 : 0;
		figure("input", shrt, in_mib, "MiB");
		figure("rss", shrt, (double)rss / 1024.0, "MiB");
		figure("rss_beyond_input", shrt, (double)rss / 1024.0 - in_mib, "MiB");
		figure("rss_convert", shrt, (double)rss_c / 1024.0, "MiB");
		if (sem) {
			char *sa[] = { (char *)replay, (char *)file, "-q", "-o", sout, (char *)sem, NULL };
			double best_s = 1e30;
			for (int r = 0; r < reps; r++) {
				run(sa, &t, &k);
				best_s = t < best_s ? t : best_s;
			}
			figure("replay_sem", shrt, (double)n / best_s / 1e6, "Mevents/s");
			figure("sem_ratio", shrt, (double)n / best_s / 1e6 / er, "x");
		}
		if (nt + 2 <= (int)(sizeof tg / sizeof tg[0])) {
			snprintf(tg[nt].name, sizeof tg[nt].name, "replay.%s", shrt);
			tg[nt].value = er;
			tg[nt].min = 2.0;
			tg[nt++].unit = "Mevents/s";
			snprintf(tg[nt].name, sizeof tg[nt].name, "ratio.%s", shrt);
			tg[nt].value = er / ec;
			tg[nt].min = 0.5;
			tg[nt++].unit = "x";
		}
		unlink(rout);
		unlink(cout);
		unlink(sout);
	}
	for (int i = 0; i < nt; i++)
		printf("%s %s %.2f %s (target >= %.1f %s)\n", tg[i].value >= tg[i].min ? "PASS" : "MISS",
		       tg[i].name, tg[i].value, tg[i].unit, tg[i].min, tg[i].unit);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc >= 4 && strcmp(argv[1], "synth") == 0)
		return synth(argv[2], atol(argv[3]), argc >= 5 && strcmp(argv[4], "scenarios") == 0);
	if (argc >= 2 && strcmp(argv[1], "run") == 0)
		return cmd_run(argc - 1, argv + 1);
	fprintf(stderr, "usage: replay_bench synth FILE EVENTS [scenarios] | run ...\n");
	return 1;
}
