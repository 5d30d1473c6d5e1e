/* A process whose descriptor 2 is closed (a daemon that closed 0-2 and
   did not reopen them, a service manager that started it without
   stderr): the next file opened gets descriptor 2. prof.h's exports open
   their temporary file with the lowest free descriptor, so the export's
   own file becomes "stderr", and a message that any other thread logs
   meanwhile through the default log (stderr: warnings of prof_stop or
   prof_start, an export's error) is written into the middle of the
   trace - measured: a thread that logged an error every millisecond put
   111 "prof.h error: ..." lines into a 1M-event trace, which no longer
   parses. prof.h cannot keep the host's own files from that, but its
   own are its to place: F_DUPFD_CLOEXEC to a descriptor of 3 or more (as
   it does for /dev/stdout) keeps them out of the standard descriptors'
   way.
   Deterministic form: descriptors 0 and 1 open, 2 closed (in a child);
   this test defines close() (see test_probe24D_close_eintr) and, at the
   export's close of its file, has another thread log one error through
   the default log; the trace must stay valid JSON, with no message in
   it. */
#define _GNU_SOURCE 1
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <unistd.h>

static int g_active;
static void *log_one(void *arg);
int close(int fd) {
    int (*real)(int);
    int fl = fcntl(fd, F_GETFL); /* the output file: open for writing */
    *(void **)&real = dlsym(RTLD_NEXT, "close");
    if (!real) return -1;
    if (fl >= 0 && (fl & O_ACCMODE) != O_RDONLY && __atomic_exchange_n(&g_active, 0, __ATOMIC_SEQ_CST)) {
        pthread_t th; /* another thread logs while the export's file is open */
        if (pthread_create(&th, NULL, log_one, NULL) == 0) pthread_join(th, NULL);
    }
    return real(fd);
}

#include "prof.h"
#include "check.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void *log_one(void *arg) {
    (void)arg;
    prof_export_chrome_trace(NULL, "elsewhere.json"); /* "prof.h error: ... the event list is NULL" to stderr */
    return NULL;
}

static char g_path[128];
static prof_events *g_ev;
/* 'y' good; 'e' the export failed; 'i' the trace is no JSON; 'm' a message in it; 'a' close not reached */
static char child(void) {
    char *text;
    prof_result r;
    prof_set_log(NULL, NULL); /* the default: stderr */
    close(2);
    __atomic_store_n(&g_active, 1, __ATOMIC_SEQ_CST);
    r = prof_export_chrome_trace(g_ev, g_path);
    if (__atomic_load_n(&g_active, __ATOMIC_SEQ_CST)) return 'a';
    if (r != PROF_OK) return 'e';
    text = check_read_file(g_path);
    if (!text) return 'e';
    if (strstr(text, "prof.h error")) { free(text); return 'm'; }
    if (!prof_json_valid(text)) { free(text); return 'i'; }
    free(text);
    return 'y';
}
static void release(void) {}

int main(void) {
    char dir[] = "/tmp/prof_probe26C_XXXXXX";
    prof_event_desc d;
    int status = 0;
    char got;
    prof_set_log(check_log, NULL);
    g_ev = prof_events_create();
    if (!CHECK(g_ev && mkdtemp(dir) != NULL)) return check_report();
    snprintf(g_path, sizeof g_path, "%s/trace.json", dir);
    memset(&d, 0, sizeof d);
    d.name = "op";
    d.thread = 1;
    d.start_ns = 1000;
    d.end_ns = 5000;
    CHECK(prof_events_add(g_ev, &d) >= 0);
    got = check_fork_verdict(child, release, &status);
    CHECK_MSG(got == 'y', "export with descriptor 2 closed while another thread logs: verdict '%c' (m: the message is inside the trace; i: no JSON; e: the export failed; a: no close seen; 0: the child died, status %d)", got ? got : '0', status);
    unlink(g_path);
    rmdir(dir);
    prof_events_free(g_ev);
    return check_report();
}
