/*
 * lib/trace/trace_session_props.c - what a session is asked to be, and what
 * it answers: the defaults and checks of struct etl_session_props, the
 * LogFileMode bits they give the file's header, and the session's error
 * record (etl_session_errcode() / etl_session_errmsg()), which the
 * controller calls and the logger's output fill.
 */
#define ETL_BUILDING_LIB 1
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include "lib/trace/trace_core.h"

/* LogFileMode bits as Windows numbers them (evntrace.h, Logging Mode
 * Constants). */
#define MODE_REAL_TIME   0x00000100u
#define MODE_BUFFERING   0x00000400u
#define MODE_INDEPENDENT 0x08000000u

void etl__rt_serr(struct etl_session *s, int code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	etl__errinfo_vset(&s->err, code, 0, fmt, ap);
	va_end(ap);
}

int etl_session_errcode(const etl_session *s)
{
	return s->err.code;
}

const char *etl_session_errmsg(const etl_session *s)
{
	return s->err.msg;
}

void etl_session_props_init(struct etl_session_props *p)
{
	memset(p, 0, sizeof *p);
	p->struct_size = sizeof *p;
	p->buffer_size = 64 * 1024;
	p->min_buffers = 2 * etl__rt_nproc();
	p->max_buffers = p->min_buffers + 20;
	p->flush_timer_ms = 1000;
	p->clock_type = ETL_CLOCK_QPC;
	p->file_mode = ETL_FILE_SEQUENTIAL;
}

/* struct etl_session_props as the first version of etl_trace.h had it:
 * everything before the caller's clock. */
#define PROPS_V1_SIZE offsetof(struct etl_session_props, clock)

int etl__rt_check_props(struct etl_session *s, const char *name, const struct etl_session_props *in,
                        struct etl_session_props *p)
{
	if (!in || in->struct_size < PROPS_V1_SIZE) {
		etl__rt_serr(s, ETL_E_MISUSE, "Session properties are missing or from another version: struct_size=%u",
		             in ? in->struct_size : 0);
		return ETL_FAILED;
	}
	/* A caller built with an older header: the members it does not know
	 * of are not read, they are 0. */
	memset(p, 0, sizeof *p);
	memcpy(p, in, in->struct_size < sizeof *p ? in->struct_size : sizeof *p);
	p->struct_size = sizeof *p;
	if (!name || !*name) {
		etl__rt_serr(s, ETL_E_BAD_VALUE, "A session needs a name");
		return ETL_FAILED;
	}
	if (p->buffer_size < 4096 || p->buffer_size > 1024 * 1024 || p->buffer_size % 4096) {
		etl__rt_serr(s, ETL_E_BAD_VALUE,
		             "Buffer size must be a multiple of 4096 from 4 KiB to 1 MiB: buffer-size=%u",
		             p->buffer_size);
		return ETL_FAILED;
	}
	uint32_t minb = p->min_buffers ? p->min_buffers : 2 * etl__rt_nproc();
	uint32_t maxb = p->max_buffers ? p->max_buffers : minb + 20;
	if (maxb < minb || maxb > 0xFFFF) {
		etl__rt_serr(s, ETL_E_BAD_VALUE, "Maximum buffers must be from minimum buffers to 65535: min=%u, max=%u",
		             minb, maxb);
		return ETL_FAILED;
	}
	if (p->replay_of) {
		/* The clock is the captured trace's (clock_type is not used). */
		const struct etl_logfile *lf = p->replay_of;
		if (!p->clock) {
			etl__rt_serr(s, ETL_E_BAD_VALUE, "A replaying session needs the caller's clock");
			return ETL_FAILED;
		}
		if (!lf->present || lf->number_of_processors == 0 ||
		    lf->number_of_processors > ETL_MAX_PROCESSORS) {
			etl__rt_serr(s, ETL_E_BAD_VALUE,
			             "The replayed trace's logfile header is missing or names no usable processor count: processors=%u",
			             lf->present ? lf->number_of_processors : 0);
			return ETL_FAILED;
		}
	} else if (p->clock_type < ETL_CLOCK_QPC || p->clock_type > ETL_CLOCK_CPUCYCLE) {
		etl__rt_serr(s, ETL_E_BAD_VALUE, "Unknown clock type: clock=%u", p->clock_type);
		return ETL_FAILED;
	}
	uint32_t m = p->file_mode;
	if (m < ETL_FILE_SEQUENTIAL || m > ETL_FILE_REALTIME) {
		etl__rt_serr(s, ETL_E_BAD_VALUE, "Unknown file mode: mode=%u", m);
		return ETL_FAILED;
	}
	if (m != ETL_FILE_REALTIME && (!p->file_name || !*p->file_name)) {
		etl__rt_serr(s, ETL_E_BAD_VALUE, "This file mode needs a file name: mode=%u", m);
		return ETL_FAILED;
	}
	if (m == ETL_FILE_REALTIME && !p->realtime_cb) {
		etl__rt_serr(s, ETL_E_BAD_VALUE, "Real-time mode needs a callback");
		return ETL_FAILED;
	}
	if ((m == ETL_FILE_CIRCULAR || m == ETL_FILE_NEWFILE) && p->max_file_size_mb == 0) {
		etl__rt_serr(s, ETL_E_BAD_VALUE, "Circular and new-file modes need a maximum file size: mode=%u", m);
		return ETL_FAILED;
	}
	if (m == ETL_FILE_NEWFILE && !strstr(p->file_name, "%d")) {
		etl__rt_serr(s, ETL_E_BAD_VALUE, "New-file mode needs a file name pattern with %%d: name=\"%s\"",
		             p->file_name);
		return ETL_FAILED;
	}
	if (p->compressed && (m == ETL_FILE_CIRCULAR || m == ETL_FILE_NEWFILE || m == ETL_FILE_REALTIME)) {
		etl__rt_serr(s, ETL_E_BAD_VALUE,
		             "Compressed mode goes with sequential and buffering files only: mode=%u", m);
		return ETL_FAILED;
	}
	return ETL_OK;
}

uint32_t etl__rt_mode_bits(const struct etl_session_props *p)
{
	uint32_t m = 0;
	switch (p->file_mode) {
	case ETL_FILE_SEQUENTIAL: m = ETL_MODE_SEQUENTIAL; break;
	case ETL_FILE_CIRCULAR:   m = ETL_MODE_CIRCULAR; break;
	case ETL_FILE_NEWFILE:    m = ETL_MODE_NEWFILE; break;
	case ETL_FILE_BUFFERING:  m = MODE_BUFFERING; break;
	case ETL_FILE_REALTIME:   m = MODE_REAL_TIME; break;
	}
	if (p->compressed)
		m |= ETL_MODE_COMPRESSED;
	if (p->independent)
		m |= MODE_INDEPENDENT;
	return m;
}
