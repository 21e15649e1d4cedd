/*
 * sem_files.c - reading back the SEM engine's files for the tests; see
 * sem_files.h.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "etl.h"
#include "sem_files.h"

const struct etl_guid SF_KERNEL_WDI =
	{ 0x2FF3E6B7u, 0xCB90u, 0x4700u, { 0x96, 0x21, 0x44, 0x3F, 0x38, 0x97, 0x34, 0xED } };

#define SF_MANIFEST "testdata/manifests/kernel-wdi.man"

/* The child of props[parent] (or a top-level property when parent is
 * ETL_PROP_NO_PARENT) named name. */
static const struct etl_prop *child(const struct etl_decoded *d, uint32_t parent, const char *name)
{
	uint32_t first = 0, n = d->n_props;
	if (parent != ETL_PROP_NO_PARENT) {
		first = d->props[parent].first_child;
		n = d->props[parent].n_children;
	}
	for (uint32_t i = first; i < first + n && i < d->n_props; i++)
		if (d->props[i].parent == parent && strcmp(d->props[i].name, name) == 0)
			return &d->props[i];
	return NULL;
}

static uint64_t uval(const struct etl_decoded *d, uint32_t parent, const char *name)
{
	const struct etl_prop *p = child(d, parent, name);
	ck_assert_msg(p != NULL, "no property %s", name);
	ck_assert_msg(p->kind == ETL_VAL_UINT, "%s is not unsigned (kind %d)", name, p->kind);
	return p->v.u;
}

static struct etl_guid gval(const struct etl_decoded *d, uint32_t parent, const char *name)
{
	const struct etl_prop *p = child(d, parent, name);
	ck_assert_msg(p != NULL && p->kind == ETL_VAL_GUID, "no GUID property %s", name);
	return p->v.guid;
}

static void decode_status(struct sf_event *e, const struct etl_decoded *d)
{
	const uint32_t top = ETL_PROP_NO_PARENT;
	e->decoded = 1;
	snprintf(e->event_name, sizeof e->event_name, "%s", d->event_name ? d->event_name : "");
	snprintf(e->message, sizeof e->message, "%s", d->message ? d->message : "");
	e->st_provider = gval(d, top, "ProviderID");
	if (e->id == 41)
		return;
	e->st_id = (uint32_t)uval(d, top, "EventID");
	if (child(d, top, "NTStatus"))
		e->ntstatus = (uint32_t)uval(d, top, "NTStatus");
	if (child(d, top, "ActionCount")) {
		e->dropped = (uint32_t)uval(d, top, "DroppedEventCount");
		e->n_actions = (size_t)uval(d, top, "ActionCount");
		const struct etl_prop *arr = child(d, top, "Actions");
		ck_assert_ptr_nonnull(arr);
		ck_assert_uint_eq(arr->n_children, e->n_actions);
		for (uint32_t i = 0; i < arr->n_children && i < SF_MAX_ACTIONS; i++) {
			uint32_t el = arr->first_child + i;
			struct sf_action *a = &e->actions[i];
			a->provider = gval(d, el, "ProviderID");
			a->level = (uint8_t)uval(d, el, "Level");
			a->keyword = uval(d, el, "Keyword");
			a->property = (uint32_t)uval(d, el, "EnableProperty");
			a->status = (uint32_t)uval(d, el, "NTStatus");
			const struct etl_prop *r = child(d, el, "Reserved");
			ck_assert(r && r->kind == ETL_VAL_BINARY && r->v.bin.len == 7);
			for (int k = 0; k < 7; k++)
				ck_assert_uint_eq(r->v.bin.p[k], 0);
		}
	}
	if (child(d, top, "ScenarioCount")) {
		e->n_census = (size_t)uval(d, top, "ScenarioCount");
		const struct etl_prop *arr = child(d, top, "Scenarios");
		ck_assert_ptr_nonnull(arr);
		ck_assert_uint_eq(arr->n_children, e->n_census);
		for (uint32_t i = 0; i < arr->n_children && i < SF_MAX_CENSUS; i++) {
			uint32_t el = arr->first_child + i;
			e->census[i].provider = gval(d, el, "ProviderID");
			e->census[i].id = (uint32_t)uval(d, el, "EventID");
			e->census[i].count = (uint32_t)uval(d, el, "InflightCount");
			ck_assert_uint_eq(uval(d, el, "Reserved"), 0);
		}
	}
}

