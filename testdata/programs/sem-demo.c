/*
 * sem-demo DIR [CONFIG.reg] - plays a Windows machine's day through libetl's
 * Scenario Event Mapper and writes DIR/DiagLog.etl and DIR/WdiContextLog.etl.
 *
 * It loads the configuration Windows installs (CONFIG.reg, by default
 * testdata/wdi/windows-default.reg, read from the top of the tree) and
 * plays four scenarios one after the other, each a start event and an end
 * event written with the scenario writes and the same activity id:
 *   boot            Kernel-BootDiagnostics 501 -> Winlogon 5007
 *   user logon      Winlogon 5001 -> Winlogon 5002
 *   standby/resume  Kernel-Power 1 -> Kernel-Power 2 (the power transition
 *                   and standby/resume scenarios share the start event:
 *                   merged, they start together)
 *   shutdown        Winlogon 6001 -> Kernel-Power 48
 * Around each, every context provider of the scenario writes one event
 * before it starts, two while it runs and one after it ended, and two
 * providers the configuration does not name write one event in each
 * phase; while it runs a context provider also writes one event its
 * filter rejects. Only the events written while a scenario runs reach
 * WdiContextLog; DiagLog gets the start and end events, the SEM's own
 * status events (Kernel-WDI 32 and 33), and a plain etl_write of a start
 * event (Winlogon 5001), which starts nothing.
 *
 * Time is the program's own (an injected clock starting at
 * 2024-05-01T08:00:00Z, 100 ms per step, etl_sem_clock_advanced() after
 * each): the files' timestamps are the same at every run.
 *
 * Prints each scenario as it plays it, then "diaglog N" and "context N"
 * (events in each file besides the two EventTrace header records).
 * Exit status: 0 success, 1 usage or configuration, 2 runtime failure.
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "etl.h"
#include "etl_sem.h"
#include "etl_trace.h"

/* ---- the providers ------------------------------------------------------ */

struct prov {
	const char *name;
	const char *guid;
	etl_provider p;
};

enum {
	BOOTDIAG, WINLOGON, WININIT, SERVICES, POWER, PNP, SHELL, PREFETCH, HAL, UMDF, CSR,
	PROXY_BOOT_SYSTEM, PROXY_BOOT_USER, PROXY_SHUTDOWN, UNRELATED_A, UNRELATED_B, N_PROVS
};

static struct prov provs[N_PROVS] = {
	[BOOTDIAG] = { "Kernel-BootDiagnostics", "96AC7637-5950-4A30-B8F7-E07E8E5734C1", { 0 } },
	[WINLOGON] = { "Winlogon", "DBE9B383-7CF3-4331-91CC-A3CB16A3B538", { 0 } },
	[WININIT] = { "Wininit", "206F6DEA-D3C5-4D10-BC72-989F03C8B84B", { 0 } },
	[SERVICES] = { "Services", "0063715B-EEDA-4007-9429-AD526F62696E", { 0 } },
	[POWER] = { "Kernel-Power", "331C3B3A-2005-44C2-AC5E-77220C37D6B4", { 0 } },
	[PNP] = { "Kernel-PnP", "9C205A39-1250-487D-ABD7-E831C6290539", { 0 } },
	[SHELL] = { "Shell-Core", "30336ED4-E327-447C-9DE0-51B652C86108", { 0 } },
	[PREFETCH] = { "Kernel-Prefetch", "5322D61A-9EFA-4BC3-A3F9-14BE95C144F8", { 0 } },
	[HAL] = { "HAL", "63D1E632-95CC-4443-9312-AF927761D52A", { 0 } },
	[UMDF] = { "DriverFrameworks-UserMode", "2E35AAEB-857F-4BEB-A418-2E6C0E54D988", { 0 } },
	[CSR] = { "Subsys-Csr", "E8316A2D-0D94-4F52-85DD-1E15B66C5891", { 0 } },
	[PROXY_BOOT_SYSTEM] = { "boot-system proxy", "7EFE4AB3-990D-4350-A878-CD8772888199", { 0 } },
	[PROXY_BOOT_USER] = { "boot-user proxy", "41932CAB-7E12-40D6-A728-62D30E054593", { 0 } },
	[PROXY_SHUTDOWN] = { "shutdown proxy", "AD5C7A10-4E08-45E1-81B5-CB5EB6EC8917", { 0 } },
	/* Named by no scenario: never in either file. */
	[UNRELATED_A] = { "LibEtl.SemDemo.Unrelated", "6A7E1D52-93B4-4E0C-A1F2-5C3D4B6E7F80", { 0 } },
	[UNRELATED_B] = { "LibEtl.SemDemo.Other", "6A7E1D52-93B4-4E0C-A1F2-5C3D4B6E7F81", { 0 } },
};

/* A context event: provider, id, level and a keyword the scenario's
 * filter for that provider passes. */
struct ctx_event {
	int prov;
	uint16_t id;
	uint8_t level;
	uint64_t keyword;
};

