/* prof_alloc_ex's category cache (manual: "prof.h keeps each distinct
   text once for the process, up to 1024 texts and 1 MiB, past which new
   texts are recorded as "(other categories)"") closes for good on the
   first text that does not fit: prof__cat_intern sets prof__cat_count to
   (size_t)-1 when one text is longer than the bytes left (or its malloc
   fails once), so one oversized category (a 1 MiB + 1 text, say a
   serialized tag passed by mistake) makes every later new text of the
   process "(other categories)", though the cache holds no text at all.

   Correct: only that text is "(other categories)" (with the warning); the
   cache stays open to texts that fit, up to the documented 1024 texts and
   1 MiB, so "weights" given next keeps its name in the memory timeline. */
#define PROF_IMPLEMENTATION
#include "prof.h"
#include "check.h"

#include <stdlib.h>
#include <string.h>

int main(void) {
    prof_config cfg;
    prof_events *ev;
    const char *names[8];
    size_t n, i, big_len = ((size_t)1 << 20) + 1;
    int found_weights = 0;
    char *big = (char *)malloc(big_len + 1);
    char blk[16];
    prof_set_log(check_log, NULL);
    if (!CHECK(big != NULL)) return check_report();
    memset(big, 'b', big_len);
    big[big_len] = 0;
    memset(&cfg, 0, sizeof cfg);
    cfg.profile_memory = 1;
    cfg.log = check_log;
    if (!CHECK_EQ_INT(prof_start(&cfg), PROF_OK)) return check_report();
    {
        PROF_SCOPE("step");
        prof_alloc_ex(blk, 8, PROF_DEVICE_CPU, 0, big); /* too long: "(other categories)" */
        prof_dealloc(blk);
        prof_alloc_ex(blk + 8, 8, PROF_DEVICE_CPU, 0, "weights"); /* fits: kept */
        prof_dealloc(blk + 8);
    }
    ev = prof_stop();
    if (!CHECK(ev != NULL)) return check_report();
    n = prof_memory_categories(ev, PROF_DEVICE_CPU, 0, names, 8);
    for (i = 0; i < n && i < 8; i++) {
        printf("category %zu: %.40s\n", i, names[i]);
        if (strcmp(names[i], "weights") == 0) found_weights = 1;
    }
    CHECK(found_weights);
    prof_events_free(ev);
    prof_shutdown();
    free(big);
    return check_report();
}
