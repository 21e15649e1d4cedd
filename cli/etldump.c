/*
 * etldump.c - print the contents of Windows ETW .etl files: one line per
 * event (default), the logfile header (--header), the buffers (--buffers),
 * a summary (--summary, --summary --json) or a count (--count), with
 * filters shared with the other tools (cli_common.h).
 *
 * Exit status: 0 clean; 1 usage error; 2 some input had damage (each loss
 * is reported on stderr and the rest is still printed); 3 an input could
 * not be opened or read. With several inputs the highest status wins.
 *
 * The event listing is the hot path (hundreds of thousands of lines), so
 * lines are assembled with the small put_*() routines below and written
 * with one fwrite() into a large stdout buffer; everything else uses stdio.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cli_common.h"
#include "etl.h"

#define PROG "etldump"

#define EXIT_CLEAN   0
#define EXIT_USAGE   1
#define EXIT_DAMAGE  2
#define EXIT_IO      3

#define PROGRESS_MIN_SIZE (8u * 1024u * 1024u)
#define MAX_KEPT_MESSAGES 10000  /* errors/warnings kept for --summary */

struct options {
	int header, buffers, summary, json, hex, count, quiet, file_order;
	int list_events;           /* print one line per matching event      */
	int progress_ok;           /* stdout is a terminal and no -q          */
	struct cli_filter filter;
};

/* ---- small formatting routines for the hot path ---------------------- */

static char *put_str(char *p, const char *s)
{
	size_t n = strlen(s);
	memcpy(p, s, n);
	return p + n;
}

/* Copies at most max bytes of s, replacing control characters. */
static char *put_str_max(char *p, const char *s, size_t max)
{
	for (size_t i = 0; s[i] && i < max; i++)
		*p++ = ((unsigned char)s[i] < 0x20 || s[i] == 0x7F) ? '?' : s[i];
	return p;
}

static char *put_u64(char *p, uint64_t v)
{
	char tmp[20];
	int n = 0;
	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while (n)
		*p++ = tmp[--n];
	return p;
}

static char *put_i64(char *p, int64_t v)
{
	if (v < 0) {
		*p++ = '-';
		return put_u64(p, (uint64_t)0 - (uint64_t)v);
	}
	return put_u64(p, (uint64_t)v);
}

/* Lower-case hex, at least min digits, no prefix. */
static char *put_hex(char *p, uint64_t v, int min)
{
	static const char digits[] = "0123456789abcdef";
	char tmp[16];
	int n = 0;
	do {
		tmp[n++] = digits[v & 15];
		v >>= 4;
	} while (v);
	while (n < min && n < 16)
		tmp[n++] = '0';
	while (n)
		*p++ = tmp[--n];
	return p;
}

/* Pads with spaces so that the field started at start is width wide, then
 * adds one separating space. */
static char *pad(char *p, const char *start, int width)
{
	while (p - start < width)
		*p++ = ' ';
	*p++ = ' ';
	return p;
}

/* ISO 8601 time. etl_filetime_format() does the calendar work once per
 * second of trace time; only the fraction changes between events. */
static struct {
	int valid;
	int64_t sec;
	size_t plen;
	char prefix[ETL_TIME_STRLEN];
} tcache;

static char *put_time(char *p, int64_t ft)
{
	int64_t sec = ft / 10000000, frac = ft % 10000000;
	if (frac < 0) {
		frac += 10000000;
		sec -= 1;
	}
	if (!tcache.valid || sec != tcache.sec) {
		char tmp[ETL_TIME_STRLEN];
		etl_filetime_format(ft, tmp, sizeof tmp);
		size_t n = strlen(tmp);
		if (n < 9 || tmp[n - 9] != '.') {
			tcache.valid = 0;
			memcpy(p, tmp, n);
			return p + n;
		}
		tcache.plen = n - 8;
		memcpy(tcache.prefix, tmp, tcache.plen);
		tcache.sec = sec;
		tcache.valid = 1;
	}
	memcpy(p, tcache.prefix, tcache.plen);
	p += tcache.plen;
	for (int i = 6; i >= 0; i--) {
		p[i] = (char)('0' + frac % 10);
		frac /= 10;
	}
	p[7] = 'Z';
	return p + 8;
}

static const char *time_str(int64_t ft, char out[ETL_TIME_STRLEN])
{
	return etl_filetime_format(ft, out, ETL_TIME_STRLEN);
}

/* ---- messages --------------------------------------------------------- */

static void usage(void)
{
	printf("Usage: " PROG " [OPTION]... [FILE]...\n"
	       "Print the events of Windows ETW trace logs (.etl), one line per event:\n"
	       "time, processor, process and thread ids, trace header type, provider,\n"
	       "event id or opcode, level, keywords and payload size.\n"
	       "FILE may be '-' for standard input; with no FILE, standard input is read.\n"
	       "Inputs compressed with gzip or LZ4 are inflated transparently.\n"
	       "\n"
	       "Output:\n"
	       "  -H, --header          print the logfile header (all fields)\n"
	       "  -b, --buffers         print one line per buffer instead of events\n"
	       "  -s, --summary         print counts per header type, provider and event,\n"
	       "                        lost data, first/last event time and errors\n"
	       "  -j, --json            with --summary: print one JSON object per file\n"
	       "  -x, --hex             hex dump each event's payload after its line\n"
	       "  -c, --count           print only the number of matching events\n"
	       "  -F, --file-order      events in file order (default: time order)\n"
	       "  -q, --quiet           no progress display on stderr\n"
	       "  -h, --help            show this help and exit\n"
	       "  -V, --version         show the version and exit\n"
	       "\n");
	cli_filter_usage(stdout);
	printf("\n"
	       "Exit status: 0 success, 1 usage error, 2 damaged input (each loss is\n"
	       "reported on stderr), 3 input/output error.\n");
}

