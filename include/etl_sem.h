/*
 * etl_sem.h - the Scenario Event Mapper (SEM): its configuration - load the
 * WDI registry configuration from a `reg export` file or from offline
 * hives, apply the SEM's rules (doc/sem.md §3) and read the effective
 * configuration - and the engine that runs it on the tracing runtime
 * (etl_trace.h): the DiagLog and WdiContextLog sessions, scenario
 * instances started and ended by the scenario writes, context providers
 * enabled while they run, timeouts, and the Kernel-WDI status events
 * (doc/sem.md §8-§12; the engine's part of this header is at its end).
 *
 * Basic outline of the configuration:
 *
 *     struct etl_sem_error err;
 *     etl_sem_config *cfg = etl_sem_config_from_reg_file("wdi.reg", &err);
 *     if (!cfg) { report err.message; }            // the input is unusable
 *     size_t n;
 *     const struct etl_sem_diag *d = etl_sem_config_diagnostics(cfg, &n);
 *     for (size_t i = 0; i < n; i++) report d[i].key, d[i].rule, d[i].message;
 *     if (etl_sem_config_enabled(cfg)) {
 *         const struct etl_sem_start_event *se = etl_sem_config_start_events(cfg, &n);
 *         ...                                      // borrowed from cfg
 *     }
 *     etl_sem_config_free(cfg);
 *
 * Two kinds of trouble:
 *   - fatal: the input cannot be used at all (cannot be read, not a .reg
 *     file or not a hive, bad text encoding, over a size cap, a corrupt
 *     hive). The loaders return NULL and fill struct etl_sem_error with the
 *     reason, the file, and the line and column (.reg) or the file offset
 *     (hive) when known.
 *   - diagnostics: a line of the .reg file that cannot be read, a key
 *     outside the registry keys the SEM reads, and every definition the
 *     SEM's rules reject or drop. The configuration is still built without
 *     them; each is kept with the key path as given, a short stable rule
 *     name and a sentence (etl_sem_config_diagnostics()).
 *
 * A configuration object is immutable: every accessor is a pure read, so
 * one object may be shared by threads without locking. Everything an
 * accessor returns (arrays, strings) is owned by the object and valid until
 * etl_sem_config_free().
 *
 * Lists come in a fixed order (doc/sem.md §5): start events by
 * provider GUID then event id; end events by provider then id; context
 * providers, DiagLog providers and disabled scenarios by GUID (GUIDs order
 * as their upper-case text); diagnostics and dropped items in the order the
 * rules met them.
 */
#ifndef ETL_SEM_H
#define ETL_SEM_H

#include "etl_export.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "etl_errors.h"
#include "etl_event.h"
#include "etl_trace.h"
#include "etl_tracelogging.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct etl_sem_config etl_sem_config;

/* The SEM's fixed limits (doc/sem.md §3.8). */
#define ETL_SEM_MAX_START_EVENTS       64    /* distinct start events        */
#define ETL_SEM_MAX_END_EVENTS         16    /* per start event              */
#define ETL_SEM_MAX_CONTEXT_PROVIDERS  124   /* per start event              */
#define ETL_SEM_MAX_PROVIDERS          1024  /* distinct providers overall   */
#define ETL_SEM_MAX_DISABLED_SCENARIOS 64    /* by per-scenario policy       */
#define ETL_SEM_MAX_NAME               64    /* subkey name, in characters   */
#define ETL_SEM_DEFAULT_TIMEOUT_MINUTES 10

/* The largest .reg file the loaders read (a choice: an export of the WDI
 * keys is tens of kilobytes; a whole SYSTEM hive exported is not the way
 * to hand one over: use etl_sem_config_from_hives()). */
#define ETL_SEM_REG_MAX_BYTES (64u * 1024u * 1024u)

/* Microsoft-Windows-Kernel-WDI, the SEM's own provider: its status events
 * are written under it and it is refused as a context provider. */
#define ETL_SEM_KERNEL_WDI_GUID_INIT \
	{ 0x2FF3E6B7u, 0xCB90u, 0x4700u, { 0x96, 0x21, 0x44, 0x3F, 0x38, 0x97, 0x34, 0xED } }

/* Why a load failed (fatal trouble only). */
struct etl_sem_error {
	int      code;         /* enum etl_errcode; ETL_E_NONE if no error    */
	uint32_t line;         /* .reg: 1-based line of the problem, 0 if none */
	uint32_t column;       /* .reg: 1-based column in characters, 0 if none */
	int64_t  offset;       /* hive: absolute file offset, -1 if none      */
	char     message[512]; /* English sentence naming the file, and the
	                          line and column or the offset when known    */
};

/* How a provider is enabled: the values the engine passes to the session.
 * level 1..255 (0 never appears: a configured 0 means 0xFF), keyword as a
 * 64-bit mask (a configured 0 means all bits), enable property flags. */
struct etl_sem_params {
	uint8_t  level;
	uint64_t keyword;
	uint32_t enable_property;
};

/* An end event of a start event (parameters combined over the scenarios
 * merged into the start event). */
struct etl_sem_end_event {
	struct etl_guid provider;
	uint16_t id;
	struct etl_sem_params params;
};

