/*
 * lib/trace/trace_encode.h - the record encoders of the tracing runtime's write
 * kinds (lib/trace/trace_encode.c), internal to libetl.
 *
 * A write function (lib/trace/trace_write.c) fills one of the descriptions
 * below on its stack, turns it into a struct etl__rt_event with
 * etl__*_event() and hands that to etl__rt_deliver(). The core then calls
 * size() and encode() once per receiving session. The encoders depend on
 * nothing of the delivery core, so the tests run them into plain byte
 * buffers too.
 *
 * Records (doc/format.md; 64-bit forms, as Windows writes them from a
 * 64-bit process):
 *   - EVENT_HEADER (0xC013, doc/format.md §3.6) for etl_write(),
 *     etl_write_transfer(), etl_write_tracelogging(): Flags =
 *     EXTENDED_INFO when items follow, nothing else (the 32/64-bit and
 *     other flags are synthesised by consumers and are not stored in
 *     buffers, doc/format.md §3.6, §6); EventProperty 0; ThreadId /
 *     ProcessId / TimeStamp from the stamp; KernelTime / UserTime
 *     (ProcessorTime) 0: the runtime does not measure CPU time (a system
 *     call per event would exceed its budget).
 *     Extended items, each ALIGN8(8 + DataSize) bytes with Linkage bit 0
 *     set on all but the last, in ascending ExtType order except that
 *     PROV_TRAITS precedes EVENT_SCHEMA_TL as in Windows files:
 *       0x01 RELATED_ACTIVITYID  transfer writes with a related id
 *       0x02 SID                 ETL_ENABLE_SID: S-1-22-1-<uid> (the
 *                                Unix-user SID form), 16 bytes
 *       0x03 TS_ID               ETL_ENABLE_TS_ID: u32 getsid(0)
 *       0x06 STACK_TRACE64       ETL_ENABLE_STACK_TRACE: u64 MatchId 0,
 *                                then the return addresses from glibc
 *                                backtrace(), starting at the writer's
 *                                caller (at most ETL__STACK_MAX); no item
 *                                where backtrace() is unavailable
 *       0x0A EVENT_KEY           ETL_ENABLE_EVENT_KEY: u64 FNV-1a of the
 *                                provider GUID (16 bytes as stored), Id
 *                                (u16 LE), Version (u8) and, for
 *                                TraceLogging, the metadata bytes
 *       0x0C PROV_TRAITS         TraceLogging: u16 size, provider name NUL
 *       0x0B EVENT_SCHEMA_TL     TraceLogging: u16 size, metadata
 *       0x0D PROCESS_START_KEY   ETL_ENABLE_PROCESS_START_KEY: u64
 *                                starttime * 2^22 + pid, starttime being
 *                                field 22 of /proc/self/stat (clock ticks
 *                                since boot; pid < 2^22 on Linux), so
 *                                unique per process start within a boot
 *   - EVENT_TRACE_HEADER (0xC014, doc/format.md §3.4) and
 *     EVENT_INSTANCE_GUID_HEADER (0xC015, doc/format.md §3.5), as
 *     TraceEvent / TraceEventInstance with WNODE_FLAG_TRACED_GUID store
 *     them (the class GUID in place): Class.Type/Level/Version, class
 *     GUID; KernelTime / UserTime at 0x28 / 0x2C 0 (on disk they are
 *     CPU-time outputs, not the caller's Flags, doc/format.md §3.4; not
 *     measured, as for EVENT_HEADER); instance ids and parent GUID at
 *     0x30..0x47.
 *   - MESSAGE_TRACE_HEADER (0x90, doc/format.md §3.7): OptionFlags
 *     SEQUENCE | GUID | TIMESTAMP | SYSTEMINFO | POINTER64 (POINTER32 in a
 *     32-bit process); items u32 sequence, GUID, i64 timestamp, u32 tid,
 *     u32 pid, unaligned.
 */
#ifndef ETL_TRACE_ENCODE_H
#define ETL_TRACE_ENCODE_H

#ifndef ETL_BUILDING_LIB
#error "lib/trace/trace_encode.h is internal to libetl"
#endif

