/*
 * lib/trace/trace_encode.c - record encoders of the tracing runtime's write
 * kinds (EVENT_HEADER with extended items, EVENT_TRACE_HEADER,
 * EVENT_INSTANCE_GUID_HEADER, MESSAGE_TRACE_HEADER) and the thread's
 * current activity id. Layouts and choices: lib/trace/trace_encode.h.
 *
 * The encoders are direct: a handful of little-endian stores and one
 * memcpy per data piece, so that an enabled event costs little more than
 * its copy. Everything that needs a system call (uid, session id, process
 * start key) is computed once per process and cached.
 */
#define ETL_BUILDING_LIB 1
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#if defined(__has_include)
#if __has_include(<execinfo.h>)
#include <execinfo.h>
#define ETL_HAVE_BACKTRACE 1
#endif
#endif

#include "lib/common/cursor.h"
#include "lib/trace/trace_encode.h"

#define EH_SIZE        0x50u
#define FULL_SIZE      0x30u
#define INSTANCE_SIZE  0x48u
#define MSG_SIZE       8u
#define MSG_ITEMS      (4u + 16u + 8u + 8u)
#define ITEM_HDR       8u
#define A8(x)          (((x) + 7u) & ~7u)
#define MAX_RECORD     0xFFFFu

#define EH_FLAG_EXTENDED_INFO   0x0001u

#if UINTPTR_MAX > 0xFFFFFFFFu
#define MSG_POINTER_FLAG ETL_MSG_POINTER64
#else
#define MSG_POINTER_FLAG ETL_MSG_POINTER32
#endif
#define MSG_OPTION_FLAGS (ETL_MSG_SEQUENCE | ETL_MSG_GUID | ETL_MSG_TIMESTAMP | \
                          ETL_MSG_SYSTEMINFO | MSG_POINTER_FLAG)

/* ---- payload ----------------------------------------------------------- */

static uint32_t elem_size(uint32_t reserved)
{
	uint32_t e = reserved & 0xFFu;
	return e ? e : 1u;
}

uint32_t etl__payload_size(uint32_t n, const struct etl_data *data, int counted)
{
	uint64_t t = 0;
	if (n && !data)
		return UINT32_MAX;
	for (uint32_t i = 0; i < n; i++) {
		const struct etl_data *x = &data[i];
		if (x->size && !x->ptr)
			return UINT32_MAX;
		t += x->size;
		if (counted && (x->reserved & ETL__TL_COUNTED)) {
			if (x->size / elem_size(x->reserved) > 0xFFFFu)
				return UINT32_MAX;
			t += 2;
		}
		if (t > MAX_RECORD)
			return UINT32_MAX;
	}
	return (uint32_t)t;
}

static uint8_t *put_payload(uint8_t *o, uint32_t n, const struct etl_data *data, int counted)
{
	for (uint32_t i = 0; i < n; i++) {
		const struct etl_data *x = &data[i];
		if (counted && (x->reserved & ETL__TL_COUNTED)) {
			etl_put16(o, (uint16_t)(x->size / elem_size(x->reserved)));
			o += 2;
		}
		/* Small scalars (the common case) without a library call. */
		switch (x->size) {
		case 0:
			break;
		case 4:
			memcpy(o, x->ptr, 4);
			break;
		case 8:
			memcpy(o, x->ptr, 8);
			break;
		default:
			memcpy(o, x->ptr, x->size);
			break;
		}
		o += x->size;
	}
	return o;
}

/* ---- process facts ------------------------------------------------------ */

static _Atomic uint32_t g_ids_pid;
static _Atomic uint32_t g_uid, g_tsid;
static _Atomic uint64_t g_start_key;

/* starttime (field 22) of /proc/self/stat, or 0. The command name (field
 * 2) may hold spaces and parentheses: fields resume after the last ')'. */
static uint64_t proc_start_time(void)
{
	char buf[1024];
	FILE *f = fopen("/proc/self/stat", "r");
	if (!f)
		return 0;
	size_t n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[n] = 0;
	char *p = strrchr(buf, ')');
	if (!p)
		return 0;
	p++;
	/* Field 3 starts after ") "; starttime is field 22: skip 19 fields. */
	for (int field = 3; field < 22; field++) {
		while (*p == ' ')
			p++;
		while (*p && *p != ' ')
			p++;
	}
	return strtoull(p, NULL, 10);
}

