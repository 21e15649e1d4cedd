/*
 * check_mof_file.c - classic events decoded with classes loaded from .mof
 * files (etl_decoder_add_mof(), lib/decode/mof_load.c, doc/decoding.md
 * §4.5).
 *
 * testdata/mof/features.mof declares one event type class for each kind of
 * property libetl reads; every test builds a payload for one of them by
 * hand and checks each decoded property (kind, in- and out-type, value,
 * map name). Then the version rules (declared, latest, fallback), the
 * class hierarchy across calls, and the failures: each names the file,
 * line, class and property.
 */
#define _POSIX_C_SOURCE 200809L

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "etl.h"
#include "etl_decode.h"
#include "testutil.h"

#define FEATURES "testdata/mof/features.mof"
#define FEATURE_GUID "a1b2c3d4-0002-4000-8000-000000000002"

static etl_decoder *features(void)
{
	etl_decoder *d = etl_decoder_new();
	ck_assert_ptr_nonnull(d);
	ck_assert_msg(etl_decoder_add_mof(d, FEATURES) == ETL_OK, "%s", etl_decoder_errmsg(d));
	return d;
}

/* Decodes a FULL_HEADER64 event (ptr 8) of the feature class. */
static const struct etl_decoded *decode(etl_decoder *d, uint8_t type, uint8_t version, int kind,
                                        const struct tu_bytes *pay)
{
	struct etl_event ev;
	memset(&ev, 0, sizeof ev);
	ev.kind = kind;
	ev.ptr_size = kind == ETL_HDR_FULL_HEADER32 ? 4 : 8;
	ev.provider = tu_guid(FEATURE_GUID);
	ev.opcode = type;
	ev.version = version;
	ev.payload = pay->p;
	ev.payload_size = (uint32_t)pay->len;
	const struct etl_decoded *r = NULL;
	int rc = etl_decoder_decode(d, &ev, &r);
	ck_assert_msg(rc == ETL_OK, "type %u v%u: %s", type, version, r && r->error ? r->error : "?");
	ck_assert_int_eq(r->source, ETL_DECODE_MOF);
	return r;
}

static const struct etl_prop *prop(const struct etl_decoded *r, uint32_t i, const char *name, int kind,
                                   unsigned in, unsigned out)
{
	ck_assert_uint_lt(i, r->n_props);
	const struct etl_prop *p = &r->props[i];
	ck_assert_str_eq(p->name, name);
	ck_assert_msg(p->kind == kind && p->in_type == in && p->out_type == out,
	              "%s: kind %d in %u out %u, want %d %u %u", name, p->kind, p->in_type, p->out_type, kind,
	              in, out);
	return p;
}

static void put_utf16(struct tu_bytes *b, const char *ascii, int nul)
{
	for (; *ascii; ascii++)
		tu_put16(b, (uint8_t)*ascii);
	if (nul)
		tu_put16(b, 0);
}

