/* The exporters' writer against hostile outputs: a pipe whose reader is
   gone (every exporter, small and large traces: no SIGPIPE may reach the
   host, the export fails with PROF_E_IO and says why), error messages for
   paths of any length (the reason is kept), and the nesting of the JSON
   trace's ts/dur as a parser reads them (doubles).

   Files go to build/export_io/ (cwd = repo root). */
#define PROF_IMPLEMENTATION
#include "prof.h"
#include "check.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#define OUT "build/export_io"

typedef prof_result (*export_fn)(prof_events *ev, const char *path);
static prof_result ex_trace(prof_events *ev, const char *path) { return prof_export_chrome_trace(ev, path); }
static prof_result ex_stacks(prof_events *ev, const char *path) { return prof_export_stacks(ev, path, "self_cpu_time_total"); }
static prof_result ex_merged(prof_events *ev, const char *path) { return prof_export_stacks_merged(ev, path, "self_cpu_time_total"); }
static prof_result ex_timeline(prof_events *ev, const char *path) { return prof_export_memory_timeline(ev, path, PROF_DEVICE_CPU, 0); }
static const struct { const char *name; export_fn fn; } EXPORTERS[] = {
    { "prof_export_chrome_trace", ex_trace },
    { "prof_export_stacks", ex_stacks },
    { "prof_export_stacks_merged", ex_merged },
    { "prof_export_memory_timeline", ex_timeline },
};
#define N_EXPORTERS (sizeof EXPORTERS / sizeof EXPORTERS[0])

/* n events on two threads, each with a two-frame stack (the memory
   timeline of such a list is short, but any byte into the pipe fails). */
static prof_events *build(size_t n) {
    prof_events *ev = prof_events_create();
    size_t i;
    if (!ev) return NULL;
    for (i = 0; i < n; i++) {
        prof_event_desc d;
        const char *st[2];
        char name[48];
        snprintf(name, sizeof name, "op %u with a longer name", (unsigned)(i % 97));
        st[0] = name;
        st[1] = "root frame of the stack";
        memset(&d, 0, sizeof d);
        d.name = name;
        d.thread = 1 + i % 2;
        d.start_ns = (int64_t)i * 3000;
        d.end_ns = d.start_ns + 2000 + (int64_t)(i % 7) * 100;
        d.stack = st;
        d.stack_depth = 2;
        if (!CHECK(prof_events_add(ev, &d) >= 0)) { prof_events_free(ev); return NULL; }
    }
    return ev;
}

static int sigpipe_pending(void) {
    sigset_t p;
    return sigpending(&p) == 0 && sigismember(&p, SIGPIPE) == 1;
}

/* Exporting into a pipe whose reader closed: PROF_E_IO with EPIPE's text,
   the host alive (SIGPIPE's default action would end this program), no
   SIGPIPE left pending, the thread's signal mask as it was. */
static void test_closed_pipe(void) {
    static const size_t sizes[] = { 50, 60000 }; /* one buffer; past the writer thread's start */
    size_t s, k;
    for (s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        prof_events *ev = build(sizes[s]);
        if (!ev) return;
        for (k = 0; k < N_EXPORTERS; k++) {
            int fds[2];
            char path[64];
            prof_result r;
            sigset_t before, after;
            if (!CHECK(pipe(fds) == 0)) break;
            close(fds[0]);
            snprintf(path, sizeof path, "/dev/fd/%d", fds[1]);
            pthread_sigmask(SIG_SETMASK, NULL, &before);
            check_log_reset();
            r = EXPORTERS[k].fn(ev, path);
            pthread_sigmask(SIG_SETMASK, NULL, &after);
            CHECK_MSG(r == PROF_E_IO, "%s into a closed pipe (%zu events): %d (%s)", EXPORTERS[k].name, sizes[s], (int)r, prof_result_string(r));
            CHECK_MSG(check_log_has(PROF_E_IO, strerror(EPIPE)), "%s: no message with '%s' (last error: %s)", EXPORTERS[k].name, strerror(EPIPE), prof_last_error());
            CHECK_MSG(!sigpipe_pending(), "%s left a SIGPIPE pending", EXPORTERS[k].name);
            CHECK_MSG(sigismember(&before, SIGPIPE) == sigismember(&after, SIGPIPE), "%s changed the signal mask", EXPORTERS[k].name);
            close(fds[1]);
        }
        prof_events_free(ev);
    }
    /* a SIGPIPE the host has pending (blocked) before the export is its
       own: the export must not take it away */
    {
        sigset_t set, old;
        int fds[2];
        char path[64];
        prof_events *ev = build(50);
        sigemptyset(&set);
        sigaddset(&set, SIGPIPE);
        pthread_sigmask(SIG_BLOCK, &set, &old);
        raise(SIGPIPE);
        if (ev && CHECK(pipe(fds) == 0)) {
            close(fds[0]);
            snprintf(path, sizeof path, "/dev/fd/%d", fds[1]);
            CHECK_EQ_INT(prof_export_chrome_trace(ev, path), PROF_E_IO);
            CHECK_MSG(sigpipe_pending(), "the host's pending SIGPIPE was taken");
            close(fds[1]);
        }
        {
            struct timespec zero = { 0, 0 };
            while (sigtimedwait(&set, NULL, &zero) == SIGPIPE) {}
        }
        pthread_sigmask(SIG_SETMASK, &old, NULL);
        prof_events_free(ev);
    }
}

/* A path of 4000 bytes in a directory that does not exist: the message
   still ends with the reason (strerror(ENOENT)), in the log and in
   prof_last_error. */
static void test_long_path(void) {
    size_t k, n = 4000;
    char *path = (char *)malloc(n + 1);
    prof_events *ev = build(10);
    const char *reason = strerror(ENOENT);
    if (!CHECK(path && ev)) { free(path); prof_events_free(ev); return; }
    memcpy(path, OUT "/no/such/dir/", sizeof(OUT "/no/such/dir/") - 1);
    for (k = sizeof(OUT "/no/such/dir/") - 1; k < n; k++) path[k] = (char)('a' + k % 26);
    path[n] = 0;
    for (k = 0; k < N_EXPORTERS; k++) {
        check_log_reset();
        CHECK_EQ_INT(EXPORTERS[k].fn(ev, path), PROF_E_IO);
        CHECK_MSG(check_log_has(PROF_E_IO, reason), "%s: the log lost the reason '%s'", EXPORTERS[k].name, reason);
        CHECK_MSG(strstr(prof_last_error(), reason) != NULL, "%s: prof_last_error lost the reason: %s", EXPORTERS[k].name, prof_last_error());
        CHECK_MSG(strncmp(prof_last_error(), EXPORTERS[k].name, strlen(EXPORTERS[k].name)) == 0, "%s: the message lost its start: %.60s", EXPORTERS[k].name, prof_last_error());
        CHECK(strlen(prof_last_error()) < 512);
    }
    free(path);
    prof_events_free(ev);
}

int main(void) {
    prof_set_log(check_log, NULL);
    CHECK(mkdir("build", 0755) == 0 || errno == EEXIST);
    CHECK(mkdir(OUT, 0755) == 0 || errno == EEXIST);
    test_closed_pipe();
    test_long_path();
    prof_shutdown();
    return check_report();
}
