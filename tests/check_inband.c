/*
 * check_inband.c - EventSource in-band manifests (lib/decode/inband.c): the
 * ManifestData events (id 0xFFFE) of perfview-kernel-clr-x64-compressed.etl
 * (the only corpus file that has any: PerfView, TplEventSource and
 * FrameworkEventSource, one chunk each, PerfView's logged twice) make the
 * providers' other events decode with no manifest file, with field values
 * checked by hand against `etldump --hex`; and hand-built events with a
 * manifest in 3 chunks: assembly, a missing chunk, invalid and oversized
 * envelopes.
 */
#define ETL_BUILDING_LIB 1
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etl.h"
#include "lib/decode/decode_internal.h"
#include "testutil.h"

static const struct etl_prop *find(const struct etl_decoded *r, const char *name)
{
	for (uint32_t i = 0; i < r->n_props; i++)
		if (strcmp(r->props[i].name, name) == 0)
			return &r->props[i];
	return NULL;
}

static int str_is(const struct etl_prop *p, const char *s)
{
	return p && p->kind == ETL_VAL_STRING && p->v.str.len == strlen(s) && memcmp(p->v.str.s, s, p->v.str.len) == 0;
}

/* ---- the corpus ------------------------------------------------------ */

#define N_PROV 3
static const char *const prov_guids[N_PROV] = {
	"a8a71ac1-040f-54a2-07ca-00a89b5ab761",   /* PerfView              */
	"2e5dba47-a3d2-4d16-8ee0-6671ffdcd7b5",   /* TplEventSource        */
	"8e9f5090-2d75-4d03-8a81-e5afbf85daf1",   /* FrameworkEventSource  */
};

START_TEST(test_corpus)
{
	TU_NEED_CORPUS();
	struct etl_guid g[N_PROV];
	int seen_manifest[N_PROV] = { 0 };
	size_t ok[N_PROV] = { 0 }, manifests = 0, loaded = 0, again = 0;
	int pv11 = 0, tpl7 = 0;
	for (int i = 0; i < N_PROV; i++)
		g[i] = tu_guid(prov_guids[i]);

	char *path = tu_corpus_path("perfview-kernel-clr-x64-compressed.etl");
	etl_reader *rd = etl_reader_new();
	etl_decoder *d = etl_decoder_new();     /* no manifest loaded */
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
		int k = -1;
		for (int i = 0; i < N_PROV; i++)
			if (etl_guid_equal(&ev->provider, &g[i]))
				k = i;
		if (ev->kind != ETL_HDR_EVENT_HEADER32 && ev->kind != ETL_HDR_EVENT_HEADER64)
			continue;
		if (ev->id == 0xFFFE) {
			ck_assert_int_ge(k, 0);
			ck_assert_msg(st == ETL_OK, "%s", r->error);
			ck_assert_int_eq(r->source, ETL_DECODE_MANIFEST);
			ck_assert_str_eq(r->event_name, "ManifestData");
			ck_assert_uint_eq(r->n_props, 7);
			/* 01 01 00 5b 01 00 00 00 "<instrumentationManifest ..." */
			ck_assert_uint_eq(find(r, "Format")->v.u, 1);
			ck_assert_uint_eq(find(r, "MajorVersion")->v.u, 1);
			ck_assert_uint_eq(find(r, "MinorVersion")->v.u, 0);
			ck_assert_uint_eq(find(r, "Magic")->v.u, 0x5B);
			ck_assert_uint_eq(find(r, "TotalChunks")->v.u, 1);
			ck_assert_uint_eq(find(r, "ChunkNumber")->v.u, 0);
			const struct etl_prop *data = find(r, "Data");
			ck_assert_int_eq(data->kind, ETL_VAL_STRING);
			ck_assert_uint_eq(data->v.str.len, ev->payload_size - 8);
			ck_assert_int_eq(memcmp(data->v.str.s, "<instrumentationManifest", 24), 0);
			ck_assert_ptr_nonnull(r->message);
			if (strstr(r->message, "bytes loaded"))
				loaded++;
			else if (strstr(r->message, "already loaded"))
				again++;
			else
				ck_abort_msg("unexpected: %s", r->message);
			manifests++;
			seen_manifest[k] = 1;
			continue;
		}
		if (k < 0 || !seen_manifest[k])
			continue;
		ck_assert_msg(st == ETL_OK, "%s id=%u: %s", prov_guids[k], ev->id, r->error);
		ck_assert_int_eq(r->source, ETL_DECODE_MANIFEST);
		ok[k]++;
		if (k == 0 && ev->id == 11 && !pv11++) {
			/* "NT Kernel Logger\0" "net.4.5.2.x64.kernel.etl\0"
			 * 00 01 00 00  f4 01 00 00 */
			ck_assert_str_eq(r->provider_name, "PerfView");
			ck_assert_str_eq(r->event_name, "SessionParameters");
			ck_assert_str_eq(r->level_name, "Information");
			ck_assert(str_is(find(r, "sessionName"), "NT Kernel Logger"));
			ck_assert(str_is(find(r, "sessionFileName"), "net.4.5.2.x64.kernel.etl"));
			ck_assert_int_eq(find(r, "bufferSizeMB")->v.i, 256);
			ck_assert_int_eq(find(r, "circularBuffSizeMB")->v.i, 500);
		}
		if (k == 1 && ev->id == 7 && !tpl7++) {
			/* 01000000 05000000 06000000 00000000 00200000 */
			ck_assert_str_eq(r->provider_name, "System.Threading.Tasks.TplEventSource");
			ck_assert_str_eq(r->task_name, "TaskScheduled");
			ck_assert_int_eq(find(r, "OriginatingTaskSchedulerID")->v.i, 1);
			ck_assert_int_eq(find(r, "OriginatingTaskID")->v.i, 5);
			ck_assert_int_eq(find(r, "TaskID")->v.i, 6);
			ck_assert_int_eq(find(r, "CreatingTaskID")->v.i, 0);
			ck_assert_int_eq(find(r, "TaskCreationOptions")->v.i, 0x2000);
			ck_assert_str_eq(r->message, "Task 6 scheduled to TaskScheduler 1.");
		}
	}
	ck_assert_int_eq(manifests, 4);
	ck_assert_int_eq(loaded, 3);
	ck_assert_int_eq(again, 1);
	ck_assert_int_ge(pv11, 1);
	ck_assert_int_ge(tpl7, 1);
	/* 108 PerfView, 8 Tpl, 6 Framework events, minus the manifests */
	ck_assert_uint_eq(ok[0], 106);
	ck_assert_uint_eq(ok[1], 7);
	ck_assert_uint_eq(ok[2], 5);
	etl_decoder_free(d);
	etl_reader_free(rd);
	free(path);
}
END_TEST

