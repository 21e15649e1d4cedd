/*
 * sem_hive.h - real registry hive files for the SEM configuration tests
 * and fuzz seeds: a minimal empty hive written byte by byte, filled with
 * hivex's write API from a .reg file read by the library's own .reg
 * reader.
 *
 * Everything here aborts (via Check's ck_assert) on trouble, like
 * testutil.h.
 */
#ifndef SEM_HIVE_H
#define SEM_HIVE_H

#include <stddef.h>
#include <stdint.h>

/*! sh_blank_hive() : writes to path the smallest hive hivex opens for
 *  writing: the 4096-byte base block and one 4096-byte bin holding the
 *  root key, its security cell and a free cell. */
void sh_blank_hive(const char *path);

/*! sh_reg_to_hives() : reads n bytes of .reg text with the library's .reg
 *  reader and writes what it keeps as offline hives: the keys under
 *  HKEY_LOCAL_MACHINE\SYSTEM into system_path (CurrentControlSet becoming
 *  ControlSet001, with Select\Current = 1 unless the file has a Select),
 *  those under HKEY_LOCAL_MACHINE\SOFTWARE into software_path (NULL: not
 *  written). */
void sh_reg_to_hives(const uint8_t *reg, size_t n, const char *system_path, const char *software_path);

/*! sh_tmp_path() : a fresh path in $TMPDIR (or /tmp) ending in name,
 *  malloc'd; the file does not exist yet. */
char *sh_tmp_path(const char *name);

#endif /* SEM_HIVE_H */
