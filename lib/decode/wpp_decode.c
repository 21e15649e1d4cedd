/*
 * lib/decode/wpp_decode.c - WPP (software trace preprocessor) messages
 * (doc/decoding.md §5): the per-source decoder that looks a MESSAGE event's
 * message up in the TMF files loaded (lib/decode/tmf_load.c), walks the
 * message's argument list over the event's argument blob and renders its
 * format string.
 *
 * Choices (documented for users in etl_decode.h):
 *   - match(): every MESSAGE event goes to this decoder; one whose (message
 *     GUID, message number) no loaded TMF defines fails with the
 *     dispatcher's "no schema for this event" message (ETL_E_UNSUPPORTED);
 *   - the first definition of a (GUID, number) loaded wins;
 *   - the message is the format string only (no tracefmt prefix): %0 is
 *     removed, %% is %, %N[!fmt!] the argument with index N (else for N 1..9
 *     the standard prefix fields tracefmt defines, doc/decoding.md §5.3:
 *     %1 the GUID line's component, %2 the file_line, %3 thread id, %4 the
 *     time as tracefmt prints it, MM/DD/YYYY-HH:MM:SS.mmm, in UTC (the raw
 *     timestamp when the event has no UTC time), %5 kernel time, %6 user
 *     time, %7 sequence number, %8 process id, %9 CPU), %!NAME! a
 *     NAME=value of the #typev comment (COMPNAME defaults to the GUID
 *     line's component, FILE to the GUID line's SRC= value, LINE to the
 *     digits ending the file_line);
 *   - the standard prefix is also exposed as properties after the
 *     arguments, named as TDH names them for WPP events
 *     (PROPERTY_DATA_DESCRIPTOR): SequenceNum (with a sequence number),
 *     FunctionName (FUNC=), ComponentName (%!COMPNAME!), SubComponentName
 *     (SUBCOMP=), GuidTypeName (file_line), FlagsName (FLAGS=), LevelName
 *     (LEVEL=), each only when known, then Prefix: tracefmt's default
 *     prefix "[%9!d!]%8!04X!.%3!04X!::%4!s! [%1!s!]" rendered. TraceGuid
 *     and SystemTime are not repeated (the event's provider GUID and time).
 *     A prefix property whose name an argument already has is left out.
 */
#define ETL_BUILDING_LIB 1
#include <stdio.h>
#include <string.h>

#include "lib/common/cursor.h"
#include "lib/common/utf16.h"
#include "lib/decode/decode_internal.h"
#include "lib/decode/wpp_internal.h"
#include "etl_reader.h"

#define WPP_MAX_MESSAGE     65536u  /* rendered message bytes             */

/* ---- arguments ------------------------------------------------------- */

/* What each argument decoded to, for rendering. */
struct wpp_val {
	const struct wpp_arg *arg;
	uint32_t prop;
	unsigned size;              /* bytes of an integer value             */
	int is_signed;
};

static const char *latin1(etl_decoder *d, const uint8_t *p, size_t n, size_t *out_len)
{
	size_t extra = 0;
	for (size_t i = 0; i < n; i++)
		extra += p[i] >= 0x80;
	if (!extra) {
		*out_len = n;
		return (const char *)p;
	}
	char *o = etl__dec_alloc(d, n + extra + 1);
	if (!o)
		return NULL;
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		if (p[i] < 0x80) {
			o[k++] = (char)p[i];
		} else {
			o[k++] = (char)(0xC0 | (p[i] >> 6));
			o[k++] = (char)(0x80 | (p[i] & 0x3F));
		}
	}
	o[k] = 0;
	*out_len = k;
	return o;
}

static const char *utf16(etl_decoder *d, const uint8_t *p, size_t n, size_t *out_len)
{
	size_t m = etl__utf16_utf8_len(p, n);
	char *o = etl__dec_alloc(d, m + 1);
	if (!o)
		return NULL;
	*out_len = etl__utf16_to_utf8_buf(p, n, o);
	o[*out_len] = 0;
	return o;
}

