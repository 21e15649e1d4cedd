/*
 * lib/trace/trace_provider.c - the provider registry of the tracing runtime:
 * registration, the sessions that enable each provider GUID, the
 * aggregate state that etl_event_enabled() reads, enable callbacks, and
 * routing each event to its sessions. As in Windows, a provider GUID's
 * entry (ETW_GUID_ENTRY) is enabled on at most 8 loggers at once, and the
 * state a provider tests before writing (ProviderEnableInfo) is the
 * aggregate of theirs.
 *
 * Shape. A GUID entry holds 8 slots, one per enabling session (logger id,
 * level, keywords, enable properties), each under a sequence counter, and
 * the list of registrations writing under that GUID; each registration's
 * public atomics get the aggregate (highest level, OR of match-any, AND of
 * match-all). A session may enable a GUID before any registration exists.
 * Sessions are named here by their logger id only: the session layer
 * (lib/trace/trace_session.c) enables and disables through
 * etl__rt_enable() / etl__rt_disable(), and routing finds the running
 * session of a logger id in the table of lib/trace/trace_sync.c.
 *
 * Routing (etl__rt_deliver). Inside a read-side section (lib/trace/trace_core.h),
 * the slots that pass the exact filter name the target sessions. Space is
 * reserved in all of them, ordered so that a failure undoes as little as
 * possible: non-independent sessions that may lose events first, then the
 * blocking ones (which wait rather than fail), then the independent ones.
 * If a non-independent session cannot reserve, the reservations already
 * made in non-independent sessions are abandoned and the event is counted
 * lost in every non-independent target; an independent session keeps or
 * loses its own copy alone. Then the record is encoded once per session
 * (its clock, its enable properties) and committed.
 */
#define ETL_BUILDING_LIB 1
#define _GNU_SOURCE 1
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "lib/read/read_internal.h"
#include "etl_decode.h"
#include "lib/trace/trace_core.h"

#define HDR ETL_RT_HDR

static struct etl__rt_gentry *g_entries;   /* control lock */

/* ---- thread identity -------------------------------------------------- */

/* Here, beside routing, its one caller per event: the compiler inlines it
 * into etl__rt_deliver(). */
static _Thread_local uint32_t t_tid;
static _Thread_local uint32_t t_forks;

uint32_t etl__rt_tid(void)
{
	uint32_t f = atomic_load_explicit(&etl__rt_forks, memory_order_relaxed);
	if (!t_tid || t_forks != f) {
		t_tid = (uint32_t)syscall(SYS_gettid);
		t_forks = f;
	}
	return t_tid;
}

/* ---- slots ------------------------------------------------------------ */

static void slot_write(struct etl__rt_slot *sl, uint64_t w, uint64_t any, uint64_t all)
{
	uint32_t q = atomic_load_explicit(&sl->seq, memory_order_relaxed);
	atomic_store_explicit(&sl->seq, q + 1, memory_order_relaxed);
	atomic_thread_fence(memory_order_release);
	atomic_store_explicit(&sl->w, w, memory_order_relaxed);
	atomic_store_explicit(&sl->any, any, memory_order_relaxed);
	atomic_store_explicit(&sl->all, all, memory_order_relaxed);
	atomic_store_explicit(&sl->seq, q + 2, memory_order_release);
}

static inline void slot_read(struct etl__rt_slot *sl, uint64_t *w, uint64_t *any, uint64_t *all)
{
	for (;;) {
		uint32_t q = atomic_load_explicit(&sl->seq, memory_order_acquire);
		*w = atomic_load_explicit(&sl->w, memory_order_relaxed);
		*any = atomic_load_explicit(&sl->any, memory_order_relaxed);
		*all = atomic_load_explicit(&sl->all, memory_order_relaxed);
		atomic_thread_fence(memory_order_acquire);
		if (!(q & 1) && atomic_load_explicit(&sl->seq, memory_order_relaxed) == q)
			return;
	}
}

static struct etl__rt_gentry *entry_find(const struct etl_guid *g)
{
	for (struct etl__rt_gentry *e = g_entries; e; e = e->next)
		if (etl_guid_equal(&e->guid, g))
			return e;
	return NULL;
}

