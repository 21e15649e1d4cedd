/*
 * check_golden_synth.c - golden files for small synthetic traces.
 *
 * The test builds one .etl file in memory with the public writer
 * (etl_writer_open_sink), every record written by hand from the specs:
 *
 *   - the logfile header (written by the writer; the tracerpt header event)
 *     and the writer's PartitionInfoExtension EventTrace record;
 *   - a TraceLogging event (EVENT_HEADER with PROV_TRAITS 0x0C and
 *     EVENT_SCHEMA_TL 0x0B items built byte by byte, doc/decoding.md §2):
 *     integers (hex and HRESULT out-types), a UTF-16 string holding control
 *     characters and XML specials, a UTF-8 string, a counted string, a GUID,
 *     a FILETIME, a BOOL32, a nested struct, a fixed (Ccount) and a variable
 *     (Vcount) array;
 *   - a manifest event decoded with testdata/synth/synth.man (value map, bit
 *     map, %n inserts in the message, so RenderingInfo appears; the string
 *     holds an ESC control character);
 *   - a kernel Process Start v4 event (SYSTEM64 header, HookId 0x0301) with
 *     a WBEMSID UserSID (doc/decoding.md §4.2-4.3);
 *   - two WPP MESSAGE events decoded with testdata/synth/synth.tmf (the
 *     standard prefix fields, doc/decoding.md §5);
 *   - an event of an unknown provider (hex payload and the reason).
 *
 * It reads the file back in time order, decodes every event and renders it
 * as xml, json, jsonl, csv and text, compared byte for byte with
 * testdata/golden/synth/synth.etl.<format>. Refresh after a deliberate
 * change (then review the diff):
 *
 *     ETL_UPDATE_GOLDEN=1 .build/tests/check_golden_synth
 *
 * The outputs are also parsed (libxml2, tests/json_mini.c) and the decoded
 * values are asserted one by one, so a golden file recorded from a wrong
 * decoder does not pass either.
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
#include "etl_writer.h"
#include "json_mini.h"
#include "testutil.h"

#define SYNTH_MAN "testdata/synth/synth.man"
#define SYNTH_TMF "testdata/synth/synth.tmf"

static const char *const formats[] = { "xml", "json", "jsonl", "csv", "text" };
#define N_FORMATS (sizeof formats / sizeof formats[0])

/* FILETIME of the session start: 2020-02-17T12:48:30.0000000Z. */
#define START_FT   132264173100000000LL
#define START_QPC  50000000LL          /* raw QPC at start, 10 MHz        */

/* ---- in-memory sink for the writer ---------------------------------------- */

struct wmem {
	uint8_t *p;
	size_t len, cap;
};

static int wmem_write(void *ctx, uint64_t off, const void *data, size_t n)
{
	struct wmem *m = ctx;
	size_t end = (size_t)off + n;
	if (end > m->cap) {
		size_t cap = m->cap ? m->cap : 65536;
		while (cap < end)
			cap *= 2;
		uint8_t *p = realloc(m->p, cap);
		if (!p)
			return -1;
		memset(p + m->cap, 0, cap - m->cap);
		m->p = p;
		m->cap = cap;
	}
	memcpy(m->p + off, data, n);
	if (end > m->len)
		m->len = end;
	return 0;
}

/* ---- building blocks ------------------------------------------------------- */

/* UTF-16LE of a UTF-8 string (BMP only), with the NUL unless counted. */
static void put_utf16(struct tu_bytes *b, const char *s, int nul)
{
	const uint8_t *p = (const uint8_t *)s;
	while (*p) {
		uint32_t c = *p++;
		if (c >= 0xE0) {
			c = (c & 0x0F) << 12 | (uint32_t)(p[0] & 0x3F) << 6 | (p[1] & 0x3F);
			p += 2;
		} else if (c >= 0xC0) {
			c = (c & 0x1F) << 6 | (p[0] & 0x3F);
			p += 1;
		}
		tu_put16(b, (uint16_t)c);
	}
	if (nul)
		tu_put16(b, 0);
}

static size_t utf16_units(const char *s)
{
	struct tu_bytes t;
	tu_bytes_init(&t);
	put_utf16(&t, s, 0);
	size_t n = t.len;
	tu_bytes_free(&t);
	return n;
}

/* One extended data item: u16 item size (8-aligned), u16 type, u16
 * linkage (bit 0: another item follows), u16 data size, data, padding. */
