/* bench/chrome_same_old.c - another prof.h's JSON exporter, for
   bench/chrome_same.c: its implementation, whose prof* symbols
   bench/chrome_same.sh makes local to this object (objcopy), so that it
   lives beside this prof.h's in one program, reached through the wrappers
   below. Both headers must share the event
   list's representation (>>types): the list is made by this prof.h's
   implementation and exported by either. Build: bench/chrome_same.sh. */
#define _GNU_SOURCE 1
#define PROF_IMPLEMENTATION
#include OLD_PROF_H

prof_result old_export_chrome_trace(prof_events *e, const char *path);
void old_set_knobs(size_t par_min_events, size_t par_chunk, uint64_t async_after, int trace_fast);
prof_result old_export_chrome_trace(prof_events *e, const char *path) { return prof_export_chrome_trace(e, path); }
void old_set_knobs(size_t par_min_events, size_t par_chunk, uint64_t async_after, int trace_fast) {
    prof__par_min_events = par_min_events;
    prof__par_chunk = par_chunk;
    prof__w_async_after = async_after;
    prof__trace_fast = trace_fast;
}
