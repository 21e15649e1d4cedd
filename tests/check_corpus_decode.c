/*
 * check_corpus_decode.c - how much of the corpus decodes, and what the
 * records a trace merge adds decode to (doc/decoding.md §10).
 *
 *   - coverage: every corpus file read in time order (as etlconvert reads
 *     it) through one decoder with ../shared/manifests loaded: the number
 *     of events and of undecoded events per file, exactly, and none of the
 *     providers a merge writes (ImageId, SystemConfigEx, WinSat,
 *     EventMetadata, Config, EventTrace, PerfInfo) among the undecoded;
 *   - values checked by hand against the bytes (ImageId ImageID /
 *     DbgID_RSDS / DbgID_ILRSDS / None / FileVersion, SystemConfigEx,
 *     WinSat's XML, EventTrace DbgIdRSDS and BuildInfo, Config PnP v4,
 *     Services v3, CPU v3, OpticalMedia, IDEChannel, Platform, DPI);
 *   - EventMetadata: without a manifest, the PerfView trace's events decode
 *     from the schemas it carries (values of DNS-Client 1001, Immersive-
 *     Shell 192, GCBulkMovedObjectRanges with its struct array of 32-bit
 *     pointers), and where a manifest also describes them the two give the
 *     same properties, value for value;
 *   - CLRStackWalk's Stack holds FrameCount frames (the manifest says 2).
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etl.h"
#include "etl_decode.h"
#include "testutil.h"

#define PERFVIEW "perfview-kernel-clr-x64-compressed.etl"
#define ESSELF   "eventsource-selfdescribing-compressed.etl"

static etl_decoder *decoder(int manifests)
{
	etl_decoder *d = etl_decoder_new();
	ck_assert_ptr_nonnull(d);
	if (manifests) {
		char dir[1200];
		snprintf(dir, sizeof dir, "%s/../manifests", tu_corpus_dir());
		ck_assert_msg(etl_decoder_add_manifest(d, dir) == ETL_OK, "%s", etl_decoder_errmsg(d));
	}
	return d;
}

typedef void (*visit_fn)(const struct etl_event *ev, const struct etl_decoded *r, void *arg);

struct counts {
	unsigned events, undecoded, merged_undecoded;
	unsigned by_source[8];
};

static int guid_is(const struct etl_guid *g, const char *s)
{
	struct etl_guid x;
	ck_assert_int_eq(etl_guid_parse(s, &x), ETL_OK);
	return etl_guid_equal(g, &x);
}

/* The providers whose records a merge writes, and the kernel groups the
 * issue names. */
static int merged_provider(const struct etl_guid *g)
{
	static const char *const guids[] = {
		"b3e675d7-2554-4f18-830b-2762732560de", /* ImageId        */
		"9b79ee91-b5fd-41c0-a243-4248e266e9d0", /* SystemConfigEx */
		"ed54dff8-c409-4cf6-bf83-05e1e61a09c4", /* WinSat         */
		"bbccf6c1-6cd1-48c4-80ff-839482e37671", /* EventMetadata  */
		"01853a65-418f-4f36-aefc-dc0f1d2fd235", /* Config         */
		"68fdd900-4a3e-11d1-84f4-0000f80464e3", /* EventTrace     */
		"ce1dbfb4-137e-4da6-87b0-3f59aa102cbc", /* PerfInfo       */
	};
	for (size_t i = 0; i < sizeof guids / sizeof guids[0]; i++)
		if (guid_is(g, guids[i]))
			return 1;
	return 0;
}

/* Reads file in time order, decoding every event with d. */
static struct counts walk(const char *file, etl_decoder *d, visit_fn fn, void *arg)
{
	struct counts c;
	memset(&c, 0, sizeof c);
	char *path = tu_corpus_path(file);
	etl_reader *rd = etl_reader_new();
	const struct etl_event *ev;
	int rc;
	ck_assert_int_eq(etl_reader_open_file(rd, path), ETL_OK);
	while ((rc = etl_reader_next(rd, &ev)) != ETL_END) {
		ck_assert_int_ne(rc, ETL_FATAL);
		if (rc != ETL_OK && rc != ETL_WARN)
			continue;
		const struct etl_decoded *r;
		int st = etl_decoder_decode(d, ev, &r);
		ck_assert_int_ne(st, ETL_FATAL);
		c.events++;
		if (st != ETL_OK) {
			c.undecoded++;
			if (merged_provider(&ev->provider))
				c.merged_undecoded++;
		} else if (r->source >= 0 && r->source < 8) {
			c.by_source[r->source]++;
		}
		if (fn)
			fn(ev, r, arg);
	}
	etl_reader_free(rd);
	free(path);
	return c;
}

/* ---- property access ---------------------------------------------------- */

