/*
 * lib/common/time.c - clock conversion and ISO 8601 formatting (doc/format.md §5).
 *
 * Every record timestamp is in the session clock named by the logfile
 * header's ReservedFlags. The logfile-header record's own timestamp T0
 * corresponds to StartTime (a FILETIME), so
 *   QPC:         FILETIME = StartTime + (T - T0) * 10^7 / PerfFreq
 *   system time: FILETIME = StartTime + (T - T0)
 *   CPU cycles:  FILETIME = StartTime + (T - T0) * 10 / CpuSpeedInMHz
 * The products overflow 64 bits for real QPC values, hence __int128.
 */
#define ETL_BUILDING_LIB 1
#include <stdio.h>
#include <string.h>
#include "etl.h"
#include "lib/common/clock.h"
#include "lib/common/fmt.h"

void etl__clock_init(struct etl_clock *ck, const struct etl_logfile *lf)
{
	memset(ck, 0, sizeof *ck);
	if (!lf->present)
		return;
	ck->t0 = lf->header_timestamp;
	ck->start = lf->start_time;
	switch (lf->reserved_flags) {
	case ETL_CLOCK_QPC:
		if (lf->perf_freq > 0) {
			ck->mul = 10000000;
			ck->div = lf->perf_freq;
		}
		break;
	case ETL_CLOCK_SYSTEMTIME:
		ck->mul = 1;
		ck->div = 1;
		break;
	case ETL_CLOCK_CPUCYCLE:
		if (lf->cpu_speed_mhz > 0) {
			ck->mul = 10;
			ck->div = lf->cpu_speed_mhz;
		}
		break;
	default:
		/* RAW (0) on post-Vista files: QPC when a frequency is known,
		 * else system time, as other consumers do (doc/format.md §5). */
		if (lf->perf_freq > 0) {
			ck->mul = 10000000;
			ck->div = lf->perf_freq;
		} else {
			ck->mul = 1;
			ck->div = 1;
		}
		break;
	}
	ck->usable = ck->div != 0;
	/* Most files tick at 10 MHz (QPC) or in 100 ns units (system time):
	 * the scale is then a whole factor and 64-bit arithmetic with an
	 * overflow check does; __int128 stays the general path. */
	ck->factor = ck->usable && ck->mul % ck->div == 0 ? ck->mul / ck->div : 0;
}

int etl__clock_to_utc(const struct etl_clock *ck, int64_t raw, int64_t *ft)
{
	if (!ck->usable)
		return ETL_FAILED;
	if (ck->factor) {
		int64_t d64, m, v;
		if (!__builtin_sub_overflow(raw, ck->t0, &d64) &&
		    !__builtin_mul_overflow(d64, ck->factor, &m) &&
		    !__builtin_add_overflow(ck->start, m, &v)) {
			*ft = v;
			return ETL_OK;
		}
	}
	__int128 d = (__int128)raw - ck->t0;
	__int128 v = (__int128)ck->start + d * ck->mul / ck->div;
	if (v > INT64_MAX || v < INT64_MIN)
		return ETL_FAILED;
	*ft = (int64_t)v;
	return ETL_OK;
}

/* The inverse, for writers of a trace in clock ck (a merge of inputs with
 * other clocks, a replay into a session): r is the smallest |raw - T0|
 * that converts to |ft - StartTime| or beyond, then the nearer of r and
 * r - 1; the conversion truncates toward zero, so both signs are
 * symmetric. */
int etl__clock_from_utc(const struct etl_clock *ck, int64_t ft, int64_t *raw)
{
	if (!ck->usable)
		return ETL_FAILED;
	__int128 d = (__int128)ft - ck->start;
	__int128 a = d < 0 ? -d : d;
	__int128 r = (a * ck->div + ck->mul - 1) / ck->mul;
	if (r > 0) {
		__int128 over = r * ck->mul / ck->div - a;
		__int128 under = a - (r - 1) * ck->mul / ck->div;
		if (under < over)
			r--;
	}
	__int128 v = (__int128)ck->t0 + (d < 0 ? -r : r);
	if (v > INT64_MAX || v < INT64_MIN)
		return ETL_FAILED;
	*raw = (int64_t)v;
	return ETL_OK;
}

