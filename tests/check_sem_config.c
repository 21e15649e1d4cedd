/*
 * check_sem_config.c - the SEM's configuration rules (doc/sem.md
 * §3), one test per rule: a fixture of testdata/wdi/ (or, for the
 * limits, a configuration generated here) and the effective configuration
 * or the exact diagnostics (rule and key path) it must give. The Windows
 * default configuration (testdata/wdi/windows-default.reg) is asserted
 * field by field.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "etl_sem.h"
#include "sem_expect.h"
#include "testutil.h"

#define N(a) (sizeof(a) / sizeof *(a))

/* The start event every small fixture defines (scen() of the generator). */
#define BASE_START(S) { SX_PA, 1, 4, 0x1, 0, 1, { S, NULL }, { { SX_PB, 2, 4, 0x2, 0 } }, { { SX_PC, 5, 0x4, 0, 0 } } }
#define OTHER_START(S) { SX_PD, 9, 4, 0x1, 0, 1, { S, NULL }, { { SX_PB, 2, 4, 0x2, 0 } }, { { SX_PC, 5, 0x4, 0, 0 } } }

static void check_off(const etl_sem_config *cfg, int reason, const char *words)
{
	ck_assert(!etl_sem_config_enabled(cfg));
	ck_assert_int_eq(etl_sem_config_disabled_reason(cfg), reason);
	const char *msg = etl_sem_config_disabled_message(cfg);
	ck_assert_msg(msg && strstr(msg, words), "disabled message: %s", msg ? msg : "(null)");
	size_t n;
	ck_assert(etl_sem_config_start_events(cfg, &n) == NULL && n == 0);
	ck_assert(etl_sem_config_diaglog_providers(cfg, &n) == NULL && n == 0);
	ck_assert(etl_sem_config_disabled_scenarios(cfg, &n) == NULL && n == 0);
}

static void check_on(const etl_sem_config *cfg)
{
	ck_assert(etl_sem_config_enabled(cfg));
	ck_assert_int_eq(etl_sem_config_disabled_reason(cfg), ETL_SEM_ON);
	ck_assert(etl_sem_config_disabled_message(cfg) == NULL);
}

/* ---- the Windows default configuration ------------------------------------------ */

#define KP   "{331C3B3A-2005-44C2-AC5E-77220C37D6B4}"
#define WLG  "{DBE9B383-7CF3-4331-91CC-A3CB16A3B538}"
#define WINI "{206F6DEA-D3C5-4D10-BC72-989F03C8B84B}"
#define SVC  "{0063715B-EEDA-4007-9429-AD526F62696E}"
#define PNP  "{9C205A39-1250-487D-ABD7-E831C6290539}"
#define BOOT "{96AC7637-5950-4A30-B8F7-E07E8E5734C1}"
#define SHC  "{30336ED4-E327-447C-9DE0-51B652C86108}"
#define PERF "{CFC18EC0-96B1-4EBA-961B-622CAEE05B0A}"
#define HAL  "{63D1E632-95CC-4443-9312-AF927761D52A}"
#define UMDF "{2E35AAEB-857F-4BEB-A418-2E6C0E54D988}"
#define CSR  "{E8316A2D-0D94-4F52-85DD-1E15B66C5891}"
#define PREF "{5322D61A-9EFA-4BC3-A3F9-14BE95C144F8}"
#define PX_BOOTUSER "{41932CAB-7E12-40D6-A728-62D30E054593}"
#define PX_BOOTSYS  "{7EFE4AB3-990D-4350-A878-CD8772888199}"
#define PX_SHUTDOWN "{AD5C7A10-4E08-45E1-81B5-CB5EB6EC8917}"
#define PX_SECLOGON "{B27A2C15-40F4-4EA3-9637-628FC612A1D0}"
#define SC_SHUTDOWN "{2698178D-FDAD-40AE-9D3C-1371703ADC5B}"
#define SC_POWER    "{533A67EB-9FB5-473D-B884-958CF4B9C4A3}"
#define SC_STANDBY  "{FFC42108-4920-4ACF-A4FC-8ABDCC68ADA4}"
#define SC_BOOT     "{67144949-5132-4859-8036-A737B43825D8}"
#define SC_LOGON    "{86432A0B-3C7D-4DDF-A89C-172FAA90485D}"
#define SC_SECLOGON "{9F41811A-0429-42AA-81B7-CFD4D968411F}"
#define SC_EJECT    "{924F25BC-020A-4CAD-A53E-4A49CFABB6B6}"
#define SC_DEVSTART "{AA526ADC-508B-448A-B2D1-C59511CB59D4}"
#define SHUTDOWN_CTX { { SVC, 4, SX_ALL, 0, 0 }, { WINI, 4, 0x10000, 0, 0 }, { KP, 4, 0x8, 0, 0 }, \
                       { PX_SHUTDOWN, 85, SX_ALL, 0, 0 }, { WLG, 4, 0x10000, 0, 0 }, { CSR, 4, 0x10000, 0, 0 } }

