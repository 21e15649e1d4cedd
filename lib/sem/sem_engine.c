/*
 * lib/sem/sem_engine.c - the SEM engine as its controller sees it
 * (include/etl_sem.h, doc/sem.md §8-§9): options and their defaults, the
 * DiagLog and WdiContextLog sessions, start, stop, update, the
 * housekeeping that times instances out - on a thread of its own with the
 * system clock, in etl_sem_clock_advanced() with the caller's - and the
 * figures and the report.
 *
 * The sessions outlive an update: the SEM goes down and comes up again on
 * the new configuration (lib/sem/sem_run.c) while both files go on.
 */
#define ETL_BUILDING_LIB 1
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lib/sem/engine_internal.h"

#define DIAGLOG_BUFFER_SIZE (16u * 1024u)

/* Kernel-WDI status events reach DiagLog at these: every level they use
 * (2..4) and both of their keywords (events 35-42 have none). */
#define WDI_LEVEL    4
#define WDI_KEYWORDS 0x300000000ull

static const struct etl_guid KERNEL_WDI = ETL_SEM_KERNEL_WDI_GUID_INIT;

/* ---- options ------------------------------------------------------------- */

void etl_sem_options_init(struct etl_sem_options *o)
{
	memset(o, 0, sizeof *o);
	o->struct_size = sizeof *o;
	etl_session_props_init(&o->diaglog);
	o->diaglog.buffer_size = DIAGLOG_BUFFER_SIZE;
	etl_session_props_init(&o->context);
}

/* The strings the engine keeps, in one block: the directory, the two
 * logger names and the two file names (the caller's, or the directory
 * joined with the default name). @return : 0, or -1 out of memory. */
static int copy_strings(struct etl_sem *sem, const struct etl_sem_options *o)
{
	const char *dir = o->directory ? o->directory : ".";
	const char *dfile = o->diaglog.file_name, *cfile = o->context.file_name;
	const char *part[5][2] = {
		{ dir, "" },
		{ o->diaglog_name ? o->diaglog_name : ETL_SEM_DIAGLOG_NAME, "" },
		{ o->context_name ? o->context_name : ETL_SEM_CONTEXTLOG_NAME, "" },
		{ dfile ? dfile : dir, dfile ? "" : "/" ETL_SEM_DIAGLOG_FILE },
		{ cfile ? cfile : dir, cfile ? "" : "/" ETL_SEM_CONTEXTLOG_FILE },
	};
	char **out[5] = { &sem->dir, &sem->diag_name, &sem->ctx_name, &sem->diag_file, &sem->ctx_file };
	size_t n = 0;
	for (int i = 0; i < 5; i++)
		n += strlen(part[i][0]) + strlen(part[i][1]) + 1;
	char *p = sem->strings = malloc(n);
	if (!p)
		return -1;
	for (int i = 0; i < 5; i++) {
		*out[i] = p;
		p += sprintf(p, "%s%s", part[i][0], part[i][1]) + 1;
	}
	return 0;
}

/* Frees what etl_sem_new() made, whatever of it was made. */
static void release(struct etl_sem *sem)
{
	etl_session_free(sem->diag);
	etl_session_free(sem->ctx);
	if (sem->sync_init) {
		pthread_cond_destroy(&sem->hk_cv);
		pthread_mutex_destroy(&sem->lock);
	}
	etl__sem_hist_clear(&sem->hist);
	free(sem->strings);
	free(sem);
}

etl_sem *etl_sem_new(const etl_sem_config *cfg, const struct etl_sem_options *o)
{
	struct etl_sem_options def;
	if (!o) {
		etl_sem_options_init(&def);
		o = &def;
	}
	if (!cfg || o->struct_size < sizeof *o)
		return NULL;
	struct etl_sem *sem = calloc(1, sizeof *sem);
	if (!sem)
		return NULL;
	sem->o = *o;
	int oom = copy_strings(sem, o) != 0;
	sem->diag = etl_session_new();
	sem->ctx = etl_session_new();
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	if (pthread_mutex_init(&sem->lock, NULL) == 0) {
		if (pthread_cond_init(&sem->hk_cv, &ca) == 0)
			sem->sync_init = 1;
		else
			pthread_mutex_destroy(&sem->lock);
	}
	pthread_condattr_destroy(&ca);
	if (oom || !sem->diag || !sem->ctx || !sem->sync_init) {
		release(sem);
		return NULL;
	}
	sem->o.directory = sem->dir;
	sem->o.diaglog_name = sem->diag_name;
	sem->o.context_name = sem->ctx_name;
	sem->o.diaglog.file_name = sem->diag_file;
	sem->o.context.file_name = sem->ctx_file;
	sem->cfg = cfg;
	return sem;
}

