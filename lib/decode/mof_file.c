/*
 * lib/decode/mof_file.c - the per-source decoder of classic events whose
 * class was loaded from a .mof file (etl_decoder_add_mof(),
 * doc/decoding.md §4.5), and the set that holds those classes.
 *
 * Classic records (SYSTEM, COMPACT, PERFINFO, FULL and INSTANCE headers)
 * name their class by GUID and their event type by opcode; the set's
 * events are keyed by (GUID, event type, version), so the lookup is the
 * manifest lookup with the opcode as the id: the exact version, else the
 * highest version below it (its payload's extra bytes become ExtraData).
 * The built-in kernel classes (lib/decode/mof.c) are tried first; an
 * event neither knows fails with the "no schema for this event" message,
 * as before classes could be loaded.
 */
#define ETL_BUILDING_LIB 1
#include <stdlib.h>
#include <string.h>

#include "lib/decode/decode_internal.h"
#include "lib/decode/mof_file.h"

static const char MOF_SET_KEY[] = "M\001mof-file-set";

static void set_free(void *data)
{
	struct moffile_set *ms = data;
	if (!ms)
		return;
	etl__mf_set_clear(&ms->mf);
	free(ms->cls);
	free(ms);
}

struct moffile_set *etl__moffile_set(etl_decoder *d, int create)
{
	uint64_t h = etl__dec_hash(MOF_SET_KEY, sizeof MOF_SET_KEY, ETL_DEC_HASH_INIT);
	struct moffile_set *ms = etl__dec_cache_find(d, h, MOF_SET_KEY, sizeof MOF_SET_KEY);
	if (ms || !create)
		return ms;
	ms = calloc(1, sizeof *ms);
	if (!ms)
		return NULL;
	if (etl__dec_cache_add(d, h, MOF_SET_KEY, sizeof MOF_SET_KEY, ms, set_free, 0) != ETL_OK)
		return NULL;
	return ms;
}

int etl__moffile_match(const struct etl_event *ev)
{
	return etl__mof_kind_ok(ev->kind);
}

int etl__moffile_decode(etl_decoder *d, const struct etl_event *ev)
{
	struct moffile_set *ms = etl__moffile_set(d, 0);
	if (!ms || !ms->mf.n_events)
		return etl__dec_fail_noschema(d, ev);
	/* The lookup key: the event type in the id's place. */
	struct etl_event key;
	memcpy(&key.provider, &ev->provider, sizeof key.provider);
	key.id = ev->opcode;
	key.version = ev->version;
	int prov_known = 0;
	struct mf_memo *memo = NULL;
	const struct mf_event *e = etl__mf_find_event(&ms->mf, &key, &prov_known, &memo);
	if (!e)
		return etl__dec_fail_noschema(d, ev);
	return etl__mf_decode_event(d, ev, &ms->mf, e, memo, ETL_DECODE_MOF);
}

int etl__mof_file_event(etl_decoder *d, size_t i, struct etl_guid *g, uint8_t *type, uint8_t *version)
{
	struct moffile_set *ms = d ? etl__moffile_set(d, 0) : NULL;
	if (!ms || i >= ms->mf.n_events)
		return 0;
	const struct mf_event *e = ms->mf.events[i];
	*g = e->guid;
	*type = (uint8_t)e->id;
	*version = e->version;
	return 1;
}
