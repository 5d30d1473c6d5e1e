/* C++ TU calling the C-compiled implementation (c_impl.c) through every
   public struct that holds a prof_device_type, linked with gcc -flto
   -Werror: its LTO compares the types the two languages see
   (-Wlto-type-mismatch). prof_device_type with `: int` beneath it in C++
   only (unsigned int in C) failed there, and gcc warned that code across
   the boundary may be misoptimized. */
#include "prof.h"
#include <stdio.h>
#include <string.h>

int main()
{
    prof_events *ev = prof_events_create();
    prof_event_desc d;
    prof_event e;
    prof_averages *a;
    prof_avg total;
    prof_report_options opt{};
    int64_t i;
    if (!ev) return 1;
    memset(&d, 0, sizeof d);
    d.name = "op";
    d.thread = 1;
    d.end_ns = 1000;
    if (prof_events_add(ev, &d) < 0) return 1;
    d.name = "kern";
    d.thread = 7;
    d.start_ns = 100;
    d.end_ns = 600;
    d.device_type = PROF_DEVICE_MTIA;
    if ((i = prof_events_add(ev, &d)) < 0) return 1;
    if (prof_events_get(ev, (size_t)i, &e) != PROF_OK || e.device_type != PROF_DEVICE_MTIA) return 1;
    a = prof_key_averages(ev, NULL);
    if (!a || prof_averages_count(a) != 2) return 1;
    total = prof_averages_total_average(a);
    printf("rows %zu, total %s, count %lld, %s device type %d\n", prof_averages_count(a), total.key, (long long)total.count,
           prof_averages_get(a, 1)->key, (int)prof_averages_get(a, 1)->device_type);
    total = prof_events_total_average(ev);
    opt.no_table = 1;
    opt.memory_device = PROF_DEVICE_CPU;
    if (prof_report(ev, &opt) != PROF_OK) return 1;
    prof_averages_free(a);
    prof_events_free(ev);
    return total.count == 2 ? 0 : 1;
}