/* A context provider of a start event: enabled on WdiContextLog while one
 * of its scenarios runs. capture_state is 1 when the provider is to be
 * asked for its state (a rundown request) when it is enabled. */
struct etl_sem_context_provider {
	struct etl_guid provider;
	struct etl_sem_params params;
	int capture_state;
};

/* A start event and everything that hangs off it. Scenarios that share a
 * start event are merged into one: scenarios lists them all, their end
 * events and context providers are united and the parameters of a
 * provider named more than once combined (etl_sem_params_combine()).
 * timeout_enabled is 0 when one of the merged scenarios must never time
 * out (a choice, doc/sem.md §3.7). Never empty: a start event without end
 * events is rejected. */
struct etl_sem_start_event {
	struct etl_guid provider;
	uint16_t id;
	struct etl_sem_params params;
	int timeout_enabled;
	const struct etl_guid *scenarios;                     /* sorted        */
	size_t n_scenarios;
	const struct etl_sem_end_event *end_events;           /* >= 1, sorted  */
	size_t n_end_events;
	const struct etl_sem_context_provider *context_providers; /* sorted    */
	size_t n_context_providers;
};

/* A provider enabled on DiagLog: every provider that owns a start or an
 * end event, with the parameters combined over all of those events. */
struct etl_sem_provider {
	struct etl_guid provider;
	struct etl_sem_params params;
};

/* Who switched a scenario off. */
enum etl_sem_disabled_by {
	ETL_SEM_BY_POLICY = 1,   /* policy subkey ScenarioExecutionEnabled = 0 */
	ETL_SEM_BY_CONFIG = 2    /* Scenarios\{s}\Config\ScenarioExecutionEnabled = 0 */
};

/* A defined scenario that does not run (not a diagnostic: an
 * administrator's decision). */
struct etl_sem_disabled_scenario {
	struct etl_guid scenario;
	int by;                  /* enum etl_sem_disabled_by                    */
};

/* Why the SEM is off as a whole. */
enum etl_sem_off_reason {
	ETL_SEM_ON = 0,
	ETL_SEM_OFF_SEM_ENABLED = 1,     /* Control\WDI\Config\SEMEnabled = 0   */
	ETL_SEM_OFF_POLICY = 2,          /* policy ScenarioExecutionEnabled = 0 */
	ETL_SEM_OFF_POLICY_NAME = 3,     /* a policy subkey name over 64 chars  */
	ETL_SEM_OFF_SCENARIO_NAME = 4,   /* a Scenarios subkey name over 64     */
	ETL_SEM_OFF_TOO_MANY_DISABLED = 5 /* more than 64 policy-disabled scenarios */
};

/* What a limit dropped. The numbers are the ids of the Kernel-WDI status
 * events the engine writes for them (doc/sem.md §3.8). */
enum etl_sem_drop_kind {
	ETL_SEM_DROP_START_EVENT = 38,      /* 65th distinct start event        */
	ETL_SEM_DROP_CONTEXT_PROVIDER = 39, /* 125th context provider of one    */
	ETL_SEM_DROP_END_EVENT = 40,        /* 17th end event of one            */
	ETL_SEM_DROP_PROVIDER = 41          /* 1025th distinct provider         */
};

/* One definition dropped by a limit: the provider GUID and event id the
 * status event carries (id 0 for a context provider or the provider
 * limit), the scenario it came from and its key path (as given). */
struct etl_sem_dropped {
	int kind;                  /* enum etl_sem_drop_kind                     */
	struct etl_guid provider;
	uint16_t id;
	struct etl_guid scenario;
	const char *key;
};

/* One diagnostic: the full key path as given in the input ("" when the
 * trouble is not in a key, such as a .reg line before the first key), a
 * short stable rule name (doc/sem.md §4 lists them) and an English sentence
 * (for .reg syntax: "line L, column C: ..."). */
struct etl_sem_diag {
	const char *key;
	const char *rule;
	const char *message;
};

/* ---- loading ------------------------------------------------------------ */

/*! etl_sem_config_from_reg_file() : reads a .reg file as `reg export` or
 *  regedit write it ("Windows Registry Editor Version 5.00" in UTF-16LE
 *  with a byte-order mark, or in 8-bit text; "REGEDIT4" in 8-bit text) and
 *  builds the effective configuration. err may be NULL.
 *  @return : a new configuration (free it with etl_sem_config_free()),
 *  possibly with diagnostics; or NULL with err filled: ETL_E_IO (cannot
 *  read), ETL_E_LIMIT (larger than ETL_SEM_REG_MAX_BYTES or too many keys),
 *  ETL_E_BAD_MAGIC (no .reg header line), ETL_E_BAD_VALUE (bytes that are
 *  not text in the file's encoding), ETL_E_NOMEM. */
ETL_API etl_sem_config *etl_sem_config_from_reg_file(const char *path, struct etl_sem_error *err);

/*! etl_sem_config_from_reg_memory() : the same for size bytes at data
 *  (only read during the call). name says what the bytes are in messages
 *  (NULL: "(memory)"). */
ETL_API etl_sem_config *etl_sem_config_from_reg_memory(const void *data, size_t size, const char *name,
                                                       struct etl_sem_error *err);

