/* Losses for lack of memory are counted as such, and counted at all:
   - a thread whose state could not be allocated (its first scope's
     posix_memalign failed) lost that scope without a count: prof_stats
     said 9 scopes entered of 10, none dropped, and prof_stop said nothing.
     Scopes and records lost so are now counted (entered and dropped, for
     lack of memory), as are marks, counter samples and async records;
   - record blocks that could not be mapped (mmap ENOMEM) while a session
     profiles memory: the frees of the allocations dropped with them were
     counted as the cap's, and prof_stop blamed the cap ("N events were
     dropped when the cap of 16777216 events was reached") for a third of
     the loss, the cap being nowhere near.
   The test defines posix_memalign and mmap itself (the executable's
   definitions come first); not under TSan, whose runtime calls both
   before anything is set up (it skips there). */
#define _GNU_SOURCE 1
#include <errno.h>
#include <malloc.h>
#include <stddef.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

#include "sanitizers.h"
#if defined(TEST_TSAN)
#  define NO_HOOKS 1 /* TSan interposes mmap and posix_memalign itself */
#endif
static __thread int g_fail_memalign; /* 1: the next posix_memalign of this thread fails; 2: every one */
static volatile int g_fail_mmap;
#if !defined(NO_HOOKS)
int posix_memalign(void **p, size_t al, size_t n) {
    if (g_fail_memalign) { if (g_fail_memalign == 1) g_fail_memalign = 0; return ENOMEM; }
    *p = memalign(al, n);
    return *p ? 0 : ENOMEM;
}
void *mmap(void *a, size_t l, int p, int f, int fd, off_t o) {
    if (g_fail_mmap) { errno = ENOMEM; return MAP_FAILED; }
    return (void *)syscall(SYS_mmap, a, l, p, f, fd, o);
}
#endif

#define PROF_IMPLEMENTATION
#include "prof.h"
#include "check.h"
#include <pthread.h>
#include <stdio.h>
#include <string.h>

static void *no_state(void *arg) {
    int i;
    (void)arg;
    g_fail_memalign = 1; /* this thread's state: prof.h's first allocation for it */
    for (i = 0; i < 10; i++) { PROF_SCOPE("work"); }
    return NULL;
}
static void *no_state_mark(void *arg) {
    (void)arg;
    g_fail_memalign = 1;
    PROF_MARK("mark");
    return NULL;
}

/* a thread that never gets its state: its allocations' records are lost,
   and so are their frees' (as where a thread's record blocks fail) */
static void *no_state_memory(void *arg) {
    int i;
    (void)arg;
    g_fail_memalign = 2;
    for (i = 0; i < 10; i++) {
        void *m = prof_malloc(64);
        prof_free(m);
    }
    g_fail_memalign = 0;
    return NULL;
}

static void test_no_state(void) {
    prof_config cfg = {0};
    prof_events *ev;
    prof_stats st;
    pthread_t t;
    check_log_reset();
    CHECK_EQ_INT(prof_start(&cfg), PROF_OK);
    CHECK(pthread_create(&t, NULL, no_state, NULL) == 0 && pthread_join(t, NULL) == 0);
    CHECK(pthread_create(&t, NULL, no_state_mark, NULL) == 0 && pthread_join(t, NULL) == 0);
    ev = prof_stop();
    if (!CHECK(ev != NULL)) return;
    st = prof_events_stats(ev);
    CHECK_EQ_INT(st.scopes_entered, 10);
    CHECK_EQ_INT(st.scopes_recorded, 9);
    CHECK_EQ_INT(st.scopes_dropped, 1);
    CHECK_EQ_INT(st.marks_dropped, 1);
    CHECK_EQ_INT(st.dropped, 2);
    CHECK(check_log_find(PROF_E_DROPPED, "2 events were dropped for lack of memory", NULL) == 1);
    CHECK(check_log_find(PROF_E_DROPPED, "cap", NULL) == 0);
    prof_events_free(ev);

    check_log_reset();
    cfg.profile_memory = 1;
    CHECK_EQ_INT(prof_start(&cfg), PROF_OK);
    CHECK(pthread_create(&t, NULL, no_state_memory, NULL) == 0 && pthread_join(t, NULL) == 0);
    ev = prof_stop();
    if (!CHECK(ev != NULL)) return;
    st = prof_events_stats(ev);
    CHECK_EQ_INT(st.allocs_dropped, 20);
    CHECK_EQ_INT(st.dropped, 20);
    CHECK(check_log_find(PROF_E_DROPPED, "20 events were dropped for lack of memory", NULL) == 1);
    prof_events_free(ev);
}

static void test_blocks_nomem(void) {
    prof_config cfg = {0};
    prof_events *ev;
    prof_stats st;
    int i;
    check_log_reset();
    cfg.profile_memory = 1;
    CHECK_EQ_INT(prof_start(&cfg), PROF_OK);
    for (i = 0; i < 100000; i++) {
        if (i == 5000) g_fail_mmap = 1;
        if (i == 99999) g_fail_mmap = 0;
        {
            PROF_SCOPE("work");
            void *m = prof_malloc(64);
            prof_free(m);
        }
    }
    ev = prof_stop();
    if (!CHECK(ev != NULL)) return;
    st = prof_events_stats(ev);
    CHECK(st.scopes_dropped > 0);
    CHECK_EQ_INT(st.scopes_entered, 100000);
    CHECK_EQ_INT(st.scopes_recorded + st.scopes_dropped, 100000);
    if (!CHECK(check_log_find(PROF_E_DROPPED, "cap", NULL) == 0)) fprintf(stderr, "prof_stop blamed the cap for records lost for lack of memory\n");
    CHECK(check_log_find(PROF_E_DROPPED, "lack of memory", NULL) == 1);
    prof_events_free(ev);
}

int main(void) {
#if defined(NO_HOOKS)
    puts("skipped: the allocation hooks do not work under TSan");
    return 77;
#endif
    prof_set_log(check_log, NULL);
    if (!check_under_valgrind()) test_no_state(); /* (valgrind puts its own posix_memalign before the test's) */
    test_blocks_nomem();
    return check_report();
}
