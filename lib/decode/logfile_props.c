/*
 * lib/decode/logfile_props.c - the logfile header as properties, named as
 * the TRACE_LOGFILE_HEADER MOF class names its fields (doc/decoding.md
 * §6.3), for the header event of every output format. LoggerName and
 * LogFileName show the names (SessionNameString, LogFileNameString), as
 * tracerpt does, not the pointer-sized slots of those names.
 */
#define ETL_BUILDING_LIB 1
#include <string.h>
#include "lib/decode/decode_output.h"
#include "lib/read/logfile.h"

static void lf_prop(struct etl_prop *v, uint32_t *n, const char *name, int kind,
                    unsigned in_type, unsigned out_type, uint64_t u)
{
	struct etl_prop *p = &v[(*n)++];
	memset(p, 0, sizeof *p);
	p->name = name;
	p->kind = kind;
	p->in_type = (uint16_t)in_type;
	p->out_type = (uint16_t)out_type;
	p->v.u = u;
	p->parent = ETL_PROP_NO_PARENT;
}

static void lf_str(struct etl_prop *v, uint32_t *n, const char *name, const char *s)
{
	struct etl_prop *p = &v[(*n)++];
	memset(p, 0, sizeof *p);
	p->name = name;
	p->kind = ETL_VAL_STRING;
	p->in_type = ETL_IN_UNICODESTRING;
	p->v.str.s = s ? s : "";
	p->v.str.len = s ? strlen(s) : 0;
	p->parent = ETL_PROP_NO_PARENT;
}

uint32_t etl__logfile_props(const struct etl_logfile *lf, struct etl_prop *v)
{
	uint32_t n = 0;
	uint32_t version = (uint32_t)lf->version[0] | (uint32_t)lf->version[1] << 8 |
	                   (uint32_t)lf->version[2] << 16 | (uint32_t)lf->version[3] << 24;
	lf_prop(v, &n, "BufferSize", ETL_VAL_UINT, ETL_IN_UINT32, 0, lf->buffer_size);
	lf_prop(v, &n, "Version", ETL_VAL_UINT, ETL_IN_UINT32, 0, version);
	lf_prop(v, &n, "ProviderVersion", ETL_VAL_UINT, ETL_IN_UINT32, 0, lf->provider_version);
	lf_prop(v, &n, "NumberOfProcessors", ETL_VAL_UINT, ETL_IN_UINT32, 0, lf->number_of_processors);
	lf_prop(v, &n, "EndTime", ETL_VAL_FILETIME, ETL_IN_FILETIME, 0, (uint64_t)lf->end_time);
	lf_prop(v, &n, "TimerResolution", ETL_VAL_UINT, ETL_IN_UINT32, 0, lf->timer_resolution);
	lf_prop(v, &n, "MaxFileSize", ETL_VAL_UINT, ETL_IN_UINT32, 0, lf->maximum_file_size);
	lf_prop(v, &n, "LogFileMode", ETL_VAL_UINT, ETL_IN_HEXINT32, ETL_OUT_HEXINT32, lf->log_file_mode);
	lf_prop(v, &n, "BuffersWritten", ETL_VAL_UINT, ETL_IN_UINT32, 0, lf->buffers_written);
	lf_prop(v, &n, "StartBuffers", ETL_VAL_UINT, ETL_IN_UINT32, 0, lf->start_buffers);
	lf_prop(v, &n, "PointerSize", ETL_VAL_UINT, ETL_IN_UINT32, 0, lf->pointer_size);
	lf_prop(v, &n, "EventsLost", ETL_VAL_UINT, ETL_IN_UINT32, 0, lf->events_lost);
	lf_prop(v, &n, "CPUSpeed", ETL_VAL_UINT, ETL_IN_UINT32, 0, lf->cpu_speed_mhz);
	/* The names, as tracerpt shows them: on disk these slots hold stale
	 * pointers (before 6.1) or the timer sources (6.1+, doc/format.md
	 * §2.2), neither of use to a reader; the names follow the header. */
	lf_str(v, &n, "LoggerName", lf->logger_name);
	lf_str(v, &n, "LogFileName", lf->log_file_name);
	lf_prop(v, &n, "BootTime", ETL_VAL_FILETIME, ETL_IN_FILETIME, 0, (uint64_t)lf->boot_time);
	lf_prop(v, &n, "PerfFreq", ETL_VAL_INT, ETL_IN_INT64, 0, (uint64_t)lf->perf_freq);
	lf_prop(v, &n, "StartTime", ETL_VAL_FILETIME, ETL_IN_FILETIME, 0, (uint64_t)lf->start_time);
	lf_prop(v, &n, "ReservedFlags", ETL_VAL_UINT, ETL_IN_UINT32, 0, lf->reserved_flags);
	lf_prop(v, &n, "BuffersLost", ETL_VAL_UINT, ETL_IN_UINT32, 0, lf->buffers_lost);
	lf_str(v, &n, "SessionNameString", lf->logger_name);
	lf_str(v, &n, "LogFileNameString", lf->log_file_name);
	return n;
}

int etl__logfile_record_decode(const struct etl_event *ev, struct etl_logfile_record *hr)
{
	struct etl_err err;
	memset(hr, 0, sizeof *hr);
	memset(&err, 0, sizeof err);
	if (etl__logfile_decode(ev->payload, ev->payload_size, ev->ptr_size == 4 ? 4 : 8, &hr->lf,
	                        &err) == ETL_OK) {
		hr->n_props = etl__logfile_props(&hr->lf, hr->props);
		return ETL_OK;
	}
	hr->error_code = err.code ? err.code : ETL_E_BAD_VALUE;
	if (err.msg[0]) {
		memcpy(hr->reason, err.msg, sizeof hr->reason < sizeof err.msg ? sizeof hr->reason : sizeof err.msg);
		hr->reason[sizeof hr->reason - 1] = 0;
		hr->error_reason = hr->reason;
	} else {
		hr->error_reason = "The logfile header cannot be decoded";
	}
	return ETL_FAILED;
}

void etl__logfile_record_free(struct etl_logfile_record *hr)
{
	etl__logfile_free(&hr->lf);
}
