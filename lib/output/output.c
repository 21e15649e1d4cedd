/*
 * lib/output/output.c - the etl_output handle: it checks the call order,
 * builds the record a renderer lays out from an event and its decoded
 * payload (System values, RenderingInfo, payload or error), writes the
 * header event exactly once, and drives the renderer of the chosen format
 * (formats/output/). What renderers share lives in lib/render/.
 * With ETL_OUTPUT_EVENTS_ONLY a handle starts in the state an ordinary one
 * reaches after the header event and the first event, so that handles in
 * several threads render one document's later events (etlconvert -j).
 */
#define ETL_BUILDING_LIB 1
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "etl_output.h"
#include "formats/output/out.h"
#include "lib/common/ext_walk.h"
#include "lib/common/zero.h"
#include "lib/decode/decode_output.h"

/* {68fdd900-4a3e-11d1-84f4-0000f80464e3} */
/* The kernel logger's provider as tracerpt names it in RenderingInfo. */
#define ETL_KERNEL_MOF_PROVIDER "MSNT_SystemTrace"

static const struct etl_guid eventtrace_guid = {
	0x68fdd900, 0x4a3e, 0x11d1, { 0x84, 0xf4, 0x00, 0x00, 0xf8, 0x04, 0x64, 0xe3 }
};


/* Handle states: NEW --begin--> OPEN --end--> ENDED; a sink or memory
 * failure sets r.failed, after which only etl_output_free() works. */
enum { ETL_OST_NEW = 0, ETL_OST_OPEN, ETL_OST_ENDED };

struct etl_output {
	struct etl_render r;           /* what the renderer sees              */
	const struct etl_out_ops *ops;
	int state;                     /* ETL_OST_*                           */
	/* the header event */
	int have_lf;
	struct etl_logfile lf;         /* copy; names owned (strdup)          */
	int header_done;               /* header event written                */
	int header_skipped;            /* the matching record came (once)     */
	struct etl_prop lf_props[ETL_LOGFILE_PROPS]; /* its fields           */
	uint32_t n_lf_props;
	/* scratch for one record */
	char sid[192];
	char display[64];
};

/* A system-style EventTrace Header record (HookId 0x0000). */
static int is_logfile_record(const struct etl_event *ev)
{
	return (ev->present & ETL_EVF_HOOKID) && ev->hook_id == 0;
}

int etl_output_is_header_record(const struct etl_logfile *lf, const struct etl_event *ev)
{
	return lf && ev && lf->present && is_logfile_record(ev) && ev->file_offset == lf->file_offset &&
	       ev->timestamp == lf->header_timestamp;
}

static int matches_lf(const struct etl_output *o, const struct etl_event *ev)
{
	return o->have_lf && etl_output_is_header_record(&o->lf, ev);
}

/* ---- building a record ---------------------------------------------- */

