/*
 * lib/trace/trace_replay.c - the replay write path of the tracing runtime
 * (etl_replay_write(), etl_trace.h "Replaying captured events"): a
 * captured event re-emitted through the sessions that enable its
 * provider, with its original header type and fields.
 *
 * The record. A captured event is encoded once, before routing, by the
 * trace-header module of its kind (formats/hdr, the encoders
 * etl_writer_write_event() uses, which reproduce the reader's view field
 * by field), into a scratch record; each receiving session gets a copy.
 * Only a session that is not the trace's needs another timestamp
 * (lib/trace/trace_provider.c, replay_stamp): its copy is encoded again
 * with it, straight into the session's buffer. An event the module
 * cannot encode (fields that disagree, a kind without an encoder, larger
 * than the 0xFFFF size field) is sized 0, which the core counts as a
 * loss in every session meant to receive it, as it does for a live write
 * too large to encode. The encoding context is the event's own: the
 * pre-1.1 INSTANCE form when the event has it (ETL_EVF_OLD_INSTANCE),
 * which only a session whose file has the 1.0 layout may hold
 * (ETL__RT_PROP_LAYOUT_1_0), the modern form otherwise.
 *
 * Routing. Live events reach the core through a provider registration;
 * a replayed one names only its provider GUID. Each GUID replayed gets a
 * registration of its own here at its first event (without a callback:
 * nothing is told), kept for the life of the process in a table that
 * only grows, read without a lock; its aggregate enable state then
 * answers "does any session want this?" with one load, and the core
 * routes the event exactly as a live one of that provider.
 */
#define ETL_BUILDING_LIB 1
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include "formats/hdr/hdr.h"
#include "lib/trace/trace_seam.h"

/* ---- one registration per provider GUID --------------------------------- */

struct replay_provider {
	etl_provider prov;
	struct etl_guid guid;
	struct replay_provider *next;      /* set before the entry is published */
};

#define BUCKETS 1024u

static _Atomic(struct replay_provider *) g_table[BUCKETS];
static pthread_mutex_t g_table_lock = PTHREAD_MUTEX_INITIALIZER;

static unsigned guid_bucket(const struct etl_guid *g)
{
	uint64_t a, b;
	memcpy(&a, g, 8);
	memcpy(&b, (const uint8_t *)g + 8, 8);
	uint64_t h = (a ^ (b * 0x9E3779B97F4A7C15ULL)) * 0xC2B2AE3D27D4EB4FULL;
	return (unsigned)(h >> 54) & (BUCKETS - 1);
}

static struct replay_provider *find(struct replay_provider *e, const struct etl_guid *g)
{
	for (; e; e = e->next)
		if (memcmp(&e->guid, g, sizeof *g) == 0)
			return e;
	return NULL;
}

/* The registration of GUID g, made on first use. NULL when memory is
 * short. */
static etl_provider *replay_provider(const struct etl_guid *g)
{
	/* Events come in runs of one provider: the last one found first. */
	static _Thread_local struct replay_provider *t_last;
	struct replay_provider *e = t_last;
	if (e && memcmp(&e->guid, g, sizeof *g) == 0)
		return &e->prov;
	_Atomic(struct replay_provider *) *head = &g_table[guid_bucket(g)];
	e = find(atomic_load_explicit(head, memory_order_acquire), g);
	if (!e) {
		pthread_mutex_lock(&g_table_lock);
		e = find(atomic_load_explicit(head, memory_order_relaxed), g);
		if (!e && (e = calloc(1, sizeof *e)) != NULL) {
			e->guid = *g;
			if (etl_provider_register(&e->prov, g, NULL, NULL) == ETL_OK) {
				e->next = atomic_load_explicit(head, memory_order_relaxed);
				atomic_store_explicit(head, e, memory_order_release);
			} else {
				free(e);
				e = NULL;
			}
		}
		pthread_mutex_unlock(&g_table_lock);
		if (!e)
			return NULL;
	}
	t_last = e;
	return &e->prov;
}

/* ---- the record ---------------------------------------------------------- */

struct replay_rec {
	const struct etl_event *ev;
	const struct etl_hdr_ops *ops;
	struct etl_hdr_ctx ctx;
	const uint8_t *rec;                /* the encoded record, NULL: none  */
	uint32_t size;
	int old_instance;                  /* needs a layout-1.0 file        */
};

static uint32_t replay_size(const struct etl__rt_event *rt, uint32_t props)
{
	const struct replay_rec *x = rt->ctx;
	if (!x->rec || x->old_instance != ((props & ETL__RT_PROP_LAYOUT_1_0) != 0))
		return 0;
	return x->size;
}

static void replay_encode(const struct etl__rt_event *rt, const struct etl__rt_stamp *st,
                          uint8_t *dst, uint32_t size)
{
	const struct replay_rec *x = rt->ctx;
	if (st->timestamp != x->ev->timestamp && (x->ev->present & ETL_EVF_TIMESTAMP)) {
		struct etl_event e = *x->ev;
		struct etl_err err;
		e.timestamp = st->timestamp;
		/* Only the timestamp changed: what encoded once encodes again. */
		if (x->ops->encode(dst, size, &e, &x->ctx, &err) == ETL_OK)
			return;
	}
	memcpy(dst, x->rec, size);
}

/* Records up to this size are encoded on the stack, larger ones (rare)
 * in memory of their own. */
#define SMALL_RECORD 1024u

int etl_replay_write(const struct etl_event *ev)
{
	if (!ev)
		return ETL_FAILED;
	etl_provider *p = replay_provider(&ev->provider);
	if (!p)
		return ETL_FATAL;
	if (!etl_event_enabled(p, ev->level, ev->keyword))
		return ETL_OK;

	struct replay_rec x;
	uint8_t small[SMALL_RECORD];
	uint8_t *big = NULL;
	memset(&x, 0, sizeof x);
	x.ev = ev;
	x.ops = etl__hdr_for_kind(ev->kind);
	x.old_instance = (ev->kind == ETL_HDR_INSTANCE32 || ev->kind == ETL_HDR_INSTANCE64) &&
	                 (ev->present & ETL_EVF_OLD_INSTANCE);
	x.ctx.layout_major = x.old_instance ? 1 : 0;
	x.ctx.layout_minor = 0;
	x.ctx.default_ptr_size = ev->ptr_size;
	size_t n = x.ops && x.ops->encoded_size && x.ops->encode ? x.ops->encoded_size(ev, &x.ctx) : 0;
	if (n > 0 && n <= ETL_HDR_MAX_RECORD16) {
		uint8_t *buf = small;
		if (n > sizeof small && !(buf = big = malloc(n)))
			return ETL_FATAL;
		struct etl_err err;
		if (x.ops->encode(buf, n, ev, &x.ctx, &err) == ETL_OK) {
			x.rec = buf;
			x.size = (uint32_t)n;
		}
	}
	struct etl__rt_event rt = { p, ev->level, ev->keyword, replay_size, replay_encode, &x, ev };
	int rc = etl__rt_deliver(&rt);
	free(big);
	return rc;
}
