/*
 * lib/trace/trace_seam.h - the seam between the runtime's delivery core
 * (sessions, buffers, routing: lib/trace/trace_session.c, lib/trace/trace_buffers.c,
 * lib/trace/trace_provider.c) and the write kinds that encode records
 * (lib/trace/trace_write.c, lib/trace/trace_encode.c).
 *
 * A write function describes one event as a struct etl__rt_event - its
 * filtering fields and two callbacks that size and encode its record - and
 * hands it to etl__rt_deliver(). The core picks the sessions whose exact
 * filters the event passes, reserves space for the record in each (all or
 * nothing, see etl_trace.h), calls encode once per session straight into
 * the reserved space, and commits. Encoding per session lets a record
 * carry the extended items that session's enable properties ask for and
 * the timestamp of that session's clock.
 */
#ifndef ETL_TRACE_PRIVATE_H
#define ETL_TRACE_PRIVATE_H

#ifndef ETL_BUILDING_LIB
#error "lib/trace/trace_seam.h is internal to libetl"
#endif

#include <stdint.h>
#include "etl_trace.h"

/* What the core knows when it asks for a record: the same for every
 * session except timestamp (the session's clock) and props. */
struct etl__rt_stamp {
	int64_t  timestamp;   /* raw clock value in the session's clock type  */
	uint32_t pid, tid;    /* the writing process and thread (Linux ids)   */
	uint32_t cpu;         /* processor whose buffer receives the record   */
	uint32_t props;       /* the session's ETL_ENABLE_* for this provider */
	uint16_t logger_id;   /* the session's logger id (1..64)              */
};

struct etl__rt_event {
	etl_provider *prov;
	uint8_t  level;
	uint64_t keyword;
	/* Record size in bytes (before 8-byte alignment) for a session with
	 * enable properties props; 0 when the record cannot be encoded (over
	 * 0xFFFF bytes). Must not depend on anything else that varies. */
	uint32_t (*size)(const struct etl__rt_event *ev, uint32_t props);
	/* Writes exactly size(ev, st->props) bytes at dst. Cannot fail. */
	void (*encode)(const struct etl__rt_event *ev, const struct etl__rt_stamp *st,
	               uint8_t *dst, uint32_t size);
	const void *ctx;      /* the write kind's description of the event    */
	/* A replayed event (etl_replay_write(), lib/trace/trace_replay.c):
	 * the captured event, whose processor picks each session's buffer
	 * and whose time stamps the record (etl_trace.h, "Replaying captured
	 * events"); NULL for live writes. */
	const struct etl_event *replayed;
};

/* Added by the core to the props a replayed event's size() gets for a
 * session whose file has log layout 1.0, where an INSTANCE record has
 * its pre-1.1 form (doc/format.md §2.3). Above every ETL_ENABLE_* bit. */
#define ETL__RT_PROP_LAYOUT_1_0 0x80000000u

/*! etl__rt_deliver() : routes ev to the sessions its provider is enabled
 *  on whose level / keyword / property filters it passes.
 *  @return : ETL_OK when every such session received it (or there was
 *  none); ETL_FAILED when it was lost (counted in events_lost of each
 *  session meant to receive it and did not). */
int etl__rt_deliver(const struct etl__rt_event *ev);

/*! etl__rt_exact_match() : the exact per-session filter of ETW, used by
 *  the core for each session: level (0 passes; session level 0 means 255),
 *  keyword (0 passes unless ETL_ENABLE_IGNORE_KEYWORD_0; otherwise any /
 *  all as in etl_enable_params). */
static inline int etl__rt_exact_match(uint8_t sess_level, uint64_t any, uint64_t all,
                                      uint32_t props, uint8_t level, uint64_t keyword)
{
	if (level != 0 && level > sess_level)
		return 0;
	if (keyword == 0)
		return !(props & ETL_ENABLE_IGNORE_KEYWORD_0);
	return (keyword & any) != 0 && (keyword & all) == all;
}

/*! etl__rt_provider_name() : the name p was registered with by
 *  etl_provider_register_name(), or NULL (by GUID, or not registered).
 *  Valid while p stays registered. */
const char *etl__rt_provider_name(const etl_provider *p);

/* Per-thread identity, cached (lib/trace/trace_provider.c). */
uint32_t etl__rt_tid(void);

#endif /* ETL_TRACE_PRIVATE_H */
