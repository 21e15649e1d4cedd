/*
 * etl_export.h - ETL_API, the mark on every function libetl exports.
 *
 * The library is built with -fvisibility=hidden: only functions declared
 * with ETL_API leave libetl.so, so internal helpers shared between the
 * library's own files never become part of the ABI. Programs that include
 * the public headers see ETL_API as a plain declaration.
 */
#ifndef ETL_EXPORT_H
#define ETL_EXPORT_H

#if defined(ETL_BUILDING_LIB) && defined(__GNUC__)
#define ETL_API __attribute__((visibility("default")))
#else
#define ETL_API
#endif

#endif /* ETL_EXPORT_H */
