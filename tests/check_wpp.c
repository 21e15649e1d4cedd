/*
 * check_wpp.c - WPP decoding (lib/decode/wpp_decode.c, doc/decoding.md §5):
 * testdata/tmf/test.tmf with hand-built MESSAGE events covering every
 * supported item type and the format-string conversions, unknown messages,
 * truncated argument blobs, TMF loader errors, the standard prefix fields
 * (%1..%9, %!FILE! %!LINE! %!COMPNAME! %!SUBCOMP!, the prefix properties,
 * testdata/synth/synth.tmf and in-memory TMF text), and the real WPP corpus file
 * (no TMF available: every MESSAGE record fails with ETL_E_UNSUPPORTED).
 */
#define ETL_BUILDING_LIB 1
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "etl.h"
#include "lib/decode/decode_internal.h"
#include "testutil.h"

#define TEST_TMF "testdata/tmf/test.tmf"
#define TEST_GUID "11112222-3333-4444-5555-666677778888"

static struct etl_event mkmsg(const char *guid, uint16_t number, uint8_t ptr_size, const void *pay, size_t n)
{
	struct etl_event ev;
	memset(&ev, 0, sizeof ev);
	ev.kind = ETL_HDR_MESSAGE;
	ev.header_type = 0x90;
	ev.ptr_size = ptr_size;
	ev.present = ETL_EVF_PROVIDER | ETL_EVF_PID | ETL_EVF_TIMESTAMP;
	ev.provider = tu_guid(guid);
	ev.id = number;
	ev.header_flags = ETL_MSG_GUID | ETL_MSG_TIMESTAMP | ETL_MSG_SYSTEMINFO |
	                  (ptr_size == 4 ? ETL_MSG_POINTER32 : ETL_MSG_POINTER64);
	ev.pid = 1234;
	ev.tid = 5678;
	ev.payload = pay;
	ev.payload_size = (uint32_t)n;
	return ev;
}

static etl_decoder *load_test(void)
{
	etl_decoder *d = etl_decoder_new();
	ck_assert_ptr_nonnull(d);
	int rc = etl_decoder_add_tmf(d, TEST_TMF);
	ck_assert_msg(rc == ETL_OK, "add_tmf: %s", etl_decoder_errmsg(d));
	return d;
}

static const struct etl_prop *prop(const struct etl_decoded *r, const char *name)
{
	for (uint32_t i = 0; i < r->n_props; i++)
		if (strcmp(r->props[i].name, name) == 0)
			return &r->props[i];
	ck_abort_msg("no property %s", name);
	return NULL;
}

static void build_ints(struct tu_bytes *b)
{
	tu_put32(b, (uint32_t)-5);
	tu_put32(b, 4000000000u);
	tu_put32(b, 0xBEEF);
	tu_put8(b, 'A');
	tu_put16(b, (uint16_t)-2);
	tu_put16(b, 65535);
	tu_put64(b, (uint64_t)-1234567890123ll);
	tu_put64(b, 0x123456789abcdef0ull);
	tu_put64(b, UINT64_MAX);
	tu_put8(b, 200);
}