static struct etl__rt_gentry *entry_get(const struct etl_guid *g)
{
	struct etl__rt_gentry *e = entry_find(g);
	if (e)
		return e;
	e = calloc(1, sizeof *e);
	if (!e)
		return NULL;
	e->guid = *g;
	e->next = g_entries;
	g_entries = e;
	return e;
}

/* Frees e when nothing refers to it: no registration (so no writer can
 * reach it) and no session. */
static void entry_maybe_free(struct etl__rt_gentry *e)
{
	if (e->regs || atomic_load(&e->mask))
		return;
	for (struct etl__rt_gentry **pp = &g_entries; *pp; pp = &(*pp)->next) {
		if (*pp == e) {
			*pp = e->next;
			free(e);
			return;
		}
	}
}

/* Recomputes the aggregate, stores it in every registration, and runs the
 * callbacks (of every registration, or of only when not NULL). */
static void refresh(struct etl__rt_gentry *e, struct etl__provider_impl *only, int callbacks)
{
	uint32_t mask = atomic_load(&e->mask);
	uint8_t lvl = 0;
	uint64_t any = 0, all = ~(uint64_t)0;
	for (unsigned i = 0; i < ETL_RT_SLOTS; i++) {
		if (!(mask & (1u << i)))
			continue;
		uint64_t w, a, l;
		slot_read(&e->slot[i], &w, &a, &l);
		uint8_t sl = (uint8_t)(w >> 8);
		if (sl > lvl)
			lvl = sl;
		any |= a;
		all &= l;
	}
	uint32_t state = mask ? 0x100u | lvl : 0;
	if (!mask)
		any = all = 0;
	for (struct etl__provider_impl *r = e->regs; r; r = r->next) {
		if (state) {
			__atomic_store_n(&r->pub->any, any, __ATOMIC_RELAXED);
			__atomic_store_n(&r->pub->all, all, __ATOMIC_RELAXED);
			__atomic_store_n(&r->pub->state, state, __ATOMIC_RELEASE);
		} else {
			__atomic_store_n(&r->pub->state, 0, __ATOMIC_RELEASE);
			__atomic_store_n(&r->pub->any, 0, __ATOMIC_RELAXED);
			__atomic_store_n(&r->pub->all, 0, __ATOMIC_RELAXED);
		}
	}
	if (!callbacks)
		return;
	for (struct etl__provider_impl *r = e->regs; r; r = r->next) {
		if (r->cb && (!only || r == only))
			r->cb(r->cb_ctx, state != 0, lvl, any, all);
	}
}

/* ---- enabling --------------------------------------------------------- */

int etl__rt_enable(uint16_t logger_id, const struct etl_guid *provider,
                   const struct etl_enable_params *e)
{
	struct etl__rt_gentry *g = entry_get(provider);
	if (!g)
		return ETL_FATAL;
	uint32_t mask = atomic_load(&g->mask);
	int at = -1, free_at = -1;
	for (int i = 0; i < ETL_RT_SLOTS; i++) {
		if (mask & (1u << i)) {
			uint64_t w, a, l;
			slot_read(&g->slot[i], &w, &a, &l);
			if ((w & 0xFF) == logger_id)
				at = i;
		} else if (free_at < 0) {
			free_at = i;
		}
	}
	if (at < 0)
		at = free_at;
	if (at < 0)
		return ETL_FAILED;
	uint64_t lvl = e->level ? e->level : 255;
	uint64_t w = (uint64_t)logger_id | lvl << 8 | (uint64_t)e->properties << 32;
	slot_write(&g->slot[at], w, e->match_any ? e->match_any : ~(uint64_t)0, e->match_all);
	atomic_fetch_or(&g->mask, 1u << at);
	refresh(g, NULL, 1);
	return ETL_OK;
}

/* The index of logger_id's slot in g (NULL allowed), or -1; its contents
 * in *w, *a and *l. */
static int slot_of(struct etl__rt_gentry *g, uint16_t logger_id, uint64_t *w, uint64_t *a, uint64_t *l)
{
	uint32_t mask = g ? atomic_load(&g->mask) : 0;
	for (int i = 0; i < ETL_RT_SLOTS; i++) {
		if (!(mask & (1u << i)))
			continue;
		slot_read(&g->slot[i], w, a, l);
		if ((*w & 0xFF) == logger_id)
			return i;
	}
	return -1;
}

