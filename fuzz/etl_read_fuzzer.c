/*
 * etl_read_fuzzer.c - libFuzzer harness for the whole reader, from memory.
 *
 * The input is an .etl file (or a gzip / LZ4-frame compressed one). Three
 * passes, each with its own reader over the same bytes:
 *   1. etl_reader_next_buffer() to ETL_END on a file-order reader (so a
 *      compressed input is streamed): checks every buffer description and
 *      adds up the bytes the records can occupy once inflated;
 *   2. etl_reader_next() to ETL_END in ETL_ORDER_TIME (a compressed input
 *      is spooled; the reader is opened first, for the input size);
 *   3. etl_reader_next() to ETL_END in ETL_ORDER_FILE.
 * Every field of every event is read (summed into a volatile sink, every
 * payload byte included), every extended item is walked and decoded.
 *
 * Invariants the API promises, checked with FUZZ_ASSERT:
 *   - an event's payload lies inside its record, and
 *     header_size + payload_size == size;
 *   - the extended-item chain lies inside the header, the iterator returns
 *     exactly ext_count items, each inside the chain;
 *   - every ETL_FAILED (and ETL_WARN) comes with a non-empty errmsg;
 *   - the reader terminates: the number of calls is bounded by the bytes
 *     it can walk (input, decompressed input, inflated buffers), since a
 *     record takes at least 8 bytes and a buffer at least 0x48;
 *   - after ETL_END it stays at ETL_END; a memory input never turns FATAL
 *     once it opened;
 *   - time order returns exactly as many records as file order, unless it
 *     skipped buffers at its memory limit (ETL_E_LIMIT): then no more.
 * Time order runs with a 64 MiB memory limit, so that a few buffers
 * claiming to inflate to 32 MiB reach the limit (and the fuzzer's memory
 * stays small).
 *
 * Replay without libFuzzer: make check (fuzz/standalone_main.c).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "etl.h"
#include "fuzz.h"

static volatile uint64_t sink;

/* 1 if the reader will inflate the input (gzip or LZ4 frame magic) rather
 * than read it in place. */
static int is_wrapped(const uint8_t *data, size_t size)
{
	if (size >= 2 && data[0] == 0x1f && data[1] == 0x8b)
		return 1;
	if (size >= 4 && data[0] == 0x04 && data[1] == 0x22 && data[2] == 0x4d &&
	    data[3] == 0x18)
		return 1;
	return 0;
}

static uint64_t sum_bytes(const void *p, size_t n)
{
	const uint8_t *b = p;
	uint64_t s = 0;
	for (size_t i = 0; i < n; i++)
		s += b[i];
	return s;
}

static uint64_t sum_guid(const struct etl_guid *g)
{
	char txt[ETL_GUID_STRLEN];
	etl_guid_format(g, txt);
	FUZZ_ASSERT(strlen(txt) == ETL_GUID_STRLEN - 1);
	return g->data1 + g->data2 + g->data3 + sum_bytes(g->data4, 8) +
	       (uint64_t)etl_guid_is_null(g);
}

static void check_errmsg(const etl_reader *r)
{
	const char *m = etl_reader_errmsg(r);
	FUZZ_ASSERT(m != NULL && m[0] != 0);
	FUZZ_ASSERT(etl_reader_errcode(r) > ETL_E_NONE && etl_reader_errcode(r) < ETL_E_MAX_);
	sink += strlen(m) + etl_reader_erroff(r);
}