/* ---- hand-built events ------------------------------------------------ */

#define TEST_GUID "7a4d8a0e-5b3c-4f21-9e6d-0c1b2a394857"

static const char man_xml[] =
	"<instrumentationManifest xmlns=\"http://schemas.microsoft.com/win/2004/08/events\">\r\n"
	" <instrumentation xmlns:win=\"http://manifests.microsoft.com/win/2004/08/windows/events\">\r\n"
	"  <events xmlns=\"http://schemas.microsoft.com/win/2004/08/events\">\r\n"
	"<provider name=\"Test-InBand\" guid=\"{" TEST_GUID "}\" symbol=\"TestInBand\">\r\n"
	" <tasks>\r\n  <task name=\"Work\" value=\"1\"/>\r\n </tasks>\r\n"
	" <events>\r\n"
	"  <event value=\"1\" version=\"0\" level=\"win:Informational\" task=\"Work\" symbol=\"WorkDone\""
	" message=\"$(string.event_WorkDone)\" template=\"WorkArgs\"/>\r\n"
	" </events>\r\n"
	" <templates>\r\n  <template tid=\"WorkArgs\">\r\n"
	"   <data name=\"count\" inType=\"win:Int32\"/>\r\n"
	"   <data name=\"label\" inType=\"win:UnicodeString\"/>\r\n"
	"  </template>\r\n </templates>\r\n"
	"</provider>\r\n"
	"</events>\r\n</instrumentation>\r\n"
	"<localization>\r\n <resources culture=\"en-US\">\r\n  <stringTable>\r\n"
	"   <string id=\"event_WorkDone\" value=\"Did %1 of %2\"/>\r\n"
	"  </stringTable>\r\n </resources>\r\n</localization>\r\n"
	"</instrumentationManifest>\r\n";

static struct etl_event mkev(uint16_t id, uint8_t opcode, const void *pay, size_t n)
{
	struct etl_event ev;
	memset(&ev, 0, sizeof ev);
	ev.kind = ETL_HDR_EVENT_HEADER64;
	ev.ptr_size = 8;
	ev.present = ETL_EVF_DESCRIPTOR | ETL_EVF_PROVIDER;
	ev.provider = tu_guid(TEST_GUID);
	ev.id = id;
	ev.opcode = opcode;
	ev.payload = pay;
	ev.payload_size = (uint32_t)n;
	return ev;
}

/* ManifestData chunk k of total: envelope + part of man_xml. */
static uint8_t *chunk(unsigned k, unsigned total, size_t *n)
{
	size_t len = strlen(man_xml), per = (len + total - 1) / total;
	size_t off = k * per, m = off >= len ? 0 : (len - off < per ? len - off : per);
	uint8_t *b = malloc(8 + m);
	ck_assert_ptr_nonnull(b);
	b[0] = 1; b[1] = 1; b[2] = 0; b[3] = 0x5B;
	b[4] = (uint8_t)total; b[5] = (uint8_t)(total >> 8);
	b[6] = (uint8_t)k; b[7] = (uint8_t)(k >> 8);
	memcpy(b + 8, man_xml + off, m);
	*n = 8 + m;
	return b;
}

