/* probe19c-hidden-exe-{gcc,clang}: a project that builds everything with
   -fvisibility=hidden (cJSON's CMake does, for its library and its test
   programs alike): the implementation in the executable (linked with
   -rdynamic, as the manual says), the macros in a shared library linked
   to it. The executable's prof.h symbols are hidden, so the link fails:
   "hidden symbol `prof__g_epoch' in main.o is referenced by DSO". The
   manual's PROF_API remedy names only "the implementation in a library
   built with -fvisibility=hidden". */
#define PROF_IMPLEMENTATION
#include "prof.h"

#include <string.h>

int probe19c_lib_work(int n);

int main(void) {
    prof_config cfg;
    prof_events *ev;
    prof_stats st;
    int r;
    memset(&cfg, 0, sizeof cfg);
    if (prof_start(&cfg) != PROF_OK) return 1;
    r = probe19c_lib_work(4);
    ev = prof_stop();
    if (ev == NULL) return 1;
    st = prof_events_stats(ev);
    prof_events_free(ev);
    return r == 6 && st.scopes_recorded == 5 ? 0 : 1;
}