static void touch_logfile(const etl_reader *r)
{
	const struct etl_logfile *lf = etl_reader_logfile(r);
	uint64_t s = 0;
	FUZZ_ASSERT(lf != NULL);
	if (!lf->present)
		return;
	FUZZ_ASSERT(lf->header_ptr_size == 4 || lf->header_ptr_size == 8);
	FUZZ_ASSERT(lf->logger_name != NULL && lf->log_file_name != NULL);
	s += lf->buffer_size + sum_bytes(lf->version, 4) + lf->provider_version;
	s += lf->number_of_processors + (uint64_t)lf->end_time + lf->timer_resolution;
	s += lf->maximum_file_size + lf->log_file_mode + lf->buffers_written;
	s += lf->start_buffers + sum_guid(&lf->log_instance_guid) + lf->pointer_size;
	s += lf->events_lost + lf->cpu_speed_mhz + lf->logger_name_field;
	s += lf->log_file_name_field;
	s += (uint64_t)lf->time_zone.bias + strlen(lf->time_zone.standard_name);
	s += sum_bytes(&lf->time_zone.standard_date, sizeof lf->time_zone.standard_date);
	s += (uint64_t)lf->time_zone.standard_bias + strlen(lf->time_zone.daylight_name);
	s += sum_bytes(&lf->time_zone.daylight_date, sizeof lf->time_zone.daylight_date);
	s += (uint64_t)lf->time_zone.daylight_bias;
	s += (uint64_t)lf->boot_time + (uint64_t)lf->perf_freq + (uint64_t)lf->start_time;
	s += lf->reserved_flags + lf->buffers_lost;
	s += strlen(lf->logger_name) + strlen(lf->log_file_name);
	s += (uint64_t)lf->header_timestamp + lf->file_offset;

	int64_t ft = 0;
	char when[ETL_TIME_STRLEN];
	if (etl_reader_time_to_utc(r, lf->header_timestamp, &ft) == ETL_OK) {
		etl_filetime_format(ft, when, sizeof when);
		s += strlen(when);
	}
	sink += s;
}

/* A buffer returned with ETL_FAILED may describe a damaged header: its
 * fields are then read but not checked. */
static void touch_buffer(const struct etl_buffer_info *bi, int valid)
{
	uint64_t s = 0;
	FUZZ_ASSERT(bi->compressed == ((bi->flags & ETL_BUF_FLAG_COMPRESSED) != 0));
	if (valid) {
		FUZZ_ASSERT(bi->buffer_size >= ETL_BUFFER_HEADER_SIZE);
		FUZZ_ASSERT(bi->data_end >= ETL_BUFFER_HEADER_SIZE);
		if (!bi->compressed)
			FUZZ_ASSERT(bi->data_end <= bi->buffer_size);
		else
			FUZZ_ASSERT(bi->data_end == bi->inflated_size + ETL_BUFFER_HEADER_SIZE);
		FUZZ_ASSERT(bi->available <= bi->buffer_size);
	}
	s += bi->file_offset + bi->buffer_size + bi->saved_offset + bi->current_offset;
	s += (uint64_t)bi->reference_count + (uint64_t)bi->timestamp + (uint64_t)bi->sequence;
	s += bi->union_20 + bi->processor + bi->logger_id + bi->state + bi->offset;
	s += bi->flags + bi->type + bi->data_end + bi->inflated_size + bi->available;
	if (bi->header && bi->available >= ETL_BUFFER_HEADER_SIZE)
		s += sum_bytes(bi->header, ETL_BUFFER_HEADER_SIZE);
	if (bi->stored)
		s += sum_bytes(bi->stored, bi->available);
	sink += s;
}

