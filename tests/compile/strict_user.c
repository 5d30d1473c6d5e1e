/* strict-gcc / strict-clang: see strict_user.h. The implementation comes
   from c_impl.c, built with the matrix's usual warnings. */
#include "prof.h"
#include "strict_user.h"

int main(void) {
    prof_config cfg;
    prof_events *ev;
    int r;
    memset(&cfg, 0, sizeof cfg);
    if (prof_start(&cfg) != PROF_OK) return 1;
    r = strict_user_work(3, 1.5, 2.5f, (int64_t)1 << 40, (uint64_t)7, 9u);
    ev = prof_stop();
    if (!ev || r != 10) return 1;
    prof_events_free(ev);
    return 0;
}
