/*
 * convert_etl.c - etlconvert -f etl: the events of every input re-encoded
 * into a new .etl file (or numbered files of a size or time span), and
 * --raw, the buffers of one input copied byte for byte.
 *
 * Re-encoding, per conversion:
 *   1. every input is opened in time order and merged by UTC time
 *      (convert_input.c, etl_merge); a second, buffer-walking reader finds
 *      the highest processor number of each input so that the output has
 *      a buffer stream for every processor an event names
 *      (number_of_processors = the largest of the inputs' logfile values
 *      and highest processor + 1);
 *   2. the output's logfile header comes from the first input's
 *      (etl_writer_options_from_logfile), the clock and its anchor
 *      (StartTime at T0) from the input that started earliest
 *      (etl_merge_clock_input); with several inputs LogFileName is
 *      "[multiple files]" and RELOG is set;
 *   3. the first input's header-buffer records after the logfile header
 *      (Extension, PartitionInfoExtension, BuildInfo, ...) are copied into
 *      the output's header buffer (bare_header) before any event, with a
 *      file-order reader that stops after the header buffer; the other
 *      inputs' header-buffer records are dropped;
 *   4. events are written in order of UTC time, always the smallest next;
 *      events of an input whose clock differs from the output's get their
 *      timestamp re-expressed in the output clock (etl_merge_timestamp);
 *   5. lost-event and lost-buffer counts of the inputs are added up;
 *      EndTime is the latest of the inputs'.
 * CIRCULAR and NEWFILE are dropped from LogFileMode (SEQUENTIAL is set in
 * their place): the output is written front to back and holds every
 * event. A logfile-header BufferSize or NumberOfProcessors that cannot be
 * (reported as damage by cli_report_open()) gives way to what the buffers
 * show. When no record could be read, no output is made (an existing one
 * stays as it was). Numbered parts (--split-*) are made by
 * convert_parts.c, moved into place only when the whole run succeeded.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "convert.h"

/* ---- what the inputs hold apart from their events ----------------------- */

/* Damage is reported by the main pass, not here. A buffer the reader
 * skips for its processor index (ETL_MAX_PROCESSORS or more: damage, the
 * main pass says so) names no processor of the output: the rule is the
 * reader's and the writer's. */
void convert_scan_buffers(const struct convert_input *in, struct buffer_scan *bs)
{
	const struct etl_buffer_info *bi;
	int st;
	memset(bs, 0, sizeof *bs);
	bs->max_proc = -1;
	etl_reader *r = convert_reopen(in, ETL_ORDER_FILE);
	if (!r)
		return;
	while ((st = etl_reader_next_buffer(r, &bi)) != ETL_END && st != ETL_FATAL) {
		if (!bi)
			continue;
		if (bi->processor < ETL_MAX_PROCESSORS && (int)bi->processor > bs->max_proc)
			bs->max_proc = bi->processor;
		/* A compressed buffer's SavedOffset is the header plus its
		 * records inflated, which the logger's buffer held. */
		uint32_t size = bi->compressed ? bi->saved_offset : bi->buffer_size;
		if (size > bs->max_size && size <= 16u * 1024 * 1024)
			bs->max_size = size;
		if (bi->file_offset == 0) {
			bs->hdr_known = 1;
			bs->hdr_flags = bi->flags;
			bs->hdr_logger_id = bi->logger_id;
		}
	}
	etl_reader_free(r);
}

/* A deep copy of an event (its record bytes), for header-buffer records
 * written to every output file. */
struct kept_event {
	struct etl_event ev;
	uint8_t *mem;
};

static int keep_event(struct kept_event *k, const struct etl_event *ev)
{
	size_t rec = ev->record ? ev->size : 0;
	size_t total = rec + ev->payload_size + ev->ext_size;
	memset(k, 0, sizeof *k);
	k->ev = *ev;
	k->mem = malloc(total ? total : 1);
	if (!k->mem)
		return -1;
	uint8_t *p = k->mem;
	if (rec) {
		memcpy(p, ev->record, rec);
		k->ev.record = p;
		p += rec;
	}
	if (ev->payload_size) {
		memcpy(p, ev->payload, ev->payload_size);
		k->ev.payload = p;
		p += ev->payload_size;
	}
	if (ev->ext_size) {
		memcpy(p, ev->ext, ev->ext_size);
		k->ev.ext = p;
	}
	return 0;
}

