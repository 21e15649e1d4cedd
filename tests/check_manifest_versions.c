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
 *     event" naming id and version, and the exact list is asserted;
 *   - with testdata/manifests/clr-gc-supplement.man loaded as well (a
 *     second manifest of the same provider defining just those five events,
 *     facts from dotnet/runtime's ClrEtwAll.man), every DotNETRuntime event
 *     of the file decodes, in either load order, each of the 19 consuming
 *     its payload exactly; field values checked by hand against etldump
 *     --hex --id 202/204/205/208/209.
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

/* The supplement's path, relative to the repository root (where the tests
 * run, as for check_manifest.c's testdata/manifests/test.man). */
#define GC_SUPPLEMENT "testdata/manifests/clr-gc-supplement.man"

static uint32_t prop_index(const struct etl_decoded *r, const struct etl_prop *p)
{
	return (uint32_t)(p - r->props);
}

/* The member called name of the struct at index parent (or a top-level
 * property with ETL_PROP_NO_PARENT). */
static const struct etl_prop *member(const struct etl_decoded *r, uint32_t parent, const char *name)
{
	for (uint32_t i = 0; i < r->n_props; i++)
		if (r->props[i].parent == parent && strcmp(r->props[i].name, name) == 0)
			return &r->props[i];
	return NULL;
}

static uint64_t top_u(const struct etl_decoded *r, const char *name)
{
	const struct etl_prop *p = member(r, ETL_PROP_NO_PARENT, name);
	ck_assert_msg(p != NULL, "no property %s", name);
	ck_assert_msg(p->kind == ETL_VAL_UINT, "%s: kind %d", name, p->kind);
	return p->v.u;
}

/* Element k of the struct array "Values" (n elements, checked). */
static uint32_t values_elem(const struct etl_decoded *r, uint32_t n, uint32_t k)
{
	const struct etl_prop *a = member(r, ETL_PROP_NO_PARENT, "Values");
	ck_assert_ptr_nonnull(a);
	ck_assert_int_eq(a->kind, ETL_VAL_ARRAY);
	ck_assert_uint_eq(a->n_children, n);
	uint32_t ai = prop_index(r, a), seen = 0;
	for (uint32_t i = 0; i < r->n_props; i++) {
		if (r->props[i].parent != ai)
			continue;
		ck_assert_int_eq(r->props[i].kind, ETL_VAL_STRUCT);
		if (seen++ == k)
			return i;
	}
	ck_abort_msg("Values has no element %u", k);
	return 0;
}

static uint64_t elem_u(const struct etl_decoded *r, uint32_t n, uint32_t k, const char *name)
{
	const struct etl_prop *p = member(r, values_elem(r, n, k), name);
	ck_assert_msg(p != NULL, "Values[%u] has no %s", k, name);
	ck_assert_int_eq(p->kind, ETL_VAL_UINT);
	return p->v.u;
}

/* Every scalar lies inside the payload and the last one ends where the
 * payload ends: the template consumed the bytes exactly. */
static void expect_exact(const struct etl_event *ev, const struct etl_decoded *r)
{
	uint32_t end = 0;
	for (uint32_t i = 0; i < r->n_props; i++) {
		const struct etl_prop *p = &r->props[i];
		if (p->kind == ETL_VAL_STRUCT || p->kind == ETL_VAL_ARRAY)
			continue;
		uint32_t w;
		switch (p->in_type) {
		case ETL_IN_UINT16: w = 2; break;
		case ETL_IN_INT32:
		case ETL_IN_UINT32: w = 4; break;
		case ETL_IN_UINT64: w = 8; break;
		case ETL_IN_POINTER: w = ev->ptr_size; break;
		default: ck_abort_msg("%s: unexpected in_type %u", p->name, p->in_type); w = 0;
		}
		ck_assert_uint_le(p->payload_offset + w, ev->payload_size);
		ck_assert_uint_ge(p->payload_offset, end);      /* in order, no overlap */
		end = p->payload_offset + w;
	}
	ck_assert_msg(end == ev->payload_size, "id %u: %u of %u bytes consumed", ev->id, end, ev->payload_size);
	ck_assert_ptr_null(member(r, ETL_PROP_NO_PARENT, "ExtraData"));
}

struct undef {
	uint16_t id;
	uint8_t version;
	unsigned want, got;
};

START_TEST(test_clr_gc_versions)
{
	TU_NEED_CORPUS();
	char *path = tu_corpus_path("clr-gc-circular.etl");
	char *man = manifest_path();
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
	TU_NEED_CORPUS();
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

/* The older manifest together with testdata/manifests/clr-gc-supplement.man
 * (the same provider; five events only): both load, the supplement adds
 * ids 202, 204 v3, 205 v4, 208 and 209 and changes nothing else, whichever
 * file comes first (no (id, version) is defined twice). The expected
 * values are read off the payload bytes (etldump --hex --id N); several
 * agree with other events of the same GC: GCHeapStats_V2's
 * GenerationSize0/1/3/4 = 584, 314184, 326056, 0x3ff0 are GCPerHeapHistory
 * SizeAfter of generations 0, 1, 3 (LOH) and 4 (POH); its
 * FinalizationPromotedSize 13948 is GCMarkWithType's NewFQ bytes; the nine
 * GCFitBucketInfo bucket sizes add up to its TotalSize. */
static void clr_gc_supplement(int supplement_first)
{
	char *path = tu_corpus_path("clr-gc-circular.etl");
	char *man = manifest_path();
	etl_decoder *d = etl_decoder_new();
	const char *first = supplement_first ? GC_SUPPLEMENT : man;
	const char *second = supplement_first ? man : GC_SUPPLEMENT;
	ck_assert_msg(etl_decoder_add_manifest(d, first) == ETL_OK, "%s", etl_decoder_errmsg(d));
	ck_assert_msg(etl_decoder_add_manifest(d, second) == ETL_OK, "%s", etl_decoder_errmsg(d));
	etl_reader *rd = etl_reader_new();
	ck_assert_int_eq(etl_reader_open_file(rd, path), ETL_OK);
	struct etl_guid clr = tu_guid(CLR_GUID);

	struct undef added[] = {
		{ 202, 0, 13, 0 }, { 204, 3, 2, 0 }, { 205, 4, 2, 0 }, { 208, 0, 1, 0 }, { 209, 0, 1, 0 },
	};
	const size_t n_added = sizeof added / sizeof added[0];
	/* GCMarkWithType, in file order: root kind and bytes marked */
	static const uint32_t mark_type[13] = { 0, 1, 2, 3, 6, 7, 6, 0, 1, 2, 6, 7, 6 };
	static const uint64_t mark_bytes[13] = { 24, 0, 904, 293544, 0, 13948, 0, 24, 15260, 418176, 0, 0, 0 };
	static const char *const root_name[10] = { "Stack", "Finalizer", "Handle", "Older", "SizedRef",
		                                   "Overflow", "DependentHandle", "NewFQ", "Steal", "BGC" };
	unsigned total = 0, failed = 0, extra = 0;
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
			failed++;
			fprintf(stderr, "id %u version %u: %s\n", ev->id, ev->version, r->error);
			continue;
		}
		size_t k;
		for (k = 0; k < n_added; k++)
			if (added[k].id == ev->id && added[k].version == ev->version)
				break;
		if (k == n_added) {
			/* the older manifest's events, as in test_clr_gc_versions */
			if (member(r, ETL_PROP_NO_PARENT, "ExtraData"))
				extra++;
			continue;
		}
		unsigned nth = added[k].got++;
		ck_assert_uint_eq(ev->ptr_size, 8);
		expect_exact(ev, r);
		ck_assert_str_eq(r->provider_name, "Microsoft-Windows-DotNETRuntime");
		ck_assert_str_eq(r->task_name, "GC");
		ck_assert_str_eq(r->keywords_name, "GC");
		ck_assert_uint_eq(top_u(r, "ClrInstanceID"), 8);
		switch (ev->id) {
		case 202: {
			ck_assert_str_eq(r->event_name, "GCMarkWithType");
			ck_assert_str_eq(r->opcode_name, "MarkWithType");
			ck_assert_str_eq(r->level_name, "Information");
			ck_assert_uint_eq(ev->payload_size, 18);
			ck_assert_uint_eq(top_u(r, "HeapNum"), 0);
			ck_assert_uint_eq(top_u(r, "Type"), mark_type[nth]);
			ck_assert_str_eq(member(r, ETL_PROP_NO_PARENT, "Type")->map_name, root_name[mark_type[nth]]);
			ck_assert_uint_eq(top_u(r, "Bytes"), mark_bytes[nth]);
			ck_assert_uint_eq(member(r, ETL_PROP_NO_PARENT, "Bytes")->payload_offset, 10);
			if (nth == 0) {
				/* 00000000 0800 00000000 1800000000000000 */
				ck_assert_str_eq(r->message, "Heap 0 marked 24 bytes from Stack roots (CLR instance 8).");
			}
			break;
		}
		case 204:
			ck_assert_str_eq(r->event_name, "GCPerHeapHistory_V3");
			ck_assert_str_eq(r->opcode_name, "PerHeapHistory");
			/* 86 bytes, then Count = 5 elements of 10 pointers */
			ck_assert_uint_eq(ev->payload_size, 86 + 5 * 80);
			ck_assert_uint_eq(top_u(r, "Count"), 5);
			ck_assert_uint_eq(member(r, ETL_PROP_NO_PARENT, "Count")->payload_offset, 0x52);
			ck_assert_uint_eq(top_u(r, "HeapIndex"), 0);
			ck_assert_uint_eq(top_u(r, "FreeListAllocated"), 0);
			ck_assert_uint_eq(top_u(r, "ExtraGen0Commit"), 0);
			if (nth == 0) {
				/* @0x36 05000000 00000000 02000080 */
				ck_assert_uint_eq(top_u(r, "CondemnReasons0"), 5);
				ck_assert_uint_eq(top_u(r, "CondemnReasons1"), 0);
				ck_assert_uint_eq(top_u(r, "CompactMechanisms"), 0x80000002u);
				/* Values[0] @0x56: 302d110000000000 ... 4802000000000000 */
				ck_assert_uint_eq(elem_u(r, 5, 0, "SizeBefore"), 0x112d30);
				ck_assert_uint_eq(elem_u(r, 5, 0, "SizeAfter"), 584);
				ck_assert_uint_eq(elem_u(r, 5, 0, "FreeListAfter"), 0x1e0);
				ck_assert_uint_eq(elem_u(r, 5, 0, "PinnedSurv"), 0x68);
				ck_assert_uint_eq(elem_u(r, 5, 0, "NonePinnedSurv"), 0x4be40);
				ck_assert_uint_eq(elem_u(r, 5, 0, "NewAllocation"), 0x488d58);
				ck_assert_uint_eq(elem_u(r, 5, 1, "SizeAfter"), 314184);
				ck_assert_uint_eq(elem_u(r, 5, 1, "In"), 0x4be40);
				ck_assert_uint_eq(elem_u(r, 5, 3, "SizeAfter"), 326056);
				ck_assert_uint_eq(elem_u(r, 5, 3, "FreeObjAfter"), 0x40);
				ck_assert_uint_eq(elem_u(r, 5, 4, "SizeAfter"), 0x3ff0);
			} else {
				/* the gen2 GC: 0a000000 01000000 08000080 */
				ck_assert_uint_eq(top_u(r, "CondemnReasons0"), 10);
				ck_assert_uint_eq(top_u(r, "CondemnReasons1"), 1);
				ck_assert_uint_eq(top_u(r, "CompactMechanisms"), 0x80000008u);
				ck_assert_uint_eq(elem_u(r, 5, 0, "SizeBefore"), 584);
				ck_assert_uint_eq(elem_u(r, 5, 2, "SizeAfter"), 0x4be40);
				ck_assert_uint_eq(elem_u(r, 5, 3, "SizeAfter"), 0x1a8a0);
				ck_assert_uint_eq(elem_u(r, 5, 4, "NewAllocation"), 0x300000);
			}
			break;
		case 205: {
			ck_assert_str_eq(r->event_name, "GCGlobalHeapHistory_V4");
			ck_assert_str_eq(r->opcode_name, "GlobalHeapHistory");
			/* 50 bytes, then Count = 8 UInt32 times */
			ck_assert_uint_eq(ev->payload_size, 50 + 8 * 4);
			const struct etl_prop *nh = member(r, ETL_PROP_NO_PARENT, "NumHeaps");
			ck_assert_int_eq(nh->kind, ETL_VAL_INT);
			ck_assert_int_eq(nh->v.i, 1);
			ck_assert_uint_eq(top_u(r, "Reason"), 1);
			ck_assert_uint_eq(top_u(r, "GlobalMechanisms"), 30);
			ck_assert_uint_eq(top_u(r, "PauseMode"), 1);
			ck_assert_uint_eq(top_u(r, "MemoryPressure"), 59);
			ck_assert_uint_eq(top_u(r, "Count"), 8);
			ck_assert_uint_eq(elem_u(r, 8, 7, "Time"), 0xffffffffu);
			if (nth == 0) {
				/* b85f470000000000 01000000 01000000 ... */
				ck_assert_uint_eq(top_u(r, "FinalYoungestDesired"), 0x475fb8);
				ck_assert_uint_eq(top_u(r, "CondemnedGeneration"), 1);
				ck_assert_uint_eq(elem_u(r, 8, 1, "Time"), 156);
				ck_assert_uint_eq(elem_u(r, 8, 6, "Time"), 142);
			} else {
				ck_assert_uint_eq(top_u(r, "FinalYoungestDesired"), 0x400000);
				ck_assert_uint_eq(top_u(r, "CondemnedGeneration"), 2);
				ck_assert_uint_eq(elem_u(r, 8, 1, "Time"), 100);
				ck_assert_uint_eq(elem_u(r, 8, 6, "Time"), 133);
			}
			break;
		}
		case 208:
			ck_assert_str_eq(r->event_name, "GCLOHCompact");
			ck_assert_str_eq(r->opcode_name, "LOHCompact");
			/* 0800 0100 | 01000000 11000000 00000000 (pad) 00000000
			 *           | TotalRefs 0 | ZeroRefs 0 */
			ck_assert_uint_eq(ev->payload_size, 4 + 32);
			ck_assert_uint_eq(top_u(r, "Count"), 1);
			ck_assert_uint_eq(elem_u(r, 1, 0, "TimePlan"), 1);
			ck_assert_uint_eq(elem_u(r, 1, 0, "TimeCompact"), 17);
			ck_assert_uint_eq(elem_u(r, 1, 0, "TimeRelocate"), 0);
			ck_assert_uint_eq(elem_u(r, 1, 0, "Padding"), 0);
			ck_assert_uint_eq(elem_u(r, 1, 0, "TotalRefs"), 0);
			ck_assert_uint_eq(member(r, values_elem(r, 1, 0), "TotalRefs")->payload_offset, 20);
			ck_assert_uint_eq(member(r, values_elem(r, 1, 0), "ZeroRefs")->payload_offset, 28);
			break;
		case 209: {
			ck_assert_str_eq(r->event_name, "GCFitBucketInfo");
			ck_assert_str_eq(r->opcode_name, "FitBucketInfo");
			ck_assert_str_eq(r->level_name, "Verbose");
			/* 0800 0100 40be040000000000 0900, then 9 x (Index, pad,
			 * Count, Size) of 16 bytes */
			ck_assert_uint_eq(ev->payload_size, 14 + 9 * 16);
			ck_assert_uint_eq(top_u(r, "BucketKind"), 1);
			ck_assert_str_eq(member(r, ETL_PROP_NO_PARENT, "BucketKind")->map_name, "Plug");
			ck_assert_uint_eq(top_u(r, "TotalSize"), 310848);
			ck_assert_uint_eq(top_u(r, "Count"), 9);
			static const uint32_t cnt[9] = { 215, 117, 106, 27, 7, 1, 1, 1, 2 };
			static const uint64_t size[9] = { 0x6720, 0xa628, 0x115d0, 0x96f8, 0x53c8,
				                          0x11d0, 0x2018, 0x7110, 0x10d70 };
			uint64_t sum = 0;
			for (uint32_t b = 0; b < 9; b++) {
				ck_assert_uint_eq(elem_u(r, 9, b, "Index"), b);
				ck_assert_uint_eq(elem_u(r, 9, b, "Padding"), 0);
				ck_assert_uint_eq(elem_u(r, 9, b, "Count"), cnt[b]);
				ck_assert_uint_eq(elem_u(r, 9, b, "Size"), size[b]);
				sum += elem_u(r, 9, b, "Size");
			}
			ck_assert_uint_eq(sum, top_u(r, "TotalSize"));
			break;
		}
		default:
			ck_abort();
		}
	}
	ck_assert_uint_eq(failed, 0);
	for (size_t k = 0; k < n_added; k++)
		ck_assert_msg(added[k].got == added[k].want, "id %u version %u: %u decoded, expected %u",
		              added[k].id, added[k].version, added[k].got, added[k].want);
	ck_assert_uint_eq(extra, 14);   /* the older manifest's fallbacks, unchanged */
	ck_assert_uint_eq(total, 50 + 19);
	etl_reader_free(rd);
	etl_decoder_free(d);
	free(path);
	free(man);
}

START_TEST(test_clr_gc_supplement)
{
	TU_NEED_CORPUS();
	clr_gc_supplement(0);
	clr_gc_supplement(1);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("manifest_versions");
	TCase *tc = tcase_create("core");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_clr_gc_versions);
	tcase_add_test(tc, test_clr_rendered_names);
	tcase_add_test(tc, test_clr_gc_supplement);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int nf = srunner_ntests_failed(sr);
	srunner_free(sr);
	return nf == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
