/* Kineto's fwdbwd arrows: PyTorch links each backward op (a Fwd thread id
   other than 0) to its forward op, reading the ops in end order: the op of
   that sequence number on that thread begun last among those ended
   before, unless an earlier backward op took it; and writes a flow from
   one to the other ({"ph": "s"/"f", "cat": "fwdbwd"}): Perfetto and
   chrome://tracing draw the arrow, HTA's add_fwd_bwd_links reads it.
   prof.h kept the sequence numbers and thread ids in the args but wrote
   no arrow.
   A hand-made list, out of order, on threads 1 (forward) and 2
   (backward), checks the rule's every branch in the JSON trace's exact
   lines; the Perfetto trace must carry the same arrows
   (tests/export/check_perfetto.py, which pairs them by category and id).
   A second list repeats its names, so that the Perfetto writer's fast
   path (a site already seen) meets ops that carry arrows. */
#define _GNU_SOURCE 1
#include "prof.h"
#include "check.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static prof_events *g_ev;
static int64_t add(const char *name, uint64_t thread, int64_t start_us, int64_t end_us, int64_t seq, int has_fwd, uint64_t fwd) {
    prof_event_desc d;
    memset(&d, 0, sizeof d);
    d.name = name;
    d.thread = thread;
    d.start_ns = start_us * 1000;
    d.end_ns = end_us * 1000;
    if (seq >= 0) { d.set |= PROF_EVENT_SEQUENCE_NR; d.sequence_nr = seq; }
    if (has_fwd) { d.set |= PROF_EVENT_FWD_THREAD; d.fwd_thread = fwd; }
    return prof_events_add(g_ev, &d);
}

/* The flow lines of the trace at path (those with "fwdbwd"), joined. */
static char *flow_lines(const char *path) {
    size_t n = 0, k = 0;
    char *text = check_read_file_n(path, &n), *out = (char *)calloc(n + 1, 1), *line;
    if (!text || !out) { free(text); free(out); return NULL; }
    for (line = strtok(text, "\n"); line; line = strtok(NULL, "\n"))
        if (strstr(line, "\"fwdbwd\"")) k += (size_t)sprintf(out + k, "%s\n", line);
    free(text);
    return out;
}

/* tests/export/check_perfetto.py on the two traces: the same arrows
   between the same slices, each id on exactly two slices */
static void check_perfetto(const char *json, const char *pft, const char *dir) {
    char cmd[800];
    if (!CHECK_MSG(system("command -v python3 >/dev/null 2>&1") == 0, "python3 not found: tests/export/check_perfetto.py needs it (Debian: apt-get install python3)")) return;
    snprintf(cmd, sizeof cmd, "python3 tests/export/check_perfetto.py %s %s > %s/check.log 2>&1", json, pft, dir);
    if (!CHECK_EQ_INT(system(cmd), 0)) {
        snprintf(cmd, sizeof cmd, "tail -20 %s/check.log >&2", dir);
        if (system(cmd) != 0) {}
    }
}