/* Clears logger_id's slot in g; 1 if there was one. */
static int clear_slot(struct etl__rt_gentry *g, uint16_t logger_id)
{
	uint64_t w, a, l;
	int i = slot_of(g, logger_id, &w, &a, &l);
	if (i < 0)
		return 0;
	atomic_fetch_and(&g->mask, ~(1u << i));
	slot_write(&g->slot[i], 0, 0, 0);
	return 1;
}

int etl__rt_disable(uint16_t logger_id, const struct etl_guid *provider)
{
	struct etl__rt_gentry *g = entry_find(provider);
	if (!g || !clear_slot(g, logger_id))
		return ETL_FAILED;
	refresh(g, NULL, 1);
	entry_maybe_free(g);
	return ETL_OK;
}

int etl__rt_capture_state(uint16_t logger_id, const struct etl_guid *provider)
{
	struct etl__rt_gentry *g = entry_find(provider);
	uint64_t w, a, l;
	if (slot_of(g, logger_id, &w, &a, &l) < 0)
		return ETL_FAILED;
	for (struct etl__provider_impl *r = g->regs; r; r = r->next)
		if (r->cb)
			r->cb(r->cb_ctx, ETL_CONTROL_CAPTURE_STATE, (uint8_t)(w >> 8), a, l);
	return ETL_OK;
}

void etl__rt_disable_all(uint16_t logger_id, int callbacks)
{
	struct etl__rt_gentry *g = g_entries;
	while (g) {
		struct etl__rt_gentry *next = g->next;
		if (clear_slot(g, logger_id)) {
			refresh(g, NULL, callbacks);
			entry_maybe_free(g);
		}
		g = next;
	}
}

/* ---- registration ----------------------------------------------------- */

static int do_register(etl_provider *p, const struct etl_guid *guid, const char *name,
                       etl_enable_fn cb, void *cb_ctx)
{
	etl__rt_ctl_lock();
	if (__atomic_load_n(&p->impl, __ATOMIC_ACQUIRE)) {
		etl__rt_ctl_unlock();
		return ETL_FAILED;
	}
	struct etl__provider_impl *r = calloc(1, sizeof *r);
	struct etl__rt_gentry *g = r ? entry_get(guid) : NULL;
	if (r && name)
		r->name = strdup(name);
	if (!r || !g || (name && !r->name)) {
		if (r)
			free(r->name);
		free(r);
		etl__rt_ctl_unlock();
		return ETL_FATAL;
	}
	r->entry = g;
	r->pub = p;
	r->cb = cb;
	r->cb_ctx = cb_ctx;
	r->guid = *guid;
	r->next = g->regs;
	g->regs = r;
	__atomic_store_n(&p->state, 0, __ATOMIC_SEQ_CST);
	__atomic_store_n(&p->any, 0, __ATOMIC_SEQ_CST);
	__atomic_store_n(&p->all, 0, __ATOMIC_SEQ_CST);
	__atomic_store_n(&p->impl, r, __ATOMIC_SEQ_CST);
	refresh(g, r, atomic_load(&g->mask) != 0);
	etl__rt_ctl_unlock();
	return ETL_OK;
}

int etl_provider_register(etl_provider *p, const struct etl_guid *guid,
                          etl_enable_fn cb, void *cb_ctx)
{
	etl__rt_nproc();
	if (!p || !guid)
		return ETL_FAILED;
	return do_register(p, guid, NULL, cb, cb_ctx);
}

int etl_provider_register_name(etl_provider *p, const char *name,
                               etl_enable_fn cb, void *cb_ctx)
{
	etl__rt_nproc();
	struct etl_guid g;
	if (!p || !name || etl_provider_guid_from_name(name, &g) != ETL_OK)
		return ETL_FAILED;
	return do_register(p, &g, name, cb, cb_ctx);
}

