/*
 * check_manifest.c - manifest-based decoding (lib/decode/manifest_*.c,
 * doc/decoding.md §3): testdata/manifests/test.man with hand-built events for
 * every feature (count/length references, structs, value and bit maps, the
 * string table, message inserts, version fallback, short payloads), loader
 * errors, and the real manifests of ../shared/manifests against the corpus,
 * with field values checked by hand against the payload bytes.
 */
#define ETL_BUILDING_LIB 1
#include <check.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "etl.h"
#include "lib/decode/decode_internal.h"
#include "lib/decode/manifest_internal.h"
#include "lib/decode/xml_lib.h"
#include "testutil.h"

#define TEST_MAN "testdata/manifests/test.man"

static char *manifest_dir(void)
{
	const char *env = getenv("ETL_MANIFESTS");
	const char *c = tu_corpus_dir();
	size_t n = (env && *env ? strlen(env) : strlen(c)) + 32;
	char *p = malloc(n);
	ck_assert_ptr_nonnull(p);
	if (env && *env)
		snprintf(p, n, "%s", env);
	else
		snprintf(p, n, "%s/../manifests", c);
	return p;
}

static struct etl_event mkev(uint16_t id, uint8_t version, const void *pay, size_t n)
{
	struct etl_event ev;
	memset(&ev, 0, sizeof ev);
	ev.kind = ETL_HDR_EVENT_HEADER64;
	ev.ptr_size = 8;
	ev.present = ETL_EVF_DESCRIPTOR | ETL_EVF_PROVIDER;
	ev.provider = tu_guid("11111111-2222-3333-4444-555555555555");
	ev.id = id;
	ev.version = version;
	ev.keyword = 0x3;
	ev.payload = pay;
	ev.payload_size = (uint32_t)n;
	return ev;
}

static etl_decoder *test_decoder(void)
{
	etl_decoder *d = etl_decoder_new();
	ck_assert_ptr_nonnull(d);
	ck_assert_msg(etl_decoder_add_manifest(d, TEST_MAN) == ETL_OK, "%s", etl_decoder_errmsg(d));
	return d;
}

static void t1_payload(struct tu_bytes *b)
{
	tu_bytes_init(b);
	tu_put32(b, 2);                 /* Color = Green */
	tu_put32(b, 5);                 /* Flags = A|C */
	tu_put16(b, 3);                 /* N */
	tu_put32(b, 10); tu_put32(b, 20); tu_put32(b, 30);
	tu_put8(b, 2);                  /* BLen */
	tu_put8(b, 0xAB); tu_put8(b, 0xCD);
	tu_pututf16z(b, "Hi");          /* Name */
	tu_put16(b, 'a'); tu_put16(b, 'b'); tu_put16(b, 0); tu_put16(b, 0); /* Fixed */
	tu_putbytes(b, "xyz", 4);       /* Ansi */
	tu_put64(b, 0x1234);            /* Ptr */
	tu_put32(b, 1);                 /* Flag */
	tu_put16(b, 2);                 /* SCount */
	tu_put8(b, 7); tu_putbytes(b, "p", 2);
	tu_put8(b, 8); tu_putbytes(b, "q", 2);
	tu_put16(b, 0x10); tu_put16(b, 0x20);
	tu_put32(b, (uint32_t)-5);      /* Neg */
}

static const struct etl_prop *top(const struct etl_decoded *r, const char *name)
{
	for (uint32_t i = 0; i < r->n_props; i++)
		if (r->props[i].parent == ETL_PROP_NO_PARENT && strcmp(r->props[i].name, name) == 0)
			return &r->props[i];
	ck_abort_msg("no property %s", name);
	return NULL;
}

