/*
 * lib/read/logfile.c - TRACE_LOGFILE_HEADER, the payload of the first record of
 * every file (HookId 0x0000), in its 32-bit (0x110) and 64-bit (0x118)
 * forms, followed by the UTF-16 logger name and log-file name.
 *
 * Layout (GC inc/shared/evntrace/trace_logfile_header.htm; doc/format.md
 * §2.2). x86 / x64 offsets:
 *   0x00 / 0x00  u32 BufferSize          0x04 / 0x04 u8[4] Version
 *   0x08 / 0x08  u32 ProviderVersion     0x0C / 0x0C u32 NumberOfProcessors
 *   0x10 / 0x10  i64 EndTime             0x18 / 0x18 u32 TimerResolution
 *   0x1C / 0x1C  u32 MaximumFileSize     0x20 / 0x20 u32 LogFileMode
 *   0x24 / 0x24  u32 BuffersWritten      0x28 / 0x28 u32 StartBuffers
 *                                         (union: GUID LogInstanceGuid 0x28-0x37)
 *   0x2C / 0x2C  u32 PointerSize         0x30 / 0x30 u32 EventsLost
 *   0x34 / 0x34  u32 CpuSpeedInMHz
 *   0x38 / 0x38  ptr LoggerName          0x3C / 0x40 ptr LogFileName
 *   0x40 / 0x48  TIME_ZONE_INFORMATION (172 bytes)
 *   0xEC / 0xF4  4 bytes alignment padding
 *   0xF0 / 0xF8  i64 BootTime            0xF8 / 0x100 i64 PerfFreq
 *   0x100/ 0x108 i64 StartTime           0x108/ 0x110 u32 ReservedFlags
 *   0x10C/ 0x114 u32 BuffersLost         0x110/ 0x118 logger name (UTF-16Z)
 *   then log-file name (UTF-16Z)
 * The record's header type (SYSTEM32 or SYSTEM64), not the machine, picks
 * the form.
 */
#define ETL_BUILDING_LIB 1
#include <stdlib.h>
#include <string.h>
#include "lib/read/logfile.h"

#define TZ_SIZE 172u

