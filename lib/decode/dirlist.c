/*
 * lib/decode/dirlist.c - the schema files of a directory (manifests, TMF and
 * MOF files), sorted by name so that loading order, and so "first
 * definition wins", does not depend on the file system; and the reading of
 * one schema file, bounded in size.
 */
#define ETL_BUILDING_LIB 1
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "lib/decode/decode_internal.h"

static int has_suffix(const char *name, const char *suf)
{
	size_t a = strlen(name), b = strlen(suf);
	return a > b && strcmp(name + a - b, suf) == 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void dir_list_free(char **names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

/* The files of directory path whose names end in one of suffixes
 * (NULL-terminated list), as "path/name", sorted; hidden files skipped.
 * ETL_OK (possibly none), ETL_FAILED when the directory cannot be opened
 * (errno set), ETL_FATAL on out-of-memory. Free with dir_list_free(). */
static int dir_list(const char *path, const char *const *suffixes, char ***out, size_t *count)
{
	DIR *dir = opendir(path);
	if (!dir)
		return ETL_FAILED;
	char **names = NULL;
	size_t n = 0, cap = 0;
	int rc = ETL_OK;
	struct dirent *de;
	while ((de = readdir(dir)) != NULL) {
		int want = 0;
		for (size_t k = 0; suffixes[k] && !want; k++)
			want = has_suffix(de->d_name, suffixes[k]);
		if (de->d_name[0] == '.' || !want)
			continue;
		if (n == cap) {
			size_t nc = cap ? cap * 2 : 16;
			char **p = realloc(names, nc * sizeof *p);
			if (!p) {
				rc = ETL_FATAL;
				break;
			}
			names = p;
			cap = nc;
		}
		size_t len = strlen(path) + 1 + strlen(de->d_name) + 1;
		if (!(names[n] = malloc(len))) {
			rc = ETL_FATAL;
			break;
		}
		snprintf(names[n], len, "%s/%s", path, de->d_name);
		n++;
	}
	closedir(dir);
	if (rc == ETL_OK && n)
		qsort(names, n, sizeof *names, cmp_str);
	if (rc != ETL_OK) {
		dir_list_free(names, n);
		names = NULL;
		n = 0;
	}
	*out = names;
	*count = n;
	return rc;
}

int etl__dec_load_path(etl_decoder *d, const char *path, const char *const *suffixes,
                       const char *what, int (*load)(etl_decoder *d, void *ctx, const char *file),
                       void *ctx)
{
	struct stat st;
	if (stat(path, &st) != 0) {
		etl__dec_set_error(d, ETL_E_IO, "%s: %s", path, strerror(errno));
		return ETL_FAILED;
	}
	if (!S_ISDIR(st.st_mode))
		return load(d, ctx, path);
	char **names = NULL;
	size_t n = 0;
	int rc = dir_list(path, suffixes, &names, &n);
	if (rc == ETL_FAILED) {
		etl__dec_set_error(d, ETL_E_IO, "%s: %s", path, strerror(errno));
		return ETL_FAILED;
	}
	if (rc == ETL_OK) {
		if (!n) {
			etl__dec_set_error(d, ETL_E_NOT_FOUND, "%s: no %s file in this directory", path, what);
			rc = ETL_FAILED;
		}
		for (size_t i = 0; i < n && rc == ETL_OK; i++)
			rc = load(d, ctx, names[i]);
	} else {
		etl__dec_set_error(d, ETL_E_NOMEM, "%s: out of memory", path);
	}
	dir_list_free(names, n);
	return rc;
}

int etl__dec_load_file(etl_decoder *d, const char *path, size_t max, const char *what,
                       int (*parse)(void *ctx, const char *name, const char *text, size_t len), void *ctx)
{
	struct stat st;
	FILE *f = fopen(path, "rb");
	if (!f) {
		etl__dec_set_error(d, ETL_E_IO, "%s: %s", path, strerror(errno));
		return ETL_FAILED;
	}
	if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode)) {
		etl__dec_set_error(d, ETL_E_IO, "%s: not a regular file", path);
		fclose(f);
		return ETL_FAILED;
	}
	if ((uint64_t)st.st_size > max) {
		etl__dec_set_error(d, ETL_E_LIMIT, "%s: %s file larger than %zu bytes", path, what, max);
		fclose(f);
		return ETL_FAILED;
	}
	size_t n = (size_t)st.st_size;
	char *b = malloc(n ? n : 1);
	if (!b) {
		fclose(f);
		etl__dec_set_error(d, ETL_E_NOMEM, "%s: out of memory", path);
		return ETL_FATAL;
	}
	size_t got = n ? fread(b, 1, n, f) : 0;
	int ioerr = ferror(f);
	fclose(f);
	int rc;
	if (ioerr || got != n) {
		etl__dec_set_error(d, ETL_E_IO, "%s: read error", path);
		rc = ETL_FAILED;
	} else {
		rc = parse(ctx, path, b, n);
	}
	free(b);
	return rc;
}