static const struct sx_start WINDOWS_DEFAULT[] = {
	{ WINI, 6001, 4, 0x20000, 0, 1, { SC_SHUTDOWN }, { { KP, 48, 4, 0x1, 0 } }, SHUTDOWN_CTX },
	/* power transition + standby/resume, merged: Kernel-Power context
	 * level max(4, 4), keyword 0x4 | 0x8 */
	{ KP, 1, 1, 0x1, 0, 1, { SC_POWER, SC_STANDBY }, { { KP, 2, 1, 0x1, 0 } },
	  { { UMDF, 4, 0x1, 0, 0 }, { KP, 4, 0xC, 0, 0 }, { HAL, 2, 0x1, 0, 0 } } },
	{ BOOT, 501, 4, SX_ALL, 0, 1, { SC_BOOT }, { { WLG, 5007, 4, 0x20000, 0 } },
	  { { SVC, 4, SX_ALL, 0, 0 }, { PREF, 4, 0x20, 0, 0 }, { PX_BOOTSYS, 85, SX_ALL, 0, 0 },
	    { PNP, 4, UINT64_C(0xE0000000000FFFFF), 0, 0 }, { WLG, 4, 0x10000, 0, 0 } } },
	{ PNP, 216, 4, 0x8000, 0, 1, { SC_DEVSTART }, { { PNP, 218, 4, 0x8000, 0 } }, { { NULL } } },
	{ PNP, 223, 4, 0x40000, 0, 1, { SC_EJECT }, { { PNP, 224, 4, 0x40000, 0 } }, { { NULL } } },
	{ WLG, 5001, 4, 0x20000, 0, 1, { SC_LOGON }, { { WLG, 5002, 4, 0x20000, 0 } },
	  { { SVC, 4, SX_ALL, 0, 0 }, { SHC, 4, 0x4000000, 0, 0 }, { PX_BOOTUSER, 85, SX_ALL, 0, 0 },
	    { WLG, 4, 0x10000, 0, 0 } } },
	{ WLG, 5003, 4, 0x20000, 0, 1, { SC_SECLOGON }, { { PERF, 10001, 4, 0x2000000, 0 } },
	  { { SVC, 4, SX_ALL, 0, 0 }, { SHC, 4, 0x4000000, 0, 0 }, { PX_SECLOGON, 85, SX_ALL, 0, 0 },
	    { WLG, 4, 0x10000, 0, 0 } } },
	{ WLG, 6001, 4, 0x20000, 0, 1, { SC_SHUTDOWN }, { { KP, 48, 4, 0x1, 0 } }, SHUTDOWN_CTX },
};

START_TEST(test_windows_default)
{
	etl_sem_config *cfg = sx_load("windows-default.reg");
	check_on(cfg);
	ck_assert_uint_eq(etl_sem_config_timeout_minutes(cfg), 10);
	ck_assert_uint_eq(etl_sem_config_housekeeping_seconds(cfg), 60);
	sx_starts(cfg, WINDOWS_DEFAULT, N(WINDOWS_DEFAULT));
	static const struct { const char *p; unsigned level; uint64_t kw; } diaglog[] = {
		{ WINI, 4, 0x20000 }, { KP, 4, 0x1 }, { BOOT, 4, SX_ALL }, { PNP, 4, 0x48000 }, { PERF, 4, 0x2000000 },
		{ WLG, 4, 0x20000 },
	};
	size_t n;
	const struct etl_sem_provider *dl = etl_sem_config_diaglog_providers(cfg, &n);
	ck_assert_uint_eq(n, N(diaglog));
	for (size_t i = 0; i < n; i++) {
		struct etl_guid g = sx_guid(diaglog[i].p);
		ck_assert_msg(etl_guid_equal(&dl[i].provider, &g), "DiagLog provider %zu", i);
		ck_assert_uint_eq(dl[i].params.level, diaglog[i].level);
		ck_assert_uint_eq(dl[i].params.keyword, diaglog[i].kw);
		ck_assert_uint_eq(dl[i].params.enable_property, 0);
	}
	ck_assert(etl_sem_config_disabled_scenarios(cfg, &n) == NULL && n == 0);
	ck_assert(etl_sem_config_dropped(cfg, &n) == NULL && n == 0);
	sx_diags(cfg, NULL, 0);

	struct etl_guid kp = sx_guid(KP);
	const struct etl_sem_start_event *se = etl_sem_config_find_start_event(cfg, &kp, 1);
	ck_assert(se != NULL && se->n_scenarios == 2);
	ck_assert(etl_sem_config_find_start_event(cfg, &kp, 2) == NULL);   /* an end event */
	struct etl_guid wlg = sx_guid(WLG);
	se = etl_sem_config_find_start_event(cfg, &wlg, 6001);
	ck_assert(se != NULL && se->id == 6001);
	ck_assert(etl_sem_config_find_start_event(cfg, NULL, 1) == NULL);
	etl_sem_config_free(cfg);
}
END_TEST

/* ---- global values --------------------------------------------------------------- */

START_TEST(test_sem_enabled_zero)
{
	etl_sem_config *cfg = sx_load("sem-disabled.reg");
	check_off(cfg, ETL_SEM_OFF_SEM_ENABLED, "SEMEnabled is 0 (" SX_C "\\Config)");
	sx_diags(cfg, NULL, 0);                       /* a decision, not a fault */
	etl_sem_config_free(cfg);
}
END_TEST

START_TEST(test_sem_enabled_wrong_type)
{
	static const struct sx_diag d[] = { { "value_type", SX_C "\\Config" } };
	static const struct sx_start s[] = { BASE_START(SX_S1) };
	etl_sem_config_free(sx_check("sem-enabled-type.reg", d, N(d), s, N(s)));
}
END_TEST

