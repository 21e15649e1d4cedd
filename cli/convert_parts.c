/*
 * convert_parts.c - the numbered files of etlconvert --split-size and
 * --split-time (OUT_000.etl, OUT_001.etl, ...), made so that a run never
 * leaves a mixed set:
 *   - before anything is read, every existing file of the pattern is
 *     checked against the inputs (one of them being an input is refused:
 *     it would be replaced or removed);
 *   - the parts are written into a private directory beside OUT
 *     (".OUT.parts-XXXXXX", on the same file system), each through the
 *     writer's own temporary;
 *   - only when the whole run succeeded are they renamed into place, one
 *     by one, and the parts of the pattern that an earlier run left
 *     beyond the new ones (its OUT_00N.etl for N past the new count) are
 *     removed - those and nothing else: regular files whose names are the
 *     pattern's exactly;
 *   - a run that fails removes its directory and leaves the earlier set
 *     as it was.
 */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "convert.h"

/* Where the number goes in out: before the last extension of the file
 * name, not counting a final .gz or .lz4 (OUT.etl -> OUT_003.etl;
 * OUT.etl.gz -> OUT_003.etl.gz; OUT -> OUT_003). */
static size_t number_at(const char *out)
{
	size_t stem = strlen(out) - etl_outfile_codec_suffix(out);
	const char *base = strrchr(out, '/');
	size_t base_at = base ? (size_t)(base - out) + 1 : 0;
	for (size_t i = stem; i > base_at; i--) {
		if (out[i - 1] == '.')
			return i - 1 > base_at ? i - 1 : stem;   /* not a leading dot (".etl") */
	}
	return stem;
}

char *convert_part_name(const char *out, unsigned index)
{
	size_t len = strlen(out), at = number_at(out);
	char num[16];
	int nl = snprintf(num, sizeof num, "_%03u", index);
	char *s = malloc(len + (size_t)nl + 1);
	if (!s)
		return NULL;
	memcpy(s, out, at);
	memcpy(s + at, num, (size_t)nl);
	memcpy(s + at + nl, out + at, len - at + 1);
	return s;
}

/* The directory of out ("." when it has none), malloc'd. */
static char *dir_of(const char *out)
{
	const char *slash = strrchr(out, '/');
	if (!slash)
		return strdup(".");
	if (slash == out)
		return strdup("/");
	return strndup(out, (size_t)(slash - out));
}

/* If name (a directory entry) is a part of out's pattern, its number in
 * *index. A number is written as "%03u" does: three digits, or more
 * without a leading zero. */
static int is_part(const char *out, const char *name, unsigned *index)
{
	size_t at = number_at(out);
	const char *slash = strrchr(out, '/');
	const char *base = slash ? slash + 1 : out;
	size_t pre = at - (size_t)(base - out);
	const char *suffix = out + at;
	if (strncmp(name, base, pre) != 0 || name[pre] != '_')
		return 0;
	const char *d = name + pre + 1, *e = d;
	while (*e >= '0' && *e <= '9')
		e++;
	size_t nd = (size_t)(e - d);
	if (nd < 3 || nd > 9 || (nd > 3 && d[0] == '0') || strcmp(e, suffix) != 0)
		return 0;
	*index = (unsigned)strtoul(d, NULL, 10);
	return 1;
}

/* Calls fn(path, index, ctx) for every regular file of out's pattern in
 * its directory; stops when fn returns non-zero. @return : that value, 0,
 * or -1 when the directory cannot be read (errno). */
static int each_part(const char *out, int (*fn)(const char *path, unsigned index, void *ctx),
                     void *ctx)
{
	char *dir = dir_of(out);
	DIR *d = dir ? opendir(dir) : NULL;
	int rc = 0;
	if (!d) {
		free(dir);
		return -1;
	}
	struct dirent *de;
	while (rc == 0 && (de = readdir(d)) != NULL) {
		unsigned index;
		struct stat st;
		if (!is_part(out, de->d_name, &index))
			continue;
		size_t n = strlen(dir) + strlen(de->d_name) + 2;
		char *path = malloc(n);
		if (!path) {
			rc = -1;
			errno = ENOMEM;
			break;
		}
		snprintf(path, n, "%s/%s", dir, de->d_name);
		if (lstat(path, &st) == 0 && S_ISREG(st.st_mode))
			rc = fn(path, index, ctx);
		free(path);
	}
	closedir(d);
	free(dir);
	return rc;
}

