/*
 * lib/sem/sem_status.c - the status events of the SEM engine: what it did,
 * written as events of Microsoft-Windows-Kernel-WDI
 * {2FF3E6B7-CB90-4700-9621-443F389734ED} to DiagLog (doc/sem.md §11).
 *
 * Each payload is packed and little-endian, laid out field by field here
 * (not as C structs: the GUIDs and u16 ids leave the fields unaligned).
 * testdata/manifests/kernel-wdi.man describes the same layouts, so a
 * manifest decoder names every field.
 */
#define ETL_BUILDING_LIB 1
#include <string.h>
#include "etl_errors.h"
#include "lib/common/cursor.h"
#include "lib/sem/engine_internal.h"

/* Keywords, tasks, opcodes (doc/sem.md §11). */
#define KW_CONTEXT 0x100000000ull
#define KW_DIAG    0x200000000ull
#define TASK_SCENARIO 9
#define TASK_INIT     10

struct status_desc {
	uint8_t level, opcode;
	uint16_t task;
	uint64_t keyword;
};

/* Indexed by event id - 32. */
static const struct status_desc DESCS[11] = {
	{ 4, 10, TASK_SCENARIO, KW_CONTEXT },  /* 32 started                */
	{ 4, 11, TASK_SCENARIO, KW_CONTEXT },  /* 33 ended                  */
	{ 3, 12, TASK_SCENARIO, KW_DIAG },     /* 34 timed out              */
	{ 3, 15, TASK_SCENARIO, 0 },           /* 35 too many in flight     */
	{ 3, 13, TASK_SCENARIO, 0 },           /* 36 start failed           */
	{ 3, 14, TASK_SCENARIO, 0 },           /* 37 end failed             */
	{ 2, 17, TASK_INIT, 0 },               /* 38 scenario limit         */
	{ 2, 18, TASK_INIT, 0 },               /* 39 context provider limit */
	{ 2, 19, TASK_INIT, 0 },               /* 40 end event limit        */
	{ 2, 20, TASK_INIT, 0 },               /* 41 provider limit         */
	{ 2, 16, TASK_INIT, 0 },               /* 42 misconfiguration       */
};

#define ACTION_SIZE 40u   /* GUID, level, 7 reserved, keyword, property, status */
#define CENSUS_SIZE 26u   /* GUID, u32 id, u16 reserved, u32 count              */
#define HEAD_SIZE   18u   /* GUID, u16 id                                        */

static int emit(etl_provider *wdi, int event, const struct etl_guid *activity, const uint8_t *p, size_t n)
{
	const struct status_desc *s = &DESCS[event - 32];
	struct etl_event_descriptor d = { (uint16_t)event, 0, 0, s->level, s->opcode, s->task, s->keyword };
	struct etl_guid zero;
	memset(&zero, 0, sizeof zero);
	struct etl_data data = ETL_DATA(p, n);
	return etl_write_transfer(wdi, &d, activity ? activity : &zero, NULL, 1, &data);
}

static uint8_t *put_head(uint8_t *o, const struct etl_guid *provider, uint16_t id)
{
	etl_put_guid(o, provider);
	etl_put16(o + 16, id);
	return o + HEAD_SIZE;
}

int etl__sem_status_scenario(etl_provider *wdi, int ended, const struct etl_guid *activity,
                             const struct etl_guid *provider, uint16_t id, uint32_t dropped,
                             const struct etl__sem_action *a, size_t n)
{
	uint8_t buf[HEAD_SIZE + 5 + ETL_SEM_MAX_CONTEXT_PROVIDERS * ACTION_SIZE];
	if (n > ETL_SEM_MAX_CONTEXT_PROVIDERS)
		n = ETL_SEM_MAX_CONTEXT_PROVIDERS;
	uint8_t *o = put_head(buf, provider, id);
	etl_put32(o, dropped);
	o[4] = (uint8_t)n;
	o += 5;
	for (size_t i = 0; i < n; i++, o += ACTION_SIZE) {
		etl_put_guid(o, &a[i].provider);
		o[16] = a[i].params.level;
		memset(o + 17, 0, 7);
		etl_put64(o + 24, a[i].params.keyword);
		etl_put32(o + 32, a[i].params.enable_property);
		etl_put32(o + 36, a[i].status);
	}
	return emit(wdi, ended ? ETL_SEM_EV_ENDED : ETL_SEM_EV_STARTED, activity, buf, (size_t)(o - buf));
}

int etl__sem_status_event(etl_provider *wdi, int event, const struct etl_guid *activity,
                          const struct etl_guid *provider, uint16_t id)
{
	uint8_t buf[HEAD_SIZE];
	put_head(buf, provider, id);
	/* 41 names the provider alone. */
	return emit(wdi, event, activity, buf, event == ETL_SEM_DROP_PROVIDER ? 16 : HEAD_SIZE);
}

int etl__sem_status_ntstatus(etl_provider *wdi, int event, const struct etl_guid *activity,
                             const struct etl_guid *provider, uint16_t id, uint32_t ntstatus)
{
	uint8_t buf[HEAD_SIZE + 4];
	etl_put32(put_head(buf, provider, id), ntstatus);
	return emit(wdi, event, activity, buf, sizeof buf);
}

int etl__sem_status_too_many(etl_provider *wdi, const struct etl_guid *activity,
                             const struct etl_guid *provider, uint16_t id,
                             const struct etl__sem_census *c, size_t n)
{
	uint8_t buf[HEAD_SIZE + 1 + ETL_SEM_MAX_START_EVENTS * CENSUS_SIZE];
	if (n > ETL_SEM_MAX_START_EVENTS)
		n = ETL_SEM_MAX_START_EVENTS;
	uint8_t *o = put_head(buf, provider, id);
	*o++ = (uint8_t)n;
	for (size_t i = 0; i < n; i++, o += CENSUS_SIZE) {
		etl_put_guid(o, &c[i].provider);
		etl_put32(o + 16, c[i].id);
		etl_put16(o + 20, 0);
		etl_put32(o + 22, c[i].count);
	}
	return emit(wdi, ETL_SEM_EV_TOO_MANY, activity, buf, (size_t)(o - buf));
}

uint32_t etl__sem_ntstatus_of(int errcode)
{
	switch (errcode) {
	case ETL_E_LIMIT:
		return ETL_SEM_STATUS_INSUFFICIENT_RESOURCES;
	case ETL_E_NOMEM:
		return ETL_SEM_STATUS_NO_MEMORY;
	case ETL_E_NOT_FOUND:
		return ETL_SEM_STATUS_NOT_FOUND;
	case ETL_E_BAD_VALUE:
	case ETL_E_MISUSE:
		return ETL_SEM_STATUS_INVALID_PARAMETER;
	default:
		return ETL_SEM_STATUS_UNSUCCESSFUL;
	}
}
