/*
 * check_fastpaths.c - the speed-ups of the conversion path against their
 * plain forms: the SSE2 UTF-16 loops (lib/common/utf16.c) against the portable
 * ones, the hand-made "no schema" message against snprintf, messages parsed
 * at load (lib/decode/manifest_message.c: every escape, inserts past the template, the
 * 64 KiB cap), and the memos of the JSON writer (formats/output/out_json.c: the
 * text of a name or a System/RenderingInfo part remembered by pointer) when
 * the text behind a pointer changes.
 */
#define ETL_BUILDING_LIB 1
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etl.h"
#include "lib/decode/decode_internal.h"
#include "lib/common/utf16.h"
#include "etl_output.h"
#include "testutil.h"
#include "formats/output/out.h"

/* xorshift64*: a fixed sequence, so failures reproduce. */
static uint64_t rng_state = 0x2545F4914F6CDD1Dull;
static uint64_t rnd(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545F4914F6CDD1Dull;
}

/* ---- UTF-16 ------------------------------------------------------------- */

static void check_utf16(const uint8_t *p, size_t n)
{
	char a[600], b[600];
	ck_assert_uint_le(n / 2 * 3 + 1, sizeof a);
	memset(a, 'A', sizeof a);
	memset(b, 'B', sizeof b);
	size_t na = etl__utf16_to_utf8_buf_ex(p, n, a, 1);
	size_t nb = etl__utf16_to_utf8_buf_ex(p, n, b, 0);
	ck_assert_uint_eq(na, nb);
	ck_assert_int_eq(memcmp(a, b, na), 0);
	ck_assert_uint_eq(na, etl__utf16_utf8_len(p, n));
	ck_assert_uint_eq(etl__utf16_nul_ex(p, n, 1), etl__utf16_nul_ex(p, n, 0));
}

START_TEST(test_utf16_simd)
{
	static const uint16_t units[] = {
		'a', 'Z', ' ', 0x7F, 0x80, 0xE9, 0x7FF, 0x800, 0xFFFF, 0xD83D, 0xDE00, 0xDC00, 0xD800, 0
	};
	uint8_t buf[400];
	for (int i = 0; i < 20000; i++) {
		size_t n = (size_t)(rnd() % sizeof buf);
		int mostly_ascii = i % 2 == 0;
		for (size_t k = 0; k + 1 < n; k += 2) {
			uint64_t r = rnd();
			uint16_t u;
			if (mostly_ascii && r % 32)
				u = (uint16_t)(0x20 + r / 32 % 0x5F);
			else
				u = units[(r >> 8) % (sizeof units / sizeof units[0])];
			buf[k] = (uint8_t)u;
			buf[k + 1] = (uint8_t)(u >> 8);
		}
		if (n % 2)
			buf[n - 1] = (uint8_t)rnd();
		check_utf16(buf, n);
	}
	/* One NUL, or one unit from 0x80, at every place in ASCII text, every
	 * length up to two 32-byte steps and a 16-byte one. */
	static const uint16_t odd[] = { 0, 0x80, 0x100, 0xE9, 0xD83D };
	for (size_t n = 0; n <= 80; n++) {
		for (size_t at = 0; at <= n; at += 2) {
			for (size_t u = 0; u < sizeof odd / sizeof odd[0]; u++) {
				for (size_t k = 0; k + 1 < n; k += 2) {
					buf[k] = 'x';
					buf[k + 1] = 0;
				}
				if (at + 1 < n) {
					buf[at] = (uint8_t)odd[u];
					buf[at + 1] = (uint8_t)(odd[u] >> 8);
				}
				check_utf16(buf, n);
			}
		}
	}
	ck_assert(etl__utf16_simd() == 0 || etl__utf16_simd() == 1);
}
END_TEST

/* ---- binary as hex ---------------------------------------------------------- */

