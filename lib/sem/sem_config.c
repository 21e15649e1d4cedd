/*
 * lib/sem/sem_config.c - the SEM's configuration rules (doc/sem.md
 * §3): from the registry tree to checked start-event definitions,
 * which lib/sem/sem_merge.c merges into the effective configuration.
 *
 * The order is the SEM's: SEMEnabled first (0: nothing else is read),
 * SEMTimeoutValue, the policy key, then the scenarios. Subkeys are read
 * in the order the registry enumerates them - by name, ASCII letters
 * upper-cased - so which definition a limit drops does not depend on the
 * order of a .reg file. Every definition a rule rejects leaves a
 * diagnostic with its key path; nothing is dropped without one.
 */
#define ETL_BUILDING_LIB 1
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "etl_errors.h"
#include "lib/common/cursor.h"
#include "lib/sem/sem_internal.h"

static const struct etl_guid KERNEL_WDI = ETL_SEM_KERNEL_WDI_GUID_INIT;

struct rules {
	const struct etl__regtree *t;
	struct etl__sem_diags *d;
	etl_sem_config *cfg;
	struct etl__sem_merge *m;
	struct etl_guid *policy_off;      /* scenarios the policy disables   */
	size_t n_policy_off;
	int policy_all;                   /* policy: every scenario enabled  */
	struct etl_sem_disabled_scenario *disabled;
	size_t n_disabled, cap_disabled;
	int oom;
};

/* A diagnostic on key k (its path as given). */
static void diag(struct rules *r, const struct etl__regkey *k, const char *rule, const char *fmt, ...)
	ETL_SEM_PRINTF(4, 5);
static void diag(struct rules *r, const struct etl__regkey *k, const char *rule, const char *fmt, ...)
{
	char msg[640];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	char *path = k ? etl__regkey_path(k) : NULL;
	if (k && !path) {
		r->oom = 1;
		return;
	}
	etl__sem_diag_add(r->d, path, rule, "%s", msg);
	free(path);
}

static void turn_off(struct rules *r, int reason, const struct etl__regkey *k, const char *what)
{
	char *path = etl__regkey_path(k);
	size_t n = strlen(what) + (path ? strlen(path) : 0) + 8;
	char *msg = malloc(n);
	if (!path || !msg) {
		free(path);
		free(msg);
		r->oom = 1;
		return;
	}
	snprintf(msg, n, "%s (%s)", what, path);
	free(path);
	free(r->cfg->off_message);
	r->cfg->off_message = msg;
	r->cfg->off_reason = reason;
}

/* ---- values ------------------------------------------------------------------- */

/* A REG_DWORD (len 4) or REG_QWORD (len 8) value, exactly that size.
 * @return : 1 with *v set; 0 when absent, or of another type or size
 * (diagnosed: the default applies). */
static int get_number(struct rules *r, const struct etl__regkey *k, const char *name, size_t len, uint64_t *v)
{
	const struct etl__regval *val = etl__regkey_value(r->t, k, name);
	if (!val)
		return 0;
	uint32_t type = len == 4 ? ETL_REG_DWORD : ETL_REG_QWORD;
	if (val->type != type || val->len != len) {
		diag(r, k, "value_type", "%s is not a %s (type %u, %zu bytes); ignored, its default applies", name,
		     len == 4 ? "REG_DWORD" : "REG_QWORD", (unsigned)val->type, val->len);
		return 0;
	}
	*v = len == 4 ? etl_le32(val->data) : etl_le64(val->data);
	return 1;
}

static int get_dword(struct rules *r, const struct etl__regkey *k, const char *name, uint32_t *v)
{
	uint64_t x;
	if (!get_number(r, k, name, 4, &x))
		return 0;
	*v = (uint32_t)x;
	return 1;
}

