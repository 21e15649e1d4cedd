/*
 * check_decode.c - the payload decoder (include/etl_decode.h): provider name
 * hashing (doc/decoding.md §7), TraceLogging metadata and payloads built by hand
 * (§2), malformed input, the schema cache, and the TraceLogging events of the
 * real corpus, with values checked by hand against the bytes.
 */
#define ETL_BUILDING_LIB 1          /* for etl__decoder_schema_parses() */
#include <check.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etl.h"
#include "lib/decode/decode_internal.h"
#include "json_mini.h"
#include "testutil.h"

/* ------------------------------------------------------------------ */
/* building events by hand                                              */
/* ------------------------------------------------------------------ */

/* TraceLogging metadata, provider traits and payload under construction. */
struct tlb {
	struct tu_bytes meta;
	struct tu_bytes traits;
	struct tu_bytes pay;
	int no_traits;              /* leave the PROV_TRAITS item out          */
	int keep_meta_size;         /* do not patch the metadata's u16 size    */
	int keep_traits_size;
};

static void tlb_init_tags(struct tlb *b, const char *event, const uint8_t *tags, size_t ntags)
{
	memset(b, 0, sizeof *b);
	tu_bytes_init(&b->meta);
	tu_bytes_init(&b->traits);
	tu_bytes_init(&b->pay);
	tu_put16(&b->meta, 0);
	tu_putbytes(&b->meta, tags, ntags);
	tu_putbytes(&b->meta, event, strlen(event) + 1);
	tu_put16(&b->traits, 0);
	tu_putbytes(&b->traits, "TestProvider", sizeof "TestProvider");
}

static void tlb_init(struct tlb *b, const char *event)
{
	static const uint8_t no_tags[1] = { 0 };
	tlb_init_tags(b, event, no_tags, 1);
}

static void tlb_free(struct tlb *b)
{
	tu_bytes_free(&b->meta);
	tu_bytes_free(&b->traits);
	tu_bytes_free(&b->pay);
}

/* A field: name, in-type byte, then optional raw bytes (out-type, tags,
 * counts) appended by the caller. */
static void fld(struct tlb *b, const char *name, uint8_t in)
{
	tu_putbytes(&b->meta, name, strlen(name) + 1);
	tu_put8(&b->meta, in);
}

/* A field with an out-type (chain bit set). */
static void fld_out(struct tlb *b, const char *name, uint8_t in, uint8_t out)
{
	fld(b, name, (uint8_t)(in | 0x80));
	tu_put8(&b->meta, out);
}

static void pay_utf16z(struct tlb *b, const char *ascii)
{
	tu_pututf16z(&b->pay, ascii);
}

static void pay_str(struct tlb *b, const char *s)
{
	tu_putbytes(&b->pay, s, strlen(s) + 1);
}

/* An event built from a tlb: exact-size allocations so that ASan reports
 * any read past the extended items or the payload. */
struct tev {
	uint8_t *ext;
	uint8_t *pay;
	struct etl_event ev;
};

static const char *k_guid = "8e805eb3-6a8f-4a1e-90fa-a831d94e54a1";

static void put_item(struct tu_bytes *out, uint16_t type, const uint8_t *p, size_t n, int more)
{
	size_t size = 8 + n;
	size_t pad = (8 - size % 8) % 8;
	tu_put16(out, (uint16_t)(size + pad));
	tu_put16(out, type);
	tu_put16(out, (uint16_t)(more ? 1 : 0));
	tu_put16(out, (uint16_t)n);
	tu_putbytes(out, p, n);
	tu_putfill(out, 0, pad);
}

static void tev_make(struct tev *t, struct tlb *b, const char *guid)
{
	struct tu_bytes chain;
	if (!b->keep_meta_size)
		tu_set16(&b->meta, 0, (uint16_t)b->meta.len);
	if (!b->keep_traits_size)
		tu_set16(&b->traits, 0, (uint16_t)b->traits.len);
	tu_bytes_init(&chain);
	if (!b->no_traits)
		put_item(&chain, ETL_EXT_PROV_TRAITS, b->traits.p, b->traits.len, 1);
	put_item(&chain, ETL_EXT_EVENT_SCHEMA_TL, b->meta.p, b->meta.len, 0);
	memset(t, 0, sizeof *t);
	t->ext = malloc(chain.len);
	ck_assert(t->ext != NULL);
	memcpy(t->ext, chain.p, chain.len);
	t->pay = malloc(b->pay.len ? b->pay.len : 1);
	ck_assert(t->pay != NULL);
	if (b->pay.len)
		memcpy(t->pay, b->pay.p, b->pay.len);
	t->ev.kind = ETL_HDR_EVENT_HEADER64;
	t->ev.header_type = 0x13;
	t->ev.ptr_size = 8;
	t->ev.present = ETL_EVF_PROVIDER | ETL_EVF_DESCRIPTOR;
	t->ev.provider = tu_guid(guid ? guid : k_guid);
	t->ev.channel = 11;
	t->ev.level = 5;
	t->ev.header_flags = 0x0001 | 0x0040;
	t->ev.ext = t->ext;
	t->ev.ext_size = (uint32_t)chain.len;
	t->ev.ext_count = b->no_traits ? 1 : 2;
	t->ev.payload = t->pay;
	t->ev.payload_size = (uint32_t)b->pay.len;
	t->ev.record = t->ext;
	tu_bytes_free(&chain);
}

static void tev_free(struct tev *t)
{
	free(t->ext);
	free(t->pay);
	memset(t, 0, sizeof *t);
}

/* Decodes b (as an event of k_guid) with d; the event stays in *t. */
static int dec(etl_decoder *d, struct tlb *b, struct tev *t, const struct etl_decoded **out)
{
	tev_make(t, b, NULL);
	*out = NULL;
	int rc = etl_decoder_decode(d, &t->ev, out);
	ck_assert(*out != NULL);
	ck_assert_int_eq((*out)->status, rc);
	return rc;
}

/* Index of the top-level property called name. */
static uint32_t top(const struct etl_decoded *r, const char *name)
{
	for (uint32_t i = 0; i < r->n_props; i++)
		if (r->props[i].parent == ETL_PROP_NO_PARENT && strcmp(r->props[i].name, name) == 0)
			return i;
	ck_abort_msg("no top-level property %s", name);
	return 0;
}

static const struct etl_prop *topp(const struct etl_decoded *r, const char *name)
{
	return &r->props[top(r, name)];
}

static const struct etl_prop *child(const struct etl_decoded *r, const struct etl_prop *p, uint32_t k)
{
	ck_assert_uint_lt(k, p->n_children);
	const struct etl_prop *c = &r->props[p->first_child + k];
	ck_assert_uint_eq(c->parent, (uint32_t)(p - r->props));
	return c;
}

static void assert_str(const struct etl_prop *p, const char *want)
{
	ck_assert_int_eq(p->kind, ETL_VAL_STRING);
	ck_assert_msg(p->v.str.len == strlen(want) && memcmp(p->v.str.s, want, p->v.str.len) == 0,
	              "%s: got \"%.*s\" (%zu bytes), want \"%s\"", p->name, (int)p->v.str.len,
	              p->v.str.s ? p->v.str.s : "", p->v.str.len, want);
}

/* The tree invariants every successful result must keep. */
static void assert_tree(const struct etl_decoded *r)
{
	uint32_t ntop = 0;
	for (uint32_t i = 0; i < r->n_props; i++) {
		const struct etl_prop *p = &r->props[i];
		ck_assert(p->name != NULL);
		if (p->parent == ETL_PROP_NO_PARENT) {
			ck_assert_msg(i == ntop, "top-level property %u after a child", i);
			ntop++;
		} else {
			ck_assert_uint_lt(p->parent, i);
			const struct etl_prop *q = &r->props[p->parent];
			ck_assert(i >= q->first_child && i < q->first_child + q->n_children);
		}
		if (p->kind == ETL_VAL_STRUCT || p->kind == ETL_VAL_ARRAY) {
			for (uint32_t k = 0; k < p->n_children; k++) {
				ck_assert_uint_lt(p->first_child + k, r->n_props);
				ck_assert_uint_eq(r->props[p->first_child + k].parent, i);
			}
		}
	}
}

/* ------------------------------------------------------------------ */
/* name -> GUID                                                         */
/* ------------------------------------------------------------------ */

/* doc/decoding.md §7, every vector of the table. */
START_TEST(test_namehash_vectors)
{
	static const struct { const char *name, *guid; } v[] = {
		{ "MyProvider", "b3864c38-4273-58c5-545b-8b3608343471" },
		{ "MYPROVIDER", "b3864c38-4273-58c5-545b-8b3608343471" },
		{ "myprovider", "b3864c38-4273-58c5-545b-8b3608343471" },
		{ "TestProvider", "97c801ee-c28b-5bb6-2ae4-11e18fe6137a" },
		{ "MyProviderName", "b7aa4d18-240c-5f41-5852-817dbf477472" },
		{ "OtherProviderName", "8ec53ac6-09b4-535e-5d19-e499de8832b4" },
		{ "TestProviderC", "0da7a945-e9b1-510f-0ccf-ab1af0bc095b" },
		{ "MyCompany.MyComponent.MyProvider", "d5b90669-1aad-5db8-16c9-6286a7fcfe33" },
		{ "System.Runtime", "49592c0f-5a05-516d-aa4b-a64e02026c89" },
		{ "Microsoft-Diagnostics-DiagnosticSource", "adb401e1-5296-51f8-c125-5fda75826144" },
		{ "Microsoft-Extensions-Logging", "3ac73b97-af73-50e9-0822-5da4367920d0" },
		{ "sample", "73e5f193-d48c-5cd7-6eed-84fbce74000f" },
		{ "Caf\xc3\xa9", "99f70672-2dd0-5c54-15f1-e7c7098bfd73" },
		{ "", "4445ee6c-fd5a-5b15-047a-5866ffa76aa6" },
	};
	for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
		struct etl_guid g, want = tu_guid(v[i].guid);
		char s[ETL_GUID_STRLEN];
		ck_assert_int_eq(etl_provider_guid_from_name(v[i].name, &g), ETL_OK);
		ck_assert_msg(etl_guid_equal(&g, &want), "\"%s\": got %s, want %s", v[i].name,
		              etl_guid_format(&g, s), v[i].guid);
	}
}
END_TEST

/* The uppercasing rule of lib/common/namehash.c: lower and upper case of the
 * letters it covers hash alike; sharp s is left alone; bad UTF-8 fails. */
START_TEST(test_namehash_case_and_utf8)
{
	static const struct { const char *a, *b; } same[] = {
		{ "caf\xc3\xa9", "CAF\xc3\x89" },                   /* é / É */
		{ "\xc3\xbf", "\xc5\xb8" },                         /* ÿ / Ÿ */
		{ "\xc4\x81\xc5\x82", "\xc4\x80\xc5\x81" },         /* āł / ĀŁ */
		{ "\xce\xb1\xcf\x82", "\xce\x91\xce\xa3" },         /* ας / ΑΣ */
		{ "\xd0\xb6\xd1\x91", "\xd0\x96\xd0\x81" },         /* жё / ЖЁ */
	};
	struct etl_guid a, b;
	for (size_t i = 0; i < sizeof same / sizeof same[0]; i++) {
		ck_assert_int_eq(etl_provider_guid_from_name(same[i].a, &a), ETL_OK);
		ck_assert_int_eq(etl_provider_guid_from_name(same[i].b, &b), ETL_OK);
		ck_assert_msg(etl_guid_equal(&a, &b), "pair %zu hashes differently", i);
	}
	ck_assert_int_eq(etl_provider_guid_from_name("stra\xc3\x9f" "e", &a), ETL_OK);
	ck_assert_int_eq(etl_provider_guid_from_name("STRASSE", &b), ETL_OK);
	ck_assert(!etl_guid_equal(&a, &b));
	/* Version 5 nibble. */
	ck_assert_uint_eq(a.data3 >> 12, 5);
	/* Astral code points go in as surrogate pairs and still hash. */
	ck_assert_int_eq(etl_provider_guid_from_name("\xf0\x9f\x98\x80", &a), ETL_OK);

	static const char *bad[] = { "\xff", "a\xc0\x80", "\xed\xa0\x80", "\xe2\x82", "\xf4\x90\x80\x80",
	                             "\x80" };
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		ck_assert_int_eq(etl_provider_guid_from_name(bad[i], &a), ETL_FAILED);
	ck_assert_int_eq(etl_provider_guid_from_name(NULL, &a), ETL_FAILED);
	ck_assert_int_eq(etl_provider_guid_from_name("x", NULL), ETL_FAILED);
}
END_TEST

/* ------------------------------------------------------------------ */
/* hand-built TraceLogging                                              */
/* ------------------------------------------------------------------ */

