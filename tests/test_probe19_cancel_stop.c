/* pthread_cancel of a thread that is inside prof_stop. prof_stop holds the
   session lock while it reaches cancellation points: the nanosleep of the
   clock fit in the first 20 ms of a process's profiling, and the write(2)
   of its warnings (fprintf to stderr, the default log; a log callback
   that writes too). With deferred cancellation (the default) the thread
   is unwound there, the lock stays held by a thread that no longer
   exists, and every later prof_start, prof_step or prof_stop of the
   program waits for it forever: the host hangs. (A worker that ends the
   profile, cancelled at shutdown, is an ordinary program.)

   The cancel is made pending before the thread calls prof_stop, so it acts
   at prof_stop's first cancellation point whatever the timing. The
   scope left open makes prof_stop warn (to stderr, with the lock held).
   Found: the cancelled thread itself never finishes: it was unwound with
   prof__g_lock held, and its TLS destructor (prof__thread_exit) waits for
   that lock, so pthread_join of it hangs too.
   Wanted: the cancelled thread exits, and the program can start a new
   session afterwards. A fixed prof.h disables cancellation for the
   length of its calls that hold a lock (pthread_setcancelstate), so the
   cancel acts after prof_stop returns. A hang fails the test through a
   watchdog, with a message, instead of the ctest timeout. */
#define PROF_IMPLEMENTATION
#include "prof.h"
#include "check.h"

#include <time.h>
#include <unistd.h>

static int g_go;          /* main has made the cancel pending */
static int g_done;        /* main got through */
static const char *g_where = "start"; /* read by the watchdog */

/* A hang fails with a message after 10 s instead of at the ctest timeout. */
static void *watchdog(void *arg) {
    int waited;
    (void)arg;
    for (waited = 0; waited < 1000 && !__atomic_load_n(&g_done, __ATOMIC_ACQUIRE); waited++) {
        struct timespec ts = { 0, 10 * 1000 * 1000 };
        nanosleep(&ts, NULL);
    }
    if (__atomic_load_n(&g_done, __ATOMIC_ACQUIRE)) return NULL;
    fprintf(stderr, "test_probe19_cancel_stop: hung for 10 s in %s after a thread was cancelled inside prof_stop: a lock prof_stop held was left held\n", __atomic_load_n(&g_where, __ATOMIC_ACQUIRE));
    check__fail();
    check_report();
    fflush(NULL);
    _exit(1);
}

static void *stopper(void *arg) {
    prof_events *ev;
    (void)arg;
    while (!__atomic_load_n(&g_go, __ATOMIC_ACQUIRE)) {} /* no cancellation point */
    PROF_BEGIN("left open"); /* prof_stop warns of it, to stderr */
    ev = prof_stop();
    prof_events_free(ev);
    pthread_testcancel();
    return NULL;
}

int main(void) {
    prof_config cfg;
    pthread_t t, dog;
    void *res = NULL;
    prof_events *ev;
    memset(&cfg, 0, sizeof cfg);
    if (!CHECK_EQ_INT(pthread_create(&dog, NULL, watchdog, NULL), 0)) return check_report();
    if (!CHECK_EQ_INT(prof_start(&cfg), PROF_OK)) return check_report();
    { PROF_SCOPE("work"); }
    if (!CHECK_EQ_INT(pthread_create(&t, NULL, stopper, NULL), 0)) return check_report();
    CHECK_EQ_INT(pthread_cancel(t), 0);
    __atomic_store_n(&g_go, 1, __ATOMIC_RELEASE);
    __atomic_store_n(&g_where, "pthread_join of the cancelled thread (its exit handler)", __ATOMIC_RELEASE);
    CHECK_EQ_INT(pthread_join(t, &res), 0);
    CHECK(res == PTHREAD_CANCELED);
    /* The session ended (or not): either way a new one must be possible. */
    __atomic_store_n(&g_where, "prof_start", __ATOMIC_RELEASE);
    prof_events_free(prof_stop()); /* ends a session the cancel left half-stopped; else "no session" */
    CHECK_EQ_INT(prof_start(&cfg), PROF_OK);
    __atomic_store_n(&g_where, "prof_stop", __ATOMIC_RELEASE);
    { PROF_SCOPE("after"); }
    ev = prof_stop();
    CHECK(ev != NULL);
    prof_events_free(ev);
    __atomic_store_n(&g_done, 1, __ATOMIC_RELEASE);
    pthread_join(dog, NULL);
    return check_report();
}
