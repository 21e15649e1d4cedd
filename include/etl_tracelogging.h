/*
 * etl_tracelogging.h - TraceLogging (self-describing) events whose
 * metadata is built at compile time.
 *
 * Basic outline:
 *
 *     #include "etl_trace.h"
 *     #include "etl_tracelogging.h"
 *
 *     static etl_provider prov;
 *     etl_provider_register_name(&prov, "MyCompany.MyComponent", NULL, NULL);
 *     ...
 *     ETL_TL_WRITE(&prov, "RequestDone",
 *                  ETL_TL_LEVEL(4), ETL_TL_KEYWORD(0x10),
 *                  ETL_TL_U32("Count", n),
 *                  ETL_TL_STR8("Name", name),
 *                  ETL_TL_GUID("Id", &id));
 *
 * ETL_TL_WRITE(prov, "EventName", items...) writes one event through
 * etl_write_tracelogging()'s path: an EVENT_HEADER record whose extended
 * items carry the provider traits (PROV_TRAITS, 0x0C: the provider's name)
 * and the event metadata (EVENT_SCHEMA_TL, 0x0B), so that any TraceLogging
 * decoder (libetl's etl_decoder, TDH on Windows) names and types every
 * field (doc/decoding.md §2).
 *
 * Compile time. The metadata is one string literal, assembled by the
 * preprocessor from the event name, each field's name and its in-type /
 * out-type bytes (doc/decoding.md §2.3-2.4):
 *
 *     "\0" "RequestDone" "\0"  "Count" "\0" "\x08"  "Name" "\0" "\x82" "\x23" ...
 *      tags  event name         field    UINT32      field   ANSISTRING|chain, UTF8
 *
 * held in a static const array, so sizeof gives its size and no code runs
 * to build it. Hence the event name and the field names must be string
 * literals (UTF-8, no NUL); the metadata must stay under 32000 bytes
 * (checked with _Static_assert). Event tags are 0.
 *
 * Run time. The statement first computes the descriptor (level, keyword,
 * opcode, channel, task: expressions, normally constants the compiler
 * folds) and tests etl_event_enabled(); only when the event is enabled
 * are the field values, activity ids and everything else evaluated -
 * each exactly once - and written. A disabled event costs one load and a
 * branch. The statement has no value: an event lost in a session is
 * counted in that session's statistics (etl_session_stats()).
 *
 * Items, in any order (at most 32 per event, fields in payload order):
 *
 *   Event options (last one wins, except keywords, which are OR'ed):
 *     ETL_TL_LEVEL(l)        level (default 5, verbose)
 *     ETL_TL_KEYWORD(k)      keyword bits, OR'ed together (default 0)
 *     ETL_TL_OPCODE(o)       opcode (default 0)
 *     ETL_TL_CHANNEL(c)      channel (default 11, TraceLogging's)
 *     ETL_TL_TASK(t)         task (default 0)
 *     ETL_TL_ACTIVITY(pg)    activity id, const struct etl_guid * (default:
 *                            the thread's current one, etl_activity_get())
 *     ETL_TL_RELATED_ACTIVITY(pg)  related activity id (RELATED_ACTIVITYID
 *                            item, 0x01), const struct etl_guid *
 *
 *   Fields ("name" is a string literal; TlgIn / TlgOut as doc/decoding.md
 *   §2.5-2.6; payload little-endian, as the host - libetl's runtime
 *   targets little-endian hosts):
 *     ETL_TL_I8(name, v) .. ETL_TL_I64(name, v)   INT8..INT64, signed
 *     ETL_TL_U8(name, v) .. ETL_TL_U64(name, v)   UINT8..UINT64
 *     ETL_TL_HEX8(name, v), ETL_TL_HEX16(name, v) UINT8 / UINT16, out HEX
 *     ETL_TL_HEX32(name, v), ETL_TL_HEX64(name, v) HEXINT32 / HEXINT64
 *     ETL_TL_BOOL32(name, v)    BOOL32: 4 bytes, 1 when v is true else 0
 *     ETL_TL_FLOAT(name, v)     FLOAT (4 bytes)
 *     ETL_TL_DOUBLE(name, v)    DOUBLE (8 bytes)
 *     ETL_TL_STR8(name, s)      ANSISTRING, out UTF8: s is a NUL-terminated
 *                               UTF-8 string (const char *; NULL writes "")
 *     ETL_TL_STR16(name, s)     UNICODESTRING: s is NUL-terminated UTF-16
 *                               (const uint16_t *, e.g. u"text"; NULL: "")
 *     ETL_TL_CSTR8(name, s, n)  COUNTEDANSISTRING, out UTF8: n bytes of
 *                               UTF-8 at s, no NUL (payload u16 n + bytes)
 *     ETL_TL_CSTR16(name, s, n) COUNTEDSTRING: n UTF-16 code units at s
 *                               (payload: u16 byte count 2n + units)
 *     ETL_TL_GUID(name, pg)     GUID: pg is a const struct etl_guid *
 *     ETL_TL_FILETIME(name, ft) FILETIME: int64 100-ns units since 1601
 *     ETL_TL_BINARY(name, p, n) BINARY: n bytes at p (payload u16 n + bytes)
 *     ETL_TL_POINTER(name, p)   a pointer value: HEXINT64 (HEXINT32 in a
 *                               32-bit process)
 *     ETL_TL_U32_ARRAY(name, p, n), ETL_TL_I32_ARRAY(name, p, n),
 *     ETL_TL_U64_ARRAY(name, p, n), ETL_TL_I64_ARRAY(name, p, n),
 *     ETL_TL_DOUBLE_ARRAY(name, p, n)
 *                               variable-count arrays (Vcount, in-type |
 *                               0x40): n elements at p (const uint32_t *,
 *                               ...); payload u16 n + the elements
 *
 * Limits: a counted string, binary or array holds at most 65535 units or
 * elements; the whole record at most 65535 bytes (larger events are lost
 * and counted, as Windows does).
 *
 * The macros need C (C99 or later: compound literals); from C++ call
 * etl_write_tracelogging() with metadata built by other means.
 */
