/*
 * check_manifest_versions.c - manifest events whose version the manifest
 * does not define, on the real corpus file clr-gc-circular.etl with the
 * real ../shared/manifests/dotnet-runtime.ClrEtwAll.man (PerfView's copy):
 *
 *   - version fallback: GCHeapStats (id 4) version 2 and GCAllocationTick
 *     (id 10) version 4 are decoded with the highest defined version below
 *     (1 and 3); the fields the newer version appended are the "ExtraData"
 *     property, not dropped. Values checked by hand against the payload
 *     bytes (etldump --hex --id 4 / --id 10);
 *   - ids the manifest does not define for Microsoft-Windows-DotNETRuntime
 *     at any version (202 GCMarkWithType, 204 GCPerHeapHistory_V3, 205
 *     GCGlobalHeapHistory_V4, 208 GCLOHCompact, 209 GCFitBucketInfo: events
 *     of newer runtimes, in dotnet/runtime's ClrEtwAll.man but not in this
 *     one) cannot be decoded by schema: they fail with "no schema for this
 *     event" naming id and version, and the exact list is asserted.
 */
#define _POSIX_C_SOURCE 200809L

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "etl.h"
#include "etl_decode.h"
#include "testutil.h"

#define CLR_GUID "e13c0d23-ccbc-4e12-931b-d9cc2eee27e4"

static char *manifest_path(void)
{
	const char *c = tu_corpus_dir();
	size_t n = strlen(c) + 64;
	char *p = malloc(n);
	ck_assert_ptr_nonnull(p);
	snprintf(p, n, "%s/../manifests/dotnet-runtime.ClrEtwAll.man", c);
	return p;
}

static const struct etl_prop *find(const struct etl_decoded *r, const char *name)
{
	for (uint32_t i = 0; i < r->n_props; i++)
		if (strcmp(r->props[i].name, name) == 0)
			return &r->props[i];
	return NULL;
}

static void expect_bin(const struct etl_prop *p, const uint8_t *want, size_t n)
{
	ck_assert_ptr_nonnull(p);
	ck_assert_int_eq(p->kind, ETL_VAL_BINARY);
	ck_assert_int_eq(p->out_type, ETL_OUT_HEXBINARY);
	ck_assert_uint_eq(p->parent, ETL_PROP_NO_PARENT);
	ck_assert_uint_eq(p->v.bin.len, n);
	ck_assert(memcmp(p->v.bin.p, want, n) == 0);
}

struct undef {
	uint16_t id;
	uint8_t version;
	unsigned want, got;
};

