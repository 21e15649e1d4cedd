/*
 * etl_event.h - the unified, read-only event view shared by every trace
 * header type, and its extended data items. (GUIDs and the names of
 * well-known providers are in etl_util.h, included here.)
 *
 * An ETL record starts with one of several "trace headers" (SYSTEM, COMPACT,
 * PERFINFO, FULL/EVENT_TRACE_HEADER, INSTANCE, EVENT_HEADER, MESSAGE). The
 * reader decodes every one of them into the same struct etl_event so that
 * callers filter, print and convert events without caring which header a
 * provider used. Fields a header does not carry are zero and their
 * ETL_EVF_* presence bit is clear.
 *
 * Ownership: every pointer inside an etl_event borrows from the reader's
 * current buffer and is valid until the next call that advances the reader
 * (etl_reader_next(), etl_reader_next_buffer()) or etl_reader_free().
 */
#ifndef ETL_EVENT_H
#define ETL_EVENT_H

#include "etl_export.h"

#include <stddef.h>
#include <stdint.h>
#include "etl_util.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Trace header kinds. The numbering is the library's own and stable. */
enum etl_hdr_kind {
	ETL_HDR_UNKNOWN = 0,
	ETL_HDR_SYSTEM32,      /* SYSTEM_TRACE_HEADER, type 0x01       */
	ETL_HDR_SYSTEM64,      /* type 0x02                            */
	ETL_HDR_COMPACT32,     /* compact SYSTEM_TRACE_HEADER, 0x03    */
	ETL_HDR_COMPACT64,     /* 0x04                                 */
	ETL_HDR_PERFINFO32,    /* PERFINFO_TRACE_HEADER, 0x10          */
	ETL_HDR_PERFINFO64,    /* 0x11                                 */
	ETL_HDR_FULL_HEADER32, /* EVENT_TRACE_HEADER, 0x0A             */
	ETL_HDR_FULL_HEADER64, /* 0x14                                 */
	ETL_HDR_INSTANCE32,    /* EVENT_INSTANCE_(GUID_)HEADER, 0x0B   */
	ETL_HDR_INSTANCE64,    /* 0x15                                 */
	ETL_HDR_EVENT_HEADER32,/* EVENT_HEADER, 0x12                   */
	ETL_HDR_EVENT_HEADER64,/* 0x13                                 */
	ETL_HDR_MESSAGE,       /* MESSAGE_TRACE_HEADER (WPP), 0x90 flag */
	ETL_HDR_ERROR,         /* TRACE_HEADER_TYPE_ERROR, 0x0D        */
	ETL_HDR_TIMED,         /* TRACE_HEADER_TYPE_TIMED, 0x0C        */
	ETL_HDR_WNODE,         /* legacy WNODE_HEADER block            */
	ETL_HDR_KIND_COUNT_
};

/*! etl_hdr_kind_name() : "SYSTEM32", "EVENT_HEADER64", "MESSAGE", ... as
 *  used by etldump and its JSON output. @return : static string; "UNKNOWN"
 *  for values out of range. */
ETL_API const char *etl_hdr_kind_name(int kind);

/*! etl_hdr_kind_from_name() : inverse of etl_hdr_kind_name(), case-insensitive.
 *  @return : the kind, or ETL_HDR_UNKNOWN. */
ETL_API int etl_hdr_kind_from_name(const char *name);

/* Presence bits in etl_event.present: which optional fields hold data. */
#define ETL_EVF_PID          0x0001u /* pid and tid                          */
#define ETL_EVF_CPU_TIMES    0x0002u /* kernel_time and user_time            */
#define ETL_EVF_DESCRIPTOR   0x0004u /* id, version, channel, level, opcode,
                                        task, keyword (EVENT_HEADER)         */
#define ETL_EVF_ACTIVITY     0x0008u /* activity_id                          */
#define ETL_EVF_TIMESTAMP    0x0010u /* timestamp was in the record          */
#define ETL_EVF_PROVIDER     0x0020u /* provider GUID                        */
#define ETL_EVF_INSTANCE     0x0040u /* instance_id, parent_instance_id,
                                        parent_guid                          */
#define ETL_EVF_PEBS         0x0080u /* pebs_index                           */
#define ETL_EVF_PMC          0x0100u /* pmc_count / pmc[]                    */
#define ETL_EVF_SEQUENCE     0x0200u /* WPP sequence                         */
#define ETL_EVF_COMPONENT_ID 0x0400u /* WPP component_id                     */
#define ETL_EVF_HOOKID       0x0800u /* hook_id (system-style headers)       */
#define ETL_EVF_UTC          0x1000u /* utc is a converted time              */
#define ETL_EVF_OLD_INSTANCE 0x2000u /* INSTANCE in the pre-1.1 0x38 form:
                                        reg_handle / parent_reg_handle       */
#define ETL_EVF_CLASS        0x4000u /* opcode/level/version from a
                                        classic Class field (FULL/INSTANCE)  */