void sf_read(struct sf_file *f, const char *path)
{
	memset(f, 0, sizeof *f);
	etl_reader *r = etl_reader_new();
	etl_decoder *dec = etl_decoder_new();
	ck_assert(r && dec);
	ck_assert_msg(etl_decoder_add_manifest(dec, SF_MANIFEST) == ETL_OK, "manifest: %s", etl_decoder_errmsg(dec));
	ck_assert_msg(etl_reader_open_file(r, path) == ETL_OK, "open %s: %s", path, etl_reader_errmsg(r));
	const struct etl_logfile *lf = etl_reader_logfile(r);
	f->lf = *lf;
	snprintf(f->logger_name, sizeof f->logger_name, "%s", lf->logger_name ? lf->logger_name : "");
	f->lf.logger_name = f->lf.log_file_name = NULL;
	size_t cap = 0;
	const struct etl_event *ev;
	int st;
	while ((st = etl_reader_next(r, &ev)) != ETL_END) {
		ck_assert_msg(st != ETL_FATAL, "%s: %s", path, etl_reader_errmsg(r));
		if (st != ETL_OK) {
			f->errors++;
			continue;
		}
		if (ev->buffer_offset == 0)
			continue;
		if (f->n == cap) {
			cap = cap ? 2 * cap : 256;
			f->ev = realloc(f->ev, cap * sizeof *f->ev);
			ck_assert_ptr_nonnull(f->ev);
		}
		struct sf_event *e = &f->ev[f->n++];
		memset(e, 0, sizeof *e);
		e->provider = ev->provider;
		e->id = ev->id;
		e->level = ev->level;
		e->opcode = ev->opcode;
		e->task = ev->task;
		e->keyword = ev->keyword;
		e->activity = ev->activity_id;
		e->utc = ev->utc;
		e->tag = ev->payload_size >= 4 ? (uint32_t)ev->payload[0] | (uint32_t)ev->payload[1] << 8 |
		                                 (uint32_t)ev->payload[2] << 16 | (uint32_t)ev->payload[3] << 24 : 0;
		if (etl_guid_equal(&ev->provider, &SF_KERNEL_WDI)) {
			const struct etl_decoded *d;
			ck_assert_msg(etl_decoder_decode(dec, ev, &d) == ETL_OK, "Kernel-WDI %u: %s", ev->id,
			              d && d->error ? d->error : "?");
			decode_status(e, d);
		}
	}
	etl_decoder_free(dec);
	etl_reader_free(r);
}

void sf_free(struct sf_file *f)
{
	free(f->ev);
	memset(f, 0, sizeof *f);
}

size_t sf_count(const struct sf_file *f, const struct etl_guid *provider, int id)
{
	size_t n = 0;
	for (size_t i = 0; i < f->n; i++)
		if (etl_guid_equal(&f->ev[i].provider, provider) && (id < 0 || f->ev[i].id == id))
			n++;
	return n;
}

const struct sf_event *sf_nth(const struct sf_file *f, const struct etl_guid *provider, int id, size_t nth)
{
	for (size_t i = 0; i < f->n; i++)
		if (etl_guid_equal(&f->ev[i].provider, provider) && (id < 0 || f->ev[i].id == id) && nth-- == 0)
			return &f->ev[i];
	return NULL;
}

int sf_has_tag(const struct sf_file *f, const struct etl_guid *provider, uint32_t tag)
{
	for (size_t i = 0; i < f->n; i++)
		if (etl_guid_equal(&f->ev[i].provider, provider) && f->ev[i].tag == tag)
			return 1;
	return 0;
}