struct scenario {
	const char *name;
	int start_prov;
	struct etl_event_descriptor start;
	int end_prov;
	struct etl_event_descriptor end;
	struct ctx_event ctx[6];
	int n_ctx;
	struct ctx_event rejected;    /* written while it runs, filtered out */
};

static const struct scenario scenarios[] = {
	{ "boot", BOOTDIAG, { .id = 501, .level = 4, .keyword = 0x8000000000000000ull },
	  WINLOGON, { .id = 5007, .level = 4, .keyword = 0x20000 },
	  { { SERVICES, 7036, 4, 0x8000000000000000ull }, { PREFETCH, 100, 4, 0x20 },
	    { PROXY_BOOT_SYSTEM, 1, 4, 0 }, { PNP, 400, 4, 0x1 }, { WINLOGON, 811, 4, 0x10000 } }, 5,
	  { PREFETCH, 101, 4, 0x40 } },
	{ "user logon", WINLOGON, { .id = 5001, .level = 4, .keyword = 0x20000 },
	  WINLOGON, { .id = 5002, .level = 4, .keyword = 0x20000 },
	  { { SERVICES, 7036, 4, 0x8000000000000000ull }, { SHELL, 9705, 4, 0x4000000 },
	    { PROXY_BOOT_USER, 1, 4, 0 }, { WINLOGON, 811, 4, 0x10000 } }, 4,
	  { SHELL, 9706, 4, 0x1 } },
	{ "standby/resume", POWER, { .id = 1, .level = 4, .keyword = 0x1 },
	  POWER, { .id = 2, .level = 4, .keyword = 0x1 },
	  { { UMDF, 10, 4, 0x1 }, { POWER, 105, 4, 0x4 }, { POWER, 106, 4, 0x8 }, { HAL, 12, 2, 0x1 } }, 4,
	  { HAL, 13, 4, 0x1 } },
	{ "shutdown", WINLOGON, { .id = 6001, .level = 4, .keyword = 0x20000 },
	  POWER, { .id = 48, .level = 4, .keyword = 0x1 },
	  { { SERVICES, 7036, 4, 0x8000000000000000ull }, { WININIT, 12, 4, 0x10000 }, { POWER, 109, 4, 0x8 },
	    { PROXY_SHUTDOWN, 1, 4, 0 }, { WINLOGON, 811, 4, 0x10000 }, { CSR, 1, 4, 0x10000 } }, 6,
	  { CSR, 2, 5, 0x10000 } },
};
#define N_SCENARIOS (sizeof scenarios / sizeof scenarios[0])

/* ---- the clock ------------------------------------------------------------ */

/* 2024-05-01T08:00:00Z */
#define DEMO_T0 133590240000000000LL
#define STEP (100 * 10000LL)              /* 100 ms in 100 ns units */

static _Atomic int64_t g_now = DEMO_T0;
static etl_sem *g_sem;
static int g_fail;

static int64_t demo_clock(void *ctx)
{
	(void)ctx;
	return atomic_load(&g_now);
}

static void step(void)
{
	atomic_fetch_add(&g_now, STEP);
	if (etl_sem_clock_advanced(g_sem) != ETL_OK) {
		fprintf(stderr, "sem-demo: %s\n", etl_sem_errmsg(g_sem));
		g_fail = 1;
	}
}

/* ---- writing ------------------------------------------------------------------ */

static uint32_t g_seq;

static void write_ctx(const struct ctx_event *c)
{
	struct etl_event_descriptor d = { .id = c->id, .level = c->level, .keyword = c->keyword };
	uint32_t v = ++g_seq;
	struct etl_data data = ETL_DATA(&v, sizeof v);
	etl_write(&provs[c->prov].p, &d, 1, &data);
	step();
}

static void write_unrelated(void)
{
	static const struct etl_event_descriptor d = { .id = 1, .level = 4, .keyword = 0x1 };
	for (int i = UNRELATED_A; i <= UNRELATED_B; i++) {
		uint32_t v = ++g_seq;
		struct etl_data data = ETL_DATA(&v, sizeof v);
		etl_write(&provs[i].p, &d, 1, &data);
	}
	step();
}

static void phase(const struct scenario *s, int times)
{
	for (int t = 0; t < times; t++)
		for (int i = 0; i < s->n_ctx; i++)
			write_ctx(&s->ctx[i]);
	write_unrelated();
}

static void play(const struct scenario *s)
{
	char text[ETL_GUID_STRLEN];
	struct etl_guid act;
	memset(&act, 0, sizeof act);          /* zero: the SEM picks a new id */
	uint32_t v = ++g_seq;
	struct etl_data data = ETL_DATA(&v, sizeof v);

	phase(s, 1);                          /* before: not captured */
	if (etl_sem_write_start_scenario(g_sem, &provs[s->start_prov].p, &s->start, &act, 1, &data) != ETL_OK ||
	    etl_sem_last_status() != ETL_SEM_STATUS_SUCCESS) {
		fprintf(stderr, "sem-demo: %s did not start: status 0x%08X\n", s->name, etl_sem_last_status());
		g_fail = 1;
	}
	step();
	phase(s, 2);                          /* while it runs: captured */
	write_ctx(&s->rejected);
	if (etl_sem_write_end_scenario(g_sem, &provs[s->end_prov].p, &s->end, &act, 1, &data) != ETL_OK ||
	    etl_sem_last_status() != ETL_SEM_STATUS_SUCCESS) {
		fprintf(stderr, "sem-demo: %s did not end: status 0x%08X\n", s->name, etl_sem_last_status());
		g_fail = 1;
	}
	step();
	phase(s, 1);                          /* after: not captured */
	printf("%-15s %s %u -> %s %u, activity {%s}, %d context events captured\n", s->name,
	       provs[s->start_prov].name, s->start.id, provs[s->end_prov].name, s->end.id,
	       etl_guid_format(&act, text), 2 * s->n_ctx);
}

