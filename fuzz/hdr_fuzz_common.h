/*
 * hdr_fuzz_common.h - the driver shared by the hdr_*_fuzzer harnesses: it
 * decodes ONE record with a trace-header module exactly the way the reader
 * core does (etl__buffer_next_record() in lib/read/buffer.c):
 *   need 8 bytes, peek_size(), size >= min_size and size <= bytes left,
 *   a sub-cursor of exactly the record size, then decode().
 * The record is copied into an allocation of exactly its size, so ASan
 * reports any read past it.
 *
 * Input layout:
 *   byte 0   control:
 *              bit 0     which header-type byte of the module (32/64 form)
 *              bits 1-2  log-file layout version: 0.0 (unknown), 1.0
 *                        (pre-1.1: old INSTANCE form), 1.1, 1.5
 *              bits 3-4  default pointer size: 0 (unknown), 4, 8, 8
 *              bits 5-7  which module, for harnesses given several
 *   byte 1.. the record, then whatever follows it in the buffer.
 * The marker bytes are forced so that the record dispatches to the chosen
 * module (etl__hdr_for_marker() is checked to agree).
 *
 * Invariants checked with FUZZ_ASSERT:
 *   ETL_OK / ETL_WARN: the payload lies inside the record, header_size +
 *     payload_size == record size, ptr_size is 4 or 8, the kind is one of
 *     the module's, the extended-item chain (if any) lies inside the header
 *     and etl_ext_iter returns exactly ext_count items, each inside it;
 *     ETL_WARN carries a message.
 *   ETL_FAILED: a non-empty message, a known reason, err.pos <= size.
 *   Always: the record bytes are not modified, the cursor stays in bounds.
 *
 * Each harness defines ETL_BUILDING_LIB, includes this file and calls
 * hdr_fuzz_run() with its module(s).
 */
#ifndef ETL_HDR_FUZZ_COMMON_H
#define ETL_HDR_FUZZ_COMMON_H

#ifndef ETL_BUILDING_LIB
#error "define ETL_BUILDING_LIB before including hdr_fuzz_common.h"
#endif

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "formats/hdr/hdr.h"
#include "fuzz.h"

/* Records are at most 0xFFFF bytes (WNODE blocks aside); more input only
 * slows the fuzzer down. */
#define HDR_FUZZ_MAX_INPUT (128u * 1024u)

static volatile uint64_t hdr_fuzz_sink;

static inline uint64_t hdr_fuzz_sum(const void *p, size_t n)
{
	const uint8_t *b = p;
	uint64_t s = 0;
	for (size_t i = 0; i < n; i++)
		s += b[i];
	return s;
}

/* Rewrites the marker (first 4 bytes) so that the record belongs to ops. */
static inline void hdr_fuzz_force_marker(const struct etl_hdr_ops *ops, uint8_t *rec,
                                         unsigned variant)
{
	if (ops == &etl__hdr_message) {
		rec[3] = 0x90;                  /* FLAG | MESSAGE, byte 2 reserved */
	} else if (ops == &etl__hdr_wnode) {
		rec[3] &= 0x7F;                 /* TRACE_HEADER_FLAG clear         */
	} else {
		uint8_t t = ops->types[0];
		if ((variant & 1) && ops->types[1])
			t = ops->types[1];
		rec[2] = t;
		rec[3] |= 0xC0;
	}
}

/* The kinds a module may report. */
static inline int hdr_fuzz_kind_ok(const struct etl_hdr_ops *ops, int kind)
{
	if (ops == &etl__hdr_system)
		return kind == ETL_HDR_SYSTEM32 || kind == ETL_HDR_SYSTEM64;
	if (ops == &etl__hdr_compact)
		return kind == ETL_HDR_COMPACT32 || kind == ETL_HDR_COMPACT64;
	if (ops == &etl__hdr_perfinfo)
		return kind == ETL_HDR_PERFINFO32 || kind == ETL_HDR_PERFINFO64;
	if (ops == &etl__hdr_full)
		return kind == ETL_HDR_FULL_HEADER32 || kind == ETL_HDR_FULL_HEADER64;
	if (ops == &etl__hdr_instance)
		return kind == ETL_HDR_INSTANCE32 || kind == ETL_HDR_INSTANCE64;
	if (ops == &etl__hdr_event)
		return kind == ETL_HDR_EVENT_HEADER32 || kind == ETL_HDR_EVENT_HEADER64;
	if (ops == &etl__hdr_message)
		return kind == ETL_HDR_MESSAGE;
	if (ops == &etl__hdr_error)
		return kind == ETL_HDR_ERROR;
	if (ops == &etl__hdr_timed)
		return kind == ETL_HDR_TIMED;
	if (ops == &etl__hdr_wnode)
		return kind == ETL_HDR_WNODE;
	return 0;
}