/* Extended data item types (EVENT_HEADER_EXT_TYPE_*). */
enum etl_ext_type {
	ETL_EXT_RELATED_ACTIVITYID = 0x0001,
	ETL_EXT_SID                = 0x0002,
	ETL_EXT_TS_ID              = 0x0003,
	ETL_EXT_INSTANCE_INFO      = 0x0004,
	ETL_EXT_STACK_TRACE32      = 0x0005,
	ETL_EXT_STACK_TRACE64      = 0x0006,
	ETL_EXT_PEBS_INDEX         = 0x0007,
	ETL_EXT_PMC_COUNTERS       = 0x0008,
	ETL_EXT_PSM_KEY            = 0x0009,
	ETL_EXT_EVENT_KEY          = 0x000A,
	ETL_EXT_EVENT_SCHEMA_TL    = 0x000B,
	ETL_EXT_PROV_TRAITS        = 0x000C,
	ETL_EXT_PROCESS_START_KEY  = 0x000D,
	ETL_EXT_CONTROL_GUID       = 0x000E,
	ETL_EXT_QPC_DELTA          = 0x000F,
	ETL_EXT_CONTAINER_ID       = 0x0010,
	ETL_EXT_STACK_KEY32        = 0x0011,
	ETL_EXT_STACK_KEY64        = 0x0012
};

/*! etl_ext_type_name() : "RELATED_ACTIVITYID", "STACK_TRACE64", ...
 *  @return : static string, or NULL for a type the library does not know. */
ETL_API const char *etl_ext_type_name(unsigned ext_type);

/* One extended data item as stored on disk. */
struct etl_ext_item {
	uint16_t ext_type;     /* ExtType                                       */
	uint16_t item_size;    /* bytes the item occupies, header included      */
	uint16_t linkage;      /* bit 0: another item follows; bits 1-15 kept   */
	uint16_t data_size;    /* DataSize                                      */
	const uint8_t *data;   /* data_size bytes, borrowed                     */
	uint64_t file_offset;  /* absolute file offset of the item header (for
	                          compressed buffers: see etl_event.in_compressed) */
};

/* Typed view of an extended item's data, filled by etl_ext_item_decode(). */
struct etl_ext_typed {
	unsigned kind;                     /* ETL_EXT_* this union member is for,
	                                      0 when only raw bytes are known   */
	union {
		struct etl_guid guid;          /* RELATED_ACTIVITYID, CONTROL_GUID,
		                                  CONTAINER_ID                      */
		struct {                       /* SID                               */
			uint8_t revision;
			uint8_t sub_count;
			uint8_t authority[6];
			const uint8_t *sub;        /* sub_count little-endian u32s      */
		} sid;
		uint32_t u32;                  /* TS_ID (session id)                */
		uint64_t u64;                  /* PEBS_INDEX, PSM_KEY, EVENT_KEY,
		                                  PROCESS_START_KEY, QPC_DELTA      */
		struct {                       /* INSTANCE_INFO                     */
			uint32_t instance_id;
			uint32_t parent_instance_id;
			struct etl_guid parent_guid;
		} instance;
		struct {                       /* STACK_TRACE32 / STACK_TRACE64     */
			uint64_t match_id;
			uint32_t count;            /* number of addresses               */
			uint8_t  addr_size;        /* 4 or 8                            */
			const uint8_t *addrs;      /* count little-endian addresses     */
		} stack;
		struct {                       /* PMC_COUNTERS                      */
			uint32_t count;
			const uint8_t *counters;   /* count little-endian u64s          */
		} pmc;
		struct {                       /* STACK_KEY32 / STACK_KEY64         */
			uint64_t match_id;
			uint64_t stack_key;
		} stack_key;
		struct {                       /* EVENT_SCHEMA_TL / PROV_TRAITS     */
			uint16_t declared_size;    /* leading u16 total size            */
			const char *name;          /* UTF-8 event or provider name, NUL
			                              terminated inside the item         */
			const uint8_t *rest;       /* bytes after the name              */
			uint32_t rest_size;
		} tl;
	} u;
};

/*! etl_ext_item_decode() : interprets item->data according to its type.
 *  @return : ETL_OK when the layout is known and the data fits it;
 *            ETL_WARN when the type has no known layout (out->kind = 0, use
 *            the raw bytes); ETL_FAILED when the data is too short or
 *            inconsistent for its type. Pointers in *out borrow from item. */
ETL_API int etl_ext_item_decode(const struct etl_ext_item *item, struct etl_ext_typed *out);

/* WPP OptionFlags bits (TRACE_MESSAGE_*). */
#define ETL_MSG_SEQUENCE        0x0001u
#define ETL_MSG_GUID            0x0002u
#define ETL_MSG_COMPONENTID     0x0004u
#define ETL_MSG_TIMESTAMP       0x0008u
#define ETL_MSG_PERF_TIMESTAMP  0x0010u
#define ETL_MSG_SYSTEMINFO      0x0020u
#define ETL_MSG_POINTER32       0x0040u
#define ETL_MSG_POINTER64       0x0080u