START_TEST(test_integers)
{
	etl_decoder *d = features();
	struct tu_bytes b;
	tu_bytes_init(&b);
	tu_put8(&b, 0x80);                                  /* S8  -128          */
	tu_put8(&b, 0xFF);                                  /* U8  255           */
	tu_put16(&b, 0x8000);                               /* S16 -32768        */
	tu_put16(&b, 0xBEEF);                               /* H16               */
	tu_put32(&b, 0x80000000u);                          /* S32 INT32_MIN     */
	tu_put32(&b, 0xDEADBEEFu);                          /* H32               */
	tu_put64(&b, 0x8000000000000000ull);                /* S64 INT64_MIN     */
	tu_put64(&b, UINT64_MAX);                           /* U64               */
	tu_put64(&b, 0x1122334455667788ull);                /* Ptr (8 bytes)     */
	tu_put32(&b, 1);                                    /* Flag              */
	float f = 1.5f;
	double g = -2.25;
	tu_putbytes(&b, &f, 4);
	tu_putbytes(&b, &g, 8);
	tu_put16(&b, 0x20AC);                               /* Wide: euro sign   */
	tu_put8(&b, 'A');                                   /* Narrow            */
	const struct etl_decoded *r = decode(d, 1, 1, ETL_HDR_FULL_HEADER64, &b);
	ck_assert_str_eq(r->provider_name, "Feature");
	ck_assert_str_eq(r->event_name, "Ints");
	ck_assert_str_eq(r->opcode_name, "Ints");
	ck_assert_uint_eq(r->n_props, 14);                  /* NotData has no WmiDataId */
	ck_assert_int_eq(prop(r, 0, "S8", ETL_VAL_INT, ETL_IN_INT8, 0)->v.i, -128);
	ck_assert_uint_eq(prop(r, 1, "U8", ETL_VAL_UINT, ETL_IN_UINT8, 0)->v.u, 255);
	ck_assert_int_eq(prop(r, 2, "S16", ETL_VAL_INT, ETL_IN_INT16, 0)->v.i, -32768);
	ck_assert_uint_eq(prop(r, 3, "H16", ETL_VAL_UINT, ETL_IN_UINT16, ETL_OUT_HEXINT16)->v.u, 0xBEEF);
	ck_assert_int_eq(prop(r, 4, "S32", ETL_VAL_INT, ETL_IN_INT32, 0)->v.i, INT32_MIN);
	ck_assert_uint_eq(prop(r, 5, "H32", ETL_VAL_UINT, ETL_IN_UINT32, ETL_OUT_HEXINT32)->v.u, 0xDEADBEEFu);
	ck_assert_int_eq(prop(r, 6, "S64", ETL_VAL_INT, ETL_IN_INT64, 0)->v.i, INT64_MIN);
	ck_assert_uint_eq(prop(r, 7, "U64", ETL_VAL_UINT, ETL_IN_UINT64, 0)->v.u, UINT64_MAX);
	ck_assert_uint_eq(prop(r, 8, "Ptr", ETL_VAL_UINT, ETL_IN_POINTER, 0)->v.u, 0x1122334455667788ull);
	ck_assert_uint_eq(prop(r, 9, "Flag", ETL_VAL_BOOL, ETL_IN_BOOLEAN, 0)->v.u, 1);
	ck_assert(prop(r, 10, "F32", ETL_VAL_FLOAT, ETL_IN_FLOAT, 0)->v.f == 1.5);
	ck_assert(prop(r, 11, "F64", ETL_VAL_FLOAT, ETL_IN_DOUBLE, 0)->v.f == -2.25);
	ck_assert_uint_eq(prop(r, 12, "Wide", ETL_VAL_UINT, ETL_IN_UINT16, ETL_OUT_STRING)->v.u, 0x20AC);
	ck_assert_uint_eq(prop(r, 13, "Narrow", ETL_VAL_UINT, ETL_IN_UINT8, ETL_OUT_STRING)->v.u, 'A');

	/* A 32-bit record: the pointer is 4 bytes. */
	struct tu_bytes b32;
	tu_bytes_init(&b32);
	tu_putbytes(&b32, b.p, 30);                         /* up to U64          */
	tu_put32(&b32, 0x11223344u);
	tu_putbytes(&b32, b.p + 38, b.len - 38);
	r = decode(d, 1, 1, ETL_HDR_FULL_HEADER32, &b32);
	ck_assert_uint_eq(prop(r, 8, "Ptr", ETL_VAL_UINT, ETL_IN_POINTER, 0)->v.u, 0x11223344u);
	ck_assert_uint_eq(prop(r, 13, "Narrow", ETL_VAL_UINT, ETL_IN_UINT8, ETL_OUT_STRING)->v.u, 'A');
	tu_bytes_free(&b32);
	tu_bytes_free(&b);
	etl_decoder_free(d);
}
END_TEST