START_TEST(test_features)
{
	etl_decoder *d = test_decoder();
	struct tu_bytes b;
	const struct etl_decoded *r;
	t1_payload(&b);
	ck_assert_uint_eq(b.len, 71);
	struct etl_event ev = mkev(1, 0, b.p, b.len);
	ck_assert_msg(etl_decoder_decode(d, &ev, &r) == ETL_OK, "%s", r->error);
	ck_assert_int_eq(r->source, ETL_DECODE_MANIFEST);
	ck_assert_str_eq(r->provider_name, "Test-Provider");
	ck_assert_str_eq(r->event_name, "TestEvent1");
	ck_assert_str_eq(r->task_name, "Work");
	ck_assert_str_eq(r->opcode_name, "Start");
	ck_assert_str_eq(r->level_name, "Information");
	ck_assert_str_eq(r->channel_name, "Test-Provider/Operational");
	/* Rendered texts: KwTwo by its en-US message, KwOne (none) by name. */
	ck_assert_str_eq(r->keywords_name, "KwOne Second");
	ck_assert_str_eq(r->message, "Color=Green Flags=A|C N=3 Name=Hi Ptr=1234 Neg=-5 Fixed=[ab]\nend");
	ck_assert_uint_eq(r->n_props, 15 + 3 + 2 + 4 + 2);
	for (uint32_t i = 0; i < 15; i++)
		ck_assert_uint_eq(r->props[i].parent, ETL_PROP_NO_PARENT);

	const struct etl_prop *p = top(r, "Color");
	ck_assert_uint_eq(p->v.u, 2);
	ck_assert_str_eq(p->map_name, "Green");     /* en-US, not fr-FR */
	ck_assert_str_eq(top(r, "Flags")->map_name, "A|C");
	p = top(r, "Vals");
	ck_assert_int_eq(p->kind, ETL_VAL_ARRAY);
	ck_assert_uint_eq(p->n_children, 3);
	ck_assert_uint_eq(p->payload_offset, 10);
	ck_assert_uint_eq(r->props[p->first_child + 2].v.u, 30);
	ck_assert_uint_eq(r->props[p->first_child + 2].payload_offset, 18);
	ck_assert_str_eq(r->props[p->first_child].name, "Vals");
	p = top(r, "Blob");
	ck_assert_int_eq(p->kind, ETL_VAL_BINARY);
	ck_assert_uint_eq(p->v.bin.len, 2);
	ck_assert_uint_eq(p->v.bin.p[1], 0xCD);
	p = top(r, "Name");
	ck_assert_int_eq(p->kind, ETL_VAL_STRING);
	ck_assert_str_eq(p->v.str.s, "Hi");
	ck_assert_uint_eq(p->payload_offset, 25);
	ck_assert_str_eq(top(r, "Fixed")->v.str.s, "ab");
	ck_assert_uint_eq(top(r, "Fixed")->payload_offset, 31);
	ck_assert_str_eq(top(r, "Ansi")->v.str.s, "xyz");
	ck_assert_uint_eq(top(r, "Ptr")->v.u, 0x1234);
	ck_assert_int_eq(top(r, "Flag")->kind, ETL_VAL_BOOL);
	ck_assert_uint_eq(top(r, "Flag")->payload_offset, 51);
	p = top(r, "Items");
	ck_assert_int_eq(p->kind, ETL_VAL_ARRAY);
	ck_assert_uint_eq(p->n_children, 2);
	const struct etl_prop *s1 = &r->props[p->first_child + 1];
	ck_assert_int_eq(s1->kind, ETL_VAL_STRUCT);
	ck_assert_uint_eq(s1->n_children, 2);
	ck_assert_uint_eq(r->props[s1->first_child].v.u, 8);
	ck_assert_str_eq(r->props[s1->first_child + 1].name, "Label");
	ck_assert_str_eq(r->props[s1->first_child + 1].v.str.s, "q");
	ck_assert_uint_eq(r->props[s1->first_child + 1].payload_offset, 61);
	p = top(r, "Pair");
	ck_assert_uint_eq(p->n_children, 2);
	ck_assert_uint_eq(r->props[p->first_child + 1].out_type, ETL_OUT_HEXINT16);
	ck_assert_int_eq(top(r, "Neg")->kind, ETL_VAL_INT);
	ck_assert_int_eq(top(r, "Neg")->v.i, -5);
	ck_assert_uint_eq(top(r, "Neg")->payload_offset, 67);

	/* a newer version falls back to the highest defined version below */
	ev.version = 3;
	ck_assert_int_eq(etl_decoder_decode(d, &ev, &r), ETL_OK);
	ck_assert_str_eq(r->event_name, "TestEvent1");

	/* the payload cut inside the last field */
	ev = mkev(1, 0, b.p, 69);
	ck_assert_int_eq(etl_decoder_decode(d, &ev, &r), ETL_FAILED);
	ck_assert_int_eq(r->errcode, ETL_E_TRUNCATED);
	ck_assert_ptr_nonnull(strstr(r->error, "\"Neg\" at offset 67"));
	ck_assert_uint_eq(r->n_props, 0);
	/* a count that exceeds the payload */
	b.p[8] = 0xFF;
	ev = mkev(1, 0, b.p, b.len);
	ck_assert_int_eq(etl_decoder_decode(d, &ev, &r), ETL_FAILED);
	ck_assert_ptr_nonnull(strstr(r->error, "Vals"));
	tu_bytes_free(&b);
	etl_decoder_free(d);
}
END_TEST

/* ETL_DECODE_PACKED_ARRAYS: the integer arrays of T1 (Vals, 3 x UInt32;
 * Pair, 2 x HexInt16) kept as their bytes and element 0, the struct array
 * Items as it was; the same elements through etl_decoded_element(), and
 * the same message, also where it names an array (event 5: an array is
 * empty text, 0 under a numeric format). */