/* Walks and decodes the extended items of a decoded event. */
static inline void hdr_fuzz_ext(const struct etl_event *ev)
{
	const uint8_t *chain_end = ev->ext + ev->ext_size;
	struct etl_ext_iter it;
	struct etl_ext_item item;
	uint32_t n = 0, bytes = 0;

	etl_ext_iter_init(&it, ev);
	while (etl_ext_iter_next(&it, &item) == ETL_OK) {
		struct etl_ext_typed t;
		n++;
		FUZZ_ASSERT(n <= ev->ext_count);
		FUZZ_ASSERT(item.item_size >= 8);
		FUZZ_ASSERT(item.data >= ev->ext + 8 && item.data <= chain_end);
		FUZZ_ASSERT(item.data - 8 + item.item_size <= chain_end);
		FUZZ_ASSERT((size_t)item.data_size + 8 <= item.item_size);
		FUZZ_ASSERT(item.file_offset == ev->file_offset + (uint64_t)(item.data - 8 - ev->record));
		bytes += item.item_size;
		hdr_fuzz_sink += hdr_fuzz_sum(item.data, item.data_size) + item.ext_type + item.linkage;
		int rc = etl_ext_item_decode(&item, &t);
		FUZZ_ASSERT(rc == ETL_OK || rc == ETL_WARN || rc == ETL_FAILED);
		if (rc == ETL_OK && (t.kind == ETL_EXT_EVENT_SCHEMA_TL || t.kind == ETL_EXT_PROV_TRAITS)) {
			size_t len = strlen(t.u.tl.name);
			FUZZ_ASSERT((const uint8_t *)t.u.tl.name + len < item.data + item.data_size);
			hdr_fuzz_sink += len + hdr_fuzz_sum(t.u.tl.rest, t.u.tl.rest_size);
		} else if (rc == ETL_OK) {
			hdr_fuzz_sink += hdr_fuzz_sum(&t, sizeof t);
		}
	}
	FUZZ_ASSERT(n == ev->ext_count);
	FUZZ_ASSERT(bytes == ev->ext_size);
}

static inline void hdr_fuzz_touch(const struct etl_event *ev)
{
	uint64_t s = 0;
	s += (uint64_t)ev->kind + ev->header_type + ev->ptr_size + ev->present;
	s += hdr_fuzz_sum(&ev->provider, sizeof ev->provider);
	if (ev->provider_name)
		s += strlen(ev->provider_name);
	s += ev->pid + ev->tid + ev->id + ev->hook_id + ev->version + ev->channel;
	s += ev->level + ev->opcode + ev->task + ev->keyword + ev->version_word;
	s += ev->header_flags + ev->event_property + ev->trace_flags;
	s += (uint64_t)ev->timestamp + ev->kernel_time + ev->user_time;
	s += hdr_fuzz_sum(&ev->activity_id, sizeof ev->activity_id);
	s += ev->instance_id + ev->parent_instance_id;
	s += hdr_fuzz_sum(&ev->parent_guid, sizeof ev->parent_guid);
	s += ev->reg_handle + ev->parent_reg_handle + ev->pebs_index + ev->pmc_count;
	for (unsigned i = 0; i < ev->pmc_count; i++)
		s += ev->pmc[i];
	s += ev->sequence + ev->component_id;
	s += hdr_fuzz_sum(ev->record, ev->header_size);
	s += hdr_fuzz_sum(ev->payload, ev->payload_size);
	hdr_fuzz_sink += s;
}