int main(void) {
    char dir[] = "/tmp/prof_fwdbwd_XXXXXX", json[256], pft[256], want[4096], cmd[700];
    char *got;
    int pid = (int)getpid(), w = 0;
    prof_set_log(check_log, NULL);
    if (!CHECK(mkdtemp(dir) != NULL) || !CHECK((g_ev = prof_events_create()) != NULL)) return check_report();
    /* added out of start order: the rule reads the list in start order */
    add("BwdC", 2, 500, 510, 7, 1, 1);      /* seq 7: its forward is fwd7b (begun last before it), not fwd7a */
    add("fwd7a", 1, 10, 20, 7, 0, 0);
    add("fwd7b", 1, 30, 40, 7, 1, 0);       /* Fwd thread id 0: a forward op */
    add("fwd7late", 1, 600, 610, 7, 0, 0);  /* begun after the backward op: not its forward */
    add("fwd9other", 3, 50, 60, 9, 0, 0);   /* seq 9 on another thread than the Fwd thread id */
    add("BwdD", 2, 520, 530, 9, 1, 1);      /* ... so no arrow */
    add("fwd11", 1, 70, 80, 11, 0, 0);
    add("BwdE1", 2, 540, 550, 11, 1, 1);    /* takes fwd11, which is let go: */
    add("fwd11c", 1, 65, 555, 11, 0, 0);    /* held next (begun before fwd11, but fwd11 went) */
    add("BwdE2", 2, 560, 570, 11, 1, 1);    /* takes fwd11c */
    add("BwdE3", 2, 580, 585, 11, 1, 1);    /* none left: no arrow */
    add("fwd15", 1, 700, 900, 15, 0, 0);    /* ends after its backward op: not its forward */
    add("Bwd15", 2, 750, 800, 15, 1, 1);
    add("fwd17a", 1, 120, 130, 17, 0, 0);   /* held: begun after fwd17b, which ends later */
    add("fwd17b", 1, 110, 140, 17, 0, 0);
    add("Bwd17", 2, 600, 605, 17, 1, 1);
    add("BwdNone", 2, 590, 595, 13, 1, 1);  /* no forward op of seq 13 */
    add("plain", 1, 90, 100, -1, 0, 0);
    snprintf(json, sizeof json, "%s/t.json", dir);
    snprintf(pft, sizeof pft, "%s/t.pftrace", dir);
    CHECK_EQ_INT(prof_export_chrome_trace(g_ev, json), PROF_OK);
    CHECK_EQ_INT(prof_export_perfetto(g_ev, pft), PROF_OK);
    w += snprintf(want + w, sizeof want - (size_t)w,
                  "  {\"ph\": \"s\", \"id\": 1, \"pid\": %d, \"tid\": 1, \"ts\": 30.000, \"cat\": \"fwdbwd\", \"name\": \"fwdbwd\"},\n"
                  "  {\"ph\": \"f\", \"id\": 1, \"pid\": %d, \"tid\": 2, \"ts\": 500.000, \"cat\": \"fwdbwd\", \"name\": \"fwdbwd\", \"bp\": \"e\"},\n", pid, pid);
    w += snprintf(want + w, sizeof want - (size_t)w,
                  "  {\"ph\": \"s\", \"id\": 2, \"pid\": %d, \"tid\": 1, \"ts\": 70.000, \"cat\": \"fwdbwd\", \"name\": \"fwdbwd\"},\n"
                  "  {\"ph\": \"f\", \"id\": 2, \"pid\": %d, \"tid\": 2, \"ts\": 540.000, \"cat\": \"fwdbwd\", \"name\": \"fwdbwd\", \"bp\": \"e\"},\n", pid, pid);
    w += snprintf(want + w, sizeof want - (size_t)w,
                  "  {\"ph\": \"s\", \"id\": 3, \"pid\": %d, \"tid\": 1, \"ts\": 65.000, \"cat\": \"fwdbwd\", \"name\": \"fwdbwd\"},\n"
                  "  {\"ph\": \"f\", \"id\": 3, \"pid\": %d, \"tid\": 2, \"ts\": 560.000, \"cat\": \"fwdbwd\", \"name\": \"fwdbwd\", \"bp\": \"e\"},\n", pid, pid);
    snprintf(want + w, sizeof want - (size_t)w,
             "  {\"ph\": \"s\", \"id\": 4, \"pid\": %d, \"tid\": 1, \"ts\": 120.000, \"cat\": \"fwdbwd\", \"name\": \"fwdbwd\"},\n"
             "  {\"ph\": \"f\", \"id\": 4, \"pid\": %d, \"tid\": 2, \"ts\": 600.000, \"cat\": \"fwdbwd\", \"name\": \"fwdbwd\", \"bp\": \"e\"},\n", pid, pid);
    got = flow_lines(json);
    if (!CHECK(got && strcmp(got, want) == 0)) fprintf(stderr, "the trace's fwdbwd flows:\n%s\nwanted:\n%s", got ? got : "(none)", want);
    free(got);
    check_perfetto(json, pft, dir);
    /* names repeated: 200 arrows, each on exactly two slices of the
       Perfetto trace (check_perfetto.py), also where the writer's fast
       path takes the op */
    prof_events_free(g_ev);
    CHECK((g_ev = prof_events_create()) != NULL);
    {
        int k;
        size_t nl = 0;
        const char *q;
        for (k = 0; k < 200; k++) {
            add("f", 1, (int64_t)k * 100, (int64_t)k * 100 + 10, k, 0, 0);
            add("b", 2, (int64_t)k * 100 + 50, (int64_t)k * 100 + 60, k, 1, 1);
        }
        CHECK_EQ_INT(prof_export_chrome_trace(g_ev, json), PROF_OK);
        CHECK_EQ_INT(prof_export_perfetto(g_ev, pft), PROF_OK);
        got = flow_lines(json);
        for (q = got; q && (q = strstr(q, "\"ph\": \"s\"")) != NULL; q++) nl++;
        CHECK_EQ_INT(nl, 200);
        free(got);
        check_perfetto(json, pft, dir);
    }
    /* a list without backward ops: no fwdbwd flow at all */
    prof_events_free(g_ev);
    CHECK((g_ev = prof_events_create()) != NULL);
    add("fwd", 1, 10, 20, 5, 0, 0);
    add("other", 2, 30, 40, 5, 1, 0);
    CHECK_EQ_INT(prof_export_chrome_trace(g_ev, json), PROF_OK);
    got = flow_lines(json);
    CHECK(got && got[0] == 0);
    free(got);
    prof_events_free(g_ev);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0) {}
    return check_report();
}