START_TEST(test_packed_arrays)
{
	etl_decoder *du = test_decoder(), *dp = test_decoder();
	ck_assert_int_eq(etl_decoder_set_flags(dp, ETL_DECODE_PACKED_ARRAYS), ETL_OK);
	struct tu_bytes b;
	t1_payload(&b);
	for (uint16_t id = 1; id <= 5; id += 4) {
		struct etl_event ev = mkev(id, 0, b.p, b.len);
		const struct etl_decoded *u, *r;
		ck_assert_msg(etl_decoder_decode(du, &ev, &u) == ETL_OK, "%s", u->error);
		char *want = strdup(u->message);
		uint32_t un = u->n_props;
		ck_assert_msg(etl_decoder_decode(dp, &ev, &r) == ETL_OK, "%s", r->error);
		ck_assert_str_eq(r->message, want);
		if (id == 5)
			ck_assert_str_eq(r->message, "Vals=[] [0] [] Pair=[0] Neg=-5");
		free(want);
		/* Vals and Pair keep one child each instead of 3 and 2 */
		ck_assert_uint_eq(r->n_props, un - 2 - 1);
		const struct etl_prop *p = top(r, "Vals");
		ck_assert_int_eq(p->kind, ETL_VAL_ARRAY_PACKED);
		ck_assert_uint_eq(p->n_children, 3);
		ck_assert_uint_eq(p->v.bin.len, 12);
		ck_assert_ptr_eq(p->v.bin.p, b.p + 10);
		ck_assert_uint_eq(p->payload_offset, 10);
		struct etl_prop e;
		ck_assert_int_eq(etl_decoded_element(r, (uint32_t)(p - r->props), 2, &e), ETL_OK);
		ck_assert_int_eq(e.kind, ETL_VAL_UINT);
		ck_assert_uint_eq(e.v.u, 30);
		ck_assert_uint_eq(e.payload_offset, 18);
		ck_assert_str_eq(e.name, "Vals");
		p = top(r, "Pair");
		ck_assert_int_eq(p->kind, ETL_VAL_ARRAY_PACKED);
		ck_assert_int_eq(etl_decoded_element(r, (uint32_t)(p - r->props), 1, &e), ETL_OK);
		ck_assert_uint_eq(e.v.u, 0x20);
		ck_assert_uint_eq(e.out_type, ETL_OUT_HEXINT16);
		ck_assert_int_eq(top(r, "Items")->kind, ETL_VAL_ARRAY);        /* structs */
		ck_assert_int_eq(top(r, "Neg")->v.i, -5);       /* the field after it */
	}
	tu_bytes_free(&b);
	etl_decoder_free(du);
	etl_decoder_free(dp);
}
END_TEST

START_TEST(test_names_messages)
{
	etl_decoder *d = test_decoder();
	const struct etl_decoded *r;
	struct etl_event ev = mkev(2, 1, NULL, 0);
	ck_assert_int_eq(etl_decoder_decode(d, &ev, &r), ETL_OK);
	ck_assert_str_eq(r->event_name, "Work/Step");           /* by name */
	ck_assert_str_eq(r->opcode_name, "Stepping");           /* message of the
	                                                           task's opcode */
	ck_assert_str_eq(r->level_name, "Verbose");
	ck_assert_ptr_null(r->message);
	ck_assert_uint_eq(r->n_props, 0);

	uint8_t pay[12] = { 42, 0, 0, 0, 0xFF, 0, 0, 0, 0, 0, 0, 0 };
	ev = mkev(3, 0, pay, sizeof pay);
	ck_assert_int_eq(etl_decoder_decode(d, &ev, &r), ETL_OK);
	ck_assert_str_eq(r->message, "X=0000002a Y=FF %!.\t|");
	/* literals of 16 and 17 bytes, the last one ending the message */
	ev = mkev(4, 0, pay, sizeof pay);
	ck_assert_int_eq(etl_decoder_decode(d, &ev, &r), ETL_OK);
	ck_assert_str_eq(r->message, "sixteen bytes =>42<seventeen bytes>255<= sixteen bytes");
	ev = mkev(3, 0, pay, 6);
	ck_assert_int_eq(etl_decoder_decode(d, &ev, &r), ETL_FAILED);
	ck_assert_int_eq(r->errcode, ETL_E_TRUNCATED);
	ck_assert_ptr_nonnull(strstr(r->error, "\"Y\" at offset 4"));

	/* a version below every definition, an unknown id, an unknown provider */
	ev = mkev(2, 0, NULL, 0);
	ck_assert_int_eq(etl_decoder_decode(d, &ev, &r), ETL_FAILED);
	ck_assert_int_eq(r->errcode, ETL_E_UNSUPPORTED);
	ck_assert_ptr_nonnull(strstr(r->error, "no schema for this event"));
	ev = mkev(99, 0, NULL, 0);
	ck_assert_int_eq(etl_decoder_decode(d, &ev, &r), ETL_FAILED);
	ev.provider = tu_guid("11111111-2222-3333-4444-555555555556");
	ck_assert_int_eq(etl_decoder_decode(d, &ev, &r), ETL_FAILED);
	ck_assert_int_eq(r->errcode, ETL_E_UNSUPPORTED);
	/* classic events are not for manifests */
	ev.kind = ETL_HDR_SYSTEM64;
	ck_assert_int_eq(etl_decoder_decode(d, &ev, &r), ETL_FAILED);
	etl_decoder_free(d);

	/* without any manifest */
	d = etl_decoder_new();
	ev = mkev(3, 0, pay, sizeof pay);
	ck_assert_int_eq(etl_decoder_decode(d, &ev, &r), ETL_FAILED);
	ck_assert_ptr_nonnull(strstr(r->error, "no schema for this event: provider=11111111-2222-3333-4444-555555555555, id=3, version=0"));
	etl_decoder_free(d);
}
END_TEST

