/*
 * lib/render/value_format.c - the text of a property value, the walk over
 * the property tree (flattened leaf names), and name=value lists of the
 * leaves (text and CSV).
 *
 * Value formatting (doc/decoding.md §6.2, one canonical form):
 *   integers         decimal;
 *   hex types        "0x" + lowercase hex, no padding: HexInt8..64 out
 *                    types, HexInt32/HexInt64/Pointer in types, and the
 *                    error-code out types (Win32Error, NTSTATUS, HRESULT,
 *                    ErrorCode), CodePointer; negative values as the two's
 *                    complement of the in-type's width;
 *   boolean          true / false (also integers with a Boolean out type);
 *   characters       8- and 16-bit integers with a String out type: the
 *                    character (Windows-1252 / UCS-2) as UTF-8;
 *   float, double    the shortest decimal that reads back to the same
 *                    value (%.*g); NaN, Infinity, -Infinity;
 *   GUID             {lowercase 8-4-4-4-12};
 *   FILETIME         2020-02-17T12:48:30.4203138Z (7 digits, UTC); from
 *                    2^63 on (no date) the unsigned number as stored;
 *   SID              S-1-5-21-...; not a well-formed SID: as binary;
 *   binary           uppercase hex pairs, no 0x;
 *   IPv4 out type    dotted quad of the bytes in network order;
 *   IPv6 out type    RFC 5952 text (as inet_ntop writes it);
 *   Port out type    decimal after swapping the two bytes;
 *   SocketAddress    "1.2.3.4:80" / "[::1]:80" (AF_INET 2 / AF_INET6 23),
 *                    other families as binary;
 *   strings          as decoded (UTF-8); each format escapes them.
 */
#define ETL_BUILDING_LIB 1
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lib/render/render.h"

/* ---- values --------------------------------------------------------- */

#define in_type_bytes etl__out_in_type_bytes
#define is_hex_type etl__out_is_hex_type

static void put_float(struct etl_outbuf *b, double v, int single)
{
	char s[40];
	if (isnan(v)) {
		etl__ob_puts(b, "NaN");
		return;
	}
	if (isinf(v)) {
		etl__ob_puts(b, v < 0 ? "-Infinity" : "Infinity");
		return;
	}
	for (int prec = 1; prec <= 17; prec++) {
		snprintf(s, sizeof s, "%.*g", prec, v);
		double back = strtod(s, NULL);
		if (single ? (float)back == (float)v : back == v)
			break;
	}
	etl__ob_puts(b, s);
}

static void put_ipv4(struct etl_outbuf *b, const uint8_t a[4])
{
	for (int i = 0; i < 4; i++) {
		if (i)
			etl__ob_putc(b, '.');
		etl__ob_u64(b, a[i]);
	}
}

/* The text glibc's inet_ntop(AF_INET6) writes, without its sprintf per
 * group (tests/check_fmt.c compares the two): groups in lower-case hex
 * without leading zeros, the first longest run of two or more zero groups
 * as "::", and the last 32 bits as a dotted quad when the first 96 are
 * zero (but for the run) or ::ffff. */
void etl__out_ipv6(struct etl_outbuf *b, const uint8_t a[16])
{
	static const char hex[] = "0123456789abcdef";
	unsigned w[8];
	int best = -1, best_len = 0, cur = -1, cur_len = 0;
	for (int i = 0; i < 8; i++) {
		w[i] = (unsigned)a[2 * i] << 8 | a[2 * i + 1];
		if (w[i] == 0) {
			if (cur < 0)
				cur = i, cur_len = 0;
			cur_len++;
			if (cur_len > best_len)
				best = cur, best_len = cur_len;
		} else {
			cur = -1;
		}
	}
	if (best_len < 2)
		best = -1;
	char *o = etl__ob_room(b, 48);
	if (!o)
		return;
	char *q = o;
	for (int i = 0; i < 8; i++) {
		if (best >= 0 && i >= best && i < best + best_len) {
			if (i == best)
				*q++ = ':';
			continue;
		}
		if (i != 0)
			*q++ = ':';
		if (i == 6 && best == 0 && (best_len == 6 || (best_len == 5 && w[5] == 0xffff))) {
			for (int k = 12; k < 16; k++) {
				if (k > 12)
					*q++ = '.';
				q += etl__fmt_u64(q, a[k]);
			}
			break;
		}
		int started = 0;
		for (int sh = 12; sh >= 0; sh -= 4) {
			unsigned d = w[i] >> sh & 15;
			if (d || started || sh == 0) {
				*q++ = hex[d];
				started = 1;
			}
		}
	}
	if (best >= 0 && best + best_len == 8)
		*q++ = ':';
	b->len += (size_t)(q - o);
}

