/*
 * etlreplay.c - replay captured ETL files through libetl's tracing
 * runtime: the command line. Two modes:
 *   - replay (replay_run.c): `etlreplay IN... -o OUT.etl` plays every event
 *     of the inputs, merged in time order and selected by etldump's
 *     filters, back through one session writing OUT.etl (--compress,
 *     --circular SIZE, --new-file SIZE with a %d pattern), or with
 *     --realtime through a real-time session to a consumer printing them
 *     as etldump does; --speed F paces it at F times the original gaps;
 *     the SEM options (--config, --system-hive, --software-hive,
 *     --out-dir, --report) run the Scenario Event Mapper meanwhile (the
 *     SEM's part, cli/replay_sem.h);
 *   - --check-config loads a SEM configuration (a `reg export` file, or
 *     the offline SYSTEM hive and optionally the SOFTWARE hive) and prints
 *     the effective configuration the SEM would run - start events with
 *     their scenarios, end events and context providers with the
 *     aggregated parameters, the DiagLog providers, disabled scenarios -
 *     and every diagnostic with its key path; --json prints it as one JSON
 *     object (doc/sem.md §6).
 *
 * Exit status: 0 success (a clean configuration); 1 usage error (an output
 * that is an input, an input named twice), or a configuration that cannot
 * be used at all (not a .reg file or a hive, bad encoding, a corrupt
 * hive); 2 an input had damage (each loss is reported with its offset,
 * everything readable was replayed) or is not an ETL file, or a
 * configuration loaded with diagnostics; 3 an input could not be opened or
 * read, or the output could not be written (nothing is left of it then).
 */
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "etl_sem.h"
#include "replay.h"
#include "replay_sem.h"

#define PROG "etlreplay"

/* The statuses of cli_common.h; 2 means a configuration with diagnostics. */
#define EXIT_DIAGNOSTICS CLI_EXIT_DAMAGE

enum {
	OPT_CHECK = 0x100, OPT_SYSTEM, OPT_SOFTWARE, OPT_CONFIG, OPT_OUT_DIR, OPT_REPORT,
	OPT_REALTIME, OPT_COMPRESS, OPT_CIRCULAR, OPT_NEWFILE, OPT_SPEED
};

struct options {
	int check, json;
	const char *reg, *system, *software;
	struct replay_options r;
	int bad;                   /* an option's argument was refused      */
};

static void usage(void)
{
	printf("Usage: " PROG " [OPTION]... FILE... -o OUT.etl\n"
	       "       " PROG " [OPTION]... --realtime FILE...\n"
	       "       " PROG " --check-config [--json] CONFIG.reg\n"
	       "       " PROG " --check-config [--json] --system-hive SYSTEM [--software-hive SOFTWARE]\n"
	       "Replay Windows ETW trace logs (.etl) through libetl's tracing runtime, as if\n"
	       "the programs that wrote them were running again: every event of the FILEs,\n"
	       "merged in time order, is written again with its own header type, fields,\n"
	       "processor and timestamp, into a new trace OUT.etl or to a real-time\n"
	       "consumer. FILE may be '-' for standard input; inputs compressed with gzip or\n"
	       "LZ4 are inflated transparently.\n"
	       "\n"
	       "Replay:\n"
	       "  -o, --output OUT.etl  write the replayed trace to OUT.etl (made safely:\n"
	       "                        nothing is left of it when the replay fails); OUT\n"
	       "                        ending in .gz or .lz4 is compressed so\n"
	       "      --compress        compressed buffers, as Windows 8 and later write\n"
	       "      --circular SIZE   a circular file of at most SIZE (bytes with an\n"
	       "                        optional K, M or G suffix, whole MiB): the newest\n"
	       "                        buffers are kept\n"
	       "      --new-file SIZE   a new file each SIZE; OUT is a pattern with one %%d\n"
	       "                        numbered 1, 2, ... (trace_%%d.etl)\n"
	       "      --realtime        no file: the events go through a real-time session\n"
	       "                        to a consumer that prints them as etldump does\n"
	       "      --speed F         replay at F times the original pace (default: as\n"
	       "                        fast as possible)\n"
	       "  -q, --quiet           no progress display on stderr (shown for inputs over\n"
	       "                        8 MiB when stderr is a terminal)\n"
	       "  -h, --help            show this help and exit\n"
	       "  -V, --version         show the version and exit\n");
	cli_limits_usage(stdout);
	printf("\n"
	       "The Scenario Event Mapper during the replay:\n"
	       "      --config CONFIG.reg  run the SEM with this configuration\n"
	       "      --system-hive SYSTEM  ... or the one of an offline SYSTEM hive\n"
	       "      --software-hive SOFTWARE  with the WDI policy of a SOFTWARE hive\n"
	       "      --out-dir DIR     where DiagLog.etl and WdiContextLog.etl go\n"
	       "      --report FILE.json  the scenario report as JSON\n"
	       "\n"
	       "Checking a SEM configuration:\n"
	       "  --check-config[=CONFIG.reg]  load the configuration of the Scenario Event\n"
	       "                        Mapper (the WDI keys of the registry) and print the\n"
	       "                        effective configuration it would run: each start\n"
	       "                        event with its scenarios, end events and context\n"
	       "                        providers with the aggregated level, keyword and\n"
	       "                        enable property, the providers enabled on DiagLog,\n"
	       "                        the disabled scenarios, and every diagnostic with\n"
	       "                        its key path\n"
	       "  -j, --json            print one JSON object instead of text\n"
	       "CONFIG.reg is a `reg export` of HKLM\\SYSTEM\\CurrentControlSet\\Control\\WDI\n"
	       "(and of HKLM\\SOFTWARE\\Policies\\Microsoft\\Windows\\WDI): UTF-16 \"Windows\n"
	       "Registry Editor Version 5.00\" or 8-bit REGEDIT4 text.\n"
	       "\n");
	cli_filter_usage(stdout);
	printf("\n"
	       "Exit status: 0 success, 1 usage error or unusable configuration, 2 damaged\n"
	       "input (each loss is reported on stderr; everything readable is replayed), an\n"
	       "input that is not an ETL file, or a configuration with diagnostics,\n"
	       "3 input/output error (no output is left).\n");
}