START_TEST(test_strings)
{
	etl_decoder *d = features();
	struct tu_bytes b;
	tu_bytes_init(&b);
	put_utf16(&b, "wide", 1);
	tu_putbytes(&b, "abc\xE9", 5);                      /* CP1252, NUL-ended  */
	tu_put16(&b, 4);                                    /* Counted: 4 bytes   */
	put_utf16(&b, "hi", 0);
	tu_put8(&b, 0);                                     /* Reverse: BE 3      */
	tu_put8(&b, 3);
	tu_putbytes(&b, "xyz", 3);
	put_utf16(&b, "ab", 1);                             /* Fixed char16[4]    */
	tu_put16(&b, 0);
	tu_putbytes(&b, "q\0\0", 3);                        /* Chars uint8[3]     */
	put_utf16(&b, "end", 0);                            /* Rest: to the end   */
	for (uint8_t type = 2; type <= 3; type++) {
		const struct etl_decoded *r = decode(d, type, 1, ETL_HDR_INSTANCE64, &b);
		ck_assert_str_eq(r->event_name, type == 2 ? "Strings" : "StringsAgain");
		ck_assert_uint_eq(r->n_props, 7);
		static const struct {
			const char *name, *text;
			unsigned in;
		} want[] = {
			{ "Wide", "wide", ETL_IN_UNICODESTRING }, { "Ansi", "abc\xC3\xA9", ETL_IN_ANSISTRING },
			{ "Counted", "hi", ETL_IN_COUNTEDSTRING }, { "Reverse", "xyz", ETL_IN_ANSISTRING },
			{ "Fixed", "ab", ETL_IN_UNICODESTRING }, { "Chars", "q", ETL_IN_ANSISTRING },
			{ "Rest", "end", ETL_IN_UNICODESTRING },
		};
		for (uint32_t i = 0; i < 7; i++) {
			const struct etl_prop *p = prop(r, i, want[i].name, ETL_VAL_STRING, want[i].in, 0);
			ck_assert_uint_eq(p->v.str.len, strlen(want[i].text));
			ck_assert_msg(memcmp(p->v.str.s, want[i].text, p->v.str.len) == 0, "%s", want[i].name);
		}
	}
	tu_bytes_free(&b);
	etl_decoder_free(d);
}
END_TEST

