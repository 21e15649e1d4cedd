/*
 * convert_parallel.h - the pieces of etlconvert -j (convert_parallel.c):
 * batches of events that own their bytes, what is to be said between
 * them, what a worker rendered, and the log of the records that carry
 * schemas (convert_batch.c).
 *
 * A batch is filled by the worker whose reading turn it is, which copies
 * the merge's events into it (an event is borrowed from its reader only
 * until the next one: the record bytes are copied into the batch's arena
 * and the event's pointers into them moved along); then one worker (most
 * often the same) decodes and renders its events into the batch's output
 * (each call of the output handle's sink kept apart, so that the writing
 * can make the same calls where the cuts matter); then the worker that
 * writes in order writes the output and says the notes.
 */
#ifndef CONVERT_PARALLEL_H
#define CONVERT_PARALLEL_H

#include <stddef.h>
#include <stdint.h>
#include "etl.h"

struct convert_input;

/* Where a batch is cut: this many events (or fewer: the environment
 * variable ETLCONVERT_BATCH_EVENTS, for tests), or record bytes, or notes
 * and their text, whichever comes first (one event larger than the bytes
 * has a batch of its own). Memory is this times the batches in flight.
 * Why this size: a batch is read, rendered and mostly written by one
 * thread (convert_parallel.c), so its size costs no thread switches; what
 * counts is that its records and its output (about 0.7 KiB of JSON per
 * event) stay in the processor's cache between being made and used.
 * Measured with -j 2 on the three largest corpus traces made 64, 32 and
 * 16 MiB long, to /dev/null, 2 processors: 1024 events 0.69 s and 1.30 s
 * of CPU time; 256 events 0.74-0.75 s (more turns), 4096 events 0.73-0.75
 * s and 1.40-1.48 s of CPU (the output of each batch, 3 MiB, falls out of
 * the 1 MiB cache of a processor). */
#define PAR_BATCH_EVENTS 1024u
#define PAR_BATCH_BYTES (256u * 1024u)
#define PAR_BATCH_NOTES 256u

/* What the writer says before an event of a batch, in order. */
enum par_note_kind {
	PAR_NOTE_PROGRESS,         /* the progress display: a / b           */
	PAR_NOTE_PROBLEM,          /* an input's problem (cli_error_at)      */
	PAR_NOTE_STOP,             /* an input could not be read on: the run
	                              fails here (after its PROBLEM)         */
};

struct par_note {
	uint32_t at;               /* before the batch's event at (n: after
	                              the last)                              */
	uint8_t kind;              /* enum par_note_kind                     */
	uint8_t repeat;            /* PROBLEM said at opening already: the
	                              progress line is only wiped            */
	const char *kind_text;     /* PROBLEM: "warning: " or "" (static)   */
	const struct convert_input *in;   /* PROBLEM: whose                  */
	uint64_t a, b;             /* PROGRESS: done, total; PROBLEM: offset */
	size_t msg;                /* PROBLEM: offset of its text in text   */
};

/* How a worker's rendering of a batch ended early. */
enum par_fail {
	PAR_OK = 0,
	PAR_FAIL_DECODE,           /* out of memory decoding event fail_at   */
	PAR_FAIL_RENDER,           /* the output handle failed: why          */
	PAR_FAIL_MEMORY,           /* the reader ran out of memory copying
	                              event fail_at                          */
};

struct par_batch {
	uint64_t seq;              /* batches are numbered from 0 in order   */
	uint64_t first;            /* the run's number of its first event    */
	/* the reader's part */
	uint32_t max_events;       /* where it is cut                         */
	struct etl_event *ev;      /* max_events; pointers into arena         */
	uint32_t n;
	uint8_t *arena;
	size_t used, cap;
	struct par_note *notes;
	size_t n_notes, cap_notes;
	char *text;                /* the notes' messages, NUL-terminated    */
	size_t text_len, text_cap;
	/* the worker's part */
	char *out;                 /* what the output handle passed its sink */
	size_t out_len, out_cap;
	uint32_t *cut;             /* the length of each sink call           */
	size_t n_cut, cap_cut;
	uint32_t *ev_cut;          /* n + 1: the first cut of each event     */
	int fail;                  /* enum par_fail                          */
	uint32_t fail_at;          /* the event it stopped at                */
	char why[320];             /* PAR_FAIL_RENDER / LOAD                 */
	int done;                  /* rendered (under the run's lock)        */
};

/*! par_batch_init() : allocates a batch's fixed parts, for up to
 *  max_events events (1 to PAR_BATCH_EVENTS). @return : 0, or -1 when
 *  memory is short. */
int par_batch_init(struct par_batch *b, uint32_t max_events);

/*! par_batch_reset() : empties b for the reader, as batch seq starting at
 *  the run's event first; gives back memory one huge event or output
 *  took. */
void par_batch_reset(struct par_batch *b, uint64_t seq, uint64_t first);

void par_batch_free(struct par_batch *b);

/*! par_batch_add() : copies ev (its record bytes into the arena).
 *  @return : 1; 0 when the batch has no room left for it (it is not
 *  empty: send it and put ev into the next); -1 when memory is short. */
int par_batch_add(struct par_batch *b, const struct etl_event *ev);

/*! par_batch_full() : 1 when b should be sent now. */
int par_batch_full(const struct par_batch *b);

/*! par_batch_note() : adds a note before the next event; msg (PROBLEM)
 *  is copied. @return : 0, or -1 when memory is short. */
int par_batch_note(struct par_batch *b, const struct par_note *note, const char *msg);

/*! par_batch_sink() : an etl_output_write_fn appending to the batch
 *  *(struct par_batch **)ctx, each call kept apart. */
int par_batch_sink(void *ctx, const void *p, size_t n);

/* ---- records that carry schemas -------------------------------------- */

/* A record every worker's decoder learns, in the merge's order, before the
 * event numbered pos: one the filters left out (self 0), or the event pos
 * itself (self 1: the worker rendering it learns it by decoding it, the
 * others learn it before event pos + 1). ev points into bytes. */
struct par_schema {
	uint64_t pos;
	int self;
	size_t mem;                /* the memory it takes                     */
	struct etl_event ev;
	uint8_t bytes[];
};

/*! par_schema_copy() : a copy of ev that owns its bytes, or NULL when
 *  memory is short. Free it with free(). */
struct par_schema *par_schema_copy(const struct etl_event *ev, uint64_t pos, int self);

/*! par_schema_before() : 1 when s is to be learnt before the event
 *  numbered pos is decoded (by a worker that does not render s itself). */
static inline int par_schema_before(const struct par_schema *s, uint64_t pos)
{
	return s->pos < pos || (s->pos == pos && !s->self);
}

#endif /* CONVERT_PARALLEL_H */
