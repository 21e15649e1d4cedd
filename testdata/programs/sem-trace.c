/*
 * sem-trace OUT.etl - writes the trace `etlreplay --config` is tested and
 * shown with (testdata/sample/windows-scenarios.etl is its output): the
 * events of the scenarios Windows installs (doc/sem.md §7) as a capture
 * holds them - plain writes, each start and end event with the scenario's
 * activity id - around and between them the context providers' events,
 * and events of providers no scenario names. Replaying it through the SEM
 * with testdata/wdi/windows-default.reg (doc/sem.md §13) gives:
 *   boot            Kernel-BootDiagnostics 501 -> Winlogon 5007 (6 s .. 24 s)
 *   user logon      Winlogon 5001 -> Winlogon 5002 (14 s .. 34 s: overlaps
 *                   the boot, sharing Services and Winlogon as context)
 *   standby/resume  Kernel-Power 1 -> Kernel-Power 2 (44 s .. 54 s; merged
 *                   with the power transition)
 *   shutdown        Winlogon 6001 -> Kernel-Power 48 (66 s .. 80 s)
 *   secondary logon Winlogon 5003 at 90 s that never ends: the trace goes
 *                   on past the 10-minute timeout (one Services event a
 *                   minute), it times out at 700 s, and its end event at
 *                   770 s comes too late
 *   device start and device eject events with an all-zero activity id
 *                   (780 s .. 787 s), and a user logon at 788 s left open.
 * Context events are written before each scenario, while it runs (twice
 * each) and after it, with a keyword and level its filter passes, plus one
 * it rejects. Every payload is one u32: the event's second.
 *
 * Time is the program's own: the session runs on a clock that starts at
 * 2024-05-01T08:00:00Z and is set to each event's second, so the file is
 * the same at every run but for process and thread ids.
 * Prints "events N" (events written). Exit status: 0, 1 usage, 2 failure.
 */
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "etl.h"
#include "etl_trace.h"

enum {
	BOOTDIAG, WINLOGON, WININIT, SERVICES, POWER, PNP, SHELL, PREFETCH, HAL, UMDF, CSR, DIAGPERF,
	BOOT_SYSTEM, BOOT_USER, SHUTDOWN, SECONDARY, OTHER_A, OTHER_B, N_PROVIDERS
};

static const char *const GUIDS[N_PROVIDERS] = {
	[BOOTDIAG] = "96AC7637-5950-4A30-B8F7-E07E8E5734C1",  [WINLOGON] = "DBE9B383-7CF3-4331-91CC-A3CB16A3B538",
	[WININIT] = "206F6DEA-D3C5-4D10-BC72-989F03C8B84B",   [SERVICES] = "0063715B-EEDA-4007-9429-AD526F62696E",
	[POWER] = "331C3B3A-2005-44C2-AC5E-77220C37D6B4",     [PNP] = "9C205A39-1250-487D-ABD7-E831C6290539",
	[SHELL] = "30336ED4-E327-447C-9DE0-51B652C86108",     [PREFETCH] = "5322D61A-9EFA-4BC3-A3F9-14BE95C144F8",
	[HAL] = "63D1E632-95CC-4443-9312-AF927761D52A",       [UMDF] = "2E35AAEB-857F-4BEB-A418-2E6C0E54D988",
	[CSR] = "E8316A2D-0D94-4F52-85DD-1E15B66C5891",       [DIAGPERF] = "CFC18EC0-96B1-4EBA-961B-622CAEE05B0A",
	/* the kernel's proxy providers of boot, logon, shutdown, secondary logon */
	[BOOT_SYSTEM] = "7EFE4AB3-990D-4350-A878-CD8772888199", [BOOT_USER] = "41932CAB-7E12-40D6-A728-62D30E054593",
	[SHUTDOWN] = "AD5C7A10-4E08-45E1-81B5-CB5EB6EC8917",  [SECONDARY] = "B27A2C15-40F4-4EA3-9637-628FC612A1D0",
	/* named by no scenario */
	[OTHER_A] = "6A7E1D52-93B4-4E0C-A1F2-5C3D4B6E7F90",   [OTHER_B] = "6A7E1D52-93B4-4E0C-A1F2-5C3D4B6E7F91",
};

static etl_provider provs[N_PROVIDERS];

/* One event of the script: provider, id, level, keyword. */
struct ev {
	int prov;
	uint16_t id;
	uint8_t level;
	uint64_t keyword;
};

#define ALL_BITS 0x8000000000000000ull
static const struct ev BOOT_CTX[] = { { SERVICES, 7036, 4, ALL_BITS }, { PREFETCH, 100, 4, 0x20 },
	                              { BOOT_SYSTEM, 1, 4, 0x1 }, { PNP, 400, 4, 0x1 },
	                              { WINLOGON, 811, 4, 0x10000 } };