static void ids_refresh(uint32_t pid)
{
	if (atomic_load_explicit(&g_ids_pid, memory_order_acquire) == pid)
		return;
	uint64_t st = proc_start_time();
	if (!st) {
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		st = (uint64_t)ts.tv_sec * 100u + (uint64_t)ts.tv_nsec / 10000000u;
	}
	pid_t sid = getsid(0);
	atomic_store_explicit(&g_uid, (uint32_t)getuid(), memory_order_relaxed);
	atomic_store_explicit(&g_tsid, sid < 0 ? 0u : (uint32_t)sid, memory_order_relaxed);
	atomic_store_explicit(&g_start_key, (st << 22) + (pid & 0x3FFFFFu), memory_order_relaxed);
	atomic_store_explicit(&g_ids_pid, pid, memory_order_release);
}

/* What the extended items hold for this process (cached; recomputed when
 * the pid changes, e.g. after fork). */
static uint32_t item_uid(uint32_t pid)
{
	ids_refresh(pid);
	return atomic_load_explicit(&g_uid, memory_order_relaxed);
}

static uint32_t item_ts_id(uint32_t pid)
{
	ids_refresh(pid);
	return atomic_load_explicit(&g_tsid, memory_order_relaxed);
}

static uint64_t item_start_key(uint32_t pid)
{
	ids_refresh(pid);
	return atomic_load_explicit(&g_start_key, memory_order_relaxed);
}

/* ---- activity ids -------------------------------------------------------- */

static _Thread_local struct etl_guid tls_activity;
static _Atomic uint64_t g_act_counter;
static _Atomic uint64_t g_act_seed;

struct etl_guid etl_activity_get(void)
{
	return tls_activity;
}

void etl_activity_set(const struct etl_guid *id, struct etl_guid *prev)
{
	struct etl_guid old = tls_activity;
	if (id)
		tls_activity = *id;
	else
		memset(&tls_activity, 0, sizeof tls_activity);
	if (prev)
		*prev = old;
}

static uint64_t splitmix64(uint64_t x)
{
	x += 0x9E3779B97F4A7C15ull;
	x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
	x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
	return x ^ (x >> 31);
}

/* Process-unique: a per-process random tail (Data4) and a 64-bit counter
 * in Data1..Data3, which never repeats and is never 0. */
