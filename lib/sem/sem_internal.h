/*
 * lib/sem/sem_internal.h - what the files of the SEM configuration share
 * (internal): the diagnostics list every stage appends to, fatal-error
 * reporting, the configuration object itself and the entry points of
 * each stage.
 *
 * The stages, each in its own file, one direction only:
 *   reg_text.c   .reg bytes -> UTF-8 text (encodings, BOM, header line)
 *   reg_parse.c  .reg text -> registry tree (lib/sem/regtree.c)
 *   hive_load.c  offline hives -> registry tree (through hivex)
 *   sem_config.c registry tree -> definitions (the rules of doc/sem.md §3)
 *   sem_merge.c  definitions -> the effective configuration (merging,
 *                limits, ordering, the DiagLog aggregate)
 *   sem_api.c    the public loaders, accessors, equality
 *   sem_json.c   the JSON contract
 */
#ifndef ETL_SEM_INTERNAL_H
#define ETL_SEM_INTERNAL_H

#ifndef ETL_BUILDING_LIB
#error "lib/sem/sem_internal.h is internal to libetl"
#endif

#include <stddef.h>
#include <stdint.h>
#include "etl_sem.h"
#include "lib/sem/regtree.h"

#if defined(__GNUC__)
#define ETL_SEM_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define ETL_SEM_PRINTF(a, b)
#endif

/* Diagnostics kept one by one; the rest only counted (a hostile input can
 * break a rule on every line). */
#define ETL_SEM_MAX_DIAGNOSTICS 1000

struct etl__sem_diags {
	struct etl_sem_diag *v;      /* key and message malloc'd, rule static */
	size_t n, cap;
	size_t unlisted;             /* past ETL_SEM_MAX_DIAGNOSTICS          */
	int oom;
};

/*! etl__sem_diag_add() : appends a diagnostic (key NULL means ""; rule a
 *  static string). Out-of-memory sets d->oom. */
void etl__sem_diag_add(struct etl__sem_diags *d, const char *key, const char *rule, const char *fmt, ...)
	ETL_SEM_PRINTF(4, 5);

/*! etl__sem_diags_finish() : appends the "diagnostics_truncated" summary
 *  when some were only counted. */
void etl__sem_diags_finish(struct etl__sem_diags *d);

/*! etl__sem_diags_free() : frees the list. */
void etl__sem_diags_free(struct etl__sem_diags *d);

/*! etl__sem_err() : fills err (may be NULL) with code, position (line and
 *  column 0 and offset -1 when unknown) and a formatted sentence. */
void etl__sem_err(struct etl_sem_error *err, int code, uint32_t line, uint32_t column, int64_t offset,
                  const char *fmt, ...) ETL_SEM_PRINTF(6, 7);

/*! etl__sem_utf16_units() : the length of UTF-8 text s in UTF-16 code
 *  units, the registry's measure of a name (invalid bytes count one). */
size_t etl__sem_utf16_units(const char *s);

struct etl_sem_config {
	int off_reason;                       /* enum etl_sem_off_reason     */
	char *off_message;
	uint32_t timeout_minutes;
	uint64_t housekeeping_seconds;
	struct etl_sem_start_event *starts;   /* each owns its three arrays  */
	size_t n_starts;
	struct etl_sem_provider *diaglog;
	size_t n_diaglog;
	struct etl_sem_disabled_scenario *disabled;
	size_t n_disabled;
	struct etl_sem_dropped *dropped;      /* key strings owned           */
	size_t n_dropped;
	struct etl_sem_diag *diags;           /* taken from the builder      */
	size_t n_diags;
};

/* ---- reg_text.c ------------------------------------------------------------ */

/* The .reg dialect, from the header line. */
enum etl__reg_version { ETL_REG_V4 = 4, ETL_REG_V5 = 5 };

/*! etl__reg_text() : decodes size bytes of a .reg file to NUL-terminated
 *  UTF-8 (*text, *len, malloc'd; NUL characters refused) and checks the
 *  header line. *body is the offset of the line after the header.
 *  @return : 0, or -1 with err filled (name names the input). */
int etl__reg_text(const uint8_t *data, size_t size, const char *name, char **text, size_t *len,
                  size_t *body, enum etl__reg_version *ver, struct etl_sem_error *err);

/* ---- reg_parse.c ----------------------------------------------------------- */

/*! etl__reg_parse() : reads a .reg file into t, keeping only the keys the
 *  SEM reads (doc/sem.md §2.1); line-level trouble becomes diagnostics.
 *  @return : 0, or -1 with err filled (fatal: encoding, header, caps). */
