/* c90-decls-*: the implementation and main for c90_decls.c */
#define PROF_IMPLEMENTATION
#include "prof.h"

#include <string.h>

int c90_work(int n, const char *dyn);

int main(void) {
    prof_config cfg;
    prof_events *ev;
    int r;
    memset(&cfg, 0, sizeof cfg);
    if (prof_start(&cfg) != PROF_OK) return 1;
    r = c90_work(3, "dyn");
    ev = prof_stop();
    if (!ev) return 1;
#if defined(PROF_DISABLED)
    if (prof_events_count(ev) != 0) return 1;
#else
    if (prof_events_count(ev) != 9) return 1;
#endif
    prof_events_free(ev);
    return r == 10 ? 0 : 1;
}
