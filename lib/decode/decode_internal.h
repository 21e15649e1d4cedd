/*
 * lib/decode/decode_internal.h - internals of the payload decoder shared between
 * lib/decode/decoder.c (dispatch), lib/decode/decode_result.c (the handle's
 * state: result storage, schema cache) and the per-source decoders
 * (TraceLogging, MOF, manifests, in-band manifests, WPP).
 *
 * Calls go one way: decoder.c dispatches to the source decoders, and both
 * store into the handle through decode_result.c. A per-source decoder is a
 * pair of functions in the table of lib/decode/decoder.c: match() says
 * whether an event is for it, decode() fills the result through the
 * etl__dec_* helpers below. decode() returns ETL_OK, ETL_FAILED (after
 * etl__dec_fail()) or ETL_FATAL (out of memory, after etl__dec_fail() with
 * ETL_E_NOMEM).
 */
#ifndef ETL_DECODE_PRIVATE_H
#define ETL_DECODE_PRIVATE_H

#ifndef ETL_BUILDING_LIB
#error "lib/decode/decode_internal.h is internal to libetl"
#endif

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "etl_decode.h"
#include "lib/common/cursor.h"

/* Most properties one event may produce. Every leaf consumes at least one
 * payload byte, but empty structs and arrays do not, so nested constant-count
 * arrays could otherwise multiply without bound. */
#define ETL_DEC_MAX_PROPS (1u << 18)

/* The schema cache is flushed when the schemas it holds exceed this many
 * bytes (keys and parsed schemas together), so a file whose every event
 * carries different metadata cannot make it grow without bound. */
#define ETL_DEC_CACHE_MAX_BYTES (64u * 1024u * 1024u)

/* ---- result storage -------------------------------------------------- */

/* Reserves n consecutive zeroed properties (parent = ETL_PROP_NO_PARENT) and
 * returns the index of the first, or UINT32_MAX when ETL_DEC_MAX_PROPS would
 * be exceeded or memory runs out (*oom set to 1 in that case). Indices stay
 * valid; pointers from etl__dec_prop() only until the next reserve. */
uint32_t etl__dec_reserve(etl_decoder *d, uint32_t n, int *oom);

/* The first member of struct etl_decoder (lib/decode/decode_result.c): the property
 * array, so that etl__dec_prop() is inline (a pointer to a struct, converted,
 * points to its first member). */
struct etl_dec_head {
	struct etl_prop *props;
	unsigned flags;                 /* etl_decoder_set_flags()           */
};

/* The decoder's ETL_DECODE_* flags. */
static inline unsigned etl__dec_flags(const etl_decoder *d)
{
	return ((const struct etl_dec_head *)(const void *)d)->flags;
}
static inline struct etl_prop *etl__dec_prop(etl_decoder *d, uint32_t idx)
{
	return &((struct etl_dec_head *)(void *)d)->props[idx];
}

/* Stores a scalar property at idx: every member set, the rest of the
 * value union zeroed, no children. Inline: once per decoded field. */
static inline void etl__dec_put_scalar(etl_decoder *d, uint32_t idx, const char *name, int kind,
                                       uint16_t in_type, uint16_t out_type, uint64_t u,
                                       uint32_t parent, uint32_t payload_offset)
{
	struct etl_prop *o = etl__dec_prop(d, idx);
	o->name = name;
	o->kind = kind;
	o->in_type = in_type;
	o->out_type = out_type;
	memset(&o->v, 0, sizeof o->v);
	o->v.u = u;
	o->map_name = NULL;
	o->parent = parent;
	o->first_child = 0;
	o->n_children = 0;
	o->payload_offset = payload_offset;
}

/* n integer elements of sz bytes each at b (all there), as copies of tmpl
 * (kind, types, name, parent; value union and children zero) with their
 * value and offset (pos + i * sz): the properties etl__dec_put_scalar()
 * would store, INT values sign-extended, BOOL ones 0 or 1. Inline with sz
 * and kind constant at each use (etl__dec_fill_ints()), so that an array
 * of thousands (stacks, char arrays) takes one loop without a branch per
 * element. */