/*! etl_sem_config_from_hives() : reads an offline SYSTEM hive (the control
 *  set named by Select\Current) and, when software_path is not NULL, an
 *  offline SOFTWARE hive for the policy key, and builds the effective
 *  configuration. err may be NULL.
 *  @return : a new configuration, or NULL with err filled: ETL_E_IO
 *  (cannot open), ETL_E_TRUNCATED / ETL_E_BAD_MAGIC / ETL_E_BAD_SIZE (a
 *  damaged hive, with the file offset), ETL_E_NOT_FOUND (no Select\Current
 *  or no such control set: not a SYSTEM hive), ETL_E_LIMIT, ETL_E_NOMEM. */
ETL_API etl_sem_config *etl_sem_config_from_hives(const char *system_path, const char *software_path,
                                                  struct etl_sem_error *err);

/*! etl_sem_config_free() : frees cfg and everything its accessors returned.
 *  NULL is allowed. */
ETL_API void etl_sem_config_free(etl_sem_config *cfg);

/* ---- the effective configuration ---------------------------------------- */

/*! etl_sem_config_enabled() : @return : 1 if the SEM runs, 0 if the
 *  configuration switches it off (then every list below but the
 *  diagnostics is empty). */
ETL_API int etl_sem_config_enabled(const etl_sem_config *cfg);

/*! etl_sem_config_disabled_reason() : @return : enum etl_sem_off_reason
 *  (ETL_SEM_ON when enabled). */
ETL_API int etl_sem_config_disabled_reason(const etl_sem_config *cfg);

/*! etl_sem_config_disabled_message() : @return : a sentence saying why the
 *  SEM is off, naming the key; NULL when it is enabled. */
ETL_API const char *etl_sem_config_disabled_message(const etl_sem_config *cfg);

/*! etl_sem_config_timeout_minutes() : SEMTimeoutValue: scenarios that may
 *  time out end after this many minutes; 0 means none ever does.
 *  @return : the value, ETL_SEM_DEFAULT_TIMEOUT_MINUTES when not set. */
ETL_API uint32_t etl_sem_config_timeout_minutes(const etl_sem_config *cfg);

/*! etl_sem_config_housekeeping_seconds() : the period of the SEM's
 *  housekeeping tick (which ends timed-out scenarios): a tenth of the
 *  timeout, i.e. 6 s per timeout minute; 60 when the timeout is 0. */
ETL_API uint64_t etl_sem_config_housekeeping_seconds(const etl_sem_config *cfg);

/*! etl_sem_config_start_events() : the start events, *n of them (at most
 *  ETL_SEM_MAX_START_EVENTS). @return : the array (NULL when *n is 0). */
ETL_API const struct etl_sem_start_event *etl_sem_config_start_events(const etl_sem_config *cfg, size_t *n);

/*! etl_sem_config_find_start_event() : @return : the start event of
 *  provider with event id, or NULL when there is none (or the SEM is off). */
ETL_API const struct etl_sem_start_event *etl_sem_config_find_start_event(const etl_sem_config *cfg,
                                                                          const struct etl_guid *provider,
                                                                          uint16_t id);

/*! etl_sem_config_diaglog_providers() : the providers to enable on DiagLog
 *  when the SEM starts, with their combined parameters; *n of them. */
ETL_API const struct etl_sem_provider *etl_sem_config_diaglog_providers(const etl_sem_config *cfg, size_t *n);

/*! etl_sem_config_disabled_scenarios() : the defined scenarios that do not
 *  run, and who disabled them; *n of them. */
ETL_API const struct etl_sem_disabled_scenario *etl_sem_config_disabled_scenarios(const etl_sem_config *cfg,
                                                                                  size_t *n);

/*! etl_sem_config_dropped() : the definitions a limit dropped, one per
 *  status event 38-41 the engine is to write; *n of them. Each is also a
 *  diagnostic. */
ETL_API const struct etl_sem_dropped *etl_sem_config_dropped(const etl_sem_config *cfg, size_t *n);

/*! etl_sem_config_diagnostics() : every diagnostic; *n of them (0 for a
 *  clean configuration). Past 1000, the rest are counted into a last one
 *  with rule "diagnostics_truncated". */
ETL_API const struct etl_sem_diag *etl_sem_config_diagnostics(const etl_sem_config *cfg, size_t *n);

/*! etl_sem_config_equal() : @return : 1 if a and b are the same effective
 *  configuration: on/off and the reason code, timeout, start events with
 *  everything under them, DiagLog providers, disabled scenarios and dropped
 *  items (kind, provider, id, scenario). Key paths, messages and the
 *  diagnostics are not compared: they say where the configuration came
 *  from, not what it is (a .reg export names CurrentControlSet where a
 *  hive names ControlSet001). Two NULLs are equal. */
ETL_API int etl_sem_config_equal(const etl_sem_config *a, const etl_sem_config *b);

/*! etl_sem_params_combine() : combines p into acc the way the SEM
 *  aggregates a provider enabled for several reasons: level = maximum,
 *  keyword = OR, enable property = OR. For the engine's re-aggregation over
 *  the scenarios still running. */
ETL_API void etl_sem_params_combine(struct etl_sem_params *acc, const struct etl_sem_params *p);

/* ---- JSON ----------------------------------------------------------------- */