/* ---- housekeeping ---------------------------------------------------------- */

/* With the system clock: wakes at each tick (the engine's clock is
 * CLOCK_MONOTONIC, the clock hk_cv waits on) until stop. */
static void *housekeeping_main(void *arg)
{
	struct etl_sem *sem = arg;
	pthread_mutex_lock(&sem->lock);
	while (!sem->hk_quit) {
		int64_t now = etl__sem_now(sem);
		if (sem->up && now >= sem->next_tick) {
			etl__sem_housekeeping(sem, now);
			sem->next_tick = now + sem->period;
			continue;
		}
		/* Down: nothing to time out; an update that brings it up again
		 * sets the tick and wakes us. */
		int64_t at = sem->up ? sem->next_tick : now + 60 * 10000000LL;
		struct timespec ts = { (time_t)(at / 10000000), (long)(at % 10000000) * 100 };
		pthread_cond_timedwait(&sem->hk_cv, &sem->lock, &ts);
	}
	pthread_mutex_unlock(&sem->lock);
	return NULL;
}

/* With the caller's clock: the ticks that fell due, as one tick at now
 * (lock held); the next one stays on the period's grid. */
static void ticks_due(struct etl_sem *sem, int64_t now)
{
	if (!sem->up || now < sem->next_tick || sem->period <= 0)
		return;
	etl__sem_housekeeping(sem, now);
	sem->next_tick += ((now - sem->next_tick) / sem->period + 1) * sem->period;
}

int etl_sem_clock_advanced(etl_sem *sem)
{
	if (!sem->o.clock || !sem->running) {
		etl__errinfo_set(&sem->err, ETL_E_MISUSE, 0, "%s", sem->o.clock ? "The SEM is not running"
		                 : "The SEM does not run on the caller's clock");
		return ETL_FAILED;
	}
	pthread_mutex_lock(&sem->lock);
	ticks_due(sem, etl__sem_now(sem));
	pthread_mutex_unlock(&sem->lock);
	int a = etl_session_clock_advanced(sem->diag), b = etl_session_clock_advanced(sem->ctx);
	if (a != ETL_OK || b != ETL_OK) {
		etl__errinfo_set(&sem->err, ETL_E_IO, 0, "A session's output failed: %s",
		                 etl_session_errmsg(a != ETL_OK ? sem->diag : sem->ctx));
		return ETL_FATAL;
	}
	return ETL_OK;
}

/* ---- start, stop, update --------------------------------------------------- */

/* The session properties as the engine runs them: the file name, blocking
 * and the engine's clock imposed on the caller's. */
static void session_props(const struct etl_sem *sem, const struct etl_session_props *in, const char *file,
                          struct etl_session_props *out)
{
	*out = *in;
	out->struct_size = sizeof *out;
	out->file_name = file;
	if (sem->o.blocking)
		out->blocking = 1;
	out->clock = sem->o.clock;
	out->clock_ctx = sem->o.clock_ctx;
}

static int start_session(struct etl_sem *sem, etl_session *s, const char *name,
                         const struct etl_session_props *in, const char *file)
{
	struct etl_session_props p;
	session_props(sem, in, file, &p);
	int rc = etl_session_start(s, name, &p);
	if (rc != ETL_OK)
		etl__errinfo_set(&sem->err, etl_session_errcode(s), 0, "Cannot start %s: %s", name,
		                 etl_session_errmsg(s));
	return rc;
}

int etl_sem_start(etl_sem *sem)
{
	if (sem->running) {
		etl__errinfo_set(&sem->err, ETL_E_MISUSE, 0, "The SEM is running already");
		return ETL_FAILED;
	}
	int rc = start_session(sem, sem->diag, sem->diag_name, &sem->o.diaglog, sem->diag_file);
	if (rc != ETL_OK)
		return rc;
	rc = start_session(sem, sem->ctx, sem->ctx_name, &sem->o.context, sem->ctx_file);
	if (rc != ETL_OK) {
		etl_session_stop(sem->diag);
		return rc;
	}
	struct etl_enable_params e;
	etl_enable_params_init(&e);
	e.level = WDI_LEVEL;
	e.match_any = WDI_KEYWORDS;
	memset(&sem->wdi, 0, sizeof sem->wdi);
	if (etl_provider_register(&sem->wdi, &KERNEL_WDI, NULL, NULL) != ETL_OK ||
	    etl_session_enable(sem->diag, &KERNEL_WDI, &e) != ETL_OK) {
		etl__errinfo_set(&sem->err, ETL_E_NOMEM, 0, "Cannot enable Microsoft-Windows-Kernel-WDI on %s",
		                 sem->diag_name);
		etl_provider_unregister(&sem->wdi);
		etl_session_stop(sem->ctx);
		etl_session_stop(sem->diag);
		return ETL_FATAL;
	}
	pthread_mutex_lock(&sem->lock);
	memset(&sem->st, 0, sizeof sem->st);
	etl__sem_hist_clear(&sem->hist);
	sem->replay_zero = 0;
	sem->hk_quit = 0;
	int up = etl__sem_up(sem);
	pthread_mutex_unlock(&sem->lock);
	int th = 0;
	if (up == 0 && !sem->o.clock) {
		th = pthread_create(&sem->hk, NULL, housekeeping_main, sem);
		sem->hk_started = th == 0;
	}
	sem->running = 1;
	if (up != 0 || th != 0) {
		etl_sem_stop(sem);
		if (up != 0)
			etl__errinfo_set(&sem->err, ETL_E_NOMEM, 0, "Out of memory for the SEM's tables");
		else
			etl__errinfo_set(&sem->err, ETL_E_NOMEM, 0, "Cannot start the housekeeping thread: %s",
			                 strerror(th));
		return ETL_FATAL;
	}
	return ETL_OK;
}

