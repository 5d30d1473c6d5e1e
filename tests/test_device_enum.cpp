/* test_device_enum.cpp - torch's other DeviceType numbers (HPU 15, MTIA 19,
   PrivateUse1 20, any up to 31) kept in a prof_device_type from C++. The
   enum's range must hold them: otherwise every load of such a field is
   undefined behaviour, which the ASan variant's UBSan (-fsanitize=enum is
   part of -fsanitize=undefined in C++) reports and stops at. Each type is
   added beside a CPU op, read back, tabulated, and exported in every
   format. */
#define PROF_IMPLEMENTATION
#include "prof.h"
#include "check.h"

#include <stdio.h>
#include <unistd.h>

static void one(int type) {
    prof_events *ev = prof_events_create();
    prof_event_desc d;
    prof_event e;
    prof_averages *ka;
    char *table;
    char path[64];
    int64_t i;
    int found = 0;
    size_t r, x;
    CHECK(ev != NULL);
    if (!ev) return;
    check_add_event(ev, "op", 1, 0, 1000);
    memset(&d, 0, sizeof d);
    d.name = "kern";
    d.thread = 7;
    d.start_ns = 100;
    d.end_ns = 600;
    d.device_type = (prof_device_type)type;
    i = prof_events_add(ev, &d);
    CHECK(i >= 0);
    if (i < 0) { prof_events_free(ev); return; }
    e = check_get_event(ev, i);
    CHECK_EQ_INT((int)e.device_type, type);
    ka = prof_key_averages(ev, NULL);
    CHECK(ka != NULL);
    for (r = 0; ka && r < prof_averages_count(ka); r++) {
        const prof_avg *row = prof_averages_get(ka, r);
        if (strcmp(row->key, "kern") != 0) continue;
        found = 1;
        CHECK_EQ_INT((int)row->device_type, type);
        CHECK_EQ_INT(row->count, 1);
    }
    CHECK(found);
    table = prof_averages_table(ka, NULL);
    CHECK(table != NULL && strstr(table, "kern") != NULL);
    prof_free_string(table);
    prof_averages_free(ka);
    for (x = 0; x < CHECK_N_EXPORTERS; x++) {
        snprintf(path, sizeof path, "device_enum_%d_%u.out", type, (unsigned)x);
        CHECK_MSG(CHECK_EXPORTERS[x].fn(ev, path) == PROF_OK, "%s, device type %d", CHECK_EXPORTERS[x].name, type);
        unlink(path);
    }
    prof_events_free(ev);
}

int main(void) {
    static const int types[] = { PROF_DEVICE_CPU + 1, 2, 15, 19, 20, 31 };
    size_t t;
    prof_set_log(check_log, NULL); /* the stackless exports' warnings */
    for (t = 0; t < sizeof types / sizeof types[0]; t++) one(types[t]);
    return check_report();
}