static void write_tmp(const char *path, const char *text)
{
	tu_write_file(path, text, strlen(text));
}

START_TEST(test_load_errors)
{
	etl_decoder *d = etl_decoder_new();
	char path[128];
	snprintf(path, sizeof path, "/tmp/etl_manifest_test_%ld.man", (long)getpid());

	ck_assert_int_eq(etl_decoder_add_manifest(d, "/nonexistent/x.man"), ETL_FAILED);
	ck_assert_ptr_nonnull(strstr(etl_decoder_errmsg(d), "/nonexistent/x.man"));

	write_tmp(path, "<instrumentationManifest>\n<instrumentation>\n<events>\n<provider name='a' guid='x'>\n</oops>\n");
	ck_assert_int_eq(etl_decoder_add_manifest(d, path), ETL_FAILED);
	{   /* "PATH:LINE: reason" with the line of the error (5 or the end, 6) */
		const char *m = etl_decoder_errmsg(d);
		ck_assert_msg(strncmp(m, path, strlen(path)) == 0 &&
		              (strncmp(m + strlen(path), ":5:", 3) == 0 || strncmp(m + strlen(path), ":6:", 3) == 0), "%s", m);
	}

	write_tmp(path, "<instrumentationManifest><instrumentation><events>\n"
	                "<provider name='a' guid='{11111111-2222-3333-4444-555555555555}'><templates>\n"
	                "<template tid='t'>\n<data name='A' inType='win:Binary' length='Nope'/></template>\n"
	                "</templates></provider></events></instrumentation></instrumentationManifest>\n");
	ck_assert_int_eq(etl_decoder_add_manifest(d, path), ETL_FAILED);
	ck_assert_msg(strstr(etl_decoder_errmsg(d), ":4: length=\"Nope\"") != NULL, "%s", etl_decoder_errmsg(d));

	write_tmp(path, "<instrumentationManifest><instrumentation><events>\n"
	                "<provider name='a' guid='bad'/></events></instrumentation></instrumentationManifest>\n");
	ck_assert_int_eq(etl_decoder_add_manifest(d, path), ETL_FAILED);
	ck_assert_ptr_nonnull(strstr(etl_decoder_errmsg(d), ":2: provider \"a\" has no valid guid"));

	/* external entities are never loaded nor expanded */
	write_tmp(path, "<?xml version='1.0'?>\n<!DOCTYPE m [<!ENTITY xxe SYSTEM 'file:///etc/passwd'>]>\n"
	                "<instrumentationManifest><instrumentation><events>\n"
	                "<provider name='p&xxe;' guid='{11111111-2222-3333-4444-555555555555}'><events>\n"
	                "<event value='7' version='0' symbol='s&xxe;'/></events></provider>\n"
	                "</events></instrumentation></instrumentationManifest>\n");
	if (etl_decoder_add_manifest(d, path) == ETL_OK) {
		const struct etl_decoded *r;
		struct etl_event ev = mkev(7, 0, NULL, 0);
		ck_assert_int_eq(etl_decoder_decode(d, &ev, &r), ETL_OK);
		ck_assert_ptr_null(strstr(r->event_name, "root"));
		ck_assert_ptr_null(strstr(r->provider_name, "root"));
	}
	unlink(path);

	/* not a manifest */
	write_tmp(path, "<html/>");
	ck_assert_int_eq(etl_decoder_add_manifest(d, path), ETL_FAILED);
	unlink(path);
	etl_decoder_free(d);

	/* a directory */
	d = etl_decoder_new();
	ck_assert_msg(etl_decoder_add_manifest(d, "testdata/manifests") == ETL_OK, "%s", etl_decoder_errmsg(d));
	etl_decoder_free(d);
}
END_TEST

/* Message strings found in the string table by id: the first <string> of
 * an id wins, one string may serve several references, entity and
 * character references are expanded, an unknown id stays as written, and
 * in a document with a DTD the attribute defaults it declares apply (the
 * loader then reads attributes through libxml2's own lookup). */
static void check_messages(etl_decoder *d, const char *const *want, int n)
{
	for (int id = 1; id <= n; id++) {
		const struct etl_decoded *r = NULL;
		struct etl_event ev = mkev((uint16_t)id, 0, NULL, 0);
		ck_assert_msg(etl_decoder_decode(d, &ev, &r) == ETL_OK, "event %d: %s", id, r ? r->error : "");
		if (!want[id - 1])
			ck_assert_msg(r->message == NULL, "event %d: %s", id, r->message);
		else
			ck_assert_msg(r->message && strcmp(r->message, want[id - 1]) == 0, "event %d: %s, not %s", id,
			              r->message ? r->message : "(none)", want[id - 1]);
	}
}