int etl_sem_stop(etl_sem *sem)
{
	if (!sem->running) {
		etl__errinfo_set(&sem->err, ETL_E_MISUSE, 0, "The SEM is not running");
		return ETL_FAILED;
	}
	if (sem->hk_started) {
		pthread_mutex_lock(&sem->lock);
		sem->hk_quit = 1;
		pthread_cond_signal(&sem->hk_cv);
		pthread_mutex_unlock(&sem->lock);
		pthread_join(sem->hk, NULL);
		sem->hk_started = 0;
	}
	pthread_mutex_lock(&sem->lock);
	etl__sem_down(sem);
	pthread_mutex_unlock(&sem->lock);
	int a = etl_session_stop(sem->ctx), b = etl_session_stop(sem->diag);
	etl_provider_unregister(&sem->wdi);
	sem->running = 0;
	if (a != ETL_OK || b != ETL_OK) {
		etl__errinfo_set(&sem->err, ETL_E_IO, 0, "Cannot finish a file: %s",
		                 etl_session_errmsg(a != ETL_OK ? sem->ctx : sem->diag));
		return ETL_FATAL;
	}
	return ETL_OK;
}

void etl_sem_free(etl_sem *sem)
{
	if (!sem)
		return;
	if (sem->running)
		etl_sem_stop(sem);
	release(sem);
}

int etl_sem_update(etl_sem *sem, const etl_sem_config *cfg)
{
	if (!cfg) {
		etl__errinfo_set(&sem->err, ETL_E_MISUSE, 0, "No configuration to update to");
		return ETL_FAILED;
	}
	pthread_mutex_lock(&sem->lock);
	int rc = 0;
	if (sem->running) {
		etl__sem_down(sem);
		sem->cfg = cfg;
		rc = etl__sem_up(sem);
		pthread_cond_signal(&sem->hk_cv);
	} else {
		sem->cfg = cfg;
	}
	pthread_mutex_unlock(&sem->lock);
	if (rc != 0) {
		etl__errinfo_set(&sem->err, ETL_E_NOMEM, 0, "Out of memory for the SEM's tables: the SEM is down");
		return ETL_FATAL;
	}
	return ETL_OK;
}

/* ---- figures ------------------------------------------------------------- */

int etl_sem_stats(const etl_sem *sem, struct etl_sem_stats *st)
{
	struct etl_sem *m = (struct etl_sem *)sem;
	pthread_mutex_lock(&m->lock);
	*st = m->st;
	st->in_flight = m->up ? m->inst.n : 0;
	st->context_providers = m->up ? m->cx.n_enabled : 0;
	pthread_mutex_unlock(&m->lock);
	return ETL_OK;
}

struct etl_sem_report *etl_sem_report_new(etl_sem *sem)
{
	if (!sem)
		return NULL;
	struct etl_session_stats d, c;
	etl_session_stats(sem->diag, &d);
	etl_session_stats(sem->ctx, &c);
	pthread_mutex_lock(&sem->lock);
	struct etl_sem_report *r = etl__sem_hist_report(&sem->hist, d.events_written, c.events_written,
	                                                d.events_lost + c.events_lost);
	pthread_mutex_unlock(&sem->lock);
	return r;
}

etl_session *etl_sem_diaglog(etl_sem *sem)
{
	return sem->diag;
}

etl_session *etl_sem_context_log(etl_sem *sem)
{
	return sem->ctx;
}

int etl_sem_errcode(const etl_sem *sem)
{
	return sem->err.code;
}

const char *etl_sem_errmsg(const etl_sem *sem)
{
	return sem->err.msg;
}
