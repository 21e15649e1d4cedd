/*
 * lib/decode/mof_kernel_classes.c - built-in schemas of the classic / MOF
 * kernel event classes (doc/decoding.md §4.3, names as in the MOF classes
 * tracerpt shows, §6.3), as tables: per (class GUID, version) the opcodes
 * (with their names) and the field list. lib/decode/mof.c walks them.
 *
 * Coverage: EventTrace (Header 0, Extension 5, RundownComplete 8,
 * EndExtension 32, DbgIdRSDS 64, BuildInfo 66, PartitionInfoExtension 80),
 * Lost_Event, Process v0-v4
 * (+ Terminate, PerfCtr), Thread v2/v3 (+ CSwitch), Image v0-v3 (+
 * KernelBase, HypercallPage), DiskIo v2/v3, FileIo v2/v3, TcpIp v2, UdpIp
 * v2, Registry v2, PageFault v2, PerfInfo v2/v3, StackWalk, SystemConfig v2
 * (+ CPU and Services v3, PnP v4). The classes a trace merge adds are in
 * lib/decode/mof_merged_classes.c.
 * A version absent here is decoded with the closest lower one (lib/decode/mof.c).
 */
#define ETL_BUILDING_LIB 1
#include "lib/decode/mof_classes.h"
#include "etl_decode.h"

#define G(a, b, c, d0, d1, d2, d3, d4, d5, d6, d7) \
	{ a, b, c, { d0, d1, d2, d3, d4, d5, d6, d7 } }

static const struct etl_guid g_eventtrace = G(0x68fdd900, 0x4a3e, 0x11d1, 0x84, 0xf4, 0x00, 0x00, 0xf8, 0x04, 0x64, 0xe3);
const struct etl_guid etl__mof_guid_process = G(0x3d6fa8d0, 0xfe05, 0x11d0, 0x9d, 0xda, 0x00, 0xc0, 0x4f, 0xd7, 0xba, 0x7c);
static const struct etl_guid g_thread = G(0x3d6fa8d1, 0xfe05, 0x11d0, 0x9d, 0xda, 0x00, 0xc0, 0x4f, 0xd7, 0xba, 0x7c);
static const struct etl_guid g_pagefault = G(0x3d6fa8d3, 0xfe05, 0x11d0, 0x9d, 0xda, 0x00, 0xc0, 0x4f, 0xd7, 0xba, 0x7c);
static const struct etl_guid g_diskio = G(0x3d6fa8d4, 0xfe05, 0x11d0, 0x9d, 0xda, 0x00, 0xc0, 0x4f, 0xd7, 0xba, 0x7c);
const struct etl_guid etl__mof_guid_image = G(0x2cb15d1d, 0x5fc1, 0x11d2, 0xab, 0xe1, 0x00, 0xa0, 0xc9, 0x11, 0xf5, 0x18);
static const struct etl_guid g_fileio = G(0x90cbdc39, 0x4a3e, 0x11d1, 0x84, 0xf4, 0x00, 0x00, 0xf8, 0x04, 0x64, 0xe3);
static const struct etl_guid g_tcpip = G(0x9a280ac0, 0xc8e0, 0x11d1, 0x84, 0xe2, 0x00, 0xc0, 0x4f, 0xb9, 0x98, 0xa2);
static const struct etl_guid g_udpip = G(0xbf3a50c5, 0xa9c9, 0x4988, 0xa0, 0x05, 0x2d, 0xf0, 0xb7, 0xc8, 0x0f, 0x80);
static const struct etl_guid g_registry = G(0xae53722e, 0xc863, 0x11d2, 0x86, 0x59, 0x00, 0xc0, 0x4f, 0xa3, 0x21, 0xa1);
static const struct etl_guid g_config = G(0x01853a65, 0x418f, 0x4f36, 0xae, 0xfc, 0xdc, 0x0f, 0x1d, 0x2f, 0xd2, 0x35);
static const struct etl_guid g_perfinfo = G(0xce1dbfb4, 0x137e, 0x4da6, 0x87, 0xb0, 0x3f, 0x59, 0xaa, 0x10, 0x2c, 0xbc);
static const struct etl_guid g_stackwalk = G(0xdef2fe46, 0x7bd6, 0x4b80, 0xbd, 0x94, 0xf5, 0x7f, 0xe2, 0x0d, 0x0c, 0xe3);
static const struct etl_guid g_lost = G(0x6a399ae0, 0x4bc6, 0x4de9, 0x87, 0x0b, 0x36, 0x57, 0xf8, 0x94, 0x7e, 0x7e);

#define F(n, k)       { n, k, 0, 0 }
#define FN(n, k, c)   { n, k, c, 0 }
#define FO(n, k, o)   { n, k, 0, o }
#define ARR(a)        a, (sizeof a / sizeof a[0])
#define CLASS(g, name, ver, ops, fields) \
	{ &g, name, ver, ops, (uint8_t)(sizeof ops / sizeof ops[0]), \
	  fields, (uint16_t)(sizeof fields / sizeof fields[0]), 0 }
#define CLASS0(g, name, ver, ops) \
	{ &g, name, ver, ops, (uint8_t)(sizeof ops / sizeof ops[0]), NULL, 0, 0 }

/* ---- EventTrace ------------------------------------------------------ */

