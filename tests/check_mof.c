/*
 * check_mof.c - the classic / MOF kernel decoder (lib/decode/mof.c, tables in
 * lib/decode/mof_kernel_classes.c; doc/decoding.md §4): every Process, Thread, Image and
 * StackWalk event of the real kernel files decodes, with values checked by
 * hand against the bytes (etldump --hex), 32-bit records, hand-built
 * payloads and truncation.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etl.h"
#include "testutil.h"

static const struct etl_prop *prop(const struct etl_decoded *r, const char *name)
{
	for (uint32_t i = 0; i < r->n_props; i++)
		if (r->props[i].parent == ETL_PROP_NO_PARENT && strcmp(r->props[i].name, name) == 0)
			return &r->props[i];
	return NULL;
}

static int str_is(const struct etl_decoded *r, const char *name, const char *want)
{
	const struct etl_prop *p = prop(r, name);
	return p && p->kind == ETL_VAL_STRING && p->v.str.len == strlen(want) &&
	       memcmp(p->v.str.s, want, p->v.str.len) == 0;
}

static uint64_t uval(const struct etl_decoded *r, const char *name)
{
	const struct etl_prop *p = prop(r, name);
	ck_assert_msg(p != NULL, "no property %s", name);
	return p->v.u;
}

struct counts {
	size_t process, thread, image, stack, eventtrace, ok_other;
	int seen_smss, seen_csrss, seen_header, seen_stack, seen_load, seen_img32, seen_proc32;
};

static void check_event(const char *file, const struct etl_event *ev, const struct etl_decoded *r,
                        struct counts *c)
{
	const char *pn = ev->provider_name ? ev->provider_name : "";
	if (!strcmp(pn, "Process")) c->process++;
	else if (!strcmp(pn, "Thread")) c->thread++;
	else if (!strcmp(pn, "ImageLoad")) c->image++;
	else if (!strcmp(pn, "StackWalk")) c->stack++;
	else if (!strcmp(pn, "EventTrace")) c->eventtrace++;
	else return;
	ck_assert_msg(r->status == ETL_OK, "%s: %s op %u v%u at 0x%llx: %s", file, pn, ev->opcode,
	              ev->version, (unsigned long long)ev->file_offset, r->error ? r->error : "?");
	ck_assert_int_eq(r->source, ETL_DECODE_MOF);

	if (!strcmp(file, "wdi-shutdown-perfdiag-kernel.etl")) {
		if (!strcmp(pn, "Process") && ev->opcode == 3 && str_is(r, "ImageFileName", "smss.exe")) {
			ck_assert_str_eq(r->event_name, "DCStart");
			ck_assert(str_is(r, "CommandLine", "\\SystemRoot\\System32\\smss.exe"));
			ck_assert_uint_eq(uval(r, "ProcessId"), 0x15c);
			ck_assert_uint_eq(uval(r, "ParentId"), 4);
			ck_assert_uint_eq(uval(r, "DirectoryTableBase"), 0x18407000);
			ck_assert_uint_eq(uval(r, "UniqueProcessKey"), 0xffffca86868a6080ull);
			const struct etl_prop *sid = prop(r, "UserSID");
			ck_assert(sid && sid->kind == ETL_VAL_SID && sid->v.bin.len == 12);
			c->seen_smss = 1;
		}
		if (!strcmp(pn, "Process") && ev->opcode == 3 && str_is(r, "ImageFileName", "csrss.exe") &&
		    uval(r, "ProcessId") == 0x1ac) {
			const struct etl_prop *cl = prop(r, "CommandLine");
			ck_assert(cl && cl->v.str.len > 30 &&
			          !memcmp(cl->v.str.s, "%SystemRoot%\\system32\\csrss.exe ObjectDirectory=\\Windows", 56));
			ck_assert_uint_eq(uval(r, "ParentId"), 0x1a4);
			c->seen_csrss = 1;
		}
		if (!strcmp(pn, "Process") && ev->opcode == 10 &&
		    str_is(r, "FileName", "\\Device\\HarddiskVolume3\\Windows\\System32\\wpnapps.dll")) {
			ck_assert_str_eq(r->provider_name, "Image");
			ck_assert_str_eq(r->event_name, "Load");
			ck_assert_uint_eq(uval(r, "ImageBase"), 0x7ff97d250000ull);
			ck_assert_uint_eq(uval(r, "ImageSize"), 0x146000);
			ck_assert_uint_eq(uval(r, "ProcessId"), 0xf10);
			c->seen_load = 1;
		}
		if (!strcmp(pn, "EventTrace") && ev->opcode == 0) {
			ck_assert_str_eq(r->event_name, "Header");
			ck_assert_uint_eq(uval(r, "BufferSize"), 0x10000);
			ck_assert_uint_eq(uval(r, "PointerSize"), 8);
			ck_assert_uint_eq(uval(r, "NumberOfProcessors"), 2);
			ck_assert_uint_eq(uval(r, "LogFileMode"), 0x2000080);
			ck_assert_uint_eq(uval(r, "PerfFreq"), 10000000);
			ck_assert(str_is(r, "SessionNameString", "PerfDiag Logger"));
			ck_assert(str_is(r, "LogFileNameString",
			                 "C:\\Windows\\system32\\WDI\\LogFiles\\ShutdownPerfDiagLogger.etl"));
			c->seen_header = 1;
		}
	}
	if (!strcmp(file, "perfview-kernel-clr-x64-compressed.etl") && !strcmp(pn, "StackWalk") &&
	    ev->opcode == 32 && !c->seen_stack) {
		/* the first Stack event: 2 frames */
		ck_assert_str_eq(r->event_name, "Stack");
		ck_assert_uint_eq(uval(r, "EventTimeStamp"), 0x73ce6e0f);
		ck_assert_uint_eq(uval(r, "StackProcess"), 0xf94);
		ck_assert_uint_eq(uval(r, "StackThread"), 0xec4);
		const struct etl_prop *a = prop(r, "Stack");
		ck_assert(a && a->kind == ETL_VAL_ARRAY);
		ck_assert_uint_eq(a->n_children, 2);
		ck_assert_uint_eq(r->props[a->first_child].v.u, 0xffffffffffd03003ull);
		ck_assert_uint_eq(r->props[a->first_child + 1].v.u, 0xfffff800215dae37ull);
		c->seen_stack = 1;
	}
	if (!strcmp(file, "win7-classic-image-32.etl") && !strcmp(pn, "ImageLoad") && ev->opcode == 10) {
		/* FULL_HEADER32 carrying a 64-bit v0 payload (u64 base, u32 size) */
		ck_assert_int_eq(ev->kind, ETL_HDR_FULL_HEADER32);
		ck_assert_uint_eq(uval(r, "ImageBase"), 0x1160000);
		ck_assert_uint_eq(uval(r, "ImageSize"), 0x19e000);
		ck_assert(str_is(r, "FileName", "C:\\code\\sawbuck\\src\\sawbuck\\Debug\\test_program.exe"));
		ck_assert_uint_eq(r->n_props, 3);
		c->seen_img32 = 1;
	}
	if (!strcmp(file, "win7-classic-process-32.etl") && !strcmp(pn, "Process") && ev->opcode == 1) {
		ck_assert_int_eq(ev->kind, ETL_HDR_FULL_HEADER32);
		ck_assert(str_is(r, "ImageFileName", "notepad.exe"));
		ck_assert_uint_eq(uval(r, "ProcessId"), 0x6f0);
		ck_assert_uint_eq(uval(r, "ParentId"), 0x3dc);
		ck_assert_uint_eq(uval(r, "SessionId"), 1);
		const struct etl_prop *sid = prop(r, "UserSID");
		ck_assert(sid && sid->kind == ETL_VAL_SID && sid->v.bin.len == 28);
		c->seen_proc32 = 1;
	}
	if (!strcmp(file, "win7-classic-process-32.etl") && !strcmp(pn, "EventTrace")) {
		ck_assert_uint_eq(uval(r, "PointerSize"), 4);
		ck_assert(str_is(r, "SessionNameString", "Make Test Data Session"));
		ck_assert(str_is(r, "LogFileNameString",
		                 "c:\\src\\sawbuck\\trunk\\src\\sawbuck\\log_lib\\test_data\\process_data_32_v1.etl"));
	}
}

