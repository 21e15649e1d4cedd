/*
 * formats/output/json_state.h - what the two halves of the JSON renderer share
 * (internal): its state with the memo tables, and small writers. out_json.c
 * writes documents, records and EventData; out_json_system.c the System,
 * RenderingInfo and ExtendedTracingInfo parts.
 */
#ifndef ETL_JSON_STATE_H
#define ETL_JSON_STATE_H

#ifndef ETL_BUILDING_LIB
#error "formats/output/json_state.h is internal to libetl"
#endif

#include <string.h>
#include "formats/output/out.h"
#include "lib/common/fmt.h"
#include "lib/render/memo.h"

struct json_priv {
	int lines;                   /* jsonl                                 */
	uint64_t events;             /* events written after the header       */
	struct etl_outbuf val;
	/* The provider GUID of the last event and its text ("{...}" with the
	 * quotes): consecutive events mostly share their provider. */
	int have_prov;
	struct etl_guid prov;
	char prov_text[ETL_FMT_GUID_LEN + 4];
	/* Text already made (lib/render/memo.h): the System part up to
	 * "TimeCreated", the RenderingInfo part after the message, property
	 * names as object keys ("name": escaped, without the comma), the
	 * time up to its seconds. */
	struct etl_head_memo *head;
	struct etl_tail_memo *tail;
	struct etl_name_memo *keys;
	struct etl_time_memo time;
};

_Static_assert(sizeof(struct etl_guid) == 16, "struct etl_guid is 16 bytes");

static inline void key(struct etl_outbuf *b, int *first, const char *k)
{
	if (!*first)
		etl__ob_putc(b, ',');
	*first = 0;
	etl__ob_putc(b, '"');
	etl__ob_puts(b, k);
	ETL_OB_LIT(b, "\":");
}

static inline void str(struct etl_outbuf *b, const char *s)
{
	etl__out_json_string(b, s, s ? strlen(s) : 0);
}

/* Appends a key known to need no escaping, with its separator: the
 * literal holds the comma, quotes and colon ("\"EventID\":" or
 * ",\"EventID\":"), so nothing is measured or escaped at run time. */
#define KEY(b, lit) ETL_OB_LIT(b, lit)

static inline void guid(struct etl_outbuf *b, const struct etl_guid *g)
{
	etl__ob_putc(b, '"');
	etl__out_guid(b, g);
	etl__ob_putc(b, '"');
}

/* The parts of a record after its opening brace (out_json_system.c). */
void etl__json_system_part(struct json_priv *j, struct etl_outbuf *b, const struct etl_out_rec *r);
void etl__json_rendering_part(struct json_priv *j, struct etl_outbuf *b, const struct etl_out_rec *r);
void etl__json_ext_tracing_part(struct json_priv *j, struct etl_outbuf *b, const struct etl_out_rec *r);

#endif /* ETL_JSON_STATE_H */
