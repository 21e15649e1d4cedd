/*
 * etl_sem.h - the Scenario Event Mapper's configuration: load the WDI
 * registry configuration from a `reg export` file or from offline hives,
 * apply the SEM's rules (doc/sem.md §3) and read the effective configuration
 * the SEM engine runs.
 *
 * Basic outline:
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

#ifdef __cplusplus
}
#endif
#endif /* ETL_SEM_H */