static const struct etl_prop *prop(const struct etl_decoded *r, const char *name)
{
	for (uint32_t i = 0; i < r->n_props; i++)
		if (r->props[i].parent == ETL_PROP_NO_PARENT && strcmp(r->props[i].name, name) == 0)
			return &r->props[i];
	ck_abort_msg("no property %s in %s/%s", name, r->provider_name, r->event_name);
	return NULL;
}

static uint64_t num(const struct etl_decoded *r, const char *name)
{
	return prop(r, name)->v.u;
}

/* The string value of p, NUL-terminated (a static buffer). */
static const char *text_of(const struct etl_prop *p)
{
	static char buf[65536];
	ck_assert_int_eq(p->kind, ETL_VAL_STRING);
	ck_assert_uint_lt(p->v.str.len, sizeof buf);
	memcpy(buf, p->v.str.s, p->v.str.len);
	buf[p->v.str.len] = 0;
	return buf;
}

static const char *str(const struct etl_decoded *r, const char *name)
{
	return text_of(prop(r, name));
}

static void guid_eq(const struct etl_decoded *r, const char *name, const char *want)
{
	const struct etl_prop *p = prop(r, name);
	ck_assert_int_eq(p->kind, ETL_VAL_GUID);
	ck_assert_msg(guid_is(&p->v.guid, want), "%s is not %s", name, want);
}

static int named(const struct etl_decoded *r, const char *provider, const char *opcode)
{
	return r->status == ETL_OK && r->provider_name && strcmp(r->provider_name, provider) == 0 &&
	       r->opcode_name && strcmp(r->opcode_name, opcode) == 0;
}

/* ---- coverage ----------------------------------------------------------- */

struct file_exp {
	const char *file;
	unsigned events, undecoded;
};

/* With ../shared/manifests: what stays undecoded is Microsoft-Windows-
 * PowerShell (no manifest in the corpus), 13 WPP messages of OneDrive's
 * cldflt (no TMF) and 19 DotNETRuntime GC events ClrEtwAll.man lacks. */
static const struct file_exp files[] = {
	{ "amsi-tracelogging.etl", 21, 0 },
	{ "clr-gc-circular.etl", 71, 19 },
	{ "clr-rundown-32bit-compressed.etl", 2, 0 },
	{ "eventsource-primitive-types.etl", 7, 0 },
	{ ESSELF, 23, 0 },
	{ "hw3d-single-tracelogging.etl", 3, 0 },
	{ "onedrive-cldflt-wpp.etl", 17, 13 },
	{ PERFVIEW, 179474, 0 },
	{ "powershell-manifest.etl", 114, 112 },
	{ "vista-classic-mixed-32.etl", 27, 0 },
	{ "waasmedic-tracelogging.etl", 21, 0 },
	{ "wdi-shutdown-perfdiag-kernel.etl", 17078, 0 },
	{ "win7-classic-image-32.etl", 27, 0 },
	{ "win7-classic-process-32.etl", 3, 0 },
	{ "win7-httpservice-manifest.etl", 2042, 0 },
	{ "win7-kernel-process-manifest.etl", 10344, 0 },
	{ "windowsupdate-tracelogging.etl", 82, 0 },
	{ "wsl-lxcore-tracelogging.etl", 4, 0 },
};

START_TEST(test_coverage)
{
	TU_NEED_CORPUS();
	unsigned total = 0, decoded = 0;
	for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
		etl_decoder *d = decoder(1);
		struct counts c = walk(files[i].file, d, NULL, NULL);
		ck_assert_msg(c.events == files[i].events && c.undecoded == files[i].undecoded,
		              "%s: %u events, %u undecoded; expected %u, %u", files[i].file, c.events,
		              c.undecoded, files[i].events, files[i].undecoded);
		ck_assert_msg(c.merged_undecoded == 0, "%s: %u events of merge/kernel providers undecoded",
		              files[i].file, c.merged_undecoded);
		total += c.events;
		decoded += c.events - c.undecoded;
		etl_decoder_free(d);
	}
	/* README: decode coverage */
	ck_assert_uint_eq(total, 209360);
	ck_assert_uint_eq(decoded, 209360 - 144);
}
END_TEST

/* ---- the merged records, by hand --------------------------------------- */

struct seen {
	unsigned rsds, ilrsds, imageid, none, fileversion, volmap, paths, pnp_up, pnp_low, services,
	         cpu, optical, ide, platform, dpi, winsat, build, unknown_vol, op37, et_rsds, et_build;
};