static const struct mof_op op_et_header[] = { { 0, "Header" } };
static const struct mof_field f_et_header[] = {
	F("BufferSize", MOF_U32), F("Version", MOF_HEX32), F("ProviderVersion", MOF_U32),
	F("NumberOfProcessors", MOF_U32), F("EndTime", MOF_FILETIME),
	F("TimerResolution", MOF_U32), F("MaxFileSize", MOF_U32), F("LogFileMode", MOF_HEX32),
	F("BuffersWritten", MOF_U32), F("StartBuffers", MOF_U32), F("PointerSize", MOF_U32),
	F("EventsLost", MOF_U32), F("CPUSpeed", MOF_U32), F("LoggerName", MOF_PTR),
	F("LogFileName", MOF_PTR),
	{ "TimeZoneInformation", MOF_BIN, 176, ETL_OUT_NOPRINT },
	F("BootTime", MOF_FILETIME), F("PerfFreq", MOF_U64), F("StartTime", MOF_FILETIME),
	F("ReservedFlags", MOF_U32), F("BuffersLost", MOF_U32),
	F("SessionNameString", MOF_USTR), F("LogFileNameString", MOF_USTR),
};
static const struct mof_op op_et_ext[] = { { 5, "Extension" }, { 32, "EndExtension" } };
static const struct mof_field f_et_ext[] = {
	F("GroupMask1", MOF_HEX32), F("GroupMask2", MOF_HEX32), F("GroupMask3", MOF_HEX32),
	F("GroupMask4", MOF_HEX32), F("GroupMask5", MOF_HEX32), F("GroupMask6", MOF_HEX32),
	F("GroupMask7", MOF_HEX32), F("GroupMask8", MOF_HEX32), F("KernelEventVersion", MOF_U32),
};
static const struct mof_op op_et_rd[] = { { 8, "RundownComplete" } };
/* doc/decoding.md §10.4: the PDB of the logging binary (GUID, age, name)
 * and the build of the system, in the header buffer of some user-mode
 * traces. */
static const struct mof_op op_et_rsds[] = { { 64, "DbgIdRSDS" } };
static const struct mof_field f_et_rsds[] = {
	F("GuidSig", MOF_GUID), F("Age", MOF_U32), F("PdbFileName", MOF_UTF8),
};
static const struct mof_op op_et_build[] = { { 66, "BuildInfo" } };
static const struct mof_field f_et_build[] = { F("BuildLab", MOF_ASTR) };
/* doc/format.md §2.6: u16 version, u16 reserved, u32 partition type,
 * i64 QPC offset from the root partition, then (version 0) the partition
 * and parent partition GUIDs (0x30 bytes, all zero for the host). Same
 * layout as etl_eventtrace_partition(). */
static const struct mof_op op_et_part[] = { { 80, "PartitionInfoExtension" } };
static const struct mof_field f_et_part[] = {
	F("Version", MOF_U16), F("Reserved", MOF_U16), F("PartitionType", MOF_U32),
	F("QpcOffsetFromRoot", MOF_I64), F("PartitionId", MOF_GUID), F("ParentId", MOF_GUID),
};

/* ---- Lost_Event ------------------------------------------------------ */

static const struct mof_op op_lost[] = {
	{ 32, "RTLostEvent" }, { 33, "RTLostBuffer" }, { 34, "RTLostFile" },
};

/* ---- Process --------------------------------------------------------- */

static const struct mof_op op_proc[] = {
	{ 1, "Start" }, { 2, "End" }, { 3, "DCStart" }, { 4, "DCEnd" }, { 39, "Defunct" },
};
static const struct mof_field f_proc0[] = {
	F("ProcessId", MOF_SIZET), F("ParentId", MOF_SIZET), F("UserSID", MOF_SID),
	F("ImageFileName", MOF_ASTR),
};
static const struct mof_field f_proc1[] = {
	F("PageDirectoryBase", MOF_PTR), F("ProcessId", MOF_U32), F("ParentId", MOF_U32),
	F("SessionId", MOF_U32), F("ExitStatus", MOF_I32), F("UserSID", MOF_SID),
	F("ImageFileName", MOF_ASTR),
};
static const struct mof_field f_proc2[] = {
	F("UniqueProcessKey", MOF_PTR), F("ProcessId", MOF_U32), F("ParentId", MOF_U32),
	F("SessionId", MOF_U32), F("ExitStatus", MOF_I32), F("UserSID", MOF_SID),
	F("ImageFileName", MOF_ASTR), F("CommandLine", MOF_USTR),
};
static const struct mof_field f_proc3[] = {
	F("UniqueProcessKey", MOF_PTR), F("ProcessId", MOF_U32), F("ParentId", MOF_U32),
	F("SessionId", MOF_U32), F("ExitStatus", MOF_I32), F("DirectoryTableBase", MOF_PTR),
	F("UserSID", MOF_SID), F("ImageFileName", MOF_ASTR), F("CommandLine", MOF_USTR),
};
static const struct mof_field f_proc4[] = {
	F("UniqueProcessKey", MOF_PTR), F("ProcessId", MOF_U32), F("ParentId", MOF_U32),
	F("SessionId", MOF_U32), F("ExitStatus", MOF_I32), F("DirectoryTableBase", MOF_PTR),
	F("Flags", MOF_HEX32), F("UserSID", MOF_SID), F("ImageFileName", MOF_ASTR),
	F("CommandLine", MOF_USTR), F("PackageFullName", MOF_USTR), F("ApplicationId", MOF_USTR),
};
static const struct mof_op op_proc_term[] = { { 11, "Terminate" } };
static const struct mof_field f_proc_term[] = { F("ProcessId", MOF_U32) };
static const struct mof_op op_proc_ctr[] = { { 32, "PerfCtr" }, { 33, "PerfCtrRundown" } };
static const struct mof_field f_proc_ctr[] = {
	F("ProcessId", MOF_U32), F("PageFaultCount", MOF_U32), F("HandleCount", MOF_U32),
	F("Reserved", MOF_U32), F("PeakVirtualSize", MOF_SIZET), F("PeakWorkingSetSize", MOF_SIZET),
	F("PeakPagefileUsage", MOF_SIZET), F("QuotaPeakPagedPoolUsage", MOF_SIZET),
	F("QuotaPeakNonPagedPoolUsage", MOF_SIZET), F("VirtualSize", MOF_SIZET),
	F("WorkingSetSize", MOF_SIZET), F("PagefileUsage", MOF_SIZET),
	F("QuotaPagedPoolUsage", MOF_SIZET), F("QuotaNonPagedPoolUsage", MOF_SIZET),
	F("PrivatePageCount", MOF_SIZET),
};

/* ---- Thread ---------------------------------------------------------- */