/* Severity order of exit statuses: 3 > 2 > 0. */
static int worse(int a, int b)
{
	return a > b ? a : b;
}

/* ---- per-file summary ------------------------------------------------- */

/* Key of a provider or of a (provider, event) pair. Every byte is set, so
 * keys compare with memcmp. */
struct skey {
	struct etl_guid guid;
	uint32_t component;
	uint8_t prov;          /* 0 GUID, 1 WPP component id                 */
	uint8_t what;          /* 0 provider only, 1 id, 2 opcode, 3 opcode+hook */
	uint16_t value;        /* id or opcode                               */
	uint16_t hook;
	uint16_t zero;
};

struct sentry {
	struct skey key;
	const char *name;      /* static provider name, or NULL              */
	uint64_t count;
	int used;
};

struct stable {
	struct sentry *slots;
	size_t cap, n;
};

struct message {
	uint64_t off;
	char *text;
};

struct msglist {
	struct message *v;
	size_t n, cap;
	uint64_t total;
};

struct summary {
	uint64_t records, matched;
	uint64_t kinds[ETL_HDR_KIND_COUNT_];
	uint64_t *ext;                 /* 65536 counters, by ExtType          */
	int any_ext;
	struct stable prov, evs;
	int have_time;
	int64_t first, last;
	uint64_t flag_events_lost, flag_buffer_lost;
	struct msglist errors, warnings;
	int oom;
};

static uint64_t key_hash(const struct skey *k)
{
	const unsigned char *p = (const unsigned char *)k;
	uint64_t h = 1469598103934665603ULL;
	for (size_t i = 0; i < sizeof *k; i++) {
		h ^= p[i];
		h *= 1099511628211ULL;
	}
	return h;
}

static struct sentry *table_get(struct stable *t, const struct skey *k)
{
	if ((t->n + 1) * 2 > t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 64;
		struct sentry *s = calloc(cap, sizeof *s);
		if (!s)
			return NULL;
		for (size_t i = 0; i < t->cap; i++) {
			if (!t->slots[i].used)
				continue;
			size_t j = (size_t)key_hash(&t->slots[i].key) & (cap - 1);
			while (s[j].used)
				j = (j + 1) & (cap - 1);
			s[j] = t->slots[i];
		}
		free(t->slots);
		t->slots = s;
		t->cap = cap;
	}
	size_t j = (size_t)key_hash(k) & (t->cap - 1);
	while (t->slots[j].used) {
		if (memcmp(&t->slots[j].key, k, sizeof *k) == 0)
			return &t->slots[j];
		j = (j + 1) & (t->cap - 1);
	}
	t->slots[j].used = 1;
	t->slots[j].key = *k;
	t->n++;
	return &t->slots[j];
}

static void msg_add(struct msglist *l, uint64_t off, const char *text)
{
	l->total++;
	if (l->n >= MAX_KEPT_MESSAGES)
		return;
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 16;
		struct message *v = realloc(l->v, cap * sizeof *v);
		if (!v)
			return;
		l->v = v;
		l->cap = cap;
	}
	char *t = strdup(text);
	if (!t)
		return;
	l->v[l->n].off = off;
	l->v[l->n].text = t;
	l->n++;
}

static void msg_free(struct msglist *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i].text);
	free(l->v);
}

static void summary_free(struct summary *s)
{
	free(s->ext);
	free(s->prov.slots);
	free(s->evs.slots);
	msg_free(&s->errors);
	msg_free(&s->warnings);
}

static void provider_key(const struct etl_event *ev, struct skey *k)
{
	memset(k, 0, sizeof *k);
	if (ev->kind == ETL_HDR_MESSAGE && (ev->present & ETL_EVF_COMPONENT_ID)) {
		k->prov = 1;
		k->component = ev->component_id;
	} else {
		k->guid = ev->provider;
	}
}