static struct counts run(const char *file)
{
	struct counts c;
	char *path = tu_corpus_path(file);
	etl_reader *rd = etl_reader_new();
	etl_decoder *d = etl_decoder_new();
	const struct etl_event *ev;
	int rc;

	memset(&c, 0, sizeof c);
	etl_reader_set_order(rd, ETL_ORDER_FILE);
	ck_assert_int_eq(etl_reader_open_file(rd, path), ETL_OK);
	while ((rc = etl_reader_next(rd, &ev)) != ETL_END) {
		ck_assert(rc != ETL_FATAL);
		if (rc != ETL_OK && rc != ETL_WARN)
			continue;
		const struct etl_decoded *r;
		etl_decoder_decode(d, ev, &r);
		check_event(file, ev, r, &c);
	}
	etl_decoder_free(d);
	etl_reader_free(rd);
	free(path);
	return c;
}

/* Counts as printed by `etldump --summary`. */
START_TEST(test_wdi_kernel)
{
	TU_NEED_CORPUS();
	struct counts c = run("wdi-shutdown-perfdiag-kernel.etl");
	ck_assert_uint_eq(c.process, 328);
	ck_assert_uint_eq(c.thread, 3058);
	ck_assert_uint_eq(c.image, 13683);
	ck_assert_uint_eq(c.eventtrace, 9);
	ck_assert(c.seen_smss && c.seen_csrss && c.seen_header && c.seen_load);
}
END_TEST

