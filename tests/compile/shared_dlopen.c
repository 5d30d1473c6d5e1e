/* A program that knows nothing of prof.h loads a shared library holding
   the implementation (shared_lib.c) with dlopen, RTLD_LOCAL, and drives it
   through dlsym: the recorder's thread-local pointer must work in such a
   library, on the loading thread and on others, across two sessions. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FAIL(...) do { fprintf(stderr, "shared_dlopen: " __VA_ARGS__); fputc('\n', stderr); exit(1); } while (0)

static void (*lib_work)(unsigned long);

static void *thread_main(void *arg) {
    (void)arg;
    lib_work(500);
    return NULL;
}

int main(int argc, char **argv) {
    void *h;
    int (*start)(const void *);
    void *(*stop)(void);
    size_t (*count)(const void *);
    void (*free_events)(void *);
    static char cfg[4096]; /* a zeroed prof_config: the defaults */
    int session;
    if (argc != 2) FAIL("usage: shared_dlopen LIBRARY");
    h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (!h) FAIL("dlopen: %s", dlerror());
    *(void **)&start = dlsym(h, "prof_start");
    *(void **)&stop = dlsym(h, "prof_stop");
    *(void **)&count = dlsym(h, "prof_events_count");
    *(void **)&free_events = dlsym(h, "prof_events_free");
    *(void **)&lib_work = dlsym(h, "shared_lib_work");
    if (!start || !stop || !count || !free_events || !lib_work) FAIL("dlsym: a symbol is missing");
    for (session = 0; session < 2; session++) {
        pthread_t th[2];
        void *ev;
        int k;
        if (start(cfg) != 0) FAIL("prof_start failed");
        for (k = 0; k < 2; k++)
            if (pthread_create(&th[k], NULL, thread_main, NULL) != 0) FAIL("pthread_create failed");
        lib_work(500);
        for (k = 0; k < 2; k++) pthread_join(th[k], NULL);
        ev = stop();
        if (!ev) FAIL("prof_stop returned NULL");
        /* 3 threads x 500 x (lib_work + lib_leaf) */
        if (count(ev) != 3000) FAIL("session %d: %zu events, expected 3000", session, count(ev));
        free_events(ev);
    }
    printf("shared_dlopen: ok\n");
    return 0;
}