static int fail_trunc(etl_decoder *d, const struct wpp_arg *a, size_t off, size_t need, size_t left)
{
	return etl__dec_fail(d, ETL_E_TRUNCATED,
	                     "argument \"%s\" (%s) truncated at offset %zu: needs %zu bytes, %zu left",
	                     a->name, a->type, off, need, left);
}

/* n bytes at b, UTF-16LE (wide) or Latin-1, as p's string value of in-type
 * in_type. ETL_OK, or the failure when memory is short. */
static int put_text(etl_decoder *d, struct etl_prop *p, int wide, unsigned in_type,
                    const uint8_t *b, size_t n)
{
	p->kind = ETL_VAL_STRING;
	p->in_type = (uint16_t)in_type;
	p->v.str.s = wide ? utf16(d, b, n, &p->v.str.len) : latin1(d, b, n, &p->v.str.len);
	if (!p->v.str.s)
		return etl__dec_fail(d, ETL_E_NOMEM, "out of memory");
	return ETL_OK;
}

static int dec_arg(etl_decoder *d, const struct etl_event *ev, struct etl_cur *c, const struct wpp_arg *a,
                   struct wpp_val *v)
{
	int oom = 0;
	uint32_t idx = etl__dec_reserve(d, 1, &oom);
	if (idx == UINT32_MAX)
		return etl__dec_fail(d, oom ? ETL_E_NOMEM : ETL_E_BAD_SIZE, oom ? "out of memory" : "too many properties");
	struct etl_prop *p = etl__dec_prop(d, idx);
	size_t off = c->pos, left = etl_cur_left(c);
	unsigned ptr = ev->ptr_size == 4 ? 4u : 8u;
	unsigned size = 0;
	int sgn = 0;
	v->arg = a;
	v->prop = idx;
	p->name = a->name;
	p->payload_offset = (uint32_t)off;
	switch (a->item) {
	case WI_CHAR: size = 1; sgn = 1; p->in_type = ETL_IN_INT8; break;
	case WI_UCHAR: case WI_LISTBYTE: size = 1; p->in_type = ETL_IN_UINT8; break;
	case WI_SHORT: size = 2; sgn = 1; p->in_type = ETL_IN_INT16; break;
	case WI_USHORT: case WI_LISTSHORT: size = 2; p->in_type = ETL_IN_UINT16; break;
	case WI_LONG: size = 4; sgn = 1; p->in_type = ETL_IN_INT32; break;
	case WI_ULONG: case WI_LISTLONG: case WI_ENUM: size = 4; p->in_type = ETL_IN_UINT32; break;
	case WI_ULONGX: size = 4; p->in_type = ETL_IN_UINT32; p->out_type = ETL_OUT_HEXINT32; break;
	case WI_NTSTATUS: size = 4; p->in_type = ETL_IN_UINT32; p->out_type = ETL_OUT_NTSTATUS; break;
	case WI_HRESULT: size = 4; p->in_type = ETL_IN_UINT32; p->out_type = ETL_OUT_HRESULT; break;
	case WI_WINERROR: size = 4; p->in_type = ETL_IN_UINT32; p->out_type = ETL_OUT_WIN32ERROR; break;
	case WI_IPADDR: size = 4; p->in_type = ETL_IN_UINT32; p->out_type = ETL_OUT_IPV4; break;
	case WI_PORT: size = 2; p->in_type = ETL_IN_UINT16; p->out_type = ETL_OUT_PORT; break;
	case WI_LONGLONG: size = 8; sgn = 1; p->in_type = ETL_IN_INT64; break;
	case WI_LONGLONGX: case WI_ULONGLONGX:
		size = 8; p->in_type = ETL_IN_UINT64; p->out_type = ETL_OUT_HEXINT64; break;
	case WI_LONGLONGO: case WI_ULONGLONG: size = 8; p->in_type = ETL_IN_UINT64; break;
	case WI_PTR: size = ptr; p->in_type = ETL_IN_POINTER; break;
	default: break;
	}
	v->size = size;
	v->is_signed = sgn;
	if (size) {
		if (left < size)
			return fail_trunc(d, a, off, size, left);
		const uint8_t *b = etl_cur_bytes(c, size);
		uint64_t u;
		if (a->item == WI_PORT)
			u = (uint64_t)b[0] << 8 | b[1];         /* network order */
		else if (size == 1)
			u = b[0];
		else if (size == 2)
			u = etl_le16(b);
		else if (size == 4)
			u = etl_le32(b);
		else
			u = etl_le64(b);
		if (sgn) {
			p->kind = ETL_VAL_INT;
			unsigned sh = 64u - size * 8u;
			p->v.i = sh ? (int64_t)(u << sh) >> sh : (int64_t)u;
		} else {
			p->kind = ETL_VAL_UINT;
			p->v.u = u;
		}
		if (a->n_list) {
			for (uint32_t i = 0; i < a->n_list; i++)
				if (a->list[i].value == u) {
					p->map_name = a->list[i].name;
					break;
				}
		}
		return ETL_OK;
	}
	switch (a->item) {
	case WI_DOUBLE:
		if (left < 8)
			return fail_trunc(d, a, off, 8, left);
		p->kind = ETL_VAL_FLOAT;
		p->in_type = ETL_IN_DOUBLE;
		p->v.f = etl_cur_f64(c);
		return ETL_OK;
	case WI_GUID:
		if (left < 16)
			return fail_trunc(d, a, off, 16, left);
		etl_cur_guid(c, &p->v.guid);
		p->kind = ETL_VAL_GUID;
		p->in_type = ETL_IN_GUID;
		return ETL_OK;
	case WI_STRING: case WI_WSTRING: {
		int wide = a->item == WI_WSTRING;
		size_t unit = wide ? 2 : 1;
		if (left < unit)
			return fail_trunc(d, a, off, unit, left);
		const uint8_t *b = etl_cur_ptr(c);
		size_t n = 0;
		int nul = 0;
		while (n + unit <= left) {
			if (b[n] == 0 && (!wide || b[n + 1] == 0)) {
				nul = 1;
				break;
			}
			n += unit;
		}
		etl_cur_skip(c, nul ? n + unit : left);   /* no NUL: taken whole */
		return put_text(d, p, wide, wide ? ETL_IN_UNICODESTRING : ETL_IN_ANSISTRING, b, n);
	}
	case WI_PSTRING: case WI_PWSTRING: {
		int wide = a->item == WI_PWSTRING;
		if (left < 2)
			return fail_trunc(d, a, off, 2, left);
		size_t n = etl_cur_u16(c);
		if (n > left - 2)
			return fail_trunc(d, a, off, n + 2, left);
		const uint8_t *b = etl_cur_bytes(c, n);
		return put_text(d, p, wide, wide ? ETL_IN_COUNTEDSTRING : ETL_IN_COUNTEDANSISTRING, b, n);
	}
	default:
		return etl__dec_fail(d, ETL_E_UNSUPPORTED, "argument \"%s\": item type %s not supported", a->name, a->type);
	}
}