START_TEST(test_timeout)
{
	etl_sem_config *cfg = sx_load("timeout-zero.reg");
	ck_assert_uint_eq(etl_sem_config_timeout_minutes(cfg), 0);
	ck_assert_uint_eq(etl_sem_config_housekeeping_seconds(cfg), 60);   /* every minute */
	sx_diags(cfg, NULL, 0);
	etl_sem_config_free(cfg);
	cfg = sx_load("timeout-five.reg");
	ck_assert_uint_eq(etl_sem_config_timeout_minutes(cfg), 5);
	ck_assert_uint_eq(etl_sem_config_housekeeping_seconds(cfg), 30);   /* a tenth */
	etl_sem_config_free(cfg);
	cfg = sx_load("params-defaults.reg");                               /* not set */
	ck_assert_uint_eq(etl_sem_config_timeout_minutes(cfg), ETL_SEM_DEFAULT_TIMEOUT_MINUTES);
	ck_assert_uint_eq(etl_sem_config_housekeeping_seconds(cfg), 60);
	etl_sem_config_free(cfg);
}
END_TEST

/* ---- policy --------------------------------------------------------------------------- */

START_TEST(test_policy_off)
{
	etl_sem_config *cfg = sx_load("policy-off.reg");
	check_off(cfg, ETL_SEM_OFF_POLICY, "ScenarioExecutionEnabled is 0 (" SX_POL ")");
	sx_diags(cfg, NULL, 0);
	etl_sem_config_free(cfg);
}
END_TEST

START_TEST(test_policy_all_on)
{
	/* Non-zero: every scenario runs and the subkeys - one disabling S1,
	 * one with an over-long name - are not even read. */
	static const struct sx_start s[] = { BASE_START(SX_S1) };
	etl_sem_config_free(sx_check("policy-all-on.reg", NULL, 0, s, N(s)));
}
END_TEST

START_TEST(test_policy_scenario_off)
{
	etl_sem_config *cfg = sx_load("policy-scenario-off.reg");
	check_on(cfg);
	static const struct sx_start s[] = { OTHER_START(SX_S2) };
	sx_starts(cfg, s, N(s));
	size_t n;
	const struct etl_sem_disabled_scenario *ds = etl_sem_config_disabled_scenarios(cfg, &n);
	ck_assert_uint_eq(n, 1);
	struct etl_guid s1 = sx_guid(SX_S1);
	ck_assert(etl_guid_equal(&ds[0].scenario, &s1));
	ck_assert_int_eq(ds[0].by, ETL_SEM_BY_POLICY);
	sx_diags(cfg, NULL, 0);
	etl_sem_config_free(cfg);
}
END_TEST

START_TEST(test_policy_name_not_guid)
{
	static const struct sx_diag d[] = { { "policy_name_not_guid", SX_POL "\\NotAGuid" } };
	static const struct sx_start s[] = { BASE_START(SX_S1) };
	etl_sem_config_free(sx_check("policy-name-not-guid.reg", d, N(d), s, N(s)));
}
END_TEST

#define LONG_NAME "{AAAAAAAA-AAAA-AAAA-AAAA-AAAAAAAAAAAA}xxxxxxxxxxxxxxxxxxxxxxxxxxx"

START_TEST(test_policy_name_too_long)
{
	etl_sem_config *cfg = sx_load("policy-name-too-long.reg");
	check_off(cfg, ETL_SEM_OFF_POLICY_NAME, "longer than 64");
	static const struct sx_diag d[] = { { "policy_name_too_long", SX_POL "\\" LONG_NAME } };
	sx_diags(cfg, d, N(d));
	etl_sem_config_free(cfg);
}
END_TEST

/* REGEDIT4 text: a policy disabling n scenarios, and scenario S1. */
static etl_sem_config *policy_disabling(unsigned n)
{
	struct tu_bytes b;
	tu_bytes_init(&b);
	const char *head = "REGEDIT4\r\n\r\n";
	tu_putbytes(&b, head, strlen(head));
	for (unsigned i = 0; i < n; i++) {
		char line[256];
		int len = snprintf(line, sizeof line,
		                   "[" SX_POL "\\{00000000-0000-0000-0000-%012X}]\r\n\"ScenarioExecutionEnabled\"=dword:0\r\n\r\n",
		                   i);
		tu_putbytes(&b, line, (size_t)len);
	}
	const char *scen = "[" SX_START(SX_S1, SX_PA ";1") "\\EndEvents\\" SX_PB ";2]\r\n";
	tu_putbytes(&b, scen, strlen(scen));
	struct etl_sem_error err;
	etl_sem_config *cfg = etl_sem_config_from_reg_memory(b.p, b.len, "generated", &err);
	ck_assert_msg(cfg != NULL, "%s", err.message);
	tu_bytes_free(&b);
	return cfg;
}

START_TEST(test_policy_disabled_limit)
{
	etl_sem_config *cfg = policy_disabling(64);                 /* at the limit: fine */
	check_on(cfg);
	sx_diags(cfg, NULL, 0);
	etl_sem_config_free(cfg);
	cfg = sx_load("policy-65-disabled.reg");                    /* past it: off */
	check_off(cfg, ETL_SEM_OFF_TOO_MANY_DISABLED, "more than 64");
	static const struct sx_diag d[] = { { "too_many_disabled_scenarios", SX_POL } };
	sx_diags(cfg, d, N(d));
	etl_sem_config_free(cfg);
}
END_TEST

/* ---- scenarios ---------------------------------------------------------------------- */