static void summary_add(struct summary *s, const struct etl_event *ev)
{
	struct skey k;
	struct sentry *e;
	s->matched++;
	if (ev->kind >= 0 && ev->kind < ETL_HDR_KIND_COUNT_)
		s->kinds[ev->kind]++;
	if (ev->ext_count) {
		struct etl_ext_iter it;
		struct etl_ext_item item;
		if (!s->ext && !(s->ext = calloc(65536, sizeof *s->ext)))
			s->oom = 1;
		etl_ext_iter_init(&it, ev);
		while (s->ext && etl_ext_iter_next(&it, &item) == ETL_OK) {
			s->ext[item.ext_type]++;
			s->any_ext = 1;
		}
	}
	if (ev->present & ETL_EVF_UTC) {
		if (!s->have_time || ev->utc < s->first)
			s->first = ev->utc;
		if (!s->have_time || ev->utc > s->last)
			s->last = ev->utc;
		s->have_time = 1;
	}
	provider_key(ev, &k);
	if ((e = table_get(&s->prov, &k)) != NULL) {
		e->count++;
		e->name = ev->provider_name;
	} else
		s->oom = 1;
	if (cli_event_uses_id(ev)) {
		k.what = 1;
		k.value = ev->id;
	} else if (cli_event_is_system(ev)) {
		k.what = 3;
		k.value = ev->opcode;
		k.hook = ev->hook_id;
	} else {
		k.what = 2;
		k.value = ev->opcode;
	}
	if ((e = table_get(&s->evs, &k)) != NULL) {
		e->count++;
		e->name = ev->provider_name;
	} else
		s->oom = 1;
}

/* Entries of a table in decreasing count order (then by key). */
static int cmp_entry(const void *a, const void *b)
{
	const struct sentry *x = *(const struct sentry *const *)a, *y = *(const struct sentry *const *)b;
	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return memcmp(&x->key, &y->key, sizeof x->key);
}

static const struct sentry **table_sorted(const struct stable *t)
{
	const struct sentry **v = malloc((t->n ? t->n : 1) * sizeof *v);
	size_t n = 0;
	if (!v)
		return NULL;
	for (size_t i = 0; i < t->cap; i++)
		if (t->slots[i].used)
			v[n++] = &t->slots[i];
	qsort(v, n, sizeof *v, cmp_entry);
	return v;
}

static const char *entry_provider(const struct sentry *e, char buf[CLI_PROVIDER_STRLEN])
{
	if (e->name)
		return e->name;
	if (e->key.prov == 1) {
		snprintf(buf, CLI_PROVIDER_STRLEN, "component:%u", (unsigned)e->key.component);
		return buf;
	}
	return etl_guid_format(&e->key.guid, buf);
}

static void entry_event(const struct sentry *e, char *buf, size_t len)
{
	switch (e->key.what) {
	case 1: snprintf(buf, len, "id=%u", e->key.value); break;
	case 3: snprintf(buf, len, "op=%u hook=0x%04x", e->key.value, e->key.hook); break;
	default: snprintf(buf, len, "op=%u", e->key.value); break;
	}
}

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
		printf("%s (%lld)\n", time_str(ft, t), (long long)ft);
}

static void print_timer_source(const char *label, uint64_t v)
{
	const char *n = cli_timer_source_name(v);
	printf("  %-28s %llu%s%s%s\n", label, (unsigned long long)v, n ? " (" : "", n ? n : "",
	       n ? ")" : "");
}

static void print_header(const struct etl_logfile *lf)
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
	/* SPEC: §2.2 - from 6.1 the LoggerName/LogFileName pointers hold the
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

/* ---- buffers ---------------------------------------------------------- */

static const char *buffer_type_name(unsigned t)
{
	static const char *const names[] = {
		"GENERIC", "RUNDOWN", "CTX_SWAP", "REFTIME", "HEADER", "BATCHED", "EMPTY_MARKER",
		"DBG_INFO",
	};
	return t < sizeof names / sizeof names[0] ? names[t] : "?";
}

static void print_buffer(const struct etl_buffer_info *bi)
{
	static const char *const flag_names[] = {
		"FLUSH_MARKER", "EVENTS_LOST", "BUFFER_LOST", "RTBACKUP_CORRUPT", "RTBACKUP",
		"PROC_INDEX", "COMPRESSED",
	};
	char line[512], *p = line, *s;
	p = put_str(p, "0x");
	p = put_hex(p, bi->file_offset, 8);
	p = put_str(p, "  size=");
	s = p;
	p = put_u64(p, bi->buffer_size);
	p = pad(p, s, 8);
	s = p;
	p = put_str(p, "saved=0x");
	p = put_hex(p, bi->saved_offset, 0);
	p = pad(p, s, 16);
	s = p;
	p = put_str(p, "offset=0x");
	p = put_hex(p, bi->offset, 0);
	p = pad(p, s, 17);
	p = put_str(p, "flags=0x");
	p = put_hex(p, bi->flags, 4);
	p = put_str(p, "  ");
	s = p;
	p = put_str(p, "type=");
	p = put_str(p, buffer_type_name(bi->type));
	p = pad(p, s, 17);
	s = p;
	p = put_str(p, "cpu=");
	p = put_u64(p, bi->processor);
	p = pad(p, s, 8);
	s = p;
	p = put_str(p, "seq=");
	p = put_i64(p, bi->sequence);
	p = pad(p, s, 12);
	if (bi->compressed) {
		p = put_str(p, "compressed ");
		p = put_u64(p, bi->buffer_size - ETL_BUFFER_HEADER_SIZE);
		p = put_str(p, " -> ");
		p = put_u64(p, bi->inflated_size);
		*p++ = ' ';
	}
	if (bi->available && bi->available < bi->buffer_size) {
		p = put_str(p, "truncated (");
		p = put_u64(p, bi->available);
		p = put_str(p, " bytes present) ");
	}
	if (bi->flags) {
		int first = 1;
		*p++ = '[';
		for (unsigned b = 0; b < 16; b++) {
			if (!(bi->flags & (1u << b)))
				continue;
			if (!first)
				*p++ = ' ';
			first = 0;
			if (b < sizeof flag_names / sizeof flag_names[0]) {
				p = put_str(p, flag_names[b]);
			} else {
				p = put_str(p, "0x");
				p = put_hex(p, 1u << b, 0);
			}
		}
		*p++ = ']';
	}
	while (p > line && p[-1] == ' ')
		p--;
	*p++ = '\n';
	fwrite(line, 1, (size_t)(p - line), stdout);
}