#ifndef ETL_TRACELOGGING_H
#define ETL_TRACELOGGING_H

#include "etl_export.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "etl_trace.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- the write ETL_TL_WRITE makes ------------------------------------ */

/* struct etl_data.reserved of a piece that is written preceded by a u16
 * count: ETL_TL_COUNTED | element size (the count written is size /
 * element size). ETL__TL_COUNTED is the same flag under the name the
 * library's own files use. */
#define ETL__TL_COUNTED 0x80000000u
#define ETL_TL_COUNTED ETL__TL_COUNTED

/*! etl_write_tracelogging_counted() : etl_write_tracelogging() whose data
 *  pieces may be counted: a piece whose reserved field is ETL_TL_COUNTED |
 *  element size (1, 2, 4 or 8) is written as a u16 count (size / element
 *  size) followed by its size bytes, as TraceLogging lays out counted
 *  strings, binary fields and variable-count arrays; other pieces
 *  (reserved 0) are copied as they are. This is the call ETL_TL_WRITE
 *  expands to; C++ and code that builds its metadata at run time may call
 *  it directly. meta, activity, related and data are only read during the
 *  call. Same returns as etl_write_tracelogging(): ETL_OK, or ETL_FAILED
 *  when the event was lost in a session (too large, no free buffer; counted
 *  in that session's events_lost) or p, d or meta is NULL. */
ETL_API int etl_write_tracelogging_counted(etl_provider *p, const struct etl_event_descriptor *d,
                                           const void *meta, uint16_t meta_size,
                                           const struct etl_guid *activity,
                                           const struct etl_guid *related,
                                           uint32_t n, const struct etl_data *data);

/* ---- inline helpers of the macros below (not API) --------------------- */

/* Sizes are clamped at 0x10000: such a piece can never fit a record, and
 * the clamp keeps the sum from overflowing. */
static inline uint32_t etl__tl_clamp(size_t n)
{
	return n > 0x10000u ? 0x10000u : (uint32_t)n;
}

static inline struct etl_data etl__tl_val(const void *p, uint32_t n)
{
	struct etl_data d = { p, n, 0 };
	return d;
}

static inline struct etl_data etl__tl_sz8(const char *s)
{
	struct etl_data d = { s ? s : "", 0, 0 };
	d.size = etl__tl_clamp(strlen((const char *)d.ptr) + 1);
	return d;
}

static inline struct etl_data etl__tl_sz16(const uint16_t *s)
{
	static const uint16_t empty[1] = { 0 };
	size_t n = 0;
	if (!s)
		s = empty;
	while (s[n] && n < 0x8000u)
		n++;
	struct etl_data d = { s, etl__tl_clamp(2 * (n + 1)), 0 };
	return d;
}