static void perfview_check(const struct etl_event *ev, const struct etl_decoded *r, void *arg)
{
	struct seen *s = arg;
	(void)ev;
	if (named(r, "ImageId", "DbgID_RSDS") && num(r, "ImageBase") == 0x77710000 && num(r, "ProcessId") == 4) {
		/* #190: 00007177 00000000 04000000 dfd883ec 5955e046 b630133e bd979266 02000000 "wntdll.pdb" */
		guid_eq(r, "GuidSig", "ec83d8df-5559-46e0-b630-133ebd979266");
		ck_assert_uint_eq(num(r, "Age"), 2);
		ck_assert_str_eq(str(r, "PdbFileName"), "wntdll.pdb");
		s->rsds++;
	} else if (named(r, "ImageId", "DbgID_ILRSDS") && num(r, "ImageBase") == 0x5fa0000) {
		/* #5606 */
		ck_assert_uint_eq(num(r, "ProcessId"), 3988);
		guid_eq(r, "GuidSig", "46c7f945-589d-4bf7-bcf8-2771980299f4");
		ck_assert_uint_eq(num(r, "Age"), 1);
		ck_assert_str_eq(str(r, "PdbFileName"), "mscorlib.pdb");
		s->ilrsds++;
	} else if (named(r, "ImageId", "DbgID_ILRSDS") && num(r, "ImageBase") == 0x5df0000) {
		/* #5602: a full build path */
		ck_assert_str_eq(str(r, "PdbFileName"), "E:\\A\\_work\\622\\s\\src\\FastSerialization\\obj\\Release\\net45\\"
		                                        "Microsoft.Diagnostics.FastSerialization.pdb");
		guid_eq(r, "GuidSig", "a4e92cd6-b916-471f-b0aa-ac54eb10af9f");
		s->ilrsds++;
	} else if (named(r, "ImageId", "ImageID") && num(r, "ImageBase") == 0x77710000 && num(r, "ProcessId") == 4) {
		/* #189 */
		ck_assert_uint_eq(num(r, "ImageSize"), 0x157000);
		ck_assert_uint_eq(num(r, "TimeDateStamp"), 0x5010ae7a);
		ck_assert_str_eq(str(r, "OriginalFileName"), "ntdll.dll");
		s->imageid++;
	} else if (named(r, "ImageId", "None") && num(r, "ImageBase") == 0x7f9ccc50000ull) {
		/* #956: 0000c5ccf9070000 d4020000 */
		ck_assert_uint_eq(num(r, "ProcessId"), 724);
		ck_assert_uint_eq(r->n_props, 2);
		s->none++;
	} else if (named(r, "ImageId", "FileVersion") && strcmp(str(r, "OrigFileName"), "ntdll.dll") == 0 &&
	           num(r, "ImageSize") == 0x157000) {
		/* #188 (the 32-bit ntdll): the ten version strings */
		ck_assert_uint_eq(num(r, "TimeDateStamp"), 0x5010ae7a);
		ck_assert_str_eq(str(r, "FileDescription"), "NT Layer DLL");
		ck_assert_str_eq(str(r, "FileVersion"), "6.2.9200.16384 (win8_rtm.120725-1247)");
		ck_assert_str_eq(str(r, "BinFileVersion"), "6.2.9200.16384");
		ck_assert_str_eq(str(r, "VerLanguage"), "1033");
		ck_assert_str_eq(str(r, "ProductName"), "Microsoft\xc2\xae Windows\xc2\xae Operating System");
		ck_assert_str_eq(str(r, "CompanyName"), "Microsoft Corporation");
		ck_assert_str_eq(str(r, "ProductVersion"), "6.2.9200.16384");
		ck_assert_str_eq(str(r, "FileId"), "");
		ck_assert_str_eq(str(r, "ProgramId"), "");
		s->fileversion++;
	} else if (named(r, "SystemConfigEx", "VolumeMapping") &&
	           strcmp(str(r, "NtPath"), "\\Device\\HarddiskVolume2\\") == 0) {
		/* #10086: the trailing backslashes stay */
		ck_assert_str_eq(str(r, "DosPath"), "C:\\");
		s->volmap++;
	} else if (named(r, "SystemConfigEx", "SystemPaths")) {
		ck_assert_str_eq(str(r, "SystemDirectory"), "C:\\Windows\\system32");
		ck_assert_str_eq(str(r, "SystemWindowsDirectory"), "C:\\Windows\\");
		s->paths++;
	} else if (named(r, "SystemConfigEx", "BuildInfo")) {
		ck_assert_str_eq(str(r, "BuildLab"), "9200.16384.amd64fre.win8_rtm.120725-1247");
		ck_assert_str_eq(str(r, "ProductName"), "Windows 8 Pro");
		ck_assert_uint_eq(num(r, "InstallDate"), 0x019db1ded53e8000ull);   /* 1970: unknown */
		s->build++;
	} else if (named(r, "SystemConfigEx", "UnknownVolume")) {
		ck_assert_str_eq(str(r, "NtPath"), "\\Device\\HarddiskVolume1\\");
		s->unknown_vol++;
	} else if (named(r, "SystemConfigEx", "Opcode37")) {
		ck_assert_uint_eq(prop(r, "Data")->v.bin.len, 16);
		s->op37++;
	} else if (named(r, "SystemConfig", "PnP") && strcmp(str(r, "DeviceID"), "ACPI\\PNP0501\\1") == 0) {
		/* #132782: PnP v4 (was read with the v2 layout) */
		guid_eq(r, "ClassGuid", "4d36e978-e325-11ce-bfc1-08002be10318");
		ck_assert_str_eq(str(r, "FriendlyName"), "Communications Port (COM1)");
		ck_assert_str_eq(str(r, "PdoName"), "\\Device\\0000002b");
		ck_assert_str_eq(str(r, "ServiceName"), "Serial");
		const struct etl_prop *up = prop(r, "UpperFilters");
		ck_assert_int_eq(up->kind, ETL_VAL_ARRAY);
		ck_assert_uint_eq(up->n_children, 1);
		ck_assert_str_eq(text_of(&r->props[up->first_child]), "serenum");
		ck_assert_uint_eq(prop(r, "LowerFilters")->n_children, 0);
		s->pnp_up++;
	} else if (named(r, "SystemConfig", "PnP") && strcmp(str(r, "DeviceID"), "ROOT\\MS_NDISWANIP\\0000") == 0) {
		/* #132765 */
		const struct etl_prop *low = prop(r, "LowerFilters");
		ck_assert_uint_eq(low->n_children, 1);
		ck_assert_str_eq(text_of(&r->props[low->first_child]), "NdisTapi");
		ck_assert_uint_eq(num(r, "UpperFiltersCount"), 0);
		s->pnp_low++;
	} else if (named(r, "SystemConfig", "Services") && strcmp(str(r, "ServiceName"), "AeLookupSvc") == 0) {
		/* #130322: Services v3 */
		ck_assert_str_eq(str(r, "DisplayName"), "Application Experience");
		ck_assert_str_eq(str(r, "LoadOrderGroup"), "");
		ck_assert_str_eq(str(r, "SvchostGroup"), "netsvcs");
		s->services++;
	} else if (named(r, "SystemConfig", "CPU")) {
		/* #132648: CPU v3 */
		ck_assert_str_eq(str(r, "ComputerName"), "BRIANROB-W8");
		ck_assert_uint_eq(num(r, "MHz"), 3592);
		ck_assert_uint_eq(num(r, "HighestUserAddress"), 0x7fffffeffffull);
		ck_assert_uint_eq(num(r, "ProcessorArchitecture"), 9);
		ck_assert_uint_eq(num(r, "ProcessorLevel"), 6);
		ck_assert_uint_eq(num(r, "ProcessorRevision"), 0x3c03);
		ck_assert_uint_eq(num(r, "PaeEnabled"), 1);
		ck_assert_uint_eq(num(r, "NxEnabled"), 1);
		ck_assert_uint_eq(num(r, "MemorySpeed"), 0);
		s->cpu++;
	} else if (named(r, "SystemConfig", "OpticalMedia")) {
		ck_assert_uint_eq(num(r, "BytesPerSector"), 2048);
		ck_assert_str_eq(str(r, "DriveLetter"), "D:");
		ck_assert_str_eq(str(r, "FileSystemName"), "UDF");
		ck_assert_str_eq(str(r, "DeviceName"), "Virtual CD/ROM  ");
		ck_assert_str_eq(str(r, "ManufacturerName"), "Msft    ");
		s->optical++;
	} else if (named(r, "SystemConfig", "IDEChannel")) {
		ck_assert_uint_eq(num(r, "DeviceTimingMode"), 0x410);
		ck_assert_str_eq(str(r, "LocationInformation"), num(r, "DeviceType") == 1 ? "Channel 0" : "Channel 1");
		s->ide++;
	} else if (named(r, "SystemConfig", "Platform")) {
		ck_assert_str_eq(str(r, "SystemManufacturer"), "Microsoft Corporation");
		ck_assert_str_eq(str(r, "SystemProductName"), "Virtual Machine");
		ck_assert_str_eq(str(r, "BiosDate"), "12/07/2018");
		ck_assert_str_eq(str(r, "BiosVersion"), "090008");
		s->platform++;
	} else if (named(r, "SystemConfig", "DPI")) {
		ck_assert_uint_eq(num(r, "MachineDPI"), 96);
		ck_assert_uint_eq(num(r, "UserDPI"), 96);
		s->dpi++;
	}
}