START_TEST(test_integers)
{
	etl_decoder *d = load_test();
	struct tu_bytes b;
	tu_bytes_init(&b);
	build_ints(&b);
	struct etl_event ev = mkmsg(TEST_GUID, 10, 8, b.p, b.len);
	const struct etl_decoded *r;
	int rc = etl_decoder_decode(d, &ev, &r);
	ck_assert_msg(rc == ETL_OK, "decode: %s", r->error ? r->error : "");
	ck_assert_int_eq(r->source, ETL_DECODE_WPP);
	ck_assert_str_eq(r->message,
	                 "Ints -5 4000000000 beef A -2 65535 -1234567890123 123456789abcdef0 FFFFFFFFFFFFFFFF 200");
	ck_assert_str_eq(r->event_name, "DriverEntry");
	ck_assert_str_eq(r->provider_name, "wpptest");
	ck_assert_str_eq(r->level_name, "TRACE_LEVEL_INFORMATION");
	ck_assert_str_eq(r->keywords_name, "INIT");
	/* 10 arguments, then the prefix fields (no SequenceNum: no SEQUENCE
	 * flag; no SubComponentName: no SUBCOMP=) */
	ck_assert_uint_eq(r->n_props, 16);
	static const char *const pfx[6] = { "FunctionName", "ComponentName", "GuidTypeName",
	                                    "FlagsName", "LevelName", "Prefix" };
	static const char *const pfxv[6] = { "DriverEntry", "wpptest", "driver_c100", "INIT",
	                                     "TRACE_LEVEL_INFORMATION",
	                                     "[0]04D2.162E::0 [wpptest]" };  /* no UTC: raw time 0 */
	for (int i = 0; i < 6; i++) {
		const struct etl_prop *q = &r->props[10 + i];
		ck_assert_str_eq(q->name, pfx[i]);
		ck_assert_int_eq(q->kind, ETL_VAL_STRING);
		ck_assert_uint_eq(q->v.str.len, strlen(pfxv[i]));
		ck_assert(memcmp(q->v.str.s, pfxv[i], q->v.str.len) == 0);
		ck_assert_uint_eq(q->parent, ETL_PROP_NO_PARENT);
	}
	ck_assert_str_eq(r->props[0].name, "sl");
	ck_assert_int_eq(r->props[0].kind, ETL_VAL_INT);
	ck_assert_int_eq(r->props[0].v.i, -5);
	ck_assert_int_eq(r->props[0].in_type, ETL_IN_INT32);
	ck_assert_int_eq(prop(r, "ul")->v.u, 4000000000u);
	ck_assert_int_eq(prop(r, "ulx")->out_type, ETL_OUT_HEXINT32);
	ck_assert_int_eq(prop(r, "ch")->v.i, 65);
	ck_assert_int_eq(prop(r, "sh")->v.i, -2);
	ck_assert_int_eq(prop(r, "ll")->v.i, -1234567890123ll);
	ck_assert(prop(r, "ull")->v.u == UINT64_MAX);
	ck_assert_int_eq(prop(r, "uch")->v.u, 200);
	ck_assert_uint_eq(prop(r, "uch")->payload_offset, 41);

	/* truncated: the second argument does not fit */
	ev.payload_size = 6;
	rc = etl_decoder_decode(d, &ev, &r);
	ck_assert_int_eq(rc, ETL_FAILED);
	ck_assert_int_eq(r->errcode, ETL_E_TRUNCATED);
	ck_assert_msg(strstr(r->error, "\"ul\"") && strstr(r->error, "offset 4"), "%s", r->error);
	ck_assert_uint_eq(r->n_props, 0);
	/* truncated in the last argument */
	ev.payload_size = (uint32_t)b.len - 1;
	rc = etl_decoder_decode(d, &ev, &r);
	ck_assert_int_eq(rc, ETL_FAILED);
	ck_assert_int_eq(r->errcode, ETL_E_TRUNCATED);
	ck_assert_msg(strstr(r->error, "\"uch\""), "%s", r->error);
	/* trailing bytes are ignored */
	tu_put32(&b, 0);
	ev = mkmsg(TEST_GUID, 10, 8, b.p, b.len);
	ck_assert_int_eq(etl_decoder_decode(d, &ev, &r), ETL_OK);
	tu_bytes_free(&b);
	etl_decoder_free(d);
}
END_TEST

