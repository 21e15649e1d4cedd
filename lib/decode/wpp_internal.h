/*
 * lib/decode/wpp_internal.h - the message set of WPP (doc/decoding.md §5),
 * shared by lib/decode/tmf_load.c (TMF files -> the set, lookup) and
 * lib/decode/wpp_decode.c (the per-source decoder: a message's arguments
 * and format string).
 */
#ifndef ETL_WPP_INTERNAL_H
#define ETL_WPP_INTERNAL_H

#ifndef ETL_BUILDING_LIB
#error "lib/decode/wpp_internal.h is internal to libetl"
#endif

#include <stddef.h>
#include <stdint.h>
#include "lib/decode/decode_internal.h"

/* The Item types of TMF argument lines. */
enum wpp_item {
	WI_CHAR, WI_UCHAR, WI_SHORT, WI_USHORT, WI_LONG, WI_ULONG, WI_ULONGX,
	WI_LONGLONG, WI_LONGLONGX, WI_LONGLONGO, WI_ULONGLONG, WI_ULONGLONGX,
	WI_PTR, WI_STRING, WI_WSTRING, WI_PSTRING, WI_PWSTRING, WI_GUID,
	WI_NTSTATUS, WI_HRESULT, WI_WINERROR, WI_DOUBLE, WI_IPADDR, WI_PORT,
	WI_ENUM, WI_LISTBYTE, WI_LISTSHORT, WI_LISTLONG
};

struct wpp_list_entry {
	uint32_t value;
	const char *name;
};

struct wpp_arg {
	const char *name;           /* the TMF expression                     */
	const char *type;           /* the Item type as written               */
	int item;                   /* enum wpp_item                          */
	unsigned index;             /* -- N                                   */
	struct wpp_list_entry *list;
	uint32_t n_list;
};

struct wpp_msg {
	struct etl_guid guid;
	uint16_t number;
	size_t seq;                 /* load order: the first definition wins  */
	const char *component;      /* GUID line's component name, or NULL    */
	const char *src;            /* GUID line's SRC= value, or NULL        */
	const char *file_line;
	const char *format;
	const char *comment;        /* text after // on the #typev line       */
	const char *func, *level, *flags;
	const char *compname;       /* COMPNAME= of the comment, else component */
	const char *subcomp;        /* SUBCOMP= of the comment, or NULL       */
	struct wpp_arg *args;
	uint32_t n_args;
};

/* The blanks of TMF text (a line's surrounding blanks, the separators of a
 * #typev comment's NAME=value pairs). */
static inline int etl__wpp_is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

/* The message (message GUID, message number) from the TMF files the
 * decoder loaded (the first definition loaded), or NULL. */
const struct wpp_msg *etl__wpp_find_msg(etl_decoder *d, const struct etl_guid *g, uint16_t number);

#endif /* ETL_WPP_INTERNAL_H */
