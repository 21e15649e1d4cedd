/*
 * lib/trace/trace_core.h - internals shared by the delivery core of the tracing
 * runtime. Its files, each calling only those listed after it:
 *   lib/trace/trace_session.c        the controller API: start, enable, flush,
 *                                    stop, free; fork children
 *   lib/trace/trace_logger.c         a session's logger thread
 *   lib/trace/trace_output.c         a session's output in each file mode
 *   lib/trace/trace_provider.c       provider registry, enable state, routing,
 *                                    the writing thread's id
 *   lib/trace/trace_buffers.c        reservations in the per-processor buffers
 *   lib/trace/trace_pool.c           a session's buffer pool
 *   lib/trace/trace_session_props.c  session properties, the error record
 *   lib/trace/trace_clock.c          timestamps and the header's clock figures
 *   lib/trace/trace_sync.c           processors, the process id, forks, the
 *                                    control lock, the session table,
 *                                    read-side sections
 * The write kinds (lib/trace/trace_write.c, lib/trace/trace_encode.c) and
 * the replay of captured events (lib/trace/trace_replay.c) sit above the
 * core and reach it through lib/trace/trace_seam.h.
 *
 * Lifetime. Every write runs inside a read-side section of one global,
 * SRCU-like domain: a per-processor pair of counters, incremented with a
 * sequentially consistent RMW on entry. A controller that takes something
 * away from writers (a session that stops, a provider that unregisters)
 * first makes it unreachable (seq_cst stores), then calls
 * etl__rt_synchronize(), which flips the active counter and waits until the
 * counters of both halves drained: every writer that could still see the
 * old state has left. Writers never block controllers except by finishing.
 */
#ifndef ETL_TRACE_CORE_H
#define ETL_TRACE_CORE_H

#ifndef ETL_BUILDING_LIB
#error "lib/trace/trace_core.h is internal to libetl"
#endif

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include "lib/common/clock.h"
#include "lib/common/errinfo.h"
#include "lib/trace/trace_seam.h"
#include "etl_writer.h"

#define ETL_RT_MAX_SESSIONS 64
#define ETL_RT_SLOTS 8                 /* sessions per provider           */
#define ETL_RT_HDR 0x48u               /* WMI_BUFFER_HEADER               */
/* A reservation given up after a later one was made in the same buffer
 * becomes a hole: this marker (no trace header starts with 0xA5) and its
 * aligned size; the logger squeezes holes out before writing. */
#define ETL_RT_HOLE_MAGIC 0xA5E7E70Fu

/* ---- processors, threads, read-side sections (lib/trace/trace_sync.c) ----- */

/*! etl__rt_nproc() : configured processors (at least 1), fixed at first
 *  use: the per-processor arrays have this many entries. */
uint32_t etl__rt_nproc(void);

/*! etl__rt_cpu() : the processor the caller runs on, < etl__rt_nproc(). */
uint32_t etl__rt_cpu(void);

/*! etl__rt_pid() : getpid(), cached (refreshed in a forked child). */
uint32_t etl__rt_pid(void);

/* Forks seen (a child's cached thread ids are stale). */
extern _Atomic uint32_t etl__rt_forks;

struct etl__rt_rd {
	_Atomic long n[2];
	char pad[64 - 2 * sizeof(long)];
};
extern struct etl__rt_rd *etl__rt_rds;
extern _Atomic unsigned etl__rt_rd_idx;

/* Enters a read-side section on processor cpu; returns the token for
 * etl__rt_read_unlock(). */
static inline unsigned etl__rt_read_lock(uint32_t cpu)
{
	unsigned i = atomic_load_explicit(&etl__rt_rd_idx, memory_order_relaxed) & 1u;
	atomic_fetch_add_explicit(&etl__rt_rds[cpu].n[i], 1, memory_order_seq_cst);
	return i;
}

static inline void etl__rt_read_unlock(uint32_t cpu, unsigned tok)
{
	atomic_fetch_sub_explicit(&etl__rt_rds[cpu].n[tok], 1, memory_order_release);
}