static void put_ext(struct tu_bytes *b, uint16_t type, const struct tu_bytes *data, int more)
{
	size_t size = (8 + data->len + 7) & ~(size_t)7;
	tu_put16(b, (uint16_t)size);
	tu_put16(b, type);
	tu_put16(b, more ? 1 : 0);
	tu_put16(b, (uint16_t)data->len);
	tu_putbytes(b, data->p, data->len);
	tu_putfill(b, 0, size - 8 - data->len);
}

/* TraceLogging field metadata (doc/decoding.md §2.4): name, InType byte (with
 * the chain bit when out >= 0), OutType byte. */
static void tl_field(struct tu_bytes *m, const char *name, uint8_t in, int out)
{
	tu_putbytes(m, name, strlen(name) + 1);
	tu_put8(m, (uint8_t)(out >= 0 ? in | 0x80 : in));
	if (out >= 0)
		tu_put8(m, (uint8_t)out);
}

/* The TraceLogging provider, named by its own name hash. */
#define TL_PROVIDER_NAME "Synth.TraceLogging"
/* Text of the UTF-16 field: a tab, the control characters U+0001 and
 * U+001F, XML specials and two non-ASCII letters. */
#define TL_WSTR "Gr\xc3\xbc\xc3\x9f" "e\tone\x01two\x1f <&> \"q\" 'a'"
#define TL_U8STR "caf\xc3\xa9 \xe2\x82\xac"

static void build_tl(struct etl_event *ev, struct tu_bytes *ext, struct tu_bytes *pay)
{
	struct tu_bytes traits, meta;
	tu_bytes_init(&traits);
	tu_bytes_init(&meta);

	/* Provider traits: u16 size, name, no traits. */
	tu_put16(&traits, 0);
	tu_putbytes(&traits, TL_PROVIDER_NAME, sizeof TL_PROVIDER_NAME);
	tu_set16(&traits, 0, (uint16_t)traits.len);

	/* Event metadata: u16 size, tags 0x00, name, fields. */
	tu_put16(&meta, 0);
	tu_put8(&meta, 0x00);
	tu_putbytes(&meta, "SynthEvent", sizeof "SynthEvent");
	tl_field(&meta, "Int32", 7, -1);                      /* INT32                */
	tl_field(&meta, "Hex64", 10, 4);                      /* UINT64, HEX          */
	tl_field(&meta, "Result", 7, 15);                     /* INT32, HRESULT       */
	tl_field(&meta, "Wide", 1, -1);                       /* UNICODESTRING        */
	tl_field(&meta, "Utf8", 2, 35);                       /* ANSISTRING, UTF8     */
	tl_field(&meta, "Counted", 22, -1);                   /* COUNTEDSTRING        */
	tl_field(&meta, "Id", 15, -1);                        /* GUID                 */
	tl_field(&meta, "When", 17, -1);                      /* FILETIME             */
	tl_field(&meta, "Ok", 13, -1);                        /* BOOL32               */
	tl_field(&meta, "Point", 24, 3);                      /* STRUCT of 3 fields   */
	tl_field(&meta, "X", 5, -1);                          /*   INT16              */
	tl_field(&meta, "Y", 5, -1);                          /*   INT16              */
	tl_field(&meta, "Tag", 24, 2);                        /*   STRUCT of 2 (counts as one) */
	tl_field(&meta, "Kind", 4, 4);                        /*     UINT8, HEX       */
	tl_field(&meta, "Name", 2, -1);                       /*     ANSISTRING (CP1252) */
	tl_field(&meta, "Fixed", 6 | 0x20, -1);               /* UINT16[3] Ccount     */
	tu_put16(&meta, 3);
	tl_field(&meta, "Var", 8 | 0x40, -1);                 /* UINT32[] Vcount      */
	tu_set16(&meta, 0, (uint16_t)meta.len);

	put_ext(ext, ETL_EXT_PROV_TRAITS, &traits, 1);
	put_ext(ext, ETL_EXT_EVENT_SCHEMA_TL, &meta, 0);
	tu_bytes_free(&traits);
	tu_bytes_free(&meta);

	tu_put32(pay, (uint32_t)-123456);                      /* Int32   */
	tu_put64(pay, 0x1122334455667788ull);                  /* Hex64   */
	tu_put32(pay, 0x80004005u);                            /* Result: E_FAIL */
	put_utf16(pay, TL_WSTR, 1);                            /* Wide    */
	tu_putbytes(pay, TL_U8STR, sizeof TL_U8STR);           /* Utf8    */
	tu_put16(pay, (uint16_t)utf16_units("ok!"));           /* Counted */
	put_utf16(pay, "ok!", 0);
	struct etl_guid g = tu_guid("01234567-89ab-cdef-0123-456789abcdef");
	tu_putguid(pay, &g);                                   /* Id      */
	tu_put64(pay, 132264173104203138ull);                  /* When    */
	tu_put32(pay, 1);                                      /* Ok      */
	tu_put16(pay, (uint16_t)-7);                           /* Point.X */
	tu_put16(pay, 300);                                    /* Point.Y */
	tu_put8(pay, 0xAB);                                    /* Point.Tag.Kind */
	tu_putbytes(pay, "x\x80y", 4);                        /* Point.Tag.Name: CP1252 0x80 = euro */
	tu_put16(pay, 1);                                      /* Fixed   */
	tu_put16(pay, 2);
	tu_put16(pay, 65535);
	tu_put16(pay, 2);                                      /* Var: 2  */
	tu_put32(pay, 10);
	tu_put32(pay, 4000000000u);

	memset(ev, 0, sizeof *ev);
	ev->kind = ETL_HDR_EVENT_HEADER64;
	ev->header_flags = 0x0001 | 0x0040;                    /* EXTENDED_INFO, 64_BIT_HEADER */
	ck_assert_int_eq(etl_provider_guid_from_name(TL_PROVIDER_NAME, &ev->provider), ETL_OK);
	ev->pid = 1200;
	ev->tid = 1204;
	ev->processor = 0;
	ev->channel = 11;
	ev->level = 5;
	ev->keyword = 0x0000400000000000ull;
	ev->timestamp = START_QPC + 1000;
	ev->kernel_time = 3;
	ev->user_time = 9;
	ev->ext = ext->p;
	ev->ext_size = (uint32_t)ext->len;
	ev->ext_count = 2;
	ev->payload = pay->p;
	ev->payload_size = (uint32_t)pay->len;
}