void etl_provider_unregister(etl_provider *p)
{
	if (!p)
		return;
	etl__rt_ctl_lock();
	struct etl__provider_impl *r = __atomic_load_n(&p->impl, __ATOMIC_ACQUIRE);
	if (!r) {
		etl__rt_ctl_unlock();
		return;
	}
	struct etl__rt_gentry *g = r->entry;
	for (struct etl__provider_impl **pp = &g->regs; *pp; pp = &(*pp)->next) {
		if (*pp == r) {
			*pp = r->next;
			break;
		}
	}
	__atomic_store_n(&p->state, 0, __ATOMIC_SEQ_CST);
	__atomic_store_n(&p->any, 0, __ATOMIC_SEQ_CST);
	__atomic_store_n(&p->all, 0, __ATOMIC_SEQ_CST);
	__atomic_store_n(&p->impl, NULL, __ATOMIC_SEQ_CST);
	/* Writes in progress through p finish before its memory is given
	 * back (and before the entry can go). */
	etl__rt_synchronize();
	free(r->name);
	free(r);
	entry_maybe_free(g);
	etl__rt_ctl_unlock();
}

struct etl_guid etl_provider_guid(const etl_provider *p)
{
	struct etl_guid g;
	memset(&g, 0, sizeof g);
	const struct etl__provider_impl *r = p ? __atomic_load_n(&p->impl, __ATOMIC_ACQUIRE) : NULL;
	if (r)
		g = r->guid;
	return g;
}

const char *etl__rt_provider_name(const etl_provider *p)
{
	const struct etl__provider_impl *r = p ? __atomic_load_n(&p->impl, __ATOMIC_ACQUIRE) : NULL;
	return r ? r->name : NULL;
}

/* ---- routing ---------------------------------------------------------- */

struct route_target {
	struct etl_session *s;
	uint32_t props;
};

/* The processor of the calling thread's live writes to sessions on the
 * caller's clock (etl_thread_processor_set()). */
static _Thread_local uint32_t t_clock_cpu;

void etl_thread_processor_set(uint32_t cpu, uint32_t *prev)
{
	if (prev)
		*prev = t_clock_cpu;
	t_clock_cpu = cpu;
}

uint32_t etl_thread_processor_get(void)
{
	return t_clock_cpu;
}

/* The processor whose buffer of s receives the record: the captured
 * event's (a replay); for a live write the one the writer runs on, but on
 * the caller's clock the thread's own (etl_thread_processor_set()): there
 * events often share a time, and the reader orders those by processor, so
 * the scheduler must not pick it. Folded into s's processor count, which a
 * replaying session takes from its trace. */
static inline uint32_t target_cpu(const struct etl__rt_event *ev, const struct etl_session *s,
                                  uint32_t cpu)
{
	uint32_t c = ev->replayed ? ev->replayed->processor : s->stamp_ct ? cpu : t_clock_cpu;
	return c < s->nproc ? c : c % s->nproc;
}

/* The props a record is sized for in s: a replayed event also learns
 * whether s's file has the 1.0 layout. */
static inline uint32_t target_props(const struct etl__rt_event *ev, const struct etl_session *s,
                                    uint32_t props)
{
	return ev->replayed && s->layout_1_0 ? props | ETL__RT_PROP_LAYOUT_1_0 : props;
}

/* A replayed event's timestamp in s (etl_trace.h, "Replaying captured
 * events"): its own in the trace's session, else its UTC time in s's
 * clock. */
static int64_t replay_stamp(const struct etl_event *e, const struct etl_session *s)
{
	if (s->replay)
		return e->timestamp;
	if (e->present & ETL_EVF_UTC)
		return etl__rt_session_raw_at(s, e->utc);
	return etl__rt_session_now(s);
}

