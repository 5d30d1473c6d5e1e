/* Runs a function on a new thread that the kernel gives a chosen thread id
   (an ended thread's), for tests of threads that share an id in one
   session. As root, /proc/sys/kernel/ns_last_pid names the id the next
   thread gets (a few tries: another process may take it first); elsewhere
   threads are created one after another until the id counter comes round
   to it, where pid_max is small enough for that (at most 65536 ids), and
   not under valgrind (tens of thousands of threads). The thread runs fn
   only when it got the id. Include after check.h. */
#ifndef PROF_TEST_TID_REUSE_H
#define PROF_TEST_TID_REUSE_H

#include <pthread.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

typedef struct tid_reuse_arg {
    pid_t want, got;
    void *(*fn)(void *);
    void *arg;
    int ran;
} tid_reuse_arg;

static CHECK__UNUSED pid_t tid_reuse_gettid(void) { return (pid_t)syscall(SYS_gettid); }

static void *tid_reuse_tramp(void *p) {
    tid_reuse_arg *r = (tid_reuse_arg *)p;
    r->got = tid_reuse_gettid();
    if (r->got != r->want) return NULL;
    r->ran = 1;
    return r->fn(r->arg);
}
static int tid_reuse_try(tid_reuse_arg *r) {
    pthread_t th;
    if (pthread_create(&th, NULL, tid_reuse_tramp, r) != 0) return -1;
    pthread_join(th, NULL);
    return r->ran;
}
static long tid_reuse_read_long(const char *path) {
    FILE *f = fopen(path, "r");
    long v = -1;
    if (f) {
        if (fscanf(f, "%ld", &v) != 1) v = -1;
        fclose(f);
    }
    return v;
}
/* 1: fn ran on a thread with id want; 0: no way here to get that id (the
   test skips); -1: pthread_create failed. */
static CHECK__UNUSED int tid_reuse_run(pid_t want, void *(*fn)(void *), void *arg) {
    tid_reuse_arg r;
    long pid_max = tid_reuse_read_long("/proc/sys/kernel/pid_max"), k;
    int tries, rc;
    r.want = want;
    r.fn = fn;
    r.arg = arg;
    for (tries = 0; tries < 50; tries++) {
        FILE *f = fopen("/proc/sys/kernel/ns_last_pid", "w");
        if (!f) break;
        fprintf(f, "%d", (int)want - 1);
        if (fclose(f) != 0) break; /* (not allowed: written at the close) */
        r.ran = 0;
        r.got = 0;
        if ((rc = tid_reuse_try(&r)) != 0) return rc;
    }
    if (pid_max <= 0 || pid_max > 65536 || check_under_valgrind()) return 0;
    for (k = 0; k < 2 * pid_max; k++) {
        r.ran = 0;
        r.got = 0;
        if ((rc = tid_reuse_try(&r)) != 0) return rc;
    }
    return 0;
}

#endif
