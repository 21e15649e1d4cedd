/*
 * etl_util.h - the general-purpose pieces every part of libetl and its
 * users share: GUIDs (the struct, text form, comparison, the GUID an
 * EventSource name hashes to), the names of well-known providers,
 * FILETIME text, JSON string escaping and the library version.
 *
 * The role headers (etl_event.h, etl_reader.h, etl_decode.h, etl_output.h,
 * etl_trace.h, ...) include this one, so a program that includes any of
 * them, or the umbrella etl.h, sees these declarations too.
 */
#ifndef ETL_UTIL_H
#define ETL_UTIL_H

#include "etl_export.h"

#include <stddef.h>
#include <stdint.h>
#include "etl_errors.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- GUIDs ------------------------------------------------------------- */

/* A GUID in host form. On disk it is Data1 u32 LE, Data2 u16 LE, Data3 u16 LE,
 * Data4 8 raw bytes. */
struct etl_guid {
	uint32_t data1;
	uint16_t data2;
	uint16_t data3;
	uint8_t  data4[8];
};

/* Length of "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx" plus NUL. */
#define ETL_GUID_STRLEN 37

/*! etl_guid_format() : writes g as lower-case "8-4-4-4-12" text into out,
 *  which must hold ETL_GUID_STRLEN bytes. @return : out. */
ETL_API char *etl_guid_format(const struct etl_guid *g, char out[ETL_GUID_STRLEN]);

/*! etl_guid_parse() : parses "8-4-4-4-12" text, optionally in braces, any
 *  case. @return : ETL_OK, or ETL_FAILED if s is not a GUID. */
ETL_API int etl_guid_parse(const char *s, struct etl_guid *out);

/*! etl_guid_equal() : @return : 1 if a and b are the same GUID, else 0. */
ETL_API int etl_guid_equal(const struct etl_guid *a, const struct etl_guid *b);

/*! etl_guid_is_null() : @return : 1 if every byte of g is zero. */
ETL_API int etl_guid_is_null(const struct etl_guid *g);

/*! etl_provider_guid_from_name() : the GUID EventSource and TraceLogging
 *  derive from a provider name (uppercased, UTF-16BE, SHA-1 with the
 *  EventSource namespace, version 5 bits). name is UTF-8.
 *  Uppercasing is per UTF-16 code unit, simple one-to-one mappings only (as
 *  Windows' invariant uppercasing): ASCII, Latin-1 (U+00FF -> U+0178,
 *  U+00B5 -> U+039C, sharp s unchanged), Latin Extended-A, basic Greek and
 *  Cyrillic letters; other characters are hashed as they are.
 *  @return : ETL_OK, or ETL_FAILED for invalid UTF-8. */
ETL_API int etl_provider_guid_from_name(const char *name, struct etl_guid *out);

/* ---- well-known providers ------------------------------------------------ */

/*! etl_kernel_group_provider() : the provider GUID and name that consumers
 *  give the kernel event group `group` (HookId >> 8).
 *  @return : the static name ("Process", "DiskIo", ...) and fills *guid, or
 *  NULL (guid untouched) for a group without a known provider. */
ETL_API const char *etl_kernel_group_provider(unsigned group, struct etl_guid *guid);

/*! etl_known_provider_name() : name of a well-known provider GUID (kernel
 *  groups, EventTrace, EventMetadata, ImageId, SystemConfigEx).
 *  @return : static string, or NULL. */
ETL_API const char *etl_known_provider_name(const struct etl_guid *guid);

/* ---- time ---------------------------------------------------------------- */

/*! etl_filetime_format() : formats a FILETIME as ISO 8601 UTC with seven
 *  fractional digits, "2020-02-17T12:48:30.1234567Z", into out (at least
 *  ETL_TIME_STRLEN bytes). @return : out. */
#define ETL_TIME_STRLEN 40
ETL_API char *etl_filetime_format(int64_t filetime, char *out, size_t outlen);

/*! etl_filetime_parse() : parses "YYYY-MM-DD[THH:MM[:SS[.fffffff]]][Z]".
 *  @return : ETL_OK, or ETL_FAILED on bad syntax. */
ETL_API int etl_filetime_parse(const char *s, int64_t *filetime);

/* ---- JSON text ------------------------------------------------------------- */

/* A byte sink: receives bytes in order (n > 0) and returns 0 when all n
 * bytes were written, anything else on failure. etl_json_escape() writes
 * through one, and so does an etl_output (etl_output.h), which then fails
 * with ETL_E_IO and writes nothing more. */
typedef int (*etl_output_write_fn)(void *ctx, const void *data, size_t n);

/*! etl_json_escape() : writes n bytes of s as a JSON string literal,
 *  quotes included, through write(ctx, ...) (in runs). Valid UTF-8 passes
 *  through; '"' and '\\' become \" and \\; \b \f \n \r \t their short
 *  escapes; other control characters \u00XX; bytes that are not valid
 *  UTF-8 \ufffd. With ETL_JSON_ESCAPE_U00XX every control character and
 *  DEL (0x7F) becomes \u00XX instead. The output is valid JSON whatever s
 *  holds. @return : 0, or -1 as soon as write() fails. */
#define ETL_JSON_ESCAPE_U00XX 1u
ETL_API int etl_json_escape(const char *s, size_t n, unsigned flags, etl_output_write_fn write, void *ctx);

/* ---- the library --------------------------------------------------------- */

/*! etl_version_string() : the library version, "MAJOR.MINOR.PATCH". */
ETL_API const char *etl_version_string(void);

#ifdef __cplusplus
}
#endif
#endif /* ETL_UTIL_H */