START_TEST(test_out_hex)
{
	uint8_t buf[300];
	char want[2 * sizeof buf + 1];
	for (int i = 0; i < 3000; i++) {
		size_t n = i < 300 ? (size_t)i : (size_t)(rnd() % sizeof buf);
		for (size_t k = 0; k < n; k++)
			buf[k] = (uint8_t)rnd();
		for (size_t k = 0; k < n; k++)
			snprintf(want + 2 * k, 3, "%02X", buf[k]);
		struct etl_outbuf b;
		memset(&b, 0, sizeof b);
		etl__ob_put(&b, "x", 1);                /* not at the start */
		etl__out_hex(&b, buf, n);
		ck_assert(!b.oom);
		ck_assert_uint_eq(b.len, 1 + 2 * n);
		ck_assert_int_eq(memcmp(b.p + 1, want, 2 * n), 0);
		etl__ob_free(&b);
	}
}
END_TEST

/* ---- the "no schema" message --------------------------------------------- */

static void check_noschema(int kind, const char *name)
{
	etl_decoder *d = etl_decoder_new();
	ck_assert_ptr_nonnull(d);
	struct etl_event ev;
	memset(&ev, 0, sizeof ev);
	ev.kind = kind;
	ev.ptr_size = 8;
	ev.provider = tu_guid("0123abcd-2222-3333-4444-555555555555");
	ev.provider_name = name;
	ev.id = 65535;
	ev.version = 255;
	const struct etl_decoded *dec;
	ck_assert_int_eq(etl_decoder_decode(d, &ev, &dec), ETL_FAILED);
	char want[512], g[ETL_GUID_STRLEN];
	etl_guid_format(&ev.provider, g);
	snprintf(want, sizeof want, "no schema for this event: provider=%s%s%s%s, id=%u, version=%u", g,
	         name ? " (" : "", name ? name : "", name ? ")" : "", (unsigned)ev.id, (unsigned)ev.version);
	ck_assert_str_eq(dec->error, want);
	ck_assert_int_eq(dec->errcode, ETL_E_UNSUPPORTED);
	etl_decoder_free(d);
}

START_TEST(test_noschema_message)
{
	static char longname[1000];
	memset(longname, 'n', sizeof longname - 1);
	const int kinds[] = { ETL_HDR_EVENT_HEADER64, ETL_HDR_ERROR };  /* manifest / dispatcher */
	for (size_t k = 0; k < 2; k++) {
		check_noschema(kinds[k], NULL);
		check_noschema(kinds[k], "Some-Provider");
		check_noschema(kinds[k], longname);                     /* cut at 511 bytes */
		for (size_t n = 400; n < 480; n += 7) {
			longname[n] = 0;
			check_noschema(kinds[k], longname);
			longname[n] = 'n';
		}
	}
}
END_TEST

/* ---- messages parsed at load -------------------------------------------- */

static const char msg_manifest[] =
	"<instrumentationManifest xmlns=\"http://schemas.microsoft.com/win/2004/08/events\">"
	"<instrumentation><events>"
	"<provider name=\"P\" guid=\"{11111111-2222-3333-4444-555555555555}\" symbol=\"P\">"
	"<templates><template tid=\"T\">"
	"<data name=\"A\" inType=\"win:UInt32\"/><data name=\"B\" inType=\"win:UnicodeString\"/>"
	"</template></templates>"
	"<events>"
	"<event value=\"1\" template=\"T\" message=\"x%1y%%z%n%t%r%2!s! %! %.%3 %10 end%0tail\"/>"
	"<event value=\"2\" template=\"T\" message=\"%2%2%2%2%2\"/>"
	"<event value=\"3\" template=\"T\" message=\"[%1!08x!|%1!-5d!|%2!.2s!] 100%\"/>"
	"<event value=\"4\" message=\"no inserts %1 here%\"/>"
	"<event value=\"5\" template=\"T\" message=\"[%1!I64u!|%1!1-d!|%2!1.2.3s!|%2!#05s!|%1!.2147483647d!]\"/>"
	"</events></provider></events></instrumentation></instrumentationManifest>";

static const struct etl_decoded *decode_msg(etl_decoder *d, uint16_t id, const struct tu_bytes *b)
{
	struct etl_event ev;
	memset(&ev, 0, sizeof ev);
	ev.kind = ETL_HDR_EVENT_HEADER64;
	ev.ptr_size = 8;
	ev.present = ETL_EVF_DESCRIPTOR | ETL_EVF_PROVIDER;
	ev.provider = tu_guid("11111111-2222-3333-4444-555555555555");
	ev.id = id;
	ev.payload = b->p;
	ev.payload_size = (uint32_t)b->len;
	const struct etl_decoded *dec;
	int st = etl_decoder_decode(d, &ev, &dec);
	ck_assert_msg(st == ETL_OK, "%s", dec->error ? dec->error : "");
	return dec;
}

