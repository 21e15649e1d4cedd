/*
 * lib/decode/manifest_message.c - the message of a manifest event
 * (doc/decoding.md §3): parsed once at load into literal pieces and
 * inserts, rendered per event from the decoded properties.
 *
 * Rendering runs for nearly every manifest event, so the common inserts
 * (mapped names, strings, decimal integers) are formatted here without
 * snprintf, and the buffer is kept with the set from event to event; the
 * rest goes through the shared helpers of lib/decode/message.c.
 */
#define ETL_BUILDING_LIB 1
#include <limits.h>
#include <string.h>

#include "lib/common/fmt.h"
#include "lib/decode/decode_internal.h"
#include "lib/decode/manifest_internal.h"

/* ---- parsing (at load) ----------------------------------------------- */

/* Parses message msg of an event with n_top top-level fields into pieces
 * once, at load: literal runs, %n %t %r as the control, %0 the end, a % at
 * the end itself, % + another character that character; %N[!fmt!] an
 * insert when 1 <= N <= n_top (else nothing). NULL when memory is short. */
const struct mf_msg *etl__mf_msg_compile(struct mf_set *s, const char *msg, uint32_t n_top)
{
	size_t ml = strlen(msg), max_seg = 1;
	for (const char *p = msg; *p; p++)
		if (*p == '%')
			max_seg++;
	struct mf_msg *m = etl__mf_pool_alloc(s, sizeof *m);
	struct mf_seg *seg = m ? etl__mf_pool_alloc(s, max_seg * sizeof *seg) : NULL;
	/* never longer; and MF_LIT_SLACK bytes more, all zeroed, so that a
	 * literal (which starts at most at the end) can be read in blocks */
	char *text = seg ? etl__mf_pool_alloc(s, ml + 1 + MF_LIT_SLACK) : NULL;
	if (!text)
		return NULL;
	memset(text, 0, ml + 1 + MF_LIT_SLACK);
	size_t ns = 0, tl = 0, lit = 0;
	for (const char *p = msg; *p;) {
		if (*p != '%') {
			const char *e = strchr(p, '%');
			size_t n = e ? (size_t)(e - p) : strlen(p);
			memcpy(text + tl, p, n);
			tl += n;
			p += n;
			continue;
		}
		p++;
		if (*p >= '1' && *p <= '9') {
			unsigned long k = 0;
			while (*p >= '0' && *p <= '9' && k < 100000)
				k = k * 10 + (unsigned long)(*p++ - '0');
			const char *fmt = NULL;
			size_t fl = 0;
			if (*p == '!') {
				const char *e = strchr(p + 1, '!');
				if (e && e - p - 1 < 24) {
					fmt = p + 1;
					fl = (size_t)(e - p - 1);
					p = e + 1;
				}
			}
			if (k >= 1 && k <= n_top) {
				seg[ns].lit = text + lit;
				seg[ns].lit_len = (uint32_t)(tl - lit);
				seg[ns].insert = (uint32_t)k;
				seg[ns].fmt = fmt;
				seg[ns].fl = (uint32_t)fl;
				ns++;
				lit = tl;
			}
			continue;
		}
		int end = 0;
		switch (*p) {
		case 'n': text[tl++] = '\n'; p++; break;
		case 't': text[tl++] = '\t'; p++; break;
		case 'r': text[tl++] = '\r'; p++; break;
		case '0': end = 1; break;
		case 0: text[tl++] = '%'; break;
		default: text[tl++] = *p; p++; break;   /* %% %! %. and others */
		}
		if (end)
			break;
	}
	if (tl > lit || ns == 0) {
		seg[ns].lit = text + lit;
		seg[ns].lit_len = (uint32_t)(tl - lit);
		seg[ns].insert = 0;
		seg[ns].fmt = NULL;
		seg[ns].fl = 0;
		ns++;
	}
	m->seg = seg;
	m->n_seg = ns;
	return m;
}

/* ---- rendering ------------------------------------------------------- */

/* etl__msg_add() with its common case inline: the text fits in the buffer
 * as it is (the same checks; the function grows the buffer otherwise). A
 * message is rendered in many small pieces. */
static inline void mb_add(struct etl_msgbuf *b, const char *s, size_t n)
{
	if (!b->oom && n <= b->max - b->n && b->n + n + 1 <= b->cap) {
		if (n)
			memcpy(b->p + b->n, s, n);
		b->n += n;
		b->p[b->n] = 0;
		return;
	}
	etl__msg_add(b, s, n);
}

/* mb_add() of a message literal, which is followed by MF_LIT_SLACK
 * readable bytes: up to that many copied as one fixed-size block when the
 * buffer has room for the block (messages are mostly short literals
 * between inserts, each a call to memcpy otherwise). */
static inline void mb_add_lit(struct etl_msgbuf *b, const char *s, size_t n)
{
	if (n <= MF_LIT_SLACK && !b->oom && n <= b->max - b->n && b->n + MF_LIT_SLACK + 1 <= b->cap) {
		memcpy(b->p + b->n, s, MF_LIT_SLACK);
		b->n += n;
		b->p[b->n] = 0;
		return;
	}
	mb_add(b, s, n);
}

/* The default text of an insert, exactly as etl__msg_prop_text() writes
 * it. Most inserts are mapped names, strings or decimal integers: those
 * are formatted here without snprintf (a message has several inserts and
 * nearly every manifest event has a message); the other kinds are left to
 * etl__msg_prop_text(). */