START_TEST(test_string_table)
{
	char path[128];
	snprintf(path, sizeof path, "/tmp/etl_strings_test_%ld.man", (long)getpid());
	static const char head[] =
		"<instrumentationManifest><instrumentation><events>\n"
		"<provider name='p' guid='{11111111-2222-3333-4444-555555555555}'>\n"
		"<tasks><task name='T' value='1' message='$(string.task)'/></tasks><events>\n"
		"<event value='1' version='0' task='T' message='$(string.dup)'/>\n"
		"<event value='2' version='0' message='$(string.shared)'/>\n"
		"<event value='3' version='0' message='$(string.shared)'/>\n"
		"<event value='4' version='0' message='$(string.refs)'/>\n"
		"<event value='5' version='0' message='$(string.nope)'/>\n"
		"<event value='6' version='0' message='$(string.novalue)'/>\n"
		"<event value='7' version='0' message='$(string.)'/>\n"
		"<event value='8' version='0'/>\n"
		"</events></provider></events></instrumentation>\n"
		"<localization><resources culture='en-US'><stringTable>\n"
		"<string id='dup' value='first'/><string id='shared' value='both'/>\n"
		"<string id='dup' value='second'/><string id='refs' value='a &amp; b &#x43;%%1'/>\n"
		"<string id='novalue'/><string id='task' value='Task text'/>\n";
	/* head goes into the file through "%s": its "%%1" stays two
	 * characters there, and the message parser makes it "%1" */
	static const char tail[] =
		"</stringTable></resources></localization></instrumentationManifest>\n";
	char text[4096];

	/* no DTD: attributes read in place */
	snprintf(text, sizeof text, "%s%s", head, tail);
	write_tmp(path, text);
	etl_decoder *d = etl_decoder_new();
	ck_assert_msg(etl_decoder_add_manifest(d, path) == ETL_OK, "%s", etl_decoder_errmsg(d));
	static const char *const plain[] = { "first", "both", "both", "a & b C%1", "$(string.nope)",
	                                     "$(string.novalue)", "$(string.)", NULL };
	check_messages(d, plain, 8);
	const struct etl_decoded *r;
	struct etl_event ev = mkev(1, 0, NULL, 0);
	ck_assert_int_eq(etl_decoder_decode(d, &ev, &r), ETL_OK);
	ck_assert_str_eq(r->task_name, "Task text");
	etl_decoder_free(d);

	/* a DTD that declares a default message for <event> and an entity */
	snprintf(text, sizeof text,
	         "<?xml version='1.0'?>\n<!DOCTYPE instrumentationManifest [\n"
	         "<!ATTLIST event message CDATA '$(string.dflt)'>\n<!ENTITY co 'Contoso'>]>\n%s"
	         "<string id='dflt' value='by default, &co;'/>\n%s", head, tail);
	write_tmp(path, text);
	d = etl_decoder_new();
	ck_assert_msg(etl_decoder_add_manifest(d, path) == ETL_OK, "%s", etl_decoder_errmsg(d));
	static const char *const dtd[] = { "first", "both", "both", "a & b C%1", "$(string.nope)",
	                                   "$(string.novalue)", "$(string.)", "by default, Contoso" };
	check_messages(d, dtd, 8);
	etl_decoder_free(d);
	unlink(path);
}
END_TEST

#ifdef TU_ASAN
#include <sanitizer/asan_interface.h>
#endif

/* The schema pool (lib/common/pool.c, through the manifest set) hands
 * out pieces of larger chunks: each piece zeroed, aligned for any type and apart from every
 * other one, whether it is small (up to 299 bytes), larger than the chunk
 * in use (6,000 bytes, while chunks are 4 and 8 KiB) or above the limit
 * for a chunk of its own (20,000 bytes and more), and whether the set's
 * first piece is small or large. Under AddressSanitizer the byte after
 * each piece is poisoned, and its leak check sees chunks left unfreed by
 * etl__mf_set_clear(). */
static void pool_pieces(size_t (*size_of)(int), int n)
{
	struct mf_set s;
	memset(&s, 0, sizeof s);
	static unsigned char *piece[3000];
	static size_t size[3000];
	ck_assert_int_le(n, 3000);
	for (int i = 0; i < n; i++) {
		size[i] = size_of(i);
		piece[i] = etl__mf_pool_alloc(&s, size[i]);
		ck_assert_ptr_nonnull(piece[i]);
		ck_assert_uint_eq((uintptr_t)piece[i] % _Alignof(max_align_t), 0);
		for (size_t k = 0; k < size[i]; k++)
			ck_assert_msg(piece[i][k] == 0, "piece %d byte %zu not zeroed", i, k);
		memset(piece[i], (unsigned char)(i * 13 + 1), size[i]);
#ifdef TU_ASAN
		ck_assert_msg(__asan_address_is_poisoned(piece[i] + size[i]), "after piece %d (%zu bytes)", i,
		              size[i]);
#endif
	}
	for (int i = 0; i < n; i++)
		for (size_t k = 0; k < size[i]; k++)
			ck_assert_msg(piece[i][k] == (unsigned char)(i * 13 + 1), "piece %d byte %zu overwritten", i, k);
	etl__mf_set_clear(&s);
}

