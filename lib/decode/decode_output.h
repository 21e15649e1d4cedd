/*
 * lib/decode/decode_output.h - what the decode subsystem offers the output
 * handle (internal), and nothing more: the logfile header as properties,
 * and whether a result's names may be remembered by pointer.
 */
#ifndef ETL_DECODE_OUTPUT_H
#define ETL_DECODE_OUTPUT_H

#ifndef ETL_BUILDING_LIB
#error "lib/decode/decode_output.h is internal to libetl"
#endif

#include <stdint.h>
#include "etl_decode.h"
#include "etl_reader.h"

/* Properties of the logfile header (TRACE_LOGFILE_HEADER by its MOF field
 * names; TimeZoneInformation, NoPrint, left out). */
#define ETL_LOGFILE_PROPS 24

/* Fills v (ETL_LOGFILE_PROPS entries) with lf's fields; returns how many.
 * The string properties borrow lf's names. */
uint32_t etl__logfile_props(const struct etl_logfile *lf, struct etl_prop *v);

/* An EventTrace Header record (HookId 0) decoded into properties. */
struct etl_logfile_record {
	struct etl_logfile lf;         /* owns the names the props borrow     */
	struct etl_prop props[ETL_LOGFILE_PROPS];
	uint32_t n_props;
	int error_code;                /* on ETL_FAILED: enum etl_errcode     */
	const char *error_reason;      /* on ETL_FAILED: a sentence           */
	char reason[192];
};

/* Decodes ev's payload as a logfile header. ETL_OK (props filled) or
 * ETL_FAILED (error_code, error_reason). Free with
 * etl__logfile_record_free() either way. */
int etl__logfile_record_decode(const struct etl_event *ev, struct etl_logfile_record *hr);
void etl__logfile_record_free(struct etl_logfile_record *hr);

/* Non-zero when dec is this thread's last successful decode and its names
 * are stable (the schema generation): a name pointer remembered with its
 * text under the same value still has that text. 0: compare the text.
 * Defined in lib/decode/decode_result.c. */
uint64_t etl__dec_names_trusted(const struct etl_decoded *dec);

#endif /* ETL_DECODE_OUTPUT_H */
