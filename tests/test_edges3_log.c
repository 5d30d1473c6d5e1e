/* prof.h's messages and prof_report, at their edges:
   - a message of exactly 512 bytes (one more than the buffer holds) is cut
     in the middle as a longer one is: its first 160 bytes, " ... ", its
     end; the cut never splits a UTF-8 sequence, at either side;
   - warnings do not change prof_last_error (errors only);
   - the log callback gets its user_data, and errno is as it was after a
     call that logged, whatever the callback did to it;
   - without a callback, a warning goes to stderr as "prof.h warning: ";
   - prof_result_string(PROF_RESULT_COUNT) is "unknown result";
   - a table call that fails on its options returns their code
     (PROF_E_UNKNOWN_KEY for an unknown sort key);
   - prof_report: the table goes to stdout when out is NULL; the first
     failing part's code is the result; the stacks, merged stacks and pprof
     files use stacks_metric (default self_cpu_time_total) and the memory
     timeline memory_device_index, as the exporters called alone.
   Found by mutation testing (third pass). */
#include "prof.h"
#include "check.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void *seen_user;
static void log_user(prof_log_level level, prof_result code, const char *message, void *user) {
    (void)level; (void)code; (void)message;
    seen_user = user;
    errno = EIO; /* a callback that changes errno */
}

/* The message prof_events_add gives for an event named `name` that ends at
   1 ns and starts at 2, cut as documented (head 160 bytes moved back, tail
   moved on, off UTF-8 continuation bytes). */
static void expected_cut(const char *name, char *out) {
    char full[2048];
    int len = snprintf(full, sizeof full, "prof_events_add: event '%s' ends (1 ns) before it starts (2 ns)", name);
    size_t head = 160, from;
    if (len < 512) { strcpy(out, full); return; }
    from = (size_t)len - (511 - 160 - 5);
    while (head > 0 && ((unsigned char)full[head] & 0xC0) == 0x80) head--;
    while (((unsigned char)full[from] & 0xC0) == 0x80) from++;
    memcpy(out, full, head);
    memcpy(out + head, " ... ", 5);
    strcpy(out + head + 5, full + from);
}
static void check_message(const char *name) {
    prof_event_desc d;
    prof_events *e = prof_events_create();
    char want[1024];
    memset(&d, 0, sizeof d);
    d.name = name;
    d.start_ns = 2;
    d.end_ns = 1;
    CHECK_EQ_INT(prof_events_add(e, &d), -1);
    expected_cut(name, want);
    CHECK_EQ_STR(prof_last_error(), want);
    CHECK(strlen(prof_last_error()) <= 511);
    prof_events_free(e);
}

static int same_file(const char *a, const char *b) {
    size_t na, nb;
    char *x = check_read_file_n(a, &na), *y = check_read_file_n(b, &nb);
    int same = x && y && na == nb && memcmp(x, y, na) == 0 && na > 0;
    free(x);
    free(y);
    return same;
}