/*! etl__rt_synchronize() : waits until every read-side section that began
 *  before the call has ended. Not from inside a section. */
void etl__rt_synchronize(void);

/* The control lock: sessions table, providers, enable state. Recursive,
 * so that enable callbacks may call back into the controller API. */
void etl__rt_ctl_lock(void);
void etl__rt_ctl_unlock(void);

/*! etl__rt_kick_wait() : sleeps while *kick is still seen, at most until
 *  until (CLOCK_MONOTONIC; NULL: no limit). @return : ETIMEDOUT, or 0
 *  (kicked, or woken for no reason: look again). */
int etl__rt_kick_wait(_Atomic uint32_t *kick, uint32_t seen, const struct timespec *until);
/*! etl__rt_kick() : adds to *kick and wakes its sleeper. */
void etl__rt_kick(_Atomic uint32_t *kick);

/*! etl__rt_set_fork_child() : fn runs in a forked child, with the control
 *  lock as the forking thread held it, after the read-side sections are
 *  reset: what the session layer does with the sessions inherited from
 *  the parent. Set under the control lock. */
void etl__rt_set_fork_child(void (*fn)(void));

/* Running sessions by index (logger id - 1); NULL when free or stopping.
 * Written under the control lock, read by writers (seq_cst). */
extern _Atomic(struct etl_session *) etl__rt_sessions[ETL_RT_MAX_SESSIONS];

/* ---- the session ------------------------------------------------------ */

/* etl_session_timing()'s counters, zeroed at start (control lock). The
 * writers' under the pool lock; the others written by one thread at a time
 * (the logger, then stop), read by anyone: etl__rt_tm_add(). */
struct etl__rt_timing {
	uint64_t buffer_waits, buffer_wait_ns, lock_waits, lock_wait_ns;
	_Atomic uint64_t rounds, busy_ns, cpu_ns, commit_waits;
	_Atomic uint64_t out_calls, out_ns, out_bytes;
};

/* Per processor, one cache line: the current buffer and the loss count. */
struct etl__rt_cpu {
	/* offset (bits 0-23) | buffer index + 1 (24-39) | epoch (40-63);
	 * 0 = no current buffer. Reserving is one CAS on this word. */
	_Atomic uint64_t slot;
	_Atomic uint64_t lost;          /* events lost on this processor      */
	char pad[64 - 2 * sizeof(uint64_t)];
};

#define ETL_RT_SLOT_OFF(s)  ((uint32_t)((s) & 0xFFFFFFu))
#define ETL_RT_SLOT_IDX(s)  ((uint32_t)(((s) >> 24) & 0xFFFFu))
#define ETL_RT_SLOT_MAKE(idx1, epoch, off) \
	(((uint64_t)(epoch) << 40) | ((uint64_t)(idx1) << 24) | (uint64_t)(off))

/* One cache line each: the commit words of buffers that different
 * processors fill must not share a line. */
struct etl__rt_buf {
	_Alignas(64) uint8_t *mem;      /* buffer_size bytes, NULL until needed */
	/* committed bytes (bits 0-31) | committed events (32-63) */
	_Atomic uint64_t commit;
	_Atomic uint32_t holes;         /* a hole was left in it              */
	uint32_t end;                   /* reserved end, known once the buffer
	                                   left its processor slot; compacted
	                                   end once processed                  */
	uint32_t cpu;
	uint32_t events;                /* after processing                   */
	_Atomic uint32_t next;          /* index + 1 of the next on a stack   */
};

enum { ETL_RT_IDLE = 0, ETL_RT_RUNNING, ETL_RT_STOPPED, ETL_RT_ORPHAN };

struct etl_session {
	int state;                      /* ETL_RT_* (control lock)            */
	int index;                      /* in etl__rt_sessions, or -1         */
	_Atomic int accepting;          /* new buffers may be taken           */
	_Atomic int full;               /* SEQUENTIAL: size limit reached     */
	int rclass;                     /* routing order (see deliver)        */
	uint32_t stamp_ct;              /* clock type that stamps events; 0:
	                                   the caller's clock (p.clock)        */
	uint16_t logger_id;
	char *name, *file_name;
	struct etl_session_props p;
	uint32_t nproc, bs, max_bufs;
	uint32_t mode_bits;             /* LogFileMode of the header          */
	uint64_t max_bytes;             /* SEQUENTIAL limit, 0: none          */
	struct etl_errinfo err;

