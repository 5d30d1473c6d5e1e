/* prof_alloc_ex's category is a run-time string in real allocators (a
   tensor's or a pool's name, built with snprintf in a reused buffer), but
   the recorder kept only its pointer and read the bytes at prof_stop:
   a buffer reused for the next allocation's category made both
   allocations one category with the last text (pointer equality), and a
   freed string was read after free by prof_stop (ASan: heap-use-after-
   free). Nothing in the manual says the category must outlive the session
   (PROF_SCOPE_DYN and PROF_BEGIN_DYN copy their names). The categories must
   be those the calls were given, as they were at the call. */
#include "prof.h"
#include "check.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Allocations with categories cat_0 .. cat_1099 from a reused buffer,
   each at its own address (thread k at k * 1 MiB up). */
static void *many_categories(void *arg) {
    uintptr_t k = (uintptr_t)arg;
    char buf[32];
    int i;
    PROF_SCOPE("many");
    for (i = 0; i < 1100; i++) {
        snprintf(buf, sizeof buf, "cat_%d", i);
        prof_alloc_ex((void *)(0x100000 * (k + 1) + 16 * (uintptr_t)i), 8, PROF_DEVICE_CPU, 0, buf);
    }
    return NULL;
}

int main(void) {
    prof_config cfg;
    prof_events *ev;
    const char *names[8];
    char buf[32];
    char *heap;
    size_t n, i;
    int seen0 = 0, seen1 = 0, seen_heap = 0;
    prof_set_log(check_log, NULL);
    memset(&cfg, 0, sizeof cfg);
    cfg.profile_memory = 1;
    CHECK_EQ_INT(prof_start(&cfg), PROF_OK);
    {
        PROF_SCOPE("alloc");
        snprintf(buf, sizeof buf, "layer_%d", 0);
        prof_alloc_ex((void *)0x1000, 64, PROF_DEVICE_CPU, 0, buf);
        snprintf(buf, sizeof buf, "layer_%d", 1); /* the same buffer, new text */
        prof_alloc_ex((void *)0x2000, 32, PROF_DEVICE_CPU, 0, buf);
        heap = (char *)malloc(32);
        CHECK(heap != NULL);
        if (heap) {
            snprintf(heap, 32, "%s", "pool_heap");
            prof_alloc_ex((void *)0x3000, 16, PROF_DEVICE_CPU, 0, heap);
            free(heap); /* gone before prof_stop */
        }
        /* "unknown" and "" are PyTorch's unknown column, not columns of their own */
        prof_alloc_ex((void *)0x4000, 8, PROF_DEVICE_CPU, 0, "unknown");
        prof_alloc_ex((void *)0x5000, 8, PROF_DEVICE_CPU, 0, "");
        memset(buf, 'X', sizeof buf - 1);
        buf[sizeof buf - 1] = 0;
    }
    ev = prof_stop();
    CHECK(ev != NULL);
    n = prof_memory_categories(ev, PROF_DEVICE_CPU, 0, names, 8);
    CHECK_EQ_INT(n, 4); /* unknown, layer_0, layer_1, pool_heap */
    for (i = 1; i < n && i < 8; i++) {
        if (strcmp(names[i], "layer_0") == 0) seen0++;
        else if (strcmp(names[i], "layer_1") == 0) seen1++;
        else if (strcmp(names[i], "pool_heap") == 0) seen_heap++;
        else (void)CHECK_MSG(0, "unexpected category '%s'", names[i]);
    }
    CHECK_EQ_INT(seen0, 1);
    CHECK_EQ_INT(seen1, 1);
    CHECK_EQ_INT(seen_heap, 1);
    prof_events_free(ev);

    /* The copies are bounded: 1024 distinct texts for the process (3 are
       taken above); 1100 more give 1021 of their own and the rest one
       "(other categories)" column, with one warning. Two threads intern
       the same texts at once (each text once, whatever the race). */
    check_log_reset();
    CHECK_EQ_INT(prof_start(&cfg), PROF_OK);
    {
        pthread_t th[2];
        int k;
        for (k = 0; k < 2; k++) CHECK(pthread_create(&th[k], NULL, many_categories, (void *)(uintptr_t)k) == 0);
        for (k = 0; k < 2; k++) pthread_join(th[k], NULL);
    }
    ev = prof_stop();
    CHECK(ev != NULL);
    n = prof_memory_categories(ev, PROF_DEVICE_CPU, 0, NULL, 0);
    CHECK_EQ_INT(n, 1 + 1021 + 1); /* unknown, cat_0 .. cat_1020, (other categories) */
    {
        const char **all = (const char **)calloc(n, sizeof *all);
        CHECK(all != NULL);
        if (all) {
            int other = 0, cats = 0;
            CHECK_EQ_INT(prof_memory_categories(ev, PROF_DEVICE_CPU, 0, all, n), n);
            for (i = 1; i < n; i++) {
                if (strcmp(all[i], "(other categories)") == 0) other++;
                else if (strncmp(all[i], "cat_", 4) == 0) cats++;
            }
            CHECK_EQ_INT(other, 1);
            CHECK_EQ_INT(cats, 1021);
            free(all);
        }
    }
    CHECK_EQ_INT(check_log_find(PROF_E_DROPPED, "distinct categories", NULL), 1);
    prof_events_free(ev);
    return check_report();
}
