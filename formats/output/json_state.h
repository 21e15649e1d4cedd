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

struct json_priv {
	int lines;                   /* jsonl                                 */
	uint64_t events;             /* events written after the header       */
	struct etl_outbuf val;
	/* The provider GUID of the last event and its text ("{...}" with the
	 * quotes): consecutive events mostly share their provider. */
	int have_prov;
	struct etl_guid prov;
	char prov_text[ETL_FMT_GUID_LEN + 4];
	/* The time of the last event up to its seconds, "2020-...:SS." (the
	 * events of a trace come many per second). */
	int have_sec;
	int64_t sec;
	size_t sec_len;
	char sec_text[ETL_FMT_TIME_MAX];
	struct sys_memo *sys;        /* SYS_MEMO_N entries, or NULL           */
	struct key_memo *keys;       /* KEY_MEMO_N entries, or NULL           */
	struct tail_memo *tail;      /* TAIL_MEMO_N entries, or NULL          */
};

/* The text of a record from its start to "TimeCreated": (provider, event
 * id, version, level, task, opcode, keywords) by those values, the
 * provider name compared by content: the events of a trace are of few
 * kinds. Direct-mapped by a hash of the values. */
#define SYS_MEMO_N 64u
#define SYS_NAME_MAX 95u
#define SYS_TEXT_MAX 320u
struct sys_memo {
	uint8_t used, has_name, version, level, opcode;
	uint16_t id, task;
	uint64_t keywords;
	struct etl_guid prov;
	uint64_t gen;                /* names_gen the name pointer is known in */
	const char *name_ptr;
	size_t text_len;
	char name[SYS_NAME_MAX + 1];
	char text[SYS_TEXT_MAX];
};

/* Property names as object keys ("name": escaped, without the comma) by
 * the name's pointer, the name compared by content: the properties of an
 * event kind share their name strings. Direct-mapped. */
#define KEY_MEMO_N 1024u
#define KEY_RAW_MAX 39u
#define KEY_TEXT_MAX 48u
struct key_memo {
	const char *ptr;
	uint64_t gen;                /* names_gen ptr is known in, or 0        */
	uint8_t text_len;
	char raw[KEY_RAW_MAX + 1];
	char text[KEY_TEXT_MAX];
};

/* The RenderingInfo text after the message (Level .. EventName and the
 * closing brace) by the seven names, compared by content. Direct-mapped
 * by a hash of the name pointers (schemas hand out the same ones). */
#define TAIL_MEMO_N 64u
#define TAIL_KEYS 7
#define TAIL_RAW_MAX 256u
#define TAIL_TEXT_MAX 640u
struct tail_memo {
	int used;
	uint64_t gen;                /* names_gen the pointers are known in    */
	const char *ptr[TAIL_KEYS];
	uint16_t off[TAIL_KEYS];     /* offset in raw, or 0xFFFF for NULL      */
	size_t text_len;
	char raw[TAIL_RAW_MAX];      /* the names, each NUL-terminated        */
	char text[TAIL_TEXT_MAX];
};

/* etl_guid_equal() inline (a GUID is 16 bytes, no padding). */
static inline int guid_eq(const struct etl_guid *a, const struct etl_guid *b)
{
	return memcmp(a, b, sizeof *a) == 0;
}
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
