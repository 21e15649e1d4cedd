/*
 * replay.h - the parts of etlreplay: its command line (etlreplay.c), the
 * replay of the inputs through the tracing runtime (replay_run.c), the
 * output files made safely (replay_out.c), and the real-time consumer and
 * the pacing of --speed (replay_live.c).
 */
#ifndef REPLAY_H
#define REPLAY_H

#include <stdint.h>
#include "cli_common.h"
#include "convert.h"
#include "etl.h"

/* The options of the Scenario Event Mapper during a replay, parsed by
 * etlreplay.c and handed to the SEM's part of the replay (cli/replay_sem.h
 * of the SEM work). NULL: not given. */
struct replay_sem_options {
	const char *config;        /* --config CONFIG.reg                    */
	const char *system_hive;   /* --system-hive SYSTEM                   */
	const char *software_hive; /* --software-hive SOFTWARE               */
	const char *out_dir;       /* --out-dir DIR                          */
	const char *report;        /* --report FILE.json                     */
};

/* What the command line asked for. */
struct replay_options {
	const char *output;        /* -o OUT.etl (NEWFILE: a pattern with %d);
	                              NULL with --realtime                   */
	int realtime;              /* --realtime                             */
	int compress;              /* --compress                             */
	uint32_t circular_mb;      /* --circular SIZE, MiB; 0: not circular  */
	uint32_t newfile_mb;       /* --new-file SIZE, MiB; 0: one file      */
	double speed;              /* --speed F; 0: as fast as possible      */
	int progress_ok;           /* stderr is a terminal and no -q         */
	struct cli_filter filter;
	struct replay_sem_options sem;
};

/*! replay_run() : replays every event of the n inputs (merged in time
 *  order, filtered) into OUT or a real-time consumer (replay_run.c).
 *  @return : the exit status (CLI_EXIT_*). */
int replay_run(const struct replay_options *o, char **paths, int n);

/* ---- output files (replay_out.c) ----------------------------------------- */

/* Where the session writes: a private directory beside OUT, whose files
 * are moved into place only when the whole replay succeeded. */
struct replay_out {
	const char *output;        /* OUT as given (NEWFILE: the pattern)    */
	char *dir;                 /* the private directory                  */
	char *staged;              /* the name the session is given in it    */
	int newfile;
};

/*! replay_out_begin() : creates the private directory beside OUT (an
 *  unwritable place is reported: "PROG: OUT: cannot create ..."), and
 *  names the session's file in it. @return : CLI_EXIT_CLEAN, or the exit
 *  status (reported). */
int replay_out_begin(struct replay_out *ro, const char *output, int newfile);

/*! replay_out_commit() : moves the files made (NEWFILE: the first files
 *  of the pattern) into place, refusing, before anything is moved, a name
 *  that is one of the n inputs; OUT ending in .gz or .lz4 (and a device
 *  such as /dev/stdout) gets the file's bytes through etl_outfile.
 *  @return : CLI_EXIT_CLEAN, or CLI_EXIT_USAGE / CLI_EXIT_IO (reported;
 *  nothing of this run is left then). */
int replay_out_commit(struct replay_out *ro, uint64_t files, char **inputs, int n);

/*! replay_out_abandon() : removes what this run made; OUT stays as it
 *  was. Then frees ro. Safe after commit (frees only). */
void replay_out_abandon(struct replay_out *ro);

/* ---- real time and pacing (replay_live.c) --------------------------------- */

/* The consumer of a --realtime replay: events arrive from the session's
 * logger thread a buffer at a time; they are printed, as etldump prints
 * them, in time order, each time the replay has made sure that every
 * event written so far has arrived (replay_live_release()). */
struct replay_live;

/*! replay_live_new() : a consumer printing to standard output, or NULL
 *  when memory is short (reported). */
struct replay_live *replay_live_new(void);

/*! replay_live_event() : the session's real-time callback
 *  (etl_realtime_fn): keeps a copy of ev. */
void replay_live_event(void *ctx, const struct etl_event *ev);

/*! replay_live_release() : prints every event kept, in time order.
 *  @return : 0, or -1 when standard output or memory failed (reported). */
int replay_live_release(struct replay_live *lv);

/*! replay_live_received() : events the consumer has received so far. */
uint64_t replay_live_received(const struct replay_live *lv);

void replay_live_free(struct replay_live *lv);

/* The pace of --speed F: the trace's time runs F times as fast as the
 * wall clock from the first event on. */
struct replay_pace {
	double speed;              /* 0: no pacing                           */
	int started;
	int64_t trace0;            /* FILETIME of the first paced event      */
	int64_t wall0;             /* CLOCK_MONOTONIC, 100 ns, at it         */
};

/* Called while waiting with the trace time reached so far (at most every
 * 100 ms of wall time), so that the session's flush timer runs meanwhile. */
typedef void (*replay_tick_fn)(void *ctx, int64_t trace_now);

/*! replay_pace_wait() : waits until the event at trace time utc is due,
 *  calling tick(ctx, t) on the way. */
void replay_pace_wait(struct replay_pace *pc, int64_t utc, replay_tick_fn tick, void *ctx);

#endif /* REPLAY_H */
