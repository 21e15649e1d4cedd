/*
 * etl.h - umbrella header of libetl, a toolkit for Windows ETW Event Trace
 * Log (.etl) files. Include this one header to use the library.
 */
#ifndef ETL_H
#define ETL_H

#define ETL_VERSION_MAJOR 0
#define ETL_VERSION_MINOR 1
#define ETL_VERSION_PATCH 0

#include "etl_errors.h"
#include "etl_util.h"
#include "etl_event.h"
#include "etl_reader.h"
#include "etl_compress.h"
#include "etl_writer.h"
#include "etl_decode.h"
#include "etl_output.h"
#include "etl_io.h"
#include "etl_merge.h"
#include "etl_sem.h"

#endif /* ETL_H */
