/*
 * etl_trace.h - the tracing runtime: sessions, providers and event writes
 * that produce .etl files from a running program, as ETW's user-mode
 * logger does.
 *
 * Basic outline:
 *
 *     // controller side
 *     struct etl_session_props sp;
 *     etl_session_props_init(&sp);                 // 64 KiB buffers, ...
 *     sp.file_name = "out.etl";
 *     etl_session *s = etl_session_new();
 *     if (etl_session_start(s, "MySession", &sp) != ETL_OK) { report; }
 *
 *     // provider side
 *     static etl_provider prov;                    // zero-initialised
 *     etl_provider_register(&prov, &my_guid, NULL, NULL);
 *
 *     struct etl_enable_params ep;
 *     etl_enable_params_init(&ep);                 // level 5, all keywords
 *     etl_session_enable(s, &my_guid, &ep);
 *
 *     static const struct etl_event_descriptor ev = { .id = 1, .level = 4 };
 *     uint32_t n = 42;
 *     ETL_WRITE(&prov, &ev, ETL_DATA(&n, sizeof n));  // args evaluated
 *                                                     // only when enabled
 *     etl_session_stop(s);                         // flush, finalise file
 *     etl_session_free(s);
 *     etl_provider_unregister(&prov);
 *
 * Model. A session (logger) owns a pool of buffers of buffer_size bytes:
 * min_buffers are allocated at start, more on demand up to max_buffers,
 * never beyond. Each processor has a current buffer per session; a write
 * reserves space in it with one atomic operation, copies the record, and
 * commits. A logger thread per session writes full buffers to the file,
 * flushes partly filled ones every flush_timer_ms, and returns buffers to
 * the pool. When no buffer is free the event is lost and counted, or, in
 * blocking mode, the writer waits until the logger frees one.
 *
 * Routing (as ETW does): an event goes to every session whose filters it
 * passes. Space is reserved in all of them before anything is copied; if
 * a session cannot reserve, the event is dropped from every session
 * (counted as lost in each non-independent session it was meant for, so
 * that written + lost = attempted holds per session) - unless that session
 * runs in independent mode, in which case only that session loses it.
 *
 * Clocks: ETL_CLOCK_QPC is the TSC where it is invariant and the kernel
 * keeps time with it (x86-64 with constant_tsc, nonstop_tsc and clocksource
 * tsc; perf_freq its rate against CLOCK_MONOTONIC, refined at each flush),
 * else CLOCK_MONOTONIC in 100 ns units (perf_freq 10 MHz; also when the
 * environment has ETL_QPC_NO_TSC); ETL_CLOCK_SYSTEMTIME a FILETIME from
 * CLOCK_REALTIME;
 * ETL_CLOCK_CPUCYCLE the TSC on x86-64 (cpu speed measured at the first
 * such session, 20 ms), nanoseconds declared as 1000 MHz elsewhere.
 *
 * The caller's clock (etl_session_props.clock): a program that drives
 * time itself - a test that must not sleep, a replay of a captured trace
 * that follows the trace's own timestamps however fast it runs - hands
 * the session a time source. Then every time the session takes comes from
 * it: each event's timestamp, the buffers' timestamps, the file's
 * StartTime and EndTime, and the flush timer, which no longer follows the
 * wall clock: it is evaluated when the caller says time has moved
 * (etl_session_clock_advanced()), and a flush that fell due happens
 * before that call returns, so what a timer flush holds depends on the
 * calls made, never on how fast they were made. In the file the clock
 * reads as the clock type asks: SYSTEMTIME the source's FILETIMEs, QPC a
 * 10 MHz counter from 0 at session start (BootTime = StartTime), CPUCYCLE
 * 1000 MHz cycles from 0 at session start; nothing is measured.
 * On such a clock many events share a time, and a reader puts events of
 * one time from different processors' buffers in processor order. So a
 * live write there goes into the buffer of the writing thread's own
 * processor number (etl_thread_processor_set(), 0 unless set), not the
 * one the scheduler ran it on: what a thread writes at one time reads
 * back in the order it wrote it, at every run.
 *
 * fork(): sessions are per process. A child inherits the parent's sessions
 * orphaned (no logger thread runs there): they receive no events, and
 * etl_session_free() only releases their memory. Start new sessions in the
 * child; providers stay registered.
 *
 * Limits, as on Windows: 64 sessions at a time in the process; a provider
 * is enabled for at most 8 sessions.
 *
 * Thread safety: every function may be called from any thread. Enabling,
 * disabling and updating a provider on a session is safe while other
 * threads write its events: each event is then either wholly written to a
 * session or not at all.
 *
 * Errors: functions return ETL_OK, ETL_FAILED or ETL_FATAL (etl_errors.h);
 * session functions leave the reason in etl_session_errcode() and a
 * sentence in etl_session_errmsg(). Writes return ETL_OK when the event
 * reached every session it was meant for (or none wanted it), ETL_FAILED
 * when it was lost in at least one (the loss is counted).
 */