struct input_check {
	char **inputs;
	int n;
};

static int part_is_input(const char *path, unsigned index, void *ctx)
{
	const struct input_check *c = ctx;
	char why[1024];
	(void)index;
	if (etl_check_paths(path, (const char *const *)c->inputs, c->n, why, sizeof why, NULL) == ETL_OK)
		return 0;
	cli_errorf(why, "--split-size/--split-time replace or remove the numbered files of the "
	           "output; ");
	return 1;
}

int convert_parts_begin(struct convert_parts *p, const char *output, char **inputs, int n)
{
	struct input_check c = { inputs, n };
	struct stat st;
	memset(p, 0, sizeof *p);
	p->output = output;
	if (stat(output, &st) == 0 && !S_ISREG(st.st_mode)) {
		cli_usage_error("--split-size and --split-time write numbered files beside OUTPUT: "
		                "'%s' is not a regular file", output);
		return CLI_EXIT_USAGE;
	}
	if (each_part(output, part_is_input, &c) > 0)
		return CLI_EXIT_USAGE;
	/* The private directory: ".BASE.parts-XXXXXX" beside the output. */
	char *dir = dir_of(output);
	const char *slash = strrchr(output, '/');
	const char *base = slash ? slash + 1 : output;
	size_t len = (dir ? strlen(dir) : 0) + strlen(base) + 32;
	p->dir = dir ? malloc(len) : NULL;
	if (p->dir)
		snprintf(p->dir, len, "%s/.%s.parts-XXXXXX", dir, base);
	free(dir);
	if (!p->dir || !mkdtemp(p->dir)) {
		cli_message("%s: cannot create a temporary directory beside it: %s", output,
		            p->dir ? strerror(errno) : "out of memory");
		free(p->dir);
		p->dir = NULL;
		return CLI_EXIT_IO;
	}
	return CLI_EXIT_CLEAN;
}

char *convert_parts_path(const struct convert_parts *p, unsigned index)
{
	char *name = convert_part_name(p->output, index);
	if (!name)
		return NULL;
	const char *slash = strrchr(name, '/');
	const char *base = slash ? slash + 1 : name;
	size_t n = strlen(p->dir) + strlen(base) + 2;
	char *path = malloc(n);
	if (path)
		snprintf(path, n, "%s/%s", p->dir, base);
	free(name);
	return path;
}

static int remove_stale(const char *path, unsigned index, void *ctx)
{
	unsigned made = *(const unsigned *)ctx;
	if (index >= made && unlink(path) != 0)
		cli_message("%s: cannot remove this part of an earlier run: %s", path, strerror(errno));
	return 0;
}

/* Removes what is left in the private directory, and the directory. */
static void remove_dir(struct convert_parts *p, unsigned made)
{
	for (unsigned i = 0; i < made; i++) {
		char *path = convert_parts_path(p, i);
		if (path)
			unlink(path);
		free(path);
	}
	if (p->dir)
		rmdir(p->dir);
	free(p->dir);
	p->dir = NULL;
}

int convert_parts_commit(struct convert_parts *p, unsigned made)
{
	int rc = 0;
	for (unsigned i = 0; i < made && rc == 0; i++) {
		char *from = convert_parts_path(p, i), *to = convert_part_name(p->output, i);
		if (!from || !to) {
			cli_message("out of memory");
			rc = -1;
		} else if (rename(from, to) != 0) {
			cli_message("%s: cannot move the new part into place: %s", to, strerror(errno));
			rc = -1;
		}
		free(from);
		free(to);
	}
	if (rc == 0)
		each_part(p->output, remove_stale, &made);
	remove_dir(p, made);
	return rc;
}

void convert_parts_abandon(struct convert_parts *p, unsigned made)
{
	remove_dir(p, made);
}
