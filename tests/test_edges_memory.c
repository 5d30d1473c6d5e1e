/* Memory records at two edges:
   - a CPU memory record outside every CPU event becomes a "[memory]" row
     (PyTorch's out-of-scope memory FunctionEvent, start == end), and the
     list is in PyTorch's order (sort key [start, -end]): a device event
     that starts at the same time, and ends later, comes BEFORE the row.
     Checked in prof_events_get's order, the table's rows and the JSON
     trace's External ids (which follow the list);
   - a block reported allocated again at the same address while live (a
     realloc in place, two layers of hooks) replaces itself: the trace's
     "Total Allocated" of each [memory] record is 100, then 200 (not 300),
     then 0 after the one free; the memory timeline's points are 100, 200,
     0. Its "Total Reserved" is 0 throughout, as PyTorch's CPU allocator
     reports it (it was the allocated total, which PyTorch writes only for
     a caching device allocator's reserved bytes). */
#define _GNU_SOURCE 1
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "prof.h"
#include "check.h"

static char g_dir[] = "/tmp/prof_edges_memory_XXXXXX";

/* The values of every `"key": N` in text, in order; returns how many. */
static int values_of(const char *text, const char *key, long long *out, int max) {
    char pat[64];
    const char *s = text;
    int n = 0;
    snprintf(pat, sizeof pat, "\"%s\": ", key);
    while ((s = strstr(s, pat)) != NULL && n < max) {
        s += strlen(pat);
        out[n++] = strtoll(s, NULL, 10);
    }
    return n;
}

static void memory_row_after_kernel(void) {
    prof_events *e = prof_events_create();
    prof_event_desc d;
    prof_table_options o;
    static const char *const names[4] = { "A", "kernel", "[memory]", "B" };
    static const long long mem[4] = { 110, 0, 7, 1 };
    char path[256], *t;
    size_t i;
    memset(&o, 0, sizeof o);
    prof_events_set_flags(e, 1, 0);
    memset(&d, 0, sizeof d);
    d.thread = 1;
    d.name = "A"; d.start_ns = 1000; d.end_ns = 2000;
    CHECK(prof_events_add(e, &d) >= 0);
    d.name = "kernel"; d.device_type = PROF_DEVICE_CUDA; d.start_ns = 3000; d.end_ns = 3500;
    CHECK(prof_events_add(e, &d) >= 0);
    d.device_type = PROF_DEVICE_CPU;
    d.name = "B"; d.start_ns = 5000; d.end_ns = 6000;
    CHECK(prof_events_add(e, &d) >= 0);
    CHECK_EQ_INT(prof_events_add_memory(e, 1, 1000, 100, PROF_DEVICE_CPU, 0), PROF_OK); /* at A's start: A's */
    CHECK_EQ_INT(prof_events_add_memory(e, 1, 2000, 10, PROF_DEVICE_CPU, 0), PROF_OK);  /* at A's end: A's */
    CHECK_EQ_INT(prof_events_add_memory(e, 1, 3000, 7, PROF_DEVICE_CPU, 0), PROF_OK);   /* at the kernel's start: a row */
    CHECK_EQ_INT(prof_events_add_memory(e, 1, 5500, 1, PROF_DEVICE_CPU, 0), PROF_OK);   /* inside B */
    if (CHECK_EQ_INT(prof_events_count(e), 4)) {
        for (i = 0; i < 4; i++) {
            prof_event ev;
            if (!CHECK_EQ_INT(prof_events_get(e, i, &ev), PROF_OK)) continue;
            CHECK_EQ_STR(ev.name, names[i]);
            CHECK_EQ_INT(ev.cpu_memory_usage, mem[i]);
            CHECK_EQ_INT(ev.parent, -1);
        }
    }
    t = prof_events_table(e, &o);
    CHECK_EQ_STR(t,
                 "------------  ------------  ------------  ------------  ------------  ------------  ------------  ------------  ------------  \n"
                 "        Name    Self CPU %      Self CPU   CPU total %     CPU total  CPU time avg       CPU Mem  Self CPU Mem    # of Calls  \n"
                 "------------  ------------  ------------  ------------  ------------  ------------  ------------  ------------  ------------  \n"
                 "           A        50.00%       1.000us        50.00%       1.000us       1.000us         110 B         110 B             1  \n"
                 "      kernel         0.00%       0.000us         0.00%       0.000us       0.000us           0 B           0 B             1  \n"
                 "    [memory]         0.00%       0.000us         0.00%       0.000us       0.000us           7 B           7 B             1  \n"
                 "           B        50.00%       1.000us        50.00%       1.000us       1.000us           1 B           1 B             1  \n"
                 "------------  ------------  ------------  ------------  ------------  ------------  ------------  ------------  ------------  \n"
                 "Self CPU time total: 2.000us\n");
    prof_free_string(t);
    snprintf(path, sizeof path, "%s/row.json", g_dir);
    if (CHECK_EQ_INT(prof_export_chrome_trace(e, path), PROF_OK)) {
        char *text = check_read_file(path);
        if (CHECK(text != NULL)) {
            CHECK(strstr(text, "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"kernel\", \"pid\": 0, \"tid\": 1, \"ts\": 3.000, \"dur\": 0.500, \"args\": {\"External id\": 2}}") != NULL);
            CHECK(strstr(text, "\"name\": \"B\", ") != NULL && strstr(strstr(text, "\"name\": \"B\", "), "\"args\": {\"External id\": 4, \"Ev Idx\": 3}}") != NULL);
            free(text);
        }
        unlink(path);
    }
    snprintf(path, sizeof path, "%s/row_timeline.json", g_dir);
    if (CHECK_EQ_INT(prof_export_memory_timeline(e, path, PROF_DEVICE_CPU, 0), PROF_OK)) {
        char *text = check_read_file(path);
        CHECK_EQ_STR(text, "[[1.000, 2.000, 3.000, 5.500], [[100], [110], [117], [118]]]\n");
        free(text);
        unlink(path);
    }
    prof_events_free(e);
}