START_TEST(test_objects)
{
	etl_decoder *d = features();
	struct etl_guid id = tu_guid("01234567-89ab-cdef-0123-456789abcdef");
	static const uint8_t v6[16] = { [15] = 1 };
	static const uint8_t sid[12] = { 1, 1, 0, 0, 0, 0, 0, 5, 18, 0, 0, 0 };
	struct tu_bytes b;
	tu_bytes_init(&b);
	tu_putguid(&b, &id);
	tu_putbytes(&b, "\xC0\xA8\x01\x02", 4);            /* 192.168.1.2        */
	tu_putbytes(&b, v6, 16);
	tu_putbytes(&b, "\x1F\x90", 2);                    /* port 8080, network order */
	tu_put64(&b, 4096);                                /* SizeT (8 bytes)    */
	tu_put64(&b, 0xFFFF8000DEAD0000ull);               /* TOKEN_USER         */
	tu_put64(&b, 0);
	tu_putbytes(&b, sid, sizeof sid);
	tu_put64(&b, 123456789);                           /* WmiTime            */
	tu_putguid(&b, &id);                               /* uint8[16] Guid     */
	const struct etl_decoded *r = decode(d, 4, 1, ETL_HDR_FULL_HEADER64, &b);
	ck_assert_uint_eq(r->n_props, 8);
	ck_assert(etl_guid_equal(&prop(r, 0, "Id", ETL_VAL_GUID, ETL_IN_GUID, 0)->v.guid, &id));
	ck_assert_uint_eq(prop(r, 1, "V4", ETL_VAL_UINT, ETL_IN_UINT32, ETL_OUT_IPV4)->v.u, 0x0201A8C0u);
	const struct etl_prop *p = prop(r, 2, "V6", ETL_VAL_BINARY, ETL_IN_BINARY, ETL_OUT_IPV6);
	ck_assert_uint_eq(p->v.bin.len, 16);
	ck_assert_uint_eq(prop(r, 3, "Port", ETL_VAL_UINT, ETL_IN_UINT16, ETL_OUT_PORT)->v.u, 0x901F);
	ck_assert_uint_eq(prop(r, 4, "Size", ETL_VAL_UINT, ETL_IN_UINT64, 0)->v.u, 4096);
	p = prop(r, 5, "User", ETL_VAL_SID, ETL_IN_SID, 0);
	ck_assert_uint_eq(p->v.bin.len, 12);
	ck_assert_mem_eq(p->v.bin.p, sid, 12);
	ck_assert_uint_eq(prop(r, 6, "Stamp", ETL_VAL_UINT, ETL_IN_UINT64, 0)->v.u, 123456789);
	ck_assert(etl_guid_equal(&prop(r, 7, "Legacy", ETL_VAL_GUID, ETL_IN_GUID, 0)->v.guid, &id));

	/* A 4-byte 0 for the SID: no SID. */
	struct tu_bytes n;
	tu_bytes_init(&n);
	tu_putbytes(&n, b.p, 16 + 4 + 16 + 2 + 8);
	tu_put32(&n, 0);
	tu_put64(&n, 1);
	tu_putguid(&n, &id);
	r = decode(d, 4, 1, ETL_HDR_FULL_HEADER64, &n);
	prop(r, 5, "User", ETL_VAL_NULL, ETL_IN_SID, 0);
	tu_bytes_free(&n);
	tu_bytes_free(&b);
	etl_decoder_free(d);
}
END_TEST

START_TEST(test_arrays_and_maps)
{
	etl_decoder *d = features();
	struct tu_bytes b;
	tu_bytes_init(&b);
	tu_put16(&b, 1);
	tu_put16(&b, 2);
	tu_put8(&b, 3);
	tu_put8(&b, 4);
	tu_put32(&b, 2);                                    /* Count              */
	tu_put32(&b, 0xFFFFFFFFu);
	tu_put32(&b, 7);
	put_utf16(&b, "a", 1);
	put_utf16(&b, "b", 1);
	const struct etl_decoded *r = decode(d, 5, 1, ETL_HDR_FULL_HEADER64, &b);
	uint32_t top[5], n = 0;
	for (uint32_t i = 0; i < r->n_props; i++)
		if (r->props[i].parent == ETL_PROP_NO_PARENT)
			top[n++] = i;
	ck_assert_uint_eq(n, 5);
	static const char *const names[5] = { "Fixed", "Max", "Count", "Items", "Names" };
	static const uint32_t counts[5] = { 2, 2, 0, 2, 2 };
	for (uint32_t k = 0; k < 5; k++) {
		const struct etl_prop *p = &r->props[top[k]];
		ck_assert_str_eq(p->name, names[k]);
		ck_assert_int_eq(p->kind, k == 2 ? ETL_VAL_UINT : ETL_VAL_ARRAY);
		ck_assert_uint_eq(p->n_children, counts[k]);
	}
	const struct etl_prop *items = &r->props[top[3]];
	ck_assert_int_eq(r->props[items->first_child].v.i, -1);
	ck_assert_int_eq(r->props[items->first_child + 1].v.i, 7);
	const struct etl_prop *strs = &r->props[top[4]];
	ck_assert_str_eq(r->props[strs->first_child + 1].v.str.s, "b");

	struct tu_bytes m;
	tu_bytes_init(&m);
	tu_put32(&m, 16);
	tu_put32(&m, 5);
	tu_put8(&m, 9);
	tu_put8(&m, 1);
	r = decode(d, 6, 1, ETL_HDR_FULL_HEADER64, &m);
	ck_assert_str_eq(prop(r, 0, "Index", ETL_VAL_UINT, ETL_IN_UINT32, 0)->map_name, "Sixteen");
	ck_assert_str_eq(prop(r, 1, "Flags", ETL_VAL_UINT, ETL_IN_UINT32, 0)->map_name, "A|C");
	ck_assert_str_eq(prop(r, 2, "Bits", ETL_VAL_UINT, ETL_IN_UINT8, 0)->map_name, "Low|High");
	ck_assert_str_eq(prop(r, 3, "Ordinal", ETL_VAL_UINT, ETL_IN_UINT8, 0)->map_name, "Second");
	tu_bytes_free(&m);
	tu_bytes_free(&b);
	etl_decoder_free(d);
}
END_TEST