/* ---- events ----------------------------------------------------------- */

static void print_event(const struct etl_event *ev)
{
	char line[640], *p = line, *s;
	char pbuf[CLI_PROVIDER_STRLEN];
	s = p;
	if (ev->present & ETL_EVF_UTC) {
		p = put_time(p, ev->utc);
	} else if (ev->present & ETL_EVF_TIMESTAMP) {
		p = put_str(p, "ts=");
		p = put_i64(p, ev->timestamp);
	} else {
		*p++ = '-';
	}
	p = pad(p, s, 28);
	*p++ = ' ';
	s = p;
	p = put_str(p, "cpu=");
	p = put_u64(p, ev->processor);
	p = pad(p, s, 7);
	s = p;
	if (ev->present & ETL_EVF_PID) {
		p = put_str(p, "pid=");
		p = put_u64(p, ev->pid);
		p = pad(p, s, 10);
		s = p;
		p = put_str(p, "tid=");
		p = put_u64(p, ev->tid);
	} else {
		p = put_str(p, "pid=-");
		p = pad(p, s, 10);
		s = p;
		p = put_str(p, "tid=-");
	}
	p = pad(p, s, 10);
	s = p;
	p = put_str(p, etl_hdr_kind_name(ev->kind));
	p = pad(p, s, 14);
	s = p;
	p = put_str_max(p, cli_event_provider(ev, pbuf), 160);
	if (cli_event_is_system(ev) && (ev->hook_id >> 8) == 0) {
		/* EventTrace group: say which record (Header, Extension, ...). */
		const char *rec_name = etl_eventtrace_name(ev->opcode);
		if (rec_name) {
			*p++ = '/';
			p = put_str(p, rec_name);
		}
	}
	p = pad(p, s, 36);
	s = p;
	if (cli_event_uses_id(ev)) {
		p = put_str(p, "id=");
		p = put_u64(p, ev->id);
	} else {
		p = put_str(p, "op=");
		p = put_u64(p, ev->opcode);
		if (cli_event_is_system(ev)) {
			p = put_str(p, " hook=0x");
			p = put_hex(p, ev->hook_id, 4);
		}
	}
	p = pad(p, s, 18);
	s = p;
	p = put_str(p, "lvl=");
	p = put_u64(p, ev->level);
	p = pad(p, s, 7);
	s = p;
	p = put_str(p, "kw=0x");
	p = put_hex(p, ev->keyword, 1);
	p = pad(p, s, 21);
	p = put_str(p, "size=");
	p = put_u64(p, ev->payload_size);
	*p++ = '\n';
	fwrite(line, 1, (size_t)(p - line), stdout);
}

static void print_hex(const uint8_t *data, uint32_t size)
{
	char line[128];
	for (uint32_t off = 0; off < size; off += 16) {
		char *p = line;
		uint32_t n = size - off < 16 ? size - off : 16;
		p = put_str(p, "    ");
		p = put_hex(p, off, 4);
		*p++ = ' ';
		*p++ = ' ';
		for (uint32_t i = 0; i < 16; i++) {
			if (i == 8)
				*p++ = ' ';
			if (i < n) {
				p = put_hex(p, data[off + i], 2);
				*p++ = ' ';
			} else {
				p = put_str(p, "   ");
			}
		}
		*p++ = ' ';
		*p++ = '|';
		for (uint32_t i = 0; i < n; i++) {
			uint8_t c = data[off + i];
			*p++ = (c >= 0x20 && c < 0x7F) ? (char)c : '.';
		}
		*p++ = '|';
		*p++ = '\n';
		fwrite(line, 1, (size_t)(p - line), stdout);
	}
}

/* ---- summary output --------------------------------------------------- */