/* Every in-type of §2.5 once, with its default out-type. */
START_TEST(test_tl_all_intypes)
{
	struct tlb b;
	struct tev t;
	const struct etl_decoded *r;
	etl_decoder *d = etl_decoder_new();
	ck_assert(d != NULL);

	tlb_init(&b, "AllTypes");
	fld(&b, "u16s", ETL_IN_UNICODESTRING);
	tu_putbytes(&b.pay, "h\0\xe9\0l\0l\0o\0\0\0", 12);          /* "héllo" */
	fld(&b, "ansi", ETL_IN_ANSISTRING);
	tu_putbytes(&b.pay, "caf\xe9 \x80\0", 7);                    /* CP1252 */
	fld(&b, "i8", ETL_IN_INT8);
	tu_put8(&b.pay, 0xFB);
	fld(&b, "u8", ETL_IN_UINT8);
	tu_put8(&b.pay, 0xFA);
	fld(&b, "i16", ETL_IN_INT16);
	tu_put16(&b.pay, (uint16_t)-300);
	fld(&b, "u16", ETL_IN_UINT16);
	tu_put16(&b.pay, 60000);
	fld(&b, "i32", ETL_IN_INT32);
	tu_put32(&b.pay, (uint32_t)-70000);
	fld(&b, "u32", ETL_IN_UINT32);
	tu_put32(&b.pay, 4000000000u);
	fld(&b, "i64", ETL_IN_INT64);
	tu_put64(&b.pay, (uint64_t)-5000000000000ll);
	fld(&b, "u64", ETL_IN_UINT64);
	tu_put64(&b.pay, 18000000000000000000ull);
	fld(&b, "flt", ETL_IN_FLOAT);
	tu_put32(&b.pay, 0x3FC00000u);                                /* 1.5f */
	fld(&b, "dbl", ETL_IN_DOUBLE);
	tu_put64(&b.pay, 0xC002000000000000ull);                      /* -2.25 */
	fld(&b, "b32", ETL_IN_BOOLEAN);
	tu_put32(&b.pay, 2);
	fld(&b, "b32f", ETL_IN_BOOLEAN);
	tu_put32(&b.pay, 0);
	fld(&b, "bin", ETL_IN_BINARY);
	tu_put16(&b.pay, 3);
	tu_putbytes(&b.pay, "\x01\x02\x03", 3);
	fld(&b, "guid", ETL_IN_GUID);
	struct etl_guid g = tu_guid("0ad614c4-0ef4-4225-8013-f44f37cb0397");
	tu_putguid(&b.pay, &g);
	fld(&b, "ft", ETL_IN_FILETIME);
	tu_put64(&b.pay, 132756731757990000ull);
	fld(&b, "st", ETL_IN_SYSTEMTIME);
	/* 2021-09-09 (Thursday) 14:59:35.799: the same instant as ft (the
	 * primitive-types corpus file logs both). */
	static const uint16_t st[8] = { 2021, 9, 4, 9, 14, 59, 35, 799 };
	for (int i = 0; i < 8; i++)
		tu_put16(&b.pay, st[i]);
	fld(&b, "sid", ETL_IN_SID);
	tu_putbytes(&b.pay, "\x01\x01\x00\x00\x00\x00\x00\x05\x12\x00\x00\x00", 12); /* S-1-5-18 */
	fld(&b, "h32", ETL_IN_HEXINT32);
	tu_put32(&b.pay, 0xDEADBEEFu);
	fld(&b, "h64", ETL_IN_HEXINT64);
	tu_put64(&b.pay, 0x1122334455667788ull);
	fld(&b, "cstr", ETL_IN_COUNTEDSTRING);
	tu_put16(&b.pay, 6);
	tu_putbytes(&b.pay, "a\0b\0c\0", 6);
	fld(&b, "castr", ETL_IN_COUNTEDANSISTRING);
	tu_put16(&b.pay, 4);
	tu_putbytes(&b.pay, "wxyz", 4);
	fld(&b, "cbin", ETL_IN_COUNTEDBINARY);
	tu_put16(&b.pay, 2);
	tu_putbytes(&b.pay, "\xff\x00", 2);
	fld(&b, "last", ETL_IN_UINT8);
	tu_put8(&b.pay, 0x42);

	ck_assert_int_eq(dec(d, &b, &t, &r), ETL_OK);
	ck_assert(r->error == NULL);
	ck_assert_int_eq(r->source, ETL_DECODE_TRACELOGGING);
	ck_assert_str_eq(r->provider_name, "TestProvider");
	ck_assert_str_eq(r->event_name, "AllTypes");
	ck_assert_uint_eq(r->tags, 0);
	ck_assert(r->level_name == NULL && r->opcode_name == NULL && r->keywords_name == NULL);
	ck_assert(r->task_name == NULL && r->channel_name == NULL && r->message == NULL);
	ck_assert_uint_eq(r->n_props, 25);
	assert_tree(r);

	const struct etl_prop *p = topp(r, "u16s");
	assert_str(p, "h\xc3\xa9llo");
	ck_assert_uint_eq(p->in_type, ETL_IN_UNICODESTRING);
	ck_assert_uint_eq(p->out_type, ETL_OUT_NULL);
	ck_assert_uint_eq(p->payload_offset, 0);
	assert_str(topp(r, "ansi"), "caf\xc3\xa9 \xe2\x82\xac");            /* "café €" */
	ck_assert_uint_eq(topp(r, "ansi")->payload_offset, 12);
	ck_assert_int_eq(topp(r, "i8")->kind, ETL_VAL_INT);
	ck_assert_int_eq(topp(r, "i8")->v.i, -5);
	ck_assert_uint_eq(topp(r, "i8")->payload_offset, 19);
	ck_assert_int_eq(topp(r, "u8")->kind, ETL_VAL_UINT);
	ck_assert_uint_eq(topp(r, "u8")->v.u, 250);
	ck_assert_int_eq(topp(r, "i16")->v.i, -300);
	ck_assert_uint_eq(topp(r, "u16")->v.u, 60000);
	ck_assert_int_eq(topp(r, "i32")->v.i, -70000);
	ck_assert_uint_eq(topp(r, "u32")->v.u, 4000000000u);
	ck_assert_int_eq(topp(r, "i64")->v.i, -5000000000000ll);
	ck_assert_uint_eq(topp(r, "u64")->v.u, 18000000000000000000ull);
	ck_assert_int_eq(topp(r, "flt")->kind, ETL_VAL_FLOAT);
	ck_assert(topp(r, "flt")->v.f == 1.5);
	ck_assert(topp(r, "dbl")->v.f == -2.25);
	ck_assert_int_eq(topp(r, "b32")->kind, ETL_VAL_BOOL);
	ck_assert_uint_eq(topp(r, "b32")->v.u, 1);
	ck_assert_uint_eq(topp(r, "b32f")->v.u, 0);
	p = topp(r, "bin");
	ck_assert_int_eq(p->kind, ETL_VAL_BINARY);
	ck_assert_uint_eq(p->v.bin.len, 3);
	ck_assert(memcmp(p->v.bin.p, "\x01\x02\x03", 3) == 0);
	ck_assert(p->v.bin.p == t.pay + p->payload_offset + 2);
	p = topp(r, "guid");
	ck_assert_int_eq(p->kind, ETL_VAL_GUID);
	ck_assert(etl_guid_equal(&p->v.guid, &g));
	ck_assert_int_eq(topp(r, "ft")->kind, ETL_VAL_FILETIME);
	ck_assert_int_eq(topp(r, "ft")->v.i, 132756731757990000ll);
	ck_assert_int_eq(topp(r, "st")->kind, ETL_VAL_FILETIME);
	ck_assert_uint_eq(topp(r, "st")->in_type, ETL_IN_SYSTEMTIME);
	ck_assert_int_eq(topp(r, "st")->v.i, 132756731757990000ll);
	p = topp(r, "sid");
	ck_assert_int_eq(p->kind, ETL_VAL_SID);
	ck_assert_uint_eq(p->v.bin.len, 12);
	ck_assert_uint_eq(p->v.bin.p[8], 0x12);
	p = topp(r, "h32");
	ck_assert_int_eq(p->kind, ETL_VAL_UINT);
	ck_assert_uint_eq(p->v.u, 0xDEADBEEFu);
	ck_assert_uint_eq(p->out_type, ETL_OUT_HEXINT32);
	p = topp(r, "h64");
	ck_assert_uint_eq(p->v.u, 0x1122334455667788ull);
	ck_assert_uint_eq(p->out_type, ETL_OUT_HEXINT64);
	assert_str(topp(r, "cstr"), "abc");
	assert_str(topp(r, "castr"), "wxyz");
	p = topp(r, "cbin");
	ck_assert_int_eq(p->kind, ETL_VAL_BINARY);
	ck_assert_uint_eq(p->in_type, ETL_IN_COUNTEDBINARY);
	ck_assert_uint_eq(p->v.bin.len, 2);
	ck_assert_uint_eq(p->v.bin.p[0], 0xFF);
	ck_assert_uint_eq(topp(r, "last")->v.u, 0x42);
	ck_assert_uint_eq(topp(r, "last")->payload_offset, b.pay.len - 1);

	tev_free(&t);
	tlb_free(&b);
	etl_decoder_free(d);
}
END_TEST

/* TlgOut values map to TDH out-types (§2.6) and change the value kind where
 * etl_decode.h says so. */
START_TEST(test_tl_out_types)
{
	static const struct {
		const char *name;
		uint8_t in, tlo;
		unsigned size;              /* payload bytes (integers)  */
		uint16_t want;
		int kind;
	} v[] = {
		{ "hex8", ETL_IN_UINT8, 4, 1, ETL_OUT_HEXINT8, ETL_VAL_UINT },
		{ "hex16", ETL_IN_INT16, 4, 2, ETL_OUT_HEXINT16, ETL_VAL_INT },
		{ "hex32", ETL_IN_UINT32, 4, 4, ETL_OUT_HEXINT32, ETL_VAL_UINT },
		{ "hex64", ETL_IN_UINT64, 4, 8, ETL_OUT_HEXINT64, ETL_VAL_UINT },
		{ "pid", ETL_IN_UINT32, 5, 4, ETL_OUT_PID, ETL_VAL_UINT },
		{ "tid", ETL_IN_UINT32, 6, 4, ETL_OUT_TID, ETL_VAL_UINT },
		{ "port", ETL_IN_UINT16, 7, 2, ETL_OUT_PORT, ETL_VAL_UINT },
		{ "ipv4", ETL_IN_UINT32, 8, 4, ETL_OUT_IPV4, ETL_VAL_UINT },
		{ "w32", ETL_IN_UINT32, 13, 4, ETL_OUT_WIN32ERROR, ETL_VAL_UINT },
		{ "nt", ETL_IN_UINT32, 14, 4, ETL_OUT_NTSTATUS, ETL_VAL_UINT },
		{ "hr", ETL_IN_INT32, 15, 4, ETL_OUT_HRESULT, ETL_VAL_INT },
		{ "ft", ETL_IN_UINT64, 16, 8, ETL_OUT_DATETIME, ETL_VAL_FILETIME },
		{ "sgn", ETL_IN_UINT32, 17, 4, ETL_OUT_INT, ETL_VAL_UINT },
		{ "uns", ETL_IN_INT8, 18, 1, ETL_OUT_UNSIGNEDBYTE, ETL_VAL_INT },
		{ "bool8", ETL_IN_UINT8, 3, 1, ETL_OUT_BOOLEAN, ETL_VAL_BOOL },
		{ "chr", ETL_IN_UINT8, 2, 1, ETL_OUT_STRING, ETL_VAL_UINT },
		{ "noprint", ETL_IN_UINT32, 1, 4, ETL_OUT_NOPRINT, ETL_VAL_UINT },
		{ "codeptr", ETL_IN_UINT64, 37, 8, ETL_OUT_CODE_POINTER, ETL_VAL_UINT },
		{ "ftutc", ETL_IN_FILETIME, 38, 8, ETL_OUT_DATETIME_UTC, ETL_VAL_FILETIME },
		{ "ftci", ETL_IN_FILETIME, 33, 8, ETL_OUT_CULTURE_INSENSITIVE_DATETIME, ETL_VAL_FILETIME },
		{ "unknown", ETL_IN_UINT32, 0x55, 4, ETL_OUT_NULL, ETL_VAL_UINT },
		{ "h32hex", ETL_IN_HEXINT32, 0x55, 4, ETL_OUT_HEXINT32, ETL_VAL_UINT },
	};
	struct tlb b;
	struct tev t;
	const struct etl_decoded *r;
	etl_decoder *d = etl_decoder_new();

	tlb_init(&b, "Outs");
	for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
		fld_out(&b, v[i].name, v[i].in, v[i].tlo);
		tu_putfill(&b.pay, 0x01, v[i].size);
	}
	/* Strings and binaries. */
	fld_out(&b, "xml", ETL_IN_UNICODESTRING, 11);
	pay_utf16z(&b, "<a/>");
	fld_out(&b, "json", ETL_IN_ANSISTRING, 12);
	pay_str(&b, "{}");
	fld_out(&b, "utf8", ETL_IN_ANSISTRING, 35);
	pay_str(&b, "\xc3\xa9");                         /* é as UTF-8, kept     */
	fld_out(&b, "utf8bad", ETL_IN_COUNTEDANSISTRING, 35);
	tu_put16(&b.pay, 3);
	tu_putbytes(&b.pay, "a\xff" "b", 3);              /* invalid -> U+FFFD    */
	fld_out(&b, "cp1252", ETL_IN_ANSISTRING, 0);
	pay_str(&b, "\xc3\xa9");                         /* same bytes, CP1252   */
	fld_out(&b, "hexbin", ETL_IN_BINARY, 4);
	tu_put16(&b.pay, 1);
	tu_put8(&b.pay, 0xAB);
	fld_out(&b, "ipv6", ETL_IN_BINARY, 9);
	tu_put16(&b.pay, 16);
	tu_putfill(&b.pay, 0, 16);
	fld_out(&b, "sock", ETL_IN_BINARY, 10);
	tu_put16(&b.pay, 0);
	fld_out(&b, "pkcs", ETL_IN_BINARY, 36);
	tu_put16(&b.pay, 0);

	ck_assert_int_eq(dec(d, &b, &t, &r), ETL_OK);
	assert_tree(r);
	for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
		const struct etl_prop *p = topp(r, v[i].name);
		ck_assert_msg(p->out_type == v[i].want, "%s: out-type %u, want %u", v[i].name, p->out_type,
		              v[i].want);
		ck_assert_msg(p->kind == v[i].kind, "%s: kind %d, want %d", v[i].name, p->kind, v[i].kind);
		ck_assert_uint_eq(p->in_type, v[i].in);
	}
	ck_assert_uint_eq(topp(r, "bool8")->v.u, 1);
	ck_assert_uint_eq(topp(r, "hex16")->v.i, 0x0101);
	ck_assert_uint_eq(topp(r, "xml")->out_type, ETL_OUT_XML);
	assert_str(topp(r, "xml"), "<a/>");
	ck_assert_uint_eq(topp(r, "json")->out_type, ETL_OUT_JSON);
	assert_str(topp(r, "json"), "{}");
	ck_assert_uint_eq(topp(r, "utf8")->out_type, ETL_OUT_UTF8);
	assert_str(topp(r, "utf8"), "\xc3\xa9");
	assert_str(topp(r, "utf8bad"), "a\xef\xbf\xbd" "b");
	assert_str(topp(r, "cp1252"), "\xc3\x83\xc2\xa9");   /* "Ã©" */
	ck_assert_uint_eq(topp(r, "hexbin")->out_type, ETL_OUT_HEXBINARY);
	ck_assert_uint_eq(topp(r, "ipv6")->out_type, ETL_OUT_IPV6);
	ck_assert_uint_eq(topp(r, "ipv6")->v.bin.len, 16);
	ck_assert_uint_eq(topp(r, "sock")->out_type, ETL_OUT_SOCKETADDRESS);
	ck_assert_uint_eq(topp(r, "sock")->v.bin.len, 0);
	ck_assert_uint_eq(topp(r, "pkcs")->out_type, ETL_OUT_PKCS7_WITH_TYPE_INFO);

	tev_free(&t);
	tlb_free(&b);
	etl_decoder_free(d);
}
END_TEST

/* Event tags of 1-4 bytes (§2.3) and field tags, which sit between the
 * out-type and the rest of the field. */
START_TEST(test_tl_tags)
{
	static const struct { uint8_t bytes[4]; size_t n; uint32_t want; } v[] = {
		{ { 0x00 }, 1, 0 },
		{ { 0x01 }, 1, 0x00200000u },
		{ { 0x80, 0x00 }, 2, 0 },                             /* as LxCore writes */
		{ { 0x81, 0x02 }, 2, 0x00208000u },
		{ { 0x85, 0x8a, 0x01 }, 3, 0x00a28080u },
		{ { 0xff, 0xff, 0xff, 0x7f }, 4, 0x0fffffffu },
	};
	etl_decoder *d = etl_decoder_new();
	for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
		struct tlb b;
		struct tev t;
		const struct etl_decoded *r;
		tlb_init_tags(&b, "Tagged", v[i].bytes, v[i].n);
		/* Field tags: 1, 2 and 4 bytes. */
		fld(&b, "a", ETL_IN_UINT8 | 0x80);
		tu_put8(&b.meta, 0x80 | 4);                  /* hex + field tags */
		tu_put8(&b.meta, 0x10);
		fld(&b, "b", ETL_IN_UINT16 | 0x80);
		tu_put8(&b.meta, 0x80);                      /* default + tags   */
		tu_putbytes(&b.meta, "\x81\x01", 2);
		fld(&b, "c", ETL_IN_UINT32 | 0x80 | 0x20);   /* Ccount + tags    */
		tu_put8(&b.meta, 0x80);
		tu_putbytes(&b.meta, "\x81\x82\x83\x04", 4);
		tu_put16(&b.meta, 2);
		tu_put8(&b.pay, 7);
		tu_put16(&b.pay, 8);
		tu_put32(&b.pay, 9);
		tu_put32(&b.pay, 10);
		ck_assert_int_eq(dec(d, &b, &t, &r), ETL_OK);
		ck_assert_msg(r->tags == v[i].want, "case %zu: tags 0x%x, want 0x%x", i, r->tags, v[i].want);
		ck_assert_uint_eq(topp(r, "a")->v.u, 7);
		ck_assert_uint_eq(topp(r, "a")->out_type, ETL_OUT_HEXINT8);
		ck_assert_uint_eq(topp(r, "b")->v.u, 8);
		const struct etl_prop *c = topp(r, "c");
		ck_assert_int_eq(c->kind, ETL_VAL_ARRAY);
		ck_assert_uint_eq(c->n_children, 2);
		ck_assert_uint_eq(child(r, c, 1)->v.u, 10);
		tev_free(&t);
		tlb_free(&b);
	}
	etl_decoder_free(d);
}
END_TEST