static void touch_ext(const struct etl_event *ev)
{
	struct etl_ext_iter it;
	struct etl_ext_item item;
	uint32_t n = 0, bytes = 0;
	const uint8_t *chain_end = ev->ext + ev->ext_size;

	etl_ext_iter_init(&it, ev);
	while (etl_ext_iter_next(&it, &item) == ETL_OK) {
		struct etl_ext_typed t;
		const uint8_t *item_end;
		n++;
		FUZZ_ASSERT(n <= ev->ext_count);
		FUZZ_ASSERT(item.item_size >= 8);
		FUZZ_ASSERT(item.data >= ev->ext + 8 && item.data <= chain_end);
		FUZZ_ASSERT(item.data_size <= (size_t)(chain_end - item.data));
		FUZZ_ASSERT((size_t)item.data_size + 8 <= item.item_size);
		item_end = item.data - 8 + item.item_size;
		FUZZ_ASSERT(item_end <= chain_end);
		bytes += item.item_size;
		sink += sum_bytes(item.data, item.data_size) + item.ext_type + item.linkage +
		        item.file_offset;
		const char *tn = etl_ext_type_name(item.ext_type);
		if (tn)
			sink += strlen(tn);

		int rc = etl_ext_item_decode(&item, &t);
		FUZZ_ASSERT(rc == ETL_OK || rc == ETL_WARN || rc == ETL_FAILED);
		if (rc == ETL_WARN)
			FUZZ_ASSERT(t.kind == 0);
		if (rc != ETL_OK)
			continue;
		const uint8_t *dend = item.data + item.data_size;
		switch (t.kind) {
		case ETL_EXT_RELATED_ACTIVITYID:
		case ETL_EXT_CONTROL_GUID:
		case ETL_EXT_CONTAINER_ID:
			sink += sum_guid(&t.u.guid);
			break;
		case ETL_EXT_SID:
			sink += t.u.sid.revision + sum_bytes(t.u.sid.authority, 6);
			if (t.u.sid.sub_count) {
				FUZZ_ASSERT(t.u.sid.sub >= item.data &&
				            t.u.sid.sub + (size_t)t.u.sid.sub_count * 4 <= dend);
				sink += sum_bytes(t.u.sid.sub, (size_t)t.u.sid.sub_count * 4);
			}
			break;
		case ETL_EXT_TS_ID:
			sink += t.u.u32;
			break;
		case ETL_EXT_INSTANCE_INFO:
			sink += t.u.instance.instance_id + t.u.instance.parent_instance_id +
			        sum_guid(&t.u.instance.parent_guid);
			break;
		case ETL_EXT_STACK_TRACE32:
		case ETL_EXT_STACK_TRACE64:
			FUZZ_ASSERT(t.u.stack.addr_size == 4 || t.u.stack.addr_size == 8);
			FUZZ_ASSERT(t.u.stack.addrs >= item.data &&
			            t.u.stack.addrs + (size_t)t.u.stack.count * t.u.stack.addr_size <= dend);
			sink += t.u.stack.match_id +
			        sum_bytes(t.u.stack.addrs, (size_t)t.u.stack.count * t.u.stack.addr_size);
			break;
		case ETL_EXT_PEBS_INDEX:
		case ETL_EXT_PSM_KEY:
		case ETL_EXT_EVENT_KEY:
		case ETL_EXT_PROCESS_START_KEY:
		case ETL_EXT_QPC_DELTA:
			sink += t.u.u64;
			break;
		case ETL_EXT_PMC_COUNTERS:
			FUZZ_ASSERT(t.u.pmc.counters >= item.data &&
			            t.u.pmc.counters + (size_t)t.u.pmc.count * 8 <= dend);
			sink += sum_bytes(t.u.pmc.counters, (size_t)t.u.pmc.count * 8);
			break;
		case ETL_EXT_STACK_KEY32:
		case ETL_EXT_STACK_KEY64:
			sink += t.u.stack_key.match_id + t.u.stack_key.stack_key;
			break;
		case ETL_EXT_EVENT_SCHEMA_TL:
		case ETL_EXT_PROV_TRAITS: {
			const uint8_t *name = (const uint8_t *)t.u.tl.name;
			FUZZ_ASSERT(name >= item.data && name < dend);
			size_t len = strlen(t.u.tl.name);
			FUZZ_ASSERT(name + len < dend);
			FUZZ_ASSERT(t.u.tl.rest == name + len + 1);
			FUZZ_ASSERT(t.u.tl.rest + t.u.tl.rest_size == dend);
			sink += t.u.tl.declared_size + len + sum_bytes(t.u.tl.rest, t.u.tl.rest_size);
			break;
		}
		default:
			FUZZ_ASSERT(!"etl_ext_item_decode returned ETL_OK for an unknown kind");
		}
	}
	FUZZ_ASSERT(n == ev->ext_count);
	FUZZ_ASSERT(bytes == ev->ext_size);
}

