/*
 * formats.h - the interface between the reader core and the trace-header
 * modules in formats/ (internal).
 *
 * The core owns bounds: it reads a record's size with the module's
 * peek_size(), checks it against min_size and the rest of the buffer, and
 * hands decode() a cursor limited to that one record, so a module can never
 * read into the next record. decode() allocates nothing: the event it fills
 * borrows pointers into the record.
 */
#ifndef ETL_FORMATS_H
#define ETL_FORMATS_H

#ifndef ETL_BUILDING_LIB
#error "formats.h is internal to libetl"
#endif

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include "lib/common/cursor.h"
#include "etl_errors.h"
#include "etl_event.h"

/* Why a module rejected a record: reason, position inside the record and a
 * sentence. The core turns pos into an absolute file offset. */
struct etl_err {
	int code;            /* enum etl_errcode                            */
	uint32_t pos;        /* byte offset inside the record               */
	char msg[192];
};

/* Facts about the file that change how a record decodes. */
struct etl_hdr_ctx {
	uint8_t layout_major;  /* log-file layout version (logfile header   */
	uint8_t layout_minor;  /* Sub.SubMinor); 0.0 when unknown           */
	uint8_t default_ptr_size; /* logfile PointerSize, for WPP messages
	                             that state none; 0 when unknown         */
};

struct etl_hdr_ops {
	const char *name;        /* "system", "compact", ... for messages     */
	uint8_t types[2];        /* header-type bytes handled; 0 = unused     */
	uint32_t min_size;       /* smallest valid record of this type        */
	/* Size field only. first holds at least 8 bytes. 0 on success,
	 * -1 when the size cannot be known (the record is then corrupt). */
	int (*peek_size)(const uint8_t *first, uint32_t *rec_size);
	/* Decodes one record. rec covers exactly the record. Returns ETL_OK,
	 * ETL_WARN (decoded, something unusual noted in err), or ETL_FAILED
	 * with err filled. */
	int (*decode)(struct etl_cur *rec, const struct etl_hdr_ctx *ctx,
	              struct etl_event *ev, struct etl_err *err);
	/* Writer side. encoded_size: the record's total size for ev (header,
	 * items and payload, before 8-byte alignment), or 0 when this module
	 * cannot encode ev (wrong kind, or larger than the header's size field
	 * allows). encode writes exactly that many bytes to out (n = the
	 * encoded size) and returns ETL_OK, or ETL_FAILED with err filled.
	 * The header type byte comes from ev->kind; every other field from the
	 * event view, so decode(encode(ev)) reproduces ev field by field. */
	size_t (*encoded_size)(const struct etl_event *ev, const struct etl_hdr_ctx *ctx);
	int (*encode)(uint8_t *out, size_t n, const struct etl_event *ev,
	              const struct etl_hdr_ctx *ctx, struct etl_err *err);
};

/* Ends a decode(): the header is what the cursor has read, the payload
 * the rest of the record. @return : ETL_OK. */
static inline int etl__hdr_payload_rest(struct etl_cur *rec, struct etl_event *ev)
{
	ev->header_size = (uint32_t)rec->pos;
	ev->payload = etl_cur_ptr(rec);
	ev->payload_size = (uint32_t)etl_cur_left(rec);
	return ETL_OK;
}

/*! etl__hdr_for_kind() : the module that encodes events of this
 *  enum etl_hdr_kind, or NULL. */
const struct etl_hdr_ops *etl__hdr_for_kind(int kind);

/* Record-marker classification (see doc/format.md §3.1). */
#define ETL_MARKER_END 0xFFFFFFFFu

/*! etl__hdr_for_marker() : the module for a record marker (the first u32
 *  of a record), or NULL when no module handles it. */
const struct etl_hdr_ops *etl__hdr_for_marker(uint32_t marker);

/*! etl__hdr_by_name() : module by its name, or NULL. */
const struct etl_hdr_ops *etl__hdr_by_name(const char *name);

/* Every module, NULL-terminated. */
extern const struct etl_hdr_ops *const etl__hdr_modules[];

/* Module ops tables. */
extern const struct etl_hdr_ops etl__hdr_system;
extern const struct etl_hdr_ops etl__hdr_compact;
extern const struct etl_hdr_ops etl__hdr_perfinfo;
extern const struct etl_hdr_ops etl__hdr_full;
extern const struct etl_hdr_ops etl__hdr_instance;
extern const struct etl_hdr_ops etl__hdr_event;
extern const struct etl_hdr_ops etl__hdr_message;
extern const struct etl_hdr_ops etl__hdr_error;
extern const struct etl_hdr_ops etl__hdr_timed;
extern const struct etl_hdr_ops etl__hdr_wnode;

/*! etl__err_set() : fills err and returns ETL_FAILED, for
 *  `return etl__err_set(err, ETL_E_BAD_SIZE, pos, "...", ...);` */