/* Ccount and Vcount arrays of scalars, strings and binaries; empty arrays. */
START_TEST(test_tl_arrays)
{
	struct tlb b;
	struct tev t;
	const struct etl_decoded *r;
	etl_decoder *d = etl_decoder_new();

	tlb_init(&b, "Arrays");
	fld(&b, "cc", ETL_IN_UINT32 | 0x20);
	tu_put16(&b.meta, 3);
	tu_put32(&b.pay, 1);
	tu_put32(&b.pay, 2);
	tu_put32(&b.pay, 3);
	fld(&b, "vs", ETL_IN_UNICODESTRING | 0x40);
	tu_put16(&b.pay, 2);
	pay_utf16z(&b, "one");
	pay_utf16z(&b, "two");
	fld(&b, "empty", ETL_IN_INT64 | 0x40);
	tu_put16(&b.pay, 0);
	fld(&b, "cc0", ETL_IN_GUID | 0x20);
	tu_put16(&b.meta, 0);
	fld(&b, "cbins", ETL_IN_COUNTEDBINARY | 0x40);
	tu_put16(&b.pay, 2);
	tu_put16(&b.pay, 1);
	tu_put8(&b.pay, 0xAA);
	tu_put16(&b.pay, 2);
	tu_putbytes(&b.pay, "\xBB\xCC", 2);
	fld_out(&b, "chars", ETL_IN_UINT16 | 0x40, 2);   /* WCHAR array, out STRING */
	tu_put16(&b.pay, 2);
	tu_putbytes(&b.pay, "h\0i\0", 4);
	fld(&b, "after", ETL_IN_INT8);
	tu_put8(&b.pay, 0x80);

	ck_assert_int_eq(dec(d, &b, &t, &r), ETL_OK);
	assert_tree(r);
	ck_assert_uint_eq(r->n_props, 7 + 3 + 2 + 2 + 2);
	const struct etl_prop *p = topp(r, "cc");
	ck_assert_int_eq(p->kind, ETL_VAL_ARRAY);
	ck_assert_uint_eq(p->in_type, ETL_IN_UINT32);
	ck_assert_uint_eq(p->n_children, 3);
	for (uint32_t k = 0; k < 3; k++) {
		const struct etl_prop *e = child(r, p, k);
		ck_assert_str_eq(e->name, "cc");
		ck_assert_int_eq(e->kind, ETL_VAL_UINT);
		ck_assert_uint_eq(e->v.u, k + 1);
		ck_assert_uint_eq(e->payload_offset, 4 * k);
	}
	p = topp(r, "vs");
	ck_assert_uint_eq(p->n_children, 2);
	ck_assert_uint_eq(p->payload_offset, 12);
	assert_str(child(r, p, 0), "one");
	assert_str(child(r, p, 1), "two");
	ck_assert_uint_eq(child(r, p, 0)->payload_offset, 14);
	ck_assert_uint_eq(topp(r, "empty")->n_children, 0);
	ck_assert_int_eq(topp(r, "empty")->kind, ETL_VAL_ARRAY);
	ck_assert_uint_eq(topp(r, "cc0")->n_children, 0);
	p = topp(r, "cbins");
	ck_assert_uint_eq(p->n_children, 2);
	ck_assert_uint_eq(child(r, p, 1)->v.bin.len, 2);
	ck_assert_uint_eq(child(r, p, 1)->v.bin.p[1], 0xCC);
	p = topp(r, "chars");
	ck_assert_uint_eq(p->out_type, ETL_OUT_STRING);
	ck_assert_uint_eq(p->n_children, 2);
	ck_assert_uint_eq(child(r, p, 0)->v.u, 'h');
	ck_assert_int_eq(topp(r, "after")->v.i, -128);

	tev_free(&t);
	tlb_free(&b);
	etl_decoder_free(d);
}
END_TEST

/* Nested structs, struct arrays (Ccount and Vcount), and the layout: top
 * level first, each node's children contiguous. */
START_TEST(test_tl_structs)
{
	struct tlb b;
	struct tev t;
	const struct etl_decoded *r;
	etl_decoder *d = etl_decoder_new();

	tlb_init(&b, "Structs");
	fld(&b, "head", ETL_IN_UINT8);
	tu_put8(&b.pay, 1);
	fld_out(&b, "s", ETL_IN_STRUCT, 2);              /* s { a, t { b, c } } */
	fld(&b, "a", ETL_IN_UINT8);
	tu_put8(&b.pay, 2);
	fld_out(&b, "t", ETL_IN_STRUCT, 2);
	fld(&b, "b", ETL_IN_UINT16);
	tu_put16(&b.pay, 3);
	fld(&b, "c", ETL_IN_ANSISTRING);
	pay_str(&b, "ok");
	fld_out(&b, "pts", ETL_IN_STRUCT | 0x40, 2);     /* Vcount of { x, y } */
	fld(&b, "x", ETL_IN_INT32);
	fld(&b, "y", ETL_IN_INT32);
	tu_put16(&b.pay, 2);
	tu_put32(&b.pay, 10);
	tu_put32(&b.pay, 11);
	tu_put32(&b.pay, 20);
	tu_put32(&b.pay, 21);
	fld_out(&b, "cs", ETL_IN_STRUCT | 0x20, 1);      /* Ccount 2 of { v[] } */
	tu_put16(&b.meta, 2);
	fld(&b, "v", ETL_IN_UINT8 | 0x40);
	tu_put16(&b.pay, 1);
	tu_put8(&b.pay, 0x31);
	tu_put16(&b.pay, 2);
	tu_put8(&b.pay, 0x32);
	tu_put8(&b.pay, 0x33);
	fld_out(&b, "none", ETL_IN_STRUCT | 0x40, 1);    /* zero elements */
	fld(&b, "never", ETL_IN_UINT64);
	tu_put16(&b.pay, 0);
	fld(&b, "tail", ETL_IN_UINT8);
	tu_put8(&b.pay, 0x7E);

	ck_assert_int_eq(dec(d, &b, &t, &r), ETL_OK);
	assert_tree(r);
	/* Top level: head, s, pts, cs, none, tail at 0..5. */
	static const char *tops[] = { "head", "s", "pts", "cs", "none", "tail" };
	for (uint32_t i = 0; i < 6; i++) {
		ck_assert_str_eq(r->props[i].name, tops[i]);
		ck_assert_uint_eq(r->props[i].parent, ETL_PROP_NO_PARENT);
	}
	const struct etl_prop *s = topp(r, "s");
	ck_assert_int_eq(s->kind, ETL_VAL_STRUCT);
	ck_assert_uint_eq(s->in_type, ETL_IN_STRUCT);
	ck_assert_uint_eq(s->n_children, 2);
	ck_assert_uint_eq(s->payload_offset, 1);
	ck_assert_uint_eq(child(r, s, 0)->v.u, 2);
	const struct etl_prop *tt = child(r, s, 1);
	ck_assert_str_eq(tt->name, "t");
	ck_assert_int_eq(tt->kind, ETL_VAL_STRUCT);
	ck_assert_uint_eq(child(r, tt, 0)->v.u, 3);
	assert_str(child(r, tt, 1), "ok");

	const struct etl_prop *pts = topp(r, "pts");
	ck_assert_int_eq(pts->kind, ETL_VAL_ARRAY);
	ck_assert_uint_eq(pts->in_type, ETL_IN_STRUCT);
	ck_assert_uint_eq(pts->n_children, 2);
	for (uint32_t k = 0; k < 2; k++) {
		const struct etl_prop *e = child(r, pts, k);
		ck_assert_str_eq(e->name, "pts");
		ck_assert_int_eq(e->kind, ETL_VAL_STRUCT);
		ck_assert_uint_eq(e->n_children, 2);
		ck_assert_str_eq(child(r, e, 0)->name, "x");
		ck_assert_int_eq(child(r, e, 0)->v.i, 10 * (k + 1));
		ck_assert_int_eq(child(r, e, 1)->v.i, 10 * (k + 1) + 1);
	}
	const struct etl_prop *cs = topp(r, "cs");
	ck_assert_uint_eq(cs->n_children, 2);
	const struct etl_prop *e1 = child(r, cs, 1);
	const struct etl_prop *v1 = child(r, e1, 0);
	ck_assert_str_eq(v1->name, "v");
	ck_assert_uint_eq(v1->n_children, 2);
	ck_assert_uint_eq(child(r, v1, 1)->v.u, 0x33);
	ck_assert_uint_eq(topp(r, "none")->n_children, 0);
	ck_assert_uint_eq(topp(r, "tail")->v.u, 0x7E);
	ck_assert_uint_eq(topp(r, "tail")->payload_offset, b.pay.len - 1);

	tev_free(&t);
	tlb_free(&b);
	etl_decoder_free(d);
}
END_TEST

/* Custom fields: protocol in the low bits, schema in the metadata, u16
 * length + bytes in the payload. */
START_TEST(test_tl_custom)
{
	struct tlb b;
	struct tev t;
	const struct etl_decoded *r;
	etl_decoder *d = etl_decoder_new();

	tlb_init(&b, "Custom");
	fld(&b, "cus", 0x60 | 5);
	tu_put16(&b.meta, 3);
	tu_putbytes(&b.meta, "abc", 3);
	tu_put16(&b.pay, 2);
	tu_putbytes(&b.pay, "\xAA\xBB", 2);
	fld(&b, "cus0", 0x60 | 0);                      /* protocol 0, empty schema */
	tu_put16(&b.meta, 0);
	tu_put16(&b.pay, 0);
	fld(&b, "z", ETL_IN_UINT8);
	tu_put8(&b.pay, 9);
	ck_assert_int_eq(dec(d, &b, &t, &r), ETL_OK);
	const struct etl_prop *p = topp(r, "cus");
	ck_assert_int_eq(p->kind, ETL_VAL_BINARY);
	ck_assert_uint_eq(p->in_type, ETL_IN_BINARY);
	ck_assert_uint_eq(p->out_type, ETL_OUT_HEXBINARY);
	ck_assert_uint_eq(p->v.bin.len, 2);
	ck_assert_uint_eq(p->v.bin.p[1], 0xBB);
	ck_assert_uint_eq(topp(r, "cus0")->v.bin.len, 0);
	ck_assert_uint_eq(topp(r, "z")->v.u, 9);
	tev_free(&t);
	tlb_free(&b);
	etl_decoder_free(d);
}
END_TEST

/* Strings: a missing final NUL is tolerated at the end of the payload; UTF-16
 * surrogates; CP1252 specials; invalid SYSTEMTIME kept raw. */
START_TEST(test_tl_strings)
{
	etl_decoder *d = etl_decoder_new();
	struct tlb b;
	struct tev t;
	const struct etl_decoded *r;

	/* UTF-16 without NUL, with an odd trailing byte. */
	tlb_init(&b, "S");
	fld(&b, "a", ETL_IN_UINT8);
	tu_put8(&b.pay, 1);
	fld(&b, "s", ETL_IN_UNICODESTRING);
	tu_putbytes(&b.pay, "a\0b\0c", 5);
	ck_assert_int_eq(dec(d, &b, &t, &r), ETL_OK);
	assert_str(topp(r, "s"), "ab");
	tev_free(&t);
	tlb_free(&b);

	/* ANSI without NUL. */
	tlb_init(&b, "S");
	fld(&b, "s", ETL_IN_ANSISTRING);
	tu_putbytes(&b.pay, "xyz", 3);
	ck_assert_int_eq(dec(d, &b, &t, &r), ETL_OK);
	assert_str(topp(r, "s"), "xyz");
	tev_free(&t);
	tlb_free(&b);

	/* Empty strings with their NUL; surrogate pair; lone surrogates. */
	tlb_init(&b, "S");
	fld(&b, "e16", ETL_IN_UNICODESTRING);
	tu_put16(&b.pay, 0);
	fld(&b, "e8", ETL_IN_ANSISTRING);
	tu_put8(&b.pay, 0);
	fld(&b, "pair", ETL_IN_UNICODESTRING);
	tu_put16(&b.pay, 0xD83D);
	tu_put16(&b.pay, 0xDE00);                       /* U+1F600 */
	tu_put16(&b.pay, 0);
	fld(&b, "lone", ETL_IN_COUNTEDSTRING);
	tu_put16(&b.pay, 6);
	tu_put16(&b.pay, 0xDC00);
	tu_put16(&b.pay, 'x');
	tu_put16(&b.pay, 0xD800);                       /* high at the end */
	fld(&b, "cp", ETL_IN_COUNTEDANSISTRING);
	tu_put16(&b.pay, 4);
	tu_putbytes(&b.pay, "\x81\x9f\xa0\xff", 4);
	fld(&b, "emb", ETL_IN_COUNTEDSTRING);           /* embedded NUL kept */
	tu_put16(&b.pay, 4);
	tu_putbytes(&b.pay, "a\0\0\0", 4);
	ck_assert_int_eq(dec(d, &b, &t, &r), ETL_OK);
	assert_str(topp(r, "e16"), "");
	assert_str(topp(r, "e8"), "");
	assert_str(topp(r, "pair"), "\xf0\x9f\x98\x80");
	assert_str(topp(r, "lone"), "\xef\xbf\xbdx\xef\xbf\xbd");
	assert_str(topp(r, "cp"), "\xc2\x81\xc5\xb8\xc2\xa0\xc3\xbf");
	ck_assert_uint_eq(topp(r, "emb")->v.str.len, 2);
	ck_assert(memcmp(topp(r, "emb")->v.str.s, "a\0", 2) == 0);
	tev_free(&t);
	tlb_free(&b);

	/* UTF-8 out-type: valid 2/3/4-byte sequences kept (pointing into the
	 * payload), every invalid byte replaced. */
	tlb_init(&b, "S");
	static const struct { const char *in, *out; } u8[] = {
		{ "\xe2\x82\xac\xf0\x9f\x98\x80", "\xe2\x82\xac\xf0\x9f\x98\x80" },
		{ "\xe0\x80\x80", "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd" },    /* overlong     */
		{ "\xed\xa0\x80", "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd" },    /* surrogate    */
		{ "\xf0\x80\x80\x80x", "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbdx" },
		{ "\xf4\x90\x80\x80", "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd" },
		{ "\xe2\x82", "\xef\xbf\xbd\xef\xbf\xbd" },                     /* cut          */
		{ "\xf0\x9f\x98", "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd" },
		{ "\xc0\xaf", "\xef\xbf\xbd\xef\xbf\xbd" },
	};
	for (size_t i = 0; i < sizeof u8 / sizeof u8[0]; i++) {
		char nm[8];
		snprintf(nm, sizeof nm, "u%zu", i);
		fld_out(&b, nm, ETL_IN_ANSISTRING, 35);
		pay_str(&b, u8[i].in);
	}
	ck_assert_int_eq(dec(d, &b, &t, &r), ETL_OK);
	for (size_t i = 0; i < sizeof u8 / sizeof u8[0]; i++)
		assert_str(&r->props[i], u8[i].out);
	ck_assert((const uint8_t *)r->props[0].v.str.s == t.pay);
	tev_free(&t);
	tlb_free(&b);

	/* SYSTEMTIME that is no date: raw bytes. */
	tlb_init(&b, "S");
	fld(&b, "zero", ETL_IN_SYSTEMTIME);
	tu_putfill(&b.pay, 0, 16);
	fld(&b, "feb30", ETL_IN_SYSTEMTIME);
	static const uint16_t st[8] = { 2023, 2, 0, 30, 0, 0, 0, 0 };
	for (int i = 0; i < 8; i++)
		tu_put16(&b.pay, st[i]);
	fld(&b, "leap", ETL_IN_SYSTEMTIME);
	static const uint16_t lp[8] = { 2000, 2, 2, 29, 23, 59, 59, 999 };
	for (int i = 0; i < 8; i++)
		tu_put16(&b.pay, lp[i]);
	fld(&b, "epoch", ETL_IN_SYSTEMTIME);
	static const uint16_t ep[8] = { 1601, 1, 1, 1, 0, 0, 0, 0 };
	for (int i = 0; i < 8; i++)
		tu_put16(&b.pay, ep[i]);
	ck_assert_int_eq(dec(d, &b, &t, &r), ETL_OK);
	ck_assert_int_eq(topp(r, "zero")->kind, ETL_VAL_BINARY);
	ck_assert_uint_eq(topp(r, "zero")->v.bin.len, 16);
	ck_assert_uint_eq(topp(r, "zero")->in_type, ETL_IN_SYSTEMTIME);
	ck_assert_int_eq(topp(r, "feb30")->kind, ETL_VAL_BINARY);
	ck_assert_int_eq(topp(r, "leap")->kind, ETL_VAL_FILETIME);
	/* 2000-03-01T00:00:00Z is 125963424000000000 (Python datetime); 1 ms earlier. */
	ck_assert_int_eq(topp(r, "leap")->v.i, 125963424000000000ll - 10000);
	ck_assert_int_eq(topp(r, "epoch")->v.i, 0);
	tev_free(&t);
	tlb_free(&b);

	etl_decoder_free(d);
}
END_TEST

/* Provider traits with a group (type 1), a decode GUID (type 2), a short
 * and an unknown trait: all accepted, the name is what counts. */
START_TEST(test_tl_traits)
{
	etl_decoder *d = etl_decoder_new();
	struct tlb b;
	struct tev t;
	const struct etl_decoded *r;
	struct etl_guid g = tu_guid("4f50731a-89cf-4782-b3e0-dce8c90476ba");
	tlb_init(&b, "T");
	tu_put16(&b.traits, 19);
	tu_put8(&b.traits, 1);
	tu_putguid(&b.traits, &g);
	tu_put16(&b.traits, 19);
	tu_put8(&b.traits, 2);
	tu_putguid(&b.traits, &g);
	tu_put16(&b.traits, 5);
	tu_put8(&b.traits, 1);                          /* group GUID too short */
	tu_put16(&b.traits, 0);
	tu_put16(&b.traits, 3);
	tu_put8(&b.traits, 0x7F);                       /* unknown, empty      */
	fld(&b, "x", ETL_IN_UINT8);
	tu_put8(&b.pay, 1);
	ck_assert_int_eq(dec(d, &b, &t, &r), ETL_OK);
	ck_assert_str_eq(r->provider_name, "TestProvider");
	ck_assert_uint_eq(r->props[0].v.u, 1);
	tev_free(&t);
	tlb_free(&b);

	/* Names with invalid UTF-8 are repaired. */
	tlb_init(&b, "Bad\xff");
	b.traits.len = 2;
	tu_putbytes(&b.traits, "P\xc3", 3);
	fld(&b, "f\x80", ETL_IN_UINT8);
	tu_put8(&b.pay, 1);
	ck_assert_int_eq(dec(d, &b, &t, &r), ETL_OK);
	ck_assert_str_eq(r->provider_name, "P\xef\xbf\xbd");
	ck_assert_str_eq(r->event_name, "Bad\xef\xbf\xbd");
	ck_assert_str_eq(r->props[0].name, "f\xef\xbf\xbd");
	tev_free(&t);
	tlb_free(&b);
	etl_decoder_free(d);
}
END_TEST