static inline int hdr_fuzz_run(const struct etl_hdr_ops *const *mods, unsigned n_mods,
                               const uint8_t *data, size_t size)
{
	static const uint8_t layouts[4][2] = { { 0, 0 }, { 1, 0 }, { 1, 1 }, { 1, 5 } };
	static const uint8_t ptrs[4] = { 0, 4, 8, 8 };
	const struct etl_hdr_ops *ops;
	struct etl_hdr_ctx ctx;
	struct etl_cur parent, sub, rec;
	struct etl_event ev;
	struct etl_err err;
	uint8_t *buf, *exact;
	uint32_t rec_size = 0;
	size_t len;
	int rc;

	if (size < 1 || size > HDR_FUZZ_MAX_INPUT)
		return 0;
	ops = mods[(data[0] >> 5) % n_mods];
	ctx.layout_major = layouts[(data[0] >> 1) & 3][0];
	ctx.layout_minor = layouts[(data[0] >> 1) & 3][1];
	ctx.default_ptr_size = ptrs[(data[0] >> 3) & 3];
	len = size - 1;

	/* The core only peeks at a record with 8 bytes left in the buffer. */
	if (len < 8)
		return 0;
	buf = malloc(len);
	if (!buf)
		return 0;
	memcpy(buf, data + 1, len);
	hdr_fuzz_force_marker(ops, buf, data[0]);
	FUZZ_ASSERT(etl_le32(buf) != ETL_MARKER_END);
	FUZZ_ASSERT(etl__hdr_for_marker(etl_le32(buf)) == ops);

	if (ops->peek_size(buf, &rec_size) != 0 || rec_size < ops->min_size || rec_size > len) {
		free(buf);
		return 0;
	}
	etl_cur_init(&parent, buf, len);
	FUZZ_ASSERT(etl_cur_sub(&parent, rec_size, &sub));
	FUZZ_ASSERT(sub.len == rec_size && parent.pos == rec_size);
	exact = malloc(rec_size);
	if (!exact) {
		free(buf);
		return 0;
	}
	memcpy(exact, sub.p, rec_size);
	etl_cur_init(&rec, exact, rec_size);

	memset(&ev, 0, sizeof ev);
	memset(&err, 0, sizeof err);
	rc = ops->decode(&rec, &ctx, &ev, &err);
	FUZZ_ASSERT(rec.pos <= rec.len && rec.len == rec_size && rec.p == exact);
	FUZZ_ASSERT(memcmp(exact, buf, rec_size) == 0);

	if (rc == ETL_FAILED) {
		FUZZ_ASSERT(err.msg[0] != 0);
		FUZZ_ASSERT(strlen(err.msg) < sizeof err.msg);
		FUZZ_ASSERT(err.code > ETL_E_NONE && err.code < ETL_E_MAX_);
		FUZZ_ASSERT(err.pos <= rec_size);
		hdr_fuzz_sink += strlen(err.msg);
	} else {
		FUZZ_ASSERT(rc == ETL_OK || rc == ETL_WARN);
		if (rc == ETL_WARN) {
			FUZZ_ASSERT(err.msg[0] != 0);
			FUZZ_ASSERT(err.code > ETL_E_NONE && err.code < ETL_E_MAX_);
		}
		/* The decoder's own size field agrees with peek_size(). */
		FUZZ_ASSERT(ev.size == rec_size);
		FUZZ_ASSERT(hdr_fuzz_kind_ok(ops, ev.kind));
		FUZZ_ASSERT(ev.ptr_size == 4 || ev.ptr_size == 8);
		FUZZ_ASSERT(ev.header_size <= rec_size);
		FUZZ_ASSERT((uint64_t)ev.header_size + ev.payload_size == rec_size);
		FUZZ_ASSERT(ev.payload == exact + ev.header_size);
		FUZZ_ASSERT(ev.payload + ev.payload_size <= exact + rec_size);
		FUZZ_ASSERT(ev.pmc_count <= 7);
		/* What the core fills in after decode(). */
		ev.record = exact;
		ev.file_offset = 0x48;
		if (ev.ext_count || ev.ext || ev.ext_size) {
			FUZZ_ASSERT(ev.ext != NULL && ev.ext_count > 0);
			FUZZ_ASSERT(ev.ext >= exact && ev.ext + ev.ext_size <= ev.payload);
			hdr_fuzz_ext(&ev);
		}
		hdr_fuzz_touch(&ev);
	}
	free(exact);
	free(buf);
	return 0;
}

#endif /* ETL_HDR_FUZZ_COMMON_H */
