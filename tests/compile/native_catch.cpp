/* PROF_STACK_NATIVE, a scope in a C++ catch handler at -O2 (built with
   -rdynamic by the compile matrix's native-catch-* cases): the compilers
   deem a handler cold and keep prof.h's recording helper out of line
   there (g++: prof__scope_enter; clang++: prof__scope_guard's
   constructor), so the stack began with that helper's frame, an extra
   innermost frame of prof.h's own in pprof, the folded stacks and the
   trace's "Call stack" (found by a helper instrumenting ninja and
   leveldb). Wanted: the stack starts in the handler's function (named, or
   "??" for g++'s .cold part, which has no symbol), its caller next. */
#define PROF_IMPLEMENTATION
#include "prof.h"

#include <cstdio>
#include <cstring>
#include <stdexcept>

__attribute__((__noinline__)) void native_catch_thrower(int i);
__attribute__((__noinline__)) int native_catch_scoped(int i);
__attribute__((__noinline__)) int native_catch_caller(int n);

void native_catch_thrower(int i) {
    if (i >= 0) throw std::runtime_error("thrown");
}
int native_catch_scoped(int i) {
    try {
        native_catch_thrower(i);
    } catch (const std::exception &) {
        PROF_SCOPE("in_handler");
        return 1;
    }
    return 0;
}
int native_catch_caller(int n) {
    int s = 0;
    for (int i = 0; i < n; i++) s += native_catch_scoped(i);
    return s;
}

int main() {
    prof_config cfg{};
    cfg.with_stack = PROF_STACK_NATIVE;
    if (prof_start(&cfg) != PROF_OK) return 2;
    int s = native_catch_caller(3);
    prof_events *ev = prof_stop();
    if (!ev) return 3;
    int bad = 0, seen = 0;
    for (size_t i = 0; i < prof_events_count(ev); i++) {
        prof_event e;
        if (prof_events_get(ev, i, &e) != PROF_OK || std::strcmp(e.name, "in_handler") != 0) continue;
        seen++;
        if (e.stack_depth < 2) {
            std::printf("in_handler: a stack of %d frames\n", e.stack_depth);
            bad++;
            continue;
        }
        std::printf("in_handler: %s | %s\n", e.stack[0], e.stack[1]);
        if (std::strncmp(e.stack[0], "prof__", 6) == 0 || std::strncmp(e.stack[1], "native_catch_caller", 19) != 0) bad++;
    }
    prof_events_free(ev);
    if (seen != 3 || s != 3) std::printf("%d scopes in handlers recorded, %d handled: 3 wanted\n", seen, s);
    return bad || seen != 3 || s != 3;
}