static void print_summary_text(const char *name, etl_reader *r, const struct summary *s,
                               const struct cli_filter *f)
{
	const struct etl_logfile *lf = etl_reader_logfile(r);
	struct etl_reader_stats st;
	char t[ETL_TIME_STRLEN], pbuf[CLI_PROVIDER_STRLEN], ebuf[64];
	etl_reader_stats(r, &st);
	printf("file              %s\n", name);
	printf("buffers           %llu (%llu compressed, %llu damaged)\n",
	       (unsigned long long)st.buffers, (unsigned long long)st.compressed_buffers,
	       (unsigned long long)st.bad_buffers);
	printf("records           %llu\n", (unsigned long long)s->records);
	if (f->active)
		printf("matching events   %llu\n", (unsigned long long)s->matched);
	printf("first event       %s\n", s->have_time ? time_str(s->first, t) : "-");
	printf("last event        %s\n", s->have_time ? time_str(s->last, t) : "-");
	if (lf->present) {
		printf("lost              %u events, %u buffers (logfile header)\n", lf->events_lost,
		       lf->buffers_lost);
	} else {
		printf("lost              unknown (no logfile header)\n");
	}
	printf("buffer flags      %llu EVENTS_LOST, %llu BUFFER_LOST\n",
	       (unsigned long long)s->flag_events_lost, (unsigned long long)s->flag_buffer_lost);

	printf("\nheader types\n");
	for (int k = 0; k < ETL_HDR_KIND_COUNT_; k++)
		if (s->kinds[k])
			printf("  %-16s %10llu\n", etl_hdr_kind_name(k), (unsigned long long)s->kinds[k]);
	if (s->any_ext) {
		printf("\nextended item types\n");
		for (unsigned x = 0; x < 65536; x++) {
			if (!s->ext[x])
				continue;
			const char *xn = etl_ext_type_name(x);
			printf("  %5u %-20s %10llu\n", x, xn ? xn : "?", (unsigned long long)s->ext[x]);
		}
	}
	const struct sentry **v = table_sorted(&s->prov);
	if (v) {
		printf("\nproviders\n");
		for (size_t i = 0; i < s->prov.n; i++) {
			const char *pn = entry_provider(v[i], pbuf);
			printf("  %10llu  %s", (unsigned long long)v[i]->count, pn);
			if (v[i]->name && v[i]->key.prov == 0) {
				char g[ETL_GUID_STRLEN];
				printf(" (%s)", etl_guid_format(&v[i]->key.guid, g));
			}
			printf("\n");
		}
		free(v);
	}
	v = table_sorted(&s->evs);
	if (v) {
		printf("\nevents\n");
		for (size_t i = 0; i < s->evs.n; i++) {
			entry_event(v[i], ebuf, sizeof ebuf);
			printf("  %10llu  %-36s %s\n", (unsigned long long)v[i]->count,
			       entry_provider(v[i], pbuf), ebuf);
		}
		free(v);
	}
	printf("\nerrors            %llu\n", (unsigned long long)s->errors.total);
	for (size_t i = 0; i < s->errors.n; i++) {
		printf("  offset 0x%llx: ", (unsigned long long)s->errors.v[i].off);
		cli_text_safe(stdout, s->errors.v[i].text);
		printf("\n");
	}
	if (s->errors.total > s->errors.n)
		printf("  (%llu more not shown)\n", (unsigned long long)(s->errors.total - s->errors.n));
	if (s->warnings.total) {
		printf("warnings          %llu\n", (unsigned long long)s->warnings.total);
		for (size_t i = 0; i < s->warnings.n; i++) {
			printf("  offset 0x%llx: ", (unsigned long long)s->warnings.v[i].off);
			cli_text_safe(stdout, s->warnings.v[i].text);
			printf("\n");
		}
	}
}

static void json_time(int have, int64_t ft)
{
	char t[ETL_TIME_STRLEN];
	if (have)
		printf("\"%s\"", time_str(ft, t));
	else
		printf("null");
}

static void json_messages(const char *key, const struct msglist *l)
{
	printf("  \"%s\": [", key);
	for (size_t i = 0; i < l->n; i++) {
		printf("%s\n    {\"offset\": %llu, \"message\": ", i ? "," : "",
		       (unsigned long long)l->v[i].off);
		cli_json_string(stdout, l->v[i].text);
		printf("}");
	}
	printf("%s]", l->n ? "\n  " : "");
}

