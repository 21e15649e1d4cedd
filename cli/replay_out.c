/*
 * replay_out.c - the files of etlreplay -o, made so that a run leaves
 * either its whole output or nothing:
 *   - the session writes into a private directory beside OUT
 *     (".etlreplay-XXXXXX", on the same file system); a place where it
 *     cannot be made is an error before any input is read;
 *   - only when the replay succeeded are the files moved into place: OUT
 *     by rename(2) (a regular file, or a new name), or, for OUT ending in
 *     .gz or .lz4, a symbolic link or a device, copied through etl_outfile
 *     (compressed as the name asks, the file a link leads to replaced
 *     safely, a device written through); the --new-file files, named by
 *     the pattern with 1, 2, ..., are each checked against the inputs
 *     before the first one moves (an input is never replaced);
 *   - a run that fails removes the directory and what is in it.
 * The session is told the final name, which its header records
 * (etl_session_props.log_file_name).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "replay.h"

/* s with every '%' doubled, so that it reads as itself in a pattern. */
static char *escape_percent(const char *s, size_t n)
{
	char *o = malloc(2 * n + 1), *p = o;
	if (!o)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		*p++ = s[i];
		if (s[i] == '%')
			*p++ = '%';
	}
	*p = 0;
	return o;
}

int replay_out_begin(struct replay_out *ro, const char *output, int newfile)
{
	memset(ro, 0, sizeof *ro);
	ro->output = output;
	ro->newfile = newfile;
	const char *slash = strrchr(output, '/');
	size_t dlen = slash ? (size_t)(slash - output) + 1 : 0;
	const char *base = output + dlen;
	/* The directory's own name holds no '%'; a NEWFILE pattern's
	 * directory part may: it is escaped for the session's formatting. */
	char *dir = malloc(dlen + 32);
	if (!dir) {
		cli_message("out of memory");
		return CLI_EXIT_IO;
	}
	memcpy(dir, output, dlen);
	strcpy(dir + dlen, ".etlreplay-XXXXXX");
	if (!mkdtemp(dir)) {
		cli_message("%s: cannot create a temporary directory beside it: %s", output, strerror(errno));
		free(dir);
		return CLI_EXIT_IO;
	}
	ro->dir = dir;
	char *edir = newfile ? escape_percent(dir, strlen(dir)) : strdup(dir);
	size_t n = (edir ? strlen(edir) : 0) + strlen(base) + 2;
	ro->staged = edir ? malloc(n) : NULL;
	if (ro->staged)
		snprintf(ro->staged, n, "%s/%s", edir, base);
	free(edir);
	if (!ro->staged) {
		cli_message("out of memory");
		replay_out_abandon(ro);
		return CLI_EXIT_IO;
	}
	return CLI_EXIT_CLEAN;
}

/* Pattern p with its first "%d" replaced by i (p is never a format). */
static char *numbered(const char *p, uint64_t i)
{
	const char *d = strstr(p, "%d");
	size_t n = strlen(p) + 24;
	char *o = malloc(n);
	if (!o)
		return NULL;
	if (!d) {
		snprintf(o, n, "%s", p);
		return o;
	}
	snprintf(o, n, "%.*s%llu%s", (int)(d - p), p, (unsigned long long)i, d + 2);
	return o;
}

/* The staged file of a NEWFILE session, as it named it: its pattern was
 * staged with every '%' of the directory doubled. */
static char *staged_file(const struct replay_out *ro, uint64_t i)
{
	const char *base = strrchr(ro->staged, '/') + 1;
	char *name = numbered(base, i);
	size_t n = strlen(ro->dir) + (name ? strlen(name) : 0) + 2;
	char *o = name ? malloc(n) : NULL;
	if (o)
		snprintf(o, n, "%s/%s", ro->dir, name);
	free(name);
	return o;
}