static const struct ev LOGON_CTX[] = { { SERVICES, 7036, 4, ALL_BITS }, { SHELL, 9705, 4, 0x4000000 },
	                               { BOOT_USER, 1, 4, 0x1 }, { WINLOGON, 811, 4, 0x10000 } };
static const struct ev POWER_CTX[] = { { UMDF, 10, 4, 0x1 }, { POWER, 105, 4, 0x4 }, { POWER, 106, 4, 0x8 },
	                               { HAL, 12, 2, 0x1 } };
static const struct ev SHUTDOWN_CTX[] = { { SERVICES, 7036, 4, ALL_BITS }, { WININIT, 12, 4, 0x10000 },
	                                  { POWER, 109, 4, 0x8 }, { SHUTDOWN, 1, 4, 0x1 },
	                                  { WINLOGON, 811, 4, 0x10000 }, { CSR, 1, 4, 0x10000 } };
static const struct ev SECONDARY_CTX[] = { { SERVICES, 7036, 4, ALL_BITS }, { SHELL, 9705, 4, 0x4000000 },
	                                   { SECONDARY, 1, 4, 0x1 }, { WINLOGON, 811, 4, 0x10000 } };
#define N(a) (sizeof(a) / sizeof((a)[0]))

/* ---- the clock: 2024-05-01T08:00:00Z + the event's second --------------- */

#define T0 133590240000000000LL
static _Atomic int64_t g_now = T0;

static int64_t trace_clock(void *ctx)
{
	(void)ctx;
	return atomic_load(&g_now);
}

/* ---- writing ------------------------------------------------------------------ */

static long g_written;
static int g_fail;

/* The activity id of scenario instance n (1..), or zero for n 0. */
static struct etl_guid activity(unsigned n)
{
	struct etl_guid g;
	memset(&g, 0, sizeof g);
	if (n) {
		g.data1 = 0x5CE0A000u + n;
		g.data2 = 0x5EA5;
		g.data3 = 0x4000;
		g.data4[0] = 0x80;
		g.data4[7] = (uint8_t)n;
	}
	return g;
}

/* e at second t with instance act's activity id (0: none). */
static void write_at(int t, const struct ev *e, unsigned act)
{
	atomic_store(&g_now, T0 + (int64_t)t * 10000000);
	struct etl_event_descriptor d = { .id = e->id, .level = e->level, .keyword = e->keyword };
	struct etl_guid a = activity(act);
	uint32_t tag = (uint32_t)t;
	struct etl_data data = ETL_DATA(&tag, sizeof tag);
	if (etl_write_transfer(&provs[e->prov], &d, act ? &a : NULL, NULL, 1, &data) != ETL_OK)
		g_fail = 1;
	g_written++;
}

/* The events of list, one a second from *t on. */
static void round_of(const struct ev *list, size_t n, int *t)
{
	for (size_t i = 0; i < n; i++)
		write_at((*t)++, &list[i], 0);
}

#define ROUND(list, t) round_of(list, N(list), &(t))

static void event(int t, int prov, uint16_t id, uint8_t level, uint64_t keyword, unsigned act)
{
	const struct ev e = { prov, id, level, keyword };
	write_at(t, &e, act);
}