START_TEST(test_merged_perfview)
{
	TU_NEED_CORPUS();
	etl_decoder *d = decoder(1);
	struct seen s;
	memset(&s, 0, sizeof s);
	struct counts c = walk(PERFVIEW, d, perfview_check, &s);
	ck_assert_uint_eq(c.undecoded, 0);
	ck_assert_uint_ge(s.rsds, 1);
	ck_assert_uint_eq(s.ilrsds, 4);         /* two images, DCStart and DCEnd */
	ck_assert_uint_ge(s.imageid, 1);
	ck_assert_uint_eq(s.none, 2);           /* DCStart and DCEnd */
	ck_assert_uint_ge(s.fileversion, 1);
	ck_assert_uint_eq(s.volmap, 1);
	ck_assert_uint_eq(s.paths, 1);
	ck_assert_uint_eq(s.build, 1);
	ck_assert_uint_eq(s.unknown_vol, 1);
	ck_assert_uint_eq(s.op37, 1);
	ck_assert_uint_eq(s.pnp_up, 1);
	ck_assert_uint_eq(s.pnp_low, 1);
	ck_assert_uint_eq(s.services, 1);
	ck_assert_uint_eq(s.cpu, 1);
	ck_assert_uint_eq(s.optical, 1);
	ck_assert_uint_eq(s.ide, 2);
	ck_assert_uint_eq(s.platform, 1);
	ck_assert_uint_eq(s.dpi, 1);
	etl_decoder_free(d);
}
END_TEST

