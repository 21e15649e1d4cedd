/*
 * formats.c - registry of trace-header modules and helpers they share.
 *
 * Record recognition follows doc/format.md §3.1 (GC traceheaders index):
 * the first u32 of a record is its marker; b3 = marker >> 24.
 *   0xFFFFFFFF           end of records (fill)       -> handled by the core
 *   b3 & 0x80 == 0       legacy WNODE_HEADER block    -> hdr_legacy.c
 *   b3 == 0x90           MESSAGE_TRACE_HEADER (WPP)   -> hdr_message.c
 *   b3 & 0xC0 == 0xC0    dispatch on header type b2   -> table below
 *   anything else        not a record: the buffer is corrupt
 */
#define ETL_BUILDING_LIB 1
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include "formats/hdr/hdr.h"

const struct etl_hdr_ops *const etl__hdr_modules[] = {
	&etl__hdr_system,   &etl__hdr_compact, &etl__hdr_perfinfo,
	&etl__hdr_full,     &etl__hdr_instance, &etl__hdr_event,
	&etl__hdr_message,  &etl__hdr_error,   &etl__hdr_timed,
	&etl__hdr_wnode,    NULL
};

/* Header-type byte -> module, for markers with b3 & 0xC0 == 0xC0. A switch
 * rather than a lazily built table: constant, thread-safe, and compiled to a
 * jump table. The modules' .types lists carry the same bytes. */
static const struct etl_hdr_ops *by_type(unsigned b2)
{
	switch (b2) {
	case 0x01: case 0x02: return &etl__hdr_system;
	case 0x03: case 0x04: return &etl__hdr_compact;
	case 0x0A: case 0x14: return &etl__hdr_full;
	case 0x0B: case 0x15: return &etl__hdr_instance;
	case 0x0C:            return &etl__hdr_timed;
	case 0x0D:            return &etl__hdr_error;
	case 0x10: case 0x11: return &etl__hdr_perfinfo;
	case 0x12: case 0x13: return &etl__hdr_event;
	default:              return NULL;
	}
}

const struct etl_hdr_ops *etl__hdr_for_marker(uint32_t marker)
{
	unsigned b3 = marker >> 24;
	if ((b3 & 0xC0u) == 0xC0u)
		return by_type((marker >> 16) & 0xFFu);
	if (b3 == 0x90u)
		return &etl__hdr_message;
	if ((b3 & 0x80u) == 0)
		return &etl__hdr_wnode;
	return NULL;
}

const struct etl_hdr_ops *etl__hdr_by_name(const char *name)
{
	for (size_t i = 0; etl__hdr_modules[i]; i++)
		if (strcasecmp(etl__hdr_modules[i]->name, name) == 0)
			return etl__hdr_modules[i];
	return NULL;
}

int etl__err_set(struct etl_err *err, int code, uint32_t pos, const char *fmt, ...)
{
	va_list ap;
	err->code = code;
	err->pos = pos;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof err->msg, fmt, ap);
	va_end(ap);
	return ETL_FAILED;
}

/* doc/format.md §3.3 - PEBS index (u64) then PMC counters (u64 each),
 * announced by bits 0x8000 and 0x0700 of the version word, inserted right
 * after the fixed header in every system-style header. */
int etl__hdr_read_hw_items(struct etl_cur *rec, struct etl_event *ev, struct etl_err *err)
{
	uint16_t vw = ev->version_word;
	if (vw & ETL_TRACE_HEADER_PEBS_INDEX_FLAG) {
		ev->pebs_index = etl_cur_u64(rec);
		ev->present |= ETL_EVF_PEBS;
	}
	ev->pmc_count = (uint8_t)((vw & ETL_TRACE_HEADER_PMC_MASK) >> ETL_TRACE_HEADER_PMC_SHIFT);
	for (unsigned i = 0; i < ev->pmc_count; i++)
		ev->pmc[i] = etl_cur_u64(rec);
	if (ev->pmc_count)
		ev->present |= ETL_EVF_PMC;
	if (rec->err)
		return etl__err_set(err, ETL_E_BAD_SIZE, (uint32_t)rec->pos,
		                    "Record too small for its PEBS/PMC items: size=%zu, pebs=%u, pmc=%u",
		                    rec->len, (vw & ETL_TRACE_HEADER_PEBS_INDEX_FLAG) ? 1u : 0u,
		                    (unsigned)ev->pmc_count);
	return ETL_OK;
}

void etl__hdr_set_hook(struct etl_event *ev, uint16_t hook_id)
{
	ev->hook_id = hook_id;
	ev->opcode = (uint8_t)(hook_id & 0xFF);
	ev->present |= ETL_EVF_HOOKID;
	ev->provider_name = etl_kernel_group_provider(hook_id >> 8, &ev->provider);
	if (ev->provider_name)
		ev->present |= ETL_EVF_PROVIDER;
}

/* ---- writer side ---------------------------------------------------- */

