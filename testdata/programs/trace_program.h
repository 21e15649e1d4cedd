/*
 * trace_program.h - shared by the file-mode programs of testdata/programs/
 * (trace-sequential, trace-circular, trace-newfile, trace-buffering,
 * trace-realtime, trace-compressed): writer threads that emit every write
 * kind of libetl's tracing runtime with a payload naming (thread, index,
 * kind), and a checker that reads events back with libetl and compares
 * each with what was written.
 *
 * Every program prints what it verified and "events N" (the number of
 * events written) as its last line; exit status 0 when every check held,
 * 1 for usage, 2 when something differs.
 */
#ifndef TRACE_PROGRAM_H
#define TRACE_PROGRAM_H

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etl.h"
#include "etl_trace.h"
#include "etl_tracelogging.h"

enum { TP_MANIFEST, TP_TRANSFER, TP_TL, TP_CLASSIC, TP_INSTANCE, TP_MESSAGE, TP_KINDS };
#define TP_MAX_THREADS 8

static const struct etl_guid TP_CLASS =
	{ 0x6c1f7e2a, 0x41d3, 0x4b8e, { 0x9a, 0x51, 0x0d, 0x3e, 0x77, 0x12, 0xa4, 0xc9 } };
static const struct etl_guid TP_MSG =
	{ 0x0b5e8f41, 0x2c77, 0x4f09, { 0x8d, 0x16, 0x5a, 0x24, 0xe3, 0x90, 0x6b, 0x01 } };
static const struct etl_guid TP_REL =
	{ 0x11111111, 0x2222, 0x3333, { 0x44, 0x44, 0x55, 0x55, 0x55, 0x55, 0x55, 0x55 } };

static etl_provider tp_prov;
static struct etl_guid tp_guid;
static uint32_t tp_iterations;
static uint32_t tp_threads;
static uint32_t tp_tids[TP_MAX_THREADS];
static _Atomic int tp_fail_count;      /* writes that returned ETL_FAILED */
static unsigned char *tp_seen;         /* [kind][thread][index] */

struct tp_payload {
	uint32_t thread, index, kind, pad;
	uint64_t filler[4];                 /* some bulk for the file modes */
};

static inline struct etl_guid tp_activity(uint32_t t, uint32_t i)
{
	struct etl_guid g = { t + 1, (uint16_t)i, (uint16_t)(i >> 16), { 0xA5, 1, 2, 3, 4, 5, 6, 7 } };
	return g;
}

static inline void tp_write_one(uint32_t t, uint32_t i, uint32_t k)
{
	struct tp_payload pl;
	memset(&pl, 0, sizeof pl);
	pl.thread = t;
	pl.index = i;
	pl.kind = k;
	for (int j = 0; j < 4; j++)
		pl.filler[j] = ((uint64_t)t << 48) ^ ((uint64_t)i << 16) ^ (uint64_t)j;
	struct etl_data d = ETL_DATA(&pl, sizeof pl);
	struct etl_guid a = tp_activity(t, i);
	struct etl_event_descriptor ed = { 1, 1, 0, 4, 3, 9, 0x10 };
	int rc = ETL_OK;
	switch (k) {
	case TP_MANIFEST:
		etl_activity_set(&a, NULL);
		rc = etl_write(&tp_prov, &ed, 1, &d);
		etl_activity_set(NULL, NULL);
		break;
	case TP_TRANSFER:
		ed.id = 2;
		rc = etl_write_transfer(&tp_prov, &ed, &a, &TP_REL, 1, &d);
		break;
	case TP_TL:
		ETL_TL_WRITE(&tp_prov, "ModeEvent", ETL_TL_LEVEL(4), ETL_TL_KEYWORD(0x10),
		             ETL_TL_ACTIVITY(&a), ETL_TL_U32("thread", t), ETL_TL_U32("index", i),
		             ETL_TL_U64_ARRAY("filler", pl.filler, 4));
		break;
	case TP_CLASSIC:
		rc = etl_write_classic(&tp_prov, &TP_CLASS, 10, 4, 2, 1, &d);
		break;
	case TP_INSTANCE:
		rc = etl_write_instance(&tp_prov, &TP_CLASS, 11, 4, 2, i, t, &TP_REL, 1, &d);
		break;
	default:
		rc = etl_write_message(&tp_prov, 4, 0x10, &TP_MSG, 7, 1, &d);
		break;
	}
	if (rc != ETL_OK)
		tp_fail_count++;
}