/* ---- message rendering ----------------------------------------------- */

/* Default text of a value (no printf conversion given). */
static void val_text(struct etl_msgbuf *b, const struct etl_prop *p, const struct wpp_val *v, unsigned ptr)
{
	char t[128];
	if (p->map_name || (p->kind != ETL_VAL_UINT && p->kind != ETL_VAL_GUID)) {
		/* map names, signed, floating-point and string values */
		if (p->map_name || p->kind == ETL_VAL_INT || p->kind == ETL_VAL_FLOAT || p->kind == ETL_VAL_STRING)
			etl__msg_prop_text(b, p);
		return;
	}
	if (p->kind == ETL_VAL_GUID) {
		etl_guid_format(&p->v.guid, t);
	} else {
		switch (v->arg->item) {
		case WI_PTR: snprintf(t, sizeof t, "0x%0*llX", (int)(ptr * 2), (unsigned long long)p->v.u); break;
		case WI_NTSTATUS: case WI_HRESULT: case WI_WINERROR:
			snprintf(t, sizeof t, "0x%08llX", (unsigned long long)p->v.u);
			break;
		case WI_IPADDR:
			snprintf(t, sizeof t, "%u.%u.%u.%u", (unsigned)(p->v.u & 0xFF), (unsigned)(p->v.u >> 8 & 0xFF),
			         (unsigned)(p->v.u >> 16 & 0xFF), (unsigned)(p->v.u >> 24 & 0xFF));
			break;
		case WI_LONGLONGO: snprintf(t, sizeof t, "0%llo", (unsigned long long)p->v.u); break;
		default:
			if (p->out_type == ETL_OUT_HEXINT32 || p->out_type == ETL_OUT_HEXINT64)
				snprintf(t, sizeof t, "0x%llX", (unsigned long long)p->v.u);
			else
				snprintf(t, sizeof t, "%llu", (unsigned long long)p->v.u);
			break;
		}
	}
	etl__msg_str(b, t);
}