static const char *guid_text(const struct etl_guid *g, char out[40])
{
	char t[ETL_GUID_STRLEN];
	etl_guid_format(g, t);
	out[0] = '{';
	for (int i = 0; i < ETL_GUID_STRLEN - 1; i++)
		out[i + 1] = (t[i] >= 'a' && t[i] <= 'f') ? (char)(t[i] - 32) : t[i];
	out[ETL_GUID_STRLEN] = '}';
	out[ETL_GUID_STRLEN + 1] = 0;
	return out;
}

static void print_params(const struct etl_sem_params *p)
{
	printf("  level %u  keyword 0x%" PRIX64 "  enable_property 0x%" PRIX32, (unsigned)p->level, p->keyword,
	       p->enable_property);
}

static void print_text(const etl_sem_config *cfg)
{
	char g[40];
	size_t n;
	if (etl_sem_config_enabled(cfg)) {
		printf("SEM enabled\n");
	} else {
		printf("SEM disabled: ");
		cli_text_safe(stdout, etl_sem_config_disabled_message(cfg));
		printf("\n");
	}
	printf("timeout %" PRIu32 " minutes (housekeeping every %" PRIu64 " seconds)\n",
	       etl_sem_config_timeout_minutes(cfg), etl_sem_config_housekeeping_seconds(cfg));
	const struct etl_sem_start_event *se = etl_sem_config_start_events(cfg, &n);
	printf("\nstart events: %zu\n", n);
	for (size_t i = 0; i < n; i++) {
		printf("  start event %s;%u", guid_text(&se[i].provider, g), (unsigned)se[i].id);
		print_params(&se[i].params);
		printf("  timeout %s\n    scenarios", se[i].timeout_enabled ? "yes" : "no");
		for (size_t k = 0; k < se[i].n_scenarios; k++)
			printf(" %s", guid_text(&se[i].scenarios[k], g));
		printf("\n");
		for (size_t k = 0; k < se[i].n_end_events; k++) {
			const struct etl_sem_end_event *e = &se[i].end_events[k];
			printf("    end event %s;%u", guid_text(&e->provider, g), (unsigned)e->id);
			print_params(&e->params);
			printf("\n");
		}
		for (size_t k = 0; k < se[i].n_context_providers; k++) {
			const struct etl_sem_context_provider *c = &se[i].context_providers[k];
			printf("    context provider %s", guid_text(&c->provider, g));
			print_params(&c->params);
			printf("  capture_state %s\n", c->capture_state ? "yes" : "no");
		}
	}
	const struct etl_sem_provider *dl = etl_sem_config_diaglog_providers(cfg, &n);
	printf("\nDiagLog providers: %zu\n", n);
	for (size_t i = 0; i < n; i++) {
		printf("  %s", guid_text(&dl[i].provider, g));
		print_params(&dl[i].params);
		printf("\n");
	}
	const struct etl_sem_disabled_scenario *ds = etl_sem_config_disabled_scenarios(cfg, &n);
	printf("\ndisabled scenarios: %zu\n", n);
	for (size_t i = 0; i < n; i++)
		printf("  %s by %s\n", guid_text(&ds[i].scenario, g), ds[i].by == ETL_SEM_BY_POLICY ? "policy" : "config");
	const struct etl_sem_diag *d = etl_sem_config_diagnostics(cfg, &n);
	printf("\ndiagnostics: %zu\n", n);
	for (size_t i = 0; i < n; i++) {
		printf("  %s: ", d[i].rule);
		cli_text_safe(stdout, d[i].key[0] ? d[i].key : "(no key)");
		printf("\n    ");
		cli_text_safe(stdout, d[i].message);
		printf("\n");
	}
}

