/*
 * lib/sem/engine_internal.h - what the files of the SEM engine share (internal):
 * the engine object, its clock, and the entry points of each part.
 *
 * The parts, each calling only those listed after it (doc/sem.md §8):
 *   sem_engine.c     the handle: options, the two sessions, start, stop,
 *                    update, the housekeeping thread or the caller's
 *                    clock, statistics
 *   sem_scenario.c   the scenario writes and dispatch (the public calls
 *                    programs make while the SEM runs)
 *   sem_run.c        the SEM while it runs: up and down with a
 *                    configuration, instances started, ended and timed out
 *   sem_context.c    context providers on WdiContextLog: enabled,
 *                    re-aggregated and disabled as instances come and go
 *   sem_instances.c  the table of instances in flight, keyed by activity id
 *   sem_report.c     the history of instances for the report: when each
 *                    started and ended, its context events
 *   sem_status.c     the Kernel-WDI status events 32-42
 * The configuration (sem_internal.h) sits below them all.
 */
#ifndef ETL_SEM_ENGINE_INTERNAL_H
#define ETL_SEM_ENGINE_INTERNAL_H

#ifndef ETL_BUILDING_LIB
#error "lib/sem/engine_internal.h is internal to libetl"
#endif

#include <pthread.h>
#include <stdint.h>
#include <time.h>
#include "etl_sem.h"
#include "etl_trace.h"
#include "lib/common/errinfo.h"

/* ---- status events (sem_status.c) --------------------------------------- */

/* Kernel-WDI's event ids (doc/sem.md §11). */
enum etl__sem_event {
	ETL_SEM_EV_STARTED = 32,
	ETL_SEM_EV_ENDED = 33,
	ETL_SEM_EV_TIMED_OUT = 34,
	ETL_SEM_EV_TOO_MANY = 35,
	ETL_SEM_EV_START_FAILED = 36,
	ETL_SEM_EV_END_FAILED = 37,
	ETL_SEM_EV_MISCONFIG = 42
};

/* What the SEM did to one context provider: the parameters it is enabled
 * with now (all 0 once disabled) and the NTSTATUS of doing it. One entry
 * of status events 32 and 33. */
struct etl__sem_action {
	struct etl_guid provider;
	struct etl_sem_params params;
	uint32_t status;
};

/* Instances in flight of one start event (an entry of status event 35). */
struct etl__sem_census {
	struct etl_guid provider;
	uint16_t id;
	uint32_t count;
};

/*! etl__sem_status_scenario() : event 32 (ended 0) or 33 (ended 1): the
 *  start or end event, the context logger's lost events, the actions.
 *  Every status event is written by wdi (Kernel-WDI), with activity as its
 *  activity id (NULL: zero). @return : etl_write's. */
int etl__sem_status_scenario(etl_provider *wdi, int ended, const struct etl_guid *activity,
                             const struct etl_guid *provider, uint16_t id, uint32_t dropped,
                             const struct etl__sem_action *a, size_t n);
/*! etl__sem_status_event() : an event of provider GUID and id only: 34,
 *  38, 39, 40; 41 (the provider alone). */
int etl__sem_status_event(etl_provider *wdi, int event, const struct etl_guid *activity,
                          const struct etl_guid *provider, uint16_t id);
/*! etl__sem_status_ntstatus() : 36, 37 or 42: GUID, id and an NTSTATUS. */
int etl__sem_status_ntstatus(etl_provider *wdi, int event, const struct etl_guid *activity,
                             const struct etl_guid *provider, uint16_t id, uint32_t ntstatus);
/*! etl__sem_status_too_many() : 35: the refused start event and the
 *  instances in flight per start event. */
int etl__sem_status_too_many(etl_provider *wdi, const struct etl_guid *activity,
                             const struct etl_guid *provider, uint16_t id,
                             const struct etl__sem_census *c, size_t n);

/*! etl__sem_ntstatus_of() : the NTSTATUS for a failed call of the tracing
 *  runtime, from its reason (enum etl_errcode). */
uint32_t etl__sem_ntstatus_of(int errcode);

/*! etl__sem_enable_params() : how the tracing runtime enables a provider
 *  with SEM parameters q: level, keyword as match-any, and the enable
 *  properties it acts on (ETL_ENABLE_*, the bits of Windows'
 *  EVENT_ENABLE_PROPERTY_*; others are dropped). */
static inline void etl__sem_enable_params(const struct etl_sem_params *q, struct etl_enable_params *e)
{
	etl_enable_params_init(e);
	e->level = q->level;
	e->match_any = q->keyword;
	e->properties = q->enable_property & (ETL_ENABLE_SID | ETL_ENABLE_TS_ID | ETL_ENABLE_STACK_TRACE |
	                                      ETL_ENABLE_IGNORE_KEYWORD_0 | ETL_ENABLE_PROCESS_START_KEY |
	                                      ETL_ENABLE_EVENT_KEY);
}

