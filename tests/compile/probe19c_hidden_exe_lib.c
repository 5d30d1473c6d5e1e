/* probe19c-hidden-exe-{gcc,clang}: the library half. Its scopes reach the
   recorder's symbols (prof__g_epoch, prof__tls, ...) in the executable. */
#include "prof.h"

__attribute__((visibility("default"))) int probe19c_lib_work(int n);

__attribute__((visibility("default"))) int probe19c_lib_work(int n) {
    int i, acc = 0;
    PROF_FUNC();
    for (i = 0; i < n; i++) {
        PROF_SCOPE("lib_step");
        acc += i;
    }
    return acc;
}
