/*
 * lib/sem/sem_api.c - the public face of the SEM configuration
 * (include/etl_sem.h): the loaders, which run a loader into a registry
 * tree and the rules over it, the accessors, equality and freeing.
 */
#define ETL_BUILDING_LIB 1
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "etl_errors.h"
#include "etl_sem.h"
#include "lib/sem/sem_internal.h"

static void err_init(struct etl_sem_error *err)
{
	if (!err)
		return;
	memset(err, 0, sizeof *err);
	err->offset = -1;
}

/* Runs the rules over t (freed here) with the diagnostics the loader left. */
static etl_sem_config *build(struct etl__regtree *t, struct etl__sem_diags *d, struct etl_sem_error *err)
{
	etl_sem_config *cfg = etl__sem_config_build(t, d, err);
	etl__regtree_free(t);
	etl__sem_diags_free(d);
	return cfg;
}

etl_sem_config *etl_sem_config_from_reg_memory(const void *data, size_t size, const char *name,
                                               struct etl_sem_error *err)
{
	err_init(err);
	if (!name)
		name = "(memory)";
	struct etl__sem_diags d;
	memset(&d, 0, sizeof d);
	struct etl__regtree *t = etl__regtree_new();
	if (!t || (!data && size)) {
		etl__regtree_free(t);
		etl__sem_err(err, t ? ETL_E_MISUSE : ETL_E_NOMEM, 0, 0, -1, "%s: %s", name,
		             t ? "no data" : "out of memory");
		return NULL;
	}
	if (etl__reg_parse(data ? data : "", size, name, t, &d, err) != 0) {
		etl__regtree_free(t);
		etl__sem_diags_free(&d);
		return NULL;
	}
	return build(t, &d, err);
}

