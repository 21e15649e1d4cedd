/*
 * lib/common/machine.c - the CPU speed and boot time of this machine, for
 * the logfile header (see machine.h).
 *
 * Linux reports both in /proc; other systems and containers without /proc
 * fall back to the cpufreq files, CLOCK_BOOTTIME, or a declared value, so
 * the header never carries a 0 a reader would divide by.
 */
#define ETL_BUILDING_LIB 1
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/common/machine.h"

#define FILETIME_UNIX_EPOCH 116444736000000000LL   /* 1970-01-01 as FILETIME */

static uint32_t g_mhz;
static pthread_once_t g_mhz_once = PTHREAD_ONCE_INIT;

/* The first "cpu MHz : 2596.140" line of /proc/cpuinfo, rounded; 0 if none. */
static uint32_t cpuinfo_mhz(void)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[256];
	uint32_t mhz = 0;
	if (!f)
		return 0;
	while (!mhz && fgets(line, sizeof line, f)) {
		if (strncmp(line, "cpu MHz", 7) != 0)
			continue;
		const char *colon = strchr(line, ':');
		double v = colon ? strtod(colon + 1, NULL) : 0;
		if (v >= 1 && v < 1e6)
			mhz = (uint32_t)(v + 0.5);
	}
	fclose(f);
	return mhz;
}

/* cpufreq's maximum (kHz) of processor 0, in MHz; 0 if none. */
static uint32_t cpufreq_mhz(void)
{
	FILE *f = fopen("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq", "r");
	unsigned long khz = 0;
	if (!f)
		return 0;
	if (fscanf(f, "%lu", &khz) != 1)
		khz = 0;
	fclose(f);
	return khz >= 1000 && khz < 1000000000ul ? (uint32_t)((khz + 500) / 1000) : 0;
}

static void read_mhz(void)
{
	uint32_t mhz = cpuinfo_mhz();
	if (!mhz)
		mhz = cpufreq_mhz();
	g_mhz = mhz ? mhz : ETL_MACHINE_MHZ_UNKNOWN;
}

uint32_t etl__machine_cpu_mhz(void)
{
	pthread_once(&g_mhz_once, read_mhz);
	return g_mhz;
}

int64_t etl__machine_boot_time(int64_t now_ft)
{
	FILE *f = fopen("/proc/stat", "r");
	char line[256];
	long long btime = 0;
	if (f) {
		while (!btime && fgets(line, sizeof line, f))
			if (strncmp(line, "btime ", 6) == 0)
				btime = strtoll(line + 6, NULL, 10);
		fclose(f);
	}
	if (btime > 0 && btime < 100000000000LL)
		return FILETIME_UNIX_EPOCH + (int64_t)btime * 10000000;
#ifdef CLOCK_BOOTTIME
	struct timespec up;
	if (clock_gettime(CLOCK_BOOTTIME, &up) == 0 && up.tv_sec >= 0)
		return now_ft - ((int64_t)up.tv_sec * 10000000 + up.tv_nsec / 100);
#endif
	return now_ft;
}