START_TEST(test_strings)
{
	etl_decoder *d = load_test();
	struct tu_bytes b;
	tu_bytes_init(&b);
	tu_putbytes(&b, "h\xe9llo", 6);     /* Latin-1 e-acute, NUL */
	tu_pututf16z(&b, "wide");
	tu_put16(&b, 3);
	tu_putbytes(&b, "abc", 3);
	tu_put16(&b, 4);
	tu_putbytes(&b, "x\0y\0", 4);
	tu_put8(&b, 0);
	struct etl_event ev = mkmsg(TEST_GUID, 11, 8, b.p, b.len);
	const struct etl_decoded *r;
	int rc = etl_decoder_decode(d, &ev, &r);
	ck_assert_msg(rc == ETL_OK, "decode: %s", r->error ? r->error : "");
	ck_assert_str_eq(r->message, "Strings a=h\xc3\xa9llo w=wide pa=abc pw=xy [      ]");
	ck_assert_str_eq(r->event_name, "Strings");
	ck_assert_int_eq(prop(r, "a")->kind, ETL_VAL_STRING);
	ck_assert_int_eq(prop(r, "a")->in_type, ETL_IN_ANSISTRING);
	ck_assert_int_eq(prop(r, "w")->in_type, ETL_IN_UNICODESTRING);
	ck_assert_int_eq(prop(r, "pa")->in_type, ETL_IN_COUNTEDANSISTRING);
	ck_assert_int_eq(prop(r, "pw")->in_type, ETL_IN_COUNTEDSTRING);
	ck_assert_uint_eq(prop(r, "e")->v.str.len, 0);

	/* a last string without its NUL is taken whole */
	ev.payload_size = (uint32_t)b.len - 1;
	struct tu_bytes c;
	tu_bytes_init(&c);
	tu_putbytes(&c, b.p, b.len - 1);
	tu_putbytes(&c, "end", 3);
	ev = mkmsg(TEST_GUID, 11, 8, c.p, c.len);
	ck_assert_int_eq(etl_decoder_decode(d, &ev, &r), ETL_OK);
	ck_assert_str_eq(r->message, "Strings a=h\xc3\xa9llo w=wide pa=abc pw=xy [end   ]");
	/* ... but one with no byte left is a truncation */
	ev = mkmsg(TEST_GUID, 11, 8, b.p, b.len - 1);
	ck_assert_int_eq(etl_decoder_decode(d, &ev, &r), ETL_FAILED);
	ck_assert_int_eq(r->errcode, ETL_E_TRUNCATED);
	ck_assert_msg(strstr(r->error, "\"e\""), "%s", r->error);
	/* a counted string longer than the blob */
	ev = mkmsg(TEST_GUID, 11, 8, b.p, 6 + 10 + 4);
	ck_assert_int_eq(etl_decoder_decode(d, &ev, &r), ETL_FAILED);
	ck_assert_int_eq(r->errcode, ETL_E_TRUNCATED);
	ck_assert_msg(strstr(r->error, "\"pa\""), "%s", r->error);
	tu_bytes_free(&b);
	tu_bytes_free(&c);
	etl_decoder_free(d);
}
END_TEST

static void build_misc(struct tu_bytes *b, int ptr_size)
{
	struct etl_guid g = tu_guid("01020304-0506-0708-090a-0b0c0d0e0f10");
	double dv = 3.14159;
	uint64_t du;
	memcpy(&du, &dv, sizeof du);
	if (ptr_size == 4)
		tu_put32(b, 0x12345678);
	else
		tu_put64(b, 0x12345678);
	tu_putguid(b, &g);
	tu_put32(b, 0xC0000005u);
	tu_put32(b, 0x80070005u);
	tu_put32(b, 5);
	tu_put64(b, du);
	tu_putbytes(b, "\xc0\xa8\x01\x14", 4);
	tu_putbytes(b, "\x01\xbb", 2);
}

START_TEST(test_misc)
{
	etl_decoder *d = load_test();
	const struct etl_decoded *r;
	for (int ps = 4; ps <= 8; ps += 4) {
		struct tu_bytes b;
		tu_bytes_init(&b);
		build_misc(&b, ps);
		struct etl_event ev = mkmsg(TEST_GUID, 12, (uint8_t)ps, b.p, b.len);
		int rc = etl_decoder_decode(d, &ev, &r);
		ck_assert_msg(rc == ETL_OK, "decode: %s", r->error ? r->error : "");
		char want[256];
		snprintf(want, sizeof want,
		         "Ptr %s guid 01020304-0506-0708-090a-0b0c0d0e0f10 st=0xC0000005 hr=80070005 err=5 "
		         "dbl=3.142 ip=192.168.1.20 port=443",
		         ps == 4 ? "12345678" : "0000000012345678");
		ck_assert_str_eq(r->message, want);
		ck_assert_int_eq(prop(r, "p")->in_type, ETL_IN_POINTER);
		ck_assert_int_eq(prop(r, "g")->kind, ETL_VAL_GUID);
		ck_assert_int_eq(prop(r, "st")->out_type, ETL_OUT_NTSTATUS);
		ck_assert_int_eq(prop(r, "hr")->out_type, ETL_OUT_HRESULT);
		ck_assert_int_eq(prop(r, "err")->out_type, ETL_OUT_WIN32ERROR);
		ck_assert_int_eq(prop(r, "dbl")->kind, ETL_VAL_FLOAT);
		ck_assert_int_eq(prop(r, "ip")->out_type, ETL_OUT_IPV4);
		ck_assert_int_eq(prop(r, "port")->v.u, 443);
		ck_assert_int_eq(prop(r, "port")->out_type, ETL_OUT_PORT);
		/* cut inside the GUID */
		ev.payload_size = (uint32_t)ps + 10;
		ck_assert_int_eq(etl_decoder_decode(d, &ev, &r), ETL_FAILED);
		ck_assert_int_eq(r->errcode, ETL_E_TRUNCATED);
		ck_assert_msg(strstr(r->error, "\"g\"") && strstr(r->error, "ItemGuid"), "%s", r->error);
		tu_bytes_free(&b);
	}
	etl_decoder_free(d);
}
END_TEST