#include <sys/syscall.h>
#include <unistd.h>

static inline void *tp_thread(void *arg)
{
	uint32_t t = (uint32_t)(size_t)arg;
	tp_tids[t] = (uint32_t)syscall(SYS_gettid);
	for (uint32_t i = 0; i < tp_iterations; i++)
		for (uint32_t k = 0; k < TP_KINDS; k++)
			tp_write_one(t, i, k);
	return NULL;
}

/* Registers the provider ("LibEtl.TraceModes") and enables it on s with
 * every enable property. */
static inline int tp_setup(etl_session *s)
{
	if (etl_provider_register_name(&tp_prov, "LibEtl.TraceModes", NULL, NULL) != ETL_OK)
		return -1;
	tp_guid = etl_provider_guid(&tp_prov);
	struct etl_enable_params ep;
	etl_enable_params_init(&ep);
	ep.properties = ETL_ENABLE_SID | ETL_ENABLE_TS_ID | ETL_ENABLE_EVENT_KEY |
	                ETL_ENABLE_PROCESS_START_KEY;
	return etl_session_enable(s, &tp_guid, &ep) == ETL_OK ? 0 : -1;
}

/* Runs `threads` writers of `iterations` x every kind; returns the number
 * of events attempted. */
static inline uint64_t tp_run(uint32_t threads, uint32_t iterations)
{
	pthread_t th[TP_MAX_THREADS];
	tp_threads = threads;
	tp_iterations = iterations;
	tp_seen = calloc((size_t)TP_KINDS * threads * iterations, 1);
	if (!tp_seen)
		exit(2);
	for (size_t t = 0; t < threads; t++)
		if (pthread_create(&th[t], NULL, tp_thread, (void *)t) != 0)
			exit(2);
	for (size_t t = 0; t < threads; t++)
		pthread_join(th[t], NULL);
	return (uint64_t)TP_KINDS * threads * iterations;
}

static inline int tp_guid_eq(const struct etl_guid *a, const struct etl_guid *b)
{
	return memcmp(a, b, sizeof *a) == 0;
}

static inline int tp_bad(const char *what, uint32_t t, uint32_t i, uint32_t k)
{
	fprintf(stderr, "mismatch: %s (thread %u, index %u, kind %u)\n", what, t, i, k);
	return -1;
}

/* Compares one event read back with what its writer wrote and marks it
 * seen. Returns 0, 1 for an EventTrace header record (skipped), -1 on a
 * mismatch or a duplicate. */