static inline __attribute__((always_inline)) void etl__dec_fill_ints_k(struct etl_prop *props,
                                                                       const struct etl_prop *tmpl,
                                                                       const uint8_t *b, uint32_t n,
                                                                       uint32_t pos, unsigned sz, int kind)
{
	const struct etl_prop t = *tmpl;
	for (uint32_t i = 0; i < n; i++, b += sz) {
		uint64_t u = etl_le_uint(b, sz);
		if (kind == ETL_VAL_INT)
			u = etl_sign_extend(u, sz);
		else if (kind == ETL_VAL_BOOL)
			u = u != 0;
		props[i] = t;           /* assigned whole: reserved raw */
		props[i].v.u = u;
		props[i].payload_offset = pos + i * sz;
	}
}

static inline void etl__dec_fill_ints_sz(struct etl_prop *props, const struct etl_prop *tmpl, const uint8_t *b,
                                         uint32_t n, uint32_t pos, unsigned sz)
{
	if (tmpl->kind == ETL_VAL_INT)
		etl__dec_fill_ints_k(props, tmpl, b, n, pos, sz, ETL_VAL_INT);
	else if (tmpl->kind == ETL_VAL_BOOL)
		etl__dec_fill_ints_k(props, tmpl, b, n, pos, sz, ETL_VAL_BOOL);
	else
		etl__dec_fill_ints_k(props, tmpl, b, n, pos, sz, ETL_VAL_UINT);
}

static inline void etl__dec_fill_ints(struct etl_prop *props, const struct etl_prop *tmpl, const uint8_t *b,
                                      uint32_t n, uint32_t pos, unsigned sz)
{
	switch (sz) {
	case 1: etl__dec_fill_ints_sz(props, tmpl, b, n, pos, 1); break;
	case 2: etl__dec_fill_ints_sz(props, tmpl, b, n, pos, 2); break;
	case 4: etl__dec_fill_ints_sz(props, tmpl, b, n, pos, 4); break;
	default: etl__dec_fill_ints_sz(props, tmpl, b, n, pos, 8); break;
	}
}

/* Stores at idx the bytes a schema did not describe, from the cursor to
 * the end of the payload, as one binary property "ExtraData" (so that
 * nothing is dropped silently). The other members keep their reserved
 * (zero) values. */
static inline void etl__dec_put_extra(etl_decoder *d, uint32_t idx, const struct etl_cur *c)
{
	struct etl_prop *p = etl__dec_prop(d, idx);
	p->name = "ExtraData";
	p->kind = ETL_VAL_BINARY;
	p->in_type = ETL_IN_BINARY;
	p->out_type = ETL_OUT_HEXBINARY;
	p->payload_offset = (uint32_t)c->pos;
	p->v.bin.p = etl_cur_ptr(c);
	p->v.bin.len = etl_cur_left(c);
}

/* etl__dec_reserve() without initialising the properties: the caller
 * assigns each of them whole (for arrays of thousands of elements, where
 * zeroing first doubles the stores). */
uint32_t etl__dec_reserve_raw(etl_decoder *d, uint32_t n, int *oom);

/* n bytes of string storage valid until the next etl_decoder_decode();
 * never moves once handed out. NULL on out-of-memory. */
char *etl__dec_alloc(etl_decoder *d, size_t n);

/* Gives back the end of the last etl__dec_alloc() block: p, allocated with
 * n bytes, keeps only its first keep bytes (keep <= n). For conversions
 * that reserve the worst case and use less. No effect when p is not the
 * last block. */
void etl__dec_shrink(etl_decoder *d, char *p, size_t n, size_t keep);

/* The result being built (status/props are set by etl__dec_end()). */
struct etl_decoded *etl__dec_result(etl_decoder *d);

/* Starts decoding one event (called by lib/decode/decoder.c before the
 * source decoder): the previous result, properties and per-event strings
 * are dropped. */