/* No fields at all, no traits item. */
START_TEST(test_tl_no_fields_no_traits)
{
	etl_decoder *d = etl_decoder_new();
	struct tlb b;
	struct tev t;
	const struct etl_decoded *r;
	tlb_init(&b, "Bare");
	b.no_traits = 1;
	tu_putbytes(&b.pay, "ignored", 7);               /* trailing bytes ignored */
	ck_assert_int_eq(dec(d, &b, &t, &r), ETL_OK);
	ck_assert_uint_eq(r->n_props, 0);
	ck_assert(r->provider_name == NULL);
	ck_assert_str_eq(r->event_name, "Bare");
	tev_free(&t);
	tlb_free(&b);
	etl_decoder_free(d);
}
END_TEST

/* ------------------------------------------------------------------ */
/* malformed input                                                      */
/* ------------------------------------------------------------------ */

/* Ends a failing case: status, errcode, message containing want (if any),
 * no properties. */
static void assert_fails(etl_decoder *d, struct tlb *b, int code, const char *want,
                         const char *event_name)
{
	struct tev t;
	const struct etl_decoded *r;
	int rc_ = dec(d, b, &t, &r);
	ck_assert_msg(rc_ == ETL_FAILED, "decoded OK, wanted \"%s\"", want ? want : "?");
	ck_assert_int_eq(r->status, ETL_FAILED);
	ck_assert_msg(r->errcode == code, "errcode %d, want %d (%s)", r->errcode, code, r->error);
	ck_assert(r->error != NULL && r->error[0] != 0);
	if (want)
		ck_assert_msg(strstr(r->error, want) != NULL, "error \"%s\" lacks \"%s\"", r->error, want);
	ck_assert_uint_eq(r->n_props, 0);
	ck_assert(r->props == NULL);
	ck_assert_int_eq(r->source, ETL_DECODE_TRACELOGGING);
	if (event_name)
		ck_assert_str_eq(r->event_name, event_name);
	tev_free(&t);
	tlb_free(b);
}

START_TEST(test_tl_malformed_metadata)
{
	etl_decoder *d = etl_decoder_new();
	struct tlb b;

	/* Metadata size past the item. */
	tlb_init(&b, "E");
	fld(&b, "a", ETL_IN_UINT8);
	tu_put8(&b.pay, 1);
	tu_set16(&b.meta, 0, (uint16_t)(b.meta.len + 10));
	b.keep_meta_size = 1;
	assert_fails(d, &b, ETL_E_BAD_SIZE, "size", NULL);

	/* Metadata size 1 (smaller than its own size field). */
	tlb_init(&b, "E");
	tu_set16(&b.meta, 0, 1);
	b.keep_meta_size = 1;
	assert_fails(d, &b, ETL_E_BAD_SIZE, NULL, NULL);

	/* Declared size cuts the event name: no NUL inside. */
	tlb_init(&b, "Event");
	tu_set16(&b.meta, 0, 5);
	b.keep_meta_size = 1;
	assert_fails(d, &b, ETL_E_BAD_VALUE, "event name", NULL);

	/* Tags longer than 4 bytes. */
	static const uint8_t long_tags[5] = { 0x81, 0x81, 0x81, 0x81, 0x01 };
	tlb_init_tags(&b, "E", long_tags, 5);
	assert_fails(d, &b, ETL_E_BAD_VALUE, "tags", NULL);

	/* Tags running off the end. */
	tlb_init(&b, "E");
	b.meta.len = 2;
	tu_put8(&b.meta, 0x81);
	assert_fails(d, &b, ETL_E_BAD_VALUE, "tags", NULL);

	/* Field name without NUL. */
	tlb_init(&b, "E");
	fld(&b, "a", ETL_IN_UINT8);
	tu_putbytes(&b.meta, "abc", 3);
	assert_fails(d, &b, ETL_E_BAD_VALUE, "without NUL", "E");

	/* In-type missing after the name. */
	tlb_init(&b, "E");
	tu_putbytes(&b.meta, "lonely", 7);
	assert_fails(d, &b, ETL_E_TRUNCATED, "\"lonely\"", "E");

	/* Out-type missing after a chained in-type. */
	tlb_init(&b, "E");
	fld(&b, "o", ETL_IN_UINT8 | 0x80);
	assert_fails(d, &b, ETL_E_TRUNCATED, "out-type", "E");

	/* Field tags missing. */
	tlb_init(&b, "E");
	fld_out(&b, "o", ETL_IN_UINT8, 0x80);
	assert_fails(d, &b, ETL_E_BAD_VALUE, "field tags", "E");

	/* Ccount missing. */
	tlb_init(&b, "E");
	fld(&b, "cc", ETL_IN_UINT8 | 0x20);
	tu_put8(&b.meta, 1);
	assert_fails(d, &b, ETL_E_TRUNCATED, "\"cc\"", "E");

	/* Custom schema past the metadata. */
	tlb_init(&b, "E");
	fld(&b, "cus", 0x60 | 1);
	tu_put16(&b.meta, 50);
	tu_putbytes(&b.meta, "xx", 2);
	assert_fails(d, &b, ETL_E_TRUNCATED, "\"cus\"", "E");

	/* In-types 0, 16 (POINTER), 26 and 31. */
	static const uint8_t bad_in[] = { 0, 16, 26, 31, 0x40 | 0, 0x20 | 16 };
	for (size_t i = 0; i < sizeof bad_in; i++) {
		tlb_init(&b, "E");
		fld(&b, "ok", ETL_IN_UINT8);
		fld(&b, "bad", bad_in[i]);
		if ((bad_in[i] & 0x60) == 0x20)
			tu_put16(&b.meta, 1);
		tu_putfill(&b.pay, 0, 16);
		assert_fails(d, &b, ETL_E_BAD_VALUE, "in-type", "E");
	}

	/* Struct count past the fields. */
	tlb_init(&b, "E");
	fld_out(&b, "s", ETL_IN_STRUCT, 3);
	fld(&b, "a", ETL_IN_UINT8);
	tu_putfill(&b.pay, 0, 8);
	assert_fails(d, &b, ETL_E_BAD_VALUE, "\"s\"", "E");

	/* Nested struct count past the fields. */
	tlb_init(&b, "E");
	fld_out(&b, "s", ETL_IN_STRUCT, 1);
	fld_out(&b, "t", ETL_IN_STRUCT, 2);
	fld(&b, "a", ETL_IN_UINT8);
	assert_fails(d, &b, ETL_E_BAD_VALUE, "\"t\"", "E");

	/* Struct without members (no out-type byte, or 0). */
	tlb_init(&b, "E");
	fld(&b, "s", ETL_IN_STRUCT);
	fld(&b, "a", ETL_IN_UINT8);
	assert_fails(d, &b, ETL_E_BAD_VALUE, "no members", "E");

	/* Structs nested deeper than the decoder goes. */
	tlb_init(&b, "E");
	for (int i = 0; i < 40; i++)
		fld_out(&b, "s", ETL_IN_STRUCT, 1);
	fld(&b, "a", ETL_IN_UINT8);
	tu_put8(&b.pay, 1);
	assert_fails(d, &b, ETL_E_UNSUPPORTED, "nested", "E");

	/* Provider traits: size past the item, name without NUL, bad trait. */
	tlb_init(&b, "E");
	tu_set16(&b.traits, 0, (uint16_t)(b.traits.len + 1));
	b.keep_traits_size = 1;
	assert_fails(d, &b, ETL_E_BAD_SIZE, "traits", NULL);
	tlb_init(&b, "E");
	b.traits.len = 2;
	tu_putbytes(&b.traits, "NoNul", 5);
	assert_fails(d, &b, ETL_E_BAD_VALUE, "traits", NULL);
	tlb_init(&b, "E");
	tu_put16(&b.traits, 2);                          /* trait size < 3 */
	tu_put8(&b.traits, 1);
	assert_fails(d, &b, ETL_E_BAD_SIZE, "trait", NULL);
	tlb_init(&b, "E");
	tu_put16(&b.traits, 19);                         /* trait past the end */
	tu_put8(&b.traits, 1);
	tu_putfill(&b.traits, 0, 10);
	assert_fails(d, &b, ETL_E_BAD_SIZE, "trait", NULL);

	etl_decoder_free(d);
}
END_TEST

START_TEST(test_tl_malformed_payload)
{
	etl_decoder *d = etl_decoder_new();
	struct tlb b;

	/* Vcount past the payload. */
	tlb_init(&b, "E");
	fld(&b, "arr", ETL_IN_UINT32 | 0x40);
	tu_put16(&b.pay, 5);
	tu_put32(&b.pay, 1);
	tu_put32(&b.pay, 2);
	assert_fails(d, &b, ETL_E_TRUNCATED, "\"arr\" at payload offset 10", "E");

	/* Vcount itself cut. */
	tlb_init(&b, "E");
	fld(&b, "a", ETL_IN_UINT8);
	fld(&b, "arr", ETL_IN_UINT32 | 0x40);
	tu_put8(&b.pay, 1);
	tu_put8(&b.pay, 5);
	assert_fails(d, &b, ETL_E_TRUNCATED, "\"arr\" at payload offset 1", "E");

	/* Scalar short. */
	tlb_init(&b, "E");
	fld(&b, "a", ETL_IN_UINT8);
	fld(&b, "v", ETL_IN_UINT64);
	tu_put8(&b.pay, 1);
	tu_put32(&b.pay, 2);
	assert_fails(d, &b, ETL_E_TRUNCATED, "\"v\" at payload offset 1: needs 8 bytes, 4 left", "E");

	/* Every fixed-size in-type one byte short, and every length-prefixed
	 * in-type with its length past the end. */
	static const struct { uint8_t in; unsigned n; } fixed[] = {
		{ ETL_IN_INT8, 1 }, { ETL_IN_UINT16, 2 }, { ETL_IN_INT32, 4 }, { ETL_IN_FLOAT, 4 },
		{ ETL_IN_DOUBLE, 8 }, { ETL_IN_BOOLEAN, 4 }, { ETL_IN_GUID, 16 }, { ETL_IN_FILETIME, 8 },
		{ ETL_IN_SYSTEMTIME, 16 }, { ETL_IN_HEXINT32, 4 }, { ETL_IN_HEXINT64, 8 }, { ETL_IN_SID, 8 },
		{ ETL_IN_BINARY, 2 }, { ETL_IN_COUNTEDSTRING, 2 }, { ETL_IN_COUNTEDANSISTRING, 2 },
		{ ETL_IN_COUNTEDBINARY, 2 },
	};
	for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++) {
		tlb_init(&b, "E");
		fld(&b, "f", fixed[i].in);
		tu_putfill(&b.pay, 0, fixed[i].n - 1);
		assert_fails(d, &b, ETL_E_TRUNCATED, "\"f\"", "E");
		if (fixed[i].n == 2 && fixed[i].in != ETL_IN_UINT16) {
			tlb_init(&b, "E");
			fld(&b, "f", fixed[i].in);
			tu_put16(&b.pay, 9);
			tu_putfill(&b.pay, 0, 8);
			assert_fails(d, &b, ETL_E_TRUNCATED, "needs 11 bytes, 10 left", "E");
		}
	}

	/* SID with more sub-authorities than bytes. */
	tlb_init(&b, "E");
	fld(&b, "sid", ETL_IN_SID);
	tu_putbytes(&b.pay, "\x01\x05\x00\x00\x00\x00\x00\x05\x12\x00\x00\x00", 12);
	assert_fails(d, &b, ETL_E_TRUNCATED, "needs 28 bytes", "E");

	/* Strings with no byte left. */
	tlb_init(&b, "E");
	fld(&b, "a", ETL_IN_UINT8);
	fld(&b, "s", ETL_IN_UNICODESTRING);
	tu_put8(&b.pay, 1);
	assert_fails(d, &b, ETL_E_TRUNCATED, "\"s\"", "E");
	tlb_init(&b, "E");
	fld(&b, "s", ETL_IN_ANSISTRING);
	assert_fails(d, &b, ETL_E_TRUNCATED, "\"s\"", "E");

	/* Struct array member short on the second element. */
	tlb_init(&b, "E");
	fld_out(&b, "pts", ETL_IN_STRUCT | 0x40, 2);
	fld(&b, "x", ETL_IN_INT32);
	fld(&b, "y", ETL_IN_INT32);
	tu_put16(&b.pay, 2);
	tu_putfill(&b.pay, 0, 12);
	assert_fails(d, &b, ETL_E_TRUNCATED, "\"y\" at payload offset 14", "E");

	/* Custom field length past the end. */
	tlb_init(&b, "E");
	fld(&b, "cus", 0x60 | 2);
	tu_put16(&b.meta, 0);
	tu_put16(&b.pay, 4);
	assert_fails(d, &b, ETL_E_TRUNCATED, "\"cus\"", "E");

	tlb_init(&b, "E");
	fld(&b, "cus", 0x60 | 2);
	tu_put16(&b.meta, 0);
	tu_put8(&b.pay, 4);
	assert_fails(d, &b, ETL_E_TRUNCATED, "needs 2 bytes, 1 left", "E");

	/* Too many properties: Ccount arrays of structs of empty arrays. */
	tlb_init(&b, "E");
	fld_out(&b, "o", ETL_IN_STRUCT | 0x20, 1);
	tu_put16(&b.meta, 65535);
	fld_out(&b, "i", ETL_IN_STRUCT | 0x20, 1);
	tu_put16(&b.meta, 65535);
	fld(&b, "e", ETL_IN_UINT8 | 0x20);
	tu_put16(&b.meta, 0);
	assert_fails(d, &b, ETL_E_BAD_SIZE, "properties", "E");

	etl_decoder_free(d);
}
END_TEST

/* Events with no TraceLogging metadata: ETL_E_UNSUPPORTED, naming them. */
START_TEST(test_unsupported)
{
	etl_decoder *d = etl_decoder_new();
	const struct etl_decoded *r;
	struct etl_event ev;
	char want[200];

	memset(&ev, 0, sizeof ev);
	ev.kind = ETL_HDR_EVENT_HEADER64;
	ev.provider = tu_guid("0cd1c309-0878-4515-83db-749843b3f5c9");
	ev.id = 7;
	ev.version = 2;
	ck_assert_int_eq(etl_decoder_decode(d, &ev, &r), ETL_FAILED);
	ck_assert_int_eq(r->status, ETL_FAILED);
	ck_assert_int_eq(r->errcode, ETL_E_UNSUPPORTED);
	ck_assert_int_eq(r->source, ETL_DECODE_NONE);
	snprintf(want, sizeof want,
	         "no schema for this event: provider=0cd1c309-0878-4515-83db-749843b3f5c9, id=7, version=2");
	ck_assert_str_eq(r->error, want);
	ck_assert_uint_eq(r->n_props, 0);

	/* A record of a kind no decoder takes, named by the reader. */
	ev.kind = ETL_HDR_UNKNOWN;
	ev.provider_name = "Process";
	ev.id = 0;
	ck_assert_int_eq(etl_decoder_decode(d, &ev, &r), ETL_FAILED);
	ck_assert_int_eq(r->errcode, ETL_E_UNSUPPORTED);
	ck_assert(strstr(r->error, "(Process)") != NULL);

	/* EVENT_HEADER with only a PROV_TRAITS item. */
	uint8_t chain[24] = { 24, 0, ETL_EXT_PROV_TRAITS, 0, 0, 0, 6, 0, 6, 0, 'P', 'r', 'o', 0 };
	memset(&ev, 0, sizeof ev);
	ev.kind = ETL_HDR_EVENT_HEADER32;
	ev.ext = chain;
	ev.ext_size = sizeof chain;
	ev.ext_count = 1;
	ev.record = chain;
	ck_assert_int_eq(etl_decoder_decode(d, &ev, &r), ETL_FAILED);
	ck_assert_int_eq(r->errcode, ETL_E_UNSUPPORTED);

	/* Misuse. */
	ck_assert_int_eq(etl_decoder_decode(d, NULL, &r), ETL_FAILED);
	ck_assert_int_eq(r->errcode, ETL_E_MISUSE);
	ck_assert_int_eq(etl_decoder_decode(NULL, &ev, &r), ETL_FAILED);
	ck_assert_int_eq(etl_decoder_decode(d, &ev, NULL), ETL_FAILED);
	ck_assert(etl_decoder_errmsg(d) != NULL);
	etl_decoder_free(d);
	etl_decoder_free(NULL);
}
END_TEST

