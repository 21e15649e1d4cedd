/*
 * lib/render/memo.h - memos of text a renderer has already made (internal):
 * the events of a trace are of few kinds, so the parts of a record that
 * depend only on its kind repeat from event to event. A renderer formats
 * such a part once through its own function and the memo hands the same
 * bytes back for every later record with the same values:
 *
 *   head   the text of a record up to its time, by the System values
 *          (provider GUID and name, event id, version, level, task,
 *          opcode, keywords);
 *   tail   the RenderingInfo text after the message, by its seven names;
 *   names  a property name's escaped text, by the name's pointer;
 *   time   a FILETIME's text, its part up to the seconds kept while the
 *          second stays the same.
 *
 * Names are compared by content, or by pointer alone where the decoder
 * vouches for them (a record's names_gen, see lib/render/render.h). The
 * tables start small and grow while they miss often, so a handle that
 * writes a few events allocates little. A table that cannot be allocated
 * is no failure: the text is then made every time. Files: memo.c.
 */
#ifndef ETL_RENDER_MEMO_H
#define ETL_RENDER_MEMO_H

#ifndef ETL_BUILDING_LIB
#error "lib/render/memo.h is internal to libetl"
#endif

#include <string.h>
#include "lib/render/render.h"

/* Makes the text of r's part into b (the part a memo keeps). */
typedef void (*etl_memo_make_fn)(void *ctx, struct etl_outbuf *b, const struct etl_out_rec *r);

/* ---- head and tail ----------------------------------------------------- */

struct etl_head_memo;
struct etl_tail_memo;

/* Appends the text make(ctx, b, r) writes for r's head, from *tab when
 * these values were seen (*tab allocated on first use). */
void etl__memo_head(struct etl_head_memo **tab, struct etl_outbuf *b, const struct etl_out_rec *r,
                    etl_memo_make_fn make, void *ctx);

/* The same for the text after RenderingInfo's message: by r's level,
 * opcode, task, channel, provider, keywords and event names. */
void etl__memo_tail(struct etl_tail_memo **tab, struct etl_outbuf *b, const struct etl_out_rec *r,
                    etl_memo_make_fn make, void *ctx);

void etl__memo_head_free(struct etl_head_memo *tab);
void etl__memo_tail_free(struct etl_tail_memo *tab);

/* ---- property names ---------------------------------------------------- */

#define ETL_NAME_RAW_MAX 39u        /* longest name kept                      */
#define ETL_NAME_TEXT_MAX 48u       /* longest text kept                      */

struct etl_name_entry {
	const char *ptr;            /* the name's pointer, or NULL: empty      */
	uint64_t gen;               /* names_gen ptr is known in, or 0         */
	uint8_t text_len;
	char raw[ETL_NAME_RAW_MAX + 1];
	char text[ETL_NAME_TEXT_MAX];
};

struct etl_name_memo {
	uint32_t mask;              /* entries - 1 (a power of two)            */
	uint32_t misses;            /* since the table last grew               */
	struct etl_name_entry e[];
};

/* The entry that holds name's text, or NULL. Inline: once per property.
 * name is not NULL. */
static inline struct etl_name_entry *etl__memo_name_find(struct etl_name_memo *t, const char *name,
                                                         uint64_t gen)
{
	if (!t)
		return NULL;
	uintptr_t h = (uintptr_t)name;
	struct etl_name_entry *e = &t->e[(h ^ h >> 5 ^ h >> 13) & t->mask];
	if (e->ptr != name)
		return NULL;
	if (gen && e->gen == gen)
		return e;
	if (strcmp(e->raw, name) != 0)
		return NULL;
	e->gen = gen;               /* the same text: by pointer from now on   */
	return e;
}

/* After a miss: keeps text (len bytes) as name's (n bytes) when both fit,
 * in *tab (allocated, or grown when it misses often). */
void etl__memo_name_keep(struct etl_name_memo **tab, const char *name, size_t n, uint64_t gen,
                         const char *text, size_t len);

/* ---- time -------------------------------------------------------------- */

struct etl_time_memo {
	int have_sec;
	int64_t sec;                /* ft / 10^7 of sec_text                   */
	size_t sec_len;
	char sec_text[ETL_FMT_TIME_MAX];   /* "2020-...:SS."                   */
};

/* etl__fmt_filetime(out, ft) (room for ETL_FMT_TIME_MAX bytes), the text
 * up to the seconds from m when the second is the last one's. */
size_t etl__memo_time(struct etl_time_memo *m, char *out, int64_t ft);

/* Two GUIDs are the same (etl_guid_equal() inline: a GUID is 16 bytes,
 * no padding), for the memos' keys and the renderers that key on a
 * provider. */
static inline int etl__guid_same(const struct etl_guid *a, const struct etl_guid *b)
{
	return memcmp(a, b, sizeof *a) == 0;
}

#endif /* ETL_RENDER_MEMO_H */