/* An EventTrace payload decoder returns ETL_OK or ETL_FAILED only. */
static int eventtrace_rc(int rc)
{
	FUZZ_ASSERT(rc == ETL_OK || rc == ETL_FAILED);
	return rc;
}

/* Checks and reads one event; in_input is the input when the reader works
 * on it in place (not gzip / LZ4), else NULL. */
static void touch_event(const etl_reader *r, const struct etl_event *ev,
                        const uint8_t *in_input, size_t in_size)
{
	uint64_t s = 0;
	const uint8_t *rec_end = ev->record + ev->size;

	/* Identity and extent. */
	FUZZ_ASSERT(ev->record != NULL);
	FUZZ_ASSERT(ev->kind > ETL_HDR_UNKNOWN && ev->kind < ETL_HDR_KIND_COUNT_);
	FUZZ_ASSERT(strcmp(etl_hdr_kind_name(ev->kind), "UNKNOWN") != 0);
	FUZZ_ASSERT(etl_hdr_kind_from_name(etl_hdr_kind_name(ev->kind)) == ev->kind);
	FUZZ_ASSERT(ev->ptr_size == 4 || ev->ptr_size == 8);
	FUZZ_ASSERT(ev->size >= 8);
	FUZZ_ASSERT(ev->header_size <= ev->size);
	FUZZ_ASSERT((uint64_t)ev->header_size + ev->payload_size == ev->size);
	FUZZ_ASSERT(ev->payload >= ev->record);
	FUZZ_ASSERT(ev->payload + ev->payload_size <= rec_end);
	FUZZ_ASSERT(ev->payload == ev->record + ev->header_size);
	FUZZ_ASSERT(ev->pmc_count <= 7);

	/* Where: the record sits inside its (inflated) buffer. */
	const struct etl_buffer_info *cb = etl_reader_current_buffer(r);
	FUZZ_ASSERT(cb != NULL);
	touch_buffer(cb, 1);
	FUZZ_ASSERT(ev->buffer_offset == cb->file_offset);
	FUZZ_ASSERT(ev->in_compressed == cb->compressed);
	FUZZ_ASSERT(ev->offset_in_buffer >= ETL_BUFFER_HEADER_SIZE);
	FUZZ_ASSERT(ev->offset_in_buffer % 8 == 0);
	FUZZ_ASSERT((uint64_t)ev->offset_in_buffer + ev->size <= cb->data_end);
	FUZZ_ASSERT(ev->record == cb->header + ev->offset_in_buffer);
	if (!ev->in_compressed) {
		FUZZ_ASSERT(ev->file_offset == ev->buffer_offset + ev->offset_in_buffer);
		if (in_input) {
			FUZZ_ASSERT(ev->record == in_input + ev->file_offset);
			FUZZ_ASSERT(ev->file_offset + ev->size <= in_size);
		}
	} else {
		FUZZ_ASSERT(ev->file_offset == ev->buffer_offset);
	}

	/* Extended items. */
	if (ev->ext_count || ev->ext) {
		FUZZ_ASSERT(ev->ext != NULL && ev->ext_count > 0);
		FUZZ_ASSERT(ev->ext >= ev->record && ev->ext + ev->ext_size <= ev->payload);
		touch_ext(ev);
	} else {
		FUZZ_ASSERT(ev->ext_size == 0);
	}

	/* Every field. */
	s += (uint64_t)ev->kind + ev->header_type + ev->ptr_size + ev->present;
	s += ev->size + ev->header_size + sum_guid(&ev->provider);
	if (ev->provider_name)
		s += strlen(ev->provider_name);
	s += ev->pid + ev->tid + ev->processor + ev->logger_id;
	s += ev->id + ev->hook_id + ev->version + ev->channel + ev->level + ev->opcode;
	s += ev->task + ev->keyword + ev->version_word + ev->header_flags;
	s += ev->event_property + ev->trace_flags;
	s += (uint64_t)ev->timestamp + ev->kernel_time + ev->user_time;
	s += sum_guid(&ev->activity_id) + ev->instance_id + ev->parent_instance_id;
	s += sum_guid(&ev->parent_guid) + ev->reg_handle + ev->parent_reg_handle;
	s += ev->pebs_index + ev->pmc_count;
	for (unsigned i = 0; i < ev->pmc_count; i++)
		s += ev->pmc[i];
	s += ev->sequence + ev->component_id;
	s += ev->file_offset + ev->buffer_offset + ev->offset_in_buffer + ev->in_compressed;
	s += sum_bytes(ev->record, ev->header_size);
	s += sum_bytes(ev->payload, ev->payload_size);
	if (ev->present & ETL_EVF_UTC) {
		char when[ETL_TIME_STRLEN];
		etl_filetime_format(ev->utc, when, sizeof when);
		s += (uint64_t)ev->utc + strlen(when);
	}
	if (ev->present & ETL_EVF_HOOKID) {
		struct etl_guid g;
		const char *gn = etl_kernel_group_provider(ev->hook_id >> 8, &g);
		if (gn)
			s += strlen(gn) + sum_guid(&g);
		if ((ev->hook_id >> 8) == 0) {
			gn = etl_eventtrace_name(ev->opcode);
			if (gn)
				s += strlen(gn);
		}
	}
	/* EventTrace payloads: ETL_FAILED for any other record. */
	struct etl_header_extension hx;
	struct etl_partition_info pi;
	if (eventtrace_rc(etl_eventtrace_extension(ev, &hx)) == ETL_OK) {
		FUZZ_ASSERT(ev->hook_id == 0x05 || ev->hook_id == 0x20);
		s += sum_bytes(&hx, sizeof hx);
	}
	if (eventtrace_rc(etl_eventtrace_partition(ev, &pi)) == ETL_OK) {
		FUZZ_ASSERT(ev->hook_id == 0x50);
		s += pi.version + pi.reserved + pi.partition_type + (uint64_t)pi.qpc_offset;
		if (pi.has_ids)
			s += sum_guid(&pi.partition_id) + sum_guid(&pi.parent_id);
	}
	sink += s;
}