/* The header-buffer records after the logfile header, copied; and the
 * logfile-header record's process and thread ids. */
struct header_records {
	struct kept_event *v;
	size_t n;
	int have_ids;
	uint32_t pid, tid;
};

static void header_records_free(struct header_records *h)
{
	for (size_t i = 0; i < h->n; i++)
		free(h->v[i].mem);
	free(h->v);
	memset(h, 0, sizeof *h);
}

static int read_header_records(const struct convert_input *in, struct header_records *h)
{
	const struct etl_event *ev;
	int st, rc = 0;
	memset(h, 0, sizeof *h);
	etl_reader *r = convert_reopen(in, ETL_ORDER_FILE);
	if (!r)
		return -1;
	const struct etl_logfile *lf = etl_reader_logfile(r);
	while (lf->present && (st = etl_reader_next(r, &ev)) != ETL_END && st != ETL_FATAL) {
		if (st == ETL_FAILED)
			continue;
		if (ev->buffer_offset != 0)
			break;
		if (ev->file_offset == lf->file_offset) {
			h->have_ids = (ev->present & ETL_EVF_PID) != 0;
			h->pid = ev->pid;
			h->tid = ev->tid;
			continue;
		}
		struct kept_event *n = realloc(h->v, (h->n + 1) * sizeof *n);
		if (!n || keep_event(&n[h->n], ev) != 0) {
			if (n)
				h->v = n;
			cli_message("%s: out of memory", in->name);
			rc = -1;
			break;
		}
		h->v = n;
		h->n++;
	}
	etl_reader_free(r);
	return rc;
}

/* ---- the output (one or several numbered files) ------------------------ */

struct output {
	const struct convert_options *o;
	struct etl_writer_options wo;
	const struct header_records *hdr;
	int restamp_hdr;           /* header records take the output's T0    */
	int split;
	struct convert_parts parts; /* split: where the parts are made       */
	unsigned made;             /* split: parts finished by this run      */
	etl_writer *w;
	char *cur;                 /* file being written, as messages name it */
	unsigned index;
	uint64_t events_in_file;
	uint32_t *cpu_pos;         /* the writer's buffer fill, per processor
	                              (replayed to predict the file size)    */
	uint64_t n_buffers;        /* data buffers the current file will have */
	uint64_t content;          /* bytes of records in the current file    */
	int64_t file_start;        /* UTC of the current file's first event  */
	int have_start;
	int rc;
};

static void writer_error(const struct output *out)
{
	cli_error(cli_display_name(out->cur ? out->cur : out->o->output),
	          out->w ? etl_writer_errmsg(out->w) : "out of memory");
}

/* Drops what this run made: the output is left as it was. */
static void output_discard(struct output *out)
{
	etl_writer_free(out->w);       /* abandons the temporary */
	out->w = NULL;
	if (out->split)
		convert_parts_abandon(&out->parts, out->made);
}

static void output_free(struct output *out)
{
	etl_writer_free(out->w);
	free(out->cur);
	free(out->cpu_pos);
}

/* The first input's header records. When the output's clock is another
 * input's (that one started earlier), they are stamped with the output's
 * start T0: they describe the session, which now begins there, and the
 * header buffer is read first in its processor's stream, so a later stamp
 * would put them out of time order. */
static int write_header_records(struct output *out)
{
	for (size_t i = 0; i < out->hdr->n; i++) {
		struct etl_event ev = out->hdr->v[i].ev;
		if (out->restamp_hdr)
			ev.timestamp = out->wo.start_timestamp;
		int st = etl_writer_write_header_event(out->w, &ev);
		if (st == ETL_FATAL)
			return -1;
		if (st != ETL_OK && out->index == 0) {
			cli_errorf(etl_writer_errmsg(out->w), "%s: header record at offset 0x%llx not copied: ",
			           cli_display_name(out->cur), (unsigned long long)ev.file_offset);
			out->rc = cli_worse(out->rc, CLI_EXIT_DAMAGE);
		}
	}
	return 0;
}