/* A file size of --circular / --new-file in whole MiB (rounded up). */
static int parse_mb(const char *arg, const char *opt, uint32_t *mb)
{
	uint64_t v;
	if (cli_parse_size(arg, &v) != 0 || v > (uint64_t)UINT32_MAX << 20) {
		cli_usage_error("invalid %s: expected a positive size in bytes with an optional "
		                "K, M or G suffix", opt);
		return -1;
	}
	*mb = (uint32_t)((v + (1u << 20) - 1) >> 20);
	return 0;
}

/* etlreplay's own options (cli_parse_options() does -h, -V, -q, the
 * filters and errors). */
static int option(void *ctx, int c)
{
	struct options *o = ctx;
	struct replay_options *r = &o->r;
	char *end;
	switch (c) {
	case OPT_CHECK:
		o->check = 1;
		if (optarg)
			o->reg = optarg;
		break;
	case OPT_SYSTEM: o->system = r->sem.system_hive = optarg; break;
	case OPT_SOFTWARE: o->software = r->sem.software_hive = optarg; break;
	case OPT_CONFIG: r->sem.config = optarg; break;
	case OPT_OUT_DIR: r->sem.out_dir = optarg; break;
	case OPT_REPORT: r->sem.report = optarg; break;
	case 'j': o->json = 1; break;
	case 'o': r->output = optarg; break;
	case OPT_REALTIME: r->realtime = 1; break;
	case OPT_COMPRESS: r->compress = 1; break;
	case OPT_CIRCULAR:
		if (parse_mb(optarg, "--circular SIZE", &r->circular_mb) != 0)
			return CLI_EXIT_USAGE;
		break;
	case OPT_NEWFILE:
		if (parse_mb(optarg, "--new-file SIZE", &r->newfile_mb) != 0)
			return CLI_EXIT_USAGE;
		break;
	case OPT_SPEED:
		r->speed = strtod(optarg, &end);
		if (end == optarg || *end || !isfinite(r->speed) || r->speed <= 0) {
			cli_usage_error("invalid --speed '%s': expected a positive number (1 is the original "
			                "pace, 2 twice as fast)", optarg);
			return CLI_EXIT_USAGE;
		}
		break;
	}
	return -1;
}

/* @return : why the --check-config options do not go together, or NULL. */
static const char *conflict(struct options *o, int operands, char **rest)
{
	if (o->r.sem.config && !o->reg)
		o->reg = o->r.sem.config;
	if (operands > 1 || (operands == 1 && o->reg))
		return "--check-config takes one configuration";
	if (operands == 1)
		o->reg = rest[0];
	if (o->reg && o->system)
		return "a .reg file and --system-hive cannot be combined";
	if (o->software && !o->system)
		return "--software-hive needs --system-hive";
	if (!o->reg && !o->system)
		return "--check-config needs CONFIG.reg or --system-hive SYSTEM";
	if (o->r.output || o->r.realtime || o->r.compress || o->r.circular_mb || o->r.newfile_mb ||
	    o->r.speed > 0 || o->r.sem.out_dir || o->r.sem.report)
		return "--check-config replays nothing: it takes no replay option";
	return NULL;
}

/* A --new-file pattern: one %d, no other '%' (it names every file). */
static int pattern_ok(const char *p)
{
	const char *d = strstr(p, "%d");
	if (!d || strstr(d + 2, "%"))
		return 0;
	for (const char *q = p; q < d; q++)
		if (*q == '%')
			return 0;
	return 1;
}

