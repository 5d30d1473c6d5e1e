/* prof_events_add_metadata / _add_metadata_json on a list whose key is
   already set (a long-running program that keeps one list and updates a
   "step" or "loss" key before each export) allocate a new node from the
   list's arena on every call and drop it when the key is found
   (prof__add_meta: the node is made before the search), and intern every
   value in the list's string table for the list's life. Memory grows with
   each call, without bound, though the list holds one value per key:
   here 32 bytes a call for the same key and value, about 90 bytes a call
   for the same key with a fresh value. prof_events_set_export_options
   with a fresh source_prefix each call grows the same way (the prefix is
   interned, never released: about 80 bytes a call).

   Correct (as prof_add_metadata does for a session since probe19): a key
   set again replaces its value; what prof.h holds for the list stays the
   size of its distinct keys and current values, so the heap after 20000
   calls equals the heap after 10000. Measured with allocator hooks that
   count the live bytes prof.h holds. */
#define _GNU_SOURCE 1
#define FAIL_ALLOC_COUNT_LIVE /* g_live: the bytes prof.h holds */
#include "fail_alloc.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PROF_IMPLEMENTATION
#include "prof.h"
#include "check.h"

static prof_events *one_event_list(void) {
    prof_events *ev = prof_events_create();
    prof_event_desc d;
    memset(&d, 0, sizeof d);
    d.name = "x";
    d.thread = 1;
    d.end_ns = 5;
    d.file = "/src/a.c";
    CHECK(prof_events_add(ev, &d) == 0);
    return ev;
}

static long live(void) { return __atomic_load_n(&g_live, __ATOMIC_RELAXED); }

static void same_key_same_value(void) {
    prof_events *ev = one_event_list();
    long at10k = 0;
    int i;
    for (i = 1; i <= 20000; i++) {
        if (prof_events_add_metadata(ev, "step", "x") != PROF_OK) CHECK(0);
        if (prof_events_add_metadata_json(ev, "cfg", "{\"a\": 1}") != PROF_OK) CHECK(0);
        if (i == 10000) at10k = live();
    }
    printf("same key and value: %ld bytes grown over calls 10001-20000\n", live() - at10k);
    CHECK_EQ_INT(live(), at10k);
    prof_events_free(ev);
}

static void same_key_fresh_value(void) {
    prof_events *ev = one_event_list();
    long at10k = 0;
    char v[32];
    int i;
    for (i = 1; i <= 20000; i++) {
        snprintf(v, sizeof v, "%d", 100000 + i); /* same length every call */
        if (prof_events_add_metadata(ev, "step", v) != PROF_OK) CHECK(0);
        if (i == 10000) at10k = live();
    }
    printf("same key, fresh values: %ld bytes grown over calls 10001-20000\n", live() - at10k);
    CHECK_EQ_INT(live(), at10k);
    prof_events_free(ev);
}

static void fresh_source_prefix(void) {
    prof_events *ev = one_event_list();
    prof_export_options o;
    long at10k = 0;
    char p[32];
    int i;
    for (i = 1; i <= 20000; i++) {
        memset(&o, 0, sizeof o);
        snprintf(p, sizeof p, "/src/%d", 100000 + i);
        o.source_prefix = p;
        if (prof_events_set_export_options(ev, &o) != PROF_OK) CHECK(0);
        if (i == 10000) at10k = live();
    }
    printf("fresh source_prefix: %ld bytes grown over calls 10001-20000\n", live() - at10k);
    CHECK_EQ_INT(live(), at10k);
    prof_events_free(ev);
}

int main(void) {
    prof_set_log(check_log, NULL);
    same_key_same_value();
    same_key_fresh_value();
    fresh_source_prefix();
    return check_report();
}