static const struct mof_op op_thr[] = { { 1, "Start" }, { 2, "End" }, { 3, "DCStart" }, { 4, "DCEnd" } };
static const struct mof_field f_thr2[] = {
	F("ProcessId", MOF_U32), F("TThreadId", MOF_U32), F("StackBase", MOF_PTR),
	F("StackLimit", MOF_PTR), F("UserStackBase", MOF_PTR), F("UserStackLimit", MOF_PTR),
	F("StartAddr", MOF_PTR), F("Win32StartAddr", MOF_PTR), F("TebBase", MOF_PTR),
	F("SubProcessTag", MOF_HEX32),
};
static const struct mof_field f_thr3[] = {
	F("ProcessId", MOF_U32), F("TThreadId", MOF_U32), F("StackBase", MOF_PTR),
	F("StackLimit", MOF_PTR), F("UserStackBase", MOF_PTR), F("UserStackLimit", MOF_PTR),
	F("StartAddr", MOF_PTR), F("Win32StartAddr", MOF_PTR), F("TebBase", MOF_PTR),
	F("SubProcessTag", MOF_HEX32), F("BasePriority", MOF_U8), F("PagePriority", MOF_U8),
	F("IoPriority", MOF_U8), F("ThreadFlags", MOF_HEX8),
};
static const struct mof_op op_cswitch[] = { { 36, "CSwitch" } };
static const struct mof_field f_cswitch[] = {
	F("NewThreadId", MOF_U32), F("OldThreadId", MOF_U32), F("NewThreadPriority", MOF_I8),
	F("OldThreadPriority", MOF_I8), F("PreviousCState", MOF_U8), F("SpareByte", MOF_I8),
	F("OldThreadWaitReason", MOF_I8), F("OldThreadWaitMode", MOF_I8),
	F("OldThreadState", MOF_I8), F("OldThreadWaitIdealProcessor", MOF_I8),
	F("NewThreadWaitTime", MOF_U32), F("Reserved", MOF_U32),
};

/* ---- Image (also Process type 10, see lib/decode/mof.c) -------------------- */

static const struct mof_op op_img[] = { { 10, "Load" }, { 2, "UnLoad" }, { 3, "DCStart" }, { 4, "DCEnd" } };
static const struct mof_field f_img0[] = {
	F("ImageBase", MOF_PTR), F("ImageSize", MOF_U32), F("FileName", MOF_USTR),
};
static const struct mof_field f_img1[] = {
	F("ImageBase", MOF_PTR), F("ImageSize", MOF_SIZET), F("ProcessId", MOF_U32),
	F("FileName", MOF_USTR),
};
static const struct mof_field f_img2[] = {
	F("ImageBase", MOF_PTR), F("ImageSize", MOF_SIZET), F("ProcessId", MOF_U32),
	F("ImageChecksum", MOF_HEX32), F("TimeDateStamp", MOF_U32), F("Reserved0", MOF_U32),
	F("DefaultBase", MOF_PTR), F("Reserved1", MOF_U32), F("Reserved2", MOF_U32),
	F("Reserved3", MOF_U32), F("Reserved4", MOF_U32), F("FileName", MOF_USTR),
};
static const struct mof_field f_img3[] = {
	F("ImageBase", MOF_PTR), F("ImageSize", MOF_SIZET), F("ProcessId", MOF_U32),
	F("ImageChecksum", MOF_HEX32), F("TimeDateStamp", MOF_U32), F("SignatureLevel", MOF_U8),
	F("SignatureType", MOF_U8), F("Reserved0", MOF_U16), F("DefaultBase", MOF_PTR),
	F("Reserved1", MOF_U32), F("Reserved2", MOF_U32), F("Reserved3", MOF_U32),
	F("Reserved4", MOF_U32), F("FileName", MOF_USTR),
};
static const struct mof_op op_img_kb[] = { { 33, "KernelBase" } };
static const struct mof_field f_img_kb[] = { F("ImageBase", MOF_PTR) };
static const struct mof_op op_img_hc[] = { { 34, "HypercallPage" } };
static const struct mof_field f_img_hc[] = { F("HypercallPageVa", MOF_PTR) };

/* ---- DiskIo ---------------------------------------------------------- */

static const struct mof_op op_disk_rw[] = { { 10, "Read" }, { 11, "Write" } };
static const struct mof_field f_disk_rw2[] = {
	F("DiskNumber", MOF_U32), F("IrpFlags", MOF_HEX32), F("TransferSize", MOF_U32),
	F("Reserved", MOF_U32), F("ByteOffset", MOF_I64), F("FileObject", MOF_PTR),
	F("Irp", MOF_PTR), F("HighResResponseTime", MOF_U64),
};
static const struct mof_field f_disk_rw3[] = {
	F("DiskNumber", MOF_U32), F("IrpFlags", MOF_HEX32), F("TransferSize", MOF_U32),
	F("Reserved", MOF_U32), F("ByteOffset", MOF_I64), F("FileObject", MOF_PTR),
	F("Irp", MOF_PTR), F("HighResResponseTime", MOF_U64), F("IssuingThreadId", MOF_U32),
};
static const struct mof_op op_disk_init[] = { { 12, "ReadInit" }, { 13, "WriteInit" }, { 15, "FlushInit" } };
static const struct mof_field f_disk_init2[] = { F("Irp", MOF_PTR) };
static const struct mof_field f_disk_init3[] = { F("Irp", MOF_PTR), F("IssuingThreadId", MOF_U32) };
static const struct mof_op op_disk_flush[] = { { 14, "FlushBuffers" } };
static const struct mof_field f_disk_flush2[] = {
	F("DiskNumber", MOF_U32), F("IrpFlags", MOF_HEX32), F("HighResResponseTime", MOF_U64),
	F("Irp", MOF_PTR),
};
static const struct mof_field f_disk_flush3[] = {
	F("DiskNumber", MOF_U32), F("IrpFlags", MOF_HEX32), F("HighResResponseTime", MOF_U64),
	F("Irp", MOF_PTR), F("IssuingThreadId", MOF_U32),
};

/* ---- FileIo ---------------------------------------------------------- */

