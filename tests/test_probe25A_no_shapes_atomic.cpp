/* test_probe25A_no_shapes_atomic.cpp - PROF_SCOPE_SHAPES with C++ values
   that the recording build takes but that cannot go through C varargs,
   under PROF_NO_SHAPES.

   The manual: PROF_SCOPE_SHAPES takes "in C++ any integer types", its
   values converted "by reference: a std::atomic, which cannot be copied,
   converts too" (prof__to_i64(const T &)); and PROF_NO_SHAPES turns the
   macro into a plain scope. But with PROF_NO_SHAPES (and PROF_DISABLED)
   the values are passed to the never-defined variadic prof__use_(int, ...)
   (prof.h's PROF__DECL_USE(PROF__ID, prof__use_(0, __VA_ARGS__))), and C++
   cannot pass a std::atomic (deleted copy constructor) or, for clang, any
   non-trivially-copyable class through "...":
     g++ 12:     error: use of deleted function 'std::atomic<long int>::atomic(const std::atomic<long int>&)'
     clang++ 14: error: call to deleted constructor of 'std::atomic<int64_t>'
                 error: cannot pass object of non-trivial type 'Dim' through variadic function [-Wnon-pod-varargs]
   So a project whose recording build compiles stops compiling when it
   turns shapes (or the profiler) off. This file does not build on the
   current prof.h; once it does, it checks that the scope is recorded as a
   plain operator scope and that no value was evaluated twice. */
#define PROF_NO_SHAPES
#define PROF_IMPLEMENTATION
#include "prof.h"
#include "check.h"

#include <atomic>

/* a dimension type with a destructor: not trivially copyable */
struct Dim {
    int64_t v;
    explicit Dim(int64_t x) : v(x) {}
    Dim(const Dim &o) : v(o.v) {}
    ~Dim() {}
    operator int64_t() const { return v; }
};

static int evaluated;
static int64_t next_dim() { return ++evaluated; }

int main() {
    prof_set_log(check_log, NULL);
    prof_config c{};
    c.record_shapes = 1;
    std::atomic<int64_t> rows(3);
    Dim cols(4);
    CHECK_EQ_INT(prof_start(&c), PROF_OK);
    {
        PROF_SCOPE_SHAPES("mm", 2, rows, cols, 1, next_dim());
    }
    prof_events *ev = prof_stop();
    if (!CHECK(ev != NULL)) return check_report();
    CHECK_EQ_INT(prof_events_count(ev), 1);
    prof_event e;
    memset(&e, 0, sizeof e);
    if (CHECK_EQ_INT(prof_events_get(ev, 0, &e), PROF_OK)) CHECK_EQ_STR(e.name, "mm");
    CHECK(evaluated <= 1);
    CHECK_EQ_INT(rows.load(), 3);
    prof_events_free(ev);
    return check_report();
}