#ifndef ETL_TRACE_H
#define ETL_TRACE_H

#include "etl_export.h"

#include <stddef.h>
#include <stdint.h>
#include "etl_errors.h"
#include "etl_event.h"

struct etl_logfile;              /* etl_reader.h */

#ifdef __cplusplus
extern "C" {
#endif

/* ---- sessions (controller side) -------------------------------------- */

typedef struct etl_session etl_session;

/* File modes (etl_session_props.file_mode); one of: */
#define ETL_FILE_SEQUENTIAL 1  /* one file, grows without limit (or stops
                                  accepting events at max_file_size_mb)   */
#define ETL_FILE_CIRCULAR   2  /* one file of at most max_file_size_mb;
                                  wraps, keeping the newest buffers        */
#define ETL_FILE_NEWFILE    3  /* a new file each max_file_size_mb; names
                                  from file_name, a pattern with one %d
                                  numbered 1, 2, ...                      */
#define ETL_FILE_BUFFERING  4  /* no file while running: a ring of
                                  max_buffers in memory, written to
                                  file_name by etl_session_flush() and
                                  etl_session_stop() (newest data kept)    */
#define ETL_FILE_REALTIME   5  /* no file: each event is handed to
                                  realtime_cb on the logger thread         */

/* Called on the session's logger thread for each event of a real-time
 * session, in the order of its buffers. ev and everything it points to
 * are valid only during the call. It must not call the controller
 * functions (etl_session_*, etl_provider_register/unregister: they may be
 * waiting for this logger) nor write to its own session in blocking mode. */
typedef void (*etl_realtime_fn)(void *ctx, const struct etl_event *ev);

/* A time source (etl_session_props.clock): the time now as a FILETIME,
 * 100 ns units since 1601-01-01 UTC. It is called from every thread that
 * writes to the session and from the session's logger thread, so it must
 * be thread-safe, and its answers must never decrease. */
typedef int64_t (*etl_clock_fn)(void *ctx);

struct etl_session_props {
	uint32_t struct_size;        /* sizeof(struct etl_session_props)      */
	uint32_t buffer_size;        /* bytes, 4 KiB..1 MiB, multiple of 4096;
	                                default 64 KiB                          */
	uint32_t min_buffers;        /* allocated at start; default 2 per
	                                processor                               */
	uint32_t max_buffers;        /* never more; default min_buffers + 20   */
	uint32_t flush_timer_ms;     /* flush partly filled buffers this often;
	                                0: only full ones (default 1000)        */
	uint32_t clock_type;         /* ETL_CLOCK_QPC (default), _SYSTEMTIME,
	                                _CPUCYCLE (etl_reader.h)                */
	uint32_t file_mode;          /* ETL_FILE_*; default SEQUENTIAL         */
	const char *file_name;       /* output path (NEWFILE: pattern)         */
	uint32_t max_file_size_mb;   /* CIRCULAR, NEWFILE (and SEQUENTIAL when
	                                non-zero): size limit in MiB            */
	int compressed;              /* 1: compressed buffers (user-mode
	                                compression, as Windows 8+ writes);
	                                SEQUENTIAL and BUFFERING only           */
	int blocking;                /* 1: writers wait for a free buffer
	                                instead of losing the event             */
	int independent;             /* 1: independent-session mode (see the
	                                routing rule above)                     */
	etl_realtime_fn realtime_cb; /* REALTIME: receives each event          */
	void *realtime_ctx;
	/* Members below were added later: a caller built with an older
	 * etl_trace.h passes a smaller struct_size, and they read as 0. */
	etl_clock_fn clock;          /* NULL: the system clocks (above); else
	                                the session's only time source, see
	                                "The caller's clock" above            */
	void *clock_ctx;             /* passed to clock                        */
	const struct etl_logfile *replay_of; /* NULL: a live session; else the
	                                logfile header of the captured trace
	                                this session replays, see "Replaying
	                                captured events" below (needs clock) */
	const char *log_file_name;   /* the name the file's header records
	                                (LogFileName; NEWFILE: a pattern like
	                                file_name); NULL: file_name. For a
	                                program that writes to a temporary
	                                and renames it when done              */
};