/* @return : why the replay options do not go together, or NULL. */
static const char *replay_conflict(const struct options *o, int operands)
{
	const struct replay_options *r = &o->r;
	if (o->json)
		return "--json goes with --check-config";
	if (r->realtime && r->output)
		return "--realtime writes no file: it cannot be combined with -o";
	if (!r->realtime && !r->output)
		return "no output: give -o OUT.etl, or --realtime";
	if (r->realtime && (r->compress || r->circular_mb || r->newfile_mb))
		return "--realtime writes no file: it cannot be combined with --compress, --circular or --new-file";
	if (r->circular_mb && r->newfile_mb)
		return "--circular and --new-file cannot be combined";
	if (r->compress && (r->circular_mb || r->newfile_mb))
		return "--compress goes with a sequential file only, not with --circular or --new-file";
	if (r->newfile_mb && !pattern_ok(r->output))
		return "--new-file needs OUT to be a pattern with one %d and no other '%' (trace_%d.etl)";
	if (r->newfile_mb && (etl_outfile_codec_suffix(r->output) || strcmp(r->output, "-") == 0))
		return "--new-file files are .etl files: OUT cannot be standard output or end in .gz or .lz4";
	if (r->sem.config && r->sem.system_hive)
		return "--config and --system-hive cannot be combined";
	if (r->sem.software_hive && !r->sem.system_hive)
		return "--software-hive needs --system-hive";
	if ((r->sem.out_dir || r->sem.report) && !r->sem.config && !r->sem.system_hive)
		return "--out-dir and --report go with the SEM: give --config or --system-hive";
	if (operands == 0 && isatty(STDIN_FILENO))
		return "no input file (give '-' to read a terminal)";
	return NULL;
}

static int check_config(const struct options *o)
{
	struct etl_sem_error err;
	etl_sem_config *cfg = o->reg ? etl_sem_config_from_reg_file(o->reg, &err) :
	                               etl_sem_config_from_hives(o->system, o->software, &err);
	if (!cfg) {
		cli_errorf(err.message, "%s", "");
		return err.code == ETL_E_IO ? CLI_EXIT_IO : CLI_EXIT_USAGE;
	}
	size_t ndiag;
	etl_sem_config_diagnostics(cfg, &ndiag);
	if (o->json)
		etl_sem_config_print_json(cfg, stdout);
	else
		print_text(cfg);
	etl_sem_config_free(cfg);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		cli_message("cannot write standard output");
		return CLI_EXIT_IO;
	}
	return ndiag ? EXIT_DIAGNOSTICS : CLI_EXIT_CLEAN;
}

/* The replay mode: the paths checked, then replay_run(). */
static int replay(struct options *o, int quiet, char **paths, int n)
{
	static char *stdin_only[] = { "-" };
	struct replay_options *r = &o->r;
	if (n == 0) {
		paths = stdin_only;
		n = 1;
	}
	if (replay_sem_check(&r->sem, r->realtime ? NULL : r->output, paths, n) != CLI_EXIT_CLEAN)
		return CLI_EXIT_USAGE;
	/* An output that is an input, an input named twice (a --new-file
	 * pattern's names are checked before they are moved into place). */
	if (cli_check_paths(r->realtime || r->newfile_mb ? NULL : r->output, paths, n, 0) != CLI_EXIT_CLEAN)
		return CLI_EXIT_USAGE;
	/* The display shares the terminal with nothing: not with the events
	 * printed in real time. */
	r->progress_ok = !quiet && isatty(STDERR_FILENO) && !(r->realtime && isatty(STDOUT_FILENO));
	return replay_run(r, paths, n);
}

int main(int argc, char **argv)
{
	static const struct option long_opts[] = {
		{ "check-config", optional_argument, NULL, OPT_CHECK },
		{ "system-hive", required_argument, NULL, OPT_SYSTEM },
		{ "software-hive", required_argument, NULL, OPT_SOFTWARE },
		{ "config", required_argument, NULL, OPT_CONFIG },
		{ "out-dir", required_argument, NULL, OPT_OUT_DIR },
		{ "report", required_argument, NULL, OPT_REPORT },
		{ "json", no_argument, NULL, 'j' },
		{ "output", required_argument, NULL, 'o' },
		{ "realtime", no_argument, NULL, OPT_REALTIME },
		{ "compress", no_argument, NULL, OPT_COMPRESS },
		{ "circular", required_argument, NULL, OPT_CIRCULAR },
		{ "new-file", required_argument, NULL, OPT_NEWFILE },
		{ "speed", required_argument, NULL, OPT_SPEED },
		CLI_STANDARD_LONG_OPTIONS,
		{ NULL, 0, NULL, 0 }
	};
	struct options o;
	int quiet = 0;
	memset(&o, 0, sizeof o);
	cli_set_program(PROG);
	cli_set_limit_hint("; raise the limit with --spool-limit");
	cli_filter_init(&o.r.filter);
	int rc = cli_parse_options(argc, argv, ":jo:qhV", long_opts, &o.r.filter, &quiet, usage, option, &o);
	if (rc < 0) {
		const char *why = o.check ? (o.r.filter.active ? "--check-config replays nothing: it takes no filter"
		                                              : conflict(&o, argc - optind, argv + optind))
		                          : replay_conflict(&o, argc - optind);
		if (why) {
			cli_usage_error("%s", why);
			rc = CLI_EXIT_USAGE;
		} else {
			rc = o.check ? check_config(&o) : replay(&o, quiet, argv + optind, argc - optind);
		}
	}
	cli_filter_free(&o.r.filter);
	return rc;
}