START_TEST(test_versions)
{
	/* EventVersion(0) is declared; the class without one is version 1;
	 * version 7 falls back to 1, its extra bytes as ExtraData. */
	etl_decoder *d = features();
	struct tu_bytes b;
	tu_bytes_init(&b);
	tu_put32(&b, 42);
	const struct etl_decoded *r = decode(d, 1, 0, ETL_HDR_FULL_HEADER64, &b);
	ck_assert_str_eq(r->event_name, "Old");
	ck_assert_uint_eq(prop(r, 0, "Value", ETL_VAL_UINT, ETL_IN_UINT32, 0)->v.u, 42);

	struct tu_bytes s;
	tu_bytes_init(&s);
	tu_put32(&s, 1);                                    /* Maps: 10 bytes     */
	tu_put32(&s, 2);
	tu_put8(&s, 1);
	tu_put8(&s, 0);
	tu_putbytes(&s, "\x01\x02\x03", 3);                 /* a newer version's  */
	r = decode(d, 6, 7, ETL_HDR_FULL_HEADER64, &s);
	ck_assert_str_eq(r->event_name, "Maps");            /* v7 -> the latest, 1 */
	ck_assert_uint_eq(r->n_props, 5);
	const struct etl_prop *x = prop(r, 4, "ExtraData", ETL_VAL_BINARY, ETL_IN_BINARY, ETL_OUT_HEXBINARY);
	ck_assert_uint_eq(x->v.bin.len, 3);
	ck_assert_uint_eq(x->payload_offset, 10);
	/* The exact version ignores trailing bytes. */
	r = decode(d, 6, 1, ETL_HDR_FULL_HEADER64, &s);
	ck_assert_uint_eq(r->n_props, 4);

	/* No class for the type: the dispatcher's message. */
	struct etl_event ev;
	memset(&ev, 0, sizeof ev);
	ev.kind = ETL_HDR_FULL_HEADER64;
	ev.ptr_size = 8;
	ev.provider = tu_guid(FEATURE_GUID);
	ev.opcode = 99;
	const struct etl_decoded *res;
	ck_assert_int_eq(etl_decoder_decode(d, &ev, &res), ETL_FAILED);
	ck_assert_int_eq(res->errcode, ETL_E_UNSUPPORTED);
	ck_assert_str_eq(res->error, "no schema for this event: provider=" FEATURE_GUID ", id=0, version=0");
	tu_bytes_free(&s);
	tu_bytes_free(&b);
	etl_decoder_free(d);
}
END_TEST

/* Loads text as a file of that name; returns the status. */
static int load_text(etl_decoder *d, const char *dir, const char *name, const char *text)
{
	char path[256];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	tu_write_file(path, text, strlen(text));
	int rc = etl_decoder_add_mof(d, path);
	unlink(path);
	return rc;
}

