/*
 * dump_header.c - etldump's views of a file's structure: --header (every
 * field of the logfile header, then the header buffer's other records),
 * --buffers (one line per buffer) and --hex (a payload dumped 16 bytes a
 * line).
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "dump.h"

/* ---- logfile header --------------------------------------------------- */

static const char *const month_names[] = {
	"?", "January", "February", "March", "April", "May", "June", "July",
	"August", "September", "October", "November", "December",
};
static const char *const day_names[] = {
	"Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday",
};

/* A TIME_ZONE_INFORMATION transition date: absolute, or (year 0) the
 * yearly rule "Nth weekday of month" with day = N (5 = last). */
static void print_tz_date(const struct etl_systemtime *d)
{
	if (d->month == 0) {
		printf("none");
	} else if (d->year == 0) {
		static const char *const nth[] = { "?", "first", "second", "third", "fourth", "last" };
		printf("every year, %s %s of %s at %02u:%02u:%02u.%03u",
		       d->day <= 5 ? nth[d->day] : "?",
		       d->day_of_week < 7 ? day_names[d->day_of_week] : "?",
		       d->month <= 12 ? month_names[d->month] : "?",
		       d->hour, d->minute, d->second, d->milliseconds);
	} else {
		printf("%04u-%02u-%02u %02u:%02u:%02u.%03u", d->year, d->month, d->day, d->hour,
		       d->minute, d->second, d->milliseconds);
	}
	printf(" (year=%u month=%u day-of-week=%u day=%u %02u:%02u:%02u.%03u)\n", d->year,
	       d->month, d->day_of_week, d->day, d->hour, d->minute, d->second, d->milliseconds);
}

static void print_filetime_field(const char *label, int64_t ft)
{
	char t[ETL_TIME_STRLEN];
	printf("  %-28s ", label);
	if (ft == 0)
		printf("0 (not set)\n");
	else
		printf("%s (%lld)\n", etl_filetime_format(ft, t, sizeof t), (long long)ft);
}

static void print_timer_source(const char *label, uint64_t v)
{
	const char *n = cli_timer_source_name(v);
	printf("  %-28s %llu%s%s%s\n", label, (unsigned long long)v, n ? " (" : "", n ? n : "",
	       n ? ")" : "");
}

