/*
 * lib/sem/sem_report.c - the history behind the SEM's report (etl_sem.h,
 * doc/sem.md §13): a record per scenario instance since the engine
 * started - its scenarios, activity id, start event and time, how and
 * when it ended, the context events WdiContextLog received for it per
 * provider - and the public snapshot made of it; plus the names of the
 * scenarios Windows installs, for people reading a report.
 *
 * Records are kept after their instance ended (that is what a report
 * is for): about 100 bytes and 24 per context provider each. The snapshot
 * is one allocation, so a report outlives the engine and is freed at once.
 */
#define ETL_BUILDING_LIB 1
#include <stdlib.h>
#include <string.h>
#include "lib/sem/engine_internal.h"

size_t etl__sem_hist_start(struct etl__sem_history *h, const struct etl_guid *activity,
                           const struct etl_sem_start_event *s, int64_t time)
{
	if (h->n == h->cap) {
		size_t cap = h->cap ? h->cap * 2 : 16;
		struct etl__sem_record *v = realloc(h->v, cap * sizeof *v);
		if (!v) {
			h->unrecorded++;
			return ETL__SEM_NO_RECORD;
		}
		h->v = v;
		h->cap = cap;
	}
	struct etl__sem_record *r = &h->v[h->n];
	memset(r, 0, sizeof *r);
	r->scenarios = malloc((s->n_scenarios ? s->n_scenarios : 1) * sizeof *r->scenarios);
	r->ctx = calloc(s->n_context_providers ? s->n_context_providers : 1, sizeof *r->ctx);
	if (!r->scenarios || !r->ctx) {
		free(r->scenarios);
		free(r->ctx);
		h->unrecorded++;
		return ETL__SEM_NO_RECORD;
	}
	if (s->n_scenarios)
		memcpy(r->scenarios, s->scenarios, s->n_scenarios * sizeof *r->scenarios);
	r->n_scenarios = s->n_scenarios;
	for (size_t i = 0; i < s->n_context_providers; i++)
		r->ctx[i].provider = s->context_providers[i].provider;
	r->n_ctx = s->n_context_providers;
	r->activity = *activity;
	r->start.provider = s->provider;
	r->start.id = s->id;
	r->start.time = time;
	r->status = ETL_SEM_INSTANCE_OPEN;
	return h->n++;
}

void etl__sem_hist_end(struct etl__sem_history *h, size_t rec, int status, const struct etl_guid *provider,
                       uint16_t id, int64_t time)
{
	if (rec == ETL__SEM_NO_RECORD)
		return;
	struct etl__sem_record *r = &h->v[rec];
	r->status = status;
	if (provider)
		r->end.provider = *provider;
	r->end.id = id;
	r->end.time = time;
}

void etl__sem_hist_clear(struct etl__sem_history *h)
{
	for (size_t i = 0; i < h->n; i++) {
		free(h->v[i].scenarios);
		free(h->v[i].ctx);
	}
	free(h->v);
	memset(h, 0, sizeof *h);
}

struct etl_sem_report *etl__sem_hist_report(const struct etl__sem_history *h, uint64_t diaglog, uint64_t context,
                                            uint64_t lost)
{
	/* One block: the report, the instances, then every scenario list and
	 * every context count (both 8-byte aligned by their element sizes). */
	size_t n_scen = 0, n_ctx = 0;
	for (size_t i = 0; i < h->n; i++) {
		n_scen += h->v[i].n_scenarios;
		n_ctx += h->v[i].n_ctx;
	}
	size_t size = sizeof(struct etl_sem_report) + h->n * sizeof(struct etl_sem_instance_report) +
	              n_ctx * sizeof(struct etl_sem_context_count) + n_scen * sizeof(struct etl_guid);
	struct etl_sem_report *rep = calloc(1, size);
	if (!rep)
		return NULL;
	struct etl_sem_instance_report *inst = (struct etl_sem_instance_report *)(rep + 1);
	struct etl_sem_context_count *cc = (struct etl_sem_context_count *)(inst + h->n);
	struct etl_guid *sc = (struct etl_guid *)(cc + n_ctx);
	for (size_t i = 0; i < h->n; i++) {
		const struct etl__sem_record *r = &h->v[i];
		struct etl_sem_instance_report *x = &inst[i];
		memcpy(sc, r->scenarios, r->n_scenarios * sizeof *sc);
		x->scenarios = sc;
		x->n_scenarios = r->n_scenarios;
		sc += r->n_scenarios;
		memcpy(cc, r->ctx, r->n_ctx * sizeof *cc);
		x->context = cc;
		x->n_context = r->n_ctx;
		cc += r->n_ctx;
		x->activity = r->activity;
		x->start = r->start;
		x->end = r->end;
		x->status = r->status;
		x->duration = r->status == ETL_SEM_INSTANCE_OPEN ? -1 : r->end.time - r->start.time;
	}
	rep->instances = inst;
	rep->n_instances = h->n;
	rep->unrecorded = h->unrecorded;
	rep->diaglog_events = diaglog;
	rep->wdicontextlog_events = context;
	rep->lost_events = lost;
	return rep;
}

void etl_sem_report_free(struct etl_sem_report *r)
{
	free(r);
}

/* ---- names ------------------------------------------------------------------ */

/* The scenarios of doc/sem.md §7, by GUID. */
static const struct {
	struct etl_guid guid;
	const char *name;
} NAMES[] = {
	{ { 0x2698178Du, 0xFDADu, 0x40AEu, { 0x9D, 0x3C, 0x13, 0x71, 0x70, 0x3A, 0xDC, 0x5B } }, "shutdown" },
	{ { 0x533A67EBu, 0x9FB5u, 0x473Du, { 0xB8, 0x84, 0x95, 0x8C, 0xF4, 0xB9, 0xC4, 0xA3 } }, "power transition" },
	{ { 0xFFC42108u, 0x4920u, 0x4ACFu, { 0xA4, 0xFC, 0x8A, 0xBD, 0xCC, 0x68, 0xAD, 0xA4 } }, "standby/resume" },
	{ { 0x67144949u, 0x5132u, 0x4859u, { 0x80, 0x36, 0xA7, 0x37, 0xB4, 0x38, 0x25, 0xD8 } }, "boot" },
	{ { 0x86432A0Bu, 0x3C7Du, 0x4DDFu, { 0xA8, 0x9C, 0x17, 0x2F, 0xAA, 0x90, 0x48, 0x5D } }, "user logon" },
	{ { 0x9F41811Au, 0x0429u, 0x42AAu, { 0x81, 0xB7, 0xCF, 0xD4, 0xD9, 0x68, 0x41, 0x1F } }, "secondary logon" },
	{ { 0x924F25BCu, 0x020Au, 0x4CADu, { 0xA5, 0x3E, 0x4A, 0x49, 0xCF, 0xAB, 0xB6, 0xB6 } }, "device eject" },
	{ { 0xAA526ADCu, 0x508Bu, 0x448Au, { 0xB2, 0xD1, 0xC5, 0x95, 0x11, 0xCB, 0x59, 0xD4 } }, "device start" },
};

const char *etl_sem_scenario_name(const struct etl_guid *scenario)
{
	for (size_t i = 0; scenario && i < sizeof NAMES / sizeof NAMES[0]; i++)
		if (etl_guid_equal(&NAMES[i].guid, scenario))
			return NAMES[i].name;
	return NULL;
}