#define FT_UNIX_EPOCH 116444736000000000LL  /* 1970-01-01 in FILETIME */
#define FT_PER_SEC 10000000LL

/* Days since 1970-01-01 for a proleptic Gregorian date, and back
 * (Howard Hinnant's civil-calendar algorithms, public domain facts). */
static int64_t days_from_civil(int64_t y, unsigned m, unsigned d)
{
	y -= m <= 2;
	int64_t era = (y >= 0 ? y : y - 399) / 400;
	unsigned yoe = (unsigned)(y - era * 400);
	unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + (int64_t)doe - 719468;
}

int etl__systemtime_to_filetime(const uint8_t *b, int64_t *ft)
{
	static const unsigned char mdays[12] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
	unsigned v[8];
	for (int i = 0; i < 8; i++)
		v[i] = (unsigned)b[2 * i] | (unsigned)b[2 * i + 1] << 8;
	unsigned y = v[0], mo = v[1], d = v[3], h = v[4], mi = v[5], se = v[6], ms = v[7];
	if (y < 1601 || y > 30827 || mo < 1 || mo > 12 || d < 1 || h > 23 || mi > 59 || se > 59 || ms > 999)
		return 0;
	int leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
	if (d > mdays[mo - 1] + (unsigned)(mo == 2 && leap))
		return 0;
	int64_t days = days_from_civil(y, mo, d);
	*ft = FT_UNIX_EPOCH + (days * 86400 + h * 3600 + mi * 60 + se) * FT_PER_SEC + (int64_t)ms * 10000;
	return 1;
}

static void civil_from_days(int64_t z, int64_t *y, unsigned *m, unsigned *d)
{
	z += 719468;
	int64_t era = (z >= 0 ? z : z - 146096) / 146097;
	unsigned doe = (unsigned)(z - era * 146097);
	unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	int64_t yy = (int64_t)yoe + era * 400;
	unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	unsigned mp = (5 * doy + 2) / 153;
	*d = doy - (153 * mp + 2) / 5 + 1;
	*m = mp < 10 ? mp + 3 : mp - 9;
	*y = yy + (*m <= 2);
}


/* Writes d as exactly two digits (d < 100). */
static char *put2(char *p, unsigned d)
{
	p[0] = (char)('0' + d / 10);
	p[1] = (char)('0' + d % 10);
	return p + 2;
}

/* "YYYY-MM-DDT" for a day number (days since 1970-01-01); returns the
 * length (at most 13: the year takes 4 to 6 characters). */
static size_t fmt_date(char *out, int64_t days)
{
	int64_t y;
	unsigned m, d;
	civil_from_days(days, &y, &m, &d);
	char *p = out;
	/* "%04lld": the sign counts in the width of 4. */
	if (y >= 0 && y < 10000) {
		p = put2(p, (unsigned)(y / 100));
		p = put2(p, (unsigned)(y % 100));
	} else if (y < 0 && y > -1000) {
		*p++ = '-';
		*p++ = (char)('0' + (unsigned)(-y / 100));
		p = put2(p, (unsigned)(-y % 100));
	} else {
		p += etl__fmt_i64(p, y);  /* already 5 characters or more */
	}
	*p++ = '-';
	p = put2(p, m);
	*p++ = '-';
	p = put2(p, d);
	*p++ = 'T';
	return (size_t)(p - out);
}

/* The date text of the last day formatted, per thread: the events of a
 * trace mostly fall on one day, and the calendar takes several divisions. */
static _Thread_local struct {
	int valid;
	int64_t days;
	size_t len;
	char text[16];
} day_memo;

