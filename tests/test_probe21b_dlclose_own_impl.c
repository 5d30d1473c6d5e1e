/* A shared library with its own copy of the implementation (a plugin that
   profiles itself: PROF_IMPLEMENTATION in one of its files, built
   -fvisibility=hidden), dlopen'ed, used from several threads, profiled
   (prof_start, scopes on those threads, prof_stop, even prof_shutdown),
   then dlclose'd while those threads still live; the threads exit after.
   The manual: "The list prof_stop returns holds copies, so a dlclose after
   it is fine."
   Found: each thread that recorded attached to prof.h through a pthread
   key whose destructor is the library's prof__thread_exit
   (prof__attach: pthread_key_create(&prof__g.key, prof__thread_exit)).
   The key is never deleted, so at each thread's exit glibc
   (__nptl_deallocate_tsd) calls into the unmapped library: SIGSEGV, the
   whole program dies, after prof_stop and prof_shutdown alike.
   Wanted: the threads exit and the program goes on. A fixed prof.h
   deletes its key when its copy is unloaded (a destructor function of the
   implementation: pthread_key_delete, so no thread calls into it later;
   the live threads' states are then lost, a few hundred bytes each,
   rather than the program).

   The test compiles the library itself at run time (cc, or $CC) from the
   source below, into a temporary directory; with no compiler it passes
   with a message. The scenario runs in a child, so a crash is a failure
   with its signal. Under valgrind it is skipped: the states of threads
   alive at the dlclose are unreachable by then (a leak, by design). */
#define PROF_IMPLEMENTATION
#include "prof.h"
#include "check.h"

#include <dlfcn.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#define NTHREADS 4

static const char lib_src[] =
    "#define PROF_IMPLEMENTATION\n"
    "#include \"prof.h\"\n"
    "#define EXPORT __attribute__((visibility(\"default\")))\n"
    "EXPORT void lib_scopes(int n) { int i; for (i = 0; i < n; i++) { PROF_SCOPE(\"lib_scope\"); } }\n"
    "EXPORT int lib_start(void) { prof_config c = {0}; return prof_start(&c) == PROF_OK; }\n"
    "EXPORT long lib_stop(void) { prof_events *e = prof_stop(); long n = e ? (long)prof_events_count(e) : -1; prof_events_free(e); return n; }\n"
    "EXPORT void lib_shutdown(void) { prof_shutdown(); }\n";

static void (*lib_scopes)(int);
static pthread_barrier_t recorded, closed;

static void *worker(void *arg) {
    (void)arg;
    lib_scopes(100);
    pthread_barrier_wait(&recorded);
    pthread_barrier_wait(&closed); /* exits after the dlclose */
    return NULL;
}

/* The child: 0 = every thread exited after the dlclose; else the step that failed. */
static int scenario(const char *so, int shutdown) {
    void *h = dlopen(so, RTLD_NOW | RTLD_LOCAL);
    int (*start)(void);
    long (*stop)(void);
    void (*shut)(void);
    pthread_t t[NTHREADS];
    int i;
    if (!h) { fprintf(stderr, "dlopen: %s\n", dlerror()); return 2; }
    *(void **)&start = dlsym(h, "lib_start");
    *(void **)&stop = dlsym(h, "lib_stop");
    *(void **)&shut = dlsym(h, "lib_shutdown");
    *(void **)&lib_scopes = dlsym(h, "lib_scopes");
    if (!start || !stop || !shut || !lib_scopes) return 3;
    pthread_barrier_init(&recorded, NULL, NTHREADS + 1);
    pthread_barrier_init(&closed, NULL, NTHREADS + 1);
    if (!start()) return 4;
    for (i = 0; i < NTHREADS; i++)
        if (pthread_create(&t[i], NULL, worker, NULL) != 0) return 5;
    pthread_barrier_wait(&recorded);
    if (stop() != NTHREADS * 100) return 6;
    if (shutdown) shut();
    if (dlclose(h) != 0) return 7;
    pthread_barrier_wait(&closed);
    for (i = 0; i < NTHREADS; i++) pthread_join(t[i], NULL);
    return 0;
}

int main(void) {
    char dir[] = "/tmp/prof_probe21b_XXXXXX", src[256], so[256], cmd[2048], root[1024];
    const char *cc = getenv("CC"), *slash;
    FILE *f;
    int shutdown;
    if (check_under_valgrind()) {
        printf("skipped under valgrind: the states of threads alive at the dlclose are lost by design\n");
        return 0;
    }
    /* the repository root, from this file's path (tests/...) */
    snprintf(root, sizeof root, "%s", __FILE__);
    slash = strrchr(root, '/');
    if (slash) root[slash - root] = 0;
    else snprintf(root, sizeof root, "tests");
    slash = strrchr(root, '/');
    if (slash) root[slash - root] = 0;
    else snprintf(root, sizeof root, ".");
    if (!CHECK(mkdtemp(dir) != NULL)) return check_report();
    snprintf(src, sizeof src, "%s/lib.c", dir);
    snprintf(so, sizeof so, "%s/lib.so", dir);
    if (!CHECK((f = fopen(src, "w")) != NULL)) return check_report();
    fputs(lib_src, f);
    fclose(f);
    snprintf(cmd, sizeof cmd, "%s -std=c11 -O1 -fPIC -shared -fvisibility=hidden -Wl,-Bsymbolic -I'%s' '%s' -o '%s' -pthread 2>&1",
             cc && *cc ? cc : "cc", root, src, so);
    if (system(cmd) != 0) {
        printf("skipped: the library did not compile (%s)\n", cmd);
        unlink(src);
        rmdir(dir);
        return check_report();
    }
    for (shutdown = 0; shutdown < 2; shutdown++) {
        int status = 0;
        pid_t pid;
        fflush(NULL);
        pid = fork();
        if (pid == 0) _exit(scenario(so, shutdown));
        if (!CHECK(pid > 0)) break;
        waitpid(pid, &status, 0);
        CHECK_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0,
                  "dlclose after prof_stop%s with %d threads that recorded still alive: the child %s %d when they exited",
                  shutdown ? " and prof_shutdown" : "", NTHREADS,
                  WIFSIGNALED(status) ? "died of signal" : "exited with", WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
    }
    unlink(so);
    unlink(src);
    rmdir(dir);
    return check_report();
}