/* Events in a file besides the EventTrace header records; -1 when the
 * file has damage. */
static long count_events(const char *path)
{
	etl_reader *r = etl_reader_new();
	if (!r || etl_reader_open_file(r, path) != ETL_OK) {
		etl_reader_free(r);
		return -1;
	}
	long n = 0;
	const struct etl_event *ev;
	int st;
	while ((st = etl_reader_next(r, &ev)) != ETL_END) {
		if (st != ETL_OK) {
			n = -1;
			break;
		}
		if (ev->buffer_offset != 0)
			n++;
	}
	etl_reader_free(r);
	return n;
}

int main(int argc, char **argv)
{
	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: sem-demo DIR [CONFIG.reg]\n");
		return 1;
	}
	const char *dir = argv[1];
	const char *reg = argc > 2 ? argv[2] : "testdata/wdi/windows-default.reg";
	if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
		fprintf(stderr, "sem-demo: cannot create %s: %s\n", dir, strerror(errno));
		return 1;
	}
	struct etl_sem_error err;
	etl_sem_config *cfg = etl_sem_config_from_reg_file(reg, &err);
	if (!cfg) {
		fprintf(stderr, "sem-demo: %s\n", err.message);
		return 1;
	}
	size_t n_starts;
	etl_sem_config_start_events(cfg, &n_starts);
	printf("config %s: SEM %s, %zu start events, timeout %u minutes\n", reg,
	       etl_sem_config_enabled(cfg) ? "on" : "off", n_starts, etl_sem_config_timeout_minutes(cfg));

	for (int i = 0; i < N_PROVS; i++) {
		struct etl_guid g;
		if (etl_guid_parse(provs[i].guid, &g) != ETL_OK ||
		    etl_provider_register(&provs[i].p, &g, NULL, NULL) != ETL_OK) {
			fprintf(stderr, "sem-demo: cannot register %s\n", provs[i].name);
			return 2;
		}
	}
	struct etl_sem_options o;
	etl_sem_options_init(&o);
	o.directory = dir;
	o.blocking = 1;
	o.clock = demo_clock;
	g_sem = etl_sem_new(cfg, &o);
	if (!g_sem || etl_sem_start(g_sem) != ETL_OK) {
		fprintf(stderr, "sem-demo: %s\n", g_sem ? etl_sem_errmsg(g_sem) : "out of memory");
		return 2;
	}

	/* A plain write of a start event: in DiagLog, starts nothing. */
	static const struct etl_event_descriptor logon_start = { .id = 5001, .level = 4, .keyword = 0x20000 };
	uint32_t v = 0;
	struct etl_data data = ETL_DATA(&v, sizeof v);
	etl_write(&provs[WINLOGON].p, &logon_start, 1, &data);
	step();
	for (size_t i = 0; i < N_SCENARIOS; i++)
		play(&scenarios[i]);

	struct etl_sem_stats st;
	etl_sem_stats(g_sem, &st);
	if (etl_sem_stop(g_sem) != ETL_OK) {
		fprintf(stderr, "sem-demo: %s\n", etl_sem_errmsg(g_sem));
		g_fail = 1;
	}
	struct etl_session_stats ds, cs;
	etl_session_stats(etl_sem_diaglog(g_sem), &ds);
	etl_session_stats(etl_sem_context_log(g_sem), &cs);
	etl_sem_free(g_sem);
	etl_sem_config_free(cfg);
	for (int i = 0; i < N_PROVS; i++)
		etl_provider_unregister(&provs[i].p);

	char path[4096];
	snprintf(path, sizeof path, "%s/%s", dir, ETL_SEM_DIAGLOG_FILE);
	long nd = count_events(path);
	snprintf(path, sizeof path, "%s/%s", dir, ETL_SEM_CONTEXTLOG_FILE);
	long nc = count_events(path);
	printf("scenarios started %llu, ended %llu, status events %llu\n", (unsigned long long)st.started,
	       (unsigned long long)st.ended, (unsigned long long)st.status_events);
	if (nd < 0 || nc < 0 || ds.events_lost || cs.events_lost || (uint64_t)nd != ds.events_written ||
	    (uint64_t)nc != cs.events_written) {
		fprintf(stderr, "sem-demo: the files do not hold what the sessions wrote\n");
		g_fail = 1;
	}
	printf("diaglog %ld\n", nd);
	printf("context %ld\n", nc);
	return g_fail ? 2 : 0;
}