int etl__reg_parse(const uint8_t *data, size_t size, const char *name, struct etl__regtree *t,
                   struct etl__sem_diags *d, struct etl_sem_error *err);

/* ---- hive_load.c ----------------------------------------------------------- */

/*! etl__hive_load() : copies the keys the SEM reads from an offline hive
 *  into t: from a SYSTEM hive (software = 0) Select and the WDI key of the
 *  current control set, from a SOFTWARE hive the WDI policy key.
 *  @return : 0, or -1 with err filled (naming path, and the offset when
 *  known). */
int etl__hive_load(const char *path, int software, struct etl__regtree *t, struct etl_sem_error *err);

/* ---- sem_config.c / sem_merge.c -------------------------------------------- */

/* One start-event definition as one scenario gives it, checked. */
struct etl__sem_def {
	struct etl_guid scenario;
	int timeout_enabled;
	struct etl_sem_end_event start;      /* the start event's provider/id/params */
	const char *key;                     /* its key path                  */
	struct etl_sem_end_event *ends;
	char **end_keys;
	size_t n_ends;
	struct etl_sem_context_provider *ctx;
	char **ctx_keys;
	size_t n_ctx;
};

struct etl__sem_merge;

/*! etl__sem_merge_new() : an empty effective configuration in the making. */
struct etl__sem_merge *etl__sem_merge_new(void);

/*! etl__sem_merge_add() : merges one checked definition in, applying the
 *  limits (each drop recorded and diagnosed in d). @return : 0, or -1 on
 *  out-of-memory. */
int etl__sem_merge_add(struct etl__sem_merge *m, const struct etl__sem_def *def, struct etl__sem_diags *d);

/*! etl__sem_merge_finish() : moves the merged start events, the DiagLog
 *  aggregate and the dropped items into cfg, sorted, and frees m.
 *  @return : 0, or -1 on out-of-memory (m freed either way). */
int etl__sem_merge_finish(struct etl__sem_merge *m, struct etl_sem_config *cfg);

/*! etl__sem_merge_free() : frees m when it is not finished. */
void etl__sem_merge_free(struct etl__sem_merge *m);

/*! etl__sem_guid_cmp() : orders GUIDs as their upper-case text. */
int etl__sem_guid_cmp(const struct etl_guid *a, const struct etl_guid *b);

/* "{XXXXXXXX-XXXX-XXXX-XXXX-XXXXXXXXXXXX}" and its NUL. */
#define ETL_SEM_GUID_TEXT 39

/*! etl__sem_guid_text() : g as upper-case braced text, the way the
 *  registry names it. @return : out. */
char *etl__sem_guid_text(const struct etl_guid *g, char out[ETL_SEM_GUID_TEXT]);

/*! etl__sem_config_build() : applies the rules to t. The diagnostics in d
 *  are moved into the result. @return : the configuration, or NULL on
 *  out-of-memory (err filled). */
etl_sem_config *etl__sem_config_build(const struct etl__regtree *t, struct etl__sem_diags *d,
                                      struct etl_sem_error *err);

/*! etl__sem_config_free() : frees a configuration (etl_sem_config_free());
 *  in sem_config.c, beside the builder. */
void etl__sem_config_free(etl_sem_config *cfg);

/* ---- sem_names.c ------------------------------------------------------------- */

/* The outcome of reading a "{guid};id" subkey name. */
enum etl__sem_name {
	ETL_SEM_NAME_OK = 0,
	ETL_SEM_NAME_TOO_LONG,     /* over ETL_SEM_MAX_NAME characters          */
	ETL_SEM_NAME_NO_SEMICOLON,
	ETL_SEM_NAME_BAD_GUID,     /* the text before ';' is not a braced GUID  */
	ETL_SEM_NAME_NO_ID,        /* nothing after ';'                         */
	ETL_SEM_NAME_ID_RANGE,     /* the number is above 65535                 */
	ETL_SEM_NAME_PLACEHOLDER   /* exactly "*"                               */
};

/*! etl__sem_parse_event_name() : reads a start or end event subkey name.
 *  @return : enum etl__sem_name; *guid and *id are set for ETL_SEM_NAME_OK. */
int etl__sem_parse_event_name(const char *name, struct etl_guid *guid, uint16_t *id);

/*! etl__sem_parse_braced_guid() : 1 if name is exactly a braced GUID (any
 *  case), with *guid set. */
int etl__sem_parse_braced_guid(const char *name, struct etl_guid *guid);

#endif /* ETL_SEM_INTERNAL_H */
