/* Past max_events an allocation can keep its record and lose its free's:
   prof__mem_record admits each record on its own (prof__admit_x), so a
   block allocated before the cap is reached and freed after it stays live
   in the profile forever: the memory timeline ends with bytes live that
   the program freed, and "[memory]" / CPU Mem sums keep them.

   Found instrumenting pigz (its buffers and zlib's state through
   prof_realloc/prof_free/prof_malloc, profile_memory on) compressing 1500
   files with max_events 500: pigz frees every block, yet
   prof_export_memory_timeline's last point says 702513 bytes live (86
   memory records kept, 11938 dropped). Without the cap the last point is
   0.

   Scopes have the guarantee this lacks: "a scope admitted then always
   gets its record when it ends ... the profile holds only whole events".
   The same for memory would be: the free of a block whose allocation was
   recorded is recorded too (admitted as a scope's end is, or its share
   reserved when the allocation is admitted), so a capped profile may miss
   blocks but never shows one live that was freed. (The manual says
   nothing of this for allocations; for async ranges it does say that a
   begin can lose its end.)

   Here: 40 blocks allocated first (recorded), then alloc/free churn of
   other addresses until well past the cap, then the 40 blocks freed. All
   outside any scope, so every kept record is a "[memory]" event: their
   bytes must sum to 0, and the timeline's last point must be 0. */
#define PROF_IMPLEMENTATION
#include "prof.h"
#include "check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define OUT "build/probe24B_cap_alloc"

int main(void) {
    static char blocks[40][16], churn[16];
    prof_config cfg = {0};
    cfg.max_events = 300;
    cfg.profile_memory = 1;
    CHECK_EQ_INT(prof_start(&cfg), PROF_OK);
    for (int i = 0; i < 40; i++) prof_alloc(blocks[i], 1000);
    for (int i = 0; i < 2000; i++) { prof_alloc(churn, 10); prof_dealloc(churn); }
    for (int i = 0; i < 40; i++) prof_dealloc(blocks[i]);
    prof_events *ev = prof_stop();
    CHECK(ev != NULL);
    if (!ev) return 1;
    prof_stats st = prof_events_stats(ev);
    CHECK(st.allocs_dropped > 0); /* the cap was reached */

    /* every kept record is a [memory] event: kept allocations and frees of
       the 40 blocks must balance (the churn's pairs are 10 bytes each way) */
    int64_t net = 0, n40 = 0;
    for (size_t i = 0; i < prof_events_count(ev); i++) {
        prof_event e;
        if (prof_events_get(ev, i, &e) != PROF_OK) continue;
        if (strcmp(e.name, "[memory]") == 0) {
            net += e.cpu_memory_usage;
            if (e.cpu_memory_usage == 1000) n40++;
        }
    }
    CHECK_EQ_INT(n40, 40);           /* the 40 allocations, recorded before the cap */
    CHECK_EQ_INT(net, 0);            /* ... and so their 40 frees: nothing live at the end */

    /* the memory timeline's last point: nothing live */
    mkdir("build", 0777);
    mkdir(OUT, 0777);
    CHECK_EQ_INT(prof_export_memory_timeline(ev, OUT "/timeline.json", PROF_DEVICE_CPU, 0), PROF_OK);
    FILE *f = fopen(OUT "/timeline.json", "r");
    CHECK(f != NULL);
    if (f) {
        static char buf[1 << 20];
        size_t n = fread(buf, 1, sizeof buf - 1, f);
        buf[n] = 0;
        fclose(f);
        /* [[t0, t1, ...], [[s0], [s1], ...]]: the last "[" opens the last point */
        char *last = strrchr(buf, '[');
        CHECK(last != NULL);
        if (last) CHECK_MSG(strtoll(last + 1, NULL, 10) == 0, "timeline ends with %s live", last);
    }
    prof_events_free(ev);
    return check_failures() != 0;
}