/* %N!fmt!: the printf conversion fmt (flags, width, precision; length
 * modifiers h l ll I64 I32 w z dropped, etl__msg_spec()) applied to the
 * value. */
static void val_fmt(struct etl_msgbuf *b, const struct etl_prop *p, const struct wpp_val *v, unsigned ptr,
                    const char *fmt, size_t fl)
{
	char t[512];
	struct etl_msg_spec spec;
	etl__msg_spec(&spec, fmt, fl);
	const char conv = spec.conv;
	int numeric = p->kind == ETL_VAL_INT || p->kind == ETL_VAL_UINT;
	if (p->kind == ETL_VAL_FLOAT && strchr("eEfgGaA", conv)) {
		etl__msg_fmt_float(b, &spec, p->v.f, sizeof t);
		return;
	}
	if (numeric && conv == 'p') {
		snprintf(t, sizeof t, "%0*llX", (int)(ptr * 2), (unsigned long long)p->v.u);
		etl__msg_str(b, t);
		return;
	}
	if (!numeric || p->map_name || !strchr("diuxXoc", conv)) {
		struct etl_msgbuf tmp = ETL_MSGBUF_INIT(WPP_MAX_MESSAGE);
		val_text(&tmp, p, v, ptr);
		etl__msg_fmt_text(b, &spec, &tmp, sizeof t);
		return;
	}
	/* Integers: reinterpreted at the argument's size like C printf would. */
	uint64_t u = p->kind == ETL_VAL_INT ? (uint64_t)p->v.i : p->v.u;
	unsigned size = v->size ? v->size : 8;
	if (size < 8)
		u &= (UINT64_C(1) << (size * 8)) - 1;
	long long iv = 0;
	if (conv == 'd' || conv == 'i') {
		/* unsigned types narrower than int are promoted without sign */
		unsigned sh = v->is_signed || size >= 4 ? 64u - size * 8u : 0u;
		iv = sh ? (long long)((int64_t)(u << sh) >> sh) : (long long)u;
	}
	etl__msg_fmt_int(b, &spec, iv, (unsigned long long)u, sizeof t);
}

/* Comment value NAME=... of the #typev line (the comment is kept whole).
 * @return : 1 if the comment has NAME=. */
static int comment_lookup(struct etl_msgbuf *b, const struct wpp_msg *m, const char *name, size_t n)
{
	const char *c = m->comment;
	if (!c)
		return 0;
	size_t cl = strlen(c);
	for (size_t i = 0; i + n < cl; i++) {
		if ((i == 0 || etl__wpp_is_space(c[i - 1])) && memcmp(c + i, name, n) == 0 && c[i + n] == '=') {
			size_t j = i + n + 1, e = j;
			while (e < cl && !etl__wpp_is_space(c[e]))
				e++;
			etl__msg_add(b, c + j, e - j);
			return 1;
		}
	}
	return 0;
}

/* Length of the line number at the end of file_line ("queue_c42" -> 2). */
static size_t line_digits(const char *fl)
{
	size_t n = strlen(fl), k = 0;
	while (k < n && fl[n - 1 - k] >= '0' && fl[n - 1 - k] <= '9')
		k++;
	return k;
}