START_TEST(test_clr_gc_versions)
{
	char *path = tu_corpus_path("clr-gc-circular.etl");
	char *man = manifest_path();
	if (access(path, R_OK) != 0 || access(man, R_OK) != 0) {
		free(path);
		free(man);
		return;
	}
	etl_decoder *d = etl_decoder_new();
	ck_assert_msg(etl_decoder_add_manifest(d, man) == ETL_OK, "%s", etl_decoder_errmsg(d));
	etl_reader *rd = etl_reader_new();
	ck_assert_int_eq(etl_reader_open_file(rd, path), ETL_OK);
	struct etl_guid clr = tu_guid(CLR_GUID);

	struct undef undef[] = {
		{ 202, 0, 13, 0 }, { 204, 3, 2, 0 }, { 205, 4, 2, 0 }, { 208, 0, 1, 0 }, { 209, 0, 1, 0 },
	};
	const size_t n_undef = sizeof undef / sizeof undef[0];
	unsigned total = 0, ok = 0, heapstats = 0, alloctick = 0, extra = 0;
	const struct etl_event *ev;
	int rc;
	while ((rc = etl_reader_next(rd, &ev)) != ETL_END) {
		ck_assert_int_ne(rc, ETL_FATAL);
		if (rc == ETL_FAILED || !etl_guid_equal(&ev->provider, &clr))
			continue;
		total++;
		const struct etl_decoded *r;
		int st = etl_decoder_decode(d, ev, &r);
		if (st != ETL_OK) {
			size_t k;
			for (k = 0; k < n_undef; k++)
				if (undef[k].id == ev->id && undef[k].version == ev->version)
					break;
			ck_assert_msg(k < n_undef, "id %u version %u not decoded: %s", ev->id, ev->version, r->error);
			undef[k].got++;
			ck_assert_int_eq(r->errcode, ETL_E_UNSUPPORTED);
			char want[160];
			snprintf(want, sizeof want, "no schema for this event: provider=" CLR_GUID ", id=%u, version=%u",
			         ev->id, ev->version);
			ck_assert_str_eq(r->error, want);
			ck_assert_uint_eq(r->n_props, 0);
			continue;
		}
		ok++;
		const struct etl_prop *x = find(r, "ExtraData");
		if (ev->id == 4 && ev->version == 2) {
			ck_assert_str_eq(r->event_name, "GCHeapStats_V1");
			if (heapstats++ == 0) {
				/* 48020000 00000000 a8be0400 ... : the V1 fields (94 bytes),
				 * then GenerationSize4 = 0x3ff0 and TotalPromotedSize4 = 0 */
				ck_assert_uint_eq(ev->payload_size, 110);
				ck_assert_uint_eq(find(r, "GenerationSize0")->v.u, 584);
				ck_assert_uint_eq(find(r, "TotalPromotedSize0")->v.u, 310952);
				ck_assert_uint_eq(find(r, "GenerationSize1")->v.u, 314184);
				ck_assert_uint_eq(find(r, "GenerationSize3")->v.u, 326056);
				ck_assert_uint_eq(find(r, "FinalizationPromotedSize")->v.u, 13948);
				ck_assert_uint_eq(find(r, "FinalizationPromotedCount")->v.u, 6);
				ck_assert_uint_eq(find(r, "PinnedObjectCount")->v.u, 1);
				ck_assert_uint_eq(find(r, "GCHandleCount")->v.u, 53);
				ck_assert_uint_eq(find(r, "ClrInstanceID")->v.u, 8);
				static const uint8_t x4[16] = { 0xf0, 0x3f };
				expect_bin(x, x4, sizeof x4);
				ck_assert_uint_eq(x->payload_offset, 94);
				ck_assert_ptr_eq(x, &r->props[r->n_props - 1]);
			}
			ck_assert_ptr_nonnull(x);
			ck_assert_uint_eq(x->v.bin.len, 16);
			extra++;
		} else if (ev->id == 10 && ev->version == 4) {
			ck_assert_str_eq(r->event_name, "GCAllocationTick_V3");
			if (alloctick++ == 0) {
				/* 40aa0100 00000000 0800 40aa010000000000 081c5e48fb7f0000
				 * "System.String" 00000000 308b81f3b0010000 2000000000000000 */
				ck_assert_uint_eq(ev->payload_size, 74);
				ck_assert_uint_eq(find(r, "AllocationAmount")->v.u, 0x1aa40);
				ck_assert_uint_eq(find(r, "AllocationKind")->v.u, 0);
				ck_assert_str_eq(find(r, "AllocationKind")->map_name, "Small");
				ck_assert_uint_eq(find(r, "ClrInstanceID")->v.u, 8);
				ck_assert_uint_eq(find(r, "AllocationAmount64")->v.u, 0x1aa40);
				ck_assert_uint_eq(find(r, "TypeID")->v.u, 0x7ffb485e1c08ull);
				const struct etl_prop *tn = find(r, "TypeName");
				ck_assert(tn->v.str.len == 13 && memcmp(tn->v.str.s, "System.String", 13) == 0);
				ck_assert_uint_eq(find(r, "HeapIndex")->v.u, 0);
				ck_assert_uint_eq(find(r, "Address")->v.u, 0x1b0f3818b30ull);
				/* V4's ObjectSize (u64) = 32 */
				static const uint8_t x10[8] = { 0x20 };
				expect_bin(x, x10, sizeof x10);
				ck_assert_uint_eq(x->payload_offset, 66);
			}
			ck_assert_ptr_nonnull(x);
			ck_assert_uint_eq(x->v.bin.len, 8);
			extra++;
		} else {
			/* exact version: nothing is appended */
			ck_assert_msg(x == NULL, "id %u version %u has ExtraData", ev->id, ev->version);
		}
	}
	for (size_t k = 0; k < n_undef; k++)
		ck_assert_msg(undef[k].got == undef[k].want, "id %u version %u: %u undecoded, expected %u",
		              undef[k].id, undef[k].version, undef[k].got, undef[k].want);
	ck_assert_uint_eq(heapstats, 2);
	ck_assert_uint_eq(alloctick, 12);
	ck_assert_uint_eq(extra, 14);
	ck_assert_uint_eq(ok, 50);
	ck_assert_uint_eq(total, 50 + 19);
	etl_reader_free(rd);

	/* None of the undefined ids has a version the fallback could use: the
	 * highest version fails the same way. */
	for (size_t k = 0; k < n_undef; k++) {
		struct etl_event f;
		memset(&f, 0, sizeof f);
		f.kind = ETL_HDR_EVENT_HEADER64;
		f.ptr_size = 8;
		f.present = ETL_EVF_PROVIDER | ETL_EVF_DESCRIPTOR;
		f.provider = clr;
		f.id = undef[k].id;
		f.version = 255;
		const struct etl_decoded *r;
		ck_assert_int_eq(etl_decoder_decode(d, &f, &r), ETL_FAILED);
		ck_assert_int_eq(r->errcode, ETL_E_UNSUPPORTED);
	}
	/* A GCAllocationTick of the exact version 3 with trailing bytes: the
	 * bytes are ignored (no ExtraData), as before. */
	{
		uint8_t pay[74 + 4];
		memset(pay, 0, sizeof pay);
		pay[26] = 'A';                 /* TypeName "A" */
		struct etl_event f;
		memset(&f, 0, sizeof f);
		f.kind = ETL_HDR_EVENT_HEADER64;
		f.ptr_size = 8;
		f.present = ETL_EVF_PROVIDER | ETL_EVF_DESCRIPTOR;
		f.provider = clr;
		f.id = 10;
		f.version = 3;
		f.payload = pay;
		f.payload_size = sizeof pay;
		const struct etl_decoded *r;
		ck_assert_int_eq(etl_decoder_decode(d, &f, &r), ETL_OK);
		ck_assert_ptr_null(find(r, "ExtraData"));
		/* the same bytes as version 4: everything after Address */
		f.version = 4;
		ck_assert_int_eq(etl_decoder_decode(d, &f, &r), ETL_OK);
		const struct etl_prop *x = find(r, "ExtraData");
		ck_assert_ptr_nonnull(x);
		ck_assert_uint_eq(x->payload_offset, 26 + 4 + 4 + 8);
		ck_assert_uint_eq(x->v.bin.len, sizeof pay - (26 + 4 + 4 + 8));
	}
	etl_decoder_free(d);
	free(path);
	free(man);
}
END_TEST