static void esself_check(const struct etl_event *ev, const struct etl_decoded *r, void *arg)
{
	struct seen *s = arg;
	(void)ev;
	if (named(r, "WinSat", "WinSPR")) {
		/* #17: State 1, 0x41c bytes of UTF-16 XML in LZNT1 */
		ck_assert_uint_eq(num(r, "State"), 1);
		ck_assert_uint_eq(num(r, "UncompressedSize"), 1052);
		const char *x = str(r, "Xml");
		ck_assert_uint_eq(strlen(x), 525);      /* 1052 bytes: 525 characters and the NUL */
		const char *head = "<WinSPR><SystemScore>8</SystemScore><MemoryScore>9.2</MemoryScore>";
		ck_assert_int_eq(strncmp(x, head, strlen(head)), 0);
		ck_assert_str_eq(x + strlen(x) - 9, "</WinSPR>");
		ck_assert_uint_eq(prop(r, "Xml")->out_type, ETL_OUT_XML);
		s->winsat++;
	} else if (named(r, "WinSat", "SystemConfig")) {
		ck_assert_uint_eq(num(r, "UncompressedSize"), 17888);
		ck_assert_ptr_nonnull(strstr(str(r, "Xml"), "<Build>22000</Build>"));
		s->winsat++;
	} else if (named(r, "WinSat", "Metrics")) {
		ck_assert_uint_eq(num(r, "UncompressedSize"), 2348);
		s->winsat++;
	} else if (named(r, "SystemConfigEx", "BuildInfo")) {
		/* #20: 0x01d7b97d6c50bc80 = 2021-10-05T00:10:37Z */
		ck_assert_int_eq(prop(r, "InstallDate")->kind, ETL_VAL_FILETIME);
		ck_assert_uint_eq(num(r, "InstallDate"), 0x01d7b97d6c50bc80ull);
		ck_assert_str_eq(str(r, "BuildLab"), "22000.613.amd64fre.co_release.210604-1628");
		ck_assert_str_eq(str(r, "ProductName"), "Windows 10 Enterprise");
		s->build++;
	} else if (named(r, "SystemConfigEx", "VolumeMapping") &&
	           strcmp(str(r, "NtPath"), "\\DriverStores\\BSPDRIVERS\\") == 0) {
		ck_assert_str_eq(str(r, "DosPath"), "\\\\?\\GLOBALROOT\\DriverStores\\BSPDRIVERS\\");
		s->volmap++;
	} else if (named(r, "SystemConfigEx", "Opcode37")) {
		const struct etl_prop *p = prop(r, "Data");
		ck_assert_uint_eq(p->v.bin.len, 16);
		ck_assert_int_eq(memcmp(p->v.bin.p, "\x65\x02\xf0\x55\x00\x00\x0a\x00\x03\x00\x00\x00\x00\x00\x00\x00", 16), 0);
		s->op37++;
	}
}

static void eventtrace_check(const struct etl_event *ev, const struct etl_decoded *r, void *arg)
{
	struct seen *s = arg;
	(void)ev;
	if (named(r, "EventTrace", "DbgIdRSDS")) {
		/* onedrive #3: a669bc00 e0d14d8f db35c75a 4a07c3cd 01000000 "cldflt.pdb" */
		guid_eq(r, "GuidSig", "00bc69a6-d1e0-8f4d-db35-c75a4a07c3cd");
		ck_assert_uint_eq(num(r, "Age"), 1);
		ck_assert_str_eq(str(r, "PdbFileName"), "cldflt.pdb");
		s->et_rsds++;
	} else if (named(r, "EventTrace", "BuildInfo")) {
		ck_assert_str_eq(str(r, "BuildLab"), "26100.1.amd64fre.ge_release.240331-1435");
		s->et_build++;
	}
}

