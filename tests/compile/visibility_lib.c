/* The implementation in a shared library built with -fvisibility=hidden,
   exporting prof.h's symbols through PROF_API (visibility_main.c records
   with the macros in the executable). Before PROF_API covered prof__tls,
   the executable's scopes failed to link (undefined prof__tls). */
#define PROF_IMPLEMENTATION
#include "prof.h"

__attribute__((visibility("default"))) void visibility_lib_work(int n);
__attribute__((visibility("default"))) void visibility_lib_work(int n) {
    int i;
    for (i = 0; i < n; i++) {
        PROF_SCOPE("lib_scope");
    }
}
