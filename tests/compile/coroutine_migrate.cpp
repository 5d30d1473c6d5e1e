/* A PROF_SCOPE held across a co_await that resumes the coroutine on
   another thread ends there (run.sh case cxx20-coroutine-migrate). Once
   prof__scope_leave wrote the record through the prof__thread saved when
   the scope began, so the worker wrote into the main thread's record
   block while the main thread recorded too, and the host crashed
   (SIGSEGV within 20000 coroutines). Now such an end is refused and
   counted (the manual's RECORDING MACROS): no crash, 1000000 main_own and
   1000000 worker_own, and each coro_scope recorded, dropped or open at the
   stop, entered = recorded + dropped + open. */
#define PROF_IMPLEMENTATION
#include "prof.h"

#include <atomic>
#include <condition_variable>
#include <coroutine>
#include <cstdio>
#include <cstring>
#include <deque>
#include <mutex>
#include <thread>

namespace {
/* one worker thread: co_await OnWorker{} resumes the coroutine there */
struct Exec {
    std::mutex m;
    std::condition_variable cv;
    std::deque<std::coroutine_handle<>> q;
    bool quit = false;
    std::thread th;
    Exec() : th([this] { run(); }) {}
    ~Exec() {
        { std::lock_guard<std::mutex> l(m); quit = true; }
        cv.notify_all();
        th.join();
    }
    void run() {
        for (;;) {
            std::coroutine_handle<> h;
            {
                std::unique_lock<std::mutex> l(m);
                cv.wait(l, [this] { return quit || !q.empty(); });
                if (q.empty()) return;
                h = q.front();
                q.pop_front();
            }
            h.resume();
            for (int k = 0; k < 50; k++) { PROF_SCOPE("worker_own"); }
        }
    }
    void post(std::coroutine_handle<> h) {
        { std::lock_guard<std::mutex> l(m); q.push_back(h); }
        cv.notify_one();
    }
};
Exec *ex;
struct OnWorker {
    bool await_ready() { return false; }
    void await_suspend(std::coroutine_handle<> h) { ex->post(h); }
    void await_resume() {}
};
struct Task {
    struct promise_type {
        Task get_return_object() { return {}; }
        std::suspend_never initial_suspend() { return {}; }
        std::suspend_never final_suspend() noexcept { return {}; }
        void return_void() {}
        void unhandled_exception() {}
    };
};
std::atomic<int> finished{0};
Task job() {
    PROF_SCOPE("coro_scope"); /* begins on the main thread */
    co_await OnWorker{};      /* ... and ends on the worker */
    finished++;
}
size_t count(prof_events *ev, const char *name) {
    size_t n = 0;
    for (size_t i = 0; i < prof_events_count(ev); i++) {
        prof_event e;
        if (prof_events_get(ev, i, &e) == PROF_OK && std::strcmp(e.name, name) == 0) n++;
    }
    return n;
}
} // namespace

int main() {
    const int N = 20000;
    prof_config c;
    std::memset(&c, 0, sizeof c);
    if (prof_start(&c) != PROF_OK) return 1;
    ex = new Exec;
    for (int i = 0; i < N; i++) {
        job();
        for (int k = 0; k < 50; k++) { PROF_SCOPE("main_own"); }
    }
    while (finished < N) std::this_thread::yield();
    delete ex;
    prof_events *ev = prof_stop();
    prof_stats s = prof_events_stats(ev);
    size_t coro = count(ev, "coro_scope"), mo = count(ev, "main_own"), wo = count(ev, "worker_own");
    std::printf("coro_scope %zu, main_own %zu, worker_own %zu; entered %llu = recorded %llu + dropped %llu + open %llu\n", coro, mo, wo,
                (unsigned long long)s.scopes_entered, (unsigned long long)s.scopes_recorded, (unsigned long long)s.scopes_dropped,
                (unsigned long long)s.open_at_stop);
    int ok = mo == (size_t)N * 50 && wo == (size_t)N * 50 && coro + s.scopes_dropped + s.open_at_stop == (size_t)N &&
             s.scopes_entered == s.scopes_recorded + s.scopes_dropped + s.open_at_stop;
    prof_events_free(ev);
    return ok ? 0 : 1;
}