/* Level (low 8 bits, 0 = 0xFF), Keyword (0 = all bits), EnableProperty. */
static struct etl_sem_params read_params(struct rules *r, const struct etl__regkey *k)
{
	struct etl_sem_params p = { 0xFF, ~(uint64_t)0, 0 };
	uint32_t v;
	uint64_t q;
	if (get_dword(r, k, "Level", &v))
		p.level = (uint8_t)v ? (uint8_t)v : 0xFF;
	if (get_number(r, k, "Keyword", 8, &q))
		p.keyword = q ? q : ~(uint64_t)0;
	if (get_dword(r, k, "EnableProperty", &v))
		p.enable_property = v;
	return p;
}

/* A present DWORD equal to 0. */
static int is_zero(struct rules *r, const struct etl__regkey *k, const char *name)
{
	uint32_t v;
	return k && get_dword(r, k, name, &v) && v == 0;
}

static const struct etl__regkey *child(const struct rules *r, const struct etl__regkey *k, const char *name)
{
	return k ? etl__regkey_child(r->t, k, name, strlen(name)) : NULL;
}

static const struct etl__regkey *lookup(const struct rules *r, const char *const *names, size_t n)
{
	const struct etl__regkey *k = r->t->root;
	for (size_t i = 0; i < n && k; i++)
		k = child(r, k, names[i]);
	return k;
}

/* Sorted subkeys of k (NULL when none; r->oom on failure). */
static struct etl__regkey **kids(struct rules *r, const struct etl__regkey *k, size_t *n)
{
	*n = 0;
	if (!k)
		return NULL;
	int oom;
	struct etl__regkey **v = etl__regkey_sorted_kids(k, &oom);
	if (oom)
		r->oom = 1;
	else
		*n = k->nkids;
	return v;
}

/* ---- where the keys are ------------------------------------------------------- */

/* The control set the rules read: CurrentControlSet when the input has
 * one (a .reg export), else the one Select\Current names (a hive), else
 * the only ControlSet00N, else the lowest with a diagnostic. */
static const struct etl__regkey *control_set(struct rules *r)
{
	static const char *const system[] = { "HKEY_LOCAL_MACHINE", "SYSTEM" };
	const struct etl__regkey *sys = lookup(r, system, 2);
	if (!sys)
		return NULL;
	const struct etl__regkey *ccs = child(r, sys, "CurrentControlSet");
	if (ccs)
		return ccs;
	const struct etl__regkey *sel = child(r, sys, "Select");
	uint32_t cur;
	if (sel && get_dword(r, sel, "Current", &cur)) {
		char name[24];
		snprintf(name, sizeof name, "ControlSet%03u", (unsigned)cur);
		const struct etl__regkey *cs = cur >= 1 && cur <= 999 ? child(r, sys, name) : NULL;
		if (!cs)
			diag(r, sel, "control_set_missing", "Current is %u but there is no %s", (unsigned)cur, name);
		return cs;
	}
	const struct etl__regkey *best = NULL;
	unsigned best_n = 0;
	size_t count = 0;
	for (size_t i = 0; i < sys->nkids; i++) {
		const char *nm = sys->kids[i]->name;
		unsigned n = etl__reg_control_set_number(nm, strlen(nm));
		if (!n)
			continue;
		count++;
		if (!best || n < best_n) {
			best = sys->kids[i];
			best_n = n;
		}
	}
	if (count > 1)
		diag(r, best, "control_set_ambiguous",
		     "%zu control sets and no CurrentControlSet or Select\\Current to choose: this one (the lowest) is read",
		     count);
	return best;
}

/* ---- policy --------------------------------------------------------------------- */