/* %!NAME! (doc/decoding.md §5.2-5.3): NAME=value of the #typev comment;
 * COMPNAME defaults to the GUID line's component, FILE to the GUID line's
 * SRC= value, LINE to the digits that end the file_line. */
static void comment_text(struct etl_msgbuf *b, const struct wpp_msg *m, const char *name, size_t n)
{
	if (n == 8 && memcmp(name, "COMPNAME", 8) == 0) {
		if (m->compname)
			etl__msg_str(b, m->compname);
		return;
	}
	if (comment_lookup(b, m, name, n))
		return;
	if (n == 4 && memcmp(name, "FILE", 4) == 0 && m->src) {
		etl__msg_str(b, m->src);
	} else if (n == 4 && memcmp(name, "LINE", 4) == 0) {
		size_t k = line_digits(m->file_line);
		etl__msg_add(b, m->file_line + strlen(m->file_line) - k, k);
	}
}

/* tracefmt's time stamp text (%4), "MM/DD/YYYY-HH:MM:SS.mmm", in UTC (the
 * decoder knows no local time zone); the raw timestamp as a number when
 * the event has no UTC time. @return : 1 if t holds the text. */
static int time_text(const struct etl_event *ev, char *t, size_t tn)
{
	char iso[40];
	if (!(ev->present & ETL_EVF_UTC) || !etl_filetime_format(ev->utc, iso, sizeof iso))
		return 0;
	/* "YYYY-MM-DDTHH:MM:SS.fffffffZ" */
	if (strlen(iso) != 28 || iso[4] != '-' || iso[10] != 'T' || iso[19] != '.')
		return 0;
	snprintf(t, tn, "%.2s/%.2s/%.4s-%.8s.%.3s", iso + 5, iso + 8, iso, iso + 11, iso + 20);
	return 1;
}

/* Standard prefix fields %1..%9 (doc/decoding.md §5.3) when no argument has
 * that index; as numbers with the conversion applied. */
static void prefix_field(struct etl_msgbuf *b, const struct wpp_msg *m, const struct etl_event *ev, unsigned long k,
                         const char *fmt, size_t fl)
{
	struct etl_prop p;
	struct wpp_arg a;
	struct wpp_val v;
	char tt[40];
	memset(&p, 0, sizeof p);
	memset(&a, 0, sizeof a);
	memset(&v, 0, sizeof v);
	a.item = WI_ULONG;
	v.arg = &a;
	v.size = 4;
	p.kind = ETL_VAL_UINT;
	switch (k) {
	case 1:
		p.kind = ETL_VAL_STRING;
		p.v.str.s = m->component ? m->component : "";
		p.v.str.len = strlen(p.v.str.s);
		break;
	case 2:
		p.kind = ETL_VAL_STRING;
		p.v.str.s = m->file_line;
		p.v.str.len = strlen(m->file_line);
		break;
	case 3: p.v.u = ev->tid; break;
	case 4: case 5: case 6:
		if (k == 4 && time_text(ev, tt, sizeof tt)) {
			p.kind = ETL_VAL_STRING;
			p.v.str.s = tt;
			p.v.str.len = strlen(tt);
			break;
		}
		p.v.u = (uint64_t)(k == 4 ? ev->timestamp : k == 5 ? ev->kernel_time : ev->user_time);
		v.size = 8;
		break;
	case 7: p.v.u = ev->sequence; break;
	case 8: p.v.u = ev->pid; break;
	case 9: p.v.u = ev->processor; break;
	default: return;
	}
	if (fmt)
		val_fmt(b, &p, &v, 8, fmt, fl);
	else
		val_text(b, &p, &v, 8);
}

/* Renders format (the message's, or with vals NULL a prefix format that
 * only uses the prefix fields) into decoder storage at *out. */