/* ---- instances (sem_instances.c) ---------------------------------------- */

struct etl__sem_instance {
	struct etl_guid activity;
	uint32_t start;                  /* index of its start event          */
	int64_t since;                   /* the engine's clock at its start    */
	uint64_t seq;                    /* order of starts: the oldest is least */
	size_t rec;                      /* its record in the history, or
	                                    ETL__SEM_NO_RECORD                 */
};

struct etl__sem_instances {
	struct etl__sem_instance v[ETL_SEM_MAX_INSTANCES];
	uint32_t n;
	uint64_t next_seq;
	uint32_t *per_start;             /* in flight per start event          */
	size_t n_starts;
};

/*! etl__sem_inst_init() : an empty table for n_starts start events.
 *  @return : 0, or -1 out of memory. */
int etl__sem_inst_init(struct etl__sem_instances *t, size_t n_starts);
void etl__sem_inst_free(struct etl__sem_instances *t);
/*! etl__sem_inst_find() : @return : the index of activity's instance, or -1. */
long etl__sem_inst_find(const struct etl__sem_instances *t, const struct etl_guid *activity);
/*! etl__sem_inst_add() : a new instance (the caller checked room and
 *  duplicates), with the next sequence number and no record. */
void etl__sem_inst_add(struct etl__sem_instances *t, const struct etl_guid *activity, uint32_t start,
                       int64_t since);
/*! etl__sem_inst_remove() : removes instance i; the last one takes its
 *  index. */
void etl__sem_inst_remove(struct etl__sem_instances *t, uint32_t i);
/*! etl__sem_inst_census() : the start events with instances in flight, in
 *  the configuration's order, at most max. @return : how many. */
size_t etl__sem_inst_census(const struct etl__sem_instances *t, const etl_sem_config *cfg,
                            struct etl__sem_census *out, size_t max);

/* ---- the history (sem_report.c) ------------------------------------------ */

#define ETL__SEM_NO_RECORD ((size_t)-1)

/* One instance as the report tells it; scenarios and context counts in
 * one allocation each. */
struct etl__sem_record {
	struct etl_guid activity;
	struct etl_guid *scenarios;
	size_t n_scenarios;
	struct etl_sem_report_event start, end;
	int status;                      /* enum etl_sem_instance_status       */
	struct etl_sem_context_count *ctx; /* the start event's context providers */
	size_t n_ctx;
};

struct etl__sem_history {
	struct etl__sem_record *v;
	size_t n, cap;
	uint64_t unrecorded;             /* records memory could not hold      */
};

/*! etl__sem_hist_start() : a record for an instance of start event s keyed
 *  by activity, started at time (a FILETIME). @return : its index, or
 *  ETL__SEM_NO_RECORD out of memory (counted). */
size_t etl__sem_hist_start(struct etl__sem_history *h, const struct etl_guid *activity,
                           const struct etl_sem_start_event *s, int64_t time);
/*! etl__sem_hist_end() : record rec ended with status (ENDED: by the end
 *  event provider;id, else provider NULL) at time. NO_RECORD: nothing. */
void etl__sem_hist_end(struct etl__sem_history *h, size_t rec, int status, const struct etl_guid *provider,
                       uint16_t id, int64_t time);
/*! etl__sem_hist_clear() : forgets every record. */
void etl__sem_hist_clear(struct etl__sem_history *h);
/*! etl__sem_hist_report() : the public snapshot of h with the totals
 *  given. @return : it, or NULL out of memory. */
struct etl_sem_report *etl__sem_hist_report(const struct etl__sem_history *h, uint64_t diaglog, uint64_t context,
                                            uint64_t lost);

/* ---- context providers (sem_context.c) ---------------------------------- */

/* One start event naming a context provider: start event index, and the
 * index in its context_providers. */
struct etl__sem_ref {
	uint32_t start, ctx;
};

/* A distinct context provider of the configuration. */
struct etl__sem_cprov {
	struct etl_guid guid;
	struct etl_sem_params cur;       /* as enabled on WdiContextLog now    */
	int enabled;
	size_t first, n_refs;            /* its references in refs[]           */
};

struct etl__sem_context {
	etl_session *session;            /* WdiContextLog                      */
	const etl_sem_config *cfg;
	struct etl__sem_cprov *v;
	size_t n;
	struct etl__sem_ref *refs;       /* grouped by provider                */
	uint32_t **map;                  /* [start][ctx] -> index in v         */
	size_t n_starts;
	uint32_t n_enabled;
};

/*! etl__sem_ctx_build() : the context providers of cfg, none enabled.
 *  @return : 0, or -1 out of memory. */