START_TEST(test_scenario_config_off)
{
	etl_sem_config *cfg = sx_load("scenario-config-off.reg");
	check_on(cfg);
	size_t n;
	ck_assert(etl_sem_config_start_events(cfg, &n) == NULL && n == 0);
	const struct etl_sem_disabled_scenario *ds = etl_sem_config_disabled_scenarios(cfg, &n);
	ck_assert_uint_eq(n, 1);
	ck_assert_int_eq(ds[0].by, ETL_SEM_BY_CONFIG);
	sx_diags(cfg, NULL, 0);
	etl_sem_config_free(cfg);
}
END_TEST

START_TEST(test_scenario_no_timeout)
{
	struct sx_start s[] = { BASE_START(SX_S1) };
	s[0].timeout_enabled = 0;
	etl_sem_config_free(sx_check("scenario-no-timeout.reg", NULL, 0, s, N(s)));
}
END_TEST

START_TEST(test_scenario_no_instrumentation)
{
	etl_sem_config *cfg = sx_load("scenario-no-instrumentation.reg");
	check_on(cfg);
	size_t n;
	etl_sem_config_start_events(cfg, &n);
	ck_assert_uint_eq(n, 0);
	sx_diags(cfg, NULL, 0);
	etl_sem_config_free(cfg);
}
END_TEST

START_TEST(test_scenario_name_not_guid)
{
	static const struct sx_diag d[] = { { "scenario_name_not_guid", SX_C "\\Scenarios\\Boot" } };
	static const struct sx_start s[] = { BASE_START(SX_S1) };
	etl_sem_config_free(sx_check("scenario-name-not-guid.reg", d, N(d), s, N(s)));
}
END_TEST

START_TEST(test_scenario_name_too_long)
{
	etl_sem_config *cfg = sx_load("scenario-name-too-long.reg");
	check_off(cfg, ETL_SEM_OFF_SCENARIO_NAME, "longer than 64");
	static const struct sx_diag d[] = { { "scenario_name_too_long", SX_C "\\Scenarios\\" LONG_NAME } };
	sx_diags(cfg, d, N(d));
	etl_sem_config_free(cfg);
}
END_TEST

/* ---- start event names ----------------------------------------------------------------- */

START_TEST(test_start_names_accepted)
{
	/* "; \t12" -> 12, "7abc" -> 7, "abc" -> 0, 65535 -> 65535 */
	struct sx_start s[] = { BASE_START(SX_S1), BASE_START(SX_S1), BASE_START(SX_S1), BASE_START(SX_S1) };
	s[0].id = 0;
	s[1].id = 7;
	s[2].id = 12;
	s[3].id = 65535;
	etl_sem_config_free(sx_check("start-names.reg", NULL, 0, s, N(s)));
}
END_TEST

/* A rejected start event: exactly one diagnostic, and only scenario S2's
 * start event left. */
static void rejected_start(const char *fixture, const char *rule, const char *key)
{
	const struct sx_diag d[] = { { rule, key } };
	static const struct sx_start s[] = { OTHER_START(SX_S2) };
	etl_sem_config *cfg = sx_check(fixture, d, 1, s, N(s));
	size_t n;
	ck_assert(etl_sem_config_dropped(cfg, &n) == NULL && n == 0);   /* not a limit */
	etl_sem_config_free(cfg);
}

START_TEST(test_start_name_too_long)
{
	rejected_start("start-name-too-long.reg", "start_name_too_long",
	               SX_START(SX_S1, SX_PA ";1                         "));
}
END_TEST

START_TEST(test_start_name_no_semicolon)
{
	rejected_start("start-name-no-semicolon.reg", "start_name_no_semicolon", SX_START(SX_S1, SX_PA));
}
END_TEST

START_TEST(test_start_name_bad_guid)
{
	rejected_start("start-name-bad-guid.reg", "start_name_bad_guid",
	               SX_START(SX_S1, "AAAAAAAA-AAAA-AAAA-AAAA-AAAAAAAAAAAA;1"));
}
END_TEST

START_TEST(test_start_name_no_id)
{
	rejected_start("start-name-no-id.reg", "start_name_no_id", SX_START(SX_S1, SX_PA ";"));
}
END_TEST

START_TEST(test_start_id_out_of_range)
{
	rejected_start("start-id-out-of-range.reg", "start_id_out_of_range", SX_START(SX_S1, SX_PA ";65536"));
}
END_TEST

START_TEST(test_start_placeholder)
{
	/* "*": its end events are read (the bad one diagnosed), then it goes. */
	static const struct sx_diag d[] = {
		{ "end_name_no_semicolon", SX_START(SX_S1, "*") "\\EndEvents\\bad" },
		{ "start_placeholder", SX_START(SX_S1, "*") },
	};
	etl_sem_config_free(sx_check("start-placeholder.reg", d, N(d), NULL, 0));
}
END_TEST

START_TEST(test_start_without_end_events)
{
	etl_sem_config *cfg = sx_load("start-no-end-events.reg");
	static const struct sx_diag d[] = { { "start_without_end_events", SX_START(SX_S1, SX_PA ";1") } };
	sx_diags(cfg, d, N(d));
	size_t n;
	etl_sem_config_start_events(cfg, &n);
	ck_assert_uint_eq(n, 0);
	ck_assert(etl_sem_config_diaglog_providers(cfg, &n) == NULL && n == 0);
	etl_sem_config_free(cfg);
}
END_TEST

/* ---- end event names ---------------------------------------------------------------------- */

