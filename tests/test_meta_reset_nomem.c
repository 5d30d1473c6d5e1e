/* A metadata key set again needs no new memory but its value's copy: a
   list (or a session) updated before each export ("step") must not fail
   there when memory is short. With the keys in a map, the set grew the
   entries' array and the map first, also for a key already there, so at a
   growth point (16, 32... keys) setting a key again failed with
   PROF_E_NOMEM. The lookup now comes first. Allocations of more than 64
   bytes and every realloc fail while g_fail is set; the value's copy is
   small. */
#define _GNU_SOURCE 1
#include <stdio.h>
#include <stdlib.h>
static int g_fail;
static void *t_malloc(size_t n) { return __atomic_load_n(&g_fail, __ATOMIC_RELAXED) && n > 64 ? NULL : malloc(n); }
static void *t_realloc(void *p, size_t n) { return __atomic_load_n(&g_fail, __ATOMIC_RELAXED) ? NULL : realloc(p, n); }
#define PROF_MALLOC(n) t_malloc(n)
#define PROF_REALLOC(p, n) t_realloc(p, n)
#define PROF_FREE(p) free(p)
#define PROF_IMPLEMENTATION
#include "prof.h"
#include "check.h"
#include <string.h>
#include <unistd.h>

static void on_list(int keys) {
    prof_events *e = prof_events_create();
    char k[32], *text;
    int i;
    for (i = 0; i < keys; i++) {
        snprintf(k, sizeof k, "k%d", i);
        CHECK_EQ_INT(prof_events_add_metadata(e, k, "v"), PROF_OK);
    }
    g_fail = 1;
    CHECK_EQ_INT(prof_events_add_metadata(e, "k3", "w"), PROF_OK);
    CHECK_EQ_INT(prof_events_add_metadata_json(e, "k0", "[1]"), PROF_OK);
    g_fail = 0;
    CHECK_EQ_INT(prof_export_chrome_trace(e, "test_meta_reset_nomem.json"), PROF_OK);
    text = check_read_file("test_meta_reset_nomem.json");
    CHECK(text && strstr(text, "\"k3\": \"w\"") && strstr(text, "\"k0\": [1]"));
    free(text);
    unlink("test_meta_reset_nomem.json");
    prof_events_free(e);
}

static void on_session(int keys) {
    prof_config cfg = {0};
    prof_events *e;
    char k[32], *text;
    int i;
    CHECK_EQ_INT(prof_start(&cfg), PROF_OK);
    for (i = 0; i < keys; i++) {
        snprintf(k, sizeof k, "k%d", i);
        CHECK_EQ_INT(prof_add_metadata(k, "v"), PROF_OK);
    }
    g_fail = 1;
    CHECK_EQ_INT(prof_add_metadata("k5", "w"), PROF_OK);
    g_fail = 0;
    e = prof_stop();
    if (!CHECK(e != NULL)) return;
    CHECK_EQ_INT(prof_export_chrome_trace(e, "test_meta_reset_nomem.json"), PROF_OK);
    text = check_read_file("test_meta_reset_nomem.json");
    CHECK(text && strstr(text, "\"k5\": \"w\""));
    free(text);
    unlink("test_meta_reset_nomem.json");
    prof_events_free(e);
}

int main(void) {
    int keys;
    prof_set_log(check_log, NULL);
    for (keys = 15; keys <= 65; keys++) { /* through the growth points at 16, 32 and 64 */
        on_list(keys);
        on_session(keys);
    }
    prof_shutdown();
    return check_report();
}
