/* The JSON trace's metadata:
   - a distributedInfo the user adds (prof_events_add_metadata_json, as
     PyTorch's add_metadata_json; HTA reads the rank from it) replaces
     prof.h's default {"backend": "prof.h", "rank": 0, "world_size": 1}:
     the key is written once (a JSON object with a key twice is read
     differently by each parser);
   - each CPU thread's thread_sort_index is its id, as Kineto writes it
     (the main thread, lowest, first): a thread with tid 500 added first
     sorts after one with tid 20. It was the thread's place in the list,
     which for a recorded list put the main thread last (prof_stop reads
     exited and newer threads first).
   Found by mutation testing: writing both distributedInfo keys left every
   other test passing. */
#include "prof.h"
#include "check.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#define TRACE "build/test_edges_trace_meta.json"

/* The sort_index of the thread_sort_index record of tid, or -1. */
static long sort_index_of(const char *t, long tid) {
    char key[96];
    const char *p;
    long v = -1;
    snprintf(key, sizeof key, "\"tid\": %ld, \"args\": {\"sort_index\": ", tid);
    for (p = t; (p = strstr(p, "\"thread_sort_index\"")) != NULL; p++) {
        const char *q = strstr(p, key), *end = strchr(p, '\n');
        if (q && end && q < end) { sscanf(q + strlen(key), "%ld", &v); break; }
    }
    return v;
}

int main(void) {
    prof_events *e;
    char *t;
    mkdir("build", 0777);
    prof_set_log(check_log, NULL);
    e = prof_events_create();
    check_add_event(e, "first_thread_op", 500, 0, 1000);
    check_add_event(e, "second_thread_op", 20, 2000, 3000);
    if (CHECK_EQ_INT(prof_export_chrome_trace(e, TRACE), PROF_OK) && CHECK((t = check_read_file(TRACE)) != NULL)) {
        CHECK_EQ_INT(check_count_str(t, "\"distributedInfo\""), 1);
        CHECK(strstr(t, "\"backend\": \"prof.h\"") != NULL);
        CHECK_EQ_INT(sort_index_of(t, 500), 500);
        CHECK_EQ_INT(sort_index_of(t, 20), 20);
        free(t);
    }
    CHECK_EQ_INT(prof_events_add_metadata_json(e, "distributedInfo", "{\"backend\": \"nccl\", \"rank\": 3, \"world_size\": 8}"), PROF_OK);
    if (CHECK_EQ_INT(prof_export_chrome_trace(e, TRACE), PROF_OK) && CHECK((t = check_read_file(TRACE)) != NULL)) {
        CHECK_EQ_INT(check_count_str(t, "\"distributedInfo\""), 1);
        CHECK(strstr(t, "\"backend\": \"nccl\"") != NULL);
        CHECK(strstr(t, "\"backend\": \"prof.h\"") == NULL);
        free(t);
    }
    prof_events_free(e);
    return check_report();
}
