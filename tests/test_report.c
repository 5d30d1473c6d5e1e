/* prof_report: the table and the files of a report in one call, each the
   same bytes as the function it stands for; every part runs when one
   fails, and the first error comes back. Also PROF_THREAD_NAME. Writes
   under build/report/ (cwd = the repository root). */
#include "prof.h"
#include "check.h"

#include <errno.h>
#include <sys/stat.h>

#define DIR_ "build/report"

/* 1 when both files exist and hold the same bytes */
static int same_file(const char *a, const char *b) {
    size_t na = 0, nb = 0;
    char *x = check_read_file_n(a, &na), *y = check_read_file_n(b, &nb);
    int ok = x && y && na == nb && na > 0 && memcmp(x, y, na) == 0;
    free(x);
    free(y);
    return ok;
}

/* the stream's whole contents */
static char *stream_text(FILE *f) {
    long n = ftell(f);
    char *s;
    if (n < 0 || fseek(f, 0, SEEK_SET) != 0) return NULL;
    s = (char *)malloc((size_t)n + 1);
    if (s && fread(s, 1, (size_t)n, f) != (size_t)n) { free(s); return NULL; }
    if (s) s[n] = 0;
    return s;
}

static prof_events *record(void) {
    prof_config c;
    static char buf[4][64];
    int i;
    memset(&c, 0, sizeof c);
    c.profile_memory = 1;
    c.with_stack = PROF_STACK_SCOPES;
    c.log = check_log;
    if (!CHECK_EQ_INT(prof_start(&c), PROF_OK)) return NULL;
    PROF_THREAD_NAME("reporter");
    for (i = 0; i < 4; i++) {
        PROF_SCOPE("outer");
        {
            PROF_SCOPE("inner");
            prof_alloc(buf[i], sizeof buf[i]);
        }
        prof_dealloc(buf[i]);
    }
    return prof_stop();
}

static void test_report_matches_parts(prof_events *ev) {
    prof_report_options o;
    prof_table_options t;
    prof_averages *avg;
    char *want, *got;
    FILE *f = tmpfile();
    if (!CHECK(f != NULL)) return;
    memset(&o, 0, sizeof o);
    o.out = f;
    o.table.sort_by = "cpu_time_total";
    o.table.row_limit = 1;
    o.chrome_trace = DIR_ "/r.json";
    o.stacks = DIR_ "/r.stacks";
    o.stacks_merged = DIR_ "/r.merged";
    o.stacks_metric = "self_cpu_time_total";
    o.memory_timeline = DIR_ "/r.mem.json";
    check_log_reset();
    CHECK_EQ_INT(prof_report(ev, &o), PROF_OK);
    CHECK_EQ_INT(check_log_total(), 0);
    /* the table: prof_key_averages + prof_averages_table, same options */
    memset(&t, 0, sizeof t);
    t.sort_by = "cpu_time_total";
    t.row_limit = 1;
    avg = prof_key_averages(ev, NULL);
    want = prof_averages_table(avg, &t);
    got = stream_text(f);
    if (CHECK(want && got)) {
        CHECK_EQ_STR(got, want);
        CHECK(strstr(got, "outer") != NULL);
        CHECK(strstr(got, "inner") == NULL); /* row_limit 1, sorted by total */
    }
    prof_free_string(want);
    free(got);
    prof_averages_free(avg);
    fclose(f);
    /* the files: the bytes of the exporters themselves */
    {   /* the trace names its own path: written again at the same one */
        size_t n1 = 0, n2 = 0;
        char *first = check_read_file_n(DIR_ "/r.json", &n1), *again;
        CHECK_EQ_INT(prof_export_chrome_trace(ev, DIR_ "/r.json"), PROF_OK);
        again = check_read_file_n(DIR_ "/r.json", &n2);
        CHECK(first && again && n1 == n2 && n1 > 0 && memcmp(first, again, n1) == 0);
        free(first);
        free(again);
    }
    CHECK_EQ_INT(prof_export_stacks(ev, DIR_ "/d.stacks", "self_cpu_time_total"), PROF_OK);
    CHECK_EQ_INT(prof_export_stacks_merged(ev, DIR_ "/d.merged", "self_cpu_time_total"), PROF_OK);
    CHECK_EQ_INT(prof_export_memory_timeline(ev, DIR_ "/d.mem.json", PROF_DEVICE_CPU, 0), PROF_OK);
    CHECK(same_file(DIR_ "/r.stacks", DIR_ "/d.stacks"));
    CHECK(same_file(DIR_ "/r.merged", DIR_ "/d.merged"));
    CHECK(same_file(DIR_ "/r.mem.json", DIR_ "/d.mem.json"));
    {
        char *trace = check_read_file_n(DIR_ "/r.json", NULL);
        CHECK(trace && strstr(trace, "\"reporter\"") != NULL); /* PROF_THREAD_NAME */
        free(trace);
    }
}

