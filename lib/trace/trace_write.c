/*
 * lib/trace/trace_write.c - the write kinds of the tracing runtime (etl_trace.h,
 * etl_tracelogging.h): each describes its event on the stack, as an
 * etl__rt_event whose callbacks (lib/trace/trace_encode.c) size and encode the
 * record per receiving session, and hands it to the delivery core.
 *
 * Every write first checks the provider's aggregate state
 * (etl_event_enabled()): an event no session can want costs that check
 * and nothing else. The description is only built after it.
 */
#define ETL_BUILDING_LIB 1
#include <string.h>

#include "lib/trace/trace_encode.h"
#include "etl_tracelogging.h"

/* The return address in the code that called the public write, where a
 * captured stack starts (lib/trace/trace_encode.h, STACK_TRACE64). */
#define CALLER() ((uintptr_t)__builtin_return_address(0))


static int eh_write(etl_provider *p, const struct etl_event_descriptor *d,
                    const struct etl_guid *activity, const struct etl_guid *related,
                    const void *meta, uint16_t meta_size, uint32_t n,
                    const struct etl_data *data, int counted, uintptr_t caller)
{
	struct etl__eh_desc x;
	struct etl__rt_event ev;
	struct etl_guid g;
	char gtext[ETL_GUID_STRLEN];
	const char *name = NULL;

	if (!p || !d)
		return ETL_FAILED;
	if (!etl_event_enabled(p, d->level, d->keyword))
		return ETL_OK;
	g = etl_provider_guid(p);
	if (meta) {
		/* The name registered with etl_provider_register_name(); a
		 * provider registered by GUID is named by the GUID's text. */
		name = etl__rt_provider_name(p);
		if (!name)
			name = etl_guid_format(&g, gtext);
	}
	if (etl__eh_prepare(&x, &g, d, activity, related, meta, meta_size, name, n, data,
	                    counted, caller) != ETL_OK)
		return ETL_FAILED;
	etl__eh_event(&ev, p, &x);
	return etl__rt_deliver(&ev);
}

int etl_write(etl_provider *p, const struct etl_event_descriptor *d,
              uint32_t n, const struct etl_data *data)
{
	return eh_write(p, d, NULL, NULL, NULL, 0, n, data, 0, CALLER());
}

int etl_write_transfer(etl_provider *p, const struct etl_event_descriptor *d,
                       const struct etl_guid *activity, const struct etl_guid *related,
                       uint32_t n, const struct etl_data *data)
{
	return eh_write(p, d, activity, related, NULL, 0, n, data, 0, CALLER());
}

int etl_write_tracelogging(etl_provider *p, const struct etl_event_descriptor *d,
                           const void *meta, uint16_t meta_size,
                           const struct etl_guid *activity, const struct etl_guid *related,
                           uint32_t n, const struct etl_data *data)
{
	if (!meta)
		return ETL_FAILED;
	return eh_write(p, d, activity, related, meta, meta_size, n, data, 0, CALLER());
}

int etl_write_tracelogging_counted(etl_provider *p, const struct etl_event_descriptor *d,
                                   const void *meta, uint16_t meta_size,
                                   const struct etl_guid *activity, const struct etl_guid *related,
                                   uint32_t n, const struct etl_data *data)
{
	if (!meta)
		return ETL_FAILED;
	return eh_write(p, d, activity, related, meta, meta_size, n, data, 1, CALLER());
}

static int classic_write(etl_provider *p, const struct etl_guid *class_guid,
                         uint8_t type, uint8_t level, uint16_t version, int instance,
                         uint32_t instance_id, uint32_t parent_instance_id,
                         const struct etl_guid *parent_guid,
                         uint32_t n, const struct etl_data *data)
{
	struct etl__classic_desc x;
	struct etl__rt_event ev;

	if (!p || !class_guid)
		return ETL_FAILED;
	if (!etl_event_enabled(p, level, 0))
		return ETL_OK;
	x.payload_size = etl__payload_size(n, data, 0);
	if (n && !data)
		return ETL_FAILED;
	x.class_guid = *class_guid;
	if (parent_guid)
		x.parent_guid = *parent_guid;
	else
		memset(&x.parent_guid, 0, sizeof x.parent_guid);
	x.type = type;
	x.level = level;
	x.version = version;
	x.instance = instance;
	x.instance_id = instance_id;
	x.parent_instance_id = parent_instance_id;
	x.n = n;
	x.data = data;
	etl__classic_event(&ev, p, &x);
	return etl__rt_deliver(&ev);
}

int etl_write_classic(etl_provider *p, const struct etl_guid *class_guid,
                      uint8_t type, uint8_t level, uint16_t version,
                      uint32_t n, const struct etl_data *data)
{
	return classic_write(p, class_guid, type, level, version, 0, 0, 0, NULL, n, data);
}

int etl_write_instance(etl_provider *p, const struct etl_guid *class_guid,
                       uint8_t type, uint8_t level, uint16_t version,
                       uint32_t instance_id, uint32_t parent_instance_id,
                       const struct etl_guid *parent_guid,
                       uint32_t n, const struct etl_data *data)
{
	return classic_write(p, class_guid, type, level, version, 1, instance_id,
	                     parent_instance_id, parent_guid, n, data);
}

int etl_write_message(etl_provider *p, uint8_t level, uint64_t keyword,
                      const struct etl_guid *message_guid, uint16_t message_number,
                      uint32_t n, const struct etl_data *data)
{
	struct etl__msg_desc x;
	struct etl__rt_event ev;

	if (!p || !message_guid)
		return ETL_FAILED;
	if (!etl_event_enabled(p, level, keyword))
		return ETL_OK;
	if (n && !data)
		return ETL_FAILED;
	x.message_guid = *message_guid;
	x.number = message_number;
	x.sequence = etl__msg_next_sequence();
	x.n = n;
	x.data = data;
	x.payload_size = etl__payload_size(n, data, 0);
	etl__msg_event(&ev, p, level, keyword, &x);
	return etl__rt_deliver(&ev);
}