static int send_chunk(etl_decoder *d, unsigned k, unsigned total, const struct etl_decoded **r)
{
	size_t n;
	uint8_t *b = chunk(k, total, &n);
	struct etl_event ev = mkev(0xFFFE, 0xFE, b, n);
	int st = etl_decoder_decode(d, &ev, r);
	ck_assert_msg(st == ETL_OK, "chunk %u: %s", k, (*r)->error);
	ck_assert_str_eq((*r)->event_name, "ManifestData");
	ck_assert_uint_eq(find(*r, "ChunkNumber")->v.u, k);
	ck_assert_uint_eq(find(*r, "TotalChunks")->v.u, total);
	ck_assert_uint_eq(find(*r, "Data")->payload_offset, 8);
	free(b);
	return st;
}

/* count=7, label="ab" */
static const uint8_t work_pay[] = { 7, 0, 0, 0, 'a', 0, 'b', 0, 0, 0 };

static int decode_work(etl_decoder *d, const struct etl_decoded **r)
{
	struct etl_event ev = mkev(1, 0, work_pay, sizeof work_pay);
	return etl_decoder_decode(d, &ev, r);
}

START_TEST(test_chunks)
{
	etl_decoder *d = etl_decoder_new();
	const struct etl_decoded *r;

	/* before the manifest: no schema */
	ck_assert_int_eq(decode_work(d, &r), ETL_FAILED);
	ck_assert_int_eq(r->errcode, ETL_E_UNSUPPORTED);
	ck_assert_ptr_nonnull(strstr(r->error, "no schema"));

	send_chunk(d, 0, 3, &r);
	ck_assert_ptr_null(r->message);
	send_chunk(d, 1, 3, &r);
	ck_assert_int_eq(decode_work(d, &r), ETL_FAILED);     /* not complete yet */
	send_chunk(d, 2, 3, &r);
	ck_assert_ptr_nonnull(strstr(r->message, "bytes loaded"));

	ck_assert_int_eq(decode_work(d, &r), ETL_OK);
	ck_assert_int_eq(r->source, ETL_DECODE_MANIFEST);
	ck_assert_str_eq(r->provider_name, "Test-InBand");
	ck_assert_str_eq(r->event_name, "WorkDone");
	ck_assert_uint_eq(r->n_props, 2);
	ck_assert_int_eq(find(r, "count")->v.i, 7);
	ck_assert(str_is(find(r, "label"), "ab"));
	ck_assert_str_eq(r->message, "Did 7 of ab");

	/* the same manifest again: recognised, not loaded twice */
	send_chunk(d, 0, 3, &r);
	send_chunk(d, 1, 3, &r);
	send_chunk(d, 2, 3, &r);
	ck_assert_ptr_nonnull(strstr(r->message, "already loaded"));
	ck_assert_int_eq(decode_work(d, &r), ETL_OK);
	etl_decoder_free(d);
}
END_TEST

START_TEST(test_missing_chunk)
{
	etl_decoder *d = etl_decoder_new();
	const struct etl_decoded *r;

	/* chunk 1 lost: chunk 2 does not complete anything */
	send_chunk(d, 0, 3, &r);
	send_chunk(d, 2, 3, &r);
	ck_assert_ptr_null(r->message);
	ck_assert_int_eq(decode_work(d, &r), ETL_FAILED);
	ck_assert_ptr_nonnull(strstr(r->error, "no schema"));

	/* out of order / duplicated */
	send_chunk(d, 0, 3, &r);
	send_chunk(d, 1, 3, &r);
	send_chunk(d, 1, 3, &r);
	send_chunk(d, 2, 3, &r);
	ck_assert_int_eq(decode_work(d, &r), ETL_FAILED);

	/* another TotalChunks mid-set */
	send_chunk(d, 0, 3, &r);
	send_chunk(d, 1, 4, &r);
	send_chunk(d, 2, 3, &r);
	ck_assert_int_eq(decode_work(d, &r), ETL_FAILED);

	/* a new chunk 0 drops the incomplete set and starts over */
	send_chunk(d, 0, 3, &r);
	send_chunk(d, 1, 3, &r);
	send_chunk(d, 0, 3, &r);
	send_chunk(d, 1, 3, &r);
	send_chunk(d, 2, 3, &r);
	ck_assert_int_eq(decode_work(d, &r), ETL_OK);
	etl_decoder_free(d);
}
END_TEST