/* ------------------------------------------------------------------ */
/* schema cache and result storage                                      */
/* ------------------------------------------------------------------ */

static void build_simple(struct tlb *b, const char *ev, uint32_t value)
{
	tlb_init(b, ev);
	fld(b, "s", ETL_IN_UNICODESTRING);
	fld(b, "v", ETL_IN_UINT32);
	pay_utf16z(b, "text");
	tu_put32(&b->pay, value);
}

START_TEST(test_cache)
{
	etl_decoder *d = etl_decoder_new();
	struct tlb b;
	struct tev t;
	const struct etl_decoded *r;

	ck_assert_uint_eq(etl__decoder_schema_parses(d), 0);
	for (uint32_t i = 0; i < 100000; i++) {
		build_simple(&b, "Same", i);
		tev_make(&t, &b, NULL);
		int rc = etl_decoder_decode(d, &t.ev, &r);
		TU_REQUIRE(rc == ETL_OK);
		TU_REQUIRE(r->n_props == 2 && r->props[1].v.u == i);
		tev_free(&t);
		tlb_free(&b);
	}
	ck_assert_uint_eq(etl__decoder_schema_parses(d), 1);
	ck_assert_uint_eq(etl__decoder_cache_entries(d), 1);

	/* Another provider GUID with the same metadata: a new schema. */
	build_simple(&b, "Same", 1);
	tev_make(&t, &b, "d3dd3dd4-aac2-4e2a-8dd4-a8fb61b77615");
	ck_assert_int_eq(etl_decoder_decode(d, &t.ev, &r), ETL_OK);
	tev_free(&t);
	tlb_free(&b);
	ck_assert_uint_eq(etl__decoder_schema_parses(d), 2);

	/* Other traits. */
	build_simple(&b, "Same", 1);
	b.traits.len = 2;
	tu_putbytes(&b.traits, "Other", 6);
	ck_assert_int_eq(dec(d, &b, &t, &r), ETL_OK);
	ck_assert_str_eq(r->provider_name, "Other");
	tev_free(&t);
	tlb_free(&b);
	ck_assert_uint_eq(etl__decoder_schema_parses(d), 3);

	/* Malformed metadata: the verdict is cached too. */
	for (int i = 0; i < 3; i++) {
		tlb_init(&b, "Bad");
		fld(&b, "x", 0);
		ck_assert_int_eq(dec(d, &b, &t, &r), ETL_FAILED);
		ck_assert(strstr(r->error, "\"x\"") != NULL);
		tev_free(&t);
		tlb_free(&b);
	}
	ck_assert_uint_eq(etl__decoder_schema_parses(d), 4);

	/* Many distinct schemas: the table grows and finds each again. */
	char name[32];
	for (int i = 0; i < 2000; i++) {
		snprintf(name, sizeof name, "Ev%d", i);
		build_simple(&b, name, (uint32_t)i);
		ck_assert_int_eq(dec(d, &b, &t, &r), ETL_OK);
		tev_free(&t);
		tlb_free(&b);
	}
	ck_assert_uint_eq(etl__decoder_schema_parses(d), 2004);
	for (int i = 0; i < 2000; i++) {
		snprintf(name, sizeof name, "Ev%d", i);
		build_simple(&b, name, (uint32_t)i);
		TU_REQUIRE(dec(d, &b, &t, &r) == ETL_OK);
		TU_REQUIRE(strcmp(r->event_name, name) == 0);
		tev_free(&t);
		tlb_free(&b);
	}
	ck_assert_uint_eq(etl__decoder_schema_parses(d), 2004);
	ck_assert_uint_eq(etl__decoder_cache_entries(d), 2004);
	etl_decoder_free(d);
}
END_TEST

/* Results are reused: a big event, a failure, then a small one; strings of
 * the big one (arena) do not leak into the next. */
START_TEST(test_result_reuse)
{
	etl_decoder *d = etl_decoder_new();
	struct tlb b;
	struct tev t;
	const struct etl_decoded *r;

	/* More string bytes than one arena chunk, twice (the second time the
	 * chunks are refilled). */
	for (int rep = 0; rep < 2; rep++) {
		tlb_init(&b, "Big");
		fld(&b, "arr", ETL_IN_UNICODESTRING | 0x40);
		tu_put16(&b.pay, 3000);
		for (int i = 0; i < 3000; i++)
			pay_utf16z(&b, rep ? "abcdefghijklmnopqrstuvwxyz0123456789" :
			                     "0123456789abcdefghijklmnopqrstuvwxyz");
		ck_assert_int_eq(dec(d, &b, &t, &r), ETL_OK);
		ck_assert_uint_eq(r->n_props, 3001);
		for (uint32_t i = 1; i <= 3000; i++)
			assert_str(&r->props[i], rep ? "abcdefghijklmnopqrstuvwxyz0123456789" :
			                               "0123456789abcdefghijklmnopqrstuvwxyz");
		tev_free(&t);
		tlb_free(&b);
	}

	tlb_init(&b, "Fail");
	fld(&b, "v", ETL_IN_UINT64);
	assert_fails(d, &b, ETL_E_TRUNCATED, NULL, "Fail");

	build_simple(&b, "Small", 5);
	ck_assert_int_eq(dec(d, &b, &t, &r), ETL_OK);
	ck_assert_uint_eq(r->n_props, 2);
	assert_str(&r->props[0], "text");
	ck_assert(r->error == NULL);
	ck_assert_str_eq(r->event_name, "Small");
	tev_free(&t);
	tlb_free(&b);
	etl_decoder_free(d);
}
END_TEST

/* ------------------------------------------------------------------ */
/* the corpus                                                           */
/* ------------------------------------------------------------------ */

static struct jm_val *g_exp;

static void load_expected(void)
{
	if (!tu_corpus_present())
		return;         /* each corpus test skips */
	char *path = tu_corpus_path("expected.json");
	size_t n;
	uint8_t *text = tu_load_file(path, &n);
	char err[200];
	g_exp = jm_parse((const char *)text, n, err, sizeof err);
	ck_assert_msg(g_exp != NULL, "expected.json: %s", err);
	free(text);
	free(path);
}

/* The TraceLogging files, and whether their provider's GUID is derived from
 * its name. Checked with etl_provider_guid_from_name(): MySource, Atum-Hw3d
 * and Microsoft.Windows.WaaSMedic.Local hash to their GUIDs (third group
 * starts with 5); solar_system (d3dd3dd4-aac2-4e2a-...), AmsiTrace,
 * WUTraceLogging and Microsoft.Windows.Subsystem.LxCore use fixed GUIDs. */
static const struct { const char *file; int hashed; } tl_files[] = {
	{ "amsi-tracelogging.etl", 0 },
	{ "wsl-lxcore-tracelogging.etl", 0 },
	{ "windowsupdate-tracelogging.etl", 0 },
	{ "waasmedic-tracelogging.etl", 1 },
	{ "hw3d-single-tracelogging.etl", 1 },
	{ "eventsource-primitive-types.etl", 0 },
	{ "eventsource-selfdescribing-compressed.etl", 1 },
};

static int has_tl_item(const struct etl_event *ev, const uint8_t **meta, size_t *meta_len,
                       const uint8_t **traits, size_t *traits_len)
{
	struct etl_ext_iter it;
	struct etl_ext_item item;
	int found = 0;
	*traits = NULL;
	*traits_len = 0;
	etl_ext_iter_init(&it, ev);
	while (etl_ext_iter_next(&it, &item) == ETL_OK) {
		if (item.ext_type == ETL_EXT_EVENT_SCHEMA_TL && !found) {
			*meta = item.data;
			*meta_len = item.data_size;
			found = 1;
		} else if (item.ext_type == ETL_EXT_PROV_TRAITS && !*traits) {
			*traits = item.data;
			*traits_len = item.data_size;
		}
	}
	return found;
}

/* A decoded event kept for the value checks (file order). */
typedef void (*ev_check_fn)(const struct etl_event *ev, const struct etl_decoded *r, size_t nth);

/* Runs the decoder over every event of file (file order); every event
 * with TraceLogging metadata must decode. check (may be NULL) sees each
 * decoded TraceLogging event with its index among them. Returns the number
 * of TraceLogging events. */
static size_t run_file(const char *file, etl_decoder *d, ev_check_fn check)
{
	char *path = tu_corpus_path(file);
	etl_reader *rd = etl_reader_new();
	const struct etl_event *ev;
	size_t ntl = 0;
	int rc;

	ck_assert(rd != NULL);
	etl_reader_set_order(rd, ETL_ORDER_FILE);
	ck_assert_int_eq(etl_reader_open_file(rd, path), ETL_OK);
	while ((rc = etl_reader_next(rd, &ev)) != ETL_END) {
		ck_assert_msg(rc != ETL_FATAL, "%s: %s", file, etl_reader_errmsg(rd));
		if (rc != ETL_OK && rc != ETL_WARN)
			continue;
		const uint8_t *meta, *traits;
		size_t ml, tl;
		const struct etl_decoded *r;
		int st = etl_decoder_decode(d, ev, &r);
		if (!has_tl_item(ev, &meta, &ml, &traits, &tl)) {
			/* Not TraceLogging: whatever other decoder takes it (kernel
			 * MOF, manifests) succeeds or fails cleanly; never TL. */
			TU_CHECK(r->source != ETL_DECODE_TRACELOGGING,
			         "%s: event without TraceLogging metadata decoded as TraceLogging", file);
			TU_CHECK(st == ETL_OK || (st == ETL_FAILED && r->error && r->error[0] &&
			                          r->errcode > ETL_E_NONE && r->errcode < ETL_E_MAX_),
			         "%s: event without TraceLogging metadata: status %d", file, st);
			continue;
		}
		TU_CHECK(st == ETL_OK, "%s: TraceLogging event %zu at 0x%" PRIx64 ": %s", file, ntl,
		         ev->file_offset, r->error ? r->error : "?");
		TU_REQUIRE(r->source == ETL_DECODE_TRACELOGGING);
		assert_tree(r);
		if (check)
			check(ev, r, ntl);
		ntl++;
	}
	etl_reader_free(rd);
	free(path);
	return ntl;
}

/* Every TraceLogging event of each file decodes; provider names match
 * expected.json; name-derived GUIDs match the hash. */
START_TEST(test_corpus_tl_files)
{
	TU_NEED_CORPUS();
	const char *file = tl_files[_i].file;
	const struct jm_val *fe = jm_get(g_exp, file);
	ck_assert_msg(fe != NULL, "%s not in expected.json", file);
	const struct jm_val *names = jm_get(fe, "tracelogging_provider_names");
	ck_assert(names && names->type == JM_OBJ && names->len == 1);
	const char *guid_s = names->keys[0];
	const char *want_name = names->items[0].str;
	struct etl_guid guid = tu_guid(guid_s);

	char *path = tu_corpus_path(file);
	etl_reader *rd = etl_reader_new();
	etl_decoder *d = etl_decoder_new();
	const struct etl_event *ev;
	size_t ntl = 0;
	int rc;
	etl_reader_set_order(rd, ETL_ORDER_FILE);
	ck_assert_int_eq(etl_reader_open_file(rd, path), ETL_OK);
	while ((rc = etl_reader_next(rd, &ev)) != ETL_END) {
		ck_assert(rc != ETL_FATAL);
		if (rc != ETL_OK && rc != ETL_WARN)
			continue;
		const uint8_t *meta, *traits;
		size_t ml, tl;
		if (!has_tl_item(ev, &meta, &ml, &traits, &tl))
			continue;
		const struct etl_decoded *r;
		ck_assert_msg(etl_decoder_decode(d, ev, &r) == ETL_OK, "%s: %s", file, r->error);
		ck_assert(etl_guid_equal(&ev->provider, &guid));
		ck_assert_msg(r->provider_name && strcmp(r->provider_name, want_name) == 0,
		              "%s: provider name %s, want %s", file, r->provider_name, want_name);
		ck_assert(r->event_name != NULL);
		ntl++;
	}
	etl_reader_free(rd);
	etl_decoder_free(d);
	free(path);

	/* As many as expected.json counts EVENT_SCHEMA_TL items. */
	const struct jm_val *ext = jm_get(fe, "ext_item_types");
	ck_assert_uint_eq(ntl, (size_t)jm_int(ext, "11", -1));

	struct etl_guid h;
	ck_assert_int_eq(etl_provider_guid_from_name(want_name, &h), ETL_OK);
	if (tl_files[_i].hashed)
		ck_assert_msg(etl_guid_equal(&h, &guid), "%s: %s does not hash to %s", file, want_name, guid_s);
	else
		ck_assert_msg(!etl_guid_equal(&h, &guid), "%s: %s hashes to %s", file, want_name, guid_s);
}
END_TEST

/* amsi-tracelogging.etl: 19 "AmsiScript" events, metadata (ext 0x0B, 43
 * bytes) "2b 00 | 00 | AmsiScript\0 | Engine\0 01 | Script\0 01 |
 * Raw Script\0 c6 02": two UTF-16 strings and a Vcount UINT16 array with
 * out-type STRING (0xc6 = chain | Vcount | 6, 0x02 = TlgOutSTRING). The
 * first (file order, record at payload size 1568): Engine is 0x00-0xa3,
 * Script 0xa4-0x361, then Vcount 0x015e = 350 WCHARs. The second: payload
 * 204 bytes, Script "$global:?", Vcount 9. 15 events scan PowerShell, 4
 * "VBScript" (Engine "VBScript", one Script "msgbox \"Is VBScript Dead?\"\r\n"). */
static size_t g_amsi_ps, g_amsi_vbs, g_amsi_msgbox;

static void amsi_check(const struct etl_event *ev, const struct etl_decoded *r, size_t nth)
{
	ck_assert_str_eq(r->event_name, "AmsiScript");
	ck_assert_uint_eq(r->tags, 0);
	const struct etl_prop *eng = topp(r, "Engine");
	static const char ps[] =
		"PowerShell_C:\\Windows\\System32\\WindowsPowerShell\\v1.0\\powershell.exe_10.0.18362.1";
	if (eng->v.str.len == strlen("VBScript")) {
		assert_str(eng, "VBScript");
		g_amsi_vbs++;
		static const char vbs[] = "msgbox \"Is VBScript Dead?\"\r\n";
		const struct etl_prop *scr = topp(r, "Script");
		if (scr->v.str.len == strlen(vbs) && memcmp(scr->v.str.s, vbs, strlen(vbs)) == 0)
			g_amsi_msgbox++;
	} else {
		assert_str(eng, ps);
		g_amsi_ps++;
	}
	const struct etl_prop *raw = topp(r, "Raw Script");
	ck_assert_int_eq(raw->kind, ETL_VAL_ARRAY);
	ck_assert_uint_eq(raw->in_type, ETL_IN_UINT16);
	ck_assert_uint_eq(raw->out_type, ETL_OUT_STRING);
	/* Raw Script holds the same text as Script, one UTF-16 unit per
	 * element (compared as code points: the scripts are in the BMP). */
	const struct etl_prop *scr = topp(r, "Script");
	const uint8_t *u = (const uint8_t *)scr->v.str.s, *end = u + scr->v.str.len;
	uint32_t k = 0;
	while (u < end) {
		uint32_t cp = *u++;
		int more = cp >= 0xE0 ? 2 : cp >= 0xC0 ? 1 : 0;
		cp &= more == 2 ? 0x0F : more == 1 ? 0x1F : 0x7F;
		while (more-- > 0 && u < end)
			cp = (cp << 6) | (*u++ & 0x3F);
		TU_REQUIRE(k < raw->n_children);
		TU_CHECK(child(r, raw, k)->v.u == cp, "element %u: %" PRIu64 " != U+%04X", k,
		         child(r, raw, k)->v.u, cp);
		k++;
	}
	ck_assert_uint_eq(k, raw->n_children);
	ck_assert_uint_eq(raw->payload_offset + 2 + 2 * raw->n_children, ev->payload_size);
	if (nth == 0) {
		ck_assert_uint_eq(ev->payload_size, 1568);
		ck_assert_uint_eq(scr->payload_offset, 0xa4);
		ck_assert_uint_eq(raw->payload_offset, 0x362);
		ck_assert_uint_eq(raw->n_children, 350);
		ck_assert(scr->v.str.len > 40 &&
		          memcmp(scr->v.str.s, "if ($this.Name.IndexOf('-') -lt 0)\r\n", 36) == 0);
		ck_assert_uint_eq(child(r, raw, 0)->v.u, 'i');
	} else if (nth == 1) {
		ck_assert_uint_eq(ev->payload_size, 204);
		assert_str(scr, "$global:?");
		ck_assert_uint_eq(raw->n_children, 9);
	}
}

