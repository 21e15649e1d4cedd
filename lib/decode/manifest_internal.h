/*
 * lib/decode/manifest_internal.h - the schema model of instrumentation
 * manifests (doc/decoding.md §3), shared by the files of the manifest
 * decoder:
 *   manifest_set.c      the set of loaded events: pool, place in the
 *                       decoder's schema cache, sorted index and lookup;
 *   manifest_load.c     manifest XML (libxml2) -> the set;
 *   manifest_message.c  event messages: parsed at load, rendered per event;
 *   manifest_decode.c   the per-source decoder: an event's template walked
 *                       over its payload.
 * Calls go one way: load and decode use message and set; message uses set.
 */
#ifndef ETL_MANIFEST_INTERNAL_H
#define ETL_MANIFEST_INTERNAL_H

#ifndef ETL_BUILDING_LIB
#error "lib/decode/manifest_internal.h is internal to libetl"
#endif

#include <stddef.h>
#include <stdint.h>
#include "lib/common/pool.h"
#include "lib/decode/decode_internal.h"

#define MF_MAX_DEPTH        8u      /* struct nesting                     */
#define MF_MAX_MESSAGE      65536u  /* rendered message bytes             */
#define MF_LIT_SLACK        16u     /* readable bytes after a literal      */

/* ---- schema model ---------------------------------------------------- */

/* In-types of classic (MOF) schemas that manifests do not have, numbered
 * as TDH numbers them; a field of one of them decodes to the public
 * in-type named in the comment (lib/decode/mof_load.c makes them). */
#define MF_IN_RCOUNTED_STRING      302u  /* u16 big-endian byte count, UTF-16 -> UNICODESTRING */
#define MF_IN_RCOUNTED_ANSISTRING  303u  /* u16 big-endian byte count, 8-bit  -> ANSISTRING    */
#define MF_IN_REST_STRING          304u  /* the rest of the payload, UTF-16   -> UNICODESTRING */
#define MF_IN_REST_ANSISTRING      305u  /* the rest of the payload, 8-bit    -> ANSISTRING    */
#define MF_IN_SIZET                308u  /* pointer-sized count -> UINT32 / UINT64 by the size */
#define MF_IN_WBEMSID              310u  /* TOKEN_USER + SID, or a 0 u32 (doc/decoding.md §4.2)
                                            -> SID (ETL_VAL_NULL when there is none)           */

struct mf_map_entry {
	uint64_t value;
	const char *message;
};

struct mf_map {
	const char *name;
	int is_bitmap;
	struct mf_map_entry *e;
	size_t n;
};

/* A reference to an earlier field holding a count or length. */
struct mf_ref {
	int kind;                   /* 0 none, 1 literal, 2 same level, 3 top */
	uint32_t v;                 /* literal, or field index                */
};

struct mf_field {
	const char *name;
	uint16_t in_type, out_type;
	int is_struct;
	const char *map_attr;
	const struct mf_map *map;
	struct mf_ref count, length;
	struct mf_field *members;
	size_t n_members;
	/* Integer fields read by the fast path of dec_fields() (set at load):
	 * fast 1, the size (0: pointer-sized), the kind and signedness. */
	uint8_t fast, fast_size, fast_kind, fast_signed;
};

struct mf_template {
	const char *tid;
	struct mf_field *fields;
	size_t n_fields;
};

struct mf_named {
	const char *name;
	uint64_t value;             /* value, or keyword mask                 */
	const char *message;
	const char *task;           /* opcodes inside a task: its name        */
};

struct mf_provider {
	const char *name;
	struct etl_guid guid;
	struct mf_named *keywords;
	size_t n_keywords;
	struct mf_named *channels;
	size_t n_channels;
	struct mf_named *tasks, *opcodes, *levels;
	size_t n_tasks, n_opcodes, n_levels;
};

/* A message parsed once (at load) for etl__mf_msg_render(): pieces of literal
 * text (%n %t %r %% ... already replaced) each followed by an insert. */
struct mf_seg {
	const char *lit;            /* literal text before the insert          */
	uint32_t lit_len;
	uint32_t insert;            /* property index + 1, or 0: none          */
	const char *fmt;            /* !fmt! text (in the message), or NULL    */
	uint32_t fl;                /* its length                              */
};

struct mf_msg {
	struct mf_seg *seg;
	size_t n_seg;
};

struct mf_event {
	struct etl_guid guid;
	uint16_t id;
	uint8_t version;
	uint32_t seq;
	const struct mf_provider *prov;
	const char *symbol, *task, *opcode, *level, *channel, *keywords, *message;
	/* RenderingInfo strings: the element's message when the manifest gives
	 * one, winmeta's for predefined win: values, else the name */
	const char *task_text, *opcode_text, *level_text, *channel_text;
	const struct mf_template *tmpl;
	const struct mf_msg *msg;   /* message parsed, or NULL (render as text) */
};