/* Nothing asked but the table, with no options: the table to stdout, as
   prof_events' default table (a file stands in for stdout here). */
static void test_report_defaults(prof_events *ev) {
    prof_report_options o;
    prof_averages *avg = prof_key_averages(ev, NULL);
    char *want = prof_averages_table(avg, NULL), *got;
    FILE *f = tmpfile();
    if (!CHECK(f != NULL && want != NULL)) { if (f) fclose(f); prof_free_string(want); prof_averages_free(avg); return; }
    memset(&o, 0, sizeof o);
    o.out = f;
    CHECK_EQ_INT(prof_report(ev, &o), PROF_OK);
    got = stream_text(f);
    if (CHECK(got != NULL)) CHECK_EQ_STR(got, want);
    free(got);
    fclose(f);
    prof_free_string(want);
    prof_averages_free(avg);
    /* no table, no file: nothing to do, nothing written */
    memset(&o, 0, sizeof o);
    o.no_table = 1;
    CHECK_EQ_INT(prof_report(ev, &o), PROF_OK);
}

/* A failing part: the others still run, the first error comes back. */
static void test_report_errors(prof_events *ev) {
    prof_report_options o;
    FILE *f = tmpfile();
    if (!CHECK(f != NULL)) return;
    remove(DIR_ "/e.stacks");
    memset(&o, 0, sizeof o);
    o.out = f;
    o.table.sort_by = "no_such_key";
    o.chrome_trace = DIR_ "/no/such/dir/e.json";
    o.stacks = DIR_ "/e.stacks";
    check_log_reset();
    CHECK_EQ_INT(prof_report(ev, &o), PROF_E_UNKNOWN_KEY);
    CHECK(check_log_count(PROF_E_UNKNOWN_KEY) == 1);
    CHECK(check_log_count(PROF_E_IO) == 1);
    CHECK(same_file(DIR_ "/e.stacks", DIR_ "/d.stacks")); /* written all the same */
    fclose(f);
    /* the trace first when the table is fine */
    memset(&o, 0, sizeof o);
    o.no_table = 1;
    o.chrome_trace = DIR_ "/no/such/dir/e.json";
    CHECK_EQ_INT(prof_report(ev, &o), PROF_E_IO);
    /* no event list (prof_stop failed): an error, nothing else */
    check_log_reset();
    CHECK_EQ_INT(prof_report(NULL, &o), PROF_E_ARG);
    CHECK(check_log_has(PROF_E_ARG, "prof_report"));
}

/* PROF_THREAD_NAME: set, set again, changed; a long name kept whole. */
static void test_thread_name(void) {
    prof_config c;
    prof_events *ev;
    prof_event e;
    char long_name[100];
    memset(&c, 0, sizeof c);
    c.log = check_log;
    memset(long_name, 'x', sizeof long_name - 1);
    long_name[sizeof long_name - 1] = 0;
    if (!CHECK_EQ_INT(prof_start(&c), PROF_OK)) return;
    PROF_THREAD_NAME("first");
    PROF_THREAD_NAME("first");
    { PROF_SCOPE("a"); }
    ev = prof_stop();
    if (CHECK(ev && prof_events_count(ev) == 1 && prof_events_get(ev, 0, &e) == PROF_OK))
        CHECK_EQ_STR(e.thread_name, "first");
    prof_events_free(ev);
    if (!CHECK_EQ_INT(prof_start(&c), PROF_OK)) return;
    PROF_THREAD_NAME(long_name);
    PROF_THREAD_NAME(long_name);
    { PROF_SCOPE("b"); }
    ev = prof_stop();
    if (CHECK(ev && prof_events_count(ev) == 1 && prof_events_get(ev, 0, &e) == PROF_OK))
        CHECK_EQ_STR(e.thread_name, long_name);
    prof_events_free(ev);
    if (!CHECK_EQ_INT(prof_start(&c), PROF_OK)) return;
    PROF_THREAD_NAME("second");
    { PROF_SCOPE("c"); }
    ev = prof_stop();
    if (CHECK(ev && prof_events_count(ev) == 1 && prof_events_get(ev, 0, &e) == PROF_OK))
        CHECK_EQ_STR(e.thread_name, "second");
    prof_events_free(ev);
}

int main(void) {
    prof_events *ev;
    prof_set_log(check_log, NULL);
    if (mkdir("build", 0777) != 0 && errno != EEXIST) return 1;
    if (mkdir(DIR_, 0777) != 0 && errno != EEXIST) return 1;
    ev = record();
    if (CHECK(ev != NULL)) {
        test_report_matches_parts(ev);
        test_report_defaults(ev);
        test_report_errors(ev);
        prof_events_free(ev);
    }
    test_thread_name();
    prof_shutdown();
    return check_report();
}
