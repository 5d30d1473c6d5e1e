/* A PROF_MALLOC hook that names its thread (PROF_THREAD_NAME, a recording
   macro: any thread, any time) recursed without end: prof_set_thread_name
   copies the name through the hook before storing it, so the hook's call
   found the name still unset and copied it again, until the stack
   overflowed (SIGSEGV at the first scope). A PROF_THREAD_NAME from inside
   prof.h's own allocation is now ignored; from the program's own calls to
   the same allocator it names the thread. */
#define _GNU_SOURCE 1
#include <stddef.h>
#include <stdlib.h>
void *hk_malloc(size_t n);
#define PROF_MALLOC(n) hk_malloc(n)
#define PROF_REALLOC(p, n) realloc(p, n)
#define PROF_FREE(p) free(p)
#define PROF_IMPLEMENTATION
#include "prof.h"
#include "check.h"
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static long g_hook_calls;
void *hk_malloc(size_t n) {
    __atomic_fetch_add(&g_hook_calls, 1, __ATOMIC_RELAXED);
    PROF_THREAD_NAME("allocator"); /* a pool allocator naming the thread it serves */
    return malloc(n);
}

/* the program's own call: the hook names this thread */
static void *worker(void *arg) {
    void *p;
    (void)arg;
    {
        PROF_SCOPE("work");
        p = hk_malloc(64);
        free(p);
    }
    return NULL;
}

int main(void) {
    prof_config cfg = {0};
    prof_events *ev;
    pthread_t t;
    char *text;
    prof_set_log(check_log, NULL);
    CHECK_EQ_INT(prof_start(&cfg), PROF_OK);
    PROF_THREAD_NAME("main thread"); /* its copy goes through the hook */
    {
        PROF_SCOPE("outer");
        PROF_SCOPE_DYN("a long name past the inline limit, copied through the hook: .........................................................................................................................................................");
    }
    CHECK(pthread_create(&t, NULL, worker, NULL) == 0 && pthread_join(t, NULL) == 0);
    ev = prof_stop();
    if (!CHECK(ev != NULL)) return check_report();
    CHECK(g_hook_calls > 0);
    CHECK_EQ_INT(prof_events_count(ev), 3);
    CHECK_EQ_INT(prof_export_chrome_trace(ev, "test_hook_thread_name.json"), PROF_OK);
    text = check_read_file("test_hook_thread_name.json");
    CHECK(text && strstr(text, "\"main thread\""));
    CHECK(text && strstr(text, "\"allocator\""));
    free(text);
    unlink("test_hook_thread_name.json");
    prof_events_free(ev);
    prof_shutdown();
    return check_report();
}
