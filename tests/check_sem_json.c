/*
 * check_sem_json.c - the JSON contract of the effective SEM configuration
 * (doc/sem.md §6; etlreplay --check-config --json prints it) read back
 * with tests/json_mini.c: member names, order and types, every value
 * against the accessors for every fixture, escaping, write failures; and
 * etl_sem_config_equal().
 */
#include <check.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "etl_sem.h"
#include "json_mini.h"
#include "sem_expect.h"
#include "testutil.h"

#define N(a) (sizeof(a) / sizeof *(a))

static struct jm_val *parse_json(const etl_sem_config *cfg)
{
	char *text = sx_json(cfg);
	char err[256];
	struct jm_val *v = jm_parse(text, strlen(text), err, sizeof err);
	ck_assert_msg(v != NULL, "not JSON: %s\n%s", err, text);
	size_t n = strlen(text);
	ck_assert_msg(n && text[n - 1] == '\n' && text[0] == '{', "one object and a newline");
	free(text);
	return v;
}

/* obj has exactly these members, in this order. */
static void members(const struct jm_val *obj, const char *const *names, size_t n, const char *what)
{
	ck_assert_msg(obj && obj->type == JM_OBJ, "%s is not an object", what);
	ck_assert_msg(obj->len == n, "%s has %zu members, expected %zu", what, obj->len, n);
	for (size_t i = 0; i < n; i++)
		ck_assert_msg(strcmp(obj->keys[i], names[i]) == 0, "%s: member %zu is %s, expected %s", what, i,
		              obj->keys[i], names[i]);
}

static const struct jm_val *array(const struct jm_val *obj, const char *key, size_t n)
{
	const struct jm_val *a = jm_get(obj, key);
	ck_assert_msg(a && a->type == JM_ARR, "%s is not an array", key);
	ck_assert_msg(a->len == n, "%s has %zu items, expected %zu", key, a->len, n);
	return a;
}

static void guid_is(const struct jm_val *obj, const char *key, const struct etl_guid *g)
{
	const char *s = jm_str(obj, key);
	ck_assert_msg(s != NULL, "%s is not a string", key);
	char want[40], t[ETL_GUID_STRLEN];
	etl_guid_format(g, t);
	want[0] = '{';
	for (int i = 0; i < ETL_GUID_STRLEN - 1; i++)
		want[i + 1] = (t[i] >= 'a' && t[i] <= 'f') ? (char)(t[i] - 32) : t[i];
	want[37] = '}';
	want[38] = 0;
	ck_assert_msg(strcmp(s, want) == 0, "%s: %s, expected %s", key, s, want);
}

static void bool_is(const struct jm_val *obj, const char *key, int b)
{
	const struct jm_val *v = jm_get(obj, key);
	ck_assert_msg(v && v->type == JM_BOOL && v->b == !!b, "%s is not %s", key, b ? "true" : "false");
}

static void int_is(const struct jm_val *obj, const char *key, long long want)
{
	const struct jm_val *v = jm_get(obj, key);
	ck_assert_msg(v && v->type == JM_NUM && v->is_int, "%s is not an integer", key);
	ck_assert_msg(v->i == want, "%s: %lld, expected %lld", key, v->i, want);
}

static void params_are(const struct jm_val *obj, const struct etl_sem_params *p)
{
	int_is(obj, "level", p->level);
	char kw[24];
	snprintf(kw, sizeof kw, "0x%llX", (unsigned long long)p->keyword);
	const char *s = jm_str(obj, "keyword");
	ck_assert_msg(s && strcmp(s, kw) == 0, "keyword %s, expected %s", s ? s : "(none)", kw);
	int_is(obj, "enable_property", p->enable_property);
}