static int output_open(struct output *out)
{
	free(out->cur);
	out->cur = out->split ? convert_part_name(out->o->output, out->index) : strdup(out->o->output);
	char *path = out->split ? convert_parts_path(&out->parts, out->index) : NULL;
	out->w = etl_writer_new();
	if (!out->cur || !out->w || (out->split && !path)) {
		free(path);
		cli_message("out of memory");
		return -1;
	}
	/* A part is made in the private directory: the name the header
	 * records (when the input gave none) is the part's own. */
	struct etl_writer_options wo = out->wo;
	if (!wo.log_file_name)
		wo.log_file_name = out->cur;
	int st = etl_writer_open_file(out->w, path ? path : out->cur, &wo);
	free(path);
	if (st != ETL_OK) {
		writer_error(out);
		return -1;
	}
	out->events_in_file = 0;
	memset(out->cpu_pos, 0, out->wo.number_of_processors * sizeof *out->cpu_pos);
	out->n_buffers = 0;
	out->content = 0;
	out->have_start = 0;
	return write_header_records(out) == 0 ? 0 : (writer_error(out), -1);
}

static int output_close(struct output *out, uint32_t events_lost, uint32_t buffers_lost)
{
	etl_writer_add_lost(out->w, events_lost, buffers_lost);
	int st = etl_writer_close(out->w);
	if (st == ETL_FATAL) {
		writer_error(out);
		return -1;
	}
	etl_writer_free(out->w);
	out->w = NULL;
	out->made++;
	return 0;
}

/* 1 if writing ev makes the writer begin a buffer for its processor. */
static int needs_buffer(const struct output *out, const struct etl_event *ev)
{
	uint32_t pos = ev->processor < out->wo.number_of_processors ? out->cpu_pos[ev->processor] : 0;
	return pos == 0 || ((ev->size + 7u) & ~7u) > out->wo.buffer_size - pos;
}

/* Replays the writer's packing of a written event. */
static void count_event(struct output *out, const struct etl_event *ev)
{
	out->events_in_file++;
	if (!out->have_start && (ev->present & ETL_EVF_UTC)) {
		out->have_start = 1;
		out->file_start = ev->utc;
	}
	if (ev->processor >= out->wo.number_of_processors)
		return;
	if (needs_buffer(out, ev)) {
		out->n_buffers++;
		out->cpu_pos[ev->processor] = ETL_BUFFER_HEADER_SIZE;
	}
	out->cpu_pos[ev->processor] += (ev->size + 7u) & ~7u;
	out->content += (ev->size + 7u) & ~7u;
}

/* Starts the next numbered file before ev when the current one is full. */
static int output_maybe_rotate(struct output *out, const struct etl_event *ev)
{
	if (!out->split || out->events_in_file == 0)
		return 0;
	int rotate = 0;
	if (out->o->split_size) {
		uint64_t est;
		if (out->wo.log_file_mode & ETL_MODE_COMPRESSED) {
			/* Compressed: what was sent so far (the writer holds up to
			 * two buffers' worth). */
			struct etl_writer_stats st;
			etl_writer_stats(out->w, &st);
			est = st.bytes_written + ((ev->size + 7u) & ~7u);
			if (est > out->o->split_size)
				rotate = 1;
		} else {
			/* Plain: header buffer + every buffer begun, with this
			 * event, packed as the writer packs them; so a file never
			 * passes N. But every processor in use holds a buffer of
			 * its own: when N is small for that, a file takes events
			 * until they fill half of N at least, rather than a few. */
			est = (uint64_t)out->wo.buffer_size * (1 + out->n_buffers +
			                                       needs_buffer(out, ev));
			if (est > out->o->split_size && out->content >= out->o->split_size / 2)
				rotate = 1;
		}
	}
	if (out->o->split_time && out->have_start && (ev->present & ETL_EVF_UTC) &&
	    ev->utc - out->file_start >= out->o->split_time)
		rotate = 1;
	if (!rotate)
		return 0;
	if (output_close(out, 0, 0) != 0)
		return -1;
	out->index++;
	return output_open(out);
}

/* ---- re-encoding ------------------------------------------------------- */

