/* test_probe25A_disabled_shapes_atomic.cpp - PROF_SCOPE_SHAPES with C++
   values that the recording build takes (std::atomic dims, a dimension
   class with a destructor) under -DPROF_DISABLED.

   The manual: PROF_DISABLED "= every macro above compiles to nothing ...
   their arguments are not evaluated, yet count as used", and shapes take
   "in C++ any integer types", converted by reference ("a std::atomic,
   which cannot be copied, converts too"). But the disabled
   PROF_SCOPE_SHAPES hands its values to the variadic prof__use_(int, ...)
   (prof.h: `#define PROF_SCOPE_SHAPES(name, ...) PROF__DECL_USE(PROF__ID,
   prof__use_(0, __VA_ARGS__))`), which C++ cannot do for a std::atomic
   (deleted copy constructor; g++ and clang++ both refuse) nor, in
   clang++, for a non-trivially-copyable class (-Wnon-pod-varargs, an
   error by default). A project whose profiling build compiles fails to
   compile its release build (-DPROF_DISABLED). This file does not build
   on the current prof.h; once it does, it checks that nothing is
   recorded and no value is evaluated. (Same for PROF_NO_SHAPES:
   test_probe25A_no_shapes_atomic.cpp.) */
#define PROF_DISABLED
#define PROF_IMPLEMENTATION
#include "prof.h"
#include "check.h"

#include <atomic>

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
    CHECK_EQ_INT(prof_events_count(ev), 0);
    CHECK_EQ_INT(evaluated, 0); /* not evaluated when compiled out */
    CHECK_EQ_INT(rows.load(), 3);
    prof_events_free(ev);
    return check_report();
}
