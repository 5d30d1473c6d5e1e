/* An executable that includes prof.h without the implementation and links
   against a shared library that has it (shared_lib.c): scopes recorded in
   the executable and in the library land in one profile, on two threads. */
#include "prof.h"
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void shared_lib_work(unsigned long n);

#define FAIL(...) do { fprintf(stderr, "shared_main: " __VA_ARGS__); fputc('\n', stderr); exit(1); } while (0)

static void *thread_main(void *arg) {
    (void)arg;
    { PROF_SCOPE("exe_thread"); shared_lib_work(1000); }
    return NULL;
}

static size_t count(prof_events *ev, const char *name) {
    size_t i, n = 0;
    prof_event e;
    for (i = 0; i < prof_events_count(ev); i++)
        if (prof_events_get(ev, i, &e) == PROF_OK && strcmp(e.name, name) == 0) n++;
    return n;
}

int main(void) {
    prof_config cfg;
    prof_events *ev;
    pthread_t th;
    memset(&cfg, 0, sizeof cfg);
    if (prof_start(&cfg) != PROF_OK) FAIL("prof_start failed");
    if (pthread_create(&th, NULL, thread_main, NULL) != 0) FAIL("pthread_create failed");
    { PROF_SCOPE("exe_main"); shared_lib_work(1000); }
    pthread_join(th, NULL);
    ev = prof_stop();
    if (!ev) FAIL("prof_stop returned NULL");
    if (count(ev, "exe_main") != 1 || count(ev, "exe_thread") != 1) FAIL("executable scopes: %zu exe_main, %zu exe_thread", count(ev, "exe_main"), count(ev, "exe_thread"));
    if (count(ev, "lib_work") != 2000 || count(ev, "lib_leaf") != 2000) FAIL("library scopes: %zu lib_work, %zu lib_leaf", count(ev, "lib_work"), count(ev, "lib_leaf"));
    if (prof_events_stats(ev).threads != 2) FAIL("%zu threads, expected 2", (size_t)prof_events_stats(ev).threads);
    prof_events_free(ev);
    printf("shared_main: ok\n");
    return 0;
}