START_TEST(test_end_names)
{
	/* Each bad name rejects that end event only (in name order). */
	etl_sem_config *cfg = sx_load("end-names.reg");
#define END_KEY(E) SX_START(SX_S1, SX_PA ";1") "\\EndEvents\\" E
	static const struct sx_diag d[] = {
		{ "end_name_bad_guid", END_KEY("BBBBBBBB-BBBB-BBBB-BBBB-BBBBBBBBBBBB;4") },
		{ "end_name_no_semicolon", END_KEY(SX_PB) },
		{ "end_name_no_id", END_KEY(SX_PB ";") },
		{ "end_name_too_long", END_KEY(SX_PB ";3                              ") },
		{ "end_id_out_of_range", END_KEY(SX_PB ";70000") },
	};
	sx_diags(cfg, d, N(d));
	static const struct sx_start s[] = { BASE_START(SX_S1) };
	sx_starts(cfg, s, N(s));
	etl_sem_config_free(cfg);
}
END_TEST

START_TEST(test_end_all_rejected)
{
	static const struct sx_diag d[] = {
		{ "end_name_no_semicolon", END_KEY(SX_PB) },
		{ "start_without_end_events", SX_START(SX_S1, SX_PA ";1") },
	};
	etl_sem_config_free(sx_check("end-all-rejected.reg", d, N(d), NULL, 0));
}
END_TEST

/* ---- context providers ---------------------------------------------------------------------- */

#define CTX_KEY(C) SX_START(SX_S1, SX_PA ";1") "\\ContextProviders\\" C

START_TEST(test_context_not_guid)
{
	rejected_start("context-not-guid.reg", "context_name_not_guid", CTX_KEY("Services"));
}
END_TEST

START_TEST(test_context_too_long)
{
	static const struct sx_diag d[] = { { "context_name_too_long", CTX_KEY(LONG_NAME) } };
	etl_sem_config_free(sx_check("context-too-long.reg", d, N(d), NULL, 0));
}
END_TEST

START_TEST(test_context_kernel_wdi)
{
	static const struct sx_diag d[] = {
		{ "context_provider_wdi", CTX_KEY("{2FF3E6B7-CB90-4700-9621-443F389734ED}") } };
	etl_sem_config_free(sx_check("context-wdi.reg", d, N(d), NULL, 0));
}
END_TEST

/* ---- Level, Keyword, EnableProperty, CaptureState ------------------------------------------------ */

START_TEST(test_params_defaults)
{
	static const struct sx_start s[] = { { SX_PA, 1, 0xFF, SX_ALL, 0, 1, { SX_S1 }, { { SX_PB, 2, 0xFF, SX_ALL, 0 } },
	                                       { { SX_PC, 0xFF, SX_ALL, 0, 0 } } } };
	etl_sem_config_free(sx_check("params-defaults.reg", NULL, 0, s, N(s)));
}
END_TEST

START_TEST(test_params_zero_and_low_bits)
{
	/* Level 0 -> 0xFF, Keyword 0 -> all; Level 0x104 -> 4, 0x100 -> 0 -> 0xFF */
	static const struct sx_start s[] = { { SX_PA, 1, 0xFF, SX_ALL, 5, 1, { SX_S1 }, { { SX_PB, 2, 4, 0x10, 0 } },
	                                       { { SX_PC, 0xFF, SX_ALL, 0x40, 0 } } } };
	etl_sem_config_free(sx_check("params-zero.reg", NULL, 0, s, N(s)));
}
END_TEST

START_TEST(test_params_wrong_type)
{
	etl_sem_config *cfg = sx_load("params-bad-type.reg");
	static const struct sx_diag d[] = {
		{ "value_type", SX_START(SX_S1, SX_PA ";1") },    /* Level as REG_SZ */
		{ "value_type", SX_START(SX_S1, SX_PA ";1") },    /* Keyword as REG_DWORD */
	};
	sx_diags(cfg, d, N(d));
	size_t n;
	const struct etl_sem_start_event *se = etl_sem_config_start_events(cfg, &n);
	ck_assert_uint_eq(n, 1);
	ck_assert_uint_eq(se[0].params.level, 0xFF);
	ck_assert_uint_eq(se[0].params.keyword, SX_ALL);
	etl_sem_config_free(cfg);
}
END_TEST

START_TEST(test_capture_state)
{
	/* CaptureState 0 -> no, 1 and 2 -> yes, 3 -> no (diagnosed) */
	static const struct sx_diag d[] = { { "capture_state_value", CTX_KEY(SX_PA) } };
	static const struct sx_start s[] = { { SX_PA, 1, 4, 0x1, 0, 1, { SX_S1 }, { { SX_PB, 2, 4, 0x2, 0 } },
	                                       { { SX_PA, 0xFF, SX_ALL, 0, 0 }, { SX_PB, 0xFF, SX_ALL, 0, 1 },
	                                         { SX_PC, 0xFF, SX_ALL, 0, 0 }, { SX_PD, 0xFF, SX_ALL, 0, 1 } } } };
	etl_sem_config_free(sx_check("capture-state.reg", d, N(d), s, N(s)));
}
END_TEST

/* ---- merging ---------------------------------------------------------------------------------------- */