static void system_from_event(struct etl_output *o, struct etl_out_rec *r,
                              const struct etl_event *ev, const struct etl_decoded *dec)
{
	r->ev = ev;
	r->provider = ev->provider;
	r->provider_name = dec && dec->provider_name ? dec->provider_name
	                 : ev->provider_name ? ev->provider_name : etl_known_provider_name(&ev->provider);
	r->event_id = ev->id;
	r->version = ev->version;
	r->level = ev->level;
	r->opcode = ev->opcode;
	r->channel = ev->channel;
	r->task = ev->task;
	r->keywords = ev->keyword;
	if (ev->present & ETL_EVF_UTC) {
		r->has_time = 1;
		r->utc = ev->utc;
	} else if (ev->present & ETL_EVF_TIMESTAMP) {
		r->has_raw = 1;
		r->raw = ev->timestamp;
	}
	if ((ev->present & ETL_EVF_ACTIVITY) && !etl_guid_is_null(&ev->activity_id)) {
		r->has_activity = 1;
		r->activity = ev->activity_id;
	}
	r->has_exec = 1;
	r->cpu = ev->processor;
	if (ev->present & ETL_EVF_PID) {
		r->has_pid = 1;
		r->pid = ev->pid;
		r->tid = ev->tid;
	}
	if (ev->present & ETL_EVF_CPU_TIMES) {
		r->has_cpu_times = 1;
		r->kernel_time = ev->kernel_time;
		r->user_time = ev->user_time;
	}
	/* Classic and kernel records name an event class, which tracerpt
	 * repeats as ExtendedTracingInfo/EventGuid (doc/decoding.md §6.3). */
	switch (ev->kind) {
	case ETL_HDR_SYSTEM32: case ETL_HDR_SYSTEM64:
	case ETL_HDR_COMPACT32: case ETL_HDR_COMPACT64:
	case ETL_HDR_PERFINFO32: case ETL_HDR_PERFINFO64:
	case ETL_HDR_FULL_HEADER32: case ETL_HDR_FULL_HEADER64:
	case ETL_HDR_INSTANCE32: case ETL_HDR_INSTANCE64:
		r->has_ext_tracing = 1;
		r->event_guid = ev->provider;
		if (ev->present & ETL_EVF_INSTANCE) {
			r->has_instance = 1;
			r->instance_id = ev->instance_id;
			r->parent_instance_id = ev->parent_instance_id;
			r->parent_guid = ev->parent_guid;
		}
		break;
	default:
		break;
	}
	/* Extended items: RelatedActivityID and the user SID. */
	struct etl__ext_walk w = { 0, 0 };
	struct etl_ext_item item;
	while (etl__ext_walk_next(ev, &w, &item)) {
		struct etl_ext_typed t;
		if ((item.ext_type != ETL_EXT_RELATED_ACTIVITYID && item.ext_type != ETL_EXT_SID) ||
		    etl_ext_item_decode(&item, &t) != ETL_OK)
			continue;               /* (TraceLogging schemas, stacks, ...) */
		if (item.ext_type == ETL_EXT_RELATED_ACTIVITYID && !r->has_related) {
			r->has_related = 1;
			r->related = t.u.guid;
		} else if (item.ext_type == ETL_EXT_SID && !r->user_sid) {
			struct etl_outbuf sb;
			memset(&sb, 0, sizeof sb);
			if (etl__out_sid(&sb, item.data, item.data_size) == 0 && !sb.oom && sb.len < sizeof o->sid) {
				memcpy(o->sid, sb.p, sb.len);
				o->sid[sb.len] = 0;
				r->user_sid = o->sid;
			}
			etl__ob_free(&sb);
		}
	}
	r->kind_name = etl_hdr_kind_name(ev->kind);
	r->uses_id = ev->kind == ETL_HDR_EVENT_HEADER32 || ev->kind == ETL_HDR_EVENT_HEADER64 ||
	             ev->kind == ETL_HDR_ERROR || ev->kind == ETL_HDR_MESSAGE;
	r->has_hook = (ev->present & ETL_EVF_HOOKID) != 0;
	r->hook_id = ev->hook_id;
	r->payload_size = ev->payload_size;
	if (r->provider_name)
		r->display = r->provider_name;
	else if (ev->kind == ETL_HDR_MESSAGE && (ev->present & ETL_EVF_COMPONENT_ID)) {
		snprintf(o->display, sizeof o->display, "component:%u", (unsigned)ev->component_id);
		r->display = o->display;
	} else {
		etl_guid_format(&ev->provider, o->display);  /* 64 bytes: room enough */
		r->display = o->display;
	}
	if (dec && dec->event_name)
		r->event_name = dec->event_name;
	else if (r->has_hook && (ev->hook_id >> 8) == 0)
		r->event_name = etl_eventtrace_name(ev->opcode);
}

static void rendering_from(struct etl_out_rec *r, const struct etl_decoded *dec)
{
	if (!dec)
		return;
	r->r_message = dec->message;
	r->r_level = dec->level_name;
	r->r_opcode = dec->opcode_name;
	r->r_task = dec->task_name;
	r->r_channel = dec->channel_name;
	r->r_provider = dec->provider_name;
	r->r_keywords = dec->keywords_name;
	r->r_event_name = dec->event_name;
	if (dec->source == ETL_DECODE_MOF) {
		/* tracerpt names a kernel event by its class ("Process"), the
		 * opcode ("Start") being the Opcode, and the provider as the
		 * kernel logger's MOF name (doc/decoding.md §6.3). */
		r->r_event_name = dec->provider_name;
		r->r_provider = ETL_KERNEL_MOF_PROVIDER;
	}
	r->has_rendering = r->r_message || r->r_level || r->r_opcode || r->r_task || r->r_channel ||
	                   r->r_provider || (r->r_keywords && *r->r_keywords) || r->r_event_name;
}

/* The logfile-header event as tracerpt renders it: class EventTrace,
 * opcode Header, the kernel logger's provider name, its class GUID. */