/*! etl_session_props_init() : fills p with the defaults named above. */
ETL_API void etl_session_props_init(struct etl_session_props *p);

/*! etl_session_new() : @return : an idle session handle, or NULL on
 *  out-of-memory. Free it with etl_session_free(). */
ETL_API etl_session *etl_session_new(void);

/*! etl_session_start() : starts logging under name (UTF-8, the logger name
 *  in the file) with the properties p (copied; file_name is copied too).
 *  Creates the file (written in place, so that a process that dies after a
 *  flush leaves a readable file), allocates min_buffers and starts the
 *  logger thread.
 *  @return : ETL_OK; ETL_FAILED for bad properties (ETL_E_BAD_VALUE), a
 *  name already used by a running session or the 64-session limit
 *  (ETL_E_LIMIT), a session already started (ETL_E_MISUSE); ETL_FATAL when
 *  the file or thread cannot be created (ETL_E_IO, ETL_E_NOMEM). */
ETL_API int etl_session_start(etl_session *s, const char *name, const struct etl_session_props *p);

/* Enable properties (etl_enable_params.properties): extended data items
 * added to EVENT_HEADER events written to this session, and filters. */
#define ETL_ENABLE_SID               0x001u /* SID item (0x02) of the process user */
#define ETL_ENABLE_TS_ID             0x002u /* terminal-session id item (0x03)      */
#define ETL_ENABLE_STACK_TRACE       0x004u /* stack item (0x06 / 0x05), where the
                                              platform can walk the stack          */
#define ETL_ENABLE_IGNORE_KEYWORD_0  0x010u /* events with keyword 0 are not
                                              written to this session             */
#define ETL_ENABLE_PROCESS_START_KEY 0x080u /* process start key item (0x0D)       */
#define ETL_ENABLE_EVENT_KEY         0x100u /* event key item (0x0A)               */

struct etl_enable_params {
	uint32_t struct_size;        /* sizeof(struct etl_enable_params)      */
	uint8_t  level;              /* events of level <= this (and level 0)
	                                pass; 0 means every level (255)         */
	uint64_t match_any;          /* an event with keyword k != 0 passes when
	                                (k & match_any) != 0 (0 means all ones) */
	uint64_t match_all;          /* ... and (k & match_all) == match_all   */
	uint32_t properties;         /* ETL_ENABLE_*                           */
};

/*! etl_enable_params_init() : level 255 (every level), every keyword, no
 *  properties. */
ETL_API void etl_enable_params_init(struct etl_enable_params *e);

/*! etl_session_enable() : enables the provider with GUID provider on s, or
 *  updates its parameters if already enabled. The provider need not be
 *  registered yet: it picks the state up when it registers. Takes effect
 *  for writes that start after the call returns; the provider's enable
 *  callback runs before it returns.
 *  @return : ETL_OK; ETL_FAILED when s is not running (ETL_E_MISUSE) or the
 *  provider is already enabled on 8 sessions (ETL_E_LIMIT). */
ETL_API int etl_session_enable(etl_session *s, const struct etl_guid *provider,
                       const struct etl_enable_params *e);

/*! etl_session_disable() : stops sending provider's events to s. Writes in
 *  progress finish whole. @return : ETL_OK, or ETL_FAILED when it was not
 *  enabled there (ETL_E_NOT_FOUND). */
