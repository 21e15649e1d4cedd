/*
 * etl_errors.h - status codes and error reasons shared by every libetl API.
 *
 * Two layers, as in libarchive and zstd:
 *   - a status (what the caller should do next): ETL_OK, ETL_END, ETL_WARN,
 *     ETL_FAILED, ETL_FATAL;
 *   - a reason (why), an enum etl_errcode with explicit, stable numbers,
 *     kept in the handle together with a message and an absolute file offset.
 */
#ifndef ETL_ERRORS_H
#define ETL_ERRORS_H

#include "etl_export.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Status values returned by functions that return int. */
#define ETL_OK       0    /* success                                             */
#define ETL_END      1    /* iteration finished: nothing more to return          */
#define ETL_WARN   (-20)  /* success, but part of the data was not understood    */
#define ETL_FAILED (-25)  /* this record or buffer is lost; the next call resyncs */
#define ETL_FATAL  (-30)  /* the handle cannot go on; only free it               */

/* Reasons. Numbers are stable: never renumber, only append. */
enum etl_errcode {
	ETL_E_NONE                    = 0,
	ETL_E_TRUNCATED               = 1,  /* fewer bytes than a structure needs     */
	ETL_E_BAD_MAGIC               = 2,  /* a marker or signature is wrong         */
	ETL_E_BAD_SIZE                = 3,  /* a size field is impossible            */
	ETL_E_BAD_ALIGNMENT           = 4,  /* a record is not where alignment puts it */
	ETL_E_UNSUPPORTED_HEADER_TYPE = 5,  /* unknown or unsupported trace header   */
	ETL_E_DECOMPRESS              = 6,  /* a compressed stream is malformed      */
	ETL_E_NOMEM                   = 7,  /* an allocation failed                  */
	ETL_E_IO                      = 8,  /* the operating system reported an error */
	ETL_E_MISUSE                  = 9,  /* the API was called in a wrong state   */
	ETL_E_BAD_VALUE               = 10, /* a field holds a value that cannot be  */
	ETL_E_UNSUPPORTED             = 11, /* valid input this version cannot handle */
	ETL_E_LIMIT                   = 12, /* a fixed limit would be passed (sessions,
	                                       sessions per provider)              */
	ETL_E_NOT_FOUND               = 13, /* the named object does not exist        */
	ETL_E_MAX_                          /* sentinel: never use                   */
};

/*! etl_strerror() : a short, static English name for an etl_errcode.
 *  @return : never NULL; "unknown error" for values out of range. */
ETL_API const char *etl_strerror(int errcode);

/*! etl_status_name() : the name of a status value ("ok", "end", "warn",
 *  "failed", "fatal"); "?" for anything else. Static storage. */
ETL_API const char *etl_status_name(int status);

#ifdef __cplusplus
}
#endif
#endif /* ETL_ERRORS_H */