struct etl_guid etl_activity_new(void)
{
	uint64_t seed = atomic_load_explicit(&g_act_seed, memory_order_acquire);
	if (!seed) {
		struct timespec ts;
		uint64_t expect = 0;
		clock_gettime(CLOCK_REALTIME, &ts);
		seed = splitmix64((uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec) ^
		       splitmix64((uint64_t)getpid() ^ (uint64_t)(uintptr_t)&expect);
		if (!seed)
			seed = 1;
		if (!atomic_compare_exchange_strong(&g_act_seed, &expect, seed))
			seed = expect;
	}
	uint64_t c = atomic_fetch_add_explicit(&g_act_counter, 1, memory_order_relaxed) + 1;
	struct etl_guid g;
	g.data1 = (uint32_t)c;
	g.data2 = (uint16_t)(c >> 32);
	g.data3 = (uint16_t)(c >> 48);
	for (int i = 0; i < 8; i++)
		g.data4[i] = (uint8_t)(seed >> (8 * i));
	return g;
}

/* ---- EVENT_HEADER -------------------------------------------------------- */

int etl__eh_prepare(struct etl__eh_desc *x, const struct etl_guid *provider,
                    const struct etl_event_descriptor *d,
                    const struct etl_guid *activity, const struct etl_guid *related,
                    const void *meta, uint16_t meta_size, const char *prov_name,
                    uint32_t n, const struct etl_data *data, int counted, uintptr_t caller)
{
	if (n && !data)
		return ETL_FAILED;
	x->provider = *provider;
	x->activity = activity ? *activity : tls_activity;
	x->has_related = related != NULL;
	if (related)
		x->related = *related;
	x->d = *d;
	x->meta = meta;
	x->meta_size = meta ? meta_size : 0;
	x->prov_name = NULL;
	x->name_len = 0;
	if (meta) {
		size_t len;
		if (!d->channel)
			x->d.channel = 11;
		x->prov_name = prov_name ? prov_name : "";
		len = strlen(x->prov_name);
		x->name_len = (uint16_t)(len > MAX_RECORD ? MAX_RECORD : len);
		if (len > MAX_RECORD || (size_t)meta_size > MAX_RECORD - 2)
			x->meta_size = MAX_RECORD;   /* size() will refuse it */
	}
	x->n = n;
	x->data = data;
	x->counted = counted;
	x->payload_size = etl__payload_size(n, data, counted);
	x->caller = caller;
	x->stack_state = 0;
	x->stack_n = 0;
	return ETL_OK;
}

static void capture_stack(struct etl__eh_desc *x)
{
	x->stack_state = 1;
	x->stack_n = 0;
#ifdef ETL_HAVE_BACKTRACE
	void *fr[ETL__STACK_MAX + 16];
	int n = backtrace(fr, (int)(sizeof fr / sizeof fr[0]));
	int start = 0;
	if (x->caller) {
		for (int i = 0; i < n; i++)
			if ((uintptr_t)fr[i] == x->caller) {
				start = i;
				break;
			}
	}
	for (int i = start; i < n && x->stack_n < ETL__STACK_MAX; i++)
		x->stack[x->stack_n++] = (uint64_t)(uintptr_t)fr[i];
#endif
}

static uint32_t eh_items_size(struct etl__eh_desc *x, uint32_t props)
{
	uint32_t n = 0;
	if (x->has_related)
		n += A8(ITEM_HDR + 16u);
	if (props & ETL_ENABLE_SID)
		n += A8(ITEM_HDR + 16u);
	if (props & ETL_ENABLE_TS_ID)
		n += A8(ITEM_HDR + 4u);
	if (props & ETL_ENABLE_STACK_TRACE) {
		if (!x->stack_state)
			capture_stack(x);
		if (x->stack_n)
			n += A8(ITEM_HDR + 8u + 8u * x->stack_n);
	}
	if (props & ETL_ENABLE_EVENT_KEY)
		n += A8(ITEM_HDR + 8u);
	if (x->meta) {
		n += A8(ITEM_HDR + 2u + x->name_len + 1u);
		n += A8(ITEM_HDR + 2u + (uint32_t)x->meta_size);
	}
	if (props & ETL_ENABLE_PROCESS_START_KEY)
		n += A8(ITEM_HDR + 8u);
	return n;
}

static uint32_t eh_size(const struct etl__rt_event *ev, uint32_t props)
{
	/* The description is the write function's own, non-const object. */
	struct etl__eh_desc *x = (struct etl__eh_desc *)(uintptr_t)ev->ctx;
	uint64_t t;
	if (x->payload_size == UINT32_MAX)
		return 0;
	if (!props && !x->has_related && !x->meta)    /* no items: the common case */
		t = (uint64_t)EH_SIZE + x->payload_size;
	else
		t = (uint64_t)EH_SIZE + eh_items_size(x, props) + x->payload_size;
	return t > MAX_RECORD ? 0 : (uint32_t)t;
}

/* FNV-1a 64. */
static uint64_t fnv1a(uint64_t h, const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		h ^= p[i];
		h *= 0x100000001B3ull;
	}
	return h;
}

static uint64_t eh_event_key(const struct etl__eh_desc *x)
{
	uint8_t b[19];
	etl_put_guid(b, &x->provider);
	etl_put16(b + 16, x->d.id);
	b[18] = x->d.version;
	uint64_t h = fnv1a(0xCBF29CE484222325ull, b, sizeof b);
	if (x->meta)
		h = fnv1a(h, x->meta, x->meta_size);
	return h;
}

/* Item header at o; returns the data pointer. Linkage is set for every
 * item and cleared on the last by the caller. */
static uint8_t *item(uint8_t *o, uint16_t type, uint32_t data_size, uint8_t **last)
{
	uint32_t sz = A8(ITEM_HDR + data_size);
	etl_put16(o, (uint16_t)sz);
	etl_put16(o + 2, type);
	etl_put16(o + 4, 1);
	etl_put16(o + 6, (uint16_t)data_size);
	/* Padding bytes are zero, as Windows leaves them. */
	if (sz > ITEM_HDR + data_size)
		memset(o + ITEM_HDR + data_size, 0, sz - ITEM_HDR - data_size);
	*last = o;
	return o + ITEM_HDR;
}