static void script(void)
{
	int t = 1;
	event(0, OTHER_A, 1, 4, 0x1, 0);
	ROUND(BOOT_CTX, t);                                 /*  1- 5: before the boot   */
	event(t++, BOOTDIAG, 501, 4, ALL_BITS, 1);         /*  6: boot starts          */
	ROUND(BOOT_CTX, t);                                 /*  7-11                    */
	event(t++, PREFETCH, 101, 4, 0x40, 0);              /* 12: its filter rejects it */
	event(t++, OTHER_B, 1, 4, 0x1, 0);                  /* 13                       */
	event(t++, WINLOGON, 5001, 4, 0x20000, 2);          /* 14: user logon starts    */
	ROUND(LOGON_CTX, t);                                /* 15-18                    */
	ROUND(BOOT_CTX, t);                                 /* 19-23                    */
	event(t++, WINLOGON, 5007, 4, 0x20000, 1);          /* 24: boot ends            */
	ROUND(LOGON_CTX, t);                                /* 25-28                    */
	ROUND(BOOT_CTX, t);                                 /* 29-33: after the boot    */
	event(t++, WINLOGON, 5002, 4, 0x20000, 2);          /* 34: user logon ends      */
	ROUND(LOGON_CTX, t);                                /* 35-38                    */
	event(t++, OTHER_A, 1, 4, 0x1, 0);                  /* 39                       */
	ROUND(POWER_CTX, t);                                /* 40-43                    */
	event(t++, POWER, 1, 4, 0x1, 3);                    /* 44: standby              */
	ROUND(POWER_CTX, t);                                /* 45-48                    */
	event(t++, HAL, 13, 4, 0x1, 0);                     /* 49: level 4 > HAL's 2    */
	ROUND(POWER_CTX, t);                                /* 50-53                    */
	event(t++, POWER, 2, 4, 0x1, 3);                    /* 54: resume               */
	ROUND(POWER_CTX, t);                                /* 55-58                    */
	event(t++, OTHER_B, 1, 4, 0x1, 0);                  /* 59                       */
	ROUND(SHUTDOWN_CTX, t);                             /* 60-65                    */
	event(t++, WINLOGON, 6001, 4, 0x20000, 4);          /* 66: shutdown starts      */
	ROUND(SHUTDOWN_CTX, t);                             /* 67-72                    */
	event(t++, CSR, 2, 5, 0x10000, 0);                  /* 73: level 5 > 4          */
	ROUND(SHUTDOWN_CTX, t);                             /* 74-79                    */
	event(t++, POWER, 48, 4, 0x1, 4);                   /* 80: shutdown ends        */
	ROUND(SHUTDOWN_CTX, t);                             /* 81-86                    */
	event(89, OTHER_A, 1, 4, 0x1, 0);
	t = 90;
	event(t++, WINLOGON, 5003, 4, 0x20000, 5);          /* 90: secondary logon      */
	ROUND(SECONDARY_CTX, t);                            /* 91-94                    */
	for (t = 100; t <= 760; t += 60) {                  /* times out at 700         */
		event(t, SERVICES, 7036, 4, ALL_BITS, 0);
		event(t + 1, OTHER_A, 1, 4, 0x1, 0);
	}
	event(770, DIAGPERF, 10001, 4, 0x2000000, 5);       /* too late: timed out      */
	/* Zero activity ids (device eject 223 -> 224, device start 216 -> 218). */
	event(780, PNP, 224, 4, 0x40000, 0);                /* ends nothing             */
	event(781, PNP, 216, 4, 0x8000, 0);
	event(782, PNP, 223, 4, 0x40000, 0);
	event(783, PNP, 223, 4, 0x40000, 0);
	event(784, PNP, 218, 4, 0x8000, 0);                 /* ends the 781 instance    */
	event(785, PNP, 224, 4, 0x40000, 0);                /* ends the 782 one         */
	event(786, PNP, 216, 4, 0x8000, 6);
	event(787, PNP, 218, 4, 0x8000, 0);                 /* ends the 786 one         */
	event(788, WINLOGON, 5001, 4, 0x20000, 7);          /* user logon, left open    */
	event(789, SERVICES, 7036, 4, ALL_BITS, 0);
	event(790, OTHER_B, 1, 4, 0x1, 0);
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: sem-trace OUT.etl\n");
		return 1;
	}
	struct etl_session_props sp;
	etl_session_props_init(&sp);
	sp.file_name = argv[1];
	sp.buffer_size = 8192;
	sp.flush_timer_ms = 0;
	sp.blocking = 1;
	sp.clock = trace_clock;
	etl_session *s = etl_session_new();
	if (!s || etl_session_start(s, "SemScenarios", &sp) != ETL_OK) {
		fprintf(stderr, "sem-trace: cannot start: %s\n", s ? etl_session_errmsg(s) : "out of memory");
		return 2;
	}
	struct etl_enable_params e;
	etl_enable_params_init(&e);
	for (int i = 0; i < N_PROVIDERS; i++) {
		struct etl_guid g;
		if (etl_guid_parse(GUIDS[i], &g) != ETL_OK || etl_session_enable(s, &g, &e) != ETL_OK ||
		    etl_provider_register(&provs[i], &g, NULL, NULL) != ETL_OK) {
			fprintf(stderr, "sem-trace: cannot enable %s\n", GUIDS[i]);
			return 2;
		}
	}
	script();
	struct etl_session_stats st;
	if (etl_session_stop(s) != ETL_OK) {
		fprintf(stderr, "sem-trace: %s\n", etl_session_errmsg(s));
		g_fail = 1;
	}
	etl_session_stats(s, &st);
	etl_session_free(s);
	for (int i = 0; i < N_PROVIDERS; i++)
		etl_provider_unregister(&provs[i]);
	if (g_fail || st.events_lost || st.events_written != (uint64_t)g_written) {
		fprintf(stderr, "sem-trace: %llu of %ld events written\n", (unsigned long long)st.events_written,
		        g_written);
		return 2;
	}
	printf("events %ld\n", g_written);
	return 0;
}