static size_t mixed_size(int i)
{
	if (i % 500 == 7)
		return 20000u + (size_t)i * 7;
	if (i % 500 == 250)
		return 6000u + (size_t)i;
	return (size_t)(i * 37) % 300;
}

static size_t large_first_size(int i)
{
	return i == 0 ? 20480u : i == 1 ? 0u : (size_t)(i * 53) % 700;
}

START_TEST(test_pool)
{
	pool_pieces(mixed_size, 3000);
	pool_pieces(large_first_size, 400);
}
END_TEST

/* etl_decoder_errcode(): the reason of the last schema-loading failure,
 * the one etl_decoder_errmsg() describes; decode failures do not touch it. */
START_TEST(test_load_errcode)
{
	etl_decoder *d = etl_decoder_new();
	char path[128], dir[128];
	snprintf(path, sizeof path, "/tmp/etl_errcode_test_%ld.man", (long)getpid());
	snprintf(dir, sizeof dir, "/tmp/etl_errcode_test_%ld.d", (long)getpid());

	ck_assert_int_eq(etl_decoder_errcode(NULL), ETL_E_MISUSE);
	ck_assert_int_eq(etl_decoder_errcode(d), ETL_E_NONE);

	ck_assert_int_eq(etl_decoder_add_manifest(d, NULL), ETL_FAILED);
	ck_assert_int_eq(etl_decoder_errcode(d), ETL_E_MISUSE);
	ck_assert_int_eq(etl_decoder_add_tmf(d, NULL), ETL_FAILED);
	ck_assert_int_eq(etl_decoder_errcode(d), ETL_E_MISUSE);

	ck_assert_int_eq(etl_decoder_add_manifest(d, "/nonexistent/x.man"), ETL_FAILED);
	ck_assert_int_eq(etl_decoder_errcode(d), ETL_E_IO);
	ck_assert_int_eq(etl_decoder_add_tmf(d, "/nonexistent/x.tmf"), ETL_FAILED);
	ck_assert_int_eq(etl_decoder_errcode(d), ETL_E_IO);

	/* invalid content: the message names FILE:LINE */
	write_tmp(path, "<instrumentationManifest><instrumentation><events>\n"
	                "<provider name='a' guid='bad'/></events></instrumentation></instrumentationManifest>\n");
	ck_assert_int_eq(etl_decoder_add_manifest(d, path), ETL_FAILED);
	ck_assert_int_eq(etl_decoder_errcode(d), ETL_E_BAD_VALUE);
	ck_assert_ptr_nonnull(strstr(etl_decoder_errmsg(d), ":2: "));
	write_tmp(path, "11112222-3333-4444-5555-666677778888 x\n#typev a 1 \"x\"\n{\nv, ItemBogus -- 10\n}\n");
	ck_assert_int_eq(etl_decoder_add_tmf(d, path), ETL_FAILED);
	ck_assert_int_eq(etl_decoder_errcode(d), ETL_E_BAD_VALUE);
	unlink(path);

	/* a directory without such files */
	ck_assert_int_eq(mkdir(dir, 0700), 0);
	ck_assert_int_eq(etl_decoder_add_tmf(d, dir), ETL_FAILED);
	ck_assert_int_eq(etl_decoder_errcode(d), ETL_E_NOT_FOUND);
	ck_assert_int_eq(etl_decoder_add_manifest(d, dir), ETL_FAILED);
	ck_assert_int_eq(etl_decoder_errcode(d), ETL_E_NOT_FOUND);
	rmdir(dir);

	/* a success and a failed decode leave the last loading failure */
	write_tmp(path, "<instrumentationManifest><instrumentation><events>\n"
	                "<provider name='a' guid='{11111111-2222-3333-4444-555555555555}'><events>\n"
	                "<event value='7' version='0' symbol='s'/></events></provider>\n"
	                "</events></instrumentation></instrumentationManifest>\n");
	ck_assert_int_eq(etl_decoder_add_manifest(d, path), ETL_OK);
	ck_assert_int_eq(etl_decoder_errcode(d), ETL_E_NOT_FOUND);
	const struct etl_decoded *r;
	struct etl_event ev = mkev(99, 0, NULL, 0);
	ck_assert_int_eq(etl_decoder_decode(d, &ev, &r), ETL_FAILED);
	ck_assert_int_eq(r->errcode, ETL_E_UNSUPPORTED);
	ck_assert_int_eq(etl_decoder_errcode(d), ETL_E_NOT_FOUND);
	unlink(path);
	etl_decoder_free(d);
}
END_TEST

/* "WHAT: PREFIX: " and more (dlerror()'s text, which differs between C
 * libraries) in the decoder's message. */
static void assert_errmsg(etl_decoder *d, const char *what, const char *prefix)
{
	char want[256];
	const char *m = etl_decoder_errmsg(d);
	snprintf(want, sizeof want, "%s: %s: ", what, prefix);
	ck_assert_msg(strncmp(m, want, strlen(want)) == 0 && strlen(m) > strlen(want), "%s", m);
}