START_TEST(test_lists_and_names)
{
	etl_decoder *d = load_test();
	const struct etl_decoded *r;
	uint8_t pay[9] = { 6, 0, 0, 0, 1, 7, 0, 0, 0 };
	struct etl_event ev = mkmsg(TEST_GUID, 13, 8, pay, sizeof pay);
	int rc = etl_decoder_decode(d, &ev, &r);
	ck_assert_msg(rc == ETL_OK, "decode: %s", r->error ? r->error : "");
	ck_assert_str_eq(r->message, "State Gone on=true en=7 100% Lists in wpptest");
	ck_assert_str_eq(prop(r, "state")->map_name, "Gone");
	ck_assert_str_eq(prop(r, "on")->map_name, "true");
	ck_assert_ptr_null(prop(r, "en")->map_name);
	pay[0] = 1;
	pay[4] = 0;
	ck_assert_int_eq(etl_decoder_decode(d, &ev, &r), ETL_OK);
	ck_assert_str_eq(r->message, "State Running on=false en=7 100% Lists in wpptest");
	pay[0] = 3;                         /* no name: the number */
	ck_assert_int_eq(etl_decoder_decode(d, &ev, &r), ETL_OK);
	ck_assert_str_eq(r->message, "State 3 on=false en=7 100% Lists in wpptest");

	/* no arguments, no FUNC: event_name is the file_line */
	ev = mkmsg(TEST_GUID, 14, 8, NULL, 0);
	ck_assert_int_eq(etl_decoder_decode(d, &ev, &r), ETL_OK);
	ck_assert_str_eq(r->message, "No arguments here");
	ck_assert_str_eq(r->event_name, "driver_c150");
	/* no argument, no comment: ComponentName, GuidTypeName, Prefix */
	ck_assert_uint_eq(r->n_props, 3);
	ck_assert_str_eq(r->props[0].name, "ComponentName");
	ck_assert_str_eq(r->props[1].name, "GuidTypeName");
	ck_assert(r->props[1].v.str.len == 11 && memcmp(r->props[1].v.str.s, "driver_c150", 11) == 0);
	ck_assert_str_eq(r->props[2].name, "Prefix");

	/* unknown number, unknown GUID, no GUID at all */
	ev = mkmsg(TEST_GUID, 99, 8, pay, sizeof pay);
	ck_assert_int_eq(etl_decoder_decode(d, &ev, &r), ETL_FAILED);
	ck_assert_int_eq(r->errcode, ETL_E_UNSUPPORTED);
	ck_assert_msg(strstr(r->error, "no schema for this event") && strstr(r->error, "id=99"), "%s", r->error);
	ev = mkmsg("11112222-3333-4444-5555-666677778889", 10, 8, pay, sizeof pay);
	ck_assert_int_eq(etl_decoder_decode(d, &ev, &r), ETL_FAILED);
	ck_assert_int_eq(r->errcode, ETL_E_UNSUPPORTED);
	ev = mkmsg(TEST_GUID, 13, 8, pay, sizeof pay);
	ev.present &= (uint16_t)~ETL_EVF_PROVIDER;
	ck_assert_int_eq(etl_decoder_decode(d, &ev, &r), ETL_FAILED);
	ck_assert_int_eq(r->errcode, ETL_E_UNSUPPORTED);
	etl_decoder_free(d);

	/* without any TMF */
	d = etl_decoder_new();
	ev = mkmsg(TEST_GUID, 13, 8, pay, sizeof pay);
	ck_assert_int_eq(etl_decoder_decode(d, &ev, &r), ETL_FAILED);
	ck_assert_int_eq(r->errcode, ETL_E_UNSUPPORTED);
	etl_decoder_free(d);
}
END_TEST

static void expect_error(const char *text, const char *want)
{
	etl_decoder *d = etl_decoder_new();
	int rc = etl__wpp_parse_tmf(d, "mem.tmf", text, strlen(text));
	ck_assert_msg(rc == ETL_FAILED, "accepted: %s", text);
	ck_assert_msg(strstr(etl_decoder_errmsg(d), want), "error '%s', expected '%s'", etl_decoder_errmsg(d), want);
	etl_decoder_free(d);
}