START_TEST(test_parents_across_calls)
{
	char dir[] = "/tmp/check_mof_file.XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(dir));
	etl_decoder *d = etl_decoder_new();
	ck_assert_int_eq(load_text(d, dir, "prov.mof",
	                           "[Guid(\"{11111111-2222-3333-4444-555555555555}\")] class P : EventTrace {};\n"
	                           "[Guid(\"{11111111-2222-3333-4444-666666666666}\"), EventVersion(2)]\n"
	                           "class P_Ev : P {};\n"),
	                 ETL_OK);
	ck_assert_msg(load_text(d, dir, "events.mof",
	                        "[EventType(7), EventTypeName(\"Go\")] class P_Ev_Go : P_Ev\n"
	                        "{ [WmiDataId(1)] uint16 X; };\n") == ETL_OK,
	              "%s", etl_decoder_errmsg(d));
	struct tu_bytes b;
	tu_bytes_init(&b);
	tu_put16(&b, 9);
	struct etl_event ev;
	memset(&ev, 0, sizeof ev);
	ev.kind = ETL_HDR_INSTANCE32;
	ev.ptr_size = 4;
	ev.provider = tu_guid("11111111-2222-3333-4444-666666666666");
	ev.opcode = 7;
	ev.version = 2;
	ev.payload = b.p;
	ev.payload_size = (uint32_t)b.len;
	const struct etl_decoded *r;
	ck_assert_int_eq(etl_decoder_decode(d, &ev, &r), ETL_OK);
	ck_assert_str_eq(r->provider_name, "P_Ev");
	ck_assert_str_eq(r->event_name, "Go");
	ck_assert_uint_eq(r->props[0].v.u, 9);
	tu_bytes_free(&b);
	etl_decoder_free(d);
	rmdir(dir);
}
END_TEST

START_TEST(test_failures)
{
	static const struct {
		const char *text;
		const char *msg;            /* after "DIR/bad.mof:" */
	} cases[] = {
		{ "class A : EventTrace {\n  uint32 X\n};\n", "3: expected ';' after a property" },
		{ "[Guid(\"{x}\")] class A {};\n[EventType(1)] class B : A {};\n", "1: class A: Guid is not a GUID" },
		{ "[EventType(1)] class B : Nowhere { [WmiDataId(1)] uint8 X; };\n",
		  "1: class B: parent class Nowhere is not defined (and no Guid before it)" },
		{ "[Guid(\"{11111111-2222-3333-4444-555555555555}\"), EventType(1)] class B\n{\n"
		  "  [WmiDataId(1)] uint8 A;\n  [WmiDataId(2), WmiSizeIs(\"N\")] uint8 X[];\n};\n",
		  "4: class B, property X: WmiSizeIs(\"N\") does not name an earlier property" },
		{ "[Guid(\"{11111111-2222-3333-4444-555555555555}\"), EventType(1)] class B\n{\n"
		  "  [WmiDataId(1)] datetime When;\n};\n",
		  "3: class B, property When: type datetime is not supported in event data" },
		{ "[Guid(\"{11111111-2222-3333-4444-555555555555}\"), EventType(1)] class B\n{\n"
		  "  [WmiDataId(1)] uint8 A;\n  [WmiDataId(1)] uint8 C;\n};\n",
		  "4: class B, property C: WmiDataId(1) is also A's" },
		{ "[Guid(\"{11111111-2222-3333-4444-555555555555}\"), EventType(1)] class B\n{\n"
		  "  [WmiDataId(1)] uint8 A[];\n};\n",
		  "3: class B, property A: array without a size: give name[N], MAX(N) or WmiSizeIs(\"Count\")" },
		{ "/* open\n", "1: comment not closed" },
		{ "[Description(\"a\n\")] class A {};", "1: line break inside a string literal" },
		{ "instance of X { A = 1; }", "1: an instance declaration not ended by ';'" },
	};
	char dir[] = "/tmp/check_mof_file.XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(dir));
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		etl_decoder *d = etl_decoder_new();
		ck_assert_int_eq(load_text(d, dir, "bad.mof", cases[i].text), ETL_FAILED);
		ck_assert_int_eq(etl_decoder_errcode(d), ETL_E_BAD_VALUE);
		char want[512];
		snprintf(want, sizeof want, "%s/bad.mof:%s", dir, cases[i].msg);
		ck_assert_msg(strncmp(etl_decoder_errmsg(d), want, strlen(want)) == 0, "case %zu: \"%s\", want \"%s\"",
		              i, etl_decoder_errmsg(d), want);
		etl_decoder_free(d);
	}
	/* Files: missing, UTF-16, a directory without .mof files, NULL. */
	etl_decoder *d = etl_decoder_new();
	ck_assert_int_eq(etl_decoder_add_mof(d, "/nonexistent/x.mof"), ETL_FAILED);
	ck_assert_int_eq(etl_decoder_errcode(d), ETL_E_IO);
	ck_assert_int_eq(load_text(d, dir, "wide.mof", "\xFF\xFE" "c\0"), ETL_FAILED);
	ck_assert_msg(strstr(etl_decoder_errmsg(d), "UTF-16 text") != NULL, "%s", etl_decoder_errmsg(d));
	ck_assert_int_eq(etl_decoder_add_mof(d, dir), ETL_FAILED);
	ck_assert_int_eq(etl_decoder_errcode(d), ETL_E_NOT_FOUND);
	ck_assert_int_eq(etl_decoder_add_mof(d, NULL), ETL_FAILED);
	ck_assert_int_eq(etl_decoder_errcode(d), ETL_E_MISUSE);
	/* A failed call adds nothing: a later class cannot see its classes. */
	ck_assert_int_eq(load_text(d, dir, "half.mof",
	                           "[Guid(\"{11111111-2222-3333-4444-555555555555}\")] class H {};\n"
	                           "[EventType(1)] class H_E : H { [WmiDataId(1)] datetime D; };\n"),
	                 ETL_FAILED);
	ck_assert_int_eq(load_text(d, dir, "after.mof", "[EventType(2)] class H_F : H {};\n"), ETL_FAILED);
	ck_assert_msg(strstr(etl_decoder_errmsg(d), "parent class H is not defined") != NULL, "%s",
	              etl_decoder_errmsg(d));
	etl_decoder_free(d);
	rmdir(dir);
}
END_TEST