#define MAN_JOBNAME "nightly\x1b<build>"

static void build_manifest_event(struct etl_event *ev, struct tu_bytes *pay)
{
	tu_put32(pay, 1);                                      /* State: Running       */
	tu_put32(pay, 5);                                      /* Access: Read|Delete  */
	put_utf16(pay, MAN_JOBNAME, 1);                        /* JobName              */
	tu_put32(pay, 4242);                                   /* Owner                */
	memset(ev, 0, sizeof *ev);
	ev->kind = ETL_HDR_EVENT_HEADER64;
	ev->header_flags = 0x0040;
	ev->provider = tu_guid("5a5a5a5a-0001-4002-8003-000000000004");
	ev->id = 100;
	ev->version = 1;
	ev->channel = 16;
	ev->level = 4;
	ev->opcode = 1;
	ev->task = 7;
	ev->keyword = 0x10;
	ev->pid = 1200;
	ev->tid = 1208;
	ev->processor = 1;
	ev->timestamp = START_QPC + 2000;
	ev->kernel_time = 4;
	ev->user_time = 10;
	ev->activity_id = tu_guid("aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee");
	ev->payload = pay->p;
	ev->payload_size = (uint32_t)pay->len;
}

/* Process Start v4 (doc/decoding.md §4.3, lib/decode/mof_kernel_classes.c f_proc4). */
static void build_process(struct etl_event *ev, struct tu_bytes *pay)
{
	tu_put64(pay, 0xFFFFA00012345080ull);                 /* UniqueProcessKey     */
	tu_put32(pay, 4242);                                   /* ProcessId            */
	tu_put32(pay, 888);                                    /* ParentId             */
	tu_put32(pay, 1);                                      /* SessionId            */
	tu_put32(pay, 259);                                    /* ExitStatus           */
	tu_put64(pay, 0x1AD000);                               /* DirectoryTableBase   */
	tu_put32(pay, 0);                                      /* Flags                */
	tu_put64(pay, 0xFFFFB00000001000ull);                 /* UserSID: TOKEN_USER  */
	tu_put64(pay, 0);                                      /*  (Sid ptr, Attributes) */
	static const uint8_t sid[] = { 1, 5, 0, 0, 0, 0, 0, 5, 21, 0, 0, 0, 1, 0, 0, 0,
	                               2, 0, 0, 0, 3, 0, 0, 0, 0xE9, 3, 0, 0 };
	tu_putbytes(pay, sid, sizeof sid);                     /* S-1-5-21-1-2-3-1001  */
	tu_putbytes(pay, "synth.exe", 10);                     /* ImageFileName        */
	put_utf16(pay, "synth.exe --run \"a b\"", 1);          /* CommandLine          */
	put_utf16(pay, "", 1);                                 /* PackageFullName      */
	put_utf16(pay, "", 1);                                 /* ApplicationId        */
	memset(ev, 0, sizeof *ev);
	ev->kind = ETL_HDR_SYSTEM64;
	ev->hook_id = 0x0301;
	ev->version_word = 4;
	ev->version = 4;
	ev->pid = 888;
	ev->tid = 892;
	ev->processor = 0;
	ev->timestamp = START_QPC + 3000;
	ev->kernel_time = 20;
	ev->user_time = 1;
	ev->payload = pay->p;
	ev->payload_size = (uint32_t)pay->len;
}

