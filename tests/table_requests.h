/* What test_tables and test_cupti share: a growing output
   text, and running one request of a tests/tables case file (FORMAT.md)
   on an event list, printed the way the .expected files hold it. */
#ifndef PROF_TEST_TABLE_REQUESTS_H
#define PROF_TEST_TABLE_REQUESTS_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h" /* check_read_file_n */

typedef struct out { char *p; size_t n, cap; } out;
static void out_put(out *o, const char *s) {
    size_t l = strlen(s);
    if (o->n + l + 1 > o->cap) {
        o->cap = (o->n + l + 1) * 2;
        o->p = (char *)realloc(o->p, o->cap);
    }
    memcpy(o->p + o->n, s, l + 1);
    o->n += l;
}

static void print_total(out *o, prof_avg t) {
    char line[256];
    /* microseconds as the nearest double, also past 2^53 ns where
       (double)ns / 1000 would round twice (prof.h's own conversion) */
    snprintf(line, sizeof line, "key=%s\ncount=%lld\n", t.key, (long long)t.count);
    out_put(o, line);
    snprintf(line, sizeof line, "cpu_time_total=%.3f\nself_cpu_time_total=%.3f\ncpu_time=%.3f\n",
             prof__us_double(t.cpu_time_total_ns), prof__us_double(t.self_cpu_time_total_ns),
             t.count ? prof__us_double(t.cpu_time_total_ns) / (double)t.count : 0.0);
    out_put(o, line);
    snprintf(line, sizeof line, "device_time_total=%.3f\nself_device_time_total=%.3f\ndevice_time=%.3f\n",
             prof__us_double(t.device_time_total_ns), prof__us_double(t.self_device_time_total_ns),
             t.count ? prof__us_double(t.device_time_total_ns) / (double)t.count : 0.0);
    out_put(o, line);
    snprintf(line, sizeof line, "cpu_memory_usage=%lld\nself_cpu_memory_usage=%lld\ndevice_memory_usage=%lld\nself_device_memory_usage=%lld\nflops=%lld\n",
             (long long)t.cpu_memory_usage, (long long)t.self_cpu_memory_usage, (long long)t.device_memory_usage,
             (long long)t.self_device_memory_usage, (long long)t.flops);
    out_put(o, line);
}

/* One table / total_average request (its fields as key=value, modified in
   place); returns how many fields it did not understand. */
static int run_request(prof_events *ev, out *o, const char *kind, char **fields, int nf) {
    prof_table_options opt;
    prof_group_options g;
    int averages = 0, i, unknown = 0;
    memset(&opt, 0, sizeof opt);
    memset(&g, 0, sizeof g);
    for (i = 0; i < nf; i++) {
        char *k = fields[i], *v = strchr(k, '=');
        if (!v) continue;
        *v++ = 0;
        if (!strcmp(k, "averages")) averages = atoi(v);
        else if (!strcmp(k, "group_by_input_shapes")) g.group_by_input_shapes = atoi(v);
        else if (!strcmp(k, "group_by_stack_n")) g.group_by_stack_n = atoi(v);
        else if (!strcmp(k, "group_by_overload_name")) g.group_by_overload_name = atoi(v);
        else if (!strcmp(k, "sort_by")) opt.sort_by = v;
        else if (!strcmp(k, "row_limit")) { opt.row_limit = atoi(v); if (opt.row_limit == 0) opt.row_limit = PROF_ROW_LIMIT_ZERO; }
        else if (!strcmp(k, "max_src_column_width")) opt.max_src_column_width = atoi(v);
        else if (!strcmp(k, "max_name_column_width")) opt.max_name_column_width = atoi(v);
        else if (!strcmp(k, "max_shapes_column_width")) opt.max_shapes_column_width = atoi(v);
        else if (!strcmp(k, "header")) opt.header = v;
        else if (!strcmp(k, "top_level_events_only")) opt.top_level_events_only = atoi(v);
        else if (!strcmp(k, "time_unit")) opt.time_unit = v;
        else { fprintf(stderr, "unknown table field %s\n", k); unknown++; }
    }
    if (!strcmp(kind, "total_average")) {
        if (averages) {
            prof_averages *a = prof_key_averages(ev, &g);
            print_total(o, prof_averages_total_average(a));
            prof_averages_free(a);
        } else {
            print_total(o, prof_events_total_average(ev));
        }
    } else {
        char *t;
        if (averages) {
            prof_averages *a = prof_key_averages(ev, &g);
            t = prof_averages_table(a, &opt);
            prof_averages_free(a);
        } else {
            t = prof_events_table(ev, &opt);
        }
        if (t) out_put(o, t);
        else out_put(o, "<<table failed>>\n");
        prof_free_string(t);
    }
    out_put(o, "----8<----\n");
    return unknown;
}

#endif
