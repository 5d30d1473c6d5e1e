/* A fork child's own thread state, when the sweep of states whose thread
   is gone runs in the child (at prof_shutdown, and when the states double
   as threads attach). The sweep tests a state's thread id; the child's
   thread carries the parent's id in its state until prof.h's fork handler
   renews it, and that handler was registered only by prof_start, a
   tracked allocation or a category: a program that named its thread (or
   began a range) and then forked without any session freed its live
   state in the child and used it after (ASan: heap-use-after-free in
   prof_set_thread_name). A state now holds its process's id too, which
   the handler renews with the thread's: one made in another process (the
   parent) is never tested as gone; and a sweep never takes the caller's
   own state. (Registering the handler with the first state instead could
   deadlock where that state is made inside another library's fork
   handler, on a glibc that holds its handlers' lock while they run;
   this one lets go of it around each handler.)
   Freed memory is overwritten here (PROF_FREE hook), so a state used after
   its free shows in the plain build too, not only under ASan or valgrind.
   Checked in children: after prof_shutdown, and after 300 threads
   attached, before the parent's first session and after it (the handler
   registered), the main thread names itself again and records a session
   whose event carries that name; and a first state made inside a fork
   handler of the program's own does not hang. (Review helper) */
#define _GNU_SOURCE
#include <malloc.h>
#include <stdlib.h>
#include <string.h>
static void *hook_malloc(size_t n) { return malloc(n); }
static void *hook_realloc(void *p, size_t n) { return realloc(p, n); }
static void hook_free(void *p) {
    if (p) memset(p, 0xA5, malloc_usable_size(p)); /* a use after free reads garbage */
    free(p);
}
#define PROF_MALLOC(n) hook_malloc(n)
#define PROF_REALLOC(p, n) hook_realloc(p, n)
#define PROF_FREE(p) hook_free(p)
#define PROF_IMPLEMENTATION
#include "prof.h"
#include "check.h"

#include <pthread.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

#define NT 300
static pthread_barrier_t bar;
static void *worker(void *a) {
    (void)a;
    prof_set_thread_name("w"); /* a state each: the 256th attach sweeps */
    pthread_barrier_wait(&bar);
    pthread_barrier_wait(&bar);
    return NULL;
}

/* The main thread named again and a session recorded: 0 when its one
   event carries the name. */
static int name_and_record(const char *name) {
    prof_events *ev;
    prof_event e;
    int bad = 0;
    prof_set_thread_name(name);
    if (prof_start(NULL) != PROF_OK) {
        fprintf(stderr, "%s: prof_start failed: %s\n", name, prof_last_error());
        return 1;
    }
    { PROF_SCOPE("in_child"); }
    if (!(ev = prof_stop())) return 2;
    if (prof_events_count(ev) != 1 || prof_events_get(ev, 0, &e) != PROF_OK) bad = 3;
    else if (!e.thread_name || strcmp(e.thread_name, name) != 0) bad = 4;
    prof_events_free(ev);
    return bad;
}
static int after_shutdown(void) {
    prof_shutdown();
    return name_and_record("child-main");
}
static int after_threads(void) {
    pthread_t th[NT];
    int i, r;
    pthread_barrier_init(&bar, NULL, NT + 1);
    for (i = 0; i < NT; i++)
        if (pthread_create(&th[i], NULL, worker, NULL) != 0) return 5;
    pthread_barrier_wait(&bar); /* all attached, alive */
    r = name_and_record("child-main-2");
    pthread_barrier_wait(&bar);
    for (i = 0; i < NT; i++) pthread_join(th[i], NULL);
    return r;
}
static void in_child(int (*body)(void), const char *what) {
    int status = 0;
    pid_t pid;
    fflush(NULL);
    pid = fork();
    if (pid == 0) _exit(body());
    if (!CHECK(pid > 0)) return;
    waitpid(pid, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        fprintf(stderr, "%s: the child %s %d\n", what, WIFEXITED(status) ? "exited with" : "ended by signal", WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

/* A thread whose first prof.h call is in the program's own fork handler
   (prepare, and the child's): it works, and the child records. */
static pthread_barrier_t fbar;
static int in_handler_child;
static void prepare_names(void) { prof_set_thread_name("in-prepare"); }
static void child_names(void) { PROF_THREAD_NAME("in-child-handler"); in_handler_child = 1; }
static void *forker(void *a) {
    int vp[2];
    char verdict = 0;
    pid_t pid;
    (void)a;
    if (pipe(vp) != 0) return NULL;
    fflush(NULL);
    pid = fork(); /* this thread's first prof.h call: in the prepare handler */
    if (pid == 0) {
        /* (the verdict through a pipe: valgrind's exit code in a child
           forked off a thread other than main reports that thread's stack
           as possibly lost) */
        verdict = (char)(!in_handler_child ? 6 : name_and_record("forker-child"));
        if (write(vp[1], &verdict, 1) != 1) _exit(2);
        _exit(0);
    }
    close(vp[1]);
    if (pid < 0 || read(vp[0], &verdict, 1) != 1) verdict = 7;
    close(vp[0]);
    if (pid > 0) waitpid(pid, NULL, 0);
    if (verdict != 0) fprintf(stderr, "fork from a thread named in the prepare handler: verdict %d\n", verdict);
    pthread_barrier_wait(&fbar);
    return (void *)(intptr_t)(verdict == 0);
}
static void first_state_in_fork_handler(void) {
    pthread_t t;
    void *ok = NULL;
    pthread_barrier_init(&fbar, NULL, 2);
    alarm(60); /* a deadlock fails the test */
    CHECK_EQ_INT(pthread_atfork(prepare_names, NULL, child_names), 0);
    CHECK_EQ_INT(pthread_create(&t, NULL, forker, NULL), 0);
    pthread_barrier_wait(&fbar);
    pthread_join(t, &ok);
    alarm(0);
    CHECK(ok != NULL);
}

int main(void) {
    first_state_in_fork_handler(); /* first: before anything registers prof.h's fork handler */
    prof_set_thread_name("parent-main"); /* a state, and no session yet */
    in_child(after_shutdown, "after prof_shutdown");
    in_child(after_threads, "after 300 threads attached");
    CHECK_EQ_INT(name_and_record("parent-main"), 0); /* registers the fork handler */
    in_child(after_threads, "after 300 threads attached, the handler registered");
    in_child(after_shutdown, "after prof_shutdown, the handler registered");
    prof_shutdown();
    return check_report();
}