static int route(const struct etl__rt_event *ev, struct route_target *t, unsigned n, uint32_t cpu)
{
	struct etl__rt_res res[ETL_RT_SLOTS];
	uint32_t size[ETL_RT_SLOTS], tcpu[ETL_RT_SLOTS];
	unsigned char ok[ETL_RT_SLOTS];
	int group_failed = 0, lost = 0;
	uint32_t last_props = 0, last_size = 0;
	int have_size = 0;
	for (unsigned k = 0; k < n; k++) {
		struct etl_session *s = t[k].s;
		ok[k] = 0;
		tcpu[k] = target_cpu(ev, s, cpu);
		if (s->rclass < 2 && group_failed)
			continue;
		uint32_t props = target_props(ev, s, t[k].props);
		if (!have_size || props != last_props) {
			last_size = ev->size(ev, props);
			last_props = props;
			have_size = 1;
		}
		size[k] = last_size;
		uint32_t asize = (uint32_t)ETL_ALIGN8(last_size);
		if (last_size == 0 || asize > s->bs - HDR ||
		    etl__rt_reserve(s, tcpu[k], asize, &res[k]) != ETL_OK) {
			if (s->rclass < 2) {
				group_failed = 1;
			} else {
				etl__rt_count_lost(s, tcpu[k]);
				lost = 1;
			}
			continue;
		}
		ok[k] = 1;
	}
	if (group_failed) {
		for (unsigned k = 0; k < n; k++) {
			if (t[k].s->rclass >= 2)
				continue;
			if (ok[k])
				etl__rt_abandon(&res[k]);
			ok[k] = 0;
			etl__rt_count_lost(t[k].s, tcpu[k]);
		}
		lost = 1;
	}
	struct etl__rt_stamp st;
	int64_t ts[4] = { 0, 0, 0, 0 };
	unsigned have_ts = 0;
	st.pid = etl__rt_pid();
	st.tid = etl__rt_tid();
	for (unsigned k = 0; k < n; k++) {
		if (!ok[k])
			continue;
		struct etl_session *s = t[k].s;
		/* One reading per clock type for all sessions; a session on the
		 * caller's clock (stamp_ct 0) reads its own. */
		uint32_t ct = s->stamp_ct & 3u;
		if (ev->replayed) {
			st.timestamp = replay_stamp(ev->replayed, s);
		} else if (!ct) {
			st.timestamp = etl__rt_session_now(s);
		} else {
			if (!(have_ts & (1u << ct))) {
				ts[ct] = etl__rt_now(ct);
				have_ts |= 1u << ct;
			}
			st.timestamp = ts[ct];
		}
		st.cpu = tcpu[k];
		st.props = target_props(ev, s, t[k].props);
		st.logger_id = s->logger_id;
		uint32_t asize = res[k].size;
		ev->encode(ev, &st, res[k].dst, size[k]);
		if (asize > size[k])
			memset(res[k].dst + size[k], 0, asize - size[k]);
		etl__rt_commit(&res[k]);
	}
	return lost ? ETL_FAILED : ETL_OK;
}

int etl__rt_deliver(const struct etl__rt_event *ev)
{
	etl_provider *p = ev->prov;
	if (!p || !__atomic_load_n(&p->state, __ATOMIC_RELAXED))
		return ETL_OK;
	uint32_t cpu = etl__rt_cpu();
	unsigned tok = etl__rt_read_lock(cpu);
	int rc = ETL_OK;
	struct etl__provider_impl *r = __atomic_load_n(&p->impl, __ATOMIC_SEQ_CST);
	if (r) {
		struct etl__rt_gentry *g = r->entry;
		uint32_t mask = atomic_load_explicit(&g->mask, memory_order_acquire);
		struct route_target t[ETL_RT_SLOTS];
		unsigned n = 0;
		while (mask) {
			unsigned i = (unsigned)__builtin_ctz(mask);
			mask &= mask - 1;
			uint64_t w, any, all;
			slot_read(&g->slot[i], &w, &any, &all);
			uint32_t li = (uint32_t)(w & 0xFF);
			if (!li || li > ETL_RT_MAX_SESSIONS)
				continue;
			uint32_t props = (uint32_t)(w >> 32);
			if (!etl__rt_exact_match((uint8_t)(w >> 8), any, all, props, ev->level, ev->keyword))
				continue;
			struct etl_session *s = atomic_load_explicit(&etl__rt_sessions[li - 1], memory_order_seq_cst);
			if (!s)
				continue;
			/* Insertion by (routing class, logger id): one global order,
			 * so that blocked writers never wait on each other in a ring. */
			unsigned k = n++;
			while (k > 0 && (t[k - 1].s->rclass > s->rclass ||
			                 (t[k - 1].s->rclass == s->rclass && t[k - 1].s->logger_id > s->logger_id))) {
				t[k] = t[k - 1];
				k--;
			}
			t[k].s = s;
			t[k].props = props;
		}
		if (n)
			rc = route(ev, t, n, cpu);
	}
	etl__rt_read_unlock(cpu, tok);
	return rc;
}