START_TEST(test_merged_small_files)
{
	TU_NEED_CORPUS();
	etl_decoder *d = decoder(0);
	struct seen s;
	memset(&s, 0, sizeof s);
	struct counts c = walk(ESSELF, d, esself_check, &s);
	ck_assert_uint_eq(c.undecoded, 0);
	ck_assert_uint_eq(s.winsat, 3);
	ck_assert_uint_eq(s.build, 1);
	ck_assert_uint_eq(s.volmap, 1);
	ck_assert_uint_eq(s.op37, 1);
	etl_decoder_free(d);

	d = decoder(0);
	memset(&s, 0, sizeof s);
	c = walk("onedrive-cldflt-wpp.etl", d, eventtrace_check, &s);
	ck_assert_uint_eq(s.et_rsds, 1);
	ck_assert_uint_eq(s.et_build, 1);
	ck_assert_uint_eq(c.undecoded, 13);     /* the WPP messages: no TMF */
	etl_decoder_free(d);
}
END_TEST

/* ---- EventMetadata -------------------------------------------------------- */

struct meta_seen {
	unsigned dns, shell, moved, stackwalk, eventinfo, mapinfo;
};

static void meta_check(const struct etl_event *ev, const struct etl_decoded *r, void *arg)
{
	struct meta_seen *s = arg;
	if (r->status == ETL_OK && r->provider_name && strcmp(r->provider_name, "EventMetadata") == 0) {
		if (strcmp(r->event_name, "EventInfo") == 0)
			s->eventinfo++;
		else
			s->mapinfo++;
		if (strcmp(r->event_name, "EventMapInfo") == 0 && strcmp(str(r, "MapName"), "DnsIpTypeMap") == 0) {
			/* #7354: value map 0 = "static ", 1 = "dynamic " */
			const struct etl_prop *e = prop(r, "Entries");
			ck_assert_uint_eq(e->n_children, 2);
			ck_assert_uint_eq(num(r, "Flag"), 1);
		}
		return;
	}
	if (r->status != ETL_OK || r->source != ETL_DECODE_EVENT_METADATA)
		return;
	if (guid_is(&ev->provider, "1c95126e-7eea-49a9-a3fe-a378b03ddb4d") && ev->id == 1001 && s->dns++ == 0) {
		/* #7355: "Ethernet" 4 1 0x01 0x1c, a SOCKADDR_IN6 */
		ck_assert_str_eq(r->provider_name, "Microsoft-Windows-DNS-Client");
		ck_assert_str_eq(r->task_name, "DnsServerForInterface");
		ck_assert_str_eq(r->channel_name, "Microsoft-Windows-DNS-Client/Operational");
		ck_assert_str_eq(str(r, "Interface"), "Ethernet");
		ck_assert_uint_eq(num(r, "TotalServerCount"), 4);
		ck_assert_uint_eq(num(r, "Index"), 1);
		ck_assert_uint_eq(num(r, "DynamicAddress"), 1);
		ck_assert_str_eq(prop(r, "DynamicAddress")->map_name, "dynamic");
		ck_assert_uint_eq(num(r, "AddressLength"), 28);
		const struct etl_prop *a = prop(r, "Address");
		ck_assert_uint_eq(a->v.bin.len, 28);
		ck_assert_uint_eq(a->out_type, ETL_OUT_SOCKETADDRESS);
		ck_assert_int_eq(memcmp(a->v.bin.p + 8, "\x20\x01\x48\x98", 4), 0);
		ck_assert_ptr_nonnull(strstr(r->message, "Interface: Ethernet Total DNS Server Count: 4 Index: 1"));
		ck_assert_ptr_nonnull(strstr(r->message, "(dynamic)"));
	} else if (guid_is(&ev->provider, "315a8872-923e-4ea2-9889-33cd4754bf64") && ev->id == 192 &&
	           s->shell++ == 0) {
		/* #19422: 13000000 */
		ck_assert_uint_eq(r->n_props, 1);
		ck_assert_uint_eq(num(r, "Message"), 19);
		ck_assert_str_eq(r->opcode_name, "Stop");
		ck_assert_str_eq(r->level_name, "Information");
	} else if (guid_is(&ev->provider, "e13c0d23-ccbc-4e12-931b-d9cc2eee27e4") && ev->id == 22 &&
	           ev->ptr_size == 4 && num(r, "Count") == 4080 && s->moved++ == 0) {
		/* #61887: Index 0, Count 4080, ClrInstanceID 11, 4080 x 16 bytes */
		ck_assert_uint_eq(num(r, "Index"), 0);
		ck_assert_uint_eq(num(r, "ClrInstanceID"), 11);
		const struct etl_prop *v = prop(r, "Values");
		ck_assert_int_eq(v->kind, ETL_VAL_ARRAY);
		ck_assert_uint_eq(v->n_children, 4080);
		const struct etl_prop *e0 = &r->props[v->first_child];
		ck_assert_int_eq(e0->kind, ETL_VAL_STRUCT);
		ck_assert_uint_eq(e0->n_children, 3);
		ck_assert_str_eq(r->props[e0->first_child].name, "OldRangeBase");
		ck_assert_uint_eq(r->props[e0->first_child].v.u, 0x1096100c);
		ck_assert_uint_eq(r->props[e0->first_child + 1].v.u, 0x4214f54);
		ck_assert_uint_eq(r->props[e0->first_child + 2].v.u, 0x5175c);
		const struct etl_prop *last = &r->props[v->first_child + 4079];
		ck_assert_uint_eq(r->props[last->first_child + 2].payload_offset + 8, ev->payload_size);
	}
	if (guid_is(&ev->provider, "e13c0d23-ccbc-4e12-931b-d9cc2eee27e4") && ev->id == 82) {
		/* CLRStackWalk: FrameCount frames, the payload's end */
		const struct etl_prop *st = prop(r, "Stack");
		ck_assert_uint_eq(st->n_children, num(r, "FrameCount"));
		ck_assert_uint_eq(8 + st->n_children * (ev->ptr_size == 4 ? 4u : 8u), ev->payload_size);
		s->stackwalk++;
	}
}