START_TEST(test_load_errors)
{
	const char *g = TEST_GUID " comp\n";
	char buf[512];
	expect_error("", "mem.tmf:0: no #typev");
	expect_error("#typev a 1 \"x\"\n", "mem.tmf:1: #typev before the message GUID");
	snprintf(buf, sizeof buf, "%s#typev a 1 \"x\"\n{\nv, ItemBogus -- 10\n}\n", g);
	expect_error(buf, "mem.tmf:4: unsupported item type 'ItemBogus'");
	snprintf(buf, sizeof buf, "%s#typev a 70000 \"x\"\n", g);
	expect_error(buf, "mem.tmf:2: invalid message number");
	snprintf(buf, sizeof buf, "%s#typev a 1 \"x\n", g);
	expect_error(buf, "mem.tmf:2: unterminated format");
	snprintf(buf, sizeof buf, "%s#typev a 1 \"x\"\n{\nv, ItemLong -- 10\n", g);
	expect_error(buf, "not closed");
	snprintf(buf, sizeof buf, "%s#typev a 1 \"x\"\n{\nv ItemLong 10\n}\n", g);
	expect_error(buf, "mem.tmf:4: argument without");
	snprintf(buf, sizeof buf, "%sgarbage here\n", g);
	expect_error(buf, "mem.tmf:2: unexpected line");
	expect_error("{\n", "mem.tmf:1: '{' without");

	etl_decoder *d = etl_decoder_new();
	ck_assert_int_eq(etl_decoder_add_tmf(d, "testdata/tmf/no-such.tmf"), ETL_FAILED);
	ck_assert_msg(strstr(etl_decoder_errmsg(d), "no-such.tmf"), "%s", etl_decoder_errmsg(d));
	/* a directory: every *.tmf in it */
	ck_assert_int_eq(etl_decoder_add_tmf(d, "testdata/tmf"), ETL_OK);
	etl_decoder_free(d);

	/* the first definition wins; CRLF lines, #enumv blocks, ItemEnum */
	d = etl_decoder_new();
	snprintf(buf, sizeof buf,
	         "%s#enumv _E\r\n{\r\nA = 1\r\n}\r\n#typev a 1 \"first %%10!d!\" // FUNC=f\r\n{\r\n"
	         "x, ItemLong -- 10\r\n}\r\n#typev b 1 \"second\"\r\n", g);
	ck_assert_int_eq(etl__wpp_parse_tmf(d, "mem.tmf", buf, strlen(buf)), ETL_OK);
	uint8_t pay[4] = { 7, 0, 0, 0 };
	struct etl_event ev = mkmsg(TEST_GUID, 1, 8, pay, sizeof pay);
	const struct etl_decoded *r;
	ck_assert_int_eq(etl_decoder_decode(d, &ev, &r), ETL_OK);
	ck_assert_str_eq(r->message, "first 7");
	etl_decoder_free(d);
}
END_TEST

static void assert_str_prop(const struct etl_decoded *r, const char *name, const char *want)
{
	const struct etl_prop *p = prop(r, name);
	ck_assert_int_eq(p->kind, ETL_VAL_STRING);
	ck_assert_msg(p->v.str.len == strlen(want) && memcmp(p->v.str.s, want, p->v.str.len) == 0,
	              "%s: '%.*s', expected '%s'", name, (int)p->v.str.len, p->v.str.s, want);
}

static int has_prop(const struct etl_decoded *r, const char *name)
{
	int n = 0;
	for (uint32_t i = 0; i < r->n_props; i++)
		n += strcmp(r->props[i].name, name) == 0;
	return n;
}

/* The standard prefix fields (doc/decoding.md §5.3, D-PFX, D-WPPX): %1..%9 in
 * format strings, %!FILE! %!LINE! %!COMPNAME! %!SUBCOMP!, and the prefix
 * properties after the arguments. */
