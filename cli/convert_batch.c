/*
 * convert_batch.c - the batches of etlconvert -j (convert_parallel.h):
 * events copied so that they own their bytes, the notes said between
 * them, and the output a worker renders into them.
 *
 * A struct etl_event borrows three pointers from its reader's buffer
 * (include/etl_event.h): record, payload and ext, all inside the record;
 * provider_name points to a static table and stays as it is. The bytes
 * from the lowest to the end of the highest are copied, at the same
 * alignment modulo 8 as in the buffer, and the pointers moved by the same
 * amount.
 */
#include <stdlib.h>
#include <string.h>
#include "convert_parallel.h"

/* Output a batch keeps between uses, at most; more (one huge event) is
 * given back once written. */
#define OUT_KEEP ((size_t)16 << 20)

/* The bytes ev's pointers lead into: [*lo, *lo + return). 0 when it has
 * none. */
static size_t event_span(const struct etl_event *ev, const uint8_t **lo)
{
	uintptr_t r = (uintptr_t)ev->record, end = r + ev->size;
	uintptr_t pl = (uintptr_t)ev->payload, x = (uintptr_t)ev->ext;
	if (r && (!pl || (pl >= r && pl + ev->payload_size <= end)) &&
	    (!x || (x >= r && x + ev->ext_size <= end))) {
		*lo = ev->record;                 /* the usual case: all in the record */
		return ev->size;
	}
	const uint8_t *p[3] = { ev->record, ev->payload, ev->ext };
	size_t n[3] = { ev->size, ev->payload_size, ev->ext_size };
	const uint8_t *a = NULL, *z = NULL;
	for (int i = 0; i < 3; i++) {
		if (!p[i])
			continue;
		if (!a || p[i] < a)
			a = p[i];
		if (!z || p[i] + n[i] > z)
			z = p[i] + n[i];
	}
	*lo = a;
	return a ? (size_t)(z - a) : 0;
}

/* *to = *from as 16-byte copies. Why not the assignment: GCC makes a
 * struct copy of this size (over 300 bytes) into "rep movsq", whose start-up
 * took three quarters of par_batch_add()'s time, once per event. (The
 * library zeroes such structs the same way, lib/common/zero.h; the tools
 * use only the public headers, so the copy is written here.) */
static inline void copy_event(struct etl_event *to, const struct etl_event *from)
{
	_Static_assert(sizeof *to >= 16, "struct etl_event is at least 16 bytes");
	unsigned char *d = (unsigned char *)to;
	const unsigned char *s = (const unsigned char *)from;
#pragma GCC unroll 32
	for (size_t i = 0; i + 16 <= sizeof *to; i += 16)
		memcpy(d + i, s + i, 16);
	memcpy(d + sizeof *to - 16, s + sizeof *to - 16, 16);
}

/* The copy of ev with its bytes (span from lo) at to. */
static void relocate(struct etl_event *copy, const struct etl_event *ev, const uint8_t *lo,
                     uint8_t *to)
{
	copy_event(copy, ev);
	if (ev->record)
		copy->record = to + (ev->record - lo);
	if (ev->payload)
		copy->payload = to + (ev->payload - lo);
	if (ev->ext)
		copy->ext = to + (ev->ext - lo);
}

/* Room for n more elements of size bytes after len in the array p of
 * capacity *cap (first: the capacity to start with): @return : the array
 * (moved or not), or NULL when memory is short (p is left as it was). */
static void *grow(void *p, size_t *cap, size_t len, size_t n, size_t size, size_t first)
{
	if (p && n <= *cap - len)
		return p;
	size_t c = *cap ? *cap : first;
	while (c - len < n)
		c *= 2;
	void *q = realloc(p, c * size);
	if (q)
		*cap = c;
	return q;
}

int par_batch_init(struct par_batch *b, uint32_t max_events)
{
	memset(b, 0, sizeof *b);
	b->max_events = max_events;
	b->ev = malloc(max_events * sizeof *b->ev);
	b->ev_cut = malloc((max_events + 1) * sizeof *b->ev_cut);
	b->cap = PAR_BATCH_BYTES;
	b->arena = malloc(b->cap);
	return b->ev && b->ev_cut && b->arena ? 0 : -1;
}

