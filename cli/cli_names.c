/*
 * cli_names.c - text the tools print about events and headers: JSON and
 * terminal-safe strings, and the names of log-file modes, clock types and
 * timer sources. See cli_common.h.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "cli_common.h"

/* ---- JSON and text escaping ------------------------------------------ */

static int file_sink(void *ctx, const void *p, size_t n)
{
	fwrite(p, 1, n, ctx);
	return 0;
}

void cli_json_string_n(FILE *out, const char *s, size_t n)
{
	etl_json_escape(s, n, ETL_JSON_ESCAPE_U00XX, file_sink, out);
}

void cli_json_string(FILE *out, const char *s)
{
	if (!s) {
		fputs("null", out);
		return;
	}
	cli_json_string_n(out, s, strlen(s));
}

void cli_text_safe(FILE *out, const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; p && *p; p++) {
		if (*p < 0x20 || *p == 0x7F)
			fprintf(out, "\\x%02x", *p);
		else
			putc(*p, out);
	}
}

/* ---- names ----------------------------------------------------------- */

int cli_event_uses_id(const struct etl_event *ev)
{
	switch (ev->kind) {
	case ETL_HDR_EVENT_HEADER32:
	case ETL_HDR_EVENT_HEADER64:
	case ETL_HDR_ERROR:
	case ETL_HDR_MESSAGE:
		return 1;
	default:
		return 0;
	}
}

int cli_event_is_system(const struct etl_event *ev)
{
	return (ev->present & ETL_EVF_HOOKID) != 0;
}

char *cli_log_file_mode_names(uint32_t mode, char *out, size_t outlen)
{
	/* SDK evntrace.h names without EVENT_TRACE_, plus the private bits
	 * from phnt (doc/format.md §2.4). */
	static const char *const names[32] = {
		"FILE_MODE_SEQUENTIAL", "CIRCULAR", "APPEND", "NEWFILE",
		"USE_MS_FLUSH_TIMER", "PREALLOCATE", "NONSTOPPABLE", "SECURE",
		"REAL_TIME", "DELAY_OPEN_FILE", "BUFFERING", "PRIVATE_LOGGER",
		"ADD_HEADER", "USE_KBYTES_FOR_SIZE", "USE_GLOBAL_SEQUENCE", "USE_LOCAL_SEQUENCE",
		"RELOG", "PRIVATE_IN_PROC", "BUFFER_INTERFACE", "KD_FILTER",
		"REALTIME_RELOG", "LOST_EVENTS_DEBUG", "STOP_ON_HYBRID_SHUTDOWN",
		"PERSIST_ON_HYBRID_SHUTDOWN", "USE_PAGED_MEMORY", "SYSTEM_LOGGER", "COMPRESSED",
		"INDEPENDENT_SESSION", "NO_PER_PROCESSOR_BUFFERING", "BLOCKING", NULL,
		"ADDTO_TRIAGE_DUMP",
	};
	size_t len = 0;
	uint32_t unnamed = 0;
	if (outlen == 0)
		return out;
	out[0] = 0;
	if (mode == 0) {
		snprintf(out, outlen, "NONE");
		return out;
	}
	for (int b = 0; b < 32; b++) {
		uint32_t bit = 1u << b;
		if (!(mode & bit))
			continue;
		if (!names[b]) {
			unnamed |= bit;
			continue;
		}
		int w = snprintf(out + len, outlen - len, "%s%s", len ? "|" : "", names[b]);
		if (w < 0 || (size_t)w >= outlen - len)
			return out;
		len += (size_t)w;
	}
	if (unnamed)
		snprintf(out + len, outlen - len, "%s0x%x", len ? "|" : "", unnamed);
	return out;
}

const char *cli_clock_type_name(uint32_t clock_type)
{
	switch (clock_type) {
	case ETL_CLOCK_RAW: return "RAW";
	case ETL_CLOCK_QPC: return "QPC";
	case ETL_CLOCK_SYSTEMTIME: return "SYSTEMTIME";
	case ETL_CLOCK_CPUCYCLE: return "CPUCYCLE";
	default: return "unknown";
	}
}

const char *cli_timer_source_name(uint64_t v)
{
	/* HAL_PLATFORM_TIMER_SOURCE (doc/format.md §2.2). */
	static const char *const names[] = {
		"NotSpecified", "8254", "Rtc", "Acpi", "AcpiBroken", "Hpet", "ProcessorCounter",
		"HvReferenceTime", "Sfi", "Apic", "HvSynthetic", "Custom", "CycleCounter", "Git",
	};
	if (v >= sizeof names / sizeof names[0])
		return NULL;
	return names[v];
}