ETL_API int etl_session_disable(etl_session *s, const struct etl_guid *provider);

/*! etl_session_flush() : writes every buffer holding events to the output
 *  now (BUFFERING: writes the ring to file_name) and waits until done.
 *  @return : ETL_OK, ETL_FAILED (not running), ETL_FATAL (I/O error). */
ETL_API int etl_session_flush(etl_session *s);

struct etl_session_stats {
	uint64_t events_written;     /* events in buffers that reached the
	                                output (file, ring, consumer)           */
	uint64_t events_lost;        /* events meant for s but not written     */
	uint64_t buffers_written;    /* buffers sent to the file / consumer    */
	uint64_t buffers_lost;       /* buffers that could not be written      */
	uint32_t buffers_allocated;  /* buffers in the pool now                */
	uint32_t buffers_free;
	uint64_t files_written;      /* NEWFILE: files begun                   */
};

/*! etl_session_stats() : copies the running figures into *st (exact once
 *  the session is stopped; while running, a snapshot). @return : ETL_OK. */
ETL_API int etl_session_stats(const etl_session *s, struct etl_session_stats *st);

/* Where a session's threads spend their time: counters the runtime keeps
 * at every buffer hand-off, never per event, so that a slow session can be
 * told apart - writers waiting for a free buffer or for the pool's lock,
 * the logger thread busy, or the output (file writes) slow. Times are in
 * nanoseconds of CLOCK_MONOTONIC (a thread preempted meanwhile counts),
 * except logger_cpu_ns, the logger thread's own CPU time. */
struct etl_session_timing {
	uint32_t struct_size;        /* set by the caller: sizeof(struct
	                                etl_session_timing) it was built with */
	uint32_t reserved;
	uint64_t buffer_waits;       /* a writer in blocking mode found no free
	                                buffer and waited for the logger        */
	uint64_t buffer_wait_ns;     /* those waits, summed over the writers   */
	uint64_t lock_waits;         /* a writer taking or handing over a
	                                buffer found the pool's lock held       */
	uint64_t lock_wait_ns;       /* those waits, summed                    */
	uint64_t logger_rounds;      /* times the logger thread woke and worked */
	uint64_t logger_busy_ns;     /* from each wake-up until it waited again */
	uint64_t logger_cpu_ns;      /* the logger thread's CPU time           */
	uint64_t commit_waits;       /* buffers the logger had to wait for, a
	                                writer not yet done with its record     */
	uint64_t output_calls;       /* hand-offs to the output: a batch of up
	                                to 16 full buffers (for a sequential
	                                file one system call; REALTIME: decoded
	                                for the consumer), a header rewrite at a
	                                flush, BUFFERING's ring written at a
	                                flush or stop, the close at stop        */
	uint64_t output_ns;          /* time in them                           */
	uint64_t output_bytes;       /* buffer bytes they wrote or decoded     */
};

/*! etl_session_timing() : copies s's timing counters into *t, which the
 *  caller owns; t->struct_size must be set first, and only that many bytes
 *  are filled (a caller built with an older, smaller struct gets what it
 *  knows). The counters run from etl_session_start() and stay readable
 *  after stop until the next start. @return : ETL_OK, or ETL_FAILED when
 *  t->struct_size is below 8 (nothing copied). */
ETL_API int etl_session_timing(const etl_session *s, struct etl_session_timing *t);

/*! etl_session_clock_advanced() : for a session whose clock is the
 *  caller's (etl_session_props.clock): reads the clock and, when the flush
 *  timer has fallen due (flush_timer_ms after the last timer flush, or
 *  after start), flushes partly filled buffers as the timer does and
 *  waits until they are written: events written before the call are in
 *  the file when it returns. When nothing is due it only reads the clock
 *  (no lock, no system call), so it may be called after every event.
 *  Several periods passed at once give one flush; the next is due a
 *  period after it. @return : ETL_OK; ETL_FAILED when s is not running or
 *  has no clock of the caller's (ETL_E_MISUSE); ETL_FATAL when the output
 *  failed. */
