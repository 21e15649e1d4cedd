/*
 * lib/decode/mof_merged_classes.c - built-in schemas of the classic records
 * a trace merge adds (xperf -merge, WPR, PerfView: doc/decoding.md §10), as
 * rows of the table format of lib/decode/mof_classes.h, walked by
 * lib/decode/mof.c like the kernel classes:
 *
 *   ImageId        {b3e675d7-...}: per loaded image its identity (ImageID),
 *                  its PDB (DbgID_RSDS, DbgID_ILRSDS for the IL image of
 *                  a managed assembly), the lack of one (None) and its
 *                  version resource strings (FileVersion);
 *   SystemConfigEx {9b79ee91-...}: the build, the system directories, the
 *                  NT-to-DOS volume mapping (paths keep their trailing
 *                  backslash), volumes without a drive letter;
 *   WinSat         {ed54dff8-...}: the WinSAT assessment as XML (LZNT1-
 *                  compressed UTF-16 in the record).
 *
 * One layout per opcode, whatever the record's version (the merge writes
 * version 2 for ImageId and 0 for the rest; the rows are version 0 so every
 * version finds them). Pointer-sized fields take the record's pointer
 * size (record_ptr: the merge lays each record out for its own header,
 * so the payload is not measured against the other size). The EventMetadata
 * records of the merge have their own decoder
 * (lib/decode/event_metadata.c).
 */
#define ETL_BUILDING_LIB 1
#include "lib/decode/mof_classes.h"
#include "etl_decode.h"

#define G(a, b, c, d0, d1, d2, d3, d4, d5, d6, d7) \
	{ a, b, c, { d0, d1, d2, d3, d4, d5, d6, d7 } }

static const struct etl_guid g_imageid = G(0xb3e675d7, 0x2554, 0x4f18, 0x83, 0x0b, 0x27, 0x62, 0x73, 0x25, 0x60, 0xde);
static const struct etl_guid g_sysconfigex = G(0x9b79ee91, 0xb5fd, 0x41c0, 0xa2, 0x43, 0x42, 0x48, 0xe2, 0x66, 0xe9, 0xd0);
static const struct etl_guid g_winsat = G(0xed54dff8, 0xc409, 0x4cf6, 0xbf, 0x83, 0x05, 0xe1, 0xe6, 0x1a, 0x09, 0xc4);

#define F(n, k)       { n, k, 0, 0 }
#define FN(n, k, c)   { n, k, c, 0 }
#define CLASS(g, name, ver, ops, fields) \
	{ &g, name, ver, ops, (uint8_t)(sizeof ops / sizeof ops[0]), \
	  fields, (uint16_t)(sizeof fields / sizeof fields[0]), 1 }

/* ---- ImageId (doc/decoding.md §10.1) --------------------------------- */

static const struct mof_op op_imgid[] = { { 0, "ImageID" } };
static const struct mof_field f_imgid[] = {
	F("ImageBase", MOF_PTR), F("ImageSize", MOF_SIZET), F("ProcessId", MOF_U32),
	F("TimeDateStamp", MOF_HEX32), F("OriginalFileName", MOF_USTR),
};
static const struct mof_op op_imgid_none[] = { { 32, "None" } };
static const struct mof_field f_imgid_none[] = { F("ImageBase", MOF_PTR), F("ProcessId", MOF_U32) };
static const struct mof_op op_imgid_rsds[] = { { 36, "DbgID_RSDS" }, { 37, "DbgID_ILRSDS" } };
static const struct mof_field f_imgid_rsds[] = {
	F("ImageBase", MOF_PTR), F("ProcessId", MOF_U32), F("GuidSig", MOF_GUID), F("Age", MOF_U32),
	F("PdbFileName", MOF_UTF8),
};
static const struct mof_op op_imgid_ver[] = { { 64, "FileVersion" } };
static const struct mof_field f_imgid_ver[] = {
	F("ImageSize", MOF_U32), F("TimeDateStamp", MOF_HEX32), F("OrigFileName", MOF_USTR),
	F("FileDescription", MOF_USTR), F("FileVersion", MOF_USTR), F("BinFileVersion", MOF_USTR),
	F("VerLanguage", MOF_USTR), F("ProductName", MOF_USTR), F("CompanyName", MOF_USTR),
	F("ProductVersion", MOF_USTR), F("FileId", MOF_USTR), F("ProgramId", MOF_USTR),
};

/* ---- SystemConfigEx (doc/decoding.md §10.2) -------------------------- */

static const struct mof_op op_sce_build[] = { { 32, "BuildInfo" } };
static const struct mof_field f_sce_build[] = {
	F("InstallDate", MOF_FILETIME), F("BuildLab", MOF_USTR), F("ProductName", MOF_USTR),
};
static const struct mof_op op_sce_paths[] = { { 33, "SystemPaths" } };
static const struct mof_field f_sce_paths[] = {
	F("SystemDirectory", MOF_USTR), F("SystemWindowsDirectory", MOF_USTR),
};
static const struct mof_op op_sce_unknown[] = { { 34, "UnknownVolume" } };
static const struct mof_field f_sce_unknown[] = { F("NtPath", MOF_USTR) };
static const struct mof_op op_sce_volume[] = { { 35, "VolumeMapping" } };
static const struct mof_field f_sce_volume[] = { F("NtPath", MOF_USTR), F("DosPath", MOF_USTR) };
/* Written after BuildInfo; 16 bytes whose meaning no source gives. */
static const struct mof_op op_sce_37[] = { { 37, "Opcode37" } };
static const struct mof_field f_sce_37[] = { F("Data", MOF_BIN_REST) };

/* ---- WinSat (doc/decoding.md §10.3) ---------------------------------- */

static const struct mof_op op_winsat[] = { { 33, "WinSPR" }, { 35, "Metrics" }, { 37, "SystemConfig" } };
static const struct mof_field f_winsat[] = {
	F("State", MOF_U32), F("UncompressedSize", MOF_U32), FN("Xml", MOF_LZNT1_TEXT, 1),
};

/* ---- the table ------------------------------------------------------- */

const struct mof_class etl__mof_merged_classes[] = {
	CLASS(g_imageid, "ImageId", 0, op_imgid, f_imgid),
	CLASS(g_imageid, "ImageId", 0, op_imgid_none, f_imgid_none),
	CLASS(g_imageid, "ImageId", 0, op_imgid_rsds, f_imgid_rsds),
	CLASS(g_imageid, "ImageId", 0, op_imgid_ver, f_imgid_ver),

	CLASS(g_sysconfigex, "SystemConfigEx", 0, op_sce_build, f_sce_build),
	CLASS(g_sysconfigex, "SystemConfigEx", 0, op_sce_paths, f_sce_paths),
	CLASS(g_sysconfigex, "SystemConfigEx", 0, op_sce_unknown, f_sce_unknown),
	CLASS(g_sysconfigex, "SystemConfigEx", 0, op_sce_volume, f_sce_volume),
	CLASS(g_sysconfigex, "SystemConfigEx", 0, op_sce_37, f_sce_37),

	CLASS(g_winsat, "WinSat", 0, op_winsat, f_winsat),
};

const size_t etl__mof_n_merged_classes = sizeof etl__mof_merged_classes / sizeof etl__mof_merged_classes[0];