START_TEST(test_event_metadata_alone)
{
	TU_NEED_CORPUS();
	etl_decoder *d = decoder(0);
	struct meta_seen s;
	memset(&s, 0, sizeof s);
	struct counts c = walk(PERFVIEW, d, meta_check, &s);
	/* 66 394 events of 8 providers decode from the 61 EventInfo and 24
	 * EventMapInfo records; left: DotNETRuntimePrivate, which has none. */
	ck_assert_uint_eq(c.by_source[ETL_DECODE_EVENT_METADATA], 66394);
	ck_assert_uint_eq(c.undecoded, 1627);
	ck_assert_uint_eq(s.eventinfo, 61);
	ck_assert_uint_eq(s.mapinfo, 24);
	ck_assert_uint_eq(s.dns, 4);
	ck_assert_uint_eq(s.shell, 2);
	ck_assert_uint_eq(s.moved, 1);
	ck_assert_uint_eq(s.stackwalk, 14983);
	etl_decoder_free(d);
}
END_TEST

/* TDH's default out-type of an in-type, which the EventMetadata blobs
 * spell out where a manifest may leave it out (0: none). */
static unsigned tdh_default_out(unsigned in, unsigned out)
{
	static const unsigned def[] = {
		[ETL_IN_UNICODESTRING] = ETL_OUT_STRING, [ETL_IN_ANSISTRING] = ETL_OUT_STRING,
		[ETL_IN_INT8] = ETL_OUT_BYTE, [ETL_IN_UINT8] = ETL_OUT_UNSIGNEDBYTE,
		[ETL_IN_INT16] = ETL_OUT_SHORT, [ETL_IN_UINT16] = ETL_OUT_UNSIGNEDSHORT,
		[ETL_IN_INT32] = ETL_OUT_INT, [ETL_IN_UINT32] = ETL_OUT_UNSIGNEDINT,
		[ETL_IN_INT64] = ETL_OUT_LONG, [ETL_IN_UINT64] = ETL_OUT_UNSIGNEDLONG,
		[ETL_IN_FLOAT] = ETL_OUT_FLOAT, [ETL_IN_DOUBLE] = ETL_OUT_DOUBLE,
		[ETL_IN_BOOLEAN] = ETL_OUT_BOOLEAN, [ETL_IN_BINARY] = ETL_OUT_HEXBINARY,
		[ETL_IN_GUID] = ETL_OUT_GUID, [ETL_IN_FILETIME] = ETL_OUT_DATETIME,
		[ETL_IN_SYSTEMTIME] = ETL_OUT_DATETIME, [ETL_IN_HEXINT32] = ETL_OUT_HEXINT32,
		[ETL_IN_HEXINT64] = ETL_OUT_HEXINT64, [ETL_IN_COUNTEDSTRING] = ETL_OUT_STRING,
		[ETL_IN_COUNTEDANSISTRING] = ETL_OUT_STRING,
	};
	if (in == ETL_IN_POINTER)
		return out == ETL_OUT_HEXINT32 ? ETL_OUT_HEXINT32 : ETL_OUT_HEXINT64;
	return in < sizeof def / sizeof def[0] ? def[in] : 0;
}

/* Out-types a and b say the same: equal, or one is absent and the other
 * the in-type's default. */
static int same_out(uint16_t in, uint16_t a, uint16_t b)
{
	return a == b || (a == 0 && b == tdh_default_out(in, b)) || (b == 0 && a == tdh_default_out(in, a));
}

/* Properties a and b (of results ra and rb) and their children are the
 * same: name, kind, types, value, map text, offset. */