	/* clock */
	int64_t start_ts, start_ft;
	uint32_t cpu_mhz;
	struct etl_clock fclk;          /* the file's clock: raw <-> FILETIME  */
	int replay;                     /* started with replay_of: the clock
	                                   and figures of a captured trace     */
	int layout_1_0;                 /* its file has log layout 1.0         */
	/* The caller's clock: when the flush timer is due next (FILETIME),
	 * and etl_session_clock_advanced()'s requests to the logger (lock). */
	_Atomic int64_t clk_next;
	uint64_t clk_seq, clk_done;
	int clk_rc;                     /* the last timer round's output      */

	struct etl__rt_cpu *cpus;       /* nproc, cache-line aligned          */
	struct etl__rt_buf *bufs;       /* max_bufs                           */
	_Atomic uint32_t epoch;

	/* the pool (lib/trace/trace_pool.c: which of it takes the lock) */
	_Atomic uint64_t free_top;      /* free stack: index + 1 (bits 0-31),
	                                   tag (32-63)                        */
	_Atomic uint32_t n_free, n_alloc;
	_Atomic uint32_t full_top;      /* handed over: index + 1, newest     */
	_Atomic uint32_t pending;       /* handed over, not yet taken         */
	_Atomic uint32_t in_hand;       /* taken by the logger, not yet back
	                                   in the pool or the ring            */
	_Atomic uint32_t waiters;       /* writers blocked for a buffer       */
	_Atomic int logger_idle;        /* the logger is about to sleep or is */
	_Atomic uint64_t ring_hc;       /* BUFFERING ring: head (bits 0-31),
	                                   count (32-62), frozen (63)         */
	_Atomic uint32_t *ring;         /* max_bufs                           */
	uint32_t *queue, q_head, q_count;   /* logger: taken, FIFO           */
	uint32_t wake_batch;            /* handed-over buffers that wake the
	                                   logger                             */
	uint32_t *filled;               /* logger: buffers per processor since
	                                   its last look (see balance())      */

	/* logger hand-shakes (lock) */
	pthread_mutex_t lock;
	pthread_cond_t cv_free;         /* a buffer came back (writers)       */
	_Atomic uint32_t kick;          /* work for the logger (etl__rt_kick) */
	pthread_cond_t cv_done;         /* a flush finished                   */
	int sync_init;
	int flush_req;                  /* swap partial buffers out now       */
	uint64_t flush_seq, flush_done;
	int flush_rc;
	int quit;
	pthread_t thread;
	int thread_started;

	/* output (logger thread only while running) */
	struct etl_writer_options wo;   /* header of every file               */
	char *first_name;               /* NEWFILE: pattern % 1               */
	char *log_name;                 /* log_file_name (NEWFILE: % 1), or NULL */
	etl_writer *w;
	int out_rc;                     /* ETL_OK or the first failure        */
	uint8_t *rt_hdr;                /* REALTIME: header buffer copy       */
	size_t rt_hdr_size;
	uint8_t *rt_img;                /* header + one buffer                */

	/* figures */
	_Atomic uint64_t events_written, events_dropped;
	_Atomic uint64_t buffers_written, buffers_lost, files_written;
	uint64_t lost_final;            /* per-processor losses, summed at stop */

	struct etl__rt_timing tm;
};

/* Adds to a timing counter that only one thread writes at a time. */
static inline void etl__rt_tm_add(_Atomic uint64_t *c, uint64_t n)
{
	atomic_store_explicit(c, atomic_load_explicit(c, memory_order_relaxed) + n,
	                      memory_order_relaxed);
}

/* ---- buffers (lib/trace/trace_buffers.c) ------------------------------------ */

/* One reservation. */
struct etl__rt_res {
	struct etl_session *s;
	struct etl__rt_buf *b;
	uint8_t *dst;
	uint32_t cpu, size;
	uint64_t after;                 /* slot word right after reserving    */
};