static inline int tp_check(const struct etl_event *ev, etl_decoder *dec)
{
	uint32_t t, i, k;
	const uint64_t *filler = NULL;
	uint64_t fl[4];
	if (ev->kind == ETL_HDR_SYSTEM64 || ev->kind == ETL_HDR_SYSTEM32)
		return 1;
	if (ev->kind == ETL_HDR_EVENT_HEADER64 && ev->channel == 11) {
		const struct etl_decoded *d;
		if (etl_decoder_decode(dec, ev, &d) != ETL_OK)
			return tp_bad(d->error ? d->error : "decode", 0, 0, TP_TL);
		if (d->n_props != 3 + 4 || strcmp(d->event_name, "ModeEvent") ||
		    !d->provider_name || strcmp(d->provider_name, "LibEtl.TraceModes"))
			return tp_bad("TraceLogging schema", 0, 0, TP_TL);
		t = (uint32_t)d->props[0].v.u;
		i = (uint32_t)d->props[1].v.u;
		k = TP_TL;
		if (d->props[2].n_children != 4)
			return tp_bad("TraceLogging array", t, i, k);
		for (int j = 0; j < 4; j++)
			fl[j] = d->props[d->props[2].first_child + (uint32_t)j].v.u;
		filler = fl;
		if (!tp_guid_eq(&ev->provider, &tp_guid))
			return tp_bad("TraceLogging provider", t, i, k);
	} else {
		struct tp_payload pl;
		if (ev->payload_size != sizeof pl)
			return tp_bad("payload size", 0, 0, 0);
		memcpy(&pl, ev->payload, sizeof pl);
		t = pl.thread;
		i = pl.index;
		k = pl.kind;
		memcpy(fl, pl.filler, sizeof fl);
		filler = fl;
	}
	if (t >= tp_threads || i >= tp_iterations || k >= TP_KINDS)
		return tp_bad("ids out of range", t, i, k);
	for (int j = 0; j < 4; j++)
		if (filler[j] != (((uint64_t)t << 48) ^ ((uint64_t)i << 16) ^ (uint64_t)j))
			return tp_bad("payload bytes", t, i, k);
	if (ev->pid != (uint32_t)getpid() || ev->tid != tp_tids[t])
		return tp_bad("pid/tid", t, i, k);
	struct etl_guid a = tp_activity(t, i);
	switch (k) {
	case TP_MANIFEST:
	case TP_TRANSFER:
	case TP_TL:
		if (ev->kind != ETL_HDR_EVENT_HEADER64 || !tp_guid_eq(&ev->provider, &tp_guid) ||
		    !tp_guid_eq(&ev->activity_id, &a) || ev->level != 4 || ev->keyword != 0x10)
			return tp_bad("event header", t, i, k);
		if (k != TP_TL && (ev->id != (k == TP_MANIFEST ? 1 : 2) || ev->version != 1 ||
		                   ev->opcode != 3 || ev->task != 9))
			return tp_bad("descriptor", t, i, k);
		/* SID, TS id, event key, process start key (+ related, + TL). */
		if (ev->ext_count != 4u + (k == TP_TRANSFER) + 2u * (k == TP_TL))
			return tp_bad("extended items", t, i, k);
		break;
	case TP_CLASSIC:
	case TP_INSTANCE:
		if (ev->kind != (k == TP_CLASSIC ? ETL_HDR_FULL_HEADER64 : ETL_HDR_INSTANCE64) ||
		    !tp_guid_eq(&ev->provider, &TP_CLASS) || ev->level != 4 ||
		    ev->opcode != (k == TP_CLASSIC ? 10 : 11) || ev->version_word != 2)
			return tp_bad("classic header", t, i, k);
		if (k == TP_INSTANCE && (ev->instance_id != i || ev->parent_instance_id != t ||
		                         !tp_guid_eq(&ev->parent_guid, &TP_REL)))
			return tp_bad("instance ids", t, i, k);
		break;
	default:
		if (ev->kind != ETL_HDR_MESSAGE || ev->id != 7 || !tp_guid_eq(&ev->provider, &TP_MSG) ||
		    !(ev->present & ETL_EVF_SEQUENCE))
			return tp_bad("message header", t, i, k);
		break;
	}
	unsigned char *s = &tp_seen[((size_t)k * tp_threads + t) * tp_iterations + i];
	if (*s)
		return tp_bad("duplicate", t, i, k);
	*s = 1;
	return 0;
}

/* Reads path and checks every event; returns the number of events (not
 * counting header records) or -1. *compressed gets the compressed-buffer
 * count when not NULL. */