/* Without libxml2 (lib/decode/xml_lib.c loaded on the first manifest): its
 * test hook names a library that does not exist, then one that lacks
 * libxml2's functions. Loading a manifest file or an in-band manifest fails
 * with ETL_E_UNSUPPORTED and a message naming the library and the reason;
 * with the real libxml2 back the same decoder loads the manifest. */
START_TEST(test_load_without_libxml2)
{
	static const char xml[] = "<instrumentationManifest/>";
	etl_decoder *d = etl_decoder_new();
	ck_assert_ptr_nonnull(d);

	etl__xml_lib_test_soname("libetl-test-no-such-xml.so.0");
	ck_assert_int_eq(etl_decoder_add_manifest(d, TEST_MAN), ETL_FAILED);
	ck_assert_int_eq(etl_decoder_errcode(d), ETL_E_UNSUPPORTED);
	assert_errmsg(d, TEST_MAN, "cannot load libxml2 (libetl-test-no-such-xml.so.0) to read manifests");
	ck_assert_int_eq(etl__mf_load_memory(d, "inband.man", xml, sizeof xml - 1), ETL_FAILED);
	ck_assert_int_eq(etl_decoder_errcode(d), ETL_E_UNSUPPORTED);
	assert_errmsg(d, "inband.man", "cannot load libxml2 (libetl-test-no-such-xml.so.0) to read manifests");

	etl__xml_lib_test_soname("libz.so.1");
	ck_assert_int_eq(etl_decoder_add_manifest(d, "testdata/manifests"), ETL_FAILED);
	ck_assert_int_eq(etl_decoder_errcode(d), ETL_E_UNSUPPORTED);
	ck_assert_msg(strstr(etl_decoder_errmsg(d), ": libxml2 (libz.so.1) lacks functions manifests need: ") &&
	              strstr(etl_decoder_errmsg(d), "xmlInitParser"), "%s", etl_decoder_errmsg(d));

	etl__xml_lib_test_soname(NULL);
	ck_assert_msg(etl_decoder_add_manifest(d, TEST_MAN) == ETL_OK, "%s", etl_decoder_errmsg(d));
	etl_decoder_free(d);
}
END_TEST

/* ---- the corpus ------------------------------------------------------ */

struct tally {
	size_t ok, nosch, fail;
	size_t meta;                /* decoded from the trace's EventMetadata */
};

typedef void (*check_fn)(const struct etl_event *ev, const struct etl_decoded *r, size_t *state);

static struct tally run_file(etl_decoder *d, const char *file, check_fn fn, size_t *state)
{
	struct tally t = { 0, 0, 0, 0 };
	char *path = tu_corpus_path(file);
	etl_reader *rd = etl_reader_new();
	const struct etl_event *ev;
	int rc;
	ck_assert_int_eq(etl_reader_open_file(rd, path), ETL_OK);
	while ((rc = etl_reader_next(rd, &ev)) != ETL_END) {
		if (rc == ETL_FATAL)
			break;
		if (rc != ETL_OK && rc != ETL_WARN)
			continue;
		const struct etl_decoded *r;
		int st = etl_decoder_decode(d, ev, &r);
		if (ev->kind != ETL_HDR_EVENT_HEADER32 && ev->kind != ETL_HDR_EVENT_HEADER64)
			continue;           /* classic events: other decoders */
		if (st == ETL_OK && r->source == ETL_DECODE_EVENT_METADATA) {
			t.meta++;               /* events no manifest given defines */
		} else if (st == ETL_OK) {
			ck_assert_int_eq(r->source, ETL_DECODE_MANIFEST);
			t.ok++;
			if (fn)
				fn(ev, r, state);
		} else if (r->errcode == ETL_E_UNSUPPORTED && strstr(r->error, "no schema")) {
			t.nosch++;
		} else {
			t.fail++;
			fprintf(stderr, "%s: %s\n", file, r->error);
		}
	}
	etl_reader_free(rd);
	free(path);
	return t;
}

static etl_decoder *real_decoder(void)
{
	etl_decoder *d = etl_decoder_new();
	char *dir = manifest_dir();
	ck_assert_msg(etl_decoder_add_manifest(d, dir) == ETL_OK, "%s", etl_decoder_errmsg(d));
	free(dir);
	return d;
}

static const struct etl_prop *find(const struct etl_decoded *r, const char *name)
{
	for (uint32_t i = 0; i < r->n_props; i++)
		if (strcmp(r->props[i].name, name) == 0)
			return &r->props[i];
	return NULL;
}

static void gc_check(const struct etl_event *ev, const struct etl_decoded *r, size_t *state)
{
	if (ev->id != 1 || (*state)++ != 0)
		return;
	/* first GCStart_V2: 01000000 01000000 01000000 00000000 0800 ... */
	ck_assert_str_eq(r->event_name, "GCStart_V2");
	ck_assert_str_eq(r->provider_name, "Microsoft-Windows-DotNETRuntime");
	ck_assert_uint_eq(find(r, "Count")->v.u, 1);
	ck_assert_uint_eq(find(r, "Depth")->v.u, 1);
	ck_assert_uint_eq(find(r, "Reason")->v.u, 1);
	ck_assert_str_eq(find(r, "Reason")->map_name, "Induced");
	ck_assert_uint_eq(find(r, "ClrInstanceID")->v.u, 8);
	ck_assert_ptr_nonnull(strstr(r->message, "Reason=Induced"));
}