/* SOCKADDR_IN (family 2) / SOCKADDR_IN6 (family 23, Windows' AF_INET6). */
static int put_sockaddr(struct etl_outbuf *b, const uint8_t *p, size_t n)
{
	if (n < 2)
		return -1;
	unsigned family = p[0] | (unsigned)p[1] << 8;
	if (family == 2 && n >= 8) {
		put_ipv4(b, p + 4);
		etl__ob_putc(b, ':');
		etl__ob_u64(b, (unsigned)(p[2] << 8 | p[3]));
		return 0;
	}
	if (family == 23 && n >= 24) {
		etl__ob_putc(b, '[');
		etl__out_ipv6(b, p + 8);
		ETL_OB_LIT(b, "]:");
		etl__ob_u64(b, (unsigned)(p[2] << 8 | p[3]));
		return 0;
	}
	return -1;
}

/* S-Revision-Authority-Sub... ; -1 when p is not a whole SID. */
int etl__out_sid(struct etl_outbuf *b, const uint8_t *p, size_t n)
{
	if (n < 8 || p[1] > 15 || n < 8 + 4 * (size_t)p[1])
		return -1;
	uint64_t auth = 0;
	for (int i = 2; i < 8; i++)
		auth = auth << 8 | p[i];
	ETL_OB_LIT(b, "S-");
	etl__ob_u64(b, p[0]);
	if (auth >> 32) {
		etl__ob_printf(b, "-0x%012llx", (unsigned long long)auth);
	} else {
		etl__ob_putc(b, '-');
		etl__ob_u64(b, auth);
	}
	for (unsigned i = 0; i < p[1]; i++) {
		const uint8_t *s = p + 8 + 4 * i;
		etl__ob_putc(b, '-');
		etl__ob_u64(b, (uint32_t)s[0] | (uint32_t)s[1] << 8 | (uint32_t)s[2] << 16 |
		               (uint32_t)s[3] << 24);
	}
	return 0;
}

/* Windows-1252 0x80-0x9F (the rest of the code page is Latin-1). */
static const uint16_t cp1252_80[32] = {
	0x20AC, 0x0081, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021,
	0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0x008D, 0x017D, 0x008F,
	0x0090, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014,
	0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0x009D, 0x017E, 0x0178
};

/* A character value: 8-bit in Windows-1252, 16-bit as UCS-2 (a lone
 * surrogate becomes U+FFFD), as UTF-8. */
static void put_char(struct etl_outbuf *b, uint64_t v, unsigned width)
{
	uint32_t cp = width == 1 ? (uint32_t)(v & 0xFF) : (uint32_t)(v & 0xFFFF);
	if (width == 1 && cp >= 0x80 && cp < 0xA0)
		cp = cp1252_80[cp - 0x80];
	if (cp >= 0xD800 && cp < 0xE000)
		cp = 0xFFFD;
	char u[3];
	if (cp < 0x80) {
		etl__ob_putc(b, (char)cp);
	} else if (cp < 0x800) {
		u[0] = (char)(0xC0 | cp >> 6);
		u[1] = (char)(0x80 | (cp & 0x3F));
		etl__ob_put(b, u, 2);
	} else {
		u[0] = (char)(0xE0 | cp >> 12);
		u[1] = (char)(0x80 | (cp >> 6 & 0x3F));
		u[2] = (char)(0x80 | (cp & 0x3F));
		etl__ob_put(b, u, 3);
	}
}

#define JSON_SAFE_INT 9007199254740992ULL   /* 2^53 */