START_TEST(test_corpus_amsi_values)
{
	TU_NEED_CORPUS();
	etl_decoder *d = etl_decoder_new();
	g_amsi_ps = g_amsi_vbs = g_amsi_msgbox = 0;
	ck_assert_uint_eq(run_file("amsi-tracelogging.etl", d, amsi_check), 19);
	/* 15 PowerShell scans, 4 VBScript ones, one of them the msgbox. */
	ck_assert_uint_eq(g_amsi_ps, 15);
	ck_assert_uint_eq(g_amsi_vbs, 4);
	ck_assert_uint_eq(g_amsi_msgbox, 1);
	etl_decoder_free(d);
}
END_TEST

/* eventsource-primitive-types.etl: not one event per type family but five
 * "PrimitiveTypesTest" events (provider "solar_system"), each carrying one
 * field of every primitive type. Metadata: string_type 02 (ANSI),
 * boolean_type 84 03 (UINT8, out BOOLEAN), char_type 84 02 (UINT8, out
 * STRING), int16_type 05, int32_type 07, uint16_type 06, uint32_type 08,
 * int64_type 0a (written as UINT64!), uint64_type 0a, guid_type 0f,
 * file_time_type 11, system_time_type 12. First payload (78 bytes):
 *   4d 65 72 63 75 72 79 00 "Mercury" | 00 false | 4d 'M' | cd ff -51 |
 *   9a ff ff ff -102 | 33 00 51 | 66 00 00 00 102 | 34 ff*7 (-204 as u64) |
 *   cc 00*7 204 | c4 14 d6 0a f4 0e 25 42 80 13 f4 4f 37 cb 03 97 |
 *   70 10 fa 4d 8b a5 d7 01 | e5 07 09 00 04 00 09 00 0e 00 3b 00 23 00 1f 03
 *   (2021-09-09 Thu 14:59:35.799).
 * In every event: char = the planet's initial; int16 = -uint16,
 * int32 = -uint32 = -2*uint16, uint64 = 2*uint32, int64 = -uint64; the
 * FILETIME and the SYSTEMTIME are the same instant. */
static void prim_check(const struct etl_event *ev, const struct etl_decoded *r, size_t nth)
{
	static const char *planets[] = { "Mercury", "Venus", "Earth", "Mars", "Jupiter" };
	(void)ev;
	ck_assert_uint_lt(nth, 5);
	ck_assert_str_eq(r->event_name, "PrimitiveTypesTest");
	ck_assert_uint_eq(r->n_props, 12);
	assert_str(topp(r, "string_type"), planets[nth]);
	ck_assert_uint_eq(topp(r, "string_type")->in_type, ETL_IN_ANSISTRING);
	ck_assert_int_eq(topp(r, "boolean_type")->kind, ETL_VAL_BOOL);
	ck_assert_uint_eq(topp(r, "char_type")->out_type, ETL_OUT_STRING);
	ck_assert_uint_eq(topp(r, "char_type")->v.u, (uint8_t)planets[nth][0]);
	uint64_t u16 = topp(r, "uint16_type")->v.u;
	ck_assert_int_eq(topp(r, "int16_type")->v.i, -(int64_t)u16);
	ck_assert_uint_eq(topp(r, "uint32_type")->v.u, 2 * u16);
	ck_assert_int_eq(topp(r, "int32_type")->v.i, -2 * (int64_t)u16);
	ck_assert_uint_eq(topp(r, "uint64_type")->v.u, 4 * u16);
	ck_assert_uint_eq(topp(r, "int64_type")->in_type, ETL_IN_UINT64);
	ck_assert_uint_eq(topp(r, "int64_type")->v.u, (uint64_t)(-4 * (int64_t)u16));
	ck_assert_int_eq(topp(r, "file_time_type")->kind, ETL_VAL_FILETIME);
	ck_assert_int_eq(topp(r, "system_time_type")->kind, ETL_VAL_FILETIME);
	ck_assert_int_eq(topp(r, "system_time_type")->v.i, topp(r, "file_time_type")->v.i);
	ck_assert_int_eq(topp(r, "guid_type")->kind, ETL_VAL_GUID);
	if (nth == 0) {
		struct etl_guid g = tu_guid("0ad614c4-0ef4-4225-8013-f44f37cb0397");
		ck_assert_uint_eq(topp(r, "boolean_type")->v.u, 0);
		ck_assert_uint_eq(u16, 51);
		ck_assert_int_eq(topp(r, "int16_type")->v.i, -51);
		ck_assert_int_eq(topp(r, "int32_type")->v.i, -102);
		ck_assert_uint_eq(topp(r, "uint32_type")->v.u, 102);
		ck_assert_uint_eq(topp(r, "int64_type")->v.u, 0xffffffffffffff34ull);
		ck_assert_uint_eq(topp(r, "uint64_type")->v.u, 204);
		ck_assert(etl_guid_equal(&topp(r, "guid_type")->v.guid, &g));
		ck_assert_int_eq(topp(r, "file_time_type")->v.i, 0x01d7a58b4dfa1070ll);
		ck_assert_int_eq(topp(r, "system_time_type")->v.i, 132756731757990000ll);
		ck_assert_uint_eq(topp(r, "system_time_type")->payload_offset, 62);
	} else if (nth == 1) {
		ck_assert_uint_eq(topp(r, "boolean_type")->v.u, 1);
		ck_assert_uint_eq(u16, 95);
	}
}

START_TEST(test_corpus_primitive_values)
{
	TU_NEED_CORPUS();
	etl_decoder *d = etl_decoder_new();
	ck_assert_uint_eq(run_file("eventsource-primitive-types.etl", d, prim_check), 5);
	etl_decoder_free(d);
}
END_TEST

/* wsl-lxcore-tracelogging.etl: two "BreakPoint" events of
 * Microsoft.Windows.Subsystem.LxCore; metadata tags are two bytes "80 00"
 * (= 0); the traits carry a group GUID (type 1). Fields: ErrorLevel 04,
 * instanceId 0f, LxPid 07, LxTid 07, LxNs 07, ExecutablePath 17
 * (COUNTEDANSISTRING), Function 02, Line 08, Message 02. Payload of the
 * DrvFs one: 02 | 16 zero bytes | ff ff ff ff | ff ff ff ff | 00 00 00 00 |
 * 00 00 | "LxpDrvFsTypeMount\0" | 20 29 00 00 (10528) |
 * "Failed to open volume C:\WINDOWS\system32\lxss\tools, result -2\n\0". */
static void wsl_check(const struct etl_event *ev, const struct etl_decoded *r, size_t nth)
{
	(void)ev;
	(void)nth;
	static const char *names[] = { "ErrorLevel", "instanceId", "LxPid", "LxTid", "LxNs",
	                               "ExecutablePath", "Function", "Line", "Message" };
	ck_assert_str_eq(r->event_name, "BreakPoint");
	ck_assert_uint_eq(r->tags, 0);
	ck_assert_uint_eq(r->n_props, 9);
	for (uint32_t i = 0; i < 9; i++)
		ck_assert_str_eq(r->props[i].name, names[i]);
	ck_assert_uint_eq(topp(r, "ErrorLevel")->v.u, 2);
	struct etl_guid z;
	memset(&z, 0, sizeof z);
	ck_assert(etl_guid_equal(&topp(r, "instanceId")->v.guid, &z));
	ck_assert_int_eq(topp(r, "LxPid")->v.i, -1);
	ck_assert_int_eq(topp(r, "LxTid")->v.i, -1);
	ck_assert_int_eq(topp(r, "LxNs")->v.i, 0);
	assert_str(topp(r, "ExecutablePath"), "");
	ck_assert_uint_eq(topp(r, "ExecutablePath")->in_type, ETL_IN_COUNTEDANSISTRING);
	const struct etl_prop *fn = topp(r, "Function");
	if (fn->v.str.len == strlen("LxpDrvFsTypeMount")) {
		assert_str(fn, "LxpDrvFsTypeMount");
		ck_assert_uint_eq(topp(r, "Line")->v.u, 10528);
		assert_str(topp(r, "Message"),
		           "Failed to open volume C:\\WINDOWS\\system32\\lxss\\tools, result -2\n");
		ck_assert_uint_eq(topp(r, "Line")->payload_offset, 49);
	} else {
		assert_str(fn, "LxpInstanceStart");
		ck_assert_uint_eq(topp(r, "Line")->v.u, 2659);
		assert_str(topp(r, "Message"), "[0xc0000034] LxpInstanceInitialize\n");
	}
}

START_TEST(test_corpus_wsl_values)
{
	TU_NEED_CORPUS();
	etl_decoder *d = etl_decoder_new();
	ck_assert_uint_eq(run_file("wsl-lxcore-tracelogging.etl", d, wsl_check), 2);
	etl_decoder_free(d);
}
END_TEST

/* windowsupdate-tracelogging.etl: every event of WUTraceLogging has one
 * UTF-16 field "Info" (metadata e.g. "0f 00 | 00 | Agent\0 | Info\0 01").
 * Two "ComApi" events (records at 0x2298 and 0x28a8, see check_corpus.c
 * KNOWN_EXT_DISCREPANCY) carry "XxxJobImpl: _EndXxx invoked (cV = ...)".
 * The first event (file order) is an "Agent" event. */
static size_t g_wu_jobimpl;

static void wu_check(const struct etl_event *ev, const struct etl_decoded *r, size_t nth)
{
	(void)ev;
	ck_assert_uint_eq(r->n_props, 1);
	const struct etl_prop *info = topp(r, "Info");
	ck_assert_uint_eq(info->in_type, ETL_IN_UNICODESTRING);
	ck_assert_uint_eq(info->payload_offset, 0);
	if (nth == 0) {
		ck_assert_str_eq(r->event_name, "Agent");
		assert_str(info, "Reschedule the tasks in callback work item if they are waiting to execute.");
	}
	static const char pre[] = "XxxJobImpl: _EndXxx invoked";
	if (info->v.str.len >= sizeof pre - 1 && memcmp(info->v.str.s, pre, sizeof pre - 1) == 0) {
		ck_assert_str_eq(r->event_name, "ComApi");
		if (g_wu_jobimpl == 0)
			assert_str(info, "XxxJobImpl: _EndXxx invoked (cV = FkIxASxtF0m0xJOD.41.105.1.0.0)");
		else
			assert_str(info, "XxxJobImpl: _EndXxx invoked (cV = FkIxASxtF0m0xJOD.41.105.1.1)");
		ck_assert_uint_eq(ev->payload_size, 2 * info->v.str.len + 2);
		g_wu_jobimpl++;
	}
}

START_TEST(test_corpus_wu_values_and_cache)
{
	TU_NEED_CORPUS();
	etl_decoder *d = etl_decoder_new();
	g_wu_jobimpl = 0;
	ck_assert_uint_eq(run_file("windowsupdate-tracelogging.etl", d, wu_check), 80);
	ck_assert_uint_eq(g_wu_jobimpl, 2);

	/* Count distinct (provider, traits, metadata) blobs independently. */
	char *path = tu_corpus_path("windowsupdate-tracelogging.etl");
	etl_reader *rd = etl_reader_new();
	const struct etl_event *ev;
	struct tu_bytes seen[64];
	size_t nseen = 0;
	int rc;
	etl_reader_set_order(rd, ETL_ORDER_FILE);
	ck_assert_int_eq(etl_reader_open_file(rd, path), ETL_OK);
	while ((rc = etl_reader_next(rd, &ev)) != ETL_END) {
		const uint8_t *meta, *traits;
		size_t ml, tl;
		if ((rc != ETL_OK && rc != ETL_WARN) || !has_tl_item(ev, &meta, &ml, &traits, &tl))
			continue;
		struct tu_bytes k;
		tu_bytes_init(&k);
		tu_putguid(&k, &ev->provider);
		tu_put32(&k, (uint32_t)tl);
		tu_putbytes(&k, traits, tl);
		tu_putbytes(&k, meta, ml);
		size_t i;
		for (i = 0; i < nseen; i++)
			if (seen[i].len == k.len && memcmp(seen[i].p, k.p, k.len) == 0)
				break;
		if (i == nseen) {
			ck_assert_uint_lt(nseen, 64);
			seen[nseen++] = k;
		} else {
			tu_bytes_free(&k);
		}
	}
	etl_reader_free(rd);
	free(path);
	ck_assert_uint_eq(nseen, 7);                     /* Agent, ComApi, ... */
	ck_assert_uint_eq(etl__decoder_schema_parses(d), nseen);
	ck_assert_uint_eq(etl__decoder_cache_entries(d), nseen);

	/* A second pass parses nothing. */
	ck_assert_uint_eq(run_file("windowsupdate-tracelogging.etl", d, NULL), 80);
	ck_assert_uint_eq(etl__decoder_schema_parses(d), nseen);
	for (size_t i = 0; i < nseen; i++)
		tu_bytes_free(&seen[i]);
	etl_decoder_free(d);
}
END_TEST

/* The small files: eventsource-selfdescribing (struct), hw3d, waasmedic. */
static void selfdesc_check(const struct etl_event *ev, const struct etl_decoded *r, size_t nth)
{
	(void)ev;
	(void)nth;
	/* "17 00 | 00 | TestEvent\0 | a\0 98 02 | b\0 01 | c\0 01": struct a
	 * of two UTF-16 strings. */
	ck_assert_str_eq(r->provider_name, "MySource");
	ck_assert_str_eq(r->event_name, "TestEvent");
	ck_assert_uint_eq(r->n_props, 3);
	const struct etl_prop *a = &r->props[0];
	ck_assert_str_eq(a->name, "a");
	ck_assert_int_eq(a->kind, ETL_VAL_STRUCT);
	ck_assert_uint_eq(a->n_children, 2);
	ck_assert_str_eq(child(r, a, 0)->name, "b");
	assert_str(child(r, a, 0), "Hello");
	ck_assert_str_eq(child(r, a, 1)->name, "c");
	assert_str(child(r, a, 1), "World!");
	ck_assert_uint_eq(child(r, a, 1)->payload_offset, 12);
}

static void hw3d_check(const struct etl_event *ev, const struct etl_decoded *r, size_t nth)
{
	(void)ev;
	(void)nth;
	/* "20 00 | 00 | WinMain\0 | lpCmdLine\0 02 | nCmdShow\0 07"; payload
	 * 00 | 0a 00 00 00. */
	ck_assert_str_eq(r->event_name, "WinMain");
	assert_str(topp(r, "lpCmdLine"), "");
	ck_assert_int_eq(topp(r, "nCmdShow")->v.i, 10);
	ck_assert_uint_eq(topp(r, "nCmdShow")->payload_offset, 1);
}

static size_t g_medic_warnings;

static void medic_check(const struct etl_event *ev, const struct etl_decoded *r, size_t nth)
{
	(void)ev;
	/* "0b 00 | 00 | Info\0 | m\0 01" (and "Warning"). */
	ck_assert_uint_eq(r->n_props, 1);
	ck_assert_uint_eq(topp(r, "m")->in_type, ETL_IN_UNICODESTRING);
	if (nth == 0) {
		ck_assert_str_eq(r->event_name, "Info");
		assert_str(topp(r, "m"), "** Service starting **");
	} else if (nth == 1) {
		assert_str(topp(r, "m"), "WaaSMedic service module version: 10.0.22621.5547");
	}
	if (strcmp(r->event_name, "Warning") == 0)
		g_medic_warnings++;
}

START_TEST(test_corpus_small_files)
{
	TU_NEED_CORPUS();
	etl_decoder *d = etl_decoder_new();
	ck_assert_uint_eq(run_file("eventsource-selfdescribing-compressed.etl", d, selfdesc_check), 1);
	ck_assert_uint_eq(run_file("hw3d-single-tracelogging.etl", d, hw3d_check), 1);
	g_medic_warnings = 0;
	ck_assert_uint_eq(run_file("waasmedic-tracelogging.etl", d, medic_check), 17);
	ck_assert_uint_eq(g_medic_warnings, 1);
	etl_decoder_free(d);
}
END_TEST

/* Files without TraceLogging: no event goes to the TraceLogging decoder,
 * nothing crashes. */
