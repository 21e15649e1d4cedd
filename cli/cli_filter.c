/*
 * cli_filter.c - the event filter every tool takes (--provider, --id,
 * --level, --keyword, --pid, --cpu, --type, --since, --until ...): parsing
 * its options, their usage text and matching an event against it. See
 * cli_common.h.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "cli_common.h"

/* ---- the event filter ---------------------------------------------------- */

void cli_filter_init(struct cli_filter *f)
{
	memset(f, 0, sizeof *f);
}

void cli_filter_free(struct cli_filter *f)
{
	for (size_t i = 0; i < f->n_names; i++)
		free(f->names[i]);
	free(f->names);
	free(f->guids);
	memset(f, 0, sizeof *f);
}

int cli_filter_is_option(int opt)
{
	return opt >= CLI_OPT_PROVIDER && opt < CLI_OPT_FILTER_END_;
}

static int set_err(char *err, size_t errlen, const char *what, const char *arg, const char *hint)
{
	snprintf(err, errlen, "invalid %s '%s'%s%s", what, arg, hint ? ": " : "", hint ? hint : "");
	return -1;
}

/* A numeric option: arg, up to max, into *val with *has set. */
static int num_opt(const char *arg, uint64_t max, const char *what, int *has, uint64_t *val,
                   char *err, size_t errlen)
{
	if (cli_parse_u64(arg, max, val) != 0) {
		char hint[96];
		snprintf(hint, sizeof hint, "expected a number from 0 to %llu (decimal or 0x hex)",
		         (unsigned long long)max);
		return set_err(err, errlen, what, arg, hint);
	}
	*has = 1;
	return 0;
}

static int add_guid(struct cli_filter *f, const struct etl_guid *g)
{
	struct etl_guid *n = realloc(f->guids, (f->n_guids + 1) * sizeof *n);
	if (!n)
		return -1;
	f->guids = n;
	f->guids[f->n_guids++] = *g;
	return 0;
}

/* --provider: a GUID, or a name (EventSource and TraceLogging providers
 * take their GUID from their name, decoding.md §7: that GUID is matched
 * too, so the name works even where the trace does not carry it). */
static int provider_opt(struct cli_filter *f, const char *arg, char *err, size_t errlen)
{
	struct etl_guid g;
	if (!arg || !*arg)
		return set_err(err, errlen, "provider", arg ? arg : "", "empty");
	if (etl_guid_parse(arg, &g) == ETL_OK)
		return add_guid(f, &g) == 0 ? 0 : set_err(err, errlen, "provider", arg, "out of memory");
	char **n = realloc(f->names, (f->n_names + 1) * sizeof *n);
	if (!n)
		return set_err(err, errlen, "provider", arg, "out of memory");
	f->names = n;
	if (!(f->names[f->n_names] = strdup(arg)))
		return set_err(err, errlen, "provider", arg, "out of memory");
	f->n_names++;
	if (etl_provider_guid_from_name(arg, &g) == ETL_OK && add_guid(f, &g) != 0)
		return set_err(err, errlen, "provider", arg, "out of memory");
	return 0;
}

/* --since, --until. */
static int time_opt(struct cli_filter *f, int opt, const char *arg, char *err, size_t errlen)
{
	struct cli_time t;
	if (cli_parse_time(arg, &t) != 0)
		return set_err(err, errlen, opt == CLI_OPT_SINCE ? "--since time" : "--until time",
		               arg ? arg : "",
		               "expected YYYY-MM-DD[THH:MM[:SS[.fffffff]]][Z] (UTC) or seconds from the trace start");
	if (opt == CLI_OPT_SINCE) {
		f->has_since = 1;
		f->since = t;
	} else {
		f->has_until = 1;
		f->until = t;
	}
	return 0;
}

/* --type. */
static int type_opt(struct cli_filter *f, const char *arg, char *err, size_t errlen)
{
	int k = etl_hdr_kind_from_name(arg ? arg : "");
	if (k == ETL_HDR_UNKNOWN)
		return set_err(err, errlen, "header type", arg ? arg : "",
		               "expected SYSTEM32, SYSTEM64, COMPACT32, COMPACT64, PERFINFO32, "
		               "PERFINFO64, FULL_HEADER32, FULL_HEADER64, INSTANCE32, INSTANCE64, "
		               "EVENT_HEADER32, EVENT_HEADER64, MESSAGE, ERROR, TIMED or WNODE");
	f->kinds |= 1u << k;
	return 0;
}

