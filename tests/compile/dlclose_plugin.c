/* A plugin that records (dlclose_host.c loads and unloads it): its scopes'
   sites, names and file names live in its own data, unmapped by dlclose. */
#include "prof.h"

void dlclose_plugin_work(int n);
void dlclose_plugin_work(int n) {
    int i;
    PROF_SCOPE("plugin_outer");
    for (i = 0; i < n; i++) {
        PROF_SCOPE("plugin_inner");
        PROF_MARK("plugin_mark");
        PROF_COUNTER("plugin_counter", (double)i);
    }
}