static const struct mof_op op_file_name[] = {
	{ 0, "Name" }, { 32, "FileCreate" }, { 35, "FileDelete" }, { 36, "FileRundown" },
};
static const struct mof_field f_file_name[] = { F("FileObject", MOF_PTR), F("FileName", MOF_USTR) };
static const struct mof_op op_file_create[] = { { 64, "Create" } };
static const struct mof_field f_file_create2[] = {
	F("IrpPtr", MOF_PTR), F("TTID", MOF_PTR), F("FileObject", MOF_PTR),
	F("CreateOptions", MOF_HEX32), F("FileAttributes", MOF_HEX32), F("ShareAccess", MOF_HEX32),
	F("OpenPath", MOF_USTR),
};
static const struct mof_field f_file_create3[] = {
	F("IrpPtr", MOF_PTR), F("FileObject", MOF_PTR), F("IssuingThreadId", MOF_U32),
	F("CreateOptions", MOF_HEX32), F("FileAttributes", MOF_HEX32), F("ShareAccess", MOF_HEX32),
	F("OpenPath", MOF_USTR),
};
static const struct mof_op op_file_rw[] = { { 67, "Read" }, { 68, "Write" } };
static const struct mof_field f_file_rw2[] = {
	F("Offset", MOF_U64), F("IrpPtr", MOF_PTR), F("TTID", MOF_PTR), F("FileObject", MOF_PTR),
	F("FileKey", MOF_PTR), F("IoSize", MOF_U32), F("IoFlags", MOF_HEX32),
};
static const struct mof_field f_file_rw3[] = {
	F("Offset", MOF_U64), F("IrpPtr", MOF_PTR), F("FileObject", MOF_PTR), F("FileKey", MOF_PTR),
	F("IssuingThreadId", MOF_U32), F("IoSize", MOF_U32), F("IoFlags", MOF_HEX32),
};
static const struct mof_op op_file_simple[] = { { 65, "Cleanup" }, { 66, "Close" }, { 73, "Flush" } };
static const struct mof_field f_file_simple2[] = {
	F("IrpPtr", MOF_PTR), F("TTID", MOF_PTR), F("FileObject", MOF_PTR), F("FileKey", MOF_PTR),
};
static const struct mof_field f_file_simple3[] = {
	F("IrpPtr", MOF_PTR), F("FileObject", MOF_PTR), F("FileKey", MOF_PTR),
	F("IssuingThreadId", MOF_U32),
};
static const struct mof_op op_file_info[] = {
	{ 69, "SetInfo" }, { 70, "Delete" }, { 71, "Rename" }, { 74, "QueryInfo" }, { 75, "FSControl" },
};
static const struct mof_field f_file_info2[] = {
	F("IrpPtr", MOF_PTR), F("TTID", MOF_PTR), F("FileObject", MOF_PTR), F("FileKey", MOF_PTR),
	F("ExtraInfo", MOF_PTR), F("InfoClass", MOF_U32),
};
static const struct mof_field f_file_info3[] = {
	F("IrpPtr", MOF_PTR), F("FileObject", MOF_PTR), F("FileKey", MOF_PTR),
	F("ExtraInfo", MOF_PTR), F("IssuingThreadId", MOF_U32), F("InfoClass", MOF_U32),
};
static const struct mof_op op_file_dir[] = { { 72, "DirEnum" }, { 77, "DirNotify" } };
static const struct mof_field f_file_dir2[] = {
	F("IrpPtr", MOF_PTR), F("TTID", MOF_PTR), F("FileObject", MOF_PTR), F("FileKey", MOF_PTR),
	F("Length", MOF_U32), F("InfoClass", MOF_U32), F("FileIndex", MOF_U32),
	F("FileName", MOF_USTR),
};
static const struct mof_field f_file_dir3[] = {
	F("IrpPtr", MOF_PTR), F("FileObject", MOF_PTR), F("FileKey", MOF_PTR),
	F("IssuingThreadId", MOF_U32), F("Length", MOF_U32), F("InfoClass", MOF_U32),
	F("FileIndex", MOF_U32), F("FileName", MOF_USTR),
};
static const struct mof_op op_file_end[] = { { 76, "OperationEnd" } };
static const struct mof_field f_file_end[] = {
	F("IrpPtr", MOF_PTR), F("ExtraInfo", MOF_PTR), F("NtStatus", MOF_HEX32),
};

/* ---- TcpIp / UdpIp --------------------------------------------------- */