const struct etl_hdr_ops *etl__hdr_for_kind(int kind)
{
	switch (kind) {
	case ETL_HDR_SYSTEM32:       case ETL_HDR_SYSTEM64:       return &etl__hdr_system;
	case ETL_HDR_COMPACT32:      case ETL_HDR_COMPACT64:      return &etl__hdr_compact;
	case ETL_HDR_PERFINFO32:     case ETL_HDR_PERFINFO64:     return &etl__hdr_perfinfo;
	case ETL_HDR_FULL_HEADER32:  case ETL_HDR_FULL_HEADER64:  return &etl__hdr_full;
	case ETL_HDR_INSTANCE32:     case ETL_HDR_INSTANCE64:     return &etl__hdr_instance;
	case ETL_HDR_EVENT_HEADER32: case ETL_HDR_EVENT_HEADER64: return &etl__hdr_event;
	case ETL_HDR_MESSAGE:        return &etl__hdr_message;
	case ETL_HDR_ERROR:          return &etl__hdr_error;
	case ETL_HDR_TIMED:          return &etl__hdr_timed;
	case ETL_HDR_WNODE:          return &etl__hdr_wnode;
	default:                     return NULL;
	}
}

size_t etl__hdr_total(size_t header_and_items, uint32_t payload_size, size_t max)
{
	size_t total;
	if (!etl_ckd_add_size(&total, header_and_items, payload_size) || total > max)
		return 0;
	return total;
}

int etl__hdr_encode_check(const char *what, size_t n, size_t want,
                          const struct etl_event *ev, struct etl_err *err)
{
	if (want == 0)
		return etl__err_set(err, ETL_E_BAD_SIZE, 0,
		                    "%s header cannot encode this event (wrong kind or too large): kind=%d, payload-size=%u",
		                    what, ev->kind, (unsigned)ev->payload_size);
	if (n != want)
		return etl__err_set(err, ETL_E_MISUSE, 0,
		                    "Output size is not the encoded size: header=%s, n=%zu, encoded-size=%zu",
		                    what, n, want);
	if (ev->payload_size && !ev->payload)
		return etl__err_set(err, ETL_E_MISUSE, 0,
		                    "Event has a payload size but no payload: payload-size=%u",
		                    (unsigned)ev->payload_size);
	return ETL_OK;
}

int etl__hdr_merge_u32(uint32_t a, uint32_t b, const char *na, const char *nb,
                       uint32_t *out, struct etl_err *err)
{
	if (a == b || b == 0) {
		*out = a;
		return 0;
	}
	if (a == 0) {
		*out = b;
		return 0;
	}
	etl__err_set(err, ETL_E_BAD_VALUE, 0,
	             "Event fields stored in the same bytes disagree: %s=0x%x, %s=0x%x",
	             na, (unsigned)a, nb, (unsigned)b);
	return -1;
}

int etl__hdr_version_word(const struct etl_event *ev, uint16_t *out, struct etl_err *err)
{
	uint32_t low;
	if (etl__hdr_merge_u32(ev->version_word & 0xFFu, ev->version, "version_word&0xff",
	                       "version", &low, err) != 0)
		return -1;
	*out = (uint16_t)((ev->version_word & 0xFF00u) | low);
	return 0;
}

int etl__hdr_hook_word(const struct etl_event *ev, uint16_t *out, struct etl_err *err)
{
	uint32_t low;
	if (etl__hdr_merge_u32(ev->hook_id & 0xFFu, ev->opcode, "hook_id&0xff", "opcode",
	                       &low, err) != 0)
		return -1;
	*out = (uint16_t)((ev->hook_id & 0xFF00u) | low);
	return 0;
}

size_t etl__hdr_hw_items_size(uint16_t vw)
{
	size_t n = (vw & ETL_TRACE_HEADER_PMC_MASK) >> ETL_TRACE_HEADER_PMC_SHIFT;
	if (vw & ETL_TRACE_HEADER_PEBS_INDEX_FLAG)
		n++;
	return 8 * n;
}

int etl__hdr_hw_items_check(const struct etl_event *ev, uint16_t vw, struct etl_err *err)
{
	unsigned pmc = (vw & ETL_TRACE_HEADER_PMC_MASK) >> ETL_TRACE_HEADER_PMC_SHIFT;
	if (ev->pmc_count != pmc)
		return etl__err_set(err, ETL_E_BAD_VALUE, 0,
		                    "PMC counter count disagrees with the version word: pmc_count=%u, version_word=0x%04x",
		                    (unsigned)ev->pmc_count, (unsigned)vw);
	if ((ev->present & ETL_EVF_PEBS) && !(vw & ETL_TRACE_HEADER_PEBS_INDEX_FLAG))
		return etl__err_set(err, ETL_E_BAD_VALUE, 0,
		                    "Event has a PEBS index but its version word lacks the PEBS bit 0x8000: version_word=0x%04x",
		                    (unsigned)vw);
	return ETL_OK;
}

/* doc/format.md §3.3 - PEBS index first, then the counters. */
size_t etl__hdr_write_hw_items(uint8_t *out, const struct etl_event *ev, uint16_t vw)
{
	size_t at = 0;
	unsigned pmc = (vw & ETL_TRACE_HEADER_PMC_MASK) >> ETL_TRACE_HEADER_PMC_SHIFT;
	if (vw & ETL_TRACE_HEADER_PEBS_INDEX_FLAG) {
		etl_put64(out, ev->pebs_index);
		at += 8;
	}
	for (unsigned i = 0; i < pmc; i++, at += 8)
		etl_put64(out + at, ev->pmc[i]);
	return at;
}