START_TEST(test_merge)
{
	/* S1: start 2/0x1/EP1, end PB;2 3/0x2, context PC 4/0x4.
	 * S2: start 5/0x10/EP2, ends PB;2 1/0x20 and PB;3 4/0x40, contexts PC
	 * 2/0x8 capture, PD 4/0x80; S2 never times out. */
	etl_sem_config *cfg = sx_load("merge.reg");
	static const struct sx_start s[] = { { SX_PA, 1, 5, 0x11, 3, 0, { SX_S1, SX_S2 },
	                                       { { SX_PB, 2, 3, 0x22, 0 }, { SX_PB, 3, 4, 0x40, 0 } },
	                                       { { SX_PC, 4, 0xC, 0, 1 }, { SX_PD, 4, 0x80, 0, 0 } } } };
	sx_starts(cfg, s, N(s));
	sx_diags(cfg, NULL, 0);
	size_t n;
	const struct etl_sem_provider *dl = etl_sem_config_diaglog_providers(cfg, &n);
	ck_assert_uint_eq(n, 2);                   /* PA (start) and PB (ends) */
	ck_assert_uint_eq(dl[0].params.level, 5);
	ck_assert_uint_eq(dl[0].params.keyword, 0x11);
	ck_assert_uint_eq(dl[0].params.enable_property, 3);
	ck_assert_uint_eq(dl[1].params.level, 4);
	ck_assert_uint_eq(dl[1].params.keyword, 0x62);
	etl_sem_config_free(cfg);

	struct etl_sem_params acc = { 3, 0x1, 0x1 }, p = { 2, 0x8, 0x4 };
	etl_sem_params_combine(&acc, &p);
	ck_assert(acc.level == 3 && acc.keyword == 0x9 && acc.enable_property == 0x5);
}
END_TEST

/* ---- control sets ------------------------------------------------------------------------------------- */

START_TEST(test_control_set_select)
{
	static const struct sx_start s[] = { OTHER_START(SX_S2) };
	etl_sem_config_free(sx_check("controlset-select.reg", NULL, 0, s, N(s)));
}
END_TEST

START_TEST(test_control_set_ambiguous)
{
	static const struct sx_diag d[] = { { "control_set_ambiguous", "HKEY_LOCAL_MACHINE\\SYSTEM\\ControlSet001" } };
	static const struct sx_start s[] = { OTHER_START(SX_S2) };
	etl_sem_config_free(sx_check("controlset-ambiguous.reg", d, N(d), s, N(s)));
}
END_TEST

START_TEST(test_control_set_missing)
{
	etl_sem_config *cfg = sx_load("controlset-missing.reg");
	static const struct sx_diag d[] = {
		{ "control_set_missing", "HKEY_LOCAL_MACHINE\\SYSTEM\\Select" },
		{ "control_key_missing", SX_C },
	};
	sx_diags(cfg, d, N(d));
	etl_sem_config_free(cfg);
	cfg = sx_load("no-wdi.reg");
	static const struct sx_diag d2[] = { { "control_key_missing", SX_C } };
	sx_diags(cfg, d2, N(d2));
	check_on(cfg);
	etl_sem_config_free(cfg);
}
END_TEST

/* ---- limits ---------------------------------------------------------------------------------------------- */

/* Generated REGEDIT4 text. */
static etl_sem_config *from_text(struct tu_bytes *b)
{
	struct etl_sem_error err;
	etl_sem_config *cfg = etl_sem_config_from_reg_memory(b->p, b->len, "generated", &err);
	ck_assert_msg(cfg != NULL, "%s", err.message);
	tu_bytes_free(b);
	return cfg;
}

#define GEN_START "[" SX_C "\\Scenarios\\%s\\Instrumentation\\%s]\r\n"
#define GEN_END   "[" SX_C "\\Scenarios\\%s\\Instrumentation\\%s\\EndEvents\\%s]\r\n"
#define GEN_CTX   "[" SX_C "\\Scenarios\\%s\\Instrumentation\\%s\\ContextProviders\\%s]\r\n"

static void check_dropped(const etl_sem_config *cfg, size_t i, int kind, const char *provider, unsigned id,
                          const char *scenario)
{
	size_t n;
	const struct etl_sem_dropped *dr = etl_sem_config_dropped(cfg, &n);
	ck_assert_msg(i < n, "only %zu dropped", n);
	struct etl_guid g = sx_guid(provider), s = sx_guid(scenario);
	ck_assert_msg(dr[i].kind == kind, "dropped %zu: kind %d, expected %d", i, dr[i].kind, kind);
	ck_assert_msg(etl_guid_equal(&dr[i].provider, &g), "dropped %zu: provider", i);
	ck_assert_msg(dr[i].id == id, "dropped %zu: id %u, expected %u", i, dr[i].id, id);
	ck_assert_msg(etl_guid_equal(&dr[i].scenario, &s), "dropped %zu: scenario", i);
	ck_assert(dr[i].key && dr[i].key[0]);
}

START_TEST(test_limit_start_events)
{
	/* 65 start events PA;1..65, read in name order ("1", "10".."19", "2",
	 * ..., "9"): the last one read, PA;9, is dropped. */
	struct tu_bytes b;
	tu_bytes_init(&b);
	tu_putf(&b, "REGEDIT4\r\n\r\n");
	for (unsigned i = 1; i <= 65; i++) {
		char se[64];
		snprintf(se, sizeof se, SX_PA ";%u", i);
		tu_putf(&b, GEN_END, SX_S1, se, SX_PB ";1");
	}
	etl_sem_config *cfg = from_text(&b);
	size_t n;
	etl_sem_config_start_events(cfg, &n);
	ck_assert_uint_eq(n, ETL_SEM_MAX_START_EVENTS);
	struct etl_guid pa = sx_guid(SX_PA);
	ck_assert(etl_sem_config_find_start_event(cfg, &pa, 9) == NULL);
	ck_assert(etl_sem_config_find_start_event(cfg, &pa, 65) != NULL);
	static const struct sx_diag d[] = { { "limit_start_events", SX_START(SX_S1, SX_PA ";9") } };
	sx_diags(cfg, d, N(d));
	check_dropped(cfg, 0, ETL_SEM_DROP_START_EVENT, SX_PA, 9, SX_S1);
	etl_sem_config_dropped(cfg, &n);
	ck_assert_uint_eq(n, 1);
	etl_sem_config_free(cfg);
}
END_TEST

