/*
 * lib/decode/mof_classes.h - built-in schemas of the classic / MOF kernel event classes
 * (doc/decoding.md §4), kept as data: one row per (class GUID, version) with the
 * opcodes it covers and its field list. Used by lib/decode/mof.c (internal).
 */
#ifndef ETL_FORMATS_MOF_H
#define ETL_FORMATS_MOF_H

#ifndef ETL_BUILDING_LIB
#error "mof.h is internal to libetl"
#endif

#include <stddef.h>
#include <stdint.h>
#include "etl_event.h"

/* How a field is laid out in the payload (doc/decoding.md §4.2). */
enum mof_kind {
	MOF_U8 = 1, MOF_I8, MOF_U16, MOF_I16, MOF_U32, MOF_I32, MOF_U64, MOF_I64,
	MOF_HEX8, MOF_HEX16, MOF_HEX32, MOF_HEX64,
	MOF_PTR,        /* pointer-sized (ev->ptr_size), shown in hex          */
	MOF_SIZET,      /* pointer-sized count / id, shown in decimal          */
	MOF_FILETIME,   /* u64 FILETIME                                         */
	MOF_GUID,       /* 16 bytes                                             */
	MOF_SID,        /* WBEMSID: TOKEN_USER (2 pointers) + SID, or a 0 u32   */
	MOF_USTR,       /* NUL-terminated UTF-16LE                              */
	MOF_ASTR,       /* NUL-terminated 8-bit (CP1252)                        */
	MOF_WCHARS,     /* char16[n], NUL-padded (n = count)                    */
	MOF_BIN,        /* n raw bytes (n = count)                              */
	MOF_IPV4,       /* 4 bytes, network order                               */
	MOF_IPV6,       /* 16 bytes                                             */
	MOF_PORT,       /* u16 big-endian                                       */
	MOF_PTR_REST,   /* the rest of the payload as an array of pointers      */
	MOF_UTF8,       /* NUL-terminated 8-bit string read as UTF-8            */
	MOF_BIN_REST,   /* the rest of the payload as raw bytes                 */
	MOF_USTR_ARRAY, /* NUL-terminated UTF-16LE strings; how many: the value
	                   of the earlier field whose index is count            */
	MOF_LZNT1_TEXT  /* the rest of the payload, LZNT1-compressed UTF-16LE
	                   text; its decompressed size: the value of the
	                   earlier field whose index is count                   */
};

/* Most fields a class may have (the walk keeps their integer values for
 * the fields that refer to an earlier one). */
#define MOF_MAX_FIELDS 32u

/* Largest decompressed size MOF_LZNT1_TEXT accepts. */
#define MOF_LZNT1_MAX (16u << 20)

struct mof_field {
	const char *name;
	uint8_t kind;           /* enum mof_kind                               */
	uint16_t count;         /* MOF_WCHARS / MOF_BIN size; MOF_USTR_ARRAY /
	                           MOF_LZNT1_TEXT: index of the earlier integer
	                           field holding the number; 0 otherwise      */
	uint16_t out;           /* enum etl_out_type override, 0 = default     */
};

struct mof_op {
	uint8_t opcode;
	const char *name;       /* event / opcode name ("Start", "Load")        */
};

struct mof_class {
	const struct etl_guid *guid;
	const char *name;       /* class / provider name ("Process")            */
	uint8_t version;        /* the header Version this layout is for        */
	const struct mof_op *ops;
	uint8_t n_ops;
	const struct mof_field *fields;
	uint16_t n_fields;
	/* 1: pointer-sized fields take the record's pointer size even in
	 * FULL / INSTANCE records (no guess from the payload, lib/decode/mof.c) */
	uint8_t record_ptr;
};

/* The kernel classes (lib/decode/mof_kernel_classes.c) and the classes
 * a trace merge adds (lib/decode/mof_merged_classes.c). */
extern const struct mof_class etl__mof_classes[];
extern const size_t etl__mof_n_classes;
extern const struct mof_class etl__mof_merged_classes[];
extern const size_t etl__mof_n_merged_classes;

/* GUIDs used by the lookup's special cases. */
extern const struct etl_guid etl__mof_guid_process;
extern const struct etl_guid etl__mof_guid_image;

#endif /* ETL_FORMATS_MOF_H */
