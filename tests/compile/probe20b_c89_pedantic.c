/* probe20b-c89-pedantic-{gcc,clang}: prof.h in a file built with zstd's own
   C90 build (its Makefile's c89build: -std=c89 -Werror -Wno-attributes
   -Wpedantic -Wno-long-long -Wno-variadic-macros -O0, plus lib/libzstd.mk's
   DEBUGFLAGS). Such projects silence the variadic macros
   (-Wno-variadic-macros) and long long (-Wno-long-long); what was left
   was __func__: prof.h's call site (PROF__SITE_INIT's func field) named
   __func__ in every scope macro, PROF_SCOPE("name") included, so with
   gcc 12 each failed with "ISO C90 does not support '__func__' predefined
   identifier" (clang 14 accepts __func__ there). Nothing else in the
   macros is refused. prof.h now writes `__extension__ __func__` in C
   under gcc and clang (PROF__FUNC), the same value: this builds, runs and
   counts 12 scopes. The implementation is built apart (c_impl.c, C11):
   under these flags it would meet -Wformat=2's "ISO C90 does not support
   the 'z' length modifier" (%zu, about ten places); the manual says to
   build it as C99 or later.
   PROF_SCOPE_SHAPES with run-time dims (mm below) was refused too: its
   values are an array's initializer, which C90 wants constant ("initializer
   element is not computable at load time", gcc; clang: "initializer for
   aggregate is not a compile-time constant"); gcc and clang take it as an
   extension, and prof.h now turns -Wpedantic off for that one declaration
   in C90. The shapes are checked as recorded. */
#include <stdio.h>
#include <string.h>
#include "prof.h"

static int parse(const char *s, int *out)
{
    int n = 0;
    PROF_FUNC();
    if (!s) return -1;           /* early return */
    while (*s) {
        PROF_SCOPE("digit");
        if (*s < '0' || *s > '9') goto bad;
        n = n * 10 + (*s - '0');
        s++;
    }
    *out = n;
    return 0;
bad:
    return -2;
}

static int mm(int rows, int cols)
{
    int k = rows * cols;
    PROF_SCOPE_SHAPES("mm", 2, rows, cols, 1, k);
    return k;
}

int main(void)
{
    prof_config cfg;
    prof_events *ev;
    prof_stats st;
    int v = 0, r1, r2, r3, ok, found = 0;
    size_t i, n;
    prof_event e;
    memset(&cfg, 0, sizeof cfg);
    cfg.record_shapes = 1;
    if (prof_start(&cfg) != PROF_OK) return 1;
    PROF_BEGIN("all");
    r1 = parse("12345", &v);     /* parse + 5 digits */
    if (r1 != 0) return 1;
    r2 = parse("12x", &v);       /* parse + 3 digits, the last left by goto */
    r3 = parse(0, &v);           /* parse */
    r1 = mm(3, 7);
    PROF_END();
    ev = prof_stop();
    if (!ev) return 1;
    n = prof_events_count(ev);
    for (i = 0; i < n; i++)
        if (prof_events_get(ev, i, &e) == PROF_OK && strcmp(e.name, "mm") == 0)
            found = e.input_shapes && strcmp(e.input_shapes, "[[3, 7], [21]]") == 0;
    st = prof_events_stats(ev);
    ok = r1 == 21 && found && r2 == -2 && r3 == -1 && st.scopes_recorded == 13 && st.scopes_entered == 13;
    printf("recorded %lu: %s\n", (unsigned long)st.scopes_recorded, ok ? "ok" : "WRONG");
    prof_events_free(ev);
    return ok ? 0 : 1;
}