ETL_API int etl_session_clock_advanced(etl_session *s);

/*! etl_session_capture_state() : asks the registrations of provider for
 *  their state, as EnableTraceEx2 with EVENT_CONTROL_CODE_CAPTURE_STATE
 *  does: each one's enable callback runs with is_enabled
 *  ETL_CONTROL_CAPTURE_STATE and the level and keywords s enables it with,
 *  on the caller's thread, before the call returns. What the provider
 *  writes from the callback (a rundown of its state) reaches s as any
 *  event does. The enable state does not change. @return : ETL_OK;
 *  ETL_FAILED when s is not running (ETL_E_MISUSE) or does not enable
 *  provider (ETL_E_NOT_FOUND). */
ETL_API int etl_session_capture_state(etl_session *s, const struct etl_guid *provider);

/*! etl_session_stop() : disables every provider on s, waits for writes in
 *  progress, flushes every buffer, finalises the file header (buffers
 *  written, events lost, end time) and stops the logger thread. The
 *  statistics stay readable. @return : ETL_OK; ETL_FAILED when not running;
 *  ETL_FATAL when the output failed (the file holds what was written). */
ETL_API int etl_session_stop(etl_session *s);

/*! etl_session_free() : stops s if running, then frees it. NULL allowed. */
ETL_API void etl_session_free(etl_session *s);

/*! etl_session_errcode(), etl_session_errmsg() : reason and sentence of the
 *  last failure; owned by the session. */
ETL_API int etl_session_errcode(const etl_session *s);
ETL_API const char *etl_session_errmsg(const etl_session *s);

/* ---- providers --------------------------------------------------------- */

/* The values of an enable callback's is_enabled, as Windows' EnableCallback
 * gets them (EVENT_CONTROL_CODE_*). */
#define ETL_CONTROL_DISABLE        0
#define ETL_CONTROL_ENABLE         1
#define ETL_CONTROL_CAPTURE_STATE  2

/* Called when a session enables (is_enabled ETL_CONTROL_ENABLE, with the
 * aggregate level and keywords over all sessions) or disables the
 * provider, on the controller's thread, before etl_session_enable/disable
 * returns. After a disable is_enabled is ETL_CONTROL_DISABLE only when no
 * session enables the provider any more; otherwise ETL_CONTROL_ENABLE with
 * the new aggregate. A session that stops disables its providers
 * (callbacks run from etl_session_stop). ETL_CONTROL_CAPTURE_STATE (from
 * etl_session_capture_state(), with that session's level and keywords)
 * asks the provider to write events describing its current state; the
 * enable state is unchanged. A callback written for 0 and 1 only must
 * test for ETL_CONTROL_CAPTURE_STATE before reading is_enabled as a
 * truth value. */
typedef void (*etl_enable_fn)(void *ctx, int is_enabled, uint8_t level,
                              uint64_t match_any, uint64_t match_all);

/* A provider registration. Declare it static or zero it before register;
 * the caller owns the memory, which must stay valid until unregister
 * returns. state, any and all are the aggregate over every session the
 * provider is enabled on, read by etl_event_enabled(); the rest is
 * private.
 *
 * Atomicity. The library changes the three fields while other threads
 * read them, so they are only ever accessed with the __atomic builtins of
 * GCC and Clang (__atomic_load_n / __atomic_store_n), never as _Atomic
 * objects: _Atomic is C-only, and this header must compile as C and C++
 * with one layout. A relaxed __atomic_load_n is the plain load that
 * atomic_load_explicit(..., memory_order_relaxed) was, so the disabled
 * fast path still costs one load and a branch. The 64-bit fields are
 * 8-byte aligned so that their loads are single, untorn accesses on
 * 32-bit targets too. Programs read them through etl_event_enabled() and
 * etl_provider_enabled() only. */
#ifdef __cplusplus
#define ETL__ALIGN8 alignas(8)
#else
#define ETL__ALIGN8 _Alignas(8)
#endif
typedef struct etl_provider {
	uint32_t state;              /* 0: enabled nowhere; else
	                                0x100 | highest level                   */
	ETL__ALIGN8 uint64_t any;    /* OR of the sessions' match_any          */
	ETL__ALIGN8 uint64_t all;    /* AND of the sessions' match_all         */
	struct etl__provider_impl *impl;
} etl_provider;