START_TEST(test_limit_end_events)
{
	struct tu_bytes b;
	tu_bytes_init(&b);
	tu_putf(&b, "REGEDIT4\r\n\r\n");
	for (unsigned i = 1; i <= 17; i++) {
		char ee[64];
		snprintf(ee, sizeof ee, SX_PB ";%u", i);
		tu_putf(&b, GEN_END, SX_S1, SX_PA ";1", ee);
	}
	etl_sem_config *cfg = from_text(&b);
	size_t n;
	const struct etl_sem_start_event *se = etl_sem_config_start_events(cfg, &n);
	ck_assert_uint_eq(n, 1);
	ck_assert_uint_eq(se[0].n_end_events, ETL_SEM_MAX_END_EVENTS);
	for (size_t i = 0; i < se[0].n_end_events; i++)
		ck_assert_uint_ne(se[0].end_events[i].id, 9);
	static const struct sx_diag d[] = { { "limit_end_events", END_KEY(SX_PB ";9") } };
	sx_diags(cfg, d, N(d));
	check_dropped(cfg, 0, ETL_SEM_DROP_END_EVENT, SX_PB, 9, SX_S1);
	etl_sem_config_free(cfg);
}
END_TEST

START_TEST(test_limit_context_providers)
{
	struct tu_bytes b;
	tu_bytes_init(&b);
	tu_putf(&b, "REGEDIT4\r\n\r\n");
	tu_putf(&b, GEN_END, SX_S1, SX_PA ";1", SX_PB ";2");
	for (unsigned i = 1; i <= 125; i++) {
		char cp[64];
		snprintf(cp, sizeof cp, "{00000000-0000-0000-0000-%012X}", i);
		tu_putf(&b, GEN_CTX, SX_S1, SX_PA ";1", cp);
	}
	etl_sem_config *cfg = from_text(&b);
	size_t n;
	const struct etl_sem_start_event *se = etl_sem_config_start_events(cfg, &n);
	ck_assert_uint_eq(n, 1);
	ck_assert_uint_eq(se[0].n_context_providers, ETL_SEM_MAX_CONTEXT_PROVIDERS);
	static const struct sx_diag d[] = { { "limit_context_providers", CTX_KEY("{00000000-0000-0000-0000-00000000007D}") } };
	sx_diags(cfg, d, N(d));
	check_dropped(cfg, 0, ETL_SEM_DROP_CONTEXT_PROVIDER, "{00000000-0000-0000-0000-00000000007D}", 0, SX_S1);
	etl_sem_config_free(cfg);
}
END_TEST

START_TEST(test_limit_providers)
{
	/* S1 uses exactly 1024 providers: 63 start events (providers 10..),
	 * 15 end events each (providers 20..), 16 context providers on the
	 * first (providers 40..). S2 then brings new providers: an end event
	 * and a context provider on an existing start event, an end event of
	 * a new start event (which is then dropped too, having none left),
	 * and a new start event's own provider. */
	struct tu_bytes b;
	tu_bytes_init(&b);
	tu_putf(&b, "REGEDIT4\r\n\r\n");
	for (unsigned i = 0; i < 63; i++) {
		char se[64];
		snprintf(se, sizeof se, "{10000000-0000-0000-0000-0000000000%02X};1", i);
		for (unsigned j = 0; j < 15; j++) {
			char ee[64];
			snprintf(ee, sizeof ee, "{20000000-0000-0000-0000-00000000%04X};1", i * 15 + j);
			tu_putf(&b, GEN_END, SX_S1, se, ee);
		}
		for (unsigned j = 0; i == 0 && j < 16; j++) {
			char cp[64];
			snprintf(cp, sizeof cp, "{40000000-0000-0000-0000-0000000000%02X}", j);
			tu_putf(&b, GEN_CTX, SX_S1, se, cp);
		}
	}
	const char *s0 = "{10000000-0000-0000-0000-000000000000};1", *s1 = "{10000000-0000-0000-0000-000000000001};2";
	tu_putf(&b, GEN_END, SX_S2, s0, "{30000000-0000-0000-0000-000000000002};5");
	tu_putf(&b, GEN_CTX, SX_S2, s0, "{30000000-0000-0000-0000-000000000001}");
	tu_putf(&b, GEN_END, SX_S2, s1, "{30000000-0000-0000-0000-000000000004};1");
	tu_putf(&b, GEN_END, SX_S2, "{30000000-0000-0000-0000-000000000003};1", "{10000000-0000-0000-0000-000000000000};1");
	etl_sem_config *cfg = from_text(&b);
	size_t n;
	const struct etl_sem_start_event *se = etl_sem_config_start_events(cfg, &n);
	ck_assert_uint_eq(n, 63);
	ck_assert_uint_eq(se[0].n_scenarios, 2);          /* S2 merged into the first */
	ck_assert_uint_eq(se[0].n_end_events, 15);
	ck_assert_uint_eq(se[0].n_context_providers, 16);
	check_dropped(cfg, 0, ETL_SEM_DROP_PROVIDER, "{30000000-0000-0000-0000-000000000002}", 5, SX_S2);
	check_dropped(cfg, 1, ETL_SEM_DROP_PROVIDER, "{30000000-0000-0000-0000-000000000001}", 0, SX_S2);
	check_dropped(cfg, 2, ETL_SEM_DROP_PROVIDER, "{30000000-0000-0000-0000-000000000004}", 1, SX_S2);
	check_dropped(cfg, 3, ETL_SEM_DROP_START_EVENT, "{10000000-0000-0000-0000-000000000001}", 2, SX_S2);
	check_dropped(cfg, 4, ETL_SEM_DROP_PROVIDER, "{30000000-0000-0000-0000-000000000003}", 1, SX_S2);
	etl_sem_config_dropped(cfg, &n);
	ck_assert_uint_eq(n, 5);
#define S2_START(E) SX_C "\\Scenarios\\" SX_S2 "\\Instrumentation\\" E
	static const struct sx_diag d[] = {
		{ "limit_providers", S2_START("{10000000-0000-0000-0000-000000000000};1\\EndEvents\\"
		                              "{30000000-0000-0000-0000-000000000002};5") },
		{ "limit_providers", S2_START("{10000000-0000-0000-0000-000000000000};1\\ContextProviders\\"
		                              "{30000000-0000-0000-0000-000000000001}") },
		{ "limit_providers", S2_START("{10000000-0000-0000-0000-000000000001};2\\EndEvents\\"
		                              "{30000000-0000-0000-0000-000000000004};1") },
		{ "limit_end_events", S2_START("{10000000-0000-0000-0000-000000000001};2") },
		{ "limit_providers", S2_START("{30000000-0000-0000-0000-000000000003};1") },
	};
	sx_diags(cfg, d, N(d));
	etl_sem_config_free(cfg);
}
END_TEST