START_TEST(test_directory)
{
	/* A directory: every *.mof, in name order (the fuzz seeds). */
	etl_decoder *d = etl_decoder_new();
	ck_assert_msg(etl_decoder_add_mof(d, "fuzz/corpus/mof") == ETL_OK, "%s", etl_decoder_errmsg(d));
	struct tu_bytes b;
	tu_bytes_init(&b);
	tu_put32(&b, 1);
	tu_put32(&b, 2);
	struct etl_event ev;
	memset(&ev, 0, sizeof ev);
	ev.kind = ETL_HDR_FULL_HEADER64;
	ev.ptr_size = 8;
	ev.provider = tu_guid("6c1f7e2a-41d3-4b8e-9a51-0d3e7712a4c9");
	ev.opcode = 11;
	ev.version = 1;
	ev.payload = b.p;
	ev.payload_size = (uint32_t)b.len;
	const struct etl_decoded *r;
	ck_assert_int_eq(etl_decoder_decode(d, &ev, &r), ETL_OK);
	ck_assert_str_eq(r->event_name, "InstanceStep");
	ck_assert_str_eq(r->props[1].name, "Iteration");
	ck_assert_uint_eq(r->props[1].v.u, 2);
	tu_bytes_free(&b);
	etl_decoder_free(d);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("mof_file");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, test_integers);
	tcase_add_test(tc, test_strings);
	tcase_add_test(tc, test_objects);
	tcase_add_test(tc, test_arrays_and_maps);
	tcase_add_test(tc, test_versions);
	tcase_add_test(tc, test_parents_across_calls);
	tcase_add_test(tc, test_failures);
	tcase_add_test(tc, test_directory);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