/* @return : 1 when the policy turns the SEM off. */
static int read_policy(struct rules *r)
{
	static const char *const names[] = { "HKEY_LOCAL_MACHINE", "SOFTWARE", "Policies", "Microsoft", "Windows", "WDI" };
	const struct etl__regkey *pol = lookup(r, names, 6);
	if (!pol)
		return 0;
	uint32_t v;
	if (get_dword(r, pol, "ScenarioExecutionEnabled", &v)) {
		if (v == 0) {
			turn_off(r, ETL_SEM_OFF_POLICY, pol, "the policy's ScenarioExecutionEnabled is 0");
			return 1;
		}
		r->policy_all = 1;        /* every scenario on, subkeys not read */
		return 0;
	}
	size_t n;
	struct etl__regkey **sub = kids(r, pol, &n);
	int off = 0;
	for (size_t i = 0; i < n && !off; i++) {
		struct etl_guid g;
		if (etl__sem_utf16_units(sub[i]->name) > ETL_SEM_MAX_NAME) {
			diag(r, sub[i], "policy_name_too_long",
			     "policy subkey name longer than %u characters: the SEM is disabled", ETL_SEM_MAX_NAME);
			turn_off(r, ETL_SEM_OFF_POLICY_NAME, sub[i], "a policy subkey name is longer than 64 characters");
			off = 1;
		} else if (!etl__sem_parse_braced_guid(sub[i]->name, &g)) {
			diag(r, sub[i], "policy_name_not_guid", "policy subkey name is not a braced GUID; ignored");
		} else if (is_zero(r, sub[i], "ScenarioExecutionEnabled")) {
			struct etl_guid *a = realloc(r->policy_off, (r->n_policy_off + 1) * sizeof *a);
			if (!a) {
				r->oom = 1;
				break;
			}
			r->policy_off = a;
			a[r->n_policy_off++] = g;
			if (r->n_policy_off == ETL_SEM_MAX_DISABLED_SCENARIOS + 1) {
				diag(r, pol, "too_many_disabled_scenarios",
				     "the policy disables more than %u scenarios: the SEM is disabled",
				     ETL_SEM_MAX_DISABLED_SCENARIOS);
				turn_off(r, ETL_SEM_OFF_TOO_MANY_DISABLED, pol, "the policy disables more than 64 scenarios");
				off = 1;
			}
		}
	}
	free(sub);
	return off;
}

static int policy_disabled(const struct rules *r, const struct etl_guid *g)
{
	if (r->policy_all)
		return 0;
	for (size_t i = 0; i < r->n_policy_off; i++)
		if (etl_guid_equal(&r->policy_off[i], g))
			return 1;
	return 0;
}

static void add_disabled(struct rules *r, const struct etl_guid *g, int by)
{
	if (r->n_disabled == r->cap_disabled) {
		size_t cap = r->cap_disabled ? r->cap_disabled * 2 : 8;
		struct etl_sem_disabled_scenario *v = realloc(r->disabled, cap * sizeof *v);
		if (!v) {
			r->oom = 1;
			return;
		}
		r->disabled = v;
		r->cap_disabled = cap;
	}
	r->disabled[r->n_disabled].scenario = *g;
	r->disabled[r->n_disabled].by = by;
	r->n_disabled++;
}

/* ---- start events --------------------------------------------------------------- */

static const char *const START_RULES[] = {
	[ETL_SEM_NAME_TOO_LONG] = "start_name_too_long",
	[ETL_SEM_NAME_NO_SEMICOLON] = "start_name_no_semicolon",
	[ETL_SEM_NAME_BAD_GUID] = "start_name_bad_guid",
	[ETL_SEM_NAME_NO_ID] = "start_name_no_id",
	[ETL_SEM_NAME_ID_RANGE] = "start_id_out_of_range",
};
static const char *const END_RULES[] = {
	[ETL_SEM_NAME_TOO_LONG] = "end_name_too_long",
	[ETL_SEM_NAME_NO_SEMICOLON] = "end_name_no_semicolon",
	[ETL_SEM_NAME_BAD_GUID] = "end_name_bad_guid",
	[ETL_SEM_NAME_NO_ID] = "end_name_no_id",
	[ETL_SEM_NAME_ID_RANGE] = "end_id_out_of_range",
};