/* Copies the file at from to OUT through etl_outfile. */
static int copy_out(const char *from, const char *output)
{
	int fd = open(from, O_RDONLY | O_CLOEXEC);
	etl_outfile *f = etl_outfile_new();
	int ok = fd >= 0 && f;
	if (ok)
		ok = (strcmp(output, "-") == 0 ? etl_outfile_open_fd(f, STDOUT_FILENO)
		                               : etl_outfile_open(f, output)) == ETL_OK;
	static char buf[1 << 16];
	ssize_t got = 0;
	while (ok && (got = read(fd, buf, sizeof buf)) > 0)
		ok = etl_outfile_write(f, buf, (size_t)got) == ETL_OK;
	if (ok && got < 0) {
		cli_message("%s: cannot read the replayed file back: %s", from, strerror(errno));
		ok = 0;
		etl_outfile_abandon(f);
	} else if (ok) {
		ok = etl_outfile_commit(f) == ETL_OK;
	}
	if (!ok && f && etl_outfile_errmsg(f)[0])
		cli_error(cli_display_name(output), etl_outfile_errmsg(f));
	else if (!ok && (fd < 0 || !f))
		cli_message("%s: %s", output, f ? strerror(errno) : "out of memory");
	etl_outfile_free(f);
	if (fd >= 0)
		close(fd);
	return ok ? 0 : -1;
}

/* Moves one file into place: rename(2) when OUT is a regular file or a
 * new name (keeping the mode of the file it replaces), else a copy. */
static int put_in_place(const char *from, const char *to)
{
	struct stat st;
	int exists = lstat(to, &st) == 0;
	if (strcmp(to, "-") == 0 || etl_outfile_codec_suffix(to) || (exists && !S_ISREG(st.st_mode)))
		return copy_out(from, to);
	if (exists)
		(void)chmod(from, st.st_mode & 07777);
	if (rename(from, to) != 0) {
		cli_message("%s: cannot move the replayed file into place: %s", to, strerror(errno));
		return -1;
	}
	return 0;
}

int replay_out_commit(struct replay_out *ro, uint64_t files, char **inputs, int n)
{
	int rc = CLI_EXIT_CLEAN;
	if (!ro->newfile) {
		if (put_in_place(ro->staged, ro->output) != 0)
			rc = CLI_EXIT_IO;
		replay_out_abandon(ro);
		return rc;
	}
	/* Every name first: a file of the pattern that is an input stops
	 * the run before anything moves. */
	for (uint64_t i = 1; i <= files && rc == CLI_EXIT_CLEAN; i++) {
		char *name = numbered(ro->output, i);
		if (!name) {
			cli_message("out of memory");
			rc = CLI_EXIT_IO;
		} else if (cli_check_paths(name, inputs, n, 1) != CLI_EXIT_CLEAN) {
			rc = CLI_EXIT_USAGE;
		}
		free(name);
	}
	for (uint64_t i = 1; i <= files && rc == CLI_EXIT_CLEAN; i++) {
		char *name = numbered(ro->output, i), *from = staged_file(ro, i);
		if (!name || !from) {
			cli_message("out of memory");
			rc = CLI_EXIT_IO;
		} else if (put_in_place(from, name) != 0) {
			rc = CLI_EXIT_IO;
		}
		free(name);
		free(from);
	}
	replay_out_abandon(ro);
	return rc;
}

void replay_out_abandon(struct replay_out *ro)
{
	if (ro->dir) {
		DIR *d = opendir(ro->dir);
		struct dirent *de;
		while (d && (de = readdir(d)) != NULL) {
			if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
				continue;
			size_t n = strlen(ro->dir) + strlen(de->d_name) + 2;
			char *p = malloc(n);
			if (p) {
				snprintf(p, n, "%s/%s", ro->dir, de->d_name);
				unlink(p);
				free(p);
			}
		}
		if (d)
			closedir(d);
		rmdir(ro->dir);
	}
	free(ro->dir);
	free(ro->staged);
	ro->dir = ro->staged = NULL;
}