int etl__out_value(struct etl_outbuf *b, const struct etl_prop *p)
{
	switch (p->kind) {
	case ETL_VAL_NULL:
		return ETL_OUTV_NULL;
	case ETL_VAL_BOOL:
		etl__ob_puts(b, p->v.u ? "true" : "false");
		return ETL_OUTV_BOOL;
	case ETL_VAL_INT:
	case ETL_VAL_UINT: {
		uint64_t u = p->v.u;
		if (is_hex_type(p)) {
			char *o = etl__ob_room(b, ETL_OUT_HEX_INT_MAX);
			if (o)
				b->len += etl__out_hex_int(o, p);
			return ETL_OUTV_STRING;
		}
		if (p->out_type == ETL_OUT_STRING &&
		    (in_type_bytes(p->in_type) == 1 || in_type_bytes(p->in_type) == 2)) {
			put_char(b, u, in_type_bytes(p->in_type));
			return ETL_OUTV_STRING;
		}
		if (p->out_type == ETL_OUT_BOOLEAN) {
			etl__ob_puts(b, u ? "true" : "false");
			return ETL_OUTV_BOOL;
		}
		if (p->kind == ETL_VAL_UINT && p->out_type == ETL_OUT_IPV4) {
			uint8_t a[4] = { (uint8_t)u, (uint8_t)(u >> 8), (uint8_t)(u >> 16), (uint8_t)(u >> 24) };
			put_ipv4(b, a);
			return ETL_OUTV_STRING;
		}
		if (p->kind == ETL_VAL_UINT && p->out_type == ETL_OUT_PORT) {
			etl__ob_u64(b, (unsigned)((u & 0xFF) << 8 | (u >> 8 & 0xFF)));
			return ETL_OUTV_NUMBER;
		}
		if (p->kind == ETL_VAL_INT) {
			etl__ob_i64(b, p->v.i);
			return (p->v.i > -(int64_t)JSON_SAFE_INT && p->v.i < (int64_t)JSON_SAFE_INT)
			       ? ETL_OUTV_NUMBER : ETL_OUTV_STRING;
		}
		etl__ob_u64(b, u);
		return u < JSON_SAFE_INT ? ETL_OUTV_NUMBER : ETL_OUTV_STRING;
	}
	case ETL_VAL_FLOAT:
		put_float(b, p->v.f, p->in_type == ETL_IN_FLOAT);
		return isfinite(p->v.f) ? ETL_OUTV_NUMBER : ETL_OUTV_STRING;
	case ETL_VAL_STRING:
		if (p->v.str.s)
			etl__ob_put(b, p->v.str.s, p->v.str.len);
		return ETL_OUTV_STRING;
	case ETL_VAL_GUID:
		etl__out_guid(b, &p->v.guid);
		return ETL_OUTV_STRING;
	case ETL_VAL_FILETIME:
		/* From 2^63 on a FILETIME is no date (FileTimeToSystemTime
		 * refuses it; all ones often means "never"): its number. */
		if (p->v.i < 0)
			etl__ob_u64(b, p->v.u);
		else
			etl__ob_filetime(b, p->v.i);
		return ETL_OUTV_STRING;
	case ETL_VAL_SID:
		if (p->v.bin.p && etl__out_sid(b, p->v.bin.p, p->v.bin.len) == 0)
			return ETL_OUTV_STRING;
		break;
	case ETL_VAL_BINARY:
		if (!p->v.bin.p)
			return ETL_OUTV_STRING;
		if (p->out_type == ETL_OUT_IPV6 && p->v.bin.len == 16) {
			etl__out_ipv6(b, p->v.bin.p);
			return ETL_OUTV_STRING;
		}
		if (p->out_type == ETL_OUT_IPV4 && p->v.bin.len == 4) {
			put_ipv4(b, p->v.bin.p);
			return ETL_OUTV_STRING;
		}
		if (p->out_type == ETL_OUT_SOCKETADDRESS && put_sockaddr(b, p->v.bin.p, p->v.bin.len) == 0)
			return ETL_OUTV_STRING;
		break;
	default:                   /* STRUCT / ARRAY: not a scalar */
		return ETL_OUTV_NULL;
	}
	if (p->v.bin.p)
		etl__out_hex(b, p->v.bin.p, p->v.bin.len);
	return ETL_OUTV_STRING;
}

