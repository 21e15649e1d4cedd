/*
 * event_equal.h - field-by-field comparison of two decoded events, shared
 * by the round-trip fuzzer (fuzz/roundtrip_fuzzer.c) and the encoder tests
 * (tests/check_encode.c).
 *
 * Compared: every field a trace-header module's decode() sets - identity
 * (kind, header_type, ptr_size, present, size, header_size), provider,
 * ids, descriptor, version/flags words, times, correlation and instance
 * fields, PEBS/PMC, WPP sequence/component id, and the extended-item and
 * payload bytes (by content, not by pointer).
 * Not compared, because only the reader sets them: utc and the
 * ETL_EVF_UTC presence bit, processor, logger_id, record, file_offset,
 * buffer_offset, offset_in_buffer, in_compressed; nor provider_name, which
 * decode() derives from the provider GUID / HookId (compare it yourself
 * with event_equal_names() when both events come from decode()).
 */
#ifndef ETL_FUZZ_EVENT_EQUAL_H
#define ETL_FUZZ_EVENT_EQUAL_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "etl_event.h"

/* Presence bits that the reader, not a header module, sets. */
#define EVENT_EQUAL_READER_BITS ETL_EVF_UTC

static inline int event_equal_guid(const struct etl_guid *a, const struct etl_guid *b)
{
	return a->data1 == b->data1 && a->data2 == b->data2 && a->data3 == b->data3 &&
	       memcmp(a->data4, b->data4, sizeof a->data4) == 0;
}

static inline int event_equal_bytes(const uint8_t *a, const uint8_t *b, size_t n)
{
	return n == 0 || (a && b && memcmp(a, b, n) == 0);
}

/*! event_diff() : @return : NULL when a and b agree on every compared
 *  field, else the name of the first field that differs (static). */
static inline const char *event_diff(const struct etl_event *a, const struct etl_event *b)
{
#define EVENT_EQ_FIELD(f) do { if (a->f != b->f) return #f; } while (0)
	EVENT_EQ_FIELD(kind);
	EVENT_EQ_FIELD(header_type);
	EVENT_EQ_FIELD(ptr_size);
	if ((a->present & ~EVENT_EQUAL_READER_BITS) != (b->present & ~EVENT_EQUAL_READER_BITS))
		return "present";
	EVENT_EQ_FIELD(size);
	EVENT_EQ_FIELD(header_size);
	if (!event_equal_guid(&a->provider, &b->provider))
		return "provider";
	EVENT_EQ_FIELD(pid);
	EVENT_EQ_FIELD(tid);
	EVENT_EQ_FIELD(id);
	EVENT_EQ_FIELD(hook_id);
	EVENT_EQ_FIELD(version);
	EVENT_EQ_FIELD(channel);
	EVENT_EQ_FIELD(level);
	EVENT_EQ_FIELD(opcode);
	EVENT_EQ_FIELD(task);
	EVENT_EQ_FIELD(keyword);
	EVENT_EQ_FIELD(version_word);
	EVENT_EQ_FIELD(header_flags);
	EVENT_EQ_FIELD(event_property);
	EVENT_EQ_FIELD(trace_flags);
	EVENT_EQ_FIELD(timestamp);
	EVENT_EQ_FIELD(kernel_time);
	EVENT_EQ_FIELD(user_time);
	if (!event_equal_guid(&a->activity_id, &b->activity_id))
		return "activity_id";
	EVENT_EQ_FIELD(instance_id);
	EVENT_EQ_FIELD(parent_instance_id);
	if (!event_equal_guid(&a->parent_guid, &b->parent_guid))
		return "parent_guid";
	EVENT_EQ_FIELD(reg_handle);
	EVENT_EQ_FIELD(parent_reg_handle);
	EVENT_EQ_FIELD(pebs_index);
	EVENT_EQ_FIELD(pmc_count);
	for (unsigned i = 0; i < a->pmc_count && i < 7; i++)
		if (a->pmc[i] != b->pmc[i])
			return "pmc";
	EVENT_EQ_FIELD(sequence);
	EVENT_EQ_FIELD(component_id);
	EVENT_EQ_FIELD(ext_size);
	EVENT_EQ_FIELD(ext_count);
	if (!event_equal_bytes(a->ext, b->ext, a->ext_size))
		return "ext";
	EVENT_EQ_FIELD(payload_size);
	if (!event_equal_bytes(a->payload, b->payload, a->payload_size))
		return "payload";
#undef EVENT_EQ_FIELD
	return NULL;
}

/*! event_equal_names() : 1 when both provider_name pointers are NULL or
 *  name the same text. */
static inline int event_equal_names(const struct etl_event *a, const struct etl_event *b)
{
	if (!a->provider_name || !b->provider_name)
		return a->provider_name == b->provider_name;
	return strcmp(a->provider_name, b->provider_name) == 0;
}

#endif /* ETL_FUZZ_EVENT_EQUAL_H */