#define WPP_GUID "6b8e2f10-7a3c-4d5e-9f01-23456789abcd"

static void build_wpp(struct etl_event *ev, uint16_t number, uint32_t seq, int64_t ts,
                      struct tu_bytes *pay)
{
	memset(ev, 0, sizeof *ev);
	ev->kind = ETL_HDR_MESSAGE;
	ev->header_flags = ETL_MSG_SEQUENCE | ETL_MSG_GUID | ETL_MSG_TIMESTAMP | ETL_MSG_SYSTEMINFO |
	                   ETL_MSG_POINTER64;
	ev->provider = tu_guid(WPP_GUID);
	ev->id = number;
	ev->sequence = seq;
	ev->pid = 0x4d2;
	ev->tid = 0x1a2b;
	ev->processor = 1;
	ev->timestamp = ts;
	ev->payload = pay->p;
	ev->payload_size = (uint32_t)pay->len;
}

static void build_unknown(struct etl_event *ev, struct tu_bytes *pay)
{
	static const uint8_t raw[] = { 0xde, 0xad, 0xbe, 0xef, 0x00, 0x7f };
	tu_putbytes(pay, raw, sizeof raw);
	memset(ev, 0, sizeof *ev);
	ev->kind = ETL_HDR_EVENT_HEADER64;
	ev->header_flags = 0x0040;
	ev->provider = tu_guid("0badf00d-0000-4000-8000-00000000c0de");
	ev->id = 5;
	ev->version = 2;
	ev->level = 2;
	ev->opcode = 10;
	ev->pid = 77;
	ev->tid = 78;
	ev->processor = 1;
	ev->timestamp = START_QPC + 9990000;
	ev->payload = pay->p;
	ev->payload_size = (uint32_t)pay->len;
}

/* Writes the synthetic trace; returns its bytes (free m->p). */
static void build_trace(struct wmem *m)
{
	struct etl_writer_options o;
	etl_writer_options_init(&o);
	o.buffer_size = 8192;
	o.pointer_size = 8;
	o.number_of_processors = 2;
	o.clock_type = ETL_CLOCK_QPC;
	o.perf_freq = 10000000;
	o.cpu_speed_mhz = 2995;
	o.start_time = START_FT;
	o.start_timestamp = START_QPC;
	o.boot_time = START_FT - 36000000000LL;                 /* one hour before */
	o.end_time = START_FT + 10000000LL;                     /* one second after */
	o.logger_name = "SynthSession";
	o.log_file_name = "C:\\traces\\synth.etl";
	o.version[0] = 10;
	o.build = 19045;
	o.header_pid = 4;
	o.header_tid = 8;
	memset(&o.time_zone, 0, sizeof o.time_zone);

	memset(m, 0, sizeof *m);
	etl_writer *w = etl_writer_new();
	ck_assert_ptr_nonnull(w);
	ck_assert_msg(etl_writer_open_sink(w, wmem_write, m, &o) == ETL_OK, "open: %s", etl_writer_errmsg(w));

	struct tu_bytes ext, p[7];
	tu_bytes_init(&ext);
	for (int i = 0; i < 7; i++)
		tu_bytes_init(&p[i]);
	struct etl_event ev;

	build_tl(&ev, &ext, &p[0]);
	ck_assert_msg(etl_writer_write_event(w, &ev) == ETL_OK, "tl: %s", etl_writer_errmsg(w));
	build_manifest_event(&ev, &p[1]);
	ck_assert_msg(etl_writer_write_event(w, &ev) == ETL_OK, "manifest: %s", etl_writer_errmsg(w));
	build_process(&ev, &p[2]);
	ck_assert_msg(etl_writer_write_event(w, &ev) == ETL_OK, "process: %s", etl_writer_errmsg(w));

	tu_putbytes(&p[3], "io", 3);                           /* name: ItemString      */
	tu_put32(&p[3], 3);                                    /* depth: ItemULong      */
	tu_put32(&p[3], 0xC0000001u);                          /* status: ItemNTSTATUS  */
	build_wpp(&ev, 10, 7, START_QPC + 1234000, &p[3]);   /* +123.4 ms */
	ck_assert_msg(etl_writer_write_event(w, &ev) == ETL_OK, "wpp: %s", etl_writer_errmsg(w));
	build_wpp(&ev, 11, 8, START_QPC + 9876543, &p[4]);   /* +987.6543 ms */
	ck_assert_msg(etl_writer_write_event(w, &ev) == ETL_OK, "wpp: %s", etl_writer_errmsg(w));

	build_unknown(&ev, &p[5]);
	ck_assert_msg(etl_writer_write_event(w, &ev) == ETL_OK, "unknown: %s", etl_writer_errmsg(w));

	ck_assert_msg(etl_writer_close(w) == ETL_OK, "close: %s", etl_writer_errmsg(w));
	etl_writer_free(w);
	tu_bytes_free(&ext);
	for (int i = 0; i < 7; i++)
		tu_bytes_free(&p[i]);
}