void convert_figures(const struct convert_inputs *ins, const struct buffer_scan *scan,
                     struct convert_figures *fg)
{
	const struct etl_logfile *lf0 = ins->v[0].lf;
	int anchor = etl_merge_clock_input(ins->m);
	memset(fg, 0, sizeof *fg);
	fg->clock = anchor >= 0 ? ins->v[anchor].lf : NULL;
	/* A logfile-header field that cannot be (reported as damage when the
	 * input was opened) gives way to what the buffers show. */
	const struct cli_open_notes *n0 = &ins->v[0].notes;
	uint32_t nproc = !lf0->present ? 1 : n0->bad_processors ? 1 : lf0->number_of_processors;
	uint32_t bs = !lf0->present ? 64 * 1024 : n0->bad_buffer_size ? scan[0].max_size : lf0->buffer_size;
	for (int i = 0; i < ins->n; i++) {
		const struct etl_logfile *lf = ins->v[i].lf;
		if (lf->present) {
			if (lf->number_of_processors > nproc && !ins->v[i].notes.bad_processors)
				nproc = lf->number_of_processors;
			if (lf->buffer_size > bs && !ins->v[i].notes.bad_buffer_size)
				bs = lf->buffer_size;
			fg->events_lost += lf->events_lost;
			fg->buffers_lost += lf->buffers_lost;
			if (lf->end_time > fg->end_time)
				fg->end_time = lf->end_time;
		}
		if (scan[i].max_proc >= 0 && (uint32_t)scan[i].max_proc + 1 > nproc)
			nproc = (uint32_t)scan[i].max_proc + 1;
	}
	fg->processors = nproc > ETL_MAX_PROCESSORS ? ETL_MAX_PROCESSORS : nproc ? nproc : 1;
	fg->buffer_size = bs;
}

/* A buffer size the writer accepts: 4 KiB..16 MiB, a multiple of 8. */
static uint32_t sane_buffer_size(uint32_t bs)
{
	if (bs < 0x1000)
		return bs ? 0x1000 : 64 * 1024;
	if (bs > 16u * 1024 * 1024)
		return 16u * 1024 * 1024;
	return (bs + 7u) & ~7u;
}

static uint32_t sane_mode(uint32_t m)
{
	if (m & (ETL_MODE_CIRCULAR | ETL_MODE_NEWFILE)) {
		m &= ~(ETL_MODE_CIRCULAR | ETL_MODE_NEWFILE);
		m |= ETL_MODE_SEQUENTIAL;
	}
	return m;
}

/* The output's writer options (steps 1, 2 and 5 above); *events_lost and
 * *buffers_lost the inputs' sums, written at close. */
static void output_options(struct output *out, const struct convert_inputs *ins,
                           const struct buffer_scan *scan, const struct header_records *hdr,
                           uint32_t *events_lost, uint32_t *buffers_lost)
{
	const struct convert_options *o = out->o;
	struct etl_writer_options *wo = &out->wo;
	struct convert_figures fg;
	convert_figures(ins, scan, &fg);
	etl_writer_options_from_logfile(wo, ins->v[0].lf);
	if (fg.clock) {
		wo->clock_type = fg.clock->reserved_flags;
		wo->perf_freq = fg.clock->perf_freq;
		wo->cpu_speed_mhz = fg.clock->cpu_speed_mhz;
		wo->start_time = fg.clock->start_time;
		wo->start_timestamp = fg.clock->header_timestamp;
		wo->boot_time = fg.clock->boot_time;
	}
	*events_lost = fg.events_lost;
	*buffers_lost = fg.buffers_lost;
	int64_t end_time = fg.end_time;
	wo->number_of_processors = fg.processors;
	wo->buffer_size = sane_buffer_size(fg.buffer_size);
	wo->log_file_mode = sane_mode(wo->log_file_mode);
	if (o->compress == 1)
		wo->log_file_mode |= ETL_MODE_COMPRESSED;
	else if (o->compress == 0)
		wo->log_file_mode &= ~ETL_MODE_COMPRESSED;
	if (ins->n > 1) {
		wo->log_file_name = "[multiple files]";
		wo->log_file_mode |= ETL_MODE_RELOG;
	}
	wo->end_time = (o->split_size || o->split_time) ? 0 : end_time;
	wo->bare_header = ins->v[0].lf->present;
	if (scan[0].hdr_known) {
		wo->relogger_style = !(scan[0].hdr_flags & ETL_BUF_FLAG_PROC_INDEX);
		wo->logger_id = scan[0].hdr_logger_id;
	}
	if (hdr->have_ids) {
		wo->header_pid = hdr->pid;
		wo->header_tid = hdr->tid;
	}
	out->hdr = hdr;
	out->restamp_hdr = !etl_merge_same_clock(ins->m, 0);
}