static void same_prop(const struct etl_decoded *ra, uint32_t a, const struct etl_decoded *rb, uint32_t b,
                      const char *ctx)
{
	const struct etl_prop *x = &ra->props[a], *y = &rb->props[b];
	TU_CHECK(strcmp(x->name, y->name) == 0, "%s: %s / %s", ctx, x->name, y->name);
	TU_CHECK(x->kind == y->kind && x->in_type == y->in_type && same_out(x->in_type, x->out_type, y->out_type),
	              "%s: %s: kind %d/%d in %u/%u out %u/%u", ctx, x->name, x->kind, y->kind, x->in_type,
	              y->in_type, x->out_type, y->out_type);
	TU_CHECK(x->payload_offset == y->payload_offset, "%s: %s offset", ctx, x->name);
	TU_CHECK((!x->map_name && !y->map_name) || (x->map_name && y->map_name &&
	              strcmp(x->map_name, y->map_name) == 0), "%s: %s map text", ctx, x->name);
	switch (x->kind) {
	case ETL_VAL_STRING:
		TU_CHECK(x->v.str.len == y->v.str.len && memcmp(x->v.str.s, y->v.str.s, x->v.str.len) == 0,
		              "%s: %s text", ctx, x->name);
		break;
	case ETL_VAL_BINARY: case ETL_VAL_SID:
		TU_CHECK(x->v.bin.len == y->v.bin.len && memcmp(x->v.bin.p, y->v.bin.p, x->v.bin.len) == 0,
		              "%s: %s bytes", ctx, x->name);
		break;
	case ETL_VAL_GUID:
		TU_CHECK(etl_guid_equal(&x->v.guid, &y->v.guid), "%s: %s", ctx, x->name);
		break;
	case ETL_VAL_STRUCT: case ETL_VAL_ARRAY:
		TU_CHECK(x->n_children == y->n_children, "%s: %s children", ctx, x->name);
		for (uint32_t k = 0; k < x->n_children; k++)
			same_prop(ra, x->first_child + k, rb, y->first_child + k, ctx);
		break;
	default:
		TU_CHECK(x->v.u == y->v.u, "%s: %s value", ctx, x->name);
		break;
	}
}

START_TEST(test_event_metadata_vs_manifest)
{
	TU_NEED_CORPUS();
	/* The same trace through two decoders at once: with the manifests,
	 * which win, and without, when the trace's EventMetadata decodes. */
	etl_decoder *dm = decoder(1), *de = decoder(0);
	char *path = tu_corpus_path(PERFVIEW);
	etl_reader *rd = etl_reader_new();
	const struct etl_event *ev;
	int rc;
	unsigned compared = 0, only_meta = 0;
	unsigned providers = 0;
	struct etl_guid seen[16];
	ck_assert_int_eq(etl_reader_open_file(rd, path), ETL_OK);
	while ((rc = etl_reader_next(rd, &ev)) != ETL_END) {
		if (rc != ETL_OK && rc != ETL_WARN)
			continue;
		const struct etl_decoded *rm, *re;
		etl_decoder_decode(dm, ev, &rm);
		etl_decoder_decode(de, ev, &re);
		if (re->status != ETL_OK || re->source != ETL_DECODE_EVENT_METADATA)
			continue;
		/* TU_CHECK per event: 66,000 of them */
		TU_CHECK(rm->status == ETL_OK, "id %u: %s", ev->id, rm->error ? rm->error : "");
		if (rm->source == ETL_DECODE_EVENT_METADATA) {
			only_meta++;            /* no manifest describes it */
			continue;
		}
		TU_CHECK(rm->source == ETL_DECODE_MANIFEST, "id %u: source %d", ev->id, (int)rm->source);
		char ctx[96];
		snprintf(ctx, sizeof ctx, "%s id %u v%u", rm->provider_name, ev->id, ev->version);
		TU_CHECK(rm->n_props == re->n_props, "%s: %u / %u properties", ctx, rm->n_props, re->n_props);
		for (uint32_t i = 0; i < rm->n_props; i++)
			if (rm->props[i].parent == ETL_PROP_NO_PARENT)
				same_prop(rm, i, re, i, ctx);
		compared++;
		unsigned k;
		for (k = 0; k < providers && !etl_guid_equal(&seen[k], &ev->provider); k++)
			;
		if (k == providers && providers < 16)
			seen[providers++] = ev->provider;
	}
	/* DotNETRuntime, DotNETRuntimeRundown, Kernel-EventTracing,
	 * Kernel-File, Kernel-Process: both; DNS-Client and Immersive-Shell:
	 * EventMetadata alone. */
	ck_assert_uint_eq(compared, 66382);
	ck_assert_uint_eq(providers, 5);
	ck_assert_uint_eq(only_meta, 12);
	etl_reader_free(rd);
	free(path);
	etl_decoder_free(dm);
	etl_decoder_free(de);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("corpus_decode");
	TCase *tc = tcase_create("corpus_decode");
	tcase_set_timeout(tc, 600);
	tcase_add_test(tc, test_coverage);
	tcase_add_test(tc, test_merged_perfview);
	tcase_add_test(tc, test_merged_small_files);
	tcase_add_test(tc, test_event_metadata_alone);
	tcase_add_test(tc, test_event_metadata_vs_manifest);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int nf = srunner_ntests_failed(sr);
	srunner_free(sr);
	return nf ? 1 : 0;
}