int etl__err_set(struct etl_err *err, int code, uint32_t pos, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* Shared by the system-style modules (SYSTEM, COMPACT, PERFINFO): reads the
 * optional PEBS index and PMC counters announced by the version word, from
 * the cursor position (just after the fixed header). */
int etl__hdr_read_hw_items(struct etl_cur *rec, struct etl_event *ev,
                           struct etl_err *err);

/* Sets provider, provider_name, opcode and hook_id from a kernel HookId. */
void etl__hdr_set_hook(struct etl_event *ev, uint16_t hook_id);

/* System-style headers (SYSTEM, COMPACT, PERFINFO) share one layout
 * but for the optional fields (sysstyle.c). */
struct etl_sys_layout {
	const char *what;           /* "System", ... for messages             */
	uint8_t type32, type64;     /* header-type bytes                      */
	int kind32, kind64;         /* enum etl_hdr_kind                      */
	uint32_t header_size;       /* fixed part: 16, +8 with has_ids, +8 with has_cpu_times */
	unsigned has_ids : 1;       /* ThreadId, ProcessId after the HookId   */
	unsigned has_cpu_times : 1; /* KernelTime, UserTime after SystemTime  */
};
int etl__sys_peek_size(const uint8_t *first, uint32_t *rec_size);
int etl__sys_decode(const struct etl_sys_layout *l, struct etl_cur *rec, struct etl_event *ev,
                    struct etl_err *err);
size_t etl__sys_encoded_size(const struct etl_sys_layout *l, const struct etl_event *ev);
int etl__sys_encode(const struct etl_sys_layout *l, uint8_t *out, size_t n,
                    const struct etl_event *ev, struct etl_err *err);

/* Fields 0x00-0x2F shared by EVENT_TRACE_HEADER and the GUID form of the
 * instance header (hdr_full.c). */
void etl__hdr_full_common(struct etl_cur *rec, struct etl_event *ev);

/* ---- writer side --------------------------------------------------- */

/* Little-endian stores: etl_put16/32/64 and etl_put_guid() in lib/common/cursor.h. */

/* Largest record a header with a u16 size field can hold. */
#define ETL_HDR_MAX_RECORD16 0xFFFFu

/* header + items + payload_size, or 0 when that exceeds max. */
size_t etl__hdr_total(size_t header_and_items, uint32_t payload_size, size_t max);

/* Checks done by every encode(): n equals the encoded size `want` (not 0),
 * and the payload pointer is there when payload_size says so. ETL_OK or
 * ETL_FAILED with err filled. */
int etl__hdr_encode_check(const char *what, size_t n, size_t want,
                          const struct etl_event *ev, struct etl_err *err);

/* A byte/dword that two view fields describe (version and the low byte of
 * version_word; user_time and trace_flags at FULL/INSTANCE 0x2C): the
 * common value when they agree or one of them is 0. -1 (err filled) when
 * both are set and differ. */
int etl__hdr_merge_u32(uint32_t a, uint32_t b, const char *na, const char *nb,
                       uint32_t *out, struct etl_err *err);

/* The version word a system-style or FULL/INSTANCE header stores: ev's
 * version_word with its low byte merged with ev->version as above. */
int etl__hdr_version_word(const struct etl_event *ev, uint16_t *out, struct etl_err *err);

/* The HookId a system-style header stores: ev's hook_id with its low
 * byte (the event type) merged with ev->opcode as above. */
int etl__hdr_hook_word(const struct etl_event *ev, uint16_t *out, struct etl_err *err);

/* PEBS index and PMC counters of system-style headers, as announced by
 * version word vw: their size, a consistency check against ev
 * (pmc_count must equal the count in vw; a PEBS index the event claims
 * with ETL_EVF_PEBS needs the 0x8000 bit), and the writer. */
size_t etl__hdr_hw_items_size(uint16_t vw);
int etl__hdr_hw_items_check(const struct etl_event *ev, uint16_t vw, struct etl_err *err);
size_t etl__hdr_write_hw_items(uint8_t *out, const struct etl_event *ev, uint16_t vw);

/* Writes bytes 0x00-0x2F of EVENT_TRACE_HEADER (the first part of the
 * GUID instance header too) for record size `size` and type byte `type`.
 * ETL_FAILED when ev's version/version_word or user_time/trace_flags
 * conflict. */
int etl__hdr_full_common_put(uint8_t *out, const struct etl_event *ev, uint16_t size,
                             uint8_t type, struct etl_err *err);

/* Version-word bits of system-style headers. */
#define ETL_TRACE_HEADER_PEBS_INDEX_FLAG 0x8000u
#define ETL_TRACE_HEADER_PMC_MASK        0x0700u
#define ETL_TRACE_HEADER_PMC_SHIFT       8
#define ETL_TRACE_HEADER_EXT_ITEMS_MASK  0x8700u

#endif /* ETL_FORMATS_H */