static const char *name_problem(int st)
{
	switch (st) {
	case ETL_SEM_NAME_TOO_LONG: return "name longer than 64 characters";
	case ETL_SEM_NAME_NO_SEMICOLON: return "name without ';' (expected {provider-guid};event-id)";
	case ETL_SEM_NAME_BAD_GUID: return "the text before ';' is not a braced GUID";
	case ETL_SEM_NAME_NO_ID: return "nothing after ';'";
	default: return "event id above 65535";
	}
}

static void def_free(struct etl__sem_def *def)
{
	for (size_t i = 0; i < def->n_ends; i++)
		free(def->end_keys[i]);
	for (size_t i = 0; i < def->n_ctx; i++)
		free(def->ctx_keys[i]);
	free(def->ends);
	free(def->end_keys);
	free(def->ctx);
	free(def->ctx_keys);
	free((char *)def->key);
}

/* The end events under k\EndEvents into def; bad names diagnosed. */
static void read_end_events(struct rules *r, const struct etl__regkey *k, struct etl__sem_def *def)
{
	size_t n;
	struct etl__regkey **sub = kids(r, child(r, k, "EndEvents"), &n);
	if (n) {
		def->ends = calloc(n, sizeof *def->ends);
		def->end_keys = calloc(n, sizeof *def->end_keys);
		if (!def->ends || !def->end_keys)
			r->oom = 1;
	}
	for (size_t i = 0; i < n && !r->oom; i++) {
		struct etl_sem_end_event e;
		int st = etl__sem_parse_event_name(sub[i]->name, &e.provider, &e.id);
		if (st == ETL_SEM_NAME_PLACEHOLDER)
			st = ETL_SEM_NAME_NO_SEMICOLON;          /* "*" is a start-event name only */
		if (st != ETL_SEM_NAME_OK) {
			diag(r, sub[i], END_RULES[st], "end event rejected: %s", name_problem(st));
			continue;
		}
		e.params = read_params(r, sub[i]);
		char *path = etl__regkey_path(sub[i]);
		if (!path) {
			r->oom = 1;
			break;
		}
		def->ends[def->n_ends] = e;
		def->end_keys[def->n_ends++] = path;
	}
	free(sub);
}

/* The context providers under k\ContextProviders into def. @return : 1 if
 * one is bad (which takes the start event down), else 0. */
static int read_context_providers(struct rules *r, const struct etl__regkey *k, struct etl__sem_def *def)
{
	size_t n;
	struct etl__regkey **sub = kids(r, child(r, k, "ContextProviders"), &n);
	int bad = 0;
	if (n) {
		def->ctx = calloc(n, sizeof *def->ctx);
		def->ctx_keys = calloc(n, sizeof *def->ctx_keys);
		if (!def->ctx || !def->ctx_keys)
			r->oom = 1;
	}
	for (size_t i = 0; i < n && !r->oom; i++) {
		struct etl_sem_context_provider c;
		const char *why = NULL, *rule = NULL;
		if (etl__sem_utf16_units(sub[i]->name) > ETL_SEM_MAX_NAME) {
			rule = "context_name_too_long";
			why = "name longer than 64 characters";
		} else if (!etl__sem_parse_braced_guid(sub[i]->name, &c.provider)) {
			rule = "context_name_not_guid";
			why = "name is not a braced GUID";
		} else if (etl_guid_equal(&c.provider, &KERNEL_WDI)) {
			rule = "context_provider_wdi";
			why = "the SEM's own provider Microsoft-Windows-Kernel-WDI cannot be a context provider";
		}
		if (why) {
			diag(r, sub[i], rule, "context provider rejected (%s); its start event is rejected with it", why);
			bad = 1;
			continue;
		}
		c.params = read_params(r, sub[i]);
		uint32_t cs = 0;
		if (get_dword(r, sub[i], "CaptureState", &cs) && cs > 2) {
			diag(r, sub[i], "capture_state_value", "CaptureState %u is not 0, 1 or 2; read as 0 (no capture)",
			     (unsigned)cs);
			cs = 0;
		}
		c.capture_state = cs != 0;
		char *path = etl__regkey_path(sub[i]);
		if (!path) {
			r->oom = 1;
			break;
		}
		def->ctx[def->n_ctx] = c;
		def->ctx_keys[def->n_ctx++] = path;
	}
	free(sub);
	return bad;
}

