/*
 * cpu_pin.c - see cpu_pin.h.
 */
#define _GNU_SOURCE 1
#include <sched.h>
#include "cpu_pin.h"

int pin_cpus(int *cpus, int max)
{
	cpu_set_t set;
	if (sched_getaffinity(0, sizeof set, &set) != 0)
		return 0;
	int n = 0;
	for (int c = 0; c < CPU_SETSIZE && n < max; c++)
		if (CPU_ISSET(c, &set))
			cpus[n++] = c;
	return n;
}

int pin_run_on(int cpu)
{
	cpu_set_t set;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof set, &set) == 0;
}