void etl__dec_begin(etl_decoder *d);

/* Ends decoding one event with the source decoder's status rc: on ETL_OK
 * the result gets its properties; otherwise the failure recorded with
 * etl__dec_fail() (one is made up if the decoder recorded none) and no
 * properties. Returns the event's status. */
int etl__dec_end(etl_decoder *d, int rc);

/* Records the failure of the current event: status ETL_FAILED (ETL_FATAL for
 * ETL_E_NOMEM), errcode, message. Returns ETL_FAILED or ETL_FATAL. */
int etl__dec_fail(etl_decoder *d, int errcode, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Sets the reason (enum etl_errcode) and the message that
 * etl_decoder_errcode() and etl_decoder_errmsg() return (schema loaders). */
void etl__dec_set_error(etl_decoder *d, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* etl__dec_fail(d, ETL_E_UNSUPPORTED, "no schema for this event:
 * provider=GUID[ (name)], id=N, version=N") for ev, the same text. */
int etl__dec_fail_noschema(etl_decoder *d, const struct etl_event *ev);

/* ---- schema cache ---------------------------------------------------- */

/* A cached schema: the per-source decoder owns what it points to and frees
 * it with free_fn. key/key_len are a copy made by the cache. */
struct etl_dec_schema {
	void *data;
	void (*free_fn)(void *data);
	size_t cost;                /* bytes, for the cache bound           */
};

/* Hash of key bytes (64-bit; words of 8 bytes, then FNV-1a steps). Not
 * stable across hosts: for in-memory tables only. */
uint64_t etl__dec_hash(const void *key, size_t n, uint64_t h);
#define ETL_DEC_HASH_INIT 0xcbf29ce484222325ull

/* Looks key up; NULL when absent. */
void *etl__dec_cache_find(etl_decoder *d, uint64_t hash, const void *key, size_t key_len);

/* Adds data under key (which must not be present). May flush older entries
 * first (never data itself). On out-of-memory frees data with free_fn and
 * returns ETL_FATAL; ETL_OK otherwise. */
int etl__dec_cache_add(etl_decoder *d, uint64_t hash, const void *key, size_t key_len,
                       void *data, void (*free_fn)(void *), size_t cost);

/* ---- names remembered by pointer (formats/output/out_json.c) ------------------ */

/* A source decoder calls this when every name of its result (provider,
 * event, task, opcode, level, channel and keywords names, property names)
 * lives in schema memory or static storage, not in per-event storage
 * (etl__dec_alloc()): such text stays unchanged until the decoder's
 * schemas are freed. */
void etl__dec_set_names_stable(etl_decoder *d);

/* Non-zero when dec is this thread's last successful etl_decoder_decode()
 * result and its names are stable: then the value is the current schema
 * generation, and a name pointer seen (with its text) under the same
 * generation still has that text. 0 otherwise (compare the text). */
uint64_t etl__dec_names_trusted(const struct etl_decoded *dec);

/* The manifest set (lib/decode/manifest_set.c) found in the cache, remembered so
 * that it is not looked up per event; cleared when the cache is flushed
 * (which frees the set). */
void *etl__dec_mf_set(const etl_decoder *d);
void etl__dec_set_mf_set(etl_decoder *d, void *set);

/* The same for the set of schemas learned from EventMetadata records
 * (lib/decode/event_metadata_schema.c), which lives only there: NULL
 * means there is none. */
void *etl__dec_em_set(const etl_decoder *d);
void etl__dec_set_em_set(etl_decoder *d, void *set);

/* A scratch buffer of at least n bytes owned by the decoder (for building
 * cache keys); valid until the next call. NULL on out-of-memory. */
uint8_t *etl__dec_scratch(etl_decoder *d, size_t n);

/* Counts one schema parse (debug counter for tests and benchmarks). */
void etl__dec_count_parse(etl_decoder *d);

/*! etl__decoder_schema_parses() : how many schemas the decoder parsed since
 *  etl_decoder_new() (cache misses). For tests. */
uint64_t etl__decoder_schema_parses(const etl_decoder *d);

/*! etl__decoder_cache_entries() : schemas in the cache now. For tests. */
size_t etl__decoder_cache_entries(const etl_decoder *d);

/* ---- per-source decoders -------------------------------------------- */

/* TraceLogging (lib/decode/tracelogging.c): EVENT_HEADER events with an EVENT_SCHEMA_TL
 * extended item. */
int etl__tl_match(const struct etl_event *ev);
int etl__tl_decode(etl_decoder *d, const struct etl_event *ev);

/* Classic / MOF kernel events (lib/decode/mof.c, tables in
 * lib/decode/mof_kernel_classes.c): SYSTEM, COMPACT, PERFINFO, FULL and INSTANCE
 * records of a built-in (class GUID, opcode, version). */
int etl__mof_match(const struct etl_event *ev);
int etl__mof_decode(etl_decoder *d, const struct etl_event *ev);

/* Whether ev->kind is a classic record's header (SYSTEM, COMPACT,
 * PERFINFO, FULL, INSTANCE, 32 or 64 bits). */
int etl__mof_kind_ok(int kind);

/* EventMetadata records of a merged trace (lib/decode/event_metadata.c):
 * classic records of provider {bbccf6c1-...}, opcodes 32 and 33, shown
 * and learned so that the events they describe decode through
 * etl__mf_decode() (doc/decoding.md §10.6). */
int etl__em_match(const struct etl_event *ev);
int etl__em_decode(etl_decoder *d, const struct etl_event *ev);

/* A WBEMSID (doc/decoding.md §4.2) at p, left bytes, ptr the pointer size:
 * 0 with *skip (the bytes before the SID, or the 4 of an absent one) and
 * *sid_len (0: no SID); else the bytes it needs (more than left). */
size_t etl__mof_wbemsid(const uint8_t *p, size_t left, unsigned ptr, size_t *skip, size_t *sid_len);

/* Classic events of the classes loaded from .mof files (lib/decode/
 * mof_file.c, loaded by lib/decode/mof_load.c, doc/decoding.md §4.5):
 * match() takes every classic record (the built-in classes are tried
 * first); decode() looks (class GUID, event type, version) up and fails
 * with the "no schema for this event" message when no loaded class has it. */
int etl__moffile_match(const struct etl_event *ev);
int etl__moffile_decode(etl_decoder *d, const struct etl_event *ev);

/* Parses MOF text (len bytes, need not be NUL-terminated) as if read from
 * the file `name` and adds its event classes to d: etl_decoder_add_mof()
 * for text in memory. For the fuzzer and tests. */
int etl__mof_parse_text(etl_decoder *d, const char *name, const char *text, size_t len);

/* The i-th event schema the .mof files of d define (class GUID, event type,
 * version), for the fuzzer and tests: 1, or 0 past the last. */
int etl__mof_file_event(etl_decoder *d, size_t i, struct etl_guid *g, uint8_t *type, uint8_t *version);

/* ---- payload strings (lib/decode/payload_text.c) ------------------------ */

/* Converts n bytes of UTF-16LE (odd last byte ignored) to a NUL-terminated
 * UTF-8 string in decoder storage (etl__dec_alloc()), in one pass; *len
 * gets its length. NULL on out-of-memory. */
char *etl__dec_utf16(etl_decoder *d, const uint8_t *p, size_t n, size_t *len);

/* An 8-bit string of n bytes as UTF-8: read as UTF-8 (invalid bytes as
 * U+FFFD) when utf8 is set, else as Windows-1252. Text that needs no
 * change (ASCII, or valid UTF-8 read as UTF-8) is the payload's own bytes,
 * not NUL-terminated; else a NUL-terminated copy in decoder storage. Sets
 * *s and *len; 0 on out-of-memory. */
int etl__dec_ansi(etl_decoder *d, const uint8_t *p, size_t n, int utf8, const char **s, size_t *len);

/* Copies n bytes of UTF-8 to out (room for 3n bytes) with each invalid
 * byte replaced by U+FFFD; returns the bytes written. */
size_t etl__dec_utf8_sanitize(const uint8_t *p, size_t n, char *out);

/* ---- manifests (lib/decode/manifest_*.c) -------------------------------- */

/* Instrumentation-manifest events (doc/decoding.md §3): every EVENT_HEADER event
 * without an EVENT_SCHEMA_TL item. decode() looks the event up in the
 * manifests loaded with etl_decoder_add_manifest() (kept in the schema cache
 * under a reserved key) and fails with the dispatcher's "no schema for this
 * event" message (ETL_E_UNSUPPORTED) when none defines it. */
int etl__mf_match(const struct etl_event *ev);
int etl__mf_decode(etl_decoder *d, const struct etl_event *ev);

/* (lib/decode/manifest_load.c) Loads manifest XML held in memory (len bytes at xml, not NUL-terminated)
 * into the decoder's manifest set, as etl_decoder_add_manifest() does for a
 * file; name stands for the file in etl_decoder_errmsg() messages. Returns
 * ETL_OK, ETL_FAILED (errmsg set, no event of it added) or ETL_FATAL. */
int etl__mf_load_memory(etl_decoder *d, const char *name, const void *xml, size_t len);

/* ---- in-band EventSource manifests (lib/decode/inband.c) ----------------- */

/* EVENT_HEADER events with id 0xFFFE and opcode 0xFE (EventSource's
 * ManifestData event) without an EVENT_SCHEMA_TL item. decode() shows the
 * ManifestEnvelope and the chunk as properties (event_name "ManifestData")
 * and assembles the chunks per provider GUID; the complete manifest is
 * loaded with etl__mf_load_memory(), so the provider's later events decode
 * through etl__mf_decode(). Must come before the manifest row of the
 * dispatch table. */
#define ETL_INBAND_EVENT_ID   0xFFFEu
#define ETL_INBAND_OPCODE     0xFEu
#define ETL_INBAND_MAX_BYTES  (16u * 1024u * 1024u)   /* chunks being assembled, all providers */
#define ETL_INBAND_MAX_LOADED (64u * 1024u * 1024u)   /* manifest bytes loaded per decoder */
int etl__inband_match(const struct etl_event *ev);
int etl__inband_decode(etl_decoder *d, const struct etl_event *ev);

/* ---- WPP (lib/decode/wpp_decode.c) and TMF files (lib/decode/tmf_load.c) - */

/* WPP messages (doc/decoding.md §5): every MESSAGE event. decode() looks the
 * (message GUID, message number) up in the TMF files loaded with
 * etl_decoder_add_tmf() (kept in the schema cache under a reserved key) and
 * fails with the dispatcher's "no schema for this event" message
 * (ETL_E_UNSUPPORTED) when none defines it. */
int etl__wpp_match(const struct etl_event *ev);
int etl__wpp_decode(etl_decoder *d, const struct etl_event *ev);

/* Parses TMF text (len bytes, need not be NUL-terminated) as if read from
 * the file `name` (used in error messages) and adds its messages to d.
 * Same results as etl_decoder_add_tmf(). For the fuzzer and tests. */
int etl__wpp_parse_tmf(etl_decoder *d, const char *name, const char *text, size_t len);

/* ---- message rendering (lib/decode/message.c) ---------------------------- */

/* A growable NUL-terminated string for rendering messages; max caps its
 * length (bytes past it are dropped). Start with ETL_MSGBUF_INIT(max). */
struct etl_msgbuf {
	char *p;
	size_t n, cap, max;
	int oom;                    /* an allocation failed                  */
};
#define ETL_MSGBUF_INIT(max) { NULL, 0, 0, (max), 0 }

/* Appends n bytes of s; dropped whole when b->max would be exceeded, sets
 * b->oom when memory runs out. */
void etl__msg_add(struct etl_msgbuf *b, const char *s, size_t n);
/* Appends the NUL-terminated s. */
void etl__msg_str(struct etl_msgbuf *b, const char *s);

/* Copies the text into decoder string storage at *out and frees b's memory.
 * Returns 0 (with *out NULL) when b->oom is set or memory runs out. */
int etl__msg_finish(etl_decoder *d, struct etl_msgbuf *b, const char **out);

/* Appends the default text of a property: its map name, else the value
 * (hex for hex types, {GUID}, 0x-prefixed hex bytes for binary / SID). */
void etl__msg_prop_text(struct etl_msgbuf *b, const struct etl_prop *p);

/* A !fmt! insert's printf conversion: fmt (fl bytes) is flags, an optional
 * width, an optional .precision, then length modifiers (h l ll I32 I64 w z
 * ...) and the conversion character, its last byte. Only the first three
 * and the conversion are kept: parsing stops at the first character that
 * does not fit that order ("1-d" is width 1), so what reaches snprintf is
 * always a well-formed format, whatever the manifest, TMF or trace says.
 * Width and precision are cut to ETL_MSG_SPEC_MAX: the text of an insert
 * is at most 511 bytes, and a field of 2^31 - 1 would cost seconds of
 * padding (or gigabytes of digits) before being cut. */
#define ETL_MSG_SPEC_MAX 1024
struct etl_msg_spec {
	char flags[6];              /* each of "-+ #0" at most once, NUL-ended  */
	int width;                  /* 0: none                                */
	int prec;                   /* -1: none                               */
	char conv;                  /* the last byte of fmt ('s' when empty)  */
};
void etl__msg_spec(struct etl_msg_spec *s, const char *fmt, size_t fl);

/* Append an insert formatted by s in a lim-byte scratch (lim <= 512; the
 * text is cut there). Flags C leaves undefined for the conversion are
 * dropped ('#' but for o x X and floats, '0' for s and c, the precision of
 * c), as the C library ignores them anyway.
 * etl__msg_fmt_text(): text (then freed) as %s; inserts of 200 bytes or
 * more are appended unformatted; b->oom set if text->oom.
 * etl__msg_fmt_int(): s->conv one of d i u o x X c: iv for d and i, u for
 * the others (its low byte for c), at 64 bits.
 * etl__msg_fmt_float(): s->conv one of e E f g G a A. */
void etl__msg_fmt_text(struct etl_msgbuf *b, const struct etl_msg_spec *s, struct etl_msgbuf *text, size_t lim);
void etl__msg_fmt_int(struct etl_msgbuf *b, const struct etl_msg_spec *s, long long iv, unsigned long long u,
                      size_t lim);
void etl__msg_fmt_float(struct etl_msgbuf *b, const struct etl_msg_spec *s, double f, size_t lim);

/* ---- schema files (lib/decode/dirlist.c) -------------------------------- */

/* Loads path with load(d, ctx, file): a file directly, or every file of a
 * directory whose name ends in one of suffixes, in name order, stopping at
 * the first failure. what names the kind for messages ("*.tmf"). Returns
 * load's status, or ETL_FAILED / ETL_FATAL with the decoder's message set
 * when path cannot be read or holds no such file. */
int etl__dec_load_path(etl_decoder *d, const char *path, const char *const *suffixes,
                       const char *what, int (*load)(etl_decoder *d, void *ctx, const char *file),
                       void *ctx);

/* Reads the whole file path (a regular file of at most max bytes) and
 * hands its text to parse(ctx, path, text, len); returns what parse
 * returns, or ETL_FAILED with the decoder's message set ("PATH: reason";
 * ETL_E_LIMIT naming what, "TMF", when it is too large), or ETL_FATAL on
 * out-of-memory. */
int etl__dec_load_file(etl_decoder *d, const char *path, size_t max, const char *what,
                       int (*parse)(void *ctx, const char *name, const char *text, size_t len), void *ctx);

#endif /* ETL_DECODE_PRIVATE_H */
