/* test_cxx.cpp - what C++ code does with PROF_SCOPE: exceptions thrown
   through scopes (RAII ends them during unwinding), function templates and
   lambdas (PROF_FUNC names), scopes in constructors and destructors, and
   std::thread workers that end before prof_stop. */
#define PROF_IMPLEMENTATION
#include "prof.h"
#include "check.h"

#include <atomic>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

static prof_event get(prof_events *ev, size_t i) {
    prof_event e;
    memset(&e, 0, sizeof e);
    CHECK_EQ_INT(prof_events_get(ev, i, &e), PROF_OK);
    return e;
}
static int64_t find(prof_events *ev, const char *name) {
    for (size_t i = 0; i < prof_events_count(ev); i++)
        if (strcmp(get(ev, i).name, name) == 0) return (int64_t)i;
    return -1;
}
static size_t count(prof_events *ev, const char *name) {
    size_t n = 0;
    for (size_t i = 0; i < prof_events_count(ev); i++)
        if (strcmp(get(ev, i).name, name) == 0) n++;
    return n;
}
static prof_config config() {
    prof_config c;
    memset(&c, 0, sizeof c);
    return c;
}

/* ---- exceptions ---- */
/* two names in turn: a scope whose only child has its own name would be
   merged into it (PyTorch's _remove_dup_nodes) */
static void level_b(int depth);
static void level_a(int depth) {
    PROF_SCOPE("level_a");
    if (depth == 0) throw std::runtime_error("bottom");
    level_b(depth - 1);
}
static void level_b(int depth) {
    PROF_SCOPE("level_b");
    if (depth == 0) throw std::runtime_error("bottom");
    level_a(depth - 1);
}
static void test_exception_unwinds_scopes() {
    prof_config c = config();
    prof_events *ev;
    CHECK_EQ_INT(prof_start(&c), PROF_OK);
    {
        PROF_SCOPE("outer");
        try {
            PROF_SCOPE("try_block");
            level_a(4);
        } catch (const std::exception &) {
            PROF_SCOPE("handler");
        }
    }
    ev = prof_stop();
    if (!CHECK(ev != NULL)) return;
    /* every scope the exception left closed at the unwinding, nothing open */
    CHECK_EQ_INT(prof_events_stats(ev).open_at_stop, 0);
    CHECK_EQ_INT(count(ev, "level_a"), 3);
    CHECK_EQ_INT(count(ev, "level_b"), 2);
    CHECK_EQ_INT(count(ev, "try_block"), 1);
    CHECK_EQ_INT(count(ev, "handler"), 1);
    int64_t outer = find(ev, "outer"), tryb = find(ev, "try_block"), handler = find(ev, "handler");
    if (CHECK(outer >= 0 && tryb >= 0 && handler >= 0)) {
        prof_event o = get(ev, (size_t)outer), t = get(ev, (size_t)tryb), h = get(ev, (size_t)handler);
        CHECK_EQ_INT(t.parent, outer);
        CHECK_EQ_INT(h.parent, outer);
        /* the try block ended before the handler began */
        CHECK(t.end_ns <= h.start_ns);
        CHECK(o.start_ns <= t.start_ns && h.end_ns <= o.end_ns);
        /* the levels nest: each one's parent is the level above, the first's
           the try block */
        size_t levels = 0;
        for (size_t i = 0; i < prof_events_count(ev); i++) {
            prof_event e = get(ev, i);
            if (strncmp(e.name, "level_", 6) != 0) continue;
            levels++;
            if (!CHECK(e.parent >= 0)) continue;
            prof_event p = get(ev, (size_t)e.parent);
            CHECK(strncmp(p.name, "level_", 6) == 0 || (e.parent == tryb && strcmp(e.name, "level_a") == 0));
            CHECK(p.start_ns <= e.start_ns && e.end_ns <= p.end_ns);
        }
        CHECK_EQ_INT(levels, 5);
    }
    prof_events_free(ev);
}