static const struct mof_op op_tcp4[] = {
	{ 11, "RecvIPV4" }, { 13, "DisconnectIPV4" }, { 14, "RetransmitIPV4" },
	{ 16, "ReconnectIPV4" }, { 18, "TCPCopyIPV4" },
};
static const struct mof_field f_tcp4[] = {
	F("PID", MOF_U32), F("size", MOF_U32), F("daddr", MOF_IPV4), F("saddr", MOF_IPV4),
	F("dport", MOF_PORT), F("sport", MOF_PORT), F("seqnum", MOF_U32), F("connid", MOF_PTR),
};
static const struct mof_op op_tcp4_send[] = { { 10, "SendIPV4" } };
static const struct mof_field f_tcp4_send[] = {
	F("PID", MOF_U32), F("size", MOF_U32), F("daddr", MOF_IPV4), F("saddr", MOF_IPV4),
	F("dport", MOF_PORT), F("sport", MOF_PORT), F("startime", MOF_U32), F("endtime", MOF_U32),
	F("seqnum", MOF_U32), F("connid", MOF_PTR),
};
static const struct mof_op op_tcp4_conn[] = { { 12, "ConnectIPV4" }, { 15, "AcceptIPV4" } };
static const struct mof_field f_tcp4_conn[] = {
	F("PID", MOF_U32), F("size", MOF_U32), F("daddr", MOF_IPV4), F("saddr", MOF_IPV4),
	F("dport", MOF_PORT), F("sport", MOF_PORT), F("mss", MOF_U16), F("sackopt", MOF_U16),
	F("tsopt", MOF_U16), F("wsopt", MOF_U16), F("rcvwin", MOF_U32), F("rcvwinscale", MOF_I16),
	F("sndwinscale", MOF_I16), F("seqnum", MOF_U32), F("connid", MOF_PTR),
};
static const struct mof_op op_tcp_fail[] = { { 17, "Fail" } };
static const struct mof_field f_ip_fail[] = { F("Proto", MOF_U16), F("FailureCode", MOF_U16) };
static const struct mof_op op_tcp6[] = {
	{ 27, "RecvIPV6" }, { 29, "DisconnectIPV6" }, { 30, "RetransmitIPV6" },
	{ 32, "ReconnectIPV6" }, { 34, "TCPCopyIPV6" },
};
static const struct mof_field f_tcp6[] = {
	F("PID", MOF_U32), F("size", MOF_U32), F("daddr", MOF_IPV6), F("saddr", MOF_IPV6),
	F("dport", MOF_PORT), F("sport", MOF_PORT), F("seqnum", MOF_U32), F("connid", MOF_PTR),
};
static const struct mof_op op_tcp6_send[] = { { 26, "SendIPV6" } };
static const struct mof_field f_tcp6_send[] = {
	F("PID", MOF_U32), F("size", MOF_U32), F("daddr", MOF_IPV6), F("saddr", MOF_IPV6),
	F("dport", MOF_PORT), F("sport", MOF_PORT), F("startime", MOF_U32), F("endtime", MOF_U32),
	F("seqnum", MOF_U32), F("connid", MOF_PTR),
};
static const struct mof_op op_tcp6_conn[] = { { 28, "ConnectIPV6" }, { 31, "AcceptIPV6" } };
static const struct mof_field f_tcp6_conn[] = {
	F("PID", MOF_U32), F("size", MOF_U32), F("daddr", MOF_IPV6), F("saddr", MOF_IPV6),
	F("dport", MOF_PORT), F("sport", MOF_PORT), F("mss", MOF_U16), F("sackopt", MOF_U16),
	F("tsopt", MOF_U16), F("wsopt", MOF_U16), F("rcvwin", MOF_U32), F("rcvwinscale", MOF_I16),
	F("sndwinscale", MOF_I16), F("seqnum", MOF_U32), F("connid", MOF_PTR),
};
static const struct mof_op op_udp4[] = { { 10, "SendIPV4" }, { 11, "RecvIPV4" } };
static const struct mof_op op_udp6[] = { { 26, "SendIPV6" }, { 27, "RecvIPV6" } };

/* ---- Registry -------------------------------------------------------- */

static const struct mof_op op_reg[] = {
	{ 10, "Create" }, { 11, "Open" }, { 12, "Delete" }, { 13, "Query" }, { 14, "SetValue" },
	{ 15, "DeleteValue" }, { 16, "QueryValue" }, { 17, "EnumerateKey" },
	{ 18, "EnumerateValueKey" }, { 19, "QueryMultipleValue" }, { 20, "SetInformation" },
	{ 21, "Flush" }, { 22, "KCBCreate" }, { 23, "KCBDelete" }, { 24, "KCBRundownBegin" },
	{ 25, "KCBRundownEnd" }, { 26, "Virtualize" }, { 27, "Close" },
};
static const struct mof_field f_reg[] = {
	F("InitialTime", MOF_I64), F("Status", MOF_HEX32), F("Index", MOF_U32),
	F("KeyHandle", MOF_PTR), F("KeyName", MOF_USTR),
};

/* ---- PageFault ------------------------------------------------------- */

static const struct mof_op op_pf[] = {
	{ 10, "TransitionFault" }, { 11, "DemandZeroFault" }, { 12, "CopyOnWrite" },
	{ 13, "GuardPageFault" }, { 14, "HardPageFault" }, { 15, "AccessViolation" },
};
static const struct mof_field f_pf[] = { F("VirtualAddress", MOF_PTR), F("ProgramCounter", MOF_PTR) };
static const struct mof_op op_pf_hard[] = { { 32, "HardFault" } };
static const struct mof_field f_pf_hard[] = {
	F("InitialTime", MOF_I64), F("ReadOffset", MOF_U64), F("VirtualAddress", MOF_PTR),
	F("FileObject", MOF_PTR), F("TThreadId", MOF_U32), F("ByteCount", MOF_U32),
};

/* ---- PerfInfo -------------------------------------------------------- */

static const struct mof_op op_pi_prof[] = { { 46, "SampledProfile" } };
static const struct mof_field f_pi_prof[] = {
	F("InstructionPointer", MOF_PTR), F("ThreadId", MOF_U32), F("Count", MOF_U32),
};
static const struct mof_op op_pi_sce[] = { { 51, "SysClEnter" } };
static const struct mof_field f_pi_sce[] = { F("SysCallAddress", MOF_PTR) };
static const struct mof_op op_pi_scx[] = { { 52, "SysClExit" } };
static const struct mof_field f_pi_scx[] = { F("SysCallNtStatus", MOF_HEX32) };
static const struct mof_op op_pi_isr[] = { { 67, "ISR" } };
static const struct mof_field f_pi_isr[] = {
	F("InitialTime", MOF_I64), F("Routine", MOF_PTR), F("ReturnValue", MOF_U8),
	F("Vector", MOF_U8), F("Reserved", MOF_U16),
};
static const struct mof_op op_pi_dpc[] = { { 66, "ThreadedDPC" }, { 68, "DPC" }, { 69, "TimerDPC" } };
static const struct mof_field f_pi_dpc[] = { F("InitialTime", MOF_I64), F("Routine", MOF_PTR) };
static const struct mof_op op_pi_int[] = {
	{ 72, "SetInterval" }, { 73, "CollectionStart" }, { 74, "CollectionEnd" },
};
static const struct mof_field f_pi_int2[] = {
	F("Source", MOF_U32), F("NewInterval", MOF_U32), F("OldInterval", MOF_U32),
};
static const struct mof_field f_pi_int3[] = {
	F("Source", MOF_U32), F("NewInterval", MOF_U32), F("OldInterval", MOF_U32),
	F("SourceName", MOF_USTR),
};

