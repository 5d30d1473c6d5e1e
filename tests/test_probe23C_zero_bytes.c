/* Zero-byte allocations: prof_malloc(0) and prof_calloc(0, 8) (libc
   returns a unique pointer for each), freed again. prof.h records each as
   a +0 and a -0 record: a "[memory]" row of 2 calls in key_averages for
   the pair outside any scope, [memory] instants of 0 bytes in the trace,
   four points of zeros in the memory timeline, and stats.allocs 4.
   PyTorch never records them: c10's ProfiledCPUMemoryReporter::New and
   ::Delete return before reportMemoryUsageToProfiler when nbytes == 0
   (and the CUDA caching allocator hands out nullptr for size 0 without a
   report), so its table has no [memory] row and its timeline is empty.
   The frees must still match their allocations (no unknown free). */
#include "prof.h"
#include "check.h"

#define TL "build/test_probe23C_zero_bytes.json"

int main(void) {
    prof_config cfg;
    prof_events *ev;
    prof_averages *av;
    void *p, *q;
    size_t i;
    char *text;
    mkdir("build", 0777); /* (the files go to build/, as the suite's, cwd = repo root) */
    prof_set_log(check_log, NULL);
    memset(&cfg, 0, sizeof cfg);
    cfg.profile_memory = 1;
    if (!CHECK_EQ_INT(prof_start(&cfg), PROF_OK)) return check_report();
    p = prof_malloc(0);
    {
        PROF_SCOPE("op");
        q = prof_calloc(0, 8);
        prof_free(q);
    }
    prof_free(p);
    ev = prof_stop();
    if (!CHECK(ev != NULL)) return check_report();
    CHECK_EQ_INT(prof_events_stats(ev).allocs, 0);
    CHECK_EQ_INT(prof_events_stats(ev).unknown_frees, 0);
    CHECK_EQ_INT(prof_events_count(ev), 1); /* op only */
    av = prof_key_averages(ev, NULL);
    if (CHECK(av != NULL)) {
        CHECK_EQ_INT(prof_averages_count(av), 1);
        for (i = 0; i < prof_averages_count(av); i++) CHECK(strcmp(prof_averages_get(av, i)->key, "[memory]") != 0);
        prof_averages_free(av);
    }
    if (CHECK_EQ_INT(prof_export_memory_timeline(ev, TL, PROF_DEVICE_CPU, 0), PROF_OK) && CHECK((text = check_read_file(TL)) != NULL)) {
        CHECK_EQ_STR(text, "[[], []]\n"); /* PyTorch: json.dump([[], []]) */
        free(text);
        remove(TL);
    }
    prof_events_free(ev);
    return check_report();
}