/* Every value of the JSON against the accessors. */
static void json_matches(const etl_sem_config *cfg, const char *what)
{
	static const char *const top[] = { "enabled", "disabled_reason", "timeout_minutes", "housekeeping_seconds",
	                                   "start_events", "diaglog_providers", "disabled_scenarios", "diagnostics" };
	static const char *const start[] = { "provider", "id", "scenarios", "level", "keyword", "enable_property",
	                                     "timeout_enabled", "end_events", "context_providers" };
	static const char *const end[] = { "provider", "id", "level", "keyword", "enable_property" };
	static const char *const ctx[] = { "provider", "level", "keyword", "enable_property", "capture_state" };
	static const char *const prov[] = { "provider", "level", "keyword", "enable_property" };
	static const char *const dis[] = { "scenario", "by" };
	static const char *const diag[] = { "key", "rule", "message" };
	struct jm_val *j = parse_json(cfg);
	members(j, top, N(top), what);
	bool_is(j, "enabled", etl_sem_config_enabled(cfg));
	const struct jm_val *r = jm_get(j, "disabled_reason");
	if (etl_sem_config_enabled(cfg))
		ck_assert(r->type == JM_NULL);
	else
		ck_assert_str_eq(r->str, etl_sem_config_disabled_message(cfg));
	int_is(j, "timeout_minutes", etl_sem_config_timeout_minutes(cfg));
	int_is(j, "housekeeping_seconds", (long long)etl_sem_config_housekeeping_seconds(cfg));
	size_t n;
	const struct etl_sem_start_event *se = etl_sem_config_start_events(cfg, &n);
	const struct jm_val *a = array(j, "start_events", n);
	for (size_t i = 0; i < n; i++) {
		const struct jm_val *o = &a->items[i];
		members(o, start, N(start), "a start event");
		guid_is(o, "provider", &se[i].provider);
		int_is(o, "id", se[i].id);
		const struct jm_val *sc = array(o, "scenarios", se[i].n_scenarios);
		for (size_t k = 0; k < sc->len; k++) {
			ck_assert(sc->items[k].type == JM_STR);
			struct etl_guid g = sx_guid(sc->items[k].str);
			ck_assert(etl_guid_equal(&g, &se[i].scenarios[k]));
		}
		params_are(o, &se[i].params);
		bool_is(o, "timeout_enabled", se[i].timeout_enabled);
		const struct jm_val *ee = array(o, "end_events", se[i].n_end_events);
		for (size_t k = 0; k < ee->len; k++) {
			members(&ee->items[k], end, N(end), "an end event");
			guid_is(&ee->items[k], "provider", &se[i].end_events[k].provider);
			int_is(&ee->items[k], "id", se[i].end_events[k].id);
			params_are(&ee->items[k], &se[i].end_events[k].params);
		}
		const struct jm_val *cp = array(o, "context_providers", se[i].n_context_providers);
		for (size_t k = 0; k < cp->len; k++) {
			members(&cp->items[k], ctx, N(ctx), "a context provider");
			guid_is(&cp->items[k], "provider", &se[i].context_providers[k].provider);
			params_are(&cp->items[k], &se[i].context_providers[k].params);
			bool_is(&cp->items[k], "capture_state", se[i].context_providers[k].capture_state);
		}
	}
	const struct etl_sem_provider *dl = etl_sem_config_diaglog_providers(cfg, &n);
	a = array(j, "diaglog_providers", n);
	for (size_t i = 0; i < n; i++) {
		members(&a->items[i], prov, N(prov), "a DiagLog provider");
		guid_is(&a->items[i], "provider", &dl[i].provider);
		params_are(&a->items[i], &dl[i].params);
	}
	const struct etl_sem_disabled_scenario *ds = etl_sem_config_disabled_scenarios(cfg, &n);
	a = array(j, "disabled_scenarios", n);
	for (size_t i = 0; i < n; i++) {
		members(&a->items[i], dis, N(dis), "a disabled scenario");
		guid_is(&a->items[i], "scenario", &ds[i].scenario);
		ck_assert_str_eq(jm_str(&a->items[i], "by"), ds[i].by == ETL_SEM_BY_POLICY ? "policy" : "config");
	}
	const struct etl_sem_diag *d = etl_sem_config_diagnostics(cfg, &n);
	a = array(j, "diagnostics", n);
	for (size_t i = 0; i < n; i++) {
		members(&a->items[i], diag, N(diag), "a diagnostic");
		ck_assert_str_eq(jm_str(&a->items[i], "key"), d[i].key);
		ck_assert_str_eq(jm_str(&a->items[i], "rule"), d[i].rule);
		ck_assert_str_eq(jm_str(&a->items[i], "message"), d[i].message);
	}
	jm_free(j);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

START_TEST(test_json_every_fixture)
{
	DIR *dir = opendir("testdata/wdi");
	ck_assert(dir != NULL);
	char *names[128];
	size_t n = 0;
	struct dirent *e;
	while ((e = readdir(dir)) != NULL && n < N(names))
		if (strstr(e->d_name, ".reg"))
			names[n++] = strdup(e->d_name);
	closedir(dir);
	qsort(names, n, sizeof *names, cmp_str);
	ck_assert_uint_ge(n, 30);
	for (size_t i = 0; i < n; i++) {
		etl_sem_config *cfg = sx_load(names[i]);
		json_matches(cfg, names[i]);
		etl_sem_config_free(cfg);
		free(names[i]);
	}
}
END_TEST

START_TEST(test_json_default_values)
{
	/* A few values spelt out, as a reader of the contract sees them. */
	etl_sem_config *cfg = sx_load("windows-default.reg");
	struct jm_val *j = parse_json(cfg);
	bool_is(j, "enabled", 1);
	int_is(j, "timeout_minutes", 10);
	int_is(j, "housekeeping_seconds", 60);
	const struct jm_val *se = array(j, "start_events", 8);
	const struct jm_val *kp = &se->items[1];
	ck_assert_str_eq(jm_str(kp, "provider"), "{331C3B3A-2005-44C2-AC5E-77220C37D6B4}");
	int_is(kp, "id", 1);
	const struct jm_val *sc = array(kp, "scenarios", 2);
	ck_assert_str_eq(sc->items[0].str, "{533A67EB-9FB5-473D-B884-958CF4B9C4A3}");
	ck_assert_str_eq(sc->items[1].str, "{FFC42108-4920-4ACF-A4FC-8ABDCC68ADA4}");
	const struct jm_val *cp = array(kp, "context_providers", 3);
	ck_assert_str_eq(jm_str(&cp->items[1], "provider"), "{331C3B3A-2005-44C2-AC5E-77220C37D6B4}");
	int_is(&cp->items[1], "level", 4);
	ck_assert_str_eq(jm_str(&cp->items[1], "keyword"), "0xC");
	ck_assert_str_eq(jm_str(&se->items[2], "keyword"), "0xFFFFFFFFFFFFFFFF");
	const struct jm_val *dl = array(j, "diaglog_providers", 6);
	ck_assert_str_eq(jm_str(&dl->items[3], "keyword"), "0x48000");
	array(j, "disabled_scenarios", 0);
	array(j, "diagnostics", 0);
	jm_free(j);
	etl_sem_config_free(cfg);

	cfg = sx_load("sem-disabled.reg");
	j = parse_json(cfg);
	bool_is(j, "enabled", 0);
	ck_assert_str_eq(jm_str(j, "disabled_reason"), "SEMEnabled is 0 (" SX_C "\\Config)");
	array(j, "start_events", 0);
	jm_free(j);
	etl_sem_config_free(cfg);

	cfg = sx_load("scenario-config-off.reg");
	j = parse_json(cfg);
	const struct jm_val *ds = array(j, "disabled_scenarios", 1);
	ck_assert_str_eq(jm_str(&ds->items[0], "scenario"), SX_S1);
	ck_assert_str_eq(jm_str(&ds->items[0], "by"), "config");
	jm_free(j);
	etl_sem_config_free(cfg);
}
END_TEST

START_TEST(test_json_escaping)
{
	/* A key name with a quote, a backslash-free control character and a
	 * Latin-1 byte: valid JSON, the key read back as the library gave it. */
	static const char text[] = "REGEDIT4\n\n[" SX_C "\\Scenarios\\bad\"name\x01\xE9]\n";
	struct etl_sem_error err;
	etl_sem_config *cfg = etl_sem_config_from_reg_memory(text, sizeof text - 1, "esc", &err);
	ck_assert_msg(cfg != NULL, "%s", err.message);
	size_t n;
	const struct etl_sem_diag *d = etl_sem_config_diagnostics(cfg, &n);
	ck_assert_uint_eq(n, 1);
	ck_assert_str_eq(d[0].key, SX_C "\\Scenarios\\bad\"name\x01\xC3\xA9");
	json_matches(cfg, "escaping");
	etl_sem_config_free(cfg);
}
END_TEST

static int failing_write(void *ctx, const void *data, size_t n)
{
	(void)data;
	size_t *left = ctx;
	if (*left < n)
		return -1;
	*left -= n;
	return 0;
}

START_TEST(test_json_sinks)
{
	etl_sem_config *cfg = sx_load("windows-default.reg");
	for (size_t budget = 0; budget < 4000; budget += 97) {
		size_t left = budget;
		ck_assert_int_eq(etl_sem_config_write_json(cfg, failing_write, &left), -1);
	}
	ck_assert_int_eq(etl_sem_config_write_json(NULL, failing_write, NULL), -1);
	ck_assert_int_eq(etl_sem_config_write_json(cfg, NULL, NULL), -1);
	ck_assert_int_eq(etl_sem_config_print_json(cfg, NULL), -1);
	FILE *f = tmpfile();
	ck_assert(f != NULL);
	ck_assert_int_eq(etl_sem_config_print_json(cfg, f), 0);
	long size = ftell(f);
	char *want = sx_json(cfg);
	ck_assert_int_eq(size, (long)strlen(want));
	char *got = malloc((size_t)size + 1);
	rewind(f);
	ck_assert_uint_eq(fread(got, 1, (size_t)size, f), (size_t)size);
	got[size] = 0;
	ck_assert_str_eq(got, want);
	free(got);
	free(want);
	fclose(f);
	etl_sem_config_free(cfg);
}
END_TEST

/* ---- equality ------------------------------------------------------------------------------- */

static int same(const char *a, const char *b)
{
	etl_sem_config *x = sx_load(a), *y = sx_load(b);
	int eq = etl_sem_config_equal(x, y);
	ck_assert_int_eq(etl_sem_config_equal(y, x), eq);
	etl_sem_config_free(x);
	etl_sem_config_free(y);
	return eq;
}

START_TEST(test_equality)
{
	ck_assert(etl_sem_config_equal(NULL, NULL));
	etl_sem_config *cfg = sx_load("merge.reg");
	ck_assert(!etl_sem_config_equal(cfg, NULL));
	ck_assert(!etl_sem_config_equal(NULL, cfg));
	ck_assert(etl_sem_config_equal(cfg, cfg));
	etl_sem_config_free(cfg);
	ck_assert(same("windows-default.reg", "windows-default.reg"));
	ck_assert(!same("windows-default.reg", "merge.reg"));
	ck_assert(!same("timeout-zero.reg", "timeout-five.reg"));        /* the timeout only */
	ck_assert(!same("sem-disabled.reg", "policy-off.reg"));          /* the reason only */
	ck_assert(!same("params-defaults.reg", "params-zero.reg"));      /* one enable property */
	ck_assert(!same("scenario-no-timeout.reg", "sem-enabled-type.reg")); /* timeout_enabled only */
	ck_assert(!same("capture-state.reg", "params-defaults.reg"));
	/* Diagnostics are not the configuration: these differ only in them. */
	ck_assert(same("sem-enabled-type.reg", "policy-name-not-guid.reg"));
	ck_assert(same("policy-all-on.reg", "scenario-name-not-guid.reg"));
}
END_TEST

static Suite *sem_json_suite(void)
{
	Suite *s = suite_create("sem_json");
	TCase *tc = tcase_create("json");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_json_every_fixture);
	tcase_add_test(tc, test_json_default_values);
	tcase_add_test(tc, test_json_escaping);
	tcase_add_test(tc, test_json_sinks);
	tcase_add_test(tc, test_equality);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(sem_json_suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
