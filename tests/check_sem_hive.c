/*
 * check_sem_hive.c - the SEM configuration from offline hives
 * (etl_sem_config_from_hives(), lib/sem/hive_load.c): hive files built by
 * the test from .reg fixtures with hivex's write API (tests/sem_hive.c)
 * give the same configuration as the .reg file; damaged hives fail with
 * the file named and the offset where the damage is.
 */
#define ETL_BUILDING_LIB 1
#include <check.h>
#include <hivex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "etl_sem.h"
#include "sem_expect.h"
#include "sem_hive.h"
#include "testutil.h"

/* ---- helpers --------------------------------------------------------------- */

/* A SYSTEM (and SOFTWARE) hive built from a .reg fixture. */
struct hives {
	char *system, *software;
};

static struct hives hives_from(const char *reg_path, int with_software)
{
	size_t n;
	uint8_t *reg = tu_load_file(reg_path, &n);
	struct hives h = { sh_tmp_path("SYSTEM"), with_software ? sh_tmp_path("SOFTWARE") : NULL };
	sh_reg_to_hives(reg, n, h.system, h.software);
	free(reg);
	return h;
}

static void hives_free(struct hives *h)
{
	unlink(h->system);
	free(h->system);
	if (h->software) {
		unlink(h->software);
		free(h->software);
	}
}

/* The configuration of a .reg fixture written as hives and read back
 * (SOFTWARE too when software). */
static etl_sem_config *via_hives(const char *reg_path, int software)
{
	struct hives h = hives_from(reg_path, software);
	struct etl_sem_error err;
	etl_sem_config *cfg = etl_sem_config_from_hives(h.system, h.software, &err);
	ck_assert_msg(cfg != NULL, "%s", err.message);
	hives_free(&h);
	return cfg;
}

/* Loads path as a SYSTEM hive and expects failure with code and offset
 * (-2: any offset), the path named in the message. */
static void expect_fail(const char *path, int code, int64_t offset, const char *words)
{
	struct etl_sem_error err;
	etl_sem_config *cfg = etl_sem_config_from_hives(path, NULL, &err);
	ck_assert_msg(cfg == NULL, "%s loaded", path);
	ck_assert_msg(err.code == code, "code %d (%s), expected %d", err.code, err.message, code);
	if (offset != -2)
		ck_assert_msg(err.offset == offset, "offset %lld, expected %lld: %s", (long long)err.offset,
		              (long long)offset, err.message);
	ck_assert_msg(strstr(err.message, path) != NULL, "no file name in: %s", err.message);
	ck_assert_msg(strstr(err.message, words) != NULL, "'%s' not in: %s", words, err.message);
}

/* A copy of a valid hive with bytes changed, written to a new file. */
static char *damaged(const uint8_t *hive, size_t n, size_t keep, void (*edit)(uint8_t *p, size_t n))
{
	uint8_t *p = malloc(n);
	ck_assert(p != NULL);
	memcpy(p, hive, n);
	if (edit)
		edit(p, keep);
	char *path = sh_tmp_path("damaged");
	tu_write_file(path, p, keep);
	free(p);
	return path;
}

static void fix_checksum(uint8_t *p)
{
	uint32_t sum = 0;
	for (size_t off = 0; off < 0x1FC; off += 4)
		sum ^= tu_le32(p + off);
	for (int i = 0; i < 4; i++)
		p[0x1FC + i] = (uint8_t)(sum >> (8 * i));
}

/* ---- the same configuration from .reg and from hives ------------------------------ */

START_TEST(test_default_hive_equals_reg)
{
	etl_sem_config *a = sx_load("windows-default.reg");
	etl_sem_config *b = via_hives("testdata/wdi/windows-default.reg", 1);
	sx_diags(b, NULL, 0);
	ck_assert(etl_sem_config_equal(a, b));       /* all 8 start events, field by field */
	char *ja = sx_json(a), *jb = sx_json(b);
	ck_assert_str_eq(ja, jb);       /* nothing in a clean JSON names a key */
	free(ja);
	free(jb);
	etl_sem_config_free(a);
	etl_sem_config_free(b);
}
END_TEST

