/* The names of copies and sets, every kind CUPTI gives: Kineto's
   "Memcpy <copy kind> (<source kind> -> <destination kind>)" and
   "Memset (<memory kind>)", with libkineto's words (cupti_strings.cpp)
   for each of CUPTI's ten copy kinds and eight memory kinds, and for a
   kind it does not know: "<unknown>" for a copy kind, "Unknown" for
   CUPTI's UNKNOWN memory kind and "Unrecognized" past the ones it names
   (prof.h wrote "Unknown" for all three). Only HtoD copies from pageable
   memory were tested before. Fake CUPTI, virtual clock. */
#define clock_gettime test_clock_gettime /* prof.h's clock reads land in this file */
#define PROF_CLOCK_MONOTONIC 1
#define PROF_IMPLEMENTATION
#include "prof.h"
#undef clock_gettime
#include "check.h"
#include "fake_cupti_control.h"

#include "virtual_mono.h"

typedef struct copy_case { int copy, src, dst; const char *name; } copy_case;
static const copy_case copies[] = {
    { CUPTI_ACTIVITY_MEMCPY_KIND_HTOD, CUPTI_ACTIVITY_MEMORY_KIND_PINNED, CUPTI_ACTIVITY_MEMORY_KIND_DEVICE, "Memcpy HtoD (Pinned -> Device)" },
    { CUPTI_ACTIVITY_MEMCPY_KIND_DTOH, CUPTI_ACTIVITY_MEMORY_KIND_DEVICE, CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE, "Memcpy DtoH (Device -> Pageable)" },
    { CUPTI_ACTIVITY_MEMCPY_KIND_HTOA, CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE, CUPTI_ACTIVITY_MEMORY_KIND_ARRAY, "Memcpy HtoA (Pageable -> Array)" },
    { CUPTI_ACTIVITY_MEMCPY_KIND_ATOH, CUPTI_ACTIVITY_MEMORY_KIND_ARRAY, CUPTI_ACTIVITY_MEMORY_KIND_PINNED, "Memcpy AtoH (Array -> Pinned)" },
    { CUPTI_ACTIVITY_MEMCPY_KIND_ATOA, CUPTI_ACTIVITY_MEMORY_KIND_ARRAY, CUPTI_ACTIVITY_MEMORY_KIND_ARRAY, "Memcpy AtoA (Array -> Array)" },
    { CUPTI_ACTIVITY_MEMCPY_KIND_ATOD, CUPTI_ACTIVITY_MEMORY_KIND_ARRAY, CUPTI_ACTIVITY_MEMORY_KIND_DEVICE, "Memcpy AtoD (Array -> Device)" },
    { CUPTI_ACTIVITY_MEMCPY_KIND_DTOA, CUPTI_ACTIVITY_MEMORY_KIND_DEVICE, CUPTI_ACTIVITY_MEMORY_KIND_ARRAY, "Memcpy DtoA (Device -> Array)" },
    { CUPTI_ACTIVITY_MEMCPY_KIND_DTOD, CUPTI_ACTIVITY_MEMORY_KIND_MANAGED, CUPTI_ACTIVITY_MEMORY_KIND_DEVICE_STATIC, "Memcpy DtoD (Managed -> Device Static)" },
    { CUPTI_ACTIVITY_MEMCPY_KIND_HTOH, CUPTI_ACTIVITY_MEMORY_KIND_MANAGED_STATIC, CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE, "Memcpy HtoH (Managed Static -> Pageable)" },
    { CUPTI_ACTIVITY_MEMCPY_KIND_PTOP, CUPTI_ACTIVITY_MEMORY_KIND_DEVICE, CUPTI_ACTIVITY_MEMORY_KIND_DEVICE, "Memcpy PtoP (Device -> Device)" },
    { CUPTI_ACTIVITY_MEMCPY_KIND_UNKNOWN, CUPTI_ACTIVITY_MEMORY_KIND_UNKNOWN, CUPTI_ACTIVITY_MEMORY_KIND_DEVICE, "Memcpy <unknown> (Unknown -> Device)" },
    { 200, 77, CUPTI_ACTIVITY_MEMORY_KIND_DEVICE, "Memcpy <unknown> (Unrecognized -> Device)" },
};
typedef struct set_case { int kind; const char *name; } set_case;
static const set_case sets[] = {
    { CUPTI_ACTIVITY_MEMORY_KIND_DEVICE, "Memset (Device)" },
    { CUPTI_ACTIVITY_MEMORY_KIND_MANAGED, "Memset (Managed)" },
    { CUPTI_ACTIVITY_MEMORY_KIND_PINNED, "Memset (Pinned)" },
    { CUPTI_ACTIVITY_MEMORY_KIND_UNKNOWN, "Memset (Unknown)" },
    { 99, "Memset (Unrecognized)" },
};
#define NCOPIES (sizeof copies / sizeof copies[0])
#define NSETS (sizeof sets / sizeof sets[0])

/* How many device events are named name. */
static int named(prof_events *ev, const char *name) {
    size_t i, n = prof_events_count(ev);
    int k = 0;
    for (i = 0; i < n; i++) {
        prof_event e;
        if (prof_events_get(ev, i, &e) == PROF_OK && e.device_type == PROF_DEVICE_CUDA && strcmp(e.name, name) == 0) k++;
    }
    return k;
}

int main(void) {
    prof_config c;
    prof_events *ev;
    size_t i, n, device = 0;
    unsetenv("FAKE_CUPTI_ENV");
    prof_set_log(check_log, NULL);
    virtual_mono_init();
    fake_cupti_reset();
    at(0);
    memset(&c, 0, sizeof c);
    c.activities = PROF_ACTIVITY_CPU | PROF_ACTIVITY_CUDA;
    c.log = check_log;
    if (!CHECK_EQ_INT(prof_start(&c), PROF_OK)) return check_report();
    at(1000);
    {
        PROF_SCOPE("work");
        for (i = 0; i < NCOPIES; i++) {
            CUpti_ActivityMemcpy6 m = fake_cupti_memcpy((CUpti_ActivityMemcpyKind)copies[i].copy, 4096, T(2000 + 1000 * (int64_t)i), T(2500 + 1000 * (int64_t)i), 0);
            m.srcKind = (uint8_t)copies[i].src;
            m.dstKind = (uint8_t)copies[i].dst;
            CHECK_EQ_INT(fake_cupti_queue_memcpy(&m), 0);
        }
        for (i = 0; i < NSETS; i++) {
            CUpti_ActivityMemset4 s = fake_cupti_memset(4096, 0, T(20000 + 1000 * (int64_t)i), T(20500 + 1000 * (int64_t)i), 0);
            s.memoryKind = (uint16_t)sets[i].kind;
            CHECK_EQ_INT(fake_cupti_queue_memset(&s), 0);
        }
        at(30000);
    }
    at(31000);
    ev = prof_stop();
    if (!CHECK(ev != NULL)) return check_report();
    for (i = 0; i < NCOPIES; i++) CHECK_MSG(named(ev, copies[i].name) == 1, "no device event named '%s'", copies[i].name);
    for (i = 0; i < NSETS; i++) CHECK_MSG(named(ev, sets[i].name) == 1, "no device event named '%s'", sets[i].name);
    n = prof_events_count(ev);
    for (i = 0; i < n; i++) {
        prof_event e;
        if (prof_events_get(ev, i, &e) == PROF_OK && e.device_type == PROF_DEVICE_CUDA) device++;
    }
    CHECK_EQ_INT(device, NCOPIES + NSETS);
    prof_events_free(ev);
    prof_shutdown();
    return check_report();
}
