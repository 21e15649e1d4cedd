/*
 * lib/read/eventtrace.c - the EventTrace group (HookId 0x00xx, provider
 * {68fdd900-4a3e-11d1-84f4-0000f80464e3}): names of its records and the
 * payloads of those that follow the logfile header (doc/format.md §2.6).
 *
 *   0x0005 Extension / 0x0020 EndExtension: ETW_KERNEL_HEADER_EXTENSION,
 *          PERFINFO_GROUPMASK (8 x u32) + u32 Version (0x24 bytes)
 *   0x0050 PartitionInfoExtension: u16 version, u16 reserved,
 *          u32 partition type, i64 QPC offset from the root partition,
 *          then (version 0) two GUIDs: partition and parent partition
 */
#define ETL_BUILDING_LIB 1
#include <string.h>
#include "etl.h"
#include "lib/common/cursor.h"

const char *etl_eventtrace_name(unsigned opcode)
{
	switch (opcode) {
	case 0x00: return "Header";
	case 0x05: return "Extension";
	case 0x08: return "RundownComplete";
	case 0x20: return "EndExtension";
	case 0x30: return "RundownBegin";
	case 0x31: return "RundownEnd";
	case 0x40: return "DbgIdRSDS";
	case 0x41: return "DbgIdNB10";
	case 0x42: return "BuildInfo";
	case 0x43: return "BinaryPath";
	case 0x50: return "PartitionInfoExtension";
	case 0x52: return "LastDroppedTimes";
	default: return NULL;
	}
}

/* 1 if ev is a system-style record of the EventTrace group with this type. */
static int is_eventtrace(const struct etl_event *ev, unsigned type)
{
	return (ev->present & ETL_EVF_HOOKID) && ev->hook_id == type;
}

int etl_eventtrace_extension(const struct etl_event *ev, struct etl_header_extension *out)
{
	struct etl_cur c;
	if (!is_eventtrace(ev, 0x05) && !is_eventtrace(ev, 0x20))
		return ETL_FAILED;
	etl_cur_init(&c, ev->payload, ev->payload_size);
	for (int i = 0; i < 8; i++)
		out->group_mask[i] = etl_cur_u32(&c);
	out->version = etl_cur_u32(&c);
	return c.err ? ETL_FAILED : ETL_OK;
}

int etl_eventtrace_partition(const struct etl_event *ev, struct etl_partition_info *out)
{
	struct etl_cur c;
	if (!is_eventtrace(ev, 0x50))
		return ETL_FAILED;
	memset(out, 0, sizeof *out);
	etl_cur_init(&c, ev->payload, ev->payload_size);
	out->version = etl_cur_u16(&c);
	out->reserved = etl_cur_u16(&c);
	out->partition_type = etl_cur_u32(&c);
	out->qpc_offset = etl_cur_i64(&c);
	if (c.err)
		return ETL_FAILED;
	if (out->version == 0 && etl_cur_left(&c) >= 32) {
		etl_cur_guid(&c, &out->partition_id);
		etl_cur_guid(&c, &out->parent_id);
		out->has_ids = 1;
	}
	return ETL_OK;
}