START_TEST(test_corpus_clr)
{
	TU_NEED_CORPUS();
	etl_decoder *d = real_decoder();
	size_t st = 0;
	struct tally t = run_file(d, "clr-gc-circular.etl", gc_check, &st);
	ck_assert_uint_eq(t.fail, 0);
	ck_assert_uint_eq(t.ok, 50);
	/* 19 events of ids 202/204/205/208/209, which ClrEtwAll.man does not
	 * define */
	ck_assert_uint_eq(t.nosch, 19);
	ck_assert_uint_eq(t.meta, 0);
	ck_assert_uint_eq(st, 2);
	t = run_file(d, "clr-rundown-32bit-compressed.etl", NULL, NULL);
	ck_assert_uint_eq(t.fail, 0);
	ck_assert_uint_eq(t.ok, 1);
	t = run_file(d, "perfview-kernel-clr-x64-compressed.etl", NULL, NULL);
	ck_assert_uint_eq(t.fail, 0);
	/* 68009 events of the CLR providers the manifest file defines, plus
	 * 122 of three EventSources that log their manifests in-band (4
	 * ManifestData events + 106 PerfView + 7 Tpl + 5 Framework events,
	 * see check_inband.c). */
	ck_assert_uint_eq(t.ok, 68009 + 122);
	/* The manifests win where they define an event; the trace's own
	 * EventMetadata decodes the 12 events of the two providers they do
	 * not (Microsoft-Windows-DNS-Client 1001 x4, Immersive-Shell 147,
	 * 148, 191 and 192 x2 each), and no event is left without a schema. */
	ck_assert_uint_eq(t.meta, 12);
	ck_assert_uint_eq(t.nosch, 0);
	etl_decoder_free(d);
}
END_TEST

static void http_check(const struct etl_event *ev, const struct etl_decoded *r, size_t *state)
{
	if (ev->id != 2 || (*state)++ != 0)
		return;
	/* 30457c0380faffff 04000000 "http://georgis2:80/windir.txt" */
	ck_assert_uint_eq(find(r, "RequestObj")->v.u, 0xfffffa80037c4530ull);
	ck_assert_uint_eq(find(r, "HttpVerb")->v.u, 4);
	ck_assert_str_eq(find(r, "Url")->v.str.s, "http://georgis2:80/windir.txt");
	ck_assert_uint_eq(find(r, "Url")->payload_offset, 12);
	ck_assert_ptr_nonnull(strstr(r->message, "with URI http://georgis2:80/windir.txt"));
}

static void proc_check(const struct etl_event *ev, const struct etl_decoded *r, size_t *state)
{
	if (ev->id != 1 || (*state)++ != 0)
		return;
	/* e8160000 (5864) FILETIME fc0c0000 (3324) 01000000 "\Device\..." */
	ck_assert_str_eq(r->event_name, "ProcessStart_V0");
	ck_assert_uint_eq(find(r, "ProcessID")->v.u, 5864);
	ck_assert_uint_eq(find(r, "ParentProcessID")->v.u, 3324);
	ck_assert_uint_eq(find(r, "SessionID")->v.u, 1);
	ck_assert_str_eq(find(r, "ImageName")->v.str.s,
	                 "\\Device\\HarddiskVolume2\\Program Files (x86)\\Microsoft Visual Studio 10.0\\Common7\\IDE\\devenv.exe");
}

START_TEST(test_corpus_http_process)
{
	TU_NEED_CORPUS();
	etl_decoder *d = real_decoder();
	size_t st = 0;
	struct tally t = run_file(d, "win7-httpservice-manifest.etl", http_check, &st);
	ck_assert_uint_eq(t.fail, 0);
	ck_assert_uint_eq(t.ok, 2041);
	ck_assert_uint_eq(t.nosch, 0);
	ck_assert_uint_eq(st, 291);
	st = 0;
	t = run_file(d, "win7-kernel-process-manifest.etl", proc_check, &st);
	ck_assert_uint_eq(t.fail, 0);
	ck_assert_uint_eq(t.ok, 10343);
	ck_assert_uint_eq(t.nosch, 0);
	ck_assert_uint_ge(st, 1);
	etl_decoder_free(d);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("manifest");
	TCase *tc = tcase_create("manifest");
	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, test_features);
	tcase_add_test(tc, test_packed_arrays);
	tcase_add_test(tc, test_names_messages);
	tcase_add_test(tc, test_load_errors);
	tcase_add_test(tc, test_string_table);
	tcase_add_test(tc, test_pool);
	tcase_add_test(tc, test_load_errcode);
	tcase_add_test(tc, test_load_without_libxml2);
	tcase_add_test(tc, test_corpus_clr);
	tcase_add_test(tc, test_corpus_http_process);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int nf = srunner_ntests_failed(sr);
	srunner_free(sr);
	return nf ? EXIT_FAILURE : EXIT_SUCCESS;
}