static void eh_encode(const struct etl__rt_event *ev, const struct etl__rt_stamp *st,
                      uint8_t *dst, uint32_t size)
{
	const struct etl__eh_desc *x = ev->ctx;
	uint32_t props = st->props;
	uint8_t *o = dst + EH_SIZE, *last = NULL, *p;
	int has_items = x->has_related || x->meta ||
	                (props & (ETL_ENABLE_SID | ETL_ENABLE_TS_ID | ETL_ENABLE_EVENT_KEY |
	                          ETL_ENABLE_PROCESS_START_KEY)) ||
	                ((props & ETL_ENABLE_STACK_TRACE) && x->stack_n);

	etl_put16(dst, (uint16_t)size);
	dst[0x02] = 0x13;
	dst[0x03] = 0xC0;
	etl_put16(dst + 0x04, has_items ? EH_FLAG_EXTENDED_INFO : 0);
	etl_put16(dst + 0x06, 0);
	etl_put32(dst + 0x08, st->tid);
	etl_put32(dst + 0x0C, st->pid);
	etl_put64(dst + 0x10, (uint64_t)st->timestamp);
	etl_put_guid(dst + 0x18, &x->provider);
	etl_put16(dst + 0x28, x->d.id);
	dst[0x2A] = x->d.version;
	dst[0x2B] = x->d.channel;
	dst[0x2C] = x->d.level;
	dst[0x2D] = x->d.opcode;
	etl_put16(dst + 0x2E, x->d.task);
	etl_put64(dst + 0x30, x->d.keyword);
	etl_put64(dst + 0x38, 0);
	etl_put_guid(dst + 0x40, &x->activity);

	if (has_items) {
		if (x->has_related) {
			p = item(o, ETL_EXT_RELATED_ACTIVITYID, 16, &last);
			etl_put_guid(p, &x->related);
			o = last + A8(ITEM_HDR + 16u);
		}
		if (props & ETL_ENABLE_SID) {
			/* S-1-22-1-<uid>: revision 1, 2 sub-authorities, authority 22. */
			p = item(o, ETL_EXT_SID, 16, &last);
			p[0] = 1;
			p[1] = 2;
			memset(p + 2, 0, 5);
			p[7] = 22;
			etl_put32(p + 8, 1);
			etl_put32(p + 12, item_uid(st->pid));
			o = last + A8(ITEM_HDR + 16u);
		}
		if (props & ETL_ENABLE_TS_ID) {
			p = item(o, ETL_EXT_TS_ID, 4, &last);
			etl_put32(p, item_ts_id(st->pid));
			o = last + A8(ITEM_HDR + 4u);
		}
		if ((props & ETL_ENABLE_STACK_TRACE) && x->stack_n) {
			uint32_t ds = 8u + 8u * x->stack_n;
			p = item(o, ETL_EXT_STACK_TRACE64, ds, &last);
			etl_put64(p, 0);
			for (uint32_t i = 0; i < x->stack_n; i++)
				etl_put64(p + 8 + 8 * i, x->stack[i]);
			o = last + A8(ITEM_HDR + ds);
		}
		if (props & ETL_ENABLE_EVENT_KEY) {
			p = item(o, ETL_EXT_EVENT_KEY, 8, &last);
			etl_put64(p, eh_event_key(x));
			o = last + A8(ITEM_HDR + 8u);
		}
		if (x->meta) {
			uint32_t ts = 2u + x->name_len + 1u, ms = 2u + x->meta_size;
			p = item(o, ETL_EXT_PROV_TRAITS, ts, &last);
			etl_put16(p, (uint16_t)ts);
			memcpy(p + 2, x->prov_name, x->name_len);
			p[2 + x->name_len] = 0;
			o = last + A8(ITEM_HDR + ts);
			p = item(o, ETL_EXT_EVENT_SCHEMA_TL, ms, &last);
			etl_put16(p, (uint16_t)ms);
			memcpy(p + 2, x->meta, x->meta_size);
			o = last + A8(ITEM_HDR + ms);
		}
		if (props & ETL_ENABLE_PROCESS_START_KEY) {
			p = item(o, ETL_EXT_PROCESS_START_KEY, 8, &last);
			etl_put64(p, item_start_key(st->pid));
			o = last + A8(ITEM_HDR + 8u);
		}
		etl_put16(last + 4, 0);
	}
	put_payload(o, x->n, x->data, x->counted);
}

