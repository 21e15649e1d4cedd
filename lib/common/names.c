/*
 * lib/common/names.c - names of statuses, reasons, header kinds and extended item
 * types, as printed by the tools and used in their JSON output.
 */
#define ETL_BUILDING_LIB 1
#include <strings.h>
#include "etl.h"

const char *etl_strerror(int errcode)
{
	static const char *const names[ETL_E_MAX_] = {
		[ETL_E_NONE] = "no error",
		[ETL_E_TRUNCATED] = "truncated data",
		[ETL_E_BAD_MAGIC] = "bad marker",
		[ETL_E_BAD_SIZE] = "bad size",
		[ETL_E_BAD_ALIGNMENT] = "bad alignment",
		[ETL_E_UNSUPPORTED_HEADER_TYPE] = "unsupported trace header type",
		[ETL_E_DECOMPRESS] = "malformed compressed data",
		[ETL_E_NOMEM] = "out of memory",
		[ETL_E_IO] = "input/output error",
		[ETL_E_MISUSE] = "API misuse",
		[ETL_E_BAD_VALUE] = "bad value",
		[ETL_E_UNSUPPORTED] = "unsupported",
		[ETL_E_LIMIT] = "limit reached",
		[ETL_E_NOT_FOUND] = "not found",
	};
	if (errcode < 0 || errcode >= ETL_E_MAX_)
		return "unknown error";
	return names[errcode];
}

const char *etl_status_name(int status)
{
	switch (status) {
	case ETL_OK: return "ok";
	case ETL_END: return "end";
	case ETL_WARN: return "warn";
	case ETL_FAILED: return "failed";
	case ETL_FATAL: return "fatal";
	default: return "?";
	}
}

static const char *const kind_names[ETL_HDR_KIND_COUNT_] = {
	[ETL_HDR_UNKNOWN] = "UNKNOWN",
	[ETL_HDR_SYSTEM32] = "SYSTEM32",
	[ETL_HDR_SYSTEM64] = "SYSTEM64",
	[ETL_HDR_COMPACT32] = "COMPACT32",
	[ETL_HDR_COMPACT64] = "COMPACT64",
	[ETL_HDR_PERFINFO32] = "PERFINFO32",
	[ETL_HDR_PERFINFO64] = "PERFINFO64",
	[ETL_HDR_FULL_HEADER32] = "FULL_HEADER32",
	[ETL_HDR_FULL_HEADER64] = "FULL_HEADER64",
	[ETL_HDR_INSTANCE32] = "INSTANCE32",
	[ETL_HDR_INSTANCE64] = "INSTANCE64",
	[ETL_HDR_EVENT_HEADER32] = "EVENT_HEADER32",
	[ETL_HDR_EVENT_HEADER64] = "EVENT_HEADER64",
	[ETL_HDR_MESSAGE] = "MESSAGE",
	[ETL_HDR_ERROR] = "ERROR",
	[ETL_HDR_TIMED] = "TIMED",
	[ETL_HDR_WNODE] = "WNODE",
};

const char *etl_hdr_kind_name(int kind)
{
	if (kind < 0 || kind >= ETL_HDR_KIND_COUNT_)
		return "UNKNOWN";
	return kind_names[kind];
}

int etl_hdr_kind_from_name(const char *name)
{
	for (int k = 1; k < ETL_HDR_KIND_COUNT_; k++)
		if (strcasecmp(kind_names[k], name) == 0)
			return k;
	return ETL_HDR_UNKNOWN;
}

const char *etl_ext_type_name(unsigned t)
{
	static const char *const names[] = {
		NULL, "RELATED_ACTIVITYID", "SID", "TS_ID", "INSTANCE_INFO",
		"STACK_TRACE32", "STACK_TRACE64", "PEBS_INDEX", "PMC_COUNTERS",
		"PSM_KEY", "EVENT_KEY", "EVENT_SCHEMA_TL", "PROV_TRAITS",
		"PROCESS_START_KEY", "CONTROL_GUID", "QPC_DELTA", "CONTAINER_ID",
		"STACK_KEY32", "STACK_KEY64",
	};
	if (t >= sizeof names / sizeof names[0])
		return NULL;
	return names[t];
}

const char *etl_version_string(void)
{
#define ETL_STR2(x) #x
#define ETL_STR(x) ETL_STR2(x)
	return ETL_STR(ETL_VERSION_MAJOR) "." ETL_STR(ETL_VERSION_MINOR) "." ETL_STR(ETL_VERSION_PATCH);
}