START_TEST(test_perfview_kernel)
{
	TU_NEED_CORPUS();
	struct counts c = run("perfview-kernel-clr-x64-compressed.etl");
	ck_assert_uint_eq(c.process, 136);
	ck_assert_uint_eq(c.thread, 1358);
	ck_assert_uint_eq(c.image, 3563);
	ck_assert_uint_eq(c.stack, 12280);
	ck_assert(c.seen_stack);
}
END_TEST

START_TEST(test_classic_32)
{
	TU_NEED_CORPUS();
	struct counts c = run("win7-classic-image-32.etl");
	ck_assert_uint_eq(c.image, 26);
	ck_assert(c.seen_img32);
	c = run("win7-classic-process-32.etl");
	ck_assert_uint_eq(c.process, 2);
	ck_assert(c.seen_proc32);
	c = run("vista-classic-mixed-32.etl");
	ck_assert_uint_eq(c.image, 26);
}
END_TEST

/* ---- hand-built payloads --------------------------------------------- */

static void mkev(struct etl_event *ev, int kind, const char *guid, uint8_t op, uint8_t ver,
                 const struct tu_bytes *pay)
{
	memset(ev, 0, sizeof *ev);
	ev->kind = kind;
	ev->ptr_size = (kind == ETL_HDR_SYSTEM32 || kind == ETL_HDR_PERFINFO32) ? 4 : 8;
	ev->provider = tu_guid(guid);
	ev->opcode = op;
	ev->version = ver;
	ev->payload = pay->p;
	ev->payload_size = (uint32_t)pay->len;
}

#define PROCESS_G "3d6fa8d0-fe05-11d0-9dda-00c04fd7ba7c"
#define THREAD_G "3d6fa8d1-fe05-11d0-9dda-00c04fd7ba7c"
#define STACK_G "def2fe46-7bd6-4b80-bd94-f57fe20d0ce3"

START_TEST(test_hand_process_v2_32)
{
	struct tu_bytes b;
	struct etl_event ev;
	const struct etl_decoded *r;
	etl_decoder *d = etl_decoder_new();
	tu_bytes_init(&b);
	tu_put32(&b, 0x81234560);   /* UniqueProcessKey */
	tu_put32(&b, 100);          /* ProcessId */
	tu_put32(&b, 4);            /* ParentId */
	tu_put32(&b, 1);            /* SessionId */
	tu_put32(&b, 0);            /* ExitStatus */
	tu_put32(&b, 0x88888888);   /* TOKEN_USER pointer */
	tu_put32(&b, 0);            /* attributes */
	static const uint8_t sid[12] = { 1, 1, 0, 0, 0, 0, 0, 5, 18, 0, 0, 0 };
	tu_putbytes(&b, sid, sizeof sid);
	tu_putbytes(&b, "a.exe", 6);
	tu_pututf16z(&b, "a.exe -x");
	mkev(&ev, ETL_HDR_SYSTEM32, PROCESS_G, 1, 2, &b);
	ck_assert_int_eq(etl_decoder_decode(d, &ev, &r), ETL_OK);
	ck_assert_str_eq(r->provider_name, "Process");
	ck_assert_str_eq(r->event_name, "Start");
	ck_assert_uint_eq(r->n_props, 8);
	ck_assert_uint_eq(uval(r, "UniqueProcessKey"), 0x81234560);
	ck_assert_uint_eq(uval(r, "ProcessId"), 100);
	ck_assert(str_is(r, "ImageFileName", "a.exe"));
	ck_assert(str_is(r, "CommandLine", "a.exe -x"));
	ck_assert_uint_eq(prop(r, "UserSID")->v.bin.len, 12);

	/* trailing bytes beyond the v2 layout become ExtraData */
	tu_put32(&b, 0xdeadbeef);
	mkev(&ev, ETL_HDR_SYSTEM32, PROCESS_G, 1, 2, &b);
	ck_assert_int_eq(etl_decoder_decode(d, &ev, &r), ETL_OK);
	ck_assert_uint_eq(r->n_props, 9);
	ck_assert_uint_eq(prop(r, "ExtraData")->v.bin.len, 4);

	/* every truncation fails cleanly, naming a field */
	for (size_t n = 0; n < 20 + 4 + 4 + 12 + 1; n++) {
		struct tu_bytes t = { .p = b.p, .len = n };
		mkev(&ev, ETL_HDR_SYSTEM32, PROCESS_G, 1, 2, &t);
		ck_assert_int_eq(etl_decoder_decode(d, &ev, &r), ETL_FAILED);
		ck_assert_int_eq(r->errcode, ETL_E_TRUNCATED);
		ck_assert(strstr(r->error, "payload offset") != NULL);
	}
	tu_bytes_free(&b);
	etl_decoder_free(d);
}
END_TEST

