/*
 * check_output.c - the output formats (include/etl_output.h, formats/output/out_*.c):
 *
 *   - golden files: a few corpus files ($ETL_CORPUS, default
 *     ../shared/corpus) read in time order, decoded with etl_decoder and
 *     rendered in every format, compared byte for byte with
 *     testdata/golden/<file>.<format>;
 *   - every output is parsed back: XML with libxml2 (xmlReadMemory), JSON
 *     and JSON lines with tests/json_mini.c, CSV with a small RFC 4180
 *     reader (15 fields a row);
 *   - hand-built events whose strings and names hold control characters,
 *     NULs and bytes that are not UTF-8 still give well-formed XML and
 *     valid JSON; value formatting (doc/decoding.md §6.2) seen through JSON;
 *   - events that cannot be decoded are kept with their payload in hex
 *     and the reason; the logfile header is written once, as the header
 *     event; misuse and sink failures.
 *
 * Refreshing the golden files (after a deliberate change of the output or
 * of the decoder), from the repository root, without make:
 *
 *     ETL_UPDATE_GOLDEN=1 .build/tests/check_output
 *
 * rewrites every testdata/golden/<file>.<format> (the test then passes);
 * review the diff before committing. ETL_GOLDEN_DIR overrides the
 * directory (default testdata/golden, relative to the working directory,
 * which is the repository root under make check).
 */
#define _POSIX_C_SOURCE 200809L

#include <check.h>
#include <libxml/parser.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etl.h"
#include "etl_decode.h"
#include "etl_output.h"
#include "json_mini.h"
#include "testutil.h"

static const char *const formats[] = { "xml", "json", "jsonl", "csv", "text" };
#define N_FORMATS (sizeof formats / sizeof formats[0])

static const char *const golden_files[] = {
	"wsl-lxcore-tracelogging.etl",      /* TraceLogging                     */
	"onedrive-cldflt-wpp.etl",          /* WPP messages                     */
	"vista-classic-mixed-32.etl",       /* classic FULL_HEADER32, 32-bit    */
	"eventsource-primitive-types.etl",  /* EventSource, every primitive type */
};
#define N_GOLDEN (sizeof golden_files / sizeof golden_files[0])

/* ---- a memory sink ------------------------------------------------------ */

struct mem {
	struct tu_bytes b;
	int fail_after;            /* > 0: the Nth write fails               */
	int writes;
};

static int mem_write(void *ctx, const void *p, size_t n)
{
	struct mem *m = ctx;
	m->writes++;
	if (m->fail_after > 0 && m->writes >= m->fail_after)
		return -1;
	tu_putbytes(&m->b, p, n);
	return 0;
}

/* ---- checking documents --------------------------------------------------- */