int etl__sem_ctx_build(struct etl__sem_context *c, etl_session *session, const etl_sem_config *cfg);
void etl__sem_ctx_free(struct etl__sem_context *c);
/*! etl__sem_ctx_apply() : after an instance of start event `start` began
 *  (starting 1) or ended (0), with per_start counting the instances now in
 *  flight: each context provider of that start event is enabled with the
 *  parameters combined over the start events in flight that name it,
 *  re-enabled when they changed, disabled when none does; on a start, a
 *  provider configured for it is asked for its state. out receives one
 *  action per context provider of the start event. */
void etl__sem_ctx_apply(struct etl__sem_context *c, uint32_t start, const uint32_t *per_start, int starting,
                        struct etl__sem_action *out);

/* ---- the engine --------------------------------------------------------- */

/* A configured end event, for telling an end event from any other. */
struct etl__sem_evkey {
	struct etl_guid provider;
	uint16_t id;
};

struct etl_sem {
	/* Controller side (one thread at a time). */
	struct etl_sem_options o;        /* strings point into the copies below */
	char *dir, *diag_file, *ctx_file, *diag_name, *ctx_name;
	char *strings;                   /* the block they are in              */
	etl_session *diag, *ctx;
	etl_provider wdi;                /* Kernel-WDI, registered while running */
	int running;
	struct etl_errinfo err;
	pthread_t hk;                    /* housekeeping on the system clock   */
	int hk_started;
	int sync_init;                   /* lock and hk_cv made                */

	/* The running SEM (lock). */
	pthread_mutex_t lock;
	pthread_cond_t hk_cv;            /* wakes the housekeeping thread      */
	int hk_quit;
	const etl_sem_config *cfg;
	int up;                          /* running with the SEM on            */
	struct etl__sem_instances inst;
	struct etl__sem_context cx;
	struct etl__sem_evkey *ends;     /* every configured end event, sorted */
	size_t n_ends;
	int64_t period;                  /* housekeeping period, 100 ns units  */
	int64_t next_tick;               /* the next housekeeping tick         */
	struct etl_sem_stats st;
	struct etl__sem_history hist;    /* every instance since start         */
	uint32_t replay_zero;            /* zero-id starts replayed so far     */
};

/*! etl__sem_now() : the engine's clock in 100 ns units: the caller's
 *  FILETIME source, or CLOCK_MONOTONIC. */
static inline int64_t etl__sem_now(const struct etl_sem *sem)
{
	if (sem->o.clock)
		return sem->o.clock(sem->o.clock_ctx);
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 10000000 + ts.tv_nsec / 100;
}

/*! etl__sem_utc() : the engine's time as a FILETIME for the report: the
 *  caller's clock, or the system's real-time clock. */
static inline int64_t etl__sem_utc(const struct etl_sem *sem)
{
	if (sem->o.clock)
		return sem->o.clock(sem->o.clock_ctx);
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 10000000 + ts.tv_nsec / 100 + 116444736000000000LL;
}

/* ---- the running SEM (sem_run.c); every call with sem->lock held -------- */

/*! etl__sem_up() : the SEM starts on sem->cfg: DiagLog providers enabled,
 *  the configuration's status events (38-42) written, the tables built.
 *  @return : 0, or -1 out of memory (the SEM stays down). */
int etl__sem_up(struct etl_sem *sem);
/*! etl__sem_down() : every instance in flight ends (33), the DiagLog
 *  providers are disabled, the tables freed. */
void etl__sem_down(struct etl_sem *sem);
/*! etl__sem_start_instance() : starts the instance of the start event
 *  provider;id for *activity (zero: a new id stored there).
 *  @return : its NTSTATUS (etl_sem_last_status()). */
uint32_t etl__sem_start_instance(struct etl_sem *sem, const struct etl_guid *provider, uint16_t id,
                                 struct etl_guid *activity);
/*! etl__sem_end_instance() : ends activity's instance with the end event
 *  provider;id. @return : its NTSTATUS. */
uint32_t etl__sem_end_instance(struct etl_sem *sem, const struct etl_guid *provider, uint16_t id,
                               const struct etl_guid *activity);
/*! etl__sem_end_oldest() : a replayed end event provider;id with a zero
 *  activity id: ends the oldest instance in flight it ends (its id stored
 *  in *ended), or, with none, fails as an end with a zero id does (37).
 *  @return : its NTSTATUS. */
uint32_t etl__sem_end_oldest(struct etl_sem *sem, const struct etl_guid *provider, uint16_t id,
                             struct etl_guid *ended);
/*! etl__sem_context_seen() : a replayed event of provider with level and
 *  keyword was written: when WdiContextLog's filter for the provider
 *  passes it, it is counted for every instance in flight naming it. */
void etl__sem_context_seen(struct etl_sem *sem, const struct etl_guid *provider, uint8_t level, uint64_t keyword);
/*! etl__sem_housekeeping() : the tick at now: instances past the timeout
 *  end (34). */
void etl__sem_housekeeping(struct etl_sem *sem, int64_t now);

#endif /* ETL_SEM_ENGINE_INTERNAL_H */
