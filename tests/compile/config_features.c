/* config-features-{default,no-shapes,no-flops,no-memory,no-stack}: what a
   prof_config flag means, built recording and with each feature compiled
   out.
   - with_flops alone records shapes, as torch's profile does
     (record_shapes |= with_flops): the op's input_shapes were None, so
     grouping by input shapes differed from PyTorch's.
   - A feature compiled out (PROF_NO_*) ignores its config flag: with
     PROF_NO_MEMORY, profile_memory = 1 put "CPU Mem" columns of "0 B" in
     the table, as if something had been measured; with PROF_NO_SHAPES,
     record_shapes gave every op "[]" shapes.
   Each mode checks the table's header and the op's shapes and stack. */
#define PROF_IMPLEMENTATION
#include "prof.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FAIL(...) do { fprintf(stderr, "config_features: " __VA_ARGS__); fputc('\n', stderr); exit(1); } while (0)

static void op(int m, int n) {
    PROF_SCOPE_SHAPES("op", 2, m, n);
    prof_alloc((void *)(uintptr_t)0x1000, 64);
    prof_dealloc((void *)(uintptr_t)0x1000);
}

static char *table_of(prof_events *ev) {
    prof_group_options g;
    prof_table_options t;
    prof_averages *a;
    char *s;
    memset(&g, 0, sizeof g);
    memset(&t, 0, sizeof t);
    g.group_by_input_shapes = 1;
    if (!(a = prof_key_averages(ev, &g))) FAIL("prof_key_averages failed");
    s = prof_averages_table(a, &t);
    prof_averages_free(a);
    if (!s) FAIL("prof_averages_table failed");
    return s;
}

int main(int argc, char **argv) {
    prof_config cfg;
    prof_events *ev;
    prof_event e;
    size_t i;
    int found = 0;
    char *tab;
    const char *mode = argc > 1 ? argv[1] : "";
    memset(&cfg, 0, sizeof cfg);
    if (strcmp(mode, "flops") == 0) {
        cfg.with_flops = 1;                 /* and nothing else */
    } else {
        cfg.record_shapes = 1;
        cfg.with_flops = 1;
        cfg.profile_memory = 1;
        cfg.with_stack = PROF_STACK_SCOPES;
    }
    if (prof_start(&cfg) != PROF_OK) FAIL("prof_start failed");
    {
        PROF_SCOPE("outer");
        op(2, 3);
    }
    if (!(ev = prof_stop())) FAIL("prof_stop returned NULL");
    for (i = 0; i < prof_events_count(ev); i++) {
        if (prof_events_get(ev, i, &e) != PROF_OK) FAIL("prof_events_get failed");
        if (strcmp(e.name, "op") != 0) continue;
        found = 1;
#if defined(PROF_NO_SHAPES)
        if (e.input_shapes) FAIL("PROF_NO_SHAPES: op's input_shapes %s, want None", e.input_shapes);
#elif defined(PROF_NO_FLOPS)
        if (strcmp(mode, "flops") == 0 && e.input_shapes)   /* with_flops ignored: no shapes implied */
            FAIL("PROF_NO_FLOPS: op's input_shapes %s with with_flops alone, want None", e.input_shapes);
        if (strcmp(mode, "flops") != 0 && (!e.input_shapes || strcmp(e.input_shapes, "[[2, 3]]") != 0))
            FAIL("op's input_shapes %s, want [[2, 3]]", e.input_shapes ? e.input_shapes : "None");
#else
        if (!e.input_shapes || strcmp(e.input_shapes, "[[2, 3]]") != 0)
            FAIL("op's input_shapes %s, want [[2, 3]] (%s)", e.input_shapes ? e.input_shapes : "None", mode);
#endif
#if defined(PROF_NO_STACK)
        if (e.stack_depth != 0) FAIL("PROF_NO_STACK: op has a stack of %d", e.stack_depth);
#else
        if (strcmp(mode, "flops") != 0 && e.stack_depth < 2) FAIL("op has a stack of %d, want 2 or more", e.stack_depth);
#endif
    }
    if (!found) FAIL("no event named op");
    tab = table_of(ev);
#if defined(PROF_NO_MEMORY)
    if (strstr(tab, "CPU Mem")) FAIL("PROF_NO_MEMORY: the table has memory columns:\n%s", tab);
#else
    if (strcmp(mode, "flops") != 0 && !strstr(tab, "CPU Mem")) FAIL("no memory columns:\n%s", tab);
#endif
#if defined(PROF_NO_SHAPES)
    if (strstr(tab, "[[2, 3]]") || strstr(tab, " [] ")) FAIL("PROF_NO_SHAPES: shapes in the table:\n%s", tab);
#elif defined(PROF_NO_FLOPS)
    if (strcmp(mode, "flops") != 0 && !strstr(tab, "[[2, 3]]")) FAIL("no [[2, 3]] row in the table:\n%s", tab);
#else
    if (!strstr(tab, "[[2, 3]]")) FAIL("no [[2, 3]] row in the table:\n%s", tab);
#endif
    prof_free_string(tab);
    prof_events_free(ev);
    prof_shutdown();
    printf("config_features %s: ok\n", mode[0] ? mode : "all");
    return 0;
}