START_TEST(test_rules_from_hives)
{
	/* A fixture of every kind the rules read: policy (SOFTWARE hive),
	 * per-scenario Config, merging, a diagnostic. */
	static const char *const fixtures[] = {
		"testdata/wdi/policy-scenario-off.reg", "testdata/wdi/merge.reg", "testdata/wdi/policy-off.reg",
		"testdata/wdi/scenario-config-off.reg", "testdata/wdi/capture-state.reg", "testdata/wdi/sem-disabled.reg",
		"testdata/wdi/end-names.reg", "testdata/wdi/params-zero.reg",
	};
	for (size_t i = 0; i < sizeof fixtures / sizeof *fixtures; i++) {
		struct etl_sem_error err;
		etl_sem_config *a = etl_sem_config_from_reg_file(fixtures[i], &err);
		ck_assert_msg(a != NULL, "%s", err.message);
		etl_sem_config *b = via_hives(fixtures[i], 1);
		ck_assert_msg(etl_sem_config_equal(a, b), "%s: .reg and hive differ", fixtures[i]);
		size_t na, nb;
		const struct etl_sem_diag *da = etl_sem_config_diagnostics(a, &na);
		const struct etl_sem_diag *db = etl_sem_config_diagnostics(b, &nb);
		ck_assert_uint_eq(na, nb);
		for (size_t k = 0; k < na; k++)
			ck_assert_str_eq(da[k].rule, db[k].rule);
		etl_sem_config_free(a);
		etl_sem_config_free(b);
	}
}
END_TEST

START_TEST(test_policy_needs_software_hive)
{
	/* Without the SOFTWARE hive the policy is not seen: S1 runs. */
	etl_sem_config *cfg = via_hives("testdata/wdi/policy-scenario-off.reg", 0);
	size_t n;
	etl_sem_config_disabled_scenarios(cfg, &n);
	ck_assert_uint_eq(n, 0);
	etl_sem_config_start_events(cfg, &n);
	ck_assert_uint_eq(n, 2);
	etl_sem_config_free(cfg);
}
END_TEST

START_TEST(test_select_current)
{
	/* Select\Current = 2 in the hive: ControlSet002 is read. */
	etl_sem_config *cfg = via_hives("testdata/wdi/controlset-select.reg", 0);
	static const struct sx_start s[] = { { SX_PD, 9, 4, 0x1, 0, 1, { SX_S2 }, { { SX_PB, 2, 4, 0x2, 0 } },
	                                       { { SX_PC, 5, 0x4, 0, 0 } } } };
	sx_starts(cfg, s, 1);
	sx_diags(cfg, NULL, 0);
	etl_sem_config_free(cfg);
}
END_TEST

/* A writable blank hive at a new *path, with Select\Current = current. */
static hive_h *blank_system(char **path, int current)
{
	*path = sh_tmp_path("SYSTEM");
	sh_blank_hive(*path);
	hive_h *h = hivex_open(*path, HIVEX_OPEN_WRITE);
	ck_assert(h != NULL);
	hive_node_h sel = hivex_node_add_child(h, hivex_root(h), "Select");
	char cur[4] = { (char)current, 0, 0, 0 };
	hive_set_value v = { (char *)"Current", hive_t_REG_DWORD, 4, cur };
	ck_assert_int_eq(hivex_node_set_values(h, sel, 1, &v, 0), 0);
	return h;
}

static void commit(hive_h *h)
{
	ck_assert_int_eq(hivex_commit(h, NULL, 0), 0);
	hivex_close(h);
}

START_TEST(test_no_wdi_key)
{
	/* A SYSTEM hive whose control set has no Control\WDI: loads, with
	 * control_key_missing naming the key in ControlSet001. */
	char *path;
	hive_h *h = blank_system(&path, 1);
	hive_node_h k = hivex_node_add_child(h, hivex_root(h), "ControlSet001");
	ck_assert(hivex_node_add_child(h, k, "Control") != 0);
	commit(h);
	struct etl_sem_error err;
	etl_sem_config *cfg = etl_sem_config_from_hives(path, NULL, &err);
	ck_assert_msg(cfg != NULL, "%s", err.message);
	ck_assert(etl_sem_config_enabled(cfg));
	size_t n;
	const struct etl_sem_diag *d = etl_sem_config_diagnostics(cfg, &n);
	ck_assert_uint_eq(n, 1);
	ck_assert_str_eq(d[0].rule, "control_key_missing");
	ck_assert_str_eq(d[0].key, "HKEY_LOCAL_MACHINE\\SYSTEM\\ControlSet001\\Control\\WDI");
	etl_sem_config_free(cfg);
	unlink(path);
	free(path);
}
END_TEST

/* ---- not a SYSTEM hive, no such file --------------------------------------------- */

START_TEST(test_not_a_system_hive)
{
	char *path = sh_tmp_path("blank");
	sh_blank_hive(path);
	expect_fail(path, ETL_E_NOT_FOUND, -2, "Select\\Current");
	unlink(path);
	free(path);

	/* Select\Current names a control set the hive lacks. */
	commit(blank_system(&path, 5));
	expect_fail(path, ETL_E_NOT_FOUND, -1, "ControlSet005");
	unlink(path);
	free(path);

	expect_fail("testdata/wdi/no-such-hive", ETL_E_IO, -1, "No such file");
	expect_fail("testdata/wdi", ETL_E_IO, -1, "not a regular file");
	struct etl_sem_error err;
	ck_assert(etl_sem_config_from_hives(NULL, NULL, &err) == NULL);
	ck_assert_int_eq(err.code, ETL_E_MISUSE);
}
END_TEST