static void print_summary_json(const char *name, etl_reader *r, const struct summary *s,
                               const struct cli_filter *f)
{
	const struct etl_logfile *lf = etl_reader_logfile(r);
	struct etl_reader_stats st;
	char g[ETL_GUID_STRLEN], modes[512], ebuf[64];
	int first;
	etl_reader_stats(r, &st);
	printf("{\n  \"file\": ");
	cli_json_string(stdout, name);
	printf(",\n  \"buffers\": %llu,\n  \"compressed_buffers\": %llu,\n  \"bad_buffers\": %llu,\n"
	       "  \"records\": %llu,\n  \"matched_events\": %llu,\n  \"filtered\": %s,\n",
	       (unsigned long long)st.buffers, (unsigned long long)st.compressed_buffers,
	       (unsigned long long)st.bad_buffers, (unsigned long long)s->records,
	       (unsigned long long)s->matched, f->active ? "true" : "false");

	printf("  \"header_types\": {");
	first = 1;
	for (int k = 0; k < ETL_HDR_KIND_COUNT_; k++) {
		if (!s->kinds[k])
			continue;
		printf("%s\"%s\": %llu", first ? "" : ", ", etl_hdr_kind_name(k),
		       (unsigned long long)s->kinds[k]);
		first = 0;
	}
	printf("},\n  \"ext_item_types\": {");
	first = 1;
	for (unsigned x = 0; s->any_ext && x < 65536; x++) {
		if (!s->ext[x])
			continue;
		printf("%s\"%u\": %llu", first ? "" : ", ", x, (unsigned long long)s->ext[x]);
		first = 0;
	}
	printf("},\n");

	const struct sentry **v = table_sorted(&s->prov);
	printf("  \"providers\": [");
	for (size_t i = 0; v && i < s->prov.n; i++) {
		printf("%s\n    {", i ? "," : "");
		if (v[i]->key.prov == 1)
			printf("\"guid\": null, \"component\": %u", (unsigned)v[i]->key.component);
		else
			printf("\"guid\": \"%s\"", etl_guid_format(&v[i]->key.guid, g));
		printf(", \"name\": ");
		cli_json_string(stdout, v[i]->name);
		printf(", \"count\": %llu}", (unsigned long long)v[i]->count);
	}
	printf("%s],\n", v && s->prov.n ? "\n  " : "");
	free(v);

	v = table_sorted(&s->evs);
	printf("  \"event_types\": [");
	for (size_t i = 0; v && i < s->evs.n; i++) {
		printf("%s\n    {", i ? "," : "");
		if (v[i]->key.prov == 1)
			printf("\"guid\": null, \"component\": %u", (unsigned)v[i]->key.component);
		else
			printf("\"guid\": \"%s\"", etl_guid_format(&v[i]->key.guid, g));
		printf(", \"name\": ");
		cli_json_string(stdout, v[i]->name);
		switch (v[i]->key.what) {
		case 1: printf(", \"id\": %u", v[i]->key.value); break;
		case 3: printf(", \"opcode\": %u, \"hook\": %u", v[i]->key.value, v[i]->key.hook); break;
		default: printf(", \"opcode\": %u", v[i]->key.value); break;
		}
		entry_event(v[i], ebuf, sizeof ebuf);
		printf(", \"event\": \"%s\", \"count\": %llu}", ebuf, (unsigned long long)v[i]->count);
	}
	printf("%s],\n", v && s->evs.n ? "\n  " : "");
	free(v);

	printf("  \"first_event_time\": ");
	json_time(s->have_time, s->first);
	printf(",\n  \"last_event_time\": ");
	json_time(s->have_time, s->last);
	printf(",\n  \"lost\": {\"events_lost\": ");
	if (lf->present)
		printf("%u, \"buffers_lost\": %u", lf->events_lost, lf->buffers_lost);
	else
		printf("null, \"buffers_lost\": null");
	printf(", \"buffers_flagged_events_lost\": %llu, \"buffers_flagged_buffer_lost\": %llu},\n",
	       (unsigned long long)s->flag_events_lost, (unsigned long long)s->flag_buffer_lost);

	printf("  \"logfile\": ");
	if (!lf->present) {
		printf("null,\n");
	} else {
		printf("{\n    \"logger_name\": ");
		cli_json_string(stdout, lf->logger_name ? lf->logger_name : "");
		printf(",\n    \"log_file_name\": ");
		cli_json_string(stdout, lf->log_file_name ? lf->log_file_name : "");
		printf(",\n    \"pointer_size\": %u,\n    \"header_pointer_size\": %u,\n"
		       "    \"build\": %u,\n    \"version\": \"%u.%u.%u.%u\",\n"
		       "    \"log_file_mode\": %u,\n    \"log_file_mode_names\": ",
		       lf->pointer_size, lf->header_ptr_size, lf->provider_version, lf->version[0],
		       lf->version[1], lf->version[2], lf->version[3], lf->log_file_mode);
		cli_json_string(stdout, cli_log_file_mode_names(lf->log_file_mode, modes, sizeof modes));
		printf(",\n    \"clock_type\": %u,\n    \"clock_type_name\": \"%s\",\n"
		       "    \"perf_freq\": %lld,\n    \"cpu_speed_mhz\": %u,\n"
		       "    \"number_of_processors\": %u,\n    \"buffer_size\": %u,\n"
		       "    \"buffers_written\": %u,\n    \"events_lost\": %u,\n    \"buffers_lost\": %u,\n"
		       "    \"timer_resolution\": %u,\n    \"maximum_file_size\": %u,\n",
		       lf->reserved_flags, cli_clock_type_name(lf->reserved_flags),
		       (long long)lf->perf_freq, lf->cpu_speed_mhz, lf->number_of_processors,
		       lf->buffer_size, lf->buffers_written, lf->events_lost, lf->buffers_lost,
		       lf->timer_resolution, lf->maximum_file_size);
		printf("    \"start_time\": ");
		json_time(1, lf->start_time);
		printf(",\n    \"end_time\": ");
		json_time(1, lf->end_time);
		printf(",\n    \"boot_time\": ");
		json_time(1, lf->boot_time);
		printf(",\n    \"time_zone\": {\"bias\": %d, \"standard_name\": ", lf->time_zone.bias);
		cli_json_string(stdout, lf->time_zone.standard_name);
		printf(", \"standard_bias\": %d, \"daylight_name\": ", lf->time_zone.standard_bias);
		cli_json_string(stdout, lf->time_zone.daylight_name);
		printf(", \"daylight_bias\": %d}\n  },\n", lf->time_zone.daylight_bias);
	}
	json_messages("errors", &s->errors);
	printf(",\n  \"errors_total\": %llu,\n", (unsigned long long)s->errors.total);
	json_messages("warnings", &s->warnings);
	printf(",\n  \"warnings_total\": %llu\n}\n", (unsigned long long)s->warnings.total);
}

/* ---- progress --------------------------------------------------------- */

