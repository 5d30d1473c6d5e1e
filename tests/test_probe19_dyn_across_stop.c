/* A PROF_SCOPE_DYN whose name is 4 KiB or more, open across prof_stop and
   the next prof_start: prof_stop of the next session reads freed memory.

   Such a name is copied once per session and site into the thread's name
   arena, and the scope's records point at a prof_site kept there. The
   scope is open at prof_stop (counted open, as the manual says); the next
   prof_start binds the thread again, and prof__thread_bind frees the
   arena (prof__arena_free(&t->dyn_arena)). The scope then ends: its record
   goes into the new session's block, and that session's prof_stop asks
   whether it is stale: prof__c_stale_rec reads ((prof_site *)r->site)->func
   from the freed arena. ASan: heap-use-after-free in prof__c_stale_rec
   (prof_stop, prof__c_decode_thread); valgrind: invalid read of size 8.
   Scopes that straddle prof_stop/prof_start are a documented, supported
   case (test_adversarial16, test_stop_race), and so are long DYN names.

   Detected here in every build: prof.h's allocations come from their own
   pages (PROF_MALLOC/REALLOC/FREE hooks over mmap), and a freed block is
   made unreadable (never reused), so the read faults; the fault handler
   says what happened.
   Wanted: the second session's list, with the straddling scope left out
   (it began in the first session) and nothing freed read. */
#define _GNU_SOURCE 1
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* Each block: its own mapping, the size in front. */
static void *test_malloc(size_t n) {
    size_t total = n + 16;
    char *m = (char *)mmap(NULL, total, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == (char *)MAP_FAILED) return NULL;
    memcpy(m, &total, sizeof total);
    return m + 16;
}
static void test_free(void *p) {
    size_t total;
    if (!p) return;
    memcpy(&total, (char *)p - 16, sizeof total);
    /* kept mapped but unreadable: munmap would let the next mmap reuse
       the address, and a stale read would find the new block */
    mprotect((char *)p - 16, total, PROT_NONE);
}
static void *test_realloc(void *p, size_t n) {
    size_t total;
    void *q = test_malloc(n);
    if (!q || !p) return q;
    memcpy(&total, (char *)p - 16, sizeof total);
    memcpy(q, p, total - 16 < n ? total - 16 : n);
    test_free(p);
    return q;
}
#define PROF_MALLOC(n) test_malloc(n)
#define PROF_REALLOC(p, n) test_realloc((p), (n))
#define PROF_FREE(p) test_free(p)
#define PROF_IMPLEMENTATION
#include "prof.h"
#include "check.h"

static void on_fault(int sig) {
    static const char msg[] = "test_probe19_dyn_across_stop: prof_stop read memory prof.h had freed (the open DYN scope's name arena, freed by prof_start's rebind)\n";
    (void)sig;
    if (write(2, msg, sizeof msg - 1) < 0) {}
    _exit(1);
}

int main(void) {
    static char name[5000];
    prof_config cfg;
    prof_events *ev;
    prof_stats st;
    signal(SIGSEGV, on_fault);
    signal(SIGBUS, on_fault);
    prof_set_log(check_log, NULL);
    memset(name, 'n', sizeof name - 1);
    memset(&cfg, 0, sizeof cfg);
    if (!CHECK_EQ_INT(prof_start(&cfg), PROF_OK)) return check_report();
    {
        PROF_SCOPE_DYN(name);           /* 4 KiB or more: kept in the thread's arena */
        ev = prof_stop();               /* the scope is open here */
        CHECK(ev != NULL);
        if (ev) CHECK_EQ_INT(prof_events_stats(ev).open_at_stop, 1);
        prof_events_free(ev);
        CHECK_EQ_INT(prof_start(&cfg), PROF_OK); /* binds this thread again */
    }                                   /* ends in the new session */
    { PROF_SCOPE("second"); }
    ev = prof_stop();
    if (!CHECK(ev != NULL)) return check_report();
    st = prof_events_stats(ev);
    CHECK_EQ_INT(prof_events_count(ev), 1); /* "second" only */
    CHECK_EQ_INT(st.scopes_entered, st.scopes_recorded + st.scopes_dropped + st.open_at_stop);
    prof_events_free(ev);
    /* open across two stops and starts: its arena is freed by then too
       (an arena is kept one session more, not two) */
    CHECK_EQ_INT(prof_start(&cfg), PROF_OK);
    {
        int k;
        PROF_SCOPE_DYN(name);
        for (k = 0; k < 2; k++) {
            ev = prof_stop();
            CHECK(ev != NULL);
            if (ev) CHECK_EQ_INT(prof_events_stats(ev).open_at_stop, k == 0 ? 1 : 0); /* a session's own scopes only */
            prof_events_free(ev);
            CHECK_EQ_INT(prof_start(&cfg), PROF_OK);
            { PROF_SCOPE_DYN(name + k + 1); } /* a long name of this session */
        }
    }
    ev = prof_stop();
    if (!CHECK(ev != NULL)) return check_report();
    CHECK_EQ_INT(prof_events_count(ev), 1); /* the last session's own DYN scope */
    prof_events_free(ev);
    return check_report();
}