/* ---- rendering --------------------------------------------------------------- */

struct mem {
	struct tu_bytes b;
};

static int mem_write(void *ctx, const void *p, size_t n)
{
	tu_putbytes(&((struct mem *)ctx)->b, p, n);
	return 0;
}

/* Decodes and renders every event of the trace in fmt; *n_events counts
 * the events read. */
static void render(const struct wmem *trace, const char *fmt, struct mem *out, size_t *n_events)
{
	etl_reader *r = etl_reader_new();
	etl_decoder *d = etl_decoder_new();
	ck_assert_ptr_nonnull(r);
	ck_assert_ptr_nonnull(d);
	ck_assert_msg(etl_decoder_add_manifest(d, SYNTH_MAN) == ETL_OK, "%s", etl_decoder_errmsg(d));
	ck_assert_msg(etl_decoder_add_tmf(d, SYNTH_TMF) == ETL_OK, "%s", etl_decoder_errmsg(d));
	ck_assert_int_eq(etl_reader_open_memory(r, trace->p, trace->len), ETL_OK);
	etl_output *o = etl_output_new(fmt, mem_write, out);
	ck_assert_ptr_nonnull(o);
	ck_assert_int_eq(etl_output_begin(o, etl_reader_logfile(r)), ETL_OK);
	const struct etl_event *ev;
	int st;
	size_t n = 0;
	while ((st = etl_reader_next(r, &ev)) != ETL_END) {
		ck_assert_msg(st == ETL_OK, "reader: %s", etl_reader_errmsg(r));
		const struct etl_decoded *dec = NULL;
		ck_assert_int_ne(etl_decoder_decode(d, ev, &dec), ETL_FATAL);
		ck_assert_int_eq(etl_output_event(o, ev, dec), ETL_OK);
		n++;
	}
	ck_assert_int_eq(etl_output_end(o), ETL_OK);
	etl_output_free(o);
	etl_decoder_free(d);
	etl_reader_free(r);
	if (n_events)
		*n_events = n;
}

/* ---- the golden comparison ------------------------------------------------- */

START_TEST(test_synth_golden)
{
	const char *fmt = formats[_i];
	struct wmem trace;
	struct mem m;
	char gpath[512], what[128];
	size_t n;
	memset(&m, 0, sizeof m);
	build_trace(&trace);
	render(&trace, fmt, &m, &n);
	/* header record + PartitionInfoExtension + 7 events */
	ck_assert_uint_eq(n, 8);
	snprintf(gpath, sizeof gpath, "testdata/golden/synth/synth.etl.%s", fmt);
	snprintf(what, sizeof what, "synthetic trace as %s", fmt);
	tu_golden_check(gpath, m.b.p, m.b.len, what);
	tu_bytes_free(&m.b);
	free(trace.p);
}
END_TEST

/* The XML parses, has one <Event> per event (the header event included) and
 * carries the values and escapes the specs require. */
