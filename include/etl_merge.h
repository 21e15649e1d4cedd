/*
 * etl_merge.h - the events of several .etl inputs as one stream in UTC
 * time order, each event with the input it came from.
 *
 * Basic outline:
 *
 *     etl_merge *m = etl_merge_new(0);
 *     etl_merge_add(m, r0);                 // readers opened in time order
 *     etl_merge_add(m, r1);
 *     const struct etl_event *ev;
 *     int input, st;
 *     while ((st = etl_merge_next(m, &ev, &input)) != ETL_END) {
 *         if (st == ETL_FATAL) break;       // input cannot be read on
 *         if (st != ETL_OK) {               // damage or a warning in input
 *             report input, etl_merge_erroff(m), etl_merge_errmsg(m);
 *             continue;
 *         }
 *         use(input, ev);                   // borrowed until the next call
 *     }
 *     etl_merge_free(m);                    // the readers stay the caller's
 *
 * Order. Each input is read ahead by one event. The next event is the
 * look-ahead with the smallest key, the key of an event being its UTC time
 * (ev->utc) or, for an event without one, the key of its input's last
 * timed event (the very first ones: before any time). Equal keys go in
 * input order (the input added first first), so the result is the same on
 * every run. With each reader in time order (ETL_ORDER_TIME, the default)
 * the merged stream is in time order too.
 *
 * Clock. A trace made of the merged events needs one clock: the clock of
 * the input whose logfile header starts first (etl_merge_clock_input());
 * etl_merge_timestamp() gives each event's timestamp in it.
 */
#ifndef ETL_MERGE_H
#define ETL_MERGE_H

#include "etl_export.h"

#include <stdint.h>
#include "etl_errors.h"
#include "etl_event.h"
#include "etl_reader.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct etl_merge etl_merge;

/* The first input's logfile-header record (its EventTrace Header record,
 * at the file offset of its logfile header) passes whatever the filter
 * says, and when it is the first event that input delivers it comes
 * before every other input's events: a rendered merge (etl_output.h) makes
 * it the header event. */
#define ETL_MERGE_HEADER_FIRST 0x1u

/* Which events of an input take part: return non-zero to keep ev (from
 * the input numbered input), 0 to pass over it. Called once per record,
 * in each input's order, before the record is looked at for ordering. */
typedef int (*etl_merge_filter_fn)(void *ctx, int input, const struct etl_event *ev);

/*! etl_merge_new() : an empty merge; flags is 0 or ETL_MERGE_HEADER_FIRST.
 *  @return : the handle, or NULL when memory is short. Free it with
 *  etl_merge_free(). */
ETL_API etl_merge *etl_merge_new(unsigned flags);

/*! etl_merge_free() : frees the merge, not its readers. NULL is allowed. */
ETL_API void etl_merge_free(etl_merge *m);

/*! etl_merge_add() : adds an input: r, opened and not yet read (the merge
 *  takes its events with etl_reader_next()). r stays the caller's and must
 *  outlive the merge; the caller may read its logfile header, statistics
 *  and error details, but not its events. Inputs are numbered from 0 in
 *  the order they are added; add them all before etl_merge_next().
 *  @return : the input's number; ETL_FAILED (a negative status) when r is
 *  NULL or etl_merge_next() was called already; ETL_FATAL when memory is
 *  short. */
ETL_API int etl_merge_add(etl_merge *m, etl_reader *r);

/*! etl_merge_set_filter() : events for which fn returns 0 are passed over
 *  (not returned, and not keys). fn NULL keeps every event (the default).
 *  Set it before etl_merge_next(). */
ETL_API void etl_merge_set_filter(etl_merge *m, etl_merge_filter_fn fn, void *ctx);

/*! etl_merge_count() : the number of inputs added. */
ETL_API int etl_merge_count(const etl_merge *m);

/*! etl_merge_reader() : the reader of input number input, or NULL. */
ETL_API etl_reader *etl_merge_reader(const etl_merge *m, int input);

/*! etl_merge_next() : the next event across all inputs. *input is the
 *  input concerned (for ETL_OK, ETL_WARN, ETL_FAILED and ETL_FATAL), -1
 *  at the end.
 *  @return : ETL_OK with *ev the event, borrowed from its input's reader
 *  until the next etl_merge_next() call;
 *  ETL_WARN: input reported a warning (part of a record not understood;
 *  the record itself still takes part), *ev NULL: call again;
 *  ETL_FAILED: input lost data (a damaged record or buffer), *ev NULL:
 *  call again, the input goes on after the damage;
 *  ETL_FATAL: input cannot be read on (an I/O error); it is finished, the
 *  others can still be read by calling again;
 *  ETL_END: every input is finished.
 *  For the three problems etl_merge_errcode(), etl_merge_errmsg() and
 *  etl_merge_erroff() describe them (as the reader does). */
ETL_API int etl_merge_next(etl_merge *m, const struct etl_event **ev, int *input);

/*! etl_merge_errcode() : reason (enum etl_errcode) of the last problem
 *  etl_merge_next() returned, ETL_E_NONE if none. */
ETL_API int etl_merge_errcode(const etl_merge *m);

/*! etl_merge_errmsg() : the sentence of the last problem etl_merge_next()
 *  returned, "" if none: its reader's, valid until the next call. */
ETL_API const char *etl_merge_errmsg(const etl_merge *m);

/*! etl_merge_erroff() : the file offset, in its own input, of the last
 *  problem etl_merge_next() returned. */
ETL_API uint64_t etl_merge_erroff(const etl_merge *m);

/*! etl_merge_progress() : how far the merge has come: *done the bytes of
 *  input walked (a finished input counts whole), *total the inputs' sizes
 *  where known (etl_reader_stats()). Either pointer may be NULL. */
ETL_API void etl_merge_progress(const etl_merge *m, uint64_t *done, uint64_t *total);

/*! etl_merge_clock_input() : the input whose clock a trace of the merged
 *  events uses: the one whose logfile header has the earliest StartTime
 *  (on equal times the first added); -1 when no input has a logfile
 *  header. */
ETL_API int etl_merge_clock_input(const etl_merge *m);

/*! etl_merge_same_clock() : 1 when input's timestamps are already in the
 *  clock of etl_merge_clock_input() (the same clock type, frequency and
 *  anchor), else 0. */
ETL_API int etl_merge_same_clock(const etl_merge *m, int input);

/*! etl_merge_timestamp() : ev's timestamp (ev from input) in the clock of
 *  etl_merge_clock_input(): ev->timestamp when the input has that clock,
 *  else the raw value of that clock whose UTC conversion comes nearest to
 *  ev->utc (exact for clocks of 10 MHz and faster, within half a tick for
 *  slower ones).
 *  @return : ETL_OK with *raw set; ETL_FAILED when ev has no UTC time
 *  (ETL_EVF_UTC), there is no clock input, or the value does not fit. */
ETL_API int etl_merge_timestamp(const etl_merge *m, int input, const struct etl_event *ev,
                                int64_t *raw);

#ifdef __cplusplus
}
#endif
#endif /* ETL_MERGE_H */