static void start_event(struct rules *r, const struct etl_guid *scen, int timeout, const struct etl__regkey *k)
{
	struct etl__sem_def def;
	memset(&def, 0, sizeof def);
	int st = etl__sem_parse_event_name(k->name, &def.start.provider, &def.start.id);
	if (st != ETL_SEM_NAME_OK && st != ETL_SEM_NAME_PLACEHOLDER) {
		diag(r, k, START_RULES[st], "start event rejected with its end events and context providers: %s",
		     name_problem(st));
		return;
	}
	def.scenario = *scen;
	def.timeout_enabled = timeout;
	def.key = etl__regkey_path(k);
	if (!def.key) {
		r->oom = 1;
		return;
	}
	read_end_events(r, k, &def);
	if (st == ETL_SEM_NAME_PLACEHOLDER) {
		diag(r, k, "start_placeholder",
		     "placeholder start event \"*\": its end events were read, the start event itself is never used");
	} else {
		def.start.params = read_params(r, k);
		int bad = read_context_providers(r, k, &def);
		if (!def.n_ends)
			diag(r, k, "start_without_end_events", "start event rejected: it has no (valid) end events, so it "
			     "could never start a scenario");
		if (!bad && def.n_ends && !r->oom && etl__sem_merge_add(r->m, &def, r->d) != 0)
			r->oom = 1;
	}
	def_free(&def);
}

/* ---- scenarios ------------------------------------------------------------------ */

static void scenario(struct rules *r, const struct etl__regkey *s)
{
	struct etl_guid g;
	if (!etl__sem_parse_braced_guid(s->name, &g)) {
		diag(r, s, "scenario_name_not_guid", "scenario subkey name is not a braced GUID; ignored");
		return;
	}
	if (policy_disabled(r, &g)) {
		add_disabled(r, &g, ETL_SEM_BY_POLICY);
		return;
	}
	const struct etl__regkey *cfgkey = child(r, s, "Config");
	if (is_zero(r, cfgkey, "ScenarioExecutionEnabled")) {
		add_disabled(r, &g, ETL_SEM_BY_CONFIG);
		return;
	}
	int timeout = !is_zero(r, cfgkey, "ScenarioTimeoutEnabled");
	size_t n;
	struct etl__regkey **sub = kids(r, child(r, s, "Instrumentation"), &n);
	for (size_t i = 0; i < n && !r->oom; i++)
		start_event(r, &g, timeout, sub[i]);
	free(sub);
}

/* @return : 1 when a scenario name turns the SEM off (checked before any
 * scenario is read, as the policy subkeys are). */
static int scenario_names(struct rules *r, const struct etl__regkey *scen)
{
	for (size_t i = 0; scen && i < scen->nkids; i++) {
		const struct etl__regkey *s = scen->kids[i];
		if (etl__sem_utf16_units(s->name) > ETL_SEM_MAX_NAME) {
			diag(r, s, "scenario_name_too_long", "scenario subkey name longer than %u characters: the SEM is "
			     "disabled", ETL_SEM_MAX_NAME);
			turn_off(r, ETL_SEM_OFF_SCENARIO_NAME, s, "a scenario subkey name is longer than 64 characters");
			return 1;
		}
	}
	return 0;
}

static int cmp_disabled(const void *a, const void *b)
{
	const struct etl_sem_disabled_scenario *x = a, *y = b;
	return etl__sem_guid_cmp(&x->scenario, &y->scenario);
}