/* A byte sink; the same contract as etl_output_write_fn (etl_output.h), so
 * one function serves both: receives n > 0 bytes, returns 0 when all were
 * written, anything else on failure. */
typedef int (*etl_sem_write_fn)(void *ctx, const void *data, size_t n);

/*! etl_sem_config_write_json() : writes cfg as one JSON object (the
 *  contract in doc/sem.md §6), ending with a newline, through
 *  write(ctx, ...). @return : 0, or -1 as soon as write() fails (or cfg or
 *  write is NULL). */
ETL_API int etl_sem_config_write_json(const etl_sem_config *cfg, etl_sem_write_fn write, void *ctx);

/*! etl_sem_config_print_json() : the same to a stdio stream.
 *  @return : 0, or -1 on a write error. */
ETL_API int etl_sem_config_print_json(const etl_sem_config *cfg, FILE *out);

/* ---- the engine ------------------------------------------------------------
 *
 * Basic outline (doc/sem.md §8):
 *
 *     struct etl_sem_options o;
 *     etl_sem_options_init(&o);
 *     o.directory = "out";                     // out/DiagLog.etl, out/WdiContextLog.etl
 *     etl_sem *sem = etl_sem_new(cfg, &o);     // cfg from etl_sem_config_from_*()
 *     if (etl_sem_start(sem) != ETL_OK) { report etl_sem_errmsg(sem); }
 *
 *     struct etl_guid act = { 0 };             // zero: the SEM picks a new id
 *     etl_sem_write_start_scenario(sem, &prov, &start_ev, &act, 0, NULL);
 *     ...                                      // the context providers' events
 *     etl_sem_write_end_scenario(sem, &prov, &end_ev, &act, 0, NULL);
 *
 *     etl_sem_stop(sem);                       // both files complete
 *     etl_sem_free(sem);
 *
 * Model. The engine owns two sessions of the tracing runtime. DiagLog
 * receives the start and end events: every provider that owns one is
 * enabled on it, with the configuration's combined parameters, while the
 * SEM runs, and so is Microsoft-Windows-Kernel-WDI, whose status events
 * (ids 32-42, doc/sem.md §11) say what the engine did. WdiContextLog
 * receives the context providers' events: a scenario instance enables the
 * context providers of its start event there when it starts, and when it
 * ends disables each one no other running instance needs, or re-enables it
 * with the parameters combined over the instances still running. So a
 * context event written before a scenario starts or after it ends is not
 * in WdiContextLog, and one written between is (if it passes the filter).
 *
 * Instances. The scenario writes (etl_sem_write_start_scenario() and
 * _end_, and their TraceLogging forms) are etl_write_transfer() and
 * etl_write_tracelogging_counted() with the scenario's activity id, plus the
 * instance's start or end: a start event (provider GUID and event id)
 * starts one instance keyed by the activity id - one per start event:
 * scenarios that share it were merged by the configuration and start
 * together; an end event ends the instance of that activity id if the
 * event is one of its start event's end events. A plain etl_write() of the
 * same event starts and ends nothing. At most ETL_SEM_MAX_INSTANCES run at
 * once.
 *
 * Time. The engine's clock is the caller's time source when options.clock
 * is set (both sessions then run on it too, and housekeeping and their
 * flush timers advance only in etl_sem_clock_advanced()), else the system
 * clock (a housekeeping thread then wakes every housekeeping period). An
 * instance that may time out and is older than the configuration's
 * timeout at a housekeeping tick ends with status event 34.
 *
 * Thread safety: the scenario writes, etl_sem_dispatch(),
 * etl_sem_clock_advanced() and etl_sem_stats() may be called from any
 * thread at once, while the program writes its events. Starting,
 * stopping, updating and freeing are the controller's: one thread at a
 * time, not concurrently with each other. Enable callbacks of the
 * providers the SEM enables (capture-state requests included) run under
 * the SEM's lock: they may write events but must not call etl_sem_*.
 *
 * Results of the scenario calls: ETL_OK when the event reached every
 * session meant for it and the scenario action was done, or there was none
 * to do; ETL_FAILED when the event was lost in a session or the action was
 * refused or failed (a status event says so). etl_sem_last_status() tells
 * the calling thread which, as an NTSTATUS (the table at
 * etl_sem_last_status()).
 */

typedef struct etl_sem etl_sem;

#define ETL_SEM_MAX_INSTANCES 128     /* scenario instances in flight      */

/* Default logger names and file names (doc/sem.md §9). */
#define ETL_SEM_DIAGLOG_NAME     "DiagLog"
#define ETL_SEM_CONTEXTLOG_NAME  "WdiContextLog"
#define ETL_SEM_DIAGLOG_FILE     "DiagLog.etl"
#define ETL_SEM_CONTEXTLOG_FILE  "WdiContextLog.etl"

/* NTSTATUS values of the scenario calls (etl_sem_last_status()) and of the
 * status events 36, 37 and 42 (doc/sem.md §10). */