/*! etl__rt_reserve() : size (8-aligned, fits a buffer) bytes in the
 *  current buffer of processor cpu. @return : ETL_OK with *r filled, or
 *  ETL_FAILED (no buffer: the caller counts the loss). */
int etl__rt_reserve(struct etl_session *s, uint32_t cpu, uint32_t size, struct etl__rt_res *r);

/*! etl__rt_commit() : the record is in place. */
static inline void etl__rt_commit(const struct etl__rt_res *r)
{
	atomic_fetch_add_explicit(&r->b->commit, ((uint64_t)1 << 32) | r->size,
	                          memory_order_release);
}

/*! etl__rt_abandon() : gives the space back, or leaves a hole. */
void etl__rt_abandon(const struct etl__rt_res *r);

static inline void etl__rt_count_lost(struct etl_session *s, uint32_t cpu)
{
	atomic_fetch_add_explicit(&s->cpus[cpu].lost, 1, memory_order_relaxed);
}

/* Logger side. Swaps the partly filled current buffers out into the queue. */
void etl__rt_swap_all(struct etl_session *s);
/* Waits until every reservation in b is committed, squeezes holes out. */
void etl__rt_settle(struct etl_session *s, struct etl__rt_buf *b);

/* ---- the pool (lib/trace/trace_pool.c) ---------------------------------------- */

int etl__rt_pool_init(struct etl_session *s);
void etl__rt_pool_free(struct etl_session *s);
/* Writers. A free buffer (BUFFERING, the pool grown: else the ring's
 * oldest) without the lock, or -1. */
long etl__rt_pool_take(struct etl_session *s);
/* When that failed: a new buffer while the pool may grow, or waiting out
 * a flush that writes the ring (BUFFERING); -1: none. */
long etl__rt_pool_take_slow(struct etl_session *s);
/* Buffer i back to the free stack. */
void etl__rt_pool_put(struct etl_session *s, uint32_t i);
/* Buffer i, reserved up to end, to the logger; wakes it when due. */
void etl__rt_pool_hand_over(struct etl_session *s, uint32_t i, uint32_t end);
/* Blocking mode: waits until a buffer may be free. @return : 0 when the
 * session stopped accepting. */
int etl__rt_pool_wait(struct etl_session *s);
/* Logger. Whether buffers wait for it. */
int etl__rt_pool_has_full(struct etl_session *s);
/* Up to max handed-over buffers, in the order handed over; 0: none. */
uint32_t etl__rt_pool_next_full(struct etl_session *s, uint32_t *idx, uint32_t max);
/* n buffers back to the free stack (wakes blocked writers). */
void etl__rt_release_n(struct etl_session *s, const uint32_t *idx, uint32_t n);
/* BUFFERING: n processed buffers to the ring's newest end. */
void etl__rt_ring_append(struct etl_session *s, const uint32_t *idx, uint32_t n);
/* BUFFERING flush (pool lock held): the ring frozen - writers cannot take
 * its buffers - its oldest at *head; @return : how many. The k-th oldest
 * is etl__rt_ring_at(s, head, k); etl__rt_ring_thaw() ends it. */
uint32_t etl__rt_ring_freeze(struct etl_session *s, uint32_t *head);
uint32_t etl__rt_ring_at(struct etl_session *s, uint32_t head, uint32_t k);
void etl__rt_ring_thaw(struct etl_session *s);
/* Free buffers now. */
uint32_t etl__rt_pool_free_count(struct etl_session *s);
/* Allocates buffers (pages touched) while few are free, up to max_buffers. */
void etl__rt_pool_grow(struct etl_session *s);

/* ---- clock (lib/trace/trace_clock.c) --------------------------------------- */

/*! etl__rt_now() : the raw timestamp in clock type clock_type (ETL_CLOCK_*). */
int64_t etl__rt_now(uint32_t clock_type);
/*! etl__rt_filetime_now() : the time of day as a FILETIME. */
int64_t etl__rt_filetime_now(void);
/*! etl__rt_mono_ns() : CLOCK_MONOTONIC in nanoseconds (the timing
 *  counters' clock). */
