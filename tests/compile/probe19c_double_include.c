/* probe19c-double-include-{gcc,clang}: the stb pattern of including
   prof.h twice in the implementation file: first plainly (here directly;
   in projects through their own header that every file includes), then
   with PROF_IMPLEMENTATION, as the manual's "Every other file just
   includes prof.h" invites. In strict -std=c11 the first inclusion's
   <stdio.h> fixes the feature set before the implementation can ask for
   _GNU_SOURCE, and prof.h stops with "includes a system header before
   prof.h ... Fix: include prof.h before the other headers in this file":
   the file does include prof.h first, so that advice cannot be followed.
   The build must work, or stop with a message that names the cause (an
   earlier #include of prof.h without PROF_IMPLEMENTATION). */
#include "prof.h"

#define PROF_IMPLEMENTATION
#include "prof.h"

#include <string.h>

int main(void) {
    prof_config cfg;
    prof_events *ev;
    size_t n;
    memset(&cfg, 0, sizeof cfg);
    if (prof_start(&cfg) != PROF_OK) return 1;
    {
        PROF_SCOPE("once");
    }
    ev = prof_stop();
    if (ev == NULL) return 1;
    n = prof_events_count(ev);
    prof_events_free(ev);
    return n == 1 ? 0 : 1;
}