/* ---- StackWalk ------------------------------------------------------- */

static const struct mof_op op_stack[] = { { 32, "Stack" } };
static const struct mof_field f_stack[] = {
	F("EventTimeStamp", MOF_U64), F("StackProcess", MOF_U32), F("StackThread", MOF_U32),
	F("Stack", MOF_PTR_REST),
};
static const struct mof_op op_stack_def[] = { { 34, "KeyCreate" }, { 35, "KeyDelete" }, { 36, "KeyRundown" } };
static const struct mof_field f_stack_def[] = { F("StackKey", MOF_PTR), F("Stack", MOF_PTR_REST) };
static const struct mof_op op_stack_ref[] = { { 37, "StackKeyKernel" }, { 38, "StackKeyUser" } };
static const struct mof_field f_stack_ref[] = {
	F("EventTimeStamp", MOF_U64), F("StackProcess", MOF_U32), F("StackThread", MOF_U32),
	F("StackKey", MOF_PTR),
};

/* ---- SystemConfig ---------------------------------------------------- */

static const struct mof_op op_cfg_cpu[] = { { 10, "CPU" } };
static const struct mof_field f_cfg_cpu[] = {
	F("MHz", MOF_U32), F("NumberOfProcessors", MOF_U32), F("MemSize", MOF_U32),
	F("PageSize", MOF_U32), F("AllocationGranularity", MOF_U32),
	FN("ComputerName", MOF_WCHARS, 256), FN("DomainName", MOF_WCHARS, 134),
	F("HyperThreadingFlag", MOF_SIZET),
};
/* Version 3 appends seven fields (doc/decoding.md §10.5). */
static const struct mof_field f_cfg_cpu3[] = {
	F("MHz", MOF_U32), F("NumberOfProcessors", MOF_U32), F("MemSize", MOF_U32),
	F("PageSize", MOF_U32), F("AllocationGranularity", MOF_U32),
	FN("ComputerName", MOF_WCHARS, 256), FN("DomainName", MOF_WCHARS, 134),
	F("HyperThreadingFlag", MOF_SIZET), F("HighestUserAddress", MOF_PTR),
	F("ProcessorArchitecture", MOF_U16), F("ProcessorLevel", MOF_U16),
	F("ProcessorRevision", MOF_HEX16), F("PaeEnabled", MOF_U8), F("NxEnabled", MOF_U8),
	F("MemorySpeed", MOF_U32),
};
static const struct mof_op op_cfg_phy[] = { { 11, "PhyDisk" } };
static const struct mof_field f_cfg_phy[] = {
	F("DiskNumber", MOF_U32), F("BytesPerSector", MOF_U32), F("SectorsPerTrack", MOF_U32),
	F("TracksPerCylinder", MOF_U32), F("Cylinders", MOF_U64), F("SCSIPort", MOF_U32),
	F("SCSIPath", MOF_U32), F("SCSITarget", MOF_U32), F("SCSILun", MOF_U32),
	FN("Manufacturer", MOF_WCHARS, 256), F("PartitionCount", MOF_U32),
	F("WriteCacheEnabled", MOF_U8), F("Pad", MOF_U8), FN("BootDriveLetter", MOF_WCHARS, 3),
	FN("Spare", MOF_WCHARS, 2),
};
static const struct mof_op op_cfg_log[] = { { 12, "LogDisk" } };
static const struct mof_field f_cfg_log[] = {
	F("StartOffset", MOF_U64), F("PartitionSize", MOF_U64), F("DiskNumber", MOF_U32),
	F("Size", MOF_U32), F("DriveType", MOF_U32), FN("DriveLetterString", MOF_WCHARS, 4),
	F("Pad1", MOF_U32), F("PartitionNumber", MOF_U32), F("SectorsPerCluster", MOF_U32),
	F("BytesPerSector", MOF_U32), F("Pad2", MOF_U32), F("NumberOfFreeClusters", MOF_I64),
	F("TotalNumberOfClusters", MOF_I64), FN("FileSystem", MOF_WCHARS, 16),
	F("VolumeExt", MOF_U32), F("Pad3", MOF_U32),
};
static const struct mof_op op_cfg_nic[] = { { 13, "NIC" } };
static const struct mof_field f_cfg_nic[] = {
	F("PhysicalAddr", MOF_HEX64), F("PhysicalAddrLen", MOF_U32), F("Ipv4Index", MOF_U32),
	F("Ipv6Index", MOF_U32), F("NICDescription", MOF_USTR), F("IpAddresses", MOF_USTR),
	F("DnsServerAddresses", MOF_USTR),
};
static const struct mof_op op_cfg_video[] = { { 14, "Video" } };
static const struct mof_field f_cfg_video[] = {
	F("MemorySize", MOF_U32), F("XResolution", MOF_U32), F("YResolution", MOF_U32),
	F("BitsPerPixel", MOF_U32), F("VRefresh", MOF_U32), FN("ChipType", MOF_WCHARS, 256),
	FN("DACType", MOF_WCHARS, 256), FN("AdapterString", MOF_WCHARS, 256),
	FN("BiosString", MOF_WCHARS, 256), FN("DeviceId", MOF_WCHARS, 256),
	F("StateFlags", MOF_HEX32),
};
static const struct mof_op op_cfg_svc[] = { { 15, "Services" } };
static const struct mof_field f_cfg_svc[] = {
	F("ProcessId", MOF_U32), F("ServiceState", MOF_U32), F("SubProcessTag", MOF_U32),
	F("ServiceName", MOF_USTR), F("DisplayName", MOF_USTR), F("ProcessName", MOF_USTR),
};
static const struct mof_field f_cfg_svc3[] = {
	F("ProcessId", MOF_U32), F("ServiceState", MOF_U32), F("SubProcessTag", MOF_U32),
	F("ServiceName", MOF_USTR), F("DisplayName", MOF_USTR), F("ProcessName", MOF_USTR),
	F("LoadOrderGroup", MOF_USTR), F("SvchostGroup", MOF_USTR),
};
static const struct mof_op op_cfg_power[] = { { 16, "Power" } };
static const struct mof_field f_cfg_power[] = {
	F("S1", MOF_U8), F("S2", MOF_U8), F("S3", MOF_U8), F("S4", MOF_U8), F("S5", MOF_U8),
	F("Pad1", MOF_U8), F("Pad2", MOF_U8), F("Pad3", MOF_U8),
};
static const struct mof_op op_cfg_net[] = { { 17, "Network" } };
static const struct mof_field f_cfg_net[] = {
	F("TcbTablePartitions", MOF_U32), F("MaxHashTableSize", MOF_U32),
	F("MaxUserPort", MOF_U32), F("TcpTimedWaitDelay", MOF_U32),
};
static const struct mof_op op_cfg_irq[] = { { 21, "IRQ" } };
static const struct mof_field f_cfg_irq[] = {
	F("IRQAffinity", MOF_HEX64), F("IRQNum", MOF_U32), F("DeviceDescriptionLen", MOF_U32),
	F("DeviceDescription", MOF_USTR),
};
static const struct mof_op op_cfg_pnp[] = { { 22, "PnP" } };
static const struct mof_field f_cfg_pnp[] = {
	F("IDLength", MOF_U32), F("DescriptionLength", MOF_U32), F("FriendlyNameLength", MOF_U32),
	F("DeviceID", MOF_USTR), F("DeviceDescription", MOF_USTR), F("FriendlyName", MOF_USTR),
};
/* Version 4: the class GUID and the filter drivers, their counts first
 * (fields 1 and 2), their names last (doc/decoding.md §10.5). */
