/*
 * replay_sem.h - the Scenario Event Mapper during `etlreplay --config` or
 * `--system-hive` (doc/sem.md §13): the configuration loaded, the SEM
 * started on the replay's clock with DiagLog.etl and WdiContextLog.etl
 * staged in the output directory, every replayed event taken through it,
 * and at the end both files moved into place, the scenario table printed
 * and the --report JSON written.
 *
 * The replay (replay_run.c) calls, when replay_sem_wanted():
 *
 *     replay_sem_check(&o->sem, output, inputs, n)   before any input is read
 *     replay_sem_open(&o->sem, output, clock, ctx, &rs)
 *                                                 the clock reading the
 *                                                 trace's start, before
 *                                                 the replay's own session
 *                                                 starts (the SEM's logger
 *                                                 names come first)
 *     per event, its time set on the clock:
 *         replay_sem_event(rs, ev)                instead of etl_replay_write()
 * The SEM hears of time from the events only (not from --speed's waits):
 * its timeouts, and so the report, are the same however fast the replay.
 *     replay_sem_finish(rs, inputs, n, commit)    then replay_sem_free(rs)
 */
#ifndef REPLAY_SEM_H
#define REPLAY_SEM_H

#include "etl.h"
#include "etl_sem.h"
#include "replay.h"

struct replay_sem;

/*! replay_sem_wanted() : 1 when the options ask for the SEM (--config or
 *  --system-hive). */
int replay_sem_wanted(const struct replay_sem_options *o);

/*! replay_sem_check() : the paths of the SEM against the inputs, before
 *  anything is read (etlreplay.c has checked the options against each
 *  other): DiagLog.etl, WdiContextLog.etl and the report are none of the
 *  n inputs nor OUT (NULL: none), nor each other.
 *  @return : CLI_EXIT_CLEAN, or CLI_EXIT_USAGE (reported). */
int replay_sem_check(const struct replay_sem_options *o, const char *output, char **inputs, int n);

/*! replay_sem_open() : loads the configuration (an unusable one is an
 *  error; each diagnostic is reported as a warning and the replay goes on
 *  without the rejected definitions), stages DiagLog.etl and
 *  WdiContextLog.etl in the output directory (--out-dir DIR, else the
 *  directory of output, else the current one) and starts the SEM on
 *  clock, which must read the trace's start now.
 *  @return : CLI_EXIT_CLEAN with *out set; else the exit status
 *  (reported): CLI_EXIT_USAGE for a configuration that cannot be used,
 *  CLI_EXIT_IO for one that cannot be read or a file that cannot be made. */
int replay_sem_open(const struct replay_sem_options *o, const char *output, etl_clock_fn clock, void *clock_ctx,
                    struct replay_sem **out);

/*! replay_sem_event() : ev through the SEM, its time on the clock
 *  already: the timeouts due by then, then etl_sem_replay_event().
 *  @return : etl_replay_write()'s result (ETL_OK, ETL_FAILED: lost in a
 *  session, ETL_FATAL). */
int replay_sem_event(struct replay_sem *rs, const struct etl_event *ev);

/*! replay_sem_finish() : stops the SEM (instances still running end);
 *  with commit, moves DiagLog.etl and WdiContextLog.etl into place,
 *  prints the scenario table on standard output (standard error when OUT
 *  is "-", standard output) and writes the report
 *  (--report); without, removes what the SEM made.
 *  @return : the exit status (CLI_EXIT_IO for a file that could not be
 *  finished or moved, or standard output that failed; reported). */
int replay_sem_finish(struct replay_sem *rs, char **inputs, int n, int commit);

/*! replay_sem_free() : frees rs (after replay_sem_finish(); alone, it
 *  abandons the SEM's files). NULL allowed. */
void replay_sem_free(struct replay_sem *rs);

#endif /* REPLAY_SEM_H */