START_TEST(test_messages)
{
	etl_decoder *d = etl_decoder_new();
	ck_assert_ptr_nonnull(d);
	ck_assert_msg(etl__mf_load_memory(d, "msg.man", msg_manifest, sizeof msg_manifest - 1) == ETL_OK,
	              "%s", etl_decoder_errmsg(d));
	struct tu_bytes b;
	tu_bytes_init(&b);
	tu_put32(&b, 7);
	tu_pututf16z(&b, "abc");
	ck_assert_str_eq(decode_msg(d, 1, &b)->message, "x7y%z\n\t\rabc ! .  end");
	ck_assert_str_eq(decode_msg(d, 3, &b)->message, "[00000007|7    |ab] 100%");
	ck_assert_str_eq(decode_msg(d, 4, &b)->message, "no inserts  here%");
	/* !fmt! as flags, width, precision in that order, the rest up to the
	 * conversion ignored (I64 is no width of 64, "-" after a width no
	 * flag); '#' and '0' with s dropped; a precision of 2^31 - 1 cut to
	 * ETL_MSG_SPEC_MAX, then to the 255 bytes a manifest insert holds */
	char want[300];
	memset(want, 0, sizeof want);
	strcpy(want, "[7|7|ab|  abc|");
	memset(want + strlen(want), '0', 255);
	strcat(want, "]");
	ck_assert_str_eq(decode_msg(d, 5, &b)->message, want);

	/* Five inserts of 20000 characters: 100000 bytes, over the 64 KiB cap,
	 * where whole pieces that do not fit are dropped: three remain. */
	struct tu_bytes big;
	tu_bytes_init(&big);
	tu_put32(&big, 1);
	char *s = malloc(30000);
	ck_assert_ptr_nonnull(s);
	memset(s, 'q', 20000);
	s[20000] = 0;
	tu_pututf16z(&big, s);
	const struct etl_decoded *dec = decode_msg(d, 2, &big);
	ck_assert_uint_eq(strlen(dec->message), 60000);
	/* Three inserts fit exactly: 3 x 21845 = 65535 bytes, under the cap. */
	s[21845] = 0;
	memset(s, 'r', 21845);
	tu_bytes_free(&big);
	tu_bytes_init(&big);
	tu_put32(&big, 1);
	tu_pututf16z(&big, s);
	dec = decode_msg(d, 2, &big);
	ck_assert_uint_eq(strlen(dec->message), 65535);
	free(s);
	tu_bytes_free(&big);
	tu_bytes_free(&b);
	etl_decoder_free(d);
}
END_TEST

/* ---- JSON memos ----------------------------------------------------------- */

struct sink {
	char *p;
	size_t n, cap;
};

static int sink_write(void *ctx, const void *data, size_t n)
{
	struct sink *s = ctx;
	if (s->n + n + 1 > s->cap) {
		s->cap = (s->n + n + 1) * 2;
		s->p = realloc(s->p, s->cap);
		ck_assert_ptr_nonnull(s->p);
	}
	memcpy(s->p + s->n, data, n);
	s->n += n;
	s->p[s->n] = 0;
	return 0;
}

/* The JSON line of (ev, dec) from a new output handle (no memo). */
static char *fresh_line(const char *fmt, const struct etl_event *ev, const struct etl_decoded *dec)
{
	struct sink s = { NULL, 0, 0 };
	etl_output *o = etl_output_new(fmt, sink_write, &s);
	ck_assert_ptr_nonnull(o);
	ck_assert_int_eq(etl_output_begin(o, NULL), ETL_OK);
	ck_assert_int_eq(etl_output_event(o, ev, dec), ETL_OK);
	ck_assert_int_eq(etl_output_end(o), ETL_OK);
	etl_output_free(o);
	return s.p;
}

