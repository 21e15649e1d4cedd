/*
 * lib/read/merge.c - etl_merge (include/etl_merge.h): several readers'
 * events as one stream in UTC time order, and the clock a trace of them
 * uses.
 *
 * Each input is read one event ahead (its look-ahead). etl_merge_next()
 * first refills every input that needs a look-ahead, in input order,
 * returning each reader's problems (damage, warnings, I/O errors) as they
 * come, then hands out the look-ahead with the smallest key; that input
 * needs a new look-ahead on the next call. A handful of inputs is the rule
 * (a few files merged), so the smallest key is found by a scan: it keeps
 * the tie-break plain (the lowest input number wins) and costs nothing next
 * to reading an event.
 *
 * The merged clock is the clock of the input that started first. Its
 * conversion back from UTC inverts the reader's (lib/common/time.c):
 *   FILETIME = StartTime + (raw - T0) * mul / div, truncated toward zero,
 * so raw = T0 + (FILETIME - StartTime) * div / mul, choosing between the
 * two neighbouring raw values the one that converts back closest.
 */
#define ETL_BUILDING_LIB 1
#include <stdlib.h>
#include <string.h>
#include "etl_merge.h"
#include "lib/common/clock.h"

struct merge_input {
	etl_reader *r;
	struct etl_clock clock;
	const struct etl_event *ev;    /* look-ahead, borrowed from r          */
	int64_t key;                   /* UTC of ev, or of the last timed one  */
	int need;                      /* a look-ahead is to be read           */
	int done;                      /* finished (end or I/O error)          */
};

struct etl_merge {
	unsigned flags;
	struct merge_input *in;
	int n, cap;
	int started;                   /* etl_merge_next() was called          */
	int picked;                    /* an event was handed out              */
	etl_merge_filter_fn filter;
	void *filter_ctx;
	int clock_input;               /* etl_merge_clock_input(), once known  */
	int err_input;                 /* input of the last problem, or -1     */
};

etl_merge *etl_merge_new(unsigned flags)
{
	etl_merge *m = calloc(1, sizeof *m);
	if (!m)
		return NULL;
	m->flags = flags;
	m->clock_input = -1;
	m->err_input = -1;
	return m;
}

void etl_merge_free(etl_merge *m)
{
	if (!m)
		return;
	free(m->in);
	free(m);
}

int etl_merge_add(etl_merge *m, etl_reader *r)
{
	if (!m || !r || m->started)
		return ETL_FAILED;
	if (m->n == m->cap) {
		int cap = m->cap ? m->cap * 2 : 4;
		struct merge_input *in = realloc(m->in, (size_t)cap * sizeof *in);
		if (!in)
			return ETL_FATAL;
		m->in = in;
		m->cap = cap;
	}
	struct merge_input *in = &m->in[m->n];
	const struct etl_logfile *lf = etl_reader_logfile(r);
	memset(in, 0, sizeof *in);
	in->r = r;
	in->key = INT64_MIN;
	in->need = 1;
	etl__clock_init(&in->clock, lf);
	if (lf->present) {
		const struct etl_logfile *first =
			m->clock_input >= 0 ? etl_reader_logfile(m->in[m->clock_input].r) : NULL;
		if (!first || lf->start_time < first->start_time)
			m->clock_input = m->n;
	}
	return m->n++;
}

void etl_merge_set_filter(etl_merge *m, etl_merge_filter_fn fn, void *ctx)
{
	m->filter = fn;
	m->filter_ctx = ctx;
}

int etl_merge_count(const etl_merge *m)
{
	return m ? m->n : 0;
}

etl_reader *etl_merge_reader(const etl_merge *m, int input)
{
	return m && input >= 0 && input < m->n ? m->in[input].r : NULL;
}

/* 1 if ev is input i's logfile-header record (the EventTrace Header
 * record at the offset its logfile header was read from). */
static int is_header_record(const etl_merge *m, int i, const struct etl_event *ev)
{
	const struct etl_logfile *lf = etl_reader_logfile(m->in[i].r);
	return lf->present && (ev->present & ETL_EVF_HOOKID) && ev->hook_id == 0 &&
	       ev->file_offset == lf->file_offset;
}

static int keep(const etl_merge *m, int i, const struct etl_event *ev)
{
	if (i == 0 && (m->flags & ETL_MERGE_HEADER_FIRST) && is_header_record(m, 0, ev))
		return 1;
	return !m->filter || m->filter(m->filter_ctx, i, ev);
}