/*! etl_provider_register() : registers p under guid (copied). Sessions
 *  that already enable guid take effect at once (the callback runs before
 *  this returns). @return : ETL_OK; ETL_FAILED when p is registered already
 *  (ETL_E_MISUSE); ETL_FATAL on out-of-memory. */
ETL_API int etl_provider_register(etl_provider *p, const struct etl_guid *guid,
                          etl_enable_fn cb, void *cb_ctx);

/*! etl_provider_register_name() : registers p under the GUID that
 *  EventSource derives from name (etl_provider_guid_from_name(), so
 *  etldump --provider NAME finds its events), and records name as the
 *  provider name used in TraceLogging traits. Same returns. */
ETL_API int etl_provider_register_name(etl_provider *p, const char *name,
                               etl_enable_fn cb, void *cb_ctx);

/*! etl_provider_unregister() : unregisters p; writes in progress on other
 *  threads finish first. Its memory may be reused afterwards. */
ETL_API void etl_provider_unregister(etl_provider *p);

/*! etl_provider_guid() : the GUID p was registered with (zero if none). */
ETL_API struct etl_guid etl_provider_guid(const etl_provider *p);

/*! etl_event_enabled() : whether an event of level and keyword would be
 *  written to at least one session, by the aggregate state: one load and a
 *  branch when the provider is disabled. May say yes for an event that the
 *  exact per-session filters reject later, never no for one they accept. */
static inline int etl_event_enabled(const etl_provider *p, uint8_t level, uint64_t keyword)
{
	uint32_t st = __atomic_load_n(&p->state, __ATOMIC_RELAXED);
	if (st == 0)
		return 0;
	if (level != 0 && level > (uint8_t)st)
		return 0;
	if (keyword == 0)
		return 1;
	uint64_t any = __atomic_load_n(&p->any, __ATOMIC_RELAXED);
	uint64_t all = __atomic_load_n(&p->all, __ATOMIC_RELAXED);
	return (keyword & any) != 0 && (keyword & all) == all;
}

/*! etl_provider_enabled() : whether p is enabled on any session. */
static inline int etl_provider_enabled(const etl_provider *p)
{
	return __atomic_load_n(&p->state, __ATOMIC_RELAXED) != 0;
}

/* ---- writing ----------------------------------------------------------- */

/* EVENT_DESCRIPTOR: identity and filtering fields of a manifest event. */
struct etl_event_descriptor {
	uint16_t id;
	uint8_t  version;
	uint8_t  channel;
	uint8_t  level;
	uint8_t  opcode;
	uint16_t task;
	uint64_t keyword;
};

/* EVENT_DATA_DESCRIPTOR: one piece of payload, copied as is. */
struct etl_data {
	const void *ptr;
	uint32_t size;
	uint32_t reserved;           /* 0 */
};

/* ETL_DATA(ptr, size): a data descriptor in an argument list. */
#define ETL_DATA(p_, n_) ((struct etl_data){ (const void *)(p_), (uint32_t)(n_), 0 })

/*! etl_write() : writes a manifest-style event (EVENT_HEADER) whose
 *  payload is the concatenation of the n data pieces, with the calling
 *  thread's current activity id (etl_activity_get()).
 *  @return : ETL_OK, or ETL_FAILED when it was lost in a session (too large
 *  for a buffer, no free buffer) - counted in that session's events_lost. */
ETL_API int etl_write(etl_provider *p, const struct etl_event_descriptor *d,
              uint32_t n, const struct etl_data *data);

/*! etl_write_transfer() : etl_write() with an explicit activity id
 *  (NULL: the thread's current one) and related activity id (NULL: none;
 *  else a RELATED_ACTIVITYID item, 0x01), as EventWriteTransfer. */
ETL_API int etl_write_transfer(etl_provider *p, const struct etl_event_descriptor *d,
                       const struct etl_guid *activity, const struct etl_guid *related,
                       uint32_t n, const struct etl_data *data);

