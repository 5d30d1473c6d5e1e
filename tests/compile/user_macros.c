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

   The implementation and every scope macro, built in C11 and C++17 under
   -Wall -Wextra -Wpedantic -Werror, then run: the same counts as without
   the macros. */
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
#include <stdio.h>
#include <string.h>

static T work(int i) {
    PROF_SCOPE("work");
    PROF_SCOPE_DYN(i % 2 ? "odd" : "even");
    if (unlikely(i < 0)) return 0;
    return (T)(i < N ? i : N) * K;
}
static int shaped(int i) {
    PROF_SCOPE_SHAPES("mm", 2, i, M, 2, M, i);
    PROF_SCOPE_FLOPS("flops", 2 * i);
    return i > X ? i : X;
}

int main(void) {
    prof_config cfg;
    prof_events *ev;
    prof_stats s;
    small buf[64 KB / 1024];
    int i;
    T sum = 0;
    memset(&cfg, 0, sizeof cfg);
    cfg.record_shapes = 1;
    cfg.with_flops = 1;
    if (prof_start(&cfg) != PROF_OK) return 1;
    for (i = 0; i < 10; i++) {
        PROF_FUNC();
        sum += work(i) + shaped(i);
        PROF_MARK("m");
        PROF_COUNTER("c", i);
    }
    ev = prof_stop();
    if (!ev) return 1;
    s = prof_events_stats(ev);
    snprintf(buf, sizeof buf, "%g", (double)sum);
    printf("sum %s scopes %llu\n", buf, (unsigned long long)s.scopes_recorded);
    if (prof_export_chrome_trace(ev, "user_macros.json") != PROF_OK) return 1;
    prof_events_free(ev);
    return s.scopes_recorded == 50 ? 0 : 1;
}