static inline long tp_verify_file(const char *path, uint64_t *compressed)
{
	etl_reader *r = etl_reader_new();
	etl_decoder *d = etl_decoder_new();
	const struct etl_event *ev;
	long n = 0;
	int st;
	if (!r || !d || etl_reader_open_file(r, path) != ETL_OK) {
		fprintf(stderr, "cannot open %s\n", path);
		n = -1;
	}
	while (n >= 0 && (st = etl_reader_next(r, &ev)) != ETL_END) {
		if (st != ETL_OK) {
			fprintf(stderr, "%s: %s\n", path, etl_reader_errmsg(r));
			n = -1;
			break;
		}
		int c = tp_check(ev, d);
		if (c < 0)
			n = -1;
		else if (c == 0)
			n++;
	}
	if (compressed && r) {
		struct etl_reader_stats rs;
		etl_reader_stats(r, &rs);
		*compressed = rs.compressed_buffers;
	}
	etl_decoder_free(d);
	etl_reader_free(r);
	return n;
}

/* full: every event of every thread and kind was seen. Otherwise (a
 * circular file keeping the newest buffers): the very last event written
 * (the final message of a thread that finished last) must be there - a
 * thread that finished earlier may have had its last buffers wrapped
 * over by later ones. */
static inline int tp_check_suffix(int full)
{
	if (!full) {
		for (uint32_t t = 0; t < tp_threads; t++)
			if (tp_seen[((size_t)(TP_KINDS - 1) * tp_threads + t) * tp_iterations +
			            tp_iterations - 1])
				return 0;
		return tp_bad("no thread's newest event kept", 0, tp_iterations - 1, TP_KINDS - 1);
	}
	for (uint32_t k = 0; k < TP_KINDS; k++)
		for (uint32_t t = 0; t < tp_threads; t++) {
			const unsigned char *s = &tp_seen[((size_t)k * tp_threads + t) * tp_iterations];
			for (uint32_t i = 0; i < tp_iterations; i++)
				if (!s[i])
					return tp_bad("event missing", t, i, k);
		}
	return 0;
}

/* Starts session s under name with sp, registers and enables the
 * provider; exits 2 on failure. */
static inline etl_session *tp_start(const char *name, const struct etl_session_props *sp)
{
	etl_session *s = etl_session_new();
	if (!s || etl_session_start(s, name, sp) != ETL_OK) {
		fprintf(stderr, "%s: cannot start: %s\n", name, s ? etl_session_errmsg(s) : "no memory");
		exit(2);
	}
	if (tp_setup(s) != 0) {
		fprintf(stderr, "%s: cannot enable the provider\n", name);
		exit(2);
	}
	return s;
}

/* Stops s, checks its statistics against `attempted` (lost must be 0:
 * every program runs in blocking mode), frees it. Returns files_written. */
static inline uint64_t tp_stop(etl_session *s, const char *name, uint64_t attempted)
{
	struct etl_session_stats st;
	if (etl_session_stop(s) != ETL_OK) {
		fprintf(stderr, "%s: stop failed: %s\n", name, etl_session_errmsg(s));
		exit(2);
	}
	etl_session_stats(s, &st);
	if (st.events_written != attempted || st.events_lost || tp_fail_count) {
		fprintf(stderr, "%s: %llu written, %llu lost, %d writes failed, %llu attempted\n", name,
		        (unsigned long long)st.events_written, (unsigned long long)st.events_lost,
		        (int)tp_fail_count, (unsigned long long)attempted);
		exit(2);
	}
	printf("buffers %llu\nfiles %llu\n", (unsigned long long)st.buffers_written,
	       (unsigned long long)st.files_written);
	etl_session_free(s);
	etl_provider_unregister(&tp_prov);
	return st.files_written;
}

static inline void tp_reset_seen(void)
{
	memset(tp_seen, 0, (size_t)TP_KINDS * tp_threads * tp_iterations);
}

#endif /* TRACE_PROGRAM_H */