int etl__out_value_needs_escape(const struct etl_prop *p)
{
	return p->kind == ETL_VAL_STRING ||
	       ((p->kind == ETL_VAL_INT || p->kind == ETL_VAL_UINT) && p->out_type == ETL_OUT_STRING);
}

/* ---- the property tree ----------------------------------------------- */

struct leaf_walk {
	const struct etl_out_rec *r;
	etl_out_leaf_fn fn;
	void *arg;
	struct etl_outbuf name;
};

static int leaf_visit(struct leaf_walk *w, uint32_t i, unsigned depth)
{
	const struct etl_prop *p = &w->r->props[i];
	if (!etl__out_has_children(p))
		return w->fn(w->arg, w->name.p ? w->name.p : "", w->name.len, p);
	uint32_t first, count;
	etl__out_children(w->r, i, depth, &first, &count);
	size_t base = w->name.len;
	const int packed = p->kind == ETL_VAL_ARRAY_PACKED;
	for (uint32_t k = 0; k < count; k++) {
		struct etl_prop tmp;            /* a packed array's element k */
		const struct etl_prop *c = &w->r->props[first + (packed ? 0 : k)];
		if (packed) {
			etl__packed_elem(p, c, k, &tmp);
			c = &tmp;
		}
		w->name.len = base;
		if (p->kind == ETL_VAL_ARRAY || packed) {
			etl__ob_putc(&w->name, '[');
			etl__ob_u64(&w->name, k);
			etl__ob_putc(&w->name, ']');
		} else {
			etl__ob_putc(&w->name, '.');
			etl__ob_puts(&w->name, c->name ? c->name : "");
		}
		int rc = packed ? w->fn(w->arg, w->name.p ? w->name.p : "", w->name.len, c)
		                : leaf_visit(w, first + k, depth + 1);
		if (rc)
			return rc;
	}
	w->name.len = base;
	return 0;
}

int etl__out_leaves(const struct etl_out_rec *r, etl_out_leaf_fn fn, void *arg)
{
	struct leaf_walk w;
	int rc = 0;
	memset(&w, 0, sizeof w);
	w.r = r;
	w.fn = fn;
	w.arg = arg;
	const uint32_t n = r->n_props;
	for (uint32_t i = etl__out_next_top(r->props, n, 0); i < n && !rc; i = etl__out_next_top(r->props, n, i + 1)) {
		w.name.len = 0;
		etl__ob_puts(&w.name, r->props[i].name ? r->props[i].name : "");
		rc = leaf_visit(&w, i, 0);
	}
	if (w.name.oom && !rc)
		rc = -1;
	etl__ob_free(&w.name);
	return rc;
}


/* ---- name=value lists (text, CSV) ----------------------------------- */

struct list_walk {
	struct etl_outbuf *b;
	struct etl_outbuf val;
	const char *sep;
	int first;
};

static int list_leaf(void *arg, const char *name, size_t name_len, const struct etl_prop *p)
{
	struct list_walk *w = arg;
	if (!w->first)
		etl__ob_puts(w->b, w->sep);
	w->first = 0;
	etl__out_text_name(w->b, name, name_len);
	etl__ob_putc(w->b, '=');
	w->val.len = 0;
	etl__out_value(&w->val, p);
	if (w->val.oom)
		return -1;
	etl__out_text_value(w->b, w->val.p ? w->val.p : "", w->val.len);
	return 0;
}

int etl__out_props_list(struct etl_outbuf *b, const struct etl_out_rec *r, const char *sep)
{
	struct list_walk w;
	int rc = 0;
	memset(&w, 0, sizeof w);
	w.b = b;
	w.sep = sep;
	w.first = 1;
	if (r->has_data) {
		rc = etl__out_leaves(r, list_leaf, &w);
	} else if (r->has_error) {
		const char *reason = r->error_reason ? r->error_reason : "";
		etl__ob_printf(b, "ErrorCode=%u%sReason=", (unsigned)r->error_code, sep);
		etl__out_text_value(b, reason, strlen(reason));
		etl__ob_printf(b, "%sEventPayload=", sep);
		if (r->payload_len)
			etl__out_hex(b, r->payload, r->payload_len);
		else
			etl__ob_puts(b, "\"\"");
	}
	etl__ob_free(&w.val);
	return rc;
}

