/*
 * formats/output/registry.c - the renderers by format name.
 */
#define ETL_BUILDING_LIB 1
#include <string.h>
#include "formats/output/out.h"

static const struct etl_out_ops *const renderers[] = {
	&etl__out_xml, &etl__out_json, &etl__out_jsonl, &etl__out_csv, &etl__out_text, NULL
};

const struct etl_out_ops *etl__out_find(const char *format)
{
	if (!format)
		return NULL;
	for (size_t i = 0; renderers[i]; i++)
		if (strcmp(renderers[i]->name, format) == 0)
			return renderers[i];
	return NULL;
}