START_TEST(test_invalid)
{
	etl_decoder *d = etl_decoder_new();
	const struct etl_decoded *r;
	uint8_t b[64];
	struct etl_event ev;

	/* shorter than the envelope, also empty and NULL */
	memcpy(b, "\x01\x01\x00\x5b\x01\x00\x00", 7);
	for (size_t n = 0; n < 8; n++) {
		ev = mkev(0xFFFE, 0xFE, n ? b : NULL, n);
		ck_assert_int_eq(etl_decoder_decode(d, &ev, &r), ETL_FAILED);
		ck_assert_int_eq(r->errcode, ETL_E_TRUNCATED);
		ck_assert_uint_eq(r->n_props, 0);
	}
	/* bad magic, format, major version; chunk >= total; total 0 */
	static const uint8_t bad[][8] = {
		{ 1, 1, 0, 0x5C, 1, 0, 0, 0 },
		{ 2, 1, 0, 0x5B, 1, 0, 0, 0 },
		{ 1, 2, 0, 0x5B, 1, 0, 0, 0 },
		{ 1, 1, 0, 0x5B, 1, 0, 1, 0 },
		{ 1, 1, 0, 0x5B, 0, 0, 0, 0 },
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		memcpy(b, bad[i], 8);
		memcpy(b + 8, "<x/>", 4);
		ev = mkev(0xFFFE, 0xFE, b, 12);
		ck_assert_int_eq(etl_decoder_decode(d, &ev, &r), ETL_FAILED);
		ck_assert_int_eq(r->errcode, ETL_E_BAD_VALUE);
		ck_assert_ptr_nonnull(strstr(r->error, "invalid envelope"));
	}
	/* id 0xFFFE with another opcode is not ManifestData */
	memcpy(b, "\x01\x01\x00\x5b\x01\x00\x00\x00<x/>", 12);
	ev = mkev(0xFFFE, 0, b, 12);
	ck_assert_int_eq(etl_decoder_decode(d, &ev, &r), ETL_FAILED);
	ck_assert_ptr_nonnull(strstr(r->error, "no schema"));

	/* a valid one-chunk set that is not a manifest: decodes, not loaded */
	ev = mkev(0xFFFE, 0xFE, b, 12);
	ck_assert_int_eq(etl_decoder_decode(d, &ev, &r), ETL_OK);
	ck_assert_ptr_nonnull(strstr(r->message, "not loaded"));
	ck_assert(str_is(find(r, "Data"), "<x/>"));
	/* ... nor is broken XML */
	memcpy(b + 8, "<x>", 3);
	ev = mkev(0xFFFE, 0xFE, b, 11);
	ck_assert_int_eq(etl_decoder_decode(d, &ev, &r), ETL_OK);
	ck_assert_ptr_nonnull(strstr(r->message, "not loaded"));
	/* invalid UTF-8 data is binary */
	b[8] = 0xFF;
	ev = mkev(0xFFFE, 0xFE, b, 11);
	ck_assert_int_eq(etl_decoder_decode(d, &ev, &r), ETL_OK);
	ck_assert_int_eq(find(r, "Data")->kind, ETL_VAL_BINARY);
	ck_assert_uint_eq(find(r, "Data")->v.bin.len, 3);

	/* oversized: chunks adding up to more than 16 MiB are dropped */
	size_t big = 9u * 1024u * 1024u;
	uint8_t *p = calloc(1, 8 + big);
	ck_assert_ptr_nonnull(p);
	memcpy(p, "\x01\x01\x00\x5b\x03\x00\x00\x00", 8);
	memset(p + 8, ' ', big);
	ev = mkev(0xFFFE, 0xFE, p, 8 + big);
	ck_assert_int_eq(etl_decoder_decode(d, &ev, &r), ETL_OK);
	p[6] = 1;
	ck_assert_int_eq(etl_decoder_decode(d, &ev, &r), ETL_FAILED);
	ck_assert_int_eq(r->errcode, ETL_E_BAD_SIZE);
	p[6] = 2;                       /* the set is gone: ignored */
	ck_assert_int_eq(etl_decoder_decode(d, &ev, &r), ETL_OK);
	ck_assert_ptr_null(r->message);
	free(p);

	/* memory was given back: a normal manifest still assembles */
	send_chunk(d, 0, 3, &r);
	send_chunk(d, 1, 3, &r);
	send_chunk(d, 2, 3, &r);
	ck_assert_int_eq(decode_work(d, &r), ETL_OK);
	etl_decoder_free(d);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("inband");
	TCase *tc = tcase_create("inband");
	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, test_corpus);
	tcase_add_test(tc, test_chunks);
	tcase_add_test(tc, test_missing_chunk);
	tcase_add_test(tc, test_invalid);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int nf = srunner_ntests_failed(sr);
	srunner_free(sr);
	return nf ? EXIT_FAILURE : EXIT_SUCCESS;
}