#define ETL_SEM_STATUS_SUCCESS                 0x00000000u
#define ETL_SEM_STATUS_UNSUCCESSFUL            0xC0000001u
#define ETL_SEM_STATUS_INVALID_PARAMETER       0xC000000Du
#define ETL_SEM_STATUS_NO_MEMORY               0xC0000017u
#define ETL_SEM_STATUS_OBJECT_NAME_INVALID     0xC0000033u
#define ETL_SEM_STATUS_OBJECT_NAME_NOT_FOUND   0xC0000034u
#define ETL_SEM_STATUS_OBJECT_NAME_COLLISION   0xC0000035u
#define ETL_SEM_STATUS_INSUFFICIENT_RESOURCES  0xC000009Au
#define ETL_SEM_STATUS_NAME_TOO_LONG           0xC0000106u
#define ETL_SEM_STATUS_NOT_FOUND               0xC0000225u

/* etl_sem_dispatch() codes, the trace-control codes of Windows' SEM. */
#define ETL_SEM_DISPATCH_START 10
#define ETL_SEM_DISPATCH_END   11

struct etl_sem_options {
	uint32_t struct_size;              /* sizeof(struct etl_sem_options)  */
	const char *directory;             /* where the two files go when their
	                                      file_name is NULL; NULL: "."     */
	struct etl_session_props diaglog;  /* DiagLog's properties; file_name
	                                      NULL: directory/DiagLog.etl      */
	struct etl_session_props context;  /* WdiContextLog's; file_name NULL:
	                                      directory/WdiContextLog.etl      */
	const char *diaglog_name;          /* logger names in the files' headers;
	                                      NULL: "DiagLog"                  */
	const char *context_name;          /* NULL: "WdiContextLog"            */
	int blocking;                      /* 1: both sessions block writers
	                                      rather than lose events          */
	etl_clock_fn clock;                /* NULL: the system clock; else the
	                                      engine's and both sessions' time
	                                      (their props' clock is replaced) */
	void *clock_ctx;
};

/*! etl_sem_options_init() : the defaults: both sessions as
 *  etl_session_props_init() gives them, sequential files, DiagLog with
 *  16 KiB buffers (it receives few events), WdiContextLog with 64 KiB
 *  buffers; directory ".", the default names, losing rather than blocking,
 *  the system clock. */
ETL_API void etl_sem_options_init(struct etl_sem_options *o);

/*! etl_sem_new() : an engine for cfg with options o (copied, strings too;
 *  NULL: the defaults). cfg is borrowed: it must stay valid until
 *  etl_sem_update() replaces it or etl_sem_free(); one configuration may
 *  serve several engines. Nothing runs until etl_sem_start().
 *  @return : the engine, or NULL when cfg is NULL, o is from another
 *  version (struct_size too small) or memory ran out. */
ETL_API etl_sem *etl_sem_new(const etl_sem_config *cfg, const struct etl_sem_options *o);

/*! etl_sem_start() : starts DiagLog and WdiContextLog (creating their
 *  files), enables Kernel-WDI on DiagLog, and, when the configuration has
 *  the SEM on, the DiagLog providers; writes the status events of the
 *  configuration (38-41 for what its limits dropped, 42 for rejected
 *  definitions and for a SEM switched off by a fault). With the system
 *  clock, starts the housekeeping thread. A configuration that switches
 *  the SEM off still starts the sessions: scenario writes then write
 *  their events and start nothing.
 *  @return : ETL_OK; ETL_FAILED for a session that cannot start with its
 *  properties (ETL_E_BAD_VALUE, ETL_E_LIMIT: a name in use) or an engine
 *  already running (ETL_E_MISUSE); ETL_FATAL for a file, thread or memory
 *  failure. The reason is in etl_sem_errcode() / etl_sem_errmsg(); nothing
 *  is left running. */
ETL_API int etl_sem_start(etl_sem *sem);

/*! etl_sem_stop() : ends every instance in flight (status event 33 for
 *  each, with its start event's provider and id), disables every
 *  provider, stops both sessions (files complete: buffers flushed, headers
 *  final). Statistics stay readable; etl_sem_start() may start it again
 *  (the files are written anew). @return : ETL_OK; ETL_FAILED when not
 *  running; ETL_FATAL when a file could not be finished. */
ETL_API int etl_sem_stop(etl_sem *sem);

/*! etl_sem_free() : stops sem if running, then frees it. NULL allowed. */
ETL_API void etl_sem_free(etl_sem *sem);

/*! etl_sem_update() : restarts the SEM on cfg, as Windows' update control
 *  code does: every instance in flight ends (status event 33 each),
 *  the old configuration's providers are disabled, cfg replaces it (borrowed
 *  as by etl_sem_new(); the old one is no longer used when this returns),
 *  and the SEM starts again on it (DiagLog providers, status events 38-42).
 *  The sessions run on: both files continue. On an engine not running,
 *  only replaces the configuration. @return : ETL_OK; ETL_FAILED when cfg
 *  is NULL (ETL_E_MISUSE). */
ETL_API int etl_sem_update(etl_sem *sem, const etl_sem_config *cfg);