/* RenderingInfo texts from the real manifest: task, opcode (declared in
 * its task) and keyword by their message strings, the winmeta level by
 * winmeta's text; the event name by symbol. */
START_TEST(test_clr_rendered_names)
{
	char *path = tu_corpus_path("clr-gc-circular.etl");
	char *man = manifest_path();
	etl_decoder *d = etl_decoder_new();
	ck_assert_msg(etl_decoder_add_manifest(d, man) == ETL_OK, "%s", etl_decoder_errmsg(d));
	etl_reader *rd = etl_reader_new();
	ck_assert_int_eq(etl_reader_open_file(rd, path), ETL_OK);
	struct etl_guid clr = tu_guid(CLR_GUID);
	const struct etl_event *ev;
	int st, seen = 0;
	while ((st = etl_reader_next(rd, &ev)) != ETL_END) {
		ck_assert_int_ne(st, ETL_FATAL);
		if (st == ETL_FAILED || !etl_guid_equal(&ev->provider, &clr) || ev->id != 5 || ev->version != 1)
			continue;
		const struct etl_decoded *r;
		ck_assert_int_eq(etl_decoder_decode(d, ev, &r), ETL_OK);
		ck_assert_str_eq(r->event_name, "GCCreateSegment_V1");
		ck_assert_str_eq(r->task_name, "GC");
		ck_assert_str_eq(r->opcode_name, "CreateSegment");
		ck_assert_str_eq(r->level_name, "Information");
		ck_assert_str_eq(r->keywords_name, "GC");
		seen++;
	}
	ck_assert_int_gt(seen, 0);
	etl_reader_free(rd);
	etl_decoder_free(d);
	free(path);
	free(man);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("manifest_versions");
	TCase *tc = tcase_create("core");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_clr_gc_versions);
	tcase_add_test(tc, test_clr_rendered_names);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int nf = srunner_ntests_failed(sr);
	srunner_free(sr);
	return nf == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
