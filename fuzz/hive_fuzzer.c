/*
 * hive_fuzzer.c - libFuzzer harness for the SEM configuration from offline
 * hives (lib/sem/hive_load.c through hivex, then the rules): the input is
 * a hive file. hivex reads files only, so the bytes go to a memfd opened
 * through /proc/self/fd. The base block checksum is repaired first (the
 * unit tests cover a bad one), so mutations reach the bins and the keys.
 * The input is loaded once as a SYSTEM hive and once as a SOFTWARE hive.
 *
 * Invariants (FUZZ_ASSERT): a failed load leaves an error code and a
 * message naming the file; a loaded one gives a configuration (the rules
 * never fail but for memory) that passes sem_fuzz_check() (sem_fuzz.h).
 */
#define ETL_BUILDING_LIB 1
#define _GNU_SOURCE 1
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "lib/sem/sem_internal.h"
#include "sem_fuzz.h"

#define HIVE_FUZZ_MAX_INPUT (1024u * 1024u)

static void load(const char *path, int software)
{
	struct etl__regtree *t = etl__regtree_new();
	FUZZ_ASSERT(t != NULL);
	struct etl_sem_error err;
	memset(&err, 0, sizeof err);
	if (etl__hive_load(path, software, t, &err) != 0) {
		FUZZ_ASSERT(err.code != ETL_E_NONE && strstr(err.message, path) != NULL);
		etl__regtree_free(t);
		return;
	}
	struct etl__sem_diags d;
	memset(&d, 0, sizeof d);
	etl_sem_config *cfg = etl__sem_config_build(t, &d, &err);
	FUZZ_ASSERT(cfg != NULL);
	sem_fuzz_check(cfg);
	etl_sem_config_free(cfg);
	etl__sem_diags_free(&d);
	etl__regtree_free(t);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *copy = sem_fuzz_copy(data, size, HIVE_FUZZ_MAX_INPUT);
	if (!copy)
		return 0;
	if (size >= 0x200) {
		uint32_t sum = 0;
		for (size_t off = 0; off < 0x1FC; off += 4)
			sum ^= (uint32_t)copy[off] | (uint32_t)copy[off + 1] << 8 | (uint32_t)copy[off + 2] << 16 |
			       (uint32_t)copy[off + 3] << 24;
		for (int i = 0; i < 4; i++)
			copy[0x1FC + i] = (uint8_t)(sum >> (8 * i));
	}
	int fd = memfd_create("hive", MFD_CLOEXEC);
	FUZZ_ASSERT(fd >= 0);
	FUZZ_ASSERT(size == 0 || write(fd, copy, size) == (ssize_t)size);
	char path[64];
	snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
	load(path, 0);
	load(path, 1);
	close(fd);
	free(copy);
	return 0;
}