/*! etl_sem_write_start_scenario() : writes the event (as
 *  etl_write_transfer() with activity as its activity id), then starts the
 *  scenario instance of the start event (provider p's GUID, d->id) keyed by
 *  *activity: its context providers are enabled on WdiContextLog (a
 *  capture-state request to those configured for it) and status event 32
 *  lists them. *activity all zero: a new id (etl_activity_new()) is used
 *  and stored there. Refused, with the event still written: an id already
 *  in flight (status event 36, STATUS_OBJECT_NAME_COLLISION), and a 129th
 *  instance (status event 35, STATUS_INSUFFICIENT_RESOURCES). An event that
 *  is no start event (or a SEM off or not running) only writes the event.
 *  @return : ETL_OK or ETL_FAILED (see "Results" above); ETL_FAILED with
 *  STATUS_INVALID_PARAMETER and nothing written when sem, p, d or
 *  activity is NULL. */
ETL_API int etl_sem_write_start_scenario(etl_sem *sem, etl_provider *p, const struct etl_event_descriptor *d,
                                         struct etl_guid *activity, uint32_t n, const struct etl_data *data);

/*! etl_sem_write_end_scenario() : ends the instance of *activity when the
 *  event (p's GUID, d->id) is one of its start event's end events - its
 *  context providers are disabled or re-enabled with the parameters of
 *  the instances still running, and status event 33 lists them - then
 *  writes the event (as etl_write_transfer() with activity). A configured
 *  end event with no such instance (an all-zero id, one not in flight, one
 *  whose start event this event does not end; or one already timed out)
 *  is reported with status event 37 (STATUS_OBJECT_NAME_NOT_FOUND, or
 *  STATUS_INVALID_PARAMETER for the zero id); an event that ends no
 *  configured scenario only writes the event. Same returns. */
ETL_API int etl_sem_write_end_scenario(etl_sem *sem, etl_provider *p, const struct etl_event_descriptor *d,
                                       const struct etl_guid *activity, uint32_t n, const struct etl_data *data);

/*! etl_sem_write_start_scenario_tracelogging(),
 *  etl_sem_write_end_scenario_tracelogging() : the same for a TraceLogging
 *  event: meta and meta_size as etl_write_tracelogging() takes them, data
 *  pieces possibly counted as etl_write_tracelogging_counted() takes them.
 *  A TraceLogging event's id is d->id (0 for the events ETL_TL_* build),
 *  so its start event is configured as {provider};0. Same returns. */
ETL_API int etl_sem_write_start_scenario_tracelogging(etl_sem *sem, etl_provider *p,
                                                      const struct etl_event_descriptor *d,
                                                      const void *meta, uint16_t meta_size,
                                                      struct etl_guid *activity,
                                                      uint32_t n, const struct etl_data *data);
ETL_API int etl_sem_write_end_scenario_tracelogging(etl_sem *sem, etl_provider *p,
                                                    const struct etl_event_descriptor *d,
                                                    const void *meta, uint16_t meta_size,
                                                    const struct etl_guid *activity,
                                                    uint32_t n, const struct etl_data *data);

/*! etl_sem_dispatch() : starts (code ETL_SEM_DISPATCH_START) or ends
 *  (ETL_SEM_DISPATCH_END) the scenario whose start or end event is
 *  provider's event d->id for *activity, exactly as the scenario writes
 *  would - instance, context providers, status events - but without
 *  writing an event. START with an all-zero *activity stores the new id
 *  there. @return : as the scenario writes; ETL_FAILED with
 *  STATUS_INVALID_PARAMETER for another code or a NULL argument. */
ETL_API int etl_sem_dispatch(etl_sem *sem, uint32_t code, const struct etl_guid *provider,
                             const struct etl_event_descriptor *d, struct etl_guid *activity);

/*! etl_sem_last_status() : the NTSTATUS of the calling thread's last
 *  scenario write or dispatch (any engine):
 *    STATUS_SUCCESS (0)                 the instance started / ended
 *    STATUS_NOT_FOUND                   nothing to do: the event starts or
 *                                       ends no configured scenario, or
 *                                       the SEM is off or not running
 *                                       (returned with ETL_OK)
 *    STATUS_OBJECT_NAME_COLLISION       start: the id is in flight (36)
 *    STATUS_INSUFFICIENT_RESOURCES      start: 128 in flight (35)
 *    STATUS_OBJECT_NAME_NOT_FOUND       end: no instance of that id that
 *                                       this event ends (37)
 *    STATUS_INVALID_PARAMETER           a NULL argument, an unknown
 *                                       dispatch code, an all-zero id at
 *                                       end (37)
 *  ETL_SEM_STATUS_* name them. */
ETL_API uint32_t etl_sem_last_status(void);

/*! etl_sem_clock_advanced() : for an engine on the caller's clock
 *  (options.clock): time has moved. Runs the housekeeping ticks that fell
 *  due (instances past the timeout end, status event 34) and the two
 *  sessions' flush timers (etl_session_clock_advanced()), in that order,
 *  before returning. Cheap when nothing is due. @return : ETL_OK;
 *  ETL_FAILED when sem is not running or has the system clock; ETL_FATAL
 *  when a session's output failed. */
ETL_API int etl_sem_clock_advanced(etl_sem *sem);

struct etl_sem_stats {
	uint64_t started;            /* instances started (status event 32)  */
	uint64_t ended;              /* ended by an end event or dispatch (33) */
	uint64_t timed_out;          /* ended by a timeout (34)               */
	uint64_t stopped;            /* ended by etl_sem_update / stop (33)  */
	uint64_t refused;            /* starts refused: 128 in flight (35)   */
	uint64_t start_failed;       /* starts that failed (36)              */
	uint64_t end_failed;         /* ends that failed (37)                */
	uint64_t status_events;      /* Kernel-WDI events written, 32-42     */
	uint32_t in_flight;          /* instances running now                */
	uint32_t context_providers;  /* providers enabled on WdiContextLog   */
};

