/*
 * lib/common/machine.h - facts about the machine a trace is written on, for
 * the logfile-header fields Windows fills from its own machine (internal).
 *
 * A file written off Windows still needs them: readers divide by the CPU
 * speed and the performance frequency whatever the clock type (dissect.etl
 * works out all three time scales up front), and show the boot time.
 */
#ifndef ETL_COMMON_MACHINE_H
#define ETL_COMMON_MACHINE_H

#ifndef ETL_BUILDING_LIB
#error "lib/common/machine.h is internal to libetl"
#endif

#include <stdint.h>

/* The processor's speed in MHz, as Windows' CpuSpeedInMHz gives it: the
 * nominal speed the system reports ("cpu MHz" of /proc/cpuinfo, else the
 * cpufreq maximum), rounded; ETL_MACHINE_MHZ_UNKNOWN where the machine
 * tells nothing. Never 0. Read once per process. */
#define ETL_MACHINE_MHZ_UNKNOWN 1000u
uint32_t etl__machine_cpu_mhz(void);

/* When the machine booted, as a FILETIME: /proc/stat's btime, else now
 * (FILETIME now_ft) minus the time since boot (CLOCK_BOOTTIME); now_ft
 * itself when neither is known. */
int64_t etl__machine_boot_time(int64_t now_ft);

#endif /* ETL_COMMON_MACHINE_H */