int main(void) {
    char name[600];
    int k, fd, saved;
    prof_events *e;
    prof_report_options o;
    prof_table_options to;
    mkdir("build", 0777);
    prof_set_log(check_log, NULL);

    /* 61 bytes around the name: a name of 451 makes the message 512 */
    memset(name, 'a', 451); name[451] = 0;
    check_message(name);
    memset(name, 'b', 500); name[500] = 0;
    check_message(name);
    /* two-byte characters across the cut (byte 160) and the tail's start */
    for (k = 0; k < 250; k++) { name[2 * k] = (char)0xC3; name[2 * k + 1] = (char)0xA9; }
    name[500] = 0;
    check_message(name);
    for (k = 0; k < 499; k++) name[k] = 'x';
    name[0] = 'x';
    for (k = 1; k + 1 < 500; k += 2) { name[k] = (char)0xC3; name[k + 1] = (char)0xA9; }
    name[499] = 0;
    check_message(name);

    /* warnings leave prof_last_error alone */
    CHECK_EQ_INT(prof_step(), PROF_E_STATE);
    if (CHECK_EQ_INT(prof_start(NULL), PROF_OK)) {
        PROF_BEGIN("left_open");
        check_log_reset();
        prof_events_free(prof_stop());
        CHECK(check_log_count(PROF_E_OPEN_SCOPES) >= 1);
    }
    CHECK(strncmp(prof_last_error(), "prof_step", 9) == 0);

    /* user_data and errno */
    prof_set_log(log_user, &saved);
    errno = ERANGE;
    CHECK_EQ_INT(prof_events_add(NULL, NULL), -1);
    CHECK_EQ_INT(errno, ERANGE);
    CHECK(seen_user == &saved);

    /* stderr without a callback */
    prof_set_log(NULL, NULL);
    fflush(stderr);
    saved = dup(2);
    fd = open("build/test_edges3_log.err", O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (CHECK(fd >= 0 && saved >= 0)) {
        char *t;
        dup2(fd, 2);
        close(fd);
        if (prof_start(NULL) == PROF_OK) {
            PROF_BEGIN("left_open_2");
            prof_events_free(prof_stop());
        }
        CHECK_EQ_INT(prof_step(), PROF_E_STATE);
        fflush(stderr);
        dup2(saved, 2);
        close(saved);
        t = check_read_file("build/test_edges3_log.err");
        if (CHECK(t != NULL)) {
            CHECK(strstr(t, "prof.h warning: ") != NULL);
            CHECK(strstr(t, "prof.h error: prof_step") != NULL);
            CHECK(strstr(t, "prof.h info: ") == NULL);
            free(t);
        }
    }
    prof_set_log(check_log, NULL);
    CHECK_EQ_STR(prof_result_string(PROF_RESULT_COUNT), "unknown result");

    /* a list: parent (0-100 us) around child (10-60 us), memory on cuda:1 */
    e = prof_events_create();
    {
        static const char *const st_child[] = { "child", "parent" }, *const st_parent[] = { "parent" };
        check_add_event_stack(e, "parent", 1, 0, 100000, st_parent, 1);
        check_add_event_stack(e, "child", 1, 10000, 60000, st_child, 2);
        CHECK_EQ_INT(prof_events_add_memory(e, 1, 20000, 1 << 20, PROF_DEVICE_CUDA, 1), PROF_OK);
        CHECK_EQ_INT(prof_events_add_memory(e, 1, 30000, 1 << 10, PROF_DEVICE_CUDA, 0), PROF_OK);
        CHECK_EQ_INT(prof_events_set_device(e, "cuda"), PROF_OK);
        CHECK_EQ_INT(prof_events_append_kernel(e, 1, "kern", 0, 30000), PROF_OK);
    }
    memset(&to, 0, sizeof to);
    to.sort_by = "no_such_key";
    CHECK_EQ_INT(prof_events_print_table(stdout, e, &to), PROF_E_UNKNOWN_KEY);

    /* the table on stdout */
    fflush(stdout);
    saved = dup(1);
    fd = open("build/test_edges3_log.out", O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (CHECK(fd >= 0 && saved >= 0)) {
        char *t;
        dup2(fd, 1);
        close(fd);
        memset(&o, 0, sizeof o);
        CHECK_EQ_INT(prof_report(e, &o), PROF_OK);
        fflush(stdout);
        dup2(saved, 1);
        close(saved);
        t = check_read_file("build/test_edges3_log.out");
        if (CHECK(t != NULL)) {
            CHECK(strstr(t, "Self CPU time total") != NULL);
            free(t);
        }
    }

    memset(&o, 0, sizeof o);
    o.no_table = 1;
    o.stacks = "build/e3_stacks.txt";
    o.stacks_merged = "build/e3_merged.txt";
    o.memory_timeline = "build/e3_timeline.json";
    o.memory_device = PROF_DEVICE_CUDA;
    o.memory_device_index = 1;
    CHECK_EQ_INT(prof_report(e, &o), PROF_OK);
    CHECK_EQ_INT(prof_export_stacks(e, "build/e3_stacks_ref.txt", "self_cpu_time_total"), PROF_OK);
    CHECK_EQ_INT(prof_export_stacks_merged(e, "build/e3_merged_ref.txt", "self_cpu_time_total"), PROF_OK);
    CHECK_EQ_INT(prof_export_memory_timeline(e, "build/e3_timeline_ref.json", PROF_DEVICE_CUDA, 1), PROF_OK);
    CHECK(same_file("build/e3_stacks.txt", "build/e3_stacks_ref.txt"));
    CHECK(same_file("build/e3_merged.txt", "build/e3_merged_ref.txt"));
    CHECK(same_file("build/e3_timeline.json", "build/e3_timeline_ref.json"));
    memset(&o, 0, sizeof o);
    o.no_table = 1;
    o.pprof = "build/e3.pb.gz";
    o.stacks_metric = "self_device_time_total";
    CHECK_EQ_INT(prof_report(e, &o), PROF_OK);
    CHECK_EQ_INT(prof_export_pprof(e, "build/e3_ref.pb.gz", "self_device_time_total"), PROF_OK);
    CHECK(same_file("build/e3.pb.gz", "build/e3_ref.pb.gz"));

    /* two parts fail: the first one's code */
    memset(&o, 0, sizeof o);
    o.no_table = 1;
    o.chrome_trace = "build/no_such_dir/t.json";
    o.stacks = "build/e3_bad_metric.txt";
    o.stacks_metric = "no_such_metric";
    CHECK_EQ_INT(prof_report(e, &o), PROF_E_IO);
    prof_events_free(e);
    return check_report();
}