static void insert_text(struct etl_msgbuf *b, const struct etl_prop *p)
{
	char t[ETL_FMT_I64_MAX + 2];
	size_t n;
	/* Numbers straight into the buffer when there is room for the
	 * longest (mb_add()'s checks, for the most bytes it could add). */
	if (!p->map_name && (p->kind == ETL_VAL_INT || p->kind == ETL_VAL_UINT || p->kind == ETL_VAL_FILETIME) &&
	    !b->oom && sizeof t <= b->max - b->n && b->n + sizeof t + 1 <= b->cap) {
		char *o = b->p + b->n;
		if (p->kind != ETL_VAL_UINT) {
			n = etl__fmt_i64(o, p->v.i);            /* "%lld" */
		} else if ((p->out_type >= ETL_OUT_HEXINT8 && p->out_type <= ETL_OUT_HEXINT64) ||
		           p->in_type == ETL_IN_POINTER || p->in_type == ETL_IN_HEXINT32 ||
		           p->in_type == ETL_IN_HEXINT64) {
			o[0] = '0';                             /* "0x%llX" */
			o[1] = 'x';
			n = 2 + etl__fmt_hex64_uc(o + 2, p->v.u);
		} else {
			n = etl__fmt_u64(o, p->v.u);            /* "%llu" */
		}
		b->n += n;
		b->p[b->n] = 0;
		return;
	}
	if (p->map_name) {
		mb_add(b, p->map_name, strlen(p->map_name));
		return;
	}
	switch (p->kind) {
	case ETL_VAL_STRING:
		mb_add(b, p->v.str.s, p->v.str.len);
		return;
	case ETL_VAL_INT:
	case ETL_VAL_FILETIME:
		n = etl__fmt_i64(t, p->v.i);            /* "%lld" */
		break;
	case ETL_VAL_UINT:
		if ((p->out_type >= ETL_OUT_HEXINT8 && p->out_type <= ETL_OUT_HEXINT64) ||
		    p->in_type == ETL_IN_POINTER || p->in_type == ETL_IN_HEXINT32 ||
		    p->in_type == ETL_IN_HEXINT64) {
			t[0] = '0';                         /* "0x%llX" */
			t[1] = 'x';
			n = 2 + etl__fmt_hex64_uc(t + 2, p->v.u);
		} else {
			n = etl__fmt_u64(t, p->v.u);        /* "%llu" */
		}
		break;
	default:
		etl__msg_prop_text(b, p);
		return;
	}
	mb_add(b, t, n);
}

/* %N!fmt!: a printf conversion applied to the value (flags, width and
 * precision; length modifiers h l I64 ... dropped, etl__msg_spec()). */
static void prop_fmt(struct etl_msgbuf *b, const struct etl_prop *p, const char *fmt, size_t fl)
{
	struct etl_msg_spec spec;
	etl__msg_spec(&spec, fmt, fl);
	const char conv = spec.conv;
	if (p->map_name || p->kind == ETL_VAL_STRING || !strchr("diuxXoc", conv)) {
		struct etl_msgbuf tmp = ETL_MSGBUF_INIT(MF_MAX_MESSAGE);
		etl__msg_prop_text(&tmp, p);
		etl__msg_fmt_text(b, &spec, &tmp, 256);
		return;
	}
	long long iv = p->kind == ETL_VAL_INT || p->kind == ETL_VAL_FILETIME ? p->v.i : (long long)p->v.u;
	if (p->kind == ETL_VAL_ARRAY_PACKED)
		iv = 0;                 /* as an unpacked array's (v is its bytes) */
	if (p->kind == ETL_VAL_FLOAT) {
		/* Out of range (or NaN) the conversion is undefined: saturate. */
		double f = p->v.f;
		iv = f != f ? 0 : f >= 0x1p63 ? LLONG_MAX : f < -0x1p63 ? LLONG_MIN : (long long)f;
	}
	etl__msg_fmt_int(b, &spec, iv, (unsigned long long)iv, 256);
}

/* Renders the message of e from the pieces parsed at load. The text is
 * capped at MF_MAX_MESSAGE bytes: a piece (a literal run or an insert)
 * that would pass the cap is left out, later ones that fit are kept. The
 * buffer, NUL-terminated, stays with the set for the next event. */
int etl__mf_msg_render(etl_decoder *d, struct mf_set *set, const struct mf_event *e, const char **out)
{
	const struct mf_msg *m = e->msg;
	struct etl_msgbuf b = { set->msg, 0, set->msg_cap, MF_MAX_MESSAGE, 0 };
	*out = NULL;
	for (size_t i = 0; i < m->n_seg && !b.oom; i++) {
		const struct mf_seg *g = &m->seg[i];
		if (g->lit_len)
			mb_add_lit(&b, g->lit, g->lit_len);
		if (g->insert) {
			const struct etl_prop *p = etl__dec_prop(d, g->insert - 1);
			if (g->fmt)
				prop_fmt(&b, p, g->fmt, g->fl);
			else
				insert_text(&b, p);
		}
	}
	set->msg = b.p;
	set->msg_cap = b.cap;
	if (b.oom)
		return 0;
	/* The text stays in the set's buffer, which the next event's message
	 * reuses: as long as the result, which lasts until the decoder's next
	 * call (and dies with the set, as the names do). */
	(void)d;
	if (!b.p) {
		*out = "";
		return 1;
	}
	b.p[b.n] = 0;                   /* cap > n once there is a buffer */
	*out = b.p;
	return 1;
}