static void allocated_again_in_place(void) {
    static char block[64];
    prof_config cfg;
    prof_events *e;
    char path[256];
    memset(&cfg, 0, sizeof cfg);
    cfg.profile_memory = 1;
    cfg.log = check_log;
    if (!CHECK_EQ_INT(prof_start(&cfg), PROF_OK)) return;
    {
        PROF_SCOPE("work");
        prof_alloc(block, 100);
        prof_alloc(block, 200); /* the same block again, grown in place */
        prof_dealloc(block);
    }
    e = prof_stop();
    if (!CHECK(e != NULL)) return;
    snprintf(path, sizeof path, "%s/again.json", g_dir);
    if (CHECK_EQ_INT(prof_export_chrome_trace(e, path), PROF_OK)) {
        char *text = check_read_file(path);
        long long v[8];
        if (CHECK(text != NULL)) {
            if (CHECK_EQ_INT(values_of(text, "Total Allocated", v, 8), 3)) {
                CHECK_EQ_INT(v[0], 100);
                CHECK_EQ_INT(v[1], 200);
                CHECK_EQ_INT(v[2], 0);
            }
            if (CHECK_EQ_INT(values_of(text, "Total Reserved", v, 8), 3)) {
                CHECK_EQ_INT(v[0], 0);
                CHECK_EQ_INT(v[1], 0);
                CHECK_EQ_INT(v[2], 0);
            }
            if (CHECK_EQ_INT(values_of(text, "Bytes", v, 8), 3)) {
                CHECK_EQ_INT(v[0], 100);
                CHECK_EQ_INT(v[1], 200);
                CHECK_EQ_INT(v[2], -200);
            }
            free(text);
        }
        unlink(path);
    }
    snprintf(path, sizeof path, "%s/again_timeline.json", g_dir);
    if (CHECK_EQ_INT(prof_export_memory_timeline(e, path, PROF_DEVICE_CPU, 0), PROF_OK)) {
        char *text = check_read_file(path);
        const char *sizes = text ? strstr(text, "], [[") : NULL;
        CHECK_EQ_STR(sizes, "], [[100], [200], [0]]]\n");
        free(text);
        unlink(path);
    }
    prof_events_free(e);
}

int main(void) {
    prof_set_log(check_log, NULL);
    if (!CHECK(mkdtemp(g_dir) != NULL)) return check_report();
    memory_row_after_kernel();
    allocated_again_in_place();
    CHECK_EQ_INT(check_count_tmp(g_dir), 0);
    rmdir(g_dir);
    prof_shutdown();
    return check_report();
}