/* ETL_WRITE(p, d, ETL_DATA(...), ...): etl_write() evaluated only when
 * etl_event_enabled(p, d->level, d->keyword); the arguments after d are
 * not evaluated otherwise. At least one data argument; use
 * etl_write(p, d, 0, NULL) for an event without payload. */
#define ETL_WRITE(p_, d_, ...)                                                  \
	do {                                                                    \
		if (etl_event_enabled((p_), (d_)->level, (d_)->keyword)) {      \
			const struct etl_data etl__d_[] = { __VA_ARGS__ };      \
			etl_write((p_), (d_),                                   \
			          (uint32_t)(sizeof etl__d_ / sizeof etl__d_[0]), \
			          etl__d_);                                      \
		}                                                               \
	} while (0)

/*! etl_write_tracelogging() : writes a self-describing event: meta is the
 *  event's TraceLogging metadata blob without its 2-byte size prefix (tag
 *  and name and fields, as the ETL_TL_* macros of etl_tracelogging.h build
 *  at compile time), written as extended item 0x0B; the provider traits
 *  (name) go in item 0x0C. d gives level, opcode, keyword, channel (11 by
 *  default when 0, as TraceLogging does). Same returns as etl_write(). */
ETL_API int etl_write_tracelogging(etl_provider *p, const struct etl_event_descriptor *d,
                           const void *meta, uint16_t meta_size,
                           const struct etl_guid *activity, const struct etl_guid *related,
                           uint32_t n, const struct etl_data *data);

/*! etl_write_classic() : writes a classic event with an EVENT_TRACE_HEADER
 *  (as TraceEvent with WNODE_FLAG_TRACED_GUID): class GUID, event type
 *  (opcode), level and version, payload the n pieces. Filtered by level and
 *  keyword 0. Same returns. */
ETL_API int etl_write_classic(etl_provider *p, const struct etl_guid *class_guid,
                      uint8_t type, uint8_t level, uint16_t version,
                      uint32_t n, const struct etl_data *data);

/*! etl_write_instance() : a classic event with an EVENT_INSTANCE_GUID_HEADER
 *  (as TraceEventInstance): instance and parent instance ids, and the
 *  parent's class GUID (NULL: none). Same returns. */
ETL_API int etl_write_instance(etl_provider *p, const struct etl_guid *class_guid,
                       uint8_t type, uint8_t level, uint16_t version,
                       uint32_t instance_id, uint32_t parent_instance_id,
                       const struct etl_guid *parent_guid,
                       uint32_t n, const struct etl_data *data);

/*! etl_write_message() : a WPP-style message (MESSAGE header, as
 *  TraceMessage) with the message GUID, message number and the flags
 *  sequence, GUID, timestamp and system information; arguments the n
 *  pieces. Filtered by level (a WPP level) and keyword (its flags). Same
 *  returns. */
ETL_API int etl_write_message(etl_provider *p, uint8_t level, uint64_t keyword,
                      const struct etl_guid *message_guid, uint16_t message_number,
                      uint32_t n, const struct etl_data *data);

/* ---- replaying captured events ---------------------------------------- */