START_TEST(test_nesting_cap)
{
	/* Keys nested 40 deep below WDI (what a loop in a damaged hive looks
	 * like): refused with the offset, no endless walk. */
	char *path;
	hive_h *h = blank_system(&path, 1);
	hive_node_h k = hivex_node_add_child(h, hivex_root(h), "ControlSet001");
	k = hivex_node_add_child(h, k, "Control");
	k = hivex_node_add_child(h, k, "WDI");
	for (int i = 0; i < 40; i++)
		k = hivex_node_add_child(h, k, "a");
	ck_assert(k != 0);
	commit(h);
	expect_fail(path, ETL_E_BAD_VALUE, -2, "deeper than 32 levels");
	unlink(path);
	free(path);
}
END_TEST

/* ---- damaged hives ------------------------------------------------------------------ */

static void edit_magic(uint8_t *p, size_t n) { (void)n; p[3] = 'X'; }
static void edit_checksum(uint8_t *p, size_t n) { (void)n; p[0x30] ^= 1; }
static void edit_version(uint8_t *p, size_t n) { (void)n; p[0x14] = 2; fix_checksum(p); }
static void edit_bins(uint8_t *p, size_t n) { (void)n; p[0x28] = 0x34; fix_checksum(p); }
static void edit_root(uint8_t *p, size_t n) { (void)n; p[0x24] = 0x08; fix_checksum(p); }
static void edit_hbin(uint8_t *p, size_t n) { (void)n; p[0x1000] = 'X'; }
static void edit_hbin_size(uint8_t *p, size_t n) { (void)n; p[0x1009] = 0x70; p[0x100A] = 0x00; }

/* The subkey list of the key named Instrumentation points nowhere. */
static size_t broken_nk;
static void edit_subkeys(uint8_t *p, size_t n)
{
	for (size_t i = 0x1000; i + 15 <= n; i++) {
		if (memcmp(p + i, "Instrumentation", 15) == 0 && i >= 0x4C && memcmp(p + i - 0x4C, "nk", 2) == 0) {
			broken_nk = i - 0x4C - 4;              /* the cell starts at its size */
			memset(p + i - 0x4C + 0x1C, 0x7E, 4);
			return;
		}
	}
	ck_abort_msg("no Instrumentation key in the hive");
}

START_TEST(test_damaged_hives)
{
	struct hives h = hives_from("testdata/wdi/windows-default.reg", 0);
	size_t n;
	uint8_t *hive = tu_load_file(h.system, &n);
	ck_assert_uint_ge(n, 0x3000);
	static const struct {
		size_t keep;                       /* 0: all */
		void (*edit)(uint8_t *, size_t);
		int code;
		int64_t offset;                    /* -2: the file size; -3: the broken key */
		const char *words;
	} cases[] = {
		{ 100, NULL, ETL_E_TRUNCATED, 100, "too short" },
		{ 0x1800, NULL, ETL_E_TRUNCATED, 0x1800, "truncated hive" },
		{ 0, edit_magic, ETL_E_BAD_MAGIC, 0, "not a registry hive" },
		{ 0, edit_checksum, ETL_E_BAD_VALUE, 0x1FC, "checksum" },
		{ 0, edit_version, ETL_E_UNSUPPORTED, 0x14, "version 2" },
		{ 0, edit_bins, ETL_E_BAD_SIZE, 0x28, "length of the bins" },
		{ 0, edit_root, ETL_E_BAD_VALUE, 0x24, "root key cell" },
		{ 0, edit_hbin, ETL_E_BAD_MAGIC, 0x1000, "no bin" },
		{ 0, edit_hbin_size, ETL_E_BAD_SIZE, 0x1008, "has size" },
		{ 0, edit_subkeys, ETL_E_BAD_VALUE, -3, "cannot read its subkeys" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		size_t keep = cases[i].keep ? cases[i].keep : n;
		char *path = damaged(hive, n, keep, cases[i].edit);
		expect_fail(path, cases[i].code, cases[i].offset == -3 ? (int64_t)broken_nk : cases[i].offset,
		            cases[i].words);
		unlink(path);
		free(path);
	}
	free(hive);
	hives_free(&h);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("sem_hive");
	TCase *tc = tcase_create("hive");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_default_hive_equals_reg);
	tcase_add_test(tc, test_rules_from_hives);
	tcase_add_test(tc, test_policy_needs_software_hive);
	tcase_add_test(tc, test_select_current);
	tcase_add_test(tc, test_no_wdi_key);
	tcase_add_test(tc, test_not_a_system_hive);
	tcase_add_test(tc, test_nesting_cap);
	tcase_add_test(tc, test_damaged_hives);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