/* Opens a reader on the input in the given order; NULL if it did not
 * open (ETL_FATAL, which must come with a message). */
static etl_reader *open_reader(const uint8_t *data, size_t size, int order)
{
	etl_reader *r = etl_reader_new();
	int rc;

	if (!r)
		return NULL;
	FUZZ_ASSERT(etl_reader_set_order(r, order) == ETL_OK);
	if (order == ETL_ORDER_TIME)
		FUZZ_ASSERT(etl_reader_set_order_memory(r, 64u << 20) == ETL_OK);
	rc = etl_reader_open_memory(r, data, size);
	if (rc == ETL_FATAL) {
		check_errmsg(r);
		etl_reader_free(r);
		return NULL;
	}
	FUZZ_ASSERT(rc == ETL_OK || rc == ETL_WARN);
	if (rc == ETL_WARN)
		check_errmsg(r);
	FUZZ_ASSERT(etl_reader_set_order(r, order) == ETL_FAILED);
	FUZZ_ASSERT(etl_reader_open_memory(r, data, size) == ETL_FAILED);
	touch_logfile(r);
	return r;
}

/* The buffer walk, on a file-order reader (a gzip / LZ4 input is then
 * streamed, not spooled). walk_size is the size of the (decompressed)
 * input. Returns the bytes records can occupy once compressed buffers are
 * inflated. */