static void header_rendering(struct etl_out_rec *r)
{
	r->provider = eventtrace_guid;
	r->provider_name = "EventTrace";
	r->display = "EventTrace";
	r->has_rendering = 1;
	r->r_event_name = "EventTrace";
	r->r_opcode = "Header";
	r->r_provider = ETL_KERNEL_MOF_PROVIDER;
	r->has_ext_tracing = 1;
	r->event_guid = eventtrace_guid;
}

/* The header event: from the record when there is one, else from lf. */
static int write_header(struct etl_output *o, const struct etl_event *ev)
{
	struct etl_out_rec r;
	memset(&r, 0, sizeof r);
	r.is_header = 1;
	o->header_done = 1;
	if (!o->have_lf) {
		r.absent = 1;
		return o->ops->event(&o->r, &r);
	}
	if (ev) {
		system_from_event(o, &r, ev, NULL);
	} else {
		r.has_time = 1;
		r.utc = o->lf.start_time;
		r.kind_name = o->lf.header_ptr_size == 4 ? "SYSTEM32" : "SYSTEM64";
		r.has_hook = 1;
		r.event_name = etl_eventtrace_name(0);
	}
	header_rendering(&r);
	r.has_data = 1;
	r.props = o->lf_props;
	r.n_props = o->n_lf_props;
	return o->ops->event(&o->r, &r);
}

/* ---- public API ----------------------------------------------------- */

int etl_output_format_known(const char *format)
{
	return etl__out_find(format) != NULL;
}

etl_output *etl_output_new(const char *format, etl_output_write_fn write, void *ctx)
{
	const struct etl_out_ops *ops = etl__out_find(format);
	if (!ops || !write)
		return NULL;
	etl_output *o = calloc(1, sizeof *o);
	if (!o)
		return NULL;
	o->ops = ops;
	o->r.format = ops->name;
	o->r.write = write;
	o->r.ctx = ctx;
	if (ops->open && ops->open(&o->r) != ETL_OK) {
		etl_output_free(o);
		return NULL;
	}
	return o;
}

static int misuse(etl_output *o, const char *what)
{
	snprintf(o->r.errmsg, sizeof o->r.errmsg, "%s", what);
	o->r.errcode = ETL_E_MISUSE;
	return ETL_FAILED;
}

int etl_output_set_flags(etl_output *o, unsigned flags)
{
	if (!o)
		return ETL_FAILED;
	if (o->state != ETL_OST_NEW)
		return misuse(o, "etl_output_set_flags() called after etl_output_begin()");
	if ((flags & ~(ETL_OUTPUT_TEXT_RECORD | ETL_OUTPUT_EXPLAIN | ETL_OUTPUT_EVENTS_ONLY)) ||
	    ((flags & ETL_OUTPUT_TEXT_RECORD) && o->ops != &etl__out_text) ||
	    ((flags & ETL_OUTPUT_EXPLAIN) && o->ops != &etl__out_json && o->ops != &etl__out_jsonl))
		return misuse(o, "etl_output_set_flags(): a flag the format does not have");
	o->r.flags = flags;
	return ETL_OK;
}

static int discard(void *ctx, const void *p, size_t n)
{
	(void)ctx;
	(void)p;
	(void)n;
	return 0;
}

/* ETL_OUTPUT_EVENTS_ONLY: the state an ordinary handle is in once it has
 * written the header event and the first event (the renderer's prologue
 * run into nothing, the header event and the logfile-header record taken
 * as done), without writing anything. The JSON renderer reads the flag for
 * the separator it would have counted its way to. */
static int begin_events_only(etl_output *o)
{
	o->header_done = 1;
	o->header_skipped = 1;
	if (!o->ops->begin)
		return ETL_OK;
	etl_output_write_fn write = o->r.write;
	o->r.write = discard;
	int st = o->ops->begin(&o->r);
	o->r.write = write;
	return st;
}

int etl_output_begin(etl_output *o, const struct etl_logfile *lf)
{
	if (!o)
		return ETL_FAILED;
	if (o->state != ETL_OST_NEW)
		return misuse(o, "etl_output_begin() called twice or after a failure");
	o->state = ETL_OST_OPEN;
	if (o->r.flags & ETL_OUTPUT_EVENTS_ONLY)
		return begin_events_only(o);
	if (lf && lf->present) {
		o->lf = *lf;
		o->lf.logger_name = strdup(lf->logger_name ? lf->logger_name : "");
		o->lf.log_file_name = strdup(lf->log_file_name ? lf->log_file_name : "");
		o->have_lf = 1;
		if (!o->lf.logger_name || !o->lf.log_file_name)
			return etl__render_fail(&o->r, ETL_E_NOMEM, "Out of memory copying the logfile header");
		o->n_lf_props = etl__logfile_props(&o->lf, o->lf_props);
	}
	if (o->ops->begin)
		return o->ops->begin(&o->r);
	return ETL_OK;
}