static int render(etl_decoder *d, const struct etl_event *ev, const struct wpp_msg *m, const char *format,
                  const struct wpp_val *vals, const char **out)
{
	struct etl_msgbuf b = ETL_MSGBUF_INIT(WPP_MAX_MESSAGE);
	unsigned ptr = ev->ptr_size == 4 ? 4u : 8u;
	*out = NULL;
	for (const char *s = format; *s && !b.oom;) {
		if (*s != '%') {
			const char *e = strchr(s, '%');
			size_t n = e ? (size_t)(e - s) : strlen(s);
			etl__msg_add(&b, s, n);
			s += n;
			continue;
		}
		s++;
		if (*s >= '0' && *s <= '9') {
			unsigned long k = 0;
			while (*s >= '0' && *s <= '9') {
				if (k < 1000000)
					k = k * 10 + (unsigned long)(*s - '0');
				s++;
			}
			const char *fmt = NULL;
			size_t fl = 0;
			if (*s == '!') {
				const char *e = strchr(s + 1, '!');
				if (e && e - s - 1 < 24) {
					fmt = s + 1;
					fl = (size_t)(e - s - 1);
					s = e + 1;
				}
			}
			if (k == 0)
				continue;                       /* %0: prefix placeholder */
			const struct wpp_val *v = NULL;
			for (uint32_t i = 0; vals && i < m->n_args; i++)
				if (m->args[i].index == k) {
					v = &vals[i];
					break;
				}
			if (v) {
				const struct etl_prop *p = etl__dec_prop(d, v->prop);
				if (fmt)
					val_fmt(&b, p, v, ptr, fmt, fl);
				else
					val_text(&b, p, v, ptr);
			} else {
				prefix_field(&b, m, ev, k, fmt, fl);
			}
			continue;
		}
		if (*s == '!') {                               /* %!NAME! */
			const char *e = strchr(s + 1, '!');
			if (e && e - s - 1 < 64) {
				comment_text(&b, m, s + 1, (size_t)(e - s - 1));
				s = e + 1;
				continue;
			}
		}
		if (*s == 0) {
			etl__msg_str(&b, "%");
			break;
		}
		etl__msg_add(&b, s, 1);                              /* %% and others */
		s++;
	}
	return etl__msg_finish(d, &b, out);
}

/* ---- the standard prefix as properties ----------------------------------- */

/* tracefmt's default TRACE_FORMAT_PREFIX (doc/decoding.md §5.3): [CPU]PID.TID::time [name]. */
static const char WPP_DEFAULT_PREFIX[] = "[%9!d!]%8!04X!.%3!04X!::%4!s! [%1!s!]";

static int arg_named(const struct wpp_msg *m, const char *name)
{
	for (uint32_t i = 0; i < m->n_args; i++)
		if (strcmp(m->args[i].name, name) == 0)
			return 1;
	return 0;
}

/* Appends one top-level property after the arguments (skipped when an
 * argument has that name). @return : the property, NULL when skipped or on
 * failure (*rc set). */
static struct etl_prop *prefix_prop(etl_decoder *d, const struct etl_event *ev, const struct wpp_msg *m,
                                    const char *name, int kind, uint16_t in, int *rc)
{
	if (arg_named(m, name))
		return NULL;
	int oom = 0;
	uint32_t idx = etl__dec_reserve(d, 1, &oom);
	if (idx == UINT32_MAX) {
		*rc = etl__dec_fail(d, oom ? ETL_E_NOMEM : ETL_E_BAD_SIZE, oom ? "out of memory" : "too many properties");
		return NULL;
	}
	struct etl_prop *p = etl__dec_prop(d, idx);
	p->name = name;
	p->kind = kind;
	p->in_type = in;
	p->payload_offset = ev->payload ? ev->payload_size : 0;
	return p;
}

static int prefix_str(etl_decoder *d, const struct etl_event *ev, const struct wpp_msg *m, const char *name,
                      const char *value)
{
	int rc = ETL_OK;
	if (!value)
		return ETL_OK;
	struct etl_prop *p = prefix_prop(d, ev, m, name, ETL_VAL_STRING, ETL_IN_UNICODESTRING, &rc);
	if (p) {
		p->v.str.s = value;
		p->v.str.len = strlen(value);
	}
	return rc;
}