static inline struct etl_data etl__tl_counted(const void *p, size_t bytes, uint32_t elem)
{
	struct etl_data d = { p, etl__tl_clamp(bytes), ETL__TL_COUNTED | elem };
	if (!p && !bytes)
		d.ptr = "";
	return d;
}

static inline struct etl_data etl__tl_cstr16(const uint16_t *s, size_t units)
{
	return etl__tl_counted(s, units > 0x8000u ? 0x10000u : 2 * units, 1);
}

static inline struct etl_data etl__tl_arr(const void *p, size_t n, uint32_t elem)
{
	return etl__tl_counted(p, n > 0x10000u ? 0x10000u * (size_t)elem : n * elem, elem);
}

static inline struct etl_data etl__tl_guid(uint8_t *b, const struct etl_guid *g)
{
	b[0] = (uint8_t)g->data1;
	b[1] = (uint8_t)(g->data1 >> 8);
	b[2] = (uint8_t)(g->data1 >> 16);
	b[3] = (uint8_t)(g->data1 >> 24);
	b[4] = (uint8_t)g->data2;
	b[5] = (uint8_t)(g->data2 >> 8);
	b[6] = (uint8_t)g->data3;
	b[7] = (uint8_t)(g->data3 >> 8);
	memcpy(b + 8, g->data4, 8);
	return etl__tl_val(b, 16);
}

static inline const struct etl_guid *etl__tl_guidp(const struct etl_guid *g)
{
	return g;
}
static inline const uint32_t *etl__tl_u32p(const uint32_t *p) { return p; }
static inline const int32_t *etl__tl_i32p(const int32_t *p) { return p; }
static inline const uint64_t *etl__tl_u64p(const uint64_t *p) { return p; }
static inline const int64_t *etl__tl_i64p(const int64_t *p) { return p; }
static inline const double *etl__tl_dblp(const double *p) { return p; }

/* ---- items ----------------------------------------------------------------
 * Every item is a tuple of 8 positions, each possibly empty:
 *   (metadata bytes, data piece, level, keyword, opcode, channel, task,
 *    statement)
 * ETL_TL_WRITE picks each position out of every item. Level, opcode,
 * channel and task contribute "*0 + (v)" to a default ("5 *0 + (4)" is 4:
 * the last one wins), keywords "| (k)", fields their metadata literal and
 * one data piece, options an empty piece. */

#define ETL__TL_NODATA etl__tl_val(0, 0)
#define ETL__TL_FIELD(name_, types_, data_) (name_ "\0" types_, data_, , , , , , )

#define ETL_TL_LEVEL(l)    ( , ETL__TL_NODATA, *0 + (l), , , , , )
#define ETL_TL_KEYWORD(k)  ( , ETL__TL_NODATA, , | (uint64_t)(k), , , , )
#define ETL_TL_OPCODE(o)   ( , ETL__TL_NODATA, , , *0 + (o), , , )
#define ETL_TL_CHANNEL(c)  ( , ETL__TL_NODATA, , , , *0 + (c), , )
#define ETL_TL_TASK(t)     ( , ETL__TL_NODATA, , , , , *0 + (t), )
#define ETL_TL_ACTIVITY(g)         ( , ETL__TL_NODATA, , , , , , etl__tl_act_ = etl__tl_guidp(g);)
#define ETL_TL_RELATED_ACTIVITY(g) ( , ETL__TL_NODATA, , , , , , etl__tl_rel_ = etl__tl_guidp(g);)

#define ETL__TL_SCALAR(name_, types_, type_, v_) \
	ETL__TL_FIELD(name_, types_, etl__tl_val(&(type_){ (type_)(v_) }, sizeof(type_)))