START_TEST(test_diagnostics_cap)
{
	/* 1100 scenario names that are not GUIDs: 1000 listed, one summary. */
	struct tu_bytes b;
	tu_bytes_init(&b);
	tu_putf(&b, "REGEDIT4\r\n\r\n");
	for (unsigned i = 0; i < 1100; i++)
		tu_putf(&b, "[" SX_C "\\Scenarios\\Bad%04u]\r\n", i);
	etl_sem_config *cfg = from_text(&b);
	size_t n;
	const struct etl_sem_diag *d = etl_sem_config_diagnostics(cfg, &n);
	ck_assert_uint_eq(n, 1001);
	ck_assert_str_eq(d[999].rule, "scenario_name_not_guid");
	ck_assert_str_eq(d[1000].rule, "diagnostics_truncated");
	ck_assert_str_eq(d[1000].message, "100 more diagnostics are not listed");
	etl_sem_config_free(cfg);
}
END_TEST

static Suite *sem_config_suite(void)
{
	Suite *s = suite_create("sem_config");
	TCase *tc = tcase_create("rules");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_windows_default);
	tcase_add_test(tc, test_sem_enabled_zero);
	tcase_add_test(tc, test_sem_enabled_wrong_type);
	tcase_add_test(tc, test_timeout);
	tcase_add_test(tc, test_policy_off);
	tcase_add_test(tc, test_policy_all_on);
	tcase_add_test(tc, test_policy_scenario_off);
	tcase_add_test(tc, test_policy_name_not_guid);
	tcase_add_test(tc, test_policy_name_too_long);
	tcase_add_test(tc, test_policy_disabled_limit);
	tcase_add_test(tc, test_scenario_config_off);
	tcase_add_test(tc, test_scenario_no_timeout);
	tcase_add_test(tc, test_scenario_no_instrumentation);
	tcase_add_test(tc, test_scenario_name_not_guid);
	tcase_add_test(tc, test_scenario_name_too_long);
	tcase_add_test(tc, test_start_names_accepted);
	tcase_add_test(tc, test_start_name_too_long);
	tcase_add_test(tc, test_start_name_no_semicolon);
	tcase_add_test(tc, test_start_name_bad_guid);
	tcase_add_test(tc, test_start_name_no_id);
	tcase_add_test(tc, test_start_id_out_of_range);
	tcase_add_test(tc, test_start_placeholder);
	tcase_add_test(tc, test_start_without_end_events);
	tcase_add_test(tc, test_end_names);
	tcase_add_test(tc, test_end_all_rejected);
	tcase_add_test(tc, test_context_not_guid);
	tcase_add_test(tc, test_context_too_long);
	tcase_add_test(tc, test_context_kernel_wdi);
	tcase_add_test(tc, test_params_defaults);
	tcase_add_test(tc, test_params_zero_and_low_bits);
	tcase_add_test(tc, test_params_wrong_type);
	tcase_add_test(tc, test_capture_state);
	tcase_add_test(tc, test_merge);
	tcase_add_test(tc, test_control_set_select);
	tcase_add_test(tc, test_control_set_ambiguous);
	tcase_add_test(tc, test_control_set_missing);
	tcase_add_test(tc, test_limit_start_events);
	tcase_add_test(tc, test_limit_end_events);
	tcase_add_test(tc, test_limit_context_providers);
	tcase_add_test(tc, test_limit_providers);
	tcase_add_test(tc, test_diagnostics_cap);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(sem_config_suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