void dump_logfile_header(const struct etl_logfile *lf)
{
	char g[ETL_GUID_STRLEN], modes[512];
	if (!lf->present) {
		printf("logfile header: none (the file has no usable logfile header)\n");
		return;
	}
	printf("logfile header: %u-bit form at offset 0x%llx\n", lf->header_ptr_size * 8u,
	       (unsigned long long)lf->file_offset);
	printf("  %-28s %u (0x%x)\n", "buffer_size", lf->buffer_size, lf->buffer_size);
	printf("  %-28s %u.%u.%u.%u (Windows %u.%u, log layout %u.%u)\n", "version", lf->version[0],
	       lf->version[1], lf->version[2], lf->version[3], lf->version[0], lf->version[1],
	       lf->version[2], lf->version[3]);
	printf("  %-28s %u\n", "provider_version (build)", lf->provider_version);
	printf("  %-28s %u\n", "number_of_processors", lf->number_of_processors);
	print_filetime_field("end_time", lf->end_time);
	printf("  %-28s %u (%u.%04u ms)\n", "timer_resolution", lf->timer_resolution,
	       lf->timer_resolution / 10000, lf->timer_resolution % 10000);
	printf("  %-28s %u MB\n", "maximum_file_size", lf->maximum_file_size);
	printf("  %-28s 0x%08x %s\n", "log_file_mode", lf->log_file_mode,
	       cli_log_file_mode_names(lf->log_file_mode, modes, sizeof modes));
	printf("  %-28s %u\n", "buffers_written", lf->buffers_written);
	printf("  %-28s %u\n", "start_buffers", lf->start_buffers);
	printf("  %-28s %s\n", "log_instance_guid", etl_guid_format(&lf->log_instance_guid, g));
	printf("  %-28s %u\n", "pointer_size", lf->pointer_size);
	printf("  %-28s %u\n", "events_lost", lf->events_lost);
	printf("  %-28s %u\n", "cpu_speed_mhz", lf->cpu_speed_mhz);
	/* doc/format.md §2.2 - from 6.1 the LoggerName/LogFileName pointers hold the
	 * platform timer sources. */
	if (lf->version[0] > 6 || (lf->version[0] == 6 && lf->version[1] >= 1)) {
		print_timer_source("clock_interrupt_source", lf->logger_name_field);
		print_timer_source("perf_counter_source", lf->log_file_name_field);
	} else {
		printf("  %-28s 0x%llx\n", "logger_name_pointer", (unsigned long long)lf->logger_name_field);
		printf("  %-28s 0x%llx\n", "log_file_name_pointer",
		       (unsigned long long)lf->log_file_name_field);
	}
	const struct etl_time_zone *tz = &lf->time_zone;
	printf("  %-28s %d min (UTC = local time + bias)\n", "time_zone.bias", tz->bias);
	printf("  %-28s \"", "time_zone.standard_name");
	cli_text_safe(stdout, tz->standard_name);
	printf("\"\n  %-28s ", "time_zone.standard_date");
	print_tz_date(&tz->standard_date);
	printf("  %-28s %d min\n", "time_zone.standard_bias", tz->standard_bias);
	printf("  %-28s \"", "time_zone.daylight_name");
	cli_text_safe(stdout, tz->daylight_name);
	printf("\"\n  %-28s ", "time_zone.daylight_date");
	print_tz_date(&tz->daylight_date);
	printf("  %-28s %d min\n", "time_zone.daylight_bias", tz->daylight_bias);
	print_filetime_field("boot_time", lf->boot_time);
	printf("  %-28s %lld Hz\n", "perf_freq", (long long)lf->perf_freq);
	print_filetime_field("start_time", lf->start_time);
	printf("  %-28s %u (%s)\n", "clock_type (reserved_flags)", lf->reserved_flags,
	       cli_clock_type_name(lf->reserved_flags));
	printf("  %-28s %u\n", "buffers_lost", lf->buffers_lost);
	printf("  %-28s \"", "logger_name");
	cli_text_safe(stdout, lf->logger_name ? lf->logger_name : "");
	printf("\"\n  %-28s \"", "log_file_name");
	cli_text_safe(stdout, lf->log_file_name ? lf->log_file_name : "");
	printf("\"\n  %-28s %lld\n", "header_timestamp", (long long)lf->header_timestamp);
}

/* The EventTrace records that follow the logfile header in the header
 * buffer (Extension, PartitionInfoExtension, ...), read with a second
 * reader so the main one still returns every event. Not for standard
 * input, which cannot be read twice. */
void dump_header_records(const char *path)
{
	etl_reader *r = etl_reader_new();
	const struct etl_event *ev;
	int st, n = 0;
	if (!r)
		return;
	etl_reader_set_order(r, ETL_ORDER_FILE);
	if (strcmp(path, "-") == 0 || etl_reader_open_file(r, path) == ETL_FATAL) {
		etl_reader_free(r);
		return;
	}
	while ((st = etl_reader_next(r, &ev)) != ETL_END && st != ETL_FATAL) {
		if (st == ETL_FAILED)
			continue;
		if (ev->buffer_offset != 0)
			break;
		if (ev->file_offset == etl_reader_logfile(r)->file_offset)
			continue;
		if (!n++)
			printf("header buffer records after the logfile header:\n");
		const char *name = cli_event_is_system(ev) && (ev->hook_id >> 8) == 0
		                 ? etl_eventtrace_name(ev->opcode) : NULL;
		printf("  0x%06llx  %-14s hook=0x%04x %-24s payload=%u\n",
		       (unsigned long long)ev->file_offset, etl_hdr_kind_name(ev->kind),
		       (unsigned)ev->hook_id, name ? name : "?", (unsigned)ev->payload_size);
		struct etl_header_extension ext;
		struct etl_partition_info part;
		if (etl_eventtrace_extension(ev, &ext) == ETL_OK) {
			printf("      group_mask ");
			for (int i = 0; i < 8; i++)
				printf("%08x%s", (unsigned)ext.group_mask[i], i < 7 ? " " : "");
			printf("\n      version    0x%x\n", (unsigned)ext.version);
		} else if (etl_eventtrace_partition(ev, &part) == ETL_OK) {
			printf("      version %u, partition_type %u, qpc_offset %lld\n", (unsigned)part.version,
			       (unsigned)part.partition_type, (long long)part.qpc_offset);
			if (part.has_ids) {
				char g1[ETL_GUID_STRLEN], g2[ETL_GUID_STRLEN];
				printf("      partition %s, parent %s\n", etl_guid_format(&part.partition_id, g1),
				       etl_guid_format(&part.parent_id, g2));
			}
		}
	}
	etl_reader_free(r);
}