/* The unified event view. */
struct etl_event {
	/* Identity of the record */
	int      kind;             /* enum etl_hdr_kind                          */
	uint8_t  header_type;      /* raw header-type byte (0x90 for MESSAGE)    */
	uint8_t  ptr_size;         /* 4 or 8: pointer width of payload pointers  */
	uint16_t present;          /* ETL_EVF_* bits                             */
	uint32_t size;             /* total record size in bytes                 */
	uint32_t header_size;      /* bytes before the payload (fixed header,
	                              PEBS/PMC, extended items, WPP options)     */

	/* Who */
	struct etl_guid provider;  /* provider / class / message GUID            */
	const char *provider_name; /* static name for kernel groups, else NULL   */
	uint32_t pid;              /* process id                                 */
	uint32_t tid;              /* thread id                                  */
	uint16_t processor;        /* from the buffer's ClientContext            */
	uint16_t logger_id;        /* from the buffer's ClientContext            */

	/* What */
	uint16_t id;               /* EVENT_HEADER Id; WPP MessageNumber; 0 for
	                              the other headers (they name events by
	                              opcode: HookId low byte or Class.Type)     */
	uint16_t hook_id;          /* SYSTEM/COMPACT/PERFINFO HookId             */
	uint8_t  version;          /* event/class version (flags masked off)     */
	uint8_t  channel;
	uint8_t  level;
	uint8_t  opcode;           /* EVENT_HEADER Opcode; HookId low byte;
	                              Class.Type                                 */
	uint16_t task;
	uint64_t keyword;
	uint16_t version_word;     /* raw SYSTEM/PERFINFO Version word (with
	                              PEBS/PMC bits) or FULL Class.Version       */
	uint16_t header_flags;     /* EVENT_HEADER Flags; WPP OptionFlags        */
	uint16_t event_property;   /* EVENT_HEADER EventProperty                 */
	uint32_t trace_flags;      /* FULL/INSTANCE dword at 0x2C (Flags or
	                              UserTime, as stored)                       */

	/* When */
	int64_t  timestamp;        /* raw timestamp in the logger clock          */
	int64_t  utc;              /* FILETIME (100 ns since 1601, UTC)           */
	uint32_t kernel_time;
	uint32_t user_time;

	/* Correlation */
	struct etl_guid activity_id;
	uint32_t instance_id;      /* INSTANCE headers                           */
	uint32_t parent_instance_id;
	struct etl_guid parent_guid;
	uint64_t reg_handle;       /* old INSTANCE form only                     */
	uint64_t parent_reg_handle;

	/* Hardware items of SYSTEM/COMPACT/PERFINFO headers */
	uint64_t pebs_index;
	uint8_t  pmc_count;        /* 0..7                                       */
	uint64_t pmc[7];

	/* WPP */
	uint32_t sequence;
	uint32_t component_id;

	/* Extended data items (EVENT_HEADER): walk with etl_ext_iter_*()   */
	const uint8_t *ext;        /* first item, borrowed                       */
	uint32_t ext_size;         /* bytes of the whole chain                   */
	uint32_t ext_count;        /* number of items                            */

	/* Payload */
	const uint8_t *payload;    /* user data, borrowed                        */
	uint32_t payload_size;
	const uint8_t *record;     /* the whole record, borrowed                 */

	/* Where */
	uint64_t file_offset;      /* absolute file offset of the record; for a
	                              record in a compressed buffer, the offset of
	                              that buffer                                */
	uint64_t buffer_offset;    /* absolute file offset of its buffer         */
	uint32_t offset_in_buffer; /* record offset within the (inflated) buffer */
	uint8_t  in_compressed;    /* 1 if the buffer was compressed             */
};

/* Iterator over an event's extended data items. */
struct etl_ext_iter {
	const struct etl_event *ev;
	uint32_t pos;              /* byte position inside ev->ext               */
	uint32_t index;            /* items returned so far                      */
};

/*! etl_ext_iter_init() : starts an iteration over ev's extended items. */
ETL_API void etl_ext_iter_init(struct etl_ext_iter *it, const struct etl_event *ev);

/*! etl_ext_iter_next() : fills *item with the next item.
 *  @return : ETL_OK, or ETL_END after the last one. The chain was validated
 *  when the event was read, so no other value is returned. For an event a
 *  program filled in itself, the walk ends where fewer than 8 bytes of
 *  ev->ext_size are left (an item size running past the chain included);
 *  an item's data_size is as the bytes say. */
ETL_API int etl_ext_iter_next(struct etl_ext_iter *it, struct etl_ext_item *item);

#ifdef __cplusplus
}
#endif
#endif /* ETL_EVENT_H */