#include <stdint.h>
#include "etl_trace.h"
#include "lib/trace/trace_seam.h"

#define ETL__STACK_MAX 64

/* struct etl_data.reserved of a TraceLogging piece (etl_tracelogging.h)
 * that is preceded by a u16 count: ETL__TL_COUNTED | element size; the
 * count written is size / element size. */
#ifndef ETL__TL_COUNTED
#define ETL__TL_COUNTED 0x80000000u
#endif

/* EVENT_HEADER writes: manifest, transfer, TraceLogging. */
struct etl__eh_desc {
	struct etl_guid provider;
	struct etl_guid activity;
	struct etl_guid related;
	int has_related;
	struct etl_event_descriptor d;     /* channel already defaulted      */
	const uint8_t *meta;               /* TraceLogging metadata without its
	                                      size prefix, or NULL            */
	uint16_t meta_size;
	uint16_t name_len;                 /* provider name bytes (no NUL)    */
	const char *prov_name;             /* TraceLogging traits name        */
	uint32_t n;
	const struct etl_data *data;
	uint32_t payload_size;             /* bytes, counted prefixes included;
	                                      UINT32_MAX: cannot be encoded   */
	int counted;                       /* honour ETL__TL_COUNTED pieces   */
	uintptr_t caller;                  /* return address in the caller of
	                                      the public write, or 0          */
	/* Stack captured at the first size() call that asks for it. */
	int stack_state;                   /* 0 not yet, 1 captured           */
	uint32_t stack_n;
	uint64_t stack[ETL__STACK_MAX];
};

/* Classic writes: EVENT_TRACE_HEADER, EVENT_INSTANCE_GUID_HEADER. */
struct etl__classic_desc {
	struct etl_guid class_guid;
	struct etl_guid parent_guid;
	uint8_t type, level;
	uint16_t version;
	int instance;                      /* 1: instance header              */
	uint32_t instance_id, parent_instance_id;
	uint32_t n;
	const struct etl_data *data;
	uint32_t payload_size;
};

/* WPP-style messages. */
struct etl__msg_desc {
	struct etl_guid message_guid;
	uint16_t number;
	uint32_t sequence;
	uint32_t n;
	const struct etl_data *data;
	uint32_t payload_size;
};

/*! etl__payload_size() : total bytes of n pieces (with the u16 prefixes of
 *  ETL__TL_COUNTED pieces when counted != 0), or UINT32_MAX when over
 *  0xFFFF, when a counted piece holds more than 0xFFFF elements, or when
 *  a piece has a size but no pointer (or data is NULL with n > 0). */
uint32_t etl__payload_size(uint32_t n, const struct etl_data *data, int counted);

/*! etl__eh_prepare() : fills x for an EVENT_HEADER write. activity NULL:
 *  the thread's current activity; related NULL: none; meta NULL: not
 *  TraceLogging (else prov_name names the provider in the traits; NULL
 *  means ""). The channel of a TraceLogging event defaults to 11.
 *  @return : ETL_OK, or ETL_FAILED when the payload is unusable
 *  (etl__payload_size() == UINT32_MAX is still ETL_OK: size() says 0). */
int etl__eh_prepare(struct etl__eh_desc *x, const struct etl_guid *provider,
                    const struct etl_event_descriptor *d,
                    const struct etl_guid *activity, const struct etl_guid *related,
                    const void *meta, uint16_t meta_size, const char *prov_name,
                    uint32_t n, const struct etl_data *data, int counted, uintptr_t caller);

/* Fill *ev (prov, level, keyword, callbacks, ctx = x) for delivery. */
void etl__eh_event(struct etl__rt_event *ev, etl_provider *p, struct etl__eh_desc *x);
void etl__classic_event(struct etl__rt_event *ev, etl_provider *p, const struct etl__classic_desc *x);
void etl__msg_event(struct etl__rt_event *ev, etl_provider *p, uint8_t level, uint64_t keyword,
                    const struct etl__msg_desc *x);

/*! etl__msg_next_sequence() : the process-wide WPP sequence counter:
 *  1, 2, 3, ... */
uint32_t etl__msg_next_sequence(void);

#endif /* ETL_TRACE_ENCODE_H */
