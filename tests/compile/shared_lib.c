/* prof.h's implementation inside a shared library (-fPIC -shared), as in a
   Python extension or a plugin. shared_main.c links against it and
   records in both; shared_dlopen.c loads it with dlopen. */
#define PROF_IMPLEMENTATION
#include "prof.h"

__attribute__((noinline)) static void shared_lib_leaf(unsigned long i) {
    PROF_SCOPE("lib_leaf");
    __asm__ __volatile__("" : : "r"(i));
}
/* n scopes "lib_work", each with one "lib_leaf" inside */
void shared_lib_work(unsigned long n) {
    unsigned long i;
    for (i = 0; i < n; i++) {
        PROF_SCOPE("lib_work");
        shared_lib_leaf(i);
    }
}