/* ---- buffers and payloads ---------------------------------------------- */

static const char *buffer_type_name(unsigned t)
{
	static const char *const names[] = {
		"GENERIC", "RUNDOWN", "CTX_SWAP", "REFTIME", "HEADER", "BATCHED", "EMPTY_MARKER",
		"DBG_INFO",
	};
	return t < sizeof names / sizeof names[0] ? names[t] : "?";
}

/* Appends to line (len so far, room for 512) what fmt makes. */
static void addf(char *line, size_t *len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void addf(char *line, size_t *len, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(line + *len, 512 - *len, fmt, ap);
	va_end(ap);
	if (n > 0)
		*len = *len + (size_t)n < 511 ? *len + (size_t)n : 511;
}

/* A field padded to width, then a space. */
static void field(char *line, size_t *len, int width, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void field(char *line, size_t *len, int width, const char *fmt, ...)
{
	char f[64];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(f, sizeof f, fmt, ap);
	va_end(ap);
	addf(line, len, "%-*s ", width, f);
}

void dump_buffer_line(const struct etl_buffer_info *bi)
{
	static const char *const flag_names[] = {
		"FLUSH_MARKER", "EVENTS_LOST", "BUFFER_LOST", "RTBACKUP_CORRUPT", "RTBACKUP",
		"PROC_INDEX", "COMPRESSED",
	};
	char line[512];
	size_t len = 0;
	addf(line, &len, "0x%08llx  size=", (unsigned long long)bi->file_offset);
	field(line, &len, 8, "%u", bi->buffer_size);
	field(line, &len, 16, "saved=0x%x", bi->saved_offset);
	field(line, &len, 17, "offset=0x%x", bi->offset);
	addf(line, &len, "flags=0x%04x  ", bi->flags);
	field(line, &len, 17, "type=%s", buffer_type_name(bi->type));
	field(line, &len, 8, "cpu=%u", bi->processor);
	field(line, &len, 12, "seq=%lld", (long long)bi->sequence);
	if (bi->compressed)
		addf(line, &len, "compressed %u -> %u ", bi->buffer_size - ETL_BUFFER_HEADER_SIZE,
		     bi->inflated_size);
	if (bi->available && bi->available < bi->buffer_size)
		addf(line, &len, "truncated (%u bytes present) ", bi->available);
	if (bi->flags) {
		const char *sep = "[";
		for (unsigned b = 0; b < 16; b++) {
			if (!(bi->flags & (1u << b)))
				continue;
			if (b < sizeof flag_names / sizeof flag_names[0])
				addf(line, &len, "%s%s", sep, flag_names[b]);
			else
				addf(line, &len, "%s0x%x", sep, 1u << b);
			sep = " ";
		}
		addf(line, &len, "]");
	}
	while (len > 0 && line[len - 1] == ' ')
		len--;
	line[len++] = '\n';
	fwrite(line, 1, len, stdout);
}

void dump_hex(const uint8_t *data, uint32_t size)
{
	for (uint32_t off = 0; off < size; off += 16) {
		char line[128];
		size_t len = 0;
		uint32_t n = size - off < 16 ? size - off : 16;
		len += (size_t)snprintf(line, sizeof line, "    %04x  ", (unsigned)off);
		for (uint32_t i = 0; i < 16; i++) {
			if (i == 8)
				line[len++] = ' ';
			if (i < n)
				len += (size_t)snprintf(line + len, sizeof line - len, "%02x ", data[off + i]);
			else
				len += (size_t)snprintf(line + len, sizeof line - len, "   ");
		}
		line[len++] = ' ';
		line[len++] = '|';
		for (uint32_t i = 0; i < n; i++) {
			uint8_t c = data[off + i];
			line[len++] = (c >= 0x20 && c < 0x7F) ? (char)c : '.';
		}
		line[len++] = '|';
		line[len++] = '\n';
		fwrite(line, 1, len, stdout);
	}
}