/*! etl_sem_stats() : copies the engine's figures into *st (a snapshot
 *  while it runs). @return : ETL_OK. */
ETL_API int etl_sem_stats(const etl_sem *sem, struct etl_sem_stats *st);

/*! etl_sem_diaglog(), etl_sem_context_log() : the engine's two sessions,
 *  for etl_session_stats() and etl_session_errmsg() (borrowed; valid until
 *  etl_sem_free(); do not start, stop, enable on or free them). */
ETL_API etl_session *etl_sem_diaglog(etl_sem *sem);
ETL_API etl_session *etl_sem_context_log(etl_sem *sem);

/*! etl_sem_errcode(), etl_sem_errmsg() : reason and sentence of the last
 *  failure of etl_sem_start / stop / update / clock_advanced; owned by
 *  the engine. */
ETL_API int etl_sem_errcode(const etl_sem *sem);
ETL_API const char *etl_sem_errmsg(const etl_sem *sem);

/* ---- replay: a captured trace through the SEM -------------------------------
 *
 * Basic outline (doc/sem.md §13), the engine on a clock that reads the
 * replayed events' times:
 *
 *     o.clock = replay_clock;                  // reads `now` below
 *     now = the trace's start time;
 *     etl_sem *sem = etl_sem_new(cfg, &o);  etl_sem_start(sem);
 *     for each event ev of the trace, in time order:
 *         now = ev->utc;
 *         etl_sem_clock_advanced(sem);         // timeouts due by now
 *         etl_sem_replay_event(sem, ev);       // the event, and its scenario
 *     etl_sem_stop(sem);
 *     struct etl_sem_report *r = etl_sem_report_new(sem);
 *     ...                                      // r->instances, r->diaglog_events, ...
 *     etl_sem_report_free(r);
 */

/*! etl_sem_replay_event() : replays a captured event (as etl_reader
 *  returns it) through the SEM. In a captured file a scenario write and a
 *  plain write of the same event look alike, so an EVENT_HEADER event
 *  (ETL_EVF_DESCRIPTOR) whose provider GUID and id are a configured end
 *  event is taken as etl_sem_write_end_scenario() with the event's
 *  activity id, and one that is a configured start event as
 *  etl_sem_write_start_scenario(), in their order: an end ends its
 *  instance before the event is written, a start starts one after it (an
 *  event that is both ends, is written, then starts). The event itself is
 *  written with etl_replay_write() (etl_trace.h): every field kept, to
 *  every session that enabled its provider - DiagLog and WdiContextLog
 *  among them. The status events the call writes share the event's time
 *  and go into the buffers of its processor (the calling thread's
 *  etl_thread_processor_set() is the event's during the call, restored
 *  before it returns), so they read back beside it in the order written.
 *  An all-zero activity id (a capture may hold one; a scenario write never
 *  writes one) follows a rule of libetl's (doc/sem.md §13):
 *    - an end event ends the oldest running instance (the first started)
 *      whose start event it ends, whatever that instance's id; with none
 *      running it fails as a scenario end with a zero id does (status
 *      event 37, STATUS_INVALID_PARAMETER);
 *    - a start event starts an instance keyed by a replay id made from
 *      the count of such starts so far (1, 2, ...: Data1) and the event's
 *      FILETIME (Data4, most significant byte first), Data2 and Data3 0:
 *      the same at every replay of the same trace. The event is still
 *      written with its zero id; the status events and the report carry
 *      the replay id.
 *  While instances run, an event their context providers' filters on
 *  WdiContextLog pass is counted in the report for every running instance
 *  that names its provider. Time is the engine's clock: the caller sets it
 *  to ev->utc and calls etl_sem_clock_advanced() before each event.
 *  Scenario calls and replayed events may be mixed; the report counts
 *  context events of replayed events only.
 *  @return : etl_replay_write()'s result: ETL_OK when the event reached
 *  every session meant for it, ETL_FAILED when it was lost in one,
 *  ETL_FATAL. A refused or failed scenario action is no failure of the
 *  replay (the trace holds what it holds; status events say so):
 *  etl_sem_last_status() tells it, as for the scenario writes (for an
 *  event that is both an end and a start event, the first failure, else
 *  the start's). ETL_FAILED with STATUS_INVALID_PARAMETER and nothing
 *  written when sem or ev is NULL. */
ETL_API int etl_sem_replay_event(etl_sem *sem, const struct etl_event *ev);

/* ---- the report: the scenario instances the engine ran --------------------- */

/* How an instance ended. */
enum etl_sem_instance_status {
	ETL_SEM_INSTANCE_OPEN = 0,      /* still running, or ended by
	                                   etl_sem_stop() / etl_sem_update():
	                                   no end event, no timeout          */
	ETL_SEM_INSTANCE_ENDED = 1,     /* by an end event (or dispatch)     */
	ETL_SEM_INSTANCE_TIMED_OUT = 2  /* by a timeout                       */
};