START_TEST(test_json_memos)
{
	/* Names in buffers rewritten between events: the same pointers, other
	 * text (as when a schema is freed and its memory reused). */
	char pname[64], key[64], key2[64], level[64], task[64], kw[64], evname[64];
	struct etl_prop props[3];
	struct etl_decoded dec;
	struct etl_event ev;
	memset(&ev, 0, sizeof ev);
	ev.kind = ETL_HDR_EVENT_HEADER64;
	ev.present = ETL_EVF_DESCRIPTOR | ETL_EVF_PROVIDER | ETL_EVF_UTC | ETL_EVF_PID;
	ev.provider = tu_guid("11111111-2222-3333-4444-555555555555");
	ev.id = 5;
	ev.level = 4;
	ev.keyword = 0x30;
	const char *fmts[] = { "jsonl", "json" };
	for (size_t f = 0; f < 2; f++) {
		struct sink s = { NULL, 0, 0 };
		etl_output *o = etl_output_new(fmts[f], sink_write, &s);
		ck_assert_ptr_nonnull(o);
		ck_assert_int_eq(etl_output_begin(o, NULL), ETL_OK);
		for (int i = 0; i < 400; i++) {
			int v = (int)(rnd() % 4);
			snprintf(pname, sizeof pname, v == 3 ? "Prov\"%d" : "Prov%d", v);
			snprintf(key, sizeof key, v == 2 ? "K\\ey%d" : "Key%d", v);
			snprintf(key2, sizeof key2, "Other%d", (int)(rnd() % 3));
			snprintf(level, sizeof level, "win:Level%d", (int)(rnd() % 2));
			snprintf(task, sizeof task, "Task%d", (int)(rnd() % 3));
			snprintf(kw, sizeof kw, rnd() % 2 ? "KwA KwB" : "KwC");
			snprintf(evname, sizeof evname, "Ev\n%d", (int)(rnd() % 2));
			ev.utc = (int64_t)(132000000000000000ll + (int64_t)(rnd() % 30000000));
			ev.opcode = (uint8_t)(rnd() % 2);
			memset(props, 0, sizeof props);
			props[0].name = key;
			props[0].kind = ETL_VAL_UINT;
			props[0].in_type = ETL_IN_UINT32;
			props[0].v.u = rnd() % 100000;
			props[0].parent = ETL_PROP_NO_PARENT;
			props[1].name = key2;
			props[1].kind = ETL_VAL_UINT;
			props[1].in_type = ETL_IN_POINTER;
			props[1].v.u = rnd();
			props[1].parent = ETL_PROP_NO_PARENT;
			props[2].name = i % 5 ? key : pname;
			props[2].kind = ETL_VAL_STRING;
			props[2].in_type = ETL_IN_UNICODESTRING;
			props[2].v.str.s = evname;
			props[2].v.str.len = strlen(evname);
			props[2].parent = ETL_PROP_NO_PARENT;
			memset(&dec, 0, sizeof dec);
			dec.source = ETL_DECODE_MANIFEST;
			dec.provider_name = i % 7 ? pname : NULL;
			dec.level_name = i % 3 ? level : NULL;
			dec.task_name = task;
			dec.keywords_name = kw;
			dec.event_name = evname;
			dec.message = i % 2 ? key2 : NULL;
			dec.props = props;
			dec.n_props = 3;
			dec.status = ETL_OK;
			size_t at = s.n;
			ck_assert_int_eq(etl_output_event(o, &ev, &dec), ETL_OK);
			char *want = fresh_line(fmts[f], &ev, &dec);
			/* the record's text: from the fresh output, after its
			 * header (null, or the json prologue) */
			const char *rec = strstr(want, "{\"System\"");
			ck_assert_ptr_nonnull(rec);
			size_t rl = strcspn(rec, "\n");
			const char *got = strstr(s.p + at, "{\"System\"");
			ck_assert_ptr_nonnull(got);
			ck_assert_msg(strncmp(got, rec, rl) == 0, "event %d: got %.*s want %.*s", i,
			              (int)rl, got, (int)rl, rec);
			free(want);
		}
		ck_assert_int_eq(etl_output_end(o), ETL_OK);
		etl_output_free(o);
		free(s.p);
	}
}
END_TEST