/* The standard prefix fields (doc/decoding.md §5.3) that the System part of an
 * event does not already carry, named as TDH names WPP properties
 * (PROPERTY_DATA_DESCRIPTOR): SequenceNum, FunctionName, ComponentName,
 * SubComponentName, GuidTypeName, FlagsName, LevelName; then Prefix, the
 * default tracefmt prefix rendered. */
static int add_prefix_props(etl_decoder *d, const struct etl_event *ev, const struct wpp_msg *m)
{
	int rc = ETL_OK;
	if (ev->present & ETL_EVF_SEQUENCE) {
		struct etl_prop *p = prefix_prop(d, ev, m, "SequenceNum", ETL_VAL_UINT, ETL_IN_UINT32, &rc);
		if (p)
			p->v.u = ev->sequence;
		if (rc != ETL_OK)
			return rc;
	}
	if ((rc = prefix_str(d, ev, m, "FunctionName", m->func)) != ETL_OK ||
	    (rc = prefix_str(d, ev, m, "ComponentName", m->compname)) != ETL_OK ||
	    (rc = prefix_str(d, ev, m, "SubComponentName", m->subcomp)) != ETL_OK ||
	    (rc = prefix_str(d, ev, m, "GuidTypeName", m->file_line)) != ETL_OK ||
	    (rc = prefix_str(d, ev, m, "FlagsName", m->flags)) != ETL_OK ||
	    (rc = prefix_str(d, ev, m, "LevelName", m->level)) != ETL_OK)
		return rc;
	if (arg_named(m, "Prefix"))
		return ETL_OK;
	const char *text;
	if (!render(d, ev, m, WPP_DEFAULT_PREFIX, NULL, &text))
		return etl__dec_fail(d, ETL_E_NOMEM, "out of memory");
	return prefix_str(d, ev, m, "Prefix", text);
}

/* ---- the per-source decoder ------------------------------------------ */

int etl__wpp_match(const struct etl_event *ev)
{
	return ev->kind == ETL_HDR_MESSAGE;
}

int etl__wpp_decode(etl_decoder *d, const struct etl_event *ev)
{
	struct etl_decoded *res = etl__dec_result(d);
	const struct wpp_msg *m = NULL;

	if (ev->present & ETL_EVF_PROVIDER)
		m = etl__wpp_find_msg(d, &ev->provider, ev->id);
	if (!m) {
		char g[ETL_GUID_STRLEN];
		etl_guid_format(&ev->provider, g);
		return etl__dec_fail(d, ETL_E_UNSUPPORTED,
		                     "no schema for this event: provider=%s%s%s%s, id=%u, version=%u",
		                     g, ev->provider_name ? " (" : "",
		                     ev->provider_name ? ev->provider_name : "",
		                     ev->provider_name ? ")" : "",
		                     (unsigned)ev->id, (unsigned)ev->version);
	}
	res->source = ETL_DECODE_WPP;
	res->provider_name = m->component;
	res->event_name = m->func ? m->func : m->file_line;
	res->level_name = m->level;
	res->keywords_name = m->flags;

	struct wpp_val *vals = NULL;
	if (m->n_args) {
		vals = (struct wpp_val *)(void *)etl__dec_alloc(d, m->n_args * sizeof *vals + _Alignof(max_align_t));
		if (!vals)
			return etl__dec_fail(d, ETL_E_NOMEM, "out of memory");
		uintptr_t a = (uintptr_t)vals;
		a = (a + _Alignof(max_align_t) - 1) & ~(uintptr_t)(_Alignof(max_align_t) - 1);
		vals = (struct wpp_val *)a;
	}
	struct etl_cur c;
	etl_cur_init(&c, ev->payload, ev->payload ? ev->payload_size : 0);
	for (uint32_t i = 0; i < m->n_args; i++) {
		int rc = dec_arg(d, ev, &c, &m->args[i], &vals[i]);
		if (rc != ETL_OK)
			return rc;
	}
	if (!render(d, ev, m, m->format, vals, &res->message))
		return etl__dec_fail(d, ETL_E_NOMEM, "out of memory");
	return add_prefix_props(d, ev, m);
}
