/* One address tracked twice, then freed once: prof_malloc(64) (column
   "unknown"), then the caller's own prof_alloc_ex of the same block with
   a category (two layers of hooks, or a category given after the fact),
   then prof_free. The live table keeps only the second entry
   (prof__live_put overwrites it), so the free takes back 64 bytes once,
   but the records keep both +64: the memory timeline ends with 64 bytes
   live in "unknown" although nothing is, and the trace's Total Allocated
   ends at 64. PyTorch's MemoryProfile.timeline turns an allocation at an
   address already live into INCREMENT_VERSION (-size +size: no change),
   so its timeline ends at zero; Kineto's Total Allocated is the
   allocator's, 0 once the block is freed. The live bytes after the last
   point must be zero in every column, also when the second report gives
   another CPU index (the CPU is one device whatever its index). */
#define PROF_IMPLEMENTATION
#include "prof.h"
#include "check.h"

#define TL "build/test_probe23C_double_track.json"
#define TR "build/test_probe23C_double_track_trace.json"

int main(void) {
    prof_config cfg;
    prof_events *ev;
    void *p;
    char *text;
    mkdir("build", 0777); /* (the files go to build/, as the suite's, cwd = repo root) */
    prof_set_log(check_log, NULL);
    memset(&cfg, 0, sizeof cfg);
    cfg.profile_memory = 1;
    if (!CHECK_EQ_INT(prof_start(&cfg), PROF_OK)) return check_report();
    {
        PROF_SCOPE("op");
        p = prof_malloc(64);
        prof_alloc_ex(p, 64, PROF_DEVICE_CPU, 0, "activations");
        prof_free(p);
        /* the same at another CPU index: still the CPU's one device, so
           still the same block (the replay told the two reports apart by
           their index, and the first one stayed live to the end) */
        p = prof_malloc(32);
        prof_alloc_ex(p, 32, PROF_DEVICE_CPU, 3, "activations");
        prof_free(p);
    }
    ev = prof_stop();
    if (!CHECK(ev != NULL)) return check_report();
    if (CHECK_EQ_INT(prof_export_memory_timeline(ev, TL, PROF_DEVICE_CPU, 0), PROF_OK) && CHECK((text = check_read_file(TL)) != NULL)) {
        /* the last point's sizes: the text after the last '[' */
        const char *last = strrchr(text, '[');
        long long a = -1, b = -1;
        fprintf(stderr, "timeline: %s", text);
        if (CHECK(last != NULL) && CHECK_EQ_INT(sscanf(last, "[%lld, %lld]", &a, &b), 2)) {
            CHECK_EQ_INT(a, 0); /* unknown */
            CHECK_EQ_INT(b, 0); /* activations */
        }
        free(text);
        remove(TL);
    }
    if (CHECK_EQ_INT(prof_export_chrome_trace(ev, TR), PROF_OK) && CHECK((text = check_read_file(TR)) != NULL)) {
        const char *s = text, *at = NULL;
        while ((s = strstr(s, "\"Total Allocated\": ")) != NULL) at = s = s + strlen("\"Total Allocated\": ");
        if (CHECK(at != NULL)) CHECK_EQ_INT(strtoll(at, NULL, 10), 0); /* after the free */
        free(text);
        remove(TR);
    }
    prof_events_free(ev);
    return check_report();
}