/* A remembered lookup result (see etl__mf_find_event()). */
#define MF_MEMO_SIZE 256u
struct mf_memo {
	struct etl_guid guid;
	uint16_t id;
	uint8_t version;
	uint8_t used;
	int prov_known;
	const struct mf_event *e;
	/* Names derived per event, kept in the pool: the keyword names for
	 * the keyword mask kw (kw_set), the "Task/Opcode" event name. */
	int kw_set;
	uint64_t kw;
	const char *kw_names;
	const char *ev_name;
};

/* Pool strings the memo may make for names (bounded: beyond, the names are
 * made per event in decoder storage). */
#define MF_MEMO_NAMES_MAX 4096u

struct mf_set {
	struct etl_pool pool;       /* every string and array of the set     */
	struct mf_event **events;
	size_t n_events, cap_events;
	uint32_t seq;
	/* Per-decoder state for decoding (a decoder is used by one thread at
	 * a time): lookups by (provider, id, version), cleared whenever
	 * events are added; the message buffer, kept from event to event. */
	struct mf_memo memo[MF_MEMO_SIZE];
	size_t memo_names;          /* pool strings made for the memo        */
	char *msg;
	size_t msg_cap;
	/* The EventMetadata set's providers and maps (in the pool; see
	 * lib/decode/event_metadata_schema.c); NULL in the manifest set. */
	void *ext;
};

/* ---- the set (lib/decode/manifest_set.c) ------------------------------ */

/* n zeroed bytes owned by the set's pool (lib/common/pool.h; freed with
 * the set), aligned for any type. NULL on out-of-memory. */
void *etl__mf_pool_alloc(struct mf_set *s, size_t n);

/* The decoder's manifest set; with create, made (empty) when there is
 * none. NULL when there is none (or on out-of-memory with create). */
struct mf_set *etl__mf_set_get(etl_decoder *d, int create);

/* Appends e to the set's events (in load order). 0 on out-of-memory. */
int etl__mf_set_add_event(struct mf_set *s, struct mf_event *e);

/* Sorts the events for lookup once a manifest is loaded (by provider, id,
 * version, then load order, so the first definition loaded wins) and
 * forgets the lookups remembered so far. */
void etl__mf_set_index(struct mf_set *s);

/* Adds e to an indexed set, keeping it indexed (one event at a time, for
 * schemas learned while a trace is read). 0 on out-of-memory. */
int etl__mf_set_insert(struct mf_set *s, struct mf_event *e);

/* The decoder's EventMetadata set (the schemas learned from a trace's
 * EventMetadata records, lib/decode/event_metadata_schema.c), kept in the
 * schema cache like the manifest set but apart from it, so that a loaded
 * manifest keeps its precedence; with create, made (empty) when there is
 * none. NULL when there is none (or on out-of-memory with create). */
struct mf_set *etl__mf_meta_set_get(etl_decoder *d, int create);

/* The event that defines ev: the (provider, id, version), else the highest
 * lower version of (provider, id); NULL if none. *prov_known tells whether
 * the set defines any event of the provider; *memo gets the set's memo
 * slot of ev (names derived per kind of event are kept there). */
const struct mf_event *etl__mf_find_event(struct mf_set *s, const struct etl_event *ev, int *prov_known,
                                          struct mf_memo **memo);

/* ---- shared with the loaders (lib/decode/manifest_load.c) -------------- */

/* Sets the fast-path members of an integer field from its in- and
 * out-type (fields of other types are left slow). */
void etl__mf_field_set_fast(struct mf_field *x);

/* winmeta.xml's message text for a predefined name ("win:Start" ->
 * "Start"), else ref itself. */
const char *etl__mf_winmeta_text(const char *ref);

/* Frees what s holds (its pool, index and message buffer), not s itself:
 * for sets kept inside another structure (lib/decode/mof_file.c). */
void etl__mf_set_clear(struct mf_set *s);

/* ---- decoding (lib/decode/manifest_decode.c) --------------------------- */

/* Decodes ev with the definition e found in set s (memo: the slot
 * etl__mf_find_event() gave): names, properties, message, ExtraData for a
 * version fallback, as etl__mf_decode() does; the result's source is
 * source. For the decoders that keep their schemas in a set of their own
 * (classic classes of .mof files). */
int etl__mf_decode_event(etl_decoder *d, const struct etl_event *ev, struct mf_set *s,
                         const struct mf_event *e, struct mf_memo *memo, int source);

/* ---- messages (lib/decode/manifest_message.c) ------------------------ */

/* Parses message msg of an event with n_top top-level fields into pieces
 * (at load). NULL when memory is short. */
const struct mf_msg *etl__mf_msg_compile(struct mf_set *s, const char *msg, uint32_t n_top);

/* Renders the message of e for the properties just decoded; *out points
 * into the set's message buffer, valid until the set's next message (the
 * decoder's next call). 0 on out-of-memory. */
int etl__mf_msg_render(etl_decoder *d, struct mf_set *set, const struct mf_event *e, const char **out);

#endif /* ETL_MANIFEST_INTERNAL_H */