/* An EventTrace Header record of another input: its own fields. */
static int write_other_logfile(etl_output *o, const struct etl_event *ev)
{
	struct etl_logfile_record hr;
	struct etl_out_rec r;
	memset(&r, 0, sizeof r);
	system_from_event(o, &r, ev, NULL);
	header_rendering(&r);
	if (etl__logfile_record_decode(ev, &hr) == ETL_OK) {
		r.has_data = 1;
		r.props = hr.props;
		r.n_props = hr.n_props;
	} else {
		r.has_error = 1;
		r.error_code = hr.error_code;
		r.error_reason = hr.error_reason;
		r.payload = ev->payload;
		r.payload_len = ev->payload_size;
	}
	int st = o->ops->event(&o->r, &r);
	etl__logfile_record_free(&hr);
	return st;
}

int etl_output_event(etl_output *o, const struct etl_event *ev, const struct etl_decoded *dec)
{
	if (!o)
		return ETL_FAILED;
	if (o->r.failed)
		return ETL_FATAL;
	if (o->state != ETL_OST_OPEN)
		return misuse(o, "etl_output_event() called before etl_output_begin() or after etl_output_end()");
	if (!ev)
		return misuse(o, "etl_output_event() called without an event");
	if (!o->header_done) {
		if (matches_lf(o, ev)) {
			o->header_skipped = 1;
			return write_header(o, ev);
		}
		int st = write_header(o, NULL);
		if (st != ETL_OK)
			return st;
	}
	if (!o->header_skipped && matches_lf(o, ev)) {
		o->header_skipped = 1;
		return ETL_OK;
	}
	if (is_logfile_record(ev))
		return write_other_logfile(o, ev);

	struct etl_out_rec r;
	ETL_ZERO(&r);
	system_from_event(o, &r, ev, dec);
	rendering_from(&r, dec);
	if (dec && dec->status == ETL_OK) {
		r.has_data = 1;
		r.props = dec->props;
		r.n_props = dec->props ? dec->n_props : 0;
		/* The names: the decoder's (the provider's too, not the
		 * event's own), and ETL_KERNEL_MOF_PROVIDER. */
		if (r.provider_name == dec->provider_name)
			r.names_gen = etl__dec_names_trusted(dec);
	} else {
		r.has_error = 1;
		r.error_code = dec ? dec->errcode : ETL_E_UNSUPPORTED;
		r.error_reason = dec ? (dec->error ? dec->error : "The payload could not be decoded")
		                     : "The event was not decoded";
		r.payload = ev->payload;
		r.payload_len = ev->payload ? ev->payload_size : 0;
	}
	if (o->r.flags & ETL_OUTPUT_EXPLAIN)
		r.decoding_source = etl_decode_source_name(dec && dec->status == ETL_OK ? dec->source
		                                                                     : ETL_DECODE_NONE);
	return o->ops->event(&o->r, &r);
}

int etl_output_end(etl_output *o)
{
	if (!o)
		return ETL_FAILED;
	if (o->r.failed)
		return ETL_FATAL;
	if (o->state != ETL_OST_OPEN)
		return misuse(o, "etl_output_end() called before etl_output_begin() or twice");
	if (o->r.flags & ETL_OUTPUT_EVENTS_ONLY) {    /* the document's end is not its */
		o->state = ETL_OST_ENDED;
		return ETL_OK;
	}
	if (!o->header_done) {
		int st = write_header(o, NULL);
		if (st != ETL_OK)
			return st;
	}
	int st = o->ops->end ? o->ops->end(&o->r) : ETL_OK;
	if (st == ETL_OK && o->r.buf.len)
		st = etl__render_flush(&o->r);
	if (st == ETL_OK)
		o->state = ETL_OST_ENDED;
	return st;
}

void etl_output_free(etl_output *o)
{
	if (!o)
		return;
	if (o->ops && o->ops->close)
		o->ops->close(&o->r);
	free(o->lf.logger_name);
	free(o->lf.log_file_name);
	etl__ob_free(&o->r.buf);
	free(o);
}

int etl_output_errcode(const etl_output *o)
{
	return o ? o->r.errcode : ETL_E_NONE;
}

const char *etl_output_errmsg(const etl_output *o)
{
	return o ? o->r.errmsg : "";
}