START_TEST(test_corpus_other_files)
{
	TU_NEED_CORPUS();
	static const char *files[] = { "clr-gc-circular.etl", "powershell-manifest.etl",
	                               "onedrive-cldflt-wpp.etl", "win7-classic-image-32.etl" };
	etl_decoder *d = etl_decoder_new();
	for (size_t i = 0; i < sizeof files / sizeof files[0]; i++)
		ck_assert_uint_eq(run_file(files[i], d, NULL), 0);
	etl_decoder_free(d);
}
END_TEST

/* ------------------------------------------------------------------ */
/* packed arrays (ETL_DECODE_PACKED_ARRAYS)                             */
/* ------------------------------------------------------------------ */

struct sink {
	struct tu_bytes b;
};

static int sink_write(void *ctx, const void *p, size_t n)
{
	tu_putbytes(&((struct sink *)ctx)->b, p, n);
	return 0;
}

static const char *const k_formats[] = { "xml", "json", "jsonl", "csv", "text" };
#define N_FORMATS (sizeof k_formats / sizeof k_formats[0])

/* One output handle per format writing into its sink. */
struct outs {
	etl_output *o[N_FORMATS];
	struct sink s[N_FORMATS];
};

static void outs_open(struct outs *x)
{
	for (size_t f = 0; f < N_FORMATS; f++) {
		tu_bytes_init(&x->s[f].b);
		x->o[f] = etl_output_new(k_formats[f], sink_write, &x->s[f]);
		ck_assert_ptr_nonnull(x->o[f]);
		ck_assert_int_eq(etl_output_begin(x->o[f], NULL), ETL_OK);
	}
}

static void outs_event(struct outs *x, const struct etl_event *ev, const struct etl_decoded *r)
{
	for (size_t f = 0; f < N_FORMATS; f++)
		ck_assert_int_eq(etl_output_event(x->o[f], ev, r), ETL_OK);
}

/* Ends both documents and asserts every format wrote the same bytes. */
static void outs_end_same(struct outs *a, struct outs *b, const char *what)
{
	for (size_t f = 0; f < N_FORMATS; f++) {
		ck_assert_int_eq(etl_output_end(a->o[f]), ETL_OK);
		ck_assert_int_eq(etl_output_end(b->o[f]), ETL_OK);
		const struct tu_bytes *x = &a->s[f].b, *y = &b->s[f].b;
		size_t at = 0;
		while (at < x->len && at < y->len && x->p[at] == y->p[at])
			at++;
		ck_assert_msg(x->len == y->len && at == x->len,
		              "%s, %s: packed %zu bytes, unpacked %zu, first difference at %zu: \"%.40s\" / \"%.40s\"",
		              what, k_formats[f], y->len, x->len, at, (const char *)x->p + at,
		              (const char *)y->p + at);
		etl_output_free(a->o[f]);
		etl_output_free(b->o[f]);
	}
}

static void outs_free(struct outs *x)
{
	for (size_t f = 0; f < N_FORMATS; f++)
		tu_bytes_free(&x->s[f].b);
}

/* The unpacked result u and the packed one p of one event: the same top
 * level; every array of u that p packs holds, through
 * etl_decoded_element(), u's elements (their parent: the array in each);
 * everything else the same. Returns the number of packed arrays, their
 * elements added to *elems. */
static uint32_t assert_packed_same(const struct etl_decoded *u, const struct etl_decoded *p, uint64_t *elems)
{
	/* TU_CHECK per property and element: the CLR trace has 730,000 */
	uint32_t npacked = 0;
	ck_assert_int_eq(u->status, p->status);
	ck_assert_uint_le(p->n_props, u->n_props);
	/* Walk both trees together from the top level; each property is
	 * on the stacks at most once. */
	uint32_t *stack_u = malloc(sizeof *stack_u * ((size_t)u->n_props + 1));
	uint32_t *stack_p = malloc(sizeof *stack_p * ((size_t)u->n_props + 1));
	ck_assert(stack_u && stack_p);
	uint32_t depth = 0;
	uint32_t ntop = 0;
	while (ntop < u->n_props && u->props[ntop].parent == ETL_PROP_NO_PARENT)
		ntop++;
	for (uint32_t t = 0; t < ntop; t++) {
		stack_u[0] = t;
		stack_p[0] = t;
		depth = 1;
		while (depth) {
			depth--;
			const struct etl_prop *a = &u->props[stack_u[depth]], *b = &p->props[stack_p[depth]];
			TU_CHECK(strcmp(a->name, b->name) == 0, "name %s / %s", a->name, b->name);
			TU_CHECK(a->in_type == b->in_type && a->out_type == b->out_type &&
			                   a->payload_offset == b->payload_offset && a->n_children == b->n_children,
			           "%s: in %u/%u out %u/%u offset %u/%u children %u/%u", a->name, a->in_type,
			           b->in_type, a->out_type, b->out_type, a->payload_offset, b->payload_offset,
			           a->n_children, b->n_children);
			if (b->kind == ETL_VAL_ARRAY_PACKED) {
				TU_CHECK(a->kind == ETL_VAL_ARRAY, "%s: packed from kind %d", a->name, a->kind);
				TU_CHECK(b->n_children >= 1 && b->v.bin.len % b->n_children == 0,
				           "%s: %u elements in %zu bytes", b->name, b->n_children, b->v.bin.len);
				npacked++;
				*elems += b->n_children;
				for (uint32_t k = 0; k < a->n_children; k++) {
					const struct etl_prop *ea = &u->props[a->first_child + k];
					struct etl_prop eb, ec;
					TU_CHECK(etl_decoded_element(p, stack_p[depth], k, &eb) == ETL_OK,
					           "%s[%u]: no packed element", a->name, k);
					TU_CHECK(strcmp(ea->name, eb.name) == 0 && ea->kind == eb.kind &&
					                   ea->in_type == eb.in_type && ea->out_type == eb.out_type &&
					                   ea->v.u == eb.v.u && ea->payload_offset == eb.payload_offset &&
					                   ea->n_children == eb.n_children && ea->map_name == eb.map_name &&
					                   ea->parent == stack_u[depth] && eb.parent == stack_p[depth],
					           "%s[%u]: kind %d/%d value %" PRIu64 "/%" PRIu64 " offset %u/%u parent %u/%u",
					           a->name, k, ea->kind, eb.kind, ea->v.u, eb.v.u, ea->payload_offset,
					           eb.payload_offset, ea->parent, eb.parent);
					/* and the unpacked array's elements through the same call */
					TU_CHECK(etl_decoded_element(u, stack_u[depth], k, &ec) == ETL_OK &&
					                   memcmp(&ec, ea, sizeof ec) == 0,
					           "%s[%u]: etl_decoded_element() of the unpacked array differs", a->name, k);
				}
				struct etl_prop past;
				ck_assert_int_eq(etl_decoded_element(p, stack_p[depth], b->n_children, &past),
				                 ETL_FAILED);
				continue;
			}
			TU_CHECK(a->kind == b->kind, "%s: kind %d / %d", a->name, a->kind, b->kind);
			if (a->kind != ETL_VAL_STRUCT && a->kind != ETL_VAL_ARRAY) {
				/* covers v.u and v.str.len */
				TU_CHECK(a->v.bin.len == b->v.bin.len, "%s: value %zu / %zu", a->name, a->v.bin.len,
				           b->v.bin.len);
				continue;
			}
			for (uint32_t k = a->n_children; k-- > 0;) {
				TU_CHECK(depth <= u->n_props, "%s: walk deeper than the properties", a->name);
				stack_u[depth] = a->first_child + k;
				stack_p[depth] = b->first_child + k;
				depth++;
			}
		}
	}
	free(stack_u);
	free(stack_p);
	return npacked;
}

/* An event with every kind of integer array the decoder packs, and a
 * struct array that holds one: decoded both ways, the same values, and
 * the same bytes from every writer. */
START_TEST(test_tl_packed_arrays)
{
	struct tlb b;
	struct tev t;
	const struct etl_decoded *u, *p;
	etl_decoder *du = etl_decoder_new(), *dp = etl_decoder_new();
	ck_assert_ptr_nonnull(du);
	ck_assert_ptr_nonnull(dp);
	ck_assert_int_eq(etl_decoder_set_flags(dp, ETL_DECODE_PACKED_ARRAYS), ETL_OK);

	/* 8-bit characters: quotes, backslash, line breaks, a control, markup,
	 * a byte from 0x80, runs of 16 and more plain ones, and one character
	 * to escape amid 16 plain ones before and after (so that whatever 16
	 * are taken at once, some hold it and only plain ones else). */
#define AMID(c) "yyyyyyyyyyyyyyyy" c "yyyyyyyyyyyyyyyy"
	static const char c8[] = "a\"b\\c\r\n\x01<&>'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\xe9yyyyyyyyyyyyyyyyyy\x7f"
	                         AMID("\r") AMID("\x1f") AMID(" ") AMID("\"") AMID("\\") AMID("\x7f") AMID("!")
	                         AMID("<") AMID("&");
#undef AMID
	const uint16_t n8 = (uint16_t)(sizeof c8 - 1);
	tlb_init(&b, "Packed");
	fld_out(&b, "c8", ETL_IN_UINT8 | 0x40, 2);
	tu_put16(&b.pay, n8);
	tu_putbytes(&b.pay, c8, n8);
	/* 16-bit characters: the same, then one from 0x100 and a surrogate */
	fld_out(&b, "c16", ETL_IN_UINT16 | 0x40, 2);
	tu_put16(&b.pay, (uint16_t)(n8 + 2));
	for (uint16_t k = 0; k < n8; k++)
		tu_put16(&b.pay, (uint8_t)c8[k]);
	tu_put16(&b.pay, 0x263A);
	tu_put16(&b.pay, 0xD800);
	/* every ASCII character, each next to a quote, so that no 16 of them
	 * are taken at once */
	fld_out(&b, "ascii", ETL_IN_UINT8 | 0x40, 2);
	tu_put16(&b.pay, 256);
	for (unsigned c = 0; c < 128; c++) {
		tu_put8(&b.pay, (uint8_t)c);
		tu_put8(&b.pay, '"');
	}
	/* script text: quotes, backslashes and the characters JSON writes as
	 * \b \t \n \f \r among plain ones, no other control, so that every
	 * 16 taken at once that are not all plain go piece by piece */
	static const char esc[] = "say \"hi\"\r\n\tC:\\dir\b\f 'x' == \"y\";\r\n"
	                          "if (a) { b(\"\\\\\"); }\r\n\t\treturn \"ok\";\r\n";
	const uint16_t nesc = (uint16_t)(sizeof esc - 1);
	fld_out(&b, "esc8", ETL_IN_UINT8 | 0x40, 2);
	tu_put16(&b.pay, nesc);
	tu_putbytes(&b.pay, esc, nesc);
	fld_out(&b, "esc16", ETL_IN_UINT16 | 0x40, 2);
	tu_put16(&b.pay, nesc);
	for (uint16_t k = 0; k < nesc; k++)
		tu_put16(&b.pay, (uint8_t)esc[k]);
	/* char arrays under names of 60 and 130 bytes (the XML writer copies
	 * a name from 48 bytes on in 16-byte blocks, and past 112 bytes
	 * formats each element's name) */
	static const char name60[] = "L123456789012345678901234567890123456789012345678901234567890";
	static const char name130[] = "M123456789012345678901234567890123456789012345678901234567890"
	                              "1234567890123456789012345678901234567890123456789012345678901234567890";
	fld_out(&b, name60, ETL_IN_UINT8 | 0x40, 2);
	tu_put16(&b.pay, 12);
	tu_putbytes(&b.pay, "<a&b\"c'd>e\xe9" "f", 12);
	fld_out(&b, name130, ETL_IN_UINT16 | 0x40, 2);
	tu_put16(&b.pay, 3);
	tu_putbytes(&b.pay, "<\0&\0z\0", 6);
	/* a char array that starts with a byte from 0x80 */
	fld_out(&b, "hi8", ETL_IN_INT8 | 0x40, 2);
	tu_put16(&b.pay, 3);
	tu_putbytes(&b.pay, "\xc3\xa9z", 3);
	fld(&b, "i8", ETL_IN_INT8 | 0x40);
	tu_put16(&b.pay, 3);
	tu_putbytes(&b.pay, "\xfb\x7f\x80", 3);
	fld(&b, "i16", ETL_IN_INT16 | 0x20);
	tu_put16(&b.meta, 3);
	tu_put16(&b.pay, 0xFFFF);
	tu_put16(&b.pay, 0x7FFF);
	tu_put16(&b.pay, 0x8000);
	fld(&b, "u32", ETL_IN_UINT32 | 0x40);
	tu_put16(&b.pay, 2);
	tu_put32(&b.pay, 0xFFFFFFFFu);
	tu_put32(&b.pay, 7);
	fld(&b, "b32", ETL_IN_BOOLEAN | 0x40);
	tu_put16(&b.pay, 3);
	tu_put32(&b.pay, 0);
	tu_put32(&b.pay, 1);
	tu_put32(&b.pay, 2);
	fld_out(&b, "ub", ETL_IN_UINT8 | 0x40, 3);       /* out BOOLEAN */
	tu_put16(&b.pay, 2);
	tu_putbytes(&b.pay, "\x00\x05", 2);
	fld(&b, "h64", ETL_IN_HEXINT64 | 0x40);
	tu_put16(&b.pay, 2);
	tu_put64(&b.pay, 0xFFFFF80012345678ull);
	tu_put64(&b.pay, 0);
	fld_out(&b, "t64", ETL_IN_INT64 | 0x40, 16);     /* out FILETIME: DATETIME */
	tu_put16(&b.pay, 2);
	tu_put64(&b.pay, 132434123456789012ull);
	tu_put64(&b.pay, 0);
	fld_out(&b, "x32", ETL_IN_UINT32 | 0x40, 4);      /* out HEX */
	tu_put16(&b.pay, 1);
	tu_put32(&b.pay, 0xBEEF);
	/* signed in hex (two's complement of the width), 64-bit decimals
	 * (JSON writes 2^53 and beyond as strings) */
	fld_out(&b, "s32x", ETL_IN_INT32 | 0x40, 4);      /* out HEX */
	tu_put16(&b.pay, 2);
	tu_put32(&b.pay, 0xFFFFFFFEu);
	tu_put32(&b.pay, 5);
	fld(&b, "u64", ETL_IN_UINT64 | 0x40);
	tu_put16(&b.pay, 4);
	tu_put64(&b.pay, 1);
	tu_put64(&b.pay, 9007199254740991ull);
	tu_put64(&b.pay, 9007199254740992ull);
	tu_put64(&b.pay, 3);
	fld(&b, "i64", ETL_IN_INT64 | 0x40);
	tu_put16(&b.pay, 3);
	tu_put64(&b.pay, (uint64_t)-5);
	tu_put64(&b.pay, 0x8000000000000000ull);
	tu_put64(&b.pay, 42);
	fld(&b, "empty", ETL_IN_UINT32 | 0x40);
	tu_put16(&b.pay, 0);
	/* an array of 2 structs, each with a number and 2 wide chars */
	fld(&b, "s", ETL_IN_STRUCT | 0x80 | 0x40);
	tu_put8(&b.meta, 2);
	fld(&b, "n", ETL_IN_UINT32);
	fld_out(&b, "w", ETL_IN_UINT16 | 0x20, 2);
	tu_put16(&b.meta, 2);
	tu_put16(&b.pay, 2);
	tu_put32(&b.pay, 1);
	tu_putbytes(&b.pay, "o\0k\0", 4);
	tu_put32(&b.pay, 2);
	tu_putbytes(&b.pay, "\"\0\\\0", 4);

	tev_make(&t, &b, NULL);
	ck_assert_int_eq(etl_decoder_decode(du, &t.ev, &u), ETL_OK);
	ck_assert_int_eq(etl_decoder_decode(dp, &t.ev, &p), ETL_OK);
	assert_tree(u);
	uint64_t elems = 0;
	/* c8 c16 ascii esc8 esc16 L.. M.. hi8 i8 i16 u32 b32 ub h64 t64 x32
	 * s32x u64 i64, and w in each struct */
	ck_assert_uint_eq(assert_packed_same(u, p, &elems), 19 + 2);
	ck_assert_uint_eq(elems, n8 + (n8 + 2u) + 256 + 2u * nesc + 12 + 3 + 3 + 3 + 3 + 2 + 3 + 2 + 2 + 2 + 1 +
	                                 2 + 4 + 3 + 2 * 2);
	/* One property per packed array's elements: this many fewer. */
	ck_assert_uint_eq(u->n_props - p->n_props, elems - 21);
	/* element values read back through the packed form */
	uint32_t i16 = top(p, "i16");
	struct etl_prop e;
	ck_assert_int_eq(etl_decoded_element(p, i16, 2, &e), ETL_OK);
	ck_assert_int_eq(e.kind, ETL_VAL_INT);
	ck_assert_int_eq(e.v.i, -32768);
	ck_assert_int_eq(etl_decoded_element(p, top(p, "b32"), 2, &e), ETL_OK);
	ck_assert_int_eq(e.kind, ETL_VAL_BOOL);
	ck_assert_uint_eq(e.v.u, 1);
	ck_assert_int_eq(etl_decoded_element(p, top(p, "t64"), 0, &e), ETL_OK);
	ck_assert_int_eq(e.kind, ETL_VAL_FILETIME);
	ck_assert_int_eq(topp(p, "empty")->kind, ETL_VAL_ARRAY);   /* nothing to pack */
	/* misuse */
	ck_assert_int_eq(etl_decoded_element(NULL, 0, 0, &e), ETL_FAILED);
	ck_assert_int_eq(etl_decoded_element(p, i16, 0, NULL), ETL_FAILED);
	ck_assert_int_eq(etl_decoded_element(p, p->n_props, 0, &e), ETL_FAILED);
	ck_assert_int_eq(etl_decoded_element(p, top(p, "empty"), 0, &e), ETL_FAILED);
	e.v.u = 12345;
	ck_assert_int_eq(etl_decoded_element(p, p->props[i16].first_child, 0, &e), ETL_FAILED);
	ck_assert_uint_eq(e.v.u, 12345);                /* untouched */

	/* Every writer: the same bytes from both results. */
	struct outs ou, op;
	outs_open(&ou);
	outs_open(&op);
	outs_event(&ou, &t.ev, u);
	outs_event(&op, &t.ev, p);
	outs_end_same(&ou, &op, "hand-built event");
	/* and the characters as they should be, not only alike */
	const char *j = (const char *)op.s[2].b.p;
	ck_assert_ptr_nonnull(strstr(j, "\"c8\":[\"a\",\"\\\"\",\"b\",\"\\\\\",\"c\",\"\\r\",\"\\n\",\"\\u0001\",\"<\",\"&\",\">\",\"'\",\"x\","));
	ck_assert_ptr_nonnull(strstr(j, "\"w\":[\"\\\"\",\"\\\\\"]"));
	ck_assert_ptr_nonnull(strstr(j, "\"ascii\":[\"\\u0000\",\"\\\"\",\"\\u0001\","));
	ck_assert_ptr_nonnull(strstr(j, "\"\\b\",\"\\\"\",\"\\t\",\"\\\"\",\"\\n\",\"\\\"\",\"\\u000b\","));
	ck_assert_ptr_nonnull(strstr(j, "\" \",\"\\\"\",\"!\",\"\\\"\",\"\\\"\",\"\\\"\",\"#\","));
	ck_assert_ptr_nonnull(strstr(j, "\"\\\\\",\"\\\"\",\"]\","));
	ck_assert_ptr_nonnull(strstr(j, "\"~\",\"\\\"\",\"\x7f\",\"\\\"\"]"));
	/* the script text, character by character, 8- and 16-bit */
	char want_esc[1024];
	size_t wn = 0;
	for (size_t k = 0; k < nesc; k++) {
		const char c = esc[k];
		const char *ce = c == '"' ? "\\\"" : c == '\\' ? "\\\\" : c == '\r' ? "\\r" : c == '\n' ? "\\n"
		               : c == '\t' ? "\\t" : c == '\b' ? "\\b" : c == '\f' ? "\\f" : NULL;
		wn += (size_t)snprintf(want_esc + wn, sizeof want_esc - wn, "%s\"", k ? "," : "[");
		if (ce)
			wn += (size_t)snprintf(want_esc + wn, sizeof want_esc - wn, "%s", ce);
		else
			want_esc[wn++] = c;
		wn += (size_t)snprintf(want_esc + wn, sizeof want_esc - wn, "\"");
	}
	snprintf(want_esc + wn, sizeof want_esc - wn, "]");
	ck_assert_uint_lt(wn + 1, sizeof want_esc);
	char key_esc[2 * sizeof want_esc + 32];
	snprintf(key_esc, sizeof key_esc, "\"esc8\":%s,\"esc16\":%s", want_esc, want_esc);
	ck_assert_msg(strstr(j, key_esc) != NULL, "esc8/esc16 not written as %s", want_esc);
	/* an array whose first character is not ASCII, then one that is */
	ck_assert_ptr_nonnull(strstr(j, "\"hi8\":[\"\xc3\x83\",\"\xc2\xa9\",\"z\"],\"i8\":[-5,127,-128]"));
	/* integer runs from the bytes: hex in the in-type's width, 2^53 on
	 * a string */
	ck_assert_ptr_nonnull(strstr(j, "\"x32\":[\"0xbeef\"],\"s32x\":[\"0xfffffffe\",\"0x5\"],"
	                                "\"u64\":[1,9007199254740991,\"9007199254740992\",3],"
	                                "\"i64\":[-5,\"-9223372036854775808\",42]"));
	ck_assert_ptr_nonnull(strstr(j, "\"h64\":[\"0xfffff80012345678\",\"0x0\"]"));
	const char *x = (const char *)op.s[0].b.p;
	ck_assert_ptr_nonnull(strstr(x, "<Data Name=\"s32x[0]\">0xfffffffe</Data><Data Name=\"s32x[1]\">0x5</Data>"
	                                "<Data Name=\"u64[0]\">1</Data>"));
	ck_assert_ptr_nonnull(strstr(x, "<Data Name=\"u64[2]\">9007199254740992</Data><Data Name=\"u64[3]\">3</Data>"
	                                "<Data Name=\"i64[0]\">-5</Data>"
	                                "<Data Name=\"i64[1]\">-9223372036854775808</Data>"));
	ck_assert_ptr_nonnull(strstr(x, "<Data Name=\"c8[8]\">&lt;</Data><Data Name=\"c8[9]\">&amp;</Data>"));
	ck_assert_ptr_nonnull(strstr(x, "<Data Name=\"s[1].w[0]\">&quot;</Data>"));
	ck_assert_ptr_nonnull(strstr(x, "<Data Name=\"c8[99]\">y</Data><Data Name=\"c8[100]\">y</Data>"));
	char want[400];
	snprintf(want, sizeof want, "<Data Name=\"%s[8]\">&gt;</Data><Data Name=\"%s[9]\">e</Data>", name60, name60);
	ck_assert_ptr_nonnull(strstr(x, want));
	snprintf(want, sizeof want, "<Data Name=\"%s[1]\">&amp;</Data>", name130);
	ck_assert_ptr_nonnull(strstr(x, want));
	outs_free(&ou);
	outs_free(&op);

	/* flags: unknown bits refused, 0 unpacks again */
	ck_assert_int_eq(etl_decoder_set_flags(NULL, 0), ETL_FAILED);
	ck_assert_int_eq(etl_decoder_set_flags(dp, 0x2), ETL_FAILED);
	ck_assert_int_eq(etl_decoder_decode(dp, &t.ev, &p), ETL_OK);
	ck_assert_int_eq(topp(p, "c8")->kind, ETL_VAL_ARRAY_PACKED);    /* still set */
	ck_assert_int_eq(etl_decoder_set_flags(dp, 0), ETL_OK);
	ck_assert_int_eq(etl_decoder_decode(dp, &t.ev, &p), ETL_OK);
	ck_assert_int_eq(topp(p, "c8")->kind, ETL_VAL_ARRAY);
	ck_assert_uint_eq(p->n_props, u->n_props);

	tev_free(&t);
	tlb_free(&b);
	etl_decoder_free(du);
	etl_decoder_free(dp);
}
END_TEST

