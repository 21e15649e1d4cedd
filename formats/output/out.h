/*
 * formats/output/out.h - the renderers (out_<name>.c) and their registry
 * (internal). Each renderer implements the contract of lib/render/render.h;
 * the output handle (lib/output/) finds one by its format name here.
 */
#ifndef ETL_FORMATS_OUT_H
#define ETL_FORMATS_OUT_H

#ifndef ETL_BUILDING_LIB
#error "formats/output/out.h is internal to libetl"
#endif

#include "lib/render/render.h"

extern const struct etl_out_ops etl__out_xml;
extern const struct etl_out_ops etl__out_json;
extern const struct etl_out_ops etl__out_jsonl;
extern const struct etl_out_ops etl__out_csv;
extern const struct etl_out_ops etl__out_text;

/* The renderer of a format name ("xml", "json", "jsonl", "csv", "text"),
 * or NULL. */
const struct etl_out_ops *etl__out_find(const char *format);

#endif /* ETL_FORMATS_OUT_H */