/* Names remembered by pointer under a decoder's trust: freeing the decoder
 * and making another, whose schema strings may land at the same addresses
 * with other text, must not bring the old text back. */
static const char *trust_manifest(char *buf, size_t n, const char *tag)
{
	snprintf(buf, n,
	         "<instrumentationManifest xmlns=\"http://schemas.microsoft.com/win/2004/08/events\">"
	         "<instrumentation><events>"
	         "<provider name=\"Prov%s\" guid=\"{11111111-2222-3333-4444-555555555555}\" symbol=\"P\">"
	         "<templates><template tid=\"T\">"
	         "<data name=\"Fa%s\" inType=\"win:UInt32\"/><data name=\"Fb%s\" inType=\"win:UInt32\"/>"
	         "</template></templates>"
	         "<events><event value=\"1\" template=\"T\" symbol=\"Ev%s\" task=\"Ta%s\"/></events>"
	         "</provider></events></instrumentation></instrumentationManifest>",
	         tag, tag, tag, tag, tag);
	return buf;
}

START_TEST(test_json_trust)
{
	struct sink s = { NULL, 0, 0 };
	etl_output *o = etl_output_new("jsonl", sink_write, &s);
	ck_assert_ptr_nonnull(o);
	ck_assert_int_eq(etl_output_begin(o, NULL), ETL_OK);
	char man[2048];
	struct tu_bytes b;
	tu_bytes_init(&b);
	tu_put32(&b, 1);
	tu_put32(&b, 2);
	for (int round = 0; round < 40; round++) {
		char tag[8];
		snprintf(tag, sizeof tag, "%c%c", 'A' + round % 26, 'a' + round / 26);
		trust_manifest(man, sizeof man, tag);
		etl_decoder *d = etl_decoder_new();
		ck_assert_ptr_nonnull(d);
		ck_assert_int_eq(etl__mf_load_memory(d, "t.man", man, strlen(man)), ETL_OK);
		for (int i = 0; i < 3; i++) {
			const struct etl_decoded *dec = decode_msg(d, 1, &b);
			struct etl_event ev;
			memset(&ev, 0, sizeof ev);
			ev.kind = ETL_HDR_EVENT_HEADER64;
			ev.present = ETL_EVF_DESCRIPTOR | ETL_EVF_PROVIDER;
			ev.provider = tu_guid("11111111-2222-3333-4444-555555555555");
			ev.id = 1;
			/* the same decode again, so that dec is the last result */
			ev.payload = b.p;
			ev.payload_size = (uint32_t)b.len;
			ck_assert_int_eq(etl_decoder_decode(d, &ev, &dec), ETL_OK);
			ck_assert_uint_ne(etl__dec_names_trusted(dec), 0);
			size_t at = s.n;
			ck_assert_int_eq(etl_output_event(o, &ev, dec), ETL_OK);
			char *want = fresh_line("jsonl", &ev, dec);
			const char *rec = strstr(want, "{\"System\"");
			ck_assert_ptr_nonnull(rec);
			size_t rl = strcspn(rec, "\n");
			const char *got = strstr(s.p + at, "{\"System\"");   /* after "null" first */
			ck_assert_ptr_nonnull(got);
			ck_assert_msg(strncmp(got, rec, rl) == 0, "round %d: got %.*s want %.*s", round,
			              (int)rl, got, (int)rl, rec);
			ck_assert_ptr_nonnull(strstr(got, tag));
			free(want);
		}
		etl_decoder_free(d);
	}
	tu_bytes_free(&b);
	ck_assert_int_eq(etl_output_end(o), ETL_OK);
	etl_output_free(o);
	free(s.p);
}
END_TEST

static Suite *fast_suite(void)
{
	Suite *s = suite_create("fastpaths");
	TCase *tc = tcase_create("fastpaths");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_utf16_simd);
	tcase_add_test(tc, test_out_hex);
	tcase_add_test(tc, test_noschema_message);
	tcase_add_test(tc, test_messages);
	tcase_add_test(tc, test_json_memos);
	tcase_add_test(tc, test_json_trust);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(fast_suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
