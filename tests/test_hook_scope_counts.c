/* A scope in an allocator hook (PROF_MALLOC) on a thread whose state is
   not yet bound to the session: prof.h does not bind from inside its own
   allocation, so the scope cannot be recorded, and it must be counted
   (entered and dropped), as one on a thread with no state yet is. It was
   not seen at all: scopes_entered fell short of the scopes the program
   ran. Here a new thread's first scope makes its state and binds it, and
   every allocation on the way runs the hook's scope and a PROF_BEGIN /
   PROF_END range around it. */
#define _GNU_SOURCE 1
#include <stdlib.h>
static void *hook_malloc(size_t n);
#define PROF_MALLOC(n) hook_malloc(n)
#define PROF_REALLOC(p, n) realloc(p, n)
#define PROF_FREE(p) free(p)
#define PROF_IMPLEMENTATION
#include "prof.h"
#include "check.h"

#include <pthread.h>
#include <string.h>

static int g_armed, g_hook_scopes, g_hook_unbound;
static void *hook_malloc(size_t n) {
    if (__atomic_load_n(&g_armed, __ATOMIC_RELAXED)) {
        prof__tstate *t = prof__self();
        void *p;
        __atomic_fetch_add(&g_hook_scopes, 2, __ATOMIC_RELAXED);
        if (t && t->bound_epoch != __atomic_load_n(&prof__g_epoch, __ATOMIC_RELAXED)) __atomic_fetch_add(&g_hook_unbound, 1, __ATOMIC_RELAXED);
        PROF_BEGIN("hook_range"); /* (a range too: it was not counted either) */
        {
            PROF_SCOPE("hook_malloc");
            p = malloc(n);
        }
        PROF_END();
        return p;
    }
    return malloc(n);
}
static void *worker(void *arg) {
    (void)arg;
    { PROF_SCOPE("first"); }
    return NULL;
}
static void quiet(prof_log_level level, prof_result code, const char *msg, void *user) {
    (void)level; (void)code; (void)msg; (void)user;
}

int main(void) {
    prof_config cfg;
    prof_events *ev;
    prof_stats st;
    pthread_t th;
    memset(&cfg, 0, sizeof cfg);
    cfg.log = quiet;
    CHECK_EQ_INT(prof_start(&cfg), PROF_OK);
    __atomic_store_n(&g_armed, 1, __ATOMIC_RELAXED);
    CHECK_EQ_INT(pthread_create(&th, NULL, worker, NULL), 0);
    CHECK_EQ_INT(pthread_join(th, NULL), 0);
    __atomic_store_n(&g_armed, 0, __ATOMIC_RELAXED);
    ev = prof_stop();
    CHECK(ev != NULL);
    if (!ev) return check_report();
    st = prof_events_stats(ev);
    CHECK(g_hook_unbound > 0); /* the case this test is for happened */
    CHECK_EQ_INT(st.scopes_entered, (long long)g_hook_scopes + 1);
    CHECK_EQ_INT(st.scopes_entered, st.scopes_recorded + st.scopes_dropped + st.open_at_stop);
    CHECK_EQ_INT(prof_events_count(ev), st.scopes_recorded);
    prof_events_free(ev);
    prof_shutdown();
    return check_report();
}
