/* A block tracked again with 0 bytes while it is live: prof_alloc(p, 100),
   then prof_alloc(p, 0) (a caller's hook that reports a block shrunk to
   nothing in place, or a realloc to 0 that returns the same address),
   then prof_dealloc(p). The live table's entry for p becomes 0 bytes, and
   a block of 0 bytes is not recorded, so no record says the 100 bytes
   went: the free later finds 0 bytes and records nothing either. The
   memory timeline and the trace's Total Allocated then end with 100 bytes
   live although nothing is. The re-track replaces the block (as a second
   report of a live address does in the timeline), so it must record the
   old block's free; every figure ends at zero. */
#include "prof.h"
#include "check.h"

#define TL "build/test_probe24_retrack_zero.json"
#define TR "build/test_probe24_retrack_zero_trace.json"

int main(void) {
    prof_config cfg;
    prof_events *ev;
    char *text;
    static char block[100];
    mkdir("build", 0777); /* (the files go to build/, as the suite's, cwd = repo root) */
    prof_set_log(check_log, NULL);
    memset(&cfg, 0, sizeof cfg);
    cfg.profile_memory = 1;
    if (!CHECK_EQ_INT(prof_start(&cfg), PROF_OK)) return check_report();
    {
        PROF_SCOPE("op");
        prof_alloc(block, 100);
        prof_alloc(block, 0);
        prof_dealloc(block);
    }
    ev = prof_stop();
    if (!CHECK(ev != NULL)) return check_report();
    if (CHECK_EQ_INT(prof_export_memory_timeline(ev, TL, PROF_DEVICE_CPU, 0), PROF_OK) && CHECK((text = check_read_file(TL)) != NULL)) {
        const char *last = strrchr(text, '['); /* the last point's sizes */
        long long a = -1;
        fprintf(stderr, "timeline: %s", text);
        if (CHECK(last != NULL) && CHECK_EQ_INT(sscanf(last, "[%lld", &a), 1)) CHECK_EQ_INT(a, 0);
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