static const struct mof_field f_cfg_pnp4[] = {
	F("ClassGuid", MOF_GUID), F("UpperFiltersCount", MOF_U32), F("LowerFiltersCount", MOF_U32),
	F("DeviceID", MOF_USTR), F("DeviceDescription", MOF_USTR), F("FriendlyName", MOF_USTR),
	F("PdoName", MOF_USTR), F("ServiceName", MOF_USTR), FN("UpperFilters", MOF_USTR_ARRAY, 1),
	FN("LowerFilters", MOF_USTR_ARRAY, 2),
};
/* doc/decoding.md §10.5: the configuration records tracerpt's MOF lacks. */
static const struct mof_op op_cfg_optical[] = { { 18, "OpticalMedia" } };
static const struct mof_field f_cfg_optical[] = {
	F("DiskNumber", MOF_U16), F("BusType", MOF_U16), F("DeviceType", MOF_U16),
	F("MediaType", MOF_U16), F("StartingOffset", MOF_U64), F("Size", MOF_U64),
	F("NumberOfFreeBlocks", MOF_U64), F("TotalNumberOfBlocks", MOF_U64),
	F("NextWritableAddress", MOF_U64), F("NumberOfSessions", MOF_U32),
	F("NumberOfTracks", MOF_U32), F("BytesPerSector", MOF_U32), F("DiscStatus", MOF_U16),
	F("LastSessionStatus", MOF_U16), F("DriveLetter", MOF_USTR), F("FileSystemName", MOF_USTR),
	F("DeviceName", MOF_ASTR), F("ManufacturerName", MOF_ASTR),
};
static const struct mof_op op_cfg_ide[] = { { 23, "IDEChannel" } };
static const struct mof_field f_cfg_ide[] = {
	F("TargetId", MOF_U32), F("DeviceType", MOF_U32), F("DeviceTimingMode", MOF_HEX32),
	F("LocationInformationLen", MOF_U32), F("LocationInformation", MOF_USTR),
};
static const struct mof_op op_cfg_platform[] = { { 25, "Platform" } };
static const struct mof_field f_cfg_platform[] = {
	F("SystemManufacturer", MOF_USTR), F("SystemProductName", MOF_USTR),
	F("BiosDate", MOF_USTR), F("BiosVersion", MOF_USTR),
};
static const struct mof_op op_cfg_dpi[] = { { 28, "DPI" } };
static const struct mof_field f_cfg_dpi[] = { F("MachineDPI", MOF_U32), F("UserDPI", MOF_U32) };

/* ---- the table ------------------------------------------------------- */