#define ETL_TL_I8(name, v)     ETL__TL_SCALAR(name, "\x03", int8_t, v)
#define ETL_TL_U8(name, v)     ETL__TL_SCALAR(name, "\x04", uint8_t, v)
#define ETL_TL_I16(name, v)    ETL__TL_SCALAR(name, "\x05", int16_t, v)
#define ETL_TL_U16(name, v)    ETL__TL_SCALAR(name, "\x06", uint16_t, v)
#define ETL_TL_I32(name, v)    ETL__TL_SCALAR(name, "\x07", int32_t, v)
#define ETL_TL_U32(name, v)    ETL__TL_SCALAR(name, "\x08", uint32_t, v)
#define ETL_TL_I64(name, v)    ETL__TL_SCALAR(name, "\x09", int64_t, v)
#define ETL_TL_U64(name, v)    ETL__TL_SCALAR(name, "\x0a", uint64_t, v)
#define ETL_TL_HEX8(name, v)   ETL__TL_SCALAR(name, "\x84" "\x04", uint8_t, v)
#define ETL_TL_HEX16(name, v)  ETL__TL_SCALAR(name, "\x86" "\x04", uint16_t, v)
#define ETL_TL_HEX32(name, v)  ETL__TL_SCALAR(name, "\x14", uint32_t, v)
#define ETL_TL_HEX64(name, v)  ETL__TL_SCALAR(name, "\x15", uint64_t, v)
#define ETL_TL_FLOAT(name, v)  ETL__TL_SCALAR(name, "\x0b", float, v)
#define ETL_TL_DOUBLE(name, v) ETL__TL_SCALAR(name, "\x0c", double, v)
#define ETL_TL_FILETIME(name, v) ETL__TL_SCALAR(name, "\x11", int64_t, v)
#define ETL_TL_BOOL32(name, v) \
	ETL__TL_FIELD(name, "\x0d", etl__tl_val(&(int32_t){ (v) ? 1 : 0 }, 4))
#if UINTPTR_MAX > 0xFFFFFFFFu
#define ETL__TL_IN_POINTER "\x15"
#else
#define ETL__TL_IN_POINTER "\x14"
#endif
#define ETL_TL_POINTER(name, p) \
	ETL__TL_FIELD(name, ETL__TL_IN_POINTER, \
	              etl__tl_val(&(uintptr_t){ (uintptr_t)(const void *)(p) }, sizeof(uintptr_t)))
#define ETL_TL_STR8(name, s)   ETL__TL_FIELD(name, "\x82" "\x23", etl__tl_sz8(s))
#define ETL_TL_STR16(name, s)  ETL__TL_FIELD(name, "\x01", etl__tl_sz16(s))
#define ETL_TL_CSTR8(name, s, n) \
	ETL__TL_FIELD(name, "\x97" "\x23", etl__tl_counted((const char *)(s), (n), 1))
#define ETL_TL_CSTR16(name, s, n) ETL__TL_FIELD(name, "\x16", etl__tl_cstr16((s), (n)))
#define ETL_TL_BINARY(name, p, n) \
	ETL__TL_FIELD(name, "\x0e", etl__tl_counted((const void *)(p), (n), 1))
#define ETL_TL_GUID(name, pg) \
	ETL__TL_FIELD(name, "\x0f", etl__tl_guid((uint8_t[16]){ 0 }, (pg)))
#define ETL_TL_I32_ARRAY(name, p, n) ETL__TL_FIELD(name, "\x47", etl__tl_arr(etl__tl_i32p(p), (n), 4))
#define ETL_TL_U32_ARRAY(name, p, n) ETL__TL_FIELD(name, "\x48", etl__tl_arr(etl__tl_u32p(p), (n), 4))
#define ETL_TL_I64_ARRAY(name, p, n) ETL__TL_FIELD(name, "\x49", etl__tl_arr(etl__tl_i64p(p), (n), 8))
#define ETL_TL_U64_ARRAY(name, p, n) ETL__TL_FIELD(name, "\x4a", etl__tl_arr(etl__tl_u64p(p), (n), 8))
#define ETL_TL_DOUBLE_ARRAY(name, p, n) ETL__TL_FIELD(name, "\x4c", etl__tl_arr(etl__tl_dblp(p), (n), 8))

/* ---- position pickers and FOR_EACH ------------------------------------- */

#define ETL__TL_P0(a, b, c, d, e, f, g, h) a
#define ETL__TL_P1(a, b, c, d, e, f, g, h) b
#define ETL__TL_P2(a, b, c, d, e, f, g, h) c
#define ETL__TL_P3(a, b, c, d, e, f, g, h) d
#define ETL__TL_P4(a, b, c, d, e, f, g, h) e
#define ETL__TL_P5(a, b, c, d, e, f, g, h) f
#define ETL__TL_P6(a, b, c, d, e, f, g, h) g
#define ETL__TL_P7(a, b, c, d, e, f, g, h) h
#define ETL__TL_META(it) ETL__TL_P0 it
#define ETL__TL_DATA(it) ETL__TL_P1 it,
#define ETL__TL_LV(it)   ETL__TL_P2 it
#define ETL__TL_KW(it)   ETL__TL_P3 it
#define ETL__TL_OP(it)   ETL__TL_P4 it
#define ETL__TL_CH(it)   ETL__TL_P5 it
#define ETL__TL_TK(it)   ETL__TL_P6 it
#define ETL__TL_ST(it)   ETL__TL_P7 it

