/*
 * etlreplay.c - the Scenario Event Mapper on the command line. For now one
 * mode: --check-config loads a SEM configuration (a `reg export` file, or
 * the offline SYSTEM hive and optionally the SOFTWARE hive) and prints the
 * effective configuration the SEM would run - start events with their
 * scenarios, end events and context providers with the aggregated
 * parameters, the DiagLog providers, disabled scenarios - and every
 * diagnostic with its key path; --json prints it as one JSON object
 * (doc/sem.md §6). Replaying a trace through the SEM comes later.
 *
 * Exit status: 0 a clean configuration; 1 usage error, or a configuration
 * that cannot be used at all (not a .reg file or a hive, bad encoding, a
 * corrupt hive); 2 loaded, with diagnostics; 3 an input could not be
 * opened or read, or standard output could not be written.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli_common.h"
#include "etl.h"
#include "etl_sem.h"

#define PROG "etlreplay"

/* The statuses of cli_common.h; 2 means a configuration with diagnostics. */
#define EXIT_DIAGNOSTICS CLI_EXIT_DAMAGE

enum { OPT_CHECK = 0x100, OPT_SYSTEM, OPT_SOFTWARE };

struct options {
	int check, json;
	const char *reg, *system, *software;
};

static void usage(void)
{
	printf("Usage: " PROG " --check-config [--json] CONFIG.reg\n"
	       "       " PROG " --check-config [--json] --system-hive SYSTEM [--software-hive SOFTWARE]\n"
	       "Load the configuration of the Scenario Event Mapper (the WDI keys of the\n"
	       "registry) and print the effective configuration it would run: each start\n"
	       "event with its scenarios, end events and context providers with the\n"
	       "aggregated level, keyword and enable property, the providers enabled on\n"
	       "DiagLog, the disabled scenarios, and every diagnostic with its key path.\n"
	       "\n"
	       "  --check-config[=CONFIG.reg]  check a configuration (the only mode for now;\n"
	       "                        replaying a trace is not implemented yet)\n"
	       "  --system-hive SYSTEM  read an offline SYSTEM hive (the control set named\n"
	       "                        by Select\\Current) instead of a .reg file\n"
	       "  --software-hive SOFTWARE  also read the WDI policy key from an offline\n"
	       "                        SOFTWARE hive\n"
	       "  -j, --json            print one JSON object instead of text\n"
	       "  -h, --help            show this help and exit\n"
	       "  -V, --version         show the version and exit\n"
	       "\n"
	       "CONFIG.reg is a `reg export` of HKLM\\SYSTEM\\CurrentControlSet\\Control\\WDI\n"
	       "(and of HKLM\\SOFTWARE\\Policies\\Microsoft\\Windows\\WDI): UTF-16 \"Windows\n"
	       "Registry Editor Version 5.00\" or 8-bit REGEDIT4 text.\n"
	       "\n"
	       "Exit status: 0 clean configuration, 1 usage error or unusable\n"
	       "configuration, 2 configuration with diagnostics, 3 input/output error.\n");
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

/* etlreplay's own options (cli_parse_options() does -h, -V and errors). */
static int option(void *ctx, int c)
{
	struct options *o = ctx;
	switch (c) {
	case OPT_CHECK:
		o->check = 1;
		if (optarg)
			o->reg = optarg;
		break;
	case OPT_SYSTEM: o->system = optarg; break;
	case OPT_SOFTWARE: o->software = optarg; break;
	case 'j': o->json = 1; break;
	}
	return -1;
}

/* @return : why the options do not go together, or NULL. */
static const char *conflict(struct options *o, int operands, char **rest)
{
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

int main(int argc, char **argv)
{
	static const struct option long_opts[] = {
		{ "check-config", optional_argument, NULL, OPT_CHECK },
		{ "system-hive", required_argument, NULL, OPT_SYSTEM },
		{ "software-hive", required_argument, NULL, OPT_SOFTWARE },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	struct options o = { 0 };
	int quiet = 0;
	cli_set_program(PROG);
	/* No filter options in long_opts: the filter is never used. */
	int rc = cli_parse_options(argc, argv, ":jhV", long_opts, NULL, &quiet, usage, option, &o);
	if (rc >= 0)
		return rc;
	if (!o.check) {
		cli_message("replay is not implemented yet; only --check-config is available\n"
		            "Try '" PROG " --help' for more information.");
		return CLI_EXIT_USAGE;
	}
	const char *why = conflict(&o, argc - optind, argv + optind);
	if (why) {
		cli_usage_error("%s", why);
		return CLI_EXIT_USAGE;
	}
	return check_config(&o);
}