int64_t etl__rt_mono_ns(void);
/* A session on the caller's clock (etl_session_props.clock) measures
 * nothing: its header declares these. */
#define ETL_RT_OWN_CPU_MHZ 1000           /* CPUCYCLE                     */
#define ETL_RT_OWN_QPC_HZ  10000000       /* QPC: 100 ns ticks            */
/*! etl__rt_session_now() : the raw timestamp of s now, in its clock. On
 *  the caller's clock (stamp_ct 0), from its FILETIME: SYSTEMTIME is the
 *  FILETIME itself, QPC counts 100 ns ticks from 0 at start, CPUCYCLE the
 *  cycles of a ETL_RT_OWN_CPU_MHZ processor from 0 at start. */
int64_t etl__rt_session_now(const struct etl_session *s);
/*! etl__rt_session_raw_at() : the raw timestamp in s's clock at FILETIME
 *  ft, by the figures its file's header gives (s->fclk); a session on the
 *  caller's clock that replays nothing gets etl__rt_session_now()'s
 *  values. For a replayed event's time in a session that is not the
 *  trace's. */
int64_t etl__rt_session_raw_at(const struct etl_session *s, int64_t ft);
/*! etl__rt_session_clock_init() : s->fclk from the header's figures
 *  (s->wo), once they are final at start. */
void etl__rt_session_clock_init(struct etl_session *s);
/* The QPC clock's rate (Hz) as the latest header got it: the TSC's, or
 * 10 MHz when QPC is CLOCK_MONOTONIC (see lib/trace/trace_clock.c). */
int64_t etl__rt_qpc_freq(void);
/*! etl__rt_clock_prepare() : what clock_type needs measured, measured once
 *  per process (QPC: whether it is the TSC, and its rate). @return : the
 *  CPU speed in MHz for ETL_CLOCK_CPUCYCLE, else 0. */
uint32_t etl__rt_clock_prepare(uint32_t clock_type);
/*! etl__rt_clock_figures() : the QPC rate and boot time of the header of a
 *  session whose clock read start_ts at the FILETIME start_ft (a session
 *  on the caller's clock: ETL_RT_OWN_QPC_HZ, booted at start). */
void etl__rt_clock_figures(uint32_t clock_type, int64_t start_ts, int64_t start_ft,
                           int64_t *perf_freq, int64_t *boot_time);
/*! etl__rt_clock_refine() : QPC from the TSC: its rate measured again over
 *  the longer interval, and the boot time it implies. @return : 1 when
 *  *perf_freq and *boot_time were updated, 0 for other clocks. */
int etl__rt_clock_refine(uint32_t clock_type, int64_t start_ts, int64_t start_ft,
                         int64_t *perf_freq, int64_t *boot_time);

/* ---- properties, errors (lib/trace/trace_session_props.c) ------------------ */

/*! etl__rt_check_props() : p usable for a session named name; otherwise
 *  the reason in s's error record. *out gets p as this version of the
 *  library reads it (members past an older caller's struct_size are 0).
 *  @return : ETL_OK, ETL_FAILED. */
int etl__rt_check_props(struct etl_session *s, const char *name, const struct etl_session_props *p,
                        struct etl_session_props *out);