etl_sem_config *etl_sem_config_from_reg_file(const char *path, struct etl_sem_error *err)
{
	err_init(err);
	if (!path) {
		etl__sem_err(err, ETL_E_MISUSE, 0, 0, -1, "no file name");
		return NULL;
	}
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		etl__sem_err(err, ETL_E_IO, 0, 0, -1, "%s: %s", path, strerror(errno));
		return NULL;
	}
	struct stat st;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && (uint64_t)st.st_size > ETL_SEM_REG_MAX_BYTES) {
		close(fd);
		etl__sem_err(err, ETL_E_LIMIT, 0, 0, -1,
		             "%s: %llu bytes: larger than the %u bytes a .reg file may have (export only the WDI keys, "
		             "or read the hives)", path, (unsigned long long)st.st_size, ETL_SEM_REG_MAX_BYTES);
		return NULL;
	}
	/* Read up to one byte past the cap, so a larger input that is not a
	 * regular file (a pipe) is refused without holding it all. */
	size_t cap = 64 * 1024, n = 0;
	uint8_t *buf = malloc(cap);
	int e = 0;
	while (buf) {
		if (n == cap) {
			if (cap > ETL_SEM_REG_MAX_BYTES)
				break;
			size_t nc = cap * 2 > (size_t)ETL_SEM_REG_MAX_BYTES + 1 ? (size_t)ETL_SEM_REG_MAX_BYTES + 1 : cap * 2;
			uint8_t *b = realloc(buf, nc);
			if (!b) {
				free(buf);
				buf = NULL;
				break;
			}
			buf = b;
			cap = nc;
		}
		ssize_t r = read(fd, buf + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			e = errno;
			break;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	if (!buf) {
		etl__sem_err(err, ETL_E_NOMEM, 0, 0, -1, "%s: out of memory", path);
		return NULL;
	}
	if (e) {
		free(buf);
		etl__sem_err(err, ETL_E_IO, 0, 0, -1, "%s: %s", path, strerror(e));
		return NULL;
	}
	etl_sem_config *cfg = etl_sem_config_from_reg_memory(buf, n, path, err);
	free(buf);
	return cfg;
}

etl_sem_config *etl_sem_config_from_hives(const char *system_path, const char *software_path,
                                          struct etl_sem_error *err)
{
	err_init(err);
	if (!system_path) {
		etl__sem_err(err, ETL_E_MISUSE, 0, 0, -1, "no SYSTEM hive given");
		return NULL;
	}
	struct etl__sem_diags d;
	memset(&d, 0, sizeof d);
	struct etl__regtree *t = etl__regtree_new();
	if (!t) {
		etl__sem_err(err, ETL_E_NOMEM, 0, 0, -1, "out of memory");
		return NULL;
	}
	if (etl__hive_load(system_path, 0, t, err) != 0 ||
	    (software_path && etl__hive_load(software_path, 1, t, err) != 0)) {
		etl__regtree_free(t);
		return NULL;
	}
	return build(t, &d, err);
}

void etl_sem_config_free(etl_sem_config *cfg)
{
	etl__sem_config_free(cfg);
}

/* ---- accessors ------------------------------------------------------------ */

int etl_sem_config_enabled(const etl_sem_config *cfg)
{
	return cfg && cfg->off_reason == ETL_SEM_ON;
}

int etl_sem_config_disabled_reason(const etl_sem_config *cfg)
{
	return cfg ? cfg->off_reason : ETL_SEM_ON;
}

const char *etl_sem_config_disabled_message(const etl_sem_config *cfg)
{
	return cfg && cfg->off_reason != ETL_SEM_ON ? cfg->off_message : NULL;
}

uint32_t etl_sem_config_timeout_minutes(const etl_sem_config *cfg)
{
	return cfg ? cfg->timeout_minutes : ETL_SEM_DEFAULT_TIMEOUT_MINUTES;
}

uint64_t etl_sem_config_housekeeping_seconds(const etl_sem_config *cfg)
{
	return cfg ? cfg->housekeeping_seconds : 60;
}

/* Every list accessor: the array and its length (0 and NULL for NULL). */
#define LIST(cfg, arr, count, n) ((*(n) = (cfg) ? (cfg)->count : 0), (*(n) ? (cfg)->arr : NULL))

const struct etl_sem_start_event *etl_sem_config_start_events(const etl_sem_config *cfg, size_t *n)
{
	return LIST(cfg, starts, n_starts, n);
}

const struct etl_sem_provider *etl_sem_config_diaglog_providers(const etl_sem_config *cfg, size_t *n)
{
	return LIST(cfg, diaglog, n_diaglog, n);
}

const struct etl_sem_disabled_scenario *etl_sem_config_disabled_scenarios(const etl_sem_config *cfg, size_t *n)
{
	return LIST(cfg, disabled, n_disabled, n);
}

const struct etl_sem_dropped *etl_sem_config_dropped(const etl_sem_config *cfg, size_t *n)
{
	return LIST(cfg, dropped, n_dropped, n);
}

const struct etl_sem_diag *etl_sem_config_diagnostics(const etl_sem_config *cfg, size_t *n)
{
	return LIST(cfg, diags, n_diags, n);
}

const struct etl_sem_start_event *etl_sem_config_find_start_event(const etl_sem_config *cfg,
                                                                  const struct etl_guid *provider, uint16_t id)
{
	if (!cfg || !provider)
		return NULL;
	size_t lo = 0, hi = cfg->n_starts;       /* sorted by provider, id */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct etl_sem_start_event *s = &cfg->starts[mid];
		int c = etl__sem_guid_cmp(&s->provider, provider);
		if (!c)
			c = (int)s->id - (int)id;
		if (!c)
			return s;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* ---- equality --------------------------------------------------------------- */

static int params_eq(const struct etl_sem_params *a, const struct etl_sem_params *b)
{
	return a->level == b->level && a->keyword == b->keyword && a->enable_property == b->enable_property;
}

static int start_eq(const struct etl_sem_start_event *a, const struct etl_sem_start_event *b)
{
	if (!etl_guid_equal(&a->provider, &b->provider) || a->id != b->id || !params_eq(&a->params, &b->params) ||
	    a->timeout_enabled != b->timeout_enabled || a->n_scenarios != b->n_scenarios ||
	    a->n_end_events != b->n_end_events || a->n_context_providers != b->n_context_providers)
		return 0;
	for (size_t i = 0; i < a->n_scenarios; i++)
		if (!etl_guid_equal(&a->scenarios[i], &b->scenarios[i]))
			return 0;
	for (size_t i = 0; i < a->n_end_events; i++) {
		const struct etl_sem_end_event *x = &a->end_events[i], *y = &b->end_events[i];
		if (!etl_guid_equal(&x->provider, &y->provider) || x->id != y->id || !params_eq(&x->params, &y->params))
			return 0;
	}
	for (size_t i = 0; i < a->n_context_providers; i++) {
		const struct etl_sem_context_provider *x = &a->context_providers[i], *y = &b->context_providers[i];
		if (!etl_guid_equal(&x->provider, &y->provider) || !params_eq(&x->params, &y->params) ||
		    x->capture_state != y->capture_state)
			return 0;
	}
	return 1;
}

int etl_sem_config_equal(const etl_sem_config *a, const etl_sem_config *b)
{
	if (!a || !b)
		return a == b;
	if (a->off_reason != b->off_reason || a->timeout_minutes != b->timeout_minutes ||
	    a->housekeeping_seconds != b->housekeeping_seconds || a->n_starts != b->n_starts ||
	    a->n_diaglog != b->n_diaglog || a->n_disabled != b->n_disabled || a->n_dropped != b->n_dropped)
		return 0;
	for (size_t i = 0; i < a->n_starts; i++)
		if (!start_eq(&a->starts[i], &b->starts[i]))
			return 0;
	for (size_t i = 0; i < a->n_diaglog; i++)
		if (!etl_guid_equal(&a->diaglog[i].provider, &b->diaglog[i].provider) ||
		    !params_eq(&a->diaglog[i].params, &b->diaglog[i].params))
			return 0;
	for (size_t i = 0; i < a->n_disabled; i++)
		if (!etl_guid_equal(&a->disabled[i].scenario, &b->disabled[i].scenario) ||
		    a->disabled[i].by != b->disabled[i].by)
			return 0;
	for (size_t i = 0; i < a->n_dropped; i++) {
		const struct etl_sem_dropped *x = &a->dropped[i], *y = &b->dropped[i];
		if (x->kind != y->kind || x->id != y->id || !etl_guid_equal(&x->provider, &y->provider) ||
		    !etl_guid_equal(&x->scenario, &y->scenario))
			return 0;
	}
	return 1;
}