void par_batch_reset(struct par_batch *b, uint64_t seq, uint64_t first)
{
	b->seq = seq;
	b->first = first;
	b->n = 0;
	b->used = 0;
	b->n_notes = 0;
	b->text_len = 0;
	b->out_len = 0;
	b->n_cut = 0;
	b->fail = PAR_OK;
	b->fail_at = 0;
	b->why[0] = 0;
	b->done = 0;
	if (b->cap > 2 * PAR_BATCH_BYTES) {          /* after one huge event */
		uint8_t *a = malloc(PAR_BATCH_BYTES);
		if (a) {
			free(b->arena);
			b->arena = a;
			b->cap = PAR_BATCH_BYTES;
		}
	}
	if (b->out_cap > OUT_KEEP) {
		free(b->out);
		b->out = NULL;
		b->out_cap = 0;
	}
}

void par_batch_free(struct par_batch *b)
{
	free(b->ev);
	free(b->ev_cut);
	free(b->arena);
	free(b->notes);
	free(b->text);
	free(b->out);
	free(b->cut);
	memset(b, 0, sizeof *b);
}

int par_batch_add(struct par_batch *b, const struct etl_event *ev)
{
	const uint8_t *lo;
	size_t span = event_span(ev, &lo);
	/* The copy starts at the record's alignment modulo 8 (decoders read
	 * payloads whose fields are aligned in the buffer). */
	size_t at = ((b->used + 15) & ~(size_t)15) + ((uintptr_t)lo & 7);
	if (b->n == b->max_events)
		return 0;
	if (at + span > b->cap) {
		if (b->n)
			return 0;
		/* One event larger than a batch: a larger arena, for a while. */
		uint8_t *a = malloc(at + span);
		if (!a)
			return -1;
		free(b->arena);
		b->arena = a;
		b->cap = at + span;
	}
	if (span)
		memcpy(b->arena + at, lo, span);
	relocate(&b->ev[b->n++], ev, lo, b->arena + at);
	b->used = at + span;
	return 1;
}

int par_batch_full(const struct par_batch *b)
{
	return b->n >= b->max_events || b->used >= PAR_BATCH_BYTES ||
	       b->n_notes >= PAR_BATCH_NOTES || b->text_len >= PAR_BATCH_BYTES;
}

int par_batch_note(struct par_batch *b, const struct par_note *note, const char *msg)
{
	size_t len = msg ? strlen(msg) + 1 : 0;
	struct par_note *notes = grow(b->notes, &b->cap_notes, b->n_notes, 1, sizeof *notes, 16);
	if (!notes)
		return -1;
	b->notes = notes;
	if (len) {
		char *text = grow(b->text, &b->text_cap, b->text_len, len, 1, 1024);
		if (!text)
			return -1;
		b->text = text;
		memcpy(b->text + b->text_len, msg, len);
	}
	struct par_note *n = &b->notes[b->n_notes++];
	*n = *note;
	n->at = b->n;
	n->msg = b->text_len;
	b->text_len += len;
	return 0;
}

int par_batch_sink(void *ctx, const void *p, size_t n)
{
	struct par_batch *b = *(struct par_batch **)ctx;
	char *out = n <= UINT32_MAX ? grow(b->out, &b->out_cap, b->out_len, n, 1, 64 * 1024) : NULL;
	if (!out)
		return -1;
	b->out = out;
	uint32_t *cut = grow(b->cut, &b->cap_cut, b->n_cut, 1, sizeof *cut, 1024);
	if (!cut)
		return -1;
	b->cut = cut;
	memcpy(b->out + b->out_len, p, n);
	b->out_len += n;
	b->cut[b->n_cut++] = (uint32_t)n;
	return 0;
}

struct par_schema *par_schema_copy(const struct etl_event *ev, uint64_t pos, int self)
{
	const uint8_t *lo;
	size_t span = event_span(ev, &lo);
	size_t skew = (uintptr_t)lo & 7;
	struct par_schema *s = malloc(sizeof *s + skew + span + 1);
	if (!s)
		return NULL;
	s->pos = pos;
	s->self = self;
	s->mem = sizeof *s + skew + span + 1;
	/* bytes[] is at least 8-aligned (after a uint64_t-aligned struct). */
	if (span)
		memcpy(s->bytes + skew, lo, span);
	relocate(&s->ev, ev, lo, s->bytes + skew);
	return s;
}