#define ETL__TL_CAT(a, b) ETL__TL_CAT_(a, b)
#define ETL__TL_CAT_(a, b) a##b
#define ETL__TL_NARG(...) ETL__TL_NARG_(__VA_ARGS__, \
	33, 32, 31, 30, 29, 28, 27, 26, 25, 24, 23, 22, 21, 20, 19, 18, 17, \
	16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0)
#define ETL__TL_NARG_(_1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, _12, _13, _14, _15, \
	_16, _17, _18, _19, _20, _21, _22, _23, _24, _25, _26, _27, _28, _29, _30, _31, \
	_32, _33, N, ...) N
#define ETL__TL_EACH(m, ...) ETL__TL_CAT(ETL__TL_E, ETL__TL_NARG(__VA_ARGS__))(m, __VA_ARGS__)
#define ETL__TL_E1(m, a) m(a)
#define ETL__TL_E2(m, a, ...) m(a) ETL__TL_E1(m, __VA_ARGS__)
#define ETL__TL_E3(m, a, ...) m(a) ETL__TL_E2(m, __VA_ARGS__)
#define ETL__TL_E4(m, a, ...) m(a) ETL__TL_E3(m, __VA_ARGS__)
#define ETL__TL_E5(m, a, ...) m(a) ETL__TL_E4(m, __VA_ARGS__)
#define ETL__TL_E6(m, a, ...) m(a) ETL__TL_E5(m, __VA_ARGS__)
#define ETL__TL_E7(m, a, ...) m(a) ETL__TL_E6(m, __VA_ARGS__)
#define ETL__TL_E8(m, a, ...) m(a) ETL__TL_E7(m, __VA_ARGS__)
#define ETL__TL_E9(m, a, ...) m(a) ETL__TL_E8(m, __VA_ARGS__)
#define ETL__TL_E10(m, a, ...) m(a) ETL__TL_E9(m, __VA_ARGS__)
#define ETL__TL_E11(m, a, ...) m(a) ETL__TL_E10(m, __VA_ARGS__)
#define ETL__TL_E12(m, a, ...) m(a) ETL__TL_E11(m, __VA_ARGS__)
#define ETL__TL_E13(m, a, ...) m(a) ETL__TL_E12(m, __VA_ARGS__)
#define ETL__TL_E14(m, a, ...) m(a) ETL__TL_E13(m, __VA_ARGS__)
#define ETL__TL_E15(m, a, ...) m(a) ETL__TL_E14(m, __VA_ARGS__)
#define ETL__TL_E16(m, a, ...) m(a) ETL__TL_E15(m, __VA_ARGS__)
#define ETL__TL_E17(m, a, ...) m(a) ETL__TL_E16(m, __VA_ARGS__)
#define ETL__TL_E18(m, a, ...) m(a) ETL__TL_E17(m, __VA_ARGS__)
#define ETL__TL_E19(m, a, ...) m(a) ETL__TL_E18(m, __VA_ARGS__)
#define ETL__TL_E20(m, a, ...) m(a) ETL__TL_E19(m, __VA_ARGS__)
#define ETL__TL_E21(m, a, ...) m(a) ETL__TL_E20(m, __VA_ARGS__)
#define ETL__TL_E22(m, a, ...) m(a) ETL__TL_E21(m, __VA_ARGS__)
#define ETL__TL_E23(m, a, ...) m(a) ETL__TL_E22(m, __VA_ARGS__)
#define ETL__TL_E24(m, a, ...) m(a) ETL__TL_E23(m, __VA_ARGS__)
#define ETL__TL_E25(m, a, ...) m(a) ETL__TL_E24(m, __VA_ARGS__)
#define ETL__TL_E26(m, a, ...) m(a) ETL__TL_E25(m, __VA_ARGS__)
#define ETL__TL_E27(m, a, ...) m(a) ETL__TL_E26(m, __VA_ARGS__)
#define ETL__TL_E28(m, a, ...) m(a) ETL__TL_E27(m, __VA_ARGS__)
#define ETL__TL_E29(m, a, ...) m(a) ETL__TL_E28(m, __VA_ARGS__)
#define ETL__TL_E30(m, a, ...) m(a) ETL__TL_E29(m, __VA_ARGS__)
#define ETL__TL_E31(m, a, ...) m(a) ETL__TL_E30(m, __VA_ARGS__)
#define ETL__TL_E32(m, a, ...) m(a) ETL__TL_E31(m, __VA_ARGS__)
#define ETL__TL_E33(m, a, ...) m(a) ETL__TL_E32(m, __VA_ARGS__)