static void check_xml(const struct tu_bytes *b, const char *what)
{
	xmlDocPtr doc = xmlReadMemory((const char *)b->p, (int)b->len, "out.xml", NULL,
	                              XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
	ck_assert_msg(doc != NULL, "%s: the XML output is not well-formed", what);
	xmlNodePtr root = xmlDocGetRootElement(doc);
	ck_assert_msg(root && strcmp((const char *)root->name, "Events") == 0, "%s: root is not <Events>", what);
	xmlFreeDoc(doc);
}

static struct jm_val *parse_json(const char *p, size_t n, const char *what)
{
	char err[256];
	struct jm_val *v = jm_parse(p, n, err, sizeof err);
	ck_assert_msg(v != NULL, "%s: invalid JSON: %s", what, err);
	return v;
}

/* Number of JSON lines (each parsed). */
static size_t check_jsonl(const struct tu_bytes *b, const char *what)
{
	size_t n = 0, start = 0;
	for (size_t i = 0; i < b->len; i++) {
		if (b->p[i] != '\n')
			continue;
		jm_free(parse_json((const char *)b->p + start, i - start, what));
		n++;
		start = i + 1;
	}
	ck_assert_msg(start == b->len, "%s: the last JSON line has no LF", what);
	return n;
}

/* RFC 4180 reader: every record has 15 fields and ends with CRLF.
 * @return : the number of records (the column row included). */
static size_t check_csv(const struct tu_bytes *b, const char *what)
{
	size_t i = 0, rows = 0;
	while (i < b->len) {
		int fields = 1;
		for (;;) {
			ck_assert_msg(i < b->len, "%s: row %zu: no CRLF at the end", what, rows);
			if (b->p[i] == '"') {
				i++;
				for (;;) {
					ck_assert_msg(i < b->len, "%s: row %zu: unterminated quote", what, rows);
					if (b->p[i] == '"') {
						if (i + 1 < b->len && b->p[i + 1] == '"') {
							i += 2;
							continue;
						}
						i++;
						break;
					}
					i++;
				}
			} else {
				while (i < b->len && b->p[i] != ',' && b->p[i] != '\r' && b->p[i] != '\n') {
					ck_assert_msg(b->p[i] != '"', "%s: row %zu: quote inside a bare field", what, rows);
					i++;
				}
			}
			ck_assert_msg(i < b->len, "%s: row %zu: no CRLF at the end", what, rows);
			if (b->p[i] == ',') {
				fields++;
				i++;
				continue;
			}
			ck_assert_msg(b->p[i] == '\r' && i + 1 < b->len && b->p[i + 1] == '\n',
			              "%s: row %zu: bare LF or text after a quoted field", what, rows);
			i += 2;
			break;
		}
		ck_assert_msg(fields == 15, "%s: row %zu has %d fields", what, rows, fields);
		rows++;
	}
	return rows;
}

/* Parses an output of any format. */
static void check_wellformed(const char *fmt, const struct tu_bytes *b, const char *what)
{
	if (strcmp(fmt, "xml") == 0) {
		check_xml(b, what);
	} else if (strcmp(fmt, "json") == 0) {
		struct jm_val *v = parse_json((const char *)b->p, b->len, what);
		ck_assert_msg(jm_get(v, "Header") != NULL, "%s: no Header", what);
		const struct jm_val *e = jm_get(v, "Events");
		ck_assert_msg(e && e->type == JM_ARR, "%s: no Events array", what);
		jm_free(v);
	} else if (strcmp(fmt, "jsonl") == 0) {
		check_jsonl(b, what);
	} else if (strcmp(fmt, "csv") == 0) {
		check_csv(b, what);
	} else {
		for (size_t i = 0; i < b->len; i++)
			ck_assert_msg(b->p[i] >= 0x20 || b->p[i] == '\n',
			              "%s: control character 0x%02x in text output", what, b->p[i]);
		ck_assert_msg(b->len == 0 || b->p[b->len - 1] == '\n', "%s: no final LF", what);
	}
}

/* ---- rendering a corpus file ------------------------------------------------ */

/* Renders path in format fmt (time order, every record, decoded). */
static void render_file(const char *path, const char *fmt, struct mem *m)
{
	etl_reader *r = etl_reader_new();
	etl_decoder *d = etl_decoder_new();
	ck_assert_ptr_nonnull(r);
	ck_assert_ptr_nonnull(d);
	int st = etl_reader_open_file(r, path);
	ck_assert_msg(st == ETL_OK || st == ETL_WARN, "%s: cannot open: %s", path, etl_reader_errmsg(r));
	etl_output *o = etl_output_new(fmt, mem_write, m);
	ck_assert_ptr_nonnull(o);
	ck_assert_int_eq(etl_output_begin(o, etl_reader_logfile(r)), ETL_OK);
	const struct etl_event *ev;
	while ((st = etl_reader_next(r, &ev)) != ETL_END) {
		ck_assert_int_ne(st, ETL_FATAL);
		if (st == ETL_FAILED)
			continue;
		const struct etl_decoded *dec = NULL;
		ck_assert_int_ne(etl_decoder_decode(d, ev, &dec), ETL_FATAL);
		TU_CHECK(etl_output_event(o, ev, dec) == ETL_OK, "%s: %s", path, etl_output_errmsg(o));
	}
	ck_assert_int_eq(etl_output_end(o), ETL_OK);
	etl_output_free(o);
	etl_decoder_free(d);
	etl_reader_free(r);
}

static const char *golden_dir(void)
{
	const char *d = getenv("ETL_GOLDEN_DIR");
	return d && *d ? d : "testdata/golden";
}

/* Index of the first differing line (1-based) of a and b. */
static size_t first_diff_line(const uint8_t *a, size_t na, const uint8_t *b, size_t nb)
{
	size_t line = 1;
	for (size_t i = 0; i < na && i < nb; i++) {
		if (a[i] != b[i])
			return line;
		if (a[i] == '\n')
			line++;
	}
	return line;
}

START_TEST(test_output_golden_files)
{
	TU_NEED_CORPUS();
	const char *file = golden_files[_i / N_FORMATS];
	const char *fmt = formats[_i % N_FORMATS];
	char *path = tu_corpus_path(file);
	char gpath[1024], what[256];
	struct mem m;
	memset(&m, 0, sizeof m);
	snprintf(gpath, sizeof gpath, "%s/%s.%s", golden_dir(), file, fmt);
	snprintf(what, sizeof what, "%s as %s", file, fmt);

	render_file(path, fmt, &m);
	check_wellformed(fmt, &m.b, what);

	const char *upd = getenv("ETL_UPDATE_GOLDEN");
	if (upd && *upd && strcmp(upd, "0") != 0) {
		tu_write_file(gpath, m.b.p, m.b.len);
	} else {
		FILE *f = fopen(gpath, "rb");
		ck_assert_msg(f != NULL, "%s: no golden file %s (create it with ETL_UPDATE_GOLDEN=1)",
		              what, gpath);
		fclose(f);
		size_t glen;
		uint8_t *g = tu_load_file(gpath, &glen);
		ck_assert_msg(glen == m.b.len && memcmp(g, m.b.p, glen) == 0,
		              "%s differs from %s (%zu bytes, golden %zu) from line %zu; "
		              "refresh with ETL_UPDATE_GOLDEN=1 if the change is intended",
		              what, gpath, m.b.len, glen, first_diff_line(m.b.p, m.b.len, g, glen));
		free(g);
	}
	tu_bytes_free(&m.b);
	free(path);
}
END_TEST

/* The logfile-header record appears once, as the header event; the other
 * header-buffer records are kept. */
START_TEST(test_output_header_event_once)
{
	TU_NEED_CORPUS();
	char *path = tu_corpus_path("wsl-lxcore-tracelogging.etl");
	struct mem m;
	memset(&m, 0, sizeof m);
	render_file(path, "jsonl", &m);
	ck_assert_int_eq(check_jsonl(&m.b, "jsonl"), 4);     /* all 4 records */
	tu_putbytes(&m.b, "", 1);
	const char *s = (const char *)m.b.p;
	const char *first = strstr(s, "\"SessionNameString\":\"lxcore_kernel\"");
	ck_assert_ptr_nonnull(first);
	ck_assert_ptr_null(strstr(first + 1, "\"SessionNameString\""));
	/* The header line carries the record's process and thread. */
	const char *nl = strchr(s, '\n');
	ck_assert_ptr_nonnull(nl);
	ck_assert_ptr_nonnull(strstr(s, "\"ProcessID\":6112,\"ThreadID\":8064"));
	ck_assert(strstr(s, "\"ProcessID\":6112") < nl);
	ck_assert(first < nl);
	tu_bytes_free(&m.b);
	free(path);
}
END_TEST

/* ---- hand-built events ------------------------------------------------------ */

static const struct etl_guid g_prov = { 0x11223344, 0x5566, 0x7788, { 0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff, 0x00 } };

/* Nasty strings: controls (NUL included), not UTF-8, non-characters,
 * XML specials, "--" and a trailing "-" for comments. */
static const char nasty[] = "a\x01" "b\x00" "c\x1f" "d\t\r\n<&>\"'--\xff\xfe" "x\xc3" "y"
                            "\xed\xa0\x80" "\xef\xbf\xbe" "\xc0\x80" "\x7f" "\xe2\x82\xac" "-";
#define NASTY_LEN (sizeof nasty - 1)

struct built {
	struct etl_event ev;
	uint8_t ext[64];
	uint8_t payload[16];
	uint8_t sid[16];
	uint8_t v6[16];
	uint8_t sa4[16];
	uint8_t sa6[28];
	struct etl_prop props[32];
	struct etl_decoded dec;
};

static void set_prop(struct etl_prop *p, const char *name, int kind, unsigned in, unsigned out,
                     uint32_t parent)
{
	memset(p, 0, sizeof *p);
	p->name = name;
	p->kind = kind;
	p->in_type = (uint16_t)in;
	p->out_type = (uint16_t)out;
	p->parent = parent;
}

static void build_event(struct built *b)
{
	memset(b, 0, sizeof *b);
	struct etl_event *ev = &b->ev;
	ev->kind = ETL_HDR_EVENT_HEADER64;
	ev->header_type = 0x13;
	ev->ptr_size = 8;
	ev->present = ETL_EVF_PID | ETL_EVF_CPU_TIMES | ETL_EVF_DESCRIPTOR | ETL_EVF_ACTIVITY |
	              ETL_EVF_TIMESTAMP | ETL_EVF_PROVIDER | ETL_EVF_UTC;
	ev->provider = g_prov;
	ev->pid = 4;
	ev->tid = 8;
	ev->processor = 3;
	ev->id = 7;
	ev->version = 1;
	ev->channel = 16;
	ev->level = 4;
	ev->opcode = 2;
	ev->task = 9;
	ev->keyword = 0x8000000000000001ull;
	ev->timestamp = 12345;
	ev->utc = 132264173104203138LL;    /* 2020-02-17T12:48:30.4203138Z */
	ev->kernel_time = 5;
	ev->user_time = 6;
	ev->activity_id = (struct etl_guid){ 1, 2, 3, { 4, 5, 6, 7, 8, 9, 10, 11 } };
	/* Extended items: RELATED_ACTIVITYID, then SID S-1-5-18. */
	uint8_t *x = b->ext;
	x[0] = 24; x[2] = ETL_EXT_RELATED_ACTIVITYID; x[4] = 1; x[6] = 16;
	for (int i = 0; i < 16; i++)
		x[8 + i] = (uint8_t)(0xA0 + i);
	x += 24;
	x[0] = 24; x[2] = ETL_EXT_SID; x[6] = 12;
	static const uint8_t sid18[12] = { 1, 1, 0, 0, 0, 0, 0, 5, 18, 0, 0, 0 };
	memcpy(x + 8, sid18, 12);
	ev->ext = b->ext;
	ev->ext_size = 48;
	ev->ext_count = 2;
	for (int i = 0; i < 16; i++)
		b->payload[i] = (uint8_t)(i * 17);
	ev->payload = b->payload;
	ev->payload_size = 16;
	ev->size = 80 + 48 + 16;
	ev->header_size = 80 + 48;

	struct etl_prop *p = b->props;
	uint32_t n = 0;
	set_prop(&p[n], nasty, ETL_VAL_STRING, ETL_IN_UNICODESTRING, 0, ETL_PROP_NO_PARENT);
	p[n].v.str.s = nasty;
	p[n].v.str.len = NASTY_LEN;
	n++;                                                              /* 0 */
	set_prop(&p[n], "big", ETL_VAL_UINT, ETL_IN_UINT64, 0, ETL_PROP_NO_PARENT);
	p[n++].v.u = 18446744073709551615ull;                             /* 1 */
	set_prop(&p[n], "neg", ETL_VAL_INT, ETL_IN_INT32, 0, ETL_PROP_NO_PARENT);
	p[n++].v.i = -42;                                                 /* 2 */
	set_prop(&p[n], "hex", ETL_VAL_INT, ETL_IN_INT32, ETL_OUT_HRESULT, ETL_PROP_NO_PARENT);
	p[n++].v.i = -2147467259;   /* E_FAIL */                          /* 3 */
	set_prop(&p[n], "flag", ETL_VAL_BOOL, ETL_IN_BOOLEAN, 0, ETL_PROP_NO_PARENT);
	p[n++].v.u = 1;                                                   /* 4 */
	set_prop(&p[n], "f32", ETL_VAL_FLOAT, ETL_IN_FLOAT, 0, ETL_PROP_NO_PARENT);
	p[n++].v.f = (double)0.1f;                                        /* 5 */
	set_prop(&p[n], "nan", ETL_VAL_FLOAT, ETL_IN_DOUBLE, 0, ETL_PROP_NO_PARENT);
	p[n++].v.f = __builtin_nan("");                                   /* 6 */
	set_prop(&p[n], "ip", ETL_VAL_UINT, ETL_IN_UINT32, ETL_OUT_IPV4, ETL_PROP_NO_PARENT);
	p[n++].v.u = 0x0100007F;                                          /* 7 */
	set_prop(&p[n], "port", ETL_VAL_UINT, ETL_IN_UINT16, ETL_OUT_PORT, ETL_PROP_NO_PARENT);
	p[n++].v.u = 0x5000;                                              /* 8 */
	static const uint8_t sid[16] = { 1, 2, 0, 0, 0, 0, 0, 5, 32, 0, 0, 0, 0x20, 2, 0, 0 };
	memcpy(b->sid, sid, 16);
	set_prop(&p[n], "sid", ETL_VAL_SID, ETL_IN_SID, 0, ETL_PROP_NO_PARENT);
	p[n].v.bin.p = b->sid;
	p[n++].v.bin.len = 16;                                            /* 9 */
	b->v6[15] = 1;
	set_prop(&p[n], "v6", ETL_VAL_BINARY, ETL_IN_BINARY, ETL_OUT_IPV6, ETL_PROP_NO_PARENT);
	p[n].v.bin.p = b->v6;
	p[n++].v.bin.len = 16;                                            /* 10 */
	static const uint8_t sa4[16] = { 2, 0, 0x01, 0xBB, 10, 0, 0, 1 };
	memcpy(b->sa4, sa4, 16);
	set_prop(&p[n], "sa4", ETL_VAL_BINARY, ETL_IN_BINARY, ETL_OUT_SOCKETADDRESS, ETL_PROP_NO_PARENT);
	p[n].v.bin.p = b->sa4;
	p[n++].v.bin.len = 16;                                            /* 11 */
	b->sa6[0] = 23;
	b->sa6[3] = 80;
	b->sa6[23] = 1;
	set_prop(&p[n], "sa6", ETL_VAL_BINARY, ETL_IN_BINARY, ETL_OUT_SOCKETADDRESS, ETL_PROP_NO_PARENT);
	p[n].v.bin.p = b->sa6;
	p[n++].v.bin.len = 28;                                            /* 12 */
	set_prop(&p[n], "bin", ETL_VAL_BINARY, ETL_IN_BINARY, 0, ETL_PROP_NO_PARENT);
	p[n].v.bin.p = b->payload;
	p[n++].v.bin.len = 4;                                             /* 13 */
	set_prop(&p[n], "when", ETL_VAL_FILETIME, ETL_IN_FILETIME, 0, ETL_PROP_NO_PARENT);
	p[n++].v.i = 132264173104203138LL;                                /* 14 */
	set_prop(&p[n], "g", ETL_VAL_GUID, ETL_IN_GUID, 0, ETL_PROP_NO_PARENT);
	p[n++].v.guid = g_prov;                                           /* 15 */
	set_prop(&p[n], "s", ETL_VAL_STRUCT, ETL_IN_STRUCT, 0, ETL_PROP_NO_PARENT);
	p[n].first_child = 18;
	p[n++].n_children = 2;                                            /* 16 */
	set_prop(&p[n], "a", ETL_VAL_ARRAY, ETL_IN_UINT8, 0, ETL_PROP_NO_PARENT);
	p[n].first_child = 20;
	p[n++].n_children = 3;                                            /* 17 */
	set_prop(&p[n], "x", ETL_VAL_UINT, ETL_IN_UINT8, ETL_OUT_HEXINT8, 16);
	p[n++].v.u = 0xAB;                                                /* 18 */
	set_prop(&p[n], "bad\x01name\xff", ETL_VAL_STRING, ETL_IN_ANSISTRING, 0, 16);
	p[n].v.str.s = "v";
	p[n++].v.str.len = 1;                                             /* 19 */
	for (int i = 0; i < 3; i++) {
		set_prop(&p[n], "a", ETL_VAL_UINT, ETL_IN_UINT8, 0, 17);
		p[n++].v.u = (uint64_t)(i + 1);                               /* 20-22 */
	}
	/* A struct whose child range points backwards: shown empty. */
	set_prop(&p[n], "loop", ETL_VAL_STRUCT, ETL_IN_STRUCT, 0, ETL_PROP_NO_PARENT);
	p[n].first_child = 0;
	p[n++].n_children = 5;                                            /* 23 */
	set_prop(&p[n], "ch", ETL_VAL_UINT, ETL_IN_UINT8, ETL_OUT_STRING, ETL_PROP_NO_PARENT);
	p[n++].v.u = 0x80;        /* Windows-1252: the euro sign */        /* 24 */
	set_prop(&p[n], "b8", ETL_VAL_UINT, ETL_IN_UINT8, ETL_OUT_BOOLEAN, ETL_PROP_NO_PARENT);
	p[n++].v.u = 1;                                                   /* 25 */

	struct etl_decoded *d = &b->dec;
	d->source = ETL_DECODE_TRACELOGGING;
	d->provider_name = "My\x02Provider";
	d->event_name = "Ev\xff";
	d->level_name = "Information";
	d->opcode_name = "Stop";
	d->task_name = "T";
	d->channel_name = "Analytic";
	d->keywords_name = "Alpha  Beta";
	d->message = "msg \x03 -- <x>";
	d->props = p;
	d->n_props = n;
	d->status = ETL_OK;
}

static void render_built(const char *fmt, const struct built *b, const struct etl_decoded *dec,
                         struct mem *m)
{
	etl_output *o = etl_output_new(fmt, mem_write, m);
	ck_assert_ptr_nonnull(o);
	ck_assert_int_eq(etl_output_begin(o, NULL), ETL_OK);
	ck_assert_int_eq(etl_output_event(o, &b->ev, dec), ETL_OK);
	ck_assert_int_eq(etl_output_end(o), ETL_OK);
	etl_output_free(o);
}

START_TEST(test_output_nasty_strings_wellformed)
{
	struct built b;
	build_event(&b);
	for (size_t f = 0; f < N_FORMATS; f++) {
		struct mem m;
		memset(&m, 0, sizeof m);
		render_built(formats[f], &b, &b.dec, &m);
		check_wellformed(formats[f], &m.b, formats[f]);
		tu_bytes_free(&m.b);
		/* Undecodable, with a reason holding the same characters. */
		struct etl_decoded bad = b.dec;
		bad.status = ETL_FAILED;
		bad.errcode = ETL_E_BAD_VALUE;
		bad.error = nasty;
		bad.props = NULL;
		bad.n_props = 0;
		memset(&m, 0, sizeof m);
		render_built(formats[f], &b, &bad, &m);
		check_wellformed(formats[f], &m.b, formats[f]);
		tu_bytes_free(&m.b);
	}
}
END_TEST

/* The parsed XML keeps the text, with the documented replacements. */
START_TEST(test_output_xml_replacements)
{
	struct built b;
	build_event(&b);
	struct mem m;
	memset(&m, 0, sizeof m);
	render_built("xml", &b, &b.dec, &m);
	xmlDocPtr doc = xmlReadMemory((const char *)m.b.p, (int)m.b.len, "o.xml", NULL, XML_PARSE_NONET);
	ck_assert_ptr_nonnull(doc);
	xmlNodePtr ev = xmlDocGetRootElement(doc)->children;
	while (ev && ev->type != XML_ELEMENT_NODE)
		ev = ev->next;
	ck_assert_ptr_nonnull(ev);
	ck_assert_str_eq((const char *)ev->name, "Event");
	ck_assert_str_eq((const char *)ev->ns->href, "http://schemas.microsoft.com/win/2004/08/events/event");
	xmlNodePtr data = ev->children->next;                 /* EventData */
	ck_assert_str_eq((const char *)data->name, "EventData");
	xmlNodePtr d0 = data->children;
	xmlChar *name = xmlGetProp(d0, BAD_CAST "Name");
	xmlChar *text = xmlNodeGetContent(d0);
	/* U+2401 for \x01, U+2400 for NUL, U+241F for \x1f; TAB, CR, LF
	 * kept; U+FFFD for each byte that is not UTF-8 and for U+FFFE. */
	const char *want = "a\xe2\x90\x81" "b\xe2\x90\x80" "c\xe2\x90\x9f" "d\t\r\n<&>\"'--"
	                   "\xef\xbf\xbd\xef\xbf\xbd" "x\xef\xbf\xbd" "y"
	                   "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd" "\xef\xbf\xbd"
	                   "\xef\xbf\xbd\xef\xbf\xbd" "\x7f" "\xe2\x82\xac" "-";
	ck_assert_str_eq((const char *)text, want);
	/* The name is a C string: it ends at the NUL. */
	ck_assert_str_eq((const char *)name, "a\xe2\x90\x81" "b");
	xmlFree(name);
	xmlFree(text);
	xmlFreeDoc(doc);
	tu_putbytes(&m.b, "", 1);
	const char *s = (const char *)m.b.p;
	ck_assert_ptr_nonnull(strstr(s, "<Data Name=\"s.x\">0xab</Data>"));
	ck_assert_ptr_nonnull(strstr(s, "<Data Name=\"s.bad\xe2\x90\x81name\xef\xbf\xbd\">v</Data>"));
	ck_assert_ptr_nonnull(strstr(s, "<Data Name=\"a[0]\">1</Data><Data Name=\"a[1]\">2</Data>"
	                                "<Data Name=\"a[2]\">3</Data>"));
	ck_assert_ptr_null(strstr(s, "Name=\"loop"));
	ck_assert_ptr_nonnull(strstr(s, "<Correlation ActivityID=\"{00000001-0002-0003-0405-060708090a0b}\" "
	                                "RelatedActivityID=\"{a3a2a1a0-a5a4-a7a6-a8a9-aaabacadaeaf}\"/>"));
	ck_assert_ptr_nonnull(strstr(s, "<Execution ProcessID=\"4\" ThreadID=\"8\" ProcessorID=\"3\" "
	                                "KernelTime=\"5\" UserTime=\"6\"/>"));
	ck_assert_ptr_nonnull(strstr(s, "<Security UserID=\"S-1-5-18\"/>"));
	ck_assert_ptr_nonnull(strstr(s, "<TimeCreated SystemTime=\"2020-02-17T12:48:30.4203138Z\"/>"));
	ck_assert_ptr_nonnull(strstr(s, "<Keywords>0x8000000000000001</Keywords>"));
	ck_assert_ptr_nonnull(strstr(s, "<Keywords><Keyword>Alpha</Keyword><Keyword>Beta</Keyword></Keywords>"));
	ck_assert_ptr_nonnull(strstr(s, "<RenderingInfo Culture=\"en-US\"><Message>msg \xe2\x90\x83 -- &lt;x&gt;</Message>"));
	tu_bytes_free(&m.b);
}
END_TEST

/* How often needle occurs in the NUL-terminated s. */
static int count_of(const char *s, const char *needle)
{
	int n = 0;
	for (const char *q = s; (q = strstr(q, needle)) != NULL; q += strlen(needle))
		n++;
	return n;
}

/* Top-level names in XML, the same in an event's first rendering and in
 * later ones (which take the name's text from the writer's memo): one to
 * escape, one too long to keep, and plain ones, each with its closing
 * quote. */
START_TEST(test_output_xml_top_names_repeat)
{
	static const char long_name[] = "a_name_much_longer_than_the_forty_bytes_a_memo_keeps_0123456789";
	struct built b;
	build_event(&b);
	b.props[1].name = "x&y\"z<";
	b.props[2].name = long_name;
	struct mem m;
	memset(&m, 0, sizeof m);
	etl_output *o = etl_output_new("xml", mem_write, &m);
	ck_assert_ptr_nonnull(o);
	ck_assert_int_eq(etl_output_begin(o, NULL), ETL_OK);
	for (int k = 0; k < 3; k++)
		ck_assert_int_eq(etl_output_event(o, &b.ev, &b.dec), ETL_OK);
	ck_assert_int_eq(etl_output_end(o), ETL_OK);
	etl_output_free(o);
	tu_putbytes(&m.b, "", 1);
	const char *s = (const char *)m.b.p;
	ck_assert_int_eq(count_of(s, "<Data Name=\"x&amp;y&quot;z&lt;\">18446744073709551615</Data>"), 3);
	ck_assert_int_eq(count_of(s, "<Data Name=\"a_name_much_longer_than_the_forty_bytes_a_memo_keeps_0123456789\">"
	                             "-42</Data>"), 3);
	ck_assert_int_eq(count_of(s, "<Data Name=\"hex\">0x80004005</Data><Data Name=\"flag\">true</Data>"), 3);
	ck_assert_int_eq(count_of(s, "<Data Name=\"g\">{"), 3);
	tu_bytes_free(&m.b);
}
END_TEST

/* Arrays of integers in XML: each element <Data Name="name[k]">, hex
 * ones masked to their width with 0x, decimal ones signed or not; an
 * element of another type than the first is written as a value of its own
 * type. The expected text is made here with snprintf. */
struct int_array {
	const char *name;
	int kind;
	unsigned in, out;
	uint32_t n;
};

static size_t expect_elem(char *o, size_t room, const char *name, uint32_t k, const struct etl_prop *e)
{
	int hex = e->out_type == ETL_OUT_HEXINT8 || e->out_type == ETL_OUT_HEXINT32 ||
	          e->in_type == ETL_IN_HEXINT32 || e->in_type == ETL_IN_POINTER;
	unsigned bits = e->in_type == ETL_IN_UINT8 ? 8 : e->in_type == ETL_IN_INT32 || e->in_type == ETL_IN_UINT32 ||
	                e->in_type == ETL_IN_HEXINT32 ? 32 : 64;
	uint64_t u = bits < 64 ? e->v.u & ((1ull << bits) - 1) : e->v.u;
	int n;
	if (hex)
		n = snprintf(o, room, "<Data Name=\"%s[%u]\">0x%llx</Data>", name, k, (unsigned long long)u);
	else if (e->kind == ETL_VAL_INT)
		n = snprintf(o, room, "<Data Name=\"%s[%u]\">%lld</Data>", name, k, (long long)e->v.i);
	else
		n = snprintf(o, room, "<Data Name=\"%s[%u]\">%llu</Data>", name, k, (unsigned long long)e->v.u);
	ck_assert(n > 0 && (size_t)n < room);
	return (size_t)n;
}

START_TEST(test_output_xml_int_arrays)
{
	static const char long_name[] = "IntegersUnderANameOfSixtyBytes_0123456789012345678901234567";
	static const struct int_array arr[] = {
		{ "Stack", ETL_VAL_UINT, ETL_IN_POINTER, 0, 105 },
		{ "h32", ETL_VAL_INT, ETL_IN_HEXINT32, 0, 3 },
		{ "h8", ETL_VAL_UINT, ETL_IN_UINT8, ETL_OUT_HEXINT8, 2 },
		{ "d", ETL_VAL_INT, ETL_IN_INT64, 0, 4 },
		{ "u", ETL_VAL_UINT, ETL_IN_UINT64, 0, 4 },
		{ long_name, ETL_VAL_UINT, ETL_IN_UINT32, 0, 12 },
	};
	static const uint64_t some[] = { 0, UINT64_MAX, 0xfffff88000dce191ull, 0x8000000000000000ull,
	                                 0x7fffffffffffffffull, 10, 99, 100, 0x1AB, 0xFFFFFFFF00000010ull };
	enum { NARR = sizeof arr / sizeof arr[0], NPROPS = 200 };
	static struct etl_prop props[NPROPS];
	struct built b;
	build_event(&b);
	uint32_t n = NARR + 1, at = 0;       /* the arrays, then "mixed" */
	for (uint32_t a = 0; a < NARR; a++) {
		set_prop(&props[a], arr[a].name, ETL_VAL_ARRAY, arr[a].in, arr[a].out, ETL_PROP_NO_PARENT);
		props[a].first_child = n;
		props[a].n_children = arr[a].n;
		for (uint32_t k = 0; k < arr[a].n; k++, at++) {
			set_prop(&props[n], arr[a].name, arr[a].kind, arr[a].in, arr[a].out, a);
			props[n++].v.u = some[at % (sizeof some / sizeof some[0])] ^ (at > 10 ? (uint64_t)at << 40 : 0);
		}
	}
	props[props[1].first_child].v.i = -1;           /* h32[0]: 0xffffffff */
	props[props[2].first_child].v.u = 0x1AB;        /* h8[0]: 0xab */
	/* mixed: hex, then a decimal INT32, a character (U+0041), and hex again */
	set_prop(&props[NARR], "mixed", ETL_VAL_ARRAY, ETL_IN_HEXINT32, 0, ETL_PROP_NO_PARENT);
	props[NARR].first_child = n;
	props[NARR].n_children = 4;
	set_prop(&props[n], "mixed", ETL_VAL_UINT, ETL_IN_HEXINT32, 0, NARR);
	props[n++].v.u = 0xBEEF;
	set_prop(&props[n], "mixed", ETL_VAL_INT, ETL_IN_INT32, 0, NARR);
	props[n++].v.i = -1;
	set_prop(&props[n], "mixed", ETL_VAL_UINT, ETL_IN_UINT8, ETL_OUT_STRING, NARR);
	props[n++].v.u = 'A';
	set_prop(&props[n], "mixed", ETL_VAL_UINT, ETL_IN_HEXINT32, 0, NARR);
	props[n++].v.u = 0x1FFFFFFFFull;
	ck_assert_uint_le(n, NPROPS);
	b.dec.props = props;
	b.dec.n_props = n;

	struct mem m;
	memset(&m, 0, sizeof m);
	render_built("xml", &b, &b.dec, &m);
	tu_putbytes(&m.b, "", 1);
	const char *s = (const char *)m.b.p;
	static char want[16384];
	for (uint32_t a = 0; a < NARR; a++) {
		size_t len = 0;
		for (uint32_t k = 0; k < arr[a].n; k++)
			len += expect_elem(want + len, sizeof want - len, arr[a].name, k, &props[props[a].first_child + k]);
		ck_assert_msg(count_of(s, want) == 1, "%s: its %u elements are not written once as expected",
		              arr[a].name, arr[a].n);
	}
	ck_assert_int_eq(count_of(s, "<Data Name=\"Stack[1]\">0xffffffffffffffff</Data>"
	                             "<Data Name=\"Stack[2]\">0xfffff88000dce191</Data>"), 1);
	ck_assert_int_eq(count_of(s, "<Data Name=\"h32[0]\">0xffffffff</Data>"), 1);
	ck_assert_int_eq(count_of(s, "<Data Name=\"h8[0]\">0xab</Data>"), 1);
	ck_assert_int_eq(count_of(s, "<Data Name=\"mixed[0]\">0xbeef</Data><Data Name=\"mixed[1]\">-1</Data>"
	                             "<Data Name=\"mixed[2]\">A</Data><Data Name=\"mixed[3]\">0xffffffff</Data>"), 1);
	tu_bytes_free(&m.b);
}
END_TEST

/* Value formatting (doc/decoding.md §6.2) and the JSON shape. */
START_TEST(test_output_json_values)
{
	struct built b;
	build_event(&b);
	struct mem m;
	memset(&m, 0, sizeof m);
	render_built("jsonl", &b, &b.dec, &m);
	ck_assert_int_eq(check_jsonl(&m.b, "jsonl"), 2);
	tu_putbytes(&m.b, "", 1);
	const char *line2 = strchr((const char *)m.b.p, '\n') + 1;
	ck_assert(strncmp((const char *)m.b.p, "null\n", 5) == 0);     /* no logfile header */
	struct jm_val *v = parse_json(line2, strlen(line2) - 1, "event");
	const struct jm_val *sys = jm_get(v, "System");
	ck_assert_ptr_nonnull(sys);
	ck_assert_str_eq(jm_str(jm_get(sys, "Provider"), "Guid"), "{11223344-5566-7788-99aa-bbccddeeff00}");
	ck_assert_str_eq(jm_str(jm_get(sys, "Provider"), "Name"), "My\x02Provider");
	ck_assert_int_eq(jm_int(sys, "EventID", -1), 7);
	ck_assert_int_eq(jm_int(sys, "Channel", -1), 16);
	ck_assert_str_eq(jm_str(sys, "Keywords"), "0x8000000000000001");
	ck_assert_str_eq(jm_str(sys, "TimeCreated"), "2020-02-17T12:48:30.4203138Z");
	ck_assert_str_eq(jm_str(sys, "UserID"), "S-1-5-18");
	ck_assert_int_eq(jm_int(jm_get(sys, "Execution"), "ProcessorID", -1), 3);
	const struct jm_val *d = jm_get(v, "EventData");
	ck_assert_ptr_nonnull(d);
	const struct jm_val *s0 = jm_get(d, nasty);    /* key: up to the NUL */
	(void)s0;
	ck_assert_str_eq(jm_str(d, "big"), "18446744073709551615");   /* > 2^53: string */
	ck_assert_int_eq(jm_int(d, "neg", 0), -42);
	ck_assert_str_eq(jm_str(d, "hex"), "0x80004005");
	ck_assert(jm_get(d, "flag")->type == JM_BOOL && jm_get(d, "flag")->b == 1);
	ck_assert(jm_get(d, "f32")->type == JM_NUM && jm_get(d, "f32")->num == 0.1);
	ck_assert_str_eq(jm_str(d, "nan"), "NaN");
	ck_assert_str_eq(jm_str(d, "ip"), "127.0.0.1");
	ck_assert_int_eq(jm_int(d, "port", 0), 80);
	ck_assert_str_eq(jm_str(d, "sid"), "S-1-5-32-544");
	ck_assert_str_eq(jm_str(d, "v6"), "::1");
	ck_assert_str_eq(jm_str(d, "sa4"), "10.0.0.1:443");
	ck_assert_str_eq(jm_str(d, "sa6"), "[::1]:80");
	ck_assert_str_eq(jm_str(d, "bin"), "00112233");
	ck_assert_str_eq(jm_str(d, "when"), "2020-02-17T12:48:30.4203138Z");
	ck_assert_str_eq(jm_str(d, "g"), "{11223344-5566-7788-99aa-bbccddeeff00}");
	const struct jm_val *st = jm_get(d, "s");
	ck_assert(st && st->type == JM_OBJ);
	ck_assert_str_eq(jm_str(st, "x"), "0xab");
	const struct jm_val *a = jm_get(d, "a");
	ck_assert(a && a->type == JM_ARR && a->len == 3 && a->items[2].i == 3);
	ck_assert_str_eq(jm_str(d, "ch"), "\xe2\x82\xac");
	ck_assert(jm_get(d, "b8")->type == JM_BOOL && jm_get(d, "b8")->b == 1);
	const struct jm_val *loop = jm_get(d, "loop");
	ck_assert(loop && loop->type == JM_OBJ && loop->len == 0);
	const struct jm_val *ri = jm_get(v, "RenderingInfo");
	ck_assert_str_eq(jm_str(ri, "Culture"), "en-US");
	ck_assert_str_eq(jm_str(ri, "Level"), "Information");
	ck_assert_str_eq(jm_str(ri, "EventName"), "Ev\xef\xbf\xbd");
	const struct jm_val *kw = jm_get(ri, "Keywords");
	ck_assert(kw && kw->type == JM_ARR && kw->len == 2);
	ck_assert_str_eq(kw->items[1].str, "Beta");
	jm_free(v);
	tu_bytes_free(&m.b);
}
END_TEST

/* An event that could not be decoded, or was not, keeps its payload in
 * hex with the reason, in every format. */
START_TEST(test_output_undecodable_kept)
{
	struct built b;
	build_event(&b);
	struct etl_decoded bad;
	memset(&bad, 0, sizeof bad);
	bad.status = ETL_FAILED;
	bad.errcode = ETL_E_UNSUPPORTED;
	bad.error = "no schema -- for this event-";
	static const char hex[] = "00112233445566778899AABBCCDDEEFF";
	for (size_t f = 0; f < N_FORMATS; f++) {
		for (int pass = 0; pass < 2; pass++) {
			struct mem m;
			memset(&m, 0, sizeof m);
			render_built(formats[f], &b, pass ? NULL : &bad, &m);
			check_wellformed(formats[f], &m.b, formats[f]);
			tu_putbytes(&m.b, "", 1);
			const char *s = (const char *)m.b.p;
			ck_assert_msg(strstr(s, hex) != NULL, "%s: no hex payload: %s", formats[f], s);
			const char *why = pass ? "The event was not decoded" : "no schema";
			ck_assert_msg(strstr(s, why) != NULL, "%s: no reason: %s", formats[f], s);
			if (strcmp(formats[f], "xml") == 0) {
				ck_assert_ptr_nonnull(strstr(s, pass ? "<ErrorCode>11</ErrorCode><DataItemName/><EventPayload>"
				                                     : "<ErrorCode>11</ErrorCode><DataItemName/><EventPayload>"));
				if (!pass)
					ck_assert_ptr_nonnull(strstr(s, "<!-- no schema - - for this event- -->"));
				ck_assert_ptr_null(strstr(s, "<EventData"));
			}
			if (strcmp(formats[f], "json") == 0) {
				struct jm_val *v = parse_json(s, m.b.len - 1, "json");
				const struct jm_val *e = &jm_get(v, "Events")->items[0];
				const struct jm_val *pe = jm_get(e, "ProcessingErrorData");
				ck_assert_ptr_nonnull(pe);
				ck_assert_int_eq(jm_int(pe, "ErrorCode", -1), 11);
				ck_assert_str_eq(jm_str(pe, "EventPayload"), hex);
				ck_assert_str_eq(jm_str(pe, "DataItemName"), "");
				ck_assert_ptr_nonnull(jm_str(pe, "Reason"));
				jm_free(v);
			}
			tu_bytes_free(&m.b);
		}
	}
}
END_TEST

/* Text and CSV name=value lists: quoting and flattened names. */
START_TEST(test_output_text_and_csv_lists)
{
	struct built b;
	build_event(&b);
	struct mem m;
	memset(&m, 0, sizeof m);
	render_built("text", &b, &b.dec, &m);
	tu_putbytes(&m.b, "", 1);
	const char *s = (const char *)m.b.p;
	ck_assert_ptr_nonnull(strstr(s, "2020-02-17T12:48:30.4203138Z  cpu=3   pid=4      tid=8      EVENT_HEADER64 "));
	ck_assert_ptr_nonnull(strstr(s, " id=7 "));
	ck_assert_ptr_nonnull(strstr(s, " big=18446744073709551615 neg=-42 hex=0x80004005 flag=true f32=0.1 nan=NaN"
	                                " ip=127.0.0.1 port=80 sid=S-1-5-32-544 v6=::1 sa4=10.0.0.1:443 sa6=[::1]:80"
	                                " bin=00112233 when=2020-02-17T12:48:30.4203138Z"
	                                " g={11223344-5566-7788-99aa-bbccddeeff00} s.x=0xab s.bad\\x01name\\xff=v"
	                                " a[0]=1 a[1]=2 a[2]=3 ch=\xe2\x82\xac b8=true\n"));
	ck_assert_ptr_nonnull(strstr(s, "  a\\x01b="
	                                "\"a\\x01b\\x00c\\x1fd\\t\\r\\n<&>\\\"'--\\xff\\xfex\\xc3y\\xed\\xa0\\x80\xef\xbf\xbe\\xc0\\x80\\x7f\xe2\x82\xac-\" big="));
	tu_bytes_free(&m.b);

	memset(&m, 0, sizeof m);
	render_built("csv", &b, &b.dec, &m);
	ck_assert_int_eq(check_csv(&m.b, "csv"), 2);
	tu_putbytes(&m.b, "", 1);
	s = (const char *)m.b.p;
	ck_assert(strncmp(s, "TimeCreated,ProviderName,ProviderGuid,EventID,Version,Level,Task,Opcode,"
	                     "Keywords,ProcessID,ThreadID,ProcessorID,HeaderType,PayloadSize,Properties\r\n", 142) == 0);
	ck_assert_ptr_nonnull(strstr(s, "\r\n2020-02-17T12:48:30.4203138Z,My\xe2\x90\x82Provider,"
	                                "{11223344-5566-7788-99aa-bbccddeeff00},7,1,4,9,2,0x8000000000000001,4,8,3,"
	                                "EVENT_HEADER64,16,\""));
	ck_assert_ptr_nonnull(strstr(s, "; big=18446744073709551615; neg=-42; "));
	ck_assert_ptr_nonnull(strstr(s, "; a[2]=3; ch=\xe2\x82\xac; b8=true\"\r\n"));
	tu_bytes_free(&m.b);
}
END_TEST

/* ---- the header event ---------------------------------------------------- */

static void make_lf(struct etl_logfile *lf)
{
	memset(lf, 0, sizeof *lf);
	lf->present = 1;
	lf->header_ptr_size = 8;
	lf->buffer_size = 65536;
	lf->version[0] = 10;
	lf->version[2] = 1;
	lf->version[3] = 5;
	lf->provider_version = 19041;
	lf->number_of_processors = 4;
	lf->start_time = 132264173104203138LL;
	lf->end_time = lf->start_time + 10000000;
	lf->log_file_mode = 0x8000001;
	lf->pointer_size = 8;
	lf->perf_freq = 10000000;
	lf->reserved_flags = 1;
	lf->logger_name = (char *)"session";
	lf->log_file_name = (char *)"C:\\t.etl";
	lf->header_timestamp = 1000;
	lf->file_offset = 0x48;
}

/* The logfile-header record given later than another event: the header
 * event comes from lf alone (no Execution) and the record is not written
 * again; a second header record (another input) is an ordinary event. */
START_TEST(test_output_header_from_lf)
{
	struct etl_logfile lf;
	make_lf(&lf);
	struct built b;
	build_event(&b);
	struct etl_event hdr;
	memset(&hdr, 0, sizeof hdr);
	hdr.kind = ETL_HDR_SYSTEM64;
	hdr.present = ETL_EVF_HOOKID | ETL_EVF_PID | ETL_EVF_TIMESTAMP | ETL_EVF_UTC;
	hdr.file_offset = 0x48;
	hdr.timestamp = 1000;
	hdr.utc = lf.start_time;
	hdr.pid = 77;
	struct etl_event other = hdr;     /* another input's: payload too short */
	other.timestamp = 5;
	other.pid = 78;
	uint8_t junk[8] = { 0 };
	other.payload = junk;
	other.payload_size = 8;
	other.ptr_size = 8;

	struct mem m;
	memset(&m, 0, sizeof m);
	etl_output *o = etl_output_new("jsonl", mem_write, &m);
	ck_assert_int_eq(etl_output_begin(o, &lf), ETL_OK);
	ck_assert_int_eq(etl_output_event(o, &b.ev, &b.dec), ETL_OK);
	ck_assert_int_eq(etl_output_event(o, &hdr, NULL), ETL_OK);       /* skipped */
	ck_assert_int_eq(etl_output_event(o, &other, NULL), ETL_OK);     /* written */
	ck_assert_int_eq(etl_output_end(o), ETL_OK);
	etl_output_free(o);
	ck_assert_int_eq(check_jsonl(&m.b, "jsonl"), 3);
	tu_putbytes(&m.b, "", 1);
	const char *s = (const char *)m.b.p;
	const char *nl = strchr(s, '\n');
	ck_assert(strstr(s, "\"SessionNameString\":\"session\"") < nl);
	ck_assert(strstr(s, "\"LogFileMode\":\"0x8000001\"") < nl);
	ck_assert(strstr(s, "\"Version\":83951626") < nl);
	ck_assert(strstr(s, "\"TimeCreated\":\"2020-02-17T12:48:30.4203138Z\"") < nl);
	ck_assert(strstr(s, "\"Execution\"") > nl);
	ck_assert_ptr_null(strstr(s, "\"ProcessID\":77"));
	ck_assert_ptr_nonnull(strstr(s, "\"ProcessID\":78"));
	const char *last = strrchr(s, '{') ? strstr(nl + 1, "\n") + 1 : NULL;
	ck_assert_ptr_nonnull(strstr(last, "\"ProcessingErrorData\""));
	ck_assert_ptr_nonnull(strstr(last, "\"Provider\":{\"Name\":\"EventTrace\",\"Guid\":\"{68fdd900-4a3e-11d1-84f4-0000f80464e3}\"}"));
	tu_bytes_free(&m.b);

	/* With no event at all, end() writes the header event. */
	memset(&m, 0, sizeof m);
	o = etl_output_new("json", mem_write, &m);
	ck_assert_int_eq(etl_output_begin(o, &lf), ETL_OK);
	ck_assert_int_eq(etl_output_end(o), ETL_OK);
	etl_output_free(o);
	struct jm_val *v = parse_json((const char *)m.b.p, m.b.len, "json");
	const struct jm_val *h = jm_get(v, "Header");
	ck_assert_str_eq(jm_str(jm_get(jm_get(h, "System"), "Provider"), "Guid"),
	                 "{68fdd900-4a3e-11d1-84f4-0000f80464e3}");
	ck_assert_int_eq(jm_int(jm_get(h, "EventData"), "PerfFreq", 0), 10000000);
	ck_assert_str_eq(jm_str(jm_get(h, "EventData"), "EndTime"), "2020-02-17T12:48:31.4203138Z");
	ck_assert_int_eq((long long)jm_get(v, "Events")->len, 0);
	jm_free(v);
	tu_bytes_free(&m.b);
}
END_TEST

/* ---- misuse and failures ---------------------------------------------------- */

START_TEST(test_output_misuse_and_sink_failure)
{
	struct mem m;
	memset(&m, 0, sizeof m);
	ck_assert_ptr_null(etl_output_new("yaml", mem_write, &m));
	ck_assert_ptr_null(etl_output_new("xml", NULL, &m));
	ck_assert_int_eq(etl_output_format_known("jsonl"), 1);
	ck_assert_int_eq(etl_output_format_known("XML"), 0);
	etl_output_free(NULL);

	struct built b;
	build_event(&b);
	etl_output *o = etl_output_new("text", mem_write, &m);
	ck_assert_int_eq(etl_output_event(o, &b.ev, NULL), ETL_FAILED);
	ck_assert_int_eq(etl_output_errcode(o), ETL_E_MISUSE);
	ck_assert_int_eq(etl_output_end(o), ETL_FAILED);
	ck_assert_int_eq(etl_output_begin(o, NULL), ETL_OK);
	ck_assert_int_eq(etl_output_begin(o, NULL), ETL_FAILED);
	ck_assert_int_eq(etl_output_event(o, NULL, NULL), ETL_FAILED);
	ck_assert_int_eq(etl_output_end(o), ETL_OK);
	ck_assert_int_eq(etl_output_end(o), ETL_FAILED);
	ck_assert_int_eq(etl_output_event(o, &b.ev, NULL), ETL_FAILED);
	etl_output_free(o);
	tu_bytes_free(&m.b);

	/* A sink that fails: ETL_FATAL with ETL_E_IO, then nothing more. */
	for (size_t f = 0; f < N_FORMATS; f++) {
		memset(&m, 0, sizeof m);
		m.fail_after = 1;
		o = etl_output_new(formats[f], mem_write, &m);
		int st = etl_output_begin(o, NULL);
		for (int i = 0; i < 200 && st == ETL_OK; i++)
			st = etl_output_event(o, &b.ev, &b.dec);
		if (st == ETL_OK)
			st = etl_output_end(o);
		ck_assert_msg(st == ETL_FATAL, "%s: a failing sink gave %d", formats[f], st);
		ck_assert_int_eq(etl_output_errcode(o), ETL_E_IO);
		ck_assert_msg(strstr(etl_output_errmsg(o), "Cannot write") != NULL, "%s", etl_output_errmsg(o));
		ck_assert_int_eq(etl_output_event(o, &b.ev, &b.dec), ETL_FATAL);
		ck_assert_int_eq(etl_output_end(o), ETL_FATAL);
		etl_output_free(o);
		tu_bytes_free(&m.b);
	}
}
END_TEST

/* Kernel and classic events are named as tracerpt names them (doc/decoding.md
 * §6.3): RenderingInfo EventName is the class, Opcode the opcode name,
 * Provider MSNT_SystemTrace; ExtendedTracingInfo holds the class GUID. The
 * header event is class EventTrace, opcode Header. */
START_TEST(test_output_kernel_naming)
{
	TU_NEED_CORPUS();
	char *path = tu_corpus_path("win7-classic-process-32.etl");
	struct mem m;
	memset(&m, 0, sizeof m);
	render_file(path, "jsonl", &m);
	tu_putbytes(&m.b, "", 1);
	const char *l1 = (const char *)m.b.p;
	const char *l2 = strchr(l1, '\n') + 1;
	const char *l3 = strchr(l2, '\n');
	struct jm_val *h = parse_json(l1, (size_t)(l2 - l1 - 1), "header");
	const struct jm_val *hr = jm_get(h, "RenderingInfo");
	ck_assert_str_eq(jm_str(hr, "EventName"), "EventTrace");
	ck_assert_str_eq(jm_str(hr, "Opcode"), "Header");
	ck_assert_str_eq(jm_str(hr, "Provider"), "MSNT_SystemTrace");
	ck_assert_str_eq(jm_str(jm_get(h, "ExtendedTracingInfo"), "EventGuid"),
	                 "{68fdd900-4a3e-11d1-84f4-0000f80464e3}");
	struct jm_val *v = parse_json(l2, (size_t)(l3 - l2), "process start");
	const struct jm_val *r = jm_get(v, "RenderingInfo");
	ck_assert_str_eq(jm_str(r, "EventName"), "Process");
	ck_assert_str_eq(jm_str(r, "Opcode"), "Start");
	ck_assert_str_eq(jm_str(r, "Provider"), "MSNT_SystemTrace");
	const struct jm_val *x = jm_get(v, "ExtendedTracingInfo");
	ck_assert_str_eq(jm_str(x, "EventGuid"), "{3d6fa8d0-fe05-11d0-9dda-00c04fd7ba7c}");
	ck_assert_ptr_null(jm_get(x, "InstanceID"));
	ck_assert_str_eq(jm_str(jm_get(v, "EventData"), "ImageFileName"), "notepad.exe");
	jm_free(h);
	jm_free(v);
	tu_bytes_free(&m.b);
	free(path);
}
END_TEST

/* An instance header's ids appear in ExtendedTracingInfo, in XML and
 * JSON; an EVENT_HEADER event has no ExtendedTracingInfo. */
START_TEST(test_output_instance_ids)
{
	struct built b;
	build_event(&b);
	struct mem m;
	memset(&m, 0, sizeof m);
	render_built("jsonl", &b, &b.dec, &m);
	tu_putbytes(&m.b, "", 1);
	ck_assert_ptr_null(strstr((const char *)m.b.p, "ExtendedTracingInfo"));
	tu_bytes_free(&m.b);

	b.ev.kind = ETL_HDR_INSTANCE64;
	b.ev.present |= ETL_EVF_INSTANCE;
	b.ev.instance_id = 77;
	b.ev.parent_instance_id = 5;
	b.ev.parent_guid = g_prov;
	memset(&m, 0, sizeof m);
	render_built("jsonl", &b, &b.dec, &m);
	tu_putbytes(&m.b, "", 1);
	const char *line2 = strchr((const char *)m.b.p, '\n') + 1;
	struct jm_val *v = parse_json(line2, strlen(line2) - 1, "instance event");
	const struct jm_val *x = jm_get(v, "ExtendedTracingInfo");
	ck_assert_str_eq(jm_str(x, "EventGuid"), "{11223344-5566-7788-99aa-bbccddeeff00}");
	ck_assert_int_eq(jm_int(x, "InstanceID", -1), 77);
	ck_assert_int_eq(jm_int(x, "ParentInstanceID", -1), 5);
	ck_assert_str_eq(jm_str(x, "ParentGuid"), "{11223344-5566-7788-99aa-bbccddeeff00}");
	jm_free(v);
	tu_bytes_free(&m.b);

	memset(&m, 0, sizeof m);
	render_built("xml", &b, &b.dec, &m);
	tu_putbytes(&m.b, "", 1);
	ck_assert_ptr_nonnull(strstr((const char *)m.b.p,
		"<ExtendedTracingInfo xmlns=\"http://schemas.microsoft.com/win/2004/08/events/trace\">"
		"<EventGuid>{11223344-5566-7788-99aa-bbccddeeff00}</EventGuid><InstanceID>77</InstanceID>"
		"<ParentInstanceID>5</ParentInstanceID><ParentGuid>{11223344-5566-7788-99aa-bbccddeeff00}</ParentGuid>"
		"</ExtendedTracingInfo></Event>"));
	tu_bytes_free(&m.b);
}
END_TEST

static Suite *output_suite(void)
{
	Suite *s = suite_create("output");
	TCase *tg = tcase_create("golden");
	tcase_set_timeout(tg, 120);
	tcase_add_loop_test(tg, test_output_golden_files, 0, (int)(N_GOLDEN * N_FORMATS));
	tcase_add_test(tg, test_output_header_event_once);
	tcase_add_test(tg, test_output_kernel_naming);
	suite_add_tcase(s, tg);
	TCase *tb = tcase_create("built");
	tcase_add_test(tb, test_output_nasty_strings_wellformed);
	tcase_add_test(tb, test_output_xml_replacements);
	tcase_add_test(tb, test_output_xml_top_names_repeat);
	tcase_add_test(tb, test_output_xml_int_arrays);
	tcase_add_test(tb, test_output_json_values);
	tcase_add_test(tb, test_output_undecodable_kept);
	tcase_add_test(tb, test_output_text_and_csv_lists);
	tcase_add_test(tb, test_output_header_from_lf);
	tcase_add_test(tb, test_output_misuse_and_sink_failure);
	tcase_add_test(tb, test_output_instance_ids);
	suite_add_tcase(s, tb);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(output_suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	xmlCleanupParser();
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