START_TEST(test_prefix_fields)
{
	etl_decoder *d = etl_decoder_new();
	ck_assert_int_eq(etl_decoder_add_tmf(d, "testdata/synth/synth.tmf"), ETL_OK);
	const struct etl_decoded *r;

	/* message 11 uses every prefix variable; UTC and a sequence number */
	struct etl_event ev = mkmsg("6b8e2f10-7a3c-4d5e-9f01-23456789abcd", 11, 8, NULL, 0);
	ev.present |= ETL_EVF_UTC | ETL_EVF_SEQUENCE;
	ev.header_flags |= ETL_MSG_SEQUENCE;
	ev.utc = 132264173104203138LL;       /* 2020-02-17T12:48:30.4203138Z */
	ev.sequence = 99;
	ev.processor = 3;
	ck_assert_int_eq(etl_decoder_decode(d, &ev, &r), ETL_OK);
	ck_assert_str_eq(r->message, "Prefix fields: comp=synthdrv src=queue_c77 tid=162E "
	                             "time=02/17/2020-12:48:30.420 seq=99 pid=04D2 cpu=3 synthdrv/");
	ck_assert_uint_eq(r->n_props, 7);
	ck_assert_str_eq(r->props[0].name, "SequenceNum");
	ck_assert_int_eq(r->props[0].kind, ETL_VAL_UINT);
	ck_assert_int_eq(r->props[0].in_type, ETL_IN_UINT32);
	ck_assert_uint_eq(r->props[0].v.u, 99);
	assert_str_prop(r, "FunctionName", "QueueDump");
	assert_str_prop(r, "ComponentName", "synthdrv");
	assert_str_prop(r, "GuidTypeName", "queue_c77");
	assert_str_prop(r, "FlagsName", "QUEUE");
	assert_str_prop(r, "LevelName", "TRACE_LEVEL_VERBOSE");
	assert_str_prop(r, "Prefix", "[3]04D2.162E::02/17/2020-12:48:30.420 [synthdrv]");
	ck_assert_int_eq(has_prop(r, "SubComponentName"), 0);

	/* no UTC time: %4 is the raw timestamp; no sequence: no SequenceNum */
	ev = mkmsg("6b8e2f10-7a3c-4d5e-9f01-23456789abcd", 11, 4, NULL, 0);
	ev.timestamp = 123456789;
	ck_assert_int_eq(etl_decoder_decode(d, &ev, &r), ETL_OK);
	ck_assert_str_eq(r->message, "Prefix fields: comp=synthdrv src=queue_c77 tid=162E "
	                             "time=123456789 seq=0 pid=04D2 cpu=0 synthdrv/");
	assert_str_prop(r, "Prefix", "[0]04D2.162E::123456789 [synthdrv]");
	ck_assert_int_eq(has_prop(r, "SequenceNum"), 0);

	/* message 10: %!FILE! from the GUID line's SRC=, %!LINE! from the
	 * file_line, SUBCOMP= as SubComponentName */
	uint8_t pay[] = { 'q', 0, 5, 0, 0, 0, 0x22, 0, 0, 0xC0 };
	ev = mkmsg("6b8e2f10-7a3c-4d5e-9f01-23456789abcd", 10, 8, pay, sizeof pay);
	ck_assert_int_eq(etl_decoder_decode(d, &ev, &r), ETL_OK);
	ck_assert_str_eq(r->message, "Queue q depth=5 status=0xC0000022 [QueueInsert TRACE_LEVEL_WARNING QUEUE queue.c:42]");
	assert_str_prop(r, "SubComponentName", "io");
	etl_decoder_free(d);

	/* FILE=, LINE=, COMPNAME= and SUBCOMP= in the comment win; without them
	 * and without SRC= the tokens are empty; arguments named like a prefix
	 * property keep the name (the prefix property is left out). */
	d = etl_decoder_new();
	static const char tmf[] =
		"11112222-3333-4444-5555-666677778888 Comp\n"
		"#typev foo_c7 1 \"%0%!FILE!|%!LINE!|%!COMPNAME!|%!SUBCOMP!|%!LEVEL!|%2\" // FILE=other.c LINE=9 COMPNAME=Core SUBCOMP=Net\n"
		"#typev bar_cpp 2 \"%0[%!FILE!][%!LINE!][%!COMPNAME!]\"\n"
		"#typev x_c1 3 \"%0%10!d! %11!d!\" // LEVEL=L1 FUNC=F\n"
		"{\n"
		"Prefix, ItemLong -- 10\n"
		"LevelName, ItemLong -- 11\n"
		"}\n";
	ck_assert_int_eq(etl__wpp_parse_tmf(d, "mem.tmf", tmf, strlen(tmf)), ETL_OK);
	ev = mkmsg(TEST_GUID, 1, 8, NULL, 0);
	ck_assert_int_eq(etl_decoder_decode(d, &ev, &r), ETL_OK);
	ck_assert_str_eq(r->message, "other.c|9|Core|Net||foo_c7");
	assert_str_prop(r, "ComponentName", "Core");
	assert_str_prop(r, "SubComponentName", "Net");
	assert_str_prop(r, "Prefix", "[0]04D2.162E::0 [Comp]");   /* %1 is the GUID line's name */
	ev = mkmsg(TEST_GUID, 2, 8, NULL, 0);
	ck_assert_int_eq(etl_decoder_decode(d, &ev, &r), ETL_OK);
	ck_assert_str_eq(r->message, "[][][Comp]");
	uint8_t two[8] = { 1, 0, 0, 0, 2, 0, 0, 0 };
	ev = mkmsg(TEST_GUID, 3, 8, two, sizeof two);
	ck_assert_int_eq(etl_decoder_decode(d, &ev, &r), ETL_OK);
	ck_assert_str_eq(r->message, "1 2");
	ck_assert_uint_eq(r->n_props, 5);    /* Prefix, LevelName, FunctionName, ComponentName, GuidTypeName */
	ck_assert_str_eq(r->props[0].name, "Prefix");
	ck_assert_int_eq(r->props[0].v.i, 1);
	ck_assert_str_eq(r->props[1].name, "LevelName");
	ck_assert_int_eq(r->props[1].v.i, 2);
	ck_assert_int_eq(has_prop(r, "Prefix"), 1);
	ck_assert_int_eq(has_prop(r, "LevelName"), 1);
	assert_str_prop(r, "FunctionName", "F");
	etl_decoder_free(d);
}
END_TEST