START_TEST(test_synth_xml)
{
	struct wmem trace;
	struct mem m;
	memset(&m, 0, sizeof m);
	build_trace(&trace);
	render(&trace, "xml", &m, NULL);
	xmlDocPtr doc = xmlReadMemory((const char *)m.b.p, (int)m.b.len, "synth.xml", NULL,
	                              XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
	ck_assert_msg(doc != NULL, "the XML output is not well-formed");
	xmlNodePtr root = xmlDocGetRootElement(doc);
	ck_assert_str_eq((const char *)root->name, "Events");
	int events = 0;
	for (xmlNodePtr c = root->children; c; c = c->next)
		if (c->type == XML_ELEMENT_NODE) {
			ck_assert_str_eq((const char *)c->name, "Event");
			events++;
		}
	ck_assert_int_eq(events, 8);           /* header event + 7 (the header record is not repeated) */
	xmlFreeDoc(doc);

	tu_putbytes(&m.b, "", 1);
	const char *s = (const char *)m.b.p;
	/* Control characters never appear raw (XML 1.0 cannot carry them). */
	for (const char *p = s; *p; p++)
		ck_assert_msg((unsigned char)*p >= 0x20 || *p == '\n' || *p == '\t' || *p == '\r',
		              "raw control character 0x%02x in the XML", (unsigned char)*p);
	ck_assert_ptr_nonnull(strstr(s, "&lt;&amp;&gt;"));
	ck_assert_ptr_nonnull(strstr(s, "<Data Name=\"Utf8\">caf\xc3\xa9 \xe2\x82\xac</Data>"));
	ck_assert_ptr_nonnull(strstr(s, "<Data Name=\"Hex64\">0x1122334455667788</Data>"));
	ck_assert_ptr_nonnull(strstr(s, "<Data Name=\"When\">2020-02-17T12:48:30.4203138Z</Data>"));
	ck_assert_ptr_nonnull(strstr(s, "<Data Name=\"ImageFileName\">synth.exe</Data>"));
	ck_assert_ptr_nonnull(strstr(s, "<Data Name=\"UserSID\">S-1-5-21-1-2-3-1001</Data>"));
	ck_assert_ptr_nonnull(strstr(s, "<EventPayload>DEADBEEF007F</EventPayload>"));
	ck_assert_ptr_nonnull(strstr(s, "<Data Name=\"SessionNameString\">SynthSession</Data>"));
	tu_bytes_free(&m.b);
	free(trace.p);
}
END_TEST

static const struct jm_val *event_data(const struct jm_val *e)
{
	const struct jm_val *d = jm_get(e, "EventData");
	ck_assert_ptr_nonnull(d);
	return d;
}

/* The JSON document parses; every value checked against what was written. */
START_TEST(test_synth_json_values)
{
	struct wmem trace;
	struct mem m;
	char err[256];
	memset(&m, 0, sizeof m);
	build_trace(&trace);
	render(&trace, "json", &m, NULL);
	struct jm_val *v = jm_parse((const char *)m.b.p, m.b.len, err, sizeof err);
	ck_assert_msg(v != NULL, "invalid JSON: %s", err);

	/* The header event: TRACE_LOGFILE_HEADER fields (doc/decoding.md §6.3). */
	const struct jm_val *h = jm_get(v, "Header");
	ck_assert_ptr_nonnull(h);
	const struct jm_val *hd = event_data(h);
	ck_assert_int_eq(jm_int(hd, "BufferSize", -1), 8192);
	ck_assert_int_eq(jm_int(hd, "NumberOfProcessors", -1), 2);
	ck_assert_int_eq(jm_int(hd, "ProviderVersion", -1), 19045);
	ck_assert_int_eq(jm_int(hd, "PointerSize", -1), 8);
	ck_assert_int_eq(jm_int(hd, "CPUSpeed", -1), 2995);
	ck_assert_int_eq(jm_int(hd, "PerfFreq", -1), 10000000);
	ck_assert_str_eq(jm_str(hd, "StartTime"), "2020-02-17T12:48:30.0000000Z");
	ck_assert_str_eq(jm_str(hd, "EndTime"), "2020-02-17T12:48:31.0000000Z");
	ck_assert_str_eq(jm_str(hd, "BootTime"), "2020-02-17T11:48:30.0000000Z");
	ck_assert_str_eq(jm_str(hd, "SessionNameString"), "SynthSession");
	ck_assert_str_eq(jm_str(hd, "LogFileNameString"), "C:\\traces\\synth.etl");

	const struct jm_val *evs = jm_get(v, "Events");
	ck_assert_ptr_nonnull(evs);
	ck_assert_int_eq(evs->type, JM_ARR);
	ck_assert_uint_eq(evs->len, 7);         /* PartitionInfoExtension + 6 */

	/* [1] TraceLogging: 100 ns after the start (1000 ticks at 10 MHz). */
	const struct jm_val *e = &evs->items[1];
	const struct jm_val *sys = jm_get(e, "System");
	ck_assert_str_eq(jm_str(jm_get(sys, "Provider"), "Name"), TL_PROVIDER_NAME);
	ck_assert_str_eq(jm_str(sys, "TimeCreated"), "2020-02-17T12:48:30.0001000Z");
	ck_assert_int_eq(jm_int(sys, "Channel", -1), 11);
	const struct jm_val *d = event_data(e);
	ck_assert_int_eq(jm_int(d, "Int32", 0), -123456);
	ck_assert_str_eq(jm_str(d, "Hex64"), "0x1122334455667788");
	ck_assert_str_eq(jm_str(d, "Result"), "0x80004005");
	const struct jm_val *w = jm_get(d, "Wide");
	ck_assert_ptr_nonnull(w);
	ck_assert_int_eq(w->type, JM_STR);
	ck_assert_uint_eq(w->len, strlen(TL_WSTR));
	ck_assert(memcmp(w->str, TL_WSTR, w->len) == 0);    /* \u0001 and \u001f round-trip */
	ck_assert_str_eq(jm_str(d, "Utf8"), TL_U8STR);
	ck_assert_str_eq(jm_str(d, "Counted"), "ok!");
	ck_assert_str_eq(jm_str(d, "Id"), "{01234567-89ab-cdef-0123-456789abcdef}");
	ck_assert_str_eq(jm_str(d, "When"), "2020-02-17T12:48:30.4203138Z");
	const struct jm_val *ok = jm_get(d, "Ok");
	ck_assert(ok && ok->type == JM_BOOL && ok->b == 1);
	const struct jm_val *pt = jm_get(d, "Point");
	ck_assert(pt && pt->type == JM_OBJ);
	ck_assert_int_eq(jm_int(pt, "X", 0), -7);
	ck_assert_int_eq(jm_int(pt, "Y", 0), 300);
	const struct jm_val *tag = jm_get(pt, "Tag");
	ck_assert(tag && tag->type == JM_OBJ && tag->len == 2);
	ck_assert_str_eq(jm_str(tag, "Kind"), "0xab");
	ck_assert_str_eq(jm_str(tag, "Name"), "x\xe2\x82\xacy");
	const struct jm_val *fx = jm_get(d, "Fixed");
	ck_assert(fx && fx->type == JM_ARR && fx->len == 3);
	ck_assert_int_eq(fx->items[0].i, 1);
	ck_assert_int_eq(fx->items[1].i, 2);
	ck_assert_int_eq(fx->items[2].i, 65535);
	const struct jm_val *va = jm_get(d, "Var");
	ck_assert(va && va->type == JM_ARR && va->len == 2);
	ck_assert_int_eq(va->items[0].i, 10);
	ck_assert_int_eq(va->items[1].i, 4000000000ll);

	/* [2] manifest event: names and the rendered message. */
	e = &evs->items[2];
	d = event_data(e);
	ck_assert_int_eq(jm_int(d, "State", -1), 1);
	ck_assert_int_eq(jm_int(d, "Access", -1), 5);
	ck_assert_str_eq(jm_str(d, "JobName"), MAN_JOBNAME);
	ck_assert_int_eq(jm_int(d, "Owner", -1), 4242);
	const struct jm_val *ri = jm_get(e, "RenderingInfo");
	ck_assert_ptr_nonnull(ri);
	ck_assert_str_eq(jm_str(ri, "Message"), "Job " MAN_JOBNAME " is Running (access Read|Delete)\nOwner: 4242");
	ck_assert_str_eq(jm_str(ri, "Task"), "Job");
	ck_assert_str_eq(jm_str(ri, "Opcode"), "Start");
	ck_assert_str_eq(jm_str(ri, "Level"), "Information");
	ck_assert_str_eq(jm_str(ri, "Channel"), "Synth-Manifest/Operational");
	ck_assert_str_eq(jm_str(ri, "Provider"), "Synth-Manifest");
	ck_assert_str_eq(jm_str(jm_get(jm_get(e, "System"), "Correlation"), "ActivityID"),
	                 "{aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee}");

	/* [3] Process Start v4. */
	e = &evs->items[3];
	d = event_data(e);
	ck_assert_str_eq(jm_str(d, "UniqueProcessKey"), "0xffffa00012345080");
	ck_assert_int_eq(jm_int(d, "ProcessId", -1), 4242);
	ck_assert_int_eq(jm_int(d, "ParentId", -1), 888);
	ck_assert_int_eq(jm_int(d, "SessionId", -1), 1);
	ck_assert_int_eq(jm_int(d, "ExitStatus", -1), 259);
	ck_assert_str_eq(jm_str(d, "DirectoryTableBase"), "0x1ad000");
	ck_assert_str_eq(jm_str(d, "UserSID"), "S-1-5-21-1-2-3-1001");
	ck_assert_str_eq(jm_str(d, "ImageFileName"), "synth.exe");
	ck_assert_str_eq(jm_str(d, "CommandLine"), "synth.exe --run \"a b\"");
	ck_assert_str_eq(jm_str(d, "PackageFullName"), "");
	sys = jm_get(e, "System");
	ck_assert_str_eq(jm_str(jm_get(sys, "Provider"), "Guid"), "{3d6fa8d0-fe05-11d0-9dda-00c04fd7ba7c}");
	ck_assert_int_eq(jm_int(sys, "Opcode", -1), 1);
	ck_assert_int_eq(jm_int(sys, "Version", -1), 4);

	/* [4] WPP message 10. */
	e = &evs->items[4];
	d = event_data(e);
	ck_assert_str_eq(jm_str(d, "name"), "io");
	ck_assert_int_eq(jm_int(d, "depth", -1), 3);
	ri = jm_get(e, "RenderingInfo");
	ck_assert_str_eq(jm_str(ri, "Message"),
	                 "Queue io depth=3 status=0xC0000001 [QueueInsert TRACE_LEVEL_WARNING QUEUE queue.c:42]");
	/* the standard prefix fields (TDH's WPP property names) and the
	 * default tracefmt prefix [CPU]PID.TID::time [component] */
	ck_assert_int_eq(jm_int(d, "SequenceNum", -1), 7);
	ck_assert_str_eq(jm_str(d, "FunctionName"), "QueueInsert");
	ck_assert_str_eq(jm_str(d, "ComponentName"), "synthdrv");
	ck_assert_str_eq(jm_str(d, "SubComponentName"), "io");
	ck_assert_str_eq(jm_str(d, "GuidTypeName"), "queue_c42");
	ck_assert_str_eq(jm_str(d, "FlagsName"), "QUEUE");
	ck_assert_str_eq(jm_str(d, "LevelName"), "TRACE_LEVEL_WARNING");
	ck_assert_str_eq(jm_str(d, "Prefix"), "[1]04D2.1A2B::02/17/2020-12:48:30.123 [synthdrv]");

	/* [5] WPP message 11: every prefix variable in the format string. */
	e = &evs->items[5];
	d = event_data(e);
	ck_assert_int_eq(jm_int(d, "SequenceNum", -1), 8);
	ck_assert_ptr_null(jm_get(d, "SubComponentName"));
	ck_assert_str_eq(jm_str(d, "Prefix"), "[1]04D2.1A2B::02/17/2020-12:48:30.987 [synthdrv]");
	ck_assert_str_eq(jm_str(jm_get(e, "RenderingInfo"), "Message"),
	                 "Prefix fields: comp=synthdrv src=queue_c77 tid=1A2B time=02/17/2020-12:48:30.987 "
	                 "seq=8 pid=04D2 cpu=1 synthdrv/");

	/* [6] the unknown provider: hex payload and the reason. */
	e = &evs->items[6];
	ck_assert_ptr_null(jm_get(e, "EventData"));
	const struct jm_val *pe = jm_get(e, "ProcessingErrorData");
	ck_assert_ptr_nonnull(pe);
	ck_assert_str_eq(jm_str(pe, "EventPayload"), "DEADBEEF007F");
	ck_assert_msg(strstr(jm_str(pe, "Reason"), "no schema for this event: provider=0badf00d-0000-4000-8000-00000000c0de, id=5, version=2"),
	              "%s", jm_str(pe, "Reason"));
	jm_free(v);
	tu_bytes_free(&m.b);
	free(trace.p);
}
END_TEST

/* JSON lines: one parsed object per line, the header first. */
START_TEST(test_synth_jsonl)
{
	struct wmem trace;
	struct mem m;
	char err[256];
	memset(&m, 0, sizeof m);
	build_trace(&trace);
	render(&trace, "jsonl", &m, NULL);
	size_t lines = 0, start = 0;
	for (size_t i = 0; i < m.b.len; i++) {
		if (m.b.p[i] != '\n')
			continue;
		struct jm_val *v = jm_parse((const char *)m.b.p + start, i - start, err, sizeof err);
		ck_assert_msg(v != NULL, "line %zu: %s", lines + 1, err);
		ck_assert_int_eq(v->type, JM_OBJ);
		if (lines == 0)
			ck_assert_str_eq(jm_str(event_data(v), "SessionNameString"), "SynthSession");
		jm_free(v);
		lines++;
		start = i + 1;
	}
	ck_assert_uint_eq(start, m.b.len);
	ck_assert_uint_eq(lines, 8);
	tu_bytes_free(&m.b);
	free(trace.p);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("golden_synth");
	TCase *tc = tcase_create("core");
	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, test_synth_golden, 0, (int)N_FORMATS);
	tcase_add_test(tc, test_synth_xml);
	tcase_add_test(tc, test_synth_json_values);
	tcase_add_test(tc, test_synth_jsonl);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int nf = srunner_ntests_failed(sr);
	srunner_free(sr);
	xmlCleanupParser();
	return nf == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