/* A packed array that a program built wrong (its bytes not n elements,
 * element 0 no integer, its child outside the array, no bytes) is written
 * with no element and refused by etl_decoded_element(); a right one is
 * written element by element. */
START_TEST(test_packed_arrays_malformed)
{
	static const uint8_t bytes[4] = { 'a', 'b', 'c', 'd' };
	struct etl_event ev;
	memset(&ev, 0, sizeof ev);
	ev.kind = ETL_HDR_EVENT_HEADER64;
	for (int variant = 0; variant < 5; variant++) {
		struct etl_prop props[2];
		memset(props, 0, sizeof props);
		props[0].name = "a";
		props[0].kind = ETL_VAL_ARRAY_PACKED;
		props[0].in_type = ETL_IN_UINT8;
		props[0].out_type = ETL_OUT_STRING;
		props[0].v.bin.p = bytes;
		props[0].v.bin.len = 3;
		props[0].parent = ETL_PROP_NO_PARENT;
		props[0].first_child = 1;
		props[0].n_children = 3;
		props[1] = props[0];
		props[1].kind = ETL_VAL_UINT;
		props[1].v.u = 'a';
		props[1].parent = 0;
		props[1].first_child = 0;
		props[1].n_children = 0;
		switch (variant) {
		case 1: props[0].v.bin.len = 4; break;          /* 4 bytes, 3 elements */
		case 2: props[1].kind = ETL_VAL_STRUCT; props[1].n_children = 5; break;
		case 3: props[0].first_child = 2; break;       /* past the array */
		case 4: props[0].v.bin.p = NULL; break;
		default: break;
		}
		struct etl_decoded dec;
		memset(&dec, 0, sizeof dec);
		dec.source = ETL_DECODE_TRACELOGGING;
		dec.props = props;
		dec.n_props = 2;
		struct etl_prop e;
		ck_assert_int_eq(etl_decoded_element(&dec, 0, 2, &e), variant ? ETL_FAILED : ETL_OK);
		if (!variant)
			ck_assert_uint_eq(e.v.u, 'c');
		struct outs o;
		outs_open(&o);
		outs_event(&o, &ev, &dec);
		for (size_t f = 0; f < N_FORMATS; f++) {
			ck_assert_int_eq(etl_output_end(o.o[f]), ETL_OK);
			etl_output_free(o.o[f]);
		}
		tu_put8(&o.s[2].b, 0);
		const char *j = (const char *)o.s[2].b.p;
		ck_assert_msg(strstr(j, variant ? "\"a\":[]" : "\"a\":[\"a\",\"b\",\"c\"]") != NULL,
		              "variant %d: %s", variant, j);
		tu_put8(&o.s[0].b, 0);
		const char *x = (const char *)o.s[0].b.p;
		ck_assert_msg((strstr(x, "<Data Name=\"a[2]\">c</Data>") != NULL) == !variant, "variant %d: %s",
		              variant, x);
		outs_free(&o);
	}
}
END_TEST

/* Packed arrays in each TraceLogging file of the corpus and in the files
 * whose manifest events hold integer arrays: per file, how many arrays
 * and elements the decoder packs (amsi: its "Raw Script" character
 * arrays, 19 of them; the CLR's stacks and IL offset maps), the values
 * equal to the unpacked ones, and every writer's document the same
 * bytes. manifest: loaded from the manifest directory beside the corpus
 * into both decoders, or NULL. */
static const struct {
	const char *file, *manifest;
	uint32_t arrays;
	uint64_t elems;
} packed_files[] = {
	{ "amsi-tracelogging.etl", NULL, 19, 9919 },
	{ "wsl-lxcore-tracelogging.etl", NULL, 0, 0 },
	{ "windowsupdate-tracelogging.etl", NULL, 0, 0 },
	{ "waasmedic-tracelogging.etl", NULL, 0, 0 },
	{ "hw3d-single-tracelogging.etl", NULL, 0, 0 },
	{ "eventsource-primitive-types.etl", NULL, 0, 0 },
	{ "eventsource-selfdescribing-compressed.etl", NULL, 0, 0 },
	{ "perfview-kernel-clr-x64-compressed.etl", "dotnet-runtime.ClrEtwAll.man", 47986, 727682 },
	{ "clr-gc-circular.etl", "dotnet-runtime.ClrEtwAll.man", 0, 0 },
	{ "clr-rundown-32bit-compressed.etl", "dotnet-runtime.ClrEtwAll.man", 0, 0 },
	{ "win7-kernel-process-manifest.etl", "windows-system.SystemEvents.man", 0, 0 },
};

START_TEST(test_corpus_packed_arrays)
{
	TU_NEED_CORPUS();
	const char *file = packed_files[_i].file;
	char *path = tu_corpus_path(file);
	etl_reader *rd = etl_reader_new();
	etl_decoder *du = etl_decoder_new(), *dp = etl_decoder_new();
	ck_assert(rd && du && dp);
	ck_assert_int_eq(etl_decoder_set_flags(dp, ETL_DECODE_PACKED_ARRAYS), ETL_OK);
	if (packed_files[_i].manifest) {
		char rel[128];
		snprintf(rel, sizeof rel, "../manifests/%s", packed_files[_i].manifest);
		char *man = tu_corpus_path(rel);
		ck_assert_msg(etl_decoder_add_manifest(du, man) == ETL_OK, "%s: %s", man, etl_decoder_errmsg(du));
		ck_assert_msg(etl_decoder_add_manifest(dp, man) == ETL_OK, "%s: %s", man, etl_decoder_errmsg(dp));
		free(man);
	}
	int rc = etl_reader_open_file(rd, path);
	ck_assert_msg(rc == ETL_OK || rc == ETL_WARN, "%s: %s", file, etl_reader_errmsg(rd));
	struct outs ou, op;
	outs_open(&ou);
	outs_open(&op);
	const struct etl_event *ev;
	uint32_t arrays = 0;
	uint64_t elems = 0;
	while ((rc = etl_reader_next(rd, &ev)) != ETL_END) {
		ck_assert_msg(rc != ETL_FATAL, "%s: %s", file, etl_reader_errmsg(rd));
		if (rc != ETL_OK && rc != ETL_WARN)
			continue;
		const struct etl_decoded *u, *p;
		etl_decoder_decode(du, ev, &u);
		etl_decoder_decode(dp, ev, &p);
		arrays += assert_packed_same(u, p, &elems);
		outs_event(&ou, ev, u);
		outs_event(&op, ev, p);
	}
	outs_end_same(&ou, &op, file);
	outs_free(&ou);
	outs_free(&op);
	printf("%s: %u packed arrays, %" PRIu64 " elements\n", file, arrays, elems);
	fflush(stdout);                 /* before an assertion ends the test */
	ck_assert_uint_eq(arrays, packed_files[_i].arrays);
	ck_assert_uint_eq(elems, packed_files[_i].elems);
	etl_reader_free(rd);
	etl_decoder_free(du);
	etl_decoder_free(dp);
	free(path);
}
END_TEST

static Suite *decode_suite(void)
{
	Suite *s = suite_create("decode");
	TCase *tc = tcase_create("namehash");
	tcase_add_test(tc, test_namehash_vectors);
	tcase_add_test(tc, test_namehash_case_and_utf8);
	suite_add_tcase(s, tc);

	tc = tcase_create("tracelogging");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_tl_all_intypes);
	tcase_add_test(tc, test_tl_out_types);
	tcase_add_test(tc, test_tl_tags);
	tcase_add_test(tc, test_tl_arrays);
	tcase_add_test(tc, test_tl_structs);
	tcase_add_test(tc, test_tl_custom);
	tcase_add_test(tc, test_tl_strings);
	tcase_add_test(tc, test_tl_no_fields_no_traits);
	tcase_add_test(tc, test_tl_traits);
	tcase_add_test(tc, test_tl_malformed_metadata);
	tcase_add_test(tc, test_tl_malformed_payload);
	tcase_add_test(tc, test_unsupported);
	tcase_add_test(tc, test_cache);
	tcase_add_test(tc, test_result_reuse);
	tcase_add_test(tc, test_tl_packed_arrays);
	tcase_add_test(tc, test_packed_arrays_malformed);
	suite_add_tcase(s, tc);

	tc = tcase_create("corpus");
	tcase_set_timeout(tc, 300);
	tcase_add_unchecked_fixture(tc, load_expected, NULL);
	tcase_add_loop_test(tc, test_corpus_tl_files, 0, (int)(sizeof tl_files / sizeof tl_files[0]));
	tcase_add_test(tc, test_corpus_amsi_values);
	tcase_add_test(tc, test_corpus_primitive_values);
	tcase_add_test(tc, test_corpus_wsl_values);
	tcase_add_test(tc, test_corpus_wu_values_and_cache);
	tcase_add_test(tc, test_corpus_small_files);
	tcase_add_test(tc, test_corpus_other_files);
	tcase_add_loop_test(tc, test_corpus_packed_arrays, 0,
	                    (int)(sizeof packed_files / sizeof packed_files[0]));
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	Suite *s = decode_suite();
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	jm_free(g_exp);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