/* %N!fmt! conversions: what reaches snprintf is always a well-formed
 * format (flags, width, precision, in that order; the rest up to the
 * conversion ignored) with the width and precision cut to
 * ETL_MSG_SPEC_MAX, so a TMF, manifest or trace cannot ask for gigabytes
 * of digits or seconds of padding (each of messages 2-4 took 9-41 s with
 * the numbers copied through; the test case's timeout would end them). */
START_TEST(test_format_specs)
{
	struct etl_msg_spec sp;
	etl__msg_spec(&sp, "2147483647d", 11);
	ck_assert_int_eq(sp.width, ETL_MSG_SPEC_MAX);
	ck_assert_int_eq(sp.prec, -1);
	ck_assert_int_eq(sp.conv, 'd');
	etl__msg_spec(&sp, "-0+ #-12.5I64x", 14);
	ck_assert_str_eq(sp.flags, "-0+ #");            /* each flag once */
	ck_assert_int_eq(sp.width, 12);
	ck_assert_int_eq(sp.prec, 5);
	ck_assert_int_eq(sp.conv, 'x');
	etl__msg_spec(&sp, "99999999999999999999.99999999999999999999f", 42);
	ck_assert_int_eq(sp.width, ETL_MSG_SPEC_MAX);
	ck_assert_int_eq(sp.prec, ETL_MSG_SPEC_MAX);
	etl__msg_spec(&sp, ".u", 2);
	ck_assert_int_eq(sp.prec, 0);
	ck_assert_int_eq(sp.conv, 'u');
	etl__msg_spec(&sp, "", 0);
	ck_assert_int_eq(sp.conv, 's');
	ck_assert_int_eq(sp.width, 0);
	ck_assert_int_eq(sp.prec, -1);
	ck_assert_str_eq(sp.flags, "");
	etl__msg_spec(&sp, "1-d", 3);                   /* "-" out of order: ignored */
	ck_assert_int_eq(sp.width, 1);
	ck_assert_str_eq(sp.flags, "");

	etl_decoder *d = etl_decoder_new();
	/* every message takes the same three arguments */
#define F_ARGS "{\nv, ItemLong -- 10\ns, ItemString -- 11\nf, ItemDouble -- 12\n}\n"
	static const char tmf[] =
		"11112222-3333-4444-5555-666677778888 Comp\n"
		"#typev f_c1 1 \"%0[%10!1-d!][%10!I64u!][%10!08I64x!][%11!1.2.3s!][%10!#5d!][%11!05s!][%10!-+5d!]\"\n"
		F_ARGS
		"#typev f_c2 2 \"%0%10!2147483647d!\"\n" F_ARGS
		"#typev f_c3 3 \"%0%12!.2147483647f!\"\n" F_ARGS
		"#typev f_c4 4 \"%0%11!.2147483647s!|%10!.2147483647d!\"\n" F_ARGS;
#undef F_ARGS
	ck_assert_int_eq(etl__wpp_parse_tmf(d, "mem.tmf", tmf, strlen(tmf)), ETL_OK);
	struct tu_bytes b;
	tu_bytes_init(&b);
	tu_put32(&b, 42);
	tu_put8(&b, 'a');
	tu_put8(&b, 'b');
	tu_put8(&b, 'c');
	tu_put8(&b, 0);
	tu_put64(&b, 0x3FF8000000000000ull);            /* 1.5 */
	const struct etl_decoded *r;
	struct etl_event ev = mkmsg(TEST_GUID, 1, 8, b.p, b.len);
	ck_assert_int_eq(etl_decoder_decode(d, &ev, &r), ETL_OK);
	/* '#' with d and '0' with s are undefined in C: dropped, as the C
	 * library ignores them */
	ck_assert_str_eq(r->message, "[42][42][0000002a][ab][   42][  abc][+42  ]");

	/* a field of 2^31 - 1: 1022 spaces and "42", cut at the 511 bytes an
	 * insert holds */
	ev = mkmsg(TEST_GUID, 2, 8, b.p, b.len);
	ck_assert_int_eq(etl_decoder_decode(d, &ev, &r), ETL_OK);
	ck_assert_uint_eq(strlen(r->message), 511);
	ck_assert_uint_eq(strspn(r->message, " "), 511);
	/* a precision of 2^31 - 1: "1.5" and zeros */
	ev = mkmsg(TEST_GUID, 3, 8, b.p, b.len);
	ck_assert_int_eq(etl_decoder_decode(d, &ev, &r), ETL_OK);
	ck_assert_uint_eq(strlen(r->message), 511);
	ck_assert(strncmp(r->message, "1.5", 3) == 0);
	ck_assert_uint_eq(strspn(r->message + 3, "0"), 508);
	ev = mkmsg(TEST_GUID, 4, 8, b.p, b.len);
	ck_assert_int_eq(etl_decoder_decode(d, &ev, &r), ETL_OK);
	ck_assert_uint_eq(strlen(r->message), 4 + 511);
	ck_assert(strncmp(r->message, "abc|", 4) == 0);
	ck_assert_uint_eq(strspn(r->message + 4, "0"), 511);
	tu_bytes_free(&b);
	etl_decoder_free(d);
}
END_TEST

