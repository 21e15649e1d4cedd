/*
 * sysstyle.c - the code shared by the three system-style trace headers
 * (hdr_system.c, hdr_compact.c, hdr_perfinfo.c), which differ only in
 * which fields sit between the HookId and the payload:
 *
 *   0x00 u16 Version (0x8000 PEBS index, 0x0700 PMC counter count)
 *   0x02 u8  HeaderType   0x03 u8 Flags 0xC0   0x04 u16 Size
 *   0x06 u16 HookId
 *   [u32 ThreadId, u32 ProcessId]      SYSTEM, COMPACT
 *   i64 SystemTime (logger clock)
 *   [u32 KernelTime, u32 UserTime]     SYSTEM
 *   [u64 PebsIndex] [u64 Counter[n]]   as the version word announces
 *   payload
 * (GC traceheaders pages; doc/format.md §3.2, §3.3.)
 */
#define ETL_BUILDING_LIB 1
#include <string.h>
#include "formats/hdr/hdr.h"

/* doc/format.md §3.2 - the total size of system-style records is the u16 at +4. */
int etl__sys_peek_size(const uint8_t *first, uint32_t *rec_size)
{
	*rec_size = etl_le16(first + 4);
	return 0;
}

int etl__sys_decode(const struct etl_sys_layout *l, struct etl_cur *rec, struct etl_event *ev,
                    struct etl_err *err)
{
	/* The fixed part taken from the cursor at once, its fields then read
	 * at their offsets: one bounds check for the ten or so of them (a
	 * check per field cost a ninth of the instructions of framing a
	 * kernel trace). */
	const uint8_t *h = etl_cur_bytes(rec, l->header_size);
	if (!h)
		return etl__err_set(err, ETL_E_TRUNCATED, (uint32_t)rec->pos,
		                    "%s record shorter than its header: size=%zu", l->what, rec->len);
	ev->version_word = etl_le16(h);
	ev->header_type = h[2];
	int is32 = ev->header_type == l->type32;
	ev->kind = is32 ? l->kind32 : l->kind64;
	ev->ptr_size = is32 ? 4 : 8;
	/* h[3]: the marker flags 0xC0 */
	ev->size = etl_le16(h + 4);
	etl__hdr_set_hook(ev, etl_le16(h + 6));
	size_t at = 8;
	if (l->has_ids) {
		ev->tid = etl_le32(h + 8);
		ev->pid = etl_le32(h + 12);
		ev->present |= ETL_EVF_PID;
		at = 16;
	}
	ev->timestamp = (int64_t)etl_le64(h + at);
	if (l->has_cpu_times) {
		ev->kernel_time = etl_le32(h + at + 8);
		ev->user_time = etl_le32(h + at + 12);
		ev->present |= ETL_EVF_CPU_TIMES;
	}
	ev->version = (uint8_t)(ev->version_word & 0xFF);
	ev->present |= ETL_EVF_TIMESTAMP;
	if (etl__hdr_read_hw_items(rec, ev, err) != ETL_OK)
		return ETL_FAILED;
	return etl__hdr_payload_rest(rec, ev);
}

/* The type byte for ev->kind, or 0 when this layout does not encode it. */
static uint8_t type_for(const struct etl_sys_layout *l, int kind)
{
	return kind == l->kind32 ? l->type32 : kind == l->kind64 ? l->type64 : 0;
}

size_t etl__sys_encoded_size(const struct etl_sys_layout *l, const struct etl_event *ev)
{
	if (!type_for(l, ev->kind))
		return 0;
	return etl__hdr_total(l->header_size + etl__hdr_hw_items_size(ev->version_word),
	                      ev->payload_size, ETL_HDR_MAX_RECORD16);
}

/* Writer: the same layout, type byte from ev->kind, marker flags 0xC0,
 * PEBS/PMC items as the version word announces them. */
int etl__sys_encode(const struct etl_sys_layout *l, uint8_t *out, size_t n,
                    const struct etl_event *ev, struct etl_err *err)
{
	uint16_t vw, hook;
	if (etl__hdr_encode_check(l->what, n, etl__sys_encoded_size(l, ev), ev, err) != ETL_OK)
		return ETL_FAILED;
	if (etl__hdr_version_word(ev, &vw, err) != 0 || etl__hdr_hook_word(ev, &hook, err) != 0 ||
	    etl__hdr_hw_items_check(ev, vw, err) != ETL_OK)
		return ETL_FAILED;
	etl_put16(out, vw);
	out[2] = type_for(l, ev->kind);
	out[3] = 0xC0;
	etl_put16(out + 0x04, (uint16_t)n);
	etl_put16(out + 0x06, hook);
	size_t at = 0x08;
	if (l->has_ids) {
		etl_put32(out + at, ev->tid);
		etl_put32(out + at + 4, ev->pid);
		at += 8;
	}
	etl_put64(out + at, (uint64_t)ev->timestamp);
	at += 8;
	if (l->has_cpu_times) {
		etl_put32(out + at, ev->kernel_time);
		etl_put32(out + at + 4, ev->user_time);
		at += 8;
	}
	at += etl__hdr_write_hw_items(out + at, ev, vw);
	if (ev->payload_size)
		memcpy(out + at, ev->payload, ev->payload_size);
	return ETL_OK;
}
