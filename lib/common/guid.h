/*
 * lib/common/guid.h - comparing two GUIDs on the hot paths (decoder
 * caches, renderers' memos, the replay's provider table): etl_guid_equal()
 * inline, since a struct etl_guid is 16 bytes with no padding.
 */
#ifndef ETL_COMMON_GUID_H
#define ETL_COMMON_GUID_H

#include <string.h>
#include "etl_util.h"

_Static_assert(sizeof(struct etl_guid) == 16, "struct etl_guid is 16 bytes");

static inline int etl__guid_same(const struct etl_guid *a, const struct etl_guid *b)
{
	return memcmp(a, b, sizeof *a) == 0;
}

#endif /* ETL_COMMON_GUID_H */