static uint64_t pass_buffers(etl_reader *r, uint64_t walk_size)
{
	const struct etl_buffer_info *bi;
	uint64_t inflated = 0, calls = 0, last_off = 0;
	int seen = 0, rc;

	/* A buffer header takes 0x48 bytes, the walk only moves forward and
	 * reports each buffer at most once. */
	const uint64_t bound = walk_size / 0x24 + 64;
	for (;;) {
		calls++;
		FUZZ_ASSERT(calls <= bound);
		rc = etl_reader_next_buffer(r, &bi);
		if (rc == ETL_END) {
			FUZZ_ASSERT(bi == NULL);
			break;
		}
		FUZZ_ASSERT(rc == ETL_OK || rc == ETL_FAILED);
		if (rc == ETL_FAILED)
			check_errmsg(r);
		else
			FUZZ_ASSERT(bi != NULL);
		if (!bi)
			continue;
		touch_buffer(bi, rc == ETL_OK);
		FUZZ_ASSERT(!seen || bi->file_offset > last_off);
		FUZZ_ASSERT(bi->file_offset < walk_size);
		seen = 1;
		last_off = bi->file_offset;
		if (bi->compressed)
			inflated += bi->inflated_size;
	}
	FUZZ_ASSERT(etl_reader_next_buffer(r, &bi) == ETL_END);
	return inflated;
}

/* Every event in the reader's order. Returns the number of records;
 * *limited: 1 if a buffer was skipped at the time-order memory limit. */
static uint64_t pass_events(etl_reader *r, const uint8_t *data, size_t size, uint64_t bound,
                            int *limited)
{
	const struct etl_event *ev;
	struct etl_reader_stats st;
	const uint8_t *in_input = is_wrapped(data, size) ? NULL : data;
	uint64_t calls = 0, records = 0, failures = 0;
	int rc;

	for (;;) {
		calls++;
		FUZZ_ASSERT(calls <= bound);
		rc = etl_reader_next(r, &ev);
		if (rc == ETL_END) {
			FUZZ_ASSERT(ev == NULL);
			break;
		}
		FUZZ_ASSERT(rc != ETL_FATAL);
		if (rc == ETL_FAILED) {
			FUZZ_ASSERT(ev == NULL);
			check_errmsg(r);
			if (etl_reader_errcode(r) == ETL_E_LIMIT)
				*limited = 1;
			failures++;
			continue;
		}
		FUZZ_ASSERT(rc == ETL_OK || rc == ETL_WARN);
		FUZZ_ASSERT(ev != NULL);
		if (rc == ETL_WARN)
			check_errmsg(r);
		records++;
		touch_event(r, ev, in_input, size);
	}
	FUZZ_ASSERT(etl_reader_next(r, &ev) == ETL_END);

	etl_reader_stats(r, &st);
	FUZZ_ASSERT(st.records == records);
	FUZZ_ASSERT(st.compressed_buffers <= st.buffers);
	sink += st.buffers + st.compressed_buffers + st.bad_buffers + st.errors + st.bytes_in +
	        st.input_size + failures;
	return records;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct etl_reader_stats st;
	etl_reader *rt, *rb, *rf;
	uint64_t walk_size, inflated, n_time, n_file;

	if (size > FUZZ_MAX_INPUT)
		return 0;
	/* Time order spools a gzip / LZ4 input, so its decompressed size is
	 * known from the start. */
	rt = open_reader(data, size, ETL_ORDER_TIME);
	if (!rt)
		return 0;
	etl_reader_stats(rt, &st);
	walk_size = st.input_size > size ? st.input_size : size;

	/* Pass 1: the buffer walk. */
	rb = open_reader(data, size, ETL_ORDER_FILE);
	FUZZ_ASSERT(rb != NULL);
	inflated = pass_buffers(rb, walk_size);
	etl_reader_free(rb);

	/* Passes 2 and 3: events in time order, then in file order. A record
	 * takes at least 8 bytes, a buffer at least 0x48 and yields at most a
	 * few ETL_FAILED; /4 leaves room for both. */
	uint64_t bound = (walk_size + inflated) / 4 + 64;
	int time_limited = 0, file_limited = 0;
	n_time = pass_events(rt, data, size, bound, &time_limited);
	etl_reader_free(rt);
	rf = open_reader(data, size, ETL_ORDER_FILE);
	FUZZ_ASSERT(rf != NULL);
	n_file = pass_events(rf, data, size, bound, &file_limited);
	etl_reader_free(rf);
	FUZZ_ASSERT(!file_limited);
	FUZZ_ASSERT(time_limited ? n_time <= n_file : n_time == n_file);
	return 0;
}