/* Replaying captured events. etl_replay_write() emits an event as
 * etl_reader_next() returned it (struct etl_event, etl_event.h) through
 * the runtime, as if the program that wrote it were running again: the
 * record keeps its original header type (SYSTEM, COMPACT, PERFINFO, FULL,
 * INSTANCE, EVENT_HEADER with every extended item as captured, MESSAGE;
 * the 32- or 64-bit form the event names), descriptor, raw timestamp,
 * process and thread ids, activity ids and payload bytes: it is encoded by
 * the same trace-header encoders as etl_writer_write_event(), so reading
 * it back gives the captured event field by field.
 *
 * Routing is that of live events: the event goes to every running session
 * that enables its provider GUID (ev->provider; kernel events: their
 * group's GUID, as the reader names it) and whose level, keyword and
 * ETL_ENABLE_IGNORE_KEYWORD_0 filters it passes, all or nothing as
 * described above. Enable properties that add extended items (SID, TS_ID,
 * STACK_TRACE, EVENT_KEY, PROCESS_START_KEY) add nothing to a replayed
 * event: it carries the items it was captured with.
 *
 * Processor: the record goes into the buffer of processor ev->processor
 * of each session (taken modulo the session's processor count when it has
 * fewer, as a session started without replay_of, which has the machine's).
 *
 * Time: a session started with replay_of (struct etl_session_props) is in
 * the clock of that trace: its file's header keeps the trace's clock type,
 * frequency and time anchor (StartTime at the header record's timestamp),
 * pointer size, processor count (one buffer stream per processor),
 * Windows version and build, timer resolution, CPU speed, boot time, timer
 * sources and time zone (clock_type is not used); a replayed event keeps
 * its raw timestamp there. Such a session needs the caller's clock
 * (etl_session_props.clock): the replay sets it to each event's time
 * before writing it (and calls etl_session_clock_advanced()), so that the
 * flush timer, the buffers' timestamps, StartTime and EndTime follow the
 * trace's time, deterministically however fast the replay runs; the
 * session's own timestamps (live events written to it meanwhile) are
 * that clock expressed in the trace's. Any other session stamps a
 * replayed event with its UTC time (ev->utc) expressed in the session's
 * own clock (with no ETL_EVF_UTC: the session's time now).
 *
 * replay_of is read by etl_session_start() only. The caller may adjust a
 * copy of the reader's logfile header first (a processor count or buffer
 * size a damaged header gets wrong). */

/*! etl_replay_write() : writes ev, a captured event as etl_reader_next()
 *  or etl_merge_next() returned it, through the runtime as described in
 *  "Replaying captured events" above. ev and what it points to are only
 *  read during the call. Fields that must agree (version and
 *  version_word, hook_id and opcode, user_time and trace_flags) are
 *  checked as etl_writer_write_event() checks them; ev->record, offsets
 *  and provider_name are not read.
 *  @return : ETL_OK when the event reached every session meant to receive
 *  it (or none enables its provider); ETL_FAILED when it was lost in at
 *  least one (no free buffer, or a record that cannot be encoded: header
 *  type the runtime cannot write, fields that disagree, larger than the
 *  session's buffers), counted in that session's events_lost as live
 *  losses are; ETL_FATAL when memory is short. */
ETL_API int etl_replay_write(const struct etl_event *ev);

/* ---- activity ids ------------------------------------------------------ */

/*! etl_activity_get() : the calling thread's current activity id (zero
 *  when none was set). */
ETL_API struct etl_guid etl_activity_get(void);

/*! etl_activity_set() : sets the calling thread's current activity id
 *  (NULL clears it); if prev is not NULL it receives the previous one. */
ETL_API void etl_activity_set(const struct etl_guid *id, struct etl_guid *prev);

/*! etl_activity_new() : a new, process-unique activity id. */
ETL_API struct etl_guid etl_activity_new(void);

/* ---- the processor of a thread on the caller's clock ------------------- */

/*! etl_thread_processor_set() : the processor whose buffers receive the
 *  calling thread's live writes in sessions on the caller's clock
 *  (etl_session_props.clock; see "The caller's clock" above), taken modulo
 *  each session's processor count; 0 until set. Sessions on the system
 *  clocks record the processor the thread runs on, and replayed events
 *  the one they were captured on, whatever is set here. A program that
 *  replays a captured event and writes events of its own about it at the
 *  same time (as the SEM does, etl_sem.h) sets the event's processor
 *  first: its own events then read back beside it, in the order written.
 *  Threads that write at once while the clock moves should have numbers
 *  of their own: a record's place in a buffer is taken before its time is
 *  read, so two threads sharing a buffer stream may leave a later time
 *  ahead of an earlier one there.
 *  If prev is not NULL it receives the previous value. */
ETL_API void etl_thread_processor_set(uint32_t cpu, uint32_t *prev);

/*! etl_thread_processor_get() : the calling thread's processor for
 *  sessions on the caller's clock (etl_thread_processor_set()). */
ETL_API uint32_t etl_thread_processor_get(void);

#ifdef __cplusplus
}
#endif
#endif /* ETL_TRACE_H */