struct progress {
	int on;
	int last_pct;
	const char *name;
};

static void progress_update(struct progress *pg, etl_reader *r)
{
	struct etl_reader_stats st;
	etl_reader_stats(r, &st);
	if (!st.input_size)
		return;
	int pct = (int)(st.bytes_in * 100 / st.input_size);
	if (pct > 100)
		pct = 100;
	if (pct <= pg->last_pct)
		return;
	pg->last_pct = pct;
	fprintf(stderr, "\r" PROG ": %s: %3d%%", pg->name, pct);
}

static void progress_end(struct progress *pg)
{
	if (pg->on && pg->last_pct >= 0)
		fprintf(stderr, "\r\033[K");
}

/* ---- one input -------------------------------------------------------- */

static void report(const char *name, const char *kind, etl_reader *r)
{
	fprintf(stderr, PROG ": %s: offset 0x%llx: %s", name, (unsigned long long)etl_reader_erroff(r),
	        kind);
	cli_text_safe(stderr, etl_reader_errmsg(r));
	fputc('\n', stderr);
}

static int dump_buffers(const char *name, etl_reader *r)
{
	const struct etl_buffer_info *bi;
	int rc = EXIT_CLEAN, st;
	while ((st = etl_reader_next_buffer(r, &bi)) != ETL_END) {
		if (st == ETL_FATAL) {
			report(name, "", r);
			return EXIT_IO;
		}
		if (bi)
			print_buffer(bi);
		if (st == ETL_FAILED) {
			printf("  damaged: offset 0x%llx: ", (unsigned long long)etl_reader_erroff(r));
			cli_text_safe(stdout, etl_reader_errmsg(r));
			printf("\n");
			report(name, "", r);
			rc = EXIT_DAMAGE;
		}
	}
	return rc;
}

static int dump_events(const char *name, etl_reader *r, struct options *o, struct summary *s)
{
	const struct etl_event *ev;
	struct progress pg = { 0, -1, name };
	int rc = EXIT_CLEAN, st;
	unsigned tick = 0;
	if (o->progress_ok && (o->summary || o->count)) {
		struct etl_reader_stats rs;
		etl_reader_stats(r, &rs);
		pg.on = rs.input_size > PROGRESS_MIN_SIZE;
	}
	cli_filter_begin_file(&o->filter, etl_reader_logfile(r));
	for (;;) {
		st = etl_reader_next(r, &ev);
		if (st == ETL_END)
			break;
		if (pg.on && (++tick & 0x3FFF) == 0)
			progress_update(&pg, r);
		if (st == ETL_FATAL) {
			progress_end(&pg);
			pg.last_pct = -1;
			report(name, "", r);
			rc = EXIT_IO;
			break;
		}
		if (st == ETL_FAILED) {
			progress_end(&pg);
			pg.last_pct = -1;
			report(name, "", r);
			msg_add(&s->errors, etl_reader_erroff(r), etl_reader_errmsg(r));
			rc = worse(rc, EXIT_DAMAGE);
			continue;
		}
		if (st == ETL_WARN) {
			progress_end(&pg);
			pg.last_pct = -1;
			report(name, "warning: ", r);
			msg_add(&s->warnings, etl_reader_erroff(r), etl_reader_errmsg(r));
		}
		s->records++;
		if (o->summary && ev->offset_in_buffer == ETL_BUFFER_HEADER_SIZE) {
			/* First record of a buffer: count the buffer's loss flags. */
			const struct etl_buffer_info *bi = etl_reader_current_buffer(r);
			if (bi && (bi->flags & ETL_BUF_FLAG_EVENTS_LOST))
				s->flag_events_lost++;
			if (bi && (bi->flags & ETL_BUF_FLAG_BUFFER_LOST))
				s->flag_buffer_lost++;
		}
		if (!cli_filter_match(&o->filter, ev))
			continue;
		if (o->summary) {
			summary_add(s, ev);
		} else {
			s->matched++;
			if (o->list_events) {
				print_event(ev);
				if (o->hex && ev->payload_size)
					print_hex(ev->payload, ev->payload_size);
			}
		}
	}
	progress_end(&pg);
	return rc;
}

/* The EventTrace records that follow the logfile header in the header
 * buffer (Extension, PartitionInfoExtension, ...), read with a second
 * reader so the main one still returns every event. Not for standard
 * input, which cannot be read twice. */
static void print_header_records(const char *path)
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