/* Reads everything; @return : 1 when the SEM is off. */
static int apply(struct rules *r)
{
	const struct etl__regkey *cs = control_set(r);
	const struct etl__regkey *wdi = child(r, child(r, cs, "Control"), "WDI");
	if (!wdi) {
		char *at = cs ? etl__regkey_path(cs) : NULL;
		char key[640];
		snprintf(key, sizeof key, "%s\\Control\\WDI", at ? at : "HKEY_LOCAL_MACHINE\\SYSTEM\\CurrentControlSet");
		free(at);
		etl__sem_diag_add(r->d, key, "control_key_missing", "no such key: no scenario is defined");
	}
	const struct etl__regkey *conf = child(r, wdi, "Config");
	if (is_zero(r, conf, "SEMEnabled")) {
		turn_off(r, ETL_SEM_OFF_SEM_ENABLED, conf, "SEMEnabled is 0");
		return 1;
	}
	uint32_t v;
	if (conf && get_dword(r, conf, "SEMTimeoutValue", &v))
		r->cfg->timeout_minutes = v;
	if (read_policy(r))
		return 1;
	const struct etl__regkey *scen = child(r, wdi, "Scenarios");
	if (scenario_names(r, scen))
		return 1;
	size_t n;
	struct etl__regkey **sub = kids(r, scen, &n);
	for (size_t i = 0; i < n && !r->oom; i++)
		scenario(r, sub[i]);
	free(sub);
	return 0;
}

/* The object etl__sem_config_build() makes is freed here too: who builds
 * it knows what it holds. */
void etl__sem_config_free(etl_sem_config *cfg)
{
	if (!cfg)
		return;
	for (size_t i = 0; i < cfg->n_starts; i++) {
		free((void *)cfg->starts[i].scenarios);
		free((void *)cfg->starts[i].end_events);
		free((void *)cfg->starts[i].context_providers);
	}
	free(cfg->starts);
	free(cfg->diaglog);
	free(cfg->disabled);
	for (size_t i = 0; i < cfg->n_dropped; i++)
		free((char *)cfg->dropped[i].key);
	free(cfg->dropped);
	for (size_t i = 0; i < cfg->n_diags; i++) {
		free((char *)cfg->diags[i].key);
		free((char *)cfg->diags[i].message);
	}
	free(cfg->diags);
	free(cfg->off_message);
	free(cfg);
}

etl_sem_config *etl__sem_config_build(const struct etl__regtree *t, struct etl__sem_diags *d,
                                      struct etl_sem_error *err)
{
	struct rules r;
	memset(&r, 0, sizeof r);
	r.t = t;
	r.d = d;
	r.cfg = calloc(1, sizeof *r.cfg);
	r.m = etl__sem_merge_new();
	if (!r.cfg || !r.m) {
		r.oom = 1;
	} else {
		r.cfg->timeout_minutes = ETL_SEM_DEFAULT_TIMEOUT_MINUTES;
		int off = apply(&r);
		if (!r.oom && !off) {
			if (r.n_disabled > 1)
				qsort(r.disabled, r.n_disabled, sizeof *r.disabled, cmp_disabled);
			r.cfg->disabled = r.disabled;
			r.cfg->n_disabled = r.n_disabled;
			r.disabled = NULL;
			if (etl__sem_merge_finish(r.m, r.cfg) != 0)
				r.oom = 1;
			r.m = NULL;
		}
	}
	etl__sem_merge_free(r.m);
	free(r.disabled);
	free(r.policy_off);
	if (r.cfg) {
		uint32_t tm = r.cfg->timeout_minutes;
		r.cfg->housekeeping_seconds = tm ? (uint64_t)tm * 6u : 60u;
	}
	etl__sem_diags_finish(d);
	if (r.oom || d->oom) {
		etl__sem_config_free(r.cfg);
		etl__sem_diags_free(d);
		etl__sem_err(err, ETL_E_NOMEM, 0, 0, -1, "out of memory while applying the SEM's rules");
		return NULL;
	}
	r.cfg->diags = d->v;
	r.cfg->n_diags = d->n;
	memset(d, 0, sizeof *d);
	return r.cfg;
}
