/*
 * lib/read/ext_items.c - walking and interpreting extended data items of EVENT_HEADER
 * records (doc/format.md §3.6, MS-EXT). The chain was validated when the
 * record was decoded (formats/hdr/hdr_event.c), so walking it here only needs
 * to follow the sizes; interpreting an item's data checks its own length.
 */
#define ETL_BUILDING_LIB 1
#include <string.h>
#include "etl.h"
#include "lib/common/cursor.h"
#include "lib/common/ext_walk.h"

void etl_ext_iter_init(struct etl_ext_iter *it, const struct etl_event *ev)
{
	it->ev = ev;
	it->pos = 0;
	it->index = 0;
}

int etl_ext_iter_next(struct etl_ext_iter *it, struct etl_ext_item *item)
{
	const struct etl_event *ev = it->ev;
	struct etl__ext_walk w = { it->pos, it->index };
	if (!etl__ext_walk_next(ev, &w, item))
		return ETL_END;
	item->file_offset = ev->in_compressed ? ev->buffer_offset
	                  : ev->file_offset + (uint64_t)(ev->ext - ev->record) + it->pos;
	it->pos = w.pos;
	it->index = w.index;
	return ETL_OK;
}

/* A UTF-8 string NUL-terminated inside [p, p+n): its length, or -1. */
static long strz_len(const uint8_t *p, size_t n)
{
	const uint8_t *z = memchr(p, 0, n);
	return z ? (long)(z - p) : -1;
}

int etl_ext_item_decode(const struct etl_ext_item *item, struct etl_ext_typed *out)
{
	struct etl_cur c;
	etl_cur_init(&c, item->data, item->data_size);
	memset(out, 0, sizeof *out);
	out->kind = item->ext_type;
	switch (item->ext_type) {
	case ETL_EXT_RELATED_ACTIVITYID:
	case ETL_EXT_CONTROL_GUID:
	case ETL_EXT_CONTAINER_ID:
		etl_cur_guid(&c, &out->u.guid);
		break;
	case ETL_EXT_SID: {
		out->u.sid.revision = etl_cur_u8(&c);
		out->u.sid.sub_count = etl_cur_u8(&c);
		const uint8_t *auth = etl_cur_bytes(&c, 6);
		if (auth)
			memcpy(out->u.sid.authority, auth, 6);
		out->u.sid.sub = etl_cur_bytes(&c, (size_t)out->u.sid.sub_count * 4);
		break;
	}
	case ETL_EXT_TS_ID:
		out->u.u32 = etl_cur_u32(&c);
		break;
	case ETL_EXT_INSTANCE_INFO:
		out->u.instance.instance_id = etl_cur_u32(&c);
		out->u.instance.parent_instance_id = etl_cur_u32(&c);
		etl_cur_guid(&c, &out->u.instance.parent_guid);
		break;
	case ETL_EXT_STACK_TRACE32:
	case ETL_EXT_STACK_TRACE64: {
		unsigned w = item->ext_type == ETL_EXT_STACK_TRACE32 ? 4 : 8;
		out->u.stack.match_id = etl_cur_u64(&c);
		out->u.stack.addr_size = (uint8_t)w;
		out->u.stack.count = (uint32_t)(etl_cur_left(&c) / w);
		out->u.stack.addrs = etl_cur_ptr(&c);
		if (etl_cur_left(&c) % w)
			c.err = 1;
		break;
	}
	case ETL_EXT_PEBS_INDEX:
	case ETL_EXT_PSM_KEY:
	case ETL_EXT_EVENT_KEY:
	case ETL_EXT_PROCESS_START_KEY:
	case ETL_EXT_QPC_DELTA:
		out->u.u64 = etl_cur_u64(&c);
		break;
	case ETL_EXT_PMC_COUNTERS:
		out->u.pmc.count = (uint32_t)(etl_cur_left(&c) / 8);
		out->u.pmc.counters = etl_cur_ptr(&c);
		if (etl_cur_left(&c) % 8)
			c.err = 1;
		break;
	case ETL_EXT_STACK_KEY32:
		out->u.stack_key.match_id = etl_cur_u64(&c);
		out->u.stack_key.stack_key = etl_cur_u32(&c);
		(void)etl_cur_u32(&c);
		break;
	case ETL_EXT_STACK_KEY64:
		out->u.stack_key.match_id = etl_cur_u64(&c);
		out->u.stack_key.stack_key = etl_cur_u64(&c);
		break;
	case ETL_EXT_EVENT_SCHEMA_TL:
	case ETL_EXT_PROV_TRAITS: {
		out->u.tl.declared_size = etl_cur_u16(&c);
		if (item->ext_type == ETL_EXT_EVENT_SCHEMA_TL) {
			/* Tag bytes: each has bit 7 set while another follows. */
			uint8_t tag;
			do {
				tag = etl_cur_u8(&c);
			} while (!c.err && (tag & 0x80));
		}
		if (c.err)
			break;
		long n = strz_len(etl_cur_ptr(&c), etl_cur_left(&c));
		if (n < 0) {
			c.err = 1;
			break;
		}
		out->u.tl.name = (const char *)etl_cur_ptr(&c);
		etl_cur_skip(&c, (size_t)n + 1);
		out->u.tl.rest = etl_cur_ptr(&c);
		out->u.tl.rest_size = (uint32_t)etl_cur_left(&c);
		break;
	}
	default:
		out->kind = 0;
		return ETL_WARN;
	}
	return c.err ? ETL_FAILED : ETL_OK;
}