/* Writes every event of the merge. @return : 0, or -1 when the run
 * failed (an input or the output). */
static int write_events(struct output *out, struct convert_inputs *ins)
{
	const struct etl_event *ev;
	struct convert_input *in;
	int more;
	while ((more = convert_next(ins, &ev, &in)) > 0) {
		struct etl_event conv;
		int64_t raw;
		if (etl_merge_timestamp(ins->m, (int)(in - ins->v), ev, &raw) == ETL_OK &&
		    raw != ev->timestamp) {
			conv = *ev;
			conv.timestamp = raw;
			ev = &conv;
		}
		if (output_maybe_rotate(out, ev) != 0)
			return -1;
		int st = etl_writer_write_event(out->w, ev);
		if (st == ETL_FATAL) {
			writer_error(out);
			return -1;
		}
		if (st != ETL_OK) {
			cli_progress_clear(&ins->pg);
			cli_error_at(in->name, ev->file_offset, "event not written: ", etl_writer_errmsg(out->w));
			in->rc = cli_worse(in->rc, CLI_EXIT_DAMAGE);
		} else {
			count_event(out, ev);
		}
	}
	return more;
}

int convert_etl(const struct convert_options *o, char **paths, int n)
{
	struct convert_inputs ins;
	struct header_records hdr;
	struct output out;
	uint32_t events_lost, buffers_lost;
	int rc;
	memset(&out, 0, sizeof out);
	out.o = o;
	out.split = o->split_size || o->split_time;
	if (out.split && (rc = convert_parts_begin(&out.parts, o->output, paths, n)) != CLI_EXIT_CLEAN)
		return rc;
	if ((rc = convert_open_inputs(&ins, paths, n, o, 1, 0)) != CLI_EXIT_CLEAN) {
		output_discard(&out);
		return rc;
	}
	struct buffer_scan *scan = calloc((size_t)n, sizeof *scan);
	if (!scan) {
		cli_message("out of memory");
		output_discard(&out);
		convert_free_inputs(&ins);
		return CLI_EXIT_IO;
	}
	for (int i = 0; i < n; i++)
		convert_scan_buffers(&ins.v[i], &scan[i]);
	if (read_header_records(&ins.v[0], &hdr) != 0) {
		rc = CLI_EXIT_IO;
		output_discard(&out);
		goto end;
	}
	output_options(&out, &ins, scan, &hdr, &events_lost, &buffers_lost);
	if (o->split_size && o->split_size < 2 * (uint64_t)out.wo.buffer_size) {
		/* Each file holds its header buffer and at least one data
		 * buffer; anything smaller would mean a file per event. */
		cli_message("--split-size %llu is less than two buffers of the output "
		            "(2 x %u bytes): each file holds a header buffer and data buffers",
		            (unsigned long long)o->split_size, out.wo.buffer_size);
		rc = CLI_EXIT_USAGE;
		output_discard(&out);
		goto end;
	}
	out.cpu_pos = calloc(out.wo.number_of_processors, sizeof *out.cpu_pos);
	if (!out.cpu_pos) {
		cli_message("out of memory");
		rc = CLI_EXIT_IO;
		output_discard(&out);
		goto end;
	}
	int failed = output_open(&out) != 0 || write_events(&out, &ins) != 0;
	cli_progress_clear(&ins.pg);
	rc = cli_worse(convert_status(&ins), out.rc);
	if (!failed && convert_nothing_read(&ins, o->output)) {
		/* An existing output stays as it was. */
		output_discard(&out);
		rc = cli_worse(rc, CLI_EXIT_DAMAGE);
		goto end;
	}
	if (!failed && output_close(&out, events_lost, buffers_lost) != 0)
		failed = 1;
	if (!failed && out.split && convert_parts_commit(&out.parts, out.made) != 0) {
		out.split = 0;          /* what was moved stays; the rest is gone */
		failed = 1;
	}
	if (failed) {
		output_discard(&out);
		rc = CLI_EXIT_IO;
	}
end:
	output_free(&out);
	header_records_free(&hdr);
	free(scan);
	convert_free_inputs(&ins);
	return rc;
}

