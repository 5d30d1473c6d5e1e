/* Macros that real code bases define before they include a header, named
   like identifiers prof.h used (found instrumenting zstd: its
   zstd_internal.h, like lz4.c and xxhash's benchmarks, defines the size
   suffixes below, and the implementation did not compile):

     #define KB *(1 <<10)          zstd, lz4, xxhash (size suffixes: 64 KB)
     #define MB *(1 <<20)
     #define GB *(1U<<30)
     #define aligned(n) ...        attribute shorthands (cf. BSD __aligned):
                                   prof.h's public structs spelled
                                   __attribute__((aligned(8))), so every
                                   file that included it failed
     #define T double, N 1024      an element type, a problem size: prof.h's
                                   C++ templates named their parameters so
     #define slots                 Qt (qobjectdefs.h, without QT_NO_KEYWORDS)
     #define signals public, emit  Qt's other keywords
     #define small char, far       Windows headers (rpcndr.h, windef.h)
     #define min(a, b), max(a, b)  (C++'s <cstdlib>, which the implementation
                                   includes, #undefs these two there)

   The implementation and every public macro (usage.h, as the matrix's
   other cases use them), built in C11 and C++17 under -Wall -Wextra
   -Wpedantic -Werror, then run; the macros stay usable after prof.h. */
#define KB *(1 << 10)
#define MB *(1 << 20)
#define GB *(1U << 30)
#define aligned(n) __attribute__((__aligned__(n)))
#define packed __attribute__((__packed__))
#define T double
#define N 1024
#define K 16
#define M 8
#define X 1
#define slots
#define signals public
#define emit
#define small char
#define far
#define near
#define min(a, b) ((a) < (b) ? (a) : (b))
#define max(a, b) ((a) > (b) ? (a) : (b))
#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)
#define PROF_IMPLEMENTATION
#include "prof.h"
#include "usage.h"

/* the file's own use of its macros, in a session of its own */
static int own(void) {
    small buf[4 KB / 1024];
    T x = (T)N * K * M * X;
    PROF_SCOPE("own");
    if (unlikely(x < 0)) return 0;
    snprintf(buf, sizeof buf, "%d", (int)(x > 0));
    return likely(buf[0] == '1');
}

int main(void) {
    return usage_session(own);
}
