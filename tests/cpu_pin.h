/*
 * cpu_pin.h - the processors a test thread may run on, and moving it to
 * one of them (tests whose outcome must not depend on where the scheduler
 * puts the thread: check_trace_clock, check_trace_core, check_sem_replay).
 */
#ifndef CPU_PIN_H
#define CPU_PIN_H

/*! pin_cpus() : the first (lowest) max processors of the calling thread's
 *  affinity mask into cpus. @return : how many there were (0 when the mask
 *  cannot be read). */
int pin_cpus(int *cpus, int max);

/*! pin_run_on() : moves the calling thread to processor cpu alone.
 *  @return : 1, or 0 when the system refuses. */
int pin_run_on(int cpu);

#endif /* CPU_PIN_H */