void etl__eh_event(struct etl__rt_event *ev, etl_provider *p, struct etl__eh_desc *x)
{
	*ev = (struct etl__rt_event){ p, x->d.level, x->d.keyword, eh_size, eh_encode, x, NULL };
}

/* ---- EVENT_TRACE_HEADER / EVENT_INSTANCE_GUID_HEADER ---------------------- */

static uint32_t classic_size(const struct etl__rt_event *ev, uint32_t props)
{
	const struct etl__classic_desc *x = ev->ctx;
	uint64_t t;
	(void)props;
	if (x->payload_size == UINT32_MAX)
		return 0;
	t = (uint64_t)(x->instance ? INSTANCE_SIZE : FULL_SIZE) + x->payload_size;
	return t > MAX_RECORD ? 0 : (uint32_t)t;
}

static void classic_encode(const struct etl__rt_event *ev, const struct etl__rt_stamp *st,
                           uint8_t *dst, uint32_t size)
{
	const struct etl__classic_desc *x = ev->ctx;
	etl_put16(dst, (uint16_t)size);
	dst[0x02] = x->instance ? 0x15 : 0x14;
	dst[0x03] = 0xC0;
	dst[0x04] = x->type;
	dst[0x05] = x->level;
	etl_put16(dst + 0x06, x->version);
	etl_put32(dst + 0x08, st->tid);
	etl_put32(dst + 0x0C, st->pid);
	etl_put64(dst + 0x10, (uint64_t)st->timestamp);
	etl_put_guid(dst + 0x18, &x->class_guid);
	/* KernelTime / UserTime: outputs in buffers (doc/format.md §3.4: the
	 * Flags such as WNODE_FLAG_TRACED_GUID are the provider's input,
	 * replaced by CPU times on disk); not measured, so 0. */
	etl_put64(dst + 0x28, 0);
	if (x->instance) {
		etl_put32(dst + 0x30, x->instance_id);
		etl_put32(dst + 0x34, x->parent_instance_id);
		etl_put_guid(dst + 0x38, &x->parent_guid);
		put_payload(dst + INSTANCE_SIZE, x->n, x->data, 0);
	} else {
		put_payload(dst + FULL_SIZE, x->n, x->data, 0);
	}
}

void etl__classic_event(struct etl__rt_event *ev, etl_provider *p, const struct etl__classic_desc *x)
{
	*ev = (struct etl__rt_event){ p, x->level, 0, classic_size, classic_encode, x, NULL };
}

/* ---- MESSAGE_TRACE_HEADER -------------------------------------------------- */

static _Atomic uint32_t g_msg_seq;

uint32_t etl__msg_next_sequence(void)
{
	return atomic_fetch_add_explicit(&g_msg_seq, 1, memory_order_relaxed) + 1;
}

static uint32_t msg_size(const struct etl__rt_event *ev, uint32_t props)
{
	const struct etl__msg_desc *x = ev->ctx;
	uint64_t t;
	(void)props;
	if (x->payload_size == UINT32_MAX)
		return 0;
	t = (uint64_t)MSG_SIZE + MSG_ITEMS + x->payload_size;
	return t > MAX_RECORD ? 0 : (uint32_t)t;
}

static void msg_encode(const struct etl__rt_event *ev, const struct etl__rt_stamp *st,
                       uint8_t *dst, uint32_t size)
{
	const struct etl__msg_desc *x = ev->ctx;
	etl_put16(dst, (uint16_t)size);
	dst[2] = 0;
	dst[3] = 0x90;
	etl_put16(dst + 4, x->number);
	etl_put16(dst + 6, MSG_OPTION_FLAGS);
	etl_put32(dst + 8, x->sequence);
	etl_put_guid(dst + 12, &x->message_guid);
	etl_put64(dst + 28, (uint64_t)st->timestamp);
	etl_put32(dst + 36, st->tid);
	etl_put32(dst + 40, st->pid);
	put_payload(dst + MSG_SIZE + MSG_ITEMS, x->n, x->data, 0);
}

void etl__msg_event(struct etl__rt_event *ev, etl_provider *p, uint8_t level, uint64_t keyword,
                    const struct etl__msg_desc *x)
{
	*ev = (struct etl__rt_event){ p, level, keyword, msg_size, msg_encode, x, NULL };
}
