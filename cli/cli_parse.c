/*
 * cli_parse.c - the numbers, sizes and times the tools' options take
 * ("64M", "0x10", "2024-01-31T12:00Z" or "1.5" seconds from the trace
 * start), parsed strictly: trailing junk and overflow are refused so the
 * caller can report a usage error. See cli_common.h.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "cli_common.h"

#define TICKS_PER_SEC 10000000LL

int cli_parse_size(const char *s, uint64_t *out)
{
	uint64_t v = 0, mul = 1;
	const char *p = s;
	int n = 0;
	while (*p >= '0' && *p <= '9') {
		if (v > UINT64_MAX / 10 - 9)
			return -1;
		v = v * 10 + (uint64_t)(*p - '0');
		p++;
		n++;
	}
	if (n == 0)
		return -1;
	switch (*p) {
	case 0: break;
	case 'k': case 'K': mul = 1024; p++; break;
	case 'm': case 'M': mul = 1024 * 1024; p++; break;
	case 'g': case 'G': mul = 1024 * 1024 * 1024; p++; break;
	default: return -1;
	}
	if (*p || v == 0 || v > UINT64_MAX / mul)
		return -1;
	*out = v * mul;
	return 0;
}

void cli_limits_usage(FILE *out)
{
	fputs("      --spool-limit N[K|M|G]\n"
	      "                        the most temporary space (in $TMPDIR) a compressed or\n"
	      "                        piped input may take when it is read in time order\n"
	      "                        (default 4G, or the free space of $TMPDIR if less)\n"
	      "      --order-memory N[K|M|G]\n"
	      "                        the most memory time order may hold in inflated\n"
	      "                        buffers, one per processor (default 1G); a compressed\n"
	      "                        buffer past it is reported and skipped\n",
	      out);
}

int cli_parse_u64(const char *s, uint64_t max, uint64_t *out)
{
	uint64_t v = 0;
	int base = 10, n = 0;
	if (!s)
		return -1;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2;
	}
	for (; *s; s++, n++) {
		unsigned d;
		char c = *s;
		if (c >= '0' && c <= '9')
			d = (unsigned)(c - '0');
		else if (base == 16 && c >= 'a' && c <= 'f')
			d = (unsigned)(c - 'a' + 10);
		else if (base == 16 && c >= 'A' && c <= 'F')
			d = (unsigned)(c - 'A' + 10);
		else
			return -1;
		if (v > (UINT64_MAX - d) / (uint64_t)base)
			return -1;
		v = v * (uint64_t)base + d;
	}
	if (n == 0 || v > max)
		return -1;
	*out = v;
	return 0;
}

int cli_parse_seconds(const char *s, const char **end, int64_t *ticks)
{
	int64_t secs = 0, frac = 0;
	int nd = 0, nf = 0;
	const char *p = s;
	while (*p >= '0' && *p <= '9') {
		if (secs > 100000000000LL)      /* > 3000 years: nonsense */
			return -1;
		secs = secs * 10 + (*p - '0');
		p++;
		nd++;
	}
	if (*p == '.') {
		p++;
		while (*p >= '0' && *p <= '9') {
			if (nf < 7) {
				frac = frac * 10 + (*p - '0');
				nf++;
			}
			p++;
			nd++;
		}
		for (int i = nf; i < 7; i++)
			frac *= 10;
	}
	*end = p;
	if (nd == 0)
		return -1;
	*ticks = secs * TICKS_PER_SEC + frac;
	return 0;
}

int cli_parse_time(const char *s, struct cli_time *t)
{
	const char *p = s;
	int neg = 0;
	if (!s || !*s)
		return -1;
	if (*p == '+' || *p == '-') {
		neg = *p == '-';
		p++;
	}
	/* A plain number: seconds from the trace start. A date has a '-' after
	 * its four-digit year, which stops the number scan. */
	int64_t ticks;
	const char *end;
	if (cli_parse_seconds(p, &end, &ticks) == 0 && *end == 0) {
		t->relative = 1;
		t->value = neg ? -ticks : ticks;
		return 0;
	}
	int64_t ft;
	if (etl_filetime_parse(s, &ft) != ETL_OK)
		return -1;
	t->relative = 0;
	t->value = ft;
	return 0;
}
