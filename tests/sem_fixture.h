/*
 * sem_fixture.h - a SEM engine for the tests (tests/check_sem_engine.c,
 * check_sem_status.c, check_sem_threads.c): a fresh directory for its two
 * files, the test's own clock, providers for the fixtures' GUIDs (the PA..PE
 * of the testdata/wdi fixtures), configurations from .reg text, and the files read
 * back (sem_files.h) once it stopped.
 */
#ifndef SEM_FIXTURE_H
#define SEM_FIXTURE_H

#include <stdatomic.h>
#include <stdint.h>
#include "etl.h"
#include "etl_sem.h"
#include "etl_trace.h"
#include "sem_files.h"

/* The clock every engine of the fixture runs on: a FILETIME the test
 * moves (2024-01-02T03:04:05Z at setup). */
#define SFX_T0 133486154450000000LL
#define SFX_SEC 10000000LL
extern _Atomic int64_t sfx_now;

/* {AAAAAAAA-...} .. {EEEEEEEE-...}: PA starts, PB ends, PC and PD are
 * context providers, PE is named by no configuration. */
enum { SFX_PA, SFX_PB, SFX_PC, SFX_PD, SFX_PE, SFX_NPROV };
extern etl_provider sfx_prov[SFX_NPROV];
extern struct etl_guid sfx_guid[SFX_NPROV];

struct sfx {
	char dir[64];
	char diag_path[128], ctx_path[128];
	etl_sem_config *cfg;
	etl_sem *sem;
	int stopped;                        /* sfx_stop() was called           */
};

/*! sfx_config_text() : a configuration from .reg text (must load). */
etl_sem_config *sfx_config_text(const char *text);

/*! sfx_setup() : registers the providers (with enable callback cb, may be
 *  NULL, whose ctx is the provider: &sfx_prov[k]) and sets the clock to
 *  SFX_T0. sfx_teardown() unregisters them. */
void sfx_setup(etl_enable_fn cb);
void sfx_teardown(void);

/*! sfx_start() : an engine on cfg (taken over; freed at sfx_finish()) in a
 *  new directory, on the fixture's clock; blocking or losing. Started.
 *  sfx_start_with() : the same with options o (its directory and clock
 *  are the fixture's). */
void sfx_start(struct sfx *x, etl_sem_config *cfg, int blocking);
void sfx_start_with(struct sfx *x, etl_sem_config *cfg, struct etl_sem_options *o);

/*! sfx_stop() : stops the engine (which must succeed) before
 *  sfx_finish(), for what is read from a stopped engine. */
void sfx_stop(struct sfx *x);

/*! sfx_finish() : stops the engine (unless sfx_stop() did), reads both files (which must have no
 *  damage; NULL: not read), frees the engine and the configuration and
 *  removes the directory. */
void sfx_finish(struct sfx *x, struct sf_file *diag, struct sf_file *ctx);

/*! sfx_advance() : moves the clock by delta and tells the engine. */
void sfx_advance(struct sfx *x, int64_t delta);

/*! sfx_write() : a plain etl_write of provider k's event id with level,
 *  keyword and tag (a u32 payload). @return : etl_write's. */
int sfx_write(int k, uint16_t id, uint8_t level, uint64_t keyword, uint32_t tag);

/*! sfx_start_scenario(), sfx_end_scenario() : the scenario writes of
 *  provider k's event id (level 4, keyword 0) with payload tag. */
int sfx_start_scenario(struct sfx *x, int k, uint16_t id, struct etl_guid *activity, uint32_t tag);
int sfx_end_scenario(struct sfx *x, int k, uint16_t id, const struct etl_guid *activity, uint32_t tag);

/* .reg text of the fixtures: a start event key of scenario S, its end
 * events and context providers (5.00, 8-bit text). */
#define SFX_HEAD "Windows Registry Editor Version 5.00\r\n\r\n"
#define SFX_KEY(S, E) "[HKEY_LOCAL_MACHINE\\SYSTEM\\CurrentControlSet\\Control\\WDI\\Scenarios\\" S \
                      "\\Instrumentation\\" E "]\r\n"
#define SFX_END(S, E, X) SFX_KEY(S, E "\\EndEvents\\" X)
#define SFX_CTX(S, E, X) SFX_KEY(S, E "\\ContextProviders\\" X)
#define SFX_LEVEL(l) "\"Level\"=dword:0000000" #l "\r\n"
#define SFX_KEYWORD(b0) "\"Keyword\"=hex(b):" #b0 ",00,00,00,00,00,00,00\r\n"
#define SFX_CONFIG(body) "[HKEY_LOCAL_MACHINE\\SYSTEM\\CurrentControlSet\\Control\\WDI\\Config]\r\n" body

#define SFX_S1 "{11111111-1111-1111-1111-111111111111}"
#define SFX_S2 "{22222222-2222-2222-2222-222222222222}"
#define SFX_A  "{AAAAAAAA-AAAA-AAAA-AAAA-AAAAAAAAAAAA}"
#define SFX_B  "{BBBBBBBB-BBBB-BBBB-BBBB-BBBBBBBBBBBB}"
#define SFX_C  "{CCCCCCCC-CCCC-CCCC-CCCC-CCCCCCCCCCCC}"
#define SFX_D  "{DDDDDDDD-DDDD-DDDD-DDDD-DDDDDDDDDDDD}"

#endif /* SEM_FIXTURE_H */