int cli_filter_option(struct cli_filter *f, int opt, const char *arg, char *err, size_t errlen)
{
	/* The numeric options: largest value, name in messages, field. */
#define NUM(max, what, field) num_opt(arg, max, what, &f->has_##field, &f->field, err, errlen)
	int rc;
	switch (opt) {
	case CLI_OPT_PROVIDER: rc = provider_opt(f, arg, err, errlen); break;
	case CLI_OPT_ID: rc = NUM(UINT16_MAX, "event id", id); break;
	case CLI_OPT_OPCODE: rc = NUM(UINT8_MAX, "opcode", opcode); break;
	case CLI_OPT_LEVEL: rc = NUM(UINT8_MAX, "level", level); break;
	case CLI_OPT_KEYWORD: rc = NUM(UINT64_MAX, "keyword mask", keyword); break;
	case CLI_OPT_PID: rc = NUM(UINT32_MAX, "process id", pid); break;
	case CLI_OPT_TID: rc = NUM(UINT32_MAX, "thread id", tid); break;
	case CLI_OPT_CPU: rc = NUM(UINT16_MAX, "processor", cpu); break;
	case CLI_OPT_TYPE: rc = type_opt(f, arg, err, errlen); break;
	case CLI_OPT_SINCE:
	case CLI_OPT_UNTIL: rc = time_opt(f, opt, arg, err, errlen); break;
	default:
		snprintf(err, errlen, "unknown filter option %d", opt);
		return -1;
	}
#undef NUM
	if (rc == 0)
		f->active = 1;
	return rc;
}

void cli_filter_usage(FILE *out)
{
	fputs("Filters (all given conditions must hold; repeated --provider/--type: any):\n"
	      "      --provider GUID|NAME  events of this provider (name: case-insensitive;\n"
	      "                            EventSource/TraceLogging names also match the\n"
	      "                            GUID derived from the name)\n"
	      "      --id N                event id (EVENT_HEADER id, WPP message number,\n"
	      "                            kernel HookId)\n"
	      "      --opcode N            opcode\n"
	      "      --level N             level N or lower (more severe)\n"
	      "      --keyword MASK        any of these keyword bits (decimal or 0x hex)\n"
	      "      --pid N               process id\n"
	      "      --tid N               thread id\n"
	      "      --cpu N               processor number\n"
	      "      --type HEADERTYPE     trace header type (SYSTEM64, EVENT_HEADER64, ...)\n"
	      "      --since TIME          events at or after TIME\n"
	      "      --until TIME          events before TIME\n"
	      "                            TIME is YYYY-MM-DD[THH:MM[:SS[.fffffff]]][Z] (UTC)\n"
	      "                            or seconds from the trace start (e.g. 1.5)\n",
	      out);
}

static void resolve_times(struct cli_filter *f)
{
	f->since_ft = f->since.relative ? f->base + f->since.value : f->since.value;
	f->until_ft = f->until.relative ? f->base + f->until.value : f->until.value;
}

void cli_filter_begin_file(struct cli_filter *f, const struct etl_logfile *lf)
{
	f->base_known = 0;
	f->base = 0;
	if (lf && lf->present) {
		f->base_known = 1;
		f->base = lf->start_time;
	}
	resolve_times(f);
}

int cli_filter_match(struct cli_filter *f, const struct etl_event *ev)
{
	if (!f->active)
		return 1;
	if (f->kinds && !(ev->kind > 0 && ev->kind < 32 && (f->kinds & (1u << ev->kind))))
		return 0;
	/* System-style headers carry their HookId as the event id (etl_event.h
	 * documents ev->id so; read hook_id, which every decoder sets). */
	if (f->has_id && (cli_event_is_system(ev) ? ev->hook_id : ev->id) != f->id)
		return 0;
	if (f->has_opcode && ev->opcode != f->opcode)
		return 0;
	if (f->has_level && ev->level > f->level)
		return 0;
	if (f->has_keyword && !(ev->keyword & f->keyword))
		return 0;
	if (f->has_pid && (!(ev->present & ETL_EVF_PID) || ev->pid != f->pid))
		return 0;
	if (f->has_tid && (!(ev->present & ETL_EVF_PID) || ev->tid != f->tid))
		return 0;
	if (f->has_cpu && ev->processor != f->cpu)
		return 0;
	if (f->n_guids || f->n_names) {
		int ok = 0;
		if (ev->present & ETL_EVF_PROVIDER)
			for (size_t i = 0; i < f->n_guids && !ok; i++)
				ok = etl_guid_equal(&ev->provider, &f->guids[i]);
		for (size_t i = 0; i < f->n_names && !ok; i++) {
			if (ev->provider_name)
				ok = strcasecmp(ev->provider_name, f->names[i]) == 0;
			else if ((ev->present & ETL_EVF_COMPONENT_ID) &&
			         strncasecmp(f->names[i], "component:", 10) == 0) {
				uint64_t c;
				ok = cli_parse_u64(f->names[i] + 10, UINT32_MAX, &c) == 0 &&
				     c == ev->component_id;
			}
		}
		if (!ok)
			return 0;
	}
	if (f->has_since || f->has_until) {
		if (!(ev->present & ETL_EVF_UTC))
			return 0;
		if (!f->base_known && ((f->has_since && f->since.relative) ||
		                       (f->has_until && f->until.relative))) {
			/* No logfile header: count from the first timed event. */
			f->base_known = 1;
			f->base = ev->utc;
			resolve_times(f);
		}
		if (f->has_since && ev->utc < f->since_ft)
			return 0;
		if (f->has_until && ev->utc >= f->until_ft)
			return 0;
	}
	return 1;
}