/* Reads input i until it has a look-ahead or a problem to report.
 * @return : ETL_OK (look-ahead set, or the input finished), else the
 * reader's problem status (the look-ahead may be set with ETL_WARN). */
static int refill(etl_merge *m, int i)
{
	struct merge_input *in = &m->in[i];
	const struct etl_event *ev;
	for (;;) {
		int st = etl_reader_next(in->r, &ev);
		if (st == ETL_END || st == ETL_FATAL) {
			in->done = 1;
			in->need = 0;
			in->ev = NULL;
			return st == ETL_END ? ETL_OK : ETL_FATAL;
		}
		if (st == ETL_FAILED)
			return ETL_FAILED;
		if (keep(m, i, ev)) {
			in->ev = ev;
			in->need = 0;
			if (ev->present & ETL_EVF_UTC)
				in->key = ev->utc;
		}
		if (st == ETL_WARN || !in->need)
			return st == ETL_WARN ? ETL_WARN : ETL_OK;
	}
}

/* The input whose look-ahead goes next, or -1 when all are finished. */
static int pick(const etl_merge *m)
{
	int best = -1;
	if (!m->picked && (m->flags & ETL_MERGE_HEADER_FIRST) && m->n > 0 && m->in[0].ev &&
	    is_header_record(m, 0, m->in[0].ev))
		return 0;
	for (int i = 0; i < m->n; i++)
		if (!m->in[i].done && (best < 0 || m->in[i].key < m->in[best].key))
			best = i;
	return best;
}

int etl_merge_next(etl_merge *m, const struct etl_event **ev, int *input)
{
	*ev = NULL;
	*input = -1;
	m->started = 1;
	for (int i = 0; i < m->n; i++) {
		if (!m->in[i].need)
			continue;
		int st = refill(m, i);
		if (st != ETL_OK) {
			m->err_input = i;
			*input = i;
			return st;
		}
	}
	int best = pick(m);
	m->picked = 1;
	if (best < 0)
		return ETL_END;
	struct merge_input *in = &m->in[best];
	*ev = in->ev;
	*input = best;
	in->need = 1;
	return ETL_OK;
}

int etl_merge_errcode(const etl_merge *m)
{
	return m && m->err_input >= 0 ? etl_reader_errcode(m->in[m->err_input].r) : ETL_E_NONE;
}

const char *etl_merge_errmsg(const etl_merge *m)
{
	return m && m->err_input >= 0 ? etl_reader_errmsg(m->in[m->err_input].r) : "";
}

uint64_t etl_merge_erroff(const etl_merge *m)
{
	return m && m->err_input >= 0 ? etl_reader_erroff(m->in[m->err_input].r) : 0;
}

void etl_merge_progress(const etl_merge *m, uint64_t *done, uint64_t *total)
{
	uint64_t d = 0, t = 0;
	for (int i = 0; m && i < m->n; i++) {
		struct etl_reader_stats st;
		etl_reader_stats(m->in[i].r, &st);
		d += m->in[i].done ? st.input_size : st.bytes_in;
		t += st.input_size;
	}
	if (done)
		*done = d;
	if (total)
		*total = t;
}

/* ---- the merged clock ------------------------------------------------- */

int etl_merge_clock_input(const etl_merge *m)
{
	return m ? m->clock_input : -1;
}

static int same_clock(const struct etl_clock *a, const struct etl_clock *b)
{
	return a->usable == b->usable && a->t0 == b->t0 && a->start == b->start &&
	       a->mul == b->mul && a->div == b->div;
}

int etl_merge_same_clock(const etl_merge *m, int input)
{
	if (!m || m->clock_input < 0 || input < 0 || input >= m->n)
		return 0;
	return same_clock(&m->in[input].clock, &m->in[m->clock_input].clock);
}

int etl_merge_timestamp(const etl_merge *m, int input, const struct etl_event *ev, int64_t *raw)
{
	if (!m || m->clock_input < 0 || input < 0 || input >= m->n)
		return ETL_FAILED;
	if (etl_merge_same_clock(m, input)) {
		*raw = ev->timestamp;
		return ETL_OK;
	}
	if (!(ev->present & ETL_EVF_UTC) ||
	    etl__clock_from_utc(&m->in[m->clock_input].clock, ev->utc, raw) != ETL_OK)
		return ETL_FAILED;
	return ETL_OK;
}