START_TEST(test_corpus_no_tmf)
{
	TU_NEED_CORPUS();
	char *path = tu_corpus_path("onedrive-cldflt-wpp.etl");
	etl_reader *rd = etl_reader_new();
	etl_decoder *d = etl_decoder_new();
	ck_assert_int_eq(etl_reader_open_file(rd, path), ETL_OK);
	struct etl_guid mg = tu_guid("2818ef08-6a54-396f-2244-5a6ea4a98cf0");
	const struct etl_event *ev;
	int rc, n = 0;
	while ((rc = etl_reader_next(rd, &ev)) != ETL_END) {
		if (rc != ETL_OK && rc != ETL_WARN)
			continue;
		if (ev->kind != ETL_HDR_MESSAGE)
			continue;
		n++;
		ck_assert(etl_guid_equal(&ev->provider, &mg));
		ck_assert_uint_eq(ev->header_flags, 0xaa);
		const struct etl_decoded *r;
		ck_assert_int_eq(etl_decoder_decode(d, ev, &r), ETL_FAILED);
		ck_assert_int_eq(r->errcode, ETL_E_UNSUPPORTED);
		ck_assert_msg(strstr(r->error, "no schema for this event: provider=2818ef08"), "%s", r->error);
		ck_assert_uint_eq(r->n_props, 0);
		ck_assert_uint_gt(ev->payload_size, 0);
	}
	ck_assert_int_eq(n, 13);
	etl_decoder_free(d);
	etl_reader_free(rd);
	free(path);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("wpp");
	TCase *tc = tcase_create("core");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_integers);
	tcase_add_test(tc, test_strings);
	tcase_add_test(tc, test_misc);
	tcase_add_test(tc, test_lists_and_names);
	tcase_add_test(tc, test_load_errors);
	tcase_add_test(tc, test_prefix_fields);
	tcase_add_test(tc, test_format_specs);
	tcase_add_test(tc, test_corpus_no_tmf);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int nf = srunner_ntests_failed(sr);
	srunner_free(sr);
	return nf == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