/* A start or end event of an instance: provider GUID, event id, and the
 * engine's time of it as a FILETIME (100 ns units since 1601, UTC): the
 * caller's clock when the engine runs on one (in a replay, the event's
 * time), else the system's real-time clock. */
struct etl_sem_report_event {
	struct etl_guid provider;
	uint16_t id;
	int64_t time;
};

/* The events of one context provider that WdiContextLog received while
 * an instance ran (replayed events only). */
struct etl_sem_context_count {
	struct etl_guid provider;
	uint64_t events;
};

/* One scenario instance, in the order they started. */
struct etl_sem_instance_report {
	const struct etl_guid *scenarios;   /* its start event's (merged)
	                                       scenarios, sorted              */
	size_t n_scenarios;
	struct etl_guid activity;           /* the instance's key (a replay id
	                                       for a zero one, see above)     */
	struct etl_sem_report_event start;  /* its start event                */
	struct etl_sem_report_event end;    /* ENDED: the end event; TIMED_OUT:
	                                       provider and id 0, time when it
	                                       timed out; OPEN: all 0          */
	int status;                         /* enum etl_sem_instance_status   */
	int64_t duration;                   /* end.time - start.time in 100 ns
	                                       units; -1 when OPEN            */
	const struct etl_sem_context_count *context; /* every context provider
	                                       of its start event, sorted, with
	                                       its count (0 included)         */
	size_t n_context;
};

struct etl_sem_report {
	const struct etl_sem_instance_report *instances;
	size_t n_instances;
	uint64_t unrecorded;                /* instances left out for want of
	                                       memory (0 normally)            */
	uint64_t diaglog_events;            /* events written to DiagLog, and */
	uint64_t wdicontextlog_events;      /* to WdiContextLog (their header
	                                       records left out)              */
	uint64_t lost_events;               /* events both sessions lost       */
};

/*! etl_sem_report_new() : a snapshot of every instance started since
 *  etl_sem_start() (running ones as OPEN) and of both sessions' event
 *  counts - exact once etl_sem_stop() returned (before, events still in
 *  buffers are not counted). May be called from any thread.
 *  @return : the report (one allocation; free it with
 *  etl_sem_report_free(); it owns every pointer in it), or NULL when sem
 *  is NULL or memory ran out. */
ETL_API struct etl_sem_report *etl_sem_report_new(etl_sem *sem);

/*! etl_sem_report_free() : frees r. NULL allowed. */
ETL_API void etl_sem_report_free(struct etl_sem_report *r);

/*! etl_sem_report_write_json() : writes r as one JSON object, the contract
 *  of doc/sem.md §13 ("instances" with "scenarios", "activity_id",
 *  "start", "end" or null, "status" "ended" | "timeout" | "open",
 *  "duration_ms" or null, "context_events"; "diaglog_events",
 *  "wdicontextlog_events", "lost_events"; times ISO 8601 UTC), one
 *  instance per line, ending with a newline, through write(ctx, ...).
 *  @return : 0, or -1 as soon as write() fails (or r or write is NULL). */
ETL_API int etl_sem_report_write_json(const struct etl_sem_report *r, etl_sem_write_fn write, void *ctx);

/*! etl_sem_scenario_name() : a short English name for a scenario Windows
 *  installs ("boot", "user logon", "standby/resume", ... doc/sem.md §7).
 *  @return : static string, or NULL for any other GUID. */
ETL_API const char *etl_sem_scenario_name(const struct etl_guid *scenario);

/* ETL_SEM_TL_START(sem, activity, prov, "EventName", items...) and
 * ETL_SEM_TL_END(...): a TraceLogging scenario event written and its
 * scenario started or ended, with the items of ETL_TL_WRITE
 * (etl_tracelogging.h) - but unconditionally (the scenario must start
 * even when no session wants the event) and with the scenario's activity
 * id: activity is a struct etl_guid * (START may fill it in), and an
 * ETL_TL_ACTIVITY item is ignored. The statement has no value:
 * etl_sem_last_status() tells the outcome. C only, as ETL_TL_WRITE. */
#define ETL_SEM_TL_START(sem, act, ...) \
	ETL__SEM_TL_(etl_sem_write_start_scenario_tracelogging, sem, act, __VA_ARGS__, ETL__TL_END)
#define ETL_SEM_TL_END(sem, act, ...) \
	ETL__SEM_TL_(etl_sem_write_end_scenario_tracelogging, sem, act, __VA_ARGS__, ETL__TL_END)
#define ETL__SEM_TL_(fn_, sem_, act_, prov_, name_, ...)                                 \
	do {                                                                             \
		const struct etl_event_descriptor etl__tl_d_ = ETL__TL_DESC_(__VA_ARGS__); \
		ETL__TL_PIECES_(name_, __VA_ARGS__)                                      \
		(void)etl__tl_act_;                                                      \
		(void)etl__tl_rel_;                                                      \
		(void)fn_((sem_), (prov_), &etl__tl_d_, etl__tl_m_, ETL__TL_META_SIZE,   \
		          (act_), ETL__TL_N, etl__tl_v_);                                \
	} while (0)

#ifdef __cplusplus
}
#endif
#endif /* ETL_SEM_H */

