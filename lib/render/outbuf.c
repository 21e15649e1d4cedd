/*
 * lib/render/outbuf.c - the growable buffer renderers format into, and the
 * render context's sink: flushing the buffer once per event, failures.
 */
#define ETL_BUILDING_LIB 1
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lib/render/render.h"

/* ---- growable buffer ------------------------------------------------- */


/* Appenders of one formatted value: room for its longest text, then the
 * fast formatter of lib/common/fmt.h. */
#define OB_FORMATTER(name, type, max, fmt)                \
	void name(struct etl_outbuf *b, type v)           \
	{                                                 \
		char *o = etl__ob_room(b, max);           \
		if (o)                                    \
			b->len += fmt(o, v);              \
	}

OB_FORMATTER(etl__ob_u64, uint64_t, ETL_FMT_U64_MAX, etl__fmt_u64)
OB_FORMATTER(etl__ob_i64, int64_t, ETL_FMT_I64_MAX, etl__fmt_i64)
OB_FORMATTER(etl__ob_hex64, uint64_t, ETL_FMT_HEX64_MAX, etl__fmt_hex64)
OB_FORMATTER(etl__ob_filetime, int64_t, ETL_FMT_TIME_MAX, etl__fmt_filetime)

void etl__ob_printf(struct etl_outbuf *b, const char *fmt, ...)
{
	char tmp[256];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n < sizeof tmp) {
		etl__ob_put(b, tmp, (size_t)n);
		return;
	}
	if (etl__ob_grow(b, (size_t)n + 1) != 0)
		return;
	va_start(ap, fmt);
	vsnprintf(b->p + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

void etl__ob_free(struct etl_outbuf *b)
{
	free(b->p);
	memset(b, 0, sizeof *b);
}


/* ---- the context's sink ------------------------------------------- */

int etl__render_fail(struct etl_render *o, int code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(o->errmsg, sizeof o->errmsg, fmt, ap);
	va_end(ap);
	o->errcode = code;
	o->failed = 1;
	return ETL_FATAL;
}

int etl__render_write(struct etl_render *o, const void *p, size_t n)
{
	if (o->failed)
		return ETL_FATAL;
	if (n && o->write(o->ctx, p, n) != 0)
		return etl__render_fail(o, ETL_E_IO, "Cannot write the %s output: bytes=%zu", o->format, n);
	return ETL_OK;
}

int etl__render_flush(struct etl_render *o)
{
	if (o->buf.oom) {
		o->buf.len = 0;
		return etl__render_fail(o, ETL_E_NOMEM, "Out of memory formatting a %s event", o->format);
	}
	int st = etl__render_write(o, o->buf.p, o->buf.len);
	o->buf.len = 0;
	/* Do not keep a huge buffer after one huge event. */
	if (o->buf.cap > ((size_t)1 << 20)) {
		free(o->buf.p);
		o->buf.p = NULL;
		o->buf.cap = 0;
	}
	return st;
}