/* ---- raw copy ---------------------------------------------------------- */

int convert_raw(const struct convert_options *o, const char *path)
{
	const char *name = cli_display_name(path);
	int rc = CLI_EXIT_CLEAN, st;
	struct cli_open_notes notes;
	etl_reader *r = cli_open_reader(name, path, -1, ETL_ORDER_FILE, &st);
	if (!r)
		return st;
	rc = cli_report_open(name, r, st, &notes);

	struct etl_writer_options wo;
	etl_writer_options_from_logfile(&wo, etl_reader_logfile(r));
	wo.buffer_size = sane_buffer_size(wo.buffer_size);
	/* Raw mode writes no header buffer of its own, but the writer sends
	 * its initial one before the first raw buffer replaces it; compressed
	 * and bare, that one is only 512 bytes (a plain one would be a whole
	 * buffer, which a short input would not cover). */
	wo.log_file_mode = sane_mode(wo.log_file_mode) | ETL_MODE_COMPRESSED;
	wo.bare_header = 1;

	struct etl_reader_stats rs;
	struct cli_progress pg;
	etl_reader_stats(r, &rs);
	cli_progress_init(&pg, o->progress_ok && rs.input_size > CLI_PROGRESS_MIN_SIZE, NULL);

	etl_writer *w = etl_writer_new();
	if (!w) {
		cli_message("out of memory");
		etl_reader_free(r);
		return CLI_EXIT_IO;
	}
	int failed = etl_writer_open_file(w, o->output, &wo) != ETL_OK;
	const struct etl_buffer_info *bi;
	unsigned tick = 0;
	uint64_t copied = 0;
	uint64_t buffers = 0;
	while (!failed && (st = etl_reader_next_buffer(r, &bi)) != ETL_END) {
		if (st == ETL_FATAL || st == ETL_FAILED) {
			cli_progress_clear(&pg);
			if (!cli_open_note_repeats(&notes, etl_reader_erroff(r), etl_reader_errmsg(r)))
				cli_reader_problem(name, "", r);
			rc = cli_worse(rc, st == ETL_FATAL ? CLI_EXIT_IO : CLI_EXIT_DAMAGE);
			if (st == ETL_FATAL)
				break;
		}
		if (bi && bi->stored && bi->available) {
			if (etl_writer_write_raw_buffer(w, bi->stored, bi->available) != ETL_OK)
				failed = 1;
			copied += bi->available;
			buffers++;
		}
		if (pg.on && (++tick & 0xFF) == 0) {
			etl_reader_stats(r, &rs);
			cli_progress_show(&pg, rs.bytes_in, rs.input_size);
		}
	}
	cli_progress_clear(&pg);
	if (!failed && rc != CLI_EXIT_IO && buffers == 0) {
		/* Nothing to copy: an existing output stays as it was (freeing
		 * the writer abandons its temporary). */
		cli_message("%s: left as it was: no buffer could be read from the input", o->output);
		etl_writer_free(w);
		etl_reader_free(r);
		return cli_worse(rc, CLI_EXIT_DAMAGE);
	}
	if (!failed && rc != CLI_EXIT_IO && etl_writer_close(w) != ETL_OK)
		failed = 1;
	if (failed) {
		cli_error(cli_display_name(o->output), etl_writer_errmsg(w));
		rc = CLI_EXIT_IO;
	} else if (rc != CLI_EXIT_IO && etl_outfile_codec_suffix(o->output) == 0) {
		/* The writer's first header buffer (512 bytes, see above) is
		 * left past the end when the input was shorter (cut inside its
		 * header buffer): cut the copy to what was read. */
		struct stat sb;
		if (stat(o->output, &sb) == 0 && (uint64_t)sb.st_size > copied &&
		    truncate(o->output, (off_t)copied) != 0) {
			cli_message("%s: cannot shorten the copy: %s", o->output, strerror(errno));
			unlink(o->output);
			rc = CLI_EXIT_IO;
		}
	}
	etl_writer_free(w);             /* abandons the output if not closed */
	etl_reader_free(r);
	return rc;
}
