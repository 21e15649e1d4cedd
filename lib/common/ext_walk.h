/*
 * lib/common/ext_walk.h - the walk over an event's extended data items
 * (EVENT_HEADER records) that etl_ext_iter_next() and the library's own
 * per-event scans share (internal).
 *
 * Inline because the decoder's sources and the output each look through
 * the items of every event for one or two types (a TraceLogging schema, a
 * related activity id, a SID): called through the public iterator, which
 * also works out each item's file offset, these scans took 6 % of the
 * samples of a TraceLogging-to-JSON conversion whose events carry two
 * items each.
 *
 * The reader validated the chain (sizes, count) when it decoded the record;
 * the walk still stops where fewer than 8 bytes are left, so an event put
 * together by a program cannot make it read outside ev->ext.
 */
#ifndef ETL_COMMON_EXT_WALK_H
#define ETL_COMMON_EXT_WALK_H

#include "etl_event.h"
#include "lib/common/cursor.h"

/* The position of a walk: byte offset in ev->ext and items returned. */
struct etl__ext_walk {
	uint32_t pos;
	uint32_t index;
};

/* The item at w's position, if any: its header fields in *item (data,
 * sizes, type, linkage; not file_offset), and w moved past it. Returns 1,
 * or 0 after the last item. */
static inline int etl__ext_walk_next(const struct etl_event *ev, struct etl__ext_walk *w,
                                     struct etl_ext_item *item)
{
	if (w->index >= ev->ext_count || !ev->ext || w->pos > ev->ext_size || ev->ext_size - w->pos < 8)
		return 0;
	const uint8_t *h = ev->ext + w->pos;
	item->item_size = etl_le16(h);
	item->ext_type = etl_le16(h + 2);
	item->linkage = etl_le16(h + 4);
	item->data_size = etl_le16(h + 6);
	item->data = h + 8;
	w->pos += item->item_size;
	w->index++;
	return 1;
}

/* 1 when ev has an item of type `type`, else 0. */
static inline int etl__ext_has(const struct etl_event *ev, uint16_t type)
{
	struct etl__ext_walk w = { 0, 0 };
	struct etl_ext_item item;
	while (etl__ext_walk_next(ev, &w, &item))
		if (item.ext_type == type)
			return 1;
	return 0;
}

#endif /* ETL_COMMON_EXT_WALK_H */
