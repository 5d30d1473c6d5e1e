/* probe20b-cxx-impl-{gxx,clangxx}: the implementation in a C++ file built
   with fmt's own flags for its sources (CMakeLists.txt's
   PEDANTIC_COMPILE_FLAGS, one list for gcc, one for clang) and -Werror,
   as a C++ project that puts PROF_IMPLEMENTATION in one of its .cc files
   builds it. The macros already pass these flags (strict-gxx,
   strict-clangxx); the implementation did not, and the manual did not
   say so (only a comment in run.sh's strict case does):
     g++ 12: 148 -Wuseless-cast (e.g. PROF__ALLOC's (size_t)(n) and the
       hash's (uint64_t)n, already of that type on x86-64 Linux) and 18
       -Wzero-as-null-pointer-constant (PTHREAD_MUTEX_INITIALIZER and
       other glibc initialisers with a literal 0 for a pointer);
     clang++ 14: 292 -Wzero-as-null-pointer-constant (the implementation's
       NULL, e.g. prof.h:1680, which glibc defines as 0 in C++; clang's
       list has no -Wold-style-cast, which would add 1368).
   None of them is the user's code. Correct: builds quietly (the
   implementation's C could sit inside #pragma GCC diagnostic push /
   ignored for these C++-only warnings / pop), runs, counts 110 scopes. */
#include <cstdio>
#include <string>

#define PROF_IMPLEMENTATION
#include "prof.h"

static int leaf(int i) {
    PROF_FUNC();
    if (i % 3 == 0) return i;
    PROF_SCOPE("leaf_rest");
    return i + 1;
}

int main() {
    prof_config cfg{};
    if (prof_start(&cfg) != PROF_OK) return 1;
    int sum = 0;
    for (int i = 0; i < 30; i++) {
        PROF_SCOPE("outer");
        std::string n = "dyn" + std::to_string(i % 2);
        PROF_SCOPE_DYN(n);
        sum += leaf(i);
    }
    prof_events *ev = prof_stop();
    if (!ev) return 1;
    prof_stats st = prof_events_stats(ev);
    /* 30 outer, 30 dyn, 30 leaf, 20 leaf_rest */
    int ok = st.scopes_recorded == 110 && st.scopes_entered == 110;
    std::printf("sum %d recorded %llu: %s\n", sum, static_cast<unsigned long long>(st.scopes_recorded), ok ? "ok" : "WRONG");
    prof_events_free(ev);
    return ok ? 0 : 1;
}
