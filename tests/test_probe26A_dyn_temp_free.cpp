/* PROF_SCOPE_DYN with a temporary name, the natural C++ call:
   PROF_SCOPE_DYN("layer" + std::to_string(i)). The manual: "a C string, or
   anything with c_str() (std::string); the name is copied before the call
   returns", and prof__scope_enter_named reads the scope's start only after
   that copy, so the name's handling is no part of the scope.
   Found: the macro declares the scope as
       prof__scope_guard g(&site, prof__cstr(NAME));
   and C++ destroys the temporaries of that declaration (the name's string
   and every temporary that built it) at the end of the full-expression,
   that is after the guard's constructor has started the scope. So their
   frees happen inside the scope: with profile_memory and an allocator
   that reports to prof_alloc/prof_dealloc (a replaced operator new/delete
   or an interposed malloc, as the manual describes), every such scope
   shows a negative CPU Mem, minus its name's heap size (any name past
   std::string's 15-byte small buffer): measured -56 B a call (-72.84 KB
   over 1336 calls) for 40-byte names in a table whose scopes allocate
   nothing of their own; and each scope's time includes the free.
   Here the name is a type with c_str() whose construction and destruction
   report a 64-byte block (and wait 2 us of CLOCK_MONOTONIC first, so that
   its records' times cannot share a clock tick with the scope's start or
   end). The scope allocates nothing: its cpu_memory_usage must be 0, and
   the enclosing scope's too (the block is allocated and freed inside it).
   Wanted: the name's temporaries die outside the scope. For
   PROF_SCOPE_DYN one way is to bind the name to a reference declared
   before the guard, which extends the temporary to the end of the block,
   past the guard's destructor:
       auto &&prof__nm_N = (NAME);   // C++ only
       prof__scope_guard g(&site, prof__cstr(prof__nm_N));
   (the intermediate temporaries then die before the guard is made).
   Found next (session 41, a real-programs probe): that binding kept a
   class temporary alive, but a name that points into a temporary,
   PROF_SCOPE_DYN((prefix + std::to_string(i)).c_str()) or an accessor of
   a temporary object, was read after its temporary died (the names came
   out as garbage, ASan: heap-use-after-free; clang -Wdangling-gsl refused
   the build under -Werror). Now the name is copied in a declaration of its
   own and the scope starts in the next one: both forms name their scopes
   exactly, in every stack mode (with native stacks the scope keeps its
   stack). */
#define PROF_IMPLEMENTATION
#include "prof.h"
#include "check.h"

#include <string>
#include <time.h>

static void wait_2us() {
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    do clock_gettime(CLOCK_MONOTONIC, &b);
    while ((b.tv_sec - a.tv_sec) * 1000000000L + (b.tv_nsec - a.tv_nsec) < 2000);
}

/* A name with c_str() that owns a tracked heap block, as std::string does. */
struct Name {
    char *p;
    explicit Name(const char *s) : p(static_cast<char *>(malloc(64))) {
        snprintf(p, 64, "%s", s);
        prof_alloc(p, 64);
        wait_2us();
    }
    ~Name() {
        wait_2us();
        prof_dealloc(p);
        free(p);
    }
    const char *c_str() const { return p; }
    Name(const Name &) = delete;
    Name &operator=(const Name &) = delete;
};

/* A temporary object whose accessor returns a reference into itself. */
struct Layer {
    std::string n;
    explicit Layer(int i) : n("layer_with_a_long_heap_name_past_the_sso_" + std::to_string(i)) {}
    const std::string &name() const { return n; }
};
static Layer make_layer(int i) { return Layer(i); }

static prof_event get(prof_events *ev, size_t i) {
    prof_event e;
    memset(&e, 0, sizeof e);
    CHECK_EQ_INT(prof_events_get(ev, i, &e), PROF_OK);
    return e;
}

int main() {
    prof_config c;
    memset(&c, 0, sizeof c);
    c.profile_memory = 1;
    prof_set_log(check_log, NULL);
    if (!CHECK_EQ_INT(prof_start(&c), PROF_OK)) return check_report();
    {
        PROF_SCOPE("outer");
        wait_2us();
        {
            PROF_SCOPE_DYN(Name("dyn_scope")); /* allocates and frees nothing of its own */
        }
        wait_2us();
    }
    prof_events *ev = prof_stop();
    if (!CHECK(ev != NULL)) return check_report();
    size_t found = 0;
    for (size_t i = 0; i < prof_events_count(ev); i++) {
        prof_event e = get(ev, i);
        if (strcmp(e.name, "dyn_scope") == 0) {
            found++;
            CHECK_MSG(e.cpu_memory_usage == 0 && e.self_cpu_memory_usage == 0,
                      "PROF_SCOPE_DYN(Name(...)): the scope is charged %lld bytes (self %lld) by its own name's temporary, freed "
                      "inside it (0 wanted)",
                      (long long)e.cpu_memory_usage, (long long)e.self_cpu_memory_usage);
        } else if (strcmp(e.name, "outer") == 0) {
            CHECK_EQ_INT(e.cpu_memory_usage, 0); /* +64 and -64, both inside */
        } else {
            CHECK_MSG(0, "unexpected event %s", e.name);
        }
    }
    CHECK_EQ_INT(found, 1);
    prof_events_free(ev);

    /* names that point into temporaries, in each stack mode */
    for (int mode = PROF_STACK_NONE; mode <= PROF_STACK_NATIVE; mode++) {
        memset(&c, 0, sizeof c);
        c.with_stack = mode;
        if (!CHECK_EQ_INT(prof_start(&c), PROF_OK)) return check_report();
        for (int i = 0; i < 4; i++) {
            PROF_SCOPE_DYN((std::string("a_long_dynamic_scope_name_past_the_sso_") + std::to_string(i)).c_str());
            PROF_SCOPE_DYN(make_layer(i).name());
        }
        ev = prof_stop();
        if (!CHECK(ev != NULL)) return check_report();
        if (CHECK_EQ_INT(prof_events_count(ev), 8)) {
            for (size_t i = 0; i < 8; i++) {
                prof_event e = get(ev, i);
                char want[96];
                snprintf(want, sizeof want, i % 2 ? "layer_with_a_long_heap_name_past_the_sso_%d" : "a_long_dynamic_scope_name_past_the_sso_%d", (int)(i / 2));
                CHECK_EQ_STR(e.name, want);
                if (mode != PROF_STACK_NONE) CHECK_MSG(e.stack_depth > 0, "mode %d: %s has no stack", mode, e.name);
            }
        }
        prof_events_free(ev);
    }
    return check_report();
}
