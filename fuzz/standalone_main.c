/*
 * standalone_main.c - replays fuzz inputs without libFuzzer, so every
 * harness builds with gcc and `make check` can run its corpus under the
 * sanitizers. Arguments are files or directories (every regular file in a
 * directory, non-recursive, in sorted order). Prints one summary line.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		fprintf(stderr, "cannot open %s\n", path);
		return -1;
	}
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	uint8_t *buf = malloc(n > 0 ? (size_t)n : 1);
	if (!buf || (n > 0 && fread(buf, 1, (size_t)n, f) != (size_t)n)) {
		fclose(f);
		free(buf);
		fprintf(stderr, "cannot read %s\n", path);
		return -1;
	}
	fclose(f);
	LLVMFuzzerTestOneInput(buf, (size_t)n);
	free(buf);
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int main(int argc, char **argv)
{
	long count = 0, failed = 0;
	for (int i = 1; i < argc; i++) {
		struct stat st;
		if (stat(argv[i], &st) != 0) {
			fprintf(stderr, "cannot stat %s\n", argv[i]);
			failed++;
			continue;
		}
		if (!S_ISDIR(st.st_mode)) {
			failed += run_file(argv[i]) != 0;
			count++;
			continue;
		}
		DIR *d = opendir(argv[i]);
		if (!d) {
			failed++;
			continue;
		}
		char **names = NULL;
		size_t n = 0, cap = 0;
		struct dirent *e;
		while ((e = readdir(d)) != NULL) {
			if (e->d_name[0] == '.')
				continue;
			if (n == cap) {
				cap = cap ? cap * 2 : 64;
				names = realloc(names, cap * sizeof *names);
				if (!names)
					return 2;
			}
			size_t len = strlen(argv[i]) + strlen(e->d_name) + 2;
			names[n] = malloc(len);
			snprintf(names[n], len, "%s/%s", argv[i], e->d_name);
			n++;
		}
		closedir(d);
		qsort(names, n, sizeof *names, cmp_str);
		for (size_t k = 0; k < n; k++) {
			failed += run_file(names[k]) != 0;
			count++;
			free(names[k]);
		}
		free(names);
	}
	printf("replayed %ld inputs, %ld unreadable\n", count, failed);
	return failed ? 1 : 0;
}