START_TEST(test_hand_thread_fallback_and_stack32)
{
	struct tu_bytes b;
	struct etl_event ev;
	const struct etl_decoded *r;
	etl_decoder *d = etl_decoder_new();
	tu_bytes_init(&b);
	tu_put32(&b, 7);
	tu_put32(&b, 9);
	for (int i = 0; i < 7; i++)
		tu_put32(&b, 0x1000u * (unsigned)(i + 1));
	tu_put32(&b, 0);
	tu_put32(&b, 0x04030201);   /* v3 priorities */
	/* version 9 is unknown: decoded as v3 */
	mkev(&ev, ETL_HDR_SYSTEM32, THREAD_G, 1, 9, &b);
	ck_assert_int_eq(etl_decoder_decode(d, &ev, &r), ETL_OK);
	ck_assert_uint_eq(uval(r, "TThreadId"), 9);
	ck_assert_uint_eq(uval(r, "TebBase"), 0x7000);
	ck_assert_uint_eq(uval(r, "IoPriority"), 3);
	/* version 1 has no lower layout: unsupported */
	mkev(&ev, ETL_HDR_SYSTEM32, THREAD_G, 1, 1, &b);
	ck_assert_int_eq(etl_decoder_decode(d, &ev, &r), ETL_FAILED);
	ck_assert_int_eq(r->errcode, ETL_E_UNSUPPORTED);
	tu_bytes_free(&b);

	/* 32-bit stack: 3 frames and 2 stray bytes -> ExtraData */
	tu_bytes_init(&b);
	tu_put64(&b, 12345);
	tu_put32(&b, 1);
	tu_put32(&b, 2);
	tu_put32(&b, 0x401000);
	tu_put32(&b, 0x402000);
	tu_put32(&b, 0x403000);
	tu_put16(&b, 0xffff);
	mkev(&ev, ETL_HDR_PERFINFO32, STACK_G, 32, 2, &b);
	ck_assert_int_eq(etl_decoder_decode(d, &ev, &r), ETL_OK);
	const struct etl_prop *a = prop(r, "Stack");
	ck_assert_uint_eq(a->n_children, 3);
	ck_assert_uint_eq(r->props[a->first_child + 2].v.u, 0x403000);
	ck_assert_uint_eq(prop(r, "ExtraData")->v.bin.len, 2);
	tu_bytes_free(&b);
	etl_decoder_free(d);
}
END_TEST

static Suite *mof_suite(void)
{
	Suite *s = suite_create("mof");
	TCase *tc = tcase_create("hand");
	TCase *tcc = tcase_create("corpus");
	tcase_add_test(tc, test_hand_process_v2_32);
	tcase_add_test(tc, test_hand_thread_fallback_and_stack32);
	suite_add_tcase(s, tc);
	tcase_set_timeout(tcc, 300);
	tcase_add_test(tcc, test_wdi_kernel);
	tcase_add_test(tcc, test_perfview_kernel);
	tcase_add_test(tcc, test_classic_32);
	suite_add_tcase(s, tcc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(mof_suite());
	int failed;
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