/* ---- templates, lambdas, constructors and destructors ---- */
template <typename T> static T twice(T x) {
    PROF_FUNC();
    return x + x;
}
struct Widget {
    int v;
    explicit Widget(int x) : v(x) { PROF_SCOPE("Widget::Widget"); }
    ~Widget() { PROF_SCOPE("Widget::~Widget"); }
};
static void test_names_in_cxx_code() {
    prof_config c = config();
    prof_events *ev;
    CHECK_EQ_INT(prof_start(&c), PROF_OK);
    {
        PROF_SCOPE("body");
        volatile int i = twice(1);
        volatile double d = twice(1.5);
        (void)i;
        (void)d;
        auto lambda = [](int x) {
            PROF_FUNC();
            return x * 3;
        };
        volatile int l = lambda(2);
        (void)l;
        Widget w(3);
        (void)w;
    }
    ev = prof_stop();
    if (!CHECK(ev != NULL)) return;
    /* two instantiations, two call sites, one name: one key_averages row */
    CHECK_EQ_INT(count(ev, "twice"), 2);
    CHECK_EQ_INT(count(ev, "operator()"), 1);
    CHECK_EQ_INT(count(ev, "Widget::Widget"), 1);
    CHECK_EQ_INT(count(ev, "Widget::~Widget"), 1);
    prof_averages *avg = prof_key_averages(ev, NULL);
    if (CHECK(avg != NULL)) {
        size_t rows = 0;
        for (size_t i = 0; i < prof_averages_count(avg); i++) {
            const prof_avg *a = prof_averages_get(avg, i);
            if (strcmp(a->key, "twice") == 0) {
                rows++;
                CHECK_EQ_INT(a->count, 2);
            }
        }
        CHECK_EQ_INT(rows, 1);
        prof_averages_free(avg);
    }
    /* the destructor ran inside "body" (w is destroyed before body's scope
       ends: declared later, destroyed first) */
    int64_t body = find(ev, "body"), dtor = find(ev, "Widget::~Widget");
    if (CHECK(body >= 0 && dtor >= 0)) CHECK_EQ_INT(get(ev, (size_t)dtor).parent, body);
    prof_events_free(ev);

    /* run-time names as std::string, temporaries included: copied before
       the string goes away */
    CHECK_EQ_INT(prof_start(&c), PROF_OK);
    for (int k = 0; k < 3; k++) {
        std::string layer = "layer" + std::to_string(k);
        PROF_SCOPE_DYN(layer);
        { PROF_SCOPE_DYN(layer + "/fwd"); }
        PROF_BEGIN_DYN(std::string("range") + std::to_string(k));
        PROF_END();
        PROF_SCOPE_DYN(layer.c_str()); /* and C strings still */
    }
    ev = prof_stop();
    if (!CHECK(ev != NULL)) return;
    CHECK_EQ_INT(count(ev, "layer0"), 2);
    CHECK_EQ_INT(count(ev, "layer2/fwd"), 1);
    CHECK_EQ_INT(count(ev, "range1"), 1);
    CHECK_EQ_INT(prof_events_count(ev), 12);
    prof_events_free(ev);
}

/* ---- PROF_SCOPE_SHAPES with C++ integer types ---- */
static void test_shapes_of_any_integer_type() {
    prof_config c = config();
    prof_events *ev;
    c.record_shapes = 1;
    CHECK_EQ_INT(prof_start(&c), PROF_OK);
    {
        std::vector<float> v(6);
        size_t rows = 2, cols = v.size() / 2;
        unsigned char one = 1;
        long long big = 1LL << 40;
        PROF_SCOPE_SHAPES("mm", 2, rows, cols, one, big, 0);
    }
    ev = prof_stop();
    if (!CHECK(ev != NULL)) return;
    int64_t i = find(ev, "mm");
    if (CHECK(i >= 0)) CHECK_EQ_STR(get(ev, (size_t)i).input_shapes, "[[2, 3], [1099511627776], []]");
    prof_events_free(ev);
}

/* ---- arguments C++ code passes: addresses as async ids, atomics ---- */
struct Request { int id; };
static void test_pointer_ids_and_atomics() {
    prof_config c = config();
    prof_events *ev;
    std::atomic<int> inflight(3);
    std::atomic<long long> work(2000);
    Request req = { 7 };
    const Request *creq = &req;
    c.with_flops = 1;
    CHECK_EQ_INT(prof_start(&c), PROF_OK);
    PROF_ASYNC_BEGIN("request", &req); /* an object's address as the id */
    PROF_COUNTER("inflight", inflight); /* neither can be copied */
    { PROF_SCOPE_FLOPS("kernel", work); }
    PROF_ASYNC_END(creq);
    ev = prof_stop();
    if (!CHECK(ev != NULL)) return;
    CHECK_EQ_INT(prof_events_stats(ev).unmatched_async, 0);
    int64_t i = find(ev, "request");
    if (CHECK(i >= 0)) CHECK(get(ev, (size_t)i).is_async);
    i = find(ev, "kernel");
    if (CHECK(i >= 0)) CHECK_EQ_INT(get(ev, (size_t)i).flops, 2000);
    prof_events_free(ev);
}

/* ---- std::thread ---- */
static void test_std_threads() {
    prof_config c = config();
    prof_events *ev;
    const int n_threads = 6, per_thread = 2000;
    CHECK_EQ_INT(prof_start(&c), PROF_OK);
    {
        std::vector<std::thread> ts;
        for (int k = 0; k < n_threads; k++)
            ts.emplace_back([k]() {
                std::string name = "worker " + std::to_string(k);
                prof_set_thread_name(name.c_str());
                for (int i = 0; i < per_thread; i++) {
                    PROF_SCOPE("work");
                    PROF_SCOPE("inner");
                }
            });
        for (auto &t : ts) t.join(); /* all exit before prof_stop */
    }
    ev = prof_stop();
    if (!CHECK(ev != NULL)) return;
    CHECK_EQ_INT(count(ev, "work"), (size_t)n_threads * per_thread);
    CHECK_EQ_INT(count(ev, "inner"), (size_t)n_threads * per_thread);
    CHECK_EQ_INT(prof_events_stats(ev).threads, (uint64_t)n_threads);
    /* two scopes in one block: the second nests in the first */
    int64_t inner = find(ev, "inner");
    if (CHECK(inner >= 0)) {
        prof_event e = get(ev, (size_t)inner);
        if (CHECK(e.parent >= 0)) CHECK_EQ_STR(get(ev, (size_t)e.parent).name, "work");
    }
    prof_events_free(ev);
}

int main() {
    prof_set_log(check_log, NULL);
    test_exception_unwinds_scopes();
    test_names_in_cxx_code();
    test_shapes_of_any_integer_type();
    test_pointer_ids_and_atomics();
    test_std_threads();
    return check_report();
}