/* Appends code point cp as UTF-8; returns bytes written (<= 4). */
static size_t put_utf8(char *o, uint32_t cp)
{
	if (cp < 0x80) { o[0] = (char)cp; return 1; }
	if (cp < 0x800) {
		o[0] = (char)(0xC0 | (cp >> 6));
		o[1] = (char)(0x80 | (cp & 0x3F));
		return 2;
	}
	if (cp < 0x10000) {
		o[0] = (char)(0xE0 | (cp >> 12));
		o[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
		o[2] = (char)(0x80 | (cp & 0x3F));
		return 3;
	}
	o[0] = (char)(0xF0 | (cp >> 18));
	o[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
	o[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
	o[3] = (char)(0x80 | (cp & 0x3F));
	return 4;
}

/* Converts UTF-16LE units from p (n bytes) up to a NUL into out (cap bytes,
 * always NUL-terminated). Unpaired surrogates become U+FFFD. Returns the
 * bytes of input consumed, NUL included when found. */
static size_t utf16_convert(const uint8_t *p, size_t n, char *out, size_t cap)
{
	size_t i = 0, o = 0;
	while (i + 2 <= n) {
		uint32_t u = etl_le16(p + i);
		i += 2;
		if (u == 0)
			break;
		if (u >= 0xD800 && u <= 0xDBFF && i + 2 <= n) {
			uint32_t lo = etl_le16(p + i);
			if (lo >= 0xDC00 && lo <= 0xDFFF) {
				u = 0x10000 + ((u - 0xD800) << 10) + (lo - 0xDC00);
				i += 2;
			} else {
				u = 0xFFFD;
			}
		} else if (u >= 0xD800 && u <= 0xDFFF) {
			u = 0xFFFD;
		}
		if (o + 4 >= cap)
			break;
		o += put_utf8(out + o, u);
	}
	out[o] = 0;
	return i;
}

char *etl__utf16_to_utf8(const uint8_t *p, size_t n, size_t *consumed)
{
	/* Each UTF-16 unit yields at most 3 bytes (4 per surrogate pair). */
	size_t cap = (n / 2) * 3 + 5;
	char *out = malloc(cap);
	if (!out)
		return NULL;
	size_t used = utf16_convert(p, n, out, cap);
	if (consumed)
		*consumed = used;
	return out;
}

static void read_systemtime(struct etl_cur *c, struct etl_systemtime *t)
{
	t->year = etl_cur_u16(c);
	t->month = etl_cur_u16(c);
	t->day_of_week = etl_cur_u16(c);
	t->day = etl_cur_u16(c);
	t->hour = etl_cur_u16(c);
	t->minute = etl_cur_u16(c);
	t->second = etl_cur_u16(c);
	t->milliseconds = etl_cur_u16(c);
}

/* doc/format.md §2.5 - TIME_ZONE_INFORMATION, 172 bytes. */
static void read_time_zone(struct etl_cur *c, struct etl_time_zone *tz)
{
	const uint8_t *name;
	tz->bias = (int32_t)etl_cur_u32(c);
	name = etl_cur_bytes(c, 64);
	if (name)
		utf16_convert(name, 64, tz->standard_name, sizeof tz->standard_name);
	read_systemtime(c, &tz->standard_date);
	tz->standard_bias = (int32_t)etl_cur_u32(c);
	name = etl_cur_bytes(c, 64);
	if (name)
		utf16_convert(name, 64, tz->daylight_name, sizeof tz->daylight_name);
	read_systemtime(c, &tz->daylight_date);
	tz->daylight_bias = (int32_t)etl_cur_u32(c);
}

int etl__logfile_decode(const uint8_t *payload, size_t n, unsigned ptr_size,
                        struct etl_logfile *lf, struct etl_err *err)
{
	struct etl_cur c;
	etl_cur_init(&c, payload, n);
	lf->header_ptr_size = (uint8_t)ptr_size;
	lf->buffer_size = etl_cur_u32(&c);
	const uint8_t *v = etl_cur_bytes(&c, 4);
	if (v)
		memcpy(lf->version, v, 4);
	lf->provider_version = etl_cur_u32(&c);
	lf->number_of_processors = etl_cur_u32(&c);
	lf->end_time = etl_cur_i64(&c);
	lf->timer_resolution = etl_cur_u32(&c);
	lf->maximum_file_size = etl_cur_u32(&c);
	lf->log_file_mode = etl_cur_u32(&c);
	lf->buffers_written = etl_cur_u32(&c);
	if (etl_cur_left(&c) >= 16)
		etl_guid_dec(etl_cur_ptr(&c), &lf->log_instance_guid);
	lf->start_buffers = etl_cur_u32(&c);
	lf->pointer_size = etl_cur_u32(&c);
	lf->events_lost = etl_cur_u32(&c);
	lf->cpu_speed_mhz = etl_cur_u32(&c);
	lf->logger_name_field = etl_cur_ptrval(&c, ptr_size);
	lf->log_file_name_field = etl_cur_ptrval(&c, ptr_size);
	read_time_zone(&c, &lf->time_zone);
	(void)etl_cur_u32(&c);                 /* alignment padding */
	lf->boot_time = etl_cur_i64(&c);
	lf->perf_freq = etl_cur_i64(&c);
	lf->start_time = etl_cur_i64(&c);
	lf->reserved_flags = etl_cur_u32(&c);
	lf->buffers_lost = etl_cur_u32(&c);
	if (c.err)
		return etl__err_set(err, ETL_E_TRUNCATED, (uint32_t)c.pos,
		                    "Logfile header shorter than TRACE_LOGFILE_HEADER%u: payload-size=%zu",
		                    ptr_size == 4 ? 32u : 64u, n);
	size_t used = 0;
	lf->logger_name = etl__utf16_to_utf8(etl_cur_ptr(&c), etl_cur_left(&c), &used);
	etl_cur_skip(&c, used);
	lf->log_file_name = etl__utf16_to_utf8(etl_cur_ptr(&c), etl_cur_left(&c), &used);
	if (!lf->logger_name || !lf->log_file_name) {
		etl__logfile_free(lf);
		return etl__err_set(err, ETL_E_NOMEM, 0, "Out of memory for logfile names");
	}
	lf->present = 1;
	return ETL_OK;
}

void etl__logfile_free(struct etl_logfile *lf)
{
	free(lf->logger_name);
	free(lf->log_file_name);
	lf->logger_name = NULL;
	lf->log_file_name = NULL;
}
