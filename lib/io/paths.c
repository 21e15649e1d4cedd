/*
 * lib/io/paths.c - etl_check_paths() (include/etl_io.h): before a tool
 * reads anything, its output must not be one of its inputs (a capture
 * converted "in place" would be replaced by the conversion of itself) and
 * no input may be named twice (its events would be merged with themselves).
 *
 * Files are compared by identity (device and inode, through stat(), which
 * follows symbolic links and /proc/self/fd/N), not by name. Only regular
 * files are compared: a device, FIFO or socket loses nothing when it is
 * both read and written, and a terminal may well be standard input and
 * standard output at once.
 */
#define ETL_BUILDING_LIB 1
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "etl_io.h"

struct ident {
	int known;                 /* a regular file that exists              */
	dev_t dev;
	ino_t ino;
};

/* The identity of path: "-" is fd (standard input or output). */
static struct ident ident_of(const char *path, int fd)
{
	struct ident id = { 0, 0, 0 };
	struct stat st;
	int rc = strcmp(path, "-") == 0 ? fstat(fd, &st) : stat(path, &st);
	if (rc == 0 && S_ISREG(st.st_mode)) {
		id.known = 1;
		id.dev = st.st_dev;
		id.ino = st.st_ino;
	}
	return id;
}

static int same(struct ident a, struct ident b)
{
	return a.known && b.known && a.dev == b.dev && a.ino == b.ino;
}

static const char *shown(const char *path, int output)
{
	if (strcmp(path, "-") == 0)
		return output ? "(standard output)" : "(standard input)";
	return path;
}

int etl_check_paths(const char *output, const char *const *inputs, int n, char *why,
                    size_t whylen, int *bad)
{
	char none[1];
	if (!why) {
		why = none;
		whylen = sizeof none;
	}
	if (whylen)
		why[0] = 0;
	if (bad)
		*bad = -1;
	struct ident out = output ? ident_of(output, STDOUT_FILENO) : (struct ident){ 0, 0, 0 };
	for (int i = 0; i < n; i++) {
		struct ident in = ident_of(inputs[i], STDIN_FILENO);
		if (same(out, in)) {
			snprintf(why, whylen, "the output '%s' is the input '%s': an input is never overwritten "
			         "(write the output to another file)", shown(output, 1), shown(inputs[i], 0));
			if (bad)
				*bad = i;
			return ETL_FAILED;
		}
		for (int j = 0; j < i; j++) {
			if (!same(ident_of(inputs[j], STDIN_FILENO), in))
				continue;
			if (strcmp(inputs[i], "-") == 0 && strcmp(inputs[j], "-") == 0)
				snprintf(why, whylen, "standard input can be read only once: '-' is given twice");
			else if (strcmp(inputs[i], inputs[j]) == 0)
				snprintf(why, whylen, "the input '%s' is given twice: its events would be read twice",
				         shown(inputs[i], 0));
			else
				snprintf(why, whylen, "the inputs '%s' and '%s' are the same file: its events would "
				         "be read twice", shown(inputs[j], 0), shown(inputs[i], 0));
			if (bad)
				*bad = i;
			return ETL_FAILED;
		}
	}
	return ETL_OK;
}
