/*
 * sem_files.h - reading back what the SEM engine wrote (tests/check_sem_*.c):
 * every event of a DiagLog or WdiContextLog file with its identity, and the
 * Kernel-WDI status events decoded field by field through
 * testdata/manifests/kernel-wdi.man - the manifest is tested with them.
 */
#ifndef SEM_FILES_H
#define SEM_FILES_H

#include <stddef.h>
#include <stdint.h>
#include "etl.h"

#define SF_MAX_ACTIONS 8
#define SF_MAX_CENSUS 4

struct sf_action {
	struct etl_guid provider;
	uint8_t level;
	uint64_t keyword;
	uint32_t property;
	uint32_t status;
};

struct sf_census {
	struct etl_guid provider;
	uint32_t id;
	uint32_t count;
};

struct sf_event {
	struct etl_guid provider;
	uint16_t id;
	uint8_t level, opcode;
	uint16_t task;
	uint64_t keyword;
	struct etl_guid activity;
	int64_t utc;
	uint32_t tag;                       /* the payload's first u32, or 0   */
	/* Kernel-WDI events, as the manifest decodes them (decoded 1). */
	int decoded;
	struct etl_guid st_provider;        /* ProviderID                       */
	uint32_t st_id;                     /* EventID                          */
	uint32_t dropped;                   /* DroppedEventCount                */
	uint32_t ntstatus;                  /* NTStatus                         */
	size_t n_actions;                   /* ActionCount, and the Actions     */
	struct sf_action actions[SF_MAX_ACTIONS];
	size_t n_census;                    /* ScenarioCount, and the Scenarios */
	struct sf_census census[SF_MAX_CENSUS];
	char event_name[64];
	char message[320];
};

struct sf_file {
	struct sf_event *ev;                /* header buffer records left out   */
	size_t n;
	size_t errors;                      /* reader results other than OK     */
	struct etl_logfile lf;              /* name pointers dropped            */
	char logger_name[64];
};

/* Microsoft-Windows-Kernel-WDI. */
extern const struct etl_guid SF_KERNEL_WDI;

/*! sf_read() : reads path (aborting the test on a fatal error). */
void sf_read(struct sf_file *f, const char *path);
void sf_free(struct sf_file *f);

/*! sf_count() : events of provider with event id (id < 0: any). */
size_t sf_count(const struct sf_file *f, const struct etl_guid *provider, int id);

/*! sf_nth() : the nth (from 0) such event, or NULL. */
const struct sf_event *sf_nth(const struct sf_file *f, const struct etl_guid *provider, int id, size_t nth);

/*! sf_has_tag() : 1 when an event of provider carries tag. */
int sf_has_tag(const struct sf_file *f, const struct etl_guid *provider, uint32_t tag);

#endif /* SEM_FILES_H */