size_t etl__fmt_filetime(char *out, int64_t ft)
{
	/* Split before moving to the Unix epoch (a whole number of seconds):
	 * ft - FT_UNIX_EPOCH overflows for ft near INT64_MIN. */
	int64_t secs = ft / FT_PER_SEC, frac = ft % FT_PER_SEC;
	if (frac < 0) {
		frac += FT_PER_SEC;
		secs -= 1;
	}
	secs -= FT_UNIX_EPOCH / FT_PER_SEC;
	int64_t days = secs / 86400, rem = secs % 86400;
	if (rem < 0) {
		rem += 86400;
		days -= 1;
	}
	if (!day_memo.valid || day_memo.days != days) {
		day_memo.len = fmt_date(day_memo.text, days);
		day_memo.days = days;
		day_memo.valid = 1;
	}
	char *p = out;
	memcpy(p, day_memo.text, day_memo.len);
	p += day_memo.len;
	p = put2(p, (unsigned)(rem / 3600));
	*p++ = ':';
	p = put2(p, (unsigned)(rem / 60 % 60));
	*p++ = ':';
	p = put2(p, (unsigned)(rem % 60));
	*p++ = '.';
	unsigned f = (unsigned)frac;        /* 0 .. 9999999: seven digits */
	p[6] = (char)('0' + f % 10);
	f /= 10;
	for (int i = 2; i >= 0; i--, f /= 100)
		put2(p + 2 * i, f % 100);
	p += 7;
	*p++ = 'Z';
	return (size_t)(p - out);
}

char *etl_filetime_format(int64_t ft, char *out, size_t outlen)
{
	char tmp[ETL_FMT_TIME_MAX];
	size_t n = etl__fmt_filetime(tmp, ft);
	if (outlen == 0)
		return out;
	/* snprintf semantics: truncated to outlen - 1 bytes, always NUL-ended. */
	if (n > outlen - 1)
		n = outlen - 1;
	memcpy(out, tmp, n);
	out[n] = 0;
	return out;
}

/* Reads exactly n digits. */
static int digits(const char **s, int n, unsigned *v)
{
	unsigned x = 0;
	for (int i = 0; i < n; i++) {
		char c = (*s)[i];
		if (c < '0' || c > '9')
			return 0;
		x = x * 10 + (unsigned)(c - '0');
	}
	*s += n;
	*v = x;
	return 1;
}

int etl_filetime_parse(const char *s, int64_t *ft)
{
	unsigned y, mo, d, h = 0, mi = 0, se = 0;
	int64_t frac = 0;
	if (!digits(&s, 4, &y) || *s++ != '-' || !digits(&s, 2, &mo) || *s++ != '-' ||
	    !digits(&s, 2, &d))
		return ETL_FAILED;
	if (*s == 'T' || *s == 't' || *s == ' ') {
		s++;
		if (!digits(&s, 2, &h) || *s++ != ':' || !digits(&s, 2, &mi))
			return ETL_FAILED;
		if (*s == ':') {
			s++;
			if (!digits(&s, 2, &se))
				return ETL_FAILED;
			if (*s == '.') {
				s++;
				int n = 0;
				while (*s >= '0' && *s <= '9') {
					if (n < 7) {
						frac = frac * 10 + (*s - '0');
						n++;
					}
					s++;
				}
				if (n == 0)
					return ETL_FAILED;
				for (; n < 7; n++)
					frac *= 10;
			}
		}
	}
	if (*s == 'Z' || *s == 'z')
		s++;
	static const unsigned char mdays[12] = { 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
	if (*s || mo < 1 || mo > 12 || d < 1 || d > mdays[mo - 1] || h > 23 || mi > 59 || se > 60)
		return ETL_FAILED;
	/* February 29 only in leap years. */
	if (mo == 2 && d == 29 && !((y % 4 == 0 && y % 100 != 0) || y % 400 == 0))
		return ETL_FAILED;
	int64_t days = days_from_civil(y, mo, d);
	*ft = FT_UNIX_EPOCH + ((days * 86400 + h * 3600 + mi * 60 + se) * FT_PER_SEC) + frac;
	return ETL_OK;
}
