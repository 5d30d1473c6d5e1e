// strict-gxx / strict-clangxx: see strict_user.h. The implementation comes
// from c_impl.c (C), built with the matrix's usual warnings.
// Included inside extern "C", as C++ code often does with C headers: the
// header's C++ parts (guards, templates) must not take C linkage.
extern "C" {
#include "prof.h"
}
#include "strict_user.h"

int main() {
    prof_config cfg;
    memset(&cfg, 0, sizeof cfg);
    if (prof_start(&cfg) != PROF_OK) return 1;
    int r = strict_user_work(3, 1.5, 2.5f, static_cast<int64_t>(1) << 40, 7u, 9u);
    prof_events *ev = prof_stop();
    if (ev == nullptr || r != 10) return 1;
    prof_events_free(ev);
    return 0;
}