static int process_file(const char *path, struct options *o, int nfiles, int index)
{
	const char *name = cli_display_name(path);
	struct summary s;
	int rc = EXIT_CLEAN;
	etl_reader *r = etl_reader_new();
	if (!r) {
		fprintf(stderr, PROG ": %s: out of memory\n", name);
		return EXIT_IO;
	}
	if (o->file_order || (o->buffers && !o->list_events))
		etl_reader_set_order(r, ETL_ORDER_FILE);
	int st = etl_reader_open_file(r, path);
	if (st == ETL_FATAL || st == ETL_FAILED) {
		fprintf(stderr, PROG ": %s: ", name);
		cli_text_safe(stderr, etl_reader_errmsg(r));
		fputc('\n', stderr);
		etl_reader_free(r);
		return EXIT_IO;
	}
	if (st == ETL_WARN)
		report(name, "warning: ", r);

	if (nfiles > 1 && !o->json)
		printf("%s==> %s <==\n", index ? "\n" : "", name);
	if (o->header) {
		print_header(etl_reader_logfile(r));
		print_header_records(path);
		if (o->buffers || o->summary || o->count || o->list_events)
			printf("\n");
	}
	memset(&s, 0, sizeof s);
	if (o->buffers) {
		rc = dump_buffers(name, r);
	} else if (o->summary || o->count || o->list_events) {
		rc = dump_events(name, r, o, &s);
		if (o->count)
			printf("%llu\n", (unsigned long long)s.matched);
		else if (o->summary && o->json)
			print_summary_json(name, r, &s, &o->filter);
		else if (o->summary)
			print_summary_text(name, r, &s, &o->filter);
		if (s.oom)
			fprintf(stderr, PROG ": %s: out of memory: the summary is incomplete\n", name);
	}
	summary_free(&s);
	etl_reader_free(r);
	if (fflush(stdout) != 0)
		rc = EXIT_IO;
	return rc;
}

int main(int argc, char **argv)
{
	static const struct option long_opts[] = {
		{ "header", no_argument, NULL, 'H' },
		{ "buffers", no_argument, NULL, 'b' },
		{ "summary", no_argument, NULL, 's' },
		{ "json", no_argument, NULL, 'j' },
		{ "hex", no_argument, NULL, 'x' },
		{ "count", no_argument, NULL, 'c' },
		{ "file-order", no_argument, NULL, 'F' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		CLI_FILTER_LONG_OPTIONS,
		{ NULL, 0, NULL, 0 }
	};
	struct options o;
	char err[512];
	int c, rc = EXIT_CLEAN;

	memset(&o, 0, sizeof o);
	cli_filter_init(&o.filter);
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":HbsjxcFqhV", long_opts, NULL)) != -1) {
		if (cli_filter_is_option(c)) {
			if (cli_filter_option(&o.filter, c, optarg, err, sizeof err) != 0) {
				cli_usage_error(PROG, "%s", err);
				cli_filter_free(&o.filter);
				return EXIT_USAGE;
			}
			continue;
		}
		switch (c) {
		case 'H': o.header = 1; break;
		case 'b': o.buffers = 1; break;
		case 's': o.summary = 1; break;
		case 'j': o.json = 1; break;
		case 'x': o.hex = 1; break;
		case 'c': o.count = 1; break;
		case 'F': o.file_order = 1; break;
		case 'q': o.quiet = 1; break;
		case 'h':
			usage();
			cli_filter_free(&o.filter);
			return fflush(stdout) == 0 ? EXIT_CLEAN : EXIT_IO;
		case 'V':
			printf(PROG " (libetl) %s\n", etl_version_string());
			cli_filter_free(&o.filter);
			return fflush(stdout) == 0 ? EXIT_CLEAN : EXIT_IO;
		case ':':
			cli_usage_error(PROG, "option '%s' needs an argument", argv[optind - 1]);
			cli_filter_free(&o.filter);
			return EXIT_USAGE;
		default:
			if (optopt && optopt < 0x100) {
				char opt[3] = { '-', (char)optopt, 0 };
				cli_usage_error(PROG, "unknown option '%s'", opt);
			} else {
				cli_usage_error(PROG, "unknown option '%s'", argv[optind - 1]);
			}
			cli_filter_free(&o.filter);
			return EXIT_USAGE;
		}
	}

	const char *conflict = NULL;
	if (o.count && o.summary)
		conflict = "--count and --summary cannot be combined";
	else if (o.buffers && (o.summary || o.count || o.hex))
		conflict = "--buffers cannot be combined with --summary, --count or --hex";
	else if (o.hex && (o.summary || o.count))
		conflict = "--hex cannot be combined with --summary or --count";
	else if (o.json && !o.summary)
		conflict = "--json needs --summary";
	else if (o.json && o.header)
		conflict = "--json cannot be combined with --header (the JSON object has a \"logfile\" member)";
	if (conflict) {
		cli_usage_error(PROG, "%s", conflict);
		cli_filter_free(&o.filter);
		return EXIT_USAGE;
	}
	o.list_events = o.hex || !(o.header || o.buffers || o.summary || o.count);
	o.progress_ok = !o.quiet && isatty(STDOUT_FILENO) && isatty(STDERR_FILENO);

	int nfiles = argc - optind;
	if (nfiles == 0 && isatty(STDIN_FILENO)) {
		cli_usage_error(PROG, "%s", "no input file (give '-' to read a terminal)");
		cli_filter_free(&o.filter);
		return EXIT_USAGE;
	}

	/* The event listing is written in large blocks. */
	static char outbuf[1 << 20];
	setvbuf(stdout, outbuf, _IOFBF, sizeof outbuf);

	if (nfiles == 0)
		rc = process_file("-", &o, 1, 0);
	for (int i = 0; i < nfiles; i++)
		rc = worse(rc, process_file(argv[optind + i], &o, nfiles, i));

	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, PROG ": cannot write the output: %s\n", strerror(errno));
		rc = EXIT_IO;
	}
	cli_filter_free(&o.filter);
	return rc;
}