/* The empty item that ends every list (so that "..." is never empty). */
#define ETL__TL_END ( , ETL__TL_NODATA, , , , , , )

/* ---- the descriptor and the metadata, usable on their own ------------- */

/* ETL_TL_DESCRIPTOR(items...): the struct etl_event_descriptor an
 * ETL_TL_WRITE with these items uses (an initializer expression). */
#define ETL_TL_DESCRIPTOR(...) ETL__TL_DESC_(__VA_ARGS__, ETL__TL_END)
#define ETL__TL_DESC_(...) \
	((struct etl_event_descriptor){ 0, 0, \
		(uint8_t)(11 ETL__TL_EACH(ETL__TL_CH, __VA_ARGS__)), \
		(uint8_t)(5 ETL__TL_EACH(ETL__TL_LV, __VA_ARGS__)), \
		(uint8_t)(0 ETL__TL_EACH(ETL__TL_OP, __VA_ARGS__)), \
		(uint16_t)(0 ETL__TL_EACH(ETL__TL_TK, __VA_ARGS__)), \
		(uint64_t)(0 ETL__TL_EACH(ETL__TL_KW, __VA_ARGS__)) })

/* ETL_TL_METADATA("EventName", items...): the metadata string literal
 * (without its u16 size prefix); its size is sizeof - 1. */
#define ETL_TL_METADATA(...) ETL__TL_META_(__VA_ARGS__, ETL__TL_END)
#define ETL__TL_META_(name_, ...) "\0" name_ "\0" ETL__TL_EACH(ETL__TL_META, __VA_ARGS__)

/* ---- the write statement --------------------------------------------------- */

/* The pieces of a write, declared in a block: the metadata etl__tl_m_
 * (ETL__TL_META_SIZE bytes), the activity ids etl__tl_act_ and
 * etl__tl_rel_ as the items set them, and the data pieces etl__tl_v_
 * (ETL__TL_N of them). ETL_TL_WRITE and the statements of other headers
 * built on it (etl_sem.h) use them. */
#define ETL__TL_PIECES_(name_, ...)                                                    \
	static const char etl__tl_m_[] =                                               \
		"\0" name_ "\0" ETL__TL_EACH(ETL__TL_META, __VA_ARGS__);               \
	_Static_assert(sizeof etl__tl_m_ - 1 < 32000, "TraceLogging metadata too large"); \
	const struct etl_guid *etl__tl_act_ = NULL;                                    \
	const struct etl_guid *etl__tl_rel_ = NULL;                                    \
	ETL__TL_EACH(ETL__TL_ST, __VA_ARGS__)                                          \
	const struct etl_data etl__tl_v_[] = { ETL__TL_EACH(ETL__TL_DATA, __VA_ARGS__) };
#define ETL__TL_META_SIZE ((uint16_t)(sizeof etl__tl_m_ - 1))
#define ETL__TL_N ((uint32_t)(sizeof etl__tl_v_ / sizeof etl__tl_v_[0]))

/* ETL_TL_WRITE(prov, "EventName", items...): see the top of this file. */
#define ETL_TL_WRITE(...) ETL__TL_WRITE_(__VA_ARGS__, ETL__TL_END)
#define ETL__TL_WRITE_(prov_, name_, ...)                                              \
	do {                                                                           \
		const struct etl_event_descriptor etl__tl_d_ = ETL__TL_DESC_(__VA_ARGS__); \
		etl_provider *etl__tl_p_ = (prov_);                                    \
		if (etl_event_enabled(etl__tl_p_, etl__tl_d_.level, etl__tl_d_.keyword)) { \
			ETL__TL_PIECES_(name_, __VA_ARGS__)                            \
			(void)etl_write_tracelogging_counted(etl__tl_p_, &etl__tl_d_,  \
			        etl__tl_m_, ETL__TL_META_SIZE, etl__tl_act_, etl__tl_rel_, \
			        ETL__TL_N, etl__tl_v_);                                \
		}                                                                      \
	} while (0)

#ifdef __cplusplus
}
#endif
#endif /* ETL_TRACELOGGING_H */