/*! etl__rt_mode_bits() : the LogFileMode of p's files. */
uint32_t etl__rt_mode_bits(const struct etl_session_props *p);
/*! etl__rt_serr() : sets s's error record (etl_session_errcode/errmsg). */
void etl__rt_serr(struct etl_session *s, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* ---- output (lib/trace/trace_output.c) ------------------------------------- */

/* The logger hands its buffers on this many at a time at most. */
#define ETL_RT_DRAIN_MAX 16

/*! etl__rt_output_open() : opens the session's output for its file mode
 *  (BUFFERING: nothing until a flush). @return : ETL_OK, or ETL_FAILED /
 *  ETL_FATAL with s's error record set. */
int etl__rt_output_open(struct etl_session *s);
/*! etl__rt_output_buffers() : sends n (<= ETL_RT_DRAIN_MAX) settled
 *  buffers on, in order, counting them written or lost; they go back to
 *  the pool (BUFFERING: to the ring). Logger thread. */
void etl__rt_output_buffers(struct etl_session *s, const uint32_t *idx, uint32_t n);
/*! etl__rt_output_sync() : after a flush: the file as it stands is made
 *  readable (BUFFERING: the ring is written, on explicit flushes only).
 *  Logger thread. @return : ETL_OK or the failure. */
int etl__rt_output_sync(struct etl_session *s, int explicit_flush);
/*! etl__rt_output_close() : at stop, the logger gone: the output's last
 *  figures, and the output closed. @return : ETL_OK or the first failure. */
int etl__rt_output_close(struct etl_session *s);
/*! etl__rt_output_free() : drops an output that will not be closed. */
void etl__rt_output_free(struct etl_session *s);
/*! etl__rt_events_lost() : events lost so far (exact once stopped). */
uint64_t etl__rt_events_lost(const struct etl_session *s);

/* ---- logger (lib/trace/trace_logger.c) ------------------------------------- */

/*! etl__rt_logger_start() : starts s's logger thread. @return :
 *  pthread_create's. */
int etl__rt_logger_start(struct etl_session *s);
/*! etl__rt_logger_stop() : the logger writes what is queued and ends;
 *  returns once it has. */
void etl__rt_logger_stop(struct etl_session *s);

/* ---- provider registry (lib/trace/trace_provider.c) ------------------------ */

/* One session enabling a GUID (TRACE_ENABLE_INFO), read by writers under
 * a sequence counter: odd while the controller rewrites it. */
struct etl__rt_slot {
	_Atomic uint32_t seq;
	_Atomic uint64_t w;             /* logger id (bits 0-7; 0 = empty),
	                                   level (8-15), properties (32-63)    */
	_Atomic uint64_t any, all;      /* normalised: any 0 -> all ones      */
};

/* A provider GUID (ETW_GUID_ENTRY): up to 8 enabling sessions and the
 * registrations that write under it. Exists while either is non-empty. */
struct etl__rt_gentry {
	struct etl_guid guid;
	struct etl__rt_slot slot[ETL_RT_SLOTS];
	_Atomic uint32_t mask;          /* slots in use                       */
	struct etl__provider_impl *regs;
	struct etl__rt_gentry *next;
};

/* A registration (etl_provider.impl). name: register_name's name, for the
 * TraceLogging provider traits; NULL when registered by GUID. */
struct etl__provider_impl {
	struct etl__rt_gentry *entry;
	etl_provider *pub;
	etl_enable_fn cb;
	void *cb_ctx;
	char *name;
	struct etl_guid guid;
	struct etl__provider_impl *next;
};

/*! etl__rt_enable() : enables provider on the session of logger_id with e
 *  (control lock held), running the enable callbacks. @return : ETL_OK;
 *  ETL_FATAL out of memory; ETL_FAILED when ETL_RT_SLOTS other sessions
 *  enable it already. */
int etl__rt_enable(uint16_t logger_id, const struct etl_guid *provider,
                   const struct etl_enable_params *e);
/*! etl__rt_disable() : the same, disabling. @return : ETL_OK, or
 *  ETL_FAILED when the session does not enable provider. */
int etl__rt_disable(uint16_t logger_id, const struct etl_guid *provider);
/*! etl__rt_capture_state() : runs the enable callbacks of provider's
 *  registrations with ETL_CONTROL_CAPTURE_STATE and the level and keywords
 *  of the session of logger_id (control lock held). @return : ETL_OK, or
 *  ETL_FAILED when that session does not enable provider. */
int etl__rt_capture_state(uint16_t logger_id, const struct etl_guid *provider);
/*! etl__rt_disable_all() : removes the session of logger_id from every
 *  provider (control lock held), with the enable callbacks, or without
 *  (callbacks 0: in a forked child). */
void etl__rt_disable_all(uint16_t logger_id, int callbacks);

#endif /* ETL_TRACE_CORE_H */