const struct mof_class etl__mof_classes[] = {
	CLASS(g_eventtrace, "EventTrace", 0, op_et_header, f_et_header),
	CLASS(g_eventtrace, "EventTrace", 0, op_et_ext, f_et_ext),
	CLASS0(g_eventtrace, "EventTrace", 0, op_et_rd),
	CLASS(g_eventtrace, "EventTrace", 0, op_et_rsds, f_et_rsds),
	CLASS(g_eventtrace, "EventTrace", 0, op_et_build, f_et_build),
	CLASS(g_eventtrace, "EventTrace", 0, op_et_part, f_et_part),
	CLASS0(g_lost, "Lost_Event", 0, op_lost),

	CLASS(etl__mof_guid_process, "Process", 0, op_proc, f_proc0),
	CLASS(etl__mof_guid_process, "Process", 1, op_proc, f_proc1),
	CLASS(etl__mof_guid_process, "Process", 2, op_proc, f_proc2),
	CLASS(etl__mof_guid_process, "Process", 3, op_proc, f_proc3),
	CLASS(etl__mof_guid_process, "Process", 4, op_proc, f_proc4),
	CLASS(etl__mof_guid_process, "Process", 2, op_proc_term, f_proc_term),
	CLASS(etl__mof_guid_process, "Process", 2, op_proc_ctr, f_proc_ctr),

	CLASS(g_thread, "Thread", 2, op_thr, f_thr2),
	CLASS(g_thread, "Thread", 3, op_thr, f_thr3),
	CLASS(g_thread, "Thread", 2, op_cswitch, f_cswitch),

	CLASS(etl__mof_guid_image, "Image", 0, op_img, f_img0),
	CLASS(etl__mof_guid_image, "Image", 1, op_img, f_img1),
	CLASS(etl__mof_guid_image, "Image", 2, op_img, f_img2),
	CLASS(etl__mof_guid_image, "Image", 3, op_img, f_img3),
	CLASS(etl__mof_guid_image, "Image", 2, op_img_kb, f_img_kb),
	CLASS(etl__mof_guid_image, "Image", 2, op_img_hc, f_img_hc),

	CLASS(g_diskio, "DiskIo", 2, op_disk_rw, f_disk_rw2),
	CLASS(g_diskio, "DiskIo", 3, op_disk_rw, f_disk_rw3),
	CLASS(g_diskio, "DiskIo", 2, op_disk_init, f_disk_init2),
	CLASS(g_diskio, "DiskIo", 3, op_disk_init, f_disk_init3),
	CLASS(g_diskio, "DiskIo", 2, op_disk_flush, f_disk_flush2),
	CLASS(g_diskio, "DiskIo", 3, op_disk_flush, f_disk_flush3),

	CLASS(g_fileio, "FileIo", 2, op_file_name, f_file_name),
	CLASS(g_fileio, "FileIo", 2, op_file_create, f_file_create2),
	CLASS(g_fileio, "FileIo", 3, op_file_create, f_file_create3),
	CLASS(g_fileio, "FileIo", 2, op_file_rw, f_file_rw2),
	CLASS(g_fileio, "FileIo", 3, op_file_rw, f_file_rw3),
	CLASS(g_fileio, "FileIo", 2, op_file_simple, f_file_simple2),
	CLASS(g_fileio, "FileIo", 3, op_file_simple, f_file_simple3),
	CLASS(g_fileio, "FileIo", 2, op_file_info, f_file_info2),
	CLASS(g_fileio, "FileIo", 3, op_file_info, f_file_info3),
	CLASS(g_fileio, "FileIo", 2, op_file_dir, f_file_dir2),
	CLASS(g_fileio, "FileIo", 3, op_file_dir, f_file_dir3),
	CLASS(g_fileio, "FileIo", 2, op_file_end, f_file_end),

	CLASS(g_tcpip, "TcpIp", 2, op_tcp4, f_tcp4),
	CLASS(g_tcpip, "TcpIp", 2, op_tcp4_send, f_tcp4_send),
	CLASS(g_tcpip, "TcpIp", 2, op_tcp4_conn, f_tcp4_conn),
	CLASS(g_tcpip, "TcpIp", 2, op_tcp_fail, f_ip_fail),
	CLASS(g_tcpip, "TcpIp", 2, op_tcp6, f_tcp6),
	CLASS(g_tcpip, "TcpIp", 2, op_tcp6_send, f_tcp6_send),
	CLASS(g_tcpip, "TcpIp", 2, op_tcp6_conn, f_tcp6_conn),
	CLASS(g_udpip, "UdpIp", 2, op_udp4, f_tcp4),
	CLASS(g_udpip, "UdpIp", 2, op_udp6, f_tcp6),
	CLASS(g_udpip, "UdpIp", 2, op_tcp_fail, f_ip_fail),

	CLASS(g_registry, "Registry", 2, op_reg, f_reg),

	CLASS(g_pagefault, "PageFault", 2, op_pf, f_pf),
	CLASS(g_pagefault, "PageFault", 2, op_pf_hard, f_pf_hard),

	CLASS(g_perfinfo, "PerfInfo", 2, op_pi_prof, f_pi_prof),
	CLASS(g_perfinfo, "PerfInfo", 2, op_pi_sce, f_pi_sce),
	CLASS(g_perfinfo, "PerfInfo", 2, op_pi_scx, f_pi_scx),
	CLASS(g_perfinfo, "PerfInfo", 2, op_pi_isr, f_pi_isr),
	CLASS(g_perfinfo, "PerfInfo", 2, op_pi_dpc, f_pi_dpc),
	CLASS(g_perfinfo, "PerfInfo", 2, op_pi_int, f_pi_int2),
	CLASS(g_perfinfo, "PerfInfo", 3, op_pi_int, f_pi_int3),

	CLASS(g_stackwalk, "StackWalk", 0, op_stack, f_stack),
	CLASS(g_stackwalk, "StackWalk", 0, op_stack_def, f_stack_def),
	CLASS(g_stackwalk, "StackWalk", 0, op_stack_ref, f_stack_ref),

	CLASS(g_config, "SystemConfig", 2, op_cfg_cpu, f_cfg_cpu),
	CLASS(g_config, "SystemConfig", 3, op_cfg_cpu, f_cfg_cpu3),
	CLASS(g_config, "SystemConfig", 2, op_cfg_phy, f_cfg_phy),
	CLASS(g_config, "SystemConfig", 2, op_cfg_log, f_cfg_log),
	CLASS(g_config, "SystemConfig", 2, op_cfg_nic, f_cfg_nic),
	CLASS(g_config, "SystemConfig", 2, op_cfg_video, f_cfg_video),
	CLASS(g_config, "SystemConfig", 2, op_cfg_svc, f_cfg_svc),
	CLASS(g_config, "SystemConfig", 3, op_cfg_svc, f_cfg_svc3),
	CLASS(g_config, "SystemConfig", 2, op_cfg_power, f_cfg_power),
	CLASS(g_config, "SystemConfig", 2, op_cfg_net, f_cfg_net),
	CLASS(g_config, "SystemConfig", 2, op_cfg_irq, f_cfg_irq),
	CLASS(g_config, "SystemConfig", 2, op_cfg_pnp, f_cfg_pnp),
	CLASS(g_config, "SystemConfig", 4, op_cfg_pnp, f_cfg_pnp4),
	CLASS(g_config, "SystemConfig", 2, op_cfg_optical, f_cfg_optical),
	CLASS(g_config, "SystemConfig", 2, op_cfg_ide, f_cfg_ide),
	CLASS(g_config, "SystemConfig", 2, op_cfg_platform, f_cfg_platform),
	CLASS(g_config, "SystemConfig", 2, op_cfg_dpi, f_cfg_dpi),
};

const size_t etl__mof_n_classes = sizeof etl__mof_classes / sizeof etl__mof_classes[0];
