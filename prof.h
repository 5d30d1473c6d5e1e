/* prof.h - v0.1 - PyTorch-style profiler for C, C++ and CUDA in one header.

   WHAT IT IS
   ==========
   prof.h records scopes (PROF_SCOPE) with the overhead of the fastest
   instrumentation profilers, then analyses them exactly as PyTorch's
   profiler does: parents and children from interval nesting, self times,
   key_averages grouping, total_average, the summary table of
   EventList.table() byte for byte, a Chrome/Perfetto trace in Kineto's
   layout and flamegraph stacks.

   Do this:
       #define PROF_IMPLEMENTATION
   before you include this file in *one* C or C++ file to create the
   implementation. Every other file just includes "prof.h".
   Link with -pthread (and -ldl on glibc before 2.34; no libm is needed).
   Linux (x86-64, aarch64; i386 too, where files past 2 GiB want
   -D_FILE_OFFSET_BITS=64 in the implementation's file (without it, such
   an export fails with EFBIG, PROF_E_IO, the old file kept), and where the
   implementation's file wants -msse2 -mfpmath=sse: with x87 math doubles
   carry excess precision, so the table's order of near-equal averages and
   the JSON trace's ts + dur nesting may differ from Python's doubles in
   the last bit) with gcc or clang. prof_stop, the tables and the exporters format
   with the C library's snprintf (%lld, %zu, %.*f...):
   a program that replaces snprintf/vsnprintf with its own, not ISO C's
   (MicroPython's unix port does, by default), crashes there.
   The implementation may come after other includes, whatever feature-test
   macros the file sets from POSIX.1-2001 on (the default modes,
   _DEFAULT_SOURCE, _POSIX_C_SOURCE 200112L or 200809L, _XOPEN_SOURCE 600
   or 700). Where a system header comes first in a strict -std=c99/c11 file
   with no feature-test macro, or with an older _POSIX_C_SOURCE, prof.h
   stops with the cause and the fix (include prof.h first in that file, or
   raise the macro). The header part includes <stddef.h>, <stdint.h> and
   <stdio.h>, so, like any system header, it fixes the feature set: in a
   file that sets a feature-test macro itself (#define _GNU_SOURCE, say),
   include prof.h after that line.
   C: C99 and later; files in C90 (-std=c89/gnu89) that use the macros
   build too, with -Wpedantic only beside -Wno-variadic-macros (the macros
   are variadic, as C99's; zstd's C90 build does so). The implementation
   wants C99 or later. C++11 and later;
   in a C++ file the implementation turns off, for itself alone, the
   C++-style warnings C code cannot help (-Wold-style-cast,
   -Wuseless-cast, -Wzero-as-null-pointer-constant), and -Winline in any
   language (gcc's growth limits, not a fault). In the user's own code,
   -Winline may name the recording helpers at -Os or -Og (in C++ also at
   -O2: a scope's end on the unwinding path), where gcc keeps them out of
   line; they are not forced inline, since that would bring -Wclobbered
   warnings into functions that call setjmp. clang's -Weverything (less
   -Wpadded and -Wreserved-identifier, from clang 16 -Wunsafe-buffer-usage,
   which flags every pointer index, and in C++ -Wc++98-compat and
   -Wc++98-compat-pedantic) and -fshort-enums are clean (clang 14 and 19
   tested). Other compilers (tcc, pcc) get an #error saying so. gcc's
   -Waggregate-return is off for prof.h's own code and the macros' calls
   (at every -O level); the user's own calls of the functions that return
   a struct (prof_events_stats, prof_events_total_average,
   prof_averages_total_average) warn, as they would for any library.
   With -static, PROF_STACK_NATIVE finds no symbol names (dladdr has none
   to give): its frames are addresses. Include prof.h outside any #pragma
   pack: inside pack(4) or less it refuses to compile (its call sites must
   be 8-byte aligned), as it does under gcc's -fpack-struct (an ABI change:
   its structs would not match the implementation's file, nor libc's).

   QUICK START
   ===========
       #define PROF_IMPLEMENTATION
       #include "prof.h"

       prof_config cfg = {0};                 // zero = sensible defaults
       prof_start(&cfg);
       for (int i = 0; i < n; i++) {
           PROF_SCOPE("step");                // ends with the enclosing block
           { PROF_SCOPE("matmul"); matmul(); }
           relu();                            // relu() starts with PROF_FUNC();
       }
       prof_events *ev = prof_stop();
       prof_report_options opt = {0};         // zero = the table to stdout
       opt.table.sort_by = "self_cpu_time_total"; opt.table.row_limit = 10;
       opt.chrome_trace = "trace.json";       // open in ui.perfetto.dev
       prof_report(ev, &opt);                 // returns the first error
       prof_events_free(ev);

   (In C++, `prof_config cfg{};` and `prof_report_options opt{};`: g++'s
   and clang++'s -Wmissing-field-initializers flag `= {0}` there.)
   prof_report is the common case in one call; the functions it calls
   (prof_key_averages, prof_averages_print_table, prof_export_*) are public
   for everything else.

   RECORDING MACROS
   ================
   PROF_SCOPE(name)       Records the rest of the enclosing block as one event
                          on every exit path (return, break, goto): the cleanup
                          attribute in C, RAII in C++. `name` must be a string
                          constant or __func__ (a pointer or a local array
                          fails to compile, in C and in C++); an array of
                          static storage compiles too, and its text is
                          read at prof_stop, so it must not change in
                          between. Several on one line work.
   PROF_SCOPE_DYN(name)   Same, for a name built at run time: it is copied
                          into the thread's records (only when the event
                          cap admits the scope) and interned by prof_stop,
                          so its cost does not grow with distinct names; a
                          name of 4 KiB or more is copied once per session,
                          thread, site and name instead. In C++ it takes a
                          std::string or anything with c_str(), temporaries
                          included (("layer" + std::to_string(i)).c_str()): the
                          name is copied before the scope starts, and its
                          temporaries die in between.
   PROF_FUNC()            PROF_SCOPE named after the enclosing function.
   PROF_BEGIN(name)       Opens a range on this thread (for code that cannot
   PROF_END()             use a block); PROF_END closes the innermost one. An
                          unbalanced PROF_END is counted and reported.
   PROF_BEGIN_DYN(name)   PROF_BEGIN with a run-time name (copied).
   PROF_MARK(name)        An instant event.
   PROF_COUNTER(name, v)  A sample of a counter track (double; NaN and
                          infinities are written as null in the JSON).
   PROF_ASYNC_BEGIN(name, id) / PROF_ASYNC_END(id)
                          A range that may end on another thread, matched by
                          a 64-bit id (is_async: no parent, no self time).
                          Past max_events a range can keep its begin and lose
                          its end: it is then unmatched (prof_stats counts
                          both, async_dropped and unmatched_async), as is
                          a range begun and ended in two schedule windows
                          (a window holds what began and ended in it, as
                          for scopes). Its stack (with_stack) is its own
                          frame only, not the scopes around its begin. In
                          the JSON trace a "b"/"e" pair, not an "X" (TIMES
                          IN THE JSON TRACE); in Perfetto an "async" lane.
                          An id may be any integer or, in C and C++, an
                          address (through uintptr_t; nullptr is 0).
   PROF_THREAD_NAME(name) Names the calling thread (the trace's thread
                          names, prof_event.thread_name): prof_set_thread_name,
                          which copies the name whole; a name set again costs
                          a compare, no lock. In C++ also a std::string.
                          A list knows a thread by its id: a thread given an
                          ended thread's id in the same session (the kernel
                          reuses ids once its counter wraps at pid_max) and
                          that thread share one entry: one trace row and one
                          name (the first prof_stop finds).
   Operator scopes (trace category cpu_op) that carry what PyTorch's ops do:
   PROF_SCOPE_OP(name)    A plain operator scope.
   PROF_SCOPE_SHAPES(name, ndim, dims..., ndim, dims...)
                          Input shapes inline, e.g. PROF_SCOPE_SHAPES("mm",
                          2, m, k, 2, k, n) is [[m, k], [k, n]] (record_shapes).
                          At most 64 values (more fails to compile); in C++
                          any integer types; a list that does not parse is
                          counted in prof_stats.malformed_shapes.
   PROF_SCOPE_FLOPS(name, flops)            A flop count (with_flops).
   PROF_SCOPE_ARGS(name, &args)             A prof_args: shapes, flops,
                          overload name, sequence_nr, fwd_thread, scope
                          (sequence_nr and fwd_thread only with their bits,
                          PROF_ARGS_SEQUENCE_NR, PROF_ARGS_FWD_THREAD, in
                          .set; zero the struct first).
   PROF_SCOPE and the other scope macros are declarations in every build
   mode, PROF_DISABLED included (they live until the end of the block, so
   they cannot follow a case label or stand alone under an unbraced if);
   every other macro is a statement. None evaluates an argument twice.
   A jump into a scope's range (a goto over it to a later label, a case
   label after it) does not compile, in C with gcc and clang as in C++: it
   would skip the scope's start. Jumps out of a scope, and within one, are
   fine, except a computed goto (goto *p, GNU C: an interpreter's jump
   table), on which gcc and g++ run no cleanup or destructor (clang refuses
   to compile it): time such a block with PROF_BEGIN/PROF_END, or put the
   scope in a function the block calls. In C, the macros name prof.h's
   static inline helpers, which an inline function with external linkage
   may not (C99 6.7.4p3; gcc warns, clang with -Wpedantic): make such a
   function static inline. Compiled out (PROF_DISABLED), they name none.
   A scope that never reaches its end in C (a longjmp over it, as in Lua's
   errors and setjmp-based coroutines; a computed goto; exit() or, without
   -fexceptions, pthread_exit or a pthread_cancel acting inside it, or a
   C++ exception thrown through it) has no event: prof_stats counts it in
   open_at_stop (prof_stop warns of open scopes), it keeps the share of
   max_events it took when it began, and the scopes that ended inside it
   are kept, under its nearest recorded ancestor. The accounting stays
   exact and the profile holds only whole events. C++ exceptions unwind
   through a PROF_SCOPE of C++ code and record it (and through one of C
   code built with -fexceptions). A PROF_BEGIN jumped over stays on its
   thread's range stack: the next PROF_END closes it (SIGNALS).
   A scope must end on the thread that began it. In a C++20 coroutine (or
   a fiber), do not hold a scope across a co_await that may resume on
   another thread: such an end is not recorded (a warning at prof_stop
   counts it with the unbalanced ends, and the first thread's scope shows
   as open at the stop). End the scope before the co_await, or time such
   a span with PROF_ASYNC_BEGIN/END. On one thread, fibers or coroutines
   that hold scopes across their switches make scopes that overlap without
   nesting; as in PyTorch, each becomes a child of the scope that encloses
   it, so that scope's Self CPU can be negative (the JSON trace writes such
   scopes as b/e pairs, the Perfetto trace on "overlapping" lanes). End
   scopes before a switch to keep self times whole.
   The macros work in shared libraries, linked or dlopen'ed (with the
   implementation in the executable, link it with -rdynamic). Keep a
   library whose code recorded loaded until prof_stop returns: its records
   point at its macros' static data, which prof_stop reads (a dlclose
   before then can crash prof_stop). The list prof_stop returns holds
   copies, so a dlclose after it is fine. A library with its own copy of
   the implementation must hide it (-fvisibility=hidden, exporting its own
   API explicitly, or -DPROF_API='extern __attribute__((visibility(
   "hidden")))' in its files): with default visibility the dynamic linker
   binds it to a copy loaded before it (another library's, a -rdynamic
   executable's), whose sessions its calls then start and stop; such a
   copy says so with a warning when it is loaded. A hidden copy may be
   dlclose'd while threads that recorded through it live on: they exit
   without calling into it (each leaves its state and its current record
   block, 12 KiB or more, behind).

   CONFIGURATION MACROS
   ====================
   Whole project (every file that includes prof.h must agree):
     PROF_DISABLED      defined = every macro above compiles to nothing
                        (-DPROF_DISABLED, -DPROF_DISABLED=1 and an empty
                        #define PROF_DISABLED alike); their arguments
                        are not evaluated, yet count as used (no -Wunused
                        for a variable, a static array used as a name or a
                        static function that only feeds them; so what they
                        name must be declared in this mode too). The
                        functions stay, so
                        hand-built event lists still work; prof_alloc,
                        prof_alloc_ex and prof_dealloc record nothing, as
                        with PROF_NO_MEMORY. -DPROF_DISABLED=0
                        stops the build with a message: defined means on;
                        to record, leave it undefined. In nvcc's device
                        pass (__CUDA_ARCH__) the macros are compiled out
                        alike: a __host__ __device__ function may use
                        them, and records when it runs on the host.
     PROF_CUPTI         defined = CUDA tracing through CUPTI is compiled in
                        (-I<cuda>/include, link -lcupti). Without it nothing
                        of CUDA is compiled. Builds against the headers of
                        CUDA 12.0 to 13.x (the record versions follow
                        CUPTI_API_VERSION; older headers are an #error).
                        GPU work still running at prof_stop is not
                        recorded (only counted, in prof_stats and a
                        warning): call cudaDeviceSynchronize() (every
                        device) before prof_stop, as torch.profiler does.
                        prof_stop gives CUPTI back (unsubscribe, finalize),
                        so another CUPTI client can follow. CUPTI takes
                        one client at a time: while another holds it
                        (Nsight, compute-sanitizer; torch.profiler from its
                        first CUDA profile to the process's exit) a session
                        records the CPU only, with one error. Without a
                        driver or GPU, one info line, once per process.
                        CUPTI's activity buffers (CUDA 13: one per thread
                        that calls CUDA) hold at most 256 MiB in all: 1
                        MiB each, 64 KiB once fewer than 64 MiB are left,
                        a full one shrunk to its records; past that CUPTI
                        drops records, counted and said at prof_stop.
     PROF_NO_SHAPES, PROF_NO_FLOPS, PROF_NO_MEMORY, PROF_NO_STACK
                        defined = that feature is compiled out: its macros
                        become plain scopes (their shape and flop arguments
                        not evaluated, as under PROF_DISABLED), and its
                        recording calls (prof_alloc, prof_alloc_ex,
                        prof_dealloc) record nothing; prof_flops_* and the
                        prof_malloc family still compute and allocate. The
                        matching prof_config field is read as 0, without a
                        warning (no memory columns, no shapes, no stacks;
                        with_flops then turns no record_shapes on). Define
                        it in the implementation's file too (or
                        project-wide): prof_start reads it there.
                        Memory: prof_alloc keeps every block it is told of
                        in a table of live blocks, from the first call on,
                        sessions or not (so that a block freed in a session
                        is sized, wherever it was allocated): about 70
                        bytes a live block and 0.3-0.5 us an allocation and
                        free on the machine measured. A program that
                        reports its allocator's blocks but seldom profiles
                        memory pays that throughout; PROF_NO_MEMORY (or
                        PROF_DISABLED) takes it out.
     PROF_CLOCK_MONOTONIC  defined = time scopes with clock_gettime instead of
                        the TSC (x86-64) or the virtual counter (aarch64).
     PROF_CLOCK_ORDERED defined = on x86-64 a scope's start (and a mark's,
                        a counter's, an allocation's time) reads the TSC
                        after an lfence. rdtsc is not ordered after the
                        loads before it, so without the fence a scope that
                        begins once another thread's scope ended (a flag,
                        a lock handed over) may read as beginning up to
                        some hundreds of ns before that end (a few us after
                        a sleep, with cold caches: 1.9 us seen); with it,
                        never.
                        Costs about 7 ns a scope (1.3x the floor here).
                        CLOCK_MONOTONIC's reads are ordered already, and so
                        are PROF_ASYNC_BEGIN/END's whatever this macro:
                        their ranges are paired by time, often across the
                        threads that hand an id over.
     PROF_API           linkage of prof.h's external symbols: the public
                        functions and what the macros reach (default:
                        extern). Built with -fvisibility=hidden, with the
                        macros in one module (a library, or the -rdynamic
                        executable) and the implementation in another:
                        -DPROF_API='extern __attribute__((visibility(
                        "default")))' in every file. It must declare, not
                        define (static is not supported).
     PROF_TLS_MODEL     TLS model of the recorder's one thread-local pointer
                        (default: the compiler's). In a -fPIC shared library
                        that model calls __tls_get_addr on every scope;
                        -DPROF_TLS_MODEL='"initial-exec"' (in every file of
                        the library) saves it, 15% of a scope here. glibc
                        then places the library's whole TLS block in its
                        small static reserve: fine for a library linked at
                        startup, but a dlopen'ed one with much TLS of its
                        own may fail to load ("cannot allocate memory in
                        static TLS block").
   Implementation file only:
     PROF_MALLOC(sz) PROF_REALLOC(p,sz) PROF_FREE(p)
                        allocator hooks; define all three or none. (Record
                        blocks are mmap'ed so they can be prefaulted. With
                        the default, libc's, prof_stop's arrays of 32 MiB
                        and more are advised to use huge pages;
                        key_averages' rows, their stacks and its per-node
                        memos of 2 MiB and more when grouped by stack, and
                        the exporters' 6 MiB formatting pool, are allocated
                        2 MiB-aligned (posix_memalign) in huge pages.)
                        A hook (or a malloc the program interposes) may
                        report its blocks with prof_alloc/prof_dealloc and
                        may be instrumented with PROF_SCOPE: prof.h marks
                        the thread while it calls the allocator (and while
                        libc allocates for it: a thread's state, a helper
                        thread), and there those prof_alloc/prof_dealloc
                        calls are not tracked, and a scope that would need
                        a new record block, a long name's copy or its
                        thread's state (made, or bound to the session) is
                        dropped (counted); a PROF_THREAD_NAME
                        there is ignored (its copy would call the hook
                        again). No other prof.h call
                        (start, stop, step, exports, metadata) may come
                        from a hook. Whatever the hooks, prof_malloc,
                        prof_calloc, prof_realloc and prof_free call
                        libc's (they are its tracked twins), as does the
                        free of a C++ name's demangled copy: a file that
                        marks libc's allocator deprecated (Valkey's
                        server.h) may hold the implementation (prof.h's
                        own calls do not warn); one that poisons it
                        (#pragma GCC poison malloc) may not.
     PROF_ASSERT(x)     internal consistency checks (default: assert).

   CONFIGURATION AT RUN TIME: prof_config, zero = defaults
   ===============================================================
   max_events         cap on recorded events (default 16M); past it events
                      are dropped, counted and reported. It is decided when
                      a scope begins: a scope admitted then always gets its
                      record when it ends, and once a thread meets the cap
                      no new scope begins recording there, so whole
                      subtrees are dropped, never a parent whose children
                      are kept. The table of such a profile says so in one
                      line after its totals, and the trace in its
                      "prof_dropped" key. Scopes still open when prof_stop
                      began (running, or left by a longjmp) are no events:
                      prof_stop warns of them and the trace counts them in
                      its "prof_open_at_stop" key; the table, as
                      PyTorch's, has no line for them. Marks, counter samples,
                      allocations and async begins/ends count as events too.
                      CUDA's records (PROF_CUPTI: API calls, kernels,
                      copies, sets and syncs) reach the list at prof_stop:
                      a call and the GPU work it launched are kept or
                      dropped together; a thread's calls made after the
                      cap refused it are dropped with its scopes (a later
                      thread the kernel gives its id is another from the
                      first scope it records), and the rest take the room
                      the list has left, in the order the calls began,
                      until one does not fit (CUDA's memory records are
                      not capped here; CUPTI's buffers hold at most 256
                      MiB in all).
                      An allocation and its free are kept or dropped as a
                      pair: the free of a block whose allocation was
                      recorded is recorded past the cap, that of one whose
                      allocation was dropped is dropped (and counted).
                      The cap counts events, not memory: a plain scope is
                      one 24-byte record; shapes add 1 + (values + 1) / 2
                      records (up to 33), FLOPs and autograd fields one
                      each, an overload name 2 + bytes / 16 (copied: one
                      of 4 KiB or more once per session and thread
                      instead), a native stack 1 + (frames
                      + 1) / 2 (up to 17), an allocation 2 in all; a
                      PROF_SCOPE_DYN 1 + (name bytes + 24) / 24 for its
                      name, only for an admitted scope (a name of 4 KiB or
                      more: copied once per session, thread, site and
                      name instead).
                      Threads take the cap in shares (a quarter of what is
                      left, split among them, single events near the end);
                      a thread's shares start at 64 events and double as
                      it uses them (scopes, and marks, counters,
                      allocations and async records, each their own), and
                      all the threads' shares together stay within a
                      quarter of the cap. A thread that stops recording (a
                      pool's idle worker) keeps the unused rest of its
                      shares until it exits or the session ends, so drops
                      can begin a little before the cap: by at most a
                      quarter of it, and by less than 64 events of each
                      kind a thread that recorded little. prof_stats
                      accounts for every scope: scopes_entered ==
                      scopes_recorded + scopes_dropped + open_at_stop.
   record_shapes, profile_memory, with_stack, with_flops
                      as torch.profiler.profile's options (with_flops
                      turns record_shapes on, as torch's does); with_stack is
                      PROF_STACK_SCOPES (the chain of enclosing scopes) or
                      PROF_STACK_NATIVE (return addresses, named at stop
                      by dladdr: an executable's functions need -rdynamic,
                      and static functions have no name to give even so:
                      their frames show as "?? (module+offset)", which
                      addr2line -e module offset names). A native stack
                      starts in the function of the scope or PROF_BEGIN
                      range; where gcc keeps prof.h's recording helper out
                      of line in a build that defines __OPTIMIZE__ without
                      __OPTIMIZE_SIZE__ (-Og; a function that calls setjmp,
                      at -O1 and up), its first frame is that helper's.
                      The stack is walked by glibc's backtrace(), which
                      needs unwind information down to the stack's end: on
                      a stack a coroutine library made and switched to in
                      assembly without it (minicoro's default) backtrace()
                      itself crashes; use PROF_STACK_SCOPES there (or the
                      library's ucontext build). glibc only: with another C
                      library (musl) prof_start warns (PROF_E_ARG) and the
                      session records without native stacks. A native
                      stack keeps its innermost 32 frames (each scope's
                      stack is walked and stored whole at its start, so
                      the cost stays bounded): a scope deeper than that in
                      the call stack loses its outer frames, and two such
                      scopes that share their last 32 frames share a line
                      in the folded stacks. PROF_STACK_SCOPES has no limit.
   schedule, on_trace_ready, trace_ready_user_data
                      torch.profiler.schedule(skip_first, wait, warmup,
                      active, repeat) driven by prof_step();
                      on_trace_ready(events, trace_ready_user_data) gets
                      each window's list, borrowed (valid until it
                      returns; prof_stop's is the one it returns). As in
                      PyTorch, CUPTI is enabled when a warm-up begins and
                      stays on into the recording that follows (its start-up
                      cost falls in the discarded steps); the window keeps
                      only GPU work that began in it
   with_node_id, node_id, world_size
                      the rank of this process (Node ID column, trace's
                      distributedInfo), written as given; without
                      with_node_id the trace says rank 0 of world size 1
                      and node_id, world_size are not read
   activities         PROF_ACTIVITY_CPU, alone or with PROF_ACTIVITY_CUDA
                      (GPU activity, under PROF_CUPTI). 0 = both. Without
                      the CPU bit prof_start fails (PROF_E_ARG): scopes are
                      recorded in every session, so CUDA alone is refused
                      rather than silently recording them.
   cuda_flags         PROF_CUDA_* (PROF_CUPTI only), 0 = Kineto's choice:
                      runtime calls but cudaGet/SetDevice, cudaGetLastError,
                      cudaEventCreate(WithFlags), cudaEventDestroy and CUDA
                      13's internal __cuda* calls (its __cudaLaunchKernel,
                      what <<<>>> calls, is named cudaLaunchKernel, as on
                      CUDA 12); driver calls only when
                      they launch (cuLaunchKernel*, cuGraphLaunch) or
                      allocate (cuMemAlloc*, cuMemFree*, cuMemCreate, ...);
                      no synchronization records. Kernels launched inside
                      a dropped call still count for the scope around it.
                      PROF_CUDA_ALL_API keeps every API call,
                      PROF_CUDA_SYNC records synchronization (cuda_sync)
                      on the stream's lane ("sync" when it has none): CUDA
                      time, as PyTorch counts it (a Stream Sync's wait is
                      in its op's CUDA time and the table's total).
   log, log_user_data where messages go from this prof_start on, also
                      after prof_stop, until prof_set_log or another
                      prof_start with a log (NULL: keep the current one,
                      stderr unless prof_set_log set one); log_user_data
                      must live as long
   no_prefault_thread 1 = no helper thread. By default, once a thread has
                      recorded ~65k events in a session, a helper thread
                      maps and faults in its next 8 MiB record blocks ahead
                      of need (a fresh page costs microseconds on first
                      touch): two ready at first, one once blocks go
                      slower than four times its making of one (8 MiB;
                      prof_stop frees them unless reserve_events keeps
                      them); it exits when the session ends. Short
                      sessions never start it.
   reserve_events     0 = none. Records that prof_start (with a schedule:
                      the prof_step that begins a recording window) makes
                      room for before recording begins, in whole blocks of
                      349525 records (8 MiB, 24 bytes a record), faulted
                      in: the growth is paid there (about 5-25 ns per
                      record on the VM measured, see bench/overhead), not
                      while recording. Blocks that live threads hold from
                      earlier sessions count toward it, the rest go to a
                      ready pool that threads take from, from their first
                      scope on, before mapping their own. A thread that
                      records within its own blocks and those it takes
                      takes no page fault, and no helper thread starts
                      (no_prefault_thread) until the pool is spent (the
                      first block past it a thread then maps and faults
                      in itself). Each thread fills whole blocks,
                      and blocks a thread holds serve only that thread:
                      for N threads, reserve the events plus N blocks.
                      An exited thread's full blocks go back to the pool
                      (at the next prof_stop or prof_start; at its exit
                      if no session's records are in them) while it holds
                      less than the reserve; the pool stays until a
                      prof_stop without a reserve or prof_shutdown. Each
                      later recording window of a schedule is topped up
                      again as it begins. With a
                      reserve every block stays for the next window;
                      without one, prof_stop frees each block once it has
                      read it, but the one each thread is on (where its
                      next session starts; its pages past the records, in
                      2 MiB steps, go back to the kernel), and the ready
                      blocks, so a program that profiles once keeps no
                      more than that block, and the event list (48 bytes an
                      event; 16 more for an op with a sequence number, whose
                      other args an extra of 128 bytes holds once for all
                      the ops equal in them) takes the records' memory
                      instead of adding to it.
                      Capped at half of the smallest of the physical
                      memory, RLIMIT_AS, RLIMIT_DATA and the memory limit
                      of the process's cgroup and its parents (v2's
                      memory.max, v1's memory.limit_in_bytes, found
                      through /proc/self/cgroup), and at a quarter of the
                      address space (1 GiB on 32-bit targets) (a
                      warning); a reserve that cannot be mapped is a
                      warning too, and recording maps the rest as it goes.

   API BY TOPIC
   ============
   Session:      prof_start, prof_stop, prof_step, prof_step_number,
                 prof_schedule_action,
                 prof_is_recording, prof_set_thread_name, prof_add_metadata,
                 prof_add_metadata_json, prof_set_log, prof_last_error,
                 prof_result_string, prof_shutdown
   Memory:       prof_alloc, prof_alloc_ex, prof_dealloc, prof_malloc,
                 prof_calloc, prof_realloc, prof_free
   FLOPs:        prof_flops_matmul, prof_flops_addmm, prof_flops_bmm,
                 prof_flops_conv2d
   Event list:   prof_events_create, prof_events_reserve, prof_events_add,
                 prof_events_append_kernel, prof_events_add_memory,
                 prof_events_set_device,
                 prof_events_set_flags, prof_events_count, prof_events_get,
                 prof_events_child, prof_events_stats, prof_events_free,
                 prof_events_add_metadata, prof_events_add_metadata_json,
                 prof_events_set_export_options
   Tree:         prof_events_build_tree (called for you when needed)
   Aggregation:  prof_key_averages, prof_averages_count, prof_averages_get,
                 prof_events_total_average, prof_averages_total_average,
                 prof_averages_free
   Table:        prof_events_table, prof_averages_table (malloc'd strings,
                 release with prof_free_string), prof_events_print_table,
                 prof_averages_print_table
   Exporters:    prof_export_chrome_trace, prof_export_perfetto,
                 prof_export_pprof, prof_export_stacks,
                 prof_export_stacks_merged, prof_export_memory_timeline,
                 prof_memory_categories, prof_json_valid
   Report:       prof_report (table and files in one call)

   prof_export_perfetto(ev, path) writes Perfetto's native protobuf trace
   (ui.perfetto.dev, trace_processor): a track per thread (its name; the
   threads in the order of their ids, as the JSON trace, whose
   thread_sort_index is the id as Kineto writes it: the main thread first
   unless the ids wrapped),
   nested slices with interned names, categories, source locations and call
   stacks, marks, counters, memory counters, async ranges, a track per device
   stream with flows from launch to kernel, args as debug annotations,
   metadata (also as trace attributes, keys unchanged); every event has
   the JSON's category (a slice with none is a plain scope, "user_annotation":
   the 2 bytes are left out, so trace_processor's slice table has NULL
   there); exact ns, in CLOCK_BOOTTIME (the kernel tracers' clock, so a
   system trace of the same boot lines up with it) with the wall clock of
   the same moment in the clock snapshot for the UI's dates (the JSON's
   baseTimeNanoseconds is that wall clock at the session's start; a
   hand-built list's times start from 0) (a hand-built list whose times
   span more than 2^63 ns
   has its later ones past the int64 times trace_processor reads, which
   drops them); about 22-25 bytes per plain scope. Each
   thread is a packet sequence with delta timestamps; memory: a stack per
   thread. trace_processor keeps at most 512
   open slices per track, so a thread's scopes nested deeper go on child
   tracks of its own, "depth 512-1023" and so on, where they nest as well;
   a mark goes on the track of its level (its thread's scopes open at its
   time, plus its thread's marks before it at that very time, since the
   importer stacks instants of one time on each other); async ranges and
   events that do not nest in their thread's slices go on lanes under the
   thread ("async", "async (2)", ...; "overlapping", ...),
   shown after its depth tracks in their numbers' order (a group's lanes
   past the first are child tracks of the first; a GPU's streams likewise
   hold their lanes, the streams in order); a counter is one track per
   name.
   prof_export_pprof(ev, path, metric) writes pprof's profile.proto,
   uncompressed (go tool pprof): one sample per unique stack with the metric
   in ns (self_cpu_time_total, or self_device_time_total and its aliases, as
   prof_export_stacks; NULL = self_cpu_time_total, for the stacks too), a
   location per frame with function, file and line (a native frame: its
   function and module, the offset in the module as the location's
   address, so a function's return addresses are one function).
   Both follow OUTPUT FILES below.
   prof_events_set_export_options(ev, &opt) sets what the later exports of
   the list write (zero = the defaults). opt.args = PROF_ARGS_LIGHT leaves
   the per-event ids out of the JSON trace's args ("External id", "Ev Idx",
   "correlation", "Sequence number") and Perfetto's annotations: speedscope
   names a frame by its name and args, so with them every call is a frame
   of its own and its sandwich view merges nothing (flows from launch to
   kernel stay; they are not args). opt.source_prefix is cut from the
   source paths of stacks: the trace's "Call stack", folded stacks, pprof's
   files, Perfetto's frames and source locations. NULL (the default) cuts
   the longest common directory of the list's recorded files (scopes in
   /home/me/proj/src/a.c and /home/me/proj/lib/b.c show as src/a.c and
   lib/b.c); a directory cuts itself from the paths under it (with or
   without its final '/'; others stay whole); "" keeps every path as
   recorded. Native frames' module paths stay whole. The list itself is
   not changed: prof_event.file and .stack and the tables' Source Location
   column stay as recorded, as PyTorch prints them.

   Times are integer nanoseconds inside. Outputs write them as PyTorch
   does, microseconds in the JSON trace, the folded stacks and the memory
   timeline, and us, ms or s by size in the tables; the Perfetto trace and
   pprof in nanoseconds (their formats' unit). "CPU time" (Self CPU, CPU total, ...) is, as in
   PyTorch, elapsed time on the thread between a scope's start and end:
   waits, sleeps and time the thread was descheduled are in it. With
   with_stack, an event's stack (prof_event.stack) is an array made from
   the list's stack tree the first time it is asked for; events with one
   stack share it, and a chain of nested stacks shares one array. Errors
   are prof_result codes (PROF_E_ARG, _STATE, _NOMEM, _IO, and
   PROF_E_UNKNOWN_KEY for a sort key or metric that is none; PROF_E_DROPPED,
   _UNBALANCED, _OPEN_SCOPES and _CUPTI are only the codes of logged
   messages; prof_result_string names each); a log callback in
   prof_config receives every error with a message, and prof_last_error()
   returns the calling thread's last error message ("" before any; never
   NULL): warnings and info lines are not kept, and a later success does
   not clear it. prof.h never exits or
   aborts the host program.
   Names and other strings are any bytes (NUL ends them): every export
   and table writes valid UTF-8 as it is and invalid UTF-8 as U+FFFD,
   one for each maximal invalid subpart (what Python's
   decode(errors='replace') and browsers' TextDecoder give for the same
   bytes; in a table one character wide, as PyTorch prints the same text
   with U+FFFD in it); log messages quote them as given.

   prof_stop OUT OF MEMORY loses nothing: it returns NULL with PROF_E_NOMEM
   ("... the records are kept: free memory and call prof_stop again"), and
   recording has ended (prof_is_recording() is 0; scopes run from then on
   are not recorded, threads that exit keep their records). The next
   prof_stop() goes on from where the failed one stopped, as often as it
   takes, and returns the list a first successful prof_stop would have
   given: the same events, times and counts (scopes entered = recorded +
   dropped + open at the stop). No call is needed in between; prof_step
   says there is no session. prof_start discards the kept records, and so
   does prof_shutdown, each with a warning (PROF_E_STATE): a new session
   is what was asked for. CUPTI's buffers taken by a failed prof_stop are
   kept with the records and read again by the next. At the end of a
   schedule's recording window a failure is an error of prof_step
   (PROF_E_NOMEM, logged) and the window's events are dropped, since the
   next window begins at once (a warm-up's, dropped anyway, say nothing).

   MEMORY
   ======
   With profile_memory, each prof_alloc/prof_dealloc (or hand-added
   prof_events_add_memory record) counts toward the cpu or device memory
   usage of every CPU event of the SAME THREAD whose [start, end] holds its
   time, both ends included, as PyTorch's interval test (a device event,
   such as a kernel, holds none, as in PyTorch). A record of the CPU
   counts as cpu memory and one of any other device type as device memory;
   PyTorch 1.13 counts MKLDNN and IDEEP records as cpu memory and leaves
   those of types other than CUDA and HIP out of both. PyTorch tests
   time only, across threads: one thread's allocation is also charged to
   whatever op another thread has open then. prof.h keeps memory with the
   thread that allocated it, so with several threads recording, an op's
   memory can be lower than PyTorch would print, and a record made while
   its own thread has no event open but another thread has one is charged
   to no event (PyTorch charges it to the other thread's op). A record that no CPU event
   of any thread holds (allocated while no scope is open anywhere) becomes
   an event of its own named "[memory]", as in PyTorch: on its thread, at
   its time, no duration, its bytes as its memory, no parent or stack,
   input shapes [], so a top-level row of the tables (key_averages folds them into
   one "[memory]" row; _set_backward_stacktraces sees them, sequence_nr
   -1, where they stand in the list) but no "X" event in the trace, which has every
   record as a "[memory]" instant instead (Perfetto: no slice, a value of
   the memory counter). These rows are made when the
   tree is built (prof_stop; for a hand-built list, the first call after
   prof_events_add/add_memory that reads the events) and counted in
   prof_events_count but not in prof_stats.events. Like the merges of
   _remove_dup_nodes, they move the events after them: an index that
   prof_events_add returned holds until the tree is built. A list read
   and then added to (events, or kernels by prof_events_append_kernel) is
   analysed as if everything had been added at once (PyTorch's one pass
   over its EventList): the rebuilt tree starts from all the events
   added, the merged ones and their kernels put back. So a kernel appended
   to an event that absorbed its only child of the same name is its own,
   and shows once that child is no longer merged (as in PyTorch, the
   merge gives the parent the child's kernels in place of its own).

   NUMBERS
   =======
   Times are kept and summed in exact integer nanoseconds and converted to
   microseconds only when printed; PyTorch sums float microseconds. Where
   its float rounding gives a different result, a table can differ in the
   last printed digit or in the order of rows whose sort keys are nearly
   equal (equal in prof.h, a float ulp apart in PyTorch, or the reverse).
   For times that are multiples of 125 ns (exact in binary floats) the two
   agree byte for byte, which tests/tables checks; tests/tables/fuzz.py
   --fine compares other times under the rounding rule it states.
   Sums of int64 values (times, memory, FLOPs, counts) stop at the int64
   limits at each step instead of wrapping; Python's integers keep
   growing, so where a partial sum passes +-2^63 and later terms bring it
   back (values near 2^63 only), prof.h's result is the limit or off by
   what was cut, where PyTorch's is exact.

   OUTPUT FILES
   ============
   Files are written uncompressed (no zlib). The JSON trace and the memory
   timeline refuse a path ending in ".gz" (PROF_E_ARG): their readers go by
   the name and would gunzip it; write the name without it and gzip the
   file. (pprof's readers look at the bytes: "profile.pb.gz" is read as it
   is.) An export writes a temporary file next to the target and renames it
   over the target once every byte is written and synced to its disk (fsync), so
   a failed export (full disk, write error, one the file system reports only
   at the sync) leaves the old file, or none, never a half-written one that
   looks complete, and neither does a crash of the machine after the export
   returned. A process that exits or is killed in the middle of an
   export leaves that temporary file beside the target: "<target>.tmp<pid>.<n>",
   or for a long name the hidden ".prof<pid>.<n>.tmp". The target's
   directory is opened once, so a chdir by another thread during the
   export changes nothing, and a path of any length open(2) takes is
   written (not where a file sets _POSIX_C_SOURCE below 200809L before
   prof.h, which hides openat: the names are then whole paths). A
   replaced file keeps its mode (a warning where the file system refuses
   it: the file is then 0600) and, where allowed, its owner; hard links to
   it keep the old content. A file the user may not
   write (read-only, another user's) is not replaced: PROF_E_IO, EACCES,
   as open(2) would say. A symlink at the path is followed (also a
   dangling one: the file is made where it points; a loop is an error).
   A file the user may write in a directory they may not is written in
   place, and emptied if the export then fails; so is one whose directory
   refuses the rename (another user's file in a sticky directory such as
   /tmp): the finished temporary file is copied over it. Devices, pipes,
   files of /proc (by the file system: /proc/self/cwd/x is an ordinary
   file) and descriptors are written in place; a descriptor is named by
   /dev/stdout, /dev/stderr, /dev/fd/N, /proc/self/fd/N,
   /proc/thread-self/fd/N or /proc/<pid>/fd/N, also through a symlink (a
   log file linked to /dev/stdout), and written through a duplicate of it,
   so a redirect keeps its offset. A pipe
   or socket whose reader is gone fails the export with PROF_E_IO (EPIPE),
   and so does a file that reaches RLIMIT_FSIZE (EFBIG): the SIGPIPE or
   SIGXFSZ a write raises is blocked in the writing thread and taken back,
   never delivered to the host (one the host had pending stays). A table
   printed to a stream (prof_events_print_table, prof_averages_print_table,
   prof_report's) is flushed, and fails the same way (PROF_E_IO): after a
   failed table prof_report still writes its files. An export that runs
   out of memory fails with PROF_E_NOMEM, in one message, and leaves the
   files as a failed write does.
   Messages longer than prof_last_error's 511 bytes (a long path) lose
   their middle, not the reason at their end.
   TIMES IN THE JSON TRACE: ts is the exact start (three decimals of us);
   dur is exact too, except where an event ends with its parent or where
   the next event of its thread begins: then it ends 1 ns earlier (1 ns
   per level of a chain that ends together), so that ts + dur, added as
   doubles by viewers (DevTools, speedscope), nests strictly.
   Where 1 ns leaves no room (a 1 ns event that touches its follower;
   children that begin in the last ns of a trimmed event, down a chain
   that ends together) the trimmed events end in equal sub-ns steps of
   that last ns instead, and a zero-length event is written with half a
   ns (or half its room in its parent), in up to three more decimals
   (e.g. "dur": 0.0005), so that every event keeps a positive dur inside
   its parent and speedscope's importer (which puts an end before a begin
   at equal ts) nests it as DevTools does. What remains: zero-length
   events at the same ns, siblings, are written with the same dur and
   shown the later inside the earlier (none can end before the next
   begins without moving a ts); and near 2^46 ns from the base (~19.5
   hours) a step of a chain more than a few levels deep inside one ns
   nears an ulp. Zero-length events come from clocks coarser than a scope
   (some ARM counters; an x86 TSC as some hypervisors show it, in 10 ns
   steps: an empty scope there can read the same tick twice) and from
   hand-built lists.
   trace_processor (ui.perfetto.dev) reads the JSON otherwise: it rounds
   ts and dur each to whole ns and adds integers. Recorded times nest
   there as here, but the sub-ns steps above round: a child that begins
   in the last ns of a chain that ends together can end up under its
   grandparent, and a zero-length event written with half a ns ties with
   a 1 ns event that begins with it. It also drops what it cannot hold: a
   thread's levels past 512 and marks past the 512th at one tick,
   counter samples that are NaN or infinite (written null), and times
   below 0 or, for a hand-built list in absolute ns (Unix time), rounded
   at 256 ns past 2^42 us; and the arrow to a kernel that overlaps the one
   before it on its stream (programmatic dependent launch) ends at that
   earlier kernel. The
   Perfetto file (prof_export_perfetto) holds all of these exactly: open
   that in Perfetto.
   From 2^40 us after the base (12.7 days), where a double's step is a
   quarter ns, ends are written as the double they parse to, in more
   decimals (an end with its parent's is equal to it, not 1 ns short).
   Marks are "ph": "I" (DevTools' trace engine ignores "i"); [memory]
   instants keep Kineto's "i", and their "Total Reserved" is 0 on the CPU
   (as PyTorch's CPU allocator reports it) and the allocated total on a
   device. An event's args are Kineto's: "Input Dims" only for an op with
   inputs (not on scopes, device events or ops of no inputs, which the
   tables still show as "[]" with record_shapes), a "Call stack" of
   entries innermost first, each followed by ';' (as PyTorch's
   stacksToStr writes them). An async
   range (PROF_ASYNC_BEGIN/END, or a CPU event added with PROF_EVENT_ASYNC)
   is no "X": it need not nest in its thread's scopes, and an "X" that
   overlaps a scope makes DevTools drop that scope (speedscope warns). It
   is a nestable async pair on the thread that began it: "ph": "b" at its
   start (args as an "X" would have), "ph": "e" at its end (exact ts, no
   args), with "cat": "blink.user_timing" (DevTools' engine draws such
   pairs on its Timings track and ignores other categories'), the same name
   and "id": "0x..." (the event's index: the recorded id is not kept).
   Perfetto's JSON importer puts each on an async track of the process
   (by its source: id and cat keep pairs apart);
   speedscope leaves them out. A CPU event that overlaps its thread's
   without nesting (it begins inside one and ends after it: hand-built
   lists, a scope open across prof_step) is such a pair too, so DevTools
   keeps it; prof_export_perfetto puts the same events on "overlapping"
   lanes, with the same category. Lists whose events nest have none.
   A device's stream is a lane as a thread is: kernels that overlap on it
   without nesting (a programmatic dependent launch begins before the
   kernel ahead of it ends) are such pairs, on the device's pid and the
   stream's tid (prof_export_perfetto gives them a second lane of the
   stream, "stream N (2)", with the pairs' category, as a thread's
   overlapping lanes), and one that ends where
   the next begins is trimmed as above. A CUDA API call's args are
   Kineto's "cbid" (CUPTI's callback id, also under PROF_ARGS_LIGHT: it
   names the call, not the event) and "correlation". A stream id is written as it is:
   streams that differ only past 2^53 (hand-built lists) read as one in
   JSON readers, which parse numbers as doubles. A kernel's args are
   Kineto's: registers per thread, shared memory, blocks and warps per SM
   (over its device's SMs, once CUPTI gave the device's record), grid,
   block, queued (when CUPTI timed it), graph ids and context; Kineto's
   "est. achieved occupancy %" is not written (it needs CUDA's occupancy
   calculator, a C++ header).
   Metadata keys the trace itself writes (schemaVersion, deviceProperties,
   displayTimeUnit, baseTimeNanoseconds, traceEvents, traceName,
   prof_dropped, prof_open_at_stop) are refused, as are those that trace
   readers parse as their own (systemTraceEvents: trace_processor reads
   it as systrace text and fails the file; stackFrames, samples); a
   distributedInfo given as metadata replaces prof.h's.

   SIGNALS
   =======
   Recording is not async-signal-safe: do not use PROF_* or prof_* in a
   signal handler. A scope there can land in the slot the interrupted
   thread is writing, and the slow path takes locks that thread may hold:
   a lost or corrupt record, a hang, or a write past the thread's record
   block (a crash) can follow. (The hot path stays two timestamps and a
   store; guarding it against its own interruption would cost more.)
   For the same reason a handler must not leave the code it interrupted
   with siglongjmp (a timer that jumps back to the top of a loop) when
   that code may be a prof.h call or macro: as with malloc, a jump out
   of the middle of a block switch or of a share of the cap leaves the
   thread's buffer or counts half changed (a crash, a hang in prof_stop).
   A longjmp (or a siglongjmp from your own code, not from prof.h's) over
   open scopes is fine: they count as open at the stop (a C PROF_SCOPE's
   cleanup does not run) and later scopes do not nest under them; the
   scopes around one jumped over can merge as PyTorch's duplicate rule
   merges a lone child of the same name (prof_stats.merged). Not so a
   PROF_BEGIN range: it stays on its thread's range stack (a range may end
   in another function than the one that began it, so none is dropped by
   guess), and the next PROF_END, meant for the range around it, closes it:
   close ranges on the error path before the jump. Ranges the stopping
   thread still has open are named a line per site (also those a thread
   left open when it exited); those open on other threads, still running,
   are counted in prof_stats.open_at_stop, not named (their range stacks
   are theirs to change while prof_stop runs).
   Signals that interrupt prof.h's own writes are harmless: the exports,
   the table and the default log's lines retry a write that a handler
   without SA_RESTART interrupted (EINTR), wait out a full non-blocking
   pipe (EAGAIN), and hold SIGPIPE and SIGXFSZ around it (a reader gone
   or a file at RLIMIT_FSIZE is an error, PROF_E_IO, not the host's end).
   What the host buffered in the stream a table is printed to (or in
   stdout and stderr, for an export to /dev/stdout or /dev/stderr) is
   flushed first, after the descriptor has room: glibc drops a buffer
   whose write fails, and a full non-blocking pipe fails it. (Only a
   buffer the host set past PIPE_BUF, or another writer taking the room
   first, can still lose bytes there.)
   (A fork() is fine: the child starts with prof.h's locks free and its
   memory table whole, and goes on with the session it inherited, which
   holds what was recorded before the fork too: the forking thread's
   events under the child's pid and thread id, the other threads' under
   theirs. A child that should profile only itself calls prof_stop,
   prof_events_free and prof_start first. A fork
   while another thread is inside prof_start, prof_step, prof_stop or
   prof_shutdown leaves the child with no session, since that thread's work
   cannot be finished there: its prof_stop says so, and prof_start begins
   afresh. One while another thread sets a metadata key (prof_add_metadata)
   leaves the child's session with none. The parent is not affected either
   way. CUDA does not cross a fork: under PROF_CUPTI a child of a process
   that used CUPTI calls it no more (its sessions record the CPU, and say
   so once; the parent's GPU records stay the parent's). vfork and
   posix_spawn run no fork handlers: only exec the child.)

   THREAD SAFETY
   =============
   Any thread, any time: the recording macros, prof_alloc(_ex), prof_dealloc,
   the prof_malloc family, PROF_THREAD_NAME/prof_set_thread_name,
   prof_is_recording, prof_last_error (per thread). prof_start, prof_step,
   prof_stop, prof_shutdown, prof_set_log and the metadata calls take a
   global lock: call them from any thread, one session at a time (not
   prof_start, prof_step or prof_stop from on_trace_ready or from a log
   callback that they or prof_shutdown invoked, e.g. on a warning or an
   error of prof_stop: refused with PROF_E_STATE, never a wait on the
   caller's own lock; prof_shutdown from such a log callback is refused the
   same way; a refusal inside the log callback is not logged through it
   again, which could call again without end: its result and
   prof_last_error say it; from on_trace_ready prof_shutdown runs as
   between sessions (the next window begins after the callback returns and
   makes afresh what it frees), and the schedule goes on). The callbacks
   (on_trace_ready, the log callback) must return: a longjmp or a C++
   exception out of one leaves prof.h's session lock held and every later
   prof_step, prof_stop and prof_start refused or waiting. An
   event list and an averages list belong to the caller: use each from one
   thread at a time, readers included (prof_events_count, _get, the tables
   and the exporters build the tree and other caches on first use: two
   threads reading one list at once can get wrong tables, with no error,
   so lock around a list that threads share); different lists on
   different threads at once are fine.
   pthread_cancel: prof_start, prof_step, prof_stop, prof_shutdown, the
   exporters, the print_table calls and the log messages hold cancellation
   off while they run (a lock held, a temporary file open); a cancel sent
   meanwhile acts at the thread's next cancellation point after the call
   (a loop of nothing but prof.h calls has none: add pthread_testcancel).
   A thread that exits during a session keeps only its records until
   prof_stop (24 bytes each, plus about 500 (its state and its block's
   header) for a thread that wrote few: the block it was on is cut to its
   records; its name and PROF_SCOPE_DYN names of 4 KiB and more stay as
   they were); one that exits outside a session, or after prof_stop has
   read it, frees everything at once. So threads that come and go (one per
   request) cost memory for the events kept, not for the threads: one that
   recorded nothing (as past the cap)
   gives its state back at exit, its counts (scopes entered, dropped) kept
   for prof_stop. (Built with PROF_CUPTI it keeps its ~400-byte state
   until prof_stop: CUPTI's API records are joined to threads through
   the states.) A scope in another library's pthread-key destructor after
   prof.h's (which runs again in glibc's next destructor pass) is recorded
   too. On the last pass prof.h's does not run again, so the state a
   scope, prof_dealloc or thread name takes there is freed once its thread
   is gone and its records are read, by a sweep: at prof_stop or
   prof_start for one that had a state before (with a test of each such
   state for its thread, a syscall), and for one whose first call into
   prof.h was there, when the states have doubled since the last sweep of
   them all (from 256) and at prof_shutdown. Such states then stay within
   twice those kept at that sweep, whether or not a session starts again.
   prof_shutdown, outside a session, frees what prof.h keeps between
   sessions: exited threads' states, the reserve's and the calling
   thread's record blocks, the calling thread's long run-time names (not
   while a PROF_BEGIN range of it is open), and the slots of the live
   allocations' table beyond what the allocations still tracked need.
   Other live threads keep their state and current block (a scope of
   theirs may still be open), freed when they exit.

   THREADS OF ITS OWN
   ==================
   prof.h starts threads only where they take work off yours, each with
   every signal blocked and each joined before the call that needs it ends:
   the prefault thread, during a session in which a thread records more than
   ~65k events (joined by prof_stop; see no_prefault_thread); while
   prof_export_* writes a big file, a writer thread for write(2); and, on
   two or more cores, a second worker for lists of 32768 events or more: in
   the JSON trace for the pass that finds touching events and then for the
   formatting, in prof_export_stacks_merged for the sums per stack (each
   joined before the export returns; the bytes are those one thread would
   write).
   A fork() while one runs leaves the child without it, as it should.

   CONTENTS
   ========
   >>public      declarations
   >>macros      the recording macros and their inline hot path
   >>impl        implementation:
     >>types (the event list's representation) >>clock >>recorder
     >>collect (prof_stop) >>eventlist (the list's API) >>tree
     >>aggregation >>table >>exporters >>report >>cupti
   >>exporters in parts: >>x_writer (buffered output and its thread, atomic
     replacement, numbers, JSON strings and protobuf fields, formatting in
     parallel) >>x_options >>x_common (what every format reads of an event)
     >>x_meta >>x_chrome >>x_perfetto >>x_stacks >>x_pprof >>x_timeline; a
     new format is one new part.

   LICENSE: MIT, the text is at the end of the file.
*/
#ifndef PROF_H
#define PROF_H

/* First, before anything only gcc and clang read (tcc stopped at the first
   __thread; pcc, which defines __GNUC__, at a diagnostic pragma). */
#if !(defined(__GNUC__) || defined(__clang__)) || defined(__TINYC__) || defined(__PCC__)
#error "prof.h needs gcc or clang (cleanup attribute, __atomic builtins, __thread)"
#endif

/* The implementation needs clock_gettime, syscall, madvise and dladdr: ask
   for them in case prof.h comes before the first system header. After
   other headers it builds with what the file asked for, from POSIX.1-2001
   on (see >>impl; below that, prof.h says what to change). Defined
   empty, as feature_test_macros(7) writes it: a file that defines it so
   itself after prof.h redefines it to the same (to 1: a warning). It stays
   defined, so code that tests it sees the GNU set glibc gave. */
#if defined(PROF_IMPLEMENTATION) && !defined(_GNU_SOURCE)
#define _GNU_SOURCE
#endif
#if defined(PROF_IMPLEMENTATION)
#define PROF__IMPL_WITH_HEADER /* (else the header came in an earlier #include: see >>impl) */
#endif

/* "-DPROF_DISABLED" is 1, "#define PROF_DISABLED" is empty: both mean on,
   as does any other non-zero value. An explicit 0 is refused rather than
   read as "record": every prof.h switch means "defined = on". (The second
   test is true only for an empty definition: 0 - - 1 == 1.) */
#if defined(PROF_DISABLED) && (PROF_DISABLED + 0 == 0) && !(0 - PROF_DISABLED - 1 == 1)
#error "prof.h: PROF_DISABLED is defined as 0 (or as a word such as ON or yes, which #if reads as 0), but prof.h switches mean 'defined = on' (-DPROF_DISABLED or -DPROF_DISABLED=1 turns recording off). To record, do not define it."
#endif

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifndef PROF_API
#define PROF_API extern
#endif

#ifdef __cplusplus
extern "C" {
#endif
/* gcc's -Waggregate-return (on in some GNU-style builds: xz's) is off for
   the header: the macros' inline helpers return their small scope structs,
   which is no call the user wrote. The user's own calls of the API's
   struct-returning functions (prof_events_stats, the total averages) still
   warn. */
#if defined(__GNUC__) && !defined(__clang__)
#  pragma GCC diagnostic push
#  pragma GCC diagnostic ignored "-Waggregate-return"
#  pragma GCC diagnostic ignored "-Wstrict-overflow"
#  define PROF__HDR_GCC_PRAGMAS
#endif

/* >>public ---------------------------------------------------------------*/

/* The version (CMakeLists.txt and the package files take it from here). */
#define PROF_VERSION_MAJOR 0
#define PROF_VERSION_MINOR 1
#define PROF_VERSION_PATCH 0

/* Result codes. The X-macro keeps each code and its message together.
   Functions return PROF_OK, PROF_E_ARG, PROF_E_STATE, PROF_E_NOMEM,
   PROF_E_IO or PROF_E_UNKNOWN_KEY; PROF_E_DROPPED, PROF_E_UNBALANCED,
   PROF_E_OPEN_SCOPES and PROF_E_CUPTI are the codes of logged warnings and
   errors only (the log callback's `code`, prof_last_error's message). */
#define PROF__RESULTS(X)                                                      \
    X(PROF_OK,               "ok")                                            \
    X(PROF_E_ARG,            "invalid argument")                              \
    X(PROF_E_STATE,          "call not valid in the current session state")   \
    X(PROF_E_NOMEM,          "out of memory")                                 \
    X(PROF_E_IO,             "cannot write output file")                      \
    X(PROF_E_DROPPED,        "events were dropped or left out (the event cap, lack of memory, CUDA's buffers)") \
    X(PROF_E_UNBALANCED,     "unbalanced PROF_BEGIN/PROF_END")                \
    X(PROF_E_OPEN_SCOPES,    "scopes were still open at prof_stop")           \
    X(PROF_E_UNKNOWN_KEY,    "unknown sort key or metric")                    \
    X(PROF_E_CUPTI,          "CUPTI error")

typedef enum prof_result {
#define PROF__X(code, msg) code,
    PROF__RESULTS(PROF__X)
#undef PROF__X
    PROF_RESULT_COUNT
} prof_result;

typedef enum prof_log_level { PROF_LOG_ERROR = 0, PROF_LOG_WARNING = 1, PROF_LOG_INFO = 2 } prof_log_level;

/* Receives every error and warning; `message` is a complete sentence. */
typedef void (*prof_log_fn)(prof_log_level level, prof_result code, const char *message, void *user_data);

typedef struct prof_events prof_events;       /* owns everything it points to */

/* torch.profiler.schedule: skip_first steps, then cycles of wait, warmup and
   active steps, `repeat` times (0 = until prof_stop). Off while active = 0. */
typedef struct prof_schedule {
    int skip_first, wait, warmup, active, repeat;
} prof_schedule;

/* torch.profiler.ProfilerAction */
typedef enum prof_action { PROF_ACTION_NONE = 0, PROF_ACTION_WARMUP = 1, PROF_ACTION_RECORD = 2, PROF_ACTION_RECORD_AND_SAVE = 3 } prof_action;

/* The events of one finished active window; borrowed: valid until return.
   It runs inside prof_step/prof_stop: prof_start, prof_step and prof_stop
   called from it return PROF_E_STATE (NULL) and change nothing. */
typedef void (*prof_trace_ready_fn)(prof_events *events, void *user_data);

/* with_stack modes */
enum { PROF_STACK_NONE = 0, PROF_STACK_SCOPES = 1, PROF_STACK_NATIVE = 2 };
/* activities (torch.profiler.ProfilerActivity) */
enum { PROF_ACTIVITY_CPU = 1u << 0, PROF_ACTIVITY_CUDA = 1u << 1 };
/* cuda_flags */
enum { PROF_CUDA_SYNC = 1u << 0, PROF_CUDA_ALL_API = 1u << 1 };

typedef struct prof_config {
    size_t max_events;        /* cap on recorded events, all threads together;
                                 0 = 16777216 (384 MiB of records). Past it,
                                 events are dropped and counted. */
    int with_node_id;         /* 1 = every event carries node_id (MPI rank) */
    int node_id;              /* used when with_node_id is set */
    int world_size;           /* for the trace's distributedInfo, with with_node_id; 0 = unknown (written as 0) */
    int record_shapes;        /* keep the shapes given to PROF_SCOPE_SHAPES/ARGS */
    int profile_memory;       /* record prof_alloc/prof_dealloc; memory columns */
    int with_stack;           /* PROF_STACK_SCOPES: each event's stack is its
                                 chain of enclosing scopes; PROF_STACK_NATIVE:
                                 return addresses, symbolized at stop */
    int with_flops;           /* keep flop counts; the table's FLOPs column */
    prof_schedule schedule;   /* driven by prof_step(); zero = record all */
    prof_trace_ready_fn on_trace_ready;
    void *trace_ready_user_data;
    unsigned activities;      /* PROF_ACTIVITY_*; 0 = CPU, plus CUDA when
                                 compiled with PROF_CUPTI. Must include CPU:
                                 CUDA alone is refused (PROF_E_ARG) */
    prof_log_fn log;          /* NULL = keep the current log (stderr unless prof_set_log set one) */
    void *log_user_data;
    int no_prefault_thread;   /* 1 = recording threads fault in their own
                                 record blocks (see the manual above) */
    size_t reserve_events;    /* records faulted in before recording begins,
                                 so that it takes no page fault (see above) */
    unsigned cuda_flags;      /* PROF_CUDA_* (see above) */
} prof_config;

/* Device types, as torch.autograd.DeviceType. Any of its numbers (0-31)
   may be given to prof_events_add: a device event's own time is its device
   time (PyTorch asserts it is CUDA, HPU 15, MTIA 19 or PrivateUse1 20; prof.h
   takes any), and the table's device total sums CUDA's, MTIA's and
   PrivateUse1's, as _build_table does (not HPU's). In C++11 the enum has
   int beneath it, so that a field holding 2-31 is a valid value there too
   (an enum without one ranges over its enumerators' bits only: 0-1). */
#if defined(__cplusplus) && __cplusplus >= 201103L
#define PROF__ENUM_INT : int
#else
#define PROF__ENUM_INT
#endif
typedef enum prof_device_type PROF__ENUM_INT { PROF_DEVICE_CPU = 0, PROF_DEVICE_CUDA = 1 } prof_device_type;

/* A call site: written once per PROF_SCOPE by the macros (static storage).
   8-byte aligned on every target (i386 aligns it to 4 by itself): a
   record keeps its tag in the low 3 bits of the site's address. */
typedef struct prof_site {
    const char *name __attribute__((__aligned__(8)));
    const char *file;
    const char *func;
    int line;
    unsigned flags;           /* PROF_SITE_* */
} prof_site;
/* prof.h included inside #pragma pack(4) or less would align call sites
   to 4, whatever the attribute says: refused here, since a record keeps
   its tag in a site's low 3 bits (include prof.h outside the pack). */
typedef char prof__site_needs_8_byte_alignment_include_prof_h_outside_pragma_pack[__alignof__(prof_site) >= 8 ? 1 : -1];
/* gcc's -fpack-struct packs every struct but keeps a member's own
   aligned(8), so the check above passes while prof_config and prof_event
   change size: a file built with it and the implementation's file
   without read each other's structs as garbage (libc's structs likewise;
   gcc calls the flag an ABI change). Refused: a pointer after a char must
   sit at its own alignment. */
struct prof__pack_probe { char c; void *p; };
typedef char prof__structs_are_packed_do_not_build_with_fpack_struct[sizeof(struct prof__pack_probe) == 2 * sizeof(void *) ? 1 : -1];
/* prof_site.flags: the trace category of the events of a site */
#define PROF_SITE_CPU_OP 1u        /* cpu_op instead of user_annotation */
#define PROF_SITE_CUDA_RUNTIME 2u  /* cuda_runtime (CUPTI) */
#define PROF_SITE_CUDA_DRIVER 4u   /* cuda_driver (CUPTI) */
#define PROF_SITE_GPU_KERNEL 8u    /* kernel */
#define PROF_SITE_GPU_MEMCPY 16u   /* gpu_memcpy */
#define PROF_SITE_GPU_MEMSET 32u   /* gpu_memset */
#define PROF_SITE_CUDA_SYNC 64u    /* cuda_sync */

/* What a scope can carry besides its name (PROF_SCOPE_ARGS). The pointers
   must stay valid until the scope ends, where the shapes and the overload
   name are copied. */
typedef struct prof_args {
    const int64_t *shapes;    /* per input: its number of dims, then the dims */
    int shapes_len;           /* int64 values in `shapes`, 1 to 64 (0: no
                                 shapes; more, or negative: counted in
                                 prof_stats.malformed_shapes, shown [[]]) */
    int64_t flops;            /* 0 = none */
    const char *overload_name;
    int scope;                /* RecordScope: 0 forward, 1 backward function;
                                 outside 0-255 recorded as 0, counted in
                                 prof_stats.malformed_args */
    int64_t sequence_nr;      /* with PROF_ARGS_SEQUENCE_NR */
    uint64_t fwd_thread;      /* with PROF_ARGS_FWD_THREAD */
    unsigned set;
} prof_args;
enum { PROF_ARGS_SEQUENCE_NR = 1u << 0, PROF_ARGS_FWD_THREAD = 1u << 1 };

/* ----- event list ----- */

/* Optional fields of a hand-built event: set the bit to use the field. */
enum {
    PROF_EVENT_NODE_ID      = 1u << 0,
    PROF_EVENT_SEQUENCE_NR  = 1u << 1,
    PROF_EVENT_FWD_THREAD   = 1u << 2,
    PROF_EVENT_RESOURCE_ID  = 1u << 3,
    PROF_EVENT_ASYNC        = 1u << 4,
    PROF_EVENT_USER_ANNOTATION = 1u << 5,
    PROF_EVENT_SHAPES       = 1u << 6,       /* input_shapes given (else None, or [] in a list recorded with record_shapes) */
    PROF_EVENT_LEGACY       = 1u << 7        /* is_legacy: kernels counted on the op itself */
};

/* Input shapes: n_inputs lists; input i has ndims[i] dims, all dims
   concatenated in `dims`. n_inputs = 0 is the empty list []. */
typedef struct prof_shapes {
    int n_inputs;
    const int *ndims;
    const int64_t *dims;
} prof_shapes;

/* Everything FunctionEvent's constructor takes. Zero = PyTorch's defaults. */
typedef struct prof_event_desc {
    const char *name;          /* required */
    uint64_t thread;           /* any id; the trace files write an id past
                                  INT32_MAX (which their readers keep in 32
                                  bits or a double) as one of their own,
                                  counted down from INT32_MAX, its default
                                  name "thread <id>" with the real id */
    int64_t start_ns, end_ns;
    unsigned set;              /* PROF_EVENT_* bits */
    int node_id;               /* default -1 */
    const char *overload_name; /* default "" */
    const char *trace_name;    /* default: name */
    prof_shapes input_shapes;  /* with PROF_EVENT_SHAPES */
    const char *const *stack;  /* innermost entry first */
    int stack_depth;
    int scope;                 /* 0 forward, 1 backward function */
    int64_t sequence_nr;       /* default -1 */
    uint64_t fwd_thread;       /* default: none */
    prof_device_type device_type;
    int device_index;
    int64_t device_resource_id;/* default: thread */
    int64_t flops;
    int64_t cpu_memory_usage, device_memory_usage;
    const char *file, *func;   /* source location of the scope, if known */
    int line;
} prof_event_desc;

/* A complete, read-only view of one event, with the derived values. Its
   strings, stack and shapes belong to the list: valid until
   prof_events_free, also across later adds and tree rebuilds. */
typedef struct prof_event {
    const char *name, *overload_name, *trace_name;
    const char *file, *func;
    int line;
    uint64_t thread;
    const char *thread_name;   /* NULL if the thread was not named, and for
                                  device events (thread: their stream) */
    int64_t start_ns, end_ns;
    int node_id;
    prof_device_type device_type;
    int device_index;
    int64_t device_resource_id;
    int is_async, is_user_annotation, scope;
    int64_t sequence_nr;
    int has_fwd_thread;
    uint64_t fwd_thread;
    int64_t flops;
    const char *input_shapes;  /* as Python prints it: "[[2, 3], []]"; NULL = None */
    const char *const *stack;
    int stack_depth;
    int64_t parent;            /* index of the CPU parent, -1 = none */
    size_t n_children;
    size_t n_kernels;
    int64_t cpu_time_total_ns, self_cpu_time_total_ns;
    int64_t device_time_total_ns, self_device_time_total_ns;
    int64_t cpu_memory_usage, self_cpu_memory_usage;
    int64_t device_memory_usage, self_device_memory_usage;
} prof_event;

/* Recording statistics, reported with the results. For scopes (PROF_SCOPE,
   PROF_BEGIN and the like, ProfilerStep#N) always
       scopes_entered == scopes_recorded + scopes_dropped + open_at_stop. */
typedef struct prof_stats {
    uint64_t events;            /* the events recorded or added, after
                                   _remove_dup_nodes merged a child into its
                                   parent (`merged`); not the [memory] rows
                                   the tree makes, which prof_events_count
                                   counts */
    uint64_t dropped;           /* everything lost to the event cap or for lack
                                   of memory: scopes_dropped plus the marks,
                                   counter samples, allocations and async
                                   records dropped (and CUPTI's records)
                                   (prof_stop's warning tells which) */
    uint64_t unbalanced_ends;   /* PROF_END without a PROF_BEGIN, and scope
                                   ends on another thread than their
                                   beginning's (not recorded; that thread
                                   counts the scope open) */
    uint64_t open_at_stop;      /* scopes still open when prof_stop began
                                   (those that closed while it ran included) */
    uint64_t threads;           /* threads that recorded, each once (also
                                   two that had one id in turn), those
                                   whose records yield no event included
                                   (one that only ended scopes another
                                   thread began: unbalanced_ends) */
    uint64_t unknown_frees;     /* prof_dealloc of a pointer never allocated */
    uint64_t unmatched_async;   /* PROF_ASYNC_BEGIN/END without a partner */
    uint64_t blocks_added;      /* record blocks the session added (reused
                                   blocks not counted) */
    uint64_t blocks_prefaulted; /* of those, taken ready: from the prefault
                                   thread (no_prefault_thread), the reserve
                                   (reserve_events) or exited threads'
                                   blocks kept for it; the rest were faulted
                                   in by the recording threads */
    uint64_t malformed_args;    /* PROF_SCOPE_ARGS scopes whose prof_args.scope
                                   was not 0-255: recorded as 0 (prof_stop
                                   warns) */
    uint64_t malformed_shapes;  /* scopes whose shape values were not, per
                                   input, a number of dims and then that many
                                   dims: their Input Shapes show what could
                                   be read (prof_stop warns) */
    uint64_t cuda_no_timestamps;/* CUDA kernels, copies and sets CUPTI
                                   delivered without timestamps: left out
                                   (prof_stop warns) */
    uint64_t cuda_unfinished;   /* CUDA kernels, copies and sets not done
                                   at prof_stop (kept if they had begun) */
    uint64_t scopes_entered;    /* scopes begun while recording */
    uint64_t scopes_recorded;   /* of those, recorded (before any merge) */
    uint64_t scopes_dropped;    /* of those, dropped: begun past the cap
                                   (with all they enclose), or lost for
                                   lack of memory (with the scopes recorded
                                   inside them; once a record block could
                                   not be had, the next 64 requests, then
                                   twice as many each time, up to 65536,
                                   are refused without trying, until one
                                   succeeds or a session starts) */
    uint64_t merged;            /* events _remove_dup_nodes merged into
                                   their parent (recursion through one
                                   operator name; or, on a clock whose
                                   tick is longer than a scope, a call
                                   of one tick and the next call of its
                                   name begun in it: prof_stop warns of
                                   those): gone from the list, so from
                                   the tables and every export too
                                   (Kineto's trace keeps both) */
    uint64_t marks, marks_dropped;       /* PROF_MARK */
    uint64_t counters, counters_dropped; /* PROF_COUNTER samples */
    uint64_t allocs, allocs_dropped;     /* prof_alloc/prof_dealloc records */
    uint64_t async_records, async_dropped; /* PROF_ASYNC_BEGIN and _END calls */
} prof_stats;

/* ----- aggregation ----- */
/* key_averages' groupings, as its arguments (zero = by name alone; rows
   are also kept apart by node_id, device type, is_legacy and
   is_user_annotation, as 001's get_key) */
typedef struct prof_group_options {
    int group_by_input_shapes;    /* 1 = also by input_shapes */
    int group_by_stack_n;         /* N > 0 = also by the first N stack frames */
    int group_by_overload_name;   /* 1 = also by overload_name */
} prof_group_options;

/* One row of key_averages (FunctionEventAvg). A raw event is a row of
   count 1. A prof_averages owns its rows and their strings: it outlives
   the event list it came from. */
typedef struct prof_avg {
    const char *key, *overload_name;
    const char *input_shapes;  /* NULL = None, "" when not grouped by shapes */
    const char *const *stack;
    int stack_depth;
    int node_id;
    prof_device_type device_type;
    int is_async, is_user_annotation, is_remote, is_legacy;
    int has_cpu_parent;        /* for top_level_events_only */
    int64_t count;
    int64_t cpu_time_total_ns, self_cpu_time_total_ns;
    int64_t device_time_total_ns, self_device_time_total_ns;
    int64_t cpu_memory_usage, self_cpu_memory_usage;
    int64_t device_memory_usage, self_device_memory_usage;
    int64_t flops;
    /* The sums stop at INT64_MIN / INT64_MAX rather than wrap (Python's
       integers would keep growing: 2^63 FLOPs print the same, a
       total_average shows one less). */
} prof_avg;
typedef struct prof_averages prof_averages;

/* ----- table ----- */
typedef struct prof_table_options {
    const char *sort_by;           /* NULL = list order; else one of the numeric
                                      keys: cpu_time, device_time, cpu_time_total,
                                      device_time_total, self_cpu_time_total,
                                      self_device_time_total, cpu_memory_usage,
                                      device_memory_usage, self_cpu_memory_usage,
                                      self_device_memory_usage, count, flops,
                                      node_id ("cuda", "xpu" or "privateuse1" for
                                      "device", as 001 maps them) */
    int row_limit;                 /* 0 = 100; < 0 = no limit;
                                      PROF_ROW_LIMIT_ZERO = print no rows */
    int max_src_column_width;      /* 0 = 75;  < 0 = no maximum */
    int max_name_column_width;     /* 0 = 55;  < 0 = no maximum */
    int max_shapes_column_width;   /* 0 = 80;  < 0 = no maximum */
    const char *header;            /* NULL = none */
    int top_level_events_only;     /* 1 = only rows of events without a CPU parent */
    const char *time_unit;         /* NULL, "s", "ms" or "us" */
} prof_table_options;

#define PROF_ROW_LIMIT_ZERO (-2147483647 - 1)

/* Session */
/* cfg NULL = all defaults (a zeroed config). PROF_E_ARG for a schedule
   with a negative field or active 0 beside others set, with_stack not a
   PROF_STACK_*, or activities without PROF_ACTIVITY_CPU or with bits other
   than PROF_ACTIVITY_CPU and PROF_ACTIVITY_CUDA; PROF_E_STATE
   while a session runs. */
PROF_API prof_result prof_start(const prof_config *cfg);
/* Ends the session. With a schedule, returns the window recording at stop
   (also handed to on_trace_ready), or an empty list. NULL on error; out of
   memory (PROF_E_NOMEM) the records are kept and the next prof_stop tries
   again (manual: prof_stop OUT OF MEMORY). */
PROF_API prof_events *prof_stop(void);
/* 1 while scopes are being recorded: in a session, also in its warm-up
   steps (whose events are then thrown away), not in its wait steps. It
   reports the session: in a file built with PROF_DISABLED, whose macros
   record nothing, it is 1 all the same. */
PROF_API int prof_is_recording(void);
/* Next step of the schedule: closes ProfilerStep#N, opens ProfilerStep#N+1
   (scopes on the calling thread, made only with a schedule, as PyTorch's
   profiler records steps only with one), and starts, stops or delivers
   windows as torch.profiler.profile.step().
   PROF_E_NOMEM: the window that ended is lost (logged); the step is taken. */
PROF_API prof_result prof_step(void);
/* Steps taken since prof_start (ProfilerStep#N's N; 0 right after it);
   after prof_stop, the last session's count until the next prof_start. */
PROF_API int64_t prof_step_number(void);
/* What torch.profiler.schedule(...)(step) returns for this schedule; NULL
   or active 0: PROF_ACTION_RECORD (torch's default schedule); step < 0:
   PROF_ACTION_NONE (torch asserts step >= 0). */
PROF_API prof_action prof_schedule_action(const prof_schedule *schedule, int64_t step);
/* Top-level trace keys for the session being recorded (between prof_start
   and prof_stop; outside it, PROF_E_STATE: prof_start clears them). A key
   set again takes the new value. */
PROF_API prof_result prof_add_metadata(const char *key, const char *value);
PROF_API prof_result prof_add_metadata_json(const char *key, const char *json);

/* Memory (profile_memory). prof_alloc/prof_dealloc record what an allocator
   did; prof_malloc/calloc/realloc/free are drop-in wrappers of libc's.
   With threads, call prof_dealloc before the block goes back to the
   allocator (another thread may get its address at once) and prof_alloc
   after it is had, as the wrappers do. A block of 0 bytes is not recorded
   (PyTorch's allocators report none). prof_alloc_ex takes device types
   0-31 and indexes 0-63, as prof_events_add_memory does; another is an
   error (PROF_E_ARG, said once) and not tracked. Its category (NULL:
   none) is copied at the call; prof.h keeps each distinct text once for
   the process, up to 1024 texts and 1 MiB, past which new texts are
   recorded as "(other categories)" with one warning (so is a text that
   alone does not fit, or finds no memory; later ones that fit are kept). */
/* The block's bytes are never read: gcc 11 and later take a `const void *`
   argument for a read of a fresh (uninitialised) block and warn
   (-Wmaybe-uninitialized, an error under -Werror) at the wrapper's
   `p = malloc(n); prof_alloc(p, n);` unless told so (and so at
   prof_dealloc of a block freed before anything was written to it). */
#if defined(__GNUC__) && !defined(__clang__) && !defined(__CUDACC__) && !defined(__INTEL_COMPILER) && __GNUC__ >= 11 && \
    defined(__has_attribute)
#  if __has_attribute(__access__)
#    define PROF__ADDRESS_ONLY __attribute__((__access__(__none__, 1)))
#  endif
#endif
#ifndef PROF__ADDRESS_ONLY
#  define PROF__ADDRESS_ONLY
#endif
PROF_API void prof_alloc(const void *ptr, size_t bytes) PROF__ADDRESS_ONLY;
PROF_API void prof_alloc_ex(const void *ptr, size_t bytes, prof_device_type device, int device_index, const char *category) PROF__ADDRESS_ONLY;
PROF_API void prof_dealloc(const void *ptr) PROF__ADDRESS_ONLY;
PROF_API void *prof_malloc(size_t bytes);
PROF_API void *prof_calloc(size_t count, size_t size);
PROF_API void *prof_realloc(void *ptr, size_t bytes);
PROF_API void prof_free(void *ptr);
/* The memory timeline as torch.profiler's docs give export_memory_timeline's
   JSON: [times, sizes], times in microseconds since the session start
   (with ns digits), one per distinct allocation time on that device
   (PROF_DEVICE_CPU: every index), sizes[i][c] the bytes live in category
   c after times[i], the columns the categories the program gave
   (prof_alloc_ex) in prof_memory_categories' order ("unknown" first).
   PyTorch 2.x's own file is laid out otherwise: a first column of zeros,
   its fixed categories PARAMETER .. AUTOGRAD_DETAIL, then unknown; times
   in whole microseconds of the trace's clock. A script written for it
   reads the column names here from prof_memory_categories. Records are matched
   by address, as PyTorch's memory profile does: a block freed in the
   session that was allocated before it (PyTorch's PREEXISTING) is live
   from a first point of its own at the first time; a block reported
   allocated again while live (two layers of hooks) replaces itself. The
   trace's "Total Allocated" of each [memory] record counts the same way,
   per device (the CPU's records all on one, whatever their index), so
   neither goes below zero. Records without an address
   (prof_events_add_memory's) count as they are. A device type past 31,
   or a device's index outside 0-63 (the CPU's is any), is PROF_E_ARG. */
PROF_API prof_result prof_export_memory_timeline(prof_events *ev, const char *path, prof_device_type device, int device_index);
/* The timeline's category names in column order ("unknown" first); returns
   how many there are (names may be NULL to count); 0: ev NULL, or out
   of memory (an error logged). */
PROF_API size_t prof_memory_categories(prof_events *ev, prof_device_type device, int device_index, const char **names, size_t max);

/* FLOPs as PyTorch's formulas count them (2 per multiply-add): matmul and
   addmm of [m, k] by [k, n], bmm of b such. A count past INT64_MAX is
   INT64_MAX; a negative dimension (any of conv2d's eight, or NULL conv2d
   shapes) gives 0, and so does a zero one of those the count multiplies
   (x's C_in is not one: w's C_in/groups is).
   conv2d: x [N, C_in, H, W], w [C_out, C_in/groups, KH, KW], counted as
   2 * N * H * W * C_out * C_in/groups * KH * KW; PyTorch counts the
   OUTPUT's H and W, so for a stride or padding that changes the size pass
   the output's H and W in x. */
PROF_API int64_t prof_flops_matmul(int64_t m, int64_t k, int64_t n);
PROF_API int64_t prof_flops_addmm(int64_t m, int64_t k, int64_t n);
PROF_API int64_t prof_flops_bmm(int64_t b, int64_t m, int64_t k, int64_t n);
PROF_API int64_t prof_flops_conv2d(const int64_t x_shape[4], const int64_t w_shape[4]);
PROF_API void prof_set_thread_name(const char *name); /* copied whole */
PROF_API void prof_set_log(prof_log_fn log, void *user_data); /* also set by prof_start */
PROF_API const char *prof_last_error(void);
PROF_API const char *prof_result_string(prof_result r);
PROF_API void prof_shutdown(void);        /* frees recorder buffers kept for reuse (exited threads', and the caller's with its long run-time names); while a session records it frees nothing and warns (prof_stop first); from on_trace_ready it frees them as between sessions (the next window begins after the callback returns) */

/* Event list */
PROF_API prof_events *prof_events_create(void);
PROF_API void prof_events_free(prof_events *ev);
/* Room for n events (at most 2^31 - 1, else PROF_E_ARG; PROF_E_NOMEM when
   the memory cannot be had; the list is unchanged when it fails). */
PROF_API prof_result prof_events_reserve(prof_events *ev, size_t n);
/* Adds one event; returns its index, or -1 with the list unchanged:
   PROF_E_ARG for a NULL name, an end before the start, a span longer than
   2^63 - 1 ns (a start near INT64_MIN and an end past 0), a device type
   outside 0-31, a scope outside 0-255, a negative stack_depth or one above
   0 with a NULL stack (a NULL frame in a stack is an empty frame, ""),
   and (with PROF_EVENT_SHAPES) a
   negative n_inputs or ndims[i], ndims NULL for n_inputs > 0 or dims NULL
   when there are dims to read; PROF_E_NOMEM. */
PROF_API int64_t prof_events_add(prof_events *ev, const prof_event_desc *desc);
/* FunctionEvent.append_kernel: a kernel of duration_ns on device (its
   index, 0-63, as prof_events_add_memory takes them) on CPU event index
   (after a read, the index in the list as read; the kernel is the event's
   own: see the manual's "as if everything had been added at once");
   PROF_E_ARG for a NULL list or name, no such event, a device event, a
   "[memory]" row, a device outside 0-63 or a negative duration. */
PROF_API prof_result prof_events_append_kernel(prof_events *ev, size_t index, const char *name, int device, int64_t duration_ns);
/* A memory record, as prof_alloc (bytes > 0) and prof_dealloc (bytes < 0)
   make one while recording: on thread, at time_ns. When the tree is built
   the events of that thread whose [start_ns, end_ns] holds time_ns (both
   ends count, as in PyTorch) get the bytes added to their cpu (device:
   PROF_DEVICE_CPU) or device memory usage, on top of what their
   description gave; a record that no CPU event of any thread holds shows
   as a "[memory]" event of its own (see MEMORY in the manual). */
PROF_API prof_result prof_events_add_memory(prof_events *ev, uint64_t thread, int64_t time_ns, int64_t bytes, prof_device_type device, int device_index);
/* use_device: NULL or "" (no device), or a backend's name such as "cuda"
   (up to 23 ASCII letters, digits and underscores; else PROF_E_ARG);
   profile_memory / with_flops as EventList's flags: they decide the
   table's memory and FLOPs columns. */
PROF_API prof_result prof_events_set_device(prof_events *ev, const char *use_device);
PROF_API void prof_events_set_flags(prof_events *ev, int profile_memory, int with_flops);
PROF_API size_t prof_events_count(const prof_events *ev);
/* One event with its derived values; prof_events_child: the index of its
   k-th child (in start order), -1 past the last. An event with 64 children
   or more keeps them and its self values after the first read, so reading
   it, or all its children by k, again costs no walk over them. */
PROF_API prof_result prof_events_get(prof_events *ev, size_t index, prof_event *out);
PROF_API int64_t prof_events_child(prof_events *ev, size_t index, size_t k);
PROF_API prof_stats prof_events_stats(const prof_events *ev); /* builds the tree first, as the readers do */
PROF_API prof_result prof_events_build_tree(prof_events *ev);

/* Aggregation */
PROF_API prof_averages *prof_key_averages(prof_events *ev, const prof_group_options *opt);
PROF_API size_t prof_averages_count(const prof_averages *a);
PROF_API const prof_avg *prof_averages_get(const prof_averages *a, size_t index);
PROF_API prof_avg prof_events_total_average(prof_events *ev);
PROF_API prof_avg prof_averages_total_average(const prof_averages *a);
PROF_API void prof_averages_free(prof_averages *a);

/* Table */
PROF_API char *prof_events_table(prof_events *ev, const prof_table_options *opt);
PROF_API char *prof_averages_table(const prof_averages *a, const prof_table_options *opt);
PROF_API prof_result prof_events_print_table(FILE *f, prof_events *ev, const prof_table_options *opt);
PROF_API prof_result prof_averages_print_table(FILE *f, const prof_averages *a, const prof_table_options *opt);
PROF_API void prof_free_string(char *s);

/* Exporters */
PROF_API prof_result prof_export_chrome_trace(prof_events *ev, const char *path);
PROF_API prof_result prof_export_perfetto(prof_events *ev, const char *path);
PROF_API prof_result prof_export_pprof(prof_events *ev, const char *path, const char *metric);
PROF_API prof_result prof_export_stacks(prof_events *ev, const char *path, const char *metric);
/* One line per distinct stack: its events' values summed in nanoseconds,
   then whole microseconds (so many short calls still count, where
   prof_export_stacks, like PyTorch, truncates each event to whole us).
   Both write PyTorch's lines (frames root first, ';' between them, a
   space and the value), and each frame turned into a word the readers of
   the format split alike: PyTorch turns ' ', ';', tab and LF into '_';
   prof.h also CR, the other control bytes, DEL, the C1 controls
   U+0080-U+009F (NEL ends a line for Python), U+2028/U+2029 (line ends
   for JavaScript readers) and Unicode's other white space (U+00A0,
   U+1680, U+2000-U+200A, U+202F, U+205F, U+3000: flamegraph.pl reads
   UTF-8, where Perl's \s is all of them, so "layer\u00a012 5000" read as
   a differential line), writes an empty frame as "_" (PyTorch: nothing,
   ";;") and invalid UTF-8 as U+FFFD. prof_export_stacks writes no line
   for a value that is not positive (a self time under 1 us, or below 0
   where children overlap their parent, as scopes held across a coroutine
   switch can), as PyTorch; the merged stacks and prof_export_pprof sum
   only the events whose value is positive (ns), and write no stack whose
   sum comes to 0 (merged: under 1 us). */
PROF_API prof_result prof_export_stacks_merged(prof_events *ev, const char *path, const char *metric);
/* What the exporters write of an event list (zero = the defaults): */
typedef enum prof_args_level {
    PROF_ARGS_FULL = 0,  /* Kineto's args, per-event ids included */
    PROF_ARGS_LIGHT = 1  /* no per-event ids ("External id", "Ev Idx",
                            "correlation", "Sequence number"): viewers that
                            tell frames apart by name and args (speedscope)
                            then merge the calls of a name with the same
                            args left: shapes, and with with_stack its
                            "Call stack" (one frame per call site) */
} prof_args_level;
typedef struct prof_export_options {
    prof_args_level args;      /* the JSON trace's and Perfetto's args */
    const char *source_prefix; /* cut from the start of the source paths in
                                  stacks (Call stack, folded stacks, pprof,
                                  Perfetto's frames and source locations):
                                  NULL = the longest common directory of the
                                  recorded files, "" = none (paths as
                                  recorded), else this directory */
} prof_export_options;
/* Copies opt (NULL = zero) into the list for its later exports. */
PROF_API prof_result prof_events_set_export_options(prof_events *ev, const prof_export_options *opt);
/* Top-level keys of the trace (add_metadata / add_metadata_json). */
PROF_API prof_result prof_events_add_metadata(prof_events *ev, const char *key, const char *value);
PROF_API prof_result prof_events_add_metadata_json(prof_events *ev, const char *key, const char *json);
/* 1 if json is one JSON value (RFC 8259), nested at most 64 deep (deeper
   is refused: the check recurses), else 0. Numbers are checked for their
   grammar only: 1e999 is accepted and reads as infinity in most parsers.
   add_metadata_json refuses what this refuses (PROF_E_ARG). */
PROF_API int prof_json_valid(const char *json);

/* One-call report: the key_averages table to a stream and the files asked
   for, in one options struct (zero = the table to stdout, no file). */
typedef struct prof_report_options {
    FILE *out;                     /* the table's stream; NULL = stdout */
    int no_table;                  /* 1 = no table */
    prof_group_options group;      /* key_averages grouping; zero = by name */
    prof_table_options table;      /* sort_by, row_limit, ...; zero = as
                                      prof_averages_print_table's zero */
    /* Files, each written when its path is not NULL: */
    const char *chrome_trace;      /* prof_export_chrome_trace */
    const char *perfetto;          /* prof_export_perfetto (.pftrace) */
    const char *pprof;             /* prof_export_pprof with stacks_metric */
    const char *stacks;            /* prof_export_stacks with stacks_metric */
    const char *stacks_merged;     /* prof_export_stacks_merged, the same metric */
    const char *stacks_metric;     /* NULL = "self_cpu_time_total" */
    const char *memory_timeline;   /* prof_export_memory_timeline of: */
    prof_device_type memory_device;/*   zero = PROF_DEVICE_CPU */
    int memory_device_index;       /*   zero = 0 */
    /* (a new exporter: one path here, one PROF__REPORT_PART in prof_report) */
} prof_report_options;
/* Does everything asked even when a part fails, and returns the first
   error (each is also logged); the event list stays the caller's. */
PROF_API prof_result prof_report(prof_events *ev, const prof_report_options *opt);

/* >>macros ---------------------------------------------------------------*/
/* Private, but the macros expand to them. */
/* The record format, defined here once for the macros, the recorder that
   writes records and the collector (>>collect) that reads them: 24 bytes,
   a word whose low three bits are the tag (the rest a prof_site pointer,
   or for extensions their kind and data) and two 64-bit values:
     SCOPE        site | 0, t0 = start tick, t1 = end tick
     MARK         site | 1, t0 = tick
     COUNTER      site | 2, t0 = tick, t1 = the double's bits
     EXT          kind << 3 | aux << 8 | 3: data for the next record
                  (PROF__EXT_* in >>recorder), then DATA records
     MEM          device << 3 | index << 8 | 4, t0 = tick, t1 = bytes
                  (after a MEMADDR extension)
     ASYNC_BEGIN  site | 5, t0 = tick, t1 = id
     ASYNC_END    6, t0 = tick, t1 = id
     DYN          name | 7, t0 = start tick, t1 = end tick: a PROF_SCOPE_DYN
                  scope; `name` is the address of its NAME extension,
                  written when the scope began (EXT NAME, t0 = the call
                  site, then the name's bytes and its NUL as raw records) */
/* 24 bytes and 8-byte aligned everywhere (t0 aligned by hand for i386,
   whose ABI aligns a uint64_t in a struct to 4): a DYN record's tag sits in
   the low 3 bits of a record's address, and t1 is read atomically. */
typedef struct prof__rec { const void *site; uint64_t t0 __attribute__((__aligned__(8))), t1; } prof__rec;
enum { PROF__TAG_SCOPE = 0, PROF__TAG_MARK = 1, PROF__TAG_COUNTER = 2, PROF__TAG_EXT = 3,
       PROF__TAG_MEM = 4, PROF__TAG_ASYNC_BEGIN = 5, PROF__TAG_ASYNC_END = 6, PROF__TAG_DYN = 7 };
typedef struct prof__thread prof__thread;
/* The gate: one 64-bit word whose high half is the session the thread may
   record in without asking (compared with prof__g_epoch by every scope) and
   whose low half counts the thread's share of the event cap up to 2^32.
   Each scope adds one to the whole word; the add that spends the last
   credit carries into the high half, which then no longer matches, so the
   next scope goes the slow way, which takes a new share or refuses the
   scope: the cap costs the hot path nothing beyond the count it kept
   anyway. Scopes entered = gate - gate_base (see prof__tstate). Sessions
   number their epochs in steps of 4, so a carried (+1) or a native-stack
   (+2) high half never matches one. */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define PROF__GATE_HI 0
#else
#define PROF__GATE_HI 1
#endif
/* A 64-bit field that one thread writes and another reads with __atomic
   loads is 8-byte aligned everywhere: i386's ABI aligns a uint64_t in a
   struct to 4 bytes, where an 8-byte atomic access may tear (clang says so:
   -Watomic-alignment). x86-64 and aarch64 align them so anyway. */
#define PROF__ALIGN8 __attribute__((__aligned__(8)))
typedef union prof__gate { uint64_t word PROF__ALIGN8; uint32_t half[2]; } prof__gate;
struct prof__thread {
    prof__rec *pos, *end;      /* write window of the current block */
    prof__gate gate;           /* written only by the owner thread */
};
typedef struct prof__scope { prof__thread *t; const prof_site *site; uint64_t t0; } prof__scope;

PROF_API uint32_t prof__g_epoch;            /* 0 = not recording */
PROF_API int *prof__copy_mark;              /* this copy of the implementation (prof__copy_check) */
PROF_API prof__thread *prof__thread_get(void);
PROF_API void prof__leave_slow(prof__thread *t, const prof_site *site, uint64_t t0, uint64_t t1);
PROF_API void prof__leave_foreign(void);
PROF_API uint64_t prof__clock_fallback(void);
PROF_API const prof_site *prof__intern_site(const prof_site *site, const char *name);
PROF_API void prof__begin(const prof_site *site);
PROF_API void prof__begin_dyn(const prof_site *site, const char *name);
PROF_API void prof__end(void);
PROF_API void prof__instant(const prof_site *site, uint64_t tag, double value);
/* Two words, so that it comes back in registers: a struct returned through
   memory made clang keep every scope of the hot path in memory as well. */
typedef struct prof__entered { prof__thread *t; uint64_t t0; } prof__entered;
PROF_API prof__entered prof__scope_enter_slow(void *ret);
PROF_API prof__scope prof__scope_enter_named(const prof_site *site, const char *name, size_t len);
PROF_API prof__scope prof__scope_enter_named_ret(const prof_site *site, const char *name, size_t len, void *ret);
PROF_API prof__scope prof__scope_enter_named_copy(const prof_site *site, const char *name, size_t len);
PROF_API uint64_t prof__scope_start_late(prof__thread *t, void *ret);
PROF_API void prof__scope_leave_args(prof__scope *s, const prof_args *a);
PROF_API void prof__async(const prof_site *site, uint64_t tag, uint64_t id);
/* The thread-local pointer lives in the implementation file. Executables
   read it with one or two instructions. In a shared library (-fPIC) the
   compiler's model calls __tls_get_addr on every scope (15% of a scope's
   time measured here); -DPROF_TLS_MODEL='"initial-exec"' saves that, but
   then glibc must place the library's whole TLS block in its small static
   reserve, which a dlopen can run out of: so it is not the default. */
#if defined(PROF_TLS_MODEL)
#define PROF__TLS_ATTR __attribute__((__tls_model__(PROF_TLS_MODEL)))
#else
#define PROF__TLS_ATTR
#endif
PROF_API __thread prof__thread *prof__tls PROF__TLS_ATTR; /* PROF_API: exported with the functions the macros call */
/* Where prof__tls points before a thread attaches: its epoch is never a
   session's, so the hot path needs no NULL test. */
PROF_API prof__thread prof__g_unattached;
#ifdef __cplusplus
}
#endif

#if defined(__cplusplus) && __cplusplus < 201103L
#error "prof.h needs C++11 or later in C++ (-std=c++11)"
#endif
#define PROF__NOINSTRUMENT __attribute__((__no_instrument_function__))
#define PROF__LIKELY(x) __builtin_expect(!!(x), 1)
#define PROF__UNLIKELY(x) __builtin_expect(!!(x), 0)

/* The recording helpers the macros call. Not always_inline: gcc would then
   inline them into a function that calls setjmp too, where it does not
   otherwise, and -Wclobbered (in -Wextra) would flag their locals; so a
   project built with -Winline at -Os or -Og (in C++ also at -O2, where a
   scope's end on the unwinding path is cold) may see gcc say it kept them
   out of line. */
#if defined(__cplusplus)
#define PROF__INLINE inline
#else
#define PROF__INLINE static __inline__
#endif

/* The macros expand in the user's code, which may be C++ built with
   -Wold-style-cast, -Wzero-as-null-pointer-constant and -Wuseless-cast:
   C++ gets nullptr and, for macro arguments, conversions that are no cast
   at all when the argument already has the type. */
#if defined(__cplusplus)
#define PROF__NULL nullptr
#define PROF__TO_INT(x) static_cast<int>(x)
#define PROF__CSTR(x) prof__cstr(x)
extern "C++" { /* templates, even when prof.h is included inside extern "C" */
/* by reference: a std::atomic, which cannot be copied, converts too */
inline double prof__to_f64(double v) { return v; }
template <typename prof__T> inline double prof__to_f64(const prof__T &v) { return static_cast<double>(v); }
inline uint64_t prof__to_u64(uint64_t v) { return v; }
template <typename prof__T> inline uint64_t prof__to_u64(const prof__T &v) { return static_cast<uint64_t>(v); }
template <typename prof__T> inline uint64_t prof__to_u64(prof__T *p) { return reinterpret_cast<uintptr_t>(p); } /* an object's address as an async id */
inline uint64_t prof__to_u64(decltype(nullptr)) { return 0; }
inline int64_t prof__to_i64(int64_t v) { return v; }
template <typename prof__T> inline int64_t prof__to_i64(const prof__T &v) { return static_cast<int64_t>(v); }
/* PROF_SCOPE_DYN / PROF_BEGIN_DYN names: a C string, or anything with
   c_str() (std::string); the name is copied before the call returns */
inline const char *prof__cstr(const char *s) { return s; }
template <typename prof__T> inline auto prof__cstr(const prof__T &s) -> decltype(s.c_str()) { return s.c_str(); }
/* PROF_SCOPE_SHAPES's values: each converted as above, so size_t dims and
   the like need no casts (a braced int64_t array would not narrow them) */
template <size_t prof__N> struct prof__i64s { int64_t v[prof__N]; };
template <typename... prof__T> inline prof__i64s<sizeof...(prof__T)> prof__make_i64s(const prof__T &...x) {
    static_assert(sizeof...(prof__T) <= 64, "PROF_SCOPE_SHAPES takes at most 64 values (per input: its number of dims, then the dims)");
    prof__i64s<sizeof...(prof__T)> r = { { prof__to_i64(x)... } };
    return r;
}
/* The same values where shapes are compiled out (PROF_DISABLED,
   PROF_NO_SHAPES): checked as the recording build takes them, by
   reference (C's variadic prof__use_ would copy them: a std::atomic cannot
   be, and clang refuses a class with a destructor), never called. */
template <typename... prof__T> inline int prof__use_refs(const prof__T &...x) {
    static_assert(sizeof...(prof__T) <= 64, "PROF_SCOPE_SHAPES takes at most 64 values (per input: its number of dims, then the dims)");
    const int64_t v[] = { 0, prof__to_i64(x)... };
    return static_cast<int>(v[0]);
}
}
#define PROF__SHAPES_USE(...) prof__use_refs(__VA_ARGS__)
#else
#define PROF__NULL ((void *)0)
/* The casts take a comma expression, not the argument itself: gcc's
   -Wbad-function-cast flags a cast whose operand is a call of another
   type (PROF_COUNTER("q", queue_depth())). */
#define PROF__TO_INT(x) ((int)((void)0, (x)))
#define PROF__CSTR(x) (x)
#define prof__to_f64(x) ((double)((void)0, (x)))
/* An async id: an integer as it is (all 64 bits), an address through
   uintptr_t (a pointer cast straight to uint64_t warns on 32-bit targets:
   -Wpointer-to-int-cast, an error under -Werror). Each branch sees only an
   operand of its kind, since gcc warns in the branch not taken too; the
   argument is evaluated once (__builtin_classify_type does not evaluate
   it). */
#define PROF__IS_PTR(x) (__builtin_classify_type(x) == 5)
#define prof__to_u64(x) __builtin_choose_expr(PROF__IS_PTR(x),                                      \
        (uint64_t)(uintptr_t)((void)0, __builtin_choose_expr(PROF__IS_PTR(x), (x), PROF__NULL)), \
        (uint64_t)((void)0, __builtin_choose_expr(PROF__IS_PTR(x), 0, (x))))
#define prof__to_i64(x) ((int64_t)((void)0, (x)))
#define PROF__SHAPES_USE(...) prof__use_(0, __VA_ARGS__)
#endif

/* The clock: the TSC on x86-64 (prof_start warns if the CPU does not say
   it is invariant), the virtual counter on aarch64, CLOCK_MONOTONIC
   elsewhere or with -DPROF_CLOCK_MONOTONIC. No branch on the hot path. */
PROF__INLINE PROF__NOINSTRUMENT uint64_t prof__now(void) {
#if defined(PROF_CLOCK_MONOTONIC)
    return prof__clock_fallback();
#elif defined(__x86_64__)
    return __builtin_ia32_rdtsc();
#elif defined(__aarch64__)
    uint64_t v;
    __asm__ __volatile__("isb; mrs %0, cntvct_el0" : "=r"(v) : : "memory");
    return v;
#else
    return prof__clock_fallback();
#endif
}

/* The read that starts a scope (or stamps a mark, a counter sample, an
   allocation, an async point). rdtsc is not ordered after the loads before
   it: it may be read while an earlier load (a flag another thread set) is
   still waiting, up to some hundreds of ns early (a few us after a sleep,
   the caches cold), so a scope that begins
   after another thread's ended can read as beginning before it.
   PROF_CLOCK_ORDERED puts an lfence first (about 7 ns a scope here, 1.3x
   the floor: off by default); CLOCK_MONOTONIC's reads are ordered. */
PROF__INLINE PROF__NOINSTRUMENT uint64_t prof__now_start(void) {
#if defined(PROF_CLOCK_ORDERED) && defined(__x86_64__) && !defined(PROF_CLOCK_MONOTONIC)
    __builtin_ia32_lfence();
#endif
    return prof__now();
}
/* A read ordered after the loads before it whatever PROF_CLOCK_ORDERED:
   an async range's begin and end, which the collector pairs by time. They
   are often on two threads that hand the id over (a flag, a queue), and an
   end read before the begin it follows left both unmatched (2 of a
   million ranges handed over in most runs). Async points are few beside
   scopes: the fence's 7 ns is not on the hot path. */
PROF__INLINE PROF__NOINSTRUMENT uint64_t prof__now_ordered(void) {
#if defined(__x86_64__) && !defined(PROF_CLOCK_MONOTONIC)
    __builtin_ia32_lfence();
#endif
    return prof__now();
}

/* The hot path: one relaxed load when off; when on, two clock reads and
   one 24-byte store into a per-thread block, no lock, no allocation.
   ret: the scope's function's return address, taken by the macro in that
   function (PROF__RET), read only on the slow path: where a native stack
   starts, whether this helper was inlined there or not. */
PROF__INLINE PROF__NOINSTRUMENT prof__scope prof__scope_enter(const prof_site *site, void *ret) {
    prof__scope s;
    uint32_t epoch = __atomic_load_n(&prof__g_epoch, __ATOMIC_RELAXED);
    s.site = site;
    s.t0 = 0;
    /* No hint that "off" is likely: with one, gcc moves the recording path
       out of line, two taken jumps more per scope (measured 1.12-1.18x the
       floor instead of 1.08-1.10x in bench/overhead). The hint in
       prof__scope_leave instead keeps "off" a short chain of tests (on this
       Skylake the JCC erratum makes these tiny loops' speed depend on where
       their jumps fall; that layout measured best of the four tried). */
    if (!epoch) { s.t = PROF__NULL; return s; }
    s.t = prof__tls;
    /* first scope of a thread or session, share of the cap spent, or
       native stacks: out of line (s.t NULL there: not recorded) */
    if (PROF__UNLIKELY(s.t->gate.half[PROF__GATE_HI] != epoch)) {
        prof__entered e = prof__scope_enter_slow(ret);
        s.t = e.t;
        s.t0 = e.t0;
        return s;
    }
    __atomic_store_n(&s.t->gate.word, s.t->gate.word + 1, __ATOMIC_RELAXED);
    s.t0 = prof__now_start();
    return s;
}

PROF__INLINE PROF__NOINSTRUMENT void prof__scope_leave(prof__scope *s) {
    if (PROF__LIKELY(s->t != PROF__NULL)) {
        uint64_t t1 = prof__now();
        prof__thread *t = s->t;
        prof__rec *r;
        /* a scope held across a switch of fibers or coroutines ends on
           another thread: the first thread's buffer is not this one's to
           write (it may be writing it, or gone with its thread) */
        if (PROF__UNLIKELY(t != prof__tls)) { prof__leave_foreign(); return; }
        r = t->pos;
        if (PROF__LIKELY(r != t->end)) {
            r->site = s->site;
            r->t0 = s->t0;
            r->t1 = t1;
            __atomic_store_n(&t->pos, r + 1, __ATOMIC_RELEASE);
        } else {
            prof__leave_slow(t, s->site, s->t0, t1); /* block full, none yet, or the cap */
        }
    }
}

PROF__INLINE PROF__NOINSTRUMENT prof__scope prof__scope_enter_dyn(const prof_site *site, const char *name, void *ret) {
    if (PROF__LIKELY(!__atomic_load_n(&prof__g_epoch, __ATOMIC_RELAXED))) {
        prof__scope s; s.t = PROF__NULL; s.site = site; s.t0 = 0; return s;
    }
    if (!name) name = "";
    /* the length taken here, so the recorder's fast path calls nothing and
       saves no registers (the caller's are live across strlen anyway) */
    /* admitted by the cap, then the name copied */
    return ret ? prof__scope_enter_named_ret(site, name, __builtin_strlen(name), ret) : prof__scope_enter_named(site, name, __builtin_strlen(name));
}
#if defined(__cplusplus)
#define PROF__START_CLOCK 0  /* the copied scope starts with a clock read */
#define PROF__START_NATIVE 1 /* ... and its native stack */
/* C++'s PROF_SCOPE_DYN in two steps, each its own full-expression: the
   name copied (admitted, as above, but no time read: t0 says what the
   start is to read, PROF__START_CLOCK or PROF__START_NATIVE, the clock
   with a native stack through prof__scope_start_late), then, once the
   temporaries the name came from are destroyed, the start. In one step a name from a temporary (a std::string built for it,
   its c_str() or a reference into a temporary object) was either read
   after its temporary died or freed inside the scope. */
PROF__INLINE PROF__NOINSTRUMENT prof__scope prof__scope_enter_dyn_copy(const prof_site *site, const char *name) {
    if (PROF__LIKELY(!__atomic_load_n(&prof__g_epoch, __ATOMIC_RELAXED))) {
        prof__scope s; s.t = PROF__NULL; s.site = site; s.t0 = 0; return s;
    }
    if (!name) name = "";
    return prof__scope_enter_named_copy(site, name, __builtin_strlen(name));
}
PROF__INLINE PROF__NOINSTRUMENT void prof__scope_start_copied(prof__scope *s, void *ret) {
    if (s->t) s->t0 = PROF__LIKELY(s->t0 == PROF__START_CLOCK) ? prof__now_start() : prof__scope_start_late(s->t, ret);
}
#endif

#define PROF__CAT_(a, b) a##b
#define PROF__CAT(a, b) PROF__CAT_(a, b)
#if defined(__COUNTER__)
#define PROF__ID __COUNTER__
#else
#define PROF__ID __LINE__
#endif
/* __func__ is C99's: in C under gcc's -std=c89 -Wpedantic (zstd's C90
   build, with -Wno-variadic-macros) __extension__ keeps it quiet */
#if !defined(__cplusplus) && defined(__GNUC__)
#define PROF__FUNC __extension__ __func__
#else
#define PROF__FUNC __func__
#endif
#define PROF__SITE_INIT(name, flags) { (name), __FILE__, PROF__FUNC, __LINE__, (flags) }
/* A call site is initialised once: C rejects a name that is not a constant
   by itself; C++ would initialise the site from the first call's name and
   keep that pointer (a dangling one, for a temporary string), so there the
   site is constexpr and a run-time name fails to compile (PROF_SCOPE_DYN
   is for those). */
#if defined(__cplusplus)
#define PROF__SITE_CONST constexpr
#else
#define PROF__SITE_CONST const
#endif

/* Declarations in every build mode: a scope macro is one when recording,
   so it stays one here (C90-style code under -Wdeclaration-after-statement
   sees no change). The statement macros stay statements. A typedef emits
   no code and evaluates nothing. Arguments the switch compiles out stay
   "used", never evaluated: PROF__UNEVAL(x) is 0 && (x, 0), so a variable
   or a static function that only feeds the profiler (PROF_COUNTER("q",
   queue_depth())) raises no -Wunused warning. sizeof would not do: clang
   counts a function named only inside sizeof as not needed
   (-Wunneeded-internal-declaration, in -Wall). A declaration with such an
   argument is a constant the optimiser drops (one store at -O0). */
#define PROF__DECL_NOTHING(id)                                                \
        typedef char PROF__CAT(prof__off_, id) __attribute__((__unused__))
#define PROF__UNEVAL(x) (0 && ((void)(x), 0))
#define PROF__DECL_USE(id, x)                                                 \
        const int PROF__CAT(prof__off_, id) __attribute__((__unused__)) = PROF__UNEVAL(x)
/* PROF_SCOPE_SHAPES in C. More than 64 values would be dropped at run
   time: refused at compile time, in every build (a program that builds
   compiled out builds recording). Where shapes are recorded the count is
   the values' array's; where they are compiled out, a compound literal's
   size (never evaluated; __extension__ for C90). The values convert to
   int64 as in C++ (size_t dims under -Wconversion are not the user's
   mistake). C90 allows only constants in an array's initializer, which gcc
   and clang take as an extension: -Wpedantic is off for that declaration. */
#if !defined(__cplusplus)
#  if defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
/* (clang 17 and later say -Wpre-c11-compat of _Static_assert under
   -Weverything, in C11 too: not the user's code) */
#    if defined(__clang__) && defined(__has_warning)
#      if __has_warning("-Wpre-c11-compat")
#        define PROF__SA_PUSH _Pragma("clang diagnostic push") _Pragma("clang diagnostic ignored \"-Wpre-c11-compat\"")
#        define PROF__SA_POP _Pragma("clang diagnostic pop")
#      endif
#    endif
#    if !defined(PROF__SA_PUSH)
#      define PROF__SA_PUSH
#      define PROF__SA_POP
#    endif
#    define PROF__SHAPES_LIMIT(id, arr) PROF__SA_PUSH _Static_assert(sizeof arr / sizeof(int64_t) <= 64, \
            "PROF_SCOPE_SHAPES takes at most 64 values (per input: its number of dims, then the dims)") PROF__SA_POP
#  else
#    define PROF__SHAPES_LIMIT(id, arr) typedef char PROF__CAT(prof__shapes_at_most_64_values_, id) \
            [sizeof arr / sizeof(int64_t) <= 64 ? 1 : -1] __attribute__((__unused__))
#  endif
#  if defined(__STDC_VERSION__) && __STDC_VERSION__ >= 199901L
#    define PROF__C90_INIT_PRAGMA
#  elif defined(__clang__)
#    define PROF__C90_INIT_PRAGMA _Pragma("GCC diagnostic ignored \"-Wpedantic\"") \
            _Pragma("GCC diagnostic ignored \"-Wc99-extensions\"")
#  else
#    define PROF__C90_INIT_PRAGMA _Pragma("GCC diagnostic ignored \"-Wpedantic\"")
#  endif
#  define PROF__SHAPES_PRAGMAS_PUSH                                           \
        _Pragma("GCC diagnostic push") _Pragma("GCC diagnostic ignored \"-Wconversion\"") \
        _Pragma("GCC diagnostic ignored \"-Wsign-conversion\"") PROF__C90_INIT_PRAGMA
/* (clang warns of a side effect in sizeof, `(*p)++`, where it cannot see
   that the expression came from a macro argument: preprocessed source, as
   distcc or ccache compile it) */
#  if defined(__clang__)
#    define PROF__UNEVAL_PRAGMA _Pragma("clang diagnostic ignored \"-Wunevaluated-expression\"")
#  else
#    define PROF__UNEVAL_PRAGMA
#  endif
#  define PROF__SHAPES_OFF_ID(id, name, ...)                                  \
        PROF__SHAPES_PRAGMAS_PUSH PROF__UNEVAL_PRAGMA                         \
        PROF__SHAPES_LIMIT(id, (__extension__ (const int64_t[]){ __VA_ARGS__ })); \
        _Pragma("GCC diagnostic pop")                                         \
        PROF__DECL_USE(id, ((void)(name), PROF__SHAPES_USE(__VA_ARGS__)))
#else
#  define PROF__SHAPES_OFF_ID(id, name, ...) PROF__DECL_USE(id, ((void)(name), PROF__SHAPES_USE(__VA_ARGS__)))
#endif
/* Takes PROF_SCOPE_SHAPES's arguments where shapes are compiled out; never
   called (PROF__UNEVAL: compilers drop the right of 0 && even at -O0), so
   never defined either: a static one could not be named from a C99
   inline function with external linkage (6.7.4p3). */
int prof__use_(int n, ...);
/* nvcc's device pass (__CUDA_ARCH__) compiles a __host__ __device__
   function's body for the GPU, where nothing records: there the macros
   are the compiled-out ones (the host pass records as usual). */
#if defined(PROF_DISABLED) || defined(__CUDA_ARCH__)
/* (the names too stay used: a static array that only names scopes) */
#  define PROF_SCOPE(name) PROF__DECL_USE(PROF__ID, name)
#  define PROF_SCOPE_DYN(name) PROF__DECL_USE(PROF__ID, name)
#  define PROF_FUNC() PROF__DECL_NOTHING(PROF__ID)
#  define PROF_BEGIN(name) ((void)PROF__UNEVAL(name))
#  define PROF_BEGIN_DYN(name) ((void)PROF__UNEVAL(name))
#  define PROF_END() ((void)0)
#  define PROF_MARK(name) ((void)PROF__UNEVAL(name))
#  define PROF_COUNTER(name, value) ((void)PROF__UNEVAL(((void)(name), (value))))
#  define PROF_SCOPE_OP(name) PROF__DECL_USE(PROF__ID, name)
#  define PROF_SCOPE_ARGS(name, args) PROF__DECL_USE(PROF__ID, ((void)(name), (args)))
#  define PROF_SCOPE_SHAPES(name, ...) PROF__SHAPES_OFF_ID(PROF__ID, name, __VA_ARGS__)
#  define PROF_SCOPE_FLOPS(name, flops) PROF__DECL_USE(PROF__ID, ((void)(name), (flops)))
#  define PROF_ASYNC_BEGIN(name, id) ((void)PROF__UNEVAL(((void)(name), (id))))
#  define PROF_ASYNC_END(id) ((void)PROF__UNEVAL(id))
#  define PROF_THREAD_NAME(name) ((void)PROF__UNEVAL(name))
#else
PROF__INLINE PROF__NOINSTRUMENT prof_args prof__args_make(const int64_t *shapes, int len, int64_t flops) {
    prof_args a;
    a.shapes = shapes;
    a.shapes_len = len;
    a.flops = flops;
    a.overload_name = PROF__NULL;
    a.scope = 0;
    a.sequence_nr = -1;
    a.fwd_thread = 0;
    a.set = 0;
    return a;
}
/* The value of a call that returns a struct, in the user's function:
   gcc's -Waggregate-return (some GNU-style builds turn it on: xz's) warns
   at such a call unless inlining removed it, as at -O0. The macros make
   their calls inside a statement expression that turns the warning off
   around them (a pragma may not come inside a declaration); the same code
   at -O1 and up. */
#  if defined(__GNUC__) && !defined(__clang__)
#    define PROF__AGG(type, call) __extension__({                          \
            _Pragma("GCC diagnostic push") _Pragma("GCC diagnostic ignored \"-Waggregate-return\"") \
            type prof__agg_ = (call);                                         \
            _Pragma("GCC diagnostic pop")                                     \
            prof__agg_; })
#  else
#    define PROF__AGG(type, call) (call)
#  endif
/* The return address of the function a scope is in, where a native stack
   starts (see prof__scope_enter). Taken where the helpers are not inlined:
   at -O0 and -Os. With optimization the helper is inlined in the scope's
   function and its slow path finds that function without it: so the hot
   path pays nothing for it (taken there, it cost an instruction a scope). */
#  if !defined(__OPTIMIZE__) || defined(__OPTIMIZE_SIZE__)
#    define PROF__RET __builtin_return_address(0)
#  else
#    define PROF__RET PROF__NULL
#  endif
#  if defined(__cplusplus)
/* PROF_SCOPE_DYN's first step (the struct-valued call inside prof.h, not
   in the user's function, where -Waggregate-return would see it). */
struct prof__dyn_copy {
    prof__scope s;
    prof__dyn_copy(const prof_site *site, const char *name) : s(prof__scope_enter_dyn_copy(site, name)) {}
};
struct prof__scope_guard {
    prof__scope s;
    prof__scope_guard(const prof_site *site, void *ret) : s(prof__scope_enter(site, ret)) {}
    prof__scope_guard(const prof__scope *copied, void *ret) : s(*copied) { prof__scope_start_copied(&s, ret); }
    ~prof__scope_guard() { prof__scope_leave(&s); }
private:
    prof__scope_guard(const prof__scope_guard &);
    prof__scope_guard &operator=(const prof__scope_guard &);
};
#    define PROF__SCOPE_AT(id, name, flags)                                   \
        static PROF__SITE_CONST prof_site PROF__CAT(prof__site_, id) = PROF__SITE_INIT(name, flags); \
        prof__scope_guard PROF__CAT(prof__scope_, id)(&PROF__CAT(prof__site_, id), PROF__RET)
/* The name is copied in a declaration of its own, so that the temporaries
   it is made of (a std::string built for it, its c_str(), an accessor of a
   temporary object) die after the copy and before the scope starts: not
   inside the scope (their free was its time and memory), and not before
   the copy (bound with auto&&, a pointer into a temporary was read after
   the temporary died). */
#    define PROF__SCOPE_DYN_AT(id, name)                                      \
        static PROF__SITE_CONST prof_site PROF__CAT(prof__site_, id) = PROF__SITE_INIT("", 0); \
        const prof__dyn_copy PROF__CAT(prof__dyn_copy_, id)(&PROF__CAT(prof__site_, id), PROF__CSTR(name)); \
        prof__scope_guard PROF__CAT(prof__scope_, id)(&PROF__CAT(prof__dyn_copy_, id).s, PROF__RET)
struct prof__scope_args_guard {
    prof__scope s;
    const prof_args *a;
    prof__scope_args_guard(const prof_site *site, const prof_args *args, void *ret) : s(prof__scope_enter(site, ret)), a(args) {}
    ~prof__scope_args_guard() { if (s.t) prof__scope_leave_args(&s, a); }
private:
    prof__scope_args_guard(const prof__scope_args_guard &);
    prof__scope_args_guard &operator=(const prof__scope_args_guard &);
};
#    define PROF__SCOPE_ARGS_AT(id, name, args)                               \
        static PROF__SITE_CONST prof_site PROF__CAT(prof__site_, id) = PROF__SITE_INIT(name, PROF_SITE_CPU_OP); \
        prof__scope_args_guard PROF__CAT(prof__scope_, id)(&PROF__CAT(prof__site_, id), (args), PROF__RET)
#  else
PROF__INLINE PROF__NOINSTRUMENT void prof__scope_cleanup(prof__scope *s) { prof__scope_leave(s); }
/* A jump (goto, switch case) into a scope's range would skip the scope's
   initialisation, and its cleanup would then run on garbage. C++ refuses
   such a jump (the guard has a constructor), clang refuses it for the
   cleanup attribute, gcc only for a variably modified type: so each scope
   also declares one. Its size (1) is not a constant expression, but
   nothing reads it: no code at -O1 and up (bench/callgrind.sh, the same
   machine code). The user's -Wvla is not about their code here. */
#    define PROF__NO_JUMP_IN(id)                                             \
        _Pragma("GCC diagnostic push") _Pragma("GCC diagnostic ignored \"-Wvla\"") \
        typedef char PROF__CAT(prof__no_jump_into_scope_, id)[1 + 0 * PROF__CAT(prof__site_, id).line] \
            __attribute__((__unused__));                                          \
        _Pragma("GCC diagnostic pop")
#    define PROF__SCOPE_AT(id, name, flags)                                   \
        static PROF__SITE_CONST prof_site PROF__CAT(prof__site_, id) = PROF__SITE_INIT(name, flags); \
        PROF__NO_JUMP_IN(id)                                                  \
        prof__scope PROF__CAT(prof__scope_, id) __attribute__((__cleanup__(prof__scope_cleanup), __unused__)) = \
            PROF__AGG(prof__scope, prof__scope_enter(&PROF__CAT(prof__site_, id), PROF__RET))
#    define PROF__SCOPE_DYN_AT(id, name)                                      \
        static PROF__SITE_CONST prof_site PROF__CAT(prof__site_, id) = PROF__SITE_INIT("", 0); \
        PROF__NO_JUMP_IN(id)                                                  \
        prof__scope PROF__CAT(prof__scope_, id) __attribute__((__cleanup__(prof__scope_cleanup), __unused__)) = \
            PROF__AGG(prof__scope, prof__scope_enter_dyn(&PROF__CAT(prof__site_, id), (name), PROF__RET))
typedef struct prof__scope_args { prof__scope s; const prof_args *a; } prof__scope_args;
PROF__INLINE PROF__NOINSTRUMENT prof__scope_args prof__scope_args_enter(const prof_site *site, const prof_args *a, void *ret) {
    prof__scope_args x;
    x.s = prof__scope_enter(site, ret);
    x.a = a;
    return x;
}
PROF__INLINE PROF__NOINSTRUMENT void prof__scope_args_cleanup(prof__scope_args *x) {
    if (x->s.t) prof__scope_leave_args(&x->s, x->a);
}
#    define PROF__SCOPE_ARGS_AT(id, name, args)                               \
        static PROF__SITE_CONST prof_site PROF__CAT(prof__site_, id) = PROF__SITE_INIT(name, PROF_SITE_CPU_OP); \
        PROF__NO_JUMP_IN(id)                                                  \
        prof__scope_args PROF__CAT(prof__scope_, id) __attribute__((__cleanup__(prof__scope_args_cleanup), __unused__)) = \
            PROF__AGG(prof__scope_args, prof__scope_args_enter(&PROF__CAT(prof__site_, id), (args), PROF__RET))
#  endif
#  define PROF__SCOPE_ARGS_ID(id, name, args) PROF__SCOPE_ARGS_AT(id, name, args)
#  if defined(__cplusplus)
#  define PROF__SCOPE_SHAPES_AT(id, name, ...)                               \
        const auto PROF__CAT(prof__shp_, id) = PROF__AGG(auto, prof__make_i64s(__VA_ARGS__)); \
        const prof_args PROF__CAT(prof__arg_, id) = PROF__AGG(prof_args, prof__args_make(PROF__CAT(prof__shp_, id).v, \
            PROF__TO_INT(sizeof PROF__CAT(prof__shp_, id).v / sizeof(int64_t)), 0)); \
        PROF__SCOPE_ARGS_AT(id, name, &PROF__CAT(prof__arg_, id))
#  else
/* (the dims are converted to int64 as in C++: size_t dims under
   -Wconversion are not the user's mistake) */
#  define PROF__SCOPE_SHAPES_AT(id, name, ...)                               \
        PROF__SHAPES_PRAGMAS_PUSH                                             \
        const int64_t PROF__CAT(prof__shp_, id)[] = { __VA_ARGS__ };           \
        _Pragma("GCC diagnostic pop")                                         \
        PROF__SHAPES_LIMIT(id, PROF__CAT(prof__shp_, id));                     \
        const prof_args PROF__CAT(prof__arg_, id) = PROF__AGG(prof_args, prof__args_make(PROF__CAT(prof__shp_, id), \
            PROF__TO_INT(sizeof PROF__CAT(prof__shp_, id) / sizeof(int64_t)), 0)); \
        PROF__SCOPE_ARGS_AT(id, name, &PROF__CAT(prof__arg_, id))
#  endif
#  define PROF__SCOPE_SHAPES_ID(id, name, ...) PROF__SCOPE_SHAPES_AT(id, name, __VA_ARGS__)
#  define PROF__SCOPE_FLOPS_AT(id, name, flops)                              \
        const prof_args PROF__CAT(prof__arg_, id) = PROF__AGG(prof_args, prof__args_make(PROF__NULL, 0, prof__to_i64(flops))); \
        PROF__SCOPE_ARGS_AT(id, name, &PROF__CAT(prof__arg_, id))
#  define PROF__SCOPE_FLOPS_ID(id, name, flops) PROF__SCOPE_FLOPS_AT(id, name, flops)
/* A scope marked as an operator (trace category cpu_op), with arguments:
   PROF_SCOPE_ARGS(name, &args), PROF_SCOPE_SHAPES(name, ndim, dims..., ndim,
   dims...), PROF_SCOPE_FLOPS(name, flops). */
#  define PROF_SCOPE_ARGS(name, args) PROF__SCOPE_ARGS_ID(PROF__ID, name, args)
#  if defined(PROF_NO_SHAPES)
#    define PROF_SCOPE_SHAPES(name, ...) PROF__SCOPE_ID(PROF__ID, name, PROF_SITE_CPU_OP); \
        PROF__SHAPES_OFF_ID(PROF__ID, name, __VA_ARGS__)
#  else
#    define PROF_SCOPE_SHAPES(name, ...) PROF__SCOPE_SHAPES_ID(PROF__ID, name, __VA_ARGS__)
#  endif
#  if defined(PROF_NO_FLOPS)
#    define PROF_SCOPE_FLOPS(name, flops) PROF__SCOPE_ID(PROF__ID, name, PROF_SITE_CPU_OP); \
        PROF__DECL_USE(PROF__ID, flops)
#  else
#    define PROF_SCOPE_FLOPS(name, flops) PROF__SCOPE_FLOPS_ID(PROF__ID, name, flops)
#  endif
/* Async ranges: begin on one thread, end on any, matched by a 64-bit id. */
#  define PROF_ASYNC_BEGIN(name, id) do {                                     \
        static PROF__SITE_CONST prof_site prof__site_a = PROF__SITE_INIT(name, 0);        \
        prof__async(&prof__site_a, PROF__TAG_ASYNC_BEGIN, prof__to_u64(id)); } while (0)
#  define PROF_ASYNC_END(id) prof__async(PROF__NULL, PROF__TAG_ASYNC_END, prof__to_u64(id))
#  define PROF__SCOPE_ID(id, name, flags) PROF__SCOPE_AT(id, name, flags)
#  define PROF__SCOPE_DYN_ID(id, name) PROF__SCOPE_DYN_AT(id, name)
#  define PROF_SCOPE(name) PROF__SCOPE_ID(PROF__ID, name, 0)
#  define PROF_SCOPE_OP(name) PROF__SCOPE_ID(PROF__ID, name, PROF_SITE_CPU_OP)
#  define PROF_SCOPE_DYN(name) PROF__SCOPE_DYN_ID(PROF__ID, name)
#  define PROF_FUNC() PROF__SCOPE_ID(PROF__ID, PROF__FUNC, 0)
#  define PROF_BEGIN(name) do {                                               \
        static PROF__SITE_CONST prof_site prof__site_b = PROF__SITE_INIT(name, 0);        \
        prof__begin(&prof__site_b); } while (0)
#  define PROF_BEGIN_DYN(name) do {                                           \
        static PROF__SITE_CONST prof_site prof__site_b = PROF__SITE_INIT("", 0);          \
        prof__begin_dyn(&prof__site_b, PROF__CSTR(name)); } while (0)
#  define PROF_END() prof__end()
#  define PROF_THREAD_NAME(name) prof_set_thread_name(PROF__CSTR(name))
#  define PROF_MARK(name) do {                                                \
        static PROF__SITE_CONST prof_site prof__site_m = PROF__SITE_INIT(name, 0);        \
        prof__instant(&prof__site_m, PROF__TAG_MARK, 0); } while (0)
#  define PROF_COUNTER(name, value) do {                                      \
        static PROF__SITE_CONST prof_site prof__site_c = PROF__SITE_INIT(name, 0);        \
        prof__instant(&prof__site_c, PROF__TAG_COUNTER, prof__to_f64(value)); } while (0)
#endif

#if defined(PROF__HDR_GCC_PRAGMAS)
#  pragma GCC diagnostic pop
#endif
#endif /* PROF_H */

/* >>impl =================================================================*/
#if defined(PROF_IMPLEMENTATION) && !defined(PROF__IMPLEMENTED)
#define PROF__IMPLEMENTED
/* Compiled out, prof_alloc and prof_dealloc track nothing either: their
   table of live blocks costs memory (~70 bytes a block) and time (~0.3 us
   an allocation and free) even outside sessions. */
#if defined(PROF_DISABLED) && !defined(PROF_NO_MEMORY)
#  define PROF_NO_MEMORY 1
#endif
/* The implementation is C. In a C++ file, the warnings about C++ style
   that C code cannot help (C casts, ones that are no-ops in C++, NULL
   and glibc's initialisers as 0) are off for it alone: a project's own
   flags (fmt's, -Wold-style-cast -Wuseless-cast
   -Wzero-as-null-pointer-constant) still apply to its code. */
/* -Winline (some projects build with it) is off for the implementation,
   whose small inline helpers gcc keeps apart where its growth limits say
   so: that is its choice to make, not a fault in the user's build; and
   -Waggregate-return, as in the header. */
#if defined(__GNUC__) && !defined(__clang__)
#  pragma GCC diagnostic push
#  pragma GCC diagnostic ignored "-Winline"
#  pragma GCC diagnostic ignored "-Waggregate-return" /* (as in the header) */
#  pragma GCC diagnostic ignored "-Wstrict-overflow"  /* the optimizer's notes (xz's -Wstrict-overflow=3) */
#  if __GNUC__ >= 7 /* -Wformat-truncation=2 counts a double's 314 digits where
                       the values are times, and every snprintf here may cut */
#    pragma GCC diagnostic ignored "-Wformat-truncation"
#  endif
#  define PROF__IMPL_GCC_PRAGMAS
#endif
/* A program may mark libc's allocator deprecated to steer its own code to
   its allocator (Valkey's server.h, under -Werror=deprecated-declarations);
   prof.h's calls of libc are meant (prof_malloc and its twins wrap it, and
   __cxa_demangle's copy is libc's to free). */
#if defined(__GNUC__)
#  pragma GCC diagnostic push
#  pragma GCC diagnostic ignored "-Wdeprecated-declarations"
#  define PROF__IMPL_DEPR_PRAGMAS
#endif
#if defined(__cplusplus) && defined(__GNUC__)
#  pragma GCC diagnostic push
#  pragma GCC diagnostic ignored "-Wold-style-cast"
#  pragma GCC diagnostic ignored "-Wzero-as-null-pointer-constant"
#  if !defined(__clang__)
#    pragma GCC diagnostic ignored "-Wuseless-cast"
#  endif
#  define PROF__IMPL_CXX_PRAGMAS
#endif

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <locale.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#if defined(__has_include)
#  if __has_include(<stdio_ext.h>)
#    include <stdio_ext.h> /* __fpending: glibc, musl, bionic */
#    define PROF__HAVE_FPENDING 1
#  endif
#endif
#if defined(__linux__)
#include <sys/vfs.h> /* statfs: is a path on /proc */
#endif
/* A system header included before prof.h fixes the feature-test macros
   before prof.h can ask for _GNU_SOURCE. Whatever the file asked for is
   enough from POSIX.1-2001 on (the default -std=gnu* and C++ modes,
   _DEFAULT_SOURCE, _POSIX_C_SOURCE >= 200112L, _XOPEN_SOURCE >= 600, as
   Lua's lprefix.h sets): the few Linux and POSIX.1-2008 extras that such a
   mode hides are declared below. Older POSIX levels, or strict ISO C with
   no feature-test macro, hide much more (posix_memalign, lstat; in strict
   ISO C all of POSIX): stop with the cause and the fix rather than a
   screen of errors. */
#if defined(__GLIBC__) && !defined(__USE_XOPEN2K)
/* (in strict ISO C, glibc reads -pthread's _REENTRANT as POSIX 1995) */
#  if !defined(PROF__IMPL_WITH_HEADER)
#    error "prof.h: this file included prof.h before it defined PROF_IMPLEMENTATION, and the system headers of that first #include fixed the feature set without the POSIX the implementation needs (strict ISO C or an old _POSIX_C_SOURCE: clock_gettime, sigset_t, posix_memalign, ...). Fix: define PROF_IMPLEMENTATION before the first #include of prof.h in this file, or compile it with -D_DEFAULT_SOURCE."
#  elif !defined(__STRICT_ANSI__) || defined(_XOPEN_SOURCE) || \
      (defined(_POSIX_C_SOURCE) && !(defined(_REENTRANT) && _POSIX_C_SOURCE == 199506L))
#    error "prof.h: this file sets _POSIX_C_SOURCE below 200112L (or _XOPEN_SOURCE below 600) before a system header, which hides functions the implementation needs (posix_memalign, lstat, ...). Fix: define _POSIX_C_SOURCE as 200809L in this file, or define PROF_IMPLEMENTATION in a file of its own that includes prof.h first."
#  else
#    error "prof.h: this file is built as strict ISO C (-std=c99/c11/c17, no POSIX feature-test macro of 200112L or later) and includes a system header before prof.h, which hides all of POSIX (clock_gettime, sigset_t, ...). Fix: include prof.h before the other headers in this file, or compile it with -D_DEFAULT_SOURCE."
#  endif
#  define PROF__IMPL_STOPPED /* the rest would add only errors that follow from the one above */
#endif
#if !defined(PROF__IMPL_STOPPED)
#if !defined(__GLIBC__) && defined(__linux__) && defined(__STRICT_ANSI__) && !defined(_POSIX_SOURCE) && !defined(_POSIX_C_SOURCE) && \
    !defined(_XOPEN_SOURCE) && !defined(_BSD_SOURCE) && !defined(_DEFAULT_SOURCE)
/* musl in strict ISO C (a system header came first; prof.h's own
   _GNU_SOURCE then came too late): its unistd.h and the other POSIX
   headers declare what prof.h calls whatever the mode, but stdio.h keeps
   these two POSIX ones back (declared again, they change nothing) */
extern int fileno(FILE *f);
extern int renameat(int olddirfd, const char *oldpath, int newdirfd, const char *newpath);
#endif
#if defined(__GLIBC__) && !defined(__USE_XOPEN2K8)
/* POSIX.1-2001: what 2008 added, with Linux's values and glibc's
   declarations (fchown is XSI before 2008) */
#  ifndef O_CLOEXEC
#    if defined(__O_CLOEXEC)
#      define O_CLOEXEC __O_CLOEXEC
#    else
#      define O_CLOEXEC 02000000
#    endif
#  endif
#  ifndef F_DUPFD_CLOEXEC
#    define F_DUPFD_CLOEXEC 1030
#  endif
#  if !defined(__USE_XOPEN_EXTENDED)
extern int fchown(int fd, uid_t owner, gid_t group);
#  endif
#  if !defined(__USE_UNIX98)
#    if defined(__LP64__)
extern ssize_t pwrite(int fd, const void *buf, size_t n, off_t offset);
#    else
#      define PROF__NO_PWRITE 1 /* 32 bits: its symbol depends on _FILE_OFFSET_BITS (the parallel JSON writes in turn) */
#    endif
#  endif
#endif
#if defined(__GLIBC__) && !defined(__USE_MISC)
/* POSIX.1-2001 and later without glibc's misc extensions: these are Linux's, with
   the same values on x86-64 and aarch64; the functions are in libc. */
#  ifndef MAP_ANONYMOUS
#    define MAP_ANONYMOUS 0x20
#  endif
#  ifndef MADV_HUGEPAGE
#    define MADV_HUGEPAGE 14
#  endif
extern long syscall(long number, ...);
extern int madvise(void *addr, size_t len, int advice);
#endif
#if defined(__GLIBC__) && !defined(__USE_GNU)
/* glibc shows Dl_info and dladdr only with _GNU_SOURCE, which came too late
   here; the function is in libc all the same, with this layout. */
typedef struct prof__dl_info { const char *dli_fname; void *dli_fbase; const char *dli_sname; void *dli_saddr; } prof__dl_info;
extern int dladdr(const void *addr, prof__dl_info *info);
#define PROF__DL_INFO prof__dl_info
#else
#define PROF__DL_INFO Dl_info
#endif
#if !defined(PROF_NO_STACK) && defined(__GLIBC__)
#include <execinfo.h>
#define PROF__HAVE_BACKTRACE 1
#endif
#if defined(PROF_CUPTI)
/* CUPTI's and CUDA's headers are not -Wpedantic clean in C */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpedantic"
#include <cupti.h>
#pragma GCC diagnostic pop
#endif

#if defined(PROF_MALLOC) && defined(PROF_FREE) && defined(PROF_REALLOC)
#elif !defined(PROF_MALLOC) && !defined(PROF_FREE) && !defined(PROF_REALLOC)
#define PROF_MALLOC(sz) malloc(sz)
#define PROF_REALLOC(p, sz) realloc(p, sz)
#define PROF_FREE(p) free(p)
#define PROF__LIBC_ALLOC 1 /* posix_memalign memory can go to PROF_FREE */
#if defined(__GLIBC__)
#include <malloc.h> /* malloc_trim (prof__heap_trim) */
#endif
#else
#error "prof.h: define all of PROF_MALLOC, PROF_REALLOC and PROF_FREE, or none of them"
#endif
#ifndef PROF_ASSERT
#include <assert.h>
#define PROF_ASSERT(x) assert(x)
#endif

#ifdef __cplusplus
extern "C" {
#endif

#define PROF__NI PROF__NOINSTRUMENT
#define PROF__ALLOC(type, n) ((type *)prof__malloc_n((size_t)(n), sizeof(type)))
#define PROF__LOAD(p) __atomic_load_n((p), __ATOMIC_ACQUIRE)
#define PROF__LOADR(p) __atomic_load_n((p), __ATOMIC_RELAXED)
#define PROF__STORE(p, v) __atomic_store_n((p), (v), __ATOMIC_RELEASE)
#define PROF__STORER(p, v) __atomic_store_n((p), (v), __ATOMIC_RELAXED)

/* prof.h calls the allocator (PROF_MALLOC/REALLOC/FREE) only through these,
   which mark the thread while it runs. A hook that reports its blocks with
   prof_alloc, or an allocator that is itself instrumented (PROF_SCOPE in a
   pool allocator), re-enters prof.h from inside its own allocation: with a
   lock held (the live allocations' table: a deadlock at the first
   prof_alloc), or halfway through a thread's first state, a record block
   or a name table (an endless recursion, a table changed under its own
   growth). While marked, the thread's prof_alloc/prof_dealloc calls are
   not tracked, and a scope that would need a new block, the thread's
   state or a long name's copy is dropped (counted as for lack of memory). */
static __thread int prof__in_alloc;
/* The fences keep the mark in memory across the call: gcc knows malloc,
   realloc and free as builtins that touch no variable of the program, and
   would drop a plain increment and decrement around them. */
#define PROF__IN_ALLOC(d) (prof__in_alloc += (d), __atomic_signal_fence(__ATOMIC_SEQ_CST))
static PROF__NI void *prof__hook_malloc(size_t n) {
    void *p;
    PROF__IN_ALLOC(1);
    p = PROF_MALLOC(n);
    PROF__IN_ALLOC(-1);
    return p;
}
static PROF__NI void *prof__hook_realloc(void *q, size_t n) {
    void *p;
    PROF__IN_ALLOC(1);
    p = PROF_REALLOC(q, n);
    PROF__IN_ALLOC(-1);
    return p;
}
static PROF__NI void prof__hook_free(void *q) {
    PROF__IN_ALLOC(1);
    PROF_FREE(q);
    PROF__IN_ALLOC(-1);
}
#define PROF__MALLOC(n) prof__hook_malloc(n)
#define PROF__REALLOC(p, n) prof__hook_realloc((p), (n))
#define PROF__FREE(p) prof__hook_free(p)

/* ----- errors and logging ----- */
static const char *const prof__result_text[] = {
#define PROF__X(code, msg) msg,
    PROF__RESULTS(PROF__X)
#undef PROF__X
};
/* the callback and its user_data change together (prof_set_log, prof_start)
   while any thread may be reporting: both under one lock */
static prof_log_fn prof__g_log;
static void *prof__g_log_user;
static pthread_mutex_t prof__log_lock = PTHREAD_MUTEX_INITIALIZER;
static __thread char prof__last_error_buf[512];
static __thread prof_result prof__last_error_code; /* of the last error this thread reported */

PROF_API const char *prof_result_string(prof_result r) {
    if ((unsigned)r >= (unsigned)PROF_RESULT_COUNT) return "unknown result"; /* (unsigned: one test for both ends, also with -fshort-enums) */
    return prof__result_text[r];
}
PROF_API const char *prof_last_error(void) { return prof__last_error_buf; }
PROF_API void prof_set_log(prof_log_fn log, void *user_data) {
    pthread_mutex_lock(&prof__log_lock);
    prof__g_log = log;
    prof__g_log_user = user_data;
    pthread_mutex_unlock(&prof__log_lock);
}

/* A pipe or socket whose reader is gone makes write(2) raise SIGPIPE, and a
   file that reaches RLIMIT_FSIZE SIGXFSZ; the default action of either
   kills the host: prof.h's writes (the exporters', a printed table, its
   messages on stderr) must fail with EPIPE or EFBIG instead.
   send(MSG_NOSIGNAL) would cover sockets only, and changing the process's
   handler would race with the host's own, so both are blocked in this
   thread around the writes (the mask is per thread); the signal a failed write then leaves pending on the thread
   is taken back with sigtimedwait, unless one was pending already before
   (the host's, left alone). */
typedef struct prof__sig_guard { sigset_t old_mask, pending; } prof__sig_guard;
static PROF__NI void prof__sig_hold(prof__sig_guard *g) {
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGPIPE);
    sigaddset(&set, SIGXFSZ);
    pthread_sigmask(SIG_BLOCK, &set, &g->old_mask);
    if (sigpending(&g->pending) != 0) sigfillset(&g->pending); /* unknown: take nothing back */
}
/* err: the errno the writes failed with, 0 if none */
static PROF__NI void prof__sig_release(prof__sig_guard *g, int err) {
    int sig = err == EPIPE ? SIGPIPE : err == EFBIG ? SIGXFSZ : 0;
    if (sig && sigismember(&g->pending, sig) != 1) {
        struct timespec zero = { 0, 0 };
        sigset_t set;
        sigemptyset(&set);
        sigaddset(&set, sig);
        while (sigtimedwait(&set, NULL, &zero) < 0 && errno == EINTR) {}
    }
    pthread_sigmask(SIG_SETMASK, &g->old_mask, NULL);
}

static PROF__NI int prof__stream_put(FILE *f, const char *s, size_t n); /* (>>table) */
/* prof__in_log: this thread is inside the log callback. prof__log_mute:
   a message that goes to prof_last_error only (a refusal of a call the
   callback made: through the callback again, it could call again, and
   again, with no end). */
static __thread int prof__in_log, prof__log_mute;
#if defined(__GNUC__)
__attribute__((__format__(__printf__, 3, 4)))
#endif
static PROF__NI prof_result prof__report(prof_log_level level, prof_result code, const char *fmt, ...) {
    va_list ap;
    char msg[512];
    prof_log_fn log;
    void *user;
    int len;
    va_start(ap, fmt);
    len = vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (len >= (int)sizeof msg) {
        /* Too long (a long path): the middle goes, so the message keeps its
           start (what failed) and its end (why), where the reason is. */
        char *full = (char *)PROF__MALLOC((size_t)len + 1);
        if (full) {
            size_t head = 160, from = (size_t)len - (sizeof msg - 1 - head - 5);
            va_start(ap, fmt);
            vsnprintf(full, (size_t)len + 1, fmt, ap);
            va_end(ap);
            /* cut between UTF-8 sequences */
            while (head > 0 && ((unsigned char)full[head] & 0xC0) == 0x80) head--;
            while (((unsigned char)full[from] & 0xC0) == 0x80) from++;
            memcpy(msg + head, " ... ", 5);
            memcpy(msg + head + 5, full + from, (size_t)len - from + 1);
            PROF__FREE(full);
        }
    }
    if (level == PROF_LOG_ERROR) {
        memcpy(prof__last_error_buf, msg, sizeof msg);
        prof__last_error_code = code;
    }
    if (prof__log_mute) return code;
    pthread_mutex_lock(&prof__log_lock);
    log = prof__g_log;
    user = prof__g_log_user;
    pthread_mutex_unlock(&prof__log_lock); /* not held in the callback, which may call prof.h */
    {
        /* the write to stderr (or the callback's) is a cancellation point,
           and the caller may hold one of prof.h's locks: a thread cancelled
           there would keep it forever (its own exit handler waits for it) */
        int cancel_state, saved = errno;
        pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &cancel_state);
        if (log) {
            prof__in_log++;
            log(level, code, msg, user);
            prof__in_log--;
        } else { /* stderr on a closed pipe, or a log file at RLIMIT_FSIZE: the message is lost, not the host */
            prof__sig_guard g;
            char line[sizeof msg + 32];
            int n = snprintf(line, sizeof line, "prof.h %s: %s\n", level == PROF_LOG_ERROR ? "error" : level == PROF_LOG_WARNING ? "warning" : "info", msg);
            prof__sig_hold(&g);
            prof__sig_release(&g, n > 0 ? prof__stream_put(stderr, line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1) : 0);
        }
        pthread_setcancelstate(cancel_state, NULL);
        errno = saved;
    }
    return code;
}

/* ----- small containers: growable arrays, string arena, hash maps ----- */
/* Sums and differences of hand-built or imported values can pass 2^63
   (FLOPs of a long run, a memory figure near the limit), where Python's
   integers keep growing: they stop at the int64 limits instead of
   wrapping to the other sign. */
static __inline__ void prof__sat_add(int64_t *a, int64_t b) {
    int64_t r;
    if (__builtin_add_overflow(*a, b, &r)) r = b > 0 ? INT64_MAX : INT64_MIN;
    *a = r;
}
static __inline__ void prof__sat_sub(int64_t *a, int64_t b) {
    int64_t r;
    if (__builtin_sub_overflow(*a, b, &r)) r = b < 0 ? INT64_MAX : INT64_MIN;
    *a = r;
}
/* Prefix sums of int64 sizes (a few billion of them) fit 128 bits: the
   memory charged to events (differences of two sums) and the memory
   timeline's live totals stay exact whatever the sizes. */
#if defined(__SIZEOF_INT128__) && !defined(PROF__NO_INT128)
__extension__ typedef __int128 prof__i128;
__extension__ typedef unsigned __int128 prof__u128;
static __inline__ int64_t prof__sat_i128(prof__i128 v) { return v > INT64_MAX ? INT64_MAX : v < INT64_MIN ? INT64_MIN : (int64_t)v; }
#define PROF__I128_ADD(a, b) ((a) += (b))
#define PROF__I128_SUB(a, b) ((a) -= (b))
static __inline__ int64_t prof__i128_diff(prof__i128 a, prof__i128 b) { return prof__sat_i128(a - b); }
#else
/* 32-bit targets have no __int128: two 64-bit halves in two's complement,
   the value hi * 2^64 + lo (PROF__NO_INT128, a test's macro, picks them
   on any target) */
typedef struct { uint64_t lo, hi; } prof__i128;
#define PROF__SIGN64(b) ((b) < 0 ? ~(uint64_t)0 : 0) /* b's high half */
static __inline__ void prof__i128_add(prof__i128 *a, int64_t b) {
    const uint64_t lo = a->lo + (uint64_t)b;
    a->hi += PROF__SIGN64(b) + (lo < a->lo);
    a->lo = lo;
}
static __inline__ void prof__i128_sub(prof__i128 *a, int64_t b) {
    const uint64_t lo = a->lo - (uint64_t)b;
    a->hi -= PROF__SIGN64(b) + (a->lo < (uint64_t)b);
    a->lo = lo;
}
#define PROF__I128_ADD(a, b) prof__i128_add(&(a), (b))
#define PROF__I128_SUB(a, b) prof__i128_sub(&(a), (b))
/* v within int64 (*out set), else 0 */
static __inline__ int prof__i128_fits(prof__i128 v, int64_t *out) {
    if (v.hi == 0 && v.lo <= (uint64_t)INT64_MAX) { *out = (int64_t)v.lo; return 1; }
    if (v.hi == ~(uint64_t)0 && v.lo > (uint64_t)INT64_MAX) { *out = -(int64_t)~v.lo - 1; return 1; }
    return 0;
}
static __inline__ int64_t prof__sat_i128(prof__i128 v) {
    int64_t r;
    return prof__i128_fits(v, &r) ? r : v.hi >> 63 ? INT64_MIN : INT64_MAX;
}
static __inline__ int64_t prof__i128_diff(prof__i128 a, prof__i128 b) {
    prof__i128 d;
    d.lo = a.lo - b.lo;
    d.hi = a.hi - b.hi - (a.lo < b.lo);
    return prof__sat_i128(d);
}
#endif
/* prof_stop and the analysis fill arrays of tens of bytes per event, all
   fresh memory: with 4 KiB pages, faulting them in took about half of
   prof_stop's time here (a first touch costs microseconds on a VM). Arrays
   of PROF__HUGE_HINT bytes and more from libc's malloc, which maps chunks
   that large on their own, are asked for transparent huge pages instead:
   prof_stop of 10M events measured 1.5-2x faster. A user's allocator is
   left alone. prof__hint_huge_from takes the size from which to ask;
   arrays of 2 MB and more filled whole are allocated in huge pages from
   their start instead (prof__malloc_huge, below). */
#define PROF__HUGE_HINT ((size_t)32 << 20)
static PROF__NI void prof__hint_huge_from(void *p, size_t bytes, size_t min) {
#if defined(PROF__LIBC_ALLOC) && defined(MADV_HUGEPAGE)
    if (p && bytes >= min) {
        long page = sysconf(_SC_PAGESIZE);
        uintptr_t mask = page > 0 ? (uintptr_t)page - 1 : 4095u;
        uintptr_t lo = ((uintptr_t)p + mask) & ~mask, hi = ((uintptr_t)p + bytes) & ~mask;
        if (hi > lo) madvise((void *)lo, hi - lo, MADV_HUGEPAGE); /* a hint: failure changes nothing */
    }
#else
    (void)p; (void)bytes; (void)min;
#endif
}
static PROF__NI void prof__hint_huge(void *p, size_t bytes) { prof__hint_huge_from(p, bytes, PROF__HUGE_HINT); }
static PROF__NI void *prof__malloc(size_t bytes) {
    void *p = PROF__MALLOC(bytes);
    prof__hint_huge(p, bytes);
    return p;
}
/* Sizes are checked before they are computed: n elements of size bytes
   that would pass PTRDIFF_MAX (no object can be larger) are refused, where
   the wrapped product would allocate a few bytes and be written past. */
#define PROF__MAX_ELEMS(size) ((size_t)PTRDIFF_MAX / (size))
static PROF__NI void *prof__malloc_n(size_t n, size_t size) {
    if (n > PROF__MAX_ELEMS(size)) return NULL;
    return prof__malloc(n * size);
}
/* An array of 2 MB and more that the caller fills whole, in huge pages
   from its first byte: libc's malloc puts a chunk that large 16 bytes into
   a fresh mapping, so the hint alone leaves most of an 8 MB array in 4 KiB
   pages (huge pages only fit where 2 MB-aligned), each first touch a fault
   (key_averages' 61k rows of the stress case: 2700 faults, 12-35 us each
   here). Aligned to 2 MB and rounded up to whole huge pages (the rest of
   the last one is touched by nobody, or by a growth through realloc, which
   takes this memory). A user's allocator gets the plain request.
   prof__malloc_huge_from takes the size from which to round up: short-
   lived buffers from 512 KB (one fault instead of 128 or more; the
   untouched rest of the huge page is resident while they live, so the
   analysis' arrays, which live on, start at 2 MB). */
#define PROF__HUGE ((size_t)2 << 20)
static PROF__NI void *prof__malloc_huge_from(size_t n, size_t elem, size_t min) {
    size_t bytes;
    if (n > PROF__MAX_ELEMS(elem)) return NULL;
    bytes = n * elem;
#if defined(PROF__LIBC_ALLOC) && defined(MADV_HUGEPAGE)
    if (bytes >= min && bytes <= (size_t)PTRDIFF_MAX - PROF__HUGE) {
        void *p = NULL;
        int rc;
        bytes = (bytes + PROF__HUGE - 1) & ~(PROF__HUGE - 1);
        PROF__IN_ALLOC(1); /* (as the PROF__MALLOC wrappers) */
        rc = posix_memalign(&p, PROF__HUGE, bytes);
        PROF__IN_ALLOC(-1);
        if (rc != 0) return NULL;
        madvise(p, bytes, MADV_HUGEPAGE); /* a hint: failure changes nothing */
        return p;
    }
#else
    (void)min;
#endif
    return PROF__MALLOC(bytes ? bytes : 1);
}
static PROF__NI void *prof__malloc_huge(size_t n, size_t elem) { return prof__malloc_huge_from(n, elem, PROF__HUGE); }
/* glibc's malloc raises its threshold for mapping a chunk on its own (up
   to 32 MB) each time a mapped chunk is freed, so after prof.h's first big
   free its big arrays come from the heap, where the 2 MB-aligned ones
   above leave fragments that small allocations then pin: a schedule whose
   windows held 400k events on two threads kept ~170 MB of freed heap
   resident (mallinfo2: 215 MB free, 0.2 MB in use; 8 MB with the trim).
   Freeing a big list, and prof_shutdown, give the heap's free pages back
   to the system (malloc_trim: libc's allocator, glibc only). */
#define PROF__TRIM_MIN ((size_t)8 << 20) /* bytes of events freed that call for it */
static PROF__NI void prof__heap_trim(void) {
#if defined(PROF__LIBC_ALLOC) && defined(__GLIBC__)
    malloc_trim(0);
#endif
}
/* Grows the array whose pointer is at `pp` (a T**, passed as void *) to at
   least `need` elements of `elem` bytes, doubling. Fails (0) with the
   array and *cap as they were when need or the doubled capacity would pass
   PTRDIFF_MAX bytes, instead of wrapping to a small or zero size
   (realloc(p, 0) frees p). The pointer is read and written with memcpy:
   storing a void * into a T * object through a void ** would break strict
   aliasing (and -Wstrict-aliasing says so at the casts). */
static PROF__NI int prof__grow(void *pp, size_t *cap, size_t need, size_t elem) {
    size_t nc, max = PROF__MAX_ELEMS(elem);
    void *p, *np;
    if (need <= *cap) return 1;
    if (need > max) return 0;
    nc = *cap ? *cap : 16;
    while (nc < need) nc = nc > max / 2 ? max : nc * 2;
    memcpy(&p, pp, sizeof p);
    np = PROF__REALLOC(p, nc * elem);
    if (!np) return 0;
    prof__hint_huge(np, nc * elem);
    memcpy(pp, &np, sizeof np);
    *cap = nc;
    return 1;
}
#define PROF__PUSH_OK(arr, n, cap) prof__grow((void *)&(arr), &(cap), (n) + 1, sizeof *(arr))
/* The same to exactly `need` elements, for a size known in advance. */
static PROF__NI int prof__reserve_exact(void *pp, size_t *cap, size_t need, size_t elem) {
    void *p, *np;
    if (need <= *cap) return 1;
    if (need > PROF__MAX_ELEMS(elem)) return 0;
    memcpy(&p, pp, sizeof p);
    if (!(np = PROF__REALLOC(p, need * elem))) return 0;
    prof__hint_huge(np, need * elem);
    memcpy(pp, &np, sizeof np);
    *cap = need;
    return 1;
}

/* The header's size is a multiple of 8 everywhere (i386's is 12 unpadded):
   what the arena hands out is 8-byte aligned, as a prof_site must be. */
typedef struct prof__chunk { struct prof__chunk *next; size_t used, size; } __attribute__((__aligned__(8))) prof__chunk;
typedef struct prof__arena { prof__chunk *head; } prof__arena;

static PROF__NI void *prof__arena_alloc(prof__arena *a, size_t n) {
    prof__chunk *c = a->head;
    if (n > (size_t)PTRDIFF_MAX - sizeof(prof__chunk) - 7) return NULL; /* rounding and the header must not wrap */
    n = (n + 7) & ~(size_t)7;
    if (!c || c->size - c->used < n) {
        size_t sz = n > 65536 ? n : 65536;
        c = (prof__chunk *)PROF__MALLOC(sizeof(prof__chunk) + sz);
        if (!c) return NULL;
        c->next = a->head;
        c->used = 0;
        c->size = sz;
        a->head = c;
    }
    c->used += n;
    return (char *)(c + 1) + c->used - n;
}
static PROF__NI void prof__arena_free(prof__arena *a) {
    prof__chunk *c = a->head;
    while (c) { prof__chunk *n = c->next; PROF__FREE(c); c = n; }
    a->head = NULL;
}

/* The strings hashed are the program's names, which may come from its
   input (a server's PROF_SCOPE_DYN of a request path): a fixed hash lets
   that input pick names that share one hash, and every lookup among n of
   them then compares all n. So the hash is keyed by a value drawn once per
   process (the clocks, addresses under ASLR, the pid), and each step
   folds a full 64x64-bit product (high half into low), which carries
   every bit of the input into every bit of the result both ways: a
   multiply alone only carries bits upwards, and a difference in an input
   word's top bit came out as a fixed difference that the next word could
   cancel, whatever the key. No output depends on the key: maps are never
   walked in slot order to write anything. */
static uint64_t prof__hash_key_v; /* 0 until drawn */
static PROF__NI uint64_t prof__mix(uint64_t x);
static PROF__NI uint64_t prof__hash_key_draw(void) {
    struct timespec a, b;
    uint64_t k, zero = 0;
    int here;
    clock_gettime(CLOCK_MONOTONIC, &a);
    clock_gettime(CLOCK_REALTIME, &b);
    k = prof__mix((uint64_t)a.tv_sec * 1000000000u + (uint64_t)a.tv_nsec);
    k = prof__mix(k ^ ((uint64_t)b.tv_sec * 1000000000u + (uint64_t)b.tv_nsec));
    k = prof__mix(k ^ (uint64_t)(uintptr_t)&here ^ ((uint64_t)(uintptr_t)&prof__hash_key_v << 20));
    k = prof__mix(k ^ (uint64_t)getpid()) | 1; /* never 0, which means not drawn */
    if (!__atomic_compare_exchange_n(&prof__hash_key_v, &zero, k, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
        k = zero; /* another thread drew first: one key for the process */
    return k;
}
static __inline__ uint64_t prof__hash_key(void) {
    uint64_t k = __atomic_load_n(&prof__hash_key_v, __ATOMIC_RELAXED);
    return PROF__LIKELY(k != 0) ? k : prof__hash_key_draw();
}
/* The 128-bit product of a and b, its high half xor its low half. */
static __inline__ uint64_t prof__fold_mul(uint64_t a, uint64_t b) {
#if defined(__SIZEOF_INT128__)
    __extension__ unsigned __int128 r = (unsigned __int128)a * b;
    return (uint64_t)r ^ (uint64_t)(r >> 64);
#else /* i386: the four 32x32-bit products */
    uint64_t al = (uint32_t)a, ah = a >> 32, bl = (uint32_t)b, bh = b >> 32;
    uint64_t ll = al * bl, lh = al * bh, hl = ah * bl, hh = ah * bh;
    uint64_t mid = (ll >> 32) + (uint32_t)lh + (uint32_t)hl;
    uint64_t lo = (mid << 32) | (uint32_t)ll;
    uint64_t hi = hh + (lh >> 32) + (hl >> 32) + (mid >> 32);
    return lo ^ hi;
#endif
}
/* Eight bytes a step (a byte at a time cost prof_stop ~300 instructions
   per event hashing input shapes); the length goes in first, so a string
   and the same one with NULs after it differ. Maps mix the result again. */
static PROF__NI uint64_t prof__hash_bytes(const void *p, size_t n, uint64_t h) {
    const unsigned char *s = (const unsigned char *)p;
    const uint64_t key = prof__hash_key();
    uint64_t w;
    h = prof__fold_mul(h ^ key, (uint64_t)n * 0x9e3779b97f4a7c15ull ^ 0xa0761d6478bd642full);
    for (; n >= 8; n -= 8, s += 8) {
        memcpy(&w, s, 8);
        h = prof__fold_mul(h ^ w, key ^ 0xe7037ed1a0b428dbull);
    }
    if (n) {
        w = 0;
        memcpy(&w, s, n);
        h = prof__fold_mul(h ^ w, key ^ 0x8ebc6af09c88c6e3ull);
    }
    return h;
}
static PROF__NI uint64_t prof__mix(uint64_t x) {
    x ^= x >> 33; x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33; x *= 0xc4ceb9fe1a85ec53ull;
    return x ^ (x >> 33);
}

/* Open-addressing map from a 64-bit key to a 32-bit value (UINT32_MAX marks
   an empty slot). Integer keys (thread ids, pointers, correlation ids) use
   prof__map_slot / prof__map_get; other keys, below, the keyed lookup. */
typedef struct prof__map { uint64_t *keys; uint32_t *vals; size_t cap, n; } prof__map;
static PROF__NI int prof__map_rehash(prof__map *m, size_t ncap) {
    prof__map nm;
    size_t i;
    nm.keys = PROF__ALLOC(uint64_t, ncap);
    nm.vals = PROF__ALLOC(uint32_t, ncap);
    nm.cap = ncap;
    nm.n = 0;
    if (!nm.keys || !nm.vals) { PROF__FREE(nm.keys); PROF__FREE(nm.vals); return 0; }
    for (i = 0; i < ncap; i++) nm.vals[i] = UINT32_MAX;
    for (i = 0; i < m->cap; i++) {
        if (m->vals[i] != UINT32_MAX) {
            size_t j = (size_t)prof__mix(m->keys[i]) & (ncap - 1);
            while (nm.vals[j] != UINT32_MAX) j = (j + 1) & (ncap - 1);
            nm.keys[j] = m->keys[i];
            nm.vals[j] = m->vals[i];
            nm.n++;
        }
    }
    PROF__FREE(m->keys);
    PROF__FREE(m->vals);
    *m = nm;
    return 1;
}
/* Returns the slot for key; *found says whether it holds the key. */
static PROF__NI uint32_t *prof__map_slot(prof__map *m, uint64_t key, int *found) {
    size_t j;
    if ((m->n + 1) * 4 >= m->cap * 3 && !prof__map_rehash(m, m->cap ? m->cap * 2 : 64)) return NULL;
    j = (size_t)prof__mix(key) & (m->cap - 1);
    while (m->vals[j] != UINT32_MAX) {
        if (m->keys[j] == key) { *found = 1; return &m->vals[j]; }
        j = (j + 1) & (m->cap - 1);
    }
    *found = 0;
    m->keys[j] = key;
    m->n++;
    return &m->vals[j];
}
/* The value of key, to read or change (never UINT32_MAX), NULL when absent;
   never grows the map. */
static PROF__NI uint32_t *prof__map_at(const prof__map *m, uint64_t key) {
    size_t j;
    if (!m->cap) return NULL;
    j = (size_t)prof__mix(key) & (m->cap - 1);
    while (m->vals[j] != UINT32_MAX) {
        if (m->keys[j] == key) return &m->vals[j];
        j = (j + 1) & (m->cap - 1);
    }
    return NULL;
}
static PROF__NI uint32_t prof__map_get(const prof__map *m, uint64_t key) {
    const uint32_t *v = prof__map_at(m, key);
    return v ? *v : UINT32_MAX;
}
/* Keyed lookup, for keys that are not a 64-bit integer (strings, sites,
   stack nodes, shape lists, table rows): the map holds indices into the
   caller's array with each key's hash beside it, and `same(key, val)` says
   whether element val of that array is the key looked up. A miss is added
   after the caller has stored the element (prof__map_add), so a failure on
   either side leaves nothing to undo: find, make, add; on a failed add,
   drop the element just made. */
typedef int (*prof__map_same)(const void *key, uint32_t val);
/* The key's slot (its value may be changed to another element equal to
   the key), NULL when absent. */
static PROF__NI uint32_t *prof__map_find_slot(const prof__map *m, uint64_t hash, prof__map_same same, const void *key) {
    size_t j;
    if (!m->cap) return NULL;
    for (j = (size_t)prof__mix(hash) & (m->cap - 1); m->vals[j] != UINT32_MAX; j = (j + 1) & (m->cap - 1))
        if (m->keys[j] == hash && same(key, m->vals[j])) return &m->vals[j];
    return NULL;
}
static PROF__NI uint32_t prof__map_find(const prof__map *m, uint64_t hash, prof__map_same same, const void *key) {
    const uint32_t *slot = prof__map_find_slot(m, hash, same, key);
    return slot ? *slot : UINT32_MAX;
}
/* Adds val under hash (absent, as prof__map_find said); 0: out of memory,
   the map unchanged. */
static PROF__NI int prof__map_add(prof__map *m, uint64_t hash, uint32_t val) {
    size_t j;
    if ((m->n + 1) * 4 >= m->cap * 3 && !prof__map_rehash(m, m->cap ? m->cap * 2 : 64)) return 0;
    for (j = (size_t)prof__mix(hash) & (m->cap - 1); m->vals[j] != UINT32_MAX; j = (j + 1) & (m->cap - 1)) {}
    m->keys[j] = hash;
    m->vals[j] = val;
    m->n++;
    return 1;
}
static PROF__NI void prof__map_free(prof__map *m) {
    PROF__FREE(m->keys);
    PROF__FREE(m->vals);
    memset(m, 0, sizeof *m);
}

/* The one sort: a stable natural merge sort of indices with a comparator.
   Each pass merges neighbouring ascending runs as it finds them, so input
   already in order costs one pass of comparisons and no copy, and k sorted
   runs (prof_stop's threads) cost log2(k) merges; tmp: room for n. */
static PROF__NI void prof__msort_u32(uint32_t *a, uint32_t *tmp, size_t n, int (*less)(const void *, uint32_t, uint32_t), const void *ctx) {
    uint32_t *src = a, *dst = tmp;
    if (n < 2) return;
    for (;;) {
        size_t lo = 0, runs = 0;
        while (lo < n) {
            size_t mid = lo + 1, hi, p, q, k;
            while (mid < n && !less(ctx, src[mid], src[mid - 1])) mid++;
            runs++;
            if (mid == n) {
                if (runs == 1) goto done; /* one run: in order */
                memcpy(dst + lo, src + lo, (n - lo) * sizeof *a);
                break;
            }
            for (hi = mid + 1; hi < n && !less(ctx, src[hi], src[hi - 1]); hi++) {}
            for (p = lo, q = mid, k = lo; p < mid && q < hi;) dst[k++] = less(ctx, src[q], src[p]) ? src[q++] : src[p++];
            if (p < mid) memcpy(dst + k, src + p, (mid - p) * sizeof *a);
            else memcpy(dst + k, src + q, (hi - q) * sizeof *a);
            lo = hi;
        }
        { uint32_t *t = src; src = dst; dst = t; }
    }
done:
    if (src != a) memcpy(a, src, n * sizeof *a);
}

/* String interning: equal strings get one pointer, so keys compare by address. */
typedef struct prof__strtab { prof__map map; const char **strs; size_t *lens; size_t n, cap, caplens; prof__arena *arena; } prof__strtab;
typedef struct prof__strkey { const prof__strtab *t; const char *s; size_t len; } prof__strkey;
static PROF__NI int prof__str_same(const void *key, uint32_t v) {
    const prof__strkey *k = (const prof__strkey *)key;
    return k->t->lens[v] == k->len && memcmp(k->t->strs[v], k->s, k->len) == 0;
}
static PROF__NI const char *prof__intern_n(prof__strtab *t, const char *s, size_t len) {
    uint64_t h = prof__hash_bytes(s, len, 14695981039346656037ull);
    prof__strkey key;
    uint32_t v;
    char *copy;
    key.t = t; key.s = s; key.len = len;
    if ((v = prof__map_find(&t->map, h, prof__str_same, &key)) != UINT32_MAX) return t->strs[v];
    if (len >= (size_t)PTRDIFF_MAX || t->n >= UINT32_MAX - 1 ||
        !PROF__PUSH_OK(t->strs, t->n, t->cap) || !prof__grow((void *)&t->lens, &t->caplens, t->n + 1, sizeof *t->lens) ||
        !(copy = (char *)prof__arena_alloc(t->arena, len + 1)))
        return NULL;
    memcpy(copy, s, len);
    copy[len] = 0;
    t->strs[t->n] = copy;
    t->lens[t->n] = len;
    if (!prof__map_add(&t->map, h, (uint32_t)t->n)) return NULL; /* the copy stays in the arena, unused */
    t->n++;
    return copy;
}
static PROF__NI const char *prof__intern(prof__strtab *t, const char *s) { return prof__intern_n(t, s ? s : "", s ? strlen(s) : 0); }
static PROF__NI void prof__strtab_free(prof__strtab *t) {
    prof__map_free(&t->map);
    PROF__FREE(t->strs);
    PROF__FREE(t->lens);
    t->strs = NULL;
    t->lens = NULL;
    t->n = t->cap = t->caplens = 0;
}

/* Growable text buffer for the table; the exporters stream instead. */
typedef struct prof__buf { char *p; size_t n, cap; int oom; } prof__buf;
static PROF__NI void prof__buf_put(prof__buf *b, const char *s, size_t n) {
    if (b->oom) return;
    if (n >= (size_t)PTRDIFF_MAX - b->n || !prof__grow((void *)&b->p, &b->cap, b->n + n + 1, 1)) { b->oom = 1; return; }
    if (n) memcpy(b->p + b->n, s, n); /* s may be NULL with n 0: a failed buffer's p (prof__pb_sub) */
    b->n += n;
    b->p[b->n] = 0;
}
static PROF__NI void prof__buf_str(prof__buf *b, const char *s) { prof__buf_put(b, s, strlen(s)); }
/* n copies of c (a cell's padding: a megabyte for each row of a table
   whose name column is as wide as a megabyte-long name; a byte at a time
   that took minutes in a sanitizer build) */
static PROF__NI void prof__buf_chars(prof__buf *b, char c, long n) {
    size_t k = n > 0 ? (size_t)n : 0;
    if (b->oom || !k) return;
    if (k >= (size_t)PTRDIFF_MAX - b->n || !prof__grow((void *)&b->p, &b->cap, b->n + k + 1, 1)) { b->oom = 1; return; }
    memset(b->p + b->n, c, k);
    b->n += k;
    b->p[b->n] = 0;
}
#if defined(__GNUC__)
__attribute__((__format__(__printf__, 2, 3)))
#endif
static PROF__NI void prof__buf_fmt(prof__buf *b, const char *fmt, ...) {
    char tmp[128];
    int n;
    va_list ap;
    va_start(ap, fmt);
    n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n < 0) return;
    if ((size_t)n < sizeof tmp) { prof__buf_put(b, tmp, (size_t)n); return; }
    if ((size_t)n >= (size_t)PTRDIFF_MAX - b->n || !prof__grow((void *)&b->p, &b->cap, b->n + (size_t)n + 1, 1)) { b->oom = 1; return; }
    va_start(ap, fmt);
    vsnprintf(b->p + b->n, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->n += (size_t)n;
}

/* >>types ================================================================*/
/* The event list's representation and its interning: what >>collect fills
   from the records and every later section reads (the list's API is in
   >>eventlist, after the collector). */
/* Events are stored compactly (48 bytes); the rarely used FunctionEvent
   fields live in an `extra` record that only events which have them get.
   Every string is interned in the list, so equal strings share a pointer
   and grouping keys compare by address. */
enum { PROF__F_ASYNC = 1, PROF__F_USER_ANN = 2, PROF__F_DELETED = 4, PROF__F_LEGACY = 8,
       PROF__F_MEMROW = 16, /* a "[memory]" row: made by the tree, remade with it */
       PROF__F_SHARED_EX = 32, /* its extra is shared by events equal in it (prof_stop:
                                  a loop's op with the same shapes and args), so
                                  prof__extra_of copies it before a write */
       PROF__F_SEQX = 64,      /* its `extra` indexes sx, not ex: an op with a
                                  sequence number of its own (prof_stop) and a
                                  shared extra; read through prof__xi, prof__x
                                  and prof__seq_nr */
       PROF__F_TAKEN = 0x2000, /* prof_stop's merge only: copied out of its run */
       PROF__F_PLACED = 0x4000 /* prof_stop's order only: put in its place */ };

typedef struct prof__ev {
    int64_t start, end;
    uint32_t site, thread;
    int32_t parent, first_child, next_sibling; /* children: a list, counted by prof__n_children */
    int32_t node_id;
    uint32_t extra;
    uint8_t device_type, scope;
    uint16_t flags;
} prof__ev;

/* 128 bytes: the 8-byte fields first, then the 4-byte ones in pairs, so
   no padding (every op of an args-mode session has one of its own). */
typedef struct prof__extra {
    const char *overload_name, *trace_name, *shapes; /* shapes NULL = None */
    const struct prof__cuinfo *cu;
    int64_t sequence_nr;
    uint64_t fwd_thread;
    int64_t resource_id;
    int64_t flops, cpu_mem, dev_mem;
    int64_t kern_ns;
    int64_t rec_cpu_mem, rec_dev_mem; /* of memory records, charged by the tree; added to cpu_mem, dev_mem */
    int32_t kern_head;   /* kernels as a list, so _remove_dup_nodes can move them */
    int32_t device_index;
    uint32_t native_off; /* prof_stop only: return addresses, UINT32_MAX = none */
    uint32_t correlation;/* CUDA: links a launch (API call) to its kernel */
    uint32_t cbid;       /* a CUDA API call's CUPTI callback id (Kineto's "cbid"), else 0 (CUPTI's INVALID) */
    uint8_t has_fwd_thread, has_resource;
} prof__extra;
/* An op's sequence number beside the extra it shares (PROF__F_SEQX):
   each op of an args-mode loop has a number of its own and the same
   shapes and args as the loop's other ops, so it costs these 16 bytes,
   not an extra of 128. */
typedef struct prof__seqx { int64_t seq; uint32_t ex; } prof__seqx;
/* What an event without an extra record reads (field order as above),
   and prof__extra_clear, what a new one starts from: the same values, set
   a field at a time (a copy of the blank or a memset, gcc makes `rep
   stos`, slow to start, on prof_stop's path for every args op). */
static const prof__extra prof__extra_blank = { NULL, NULL, NULL, NULL, -1, 0, 0, 0, 0, 0, 0, 0, 0, -1, 0, UINT32_MAX, 0, 0, 0, 0 };
static __inline__ PROF__NI void prof__extra_clear(prof__extra *x) {
    x->overload_name = x->trace_name = x->shapes = NULL;
    x->cu = NULL;
    x->sequence_nr = -1;
    x->fwd_thread = 0;
    x->resource_id = x->flops = x->cpu_mem = x->dev_mem = x->kern_ns = x->rec_cpu_mem = x->rec_dev_mem = 0;
    x->kern_head = -1;
    x->device_index = 0;
    x->native_off = UINT32_MAX;
    x->correlation = x->cbid = 0;
    x->has_fwd_thread = x->has_resource = 0;
}

/* Details of a CUDA activity, for the trace's args. */
typedef struct prof__cuinfo {
    int kind;                   /* 1 kernel, 2 memcpy, 3 memset */
    int32_t grid[3], block[3];
    int32_t registers, shared_static, shared_dynamic;
    uint64_t bytes;
    int64_t queued;             /* ns since session start, -1 = unknown */
    uint32_t context;
    uint32_t sms;               /* kernels: their device's SMs, for Kineto's per-SM args (0 = unknown) */
    uint32_t graph_id;          /* work of a CUDA graph (0 = none) and its node */
    uint64_t graph_node;
    int32_t src_device, dst_device; /* peer-to-peer copies, else -1 */
} prof__cuinfo;

/* Stacks are a tree of nodes (parent, frame): an event refers to its
   innermost node, every frame string is interned once in the list and
   every (parent, frame) pair is one node, so memory grows with the distinct
   stacks, not with events times depth. Node 0 is the empty stack. The
   per-event node ids live beside the events (allocated once any event has
   a stack), so lists without stacks pay nothing for them. The innermost-
   first arrays of the public view (prof_event.stack) are made on demand
   (prof__node_array). */
typedef struct prof__snode {
    uint32_t parent, depth;    /* depth: frames from here to the root */
    const char *frame;
    const char **arr;          /* the frames innermost first, once made */
} prof__snode;

/* An event's kernels: a list from its extra's kern_head, in launch order;
   the head's `tail` is the list's last (appending costs no walk). corr:
   the CUPTI correlation id of the device event it stands for (0: a kernel
   the user appended), which lets the trace find the op that owns a
   device event (prof__trace_owners) wherever _remove_dup_nodes moved it. */
typedef struct prof__kernel { const char *name; int32_t device; uint32_t corr; int64_t dur; int32_t next, tail; } prof__kernel;
/* tid: the thread's id as recorded or given (prof_event.thread, tables);
   tid_w: the id the trace files carry. Perfetto's protobuf has 32-bit
   thread ids, its JSON importer reads tid as a uint32 and JavaScript
   viewers read it as a double, so a hand-built id past INT32_MAX would
   merge threads there: such a thread is written under an id of its own
   counted down from INT32_MAX (prof__thr_write_id), and its default name
   keeps the real id. */
typedef struct prof__thr { uint64_t tid; const char *name; uint32_t tid_w; } prof__thr;
typedef struct prof__memrec {
    int64_t ts, bytes, total;  /* total: allocated on its device after this record */
    uint64_t ptr;
    uint32_t thread;
    int device_type, device_index;
    uint32_t corr;             /* CUPTI's correlation id, until the join gives it its thread */
    const char *category;
} prof__memrec;
typedef struct prof__instant_ev { int64_t ts; uint32_t site, thread; int kind; double value; } prof__instant_ev;

/* Metadata (prof_events_add_metadata, prof_add_metadata): entries in the
   order their keys were first given, each key once, a key set again
   replacing its value. The owner interns the keys (one key, one address),
   so the map goes from a key's address to its entry: each set costs the
   same however many keys there are. Values are owned. */
typedef struct prof__meta { const char *key; char *value; int is_json; } prof__meta;
typedef struct prof__metas { prof__meta *v; size_t n, cap; prof__map map; } prof__metas;
/* Sets key (interned) to value, which it owns from then on; *old is the
   value it replaced (NULL for a new key), for the caller to free. 0: out
   of memory, nothing changed (value still the caller's). */
static PROF__NI int prof__metas_set(prof__metas *ms, const char *key, char *value, int is_json, char **old) {
    uint32_t *slot = prof__map_at(&ms->map, (uint64_t)(uintptr_t)key);
    prof__meta *m;
    int found;
    *old = NULL;
    if (slot) { /* set again: no growth, so it cannot fail */
        m = &ms->v[*slot];
        *old = m->value;
    } else {
        if (ms->n >= UINT32_MAX - 1 || !PROF__PUSH_OK(ms->v, ms->n, ms->cap) || !(slot = prof__map_slot(&ms->map, (uint64_t)(uintptr_t)key, &found))) return 0;
        *slot = (uint32_t)ms->n;
        m = &ms->v[ms->n++];
        m->key = key;
    }
    m->value = value;
    m->is_json = is_json;
    return 1;
}
static PROF__NI void prof__metas_free(prof__metas *ms) {
    size_t i;
    for (i = 0; i < ms->n; i++) PROF__FREE(ms->v[i].value);
    PROF__FREE(ms->v);
    prof__map_free(&ms->map);
    memset(ms, 0, sizeof *ms);
}
struct prof_events {
    prof__ev *ev; size_t n, cap;
    prof__extra *ex; size_t nex, capex;
    prof__seqx *sx; size_t nsx, capsx; /* PROF__F_SEQX events' numbers ([0] unused) */
    prof_site *sites; size_t nsites, capsites; prof__map site_map;
    prof__thr *thr; size_t nthr, capthr; prof__map thr_map;
    uint32_t tid_w_low;        /* the lowest id given to a thread whose own id is past INT32_MAX (0: none yet) */
    prof__kernel *kern; size_t nkern, capkern;
    prof__instant_ev *inst; size_t ninst, capinst;
    prof__arena arena;
    prof__strtab strs;
    const char *use_device;
    int profile_memory, with_flops;
    int tree_built;
    int links_ready;           /* prof_stop linked parents and children as it
                                  ordered the events (prof__c_link): the tree
                                  it builds next starts from them */
    unsigned links_seen;       /* with links_ready: PROF__T_* of those links
                                  (what prof__tree_push would have said) */
    int in_order;              /* with tree_built: each thread's events in the
                                  tree are in (start, -end) order in ev (the
                                  exporters' stacks of open events need it) */
    size_t nmemrows;           /* "[memory]" events in ev (not counted in stats.events) */
    size_t memrow_ex[2];       /* their extras, [0] to [1] in ex (given back with them when
                                  nothing came after: a rebuild makes new ones) */
    prof_stats stats;
    int64_t base_real_ns;      /* wall-clock time of the session start */
    int64_t base_boot_ns;      /* CLOCK_BOOTTIME at the session start (Perfetto's
                                  time domain); 0: not known */
    int with_node_id, node_id, world_size;
    int64_t *dev_memo;         /* device_time_total per event, when use_device */
    prof__metas meta;          /* add_metadata (keys interned in strs) */
    uint32_t *stk;             /* node per event, NULL when no event has a stack */
    size_t capstk;
    prof__snode *nodes;        /* [0] is the empty stack */
    size_t nnodes, capnodes;
    prof__map node_map;        /* (parent, frame) -> node */
    int nodes_flat;            /* every event's node has its array */
    unsigned stacks_pending;   /* PROF__F_SCOPES / _NATIVE: prof_stop's stacks,
                                  attached by the tree (prof__attach_stacks) */
    uint64_t *native_addrs;    /* with PROF__F_NATIVE pending */
    prof__memrec *mem;         /* allocation records (profile_memory) */
    size_t nmem, capmem;
    const char *device_props;  /* deviceProperties entries (CUPTI), or NULL */
    const char *no_shapes;     /* what an event without shapes shows: NULL
                                  (None) by hand, "[]" when recorded with
                                  record_shapes, as Kineto's ops then are */
    prof_export_options xopt;  /* prof_events_set_export_options (>>exporters);
                                  its prefix, xprefix, owned: options set
                                  again free the old one */
    char *xprefix;
    /* What the last _remove_dup_nodes took out (prof__remove_dup_nodes), so
       that a tree rebuilt after more events were added merges the whole
       list again, as one pass over all of them would: the merged events,
       and the kernels each merge took from a parent. */
    struct prof__dup *dups; size_t ndups;
    size_t dups_tied;          /* of those, zero-length ones merged into a parent that began at the same time */
    struct prof__dupkern *dupk; size_t ndupk, capdupk;
    prof__map dupk_first;      /* extra -> its first entry in dupk (prof__append_kernel's; made
                                  there, emptied wherever dupk changes) */
    int dups_added;            /* events (or kernels) added since: the next build puts them back */
    /* The stacks _set_backward_stacktraces replaced (event index in the
       layout it ran on, the event's own node), put back before a rebuild
       so that it starts from the events' own stacks again. */
    struct prof__bwstk { uint32_t i, node; } *bwstk; size_t nbwstk, capbwstk;
    /* Events with many children (prof__kids_of): their children in order
       and the values a walk over them gives, kept until the tree or the
       device times change, so that reading such an event
       (prof_events_get) or its k-th child (prof_events_child) again costs
       no walk: a loop over N children that reads their parent is linear. */
    struct prof__kids *kids; size_t nkids, capkids;
    prof__map kids_map;        /* event -> its entry in kids */
};

PROF_API prof_events *prof_events_create(void) {
    prof_events *e = PROF__ALLOC(prof_events, 1);
    if (!e) { prof__report(PROF_LOG_ERROR, PROF_E_NOMEM, "prof_events_create: out of memory"); return NULL; }
    memset(e, 0, sizeof *e);
    e->strs.arena = &e->arena;
    e->nex = 1; /* extra index 0 means none */
    e->nsx = 1; /* (and sx's [0], allocated with its first) */
    if (!prof__grow((void *)&e->ex, &e->capex, 1, sizeof *e->ex)) { PROF__FREE(e); return NULL; }
    return e;
}

static PROF__NI void prof__kids_clear(prof_events *e);
PROF_API void prof_events_free(prof_events *e) {
    int trim;
    if (!e) return;
    trim = e->cap >= PROF__TRIM_MIN / sizeof *e->ev;
    prof__kids_clear(e);
    PROF__FREE(e->ev); PROF__FREE(e->ex); PROF__FREE(e->sx); PROF__FREE(e->sites); PROF__FREE(e->thr);
    PROF__FREE(e->kern); PROF__FREE(e->inst); PROF__FREE(e->dev_memo); PROF__FREE(e->stk); PROF__FREE(e->mem);
    PROF__FREE(e->nodes);
    PROF__FREE(e->native_addrs);
    PROF__FREE(e->xprefix);
    PROF__FREE(e->dups); PROF__FREE(e->dupk); PROF__FREE(e->bwstk);
    prof__map_free(&e->dupk_first);
    prof__metas_free(&e->meta);
    prof__map_free(&e->site_map); prof__map_free(&e->thr_map); prof__map_free(&e->node_map);
    prof__strtab_free(&e->strs);
    prof__arena_free(&e->arena);
    PROF__FREE(e);
    if (trim) prof__heap_trim();
}

PROF_API prof_result prof_events_reserve(prof_events *e, size_t n) {
    if (!e) return prof__report(PROF_LOG_ERROR, PROF_E_ARG, "prof_events_reserve: the event list is NULL");
    if (n > (size_t)INT32_MAX) /* event indices are int32, as prof_events_add enforces */
        return prof__report(PROF_LOG_ERROR, PROF_E_ARG, "prof_events_reserve: %zu events is more than a list holds (2^31 - 1)", n);
    if (!prof__grow((void *)&e->ev, &e->cap, n, sizeof *e->ev))
        return prof__report(PROF_LOG_ERROR, PROF_E_NOMEM, "prof_events_reserve: cannot allocate %zu events", n);
    return PROF_OK;
}

typedef struct prof__sitekey { const prof_events *e; const prof_site *s; } prof__sitekey;
static PROF__NI int prof__site_same(const void *key, uint32_t v) {
    const prof__sitekey *k = (const prof__sitekey *)key;
    const prof_site *o = &k->e->sites[v];
    return o->name == k->s->name && o->file == k->s->file && o->func == k->s->func && o->line == k->s->line && o->flags == k->s->flags;
}
/* s: name, file and func already interned in e->strs. */
static PROF__NI int64_t prof__site_index_interned(prof_events *e, const prof_site *s) {
    prof__sitekey key;
    uint64_t h;
    uint32_t v;
    h = prof__mix((uint64_t)(uintptr_t)s->name ^ prof__mix((uint64_t)(uintptr_t)s->file + (uint64_t)(uintptr_t)s->func) ^ ((uint64_t)(unsigned)s->line << 32) ^ s->flags);
    key.e = e;
    key.s = s;
    if ((v = prof__map_find(&e->site_map, h, prof__site_same, &key)) != UINT32_MAX) return v;
    if (e->nsites >= UINT32_MAX - 1 || !PROF__PUSH_OK(e->sites, e->nsites, e->capsites)) return -1;
    e->sites[e->nsites] = *s;
    if (!prof__map_add(&e->site_map, h, (uint32_t)e->nsites)) return -1;
    return (int64_t)e->nsites++;
}
static PROF__NI int64_t prof__site_index(prof_events *e, const char *name, const char *file, const char *func, int line, unsigned flags) {
    prof_site s;
    s.name = prof__intern(&e->strs, name);
    s.file = prof__intern(&e->strs, file);
    s.func = prof__intern(&e->strs, func);
    s.line = line;
    s.flags = flags;
    if (!s.name || !s.file || !s.func) return -1;
    return prof__site_index_interned(e, &s);
}

/* prof__thr.tid_w for thread i: its own id up to INT32_MAX; past it, the
   next id down from INT32_MAX that no thread has as its own. A thread added
   later whose own id one of those took takes it back: the other thread
   moves down. (Recorded ids are the kernel's, far below; only hand-built
   lists get here, with few threads.) */
#define PROF__TID_W_MAX ((uint64_t)INT32_MAX)
static PROF__NI void prof__thr_write_id(prof_events *e, size_t i) {
    uint32_t w;
    size_t k;
    if (e->thr[i].tid <= PROF__TID_W_MAX) {
        w = (uint32_t)e->thr[i].tid;
        e->thr[i].tid_w = w;
        if (!e->tid_w_low || w < e->tid_w_low) return;
        for (k = 0; k < i; k++) /* a thread written under this id gives it up */
            if (e->thr[k].tid > PROF__TID_W_MAX && e->thr[k].tid_w == w) { prof__thr_write_id(e, k); break; }
        return;
    }
    w = e->tid_w_low ? e->tid_w_low - 1 : (uint32_t)PROF__TID_W_MAX;
    while (w > 0 && prof__map_get(&e->thr_map, w) != UINT32_MAX) w--; /* some thread's own id */
    e->tid_w_low = w;
    e->thr[i].tid_w = w;
}
/* The list's index of thread tid, added if new, with its name (NULL or
   "": none) interned; -1 out of memory, a name that could not be interned
   included (a retried prof_stop decodes the thread again and gives it its
   name: kept without it, the thread would keep no name). */
static PROF__NI int64_t prof__thread_index(prof_events *e, uint64_t tid, const char *name) {
    uint32_t v = prof__map_get(&e->thr_map, tid);
    const char *iname = NULL;
    if (v != UINT32_MAX) {
        if (name && name[0] && !e->thr[v].name && !(e->thr[v].name = prof__intern(&e->strs, name))) return -1;
        return v;
    }
    if (e->nthr >= UINT32_MAX - 1 || !PROF__PUSH_OK(e->thr, e->nthr, e->capthr)) return -1;
    if (name && name[0] && !(iname = prof__intern(&e->strs, name))) return -1;
    e->thr[e->nthr].tid = tid;
    e->thr[e->nthr].name = iname;
    if (!prof__map_add(&e->thr_map, tid, (uint32_t)e->nthr)) return -1;
    prof__thr_write_id(e, e->nthr);
    return (int64_t)e->nthr++;
}

/* Event v's index in ex (0: none), for reading. */
static __inline__ PROF__NI uint32_t prof__xi(const prof_events *e, const prof__ev *v) {
    return PROF__UNLIKELY(v->flags & PROF__F_SEQX) ? e->sx[v->extra].ex : v->extra;
}
/* Event v's extra record for reading (NULL: none). */
static __inline__ PROF__NI const prof__extra *prof__xr(const prof_events *e, const prof__ev *v) {
    uint32_t k = prof__xi(e, v);
    return k ? &e->ex[k] : NULL;
}
/* The same, the blank record for none. */
static __inline__ PROF__NI const prof__extra *prof__x(const prof_events *e, const prof__ev *v) {
    uint32_t k = prof__xi(e, v);
    return k ? &e->ex[k] : &prof__extra_blank;
}
/* Event v's sequence number (-1: none). */
static __inline__ PROF__NI int64_t prof__seq_nr(const prof_events *e, const prof__ev *v) {
    if (PROF__UNLIKELY(v->flags & PROF__F_SEQX)) return e->sx[v->extra].seq;
    return v->extra ? e->ex[v->extra].sequence_nr : -1;
}
/* Event v's extra record for writing: made on first use; a shared one is
   copied first (a PROF__F_SEQX op's with its sequence number). */
static PROF__NI prof__extra *prof__extra_of(prof_events *e, prof__ev *v) {
    if (!v->extra || (v->flags & (PROF__F_SHARED_EX | PROF__F_SEQX))) {
        uint32_t from = prof__xi(e, v);
        int64_t seq = prof__seq_nr(e, v);
        if (e->nex >= UINT32_MAX - 1 || (e->nex >= e->capex && !PROF__PUSH_OK(e->ex, e->nex, e->capex))) return NULL;
        if (from) {
            e->ex[e->nex] = e->ex[from];
        } else {
            prof__extra_clear(&e->ex[e->nex]);
        }
        e->ex[e->nex].sequence_nr = seq;
        v->extra = (uint32_t)e->nex++;
        v->flags = (uint16_t)(v->flags & ~(PROF__F_SHARED_EX | PROF__F_SEQX));
    }
    return &e->ex[v->extra];
}

/* An event's number of children (the list is walked: no count is stored,
   so an event is 48 bytes). */
static PROF__NI size_t prof__n_children(const prof_events *e, const prof__ev *v) {
    size_t n = 0;
    int32_t c;
    for (c = v->first_child; c >= 0; c = e->ev[c].next_sibling) n++;
    return n;
}

/* ----- stacks: the accessors every reader uses -----
   prof__stack_node(e, i): event i's innermost node, 0 = no stack;
   prof__node_parent / prof__node_frame / prof__node_depth walk it. */
static PROF__NI uint32_t prof__stack_node(const prof_events *e, size_t i) {
    return e->stk && i < e->capstk ? e->stk[i] : 0;
}
static PROF__NI uint32_t prof__node_parent(const prof_events *e, uint32_t n) { return e->nodes[n].parent; }
static PROF__NI const char *prof__node_frame(const prof_events *e, uint32_t n) { return e->nodes[n].frame; }
static PROF__NI int32_t prof__node_depth(const prof_events *e, uint32_t n) { return n ? (int32_t)e->nodes[n].depth : 0; }
/* Stack slots for events 0 .. n - 1 (new ones empty). */
static PROF__NI int prof__stack_room(prof_events *e, size_t n) {
    size_t old = e->capstk, want = e->cap > n ? e->cap : n;
    if (n <= e->capstk) return 0;
    if (!e->stk) { /* filled whole (prof_stop's stacks): in huge pages from its first byte */
        if (!(e->stk = (uint32_t *)prof__malloc_huge(want, sizeof *e->stk))) return -1;
        e->capstk = want;
    } else if (!prof__grow((void *)&e->stk, &e->capstk, want, sizeof *e->stk)) return -1;
    memset(e->stk + old, 0, (e->capstk - old) * sizeof *e->stk);
    return 0;
}
static PROF__NI int prof__stack_set(prof_events *e, size_t i, uint32_t node) {
    if (i >= e->capstk) {
        if (!node) return 0; /* absent is empty */
        if (prof__stack_room(e, i + 1) != 0) return -1;
    }
    e->stk[i] = node;
    e->nodes_flat = 0;
    return 0;
}
/* The node (parent, frame); `frame` must be interned in e->strs. UINT32_MAX:
   out of memory. */
typedef struct prof__nodekey { const prof_events *e; uint32_t parent; const char *frame; } prof__nodekey;
static PROF__NI int prof__node_same(const void *key, uint32_t v) {
    const prof__nodekey *k = (const prof__nodekey *)key;
    return k->e->nodes[v].parent == k->parent && k->e->nodes[v].frame == k->frame;
}
static PROF__NI uint32_t prof__node_intern(prof_events *e, uint32_t parent, const char *frame) {
    uint64_t h = prof__mix(((uint64_t)parent << 32) ^ (uint64_t)(uintptr_t)frame);
    prof__nodekey key;
    prof__snode *nd;
    uint32_t v;
    if (!e->nnodes) { /* the empty stack */
        if (!prof__grow((void *)&e->nodes, &e->capnodes, 1, sizeof *e->nodes)) return UINT32_MAX;
        memset(e->nodes, 0, sizeof *e->nodes);
        e->nnodes = 1;
    }
    key.e = e;
    key.parent = parent;
    key.frame = frame;
    if ((v = prof__map_find(&e->node_map, h, prof__node_same, &key)) != UINT32_MAX) return v;
    if (e->nnodes >= UINT32_MAX - 1 || !PROF__PUSH_OK(e->nodes, e->nnodes, e->capnodes)) return UINT32_MAX;
    nd = &e->nodes[e->nnodes];
    nd->parent = parent;
    nd->depth = e->nodes[parent].depth + 1;
    nd->frame = frame;
    nd->arr = NULL;
    if (!prof__map_add(&e->node_map, h, (uint32_t)e->nnodes)) return UINT32_MAX;
    return (uint32_t)e->nnodes++;
}
/* The node of a stack given innermost first (copied and interned). */
static PROF__NI uint32_t prof__node_of(prof_events *e, const char *const *stack, int depth) {
    uint32_t n = 0;
    int k;
    for (k = depth; k-- > 0;) {
        const char *f = prof__intern(&e->strs, stack[k]);
        if (!f || (n = prof__node_intern(e, n, f)) == UINT32_MAX) return UINT32_MAX;
    }
    return n;
}
/* Every event's node gets its innermost-first array, deepest first: a
   node's array is a suffix of its deepest descendant's, so a chain costs
   one array, not one per level. */
static PROF__NI int prof__nodes_flatten(prof_events *e) {
    size_t i, *count = NULL, maxd = 0, *order = NULL;
    if (e->nodes_flat || !e->stk) return 0;
    for (i = 0; i < e->n; i++) { uint32_t n = prof__stack_node(e, i); if (n && e->nodes[n].depth > maxd) maxd = e->nodes[n].depth; }
    count = PROF__ALLOC(size_t, maxd + 2);
    order = PROF__ALLOC(size_t, e->n + 1);
    if (!count || !order) { PROF__FREE(count); PROF__FREE(order); return -1; }
    memset(count, 0, (maxd + 2) * sizeof *count);
    {
        /* counting sort of the events by decreasing depth */
        size_t d, acc = 0;
        for (i = 0; i < e->n; i++) count[prof__node_depth(e, prof__stack_node(e, i))]++;
        for (d = maxd + 1; d-- > 0;) { size_t c = count[d]; count[d] = acc; acc += c; }
        for (i = 0; i < e->n; i++) order[count[prof__node_depth(e, prof__stack_node(e, i))]++] = i;
    }
    for (i = 0; i < e->n; i++) {
        uint32_t n = prof__stack_node(e, order[i]), a;
        const char **arr;
        size_t k = 0;
        if (!n || e->nodes[n].arr) continue;
        arr = (const char **)prof__arena_alloc(&e->arena, sizeof(char *) * e->nodes[n].depth);
        if (!arr) { PROF__FREE(count); PROF__FREE(order); return -1; }
        for (a = n; a; a = e->nodes[a].parent, k++) {
            arr[k] = e->nodes[a].frame;
            if (!e->nodes[a].arr) e->nodes[a].arr = arr + k;
        }
    }
    PROF__FREE(count);
    PROF__FREE(order);
    e->nodes_flat = 1;
    return 0;
}
/* Event i's stack as an innermost-first array (the public view), or NULL. */
static PROF__NI const char *const *prof__node_array(prof_events *e, size_t i) {
    uint32_t n = prof__stack_node(e, i);
    if (!n) return NULL;
    if (!e->nodes[n].arr && prof__nodes_flatten(e) != 0) return NULL;
    return e->nodes[n].arr;
}

/* Python's str() of a list of lists of ints: "[[2, 3], []]". */
static PROF__NI const char *prof__shapes_repr(prof_events *e, const prof_shapes *s) {
    prof__buf b;
    const char *r;
    int i, j;
    size_t k = 0;
    memset(&b, 0, sizeof b);
    prof__buf_str(&b, "[");
    for (i = 0; i < s->n_inputs; i++) {
        if (i) prof__buf_str(&b, ", ");
        prof__buf_str(&b, "[");
        for (j = 0; s->ndims && j < s->ndims[i]; j++) {
            if (j) prof__buf_str(&b, ", ");
            prof__buf_fmt(&b, "%lld", (long long)s->dims[k++]);
        }
        prof__buf_str(&b, "]");
    }
    prof__buf_str(&b, "]");
    r = b.oom ? NULL : prof__intern_n(&e->strs, b.p, b.n);
    PROF__FREE(b.p);
    return r;
}

static int prof__memory_usage(prof_events *e);
static int prof__memrows_drop(prof_events *e);
static size_t prof__memrows_find(const prof_events *e, const uint32_t *by_ts, uint32_t *idx, uint32_t *tmp, uint32_t *rows);
static int prof__mem_ts_less(const void *c, uint32_t a, uint32_t b);
static prof_result prof__build_tree(prof_events *e);
static int prof__same_name(const prof_events *e, const prof__ev *a, const prof__ev *b);
/* What the tree's pass (or prof_stop's links) saw, so that later passes run
   only when needed. */
enum { PROF__T_DUPS = 1,     /* a parent and its child share a name (_remove_dup_nodes) */
       PROF__T_BACKWARD = 2  /* an event has scope 1 (_set_backward_stacktraces) */ };
static int prof__attach_stacks(prof_events *e);
static prof_result prof__add_meta(prof_events *e, const char *key, const char *value, int is_json);


/* >>clock ================================================================*/
/* Raw ticks are the invariant TSC on x86-64 (checked with CPUID), the
   virtual counter on aarch64 and CLOCK_MONOTONIC elsewhere. They become
   nanoseconds once, at prof_stop, through a calibration against
   CLOCK_MONOTONIC that spans the process's whole profiling history. */
uint32_t prof__g_epoch;

static PROF__NI int64_t prof__mono_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}
static PROF__NI int64_t prof__real_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}
/* CLOCK_BOOTTIME (Linux: Perfetto's and the kernel tracers' clock), or 0
   where there is none. */
static PROF__NI int64_t prof__boot_ns(void) {
#if defined(__linux__)
    struct timespec ts;
#  if defined(CLOCK_BOOTTIME)
    const clockid_t id = CLOCK_BOOTTIME;
#  else
    const clockid_t id = (clockid_t)7; /* Linux's CLOCK_BOOTTIME: strict feature-test macros hide the name */
#  endif
    if (clock_gettime(id, &ts) != 0) return 0;
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
#else
    return 0;
#endif
}
PROF_API PROF__NI uint64_t prof__clock_fallback(void) { return (uint64_t)prof__mono_ns(); }

static struct {
    int ready;
    int ticks_are_ns;
    uint64_t tick0;     /* reference pair, taken at the first prof_start */
    int64_t mono0;
    double ns_per_tick;
} prof__clk;

#if defined(__x86_64__) && !defined(PROF_CLOCK_MONOTONIC)
static PROF__NI int prof__tsc_invariant(void) {
    /* one array for the four outputs: nvcc's front end warns of scalars
       set and never read */
    unsigned r[4];
    __asm__ __volatile__("cpuid" : "=a"(r[0]), "=b"(r[1]), "=c"(r[2]), "=d"(r[3]) : "a"(0x80000000u), "c"(0));
    if (r[0] < 0x80000007u) return 0;
    __asm__ __volatile__("cpuid" : "=a"(r[0]), "=b"(r[1]), "=c"(r[2]), "=d"(r[3]) : "a"(0x80000007u), "c"(0));
    return (r[3] >> 8) & 1; /* CPUID.80000007H:EDX[8], invariant TSC */
}
#endif

/* A (tick, monotonic ns) pair that belong together: the tick read between
   two monotonic reads, from the tightest of a few tries. Read one after the
   other, a preemption between them (milliseconds on a loaded machine)
   would shift every CUPTI time against the CPU's and skew the fit. */
static PROF__NI void prof__clock_pair(uint64_t *tick, int64_t *mono) {
    int64_t best = INT64_MAX;
    int k;
    *tick = 0; /* (set by the first try; gcc -O3 cannot tell) */
    *mono = 0;
    for (k = 0; k < 16 && best > 2000; k++) {
        int64_t m0 = prof__mono_ns(), m1;
        uint64_t t = prof__now();
        m1 = prof__mono_ns();
        if (m1 - m0 < best) {
            best = m1 - m0;
            *tick = t;
            *mono = m0 + (m1 - m0) / 2;
        }
    }
}

/* The wall clock and CLOCK_BOOTTIME (0: none) at mono, a time of
   CLOCK_MONOTONIC just read: each read between two reads of MONOTONIC,
   taken at their middle and moved to mono, from the tightest of a few
   tries. (The wall clock read on its own after the pair came some tens of
   ns late, and a whole preemption late when the thread lost the CPU in
   between: the trace's baseTimeNanoseconds with it.) */
static PROF__NI void prof__clock_wall(int64_t mono, int64_t *real, int64_t *boot) {
    int64_t best = INT64_MAX;
    int k;
    *real = prof__real_ns(); /* (set by the first try; gcc -O3 cannot tell) */
    *boot = 0;
    for (k = 0; k < 16 && best > 2000; k++) {
        int64_t m0 = prof__mono_ns(), r = prof__real_ns(), m1 = prof__mono_ns(), b = prof__boot_ns(), m2 = prof__mono_ns();
        if (m2 - m0 < best) {
            best = m2 - m0;
            *real = r - (m0 + (m1 - m0) / 2 - mono);
            *boot = b ? b - (m1 + (m2 - m1) / 2 - mono) : 0;
        }
    }
}

static PROF__NI void prof__clock_init(void) {
    if (prof__clk.ready) return;
#if defined(PROF_CLOCK_MONOTONIC)
    prof__clk.ticks_are_ns = 1;
#elif defined(__x86_64__)
    prof__clk.ticks_are_ns = 0;
    if (!prof__tsc_invariant())
        prof__report(PROF_LOG_WARNING, PROF_E_STATE, "prof_start: this CPU does not report an invariant TSC; times of threads on different cores may drift (build with -DPROF_CLOCK_MONOTONIC to use clock_gettime)");
#elif defined(__aarch64__)
    prof__clk.ticks_are_ns = 0;
#else
    prof__clk.ticks_are_ns = 1;
#endif
    prof__clock_pair(&prof__clk.tick0, &prof__clk.mono0);
    prof__clk.ns_per_tick = 1.0;
    prof__clk.ready = 1;
}

/* Refit ns_per_tick at a stop, from a tight pair (prof__clock_pair: an
   interruption between the reads would skew the rate). A session of 20 ms
   and more takes the rate over its own span, from its start's pair: the
   rate of CLOCK_MONOTONIC against the ticks moves when NTP slews it (20
   ppm is 200 us over 10 s), and CUPTI's times are CLOCK_MONOTONIC's, so
   both meet exactly at the session's ends, as PyTorch fits each profile
   from its own start and end. A shorter one takes the rate over the
   process's profiling history, stretched to 20 ms by waiting (once per
   process), so it is never noisy. */
static PROF__NI void prof__clock_calibrate(uint64_t tick_start, int64_t mono_start) {
    uint64_t t;
    int64_t m;
    if (prof__clk.ticks_are_ns) return;
    for (;;) {
        prof__clock_pair(&t, &m);
        if (m - prof__clk.mono0 >= 20000000) break;
        {
            struct timespec req;
            req.tv_sec = 0;
            req.tv_nsec = 1000000;
            nanosleep(&req, NULL);
        }
    }
    if (m - mono_start >= 20000000 && (int64_t)(t - tick_start) > 0)
        prof__clk.ns_per_tick = (double)(m - mono_start) / (double)(int64_t)(t - tick_start);
    else
        prof__clk.ns_per_tick = (double)(m - prof__clk.mono0) / (double)(int64_t)(t - prof__clk.tick0);
}
static PROF__NI int64_t prof__ticks_to_ns(uint64_t ticks_since_start) {
    if (prof__clk.ticks_are_ns) return (int64_t)ticks_since_start;
    /* through int64_t: one conversion instruction (uint64_t -> double takes
       a branch and four more); equal below 2^63 ticks, i.e. always */
    return (int64_t)((double)(int64_t)ticks_since_start * prof__clk.ns_per_tick + 0.5);
}

/* >>recorder =============================================================*/
/* Each thread owns a chain of record blocks. prof_stop frees those it has
   read but the one the thread is on, which the thread's next session starts
   from (with reserve_events all are kept, so pages are faulted once). Only the owner writes; prof_stop reads the prefix
   published through `pos` (release/acquire), so the hot path has no lock. */
typedef struct prof__block {
    struct prof__block *next;
    size_t cap;        /* records the mapping holds */
    size_t limit;      /* records reserved from the event cap this session */
    size_t used;       /* records written, valid once the owner moved on */
    size_t map_bytes;
    size_t faulted;    /* bytes from the start known faulted in (the prefault
                          thread's: see prof__pf_follow_locked) */
    const prof__thread *owner; /* the prefault thread follows this writer */
    int64_t taken_ns;  /* when the owner took it */
    struct prof__block *follow; /* blocks it follows, chained (prof__pf_lock) */
    int seen;          /* owner's pos seen inside this block */
    prof__rec *recs;
} prof__block;

/* A PROF_BEGIN range open on a thread. epoch 0: begun while off (or
   refused by the cap, or lost): no record, and t0 counts the ranges of
   that kind stacked right on it, so that unmatched BEGINs past the cap
   or outside sessions cost no memory per call. */
typedef struct prof__open { const prof_site *site; uint64_t t0; uint32_t epoch; } prof__open;
/* The sites of PROF_BEGIN ranges still open in session `epoch` when their
   threads exited, to be named by prof_stop: 16 at most, each with its
   name copied (a run-time name's memory goes with its thread), the rest
   counted in `more`. */
#define PROF__OPEN_SITES 16
typedef struct prof__open_sites {
    uint32_t epoch, n;
    struct { char *name; const char *file; int line; uint64_t count; } s[PROF__OPEN_SITES];
    uint64_t more;
} prof__open_sites;
static PROF__NI void prof__open_sites_clear(prof__open_sites *o) {
    uint32_t k;
    for (k = 0; k < o->n; k++) PROF__FREE(o->s[k].name);
    memset(o, 0, sizeof *o);
}
typedef struct prof__dyn_site { prof_site site; const prof_site *origin; struct prof__dyn_site *next; } prof__dyn_site;

#define PROF__LINE 64
#define PROF__EPOCH16(epoch) ((uint16_t)((epoch) % 65535u + 1u)) /* a session in 16 bits, never 0 */
#define PROF__LOST_SPANS 7
typedef struct prof__tstate {
    prof__thread hot;          /* first: prof__tls points here */
    struct prof__tstate *next;
    uint8_t dead;              /* its thread exited (prof__thread_exit) */
    uint8_t late;              /* attached after its thread's key destructor
                                  ran (prof__exits_here): by a scope in another
                                  key's destructor. On glibc's last pass ours
                                  does not run again: prof__reap_late_locked
                                  frees the state once its thread is gone */
    uint16_t counted_epoch;    /* a late state: the session (PROF__EPOCH16)
                                  that counted its thread as an earlier state
                                  exited (prof__counted_epoch; 0: none) */
    uint32_t bound_epoch;      /* session the buffer belongs to */
    uint64_t bind_tick PROF__ALIGN8; /* clock when it bound to that session: no
                                  scope of the session began before it */
    uint64_t tid, pthread_id;
    int64_t pid;               /* the process tid is a thread of (getpid()):
                                  a fork's child renews it and tid for its
                                  thread (prof__atfork_child); the others
                                  are its parent's, never tested as gone */
    char *name;                /* prof_set_thread_name's copy (NULL: unnamed);
                                  set by the owner under prof__g_lock */
    prof__block *head, *cur;
    uint64_t dropped PROF__ALIGN8, unbalanced PROF__ALIGN8; /* dropped: scopes entered and not recorded */
    uint64_t dropped_nomem PROF__ALIGN8; /* lost for lack of memory: of dropped, and
                                  of xdropped (prof__x_lost) */
    /* The cap (see prof__thread's gate). Scopes entered this session =
       scopes_before + gate - gate_base + refused. Written by the owner
       inside `busy`, which prof_stop waits out before it reads them. */
    uint64_t gate_base PROF__ALIGN8; /* gate at the start of the current share */
    uint64_t gate_end;         /* gate once the share is spent */
    uint64_t scopes_before PROF__ALIGN8; /* scopes entered on earlier shares */
    uint64_t refused PROF__ALIGN8; /* scopes entered but never admitted (cap,
                                  or no memory for their PROF_BEGIN entry) */
    uint32_t gate_epoch;       /* gate's high half while the share lasts:
                                  bound_epoch, + 2 with native stacks (every
                                  scope then goes the slow way) */
    uint32_t serial;           /* its thread's number in the process (from 1;
                                  a late state has its thread's): neither the
                                  kernel's ids nor glibc's pthread_t (a joined
                                  thread's cached stack) tell apart two
                                  threads that ran in turn */
    uint64_t capped_tick PROF__ALIGN8; /* 0, or when the cap refused a share (the tick
                                  | 1, written inside `busy`): no scope begins
                                  recording on this thread again this session,
                                  and CUDA calls it makes from then on are
                                  dropped too */
    int busy;                  /* in prof__gate_refill / prof__scope_lost, or
                                  rebinding (prof__thread_bind) */
    uint32_t held_gate;        /* the size of the current share, counted in
                                  prof__g.held (prof__share) */
    uint64_t lost_span[PROF__LOST_SPANS][2]; /* ticks from, to of scopes
                                  admitted and then lost for lack of memory,
                                  whose children prof_stop drops with them
                                  (written inside `busy`); past
                                  PROF__LOST_SPANS the last one widens (7:
                                  the state stays within 408 bytes) */
    uint32_t n_lost_span;
    uint16_t share_shift[2];   /* the most the next scope (0) or x (1) share
                                  may be: PROF__SHARE_FIRST << it; it grows
                                  by one with each share taken whole */
    uint64_t xcredits;         /* share of the cap for marks, counters,
                                  allocations and async records */
    uint64_t xdropped[4] PROF__ALIGN8; /* of those, lost (PROF__X_*) */
    prof__open *open;          /* PROF_BEGIN stack */
    int32_t n_open, cap_open;
    uint32_t n_lost;           /* BEGINs above the stack that could not be kept (out of
                                  memory): the next ENDs close them, not the stack */
    uint32_t held_x;           /* the size of the current x share (xcredits'
                                  whole), counted in prof__g.held */
    prof__arena dyn_arena;     /* PROF_SCOPE_DYN names, reset each session */
    prof__arena dyn_arena_old; /* the last session's, kept one session more:
                                  a long-named scope open across prof_stop
                                  and prof_start ends in the new session
                                  with its site in there */
    prof__dyn_site **dyn_tab;
    size_t dyn_cap, dyn_n;
    struct prof__tstate **prevp; /* the link to it (prof__g.threads or the
                                    previous state's next): an exiting
                                    thread unlinks itself at once */
} prof__tstate;

prof__thread prof__g_unattached;
/* the model again: gcc takes it from the definition for accesses in this file */
__thread prof__thread *prof__tls PROF__TLS_ATTR = &prof__g_unattached;
/* How often prof__thread_exit ran on this thread (once per destructor
   pass that found a state attached): a state attached after it is late. */
static __thread unsigned prof__exits_here;
/* The session that counted this thread (a state of it that entered,
   dropped or recorded anything exited in it: prof__thread_exit; 0: none),
   so that a late state of the thread does not count it again. */
static __thread uint32_t prof__counted_epoch;
/* This thread's number (prof__tstate.serial; 0: none yet; after 2^32
   threads they come round, past 0), and the last one given. */
static __thread uint32_t prof__thread_serial;
static uint32_t prof__g_serials;

/* A thread's state from its hot part, its first member. (Through void *:
   gcc's -Wstrict-aliasing=1 flags the plain cast, valid as it is.) */
static PROF__NI prof__tstate *prof__tstate_of(prof__thread *h) {
    void *v = h;
    return (prof__tstate *)v;
}

/* The calling thread's state, NULL before it attaches. */
static PROF__NI prof__tstate *prof__self(void) {
    prof__thread *h = prof__tls;
    return h == &prof__g_unattached ? NULL : prof__tstate_of(h);
}

static struct {
    pthread_key_t key;
    int key_ready;
    prof__tstate *threads;
    size_t nstates, sweep_at;  /* states on `threads`; twice their count
                                  after the last sweep of them all
                                  (prof__reap_gone_locked): reached,
                                  prof__attach sweeps again */
    int64_t budget PROF__ALIGN8; /* records left under the cap this session */
    int64_t held PROF__ALIGN8, held_max PROF__ALIGN8; /* the threads' current shares together,
                                  and the most they may be (prof__share) */
    uint32_t nbound;           /* threads recording this session */
    prof_config cfg;
    uint64_t tick_start;
    int64_t mono_start, real_start, boot_start; /* at tick_start (prof__clock_wall) */
    int cupti_carry;           /* a schedule's warm-up ends into recording:
                                  CUPTI stays on (prof__transit) */
    uint32_t last_epoch;
    uint32_t reaped_epoch;     /* last_epoch when exited threads were last
                                  reaped: no collector reads the threads of
                                  that session (or earlier) any more */
    struct {                   /* the counts of threads that exited during
                                  session `epoch` with no records (as past
                                  the cap), whose states went at once
                                  (prof__thread_exit); prof_stop adds them */
        uint32_t epoch;
        uint64_t threads, entered, dropped, dropped_nomem, unbalanced, xdropped[4];
    } exited;
    prof__open_sites exited_open; /* PROF_BEGIN ranges left open by threads
                                  that exited (prof__thread_exit), for
                                  prof_stop to name */
} prof__g;
/* thread list and recording windows; never taken on the hot path.
   Lock order, outermost first (a thread holding one may take only those
   after it): prof__s.lock (session: start, stop, step) -> prof__g_lock
   (threads) -> prof__pf_lock (ready blocks); a memory shard's lock,
   prof__nostate_lock and prof__log_lock are taken last and alone.
   prof_stop also waits, under prof__g_lock, for a thread's `busy` section,
   which takes no lock. */
static pthread_mutex_t prof__g_lock = PTHREAD_MUTEX_INITIALIZER;

/* A thread's first block: 12 KiB, three pages. Every thread that records
   maps and faults it in (at its first scope); at its exit the block it is
   on shrinks to its records (prof__thread_exit), so a program that starts
   a thread per task holds its records until prof_stop, not 12 KiB a task
   (384 KiB blocks measured 0.3-0.7 ms and 384 KiB a thread here). Busy
   threads double their blocks from there. */
#define PROF__FIRST_BLOCK 512u
#define PROF__MAX_BLOCK 349525u    /* records: 8 MiB */

static PROF__NI uint64_t prof__gettid(void) {
#if defined(SYS_gettid)
    return (uint64_t)syscall(SYS_gettid);
#else
    return (uint64_t)(uintptr_t)pthread_self();
#endif
}

/* map_bytes 0: nothing mapped (a block compacted at its thread's exit has
   its records in its own allocation, prof__block_compact; one that
   prof_stop moved into its list has given its pages away). */
static PROF__NI void prof__block_free(prof__block *b) {
    if (b->map_bytes) munmap(b->recs, b->map_bytes);
    PROF__FREE(b);
}
/* Gives the pages of a big block past its first `keep` records back to the
   kernel, in whole 2 MiB steps (no huge page is split). Safe while the
   owner writes there: a store after the discard lands in a fresh zero
   page, one racing with it may be lost, and records past the snapshot are
   never read. The pages fault in again if the owner's next session gets
   that far. */
static PROF__NI void prof__block_trim(prof__block *b, size_t keep) {
    size_t from = (keep * sizeof(prof__rec) + PROF__HUGE - 1) & ~(PROF__HUGE - 1);
    if (b->map_bytes < PROF__HUGE || from >= b->map_bytes) return;
#if defined(MADV_DONTNEED)
    madvise((char *)b->recs + from, b->map_bytes - from, MADV_DONTNEED);
#endif
}
/* A block of records. Blocks of 2 MiB and more are aligned to and backed
   by transparent huge pages where the kernel allows: one fault and one
   2 MiB clear instead of 512 faults, which on a VM is most of the growth
   cost. With `prefault` the pages are faulted in here, where no scope is
   open (a thread's first block, mapped before its first scope reads the
   clock; the prefault thread's; prof_start's reserve). A block a thread
   maps while recording is not prefaulted: faulting it in at once would put
   the whole cost (0.3-1.5 ms here) into the one scope that is open at that
   moment, where page-sized faults spread it over the events that fill it. */
static PROF__NI prof__block *prof__block_new(size_t cap, int prefault) {
    prof__block *b = PROF__ALLOC(prof__block, 1);
    size_t bytes = cap * sizeof(prof__rec), map, lead;
    char *m;
    if (!b) return NULL;
    if (bytes >= PROF__HUGE) bytes = (bytes + PROF__HUGE - 1) & ~(PROF__HUGE - 1);
    map = bytes >= PROF__HUGE ? bytes + PROF__HUGE : bytes;
    m = (char *)mmap(NULL, map, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == (char *)MAP_FAILED) { PROF__FREE(b); return NULL; }
    if (map != bytes) { /* trim to a 2 MiB boundary */
        lead = (PROF__HUGE - ((uintptr_t)m & (PROF__HUGE - 1))) & (PROF__HUGE - 1);
        if (lead) munmap(m, lead);
        if (map - lead - bytes) munmap(m + lead + bytes, map - lead - bytes);
        m += lead;
#if defined(MADV_HUGEPAGE)
        madvise(m, bytes, MADV_HUGEPAGE);
#endif
    }
    if (prefault) {
        /* by touching each page: with huge pages the first touch maps
           2 MiB and the rest are plain stores. (MADV_POPULATE_WRITE
           measured 2.5x slower than this on huge pages, and MAP_POPULATE
           cannot come after the madvise.) */
        size_t o;
        for (o = 0; o < bytes; o += 4096) m[o] = 0;
    }
    b->map_bytes = bytes;
    b->faulted = prefault ? bytes : 0;
    b->owner = NULL;
    b->taken_ns = 0;
    b->follow = NULL;
    b->seen = 0;
    b->recs = (prof__rec *)(void *)m;
    b->cap = bytes / sizeof(prof__rec);
    b->limit = b->used = 0;
    b->next = NULL;
    return b;
}

static PROF__NI void prof__tstate_free(prof__tstate *t) {
    prof__block *b = t->head;
    while (b) { prof__block *n = b->next; prof__block_free(b); b = n; }
    PROF__FREE(t->open);
    PROF__FREE(t->name);
    PROF__FREE(t->dyn_tab);
    prof__arena_free(&t->dyn_arena);
    prof__arena_free(&t->dyn_arena_old);
    PROF__FREE(t);
}
/* The thread list (prof__g_lock held): doubly linked through prevp, so a
   thread that exits takes itself out without a walk. */
static PROF__NI void prof__tstate_link_locked(prof__tstate *t) {
    t->next = prof__g.threads;
    if (t->next) t->next->prevp = &t->next;
    t->prevp = &prof__g.threads;
    prof__g.threads = t;
    prof__g.nstates++;
}
static PROF__NI void prof__tstate_unlink_locked(prof__tstate *t) {
    *t->prevp = t->next;
    if (t->next) t->next->prevp = t->prevp;
    prof__g.nstates--;
}

static PROF__NI void prof__thread_exit(void *p); /* (after the blocks' pool: it gives blocks back) */

/* ----- the prefault thread -----
   A fresh page costs microseconds on first touch (far more under a
   hypervisor than the 24-byte store that fills it), so a thread that records
   millions of events would spend a large part of its time faulting in its
   blocks. Once a thread is past its small first blocks, a helper thread maps
   and faults in full-size blocks ahead of need and keeps up to
   PROF__PF_READY of them ready; the recording thread then takes one under a
   short lock instead of faulting 8 MiB itself. The helper starts on first
   need, never for short sessions, and is joined when the session ends. When
   every core is busy recording, the faults cost the same wherever they run:
   the helper then only keeps the hot path free of stalls. The helper keeps
   two blocks ready until it has seen how fast they go, then one once they
   go slower than four times what it takes to make one (a thread that
   fills 8 MiB in 50 ms needs no second one; a burst, or several threads,
   does): every
   ready block is 8 MiB faulted in, and whatever is ready when the session
   ends was cleared for nothing. It never makes more than what the
   session's cap could still fill. prof_stop frees the ready blocks, unless
   a reserve (reserve_events) keeps them for the next session: a program
   that profiles once holds none after it; prof_start's reserve and blocks
   of exited threads kept for it can hold more (prof_shutdown frees them).
   Every ready block has PROF__MAX_BLOCK records.
   Only a ready block's first 2 MiB are faulted in when it is made: once a
   thread takes it, the helper follows that thread's writing and faults in
   the block 2 MiB at a time, one step ahead of it (prof__pf_follow_locked),
   so that what is resident past the records is at most 4 MiB a thread and
   2 MiB a ready block, not 8 MiB each (a 0.9M-event session held 15 MB
   it never wrote). It faults with MADV_POPULATE_WRITE, which writes
   nothing (the owner may be storing there); where the kernel lacks it,
   ready blocks are faulted in whole as before. */
#define PROF__PF_READY 2
#define PROF__PF_BURST 4 /* a second block ahead when blocks go faster than this many times the making of one */
#define PROF__PF_MIN (PROF__HUGE / sizeof(prof__rec)) /* records of the smallest block taken from it */
static pthread_mutex_t prof__pf_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t prof__pf_wake = PTHREAD_COND_INITIALIZER;
static struct {
    pthread_t thread;
    int active;      /* the session allows the helper (prof_config.no_prefault_thread) */
    int running;     /* the helper exists and must be joined */
    int n_ready;     /* read without the lock only as a hint */
    int n_early;     /* reserve_events: this many of the ready blocks (those
                        there when recording began) may also be a thread's
                        first blocks; otherwise small ones are mapped, so a
                        short thread holds 12 KiB, not 8 MiB */
    size_t keep;     /* the reserve of the last recording window: blocks
                        of exited threads go back to the pool below it */
    prof__block *ready; /* ready blocks, chained through next: the helper's
                           and those prof_start reserved (reserve_events) */
    uint64_t taken;  /* blocks handed out this session */
    uint64_t added PROF__ALIGN8; /* blocks the session added, from here or mapped inline */
    int64_t last_take_ns, take_gap_ns; /* the last full block taken, and the time since the one before (0: none yet) */
    int64_t make_ns; /* what the helper took to make its last block */
    prof__block *follow; /* taken blocks not yet faulted in whole, chained
                            through follow: cleared when the helper stops */
    int populate;    /* MADV_POPULATE_WRITE: 0 untried, 1 works, -1 not here */
} prof__pf;

/* prof.h's own threads: every signal blocked (the host program's handlers
   run on its threads), the normal time-sharing class whatever the creating
   thread's, and any CPU the process may use, not the creator's pinning (a
   helper pinned to the recording thread's core would save nothing). */
/* Marked as prof.h's allocations are (PROF__IN_ALLOC): libc allocates
   for a new thread (its attributes, stack, TLS), sometimes with a lock of
   prof.h's held (the prefault helper's start), and a malloc tracker's
   prof_alloc would come back into prof.h there. */
static PROF__NI int prof__spawn(pthread_t *th, void *(*fn)(void *), void *arg) {
    pthread_attr_t attr;
    sigset_t all, old;
    int ok, have_attr;
    PROF__IN_ALLOC(1);
    have_attr = pthread_attr_init(&attr) == 0;
    if (have_attr) {
        struct sched_param sp;
        memset(&sp, 0, sizeof sp);
        pthread_attr_setinheritsched(&attr, PTHREAD_EXPLICIT_SCHED);
        pthread_attr_setschedpolicy(&attr, SCHED_OTHER);
        pthread_attr_setschedparam(&attr, &sp);
#if defined(__GLIBC__) && defined(CPU_SETSIZE)
        {
            cpu_set_t cpus;
            if (sched_getaffinity(getpid(), sizeof cpus, &cpus) == 0) pthread_attr_setaffinity_np(&attr, sizeof cpus, &cpus);
        }
#endif
    }
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    ok = pthread_create(th, have_attr ? &attr : NULL, fn, arg) == 0;
    if (!ok && have_attr) ok = pthread_create(th, NULL, fn, arg) == 0; /* attributes refused: the defaults */
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (have_attr) pthread_attr_destroy(&attr);
    PROF__IN_ALLOC(-1);
    return ok;
}

/* A block into the ready pool (prof__pf_lock held). */
static PROF__NI void prof__pf_push_locked(prof__block *b) {
    b->next = prof__pf.ready;
    prof__pf.ready = b;
    __atomic_store_n(&prof__pf.n_ready, prof__pf.n_ready + 1, __ATOMIC_RELAXED);
}
/* Faults in bytes [from, to) of a block that its owner may be writing:
   MADV_POPULATE_WRITE maps the pages without storing a byte. 0 = done. */
static PROF__NI int prof__block_populate(prof__block *b, size_t from, size_t to) {
#if defined(MADV_POPULATE_WRITE)
    return madvise((char *)b->recs + from, to - from, MADV_POPULATE_WRITE);
#else
    (void)b; (void)from; (void)to;
    return -1;
#endif
}
/* A ready block: its first 2 MiB faulted in; all of it with `whole` (a
   reserve's session, which is to take no fault), or where populating is
   not to be had (the first block made finds out, before it is shared). */
static PROF__NI prof__block *prof__pf_make(int whole) {
    prof__block *b = prof__block_new(PROF__MAX_BLOCK, 0);
    size_t o;
    if (!b) return NULL;
    if (!prof__pf.populate) prof__pf.populate = prof__block_populate(b, 0, PROF__HUGE) == 0 ? 1 : -1;
    b->faulted = prof__pf.populate > 0 && !whole ? PROF__HUGE : b->map_bytes;
    for (o = 0; o < b->faulted; o += 4096) ((volatile char *)b->recs)[o] = 0;
    return b;
}
/* Faults in the blocks being followed up to a 2 MiB step past where
   their owners write (prof__pf_lock held, dropped while faulting; only
   the helper changes the chain). A block is dropped from the chain once
   faulted in whole, or once its owner has moved on to another. Returns
   the time until it should look again (0: nothing followed): half the
   time the fastest owner takes, at its rate since it took its block, to
   write what is faulted in ahead of it. */
static PROF__NI int64_t prof__pf_follow_locked(void) {
    prof__block **pp = &prof__pf.follow, *b;
    int64_t wait = 0, now = prof__mono_ns();
    while ((b = *pp) != NULL) {
        const prof__rec *pos = PROF__LOAD(&b->owner->pos);
        size_t at, to;
        int64_t w;
        if (!pos || pos < b->recs || pos > b->recs + b->cap) {
            /* gone, or not there yet (its first record is being written:
               given up if that takes 100 ms, and the owner faults it in) */
            if (b->seen || now - b->taken_ns > 100000000) { *pp = b->follow; b->follow = NULL; continue; }
            if (!wait || wait > 100000) wait = 100000;
            pp = &b->follow;
            continue;
        }
        b->seen = 1;
        at = (size_t)((const char *)pos - (const char *)b->recs);
        to = ((at + PROF__HUGE) & ~(PROF__HUGE - 1)) + PROF__HUGE;
        if (to > b->map_bytes) to = b->map_bytes;
        if (b->faulted < to) {
            size_t from = b->faulted;
            pthread_mutex_unlock(&prof__pf_lock);
            prof__block_populate(b, from, to); /* a failure: the owner faults them */
            pthread_mutex_lock(&prof__pf_lock);
            b->faulted = to;
        }
        if (b->faulted >= b->map_bytes) { *pp = b->follow; b->follow = NULL; continue; }
        /* at a rate of `at` bytes in (now - last_take) */
        w = at && now > b->taken_ns ? (int64_t)((double)(b->faulted - at) / 2 * (double)(now - b->taken_ns) / (double)at) : 200000;
        if (w < 50000) w = 50000;
        if (w > 50000000) w = 50000000;
        if (!wait || w < wait) wait = w;
        pp = &b->follow;
    }
    return wait;
}
static void *prof__pf_main(void *arg) {
    (void)arg;
    pthread_mutex_lock(&prof__pf_lock);
    while (prof__pf.active) {
        int64_t left, wait = prof__pf_follow_locked();
        int want = !prof__pf.take_gap_ns || prof__pf.take_gap_ns < PROF__PF_BURST * prof__pf.make_ns ? PROF__PF_READY : 1;
        if (!prof__pf.active) break;
        left = __atomic_load_n(&prof__g.budget, __ATOMIC_RELAXED);
        if (prof__pf.n_ready < want && left > (int64_t)prof__pf.n_ready * (int64_t)PROF__MAX_BLOCK) {
            prof__block *b;
            int64_t t0 = prof__mono_ns();
            int whole = prof__pf.keep != 0;
            pthread_mutex_unlock(&prof__pf_lock);
            b = prof__pf_make(whole);
            pthread_mutex_lock(&prof__pf_lock);
            /* what faulting in a whole block takes, followed or not */
            prof__pf.make_ns = (prof__mono_ns() - t0) * (b ? (int64_t)(b->map_bytes / b->faulted) : 1);
            if (!b) break; /* out of memory: recording threads map their own and count what fails */
            prof__pf_push_locked(b);
            continue;
        }
        if (wait) {
            struct timespec ts;
            clock_gettime(CLOCK_REALTIME, &ts);
            ts.tv_sec += (time_t)(wait / 1000000000);
            ts.tv_nsec += (long)(wait % 1000000000);
            if (ts.tv_nsec >= 1000000000L) { ts.tv_sec++; ts.tv_nsec -= 1000000000L; }
            pthread_cond_timedwait(&prof__pf_wake, &prof__pf_lock, &ts);
        } else {
            pthread_cond_wait(&prof__pf_wake, &prof__pf_lock);
        }
    }
    pthread_mutex_unlock(&prof__pf_lock);
    return NULL;
}
/* Called with prof__pf_lock held: the helper starts, or hears that a block
   was taken. */
static PROF__NI void prof__pf_kick_locked(void) {
    if (prof__pf.running) {
        pthread_cond_signal(&prof__pf_wake);
    } else if (prof__pf.active) {
        if (prof__spawn(&prof__pf.thread, prof__pf_main, NULL)) prof__pf.running = 1;
        else prof__pf.active = 0; /* no thread to be had: map inline this session */
    }
}
static PROF__NI void prof__pf_kick(void) {
    pthread_mutex_lock(&prof__pf_lock);
    prof__pf_kick_locked();
    pthread_mutex_unlock(&prof__pf_lock);
}
/* A ready block of PROF__MAX_BLOCK records, or NULL; with `kick` the
   helper is asked for more either way (not for a thread's small first
   blocks, which must not start it), and follows `h` writing the block
   where it is not faulted in whole. A block of the reserve prof_start
   faulted in (reserve_events) asks nothing: starting the helper would
   fault in the recording thread (the new thread's stack and TLS), which
   the reserve promises not to; it starts once the reserve is spent. */
static PROF__NI prof__block *prof__pf_take(int kick, const prof__thread *h) {
    prof__block *b = NULL;
    pthread_mutex_lock(&prof__pf_lock);
    if (prof__pf.ready) {
        b = prof__pf.ready;
        prof__pf.ready = b->next;
        b->next = NULL;
        __atomic_store_n(&prof__pf.n_ready, prof__pf.n_ready - 1, __ATOMIC_RELAXED);
        if (prof__pf.n_early) {
            __atomic_store_n(&prof__pf.n_early, prof__pf.n_early - 1, __ATOMIC_RELAXED);
            kick = 0;
        }
        prof__pf.taken++;
    }
    if (kick) { /* a full block is needed (taken or not): the rate the helper keeps up with */
        int64_t now = prof__mono_ns();
        prof__pf.take_gap_ns = prof__pf.last_take_ns ? now - prof__pf.last_take_ns : 0;
        prof__pf.last_take_ns = now;
        if (b && b->faulted < b->map_bytes && prof__pf.running) {
            b->owner = h;
            b->taken_ns = now;
            b->seen = 0;
            b->follow = prof__pf.follow;
            prof__pf.follow = b;
        }
    }
    if (kick) prof__pf_kick_locked();
    pthread_mutex_unlock(&prof__pf_lock);
    return b;
}
static PROF__NI void prof__pf_session(int allow, int take_early) {
    pthread_mutex_lock(&prof__pf_lock);
    prof__pf.active = allow;
    __atomic_store_n(&prof__pf.n_early, take_early ? prof__pf.n_ready : 0, __ATOMIC_RELAXED);
    prof__pf.taken = 0;
    prof__pf.last_take_ns = prof__pf.take_gap_ns = 0;
    __atomic_store_n(&prof__pf.added, 0u, __ATOMIC_RELAXED);
    pthread_mutex_unlock(&prof__pf_lock);
}
static PROF__NI void prof__pf_free_ready(void);
/* Session end: the helper finishes the block it is on and exits. Without
   a reserve the ready blocks go now, before the collector's arrays grow
   (they would add to prof_stop's peak, and stay resident in a program
   that profiles once); a reserve keeps them for the next session. */
static PROF__NI void prof__pf_stop(void) {
    pthread_t th;
    int join, keep;
    pthread_mutex_lock(&prof__pf_lock);
    prof__pf.active = 0;
    join = prof__pf.running;
    prof__pf.running = 0;
    th = prof__pf.thread;
    keep = prof__pf.keep != 0;
    pthread_cond_signal(&prof__pf_wake);
    pthread_mutex_unlock(&prof__pf_lock);
    if (join) pthread_join(th, NULL);
    pthread_mutex_lock(&prof__pf_lock);
    while (prof__pf.follow) { /* the rest faults in where its owner writes */
        prof__block *b = prof__pf.follow;
        prof__pf.follow = b->follow;
        b->follow = NULL;
    }
    pthread_mutex_unlock(&prof__pf_lock);
    if (!keep) prof__pf_free_ready();
}
static PROF__NI void prof__pf_free_ready(void) {
    pthread_mutex_lock(&prof__pf_lock);
    while (prof__pf.ready) {
        prof__block *b = prof__pf.ready;
        prof__pf.ready = b->next;
        prof__block_free(b);
    }
    __atomic_store_n(&prof__pf.n_ready, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&prof__pf.n_early, 0, __ATOMIC_RELAXED);
    pthread_mutex_unlock(&prof__pf_lock);
}
/* The memory a reserve may take: half of the smallest of the physical
   memory, the address-space and data limits and the cgroups' limits
   (the blocks are faulted in, so overcommit would not save the process
   from the OOM killer); 1 GiB when none can be read. */
/* The start of a small system file (/proc, /sys) as a string, cut to
   cap - 1 bytes; "" if it cannot be read. Opened close-on-exec: another
   thread of the host may fork and exec meanwhile, and its child must not
   inherit the descriptor (fopen's "r" would leave it open). */
static PROF__NI size_t prof__read_small(const char *path, char *out, size_t cap) {
    size_t k = 0;
    int fd;
    while ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0 && errno == EINTR) {}
    if (fd >= 0) {
        while (k + 1 < cap) {
            ssize_t r = read(fd, out + k, cap - 1 - k);
            if (r < 0 && errno == EINTR) continue;
            if (r <= 0) break;
            k += (size_t)r;
        }
        close(fd);
    }
    out[k] = 0;
    return k;
}
/* The smallest memory limit of the process's own cgroup and its
   ancestors, or lim if less (each limit read from under root + path +
   file, the path cut a component at a time up to root: a limit set on a
   parent, as systemd's slices and Slurm's jobs do, binds the child). */
static PROF__NI uint64_t prof__cgroup_walk(uint64_t lim, const char *root, const char *path, size_t plen, const char *file) {
    size_t rlen = strlen(root), flen = strlen(file);
    char *at = (char *)PROF__MALLOC(rlen + plen + flen + 2), text[32];
    if (!at) return lim;
    for (;;) {
        while (plen && path[plen - 1] == '/') plen--;
        memcpy(at, root, rlen);
        memcpy(at + rlen, path, plen);
        at[rlen + plen] = '/';
        memcpy(at + rlen + plen + 1, file, flen + 1);
        /* "max" (v2) or a value near 2^63 (v1): no limit */
        if (prof__read_small(at, text, sizeof text) && text[0] >= '0' && text[0] <= '9') {
            unsigned long long v = strtoull(text, NULL, 10);
            if ((uint64_t)v < lim) lim = (uint64_t)v;
        }
        if (!plen) break;
        while (plen && path[plen - 1] != '/') plen--; /* up one */
    }
    PROF__FREE(at);
    return lim;
}
/* The cgroup's limit: /proc/self/cgroup names the process's cgroup, for
   v2 ("0::/path": memory.max under /sys/fs/cgroup) and for v1's memory
   controller ("N:...memory...:/path": memory.limit_in_bytes under
   /sys/fs/cgroup/memory). In a container's cgroup namespace the path is
   "/", the container's own limit. */
static PROF__NI uint64_t prof__cgroup_limit(uint64_t lim) {
    char *text = (char *)PROF__MALLOC(8192), *line, *next;
    if (!text) return lim;
    prof__read_small("/proc/self/cgroup", text, 8192);
    for (line = text; *line; line = next) {
        char *c1, *c2, *end;
        if (!(end = strchr(line, '\n'))) end = line + strlen(line);
        next = *end ? end + 1 : end;
        *end = 0;
        if (!(c1 = strchr(line, ':')) || !(c2 = strchr(c1 + 1, ':')) || c2[1] != '/') continue;
        if (c2 == c1 + 1 && strncmp(line, "0:", 2) == 0) { /* v2 */
            lim = prof__cgroup_walk(lim, "/sys/fs/cgroup", c2 + 1, strlen(c2 + 1), "memory.max");
        } else { /* v1: is memory among its controllers? */
            char *k = c1 + 1;
            while (k < c2) {
                size_t n = 0;
                while (k + n < c2 && k[n] != ',') n++;
                if (n == 6 && strncmp(k, "memory", 6) == 0) {
                    lim = prof__cgroup_walk(lim, "/sys/fs/cgroup/memory", c2 + 1, strlen(c2 + 1), "memory.limit_in_bytes");
                    break;
                }
                k += n + 1;
            }
        }
    }
    PROF__FREE(text);
    return lim;
}
static PROF__NI uint64_t prof__reserve_limit_bytes(void) {
    uint64_t lim = UINT64_MAX;
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    struct rlimit rl;
    if (pages > 0 && page > 0) lim = (uint64_t)pages * (uint64_t)page;
    if (getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY && (uint64_t)rl.rlim_cur < lim) lim = (uint64_t)rl.rlim_cur;
    if (getrlimit(RLIMIT_DATA, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY && (uint64_t)rl.rlim_cur < lim) lim = (uint64_t)rl.rlim_cur;
    lim = prof__cgroup_limit(lim);
    lim = lim == UINT64_MAX ? (uint64_t)1 << 30 : lim / 2;
    /* a 32-bit process (i386 on a 64-bit kernel with plenty of memory) has
       4 GiB of addresses in all: a reserve of 3 GiB left it none for itself
       or for prof_stop */
    return lim > (uint64_t)SIZE_MAX / 4 ? (uint64_t)SIZE_MAX / 4 : lim;
}
static PROF__NI void prof__reap_dead_locked(void);
static PROF__NI void prof__reap_late_locked(void);
static PROF__NI void prof__reap_gone_locked(void);
enum { PROF__RESERVE_CUT = 1, PROF__RESERVE_NOMEM = 2 };
/* prof_config.reserve_events: whole blocks for that many records, mapped
   and faulted in now, so that the session's recording takes no page fault.
   Threads that exited give their blocks back first; blocks that live
   threads hold from earlier sessions count, and ready ones. *records is
   rounded up to whole blocks, or cut to the whole blocks within the limit
   above. Returns
   PROF__RESERVE_* bits. */
static PROF__NI int prof__pf_reserve(size_t *records) {
    size_t held = 0, want = *records, need;
    uint64_t limit;
    int res = 0;
    prof__tstate *t;
    prof__block *b;
    limit = want ? prof__reserve_limit_bytes() / sizeof(prof__rec) : 0; /* files and syscalls: only for a reserve */
    if ((uint64_t)want > limit) { /* whole blocks within the limit: rounded up, the cut passed it by up to a block */
        want = (size_t)(limit / PROF__MAX_BLOCK * PROF__MAX_BLOCK);
        res |= PROF__RESERVE_CUT;
    }
    if (want % PROF__MAX_BLOCK) want = want > (size_t)-1 - PROF__MAX_BLOCK ? want / PROF__MAX_BLOCK * PROF__MAX_BLOCK : want + PROF__MAX_BLOCK - want % PROF__MAX_BLOCK;
    *records = want;
    pthread_mutex_lock(&prof__pf_lock);
    prof__pf.keep = want;
    pthread_mutex_unlock(&prof__pf_lock);
    if (!want) return res;
    pthread_mutex_lock(&prof__g_lock);
    prof__reap_dead_locked(); /* with keep set: their blocks go to the pool */
    for (t = prof__g.threads; t; t = t->next)
        for (b = PROF__LOAD(&t->head); b; b = PROF__LOAD(&b->next)) held += b->cap;
    pthread_mutex_unlock(&prof__g_lock);
    pthread_mutex_lock(&prof__pf_lock);
    for (b = prof__pf.ready; b; b = b->next) held += b->cap;
    pthread_mutex_unlock(&prof__pf_lock);
    for (need = want > held ? want - held : 0; need; need = need > PROF__MAX_BLOCK ? need - PROF__MAX_BLOCK : 0) {
        if (!(b = prof__block_new(PROF__MAX_BLOCK, 1))) return res | PROF__RESERVE_NOMEM;
        pthread_mutex_lock(&prof__pf_lock);
        prof__pf_push_locked(b);
        pthread_mutex_unlock(&prof__pf_lock);
    }
    return res;
}

/* Takes up to `want` events from the session's cap. */
static PROF__NI size_t prof__reserve(size_t want) {
    int64_t have = __atomic_load_n(&prof__g.budget, __ATOMIC_RELAXED);
    for (;;) {
        int64_t take = have < (int64_t)want ? have : (int64_t)want;
        if (take <= 0) return 0;
        if (__atomic_compare_exchange_n(&prof__g.budget, &have, have - take, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
            return (size_t)take;
    }
}
/* A share of the cap for t, replacing its current one (*held, spent): a
   quarter of what is left, split among the recording threads, so a thread
   never sits on budget another one needs; near the cap shares are single
   events, which keeps the count exact. A thread that goes idle keeps the
   unused rest of its share, and the threads of a pool bind one after
   another, each taking its share of what the others left: so the shares
   held together are bounded too, by a quarter of the cap (64 idle workers
   held 56% of it, and drops began at 44%), and a thread's shares start
   small and double as it uses them (scope shares and the x shares of
   marks, counters, allocations and async records each on their own), so
   a worker that records a little holds little. x: which kind. */
enum { PROF__SHARE_FIRST = 64, PROF__SHARE_MAX = 0x40000000 /* the gate's low half holds it */ };
static PROF__NI size_t prof__share(prof__tstate *t, uint32_t *held, int x) {
    int64_t left = __atomic_load_n(&prof__g.budget, __ATOMIC_RELAXED);
    int64_t want = left / (4 * ((int64_t)__atomic_load_n(&prof__g.nbound, __ATOMIC_RELAXED) + 1));
    int64_t room = __atomic_load_n(&prof__g.held_max, __ATOMIC_RELAXED) - (__atomic_load_n(&prof__g.held, __ATOMIC_RELAXED) - (int64_t)*held); /* what the others leave */
    int64_t most = (int64_t)PROF__SHARE_FIRST << t->share_shift[x];
    size_t got;
    if (want > room) want = room;
    if (want > most) want = most;
    if (want < 1) want = 1;
    got = prof__reserve((size_t)want);
    if (got == (size_t)most && most < PROF__SHARE_MAX) t->share_shift[x]++;
    __atomic_fetch_add(&prof__g.held, (int64_t)got - (int64_t)*held, __ATOMIC_RELAXED);
    *held = (uint32_t)got;
    return got;
}

/* ----- test hooks -----
   Only under PROF__TEST_HOOKS (tests/test_stop_race.c, test_oom.c): the
   normal build has neither the calls nor the symbol. prof_stop and
   prof_shutdown call the hook at fixed points, where a test makes another
   thread act, to force interleavings that would otherwise be a matter of
   luck (a scope closing while prof_stop runs, a prof_stop during
   prof_shutdown). */
#if defined(PROF__TEST_HOOKS)
enum { PROF__HOOK_ENDED = 1,   /* recording ended (epoch cleared), no thread snapshotted yet */
       PROF__HOOK_SNAPPED = 2, /* every thread snapshotted, no record decoded yet */
       PROF__HOOK_SHUTDOWN = 3, /* prof_shutdown: past the kept records, before it frees */
       PROF__HOOK_EXIT_COPIED = 4 /* a thread's exit: its block copied (prof__block_compact), prof__g_lock not taken yet */ };
static void (*prof__test_hook)(int where);
#define PROF__TEST_HOOK(where) do { if (prof__test_hook) prof__test_hook(where); } while (0)
#else
#define PROF__TEST_HOOK(where) ((void)0)
#endif

/* ----- the cap -----
   The cap counts events and is decided when a scope begins: a scope
   admitted then always gets its record when it ends (records are only ever
   refused for lack of memory), and once the cap refuses a thread nothing
   new begins recording there, so whole subtrees are dropped and a parent is
   never lost while its children are kept. The counts the owner keeps here
   are read by prof_stop, which sets prof__g_epoch to 0 and then waits while
   `busy` is set: either the owner saw the session end (and counts nothing,
   the scope then being open at the stop or begun after it) or prof_stop
   sees its complete counts. */
static PROF__NI int prof__gate_enter(prof__tstate *t) {
    __atomic_store_n(&t->busy, 1, __ATOMIC_SEQ_CST);
    if (__atomic_load_n(&prof__g_epoch, __ATOMIC_SEQ_CST) == t->bound_epoch) return 1;
    __atomic_store_n(&t->busy, 0, __ATOMIC_RELEASE);
    return 0;
}
static PROF__NI void prof__gate_leave(prof__tstate *t) { __atomic_store_n(&t->busy, 0, __ATOMIC_RELEASE); }

/* A scope entered that will have no record: refused (never admitted), or
   admitted and then lost for lack of memory. */
static PROF__NI void prof__scope_lost(prof__tstate *t, int refused, int nomem) {
    if (!prof__gate_enter(t)) return;
    if (refused) PROF__STORER(&t->refused, t->refused + 1);
    PROF__STORER(&t->dropped, t->dropped + 1);
    if (nomem) PROF__STORER(&t->dropped_nomem, t->dropped_nomem + 1);
    prof__gate_leave(t);
}
/* The site of a scope admitted whose name could not be copied (no
   memory): it is counted lost when it begins, and its record, written
   when it ends as any other, only tells prof_stop its span. */
static const prof_site prof__lost_site = { "(lost)", "", "", 0, 0 };
/* A scope admitted and lost for lack of memory when it ended (no room for
   its record), counted unless it was already (prof__lost_site): its
   children, recorded before it, would stay as orphans, so its span is kept
   and prof_stop drops what lies inside it with it (PROF__LOST_SPANS spans,
   the last one widened to cover the rest). */
static PROF__NI void prof__scope_lost_span(prof__tstate *t, const prof_site *site, uint64_t t0, uint64_t t1) {
    uint32_t k;
    if (!prof__gate_enter(t)) return;
    if (site != &prof__lost_site) {
        PROF__STORER(&t->dropped, t->dropped + 1);
        PROF__STORER(&t->dropped_nomem, t->dropped_nomem + 1);
    }
    k = t->n_lost_span;
    if (k < PROF__LOST_SPANS) {
        t->lost_span[k][0] = t0;
        t->lost_span[k][1] = t1;
        t->n_lost_span = k + 1;
    } else { /* the last widens to cover the rest: more is dropped, all counted */
        if (t0 < t->lost_span[PROF__LOST_SPANS - 1][0]) t->lost_span[PROF__LOST_SPANS - 1][0] = t0;
        if (t1 > t->lost_span[PROF__LOST_SPANS - 1][1]) t->lost_span[PROF__LOST_SPANS - 1][1] = t1;
    }
    prof__gate_leave(t);
}

/* The gate is spent (or the thread just bound): a new share, of which this
   scope takes one, or the scope is refused. 1 = admitted. */
static PROF__NI int prof__gate_refill(prof__tstate *t) {
    size_t got = 0;
    if (!t->capped_tick && prof__gate_enter(t)) {
        got = prof__share(t, &t->held_gate, 0);
        if (got) {
            uint64_t hi = (uint64_t)t->gate_epoch << 32;
            PROF__STORER(&t->scopes_before, t->scopes_before + (t->hot.gate.word - t->gate_base));
            PROF__STORER(&t->gate_base, hi + (((uint64_t)1 << 32) - got));
            t->gate_end = hi + ((uint64_t)1 << 32);
            __atomic_store_n(&t->hot.gate.word, t->gate_base + 1, __ATOMIC_RELAXED);
        } else {
            PROF__STORER(&t->capped_tick, prof__now() | 1u);
        }
        prof__gate_leave(t);
    }
    if (!got) prof__scope_lost(t, 1, 0);
    return got != 0;
}
/* A scope begins on a bound thread outside the hot path. 1 = admitted. */
static PROF__NI int prof__admit(prof__tstate *t) {
    if (t->hot.gate.half[PROF__GATE_HI] == t->gate_epoch) {
        __atomic_store_n(&t->hot.gate.word, t->hot.gate.word + 1, __ATOMIC_RELAXED);
        return 1;
    }
    return prof__gate_refill(t);
}
/* Marks, counter samples, allocations and async records share the cap
   through a share of their own (they are no scopes: no gate count). */
enum { PROF__X_MARK = 0, PROF__X_COUNTER = 1, PROF__X_ALLOC = 2, PROF__X_ASYNC = 3 };
/* Counted inside the gate, as a lost scope is: one that comes as prof_stop
   ends the session (prof__grow_n found it over) is no loss of the session,
   which prof_stop has counted or will count without it. */
static PROF__NI void prof__x_lost(prof__tstate *t, int kind, int nomem) {
    if (!prof__gate_enter(t)) return;
    PROF__STORER(&t->xdropped[kind], t->xdropped[kind] + 1);
    /* no room and no block to be had (no memory, or inside prof.h's own
       allocation): counted with the scopes lost so, not as the cap's */
    if (nomem) PROF__STORER(&t->dropped_nomem, t->dropped_nomem + 1);
    prof__gate_leave(t);
}
/* The share is taken inside the gate, as a scope's: a thread preempted in
   prof__share across prof_stop and the next prof_start would take it
   from the new session's cap and count it against the old session's. */
static PROF__NI int prof__admit_x(prof__tstate *t, int kind) {
    if (!t->xcredits) {
        if (!prof__gate_enter(t)) return 0; /* the session is over: nothing to count */
        t->xcredits = prof__share(t, &t->held_x, 1);
        prof__gate_leave(t);
        if (!t->xcredits) { prof__x_lost(t, kind, 0); return 0; }
    }
    t->xcredits--;
    return 1;
}

/* Room for `need` more contiguous records: the next block (reused, or
   mapped now) starts a new window. No cap here: every record written
   belongs to an event the cap admitted. */
/* Once a record block could not be had, the next grow_n calls (of any
   thread) are refused without trying, 64 at first, twice as many after
   each failure that follows, up to 65536, until one succeeds or a session
   starts: out of memory, each dropped event tried a malloc and an mmap
   before (100x slower, and the kernel's mmap lock taken by every thread).
   The refused events are dropped and counted as the failed ones are. */
static uint32_t prof__nomem_skip, prof__nomem_next;
static PROF__NI prof__rec *prof__grow_n(prof__thread *h, size_t need) {
    prof__tstate *t = prof__tstate_of(h);
    prof__block *blk, *cur = t->cur;
    uint32_t epoch = __atomic_load_n(&prof__g_epoch, __ATOMIC_RELAXED);
    if (!epoch || t->bound_epoch != epoch) return NULL; /* session over */
    if (prof__in_alloc) return NULL; /* inside prof.h's own allocation, maybe of this thread's next block */
    blk = cur ? cur->next : t->head;
    if (!blk) {
        size_t cap = cur ? cur->cap * 2 : PROF__FIRST_BLOCK;
        uint32_t skip = __atomic_load_n(&prof__nomem_skip, __ATOMIC_RELAXED);
        if (skip) { /* (threads racing here may lose a count: a few more tries) */
            __atomic_store_n(&prof__nomem_skip, skip - 1, __ATOMIC_RELAXED);
            return NULL;
        }
        if (cap > PROF__MAX_BLOCK) cap = PROF__MAX_BLOCK;
        if (cap >= PROF__PF_MIN) blk = prof__pf_take(1, h);
        else if (__atomic_load_n(&prof__pf.n_early, __ATOMIC_RELAXED))
            blk = prof__pf_take(0, h); /* reserved: no fault at all, and no helper for it (nor for the full ones) */
        else if (cap * 2 >= PROF__PF_MIN) prof__pf_kick(); /* big blocks come next */
        if (!blk && !(blk = prof__block_new(cap, 0))) {
            uint32_t next = __atomic_load_n(&prof__nomem_next, __ATOMIC_RELAXED);
            next = next ? (next < 32768 ? next * 2 : 65536) : 64;
            __atomic_store_n(&prof__nomem_next, next, __ATOMIC_RELAXED);
            __atomic_store_n(&prof__nomem_skip, next, __ATOMIC_RELAXED);
            return NULL;
        }
        if (__atomic_load_n(&prof__nomem_next, __ATOMIC_RELAXED)) __atomic_store_n(&prof__nomem_next, 0, __ATOMIC_RELAXED);
        __atomic_fetch_add(&prof__pf.added, 1u, __ATOMIC_RELAXED);
        if (cur) PROF__STORE(&cur->next, blk);
        else PROF__STORE(&t->head, blk);
    }
    if (blk->cap < need) return NULL; /* never: blocks hold 512 records and more */
    if (cur) PROF__STORE(&cur->used, (size_t)(h->pos - cur->recs));
    blk->used = 0;
    PROF__STORE(&blk->limit, blk->cap);
    PROF__STORE(&t->cur, blk);
    h->end = blk->recs + blk->cap;
    return blk->recs;
}
/* The hot path's slow side: the block is full (or there is none yet).
   Never inlined: in the hot loop it would take registers from the path
   that matters. */
PROF_API PROF__NI __attribute__((__noinline__)) void prof__leave_slow(prof__thread *h, const prof_site *site, uint64_t t0, uint64_t t1) {
    prof__tstate *t = prof__tstate_of(h);
    prof__rec *r = prof__grow_n(h, 1);
    if (!r) { prof__scope_lost_span(t, site, t0, t1); return; }
    r->site = site;
    r->t0 = t0;
    r->t1 = t1;
    PROF__STORE(&h->pos, r + 1);
}

/* Feature bits of the session, read by the slow paths. */
enum { PROF__F_SHAPES = 1, PROF__F_FLOPS = 2, PROF__F_MEMORY = 4, PROF__F_NATIVE = 8, PROF__F_SCOPES = 16 };
static unsigned prof__g_features;

static PROF__NI prof__tstate *prof__attach(void) {
    /* The hot fields start a cache line (with the default allocator): a
       neighbouring allocation written by another thread would otherwise
       slow every scope of this one. */
    prof__tstate *t;
#if defined(PROF__LIBC_ALLOC)
    void *mem = NULL;
#endif
    if (prof__in_alloc) return NULL; /* called from inside prof.h's own allocation */
    /* marked throughout: libc allocates here too (posix_memalign, and
       pthread_setspecific's second-level array once a process has 32
       keys), under prof__g_lock, and a malloc tracker that reports it
       would come back here, the thread still without its state */
    PROF__IN_ALLOC(1);
#if defined(PROF__LIBC_ALLOC)
    if (posix_memalign(&mem, PROF__LINE, sizeof(prof__tstate)) != 0) mem = NULL;
    t = (prof__tstate *)mem;
#else
    t = (prof__tstate *)PROF__MALLOC(sizeof(prof__tstate));
#endif
    if (t) {
        memset(t, 0, sizeof *t);
        t->tid = prof__gettid();
        t->pid = (int64_t)getpid();
        t->pthread_id = (uint64_t)(uintptr_t)pthread_self();
        while (!prof__thread_serial) prof__thread_serial = __atomic_add_fetch(&prof__g_serials, 1u, __ATOMIC_RELAXED);
        t->serial = prof__thread_serial;
        pthread_mutex_lock(&prof__g_lock);
        if (!prof__g.key_ready) { pthread_key_create(&prof__g.key, prof__thread_exit); prof__g.key_ready = 1; }
        if (prof__exits_here) {
            t->late = 1;
            t->counted_epoch = prof__counted_epoch ? PROF__EPOCH16(prof__counted_epoch) : 0;
            prof__reap_late_locked();
        }
        if (prof__g.nstates >= prof__g.sweep_at) prof__reap_gone_locked(); /* each time the states double: a sweep per attach, amortised */
        prof__tstate_link_locked(t);
        pthread_setspecific(prof__g.key, t);
        pthread_mutex_unlock(&prof__g_lock);
        prof__tls = &t->hot;
    }
    PROF__IN_ALLOC(-1);
    return t;
}
/* A copy of the implementation in a shared library built with default
   visibility is bound by the dynamic linker to a copy loaded before it (a
   library loaded globally, a -rdynamic executable): its prof_* calls and
   the state its macros reach are the other copy's, while what it inlined
   is its own, so its sessions fail or take the other's. Its own code runs
   only where it was not bound: this constructor, which finds the mark it
   defines is not the one its references reach, and says so once. */
static int prof__copy_self;
int *prof__copy_mark = &prof__copy_self;
#if defined(__clang__)
#  pragma clang diagnostic push
#  pragma clang diagnostic ignored "-Wglobal-constructors"
#endif
static void prof__copy_check(void) __attribute__((__constructor__));
static void prof__copy_check(void) {
    int *const volatile mark = prof__copy_mark; /* (read as the module's references read it) */
    if (mark != &prof__copy_self)
        prof__report(PROF_LOG_WARNING, PROF_E_STATE,
                     "this copy of the implementation is bound to another one loaded before it (a library or -rdynamic "
                     "executable with its own copy and default visibility): its prof_* calls go to that copy, so its sessions are "
                     "not its own. Build a library that has its own copy with -fvisibility=hidden (or -DPROF_API='extern "
                     "__attribute__((visibility(\"hidden\")))' in its files), or use the one copy from both");
}
#if defined(__clang__)
#  pragma clang diagnostic pop
#endif
/* A copy of the implementation in a library that is dlclose'd: the
   threads that recorded through it hold its key, whose destructor
   (prof__thread_exit) would run in unmapped code when they exit. The key
   goes with the copy, so they exit without calling into it (their states
   and current blocks are not freed then: 12 KiB or more each). Also at the process's
   exit, where no thread's destructor runs anyway; a thread that records
   after that makes a new key. Only if the lock is free: an exit() from a
   signal handler that interrupted prof.h inside it must not wait for it
   (the process is ending; a library whose code runs while it is unloaded
   is lost anyway). */
__attribute__((__destructor__)) static void prof__unload(void) {
    if (pthread_mutex_trylock(&prof__g_lock) != 0) return;
    if (prof__g.key_ready) {
        pthread_key_delete(prof__g.key);
        prof__g.key_ready = 0;
    }
    pthread_mutex_unlock(&prof__g_lock);
}

/* Attaches the calling thread, or rebinds its buffer to a new session,
   and gives it a first block before it reads the clock (not when the cap
   is spent, or with PROF__BIND_NO_BLOCK for a call that records nothing).
   PROF__BIND_START: prof_start's caller, which may never record: with a
   reserve it takes a reserved block only when it does (no fault then
   either). */
#define PROF__BIND_START 1
#define PROF__BIND_NO_BLOCK 2
/* Scopes and records lost because their thread's state could not be
   allocated (no memory at its first scope, and at each one after that
   tries again): there is no state to count them in, so they are counted
   here, for the session of `epoch`; prof_stop adds them (as entered and
   dropped, or as their kind's dropped; all for lack of memory). [0]:
   scopes, [1 + PROF__X_*]: records. Rare, so a lock of its own. */
static struct { uint32_t epoch; uint64_t n[5]; } prof__g_nostate;
static pthread_mutex_t prof__nostate_lock = PTHREAD_MUTEX_INITIALIZER;
static __thread uint8_t prof__nostate; /* the last prof__thread_bind of this thread failed for want of its state (or of its binding, which an allocator hook cannot make) */
static PROF__NI void prof__nostate_lost(int slot) {
    uint32_t epoch = __atomic_load_n(&prof__g_epoch, __ATOMIC_ACQUIRE);
    if (!epoch || !prof__nostate) return;
    pthread_mutex_lock(&prof__nostate_lock);
    if (prof__g_nostate.epoch != epoch) {
        memset(&prof__g_nostate, 0, sizeof prof__g_nostate);
        prof__g_nostate.epoch = epoch;
    }
    prof__g_nostate.n[slot]++;
    pthread_mutex_unlock(&prof__nostate_lock);
}
static PROF__NI prof__thread *prof__thread_bind(int how) {
    prof__tstate *t = prof__self();
    uint32_t epoch = __atomic_load_n(&prof__g_epoch, __ATOMIC_ACQUIRE);
    if (!epoch) return NULL;
    if (!t && !(t = prof__attach())) {
        prof__nostate = 1;
        return NULL;
    }
    if (t->bound_epoch != epoch && prof__in_alloc) { /* not bound from inside prof.h's own allocation: */
        prof__nostate = 1;                            /* what it records there is counted as lost */
        return NULL;
    }
    prof__nostate = 0;
    if (t->bound_epoch != epoch) {
        /* Inside `busy`, with the epoch read again there (seq_cst, as in
           prof__gate_enter): prof_stop sets the epoch to 0 and then waits
           out every thread's `busy` before it counts the threads bound to
           the session, so a thread either binds before that count (and is
           snapshotted whole) or sees the session ended; binding in between
           wrote past the snapshot array and raced the collector over the
           blocks and names freed here. `outer`: already inside a gate
           section (the owner's own flag), which ends it. */
        int outer = __atomic_load_n(&t->busy, __ATOMIC_RELAXED);
        __atomic_store_n(&t->busy, 1, __ATOMIC_SEQ_CST);
        epoch = __atomic_load_n(&prof__g_epoch, __ATOMIC_SEQ_CST);
        if (!epoch || t->bound_epoch == epoch) {
            if (!outer) __atomic_store_n(&t->busy, 0, __ATOMIC_RELEASE);
            return epoch ? &t->hot : NULL;
        }
        /* open PROF_BEGIN entries carry over: ranges begun in an earlier
           session still close, just without a record */
        t->dyn_n = 0;
        if (t->dyn_tab) memset(t->dyn_tab, 0, t->dyn_cap * sizeof *t->dyn_tab);
        prof__arena_free(&t->dyn_arena_old);
        t->dyn_arena_old = t->dyn_arena;
        t->dyn_arena.head = NULL;
        /* A scope whose entry read the epoch before the last prof_stop
           and passed the old gate after the next prof_start (preempted in
           between) began after tick_start, but counts for no session:
           prof_stop leaves out the scopes that began before this tick. */
        PROF__STORER(&t->bind_tick, prof__now());
        __atomic_fetch_add(&prof__g.nbound, 1u, __ATOMIC_RELAXED);
        PROF__STORER(&t->dropped, 0);
        PROF__STORER(&t->unbalanced, 0);
        PROF__STORER(&t->dropped_nomem, 0);
        PROF__STORER(&t->refused, 0);
        PROF__STORER(&t->scopes_before, 0);
        memset(t->xdropped, 0, sizeof t->xdropped);
        t->xcredits = 0;
        t->held_gate = t->held_x = 0;
        t->share_shift[0] = t->share_shift[1] = 0;
        t->n_lost_span = 0;
        PROF__STORER(&t->capped_tick, 0);
        /* spent: the first scope takes a share */
        t->gate_epoch = (__atomic_load_n(&prof__g_features, __ATOMIC_RELAXED) & PROF__F_NATIVE) ? epoch + 2 : epoch;
        t->gate_end = (uint64_t)(t->gate_epoch + 1) << 32;
        PROF__STORER(&t->gate_base, t->gate_end);
        __atomic_store_n(&t->hot.gate.word, t->gate_end, __ATOMIC_RELAXED);
        PROF__STORE(&t->cur, (prof__block *)NULL);
        PROF__STORE(&t->hot.pos, (prof__rec *)NULL);
        t->hot.end = NULL;
        if (!PROF__LOAD(&t->head) && !(how & PROF__BIND_NO_BLOCK) && __atomic_load_n(&prof__g.budget, __ATOMIC_RELAXED) > 0 &&
            !((how & PROF__BIND_START) && __atomic_load_n(&prof__pf.n_early, __ATOMIC_RELAXED))) {
            /* The first block now, before the first scope reads the clock:
               mapped when its first record is written, it would land in
               whatever scope is open then (0.3-0.5 ms here). A failure
               here is retried, and counted, when a record needs room. */
            prof__block *b = __atomic_load_n(&prof__pf.n_early, __ATOMIC_RELAXED) ? prof__pf_take(0, &t->hot) : NULL;
            if (!b) b = prof__block_new(PROF__FIRST_BLOCK, 1);
            if (b) {
                __atomic_fetch_add(&prof__pf.added, 1u, __ATOMIC_RELAXED);
                PROF__STORE(&t->head, b);
            }
        }
        PROF__STORE(&t->bound_epoch, epoch);
        if (!outer) __atomic_store_n(&t->busy, 0, __ATOMIC_RELEASE);
    }
    return &t->hot;
}
PROF_API PROF__NI prof__thread *prof__thread_get(void) { return prof__thread_bind(0); }

static PROF__NI prof__rec *prof__slot(prof__thread *h) {
    prof__rec *r = h->pos;
    if (r == h->end) r = prof__grow_n(h, 1);
    return r;
}

/* PROF_SCOPE_DYN: the name is copied once per session and call site into a
   per-thread table, so the record still holds one pointer. Called only for
   a scope the cap admitted: the names of dropped scopes cost nothing. NULL:
   no memory (the caller counts the loss). */
PROF_API PROF__NI const prof_site *prof__intern_site(const prof_site *origin, const char *name) {
    prof__thread *h = prof__thread_get();
    prof__tstate *t = prof__tstate_of(h);
    uint64_t hash;
    size_t i, len;
    prof__dyn_site *d;
    char *copy;
    if (!t) return origin;
    if (!name) name = "";
    len = strlen(name);
    hash = prof__hash_bytes(name, len, (uint64_t)(uintptr_t)origin);
    if (t->dyn_cap) { /* a known name needs no memory: looked up before any growth */
        i = (size_t)prof__mix(hash) & (t->dyn_cap - 1);
        for (d = t->dyn_tab[i]; d; d = d->next)
            if (d->origin == origin && strcmp(d->site.name, name) == 0) return &d->site;
    }
    if (prof__in_alloc) return NULL; /* inside prof.h's own allocation, maybe this table's growth */
    if ((t->dyn_n + 1) * 2 > t->dyn_cap) {
        size_t ncap = t->dyn_cap ? t->dyn_cap * 2 : 64, j;
        prof__dyn_site **nt = PROF__ALLOC(prof__dyn_site *, ncap);
        if (!nt) return NULL;
        memset(nt, 0, ncap * sizeof *nt);
        for (j = 0; j < t->dyn_cap; j++) {
            d = t->dyn_tab[j];
            while (d) {
                prof__dyn_site *n = d->next;
                size_t k = (size_t)prof__mix(prof__hash_bytes(d->site.name, strlen(d->site.name), (uint64_t)(uintptr_t)d->origin)) & (ncap - 1);
                d->next = nt[k];
                nt[k] = d;
                d = n;
            }
        }
        PROF__FREE(t->dyn_tab);
        t->dyn_tab = nt;
        t->dyn_cap = ncap;
    }
    i = (size_t)prof__mix(hash) & (t->dyn_cap - 1);
    d = (prof__dyn_site *)prof__arena_alloc(&t->dyn_arena, sizeof *d);
    copy = (char *)prof__arena_alloc(&t->dyn_arena, len + 1);
    if (!d || !copy) return NULL;
    memcpy(copy, name, len + 1);
    d->site = *origin;
    d->site.name = copy;
    d->origin = origin;
    d->next = t->dyn_tab[i];
    t->dyn_tab[i] = d;
    t->dyn_n++;
    return &d->site;
}

static PROF__NI uint64_t prof__scope_start(prof__thread *h, void *caller, void *ret); /* (below) */
/* PROF_BEGIN keeps its stack even while nothing records, so an END after
   prof_start closes the BEGIN made before it instead of looking unbalanced.
   `epoch` 0: stacked unrecorded (begun while off, or refused). caller: the
   return address into the range's function (where its native stack
   starts, in that mode). */
static PROF__NI void prof__begin_push(prof__tstate *t, const prof_site *site, uint32_t epoch, void *caller) {
    prof__open *o;
    if (!epoch && !t->n_lost && t->n_open > 0 && t->open[t->n_open - 1].epoch == 0 && t->open[t->n_open - 1].t0 < UINT64_MAX) {
        t->open[t->n_open - 1].t0++; /* one more unrecorded range on the last */
        return;
    }
    /* (not from inside prof.h's own allocation, which may be this stack's
       growth: a hook's PROF_BEGIN is then lost, counted) */
    if (!t->n_lost && t->n_open == t->cap_open && t->cap_open <= INT32_MAX / 2 && !prof__in_alloc) {
        int32_t nc = t->cap_open ? t->cap_open * 2 : 32;
        prof__open *no = (prof__open *)PROF__REALLOC(t->open, (size_t)nc * sizeof *no);
        if (no) {
            t->open = no;
            t->cap_open = nc;
        }
    }
    if (t->n_lost || t->n_open == t->cap_open) {
        /* no room: dropped, and remembered above the stack so that its END
           does not close the enclosing BEGIN; none is stacked again until
           the lost ones are closed, which keeps the order */
        t->n_lost++;
        if (epoch && site != &prof__lost_site) prof__scope_lost(t, 0, 1); /* (a lost one was counted when its name failed) */
        return;
    }
    o = &t->open[t->n_open++];
    o->site = site;
    o->epoch = epoch;
    o->t0 = epoch ? prof__scope_start(&t->hot, caller, NULL) : 0;
}
/* The named variant interns its name only once the cap admitted it. */
static PROF__NI void prof__begin_named(const prof_site *site, const char *name, int dyn, void *caller) {
    uint32_t epoch = __atomic_load_n(&prof__g_epoch, __ATOMIC_ACQUIRE);
    prof__tstate *t = prof__self();
    if (!t && !(t = prof__attach())) {
        if (epoch) { /* (no state: no stack for its END either, which then counts as unbalanced) */
            prof__nostate = 1;
            prof__nostate_lost(0);
        }
        return;
    }
    if (epoch && !prof__thread_get()) {
        prof__nostate_lost(0); /* (not bound to the session: inside an allocator hook) */
    } else if (epoch && prof__admit(t)) {
        const prof_site *named = dyn ? prof__intern_site(site, name) : site;
        if (named) { prof__begin_push(t, named, epoch, caller); return; }
        prof__scope_lost(t, 0, 1);
        prof__begin_push(t, &prof__lost_site, epoch, caller); /* its END tells prof_stop its span */
        return;
    }
    prof__begin_push(t, site, 0, caller);
}
PROF_API PROF__NI __attribute__((__noinline__)) void prof__begin(const prof_site *site) { prof__begin_named(site, NULL, 0, __builtin_return_address(0)); }
PROF_API PROF__NI __attribute__((__noinline__)) void prof__begin_dyn(const prof_site *site, const char *name) {
    prof__begin_named(site, name, 1, __builtin_return_address(0));
}
/* A scope's end on another thread than its beginning's (prof__scope_leave,
   prof__scope_leave_args): not recorded, and counted with this thread's
   unbalanced ends. The beginning's thread counts the scope open at the
   stop (its event is not in the profile), whatever became of it. */
PROF_API PROF__NI void prof__leave_foreign(void) {
    prof__thread *h;
    if (__atomic_load_n(&prof__g_epoch, __ATOMIC_ACQUIRE) && (h = prof__thread_bind(PROF__BIND_NO_BLOCK)) != NULL)
        PROF__STORER(&prof__tstate_of(h)->unbalanced, prof__tstate_of(h)->unbalanced + 1);
}
PROF_API PROF__NI void prof__end(void) {
    uint64_t t1 = prof__now();
    uint32_t epoch = __atomic_load_n(&prof__g_epoch, __ATOMIC_ACQUIRE);
    prof__tstate *t = prof__self();
    prof__thread *h;
    prof__open o;
    prof__rec *r;
    if (t && t->n_lost) { t->n_lost--; return; } /* the END of a BEGIN dropped for memory */
    if (!t || t->n_open == 0) {
        if (epoch && (h = prof__thread_bind(PROF__BIND_NO_BLOCK)) != NULL) PROF__STORER(&prof__tstate_of(h)->unbalanced, prof__tstate_of(h)->unbalanced + 1);
        return;
    }
    o = t->open[t->n_open - 1];
    if (o.epoch == 0 && o.t0 > 0) { t->open[t->n_open - 1].t0--; return; } /* one of the unrecorded ranges it counts */
    t->n_open--;
    if (!epoch || o.epoch != epoch || !(h = prof__thread_get())) return; /* begun while off or in another session */
    if (!(r = prof__slot(h))) { prof__scope_lost_span(t, o.site, o.t0, t1); return; }
    r->site = o.site;
    r->t0 = o.t0;
    r->t1 = t1;
    PROF__STORE(&h->pos, r + 1);
}
/* Marks and counter samples: the site pointer carries a tag in its low bits. */
PROF_API PROF__NI void prof__instant(const prof_site *site, uint64_t tag, double value) {
    uint64_t t0 = prof__now_start();
    prof__thread *h;
    prof__rec *r;
    int kind = tag == PROF__TAG_MARK ? PROF__X_MARK : PROF__X_COUNTER;
    if (!__atomic_load_n(&prof__g_epoch, __ATOMIC_RELAXED)) return;
    if (!(h = prof__thread_get())) {
        prof__nostate_lost(1 + kind);
        return;
    }
    if (!prof__admit_x(prof__tstate_of(h), kind)) return;
    r = prof__slot(h);
    if (!r) { prof__x_lost(prof__tstate_of(h), kind, 1); return; }
    r->site = (const void *)((uintptr_t)site | (uintptr_t)tag);
    r->t0 = t0;
    memcpy(&r->t1, &value, sizeof value);
    PROF__STORE(&h->pos, r + 1);
}

/* ----- records beyond plain scopes -----
   The low three bits of a record's first word say what it is. Extension
   records (tag 3) carry data for the record that follows them; a scope with
   arguments writes its extensions and its own record in one reservation,
   so nothing can separate them. DATA records carry a header's payload:
   SHAPES (aux values) and NATIVE (aux addresses) two values a record,
   OVERLOAD aux bytes and a NUL, 16 bytes a record (aux 0: t0 points to
   the name in the thread's table); FLOPS, AUTOGRAD and MEMADDR have their
   values in the header. NAME is the bytes of a DYN record's name. */
enum { PROF__EXT_DATA = 0, PROF__EXT_SHAPES = 1, PROF__EXT_FLOPS = 2, PROF__EXT_OVERLOAD = 3,
       PROF__EXT_AUTOGRAD = 4, PROF__EXT_MEMADDR = 5, PROF__EXT_NATIVE = 6,
       PROF__EXT_NAME = 7 /* not for the next record: a DYN record points to it */ };
#define PROF__EXT(kind, aux) ((const void *)(uintptr_t)(3u | ((uintptr_t)(kind) << 3) | ((uintptr_t)(aux) << 8)))
#define PROF__NATIVE_MAX 32
/* Names copied into the records (PROF_SCOPE_DYN's, overload names) are
   shorter than this; longer ones go to the thread's name table. */
#define PROF__DYN_INLINE_MAX ((size_t)4096)

/* k contiguous records in the current block (a new block if they do not fit). */
static PROF__NI prof__rec *prof__slots(prof__thread *h, size_t k) {
    prof__rec *r = h->pos;
    if (!r || (size_t)(h->end - r) < k) r = prof__grow_n(h, k);
    return r;
}
static PROF__NI void prof__put_data(prof__rec **r, const uint64_t *v, size_t n) {
    size_t i;
    for (i = 0; i < n; i += 2) {
        (*r)->site = PROF__EXT(PROF__EXT_DATA, 0);
        (*r)->t0 = v[i];
        (*r)->t1 = i + 1 < n ? v[i + 1] : 0;
        (*r)++;
    }
}

#if defined(PROF__HAVE_BACKTRACE)
/* n return addresses into DATA records, as prof__put_data (converted one
   by one: a pointer is 4 bytes on i386). */
static PROF__NI void prof__put_addrs(prof__rec **r, void *const *v, size_t n) {
    size_t i;
    for (i = 0; i < n; i += 2) {
        (*r)->site = PROF__EXT(PROF__EXT_DATA, 0);
        (*r)->t0 = (uint64_t)(uintptr_t)v[i];
        (*r)->t1 = i + 1 < n ? (uint64_t)(uintptr_t)v[i + 1] : 0;
        (*r)++;
    }
}
#endif

/* n bytes into DATA records, 16 a record (the last one's rest zero). */
static PROF__NI void prof__put_bytes(prof__rec **r, const char *s, size_t n) {
    size_t i;
    for (i = 0; i < n; i += 16) {
        uint64_t w[2] = { 0, 0 };
        memcpy(w, s + i, n - i < 16 ? n - i : 16);
        (*r)->site = PROF__EXT(PROF__EXT_DATA, 0);
        (*r)->t0 = w[0];
        (*r)->t1 = w[1];
        (*r)++;
    }
}
/* The origin of long overload names in the thread's name table. */
static const prof_site prof__overload_origin = { "(overload name)", "", "", 0, 0 };

PROF_API PROF__NI void prof__scope_leave_args(prof__scope *s, const prof_args *a) {
    uint64_t t1 = prof__now();
    prof__thread *h = s->t;
    unsigned f = __atomic_load_n(&prof__g_features, __ATOMIC_RELAXED);
    int shapes = a && (f & PROF__F_SHAPES) && a->shapes_len != 0;
    /* a length past what a record holds (or negative) is recorded as the
       list [-1], which prof_stop counts in malformed_shapes and warns of:
       cutting it could leave a list that parses and shows wrong shapes */
    static const int64_t too_long[1] = { -1 };
    const int64_t *vals = shapes && a->shapes && a->shapes_len > 0 && a->shapes_len <= 64 ? a->shapes : too_long;
    size_t nvals = vals == too_long ? 1 : (size_t)a->shapes_len;
    int flops = a && (f & PROF__F_FLOPS) && a->flops != 0;
    int over = a && a->overload_name && a->overload_name[0];
    int bad_scope = a && (a->scope < 0 || a->scope > 255); /* recorded as 0, counted in malformed_args */
    int ag = a && (a->scope || (a->set & (PROF_ARGS_SEQUENCE_NR | PROF_ARGS_FWD_THREAD)));
    size_t k, over_len = 0, over_recs = 0;
    const char *over_long = NULL; /* a name of 4 KiB or more: copied into the thread's table */
    prof__rec *r, *start;
#if defined(PROF_NO_SHAPES)
    shapes = 0;
#endif
#if defined(PROF_NO_FLOPS)
    flops = 0;
#endif
    if (!h) return;
    if (h != prof__tls) { prof__leave_foreign(); return; } /* ended on another thread (prof__scope_leave) */
    if (over) { /* copied now: the caller's buffer may be reused once the scope ends */
        over_len = strlen(a->overload_name);
        if (over_len < PROF__DYN_INLINE_MAX) over_recs = (over_len + 16) / 16; /* its bytes and NUL, 16 a record */
        else {
            const prof_site *named = prof__intern_site(&prof__overload_origin, a->overload_name);
            if (!named) { prof__scope_lost_span(prof__tstate_of(h), s->site, s->t0, t1); return; }
            over_long = named->name;
        }
    }
    k = 1 + (size_t)flops + (size_t)over + over_recs + (size_t)ag + (shapes ? 1 + (nvals + 1) / 2 : 0);
    r = start = prof__slots(h, k);
    if (r) {
        if (shapes) {
            r->site = PROF__EXT(PROF__EXT_SHAPES, nvals);
            r->t0 = r->t1 = 0;
            r++;
            prof__put_data(&r, (const uint64_t *)(const void *)vals, nvals);
        }
        if (flops) { r->site = PROF__EXT(PROF__EXT_FLOPS, 0); r->t0 = (uint64_t)a->flops; r->t1 = 0; r++; }
        if (over) {
            r->site = PROF__EXT(PROF__EXT_OVERLOAD, over_long ? 0 : over_len);
            r->t0 = (uint64_t)(uintptr_t)over_long;
            r->t1 = 0;
            r++;
            if (!over_long) prof__put_bytes(&r, a->overload_name, over_len + 1);
        }
        if (ag) {
            unsigned aux = (bad_scope ? 0x400u : (unsigned)(a->scope & 0xff)) | ((a->set & PROF_ARGS_SEQUENCE_NR) ? 0x100u : 0) | ((a->set & PROF_ARGS_FWD_THREAD) ? 0x200u : 0);
            r->site = PROF__EXT(PROF__EXT_AUTOGRAD, aux);
            r->t0 = (uint64_t)a->sequence_nr;
            r->t1 = a->fwd_thread;
            r++;
        }
        r->site = s->site;
        r->t0 = s->t0;
        r->t1 = t1;
        PROF__STORE(&h->pos, start + k);
    } else {
        prof__scope_lost_span(prof__tstate_of(h), s->site, s->t0, t1);
    }
}


/* A scope's start time; in native-stack mode also its return addresses
   (named at prof_stop), in an extension that names the scope by that start
   time, since its children are recorded before it. `caller`: the return
   address into the scope's function, where the stack starts. */
static PROF__NI uint64_t prof__scope_start(prof__thread *h, void *caller, void *ret) {
#if defined(PROF__HAVE_BACKTRACE)
    if (__atomic_load_n(&prof__g_features, __ATOMIC_RELAXED) & PROF__F_NATIVE) {
        void *addr[PROF__NATIVE_MAX + 8]; /* + prof.h's frames and a sanitizer's wrapper */
        int total = backtrace(addr, PROF__NATIVE_MAX + 8), skip = 1, n;
        size_t k;
        prof__rec *r, *start;
        uint64_t t0;
        /* drop prof.h's frames and any wrapper frames (sanitizers
           intercept backtrace): the stack starts at the return address
           into the scope's function, the one before its own (ret); where
           ret is not found, at the return into the function that called
           the slow path (the scope's own where the helper was inlined) */
        ret = ret ? __builtin_extract_return_addr(ret) : NULL;
        while (ret && skip < total && addr[skip] != ret) skip++;
        if (ret && skip < total) {
            skip--;
        } else {
            for (skip = 0; skip < total && addr[skip] != caller; skip++) {}
            if (skip == total) skip = 1;
        }
        n = total - skip;
        if (n > PROF__NATIVE_MAX) n = PROF__NATIVE_MAX;
        k = 1 + ((size_t)(n > 0 ? n : 0) + 1) / 2;
        t0 = prof__now_start();
        /* no room: the scope is recorded without its stack */
        if (n > 0 && (r = start = prof__slots(h, k)) != NULL) {
            r->site = PROF__EXT(PROF__EXT_NATIVE, n);
            r->t0 = t0;
            r->t1 = 0;
            r++;
            prof__put_addrs(&r, addr + skip, (size_t)n);
            PROF__STORE(&h->pos, start + k);
        }
        return t0;
    }
#else
    (void)h; (void)caller; (void)ret;
#endif
    return prof__now_start();
}

/* A scope the hot path could not admit: the thread's first in a session,
   its share of the cap spent, or native-stack mode. t NULL: not recorded. */
PROF_API PROF__NI __attribute__((__noinline__)) prof__entered prof__scope_enter_slow(void *ret) {
    prof__entered s;
    s.t0 = 0;
    s.t = prof__thread_get();
    if (!s.t) {
        prof__nostate_lost(0);
        return s;
    }
    if (!prof__admit(prof__tstate_of(s.t))) { s.t = NULL; return s; }
    s.t0 = prof__scope_start(s.t, __builtin_return_address(0), ret);
    return s;
}
/* PROF_SCOPE_DYN while recording: admitted first, then its name copied
   into the record stream (a NAME extension, see the record format), which
   its scope record points to; the collector interns it. No lookup here, so
   the cost does not grow with the number of distinct names. A name too
   long for a block's share goes to the thread's table instead. */
/* The n bytes of a name and its NUL (n >= 1) into the records after its
   header, with no call and no byte loop: whole words read from inside the
   name only (the last one overlaps the one before it), so the copy never
   reads past the NUL (sanitizers and valgrind see no stray read); the
   records have room for whole words past the end. */
static PROF__NI __inline__ __attribute__((__always_inline__)) void prof__name_copy(char *d, const char *s, size_t n) {
    if (n >= 8) {
        uint64_t w;
        size_t i;
        for (i = 0; i + 8 < n; i += 8) { memcpy(&w, s + i, 8); memcpy(d + i, &w, 8); }
        memcpy(&w, s + n - 8, 8);
        memcpy(d + n - 8, &w, 8);
    } else if (n >= 4) {
        uint32_t a, b;
        memcpy(&a, s, 4);
        memcpy(&b, s + n - 4, 4);
        memcpy(d, &a, 4);
        memcpy(d + n - 4, &b, 4);
    } else { /* 1 to 3 bytes: these three cover them all */
        d[0] = s[0];
        d[n / 2] = s[n / 2];
        d[n - 1] = s[n - 1];
    }
}
/* The name's header and bytes at r (k records, room checked). */
static PROF__NI __inline__ __attribute__((__always_inline__)) const prof_site *prof__dyn_put(prof__rec *r, size_t k, const prof_site *site,
                                                                                         const char *name, size_t len) {
    r->site = PROF__EXT(PROF__EXT_NAME, k - 1);
    r->t0 = (uint64_t)(uintptr_t)site;
    r->t1 = 0;
    prof__name_copy((char *)(void *)(r + 1), name, len + 1);
    return (const prof_site *)(const void *)((uintptr_t)r | (uintptr_t)PROF__TAG_DYN);
}
static PROF__NI const prof_site *prof__dyn_inline(prof__thread *h, const prof_site *site, const char *name) {
    size_t len = strlen(name), k;
    prof__rec *r;
    const prof_site *named;
    if (len >= PROF__DYN_INLINE_MAX) return prof__intern_site(site, name);
    k = 1 + (len + sizeof(prof__rec)) / sizeof(prof__rec); /* the header, then len + 1 bytes */
    if (!(r = prof__slots(h, k))) return NULL;
    named = prof__dyn_put(r, k, site, name, len);
    PROF__STORE(&h->pos, r + k);
    return named;
}
/* Not admitted by the gate, no room in the block, or a long name. Out of
   line, so that the common path below saves no registers. */
static PROF__NI __attribute__((__noinline__)) prof__scope prof__scope_enter_named_slow(const prof_site *site, const char *name, void *caller, void *ret, int late) {
    prof__scope s;
    prof__thread *h = prof__thread_get();
    prof__tstate *t = h ? prof__tstate_of(h) : NULL;
    s.t = PROF__NULL;
    s.site = site;
    s.t0 = 0;
    if (!h) prof__nostate_lost(0);
    if (!t || !prof__admit(t)) return s;
    if (!(s.site = prof__dyn_inline(h, site, name))) {
        /* lost, but still timed: its record (site prof__lost_site) tells
           prof_stop which recorded scopes were inside it */
        prof__scope_lost(t, 0, 1);
        s.site = &prof__lost_site;
        s.t = &t->hot;
        s.t0 = late ? 0 : prof__now_start();
        return s;
    }
    s.t = &t->hot;
    /* late (C++'s two steps): what its start is to take (PROF__START_*) */
    s.t0 = !late ? prof__scope_start(s.t, caller, ret) : (__atomic_load_n(&prof__g_features, __ATOMIC_RELAXED) & PROF__F_NATIVE) ? 1 : 0;
    return s;
}
/* name: not NULL, len its strlen (prof__scope_enter_dyn); ret as in
   prof__scope_enter, NULL in the optimized builds' call. */
static __inline__ __attribute__((__always_inline__)) PROF__NI prof__scope prof__scope_enter_named_at(const prof_site *site, const char *name, size_t len, void *ret, int late) {
    prof__thread *h = prof__tls;
    prof__rec *r = h->pos;
    size_t k = 1 + (len + sizeof(prof__rec)) / sizeof(prof__rec);
    /* as the hot path: a thread bound to the session with cap to spend
       (and no native stacks) is admitted by its gate; the name goes into
       the current block when it fits (no block: pos and end are NULL) */
    if (PROF__LIKELY(h->gate.half[PROF__GATE_HI] == __atomic_load_n(&prof__g_epoch, __ATOMIC_RELAXED) && len < PROF__DYN_INLINE_MAX &&
                     (size_t)((char *)h->end - (char *)r) >= k * sizeof(prof__rec))) {
        prof__scope s;
        __atomic_store_n(&h->gate.word, h->gate.word + 1, __ATOMIC_RELAXED);
        s.site = prof__dyn_put(r, k, site, name, len);
        PROF__STORE(&h->pos, r + k);
        s.t = h;
        s.t0 = late ? 0 : prof__now_start(); /* (late: PROF__START_CLOCK) */
        return s;
    }
    return prof__scope_enter_named_slow(site, name, __builtin_return_address(0), ret, late);
}
PROF_API PROF__NI prof__scope prof__scope_enter_named(const prof_site *site, const char *name, size_t len) {
    return prof__scope_enter_named_at(site, name, len, NULL, 0);
}
PROF_API PROF__NI prof__scope prof__scope_enter_named_ret(const prof_site *site, const char *name, size_t len, void *ret) {
    return prof__scope_enter_named_at(site, name, len, ret, 0);
}
/* C++'s first step (prof__scope_enter_dyn_copy): the name copied, the
   start left to prof__scope_start_copied. */
PROF_API PROF__NI prof__scope prof__scope_enter_named_copy(const prof_site *site, const char *name, size_t len) {
    return prof__scope_enter_named_at(site, name, len, NULL, 1);
}
/* ... its start where it takes more than the clock: the native stack.
   Never inlined: its return address is where the stack starts, in the
   scope's function (inlined there, in the implementation's file or under
   LTO, it read that function's own return address, and the stack lost
   the scope's function). */
PROF_API PROF__NI __attribute__((__noinline__)) uint64_t prof__scope_start_late(prof__thread *t, void *ret) {
    return prof__scope_start(t, __builtin_return_address(0), ret);
}

PROF_API PROF__NI void prof__async(const prof_site *site, uint64_t tag, uint64_t id) {
    uint64_t t = prof__now_ordered();
    prof__thread *h;
    prof__rec *r;
    if (!__atomic_load_n(&prof__g_epoch, __ATOMIC_RELAXED)) return;
    if (!(h = prof__thread_get())) {
        prof__nostate_lost(1 + PROF__X_ASYNC);
        return;
    }
    if (!prof__admit_x(prof__tstate_of(h), PROF__X_ASYNC)) return;
    if (!(r = prof__slots(h, 1))) { prof__x_lost(prof__tstate_of(h), PROF__X_ASYNC, 1); return; }
    r->site = (const void *)((uintptr_t)site | (uintptr_t)tag);
    r->t0 = t;
    r->t1 = id;
    PROF__STORE(&h->pos, r + 1);
}

/* ----- memory -----
   Live allocations are kept in a sharded table so a free can be charged
   with its size (and device) on whatever thread it happens. */
static uint64_t prof__g_unknown_frees;
static pthread_once_t prof__fork_once = PTHREAD_ONCE_INIT;
static void prof__register_atfork(void);
#if !defined(PROF_NO_MEMORY)
/* A tracked block. sess: the session it was allocated in (prof__g_epoch, 0
   = none); recorded: PROF__MEM_KEPT, its allocation's record was kept, so
   its free is owed a record (prof__mem_free); else why it was dropped (the
   cap's, or memory's), which its free, dropped too, is counted as. */
enum { PROF__MEM_CAP = 0, PROF__MEM_KEPT = 1, PROF__MEM_NOMEM = 2 };
typedef struct prof__live { uintptr_t ptr; int64_t bytes; const char *category; uint32_t sess; uint8_t device_type, device_index, recorded; } prof__live;
typedef struct prof__shard { pthread_mutex_t lock; prof__live *tab; size_t cap, n, used; } prof__shard;
#define PROF__SHARDS 64
static prof__shard prof__g_live[PROF__SHARDS];
static pthread_once_t prof__live_once = PTHREAD_ONCE_INIT;
static int prof__live_ready;
static void prof__live_init(void) {
    int i;
    for (i = 0; i < PROF__SHARDS; i++) pthread_mutex_init(&prof__g_live[i].lock, NULL);
    __atomic_store_n(&prof__live_ready, 1, __ATOMIC_RELEASE);
    pthread_once(&prof__fork_once, prof__register_atfork); /* prof_malloc works without a session */
}
/* fork(): the table is taken whole before (-1) and given back after (1), in
   the parent and in the child, so the child never inherits a shard that
   another thread held in the middle of a change. */
static void prof__live_fork(int dir) {
    int i;
    if (!__atomic_load_n(&prof__live_ready, __ATOMIC_ACQUIRE)) return;
    for (i = 0; i < PROF__SHARDS; i++) {
        if (dir < 0) pthread_mutex_lock(&prof__g_live[i].lock);
        else pthread_mutex_unlock(&prof__g_live[i].lock);
    }
}
#define PROF__TOMB ((uintptr_t)1)

static PROF__NI int prof__live_rehash(prof__shard *sh, size_t ncap) {
    prof__live *ns = PROF__ALLOC(prof__live, ncap);
    size_t i;
    if (!ns) return 0;
    memset(ns, 0, ncap * sizeof *ns);
    for (i = 0; i < sh->cap; i++) {
        if (sh->tab[i].ptr > PROF__TOMB) {
            size_t j = (size_t)prof__mix(sh->tab[i].ptr) & (ncap - 1);
            while (ns[j].ptr) j = (j + 1) & (ncap - 1);
            ns[j] = sh->tab[i];
        }
    }
    PROF__FREE(sh->tab);
    sh->tab = ns;
    sh->cap = ncap;
    sh->used = sh->n;
    return 1;
}
/* prof_shutdown: the shards give back what their live allocations do not
   need: all of it when they track none, else down to 4 slots each (those
   still tracked stay, for their frees; no memory to move them: as is). */
static PROF__NI void prof__live_trim(void) {
    int i;
    if (!__atomic_load_n(&prof__live_ready, __ATOMIC_ACQUIRE)) return;
    for (i = 0; i < PROF__SHARDS; i++) {
        prof__shard *sh = &prof__g_live[i];
        size_t want = 64;
        pthread_mutex_lock(&sh->lock);
        while (want < sh->n * 4) want *= 2;
        if (!sh->n) {
            PROF__FREE(sh->tab);
            sh->tab = NULL;
            sh->cap = sh->used = 0;
        } else if (want < sh->cap) {
            (void)prof__live_rehash(sh, want);
        }
        pthread_mutex_unlock(&sh->lock);
    }
}

/* prof_alloc_ex's categories are copied at the call: a real allocator
   builds them in a reused buffer or frees them before prof_stop reads the
   records. Each text is kept once for the process (the live table keeps
   an allocation's category across sessions, to its free), so the table is
   bounded: PROF__CATS texts of PROF__CAT_BYTES in all; past that a new
   text is recorded as "(other categories)", with one warning. Lookups
   take no lock (the slots are only ever filled, with release stores);
   inserts take prof__cat_lock, which nests inside nothing of prof.h's
   and holds nothing else (the child of a fork makes it afresh). */
#define PROF__CATS 1024
#define PROF__CAT_BYTES ((size_t)1 << 20)
typedef struct prof__cat { uint64_t hash; size_t len; char text[1]; } prof__cat;
static prof__cat *prof__cat_slot[2 * PROF__CATS];
static pthread_mutex_t prof__cat_lock = PTHREAD_MUTEX_INITIALIZER;
static size_t prof__cat_count, prof__cat_bytes;
static int prof__cat_warned; /* once for the process */
static PROF__NI const char *prof__cat_find(size_t j, uint64_t hash, const char *s, size_t len) {
    prof__cat *c;
    for (; (c = __atomic_load_n(&prof__cat_slot[j], __ATOMIC_ACQUIRE)) != NULL; j = (j + 1) & (2 * PROF__CATS - 1))
        if (c->hash == hash && c->len == len && memcmp(c->text, s, len) == 0) return c->text;
    return NULL;
}
static PROF__NI const char *prof__cat_intern(const char *s) {
    static const char other[] = "(other categories)";
    size_t len, j;
    uint64_t hash;
    const char *got;
    prof__cat *c;
    int full = 0;
    if (!s || !*s || strcmp(s, "unknown") == 0) return NULL; /* PyTorch's unknown: no category */
    len = strlen(s);
    hash = prof__hash_bytes(s, len, 14695981039346656037ull);
    j = prof__mix(hash) & (2 * PROF__CATS - 1);
    if ((got = prof__cat_find(j, hash, s, len)) != NULL) return got;
    pthread_once(&prof__fork_once, prof__register_atfork); /* the child of a fork from here on makes the lock afresh (prof__atfork_child) */
    pthread_mutex_lock(&prof__cat_lock);
    if ((got = prof__cat_find(j, hash, s, len)) == NULL) { /* another thread may have put it in meanwhile */
        /* only this text is "other": one too long, or no memory for it,
           leaves the room to the texts that fit */
        if (prof__cat_count >= PROF__CATS || len > PROF__CAT_BYTES - prof__cat_bytes ||
            !(c = (prof__cat *)PROF__MALLOC(offsetof(prof__cat, text) + len + 1))) {
            full = !prof__cat_warned;
            prof__cat_warned = 1;
            got = other;
        } else {
            c->hash = hash;
            c->len = len;
            memcpy(c->text, s, len + 1);
            while (prof__cat_slot[j]) j = (j + 1) & (2 * PROF__CATS - 1);
            __atomic_store_n(&prof__cat_slot[j], c, __ATOMIC_RELEASE);
            prof__cat_count++;
            prof__cat_bytes += len;
            got = c->text;
        }
    }
    pthread_mutex_unlock(&prof__cat_lock);
    if (full)
        prof__report(PROF_LOG_WARNING, PROF_E_DROPPED, "prof_alloc_ex: more than %d distinct categories (or %zu bytes of them, or no memory): new ones are recorded as \"%s\"", PROF__CATS, PROF__CAT_BYTES, other);
    return got;
}

/* The session's epoch when the record was kept, else 0. owed: the free of
   a block whose allocation this session recorded, which the cap does not
   refuse (as a scope's end: the pair is kept whole, or the block would
   stay live in the timeline forever); a free whose allocation the cap
   dropped is dropped with it (prof__mem_free). */
static __thread uint8_t prof__mem_nomem; /* the last prof__mem_record of this thread lost its record for lack of memory */
static PROF__NI uint32_t prof__mem_record(uintptr_t ptr, int64_t bytes, int device_type, int device_index, const char *category, int owed) {
    uint64_t t = prof__now_start();
    uint32_t epoch = __atomic_load_n(&prof__g_epoch, __ATOMIC_RELAXED);
    prof__thread *h;
    prof__rec *r;
    if (!epoch || !(__atomic_load_n(&prof__g_features, __ATOMIC_RELAXED) & PROF__F_MEMORY)) return 0;
    if (!(h = prof__thread_get())) {
        prof__nostate_lost(1 + PROF__X_ALLOC);
        prof__mem_nomem = prof__nostate;
        return 0;
    }
    if (!owed && !prof__admit_x(prof__tstate_of(h), PROF__X_ALLOC)) return 0;
    if (!(r = prof__slots(h, 2))) {
        prof__x_lost(prof__tstate_of(h), PROF__X_ALLOC, 1);
        prof__mem_nomem = 1;
        return 0;
    }
    r[0].site = PROF__EXT(PROF__EXT_MEMADDR, 0);
    r[0].t0 = ptr;
    r[0].t1 = (uint64_t)(uintptr_t)category;
    r[1].site = (const void *)(uintptr_t)(PROF__TAG_MEM | ((uintptr_t)(device_type & 31) << 3) | ((uintptr_t)(unsigned)device_index << 8));
    r[1].t0 = t;
    r[1].t1 = (uint64_t)bytes;
    PROF__STORE(&h->pos, r + 2);
    return epoch;
}

#else
static void prof__live_fork(int dir) { (void)dir; }
static void prof__live_trim(void) {}
#endif

/* Addresses travel as integers: the memory behind them is never read.
   prof__live_put and prof__live_take change the live table only;
   prof__alloc_addr and prof__dealloc_addr also record the change. */
#if !defined(PROF_NO_MEMORY)
/* *prev (when not NULL) gets the entry p replaces: bytes 0 when p was not
   live. */
static PROF__NI int prof__live_put(uintptr_t p, int64_t b, int device, int device_index, const char *category, uint32_t sess, int recorded, prof__live *prev) {
    prof__shard *sh;
    size_t j;
    if (prev) prev->bytes = 0;
    pthread_once(&prof__live_once, prof__live_init);
    sh = &prof__g_live[prof__mix(p) & (PROF__SHARDS - 1)];
    pthread_mutex_lock(&sh->lock);
    if ((sh->used + 1) * 2 > sh->cap && !prof__live_rehash(sh, sh->cap ? (sh->n * 4 > sh->cap ? sh->cap * 2 : sh->cap) : 64)) {
        pthread_mutex_unlock(&sh->lock);
        return 0;
    }
    {
        /* p's entry if it has one (past tombstones: a block reported again
           while live replaces itself), else the first free slot on its
           probe chain, a tombstone before an empty one */
        size_t tomb = SIZE_MAX;
        for (j = (size_t)prof__mix(p) & (sh->cap - 1); sh->tab[j].ptr && sh->tab[j].ptr != p; j = (j + 1) & (sh->cap - 1))
            if (sh->tab[j].ptr == PROF__TOMB && tomb == SIZE_MAX) tomb = j;
        if (sh->tab[j].ptr == p) {
            if (prev) *prev = sh->tab[j];
        } else {
            if (tomb != SIZE_MAX) j = tomb;
            else sh->used++; /* (an empty slot taken) */
            sh->n++;
        }
    }
    sh->tab[j].ptr = p;
    sh->tab[j].bytes = b;
    sh->tab[j].category = category;
    sh->tab[j].device_type = (uint8_t)device;             /* 0-31 */
    sh->tab[j].device_index = (uint8_t)device_index;      /* 0-63 */
    sh->tab[j].sess = sess;
    sh->tab[j].recorded = (uint8_t)recorded; /* PROF__MEM_* */
    pthread_mutex_unlock(&sh->lock);
    return 1;
}
/* Takes p out of the live table into *found; 0 when p is not in it (the
   caller counts the unknown free once the block is really freed). */
static PROF__NI int prof__live_take(uintptr_t p, prof__live *found) {
    prof__shard *sh;
    size_t j;
    int ok = 0;
    pthread_once(&prof__live_once, prof__live_init);
    sh = &prof__g_live[prof__mix(p) & (PROF__SHARDS - 1)];
    pthread_mutex_lock(&sh->lock);
    if (sh->cap) {
        j = (size_t)prof__mix(p) & (sh->cap - 1);
        while (sh->tab[j].ptr && sh->tab[j].ptr != p) j = (j + 1) & (sh->cap - 1);
        if (sh->tab[j].ptr == p) {
            *found = sh->tab[j];
            sh->tab[j].ptr = PROF__TOMB;
            sh->n--;
            ok = 1;
        }
    }
    pthread_mutex_unlock(&sh->lock);
    return ok;
}
/* A free of a block the live table never had, counted while a session records. */
static void prof__unknown_free(void) {
    if (__atomic_load_n(&prof__g_epoch, __ATOMIC_RELAXED)) __atomic_fetch_add(&prof__g_unknown_frees, 1u, __ATOMIC_RELAXED);
}
/* The free of a tracked block `was`, recorded as the pair needs: owed (past
   the cap) when this session recorded its allocation; dropped, and counted
   with the allocation the cap dropped, when this session did not; as any
   record when it came from before the session (the timeline's blocks from
   before the list). A block of 0 bytes has no record. */
static PROF__NI void prof__mem_free(uintptr_t p, const prof__live *was) {
    uint32_t epoch = __atomic_load_n(&prof__g_epoch, __ATOMIC_RELAXED);
    if (!was->bytes) return;
    if (epoch && was->sess == epoch && was->recorded != PROF__MEM_KEPT) {
        /* lost as its allocation was: the cap's or memory's */
        if (__atomic_load_n(&prof__g_features, __ATOMIC_RELAXED) & PROF__F_MEMORY) {
            prof__thread *h = prof__thread_get();
            if (h) prof__x_lost(prof__tstate_of(h), PROF__X_ALLOC, was->recorded == PROF__MEM_NOMEM);
            else prof__nostate_lost(1 + PROF__X_ALLOC); /* (no state for this thread either) */
        }
        return;
    }
    (void)prof__mem_record(p, -was->bytes, was->device_type, was->device_index, was->category, epoch && was->sess == epoch);
}
#endif
static PROF__NI void prof__alloc_addr(uintptr_t p, size_t bytes, prof_device_type device, int device_index, const char *category) {
#if !defined(PROF_NO_MEMORY)
    int64_t b = bytes > (size_t)INT64_MAX ? INT64_MAX : (int64_t)bytes; /* a size_t past it would read as a free */
    prof__live was;
    uint32_t sess, rec;
    if (prof__in_alloc || !p) return; /* prof.h's own block, reported by a PROF_MALLOC hook (maybe with a shard's lock held) */
    /* recorded first, so that the table knows whether its free is owed */
    sess = __atomic_load_n(&prof__g_epoch, __ATOMIC_RELAXED);
    prof__mem_nomem = 0;
    rec = b ? prof__mem_record(p, b, (int)device, device_index, category, 0) : 0;
    if (!prof__live_put(p, b, (int)device, device_index, category, rec ? rec : sess, rec ? PROF__MEM_KEPT : prof__mem_nomem ? PROF__MEM_NOMEM : PROF__MEM_CAP, &was)) {
        /* untracked (no memory for the table): its free will be an unknown
           one, so the record is paired now, or the block stays live */
        if (rec) (void)prof__mem_record(p, -b, (int)device, device_index, category, 1);
        return;
    }
    /* a block of 0 bytes is tracked, so that its free is no unknown one,
       but not recorded: PyTorch's allocators report none (c10's CPU
       reporter returns first when nbytes is 0). One that replaces a live
       block of some bytes records that block's free instead: no later
       record would say it went (the timeline replaces a block reported
       again at its address, but a 0-byte block is no report) */
    if (!b && was.bytes) prof__mem_free(p, &was);
#else
    (void)p; (void)bytes; (void)device; (void)device_index; (void)category;
#endif
}
static PROF__NI void prof__dealloc_addr(uintptr_t p) {
#if !defined(PROF_NO_MEMORY)
    prof__live found;
    if (!p || prof__in_alloc) return; /* (as in prof__alloc_addr) */
    if (prof__live_take(p, &found)) prof__mem_free(p, &found);
    else prof__unknown_free();
#else
    (void)p;
#endif
}
PROF_API void prof_alloc_ex(const void *ptr, size_t bytes, prof_device_type device, int device_index, const char *category) {
#if !defined(PROF_NO_MEMORY)
    static int warned;
    if (prof__in_alloc) return; /* (as in prof__alloc_addr) */
    /* what a record holds (5 bits of type, 6 of index), as
       prof_events_add_memory checks: cut, cuda:64 was added to cuda:0 */
    if ((unsigned)device > 31u || device_index < 0 || device_index > 63) {
        if (!__atomic_exchange_n(&warned, 1, __ATOMIC_RELAXED))
            prof__report(PROF_LOG_ERROR, PROF_E_ARG, "prof_alloc_ex: device %d:%d is not a device type 0-31 and index 0-63: not tracked (said once)", (int)device,
                         device_index);
        return;
    }
    if (ptr) category = prof__cat_intern(category);
#endif
    prof__alloc_addr((uintptr_t)ptr, bytes, device, device_index, category);
}
PROF_API void prof_alloc(const void *ptr, size_t bytes) { prof__alloc_addr((uintptr_t)ptr, bytes, PROF_DEVICE_CPU, 0, NULL); }
PROF_API void prof_dealloc(const void *ptr) { prof__dealloc_addr((uintptr_t)ptr); }
PROF_API void *prof_malloc(size_t bytes) {
    void *p = malloc(bytes);
    prof__alloc_addr((uintptr_t)p, bytes, PROF_DEVICE_CPU, 0, NULL);
    return p;
}
PROF_API void *prof_calloc(size_t count, size_t size) {
    void *p = calloc(count, size);
    prof__alloc_addr((uintptr_t)p, count * size, PROF_DEVICE_CPU, 0, NULL);
    return p;
}
/* Only the old address's value is used after realloc, never the memory;
   gcc 12 cannot tell the two apart. */
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 12
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuse-after-free"
#endif
PROF_API void *prof_realloc(void *ptr, size_t bytes) {
    void *p;
#if !defined(PROF_NO_MEMORY)
    /* The old block leaves the live table before realloc frees it: once
       realloc returns, another thread's malloc may already have the same
       address and have put it in the table, and taking `old` out then
       would take that thread's block (its free later unknown, both sizes
       charged wrong). A failed realloc leaves the block the caller's: it
       goes back, and nothing is recorded. */
    uintptr_t old = (uintptr_t)ptr;
    prof__live was;
    int had = old && !prof__in_alloc && prof__live_take(old, &was);
    p = realloc(ptr, bytes);
    if (!p && bytes != 0) {
        if (had) (void)prof__live_put(old, was.bytes, was.device_type, was.device_index, was.category, was.sess, was.recorded, NULL);
        return p;
    }
    if (had) {
        prof__mem_free(old, &was);
    } else if (old && !prof__in_alloc) {
        prof__unknown_free();
    }
#else
    p = realloc(ptr, bytes);
#endif
    prof__alloc_addr((uintptr_t)p, bytes, PROF_DEVICE_CPU, 0, NULL);
    return p;
}
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 12
#pragma GCC diagnostic pop
#endif
PROF_API void prof_free(void *ptr) {
    prof__dealloc_addr((uintptr_t)ptr);
    free(ptr);
}

/* PyTorch's FLOP formulas: 2 per multiply-add. The product of the factors,
   checked: it stops at INT64_MAX instead of overflowing; a negative factor
   is no shape at all and gives 0 (shown as "--", as a zero is). */
static PROF__NI int64_t prof__flops(const int64_t *f, int n) {
    int64_t r = 2;
    int i;
    for (i = 0; i < n; i++) if (f[i] <= 0) return 0;
    for (i = 0; i < n; i++) if (__builtin_mul_overflow(r, f[i], &r)) return INT64_MAX;
    return r;
}
PROF_API int64_t prof_flops_matmul(int64_t m, int64_t k, int64_t n) {
    int64_t f[3];
    f[0] = m; f[1] = k; f[2] = n;
    return prof__flops(f, 3);
}
PROF_API int64_t prof_flops_addmm(int64_t m, int64_t k, int64_t n) { return prof_flops_matmul(m, k, n); }
PROF_API int64_t prof_flops_bmm(int64_t b, int64_t m, int64_t k, int64_t n) {
    int64_t f[4];
    f[0] = b; f[1] = m; f[2] = k; f[3] = n;
    return prof__flops(f, 4);
}
/* x: [N, C_in, H, W]; w: weight [C_out, C_in/groups, KH, KW] (groups are in
   w's second dimension). 2 * N * H * W * C_out * C_in/groups * KH * KW:
   PyTorch counts H and W of the output, which equal the input's for stride
   1 and "same" padding; for other convolutions pass the output's H and W
   in x. NULL shapes give 0. */
PROF_API int64_t prof_flops_conv2d(const int64_t x[4], const int64_t w[4]) {
    int64_t f[7];
    if (!x || !w || x[1] < 0) return 0; /* x's C_in is not counted (w's C_in/groups is) but must be a size */
    f[0] = x[0]; f[1] = x[2]; f[2] = x[3]; f[3] = w[0]; f[4] = w[1]; f[5] = w[2]; f[6] = w[3];
    return prof__flops(f, 7);
}

/* ----- session metadata ----- */
/* prof_add_metadata's keys (interned in prof__g_meta_keys) and values,
   under prof__g_lock. prof__g_meta_busy is set while they change: the
   child of a fork that caught a change starts with none (what they held is
   left there, not freed), since its lock is made afresh. */
static prof__metas prof__g_meta;
static prof__strtab prof__g_meta_keys;
static prof__arena prof__g_meta_arena;
static int prof__g_meta_busy;
typedef struct prof__kv { char *key, *value; int is_json; } prof__kv; /* (a copy, for prof_stop) */

static PROF__NI void prof__meta_clear_locked(void) {
    (void)__atomic_exchange_n(&prof__g_meta_busy, 1, __ATOMIC_ACQ_REL); /* (the changes after it, the clearing after them) */
    prof__metas_free(&prof__g_meta);
    prof__strtab_free(&prof__g_meta_keys);
    prof__arena_free(&prof__g_meta_arena);
    __atomic_store_n(&prof__g_meta_busy, 0, __ATOMIC_RELEASE);
}
static PROF__NI char *prof__strdup(const char *s) {
    size_t n = strlen(s) + 1;
    char *c = (char *)PROF__MALLOC(n);
    if (c) memcpy(c, s, n);
    return c;
}

PROF_API void prof_set_thread_name(const char *name) {
    prof__tstate *t = prof__self();
    char *copy = NULL, *old;
    /* not from inside prof.h's own allocation (a PROF_MALLOC hook that
       names its thread): the copy would call the hook again, without end */
    if (prof__in_alloc) return;
    /* Attach outside a session too, so the name is known later. */
    if (!t && !(t = prof__attach())) return;
    if (!name) name = "";
    /* Only this thread writes its name: reading it needs no lock, and a
       name set again (PROF_THREAD_NAME in a loop) takes none. The name is
       copied whole, whatever its length. */
    if (t->name ? strcmp(t->name, name) == 0 : !name[0]) return;
    if (name[0] && !(copy = prof__strdup(name))) {
        prof__report(PROF_LOG_ERROR, PROF_E_NOMEM, "prof_set_thread_name: out of memory; the thread keeps its former name");
        return;
    }
    pthread_mutex_lock(&prof__g_lock);
    old = t->name;
    t->name = copy;
    pthread_mutex_unlock(&prof__g_lock);
    PROF__FREE(old);
}


/* A chain of blocks that no thread reads any more: full-size ones go back
   to the ready pool while it holds less than the reserve (reserve_events),
   so threads that come and go do not fault in new blocks each session;
   the rest are freed. */
static PROF__NI void prof__blocks_release(prof__block *b) {
    prof__block *rest = NULL, *next;
    size_t held;
    pthread_mutex_lock(&prof__pf_lock);
    held = (size_t)prof__pf.n_ready * PROF__MAX_BLOCK;
    for (; b; b = next) {
        next = b->next;
        b->next = NULL;
        if (b->cap == PROF__MAX_BLOCK && b->map_bytes && held < prof__pf.keep) {
            prof__pf_push_locked(b);
            held += PROF__MAX_BLOCK;
        } else {
            b->next = rest;
            rest = b;
        }
    }
    pthread_mutex_unlock(&prof__pf_lock);
    for (; rest; rest = next) {
        next = rest->next;
        prof__block_free(rest);
    }
}
static PROF__NI void prof__tstate_reap(prof__tstate *t) {
    prof__blocks_release(t->head);
    t->head = NULL;
    prof__tstate_free(t);
}
/* Whether the thread of a state has ended: its
   id names no thread of this process now. A reused id reads as alive, and
   the state waits for a later sweep. */
static PROF__NI int prof__thread_gone(const prof__tstate *t) {
#if defined(SYS_gettid) && defined(SYS_tgkill)
    const long pid = (long)getpid();
    int saved = errno, gone;
    /* A state made before a fork is tested in no child: its id is a
       thread of the parent, whichever thread it is. The forking thread's
       own, alive in the child, carries the child's pid once the fork
       handler renewed it; without that handler (registered by sessions,
       tracked blocks and categories, not by a state, which may be made
       inside another library's fork handler, where a glibc that holds
       its handlers' lock while they run would deadlock on registering
       one) it keeps the parent's, and stays. */
    if ((int64_t)pid != t->pid) return 0;
    gone = syscall(SYS_tgkill, pid, (long)t->tid, 0) != 0 && errno == ESRCH;
    errno = saved;
    return gone;
#else
    (void)t;
    return 0;
#endif
}
/* Whether no collector will read t's records (prof__g_lock held): bound
   to no session, to an earlier one, or to the last one read already. */
static PROF__NI int prof__tstate_unread_locked(const prof__tstate *t, uint32_t epoch) {
    /* (loaded atomically: a late state's thread, still in its exit
       destructors, binds without the lock) */
    uint32_t bound = __atomic_load_n(&t->bound_epoch, __ATOMIC_RELAXED);
    int live = epoch && bound == epoch;
    return !live && (!bound || bound != prof__g.last_epoch || prof__g.reaped_epoch == prof__g.last_epoch);
}
/* A state whose thread is gone though its key destructor never ran (late:
   only those attached after it did) and whose records no collector will
   read: what prof__thread_exit would have freed at once. Such a state
   attached in a destructor of another key, on glibc's last pass, where
   ours does not run again (a first scope, prof_dealloc or thread name
   there: an allocator's per-thread cleanup), or it is a thread of the
   parent in a fork's child. */
static PROF__NI int prof__gone_locked(const prof__tstate *t, int late_only) {
    return (t->late || !late_only) && !t->dead && t != prof__self() && /* (never the caller's own, whatever its id says) */
           prof__tstate_unread_locked(t, __atomic_load_n(&prof__g_epoch, __ATOMIC_RELAXED)) && prof__thread_gone(t);
}
/* The states that go: exited threads' (dead: 1) and those gone (late
   ones only, with late_only: a test of each of them costs a syscall). */
static PROF__NI void prof__reap_locked(int dead, int late_only) {
    prof__tstate *t, *next;
    for (t = prof__g.threads; t; t = next) {
        next = t->next;
        if (!(dead && t->dead) && !prof__gone_locked(t, late_only)) continue;
        prof__tstate_unlink_locked(t);
        prof__tstate_reap(t);
    }
}
/* Exited threads kept for a collection go, once no collector reads them:
   at the end of prof_stop's reading and before a session's reserve or
   start (a collection kept by a failed prof_stop is gone by then); with
   them the late states of threads gone. (Not every state: a test of each
   is a syscall, 1 us here, and 1,000 threads alive made an empty
   prof_start and prof_stop 25x as slow. The sweep of all of them runs
   when they double: prof__reap_gone_locked.) */
static PROF__NI void prof__reap_dead_locked(void) {
    prof__g.reaped_epoch = prof__g.last_epoch;
    prof__reap_locked(1, 1);
}
/* The late states alone, when another one attaches: a program whose
   threads each end in such a destructor, and which starts no session
   again, holds at most those of the threads exiting. */
static PROF__NI void prof__reap_late_locked(void) { prof__reap_locked(0, 1); }
/* Every state of a thread gone, when the states have doubled since the
   last sweep (prof__attach): states never reached by a destructor then
   stay within twice those kept (threads alive, and records a collector
   has yet to read), whether or not a session starts again, at a test
   per attach amortised. prof_shutdown sweeps them all. */
static PROF__NI void prof__sweep_rearm_locked(void) { prof__g.sweep_at = prof__g.nstates * 2 > 256 ? prof__g.nstates * 2 : 256; }
static PROF__NI void prof__reap_gone_locked(void) {
    prof__reap_locked(0, 0);
    prof__sweep_rearm_locked();
}

/* At its thread's exit, the block it is on shrunk to its records: a copy
   in one allocation with the block's header (map_bytes 0), when the block
   is at most half full. A thread that wrote a few records then holds
   them, not a 12 KiB block, until prof_stop. A PROF_SCOPE_DYN record
   names its NAME extension by address, and names only records before it:
   those in the block move with it (one in an earlier block stays put).
   NULL: nothing to shrink (no block, mostly full, out of memory, or one
   the prefault thread may be faulting in: it has an owner, see
   prof__pf_take). Only the owner writes its records, so the copy needs no
   lock; the caller swaps it in under prof__g_lock if the session is still
   the thread's. */
static PROF__NI prof__block *prof__block_compact(prof__tstate *t) {
    prof__block *b = t->cur, *nb;
    prof__rec *r;
    char *mem;
    size_t used, i;
    uintptr_t lo, hi;
    if (!b || b->owner || !b->map_bytes || t->hot.pos < b->recs || t->hot.pos > b->recs + b->cap) return NULL;
    used = (size_t)(t->hot.pos - b->recs);
    if (used * 2 > b->cap || !(mem = (char *)PROF__MALLOC(sizeof *nb + used * sizeof(prof__rec)))) return NULL;
    nb = (prof__block *)(void *)mem;
    *nb = *b;
    nb->next = NULL;
    nb->cap = nb->limit = nb->used = used;
    nb->map_bytes = nb->faulted = 0;
    nb->recs = r = (prof__rec *)(void *)(mem + sizeof *nb); /* (sizeof *nb: a multiple of 8) */
    if (used) memcpy(r, b->recs, used * sizeof *r);
    lo = (uintptr_t)b->recs;
    hi = (uintptr_t)(b->recs + used);
    for (i = 0; i < used; i++) {
        uintptr_t w = (uintptr_t)r[i].site, at = w & ~(uintptr_t)7u;
        if ((w & 7u) == PROF__TAG_EXT && ((w >> 3) & 31u) == PROF__EXT_NAME) i += w >> 8; /* its name's bytes */
        else if ((w & 7u) == PROF__TAG_DYN && at >= lo && at < hi) r[i].site = (const void *)((uintptr_t)r + (w - lo));
    }
    return nb;
}

/* A thread exits (its pthread key's destructor). What it holds until
   prof_stop is its records and little more:
   - the PROF_BEGIN stack and the DYN names' table go at once (only their
     owner reads them; prof_stop names the open ranges of its own thread
     only); the DYN names stay, records point into dyn_arena;
   - bound to the session that records: its unused shares of the cap go
     back, it no longer counts among the threads that split the cap, the
     blocks past the one it is on (room from earlier sessions, holding
     nothing of this one) go, and that block shrinks to its records
     (prof__block_compact) or, where the prefault thread may follow it,
     gives back its pages past them (without a reserve). Under
     prof__g_lock, which prof_stop holds from ending the session to
     reading the records: either the snapshot sees the swap whole, or the
     session has ended and nothing is swapped (a collection kept by a
     failed prof_stop reads the blocks as they were);
   - bound to no session whose records a collector may still read (an
     earlier one, one read already, none): the state and its blocks go
     now. A state bound to the last session while it is being collected
     stays, dead, until the collection has read it. */
/* Whether prof__c_threads would count state t: it entered, dropped or
   recorded anything (its thread exiting: the counts are final). */
static PROF__NI int prof__state_counts(const prof__tstate *t) {
    const prof__block *b;
    int k;
    if (t->scopes_before + (t->hot.gate.word - t->gate_base) + t->refused || t->dropped || t->unbalanced) return 1;
    for (k = 0; k < 4; k++)
        if (t->xdropped[k]) return 1;
    for (b = t->cur ? t->head : NULL; b; b = b->next) { /* as prof_stop reads them: head to cur (an earlier
                                                          session's blocks, kept, past it; none while cur is NULL) */
        if (b == t->cur) return t->hot.pos > b->recs;
        if (b->used != 0) return 1;
    }
    return 0;
}
/* prof__thread_exit, prof__g_lock held, for a thread bound to the
   recording session that has no block (so no record): its counts go to
   prof__g.exited, so that its state can go at once (threads that come
   and go past the cap would each keep ~400 bytes until prof_stop).
   0: kept as it is (CUPTI joins its API records by the threads' ids,
   which the snapshot takes from the states). new_thread: the state
   counts and its thread was not counted yet (prof__counted_epoch). */
static PROF__NI int prof__exit_counted_locked(prof__tstate *t, uint32_t epoch, int new_thread) {
#if defined(PROF_CUPTI)
    (void)t; (void)epoch; (void)new_thread;
    return 0;
#else
    uint64_t entered = t->scopes_before + (t->hot.gate.word - t->gate_base) + t->refused;
    int k;
    if (prof__g.exited.epoch != epoch) {
        memset(&prof__g.exited, 0, sizeof prof__g.exited);
        prof__g.exited.epoch = epoch;
    }
    for (k = 0; k < 4; k++) prof__g.exited.xdropped[k] += t->xdropped[k];
    prof__g.exited.threads += (uint64_t)new_thread; /* as prof__c_threads counts one */
    prof__g.exited.entered += entered;
    prof__g.exited.dropped += t->dropped;
    prof__g.exited.dropped_nomem += t->dropped_nomem;
    prof__g.exited.unbalanced += t->unbalanced;
    return 1;
#endif
}
/* An exiting thread's PROF_BEGIN ranges still open in the recording
   session, kept for prof_stop to name (prof__c_name_open). */
static PROF__NI void prof__exited_open_keep(prof__tstate *t) {
    prof__open_sites *o = &prof__g.exited_open;
    uint32_t epoch = __atomic_load_n(&prof__g_epoch, __ATOMIC_RELAXED), j;
    int32_t k;
    if (!epoch || t->bound_epoch != epoch || !t->n_open) return;
    pthread_mutex_lock(&prof__g_lock);
    if (o->epoch != epoch) { /* an earlier session's, not collected */
        prof__open_sites_clear(o);
        o->epoch = epoch;
    }
    for (k = 0; k < t->n_open; k++) {
        const prof_site *site = t->open[k].site;
        if (t->open[k].epoch != epoch || site == &prof__lost_site) continue;
        for (j = 0; j < o->n && !(o->s[j].line == site->line && o->s[j].file == site->file && strcmp(o->s[j].name, site->name) == 0); j++) {}
        if (j < o->n) {
            o->s[j].count++;
        } else if (o->n < PROF__OPEN_SITES && (o->s[j].name = (char *)PROF__MALLOC(strlen(site->name) + 1)) != NULL) {
            memcpy(o->s[j].name, site->name, strlen(site->name) + 1);
            o->s[j].file = site->file;
            o->s[j].line = site->line;
            o->s[j].count = 1;
            o->n++;
        } else {
            o->more++;
        }
    }
    pthread_mutex_unlock(&prof__g_lock);
}
static PROF__NI void prof__thread_exit(void *p) {
    prof__tstate *t = (prof__tstate *)p;
    prof__block *nb, *cur, *gone = NULL, *rest = NULL;
    uint32_t epoch;
    int live, now;
    prof__tls = &prof__g_unattached; /* a later scope in another TLS destructor starts afresh */
    prof__exits_here++;
    prof__exited_open_keep(t);
    PROF__FREE(t->open);
    t->open = NULL;
    t->n_open = t->cap_open = 0;
    t->n_lost = 0;
    PROF__FREE(t->dyn_tab);
    t->dyn_tab = NULL;
    t->dyn_cap = t->dyn_n = 0;
    nb = t->bound_epoch && t->bound_epoch == __atomic_load_n(&prof__g_epoch, __ATOMIC_RELAXED) ? prof__block_compact(t) : NULL;
    if (nb) PROF__TEST_HOOK(PROF__HOOK_EXIT_COPIED);
    pthread_mutex_lock(&prof__g_lock);
    epoch = __atomic_load_n(&prof__g_epoch, __ATOMIC_RELAXED);
    live = epoch && t->bound_epoch == epoch;
    now = prof__tstate_unread_locked(t, epoch);
    if (live) {
        size_t keep;
        int counts, new_thread;
        uint64_t left = t->hot.gate.half[PROF__GATE_HI] == t->gate_epoch ? t->gate_end - t->hot.gate.word : 0;
        __atomic_fetch_add(&prof__g.budget, (int64_t)(left + t->xcredits), __ATOMIC_RELAXED);
        __atomic_fetch_sub(&prof__g.held, (int64_t)t->held_gate + (int64_t)t->held_x, __ATOMIC_RELAXED);
        __atomic_fetch_sub(&prof__g.nbound, 1u, __ATOMIC_RELAXED);
        t->gate_end = t->hot.gate.word;
        t->xcredits = 0;
        t->held_gate = t->held_x = 0;
        /* a thread counts once, whichever of its states (a late one too)
           exit; kept, prof__c_threads counts this one */
        counts = prof__state_counts(t);
        new_thread = counts && prof__counted_epoch != epoch;
        if (counts) prof__counted_epoch = epoch;
        if (!t->head && prof__exit_counted_locked(t, epoch, new_thread)) { /* no block, no record: its counts are the session's now */
            now = 1;
        } else {
            pthread_mutex_lock(&prof__pf_lock);
            keep = prof__pf.keep;
            pthread_mutex_unlock(&prof__pf_lock);
            cur = t->cur;
            if (cur) {
                rest = cur->next;
                PROF__STORE(&cur->next, (prof__block *)NULL);
            } else {
                rest = t->head;
                PROF__STORE(&t->head, (prof__block *)NULL);
            }
            if (nb && keep && cur->cap == PROF__MAX_BLOCK) { /* a reserve's block: back to the pool at the next reap */
                gone = nb;
                nb = NULL;
            }
            if (nb) {
                prof__block **link = &t->head;
                while (*link != cur) link = &(*link)->next;
                PROF__STORE(link, nb);
                PROF__STORE(&t->cur, nb);
                PROF__STORE(&t->hot.pos, nb->recs + nb->cap);
                t->hot.end = nb->recs + nb->cap;
                gone = cur;
            } else if (cur && !keep && t->hot.pos >= cur->recs && t->hot.pos <= cur->recs + cur->cap) {
                prof__block_trim(cur, (size_t)(t->hot.pos - cur->recs));
            }
        }
    } else {
        gone = nb; /* the session ended meanwhile: the blocks stay as the snapshot saw them */
    }
    if (now) prof__tstate_unlink_locked(t);
    else t->dead = 1;
    pthread_mutex_unlock(&prof__g_lock);
    if (gone) prof__block_free(gone);
    if (rest) prof__blocks_release(rest);
    if (now) prof__tstate_reap(t);
}

static PROF__NI int prof__shutdown_kept(void); /* (session control) */
static PROF__NI void prof__shutdown_done(int locked);
static int prof__session_active(void); /* (>>collect: session control) */
PROF_API void prof_shutdown(void) {
    /* Frees the calling thread's buffers and those of exited threads. Other
       live threads keep theirs: a scope they opened may still write into it. */
    prof__tstate *t, *next;
    /* first: a kept collection reads those buffers; and prof_stop's lock
       held to the end, so that no prof_stop keeps one meanwhile (no
       session then, yet its records are in those buffers) */
    int locked = prof__shutdown_kept(), recording;
    if (locked < 0) return; /* from the log callback inside a collection: refused */
    PROF__TEST_HOOK(PROF__HOOK_SHUTDOWN);
    pthread_mutex_lock(&prof__g_lock);
    recording = __atomic_load_n(&prof__g_epoch, __ATOMIC_RELAXED) != 0;
    if (!recording) {
        prof__g.reaped_epoch = prof__g.last_epoch; /* no collection left: threads exiting from now go at once */
        for (t = prof__g.threads; t; t = next) {
            next = t->next;
            if (t->dead || prof__gone_locked(t, 0)) {
                prof__tstate_unlink_locked(t);
                prof__tstate_free(t);
            } else if (t == prof__self()) {
                /* a scope of this thread may still be open: keep the state,
                   drop the blocks; its late close then finds no room. The
                   state lets go of them before they are freed: a child
                   forked meanwhile (by another thread) keeps the state,
                   and must not find freed blocks in it. */
                prof__block *b = t->head;
                t->head = t->cur = NULL;
                t->hot.pos = t->hot.end = NULL;
                t->hot.gate.word = 0;
                t->bound_epoch = 0;
                while (b) { prof__block *n = b->next; prof__block_free(b); b = n; }
                /* and its long run-time names, unless an open PROF_BEGIN
                   range holds one (prof_stop names it): a scope still open
                   with one began before any later session, whose prof_stop
                   leaves its record out without reading its site */
                if (t->n_open == 0) {
                    prof__arena_free(&t->dyn_arena);
                    prof__arena_free(&t->dyn_arena_old);
                    PROF__FREE(t->dyn_tab);
                    t->dyn_tab = NULL;
                    t->dyn_cap = t->dyn_n = 0;
                }
            }
        }
        prof__sweep_rearm_locked(); /* all swept: counted from here */
        prof__pf_free_ready();
    }
    /* the keys of a session that ended (prof_start would clear them) */
    if (!prof__session_active()) prof__meta_clear_locked();
    if (!recording) prof__open_sites_clear(&prof__g.exited_open); /* (a thread that exited as a stop began) */
    pthread_mutex_unlock(&prof__g_lock);
    if (!recording) prof__live_trim(); /* (a shard's lock: taken alone) */
    prof__shutdown_done(locked);
    if (!recording) prof__heap_trim();
    /* (never in on_trace_ready, where locked is 0: the next window has not begun) */
    if (recording && locked) prof__report(PROF_LOG_WARNING, PROF_E_STATE, "prof_shutdown: a session is recording, so nothing was freed (its buffers are in use); call prof_stop first");
}

/* >>collect ==============================================================*/
/* prof_stop: the threads' records become an event list. The collector
   (prof__collector, below) runs one function per phase; the record format
   is defined with the macros (PROF__TAG_*) and the recorder's extension
   writers (PROF__EXT_*). */
typedef struct prof__key { int64_t start, end; uint32_t thread, site, extra; uint8_t scope, flags, device_type; } prof__key;
#if defined(PROF_CUPTI)
/* A thread CUPTI may name: its ids, the tick at which the cap refused it
   (0: never; prof__cug_cap), and when it bound to the session (a later
   state of the same id: prof__cug_past_cap). */
typedef struct prof__cu_thr { uint64_t pthread_id, tid, capped_tick, bind_tick; } prof__cu_thr;
struct prof__cubuf; /* >>cupti: a buffer CUPTI filled */
static void prof__cupti_start(unsigned activities);
static void prof__cupti_stop(void);
static int prof__cupti_active(void);
static void prof__cupti_forget_done(void);
static int prof__cupti_gather(prof_events *e, prof__key **keys, size_t *nkeys, size_t *capkeys, const prof__cu_thr *thr, size_t nthr,
                              int64_t mono_start, int64_t mono_stop, size_t room, struct prof__cubuf **kept);
static void prof__cupti_bufs_free(struct prof__cubuf *list);
static int prof__cupti_correlate(prof_events *e);
static void prof__cupti_atfork(int dir);
#else
static void prof__cupti_atfork(int dir) { (void)dir; }
#endif

typedef struct prof__snap { prof__tstate *t; prof__rec *pos; prof__block *cur; size_t kbeg, kend, nrec; uint64_t entered, dropped, other, began_late; } prof__snap;

/* Events in PyTorch's order, (start, -end), without a general sort: a
   thread's scopes are decoded straight into the list in the order they
   ended (children before their parent), and one pass with a stack turns
   that into start order in place, each parent put in front of the subtree
   it closes. The threads' runs and the few other events (async ranges,
   CUDA) are then merged by the one sort (prof__msort_u32), which finds the
   runs by itself. Output that is not properly nested (clock oddities) is
   caught and sorted normally. */
static PROF__NI int prof__ev_order_less(const void *ctx, uint32_t a, uint32_t b) {
    const prof__ev *x = (const prof__ev *)ctx + a, *y = (const prof__ev *)ctx + b;
    if (x->start != y->start) return x->start < y->start;
    if (x->end != y->end) return x->end > y->end;
    return x->thread < y->thread;
}
/* idx's neighbouring runs b[0..nb) (run r: b[r] to b[r+1]; b[nb] = n),
   each already in prof__ev_order_less's order, merged pairwise with that
   comparison inline: the threads' runs, log2(runs) passes of a few
   instructions an event (the general sort costs ~100: its run scan and a
   call per comparison). Stable, so its result is the sort's. tmp: room
   for n. */
static PROF__NI void prof__ev_merge_runs(const prof__ev *ev, uint32_t *a, uint32_t *tmp, const size_t *b, size_t nb) {
    uint32_t *src = a, *dst = tmp;
    size_t n = b[nb], w;
    for (w = 1; w < nb; w *= 2) { /* merged runs of w runs each, in pairs (the last may have no partner: copied) */
        size_t r;
        for (r = 0; r < nb; r += 2 * w) {
            size_t lo = b[r], mid = b[r + w < nb ? r + w : nb], hi = b[r + 2 * w < nb ? r + 2 * w : nb], p = lo, q = mid, k = lo;
            while (p < mid && q < hi) {
                const prof__ev *x = ev + src[q], *y = ev + src[p];
                int right = x->start != y->start ? x->start < y->start
                          : x->end != y->end     ? x->end > y->end
                                                 : x->thread < y->thread;
                dst[k++] = right ? src[q++] : src[p++];
            }
            if (p < mid) memcpy(dst + k, src + p, (mid - p) * sizeof *a);
            else memcpy(dst + k, src + q, (hi - q) * sizeof *a);
        }
        { uint32_t *t = src; src = dst; dst = t; }
    }
    if (src != a) memcpy(a, src, n * sizeof *a);
}
/* ev[i] = ev[idx[i]] for every i, in place, one cycle at a time (idx is
   spent: each entry ends as its own index). */
static PROF__NI void prof__ev_gather(prof__ev *ev, uint32_t *idx, size_t n) {
    size_t i, j, k;
    prof__ev t;
    for (i = 0; i < n; i++) {
        if (idx[i] == i) continue;
        t = ev[i];
        for (j = i;; j = k) {
            k = idx[j];
            idx[j] = (uint32_t)j;
            if (k == i) { ev[j] = t; break; }
            ev[j] = ev[k];
        }
    }
}
/* The same as prof__ev_gather, out of place: *evp becomes a new array with
   ev[idx[i]] at i. Followed in place, the permutation of interleaved runs
   (threads recording at once) jumps across the whole array, a cache miss
   an event (half of prof_stop's time on two threads); copied out, the runs
   are read front to back. Behind those reads the old array's pages go back
   to the system (only memory from libc's malloc, where madvise is sure to
   be harmless), so the list's memory does not double: what is copied out
   is given back, a run's pages once the run's events before them are all
   taken (marked PROF__F_TAKEN in the old array). runs: nruns triples, each
   a run's first event not yet taken, its end, and the byte offset up to
   which its pages are given back (begin * sizeof(prof__ev) at first).
   0 = not done (no room, or no way to give pages back): the caller
   gathers in place. */
#define PROF__MERGE_OUT_MIN ((size_t)4 << 20) /* bytes: below, the array sits in the caches */
static PROF__NI int prof__ev_merge_out(prof__ev **evp, size_t cap, const uint32_t *idx, size_t n, size_t *runs, size_t nruns) {
#if defined(PROF__LIBC_ALLOC) && defined(MADV_DONTNEED)
    prof__ev *old = *evp, *nv;
    size_t i, r;
    long page = sysconf(_SC_PAGESIZE);
    uintptr_t mask = page > 0 ? (uintptr_t)page - 1 : 4095u, base = (uintptr_t)old;
    if (n * sizeof *old < PROF__MERGE_OUT_MIN || !(nv = (prof__ev *)prof__malloc_huge(cap, sizeof *nv))) return 0;
    for (i = 0; i < n; i++) {
        nv[i] = old[idx[i]];
        old[idx[i]].flags = (uint16_t)(old[idx[i]].flags | PROF__F_TAKEN);
        if ((i & 16383u) != 16383u) continue;
        for (r = 0; r < nruns; r++) {
            size_t *run = runs + 3 * r;
            uintptr_t lo, hi;
            while (run[0] < run[1] && (old[run[0]].flags & PROF__F_TAKEN)) run[0]++;
            lo = (base + run[2] + mask) & ~mask;
            hi = (uintptr_t)(old + run[0]) & ~mask;
            if (hi >= lo + ((uintptr_t)64 << 10)) {
                madvise((void *)lo, hi - lo, MADV_DONTNEED); /* failure only keeps the pages */
                run[2] = hi - base;
            }
        }
    }
    PROF__FREE(old);
    *evp = nv;
    return 1;
#else
    (void)evp; (void)cap; (void)idx; (void)n; (void)runs; (void)nruns;
    return 0;
#endif
}
/* ev[j] takes ev[ev[j].parent] for every j (the parent field holds the
   source until the events are linked), in place, one cycle at a time,
   with PROF__F_PLACED on those done (prof__c_link clears it): no array. */
static PROF__NI void prof__ev_gather_inplace(prof__ev *ev, size_t n) {
    size_t i, j, k;
    prof__ev t;
    for (i = 0; i < n; i++) {
        if ((ev[i].flags & PROF__F_PLACED) || ev[i].parent == (int32_t)i) continue;
        t = ev[i];
        for (j = i;; j = k) {
            k = (size_t)ev[j].parent;
            ev[j] = k == i ? t : ev[k];
            ev[j].flags = (uint16_t)(ev[j].flags | PROF__F_PLACED);
            if (k == i) break;
        }
    }
}
/* One thread's scopes, ev[0..n) in end order, put in start order in place.
   The events' own link fields hold the pass's lists (next_sibling) and
   then each place's source (parent), so it needs no array of its own;
   *stk, *capstk: the pass's stack, grown as deep as the scopes nest
   (triples: an event, then head and tail of its subtree's list). Returns
   1 if the result is in order, 0 if the input was not nested, -1 when out
   of memory. */
static PROF__NI int prof__run_preorder(prof__ev *ev, size_t n, uint32_t **stk, size_t *capstk) {
    size_t top = 0, k, w = 0;
    uint32_t *s = *stk;
    int32_t c;
    for (k = 0; k < n; k++) {
        size_t p = top, j;
        uint32_t tail = (uint32_t)k;
        int64_t start = ev[k].start;
        ev[k].next_sibling = -1;
        while (p > 0 && ev[s[3 * (p - 1)]].start >= start) p--;
        for (j = p; j < top; j++) { /* children, oldest first, follow their parent */
            ev[tail].next_sibling = (int32_t)s[3 * j + 1];
            tail = s[3 * j + 2];
        }
        top = p;
        if (3 * top + 3 > *capstk) {
            if (!prof__grow((void *)stk, capstk, 3 * top + 3, sizeof **stk)) return -1;
            s = *stk;
        }
        s[3 * top] = (uint32_t)k;
        s[3 * top + 1] = (uint32_t)k;
        s[3 * top + 2] = tail;
        top++;
    }
    /* the lists, oldest root first, are the start order */
    for (k = 0; k < top; k++)
        for (c = (int32_t)s[3 * k + 1]; c >= 0; c = ev[c].next_sibling) ev[w++].parent = c;
    prof__ev_gather_inplace(ev, n);
    for (k = 1; k < n; k++)
        if (ev[k].start < ev[k - 1].start || (ev[k].start == ev[k - 1].start && ev[k].end > ev[k - 1].end)) return 0;
    return 1;
}

/* One thread's scopes, ev[0..n) in end order, put in start order with
   their links, when the links the stack pass finds are the ones
   _populate_cpu_children would (prof__c_link's rule), checked as they are
   found. Three passes, no array but the stack:
   - forward (end order): each record takes the stack's entries that began
     at or after it as its children (as prof__run_preorder); its subtree is
     then ev[lo..k], kept in first_child, and each child's parent (its end
     order index) in parent;
   - backward: a parent comes after its children in end order, so going
     back each event finds its parent done: its depth is its parent's + 1
     and its place in start order is lo + depth (a subtree takes the same
     places in both orders, each ancestor shifted by one); the final links
     follow (first child: the next place; next sibling: the place after
     its subtree);
   - each event moved to its place, one cycle at a time.
   The checks, per link (PyTorch's stack keeps a parent p for a child v
   while v.start < p.end and v.end <= p.end, and drops an earlier sibling s
   and its subtree when v.start >= s.end or v.end > s.end), and per
   neighbour in start order ((start, -end) order: a parent before its
   first child, the last event of a subtree before the next sibling).
   Returns 1 when done, 0 if a check failed (nothing moved, the link fields
   used: the caller orders the run as before and links it), -1 when out of
   memory. *seen gets PROF__T_* as prof__c_link gives them. */
/* A stack entry is 12 bytes, as prof__run_preorder's: a flat loop keeps one
   per event until the pass ends (40-byte entries with the times copied in
   made prof_stop's peak 28 B an event higher). k: the event; lo: its
   subtree's first end-order index; u: its subtree's last event in start
   order (k itself while a leaf). The times are read from the events, which
   this pass does not move until its last step. */
typedef struct prof__place_ent { uint32_t k, lo, u; } prof__place_ent;
static __inline__ __attribute__((__always_inline__)) PROF__NI int prof__place_order_ok(const prof__ev *ev, const prof__place_ent *s, const prof__place_ent *v) {
    /* v follows sibling s: PyTorch's stack drops s (and its subtree), and
       the last event of s's subtree comes before v in (start, -end) order */
    const prof__ev *se = &ev[s->k], *ve = &ev[v->k], *su = &ev[s->u];
    return (ve->start >= se->end || ve->end > se->end) && (su->start < ve->start || (su->start == ve->start && su->end >= ve->end));
}
static PROF__NI int prof__run_place(const prof_events *e, prof__ev *ev, size_t n, prof__place_ent **stk, size_t *capstk, unsigned *seen) {
    size_t top = 0, k, i;
    prof__place_ent *s = *stk;
    int32_t node_id;
    unsigned f = 0;
    if (!n) return 1;
    for (k = 0; k < n; k++) {
        int64_t start = ev[k].start, end = ev[k].end;
        size_t p = top;
        prof__place_ent *t;
        uint32_t lo = (uint32_t)k;
        /* its children: the entries that began at or after it, checked
           as they are popped (newest first: the checks do not depend on
           the order) */
        for (; p > 0; p--) {
            prof__ev *ch = &ev[s[p - 1].k];
            if (ch->start < start) break;
            if (!(ch->start < end && ch->end <= end)) return 0;
            if (p < top && !prof__place_order_ok(ev, &s[p - 1], &s[p])) return 0;
            ch->parent = (int32_t)k;
        }
        if (p < top) lo = s[p].lo;
        if (ev[k].scope == 1) f |= PROF__T_BACKWARD;
        ev[k].parent = -1;
        ev[k].first_child = (int32_t)lo;
        if (top == p && p + 1 > *capstk) { /* (children popped: room already) */
            if (!prof__grow((void *)stk, capstk, p + 1, sizeof **stk)) return -1;
            s = *stk;
        }
        t = &s[p];
        t->u = p < top ? s[top - 1].u : (uint32_t)k; /* read before t (s[p]) is written */
        t->k = (uint32_t)k;
        t->lo = lo;
        top = p + 1;
    }
    for (k = 1; k < top; k++) /* the roots */
        if (!prof__place_order_ok(ev, &s[k - 1], &s[k])) return 0;
    /* backward: depth in node_id, final links */
    for (i = n; i-- > 0;) {
        prof__ev *v = &ev[i];
        int32_t p = v->parent, lo = v->first_child, depth = 0, prep = -1, pre;
        if (p >= 0) {
            prep = ev[p].first_child - 1; /* p has a child: its first is at its place + 1 */
            depth = ev[p].node_id + 1;
        }
        pre = lo + depth;
        if (p >= 0 && pre == prep + 1 && prof__same_name(e, &ev[p], v)) f |= PROF__T_DUPS;
        v->parent = prep;
        v->first_child = lo < (int32_t)i ? pre + 1 : -1;
        v->next_sibling = p >= 0 && (int32_t)i + 1 < p ? pre + (int32_t)i - lo + 1 : -1;
        v->node_id = depth;
    }
    /* each to its place: an event not moved yet is at its end-order index */
    node_id = e->with_node_id ? e->node_id : -1;
    for (i = 0; i < n; i++) {
        prof__ev t;
        size_t d, from = i;
        if (ev[i].flags & PROF__F_PLACED) { ev[i].flags = (uint16_t)(ev[i].flags & ~PROF__F_PLACED); continue; }
        t = ev[i];
        for (;;) {
            prof__ev u;
            d = t.first_child >= 0 ? (size_t)t.first_child - 1 : from + (size_t)t.node_id;
            t.node_id = node_id;
            if (d == i) { ev[i] = t; break; }
            u = ev[d];
            t.flags = (uint16_t)(t.flags | PROF__F_PLACED);
            ev[d] = t;
            t = u;
            from = d;
        }
    }
    *seen |= f;
    return 1;
}

/* Visits the records a thread published before the snapshot: the blocks
   before the snapshot's current one are complete (their `used` is final);
   the current one holds records up to pos. Comparing addresses alone could
   not tell the end of one block from the start of another mapped next to it. */
static PROF__NI size_t prof__snap_count(const prof__snap *s, prof__block *b) {
    if (b != s->cur) return PROF__LOAD(&b->used);
    if (s->pos >= b->recs && s->pos <= b->recs + PROF__LOAD(&b->limit)) return (size_t)(s->pos - b->recs);
    return 0;
}
/* With `c`, the iterator hands each block it moves on to to
   prof__c_block_done (which may free those before it: the owner is past
   them). It never moves inside a record's handling: a block's records are
   done when it is called. */
struct prof__collector;
static PROF__NI void prof__c_block_done(struct prof__collector *c, prof__tstate *t, prof__block *next);
typedef struct prof__rec_iter { const prof__snap *s; prof__block *b; size_t i, n; struct prof__collector *c; } prof__rec_iter;
/* at the start of block b (the snapshot's first: its thread's head) */
static PROF__NI void prof__rec_iter_init(prof__rec_iter *it, const prof__snap *s, prof__block *b, struct prof__collector *c) {
    it->s = s;
    it->c = c;
    it->b = b;
    it->i = 0;
    it->n = it->b ? prof__snap_count(s, it->b) : 0;
}
static PROF__NI const prof__rec *prof__rec_next(prof__rec_iter *it) {
    while (it->b) {
        if (it->i < it->n) return &it->b->recs[it->i++];
        if (it->b == it->s->cur) { it->b = NULL; break; }
        it->b = PROF__LOAD(&it->b->next);
        if (it->c && it->b) prof__c_block_done(it->c, it->s->t, it->b);
        it->i = 0;
        it->n = it->b ? prof__snap_count(it->s, it->b) : 0;
    }
    return NULL;
}
/* the loops' fast path: the next record of the current block, inline */
static __inline__ PROF__NI const prof__rec *prof__rec_get(prof__rec_iter *it) {
    return it->i < it->n ? &it->b->recs[it->i++] : prof__rec_next(it);
}
/* Passes over the raw records that follow a NAME extension (written with
   it in one block: prof__slots). */
static PROF__NI void prof__rec_skip_name(prof__rec_iter *it, const prof__rec *r) {
    size_t k = (size_t)((uintptr_t)r->site >> 8);
    it->i += k < it->n - it->i ? k : it->n - it->i;
}
static PROF__NI int prof__is_name_ext(uintptr_t word) {
    return (word & 7u) == PROF__TAG_EXT && ((word >> 3) & 31u) == PROF__EXT_NAME;
}

/* What extension records said about the record that follows them. */
typedef struct prof__pending {
    int any;                      /* an extension arrived since the last record */
    int64_t shapes[64];
    int nshapes, want_shapes;
    int has_flops, has_over, has_ag, has_mem;
    int64_t flops;
    const char *over;
    unsigned ag_aux;
    int64_t seq;
    uint64_t fwd;
    uint64_t mem_ptr;
    const char *mem_cat;
    int data_kind, data_left;     /* DATA records still owed to a header */
} prof__pending;

/* An async begin or end. They pair by time per id after both passes: an
   id may be reused once its range ended (an object's address, say).
   thread: the recording thread's index (a range takes its begin's). */
typedef struct prof__span { int64_t from, to; } prof__span; /* ns: a lost scope's (prof__c_drop_lost) */
typedef struct prof__async_rec { uint64_t id; int64_t ts; uint32_t thread, site; int is_end; } prof__async_rec;
static PROF__NI int prof__async_less(const void *ctx, uint32_t ia, uint32_t ib) {
    const prof__async_rec *a = (const prof__async_rec *)ctx + ia, *b = (const prof__async_rec *)ctx + ib;
    if (a->id != b->id) return a->id < b->id;
    return a->ts < b->ts; /* at one tick as they came (the sort is stable): each thread's in its order */
}
/* The first record after ord[j] at its id and tick that is an end (or a
   begin) of another thread than ord[j]'s and its thread's first record of
   the id from j on (so moving it to j keeps each thread's order: a
   thread's begin and end at one tick stay in that order); n if none, or
   past 256 records or 16 threads at the tick. */
static PROF__NI size_t prof__async_tick_find(const prof__async_rec *as, const uint32_t *ord, size_t j, size_t n, int is_end) {
    const prof__async_rec *x = &as[ord[j]];
    uint32_t seen[16]; /* threads with a record of the id from j on */
    size_t b, t, nseen = 1;
    seen[0] = x->thread;
    for (b = j + 1; b < n && b - j <= 256 && as[ord[b]].id == x->id && as[ord[b]].ts == x->ts; b++) {
        const prof__async_rec *y = &as[ord[b]];
        for (t = 0; t < nseen && seen[t] != y->thread; t++) {}
        if (t < nseen) continue; /* not its thread's first: it stays behind that one */
        if (y->is_end == is_end) return b;
        if (nseen == sizeof seen / sizeof *seen) return n; /* (an id's records at one tick: a few) */
        seen[nseen++] = y->thread;
    }
    return n;
}
static PROF__NI int prof__async_push(prof__async_rec **arr, size_t *n, size_t *cap, uint64_t id, int64_t ts, uint32_t thread, uint32_t site, int is_end) {
    prof__async_rec *a;
    if (!prof__grow((void *)arr, cap, *n + 1, sizeof **arr)) return 0;
    a = &(*arr)[*n];
    a->id = id;
    a->ts = ts;
    a->thread = thread;
    a->site = site;
    a->is_end = is_end;
    (*n)++;
    return 1;
}

static PROF__NI int prof__is_step_name(const char *n) { return strncmp(n, "ProfilerStep#", 13) == 0; }
static const char prof__step_func[] = "prof_step"; /* the func of ProfilerStep#N's site (prof__step_scope_close) */

/* Forget pending extensions; the common case (none) costs one test. */
static PROF__NI void prof__pending_reset(prof__pending *pd) {
    if (!pd->any) return;
    pd->any = 0;
    pd->nshapes = pd->want_shapes = 0;
    pd->has_flops = pd->has_over = pd->has_ag = pd->has_mem = 0;
    pd->data_left = 0;
}

/* The collector: prof_stop's state, one phase per function, in order:
   end recording, snapshot the threads, reserve the list, decode records
   into it (sites and names, extensions, native stacks, memory, marks),
   pair async ranges, release the records read and settle the counts, join
   CUPTI's records, order the events in place, link them, warn, then the
   tree (which attaches the stacks) and memory. Every phase returns 0 or
   -1 (out of memory) and leaves what it failed on as it found it, so a
   failed prof_stop loses nothing: the collector is kept (prof__c_kept),
   `phase` says which phases are done, and the next prof_stop resumes
   there: the decode from its mark (prof__c_mark: the blocks it read are
   freed as it goes, so the list takes their memory), the phases after it
   from what the list holds. prof__end_recording frees everything in one
   place (prof__c_free). */
enum { PROF__C_NONE, PROF__C_ENDED, PROF__C_SNAPPED, PROF__C_READ, PROF__C_CUDA, PROF__C_ORDERED, PROF__C_LINKED, PROF__C_TREE, PROF__C_JOINED };
typedef struct prof__shape_ent { uint32_t off, n; int bad; const char *repr; } prof__shape_ent;
typedef struct prof__shape_cache_ent { int n, bad; int64_t vals[8]; const char *repr; } prof__shape_cache_ent;
/* kind: 1 FLOPs, 2 a forward thread; flops, fwd 0 without */
typedef struct prof__ex_cache_ent { uint32_t idx; int bad, n; unsigned kind; int64_t vals[8], flops; uint64_t fwd; } prof__ex_cache_ent;
typedef struct prof__dyn_pend { const prof__rec *hdr; uint32_t site; const char *name; } prof__dyn_pend;
/* Where the thread being decoded resumes after a failure: the first block
   not freed, and what the decode had made before it. Extras, sites,
   strings and shapes made after it are left (kept, found again: the same
   indices), the rest is cut back. */
typedef struct prof__c_mark {
    prof__block *b;
    size_t n, nmem, ninst, nasync, naddrs, nrec, ndpend, dpend_done;
    uint64_t began_late;
    prof_stats stats;
    prof__pending pd;
} prof__c_mark;
typedef struct prof__collector {
    prof_events *e;
    int phase;                   /* PROF__C_*: the phases done */
    prof_stats st;               /* the snapshot's counts, each attempt's list's first stats */
    uint32_t epoch;
    uint64_t tick_stop;          /* records that end after it were open at the stop */
    uint64_t scope_from;         /* the thread being decoded: scopes that began
                                    before it belong to an earlier session */
    unsigned features;
    const char *step_name;       /* interned "ProfilerStep*" */
    prof__snap *snaps;           /* the threads bound to the session */
    size_t nsnap, capsnap;
    prof__key *xkeys;            /* async ranges and CUDA records (the
                                    scopes go straight into the list: per
                                    thread a run, in end order) */
    size_t nx, capx;
    uint32_t *scratch;           /* 2 indices per event, to merge or sort */
    prof__map ptr_map;           /* site pointer -> site index */
    prof__map native_map;        /* one thread's scope start -> offset in addrs */
    prof__async_rec *asyncs;
    size_t nasync, capasync;
    uint64_t *addrs;             /* native stacks: count, then the addresses */
    size_t naddrs, capaddrs;
    uint64_t open_total, dropped_nomem, xdropped[4];
    int64_t open_net;            /* the threads' entered - recorded - ..., summed with their signs:
                                    ProfilerStep#N is entered on the thread that began the step and
                                    recorded on the one that ended it */
    uint64_t cpu_dropped;        /* before CUPTI adds its own (which it reports) */
    uint64_t exited_threads;     /* threads that recorded nothing, gone before the snapshot (prof__g.exited) */
    prof__span *lspan;           /* one thread's lost scopes' spans (prof__c_drop_lost) */
    size_t nlspan, caplspan;
    uint64_t lost_inside;        /* events dropped as inside them (in dropped_nomem's warning) */
    const char *who;             /* "prof_stop" or "prof_step" (a window's end), for its warnings */
    int quiet;                   /* a window thrown away (warm-up; a schedule that left
                                    recording, which says so): nothing to say of what
                                    its events lost */
    /* shapes as recorded -> their repr, each distinct list formatted once */
    prof__map shape_map;
    prof__map ex_map;            /* shared extras (prof__c_shared_extra) */
    prof__shape_ent *shape_ents;
    size_t nshape_ents, capshape_ents;
    int64_t *shape_vals;
    size_t nshape_vals, capshape_vals;
    int named_open;              /* still-open PROF_BEGINs of the calling thread, warned about by name */
    prof__open_sites xopen;      /* those of threads that exited (prof__g.exited_open, taken by the snapshot) */
    int linked;                  /* prof__c_order linked the events (one run: prof__run_place) */
    size_t nscopes;              /* the threads' scopes: the list's first events */
    int xcopied;                 /* prof__c_order put xkeys' events after them */
    size_t order_next;           /* prof__c_order: the snapshot whose run is next (those before are in order) */
    int order_sort;              /* ... and that run is in start order, not nested: sorted next */
    int warned;                  /* prof__c_warn spoke */
    int warned_ties;             /* prof__c_warn_ties spoke */
    unsigned seen;               /* with linked: PROF__T_* of the links */
    int release;                 /* free the blocks read (prof__c_block_done, prof__c_release) */
    /* PROF_SCOPE_DYN names in the records of the thread being read, whose
       scope record has not come yet (innermost last): resolved to a site
       before their block is freed, since the scope record may come in a
       later block */
    prof__dyn_pend *dpend;
    size_t ndpend, capdpend, dpend_done; /* [0, dpend_done) resolved */
    /* the decode's progress: threads before decode_next are done; the one
       at it resumes from `mark` when decode_resume is set (a failure) */
    size_t decode_next;
    int decode_resume;
    prof__snap *decoding;        /* the thread being decoded */
    prof__pending *pd;           /* its pending extensions (prof__c_decode_thread's, while it runs) */
    prof__c_mark mark;
    prof__dyn_pend *mark_dpend;  /* dpend at the mark */
    size_t capmark_dpend;
    /* site pointer -> index: a direct-mapped cache in front of the map,
       since a loop's few sites alternate record by record */
    const prof_site *site_cache[64];
    uint32_t site_cache_idx[64];
    uint16_t site_cache_fl[64];  /* the site's event flags (prof__c_site_fl), PROF__C_STEP for a step */
    /* PROF_SCOPE_DYN: (call site, interned name) -> index, the same way */
    struct { const prof_site *origin; const char *name; uint32_t idx; } dyn_cache[64];
    /* PROF_SCOPE_DYN call site -> its file and func interned, the same
       way: with many distinct names each name is then interned once and
       looked up in the site map once, not five lookups in maps too big
       for the caches (1M names: 2.5 s) */
    struct { const prof_site *origin; const char *file, *func; } dyn_origin[16];
    /* shared extras by their raw values (up to 8 shape values), the same
       way: a hit skips formatting, interning and the map */
    prof__ex_cache_ent ex_cache[16];
    /* per call site (slot as site_cache): the ex_cache entry its last op
       took, | 16 once two ops in a row took the same one; then the next
       op tries that entry before hashing its values (a loop's op repeats
       its shapes; a site whose shapes vary never sets the bit) */
    uint8_t ex_guess[64];
    prof__shape_cache_ent shape_cache[16]; /* shapes by their raw values, the same way */
    const prof__rec *op_miss;    /* the op header prof__c_op_fast stopped at: not tried again */
    char *over_buf;              /* an overload name's bytes, gathered from its DATA records */
    size_t capover_buf;
    /* the list's three arrays (events, extras, sequence numbers) as prof__c_reserve made
       them, which take the pages of the blocks read (prof__c_recycle):
       base, bytes mapped, and the byte offset up to which pages were
       moved in (none: base NULL) */
    struct { void *base; size_t bytes, moved; } rc[3];
#if defined(PROF_CUPTI)
    prof__cu_thr *cuthr;
    size_t ncuthr, capcuthr;
    int cuda;
    int64_t mono_stop;
    struct prof__cubuf *cukept; /* CUPTI's buffers taken by a gather that ran
                                   out of memory: read again by the next */
#endif
} prof__collector;

static PROF__NI void prof__collector_free(prof__collector *c) {
    prof__open_sites_clear(&c->xopen);
    PROF__FREE(c->snaps);
    PROF__FREE(c->xkeys);
    PROF__FREE(c->scratch);
    PROF__FREE(c->asyncs);
    PROF__FREE(c->addrs);
    PROF__FREE(c->over_buf);
    prof__map_free(&c->ptr_map);
    prof__map_free(&c->native_map);
    prof__map_free(&c->shape_map);
    prof__map_free(&c->ex_map);
    PROF__FREE(c->shape_ents);
    PROF__FREE(c->shape_vals);
    PROF__FREE(c->dpend);
    PROF__FREE(c->mark_dpend);
    PROF__FREE(c->lspan);
#if defined(PROF_CUPTI)
    PROF__FREE(c->cuthr);
    prof__cupti_bufs_free(c->cukept);
    c->cukept = NULL;
#endif
}

/* ticks of the session's clock -> ns since the session began */
static __inline__ __attribute__((__always_inline__)) PROF__NI int64_t prof__c_ns(uint64_t x) { return prof__ticks_to_ns(x - prof__g.tick_start); }
/* opened before this session began (a scope that straddled prof_start);
   anything in the snapshot that began later is this session's, even if it
   began while prof_stop was taking the lock */
/* (Ticks are compared by their difference: a counter that passes 2^64
   in a session, from an offset a hypervisor or firmware set, still
   orders them.) */
static PROF__NI int prof__c_stale(uint64_t x) { return (int64_t)(x - prof__g.tick_start) < 0; }
/* A scope's start (its record's or its native stack header's t0): before
   the session or before its thread bound to it (prof__thread_bind). */
static PROF__NI int prof__c_stale_scope(const struct prof__collector *c, uint64_t t0);
/* ended after prof_stop began: open at the stop, not in the profile */
static PROF__NI int prof__c_late(const prof__collector *c, uint64_t x) { return (int64_t)(x - c->tick_stop) > 0; }
static PROF__NI int prof__c_stale_scope(const prof__collector *c, uint64_t t0) { return (int64_t)(t0 - c->scope_from) < 0; }
/* Whether scope record r (tag: its site word's) began before its thread's
   session did. ProfilerStep#N's record is the exception: its thread is the
   one that ended the step, which may have bound after another thread began
   it, so it counts from the session's start. */
static PROF__NI int prof__c_stale_rec(const prof__collector *c, const prof__rec *r, uintptr_t tag) {
    if (!prof__c_stale_scope(c, r->t0)) return 0;
    /* begun before the session: stale whatever its site, which is not
       read (a long name's site may be in an arena freed since) */
    if (prof__c_stale(r->t0)) return 1;
    return !(tag == PROF__TAG_SCOPE && ((const prof_site *)r->site)->func == prof__step_func);
}

/* Sites and names: a recorded site pointer -> the list's site index. */
/* A scope's first flags, by its site: plain scopes are user annotations;
   operators are not. */
static __inline__ PROF__NI uint16_t prof__c_site_fl(const prof_events *e, uint32_t site) { return e->sites[site].flags ? 0 : PROF__F_USER_ANN; }
#define PROF__C_STEP ((uint16_t)0xFFFFu) /* no event's first flags: a step's site, in site_cache_fl */
static __inline__ PROF__NI size_t prof__c_site_slot(const prof_site *s) { return (size_t)(((uintptr_t)s >> 3) ^ ((uintptr_t)s >> 9)) & 63u; }
static PROF__NI int prof__c_site(prof__collector *c, const prof_site *s, uint32_t *out) {
    size_t h = prof__c_site_slot(s);
    uint32_t v;
    if (c->site_cache[h] == s) { *out = c->site_cache_idx[h]; return 0; }
    if ((v = prof__map_get(&c->ptr_map, (uint64_t)(uintptr_t)s)) == UINT32_MAX) {
        int64_t idx = prof__site_index(c->e, prof__is_step_name(s->name) ? "ProfilerStep*" : s->name, s->file, s->func, s->line, s->flags);
        if (idx < 0 || !prof__map_add(&c->ptr_map, (uint64_t)(uintptr_t)s, (uint32_t)idx)) return -1;
        v = (uint32_t)idx;
    }
    *out = v;
    c->site_cache[h] = s;
    c->site_cache_idx[h] = v;
    c->site_cache_fl[h] = c->e->sites[v].name == c->step_name ? PROF__C_STEP : prof__c_site_fl(c->e, v);
    return 0;
}

/* A PROF_SCOPE_DYN record's site: its NAME extension gives the call site
   and the name (a NUL-terminated copy in the records after it); equal
   names of one call site are one site of the list. */
static PROF__NI int prof__c_dyn_site(prof__collector *c, const prof__rec *hdr, const prof_site **site, const char **name, uint32_t *out) {
    const prof_site *s = (const prof_site *)(uintptr_t)hdr->t0;
    const char *n = (const char *)(const void *)(hdr + 1), *in;
    size_t h, o = ((uintptr_t)s >> 4) & 15u;
    int64_t idx;
    prof_site key;
    PROF_ASSERT(prof__is_name_ext((uintptr_t)hdr->site));
    *site = s;
    *name = n;
    if (!(in = prof__intern(&c->e->strs, prof__is_step_name(n) ? "ProfilerStep*" : n))) return -1;
    h = (size_t)(((uintptr_t)in >> 3) ^ ((uintptr_t)s >> 4)) & 63u;
    if (c->dyn_cache[h].name == in && c->dyn_cache[h].origin == s) { *out = c->dyn_cache[h].idx; return 0; }
    if (c->dyn_origin[o].origin != s) {
        const char *file = prof__intern(&c->e->strs, s->file), *func = prof__intern(&c->e->strs, s->func);
        if (!file || !func) return -1;
        c->dyn_origin[o].origin = s;
        c->dyn_origin[o].file = file;
        c->dyn_origin[o].func = func;
    }
    key.name = in;
    key.file = c->dyn_origin[o].file;
    key.func = c->dyn_origin[o].func;
    key.line = s->line;
    key.flags = s->flags;
    if ((idx = prof__site_index_interned(c->e, &key)) < 0) return -1;
    c->dyn_cache[h].origin = s;
    c->dyn_cache[h].name = in;
    c->dyn_cache[h].idx = (uint32_t)idx;
    *out = (uint32_t)idx;
    return 0;
}
/* A NAME extension of the thread being read: its scope record comes later. */
static PROF__NI int prof__c_dyn_pending(prof__collector *c, const prof__rec *hdr) {
    if (!PROF__PUSH_OK(c->dpend, c->ndpend, c->capdpend)) return -1;
    c->dpend[c->ndpend].hdr = hdr;
    c->dpend[c->ndpend].site = UINT32_MAX;
    c->dpend[c->ndpend++].name = NULL;
    return 0;
}
/* Names whose block is about to be freed become sites now. */
static PROF__NI int prof__c_dyn_resolve(prof__collector *c) {
    for (; c->dpend_done < c->ndpend; c->dpend_done++) {
        prof__dyn_pend *d = &c->dpend[c->dpend_done];
        const prof_site *s;
        const char *n;
        if (prof__c_dyn_site(c, d->hdr, &s, &n, &d->site) != 0) return -1;
        d->name = prof__is_step_name(n) ? prof__intern(&c->e->strs, n) : c->e->sites[d->site].name;
        if (!d->name) return -1;
    }
    return 0;
}
/* A DYN scope record's site and name: from its pending entry (found from
   the innermost, where it is unless scopes were lost) if resolved, else
   read from its header. */
static PROF__NI int prof__c_dyn_scope(prof__collector *c, const prof__rec *hdr, const char **name, uint32_t *out) {
    const prof_site *s;
    size_t k = c->ndpend;
    while (k > 0 && c->dpend[k - 1].hdr != hdr) k--;
    if (k > 0 && c->dpend[k - 1].name) {
        *out = c->dpend[k - 1].site;
        *name = c->dpend[k - 1].name;
    } else if (prof__c_dyn_site(c, hdr, &s, name, out) != 0) {
        return -1;
    }
    if (k > 0) { /* done with the entry */
        k--;
        memmove(c->dpend + k, c->dpend + k + 1, (c->ndpend - k - 1) * sizeof *c->dpend);
        c->ndpend--;
        if (c->dpend_done > k) c->dpend_done--;
    }
    return 0;
}
/* The decode's mark (see prof__c_mark), taken where a block begins, and
   the decode put back to it. 0, or -1 when out of memory for the copy of
   the pending names (no mark then: the blocks stay). */
static PROF__NI int prof__c_mark_take(prof__collector *c, prof__block *b) {
    prof__c_mark *m = &c->mark;
    if (!prof__reserve_exact((void *)&c->mark_dpend, &c->capmark_dpend, c->ndpend, sizeof *c->mark_dpend)) return -1;
    if (c->ndpend) memcpy(c->mark_dpend, c->dpend, c->ndpend * sizeof *c->dpend);
    m->b = b;
    m->n = c->e->n;
    m->nmem = c->e->nmem;
    m->ninst = c->e->ninst;
    m->nasync = c->nasync;
    m->naddrs = c->naddrs;
    m->nrec = c->decoding->nrec;
    m->began_late = c->decoding->began_late;
    m->ndpend = c->ndpend;
    m->dpend_done = c->dpend_done;
    m->stats = c->e->stats;
    m->pd = *c->pd;
    return 0;
}
static PROF__NI void prof__c_mark_back(prof__collector *c) {
    const prof__c_mark *m = &c->mark;
    c->e->n = m->n;
    c->e->nmem = m->nmem;
    c->e->ninst = m->ninst;
    c->nasync = m->nasync;
    c->naddrs = m->naddrs;
    c->decoding->nrec = m->nrec;
    c->decoding->began_late = m->began_late;
    c->e->stats = m->stats;
    *c->pd = m->pd;
    if (m->ndpend) memcpy(c->dpend, c->mark_dpend, m->ndpend * sizeof *c->dpend); /* (dpend was at least that big) */
    c->ndpend = m->ndpend;
    c->dpend_done = m->dpend_done;
    prof__map_free(&c->native_map); /* (native stacks: the only mark is the thread's start) */
}
/* The iterator moved to block `next`: every record before it is decoded.
   Unless the session keeps its blocks (reserve_events), those before it
   are freed, so the list's memory takes the records' place instead of
   adding to it, once a mark is taken there (a failure later resumes from
   it) and the pending names are resolved: if either cannot be had (out
   of memory) they are kept, freed at a later mark or once all is read.
   With native stacks the thread's blocks are kept until it is read (its
   stacks' map is not copied). The owner is past them and never returns to
   them (its next session starts at the block it is on). Only the
   thread's first block is ever freed (prof__g_lock held, as for every
   change of a thread's chain). */
/* A block read is not given back to the system but moved (mremap: its
   page tables, no copy) into the list's room ahead of what the decode has
   written: the list is all fresh memory, whose every page the kernel
   clears at its first touch (perf, args mode, 3M events, on the shared
   2-core VM here: that clearing was 41% of prof_stop's samples; 18% with
   the blocks moved in; page faults 84 -> 28 at 1M events). A page
   moved in is overwritten whole
   before anything reads it (what it held, old records, is never seen:
   malloc's memory has no value either). Only blocks of whole huge pages
   (2 MB aligned) and arrays that prof__malloc_huge mapped (2 MB aligned,
   libc's allocator: its free unmaps the whole range); not under the
   sanitizers, whose allocators and shadow memory do not expect it.
   Each block goes to the array whose moved-in room ahead of its writes is
   the smaller for its rate (bytes written so far; shapes mode writes few
   extras, args mode about one byte of sequence numbers for three of
   events), and only
   while that room is less than a block:
   what is moved in and never written is given back when the list is cut
   to size (prof__c_order_others). Returns 1 if b's pages moved (its
   map_bytes then 0: prof__block_free unmaps nothing, so no mapping made
   since at that address is touched). */
#if defined(__linux__) && defined(SYS_mremap) && defined(PROF__LIBC_ALLOC) && defined(MADV_HUGEPAGE) && \
    !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
#  if defined(__has_feature)
#    if !__has_feature(address_sanitizer) && !__has_feature(thread_sanitizer) && !__has_feature(memory_sanitizer)
#      define PROF__RECYCLE 1
#    endif
#  else
#    define PROF__RECYCLE 1
#  endif
#endif
static PROF__NI int prof__c_recycle(prof__collector *c, prof__block *b) {
#if defined(PROF__RECYCLE)
    const prof_events *e = c->e;
    size_t len = b->map_bytes, at[3], lead[3], k;
    int best = -1;
    void *cur[3];
    double used[3];
    if (len < PROF__HUGE || (len & (PROF__HUGE - 1)) || ((uintptr_t)b->recs & (PROF__HUGE - 1))) return 0;
    cur[0] = e->ev;
    cur[1] = e->ex;
    cur[2] = e->sx;
    used[0] = (double)(e->n + 1) * (double)sizeof *e->ev; /* (+1: the next write's) */
    used[1] = (double)(e->nex + 1) * (double)sizeof *e->ex;
    used[2] = (double)(e->nsx + 1) * (double)sizeof *e->sx;
    for (k = 0; k < 3; k++) {
        size_t u = (size_t)used[k], w = (u + PROF__HUGE - 1) & ~(PROF__HUGE - 1); /* past every page written */
        if (!c->rc[k].base || c->rc[k].base != cur[k]) continue; /* none, or moved by a growth */
        at[k] = c->rc[k].moved > w ? c->rc[k].moved : w;
        lead[k] = at[k] - u;
        if (at[k] + len > c->rc[k].bytes) continue;
        if (best < 0 || (double)lead[k] * used[best] < (double)lead[best] * used[k]) best = (int)k;
    }
    if (best < 0 || lead[best] >= len || syscall(SYS_mremap, (void *)b->recs, len, len, 3 /* MREMAP_MAYMOVE | MREMAP_FIXED */, (char *)c->rc[best].base + at[best]) == -1) return 0;
    c->rc[best].moved = at[best] + len;
    b->map_bytes = 0;
    return 1;
#else
    (void)c; (void)b;
    return 0;
#endif
}
static PROF__NI void prof__c_block_done(prof__collector *c, prof__tstate *t, prof__block *next) {
    prof__block *b;
    if (!c->release || (c->features & PROF__F_NATIVE) || prof__c_dyn_resolve(c) != 0 || prof__c_mark_take(c, next) != 0) return;
    while ((b = PROF__LOAD(&t->head)) != NULL && b != next) {
        PROF__STORE(&t->head, PROF__LOAD(&b->next));
        (void)prof__c_recycle(c, b);
        prof__block_free(b);
    }
}

/* Phase 1 (prof__g_lock held): recording ends, once: no record is
   written for the session from here on, whatever a later prof_stop does. */
static PROF__NI void prof__c_end(prof__collector *c) {
    c->epoch = __atomic_load_n(&prof__g_epoch, __ATOMIC_RELAXED);
    /* Read before recording ends: a scope that closes later was open at the
       stop, even when its record lands in the snapshot (the scopes inside it
       that began after the store below were not recorded). On x86 rdtsc
       retires before the store; aarch64 needs the isb. (A scope begun and
       ended in the few ns between the two counts as open.) */
    c->tick_stop = prof__now();
#if defined(__aarch64__) && !defined(PROF_CLOCK_MONOTONIC)
    __asm__ __volatile__("isb" : : : "memory"); /* the counter read completes before the store */
#endif
    __atomic_signal_fence(__ATOMIC_SEQ_CST); /* nor does the compiler move them */
    /* seq_cst: against prof__gate_enter's store and load (see >>recorder) */
    __atomic_store_n(&prof__g_epoch, 0u, __ATOMIC_SEQ_CST);
    PROF__TEST_HOOK(PROF__HOOK_ENDED);
    c->features = prof__g_features;
    c->st.unknown_frees = __atomic_exchange_n(&prof__g_unknown_frees, 0u, __ATOMIC_RELAXED);
    prof__clock_calibrate(prof__g.tick_start, prof__g.mono_start);
    c->phase = PROF__C_ENDED;
}

/* Phase 2 (prof__g_lock held): each thread bound to the session is
   snapshotted with its counts, into c->st (each attempt's list starts
   from them). The room for the snapshots is had before anything is read:
   no thread binds to a session that ended, and one that was binding when
   it ended (prof__thread_bind, inside `busy`) is waited out first, so the
   count holds. */
static PROF__NI int prof__c_snapshot(prof__collector *c) {
    prof__tstate *t;
    size_t n = 0;
    int xk;
    for (t = prof__g.threads; t; t = t->next)
        while (__atomic_load_n(&t->busy, __ATOMIC_SEQ_CST)) sched_yield();
    for (t = prof__g.threads; t; t = t->next) n += PROF__LOAD(&t->bound_epoch) == c->epoch;
    if (!prof__reserve_exact((void *)&c->snaps, &c->capsnap, n ? n : 1, sizeof *c->snaps)) return -1;
#if defined(PROF_CUPTI)
    if (!prof__reserve_exact((void *)&c->cuthr, &c->capcuthr, n ? n : 1, sizeof *c->cuthr)) return -1;
#endif
    for (t = prof__g.threads; t; t = t->next) {
        prof__snap *sn;
        uint64_t gate;
        if (PROF__LOAD(&t->bound_epoch) != c->epoch) continue;
        sn = &c->snaps[c->nsnap++];
        memset(sn, 0, sizeof *sn);
        sn->t = t;
        /* pos first, then the block: if the owner moved on in between, pos
           is not inside the newer block and that block counts as empty */
        sn->pos = PROF__LOAD(&t->hot.pos);
        sn->cur = PROF__LOAD(&t->cur);
        /* the owner's counts are whole once it is out of `busy` (the
           section is a few instructions; it saw the session end or will) */
        while (__atomic_load_n(&t->busy, __ATOMIC_ACQUIRE)) sched_yield();
#if defined(PROF_CUPTI)
        c->cuthr[c->ncuthr].pthread_id = t->pthread_id;
        c->cuthr[c->ncuthr].tid = t->tid;
        c->cuthr[c->ncuthr].capped_tick = PROF__LOADR(&t->capped_tick);
        c->cuthr[c->ncuthr].bind_tick = PROF__LOADR(&t->bind_tick);
        c->ncuthr++;
#endif
        /* the gate after pos: a scope begun in between counts as open */
        gate = __atomic_load_n(&t->hot.gate.word, __ATOMIC_RELAXED);
        sn->entered = PROF__LOADR(&t->scopes_before) + (gate - PROF__LOADR(&t->gate_base)) + PROF__LOADR(&t->refused);
        sn->dropped = PROF__LOADR(&t->dropped);
        sn->other = PROF__LOADR(&t->unbalanced);
        for (xk = 0; xk < 4; xk++) { c->xdropped[xk] += PROF__LOADR(&t->xdropped[xk]); sn->other += PROF__LOADR(&t->xdropped[xk]); }
        c->st.scopes_entered += sn->entered;
        c->st.scopes_dropped += sn->dropped;
        c->dropped_nomem += PROF__LOADR(&t->dropped_nomem);
        c->st.unbalanced_ends += PROF__LOADR(&t->unbalanced);
    }
    if (prof__g.exited_open.epoch == c->epoch) { /* (the struct and the names move) */
        c->xopen = prof__g.exited_open;
        memset(&prof__g.exited_open, 0, sizeof prof__g.exited_open);
    } else if (prof__g.exited_open.n) {
        prof__open_sites_clear(&prof__g.exited_open); /* an earlier session's */
    }
    pthread_mutex_lock(&prof__nostate_lock);
    if (prof__g_nostate.epoch == c->epoch) { /* lost on threads that had no state (prof__nostate_lost) */
        c->st.scopes_entered += prof__g_nostate.n[0];
        c->st.scopes_dropped += prof__g_nostate.n[0];
        c->dropped_nomem += prof__g_nostate.n[0];
        for (xk = 0; xk < 4; xk++) {
            c->xdropped[xk] += prof__g_nostate.n[1 + xk];
            c->dropped_nomem += prof__g_nostate.n[1 + xk];
        }
        prof__g_nostate.epoch = 0;
    }
    pthread_mutex_unlock(&prof__nostate_lock);
    if (prof__g.exited.epoch == c->epoch) { /* threads gone with nothing recorded (prof__exit_counted_locked) */
        for (xk = 0; xk < 4; xk++) c->xdropped[xk] += prof__g.exited.xdropped[xk];
        c->st.scopes_entered += prof__g.exited.entered;
        c->st.scopes_dropped += prof__g.exited.dropped;
        c->dropped_nomem += prof__g.exited.dropped_nomem;
        c->st.unbalanced_ends += prof__g.exited.unbalanced;
        c->open_net += (int64_t)prof__g.exited.entered - (int64_t)prof__g.exited.dropped;
        c->exited_threads = prof__g.exited.threads;
        prof__g.exited.epoch = 0;
    }
    c->st.blocks_added = __atomic_load_n(&prof__pf.added, __ATOMIC_RELAXED);
    pthread_mutex_lock(&prof__pf_lock);
    c->st.blocks_prefaulted = prof__pf.taken;
    c->release = !prof__pf.keep; /* a reserve keeps its blocks for the next session */
    pthread_mutex_unlock(&prof__pf_lock);
    /* without a reserve, the unwritten part of the block each thread is on
       goes now (the last block a helper faulted in is mostly that), so
       neither prof_stop's peak nor the program after it holds it */
    if (c->release) {
        size_t k;
        for (k = 0; k < c->nsnap; k++) {
            prof__block *b = c->snaps[k].cur;
            if (b) prof__block_trim(b, prof__snap_count(&c->snaps[k], b));
        }
    }
    c->st.marks_dropped = c->xdropped[PROF__X_MARK];
    c->st.counters_dropped = c->xdropped[PROF__X_COUNTER];
    c->st.allocs_dropped = c->xdropped[PROF__X_ALLOC];
    c->st.async_dropped = c->xdropped[PROF__X_ASYNC];
    c->st.dropped = c->st.scopes_dropped + c->xdropped[0] + c->xdropped[1] + c->xdropped[2] + c->xdropped[3];
    c->cpu_dropped = c->st.dropped;
    c->phase = PROF__C_SNAPPED;
    return 0;
}

/* Phase 3 begins: the list, with the session's settings and the
   snapshot's counts. */
static PROF__NI int prof__c_list(prof__collector *c) {
    prof_events *e;
    if (!(c->e = e = prof_events_create())) return -1;
    e->base_real_ns = prof__g.real_start;
    e->base_boot_ns = prof__g.boot_start;
    e->with_node_id = prof__g.cfg.with_node_id;
    e->node_id = prof__g.cfg.node_id;
    e->world_size = prof__g.cfg.world_size;
    e->profile_memory = prof__g.cfg.profile_memory;
    e->with_flops = prof__g.cfg.with_flops;
    e->stats = c->st;
    c->lost_inside = 0;
    if (prof__g.cfg.record_shapes && !(e->no_shapes = prof__intern(&e->strs, "[]"))) return -1;
    if (!(c->step_name = prof__intern(&e->strs, "ProfilerStep*"))) return -1;
    return 0;
}

/* The list's room, from the records' count (the blocks' sizes,
   no record read): every scope is one record or more, so that many events
   is enough and the records are decoded once, straight into the list.
   Room never touched costs no memory; the list is cut to size once the
   events are known (prof__c_order). If so much cannot be had, the list
   grows as it is filled instead. */
/* The array at pp (n elements used) given room for `want`, in huge pages
   from its first byte (prof__malloc_huge): the decode fills it whole, and
   libc's realloc would put a chunk that large 16 bytes into a fresh
   mapping, whose 4 KiB pages at both ends each cost a fault (1M events:
   ~1000 faults, a third of prof_stop's time here). Nothing changes when
   the room cannot be had (the array then grows as it is filled). */
static PROF__NI void prof__c_room(prof__collector *c, int which, void *pp, size_t *cap, size_t n, size_t want, size_t elem) {
    void *old, *p;
    if (want <= *cap || !(p = prof__malloc_huge(want, elem))) return;
    memcpy(&old, pp, sizeof old);
    if (n && old) memcpy(p, old, n * elem); /* (sx's [0] may not be allocated yet) */
    PROF__FREE(old);
    memcpy(pp, &p, sizeof p);
    *cap = want;
#if defined(PROF__RECYCLE)
    if (want * elem >= PROF__HUGE) { /* prof__malloc_huge's own mapping: 2 MB aligned, whole huge pages */
        c->rc[which].base = p;
        c->rc[which].bytes = (want * elem + PROF__HUGE - 1) & ~(PROF__HUGE - 1);
        c->rc[which].moved = 0;
    }
#else
    (void)c; (void)which;
#endif
}
static PROF__NI void prof__c_reserve(prof__collector *c) {
    size_t i, total = 0;
    for (i = 0; i < c->nsnap; i++) {
        prof__block *b;
        if (!c->snaps[i].cur) continue;
        for (b = PROF__LOAD(&c->snaps[i].t->head); b; b = PROF__LOAD(&b->next)) {
            total += prof__snap_count(&c->snaps[i], b);
            if (b == c->snaps[i].cur) break;
        }
    }
    if (total > (size_t)INT32_MAX - 1) total = (size_t)INT32_MAX - 1;
    prof__c_room(c, 0, (void *)&c->e->ev, &c->e->cap, c->e->n, total + 1, sizeof *c->e->ev);
    /* With shapes or FLOPs an op may have an extra record of its own (its
       args take at least one record besides the scope's): room for them
       too, so they are not copied at every doubling; cut to size later. */
    if (prof__g.cfg.record_shapes || prof__g.cfg.with_flops) {
        prof__c_room(c, 1, (void *)&c->e->ex, &c->e->capex, c->e->nex, total / 2 + 2, sizeof *c->e->ex);
        prof__c_room(c, 2, (void *)&c->e->sx, &c->e->capsx, c->e->nsx, total / 2 + 2, sizeof *c->e->sx);
    }
}

/* Input shapes as recorded (per input: its number of dims, then the dims)
   -> the repr PyTorch prints. */
static PROF__NI const char *prof__c_shapes_repr(prof__collector *c, const prof__pending *pd, int *bad_out) {
    int ndims[64], n_in = 0, p = 0, nd = 0, bad = 0;
    int64_t dims[64];
    prof_shapes sh;
    while (p < pd->nshapes && n_in < 64) {
        int64_t cnt = pd->shapes[p++], j;
        ndims[n_in] = 0;
        if (cnt < 0 || cnt > pd->nshapes - p) bad = 1; /* a count past the values, or negative */
        for (j = 0; j < cnt && p < pd->nshapes; j++) { dims[nd++] = pd->shapes[p++]; ndims[n_in]++; }
        n_in++;
    }
    *bad_out = bad;
    sh.n_inputs = n_in;
    sh.ndims = ndims;
    sh.dims = dims;
    return prof__shapes_repr(c->e, &sh);
}
/* The same, interned by the raw values: a loop's few distinct lists are
   formatted once, not once per event. */
typedef struct prof__shapekey { const prof__collector *c; const int64_t *vals; uint32_t n; } prof__shapekey;
static PROF__NI int prof__shape_same(const void *key, uint32_t v) {
    const prof__shapekey *k = (const prof__shapekey *)key;
    const prof__shape_ent *en = &k->c->shape_ents[v];
    return en->n == k->n && memcmp(k->c->shape_vals + en->off, k->vals, (size_t)k->n * sizeof(int64_t)) == 0;
}
static PROF__NI const char *prof__c_shapes_map(prof__collector *c, const prof__pending *pd, int *bad) {
    size_t bytes = (size_t)pd->nshapes * sizeof(int64_t);
    uint64_t h = prof__hash_bytes(pd->shapes, bytes, (uint64_t)pd->nshapes);
    prof__shapekey key;
    prof__shape_ent *en;
    uint32_t v;
    key.c = c;
    key.vals = pd->shapes;
    key.n = (uint32_t)pd->nshapes;
    if ((v = prof__map_find(&c->shape_map, h, prof__shape_same, &key)) != UINT32_MAX) {
        en = &c->shape_ents[v];
        if (en->bad) c->e->stats.malformed_shapes++;
        *bad = en->bad;
        return en->repr;
    }
    if (c->nshape_vals + (size_t)pd->nshapes >= UINT32_MAX || !PROF__PUSH_OK(c->shape_ents, c->nshape_ents, c->capshape_ents) ||
        !prof__grow((void *)&c->shape_vals, &c->capshape_vals, c->nshape_vals + (size_t)pd->nshapes + 1, sizeof *c->shape_vals))
        return NULL;
    en = &c->shape_ents[c->nshape_ents];
    en->off = (uint32_t)c->nshape_vals;
    en->n = (uint32_t)pd->nshapes;
    if (bytes) memcpy(c->shape_vals + c->nshape_vals, pd->shapes, bytes);
    if (!(en->repr = prof__c_shapes_repr(c, pd, &en->bad)) || !prof__map_add(&c->shape_map, h, (uint32_t)c->nshape_ents)) return NULL;
    c->nshape_vals += (size_t)pd->nshapes;
    if (en->bad) c->e->stats.malformed_shapes++;
    *bad = en->bad;
    c->nshape_ents++;
    return en->repr;
}
/* The same through a direct-mapped cache of short lists by their values:
   a loop's ops (args mode: one extra each) alternate between a few lists,
   which then cost a multiply per value and a compare, not a hash and a
   map probe. */
/* One value into a shape cache's hash (prof__c_shapes, prof__c_shared_extra
   and prof__c_op_one's fast way: the same hash, or the caches would miss). */
static __inline__ PROF__NI uint64_t prof__c_hstep(uint64_t h, uint64_t x) { return (h ^ x) * 0xff51afd7ed558ccdull; }
static PROF__NI const char *prof__c_shapes(prof__collector *c, const prof__pending *pd) {
    prof__shape_cache_ent *sc = NULL;
    const char *r;
    int bad = 0;
    if (pd->nshapes <= 8) {
        uint64_t h = (uint64_t)(uint32_t)pd->nshapes + 1;
        int k;
        for (k = 0; k < pd->nshapes; k++) h = prof__c_hstep(h, (uint64_t)pd->shapes[k]);
        sc = &c->shape_cache[(h ^ (h >> 32)) & 15u];
        k = -1;
        if (sc->repr && sc->n == pd->nshapes) /* (inline: see prof__c_shared_extra) */
            for (k = 0; k < sc->n; k++)
                if (sc->vals[k] != pd->shapes[k]) break;
        if (k >= sc->n) {
            if (sc->bad) c->e->stats.malformed_shapes++;
            return sc->repr;
        }
    }
    if (!(r = prof__c_shapes_map(c, pd, &bad)) || !sc) return r;
    sc->repr = r;
    sc->n = pd->nshapes;
    sc->bad = bad;
    if (sc->n) memcpy(sc->vals, pd->shapes, (size_t)sc->n * sizeof(int64_t));
    return r;
}

/* An extension record: what it says is kept in pd for the record that
   follows it (its format is written where the recorder writes it). it:
   the iterator it came from, whose DATA records after a SHAPES header are
   taken at once (nrec counts them); NULL: one record at a time. */
static PROF__NI int prof__c_extension(prof__collector *c, prof__pending *pd, const prof__rec *r, prof__rec_iter *it, size_t *nrec) {
    uintptr_t word = (uintptr_t)r->site;
    unsigned kind = (unsigned)(word >> 3) & 31u, aux = (unsigned)(word >> 8);
    pd->any = 1;
    if (kind == PROF__EXT_DATA) {
        /* up to two values; a record's worth at a time (this runs once per
           two dims of every event with shapes) */
        int k = pd->data_left < 2 ? pd->data_left : 2;
        if (k <= 0) return 0;
        pd->data_left -= k;
        if (pd->data_kind == PROF__EXT_SHAPES) { /* nshapes + data_left <= want_shapes <= 64 */
            pd->shapes[pd->nshapes] = (int64_t)r->t0;
            if (k == 2) pd->shapes[pd->nshapes + 1] = (int64_t)r->t1;
            pd->nshapes += k;
        } else if (pd->data_kind == PROF__EXT_NATIVE) {
            if (!prof__grow((void *)&c->addrs, &c->capaddrs, c->naddrs + (size_t)k, sizeof *c->addrs)) return -1;
            c->addrs[c->naddrs] = r->t0;
            if (k == 2) c->addrs[c->naddrs + 1] = r->t1;
            c->naddrs += (size_t)k;
        }
    } else if (kind == PROF__EXT_SHAPES) {
        pd->nshapes = 0;
        pd->want_shapes = (int)(aux <= 64 ? aux : 64);
        pd->data_kind = PROF__EXT_SHAPES;
        pd->data_left = pd->want_shapes;
        if (it) { /* its DATA records follow it in its block (one reservation): read here, not one loop turn each */
            const prof__rec *d = it->b->recs + it->i, *lim = it->b->recs + it->n;
            uintptr_t data = (uintptr_t)PROF__EXT(PROF__EXT_DATA, 0);
            while (pd->data_left > 0 && d < lim && (uintptr_t)d->site == data) {
                pd->shapes[pd->nshapes++] = (int64_t)d->t0;
                if (pd->data_left >= 2) pd->shapes[pd->nshapes++] = (int64_t)d->t1;
                pd->data_left -= pd->data_left >= 2 ? 2 : 1;
                d++;
            }
            *nrec += (size_t)(d - (it->b->recs + it->i));
            it->i = (size_t)(d - it->b->recs);
        }
    } else if (kind == PROF__EXT_NATIVE) {
        int found;
        uint32_t *slot;
        pd->data_left = (int)aux;
        /* a stale header's addresses are read and thrown away */
        if (prof__c_stale_scope(c, r->t0)) { pd->data_kind = PROF__EXT_DATA; return 0; }
        pd->data_kind = PROF__EXT_NATIVE;
        slot = prof__map_slot(&c->native_map, r->t0, &found);
        if (!slot || !PROF__PUSH_OK(c->addrs, c->naddrs, c->capaddrs)) return -1;
        c->addrs[c->naddrs] = aux; /* count, then the addresses */
        *slot = (uint32_t)c->naddrs++;
    } else if (kind == PROF__EXT_FLOPS) { pd->has_flops = 1; pd->flops = (int64_t)r->t0; }
    else if (kind == PROF__EXT_OVERLOAD) {
        pd->has_over = 1;
        pd->over = (const char *)(uintptr_t)r->t0; /* aux 0: in the thread's name table */
        if (aux) { /* aux bytes and a NUL in the DATA records after it (one reservation: all there) */
            const prof__rec *d = it->b->recs + it->i;
            size_t nd = ((size_t)aux + 16) / 16, i;
            char *buf;
            if (nd > it->n - it->i) { pd->has_over = 0; return 0; } /* (cannot be: the scope record follows them) */
            if (!prof__grow((void *)&c->over_buf, &c->capover_buf, nd * 16, 1)) return -1;
            buf = c->over_buf;
            for (i = 0; i < nd; i++) { memcpy(buf + 16 * i, &d[i].t0, 8); memcpy(buf + 16 * i + 8, &d[i].t1, 8); }
            if (!(pd->over = prof__intern_n(&c->e->strs, buf, aux))) return -1;
            *nrec += nd;
            it->i += nd;
        }
    }
    else if (kind == PROF__EXT_AUTOGRAD) {
        pd->has_ag = 1; pd->ag_aux = aux; pd->seq = (int64_t)r->t0; pd->fwd = r->t1; /* (0x400: counted with its event, prof__c_scope) */
    }
    else if (kind == PROF__EXT_MEMADDR) { pd->has_mem = 1; pd->mem_ptr = r->t0; pd->mem_cat = (const char *)(uintptr_t)r->t1; }
    return 0;
}

/* The extras of recorded scopes are shared: a loop's op has a few
   distinct (shapes, args), so equal ones are one record (PROF__F_SHARED_EX)
   and an event costs its 48 bytes, not 48 + 128. An op's sequence number
   is its own: it goes beside the shared extra, in a prof__seqx
   (PROF__F_SEQX; 16 bytes more). */
typedef struct prof__exkey { const prof_events *e; const prof__extra *x; } prof__exkey;
static PROF__NI int prof__ex_same(const void *key, uint32_t v) {
    const prof__extra *a = ((const prof__exkey *)key)->x, *b = &((const prof__exkey *)key)->e->ex[v];
    return a->shapes == b->shapes && a->overload_name == b->overload_name && a->flops == b->flops && a->has_fwd_thread == b->has_fwd_thread &&
           a->fwd_thread == b->fwd_thread;
}
/* Event v (just made) takes shared extra idx, with its sequence number
   seq beside it when it has one. -1 without memory. */
static __inline__ PROF__NI int prof__c_take_extra(prof_events *e, prof__ev *v, uint32_t idx, int has_seq, int64_t seq) {
    if (has_seq) {
        if (e->nsx >= UINT32_MAX - 1 || (e->nsx >= e->capsx && !PROF__PUSH_OK(e->sx, e->nsx, e->capsx))) return -1;
        e->sx[e->nsx].seq = seq;
        e->sx[e->nsx].ex = idx;
        v->extra = (uint32_t)e->nsx++;
        v->flags = (uint16_t)(v->flags | PROF__F_SEQX);
        return 0;
    }
    v->extra = idx;
    v->flags = (uint16_t)(v->flags | PROF__F_SHARED_EX);
    return 0;
}
/* Whether cache entry ce holds an extra of n shape values (-1: no shapes),
   kind (1: FLOPs, 2: a forward thread), flops and fwd; its values are
   compared apart. */
static __inline__ __attribute__((__always_inline__)) PROF__NI int prof__c_ex_holds(const prof__ex_cache_ent *ce, int n, unsigned kind, int64_t flops, uint64_t fwd) {
    return ce->idx && ce->n == n && ce->kind == kind && ce->flops == flops && ce->fwd == fwd;
}
static PROF__NI int prof__c_shared_extra(prof__collector *c, const prof__pending *pd, prof__ev *v) {
    prof_events *e = c->e;
    prof__extra x;
    prof__exkey key;
    uint64_t h, bad0 = e->stats.malformed_shapes;
    uint32_t idx;
    prof__ex_cache_ent *ce = NULL;
    int has_fwd = pd->has_ag && (pd->ag_aux & 0x200u);
    unsigned kind = (pd->has_flops ? 1u : 0u) | (has_fwd ? 2u : 0u);
    int64_t flops = pd->has_flops ? pd->flops : 0;
    uint64_t fwd = has_fwd ? pd->fwd : 0;
    if (!pd->has_over && pd->nshapes <= 8) { /* shapes, flops and a forward thread (a sequence number is not in the extra): the cache */
        int n = pd->want_shapes ? pd->nshapes : -1;
        uint64_t hc = (uint64_t)(uint32_t)(n + 2);
        int k, hit;
        if (kind & 1u) hc = prof__c_hstep(hc, (uint64_t)flops);
        if (kind & 2u) hc = prof__c_hstep(hc + 1, fwd);
        for (k = 0; k < n; k++) hc = prof__c_hstep(hc, (uint64_t)pd->shapes[k]);
        ce = &c->ex_cache[(hc ^ (hc >> 32)) & 15u];
        hit = prof__c_ex_holds(ce, n, kind, flops, fwd);
        if (hit) { /* (a call to memcmp cost more than these few values) */
            for (k = 0; k < n; k++)
                if (ce->vals[k] != pd->shapes[k]) break;
            hit = k >= n;
        }
        if (hit) {
            if (ce->bad) e->stats.malformed_shapes++;
            return prof__c_take_extra(e, v, ce->idx, pd->has_ag && (pd->ag_aux & 0x100u), pd->seq);
        }
    }
    prof__extra_clear(&x);
    if (pd->want_shapes && !(x.shapes = prof__c_shapes(c, pd))) return -1;
    if (pd->has_flops) x.flops = pd->flops;
    if (pd->has_over && !(x.overload_name = prof__intern(&e->strs, pd->over))) return -1;
    if (has_fwd) { x.has_fwd_thread = 1; x.fwd_thread = pd->fwd; }
    h = prof__mix((uint64_t)(uintptr_t)x.shapes ^ prof__mix((uint64_t)(uintptr_t)x.overload_name + (uint64_t)x.flops) ^
                  prof__mix((x.fwd_thread << 1) ^ (uint64_t)x.has_fwd_thread));
    key.e = e;
    key.x = &x;
    if ((idx = prof__map_find(&c->ex_map, h, prof__ex_same, &key)) == UINT32_MAX) {
        if (e->nex >= UINT32_MAX - 1 || !PROF__PUSH_OK(e->ex, e->nex, e->capex)) return -1;
        e->ex[e->nex] = x;
        if (!prof__map_add(&c->ex_map, h, (uint32_t)e->nex)) return -1;
        idx = (uint32_t)e->nex++;
    }
    if (ce) {
        ce->idx = idx;
        ce->n = pd->want_shapes ? pd->nshapes : -1;
        if (ce->n > 0) memcpy(ce->vals, pd->shapes, (size_t)ce->n * sizeof(int64_t));
        ce->kind = kind;
        ce->flops = flops;
        ce->fwd = fwd;
        ce->bad = e->stats.malformed_shapes != bad0;
    }
    return prof__c_take_extra(e, v, idx, pd->has_ag && (pd->ag_aux & 0x100u), pd->seq);
}

/* A scope record and its extensions -> the list's next event (and its
   extra record), in place. prof__c_clamp: a scope whose end tick reads
   before its start (a thread moved between cores whose counters are not
   in step: some firmware, some hypervisors) ends where it starts, as an
   event that ends before it begins is no interval (negative times in
   the table, a negative dur in the trace). */
/* The CPU event of scope record r, before its extras and links, field by
   field into v (the fast paths store it in place, the list's node_id read
   once). */
static __inline__ __attribute__((__always_inline__)) PROF__NI void prof__c_ev_fill(prof__ev *v, const prof__rec *r, uint32_t site, uint32_t thr, int32_t node_id, uint8_t scope, uint16_t flags, uint32_t extra) {
    v->start = prof__c_ns(r->t0);
    v->end = prof__c_ns(r->t1);
    if (v->end < v->start) v->end = v->start; /* (prof__c_clamp) */
    v->site = site;
    v->thread = thr;
    v->parent = v->first_child = v->next_sibling = -1;
    v->node_id = node_id;
    v->extra = extra;
    v->device_type = PROF_DEVICE_CPU;
    v->scope = scope;
    v->flags = flags; /* prof__c_site_fl */
}
static __inline__ __attribute__((__always_inline__)) PROF__NI prof__ev prof__c_scope_ev(const prof__collector *c, const prof__rec *r, uint32_t site, uint32_t thr, uint8_t scope, uint16_t flags) {
    prof__ev v;
    prof__c_ev_fill(&v, r, site, thr, c->e->with_node_id ? c->e->node_id : -1, scope, flags, 0);
    return v;
}
static PROF__NI int prof__c_scope(prof__collector *c, const prof__pending *pd, const prof__rec *r, uint32_t thr) {
    prof_events *e = c->e;
    prof__ev *v;
    uintptr_t word = (uintptr_t)r->site;
    const prof_site *s = (const prof_site *)(word & ~(uintptr_t)7u);
    const char *name;
    uint32_t nat, site;
    int step;
    if (e->n >= (size_t)INT32_MAX - 1 || (e->n + 1 >= e->cap && !PROF__PUSH_OK(e->ev, e->n + 1, e->cap))) return -1;
    if ((word & 7u) == PROF__TAG_DYN) {
        if (prof__c_dyn_scope(c, (const prof__rec *)(word & ~(uintptr_t)7u), &name, &site) != 0) return -1;
    } else {
        size_t h = prof__c_site_slot(s);
        name = s->name;
        if (c->site_cache[h] == s) site = c->site_cache_idx[h]; /* prof__c_site's cache, inline */
        else if (prof__c_site(c, s, &site) != 0) return -1;
    }
    v = &e->ev[e->n];
    *v = prof__c_scope_ev(c, r, site, thr, pd->has_ag ? (uint8_t)(pd->ag_aux & 0xff) : 0, prof__c_site_fl(e, site));
    nat = c->native_map.n ? prof__map_get(&c->native_map, r->t0) : UINT32_MAX;
    step = e->sites[site].name == c->step_name;
    /* shared: ops with shapes, unless the event has its own stack or
       step name (a sequence number goes beside the shared extra). Not in
       a CUDA session: sharing every extra there broke the CUPTI join's
       kernels and memory (gpu_check_fake, session 1) for a reason not
       found yet. */
    if (pd->any && pd->want_shapes && nat == UINT32_MAX && !step
#if defined(PROF_CUPTI)
        && !c->cuda
#endif
    ) {
        if (prof__c_shared_extra(c, pd, v) != 0) return -1;
    } else if (pd->any || nat != UINT32_MAX || step) {
        prof__extra *x;
        const char *shapes = NULL;
        if (!prof__extra_of(e, v)) return -1;
        if (pd->want_shapes && !(shapes = prof__c_shapes(c, pd))) return -1;
        x = &e->ex[v->extra]; /* after the calls that may move e->ex */
        x->shapes = shapes;
        if (pd->has_flops) x->flops = pd->flops;
        if (pd->has_over && !(x->overload_name = prof__intern(&e->strs, pd->over))) return -1;
        if (pd->has_ag) {
            if (pd->ag_aux & 0x100u) x->sequence_nr = pd->seq;
            if (pd->ag_aux & 0x200u) { x->has_fwd_thread = 1; x->fwd_thread = pd->fwd; }
        }
        if (step && !(x->trace_name = prof__intern(&e->strs, name))) return -1;
        x->native_off = nat;
    }
    if (pd->has_ag && (pd->ag_aux & 0x400u)) e->stats.malformed_args++; /* a scope outside 0-255, recorded as 0; here, as a stale or late scope is no event */
    e->n++;
    return 0;
}

/* The common record, a plain PROF_SCOPE with nothing pending (no
   extension before it, no native stack): the site from the cache and one
   whole-event store, about a third of prof__c_scope's instructions. Any
   other case (a step, a cache miss that fails) goes the general way. */
static __inline__ PROF__NI int prof__c_scope_plain(prof__collector *c, const prof__pending *pd, const prof__rec *r, uint32_t thr) {
    prof_events *e = c->e;
    const prof_site *s = (const prof_site *)r->site; /* tag 0: the pointer as it is */
    size_t h = prof__c_site_slot(s);
    if (c->site_cache[h] != s || e->n + 1 >= e->cap || e->n >= (size_t)INT32_MAX - 1) return prof__c_scope(c, pd, r, thr);
    if (c->site_cache_fl[h] == PROF__C_STEP) return prof__c_scope(c, pd, r, thr);
    e->ev[e->n++] = prof__c_scope_ev(c, r, c->site_cache_idx[h], thr, 0, c->site_cache_fl[h]);
    return 0;
}

/* The plain scopes that follow in the iterator's block, as prof__c_scope_plain
   makes them, in a loop that keeps its state in registers: the list's
   count and room, the session's bounds. It stops at
   the first record that is anything else (an extension, another tag, a
   stale or late scope, a site not in the cache or a step's, no room): the
   general loop takes that one. Never leaves the block. Returns the records
   done. */
static __attribute__((__noinline__)) PROF__NI size_t prof__c_plain_run(prof__collector *c, prof__rec_iter *it, uint32_t thr) {
    prof_events *e = c->e;
    const prof__rec *recs = it->b->recs;
    size_t i = it->i, lim = it->n, n = e->n, room;
    prof__ev *ev = e->ev;
    int32_t node_id = e->with_node_id ? e->node_id : -1;
    if (n + 1 >= e->cap || n >= (size_t)INT32_MAX - 1) return 0;
    room = e->cap - 1 - n; /* n + 1 < cap after each */
    if (room > (size_t)INT32_MAX - 1 - n) room = (size_t)INT32_MAX - 1 - n;
    if (lim - i > room) lim = i + room;
    for (; i < lim; i++) {
        const prof__rec *r = &recs[i];
        const prof_site *s = (const prof_site *)r->site;
        size_t h = prof__c_site_slot(s);
        if (((uintptr_t)s & 7u) != PROF__TAG_SCOPE || prof__c_stale_scope(c, r->t0) || prof__c_late(c, r->t1) ||
            c->site_cache[h] != s || c->site_cache_fl[h] == PROF__C_STEP) break;
        prof__c_ev_fill(&ev[n++], r, c->site_cache_idx[h], thr, node_id, 0, c->site_cache_fl[h], 0);
    }
    e->n = n;
    n = i - it->i;
    it->i = i;
    return n;
}

/* The caches' hash and test of n values held two a record in d's t0, t1
   (prof__c_shapes' and prof__c_shared_extra's loops over pd->shapes).
   The hash also tests that each record is a DATA one (the same pass):
   *ok 0 if not. */
static __inline__ __attribute__((__always_inline__)) PROF__NI uint64_t prof__c_vals_hash(uint64_t h, const prof__rec *d, unsigned n, int *ok) {
    const uintptr_t data = (uintptr_t)PROF__EXT(PROF__EXT_DATA, 0);
    const prof__rec *pairs = d + n / 2;
    uintptr_t bad = 0;
    for (; d < pairs; d++) {
        bad |= (uintptr_t)d->site ^ data;
        h = prof__c_hstep(prof__c_hstep(h, d->t0), d->t1);
    }
    if (n & 1) {
        bad |= (uintptr_t)d->site ^ data;
        h = prof__c_hstep(h, d->t0);
    }
    *ok = !bad;
    return h;
}
/* Whether the n values held in d are v; with `tags` (a constant), also
   that each record is a DATA one, as prof__c_vals_hash tests (for a cache
   entry found without the hash). */
static __inline__ __attribute__((__always_inline__)) PROF__NI int prof__c_vals_same(const int64_t *v, const prof__rec *d, unsigned n, int tags) {
    const uintptr_t data = tags ? (uintptr_t)PROF__EXT(PROF__EXT_DATA, 0) : 0;
    const prof__rec *pairs = d + n / 2;
    for (; d < pairs; d++, v += 2)
        if (((uint64_t)v[0] ^ d->t0) | ((uint64_t)v[1] ^ d->t1) | (tags ? (uintptr_t)d->site ^ data : 0)) return 0;
    return !(n & 1) || (((uint64_t)v[0] ^ d->t0) | (tags ? (uintptr_t)d->site ^ data : 0)) == 0;
}
/* prof__c_op_fast's state, in its locals while it runs: the list's two
   arrays as where the next entry goes and the bound of the room in each.
   Through e, each store into the list would make the compiler read e's
   counts and caps again (a store through a prof__ev may alias them). */
typedef struct prof__opst {
    prof__ev *ev, *evmax;   /* room for one more event while ev < evmax (prof__c_scope's test) */
    prof__seqx *sx;
    size_t nsx, sxmax;      /* room for a sequence number while nsx < sxmax (prof__c_take_extra's) */
    uint32_t thr;
    int32_t node_id;        /* (e->with_node_id's, read once) */
} prof__opst;
/* The event of scope record r, with its extra, at the list's next place
   (room tested before). */
static __inline__ __attribute__((__always_inline__)) PROF__NI void prof__c_opst_put(prof__opst *st, const prof__rec *r, uint32_t site, uint8_t scope, uint16_t flags, uint32_t extra) {
    prof__c_ev_fill(st->ev++, r, site, st->thr, st->node_id, scope, flags, extra);
}
/* An op with shapes (an EXT SHAPES header, its DATA, then FLOPS and
   AUTOGRAD at most, then its scope record, all in the header's block: one
   reservation) whose shapes and args were seen before: its event straight
   from the records, without the pending state: the shared extra from
   ex_cache, and in args mode the op's sequence number beside it (a
   prof__seqx, as prof__c_take_extra makes it). The same tests and results as
   the general way (prof__c_extension, then prof__c_scope with the caches
   hit), about a third of its instructions. hdr: the header, end: its
   block's end. Returns the record past the op's when done, NULL to go
   the general way (a cache miss, no room, a stale or late scope, a step,
   anything else pending). The tests come in the order that keeps the
   fewest values at hand at once (all fail the same way: nothing written). */
static __inline__ __attribute__((__always_inline__)) PROF__NI const prof__rec *prof__c_op_one(prof__collector *c, prof__opst *st, const prof__rec *hdr, const prof__rec *end) {
    const prof__rec *d = hdr + 1, *r, *ag = NULL;
    uintptr_t aux = (uintptr_t)hdr->site >> 8;
    unsigned n = (unsigned)aux, nd = (n + 1) / 2;
    int has_flops = 0, data_ok;
    unsigned kind, ag_aux = 0; /* (0 without autograd: none of its bits set) */
    int64_t flops = 0;
    uint64_t h, fwd = 0;
    const prof_site *s;
    size_t slot;
    uint16_t fl;
    unsigned guess;
    prof__ex_cache_ent *ce;
#if defined(PROF_CUPTI)
    if (c->cuda) return NULL;
#endif
    /* (the room in bytes: in records, a division by 24) */
    if (aux - 1 >= 8 || (size_t)((const char *)end - (const char *)d) <= nd * sizeof *d) return NULL;
    /* the DATA records: tested with the hash, below; r < end */
    /* FLOPs, then autograd, as PROF_SCOPE_ARGS writes them: anything else
       (another order, a repeat, another kind) is not a scope record next,
       and goes the general way (as a bad RecordScope does, below) */
    r = d + nd;
    if (((uintptr_t)r->site & 7u) != PROF__TAG_SCOPE) {
        if ((uintptr_t)r->site == (uintptr_t)PROF__EXT(PROF__EXT_FLOPS, 0)) {
            has_flops = 1;
            flops = (int64_t)r->t0;
            if (++r >= end) return NULL;
        }
        if (((uintptr_t)r->site & 0xffu) == (uintptr_t)PROF__EXT(PROF__EXT_AUTOGRAD, 0)) {
            ag = r;
            ag_aux = (unsigned)((uintptr_t)r->site >> 8);
            if (ag_aux & 0x200u) fwd = r->t1;
            if (++r >= end) return NULL;
        }
        if (((uintptr_t)r->site & 7u) != PROF__TAG_SCOPE) return NULL;
    }
    kind = (unsigned)has_flops | ((ag_aux >> 8) & 2u); /* (0x200: a forward thread) */
    s = (const prof_site *)r->site;
    slot = prof__c_site_slot(s);
    guess = c->ex_guess[slot];
    if (!(guess & 16u) || !prof__c_ex_holds(ce = &c->ex_cache[guess & 15u], (int)n, kind, flops, fwd) || !prof__c_vals_same(ce->vals, d, n, 1)) {
        unsigned hi;
        h = (uint64_t)(uint32_t)(n + 2); /* prof__c_shared_extra's cache, its hash and test */
        if (kind & 1u) h = prof__c_hstep(h, (uint64_t)flops);
        if (kind & 2u) h = prof__c_hstep(h + 1, fwd);
        h = prof__c_vals_hash(h, d, n, &data_ok);
        hi = (unsigned)(h ^ (h >> 32)) & 15u;
        ce = &c->ex_cache[hi];
        if (!data_ok || !prof__c_ex_holds(ce, (int)n, kind, flops, fwd) || !prof__c_vals_same(ce->vals, d, n, 0)) return NULL;
        c->ex_guess[slot] = (uint8_t)(hi | (hi == (guess & 15u) ? 16u : 0u));
    }
    if (prof__c_stale_scope(c, r->t0) || prof__c_late(c, r->t1)) return NULL;
    if (c->site_cache[slot] != s || (fl = c->site_cache_fl[slot]) == PROF__C_STEP || st->ev >= st->evmax) return NULL;
    /* a bad RecordScope (0x400) is counted the general way; a sequence
       number needs room beside the extra */
    if ((ag_aux & 0x400u) || ((ag_aux & 0x100u) && st->nsx >= st->sxmax)) return NULL;
    if (ce->bad) c->e->stats.malformed_shapes++;
    /* the event with its extra, as prof__c_take_extra gives it (room tested above) */
    if (ag_aux & 0x100u) {
        st->sx[st->nsx].seq = (int64_t)ag->t0;
        st->sx[st->nsx].ex = ce->idx;
        prof__c_opst_put(st, r, c->site_cache_idx[slot], (uint8_t)(ag_aux & 0xff), (uint16_t)(fl | PROF__F_SEQX), (uint32_t)st->nsx++);
    } else {
        prof__c_opst_put(st, r, c->site_cache_idx[slot], (uint8_t)(ag_aux & 0xff), (uint16_t)(fl | PROF__F_SHARED_EX), ce->idx);
    }
    return r + 1;
}
/* Ops one after the other (and the plain scopes between them, as
   prof__c_scope_plain makes them) for as long as prof__c_op_one takes them: the first
   one's header is the record the iterator just gave (counted), the next
   ones' are not taken until their op is. Returns 1 if it took any (the
   iterator is past them, nrec counts them), 0 if not (nothing read). */
static __attribute__((__noinline__)) PROF__NI int prof__c_op_fast(prof__collector *c, prof__rec_iter *it, uint32_t thr, prof__snap *sn) {
    prof_events *e = c->e;
    const prof__rec *recs = it->b->recs, *at = recs + it->i - 1, *end = recs + it->n, *past; /* at: the op's header */
    /* events it may add: while n + 1 < cap and n < INT32_MAX - 1 */
    size_t room = e->n + 1 < e->cap ? e->cap - 1 - e->n : 0;
    prof__opst st;
    if (e->n >= (size_t)INT32_MAX - 1) room = 0;
    else if (room > (size_t)INT32_MAX - 1 - e->n) room = (size_t)INT32_MAX - 1 - e->n;
    st.ev = e->ev + e->n;
    st.evmax = st.ev + room;
    st.sx = e->sx;
    st.nsx = e->nsx;
    st.sxmax = e->capsx < (size_t)UINT32_MAX - 1 ? e->capsx : (size_t)UINT32_MAX - 1;
    st.thr = thr;
    st.node_id = e->with_node_id ? e->node_id : -1;
    if (!(past = prof__c_op_one(c, &st, at, end))) return 0;
    for (;;) {
        uintptr_t w = 0;
        at = past;
        while (at < end && ((w = (uintptr_t)at->site) & 7u) == PROF__TAG_SCOPE) {
            /* one at a time (between ops they come one or two together:
               prof__c_plain_run's setup cost more than it saved) */
            size_t h = prof__c_site_slot((const prof_site *)w);
            uint16_t fl;
            if (prof__c_stale_scope(c, at->t0) || prof__c_late(c, at->t1) || c->site_cache[h] != (const prof_site *)w ||
                (fl = c->site_cache_fl[h]) == PROF__C_STEP || st.ev >= st.evmax) break;
            prof__c_opst_put(&st, at, c->site_cache_idx[h], 0, fl, 0);
            at++;
        }
        if (at >= end || (w & 7u) != PROF__TAG_EXT || ((w >> 3) & 31u) != PROF__EXT_SHAPES) break;
        if (!(past = prof__c_op_one(c, &st, at, end))) { c->op_miss = at; break; } /* the general way takes it next */
    }
    e->n = (size_t)(st.ev - e->ev);
    e->nsx = st.nsx;
    sn->nrec += (size_t)(at - recs) - it->i;
    it->i = (size_t)(at - recs);
    return 1;
}

/* Lost scopes (prof__scope_lost_span, prof__lost_site): a scope admitted
   and then lost for lack of memory has no event, so the scopes recorded
   inside it go too: kept, they would show as its parent's children, a tree
   that never was. Spans in ns, from the records and from the thread's own
   list; one begun before the thread bound to the session is none of its
   (its children are top-level events, as under any earlier scope). */
static PROF__NI int prof__c_lost_span(prof__collector *c, uint64_t t0, uint64_t t1) {
    if (!PROF__PUSH_OK(c->lspan, c->nlspan, c->caplspan)) return -1;
    c->lspan[c->nlspan].from = prof__c_ns(t0);
    c->lspan[c->nlspan].to = prof__c_ns(t1);
    c->nlspan++;
    return 0;
}
static int prof__span_less(const void *ctx, uint32_t a, uint32_t b) {
    const prof__span *s = (const prof__span *)ctx;
    return s[a].from != s[b].from ? s[a].from < s[b].from : s[a].to > s[b].to;
}
/* Drops the thread's events (sn->kbeg to the list's end) inside a lost
   scope's span; *inside: how many. */
static PROF__NI int prof__c_drop_lost(prof__collector *c, const prof__snap *sn, uint64_t *inside) {
    prof_events *e = c->e;
    const prof__tstate *t = sn->t;
    uint32_t *ord, k;
    prof__span *m;
    size_t i, n, nm = 0, keep;
    *inside = 0;
    for (k = 0; k < t->n_lost_span; k++) /* (at most PROF__LOST_SPANS) */
        if (!prof__c_stale_scope(c, t->lost_span[k][0]) && prof__c_lost_span(c, t->lost_span[k][0], t->lost_span[k][1]) != 0) return -1;
    if (!(n = c->nlspan)) return 0;
    /* in start order (the longer first), nested ones left out: disjoint */
    if (!(ord = PROF__ALLOC(uint32_t, 2 * n))) return -1;
    for (i = 0; i < n; i++) ord[i] = (uint32_t)i;
    prof__msort_u32(ord, ord + n, n, prof__span_less, c->lspan);
    if (!(m = PROF__ALLOC(prof__span, n))) { PROF__FREE(ord); return -1; }
    for (i = 0; i < n; i++) {
        const prof__span *sp = &c->lspan[ord[i]];
        if (nm && sp->from <= m[nm - 1].to) { if (sp->to > m[nm - 1].to) m[nm - 1].to = sp->to; } /* inside (or, widened, overlapping) */
        else m[nm++] = *sp;
    }
    PROF__FREE(ord);
    for (i = keep = sn->kbeg; i < e->n; i++) {
        const prof__ev *v = &e->ev[i];
        size_t lo = 0, hi = nm;
        while (lo < hi) { size_t mid = lo + (hi - lo) / 2; if (m[mid].from <= v->start) lo = mid + 1; else hi = mid; }
        if (lo > 0 && v->end <= m[lo - 1].to) { ++*inside; continue; }
        if (keep != i) e->ev[keep] = *v;
        keep++;
    }
    e->n = keep;
    PROF__FREE(m);
    return 0;
}

/* Phase 3: one thread's records -> events (its scopes, in end order),
   memory records, marks and counter samples, async begins and ends; then
   its open scopes. Out of memory it returns at once: the next attempt
   goes back to the mark (the thread's start, or a later block's whose
   blocks before were freed) and reads on from there. */
static PROF__NI int prof__c_decode_thread(prof__collector *c, prof__snap *sn) {
    prof_events *e = c->e;
    prof__pending pd;
    prof__rec_iter it;
    const prof__rec *r;
    uint64_t inside = 0;
    int64_t thr = prof__thread_index(e, sn->t->tid, sn->t->name);
    if (thr < 0) return -1;
    c->decoding = sn;
    c->pd = &pd;
    c->scope_from = PROF__LOADR(&sn->t->bind_tick); /* (bound before the snapshot) */
    if ((int64_t)(c->scope_from - prof__g.tick_start) < 0) c->scope_from = prof__g.tick_start;
    if (c->decode_resume) {
        prof__c_mark_back(c);
    } else {
        memset(&pd, 0, sizeof pd);
        prof__map_free(&c->native_map);
        c->ndpend = c->dpend_done = 0;
        c->nlspan = 0;
        sn->kbeg = e->n;
        c->mark.b = sn->cur ? PROF__LOAD(&sn->t->head) : NULL;
        (void)prof__c_mark_take(c, c->mark.b); /* (no pending name: nothing to copy, cannot fail) */
        c->decode_resume = 1; /* until the thread is read */
    }
    prof__rec_iter_init(&it, sn, c->mark.b, c);
    while ((r = prof__rec_get(&it)) != NULL) {
        uintptr_t word = (uintptr_t)r->site, tag = word & 7u;
        int scope = tag == PROF__TAG_SCOPE || tag == PROF__TAG_DYN;
        sn->nrec++;
        if (tag == PROF__TAG_EXT) {
            if (((word >> 3) & 31u) == PROF__EXT_SHAPES && !pd.any && !c->native_map.n && r != c->op_miss && prof__c_op_fast(c, &it, (uint32_t)thr, sn)) continue;
            if (prof__is_name_ext(word)) { /* read through its DYN record */
                if (c->release && prof__c_dyn_pending(c, r) != 0) return -1;
                prof__rec_skip_name(&it, r);
            } else if (prof__c_extension(c, &pd, r, &it, &sn->nrec) != 0) return -1;
            continue;
        }
        if (word == (uintptr_t)&prof__lost_site) { /* a lost scope's span: what it held goes with it */
            if (!prof__c_stale_scope(c, r->t0) && !prof__c_late(c, r->t1) && prof__c_lost_span(c, r->t0, r->t1) != 0) return -1;
            prof__pending_reset(&pd);
            continue;
        }
        /* (a stale DYN record's name may be in a block reused since: not read) */
        if (scope ? prof__c_stale_rec(c, r, tag) : prof__c_stale(r->t0)) { prof__pending_reset(&pd); continue; } /* opened in an earlier session */
        if (prof__c_late(c, scope ? r->t1 : r->t0)) {
            /* a scope begun after the stop's tick, before its thread saw
               recording end (prof_stop preempted in between): neither in
               the profile nor open at the stop */
            if (scope && prof__c_late(c, r->t0)) sn->began_late++;
            prof__pending_reset(&pd);
            continue;
        }
        if (tag == PROF__TAG_SCOPE && !pd.any && !c->native_map.n) {
            if (prof__c_scope_plain(c, &pd, r, (uint32_t)thr) != 0) return -1;
            if (it.i < it.n && ((uintptr_t)it.b->recs[it.i].site & 7u) == PROF__TAG_SCOPE) /* (no extension among them: still nothing pending) */
                sn->nrec += prof__c_plain_run(c, &it, (uint32_t)thr);
            continue; /* nothing pending to reset */
        } else if (scope) {
            if (prof__c_scope(c, &pd, r, (uint32_t)thr) != 0) return -1;
        } else if (tag == PROF__TAG_ASYNC_BEGIN || tag == PROF__TAG_ASYNC_END) { /* paired after this pass */
            uint32_t si = 0;
            int end = tag == PROF__TAG_ASYNC_END;
            if ((!end && prof__c_site(c, (const prof_site *)(word & ~(uintptr_t)7u), &si) != 0) ||
                !prof__async_push(&c->asyncs, &c->nasync, &c->capasync, r->t1, prof__c_ns(r->t0), (uint32_t)thr, si, end)) return -1;
        } else if (tag == PROF__TAG_MEM) {
            prof__memrec *m;
            if (!PROF__PUSH_OK(e->mem, e->nmem, e->capmem)) return -1;
            m = &e->mem[e->nmem];
            m->ts = prof__c_ns(r->t0);
            m->bytes = (int64_t)r->t1;
            m->total = 0;
            m->corr = 0;
            m->ptr = pd.has_mem ? pd.mem_ptr : 0;
            m->thread = (uint32_t)thr;
            m->device_type = (int)((word >> 3) & 31u);
            m->device_index = (int)(word >> 8);
            m->category = (pd.has_mem && pd.mem_cat) ? prof__intern(&e->strs, pd.mem_cat) : NULL;
            e->nmem++;
        } else if (tag == PROF__TAG_MARK || tag == PROF__TAG_COUNTER) {
            prof__instant_ev *in;
            uint32_t si;
            if (prof__c_site(c, (const prof_site *)(word & ~(uintptr_t)7u), &si) != 0) return -1;
            if (!PROF__PUSH_OK(e->inst, e->ninst, e->capinst)) return -1;
            in = &e->inst[e->ninst++];
            in->ts = prof__c_ns(r->t0);
            in->site = si;
            in->thread = (uint32_t)thr;
            in->kind = (int)tag;
            memcpy(&in->value, &r->t1, sizeof(double));
            if (tag == PROF__TAG_MARK) e->stats.marks++;
            else e->stats.counters++;
        }
        prof__pending_reset(&pd);
    }
    if (prof__c_drop_lost(c, sn, &inside) != 0) return -1;
    c->decode_resume = 0;
    sn->kend = e->n;
    /* open = entered - recorded - dropped - begun after the stop (those
       are in `entered` when their thread passed the gate in time) */
    e->stats.scopes_recorded += sn->kend - sn->kbeg;
    e->stats.scopes_dropped += inside;
    e->stats.dropped += inside;
    c->lost_inside += inside;
    c->open_net += (int64_t)sn->entered - (int64_t)(sn->kend - sn->kbeg) - (int64_t)(sn->dropped + inside) - (int64_t)sn->began_late;
    e->stats.scopes_entered -= sn->began_late;
    return 0;
}
static PROF__NI int prof__c_decode(prof__collector *c) {
    for (; c->decode_next < c->nsnap; c->decode_next++)
        if (prof__c_decode_thread(c, &c->snaps[c->decode_next]) != 0) return -1;
    c->open_total = c->open_net > 0 ? (uint64_t)c->open_net : 0;
    c->nscopes = c->e->n;
    c->e->stats.allocs = c->e->nmem;
    c->e->stats.async_records = c->nasync;
    return 0;
}

/* Phase 4: async ranges, per id in time order: each end closes the open
   begin. A begin while one is open leaves the earlier unmatched (the later
   wins); an end with none open, and a begin never ended, are unmatched.
   The clock moves in steps, so records of an id often share a tick: a
   thread's own keep their order there; of two threads', an end goes
   before a begin while a range is open (the id ended on one thread and
   begun again on another closes its earlier range first), and a begin
   before an end while none is (a range begun and ended within the tick).
   Its memory is had first (a range per record at most): it cannot fail
   half done. */
static PROF__NI int prof__c_async(prof__collector *c) {
    size_t i, n = c->nasync;
    const prof__async_rec *as = c->asyncs;
    uint32_t *ord;
    if (!n) return 0;
    if (!prof__reserve_exact((void *)&c->xkeys, &c->capx, c->nx + n, sizeof *c->xkeys) || !(ord = PROF__ALLOC(uint32_t, 2 * n))) return -1;
    for (i = 0; i < n; i++) ord[i] = (uint32_t)i;
    prof__msort_u32(ord, ord + n, n, prof__async_less, as); /* stable: records in the order they came */
    for (i = 0; i < n;) {
        size_t j = i, open = (size_t)-1, b;
        while (j < n && as[ord[j]].id == as[ord[i]].id) {
            const prof__async_rec *x = &as[ord[j]];
            prof__key *k;
            /* another thread's record at this tick that goes first (see
               above) is moved to j, the others keeping their order */
            if (x->is_end == (open == (size_t)-1) && (b = prof__async_tick_find(as, ord, j, n, !x->is_end)) < n) {
                uint32_t t = ord[b];
                memmove(ord + j + 1, ord + j, (b - j) * sizeof *ord);
                ord[j] = t;
                continue;
            }
            j++;
            if (!x->is_end) {
                if (open != (size_t)-1) c->e->stats.unmatched_async++;
                open = (size_t)(x - as);
                continue;
            }
            if (open == (size_t)-1) {
                c->e->stats.unmatched_async++;
                continue;
            }
            k = &c->xkeys[c->nx++]; /* (room had above) */
            k->start = as[open].ts;
            k->end = x->ts > k->start ? x->ts : k->start;
            k->thread = as[open].thread;
            k->site = as[open].site;
            k->extra = 0;
            k->scope = 0;
            k->flags = PROF__F_ASYNC;
            k->device_type = PROF_DEVICE_CPU;
            open = (size_t)-1;
        }
        if (open != (size_t)-1) c->e->stats.unmatched_async++;
        i = j;
    }
    PROF__FREE(ord);
    PROF__FREE(c->asyncs);
    c->asyncs = NULL;
    return 0;
}

/* Phase 5 (still locked): the threads' counts settle. */
static PROF__NI void prof__c_threads(prof__collector *c) {
    size_t i;
    c->e->stats.open_at_stop = c->open_total;
    /* threads that recorded: not those only bound to the session (prof_start
       binds the calling thread ahead of its first scope). Each state is a
       thread, but for a late one (a thread that records again from a TLS
       destructor run after prof.h's gets a second state): it counts only
       when no other state of its thread (its serial) recorded. Not by id:
       the kernel hands a finished thread's id to a new one (after pid_max
       threads), and 40000 short threads counted as 32439; nor by pthread_t
       with it, which glibc gives again to the next thread created after a
       join (without memory for the map a late state counts too); nor
       when its thread was counted as an earlier state exited (its counts
       taken by the session's, prof__exit_counted_locked, or kept). */
    {
        prof__map seen;
        int late, any_late = 0;
        memset(&seen, 0, sizeof seen);
        c->e->stats.threads = c->exited_threads;
        for (i = 0; i < c->nsnap; i++) any_late |= c->snaps[i].t->late;
        for (late = 0; late <= any_late; late++) {
            for (i = 0; i < c->nsnap; i++) {
                const prof__snap *sn = &c->snaps[i];
                const uint64_t key = sn->t->serial;
                if (!(sn->nrec || sn->entered || sn->dropped || sn->other) || sn->t->late != late) continue;
                if (late && (prof__map_get(&seen, key) != UINT32_MAX || sn->t->counted_epoch == PROF__EPOCH16(c->epoch))) continue;
                /* (a late state too: glibc runs the destructors up to 4
                   times, and each pass that records makes one) */
                if (any_late) (void)prof__map_add(&seen, key, 0);
                c->e->stats.threads++;
            }
        }
        prof__map_free(&seen);
    }
}

/* Phase 5, its words (unlocked, right after it): the calling thread's
   still-open PROF_BEGIN ranges, named. Only this thread changes its own
   stack, and it is here; the lock is released first, as the log callback
   may call prof.h functions that take it (prof_set_thread_name). */
static PROF__NI void prof__c_name_exited(prof__collector *c) {
    const char *who = c->who ? c->who : "prof_stop";
    uint32_t k;
    for (k = 0; k < c->xopen.n; k++) {
        c->named_open += (int)c->xopen.s[k].count;
        prof__report(PROF_LOG_WARNING, PROF_E_OPEN_SCOPES, "%s: PROF_BEGIN(\"%s\") at %s:%d was still open %llu time%s when %s thread exited (left without %s PROF_END); not in the profile",
                     who, c->xopen.s[k].name, c->xopen.s[k].file, c->xopen.s[k].line, (unsigned long long)c->xopen.s[k].count,
                     c->xopen.s[k].count == 1 ? "" : "s", c->xopen.s[k].count == 1 ? "its" : "their", c->xopen.s[k].count == 1 ? "its" : "their");
    }
    if (c->xopen.more) {
        c->named_open += (int)c->xopen.more;
        prof__report(PROF_LOG_WARNING, PROF_E_OPEN_SCOPES, "%s: %llu more PROF_BEGIN range%s at other sites %s still open when %s thread%s exited",
                     who, (unsigned long long)c->xopen.more, c->xopen.more == 1 ? "" : "s", c->xopen.more == 1 ? "was" : "were",
                     c->xopen.more == 1 ? "its" : "their", c->xopen.more == 1 ? "" : "s");
    }
    prof__open_sites_clear(&c->xopen);
}
static PROF__NI void prof__c_name_open(prof__collector *c) {
    prof__tstate *t = prof__self();
    prof__map count; /* site -> its open ranges: a line per site, not per range (1M ranges left by longjmp made 1M lines) */
    uint32_t *slot;
    int32_t k;
    int found, counted = 1, shown = 0;
    if (c->quiet) { /* a window thrown away: nothing to say of it */
        prof__open_sites_clear(&c->xopen);
        return;
    }
    prof__c_name_exited(c);
    if (!t || PROF__LOADR(&t->bound_epoch) != c->epoch) return;
    memset(&count, 0, sizeof count);
    for (k = 0; k < t->n_open; k++)
        if (t->open[k].epoch == c->epoch && t->open[k].site != &prof__lost_site) { /* (a lost one is counted dropped) */
            c->named_open++;
            if (counted && (slot = prof__map_slot(&count, (uint64_t)(uintptr_t)t->open[k].site, &found)) != NULL) *slot = found ? *slot + 1 : 1;
            else counted = 0; /* no memory for the counts: a line per range, 16 at most */
        }
    for (k = 0; k < t->n_open; k++) {
        const prof_site *site = t->open[k].site;
        uint32_t n = 1;
        if (t->open[k].epoch != c->epoch || site == &prof__lost_site) continue;
        if (counted) {
            if (!(slot = prof__map_at(&count, (uint64_t)(uintptr_t)site)) || *slot == 0) continue; /* (said at its first) */
            n = *slot;
            *slot = 0;
        } else if (++shown > 16) {
            break;
        }
        if (n == 1)
            prof__report(PROF_LOG_WARNING, PROF_E_OPEN_SCOPES, "%s: PROF_BEGIN(\"%s\") at %s:%d is still open; it is not in the profile",
                         c->who ? c->who : "prof_stop", site->name, site->file, site->line);
        else
            prof__report(PROF_LOG_WARNING, PROF_E_OPEN_SCOPES, "%s: PROF_BEGIN(\"%s\") at %s:%d is still open %u times (left without their PROF_END); they are not in the profile",
                         c->who ? c->who : "prof_stop", site->name, site->file, site->line, (unsigned)n);
    }
    prof__map_free(&count);
}

/* Phase 6 (unlocked): CUPTI's records join the async ranges. CUPTI's
   buffers are taken, and freed, by the gather; out of memory there, the
   gather takes back what it added and leaves the buffers in c->cukept,
   read again by the next prof_stop's gather (with any completed since). */
static PROF__NI int prof__c_cupti(prof__collector *c) {
    size_t i;
#if defined(PROF_CUPTI)
    if (c->cuda) {
        /* the events so far: scopes, async ranges, marks and counter
           samples, allocations (CUDA's are added by the gather) */
        size_t used = c->nscopes + c->nx + c->e->ninst + c->e->nmem, cap = prof__g.cfg.max_events;
        if (!(c->e->use_device = prof__intern(&c->e->strs, "cuda"))) return -1;
        if (prof__cupti_gather(c->e, &c->xkeys, &c->nx, &c->capx, c->cuthr, c->ncuthr, prof__g.mono_start, c->mono_stop,
                               used < cap ? cap - used : 0, &c->cukept) != 0) return -1;
    }
#endif
    /* CUDA memory recorded by hand (prof_alloc_ex, no CUPTI): the table
       shows device memory only with a device, as PyTorch's does for a
       profile that used CUDA, so the list gets one */
    if (!c->e->use_device)
        for (i = 0; i < c->e->nmem; i++)
            if (c->e->mem[i].device_type == PROF_DEVICE_CUDA) {
                if (!(c->e->use_device = prof__intern(&c->e->strs, "cuda"))) return -1; /* out of memory: the stop fails, its retry gives the device */
                break;
            }
    return 0;
}

/* The threads' runs (and the async and CUDA records after them: runs
   b[0..nb), as prof__ev_merge_runs) merged into a new array by idx, their
   pages given back behind the reads. 0 = not done: the caller gathers in
   place. */
static PROF__NI int prof__c_merge_out(prof__collector *c, const uint32_t *idx, size_t total, const size_t *b, size_t nb) {
    size_t *runs = PROF__ALLOC(size_t, 3 * nb), r;
    int done;
    if (!runs) return 0;
    for (r = 0; r < nb; r++) {
        runs[3 * r] = b[r];
        runs[3 * r + 1] = b[r + 1];
        runs[3 * r + 2] = b[r] * sizeof(prof__ev);
    }
    done = prof__ev_merge_out(&c->e->ev, c->e->cap, idx, total, runs, nb);
    PROF__FREE(runs);
    return done;
}

/* prof__c_order's first step: the list cut to size (or given its room),
   then the async ranges and CUDA records after the threads' scopes. */
static PROF__NI int prof__c_order_others(prof__collector *c, size_t total) {
    prof_events *e = c->e;
    size_t i;
    if (e->cap > total + total / 8 + 64) { /* the room for every record: cut to size (mremap, no copy, for a large list) */
        prof__ev *nv = (prof__ev *)PROF__REALLOC(e->ev, (total + 1) * sizeof *e->ev);
        if (nv) { e->ev = nv; e->cap = total + 1; }
    }
    if (!prof__reserve_exact((void *)&e->ev, &e->cap, total + 1, sizeof *e->ev)) return -1;
    if (e->capex > e->nex + e->nex / 8 + 64) { /* the extras' room, likewise */
        prof__extra *nx = (prof__extra *)PROF__REALLOC(e->ex, e->nex * sizeof *e->ex);
        if (nx) { e->ex = nx; e->capex = e->nex; }
    }
    if (e->capsx > e->nsx + e->nsx / 8 + 64) { /* and the sequence numbers' */
        prof__seqx *nq = (prof__seqx *)PROF__REALLOC(e->sx, e->nsx * sizeof *e->sx);
        if (nq) { e->sx = nq; e->capsx = e->nsx; }
    }
    for (i = 0; i < c->nx; i++) {
        const prof__key *k = &c->xkeys[i];
        prof__ev *v = &e->ev[c->nscopes + i];
        memset(v, 0, sizeof *v);
        v->start = k->start;
        v->end = k->end;
        v->site = k->site;
        v->thread = k->thread;
        v->parent = v->first_child = v->next_sibling = -1;
        v->node_id = e->with_node_id ? e->node_id : -1;
        v->extra = k->extra;
        v->scope = k->scope;
        v->device_type = k->device_type;
        v->flags = (uint16_t)(k->flags | (e->sites[v->site].flags ? 0 : PROF__F_USER_ANN)); /* CUDA records are not annotations */
    }
    PROF__FREE(c->xkeys);
    c->xkeys = NULL;
    c->xcopied = 1;
    e->n = total;
    e->stats.events = total;
    return 0;
}

/* Phase 7: the async ranges and CUDA's records join the list; events in
   PyTorch's order, per thread by the stack pass, then one sort that merges
   the threads' runs and the rest. A thread's run alone (the list's only
   run) is ordered and linked at once (prof__run_place): prof__c_link then
   has nothing to do. Every step is in place; a merge (more
   than one run) or a sort takes 8 bytes of indices per event. Out of
   memory, the runs ordered so far stay so and the next call goes on from
   the run it failed on (order_next: a stack pass that fails has moved no
   event; order_sort: the run was moved, only its sort is left). */
static PROF__NI int prof__c_order(prof__collector *c) {
    prof_events *e = c->e;
    size_t nscopes = c->nscopes, total = nscopes + c->nx, i, runs = c->nx ? 1 : 0, nruns = runs;
    uint32_t *idx, *tmp, *stk = NULL;
    prof__place_ent *pstk = NULL;
    size_t capstk = 0, cappstk = 0;
    if (total >= (size_t)INT32_MAX) return -1;
    if (!c->xcopied && prof__c_order_others(c, total) != 0) return -1;
    for (i = 0; i < c->nsnap; i++) nruns += c->snaps[i].kend > c->snaps[i].kbeg;
    for (i = c->order_next; i < c->nsnap; i++, c->order_next = i) {
        size_t lo = c->snaps[i].kbeg, len = c->snaps[i].kend - lo, k;
        int r = 0;
        if (!len) continue;
        /* one run in all: ordered and linked at once; several: ordered
           (prof__run_place's links would be redone after the merge). Its
           stack holds the open scopes and every root so far (a thread's
           loop of top-level scopes: 10M events, 1.4 MB grown by doubling
           into 4 KiB pages, ~340 faults): for a large run, room for all
           in huge pages, touched only as far as used */
        if (!c->order_sort && nruns == 1 && !pstk && len >= PROF__HUGE / sizeof *pstk && (pstk = (prof__place_ent *)prof__malloc_huge(len + 1, sizeof *pstk)) != NULL)
            cappstk = len + 1;
        if (!c->order_sort && nruns == 1 && (r = prof__run_place(e, e->ev + lo, len, &pstk, &cappstk, &c->seen)) != 0) { /* in order and linked, or out of memory */
            PROF__FREE(pstk);
            if (r < 0) return -1;
            c->linked = 1;
            continue;
        }
        PROF__FREE(pstk); /* declined: the general way's stack is not added to it */
        pstk = NULL;
        cappstk = 0;
        if (!c->order_sort) {
            r = prof__run_preorder(e->ev + lo, len, &stk, &capstk);
            PROF__FREE(stk);
            stk = NULL;
            capstk = 0;
            if (r < 0) return -1;
            c->order_sort = r == 0;
        }
        if (c->order_sort) { /* not nested: sorted */
            if (!c->scratch && !(c->scratch = (uint32_t *)prof__malloc_huge(2 * (total + 1), sizeof *c->scratch))) return -1;
            idx = c->scratch;
            tmp = idx + total + 1;
            for (k = 0; k < len; k++) idx[k] = (uint32_t)k;
            prof__msort_u32(idx, tmp, len, prof__ev_order_less, e->ev + lo);
            prof__ev_gather(e->ev + lo, idx, len);
            c->order_sort = 0;
        }
    }
    for (i = 0; i < c->nsnap; i++) runs += c->snaps[i].kend > c->snaps[i].kbeg;
    if (runs > 1) {
        size_t *b = PROF__ALLOC(size_t, c->nsnap + 2), nb = 0;
        if (!b || (!c->scratch && !(c->scratch = (uint32_t *)prof__malloc_huge(2 * (total + 1), sizeof *c->scratch)))) { PROF__FREE(b); return -1; }
        idx = c->scratch;
        tmp = idx + total + 1;
        for (i = 0; i < total; i++) idx[i] = (uint32_t)i;
        /* the runs: each thread's scopes (in order now; decoded one thread
           after the other, so back to back from 0), then the others,
           sorted here */
        for (i = 0; i < c->nsnap; i++)
            if (c->snaps[i].kend > c->snaps[i].kbeg) b[nb++] = c->snaps[i].kbeg;
        if (c->nx) {
            prof__msort_u32(idx + nscopes, tmp, c->nx, prof__ev_order_less, e->ev);
            b[nb++] = nscopes;
        }
        b[nb] = total;
        prof__ev_merge_runs(e->ev, idx, tmp, b, nb);
        if (!prof__c_merge_out(c, idx, total, b, nb)) prof__ev_gather(e->ev, idx, total);
        PROF__FREE(b);
    }
    PROF__FREE(c->scratch);
    c->scratch = NULL;
    c->phase = PROF__C_ORDERED;
    return 0;
}

/* Phase 8: parents and children, as _populate_cpu_children finds them, in
   one pass over the ordered list: per thread (one thread id is one thread
   of the list) a stack of the open events, each with its last child.
   Every event of the list has the same node_id and each thread's events
   are in (start, -end) order, so this is PyTorch's grouping and stack;
   the tree then starts from these links (links_ready). Each event's links
   are cleared when the pass reaches it, before a later one sets them: a
   pass that failed half way runs again from the start. */
typedef struct prof__lstack { int32_t *s; size_t n, cap; } prof__lstack;
static PROF__NI int prof__c_link(prof__collector *c) {
    prof_events *e = c->e;
    prof__lstack *st;
    size_t i;
    int rc = 0;
    unsigned seen = 0;
    if (c->linked) { /* prof__c_order did it */
        e->links_ready = 1;
        e->links_seen = c->seen;
        return 0;
    }
    if (!(st = PROF__ALLOC(prof__lstack, e->nthr ? e->nthr : 1))) return -1;
    memset(st, 0, (e->nthr ? e->nthr : 1) * sizeof *st);
    for (i = 0; i < e->n && !rc; i++) {
        prof__ev *v = &e->ev[i];
        prof__lstack *t;
        /* the order's use of the link fields and its mark end here */
        v->parent = v->first_child = v->next_sibling = -1;
        v->flags = (uint16_t)(v->flags & ~PROF__F_PLACED);
        if (v->scope == 1) seen |= PROF__T_BACKWARD;
        if ((v->flags & PROF__F_ASYNC) || v->device_type != PROF_DEVICE_CPU) continue;
        t = &st[v->thread];
        while (t->n) { /* entries: an event, its last child */
            prof__ev *p = &e->ev[t->s[t->n - 2]];
            if (v->start >= p->end || v->end > p->end) { t->n -= 2; continue; }
            v->parent = t->s[t->n - 2];
            if (t->s[t->n - 1] >= 0) e->ev[t->s[t->n - 1]].next_sibling = (int32_t)i;
            else {
                p->first_child = (int32_t)i;
                if (prof__same_name(e, p, v)) seen |= PROF__T_DUPS;
            }
            t->s[t->n - 1] = (int32_t)i;
            break;
        }
        if (t->n + 2 > t->cap && !prof__grow((void *)&t->s, &t->cap, t->n + 2, sizeof *t->s)) { rc = -1; break; }
        t->s[t->n++] = (int32_t)i;
        t->s[t->n++] = -1;
    }
    for (i = 0; i < e->nthr; i++) PROF__FREE(st[i].s);
    PROF__FREE(st);
    e->links_ready = !rc;
    e->links_seen = seen;
    return rc;
}

/* Phase 9: what was lost or odd, in words. */
static PROF__NI void prof__c_warn(const prof__collector *c) {
    const prof_stats *st = &c->e->stats;
    uint64_t open_total = c->open_total;
    if (c->lost_inside)
        prof__report(PROF_LOG_WARNING, PROF_E_DROPPED, "%s: %llu event%s dropped with the scope%s around them, which lacked memory for their own records", c->who,
                     (unsigned long long)c->lost_inside, c->lost_inside == 1 ? " was" : "s were", c->lost_inside == 1 ? "" : "s");
    if (c->cpu_dropped > c->dropped_nomem)
        prof__report(PROF_LOG_WARNING, PROF_E_DROPPED, "%s: %llu event%s dropped when the cap of %zu event%s reached; raise prof_config.max_events", c->who,
                     (unsigned long long)(c->cpu_dropped - c->dropped_nomem), c->cpu_dropped - c->dropped_nomem == 1 ? " was" : "s were",
                     prof__g.cfg.max_events, prof__g.cfg.max_events == 1 ? " was" : "s was");
    if (c->dropped_nomem)
        prof__report(PROF_LOG_WARNING, PROF_E_DROPPED, "%s: %llu event%s dropped for lack of memory (record blocks, a thread's state, the PROF_BEGIN stack or a run-time name could not be allocated, or were needed inside an allocator call prof.h made)", c->who,
                     (unsigned long long)c->dropped_nomem, c->dropped_nomem == 1 ? " was" : "s were");
    if (st->unbalanced_ends)
        prof__report(PROF_LOG_WARNING, PROF_E_UNBALANCED, "%s: %llu scope end%s matched nothing begun on %s thread (a PROF_END without a PROF_BEGIN, or a scope held across a switch to another thread, as by a coroutine); %s ignored", c->who,
                     (unsigned long long)st->unbalanced_ends, st->unbalanced_ends == 1 ? "" : "s", st->unbalanced_ends == 1 ? "its" : "their",
                     st->unbalanced_ends == 1 ? "it was" : "they were");
    if (open_total)
        prof__report(PROF_LOG_WARNING, PROF_E_OPEN_SCOPES, "%s: %llu scope%s still open%s; %s not in the profile (still running then, as on another thread or across a step; or jumped over by longjmp, left by a computed goto (goto *p), exit, pthread_exit or pthread_cancel)", c->who,
                     (unsigned long long)open_total, open_total == 1 ? " was" : "s were",
                     c->named_open ? " in all (the PROF_BEGIN ranges named above included)" : "", open_total == 1 ? "it is" : "they are");
    if (st->malformed_shapes)
        prof__report(PROF_LOG_WARNING, PROF_E_ARG, "%s: %llu scope%s input shapes that are not, per input, a number of dims followed by that many dims (PROF_SCOPE_SHAPES(name, 2, m, k, 1, n)); %s what could be read", c->who,
                     (unsigned long long)st->malformed_shapes, st->malformed_shapes == 1 ? " had" : "s had",
                     st->malformed_shapes == 1 ? "its Input Shapes show" : "their Input Shapes show");
    if (st->malformed_args)
        prof__report(PROF_LOG_WARNING, PROF_E_ARG, "%s: %llu PROF_SCOPE_ARGS scope%s a prof_args.scope outside 0-255 (a RecordScope); recorded as 0 (forward)", c->who,
                     (unsigned long long)st->malformed_args, st->malformed_args == 1 ? " had" : "s had");
    if (st->unknown_frees)
        prof__report(PROF_LOG_WARNING, PROF_E_ARG, "%s: %llu free%s of pointers that prof_alloc never saw %s ignored", c->who,
                     (unsigned long long)st->unknown_frees, st->unknown_frees == 1 ? "" : "s", st->unknown_frees == 1 ? "was" : "were");
    /* past the cap an async begin may be kept and its end dropped (ranges
       are not nested: no room is kept for their ends), so say which */
    if (st->unmatched_async)
        prof__report(PROF_LOG_WARNING, PROF_E_UNBALANCED, "%s: %llu async range%s had no matching PROF_ASYNC_BEGIN/END (or the same id begun again; or begun and ended on either side of the stop or of a step that ends a schedule's window)%s; %s ignored", c->who,
                     (unsigned long long)st->unmatched_async, st->unmatched_async == 1 ? "" : "s",
                     st->async_dropped ? ", some because the cap (max_events) dropped their other half" : "",
                     st->unmatched_async == 1 ? "it was" : "they were");
}

/* After the tree: zero-length scopes that _remove_dup_nodes merged into a
   parent that began at the same time. A child begins a clock read after
   its parent (or, begun in its parent's tick, takes time), so this is a
   clock whose tick is longer than a scope (16-42 ns on many
   ARM boards; an x86 TSC in 10 ns steps under some hypervisors): a call
   that read one tick twice ([t, t]) and the next call of its name, begun
   in that tick ([t, t + d]), have intervals that nest by PyTorch's rule,
   and the pair merges into one event. The table then counts fewer calls
   than were made, which the user should hear of. */
static PROF__NI void prof__c_warn_ties(const prof__collector *c) {
    size_t n = c->e->dups_tied;
    if (n)
        prof__report(PROF_LOG_WARNING, PROF_E_DROPPED, "%s: %zu scope%s merged into a parent of the same name that began in the same clock tick (a scope shorter than the clock's tick reads one time twice, and the next call of its name, begun in that tick, then encloses it by PyTorch's nesting rule; _remove_dup_nodes merges a lone child of its parent's name); the table counts fewer calls of %s than were made", c->who,
                     n, n == 1 ? " was" : "s were", n == 1 ? "its name" : "their names");
}

/* Phase 10: the CUPTI join (PROF__C_JOINED once done), then the tree
   (which attaches the stacks first) and memory per event. The join comes
   first, as _parse_kineto_results attaches each kernel to the op open at
   its launch before _build_tree: an op that _remove_dup_nodes merges into
   its parent hands its kernels up, which the parent gets back whenever
   the list is analysed again (a prof_events_add, a kernel appended);
   joined after the merge, a kernel went to the parent's own kernels and
   was lost then. The join needs no tree: it finds the op from the events
   by thread and time. The stacks are handed to the list once: they stay
   pending there until attached (prof__attach_stacks), and the tree starts
   afresh when an attempt failed (prof__build_tree). */
static PROF__NI int prof__c_finish(prof__collector *c) {
    prof_events *e = c->e;
    if (c->phase == PROF__C_LINKED) {
        e->stacks_pending = c->features & (PROF__F_SCOPES | PROF__F_NATIVE);
        e->native_addrs = c->addrs;
        c->addrs = NULL;
        c->phase = PROF__C_TREE;
    }
    /* the join attaches each kernel to its op once: a retry after the
       tree failed must not attach them again */
    if (c->phase == PROF__C_TREE) {
#if defined(PROF_CUPTI)
        if (c->cuda && prof__cupti_correlate(e) != 0) return -1;
#endif
        c->phase = PROF__C_JOINED;
    }
    /* (the tree's memory pass sees CUPTI's memory records with the
       threads the join gave them) */
    return prof__build_tree(e) != PROF_OK ? -1 : 0;
}

/* The records the snapshot covers, read: each thread's blocks before the
   one it was on are freed (the owner is past them and never returns: its
   next session starts at the block it is on), unless a reserve keeps them
   (reserve_events). Only a thread's first block is ever freed, with
   prof__g_lock held, as for every change of a thread's chain. */
static PROF__NI void prof__c_release(prof__collector *c) {
    size_t i;
    if (!c->release) return;
    for (i = 0; i < c->nsnap; i++) {
        prof__tstate *t = c->snaps[i].t;
        prof__block *b;
        if (!c->snaps[i].cur) continue;
        while ((b = PROF__LOAD(&t->head)) != NULL && b != c->snaps[i].cur) {
            PROF__STORE(&t->head, PROF__LOAD(&b->next));
            prof__block_free(b);
        }
    }
}
/* The phases that read the records (prof_stop's lock and prof__g_lock
   held): the list, its room, the records decoded (blocks freed as they
   are read, a failure resumed from the decode's mark), the async ranges
   paired; then the rest of the records read go. */
static PROF__NI int prof__c_read(prof__collector *c) {
    if (!c->e) {
        if (prof__c_list(c) != 0) {
            prof_events_free(c->e);
            c->e = NULL;
            return -1;
        }
        prof__c_reserve(c);
    }
    if (prof__c_decode(c) != 0 || prof__c_async(c) != 0) return -1;
    prof__c_release(c);
    prof__c_threads(c);
    prof__reap_dead_locked(); /* (the snapshots' threads are not read again) */
    c->phase = PROF__C_READ;
    return 0;
}

/* Everything a collector holds, its list included (one whose records
   were not read also gives them back). */
static PROF__NI void prof__c_free(prof__collector *c) {
    if (c->phase == PROF__C_SNAPPED) {
        pthread_mutex_lock(&prof__g_lock);
        prof__c_release(c);
        pthread_mutex_unlock(&prof__g_lock);
    }
    prof_events_free(c->e);
    prof__collector_free(c);
    memset(c, 0, sizeof *c);
}

/* prof_stop's collector: records to an event list (c->e), 0; or -1 out
   of memory, with c kept for the next attempt (see prof__collector). */
static PROF__NI int prof__collect(prof__collector *c) {
    int rc = 0;
    if (c->phase == PROF__C_NONE) {
#if defined(PROF_CUPTI)
        if (!prof__g.cupti_carry) { /* (carried on: the next window gathers) */
            c->cuda = prof__cupti_active();
            prof__cupti_stop(); /* forced flush before the CPU side closes */
        }
        c->mono_stop = prof__mono_ns();
#endif
        prof__pf_stop();
    }
    if (c->phase < PROF__C_READ) {
        pthread_mutex_lock(&prof__g_lock);
        if (c->phase == PROF__C_NONE) prof__c_end(c);
        if (c->phase == PROF__C_ENDED) {
            rc = prof__c_snapshot(c);
            PROF__TEST_HOOK(PROF__HOOK_SNAPPED);
        }
        if (!rc) rc = prof__c_read(c);
        pthread_mutex_unlock(&prof__g_lock);
        prof__map_free(&c->ptr_map);
        prof__map_free(&c->native_map);
        if (!rc) prof__c_name_open(c);
    }
    if (!rc && c->phase == PROF__C_READ && (rc = prof__c_cupti(c)) == 0) c->phase = PROF__C_CUDA;
    if (!rc && c->phase == PROF__C_CUDA) rc = prof__c_order(c);
    if (!rc && c->phase == PROF__C_ORDERED && (rc = prof__c_link(c)) == 0) c->phase = PROF__C_LINKED;
    if (!rc && !c->warned) {
        if (!c->quiet) prof__c_warn(c);
        c->warned = 1;
    }
    if (!rc) rc = prof__c_finish(c);
    if (!rc && !c->warned_ties) {
        if (!c->quiet) prof__c_warn_ties(c);
        c->warned_ties = 1;
    }
    return rc;
}

/* ----- session control: start, stop and the step schedule ----- */
typedef prof_action prof__action;
#define PROF__NONE PROF_ACTION_NONE
#define PROF__WARMUP PROF_ACTION_WARMUP
#define PROF__RECORD PROF_ACTION_RECORD
#define PROF__RECORD_AND_SAVE PROF_ACTION_RECORD_AND_SAVE

static struct {
    pthread_mutex_t lock;      /* start, stop and step; never taken by recording */
    int active;                /* between prof_start and prof_stop */
    int64_t step PROF__ALIGN8;
    prof__action action;
    uint64_t step_t0;          /* ProfilerStep#N opened at this tick, 0 = none */
    int reserve_warned;        /* a cut or failed reserve is reported once per prof_start */
    int busy;                  /* a thread holds the lock (set and cleared with it): a fork's
                                  child, where that thread does not exist, ends the session */
} prof__s = { PTHREAD_MUTEX_INITIALIZER, 0, 0, PROF__NONE, 0, 0, 0 };
static int prof__session_active(void) { return __atomic_load_n(&prof__s.active, __ATOMIC_ACQUIRE); }
/* This thread holds prof__s.lock: in prof_start, prof_step, prof_stop or
   prof_shutdown, where the log callback (warnings: events dropped at the
   cap, scopes left open) and on_trace_ready run. A prof_start, prof_step,
   prof_stop or prof_shutdown from there would wait for the lock its own
   caller holds (or free what the collection is reading): they check this
   and refuse instead (PROF__REFUSE_REENTRY). */
static __thread int prof__s_held;
/* No cancellation while the session lock is held: prof_start, prof_step
   and prof_stop sleep (the clock's fit), write (warnings) and call the
   user (on_trace_ready), all cancellation points; a thread cancelled
   there kept the lock, and prof__g_lock under it, so its own exit handler
   and every later call waited forever. A cancel sent meanwhile acts at
   the thread's next cancellation point after the call. */
static __thread int prof__s_cancel_state;
static PROF__NI void prof__s_lock(void) {
    int state;
    pthread_once(&prof__fork_once, prof__register_atfork); /* (a fork meanwhile: its child frees the lock and sees `busy`) */
    pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &state);
    pthread_mutex_lock(&prof__s.lock);
    prof__s_held = 1;
    __atomic_store_n(&prof__s.busy, 1, __ATOMIC_SEQ_CST); /* before the work it guards, on any CPU */
    prof__s_cancel_state = state;
}
static PROF__NI void prof__s_unlock(void) {
    int state = prof__s_cancel_state;
    prof__s_held = 0;
    __atomic_store_n(&prof__s.busy, 0, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&prof__s.lock);
    pthread_setcancelstate(state, NULL);
}

/* A collection that ran out of memory, kept with its records for the
   next prof_stop (phase > PROF__C_NONE); prof_stop's lock guards it. */
static prof__collector prof__c_kept;

/* The child of a fork has only the forking thread: prof.h's locks, which
   another thread may have held at the fork, start afresh, and the prefault
   thread does not exist there. The memory table's shards are the exception:
   they are taken around the fork, since a shard caught mid-change would
   stay broken in the child. */
static void prof__atfork_child(void) {
    pthread_mutex_t m1 = PTHREAD_MUTEX_INITIALIZER, m2 = PTHREAD_MUTEX_INITIALIZER, m3 = PTHREAD_MUTEX_INITIALIZER, m4 = PTHREAD_MUTEX_INITIALIZER,
                    m5 = PTHREAD_MUTEX_INITIALIZER;
    pthread_cond_t c = PTHREAD_COND_INITIALIZER;
    if (prof__s.busy && !prof__s_held) {
        /* Another thread was inside prof_start, prof_step, prof_stop or
           prof_shutdown: its work (a collection half made, arrays being
           moved, a session half begun) cannot be finished or undone
           here. The child has no session then: its prof_stop says so,
           prof_start begins afresh; what that thread held is left (not
           freed: it may be freed already). A fork from inside such a call
           (on_trace_ready, the log callback) keeps it: its thread is the
           child's. */
        memset(&prof__c_kept, 0, sizeof prof__c_kept);
        __atomic_store_n(&prof__g_epoch, 0u, __ATOMIC_RELAXED);
        prof__s.active = 0;
        prof__s.action = PROF__NONE;
        prof__s.step_t0 = 0;
    }
    prof__s.busy = prof__s_held;
    prof__g_lock = m1;
    prof__s.lock = m2;
    prof__pf_lock = m3;
    prof__pf_wake = c;
    prof__log_lock = m4;
    prof__nostate_lock = m5; /* (a leaf held a moment: taken new, as the log's) */
    prof__pf.running = 0;
    {
        /* the pool's list is consistent at every step, its count may not be */
        int n = 0;
        prof__block *b;
        for (b = prof__pf.ready; b; b = b->next) n++;
        prof__pf.n_ready = n;
        if (prof__pf.n_early > n) prof__pf.n_early = n;
    }
    if (__atomic_load_n(&prof__g_meta_busy, __ATOMIC_RELAXED)) {
        memset(&prof__g_meta, 0, sizeof prof__g_meta);
        memset(&prof__g_meta_keys, 0, sizeof prof__g_meta_keys);
        memset(&prof__g_meta_arena, 0, sizeof prof__g_meta_arena);
        prof__g_meta_busy = 0;
    }
    prof__live_fork(1);
    prof__cupti_atfork(0);
#if !defined(PROF_NO_MEMORY)
    {
        /* a category insert the fork caught is whole or not there (its
           slot is filled last but for the counts: one off at worst) */
        pthread_mutex_t m6 = PTHREAD_MUTEX_INITIALIZER;
        prof__cat_lock = m6;
    }
#endif
    {
        /* A thread the fork caught inside its gate section (prof__gate_enter
           to _leave) does not exist here: prof_stop would wait for its
           `busy` forever. Its counts stay as they were; what they lack
           shows as open at the stop. (The forking thread is in none.) */
        prof__tstate *t;
        for (t = prof__g.threads; t; t = t->next) __atomic_store_n(&t->busy, 0, __ATOMIC_RELAXED);
    }
    {
        /* The forking thread is the child's main thread, with the child's
           id: its events carry that id from here on (those it recorded
           before the fork, still in its buffer, carry it too). */
        prof__tstate *t = prof__self();
        if (t) {
            t->tid = prof__gettid();
            t->pid = (int64_t)getpid();
            t->pthread_id = (uint64_t)(uintptr_t)pthread_self();
        }
    }
}
static void prof__atfork_prepare(void) {
    prof__cupti_atfork(-1);
    prof__live_fork(-1);
}
static void prof__atfork_parent(void) {
    prof__live_fork(1);
    prof__cupti_atfork(1);
}
static void prof__register_atfork(void) { pthread_atfork(prof__atfork_prepare, prof__atfork_parent, prof__atfork_child); }

/* torch.profiler.schedule, step by step. */
PROF_API prof_action prof_schedule_action(const prof_schedule *s, int64_t step) {
    int64_t n;
    if (!s || s->active <= 0) return PROF__RECORD; /* no schedule: record everything */
    /* negative counts: PyTorch asserts, prof_start refuses them; here (a
       public function, no session) nothing is recorded, and a cycle of
       length 0 is never divided by */
    if (step < 0 || s->wait < 0 || s->warmup < 0 || s->repeat < 0 || s->skip_first < 0) return PROF__NONE;
    if (step < s->skip_first) return PROF__NONE;
    step -= s->skip_first;
    n = (int64_t)s->wait + s->warmup + s->active;
    if (s->repeat > 0 && step / n >= s->repeat) return PROF__NONE; /* (repeat * n can overflow) */
    step %= n;
    if (step < s->wait) return PROF__NONE;
    if (step < (int64_t)s->wait + s->warmup) return PROF__WARMUP;
    return step < n - 1 ? PROF__RECORD : PROF__RECORD_AND_SAVE;
}

static PROF__NI void prof__begin_recording(void) {
    uint32_t epoch;
    unsigned f = 0;
    prof_config *c = &prof__g.cfg;
    pthread_mutex_lock(&prof__g_lock);
    prof__reap_dead_locked();
    __atomic_store_n(&prof__g.budget, (int64_t)c->max_events, __ATOMIC_RELAXED);
    __atomic_store_n(&prof__g.held, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&prof__g.held_max, (int64_t)(c->max_events / 4), __ATOMIC_RELAXED);
    __atomic_store_n(&prof__g.nbound, 0u, __ATOMIC_RELAXED);
    prof__pf_session(!c->no_prefault_thread, c->reserve_events != 0);
#if defined(PROF_CUPTI)
    /* enabling can take long on a real GPU: done before the session's
       start times are taken, so CPU and GPU share one origin (unless a
       warm-up left it on: its records before this origin are left out) */
    if (!prof__cupti_active()) prof__cupti_start(c->activities);
    else prof__cupti_forget_done(); /* a warm-up's records, before this window */
#endif
    prof__g.cupti_carry = 0;
    prof__clock_init();
    if (c->record_shapes) f |= PROF__F_SHAPES;
    if (c->with_flops) f |= PROF__F_FLOPS;
    if (c->profile_memory) f |= PROF__F_MEMORY;
#if !defined(PROF_NO_STACK)
    if (c->with_stack == PROF_STACK_SCOPES) f |= PROF__F_SCOPES;
#if defined(PROF__HAVE_BACKTRACE)
    if (c->with_stack == PROF_STACK_NATIVE) {
        void *warm[2];
        f |= PROF__F_NATIVE;
        backtrace(warm, 2); /* loads the unwinder now, not inside a scope */
    }
#endif
#endif
    __atomic_store_n(&prof__g_features, f, __ATOMIC_RELAXED);
    __atomic_store_n(&prof__g_unknown_frees, 0u, __ATOMIC_RELAXED);
    __atomic_store_n(&prof__nomem_skip, 0u, __ATOMIC_RELAXED); /* memory may be back: try at once */
    __atomic_store_n(&prof__nomem_next, 0u, __ATOMIC_RELAXED);
    /* the session's origin: CPU times count from tick_start, CUPTI's
       from mono_start, so the two are read as one pair */
    prof__clock_pair(&prof__g.tick_start, &prof__g.mono_start);
    prof__clock_wall(prof__g.mono_start, &prof__g.real_start, &prof__g.boot_start);
    epoch = prof__g.last_epoch + 4; /* steps of 4: see prof__thread's gate */
    if (!epoch) epoch = 4;
    prof__g.last_epoch = epoch;
    __atomic_store_n(&prof__g_epoch, epoch, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&prof__g_lock);
    /* Attach the calling thread now so its first scope pays nothing extra. */
    prof__thread_bind(PROF__BIND_START);
}

/* Ends the recording window, or resumes a collection kept by a failed
   prof_stop; the events gain the session's metadata. How: PROF__END_KEEP
   (prof_stop) keeps the collection for the next prof_stop when memory runs
   out; a schedule's window is delivered (PROF__END_DELIVER) or thrown away
   (PROF__END_DISCARD: a warm-up, or a schedule that left recording, which
   says so itself, where nothing is said of what its events lost), and out
   of memory a window to deliver is lost, with an error (PROF_E_NOMEM in
   *res), as the next window begins at once; one to discard is discarded
   as it would have been. */
enum { PROF__END_DELIVER = 0, PROF__END_KEEP = 1, PROF__END_DISCARD = 2 };
static PROF__NI prof_events *prof__end_recording(int how, const char *who, prof_result *res) {
    const int keep = how == PROF__END_KEEP;
    prof__collector *c = &prof__c_kept;
    prof_events *e;
    prof__kv *kv = NULL;
    size_t n, i;
    if (!c->phase && !__atomic_load_n(&prof__g_epoch, __ATOMIC_RELAXED)) return NULL;
    c->who = who;
    c->quiet = how == PROF__END_DISCARD;
    if (prof__collect(c) != 0) {
        const char *what = c->phase >= PROF__C_READ ? "analysing events" : "collecting events";
        if (keep) {
            prof__report(PROF_LOG_ERROR, PROF_E_NOMEM, "prof_stop: out of memory while %s; recording has ended and the records are kept: free memory and call prof_stop again (prof_start discards them)", what);
            return NULL;
        }
        prof__c_free(c);
        if (how == PROF__END_DELIVER)
            *res = prof__report(PROF_LOG_ERROR, PROF_E_NOMEM, "%s: out of memory while %s at the end of a schedule's recording window; its events are lost", who, what);
        return NULL;
    }
    e = c->e;
    c->e = NULL;
    prof__c_free(c);
    /* the session's keys, copied under prof__g_lock (prof_add_metadata
       may replace a value meanwhile, from another thread, and free the
       old one), then added with the lock free (its messages call the
       user's log) */
    pthread_mutex_lock(&prof__g_lock);
    n = prof__g_meta.n;
    if (n && (kv = PROF__ALLOC(prof__kv, n)) != NULL) {
        for (i = 0; i < n; i++) {
            kv[i].key = prof__strdup(prof__g_meta.v[i].key);
            kv[i].value = prof__strdup(prof__g_meta.v[i].value);
            kv[i].is_json = prof__g_meta.v[i].is_json;
        }
    }
    pthread_mutex_unlock(&prof__g_lock);
    if (n && !kv) prof__report(PROF_LOG_ERROR, PROF_E_NOMEM, "%s: out of memory: the trace has none of the session's metadata", who);
    for (i = 0; kv && i < n; i++) {
        if (kv[i].key && kv[i].value) prof__add_meta(e, kv[i].key, kv[i].value, kv[i].is_json);
        else prof__report(PROF_LOG_ERROR, PROF_E_NOMEM, "%s: out of memory: a metadata key is not in the trace", who);
        PROF__FREE(kv[i].key);
        PROF__FREE(kv[i].value);
    }
    PROF__FREE(kv);
    return e;
}
/* prof_start and prof_shutdown: a kept collection goes (prof_stop's lock held). */
static PROF__NI void prof__discard_kept(const char *who) {
    if (!prof__c_kept.phase) return;
    prof__c_free(&prof__c_kept);
    prof__report(PROF_LOG_WARNING, PROF_E_STATE, "%s: the records kept when prof_stop ran out of memory are discarded (call prof_stop again first to get them)", who);
}

/* Admitted by the cap when it opens, like every scope. */
static PROF__NI void prof__step_scope_open(void) {
    prof__thread *h;
    prof__s.step_t0 = 0;
    if (!prof__g.cfg.schedule.active || !__atomic_load_n(&prof__g_epoch, __ATOMIC_RELAXED)) return;
    if ((h = prof__thread_get()) != NULL && prof__admit(prof__tstate_of(h))) prof__s.step_t0 = prof__now();
}
/* ProfilerStep#N is a scope of the thread that calls prof_step / prof_stop
   (opened by whichever thread began the step: the collector knows its
   records by the site's func, prof__step_func). */
static PROF__NI void prof__step_scope_close(void) {
    static const prof_site step_site = { "", "prof.h", prof__step_func, 0, 0 };
    char name[48];
    prof__thread *h;
    prof__rec *r;
    const prof_site *named;
    uint64_t t1 = prof__now();
    if (!prof__s.step_t0 || !prof__g.cfg.schedule.active) return;
    snprintf(name, sizeof name, "ProfilerStep#%lld", (long long)prof__s.step);
    if (!(h = prof__thread_get())) {
        /* the session is over: the scope was open at the stop */
    } else if ((named = prof__intern_site(&step_site, name)) != NULL && (r = prof__slots(h, 1))) {
        r->site = named;
        r->t0 = prof__s.step_t0;
        r->t1 = t1;
        PROF__STORE(&h->pos, r + 1);
    } else {
        prof__scope_lost_span(prof__tstate_of(h), &step_site, prof__s.step_t0, t1);
    }
    prof__s.step_t0 = 0;
}

/* on_trace_ready runs with the session lock held (prof__s_held): its
   flag only words the refusal. */
static __thread int prof__in_trace_ready;
static PROF__NI void prof__deliver(prof_events *e) {
    if (e && prof__g.cfg.on_trace_ready) {
        prof__in_trace_ready = 1;
        prof__g.cfg.on_trace_ready(e, prof__g.cfg.trace_ready_user_data);
        prof__in_trace_ready = 0;
    }
}
/* A session call refused (the session lock is this thread's): an error,
   and from inside the log callback (on_trace_ready's messages too) one in
   prof_last_error and the result only (prof__log_mute). */
static PROF__NI void prof__refuse(const char *fn, const char *advice) {
    int mute = prof__in_log != 0;
    prof__log_mute += mute;
    prof__report(PROF_LOG_ERROR, PROF_E_STATE, "%s: called from %s, which runs inside prof_start, prof_step, prof_stop or prof_shutdown; %s",
                 fn, mute || !prof__in_trace_ready ? "the log callback" : "on_trace_ready", advice);
    prof__log_mute -= mute;
}
#define PROF__REFUSE_REENTRY(fn, ret) do {                                                     \
        if (prof__s_held) {                                                                 \
            prof__refuse(fn, "start, step and stop the session outside the callback");      \
            return ret;                                                                     \
        } } while (0)

/* torch.profiler.profile's action_map: what a change of action does. */
static PROF__NI prof_result prof__transit(prof__action from, prof__action to) {
    prof_result res = PROF_OK;
    if (from == to && from != PROF__RECORD_AND_SAVE) return PROF_OK;
    if (from == PROF__RECORD_AND_SAVE) {
        prof_events *e = prof__end_recording(PROF__END_DELIVER, "prof_step", &res);
        prof__deliver(e);
        prof_events_free(e);
    } else if (from == PROF__WARMUP || (from == PROF__RECORD && to != PROF__RECORD_AND_SAVE)) {
        if (to == PROF__NONE || from == PROF__RECORD)
            prof__report(PROF_LOG_WARNING, PROF_E_STATE, "prof_step: schedule goes from %s to %s; the recorded steps are discarded",
                         from == PROF__WARMUP ? "warm-up" : "recording", to == PROF__NONE ? "nothing" : "warm-up");
        /* warm-up steps are recorded only to be thrown away; CUPTI stays
           on from a warm-up into recording, which is what the warm-up
           warms up (Kineto enables CUPTI when the warm-up begins and marks
           the window's start when recording does), and what it recorded
           before the window is left out by time */
        prof__g.cupti_carry = from == PROF__WARMUP && to != PROF__NONE;
        prof_events_free(prof__end_recording(PROF__END_DISCARD, "prof_step", NULL));
    } else if (from == PROF__RECORD && to == PROF__RECORD_AND_SAVE) {
        return PROF_OK;
    }
    if (to != PROF__NONE && !__atomic_load_n(&prof__g_epoch, __ATOMIC_RELAXED)) {
        /* reserve_events, made (or topped up) as each recording window
           begins: the first one of a session, or a schedule's later ones */
        size_t want = prof__g.cfg.reserve_events;
        int r = prof__pf_reserve(&want); /* with 0: blocks of exited threads are no longer kept */
        if (r && !prof__s.reserve_warned) {
            prof__s.reserve_warned = 1;
            if (r & PROF__RESERVE_CUT)
                prof__report(PROF_LOG_WARNING, PROF_E_ARG, "reserve_events %zu is more than half the memory this process may use (or a quarter of its address space); %zu reserved",
                             prof__g.cfg.reserve_events, want);
            if (r & PROF__RESERVE_NOMEM)
                prof__report(PROF_LOG_WARNING, PROF_E_NOMEM, "reserve_events: could not map all %zu records; recording maps the rest as it goes", want);
        }
        prof__begin_recording();
    }
    return res;
}

/* prof_shutdown: a kept collection goes, and prof_stop's lock stays held
   until prof__shutdown_done (1: taken). -1: refused, called from the log
   callback while this thread's prof_start, prof_step or prof_stop holds
   the lock (a collection may be reading the buffers prof_shutdown frees). */
static PROF__NI int prof__shutdown_kept(void) {
    if (prof__s_held && !prof__in_trace_ready) {
        prof__refuse("prof_shutdown", "call it outside the callback");
        return -1;
    }
    if (prof__s_held) return 0; /* inside prof_stop or prof_step (on_trace_ready), which hold the lock: nothing is kept */
    prof__s_lock();
    prof__discard_kept("prof_shutdown");
    return 1;
}
static PROF__NI void prof__shutdown_done(int locked) {
    if (locked) prof__s_unlock();
}

/* prof_start's config, checked with the session lock held (its messages
   too, as every message of prof_start, prof_step and prof_stop: a log
   callback that calls one of them is refused, never starts a session
   beside the call that is failing). */
static PROF__NI prof_result prof__start_check(const prof_config *c) {
    const prof_schedule *s = &c->schedule;
    if (s->active < 0 || s->wait < 0 || s->warmup < 0 || s->repeat < 0 || s->skip_first < 0 ||
        (s->active == 0 && (s->wait || s->warmup || s->repeat || s->skip_first)))
        return prof__report(PROF_LOG_ERROR, PROF_E_ARG, "prof_start: invalid schedule (wait %d, warmup %d, active %d, repeat %d, skip_first %d): active must be > 0 and the others >= 0",
                            s->wait, s->warmup, s->active, s->repeat, s->skip_first);
    if (c->with_stack < PROF_STACK_NONE || c->with_stack > PROF_STACK_NATIVE)
        return prof__report(PROF_LOG_ERROR, PROF_E_ARG, "prof_start: with_stack %d is not PROF_STACK_NONE, _SCOPES or _NATIVE", c->with_stack);
    /* Scopes are recorded whenever a session records: CUDA alone would
       still record them, so it is refused rather than ignored. */
    if (c->activities & ~(unsigned)(PROF_ACTIVITY_CPU | PROF_ACTIVITY_CUDA))
        return prof__report(PROF_LOG_ERROR, PROF_E_ARG, "prof_start: activities 0x%x has bits other than PROF_ACTIVITY_CPU and PROF_ACTIVITY_CUDA", c->activities);
    if (c->activities && !(c->activities & PROF_ACTIVITY_CPU))
        return prof__report(PROF_LOG_ERROR, PROF_E_ARG, "prof_start: activities without PROF_ACTIVITY_CPU are not supported (prof.h records CPU scopes in every session); use PROF_ACTIVITY_CPU | PROF_ACTIVITY_CUDA, or 0 for the default");
#if !defined(PROF_NO_STACK) && !defined(PROF__HAVE_BACKTRACE)
    if (c->with_stack == PROF_STACK_NATIVE) /* (a warning: all else is recorded) */
        prof__report(PROF_LOG_WARNING, PROF_E_ARG, "prof_start: with_stack = PROF_STACK_NATIVE needs glibc's backtrace(), which this C library does not have: the events get no native stacks (PROF_STACK_SCOPES works with any)");
#endif
    if (prof__s.active) return prof__report(PROF_LOG_ERROR, PROF_E_STATE, "prof_start: a session is already running; call prof_stop first");
    return PROF_OK;
}

PROF_API prof_result prof_start(const prof_config *cfg) {
    prof_config c;
    prof_result res;
    PROF__REFUSE_REENTRY("prof_start", PROF_E_STATE); /* before anything changes, the log callback included */
    if (cfg) c = *cfg;
    else memset(&c, 0, sizeof c);
    if (c.log) prof_set_log(c.log, c.log_user_data);
    pthread_once(&prof__fork_once, prof__register_atfork);
    prof__s_lock();
    if ((res = prof__start_check(&c)) != PROF_OK) {
        prof__s_unlock();
        return res;
    }
    prof__discard_kept("prof_start");
    if (!c.max_events) c.max_events = (size_t)1 << 24;
    if (c.max_events > (size_t)INT64_MAX) c.max_events = (size_t)INT64_MAX;
    if (!c.activities) c.activities = PROF_ACTIVITY_CPU | PROF_ACTIVITY_CUDA;
    /* a feature compiled out is off whatever the config says (the table
       shows no column of zeros for it); otherwise, as torch's profile,
       record_shapes |= with_flops (an op's FLOPs come with its shapes, so
       grouping by shapes sees what PyTorch's would) */
#if defined(PROF_NO_FLOPS)
    c.with_flops = 0;
#endif
    if (c.with_flops) c.record_shapes = 1;
#if defined(PROF_NO_SHAPES)
    c.record_shapes = 0;
#endif
#if defined(PROF_NO_MEMORY)
    c.profile_memory = 0;
#endif
#if defined(PROF_NO_STACK)
    c.with_stack = PROF_STACK_NONE;
#endif
    pthread_mutex_lock(&prof__g_lock);
    prof__g.cfg = c;
    prof__meta_clear_locked();
    pthread_mutex_unlock(&prof__g_lock);
    __atomic_store_n(&prof__s.active, 1, __ATOMIC_RELEASE); /* (read without the lock by prof_add_metadata) */
    prof__s.reserve_warned = 0;
    __atomic_store_n(&prof__s.step, (int64_t)0, __ATOMIC_RELAXED);
    prof__s.action = prof_schedule_action(&c.schedule, 0);
    (void)prof__transit(PROF__NONE, prof__s.action); /* (from no recording: nothing can fail) */
    prof__step_scope_open();
    prof__s_unlock();
    return PROF_OK;
}

PROF_API prof_result prof_step(void) {
    prof__action next;
    prof_result res;
    PROF__REFUSE_REENTRY("prof_step", PROF_E_STATE);
    prof__s_lock();
    if (!prof__s.active) { /* (reported with the lock held, as every message of the call: see PROF__REFUSE_REENTRY) */
        res = prof__report(PROF_LOG_ERROR, PROF_E_STATE, "prof_step: no session; call prof_start first");
        prof__s_unlock();
        return res;
    }
    prof__step_scope_close();
    __atomic_store_n(&prof__s.step, prof__s.step + 1, __ATOMIC_RELAXED);
    next = prof_schedule_action(&prof__g.cfg.schedule, prof__s.step);
    res = prof__transit(prof__s.action, next);
    prof__s.action = next;
    prof__step_scope_open();
    prof__s_unlock();
    return res;
}
/* No lock: on_trace_ready runs inside prof_step and may ask. */
PROF_API int64_t prof_step_number(void) { return __atomic_load_n(&prof__s.step, __ATOMIC_RELAXED); }

PROF_API prof_events *prof_stop(void) {
    prof_events *e = NULL;
    PROF__REFUSE_REENTRY("prof_stop", NULL);
    prof__s_lock();
    if (prof__c_kept.phase) { /* an earlier prof_stop ran out of memory: its collection again */
        e = prof__end_recording(PROF__END_KEEP, "prof_stop", NULL);
        prof__deliver(e);
        prof__s_unlock();
        return e;
    }
    if (!prof__s.active) {
        prof__report(PROF_LOG_ERROR, PROF_E_STATE, "prof_stop: no session is recording");
        prof__s_unlock();
        return NULL;
    }
    prof__step_scope_close();
    if (prof__s.action == PROF__RECORD || prof__s.action == PROF__RECORD_AND_SAVE) {
        e = prof__end_recording(PROF__END_KEEP, "prof_stop", NULL);
        if (!e) { __atomic_store_n(&prof__s.active, 0, __ATOMIC_RELEASE); prof__s_unlock(); return NULL; }
        prof__deliver(e);
    } else {
        prof_events_free(prof__end_recording(PROF__END_DISCARD, "prof_stop", NULL)); /* warm-up: discarded */
        e = prof_events_create();
    }
    __atomic_store_n(&prof__s.active, 0, __ATOMIC_RELEASE);
    prof__s_unlock();
    return e;
}

PROF_API int prof_is_recording(void) { return __atomic_load_n(&prof__g_epoch, __ATOMIC_RELAXED) != 0; }

/* The trace's own top-level keys: user metadata under one of these would
   give the file two of them, which strict parsers reject and others read
   as the user's value. (distributedInfo is allowed: the user's replaces
   the one prof.h would write from the node id.) */
static PROF__NI int prof__meta_key_reserved(const char *key) {
    static const char *const reserved[] = { "schemaVersion", "deviceProperties", "displayTimeUnit", "baseTimeNanoseconds", "traceEvents", "traceName", "prof_dropped", "prof_open_at_stop",
                                            "systemTraceEvents", "stackFrames", "samples" }; /* (the last three: readers parse them as their own) */
    size_t i;
    for (i = 0; i < sizeof reserved / sizeof *reserved; i++)
        if (strcmp(key, reserved[i]) == 0) return 1;
    return 0;
}
static PROF__NI prof_result prof__session_meta(const char *key, const char *value, int is_json) {
    const char *who = is_json ? "prof_add_metadata_json" : "prof_add_metadata", *k;
    char *copy, *old = NULL;
    int ok;
    if (!key || !value) return prof__report(PROF_LOG_ERROR, PROF_E_ARG, "%s: key and value must not be NULL", who);
    if (prof__meta_key_reserved(key)) return prof__report(PROF_LOG_ERROR, PROF_E_ARG, "%s: '%s' is one of the trace's own keys", who, key);
    if (is_json && !prof_json_valid(value))
        return prof__report(PROF_LOG_ERROR, PROF_E_ARG, "%s: the value for '%s' is not valid JSON", who, key);
    /* (prof_start clears the keys: one given between sessions would be
       lost without a word) */
    if (!__atomic_load_n(&prof__s.active, __ATOMIC_ACQUIRE))
        return prof__report(PROF_LOG_ERROR, PROF_E_STATE, "%s: no session is recording; '%s' is not kept (call it after prof_start, or add it to a list with prof_events_add_metadata%s)",
                            who, key, is_json ? "_json" : "");
    if (!(copy = prof__strdup(value))) return prof__report(PROF_LOG_ERROR, PROF_E_NOMEM, "%s: out of memory", who);
    /* a key set again: its new value replaces the old one (only it is
       written), in the place of its first setting */
    pthread_mutex_lock(&prof__g_lock);
    (void)__atomic_exchange_n(&prof__g_meta_busy, 1, __ATOMIC_ACQ_REL); /* (the changes after it, the clearing after them) */
    prof__g_meta_keys.arena = &prof__g_meta_arena;
    ok = (k = prof__intern(&prof__g_meta_keys, key)) != NULL && prof__metas_set(&prof__g_meta, k, copy, is_json, &old);
    __atomic_store_n(&prof__g_meta_busy, 0, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&prof__g_lock);
    if (!ok) {
        PROF__FREE(copy);
        return prof__report(PROF_LOG_ERROR, PROF_E_NOMEM, "%s: out of memory", who);
    }
    PROF__FREE(old);
    return PROF_OK;
}
PROF_API prof_result prof_add_metadata(const char *key, const char *value) { return prof__session_meta(key, value, 0); }
PROF_API prof_result prof_add_metadata_json(const char *key, const char *json) { return prof__session_meta(key, json, 1); }

/* >>eventlist ============================================================*/
/* The list's API: lists built by hand, kernels and memory added to them,
   counts; prof_events_get is in >>aggregation, after the tree. */
static PROF__NI void prof__tree_invalidate(prof_events *e) {
    e->tree_built = 0;
    PROF__FREE(e->dev_memo);
    e->dev_memo = NULL;
    prof__kids_clear(e);
}

/* The parts of a description that would otherwise be read past their end
   (a NULL stack or shape array with a count above 0, a NULL dims with dims
   to read) or silently changed (a negative count read as none, a device
   type or scope cut to 8 bits), refused before anything is added, so the
   list is as it was. Device types: torch's DeviceType numbers, 0-31, as
   prof_events_add_memory takes them. */
static PROF__NI prof_result prof__desc_check(const prof_event_desc *d) {
    int k;
    if ((unsigned)d->device_type > 31u) /* (a negative value too) */
        return prof__report(PROF_LOG_ERROR, PROF_E_ARG, "prof_events_add: event '%s' has device type %d, not a device type 0-31 (PROF_DEVICE_CPU, PROF_DEVICE_CUDA or another of torch's DeviceType numbers)",
                            d->name, (int)d->device_type);
    if (d->scope < 0 || d->scope > 255)
        return prof__report(PROF_LOG_ERROR, PROF_E_ARG, "prof_events_add: event '%s' has scope %d, not a RecordScope 0-255 (0 forward, 1 backward function)", d->name, d->scope);
    if (d->stack_depth < 0 || (d->stack_depth > 0 && !d->stack))
        return prof__report(PROF_LOG_ERROR, PROF_E_ARG, "prof_events_add: event '%s' has stack_depth %d with %s (give depth 0 for no stack)", d->name, d->stack_depth,
                            d->stack ? "a stack: a depth cannot be negative" : "a NULL stack");
    if (d->set & PROF_EVENT_SHAPES) {
        const prof_shapes *s = &d->input_shapes;
        int64_t dims = 0;
        if (s->n_inputs < 0 || (s->n_inputs > 0 && !s->ndims))
            return prof__report(PROF_LOG_ERROR, PROF_E_ARG, "prof_events_add: event '%s' has %d input shapes with %s (n_inputs 0 is the empty list [])", d->name, s->n_inputs,
                                s->ndims ? "ndims: a count cannot be negative" : "ndims NULL");
        for (k = 0; k < s->n_inputs; k++) {
            if (s->ndims[k] < 0)
                return prof__report(PROF_LOG_ERROR, PROF_E_ARG, "prof_events_add: event '%s': input %d of its shapes has %d dims; a count cannot be negative", d->name, k, s->ndims[k]);
            dims += s->ndims[k];
        }
        if (dims > 0 && !s->dims)
            return prof__report(PROF_LOG_ERROR, PROF_E_ARG, "prof_events_add: event '%s': its input shapes have %lld dims in all but dims is NULL", d->name, (long long)dims);
    }
    return PROF_OK;
}

PROF_API int64_t prof_events_add(prof_events *e, const prof_event_desc *d) {
    prof__ev v;
    int64_t site, thr;
    int need_extra;
    if (!e || !d || !d->name) {
        prof__report(PROF_LOG_ERROR, PROF_E_ARG, "prof_events_add: the list, the description and its name must not be NULL");
        return -1;
    }
    if (d->end_ns < d->start_ns) {
        prof__report(PROF_LOG_ERROR, PROF_E_ARG, "prof_events_add: event '%s' ends (%lld ns) before it starts (%lld ns)", d->name, (long long)d->end_ns, (long long)d->start_ns);
        return -1;
    }
    if ((uint64_t)d->end_ns - (uint64_t)d->start_ns > (uint64_t)INT64_MAX) { /* every sum and difference below stays in int64 */
        prof__report(PROF_LOG_ERROR, PROF_E_ARG, "prof_events_add: event '%s' lasts longer than 2^63 - 1 ns (%lld to %lld)", d->name, (long long)d->start_ns, (long long)d->end_ns);
        return -1;
    }
    if (prof__desc_check(d) != PROF_OK) return -1;
    if (e->n >= (size_t)INT32_MAX) { prof__report(PROF_LOG_ERROR, PROF_E_NOMEM, "prof_events_add: too many events"); return -1; }
    site = prof__site_index(e, d->name, d->file, d->func, d->line, 0);
    thr = prof__thread_index(e, d->thread, NULL);
    if (site < 0 || thr < 0 || !PROF__PUSH_OK(e->ev, e->n, e->cap)) {
        prof__report(PROF_LOG_ERROR, PROF_E_NOMEM, "prof_events_add: out of memory");
        return -1;
    }
    memset(&v, 0, sizeof v);
    v.start = d->start_ns;
    v.end = d->end_ns;
    v.site = (uint32_t)site;
    v.thread = (uint32_t)thr;
    v.parent = v.first_child = v.next_sibling = -1;
    v.node_id = (d->set & PROF_EVENT_NODE_ID) ? d->node_id : -1;
    v.device_type = (uint8_t)d->device_type;
    v.scope = (uint8_t)d->scope;
    v.flags = (uint16_t)(((d->set & PROF_EVENT_ASYNC) ? PROF__F_ASYNC : 0) | ((d->set & PROF_EVENT_USER_ANNOTATION) ? PROF__F_USER_ANN : 0) |
                          ((d->set & PROF_EVENT_LEGACY) ? PROF__F_LEGACY : 0));
    need_extra = (d->overload_name && d->overload_name[0]) || d->trace_name || (d->set & (PROF_EVENT_SHAPES | PROF_EVENT_SEQUENCE_NR | PROF_EVENT_FWD_THREAD | PROF_EVENT_RESOURCE_ID)) ||
                 d->device_index || d->flops || d->cpu_memory_usage || d->device_memory_usage;
    if (need_extra) {
        /* the names and shapes copied first: a copy that fails fails the
           call before the extra is made */
        const char *over = NULL, *trace = NULL, *shapes = NULL;
        prof__extra *x;
        if ((d->overload_name && d->overload_name[0] && !(over = prof__intern(&e->strs, d->overload_name))) ||
            (d->trace_name && !(trace = prof__intern(&e->strs, d->trace_name))) ||
            ((d->set & PROF_EVENT_SHAPES) && !(shapes = prof__shapes_repr(e, &d->input_shapes))) || !(x = prof__extra_of(e, &v))) {
            prof__report(PROF_LOG_ERROR, PROF_E_NOMEM, "prof_events_add: out of memory");
            return -1;
        }
        x->overload_name = over;
        x->trace_name = trace;
        x->shapes = shapes;
        if (d->set & PROF_EVENT_SEQUENCE_NR) x->sequence_nr = d->sequence_nr;
        if (d->set & PROF_EVENT_FWD_THREAD) { x->has_fwd_thread = 1; x->fwd_thread = d->fwd_thread; }
        if (d->set & PROF_EVENT_RESOURCE_ID) { x->has_resource = 1; x->resource_id = d->device_resource_id; }
        x->device_index = d->device_index;
        x->flops = d->flops;
        x->cpu_mem = d->cpu_memory_usage;
        x->dev_mem = d->device_memory_usage;
    }
    if (d->stack_depth > 0) {
        uint32_t node = prof__node_of(e, d->stack, d->stack_depth);
        if (node == UINT32_MAX || prof__stack_set(e, e->n, node) != 0) { prof__report(PROF_LOG_ERROR, PROF_E_NOMEM, "prof_events_add: out of memory"); return -1; }
    } else if (e->stk && e->n < e->capstk) {
        e->stk[e->n] = 0;
    }
    e->ev[e->n] = v;
    prof__tree_invalidate(e);
    e->dups_added = e->ndups != 0;
    e->stats.events = e->n + 1 - e->nmemrows;
    return (int64_t)e->n++;
}

static PROF__NI prof_result prof__append_kernel(prof_events *e, size_t index, const char *name, int device, int64_t duration_ns, uint32_t corr);
/* A parent's kernels before a merge replaced them (>>tree: prof__remove_dup_nodes). */
typedef struct prof__dupkern { uint32_t extra; int32_t kern_head; int64_t kern_ns; } prof__dupkern;
PROF_API prof_result prof_events_append_kernel(prof_events *e, size_t index, const char *name, int device, int64_t duration_ns) {
    prof_result r;
    if (!e) return prof__report(PROF_LOG_ERROR, PROF_E_ARG, "prof_events_append_kernel: the event list is NULL");
    if (device < 0 || device > 63) return prof__report(PROF_LOG_ERROR, PROF_E_ARG, "prof_events_append_kernel: device %d is not a device index 0-63", device);
    r = prof__append_kernel(e, index, name, device, duration_ns, 0);
    if (r == PROF_OK) {
        prof__tree_invalidate(e);
        /* a read merged events: the next one puts them back and merges
           again (prof__dups_restore), as if the kernel had been there
           from the start (a merge replaces a parent's kernels) */
        e->dups_added |= e->ndups != 0;
    }
    return r;
}
/* Into m (empty): each extra that dupk saved kernels of -> its first
   entry, the kernels it had before any merge (prof__dupk_undo restores in
   reverse). 0 without memory. */
static PROF__NI int prof__dupk_map(const prof_events *e, prof__map *m) {
    size_t k;
    uint32_t *slot;
    int found;
    for (k = 0; k < e->ndupk; k++) {
        if (!(slot = prof__map_slot(m, e->dupk[k].extra, &found))) return 0;
        if (!found) *slot = (uint32_t)k;
    }
    return 1;
}
/* The first entry of dupk that saved extra's kernels, else ndupk; by the
   map, made on first use and kept (a kernel appended to each of a million
   merged events would scan dupk a million times), or, without memory for
   it, by a scan. */
static PROF__NI size_t prof__dupk_first(prof_events *e, uint32_t extra) {
    size_t k;
    uint32_t got;
    if (e->dupk_first.n || prof__dupk_map(e, &e->dupk_first))
        return (got = prof__map_get(&e->dupk_first, extra)) == UINT32_MAX ? e->ndupk : got;
    prof__map_free(&e->dupk_first);
    for (k = 0; k < e->ndupk && e->dupk[k].extra != extra; k++) {}
    return k;
}
/* FunctionEvent.append_kernel; the tree stays valid, device totals do not. */
static PROF__NI prof_result prof__append_kernel(prof_events *e, size_t index, const char *name, int device, int64_t duration_ns, uint32_t corr) {
    prof__extra *x;
    int32_t *head;
    int64_t *ns;
    size_t k;
    if (!e || index >= e->n) return prof__report(PROF_LOG_ERROR, PROF_E_ARG, "prof_events_append_kernel: no event %zu", index);
    if (!name) return prof__report(PROF_LOG_ERROR, PROF_E_ARG, "prof_events_append_kernel: the kernel's name is NULL");
    if (duration_ns < 0) return prof__report(PROF_LOG_ERROR, PROF_E_ARG, "prof_events_append_kernel: negative duration %lld ns", (long long)duration_ns);
    if (e->ev[index].device_type != PROF_DEVICE_CPU)
        return prof__report(PROF_LOG_ERROR, PROF_E_ARG, "prof_events_append_kernel: kernels attach to CPU events only");
    if (e->ev[index].flags & PROF__F_MEMROW) /* (remade from the memory records at each build: a kernel there went with it) */
        return prof__report(PROF_LOG_ERROR, PROF_E_ARG, "prof_events_append_kernel: event %zu is a [memory] row, which holds no kernels", index);
    x = prof__extra_of(e, &e->ev[index]);
    if (!x || !PROF__PUSH_OK(e->kern, e->nkern, e->capkern)) return prof__report(PROF_LOG_ERROR, PROF_E_NOMEM, "prof_events_append_kernel: out of memory");
    head = &x->kern_head;
    ns = &x->kern_ns;
    /* an event whose kernels a merge replaced with its child's (a list
       read, then appended to): the child's chain is shared, and a rebuild
       gives the event back the kernels it had (prof__dupk_undo). The new
       one goes on those, the first saved: linked onto the child's chain it
       was the child's after the rebuild (not counted in its sum) and gone
       from the event. */
    if (e->ndupk && (k = prof__dupk_first(e, e->ev[index].extra)) < e->ndupk) {
        head = &e->dupk[k].kern_head;
        ns = &e->dupk[k].kern_ns;
    }
    e->kern[e->nkern].name = prof__intern(&e->strs, name);
    e->kern[e->nkern].device = device;
    e->kern[e->nkern].corr = corr;
    e->kern[e->nkern].dur = duration_ns;
    e->kern[e->nkern].next = -1;
    e->kern[e->nkern].tail = (int32_t)e->nkern;
    /* append at the tail so kernels keep launch order */
    if (*head < 0) *head = (int32_t)e->nkern;
    else {
        prof__kernel *first = &e->kern[*head];
        e->kern[first->tail].next = (int32_t)e->nkern;
        first->tail = (int32_t)e->nkern;
    }
    prof__sat_add(ns, duration_ns);
    e->nkern++;
    PROF__FREE(e->dev_memo);
    e->dev_memo = NULL;
    prof__kids_clear(e);
    return PROF_OK;
}

#define PROF__DEVICE_NAME_MAX 23
PROF_API prof_result prof_events_add_memory(prof_events *e, uint64_t thread, int64_t time_ns, int64_t bytes, prof_device_type device, int device_index) {
    int64_t thr;
    prof__memrec *m;
    if (!e) return prof__report(PROF_LOG_ERROR, PROF_E_ARG, "prof_events_add_memory: the event list is NULL");
    if ((unsigned)device > 31u || device_index < 0 || device_index > 63)
        return prof__report(PROF_LOG_ERROR, PROF_E_ARG, "prof_events_add_memory: device %d:%d is not a device type 0-31 and index 0-63", (int)device, device_index);
    if (e->nmem >= (size_t)UINT32_MAX - 1) return prof__report(PROF_LOG_ERROR, PROF_E_ARG, "prof_events_add_memory: too many memory records");
    thr = prof__thread_index(e, thread, NULL);
    if (thr < 0 || !PROF__PUSH_OK(e->mem, e->nmem, e->capmem)) return prof__report(PROF_LOG_ERROR, PROF_E_NOMEM, "prof_events_add_memory: out of memory");
    m = &e->mem[e->nmem++];
    memset(m, 0, sizeof *m);
    m->ts = time_ns;
    m->bytes = bytes;
    m->thread = (uint32_t)thr;
    m->device_type = (int)device;
    m->device_index = device_index;
    prof__tree_invalidate(e);
    return PROF_OK;
}

PROF_API prof_result prof_events_set_device(prof_events *e, const char *use_device) {
    size_t k;
    if (!e) return prof__report(PROF_LOG_ERROR, PROF_E_ARG, "prof_events_set_device: the event list is NULL");
    /* a backend's name ("cuda", "xpu", "mps"): the table prints it upper-cased
       in its headers, as PyTorch's use_device.upper() does, for ASCII */
    for (k = 0; use_device && use_device[k]; k++) {
        char c = use_device[k];
        if (k >= PROF__DEVICE_NAME_MAX || !((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_'))
            return prof__report(PROF_LOG_ERROR, PROF_E_ARG, "prof_events_set_device: \"%.40s\" is not a device name (up to %d ASCII letters, digits and underscores, like \"cuda\")",
                                use_device, PROF__DEVICE_NAME_MAX);
    }
    {
        const char *name = (use_device && use_device[0]) ? prof__intern(&e->strs, use_device) : NULL;
        if (use_device && use_device[0] && !name) return prof__report(PROF_LOG_ERROR, PROF_E_NOMEM, "prof_events_set_device: out of memory");
        e->use_device = name;
    }
    prof__tree_invalidate(e);
    return PROF_OK;
}
PROF_API void prof_events_set_flags(prof_events *e, int profile_memory, int with_flops) {
    if (!e) return;
    e->profile_memory = profile_memory;
    e->with_flops = with_flops;
}
/* The count after the tree, as prof_events_get indexes: building it adds the
   [memory] rows (and merges duplicates), so a count taken before it would
   disagree with the indices get then uses. The list is logically const:
   the tree is a cache of it, as in prof_events_get. */
PROF_API size_t prof_events_count(const prof_events *e) {
    prof_events *m;
    if (!e) return 0;
    memcpy(&m, &e, sizeof m); /* drops const without a cast-qual warning */
    (void)prof_events_build_tree(m); /* out of memory: the count as it is (reported) */
    return m->n;
}
PROF_API prof_stats prof_events_stats(const prof_events *e) {
    prof_stats s;
    prof_events *m;
    if (e) { /* after the tree, as every reader: a hand-built list's events and merged count its merges */
        memcpy(&m, &e, sizeof m);
        (void)prof_events_build_tree(m); /* out of memory: the figures as they are (reported) */
        return m->stats;
    }
    memset(&s, 0, sizeof s);
    return s;
}

/* >>tree =================================================================*/
/* EventList._build_tree: _populate_cpu_children, _remove_dup_nodes and
   _set_backward_stacktraces, with the same results as Python's code. */
typedef struct prof__sortctx { const prof_events *e; int by; } prof__sortctx;

static PROF__NI int prof__idx_less(const void *ctx, uint32_t a, uint32_t b) {
    const prof__sortctx *c = (const prof__sortctx *)ctx;
    const prof__ev *x = &c->e->ev[a], *y = &c->e->ev[b];
    if (c->by == 0) return c->e->thr[x->thread].tid < c->e->thr[y->thread].tid;
    if (x->start != y->start) return x->start < y->start;
    return x->end > y->end;
}
static PROF__NI const char *prof__ev_name(const prof_events *e, const prof__ev *v) { return e->sites[v->site].name; }
static PROF__NI int prof__same_name(const prof_events *e, const prof__ev *a, const prof__ev *b) {
    return a->site == b->site || prof__ev_name(e, a) == prof__ev_name(e, b); /* names are interned */
}

static PROF__NI int prof__in_tree(const prof__ev *v) { return !(v->flags & PROF__F_ASYNC) && v->device_type == PROF_DEVICE_CPU; }
static PROF__NI void prof__tree_unlink(prof__ev *v) {
    v->parent = v->first_child = v->next_sibling = -1;
}
/* PyTorch's stack of open parents, without the stack: after a push it is
   the chain of parents from the event pushed last (*top), and the entry
   just above a parent is that parent's latest child, so a child is
   appended where the pops stop (children in sorted order, as
   append_cpu_child makes them). Returns PROF__T_DUPS when the parent has
   the child's name and no other child yet. */
static __inline__ unsigned prof__tree_push(prof_events *e, int32_t *top, int32_t cur) {
    prof__ev *v = &e->ev[cur];
    int32_t p = *top, above = -1;
    prof__tree_unlink(v);
    *top = cur;
    for (; p >= 0; above = p, p = e->ev[p].parent) {
        prof__ev *pe = &e->ev[p];
        if (v->start >= pe->end || v->end > pe->end) continue; /* this can't be a parent: pop it */
        v->parent = p;
        if (above >= 0) { e->ev[above].next_sibling = cur; return 0; }
        /* only a first child can end up an only child */
        pe->first_child = cur;
        return prof__same_name(e, pe, v) ? PROF__T_DUPS : 0;
    }
    return 0;
}
/* The list as recorded or built in time order has each thread's events in
   (start, -end) order already: then the sort by thread and the groups'
   sorts change nothing, and one pass in list order, with one stack per
   thread, links every group at once (groups of a thread split where its
   node_id changes, as itertools.groupby's runs). Returns 0, with the links
   half made, at the first event out of order: out of order on its thread,
   whatever the groups (the exports read a list found in order thread by
   thread, lanes across node_ids included; last: the thread's previous
   in-tree event). */
typedef struct prof__tgroup { int32_t top, node_id, last; } prof__tgroup;
static PROF__NI int prof__tree_in_order(prof_events *e, prof__tgroup *g, unsigned *seen) {
    size_t i;
    unsigned f = 0;
    for (i = 0; i < e->nthr; i++) g[i].top = g[i].last = -1;
    for (i = 0; i < e->n; i++) {
        prof__ev *v = &e->ev[i];
        prof__tgroup *gr;
        if (v->scope == 1) f |= PROF__T_BACKWARD;
        if (!prof__in_tree(v)) { prof__tree_unlink(v); continue; }
        gr = &g[v->thread];
        if (gr->last >= 0) {
            const prof__ev *q = &e->ev[gr->last];
            if (v->start < q->start || (v->start == q->start && v->end > q->end)) return 0;
        }
        if (gr->top >= 0 && gr->node_id != v->node_id) gr->top = -1; /* a new group */
        gr->node_id = v->node_id;
        gr->last = (int32_t)i;
        f |= prof__tree_push(e, &gr->top, (int32_t)i);
    }
    *seen = f;
    return 1;
}
/* Any order: the in-tree events sorted by thread (stable), then each group
   by (start, -end); idx, tmp: room for e->n indices each. */
static PROF__NI unsigned prof__tree_sorted(prof_events *e, uint32_t *idx, uint32_t *tmp) {
    size_t n = 0, i, run;
    unsigned f = 0;
    prof__sortctx c;
    c.e = e;
    for (i = 0; i < e->n; i++) {
        prof__ev *v = &e->ev[i];
        prof__tree_unlink(v);
        if (v->scope == 1) f |= PROF__T_BACKWARD;
        if (prof__in_tree(v)) idx[n++] = (uint32_t)i;
    }
    /* sorted(events, key=thread), stable: a counting sort over the threads
       ranked by id, since there are few of them (one thread: in order) */
    if (e->nthr > 1) {
        uint32_t *rank = PROF__ALLOC(uint32_t, e->nthr + 1), *cnt = PROF__ALLOC(uint32_t, e->nthr + 2), *ord = PROF__ALLOC(uint32_t, e->nthr + 1);
        size_t k;
        if (!rank || !cnt || !ord) {
            PROF__FREE(rank); PROF__FREE(cnt); PROF__FREE(ord);
            c.by = 0;
            prof__msort_u32(idx, tmp, n, prof__idx_less, &c); /* fall back to the comparison sort */
        } else {
            for (k = 0; k < e->nthr; k++) ord[k] = (uint32_t)k;
            for (k = 1; k < e->nthr; k++) { /* few threads: insertion sort by tid */
                uint32_t v = ord[k];
                size_t z = k;
                while (z > 0 && e->thr[ord[z - 1]].tid > e->thr[v].tid) { ord[z] = ord[z - 1]; z--; }
                ord[z] = v;
            }
            for (k = 0; k < e->nthr; k++) rank[ord[k]] = (uint32_t)k;
            memset(cnt, 0, (e->nthr + 2) * sizeof *cnt);
            for (k = 0; k < n; k++) cnt[rank[e->ev[idx[k]].thread] + 1]++;
            for (k = 1; k <= e->nthr; k++) cnt[k] += cnt[k - 1];
            for (k = 0; k < n; k++) tmp[cnt[rank[e->ev[idx[k]].thread]]++] = idx[k];
            memcpy(idx, tmp, n * sizeof *idx);
            PROF__FREE(rank); PROF__FREE(cnt); PROF__FREE(ord);
        }
    }
    c.by = 1;
    /* itertools.groupby makes one group per run of equal (thread, node_id) */
    for (run = 0; run < n;) {
        size_t end = run + 1, k;
        int32_t top = -1;
        const prof__ev *fe = &e->ev[idx[run]];
        while (end < n && e->thr[e->ev[idx[end]].thread].tid == e->thr[fe->thread].tid && e->ev[idx[end]].node_id == fe->node_id) end++;
        for (k = run + 1; k < end; k++) { /* prof__idx_less, inline: once per event */
            const prof__ev *x = &e->ev[idx[k]], *y = &e->ev[idx[k - 1]];
            if (x->start < y->start || (x->start == y->start && x->end > y->end)) break;
        }
        if (k < end) prof__msort_u32(idx + run, tmp, end - run, prof__idx_less, &c);
        for (k = run; k < end; k++) f |= prof__tree_push(e, &top, (int32_t)idx[k]);
        run = end;
    }
    return f;
}
/* _populate_cpu_children. Returns the PROF__T_* seen, or -1 when out of
   memory (index arrays are needed only for a list out of order). */
static PROF__NI int prof__populate_children(prof_events *e) {
    prof__tgroup *g = PROF__ALLOC(prof__tgroup, e->nthr + 1);
    uint32_t *idx, *tmp;
    unsigned seen = 0;
    int in_order = g && prof__tree_in_order(e, g, &seen);
    PROF__FREE(g);
    e->in_order = in_order;
    if (in_order) return (int)seen;
    idx = PROF__ALLOC(uint32_t, e->n + 1);
    tmp = PROF__ALLOC(uint32_t, e->n + 1);
    if (idx && tmp) seen = prof__tree_sorted(e, idx, tmp);
    PROF__FREE(idx);
    PROF__FREE(tmp);
    return idx && tmp ? (int)seen : -1;
}

/* A parent whose only child has its name absorbs it: the child's children
   and kernels move up (the kernels replace the parent's, as in PyTorch).
   A pass that ran out of memory leaves children marked deleted and still
   in the list, and gives the parents their kernels back; the next build
   links every event afresh, so the marks go first (else a marked child
   would stay in the list, or be cut out with its children made
   top-level: a failed prof_stop's retry).
   PyTorch merges once, over every event of its EventList. A list here can
   be read (tree built, events merged) and then added to, so the merged
   events are kept aside with their places (e->dups) and the kernels each
   merge replaced (e->dupk, in merge order), and a rebuild puts them back
   first (prof__dups_restore): the tree is always that of every event added,
   whatever was read in between. */
typedef struct prof__dup { prof__ev ev; uint32_t pos, node; } prof__dup;                /* a merged event: its place before the merge, its stack node */
static PROF__NI void prof__dupk_undo(prof_events *e, size_t to) {
    if (e->ndupk > to) prof__map_free(&e->dupk_first);
    while (e->ndupk > to) {
        const prof__dupkern *k = &e->dupk[--e->ndupk];
        e->ex[k->extra].kern_head = k->kern_head;
        e->ex[k->extra].kern_ns = k->kern_ns;
    }
}
/* The list as it was before the last merges, then the events added since. */
static PROF__NI int prof__dups_restore(prof_events *e) {
    size_t nd = e->ndups, n = e->n + nd, t, src = e->n, k = nd, i;
    int stacks = e->stk != NULL;
    if (!nd) return 0;
    for (i = 0; i < nd && !stacks; i++) stacks = e->dups[i].node != 0;
    if (!prof__grow((void *)&e->ev, &e->cap, n, sizeof *e->ev) || (stacks && prof__stack_room(e, n) != 0)) return -1;
    for (t = n; t-- > 0;) { /* from the back: each event moves up by the merged ones before it */
        if (k && e->dups[k - 1].pos == t) {
            k--;
            e->ev[t] = e->dups[k].ev;
            if (stacks) e->stk[t] = e->dups[k].node;
        } else {
            src--;
            e->ev[t] = e->ev[src];
            if (stacks) e->stk[t] = prof__stack_node(e, src);
        }
    }
    e->nodes_flat = 0;
    prof__dupk_undo(e, 0);
    e->n = n;
    e->stats.merged -= nd;
    e->stats.events = n;
    e->ndups = 0;
    e->dups_tied = 0;
    e->dups_added = 0;
    return 0;
}
static PROF__NI int prof__remove_dup_nodes(prof_events *e) {
    size_t i, deleted_total = 0, tied = 0;
    size_t k0 = e->ndupk; /* a batch not put back (no event added since: a memory record, say) stays */
    prof__map_free(&e->dupk_first); /* dupk changes below */
    for (i = 0; i < e->n; i++) e->ev[i].flags = (uint16_t)(e->ev[i].flags & ~PROF__F_DELETED);
    for (;;) {
        size_t deleted = 0;
        for (i = 0; i < e->n; i++) {
            prof__ev *v = &e->ev[i];
            prof__ev *p;
            int32_t c, kh;
            int64_t kn;
            if (v->flags & PROF__F_DELETED || v->parent < 0) continue;
            p = &e->ev[v->parent];
            /* v is p's child: p has no other when v is first and last */
            if (prof__ev_name(e, p) != prof__ev_name(e, v) || p->first_child != (int32_t)i || v->next_sibling >= 0) continue;
            p->first_child = v->first_child;
            kh = prof__x(e, v)->kern_head;
            kn = prof__x(e, v)->kern_ns;
            if (kh != prof__x(e, p)->kern_head || kn != prof__x(e, p)->kern_ns) {
                /* the child's kernels to its parent (the same already: no
                   write, so a shared extra stays shared) */
                prof__extra *px = prof__extra_of(e, p);
                prof__dupkern *was;
                if (!px || (e->ndupk >= e->capdupk && !PROF__PUSH_OK(e->dupk, e->ndupk, e->capdupk))) { prof__dupk_undo(e, k0); return -1; }
                was = &e->dupk[e->ndupk++];
                was->extra = p->extra;
                was->kern_head = px->kern_head;
                was->kern_ns = px->kern_ns;
                px->kern_head = kh;
                px->kern_ns = kn;
            }
            for (c = v->first_child; c >= 0; c = e->ev[c].next_sibling) e->ev[c].parent = v->parent;
            v->flags |= PROF__F_DELETED;
            tied += v->start == p->start && v->end == v->start; /* (a child that took time began after its parent) */
            deleted++;
        }
        if (!deleted) break;
        deleted_total += deleted;
    }
    if (deleted_total) {
        int32_t *map = PROF__ALLOC(int32_t, e->n);
        prof__dup *dups = PROF__ALLOC(prof__dup, deleted_total);
        size_t w = 0, d = 0;
        if (!map || !dups) {
            PROF__FREE(map);
            PROF__FREE(dups);
            prof__dupk_undo(e, k0);
            return -1;
        }
        for (i = 0; i < e->n; i++) map[i] = (e->ev[i].flags & PROF__F_DELETED) ? -1 : (int32_t)w++;
        w = 0;
        for (i = 0; i < e->n; i++) {
            prof__ev v = e->ev[i];
            if (v.flags & PROF__F_DELETED) {
                v.flags = (uint16_t)(v.flags & ~PROF__F_DELETED);
                dups[d].ev = v;
                dups[d].pos = (uint32_t)i;
                dups[d++].node = prof__stack_node(e, i);
                continue;
            }
            if (v.parent >= 0) v.parent = map[v.parent];
            if (v.first_child >= 0) v.first_child = map[v.first_child];
            if (v.next_sibling >= 0) v.next_sibling = map[v.next_sibling];
            if (w < e->capstk) e->stk[w] = prof__stack_node(e, i); /* past capstk: no stack, not the slot's old one */
            e->ev[w++] = v;
        }
        /* an earlier batch (merges on a list already merged: none expected)
           can no longer be put back in place: it goes, with its log */
        if (k0) {
            memmove(e->dupk, e->dupk + k0, (e->ndupk - k0) * sizeof *e->dupk);
            e->ndupk -= k0;
        }
        PROF__FREE(e->dups);
        e->dups = dups;
        e->ndups = d;
        e->dups_tied = tied;
        e->stats.merged += e->n - w;
        e->n = w;
        e->stats.events = w;
        PROF__FREE(map);
    }
    return 0;
}

/* Events under a backward function take the stack of their forward op,
   found by (sequence_nr, fwd_thread): the first event in list order with
   that key and no backward function above it. PyTorch's list also holds
   the [memory] rows there (sequence_nr -1, their record's thread, stack
   []), which this list makes later (prof__memory_usage): they take part
   here where they will stand, before the first event that starts after
   them, as entries past e->n (the row's index in rows). */
typedef struct prof__fwdkey { const prof_events *e; const uint32_t *rows; int64_t seq; uint64_t tid; } prof__fwdkey;
static PROF__NI int prof__fwd_same(const void *key, uint32_t v) { /* the key: (sequence_nr, thread) */
    const prof__fwdkey *k = (const prof__fwdkey *)key;
    const prof__ev *o;
    if (v >= k->e->n) return k->seq == -1 && k->e->thr[k->e->mem[k->rows[v - k->e->n]].thread].tid == k->tid;
    o = &k->e->ev[v];
    return prof__seq_nr(k->e, o) == k->seq && k->e->thr[o->thread].tid == k->tid;
}
/* The map from (sequence_nr, thread) to the first such event (or row):
   entry v under that key unless one is there; 0 without memory. */
static PROF__NI int prof__fwd_first(prof__map *fwd, prof__fwdkey *key, int64_t seq, uint64_t tid, uint32_t v) {
    uint64_t h = prof__mix((uint64_t)seq) ^ tid;
    key->seq = seq;
    key->tid = tid;
    return prof__map_find(fwd, h, prof__fwd_same, key) != UINT32_MAX || prof__map_add(fwd, h, v);
}
static PROF__NI int prof__fwd_map(prof_events *e, prof__map *fwd, prof__fwdkey *key, size_t nrow) {
    size_t i, j = 0;
    for (i = 0; i <= e->n; i++) {
        int32_t p = (int32_t)i;
        for (; j < nrow && (i == e->n || e->mem[key->rows[j]].ts < e->ev[i].start); j++) /* (as prof__memrows_make places them) */
            if (!prof__fwd_first(fwd, key, -1, e->thr[e->mem[key->rows[j]].thread].tid, (uint32_t)(e->n + j))) return -1;
        if (i == e->n) break;
        while (p >= 0 && e->ev[p].scope != 1) p = e->ev[p].parent;
        if (p < 0 && !prof__fwd_first(fwd, key, prof__seq_nr(e, &e->ev[i]), e->thr[e->ev[i].thread].tid, (uint32_t)i)) return -1;
    }
    return 0;
}
/* The [memory] rows to be, into rows (time order); -1 without memory. */
static PROF__NI int prof__fwd_rows(prof_events *e, uint32_t *rows, size_t *nrow) {
    uint32_t *by_ts = PROF__ALLOC(uint32_t, e->nmem), *idx = PROF__ALLOC(uint32_t, e->n + 1);
    uint32_t *tmp = PROF__ALLOC(uint32_t, (e->nmem > e->n ? e->nmem : e->n) + 1);
    size_t i;
    int rc = -1;
    if (by_ts && idx && tmp) {
        for (i = 0; i < e->nmem; i++) by_ts[i] = (uint32_t)i;
        prof__msort_u32(by_ts, tmp, e->nmem, prof__mem_ts_less, e);
        *nrow = prof__memrows_find(e, by_ts, idx, tmp, rows);
        rc = 0;
    }
    PROF__FREE(by_ts); PROF__FREE(idx); PROF__FREE(tmp);
    return rc;
}
static PROF__NI int prof__set_backward_stacks(prof_events *e) {
    size_t i, nrow = 0;
    int any = 0, rc = 0;
    prof__map fwd;
    prof__fwdkey key;
    uint32_t *rows = NULL;
    for (i = 0; i < e->n && !any; i++) any = e->ev[i].scope == 1;
    if (!any) return 0;
    if (e->nmem && (!(rows = PROF__ALLOC(uint32_t, e->nmem)) || prof__fwd_rows(e, rows, &nrow) != 0)) { PROF__FREE(rows); return -1; }
    memset(&fwd, 0, sizeof fwd);
    key.e = e;
    key.rows = rows;
    if (prof__fwd_map(e, &fwd, &key, nrow) != 0) rc = -1;
    for (i = 0; i < e->n && !rc; i++) {
        int32_t p = (int32_t)i;
        const prof__extra *px;
        uint32_t src, node, own;
        while (p >= 0 && e->ev[p].scope != 1) p = e->ev[p].parent;
        if (p < 0) continue;
        px = prof__xr(e, &e->ev[p]);
        if (!px || !px->has_fwd_thread) continue; /* PyTorch asserts here */
        key.seq = prof__seq_nr(e, &e->ev[p]);
        key.tid = px->fwd_thread;
        src = prof__map_find(&fwd, prof__mix((uint64_t)key.seq) ^ key.tid, prof__fwd_same, &key);
        node = src < e->n ? prof__stack_node(e, src) : 0; /* fwd_stacks.get(t, []); a row's is [] */
        own = prof__stack_node(e, i);
        if (node == own) continue;
        if (!prof__grow((void *)&e->bwstk, &e->capbwstk, e->nbwstk + 1, sizeof *e->bwstk) || prof__stack_set(e, i, node) != 0) {
            rc = -1;
            break;
        }
        e->bwstk[e->nbwstk].i = (uint32_t)i;
        e->bwstk[e->nbwstk++].node = own;
    }
    prof__map_free(&fwd);
    PROF__FREE(rows);
    return rc;
}

/* The events' own stacks back, where the last build's backward pass
   replaced them (its layout: the [memory] rows dropped, merged events not
   yet put back; events added since come after). */
static PROF__NI int prof__bwstk_restore(prof_events *e) {
    size_t k = e->nbwstk;
    while (k-- > 0)
        if (prof__stack_set(e, e->bwstk[k].i, e->bwstk[k].node) != 0) return -1; /* (no growth: the index had a node) */
    e->nbwstk = 0;
    return 0;
}

/* EventList._build_tree: the links (prof_stop's, or _populate_cpu_children), then the passes they call for */
static PROF__NI prof_result prof__build_tree(prof_events *e) {
    int seen;
    if (!e) return PROF_E_ARG;
    if (e->tree_built) return PROF_OK;
    if (prof__memrows_drop(e) != 0 || prof__bwstk_restore(e) != 0 || (e->dups_added && prof__dups_restore(e) != 0)) /* remade below, from the events as they are now */
        return prof__report(PROF_LOG_ERROR, PROF_E_NOMEM, "prof_events_build_tree: out of memory");
    if (e->n >= (size_t)INT32_MAX) return prof__report(PROF_LOG_ERROR, PROF_E_ARG, "prof_events_build_tree: too many events");
    if (e->links_ready) { /* prof_stop linked the events as it ordered them */
        e->links_ready = 0;
        e->in_order = 1;
        seen = (int)e->links_seen;
    } else if ((seen = prof__populate_children(e)) < 0)
        return prof__report(PROF_LOG_ERROR, PROF_E_NOMEM, "prof_events_build_tree: out of memory for %zu events", e->n);
    /* _remove_dup_nodes and _set_backward_stacktraces change nothing
       unless a parent shares its child's name or an event has scope 1 */
    if ((e->stacks_pending && prof__attach_stacks(e) != 0) || ((seen & PROF__T_DUPS) && prof__remove_dup_nodes(e) != 0) ||
        ((seen & PROF__T_BACKWARD) && prof__set_backward_stacks(e) != 0) || prof__memory_usage(e) != 0)
        return prof__report(PROF_LOG_ERROR, PROF_E_NOMEM, "prof_events_build_tree: out of memory");
    PROF__FREE(e->dev_memo);
    e->dev_memo = NULL;
    e->tree_built = 1;
    return PROF_OK;
}
PROF_API prof_result prof_events_build_tree(prof_events *e) {
    if (!e) return prof__report(PROF_LOG_ERROR, PROF_E_ARG, "prof_events_build_tree: the event list is NULL");
    return prof__build_tree(e);
}

/* ----- after the tree: memory per event and stacks ----- */
/* Each event's cpu/device_memory_usage is the sum of the allocations and
   frees on its thread whose time lies in [start, end], as PyTorch charges
   memory records; the running totals are per device. */
static PROF__NI int prof__mem_thread_ts_less(const void *c, uint32_t a, uint32_t b) {
    const prof_events *e = (const prof_events *)c;
    const prof__memrec *x = &e->mem[a], *y = &e->mem[b];
    if (x->thread != y->thread) return x->thread < y->thread;
    return x->ts < y->ts;
}
static PROF__NI int prof__mem_ts_less(const void *c, uint32_t a, uint32_t b) {
    const prof_events *e = (const prof_events *)c;
    return e->mem[a].ts < e->mem[b].ts;
}
/* The records ord[0..n), in time order, replayed by address as PyTorch's
   memory profile reads them: prev[k] is, for a free, the allocation it
   takes back, PROF__MEM_NONE for a block allocated before the list (its
   PREEXISTING: live from the first point, so a total never goes below
   zero), and for an allocation, the one still live at its address that it
   replaces (PROF__MEM_NONE: none; a block reported twice, by two layers of
   hooks: INCREMENT_VERSION, the old bytes leave as the new come), and
   PROF__MEM_ANON for a record with no address (prof_events_add_memory's),
   which counts as it is. The timeline and the trace's Total Allocated
   read it; the tables charge every record as it is, as PyTorch's do.

   Records of one tick (this VM's TSC moves in 10 ns steps) keep each
   thread's order, as the stable sort by time left them; between threads
   the sort's order is arbitrary, so an address freed on one thread and
   allocated again on another within a tick could replay as allocated
   twice, then freed. The replay puts another thread's record first where
   that is what makes the address's story hold (a free's bytes are its
   block's): before an allocation at a live block's address, the free of
   that block; before an allocation at an address not live, a free of
   other bytes (a block from before the list, or one whose allocation the
   list lacks; not one whose allocation is in the tick on another thread,
   a hand-over), else another's block allocated and freed within the tick
   (the address was free for it); before a free of a block not live, an
   allocation of its bytes (allocated on one thread, freed on the other
   within the tick). One move at a place at most: the record moved there
   is taken as it is, so the replay always ends. A free of other bytes
   than the live block at its address is not that block's (an order one
   tick left unclear): it frees one from before the list, and the live
   block stays, so a total never goes below zero. ord is reordered in
   place, within the tick (prof__mem_tick_find); only a block's own
   records keep their thread's order (the others are
   other addresses: the pairing does not depend on them), and records on
   other devices are passed over, so the replay of one device
   (prof_export_memory_timeline) and of all (the trace's totals) agree.
   -1: out of memory. */
#define PROF__MEM_NONE UINT32_MAX
#define PROF__MEM_ANON (UINT32_MAX - 1)
#define PROF__MEM_GONE (UINT32_MAX - 1) /* (in the replay's map: the block at that address was freed) */
#define PROF__MEM_TICK_LOOK 256         /* records of the device looked at ahead within a tick (bounds a pathological tick's cost) */
/* A record's device: one per type and index, and one for the CPU whatever
   the index a record gives it (the trace writes every CPU record as Device
   Id -1 on one counter, the timeline of the CPU counts every index, and a
   block reported again at another CPU index is the same block). Its
   running total (Total Allocated) and its blocks are the device's. */
static __inline__ size_t prof__mem_device(const prof__memrec *m) {
    return (size_t)(m->device_type & 31) * 64 + (m->device_type == PROF_DEVICE_CPU ? 0 : (size_t)(m->device_index & 63));
}
static PROF__NI int prof__mem_same_block(const prof__memrec *a, const prof__memrec *b) {
    return a->ptr == b->ptr && prof__mem_device(a) == prof__mem_device(b);
}
/* Whether the free x has its allocation in the tick from k on, on
   another thread (a hand-over: not a block from before); or the
   allocation x its free there, on any thread (a block begun and ended
   within the tick). */
static PROF__NI int prof__mem_tick_partner(const prof_events *e, const uint32_t *ord, size_t k, size_t n, const prof__memrec *x) {
    size_t c;
    for (c = k; c < n && c - k < PROF__MEM_TICK_LOOK && e->mem[ord[c]].ts == x->ts; c++) {
        const prof__memrec *y = &e->mem[ord[c]];
        if ((x->bytes > 0 || y->thread != x->thread) && y->bytes == -x->bytes && prof__mem_same_block(x, y)) return 1;
    }
    return 0;
}
/* What prof__mem_tick_find looks for (want: the bytes, or their sign): */
enum {
    PROF__TICK_BYTES,  /* a record of exactly want bytes */
    PROF__TICK_OLDER,  /* a free of other bytes than want, its allocation not in the tick (an older block's) */
    PROF__TICK_PAIRED  /* an allocation whose free is in the tick */
};
/* The first record after ord[k] at its tick, on another thread, of
   ord[k]'s block, with bytes of want's sign, of the kind asked, that is
   its thread's first record of the block from k on (so moving it to k
   keeps the block's order on each thread); n if none. */
static PROF__NI size_t prof__mem_tick_find(const prof_events *e, const uint32_t *ord, size_t k, size_t n, int64_t want, int kind) {
    const prof__memrec *m = &e->mem[ord[k]];
    uint32_t seen[16]; /* threads with a record of the block from k on */
    size_t b, nseen = 1, look = 0, scanned = 0;
    seen[0] = m->thread;
    for (b = k + 1; b < n && e->mem[ord[b]].ts == m->ts && look < PROF__MEM_TICK_LOOK && scanned < 16 * PROF__MEM_TICK_LOOK; b++, scanned++) {
        const prof__memrec *x = &e->mem[ord[b]];
        size_t t;
        if (prof__mem_device(x) != prof__mem_device(m)) continue; /* (not counted: see above) */
        look++;
        if (x->ptr != m->ptr) continue;
        for (t = 0; t < nseen && seen[t] != x->thread; t++) {}
        if (t == nseen && (x->bytes < 0) == (want < 0) && x->bytes != 0 &&
            (kind == PROF__TICK_BYTES ? x->bytes == want
             : kind == PROF__TICK_OLDER ? x->bytes != want && !prof__mem_tick_partner(e, ord, k, n, x)
             : prof__mem_tick_partner(e, ord, k, n, x)))
            return b;
        if (t == nseen) {
            if (nseen == sizeof seen / sizeof *seen) return n; /* (a block's records at one tick: a few) */
            seen[nseen++] = x->thread;
        }
    }
    return n;
}
static PROF__NI int prof__mem_replay(const prof_events *e, uint32_t *ord, size_t n, uint32_t *prev) {
    prof__map live; /* address and device -> the record that allocated its block, or PROF__MEM_GONE once freed */
    size_t k, b;
    memset(&live, 0, sizeof live);
    for (k = 0; k < n; k++) {
        const prof__memrec *m = &e->mem[ord[k]];
        uint64_t key;
        int found;
        uint32_t *slot, was;
        int is_live;
        if (!m->ptr) { prev[k] = PROF__MEM_ANON; continue; }
        key = prof__mix(m->ptr) + (uint64_t)prof__mem_device(m);
        was = prof__map_get(&live, key);
        is_live = was < PROF__MEM_GONE && prof__mem_same_block(&e->mem[was], m);
        b = n; /* another thread's record of the block that goes first (see above) */
        if (m->bytes > 0 && is_live) {
            b = prof__mem_tick_find(e, ord, k, n, -e->mem[was].bytes, PROF__TICK_BYTES); /* the live block's free */
        } else if (m->bytes > 0) {
            if ((b = prof__mem_tick_find(e, ord, k, n, -m->bytes, PROF__TICK_OLDER)) == n) /* an older block's free */
                b = prof__mem_tick_find(e, ord, k, n, 1, PROF__TICK_PAIRED);            /* a block begun and ended in the tick */
        } else if (m->bytes < 0 && m->bytes != INT64_MIN && !is_live) {
            b = prof__mem_tick_find(e, ord, k, n, -m->bytes, PROF__TICK_BYTES); /* its allocation (a hand-over) */
        }
        if (b < n) {
            uint32_t t = ord[b]; /* (see above) the same block: the same key */
            memmove(ord + k + 1, ord + k, (b - k) * sizeof *ord);
            ord[k] = t;
            m = &e->mem[t];
        }
        slot = prof__map_slot(&live, key, &found);
        if (!slot) { prof__map_free(&live); return -1; }
        was = found ? *slot : PROF__MEM_GONE;
        if (was != PROF__MEM_GONE && !prof__mem_same_block(&e->mem[was], m))
            was = PROF__MEM_GONE; /* another block whose key is the same: this one is taken as new */
        if (m->bytes < 0 && was != PROF__MEM_GONE && e->mem[was].bytes != -m->bytes) {
            prev[k] = PROF__MEM_NONE; /* a free's bytes are its block's: another's, from before the list; the live one stays */
            continue;
        }
        prev[k] = was == PROF__MEM_GONE || m->bytes == 0 ? PROF__MEM_NONE : was;
        if (m->bytes > 0) *slot = ord[k];
        else if (m->bytes < 0 || !found) *slot = PROF__MEM_GONE;
    }
    prof__map_free(&live);
    return 0;
}
/* Memory that no CPU event of any thread was open around (both ends
   count) becomes an event of its own, "[memory]", as PyTorch's profiler
   makes one: on the allocating thread, at the record's time, with no
   duration and the record's bytes as its memory usage, so a top-level
   row. Each goes before the first event that starts after it (PyTorch's
   (start, -end) order for a list in that order). They are made with the
   tree and dropped when it is rebuilt. by_ts: the records in time order;
   idx, tmp: room for e->n indices. */
static PROF__NI int prof__start_less(const void *c, uint32_t a, uint32_t b) {
    const prof_events *e = (const prof_events *)c;
    return e->ev[a].start < e->ev[b].start;
}
static PROF__NI int prof__memrows_drop(prof_events *e) {
    size_t i, w = 0;
    int32_t *map;
    if (!e->nmemrows) return 0;
    if (!(map = PROF__ALLOC(int32_t, e->n))) return -1;
    for (i = 0; i < e->n; i++) map[i] = (e->ev[i].flags & PROF__F_MEMROW) ? -1 : (int32_t)w++;
    for (i = 0, w = 0; i < e->n; i++) { /* rows are top level and childless: no link leads to one */
        prof__ev v = e->ev[i];
        if (v.flags & PROF__F_MEMROW) continue;
        if (v.parent >= 0) v.parent = map[v.parent];
        if (v.first_child >= 0) v.first_child = map[v.first_child];
        if (v.next_sibling >= 0) v.next_sibling = map[v.next_sibling];
        if (w < e->capstk) e->stk[w] = prof__stack_node(e, i);
        e->ev[w++] = v;
    }
    PROF__FREE(map);
    e->n = w;
    e->nmemrows = 0;
    /* the rows' extras (each row's bytes), unless another came after them:
       a list read after each of many adds made a set each time */
    if (e->nex == e->memrow_ex[1]) e->nex = e->memrow_ex[0];
    e->memrow_ex[0] = e->memrow_ex[1] = 0;
    PROF__FREE(e->dev_memo);
    e->dev_memo = NULL;
    return 0;
}
/* The records that become rows, into rows in time order (rows may be
   tmp: it is written once idx is sorted); returns how many. */
static PROF__NI size_t prof__memrows_find(const prof_events *e, const uint32_t *by_ts, uint32_t *idx, uint32_t *tmp, uint32_t *rows) {
    size_t n = 0, i, p = 0, nrow = 0;
    int64_t reach = INT64_MIN; /* the latest end of the events begun so far */
    int sorted = 1;
    for (i = 0; i < e->n; i++)
        if (e->ev[i].device_type == PROF_DEVICE_CPU) {
            if (n && e->ev[i].start < e->ev[idx[n - 1]].start) sorted = 0;
            idx[n++] = (uint32_t)i;
        }
    if (!sorted) prof__msort_u32(idx, tmp, n, prof__start_less, e); /* (a recorded list is in start order) */
    for (i = 0; i < e->nmem; i++) {
        const prof__memrec *m = &e->mem[by_ts[i]];
        for (; p < n && e->ev[idx[p]].start <= m->ts; p++) if (e->ev[idx[p]].end > reach) reach = e->ev[idx[p]].end;
        if (reach < m->ts && m->thread < e->nthr) rows[nrow++] = by_ts[i]; /* (a CUDA record the join gave no thread: none is left by then) */
    }
    return nrow;
}
static PROF__NI int prof__memrows_make(prof_events *e, const uint32_t *by_ts, uint32_t *idx, uint32_t *tmp) {
    size_t i, j, w, cap;
    uint32_t *rows = tmp; /* nrow <= nmem */
    const size_t nrow = prof__memrows_find(e, by_ts, idx, tmp, rows);
    int32_t *map = NULL;
    prof__ev *nv = NULL;
    uint32_t *nstk = NULL; /* stack node per event, when any has one */
    int64_t site;
    size_t ex0 = e->nex;
    if (!nrow) return 0;
    if (e->n + nrow >= (size_t)INT32_MAX) return -1;
    site = prof__site_index(e, "[memory]", "", "", 0, 0);
    cap = e->n + nrow;
    map = PROF__ALLOC(int32_t, e->n + 1);
    nv = PROF__ALLOC(prof__ev, cap);
    if (e->stk) nstk = PROF__ALLOC(uint32_t, cap);
    if (site < 0 || !map || !nv || (e->stk && !nstk)) goto fail;
    for (i = 0, j = 0, w = 0; i <= e->n; i++) {
        while (j < nrow && (i == e->n || e->mem[rows[j]].ts < e->ev[i].start)) {
            const prof__memrec *m = &e->mem[rows[j++]];
            prof__ev *r = &nv[w];
            prof__extra *x;
            memset(r, 0, sizeof *r);
            r->start = r->end = m->ts;
            r->site = (uint32_t)site;
            r->thread = m->thread;
            r->parent = r->first_child = r->next_sibling = -1;
            r->node_id = -1;
            r->device_type = PROF_DEVICE_CPU;
            r->flags = PROF__F_MEMROW;
            if (!(x = prof__extra_of(e, r)) || !(x->shapes = prof__intern(&e->strs, "[]"))) goto fail; /* PyTorch: input_shapes=[] */
            if (m->device_type == PROF_DEVICE_CPU) x->cpu_mem = m->bytes;
            else x->dev_mem = m->bytes;
            if (nstk) nstk[w] = 0; /* [memory] rows have no stack */
            w++;
        }
        if (i == e->n) break;
        map[i] = (int32_t)w;
        if (nstk) nstk[w] = prof__stack_node(e, i);
        nv[w++] = e->ev[i];
    }
    for (i = 0; i < w; i++) {
        prof__ev *v = &nv[i];
        if (v->flags & PROF__F_MEMROW) continue;
        if (v->parent >= 0) v->parent = map[v->parent];
        if (v->first_child >= 0) v->first_child = map[v->first_child];
        if (v->next_sibling >= 0) v->next_sibling = map[v->next_sibling];
    }
    PROF__FREE(map);
    PROF__FREE(e->ev);
    e->ev = nv;
    e->n = w;
    e->cap = cap;
    if (nstk) { PROF__FREE(e->stk); e->stk = nstk; e->capstk = cap; }
    e->nmemrows = nrow;
    e->memrow_ex[0] = ex0;
    e->memrow_ex[1] = e->nex;
    PROF__FREE(e->dev_memo);
    e->dev_memo = NULL;
    return 0;
fail:
    PROF__FREE(map); PROF__FREE(nv); PROF__FREE(nstk);
    return -1;
}

/* Where an event's records are among the memory records sorted by thread,
   then time (ord): a thread's run [first, end), and a cursor at the first
   record at or after the start of the thread's last event asked about.
   Events come in start order, so the cursor moves on (one out of order
   starts again from the run's first), and most events hold no record:
   the one at the cursor is past their end. Each move and each event's
   last record are found by galloping, so an event costs the log of the
   records it passes or holds, not of all of them (a binary search per
   event over all the records cost about 175 ns an event, 4x prof_stop,
   with profile_memory). */
typedef struct prof__mem_cursor {
    size_t first, end, at;     /* the thread's run in ord; the cursor */
    int64_t start;             /* the start it was moved to (INT64_MIN: none yet) */
} prof__mem_cursor;
static PROF__NI void prof__mem_cursors(const prof_events *e, const uint32_t *ord, prof__mem_cursor *cur) {
    size_t t, k = 0;
    for (t = 0; t <= e->nthr; t++) { /* (the last: records of no thread the table has, which no event asks about) */
        cur[t].first = cur[t].at = k;
        while (k < e->nmem && (t == e->nthr || e->mem[ord[k]].thread == t)) k++;
        cur[t].end = k;
        cur[t].start = INT64_MIN;
    }
}
/* The first of ord[lo, end), a run in time order, whose time is past t. */
static PROF__NI size_t prof__mem_past(const prof_events *e, const uint32_t *ord, size_t lo, size_t end, int64_t t) {
    size_t step = 1, hi;
    if (lo == end || e->mem[ord[lo]].ts > t) return lo;
    while (lo + step < end && e->mem[ord[lo + step]].ts <= t) { lo += step; step *= 2; } /* ord[lo] is at or before t */
    hi = lo + step < end ? lo + step : end;
    lo++;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (e->mem[ord[mid]].ts <= t) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}
/* The records in [start, end] of v's thread: ord[*a, *b); 0 if none. */
static __inline__ int prof__mem_range(const prof_events *e, const uint32_t *ord, prof__mem_cursor *cur, const prof__ev *v, size_t *a, size_t *b) {
    prof__mem_cursor *c = &cur[v->thread < e->nthr ? v->thread : e->nthr];
    size_t lo = v->start < c->start ? c->first : c->at;
    if (lo < c->end && e->mem[ord[lo]].ts < v->start) lo = prof__mem_past(e, ord, lo, c->end, v->start - 1); /* (start > INT64_MIN here) */
    c->at = lo;
    c->start = v->start;
    if (lo == c->end || e->mem[ord[lo]].ts > v->end) return 0;
    *a = lo;
    *b = prof__mem_past(e, ord, lo, c->end, v->end);
    return 1;
}
/* Charges the memory records to the events (rec_cpu_mem, rec_dev_mem) and
   makes the [memory] rows, afresh each time the tree is built (prof_stop
   builds it after the CUPTI join, which gives CUPTI's records their
   threads). */
static PROF__NI int prof__memory_usage(prof_events *e) {
    uint32_t *ord, *tmp, *byts, *idx;
    prof__i128 *cpu_pre, *dev_pre; /* wide: sums of int64 sizes stay exact */
    int64_t *totals; /* [type * 64 + index]: a record holds types 0-31, indexes 0-63 */
    uint32_t *prev;
    prof__mem_cursor *cur = NULL;
    size_t i, nscratch;
    int rc = 0;
    if (prof__memrows_drop(e) != 0) return -1;
    if (!e->nmem) return 0;
    nscratch = e->nmem > e->n ? e->nmem : e->n;
    ord = PROF__ALLOC(uint32_t, e->nmem);
    tmp = PROF__ALLOC(uint32_t, nscratch + 1);
    idx = PROF__ALLOC(uint32_t, e->n + 1);
    byts = PROF__ALLOC(uint32_t, e->nmem);
    cpu_pre = PROF__ALLOC(prof__i128, e->nmem + 1);
    dev_pre = PROF__ALLOC(prof__i128, e->nmem + 1);
    prev = PROF__ALLOC(uint32_t, e->nmem);
    totals = PROF__ALLOC(int64_t, 32 * 64);
    if (!ord || !tmp || !idx || !byts || !cpu_pre || !dev_pre || !prev || !totals) { rc = -1; goto done; }
    for (i = 1; i < e->nex; i++) e->ex[i].rec_cpu_mem = e->ex[i].rec_dev_mem = 0;
    /* running totals (Total Allocated) per device, in time order, from
       what the list shows was allocated before it (prof__mem_replay) */
    for (i = 0; i < e->nmem; i++) ord[i] = byts[i] = (uint32_t)i;
    prof__msort_u32(byts, tmp, e->nmem, prof__mem_ts_less, e);
    if (prof__mem_replay(e, byts, e->nmem, prev) != 0) { rc = -1; goto done; }
    memset(totals, 0, 32 * 64 * sizeof *totals);
    for (i = 0; i < e->nmem; i++) {
        const prof__memrec *m = &e->mem[byts[i]];
        if (m->bytes < 0 && prev[i] == PROF__MEM_NONE) prof__sat_sub(&totals[prof__mem_device(m)], m->bytes);
    }
    for (i = 0; i < e->nmem; i++) {
        prof__memrec *m = &e->mem[byts[i]];
        int64_t *total = &totals[prof__mem_device(m)];
        if (m->bytes > 0 && prev[i] < PROF__MEM_ANON) prof__sat_sub(total, e->mem[prev[i]].bytes);
        prof__sat_add(total, m->bytes);
        m->total = *total;
    }
    prof__msort_u32(ord, tmp, e->nmem, prof__mem_thread_ts_less, e);
    /* prefix sums per thread: an event's charge is the difference of two */
    memset(cpu_pre, 0, sizeof *cpu_pre);
    memset(dev_pre, 0, sizeof *dev_pre);
    for (i = 0; i < e->nmem; i++) {
        const prof__memrec *m = &e->mem[ord[i]];
        cpu_pre[i + 1] = cpu_pre[i];
        dev_pre[i + 1] = dev_pre[i];
        if (m->device_type == PROF_DEVICE_CPU) PROF__I128_ADD(cpu_pre[i + 1], m->bytes);
        else PROF__I128_ADD(dev_pre[i + 1], m->bytes);
    }
    /* each CPU event's records: its thread's in [start, end], a range of
       ord found by prof__mem_range (a cursor per thread) */
    if (!(cur = PROF__ALLOC(prof__mem_cursor, e->nthr + 1))) { rc = -1; goto done; }
    prof__mem_cursors(e, ord, cur);
    for (i = 0; i < e->n; i++) {
        prof__ev *v = &e->ev[i];
        size_t a, b;
        int64_t cpu, dev;
        prof__extra *x;
        if (v->device_type != PROF_DEVICE_CPU) continue; /* as _parse_kineto_results: a device event holds none (nor does it keep a row away) */
        if (!prof__mem_range(e, ord, cur, v, &a, &b)) continue;
        cpu = prof__i128_diff(cpu_pre[b], cpu_pre[a]);
        dev = prof__i128_diff(dev_pre[b], dev_pre[a]);
        if (!cpu && !dev) continue; /* (every extra's sums were zeroed above: a shared one is not copied to write 0) */
        if (!(x = prof__extra_of(e, v))) { rc = -1; goto done; }
        x->rec_cpu_mem = cpu;
        x->rec_dev_mem = dev;
    }
    rc = prof__memrows_make(e, byts, idx, tmp);
done:
    PROF__FREE(ord); PROF__FREE(tmp); PROF__FREE(idx); PROF__FREE(byts); PROF__FREE(cpu_pre); PROF__FREE(dev_pre); PROF__FREE(prev); PROF__FREE(totals);
    PROF__FREE(cur);
    return rc;
}

/* PROF_STACK_SCOPES: an event's stack is its chain of enclosing scopes,
   innermost first, each entry "name (file:line)": its node is its parent's
   with its own site's frame, so each event costs one lookup whatever its
   depth. Run on the tree before _remove_dup_nodes, as PyTorch records
   stacks before it builds the tree: an event inside a folded duplicate
   keeps that frame. Events are in start order, so a parent comes first. */
static PROF__NI int prof__scope_stacks(prof_events *e) {
    const char **label = PROF__ALLOC(const char *, e->nsites + 1);
    struct { uint32_t parent, site, node; } cache[256];
    prof__buf b;
    size_t i;
    int rc = 0;
    if (!label) return -1;
    memset(&b, 0, sizeof b);
    memset(cache, 0, sizeof cache);
    for (i = 0; i < e->nsites && !rc; i++) {
        const prof_site *s = &e->sites[i];
        char num[24];
        b.n = 0;
        snprintf(num, sizeof num, ":%d)", s->line);
        prof__buf_str(&b, s->name ? s->name : "");
        prof__buf_str(&b, " (");
        prof__buf_str(&b, s->file ? s->file : "");
        prof__buf_str(&b, num);
        if (b.oom || !(label[i] = prof__intern_n(&e->strs, b.p, b.n))) rc = -1;
    }
    PROF__FREE(b.p);
    for (i = 0; i < e->n && !rc; i++) {
        const prof__ev *v = &e->ev[i];
        uint32_t node, parent;
        size_t h;
        if (v->device_type != PROF_DEVICE_CPU) continue; /* as in PyTorch: no stack on the device */
        parent = v->parent >= 0 ? prof__stack_node(e, (size_t)v->parent) : 0;
        /* a loop repeats a few (parent, site) pairs: a direct-mapped cache
           in front of the node map (its entries are node + 1, 0 = empty) */
        h = ((size_t)parent * 31u + v->site) & 255u;
        if (cache[h].node && cache[h].parent == parent && cache[h].site == v->site) node = cache[h].node - 1;
        else if ((node = prof__node_intern(e, parent, label[v->site])) != UINT32_MAX) {
            cache[h].parent = parent;
            cache[h].site = v->site;
            cache[h].node = node + 1;
        }
        if (node == UINT32_MAX || prof__stack_set(e, i, node) != 0) rc = -1;
    }
    PROF__FREE(label);
    return rc;
}

/* PROF_STACK_NATIVE: return addresses captured at scope entry become
   "function (module+0xoffset)" once per address, here, not while recording.
   Executables need -rdynamic for their own function names. */
static PROF__NI int prof__native_stacks(prof_events *e, const uint64_t *addrs) {
#if defined(PROF__HAVE_BACKTRACE)
    prof__map names;           /* address -> index in labels */
    const char **labels = NULL;
    size_t nl = 0, capl = 0, i;
    typedef char *(*demangle_fn)(const char *, char *, size_t *, int *);
    demangle_fn demangle;
    prof__buf b;
    int rc = 0;
    memset(&names, 0, sizeof names);
    memset(&b, 0, sizeof b);
    {   /* a function pointer from dlsym: copied, as POSIX allows */
        void *sym = dlsym(RTLD_DEFAULT, "__cxa_demangle");
        memcpy(&demangle, &sym, sizeof demangle);
    }
    for (i = 0; i < e->n && !rc; i++) {
        prof__ev *v = &e->ev[i];
        uint64_t n, k;
        uint32_t off, node = 0;
        if (!v->extra || !addrs || (off = prof__x(e, v)->native_off) == UINT32_MAX) continue;
        n = addrs[off];
        for (k = n; k-- > 0 && !rc;) { /* outermost first: each frame's node is its caller's child */
            uint64_t a = addrs[off + 1 + k];
            uint32_t idx = prof__map_get(&names, a);
            if (idx == UINT32_MAX) {
                PROF__DL_INFO info;
                char num[48];
                const char *nm = NULL;
                char *dem = NULL;
                int found;
                uint32_t *slot;
                memset(&info, 0, sizeof info);
                if (dladdr((void *)(uintptr_t)(a - 1), &info) && info.dli_sname) {
                    int status = -1;
                    if (demangle) dem = demangle(info.dli_sname, NULL, NULL, &status);
                    nm = (dem && status == 0) ? dem : info.dli_sname;
                }
                b.n = 0;
                if (info.dli_fname) {
                    const char *base = strrchr(info.dli_fname, '/');
                    base = base ? base + 1 : info.dli_fname;
                    snprintf(num, sizeof num, "+0x%llx)", (unsigned long long)(a - (uint64_t)(uintptr_t)info.dli_fbase));
                    prof__buf_str(&b, nm ? nm : "??");
                    prof__buf_str(&b, " (");
                    prof__buf_str(&b, base);
                    prof__buf_str(&b, num);
                } else {
                    snprintf(num, sizeof num, "?? (0x%llx)", (unsigned long long)a);
                    prof__buf_str(&b, num);
                }
                free(dem); /* __cxa_demangle allocates with malloc */
                if (b.oom || !PROF__PUSH_OK(labels, nl, capl) || !(labels[nl] = prof__intern_n(&e->strs, b.p, b.n)) ||
                    !(slot = prof__map_slot(&names, a, &found))) { rc = -1; break; }
                *slot = idx = (uint32_t)nl++;
            }
            if ((node = prof__node_intern(e, node, labels[idx])) == UINT32_MAX) rc = -1;
        }
        if (!rc && prof__stack_set(e, i, node) != 0) rc = -1;
    }
    prof__map_free(&names);
    PROF__FREE(labels);
    PROF__FREE(b.p);
    return rc;
#else
    (void)e;
    (void)addrs;
#endif
    return 0;
}

/* Stacks recorded with the events are attached once the tree's parents are
   known, before _remove_dup_nodes and _set_backward_stacktraces (which then
   gives ops under a backward scope the forward op's stack, as PyTorch).
   Each event's stack is set whole, so an attempt that failed half way is
   redone from the start. */
static PROF__NI int prof__attach_stacks(prof_events *e) {
    int rc = 0;
    if (e->stacks_pending & PROF__F_SCOPES) rc = prof__scope_stacks(e);
    if (!rc && (e->stacks_pending & PROF__F_NATIVE)) rc = prof__native_stacks(e, e->native_addrs);
    if (rc) return rc; /* out of memory: the stacks stay pending for the next build (a failed prof_stop's retry) */
    e->stacks_pending = 0;
    PROF__FREE(e->native_addrs);
    e->native_addrs = NULL;
    return rc;
}

/* >>aggregation ==========================================================*/
/* Derived values, as FunctionEvent's properties compute them. */
static PROF__NI int64_t prof__cpu_total(const prof__ev *v) { return v->device_type == PROF_DEVICE_CPU ? v->end - v->start : 0; }

static PROF__NI int64_t prof__self_cpu(const prof_events *e, const prof__ev *v) {
    int64_t s;
    int32_t c;
    if (!prof__in_tree(v)) return 0;
    s = prof__cpu_total(v);
    for (c = v->first_child; c >= 0; c = e->ev[c].next_sibling) prof__sat_sub(&s, prof__cpu_total(&e->ev[c]));
    return s;
}
/* cpu/device_memory_usage: as given, plus the memory records charged */
static PROF__NI int64_t prof__mem_of(const prof__extra *x, int device) {
    int64_t s = device ? x->dev_mem : x->cpu_mem;
    prof__sat_add(&s, device ? x->rec_dev_mem : x->rec_cpu_mem);
    return s;
}
static PROF__NI int64_t prof__self_mem(const prof_events *e, const prof__ev *v, int device) {
    int64_t s;
    int32_t c;
    if (!prof__in_tree(v)) return 0;
    s = prof__mem_of(prof__x(e, v), device);
    for (c = v->first_child; c >= 0; c = e->ev[c].next_sibling) prof__sat_sub(&s, prof__mem_of(prof__x(e, &e->ev[c]), device));
    return s;
}

/* device_time_total is recursive over children; computed once per list. */
static PROF__NI int prof__dev_memo(prof_events *e) {
    int32_t *stk;
    size_t i;
    if (e->dev_memo || !e->use_device) return 0;
    e->dev_memo = PROF__ALLOC(int64_t, e->n + 1);
    stk = PROF__ALLOC(int32_t, e->n + 1);
    if (!e->dev_memo || !stk) { PROF__FREE(e->dev_memo); PROF__FREE(stk); e->dev_memo = NULL; return -1; }
    for (i = 0; i < e->n; i++) e->dev_memo[i] = INT64_MIN;
    for (i = 0; i < e->n; i++) {
        size_t top = 0;
        if (e->dev_memo[i] != INT64_MIN) continue;
        stk[top++] = (int32_t)i;
        while (top) {
            int32_t cur = stk[top - 1], c;
            const prof__ev *v = &e->ev[cur];
            int ready = 1;
            if (v->flags & PROF__F_ASYNC) { e->dev_memo[cur] = 0; top--; continue; }
            if (v->device_type != PROF_DEVICE_CPU) { e->dev_memo[cur] = v->end - v->start; top--; continue; }
            for (c = v->first_child; c >= 0; c = e->ev[c].next_sibling)
                if (e->dev_memo[c] == INT64_MIN) { stk[top++] = c; ready = 0; }
            if (!ready) continue;
            {
                int64_t s = prof__x(e, v)->kern_ns;
                /* a legacy op carries its kernels itself; its children are not added */
                if (!(v->flags & PROF__F_LEGACY))
                    for (c = v->first_child; c >= 0; c = e->ev[c].next_sibling) prof__sat_add(&s, e->dev_memo[c]);
                e->dev_memo[cur] = s == INT64_MIN ? s + 1 : s; /* INT64_MIN marks "not yet" */
            }
            top--;
        }
    }
    PROF__FREE(stk);
    return 0;
}
static PROF__NI int64_t prof__dev_total(const prof_events *e, size_t i) { return e->dev_memo ? e->dev_memo[i] : 0; }
static PROF__NI int64_t prof__self_dev(const prof_events *e, size_t i) {
    const prof__ev *v = &e->ev[i];
    int64_t s;
    int32_t c;
    if ((v->flags & PROF__F_ASYNC) || !e->dev_memo) return 0;
    s = e->dev_memo[i];
    if (v->device_type == PROF_DEVICE_CPU)
        for (c = v->first_child; c >= 0; c = e->ev[c].next_sibling) prof__sat_sub(&s, e->dev_memo[c]);
    return s;
}

static PROF__NI prof_result prof__prepare(prof_events *e) {
    prof_result r = prof_events_build_tree(e);
    if (r != PROF_OK) return r;
    if (prof__dev_memo(e) != 0) return prof__report(PROF_LOG_ERROR, PROF_E_NOMEM, "out of memory computing device times");
    return PROF_OK;
}

/* An event with many children (PROF__KIDS_MIN or more): its children in
   order and what they give its row. */
typedef struct prof__kids {
    int32_t *child;
    size_t n;
    int64_t self_cpu, self_mem[2], self_dev;
} prof__kids;
#define PROF__KIDS_MIN 64
static PROF__NI void prof__kids_clear(prof_events *e) {
    size_t k;
    for (k = 0; k < e->nkids; k++) PROF__FREE(e->kids[k].child);
    PROF__FREE(e->kids);
    e->kids = NULL;
    e->nkids = e->capkids = 0;
    prof__map_free(&e->kids_map);
}
/* One event as a row of count 1: the table treats events and averages
   alike. kc: the event's entry of prof__kids_of, or NULL (then the values
   come from a walk over its children). */
static PROF__NI void prof__row_of_event(const prof_events *e, size_t i, prof_avg *r, const prof__kids *kc);
/* Event i's entry when it has PROF__KIDS_MIN children or more (made on
   first use, after prof__prepare), else NULL; NULL also without memory
   (the callers then walk). */
static PROF__NI const prof__kids *prof__kids_of(prof_events *e, size_t i) {
    const prof__ev *v = &e->ev[i];
    prof__kids *kc;
    prof_avg r;
    size_t n = 0;
    int32_t c;
    uint32_t *slot;
    int found;
    for (c = v->first_child; c >= 0 && n < PROF__KIDS_MIN; c = e->ev[c].next_sibling) n++;
    if (n < PROF__KIDS_MIN) return NULL;
    if ((slot = prof__map_at(&e->kids_map, i)) != NULL) return &e->kids[*slot];
    if (!PROF__PUSH_OK(e->kids, e->nkids, e->capkids)) return NULL;
    kc = &e->kids[e->nkids];
    n = prof__n_children(e, v);
    if (!(kc->child = PROF__ALLOC(int32_t, n))) return NULL;
    for (n = 0, c = v->first_child; c >= 0; c = e->ev[c].next_sibling) kc->child[n++] = c;
    kc->n = n;
    prof__row_of_event(e, i, &r, NULL);
    kc->self_cpu = r.self_cpu_time_total_ns;
    kc->self_mem[0] = r.self_cpu_memory_usage;
    kc->self_mem[1] = r.self_device_memory_usage;
    kc->self_dev = r.self_device_time_total_ns;
    if (!(slot = prof__map_slot(&e->kids_map, i, &found))) { PROF__FREE(kc->child); return NULL; }
    *slot = (uint32_t)e->nkids++;
    return kc;
}
/* The same with its stack as an array (for the public view and the table). */
static PROF__NI int prof__row_stack(prof_events *e, size_t i, prof_avg *r, const prof__kids *kc) {
    prof__row_of_event(e, i, r, kc);
    if (r->stack_depth && !(r->stack = prof__node_array(e, i))) return -1;
    return 0;
}
static PROF__NI void prof__row_of_event(const prof_events *e, size_t i, prof_avg *r, const prof__kids *kc) {
    const prof__ev *v = &e->ev[i];
    const prof__extra *x = prof__x(e, v);
    memset(r, 0, sizeof *r);
    r->key = prof__ev_name(e, v);
    r->overload_name = x->overload_name ? x->overload_name : "";
    r->input_shapes = x->shapes ? x->shapes : e->no_shapes;
    r->stack = NULL; /* the array only where it is shown: prof__row_stack */
    r->stack_depth = prof__node_depth(e, prof__stack_node(e, i));
    r->node_id = v->node_id;
    r->device_type = (prof_device_type)v->device_type;
    r->is_async = (v->flags & PROF__F_ASYNC) != 0;
    r->is_user_annotation = (v->flags & PROF__F_USER_ANN) != 0;
    r->is_legacy = (v->flags & PROF__F_LEGACY) != 0;
    r->has_cpu_parent = v->parent >= 0;
    r->count = 1;
    r->cpu_time_total_ns = prof__cpu_total(v);
    r->self_cpu_time_total_ns = kc ? kc->self_cpu : prof__self_cpu(e, v);
    r->device_time_total_ns = prof__dev_total(e, i);
    r->self_device_time_total_ns = kc ? kc->self_dev : prof__self_dev(e, i);
    r->cpu_memory_usage = prof__mem_of(x, 0);
    r->device_memory_usage = prof__mem_of(x, 1);
    r->self_cpu_memory_usage = kc ? kc->self_mem[0] : prof__self_mem(e, v, 0);
    r->self_device_memory_usage = kc ? kc->self_mem[1] : prof__self_mem(e, v, 1);
    r->flops = x->flops;
}

PROF_API prof_result prof_events_get(prof_events *e, size_t i, prof_event *out) {
    const prof__ev *v;
    const prof__extra *x;
    const prof__kids *kc;
    prof_avg r;
    prof_result res;
    if (!e || !out) return prof__report(PROF_LOG_ERROR, PROF_E_ARG, "prof_events_get: the %s is NULL", !e ? "event list" : "output pointer");
    if ((res = prof__prepare(e)) != PROF_OK) return res; /* first: the tree's [memory] rows are events too */
    if (i >= e->n) return prof__report(PROF_LOG_ERROR, PROF_E_ARG, "prof_events_get: no event %zu (the list has %zu)", i, e->n);
    v = &e->ev[i];
    x = prof__x(e, v);
    kc = prof__kids_of(e, i);
    if (prof__row_stack(e, i, &r, kc) != 0) return prof__report(PROF_LOG_ERROR, PROF_E_NOMEM, "prof_events_get: out of memory");
    memset(out, 0, sizeof *out);
    out->name = r.key;
    out->overload_name = r.overload_name;
    out->trace_name = x->trace_name ? x->trace_name : r.key;
    out->file = e->sites[v->site].file;
    out->func = e->sites[v->site].func;
    out->line = e->sites[v->site].line;
    out->thread = e->thr[v->thread].tid;
    /* a device event's thread is its stream, never named: a CPU thread of
       the same id (small ids, in a container) lends it no name */
    out->thread_name = v->device_type == PROF_DEVICE_CPU ? e->thr[v->thread].name : NULL;
    out->start_ns = v->start;
    out->end_ns = v->end;
    out->node_id = v->node_id;
    out->device_type = (prof_device_type)v->device_type;
    out->device_index = x->device_index;
    out->device_resource_id = x->has_resource ? x->resource_id : (int64_t)out->thread;
    out->is_async = r.is_async;
    out->is_user_annotation = r.is_user_annotation;
    out->scope = v->scope;
    out->sequence_nr = prof__seq_nr(e, v);
    out->has_fwd_thread = x->has_fwd_thread;
    out->fwd_thread = x->fwd_thread;
    out->flops = x->flops;
    out->input_shapes = r.input_shapes;
    out->stack = r.stack;
    out->stack_depth = r.stack_depth;
    out->parent = v->parent;
    out->n_children = kc ? kc->n : prof__n_children(e, v);
    {
        int32_t k;
        for (k = x->kern_head; k >= 0; k = e->kern[k].next) out->n_kernels++;
    }
    out->cpu_time_total_ns = r.cpu_time_total_ns;
    out->self_cpu_time_total_ns = r.self_cpu_time_total_ns;
    out->device_time_total_ns = r.device_time_total_ns;
    out->self_device_time_total_ns = r.self_device_time_total_ns;
    out->cpu_memory_usage = r.cpu_memory_usage;
    out->self_cpu_memory_usage = r.self_cpu_memory_usage;
    out->device_memory_usage = r.device_memory_usage;
    out->self_device_memory_usage = r.self_device_memory_usage;
    return PROF_OK;
}

PROF_API int64_t prof_events_child(prof_events *e, size_t i, size_t k) {
    const prof__kids *kc;
    int32_t c;
    if (!e || prof__prepare(e) != PROF_OK || i >= e->n) return -1;
    if ((kc = prof__kids_of(e, i)) != NULL) return k < kc->n ? kc->child[k] : -1; /* (no walk for a k-th of many) */
    for (c = e->ev[i].first_child; c >= 0 && k > 0; c = e->ev[c].next_sibling) k--;
    return c;
}

struct prof_averages {
    prof_avg *rows;
    size_t n, cap;
    const char *use_device;
    int profile_memory, with_flops;
    uint64_t dropped_scopes, dropped;  /* the list's prof_stats: for the table's note */
    const char **stacks;               /* the rows' stacks, in one piece */
    prof__arena arena;
    prof__strtab strs;
};

/* FunctionEventAvg.add */
static PROF__NI void prof__avg_add(prof_avg *a, const prof_avg *o) {
    if (!a->key) {
        a->key = o->key;
        a->node_id = o->node_id;
        a->is_async = o->is_async;
        a->is_remote = o->is_remote;
        a->has_cpu_parent = o->has_cpu_parent;
        a->overload_name = o->overload_name;
        a->input_shapes = o->input_shapes;
        a->stack = o->stack;
        a->stack_depth = o->stack_depth;
        a->device_type = o->device_type;
        a->is_user_annotation = o->is_user_annotation;
        a->is_legacy = o->is_legacy;
    }
    prof__sat_add(&a->cpu_time_total_ns, o->cpu_time_total_ns);
    prof__sat_add(&a->device_time_total_ns, o->device_time_total_ns);
    prof__sat_add(&a->self_cpu_time_total_ns, o->self_cpu_time_total_ns);
    prof__sat_add(&a->self_device_time_total_ns, o->self_device_time_total_ns);
    prof__sat_add(&a->cpu_memory_usage, o->cpu_memory_usage);
    prof__sat_add(&a->device_memory_usage, o->device_memory_usage);
    prof__sat_add(&a->self_cpu_memory_usage, o->self_cpu_memory_usage);
    prof__sat_add(&a->self_device_memory_usage, o->self_device_memory_usage);
    a->count += o->count;
    prof__sat_add(&a->flops, o->flops);
}

/* key_averages in two steps: each event is reduced to a key of a few
   words, all interned in the list (so it compares by address), and its
   numbers are added to its row's sums; the rows' other fields are taken
   from each row's first event at the end, as FunctionEventAvg.add takes
   them from the first event it is given. */
typedef struct prof__gkey {
    const char *name, *overload, *shapes; /* overload, shapes: NULL when not grouped by them */
    uint64_t fh;       /* group_by_stack_n > 0: the hash of the stack's first n frames, else 0 */
    uint32_t node;     /* the same: the stack's node, whose first n frames are compared */
    int32_t node_id;
    uint32_t kind;     /* device_type, is_legacy, is_user_annotation */
} prof__gkey;
/* The part of a key an event's flags and device make (prof__gkey's kind). */
static __inline__ PROF__NI uint32_t prof__gkind(const prof__ev *v) { return (uint32_t)v->device_type << 16 | (v->flags & (PROF__F_LEGACY | PROF__F_USER_ANN)); }
static PROF__NI uint64_t prof__gkey_hash(const prof__gkey *k) {
    uint64_t h = prof__mix((uint64_t)(uintptr_t)k->name ^ ((uint64_t)(uint32_t)k->node_id << 32) ^ k->kind);
    return prof__mix(h ^ (uint64_t)(uintptr_t)k->overload ^ ((uint64_t)(uintptr_t)k->shapes << 1) ^ k->fh);
}
/* A cache in front of the map: the last row of a (site, key) slot, so an
   event whose site and key parts match its slot's costs a few compares. */
typedef struct prof__gcache { const char *overload, *shapes; uint32_t site, node, kind, row; int32_t node_id; } prof__gcache;
/* By stack (and not by overload or shapes), with more stack nodes than
   sites: first a memo per stack node of its last row, which scope stacks
   (one name per node, tens of thousands of nodes) always hit, where the
   cache's (site, node) slots would collide. The sums every CPU event adds
   to (count, CPU, self CPU) are then kept apart from the rows, one place
   per row (its `acc`): the memo entry of the node of its first event
   (that node's first row: an event at that node, the usual case, reads
   and writes one cache line), else a place of its own (xacc). A row's
   sums are added one event at a time in the list's order, so they are
   the same, saturating, as a sum per row in one array. */
typedef struct prof__ghot { int64_t count, cpu, self_cpu; } prof__ghot;
typedef struct prof__gmemo {
    uint32_t site, row, kind;
    int32_t node_id;
    uint32_t acc;  /* the place of row's sums: a node (its entry's h) <= nnodes, else xacc[acc - nnodes - 1] */
    uint32_t own;  /* the row whose sums are h, UINT32_MAX = none */
    prof__ghot h;
} prof__gmemo;
/* Whether the memo entry holds event v's key (its row is then m->row). */
static __inline__ PROF__NI int prof__gmemo_holds(const prof__gmemo *m, const prof__ev *v) {
    return m->site == v->site && m->node_id == v->node_id && m->kind == prof__gkind(v);
}
typedef struct prof__gxacc { prof__ghot h; uint32_t row; } prof__gxacc;
typedef struct prof__grouping {
    prof_events *e;
    prof_group_options g;
    uint64_t *fh;      /* group_by_stack_n > 0: per stack node, its first n frames' hash (0 = not yet) */
    prof__map rows;    /* a key -> its row (the key: its first event's) */
    uint32_t *first;   /* per row: its first event */
    size_t capfirst;
    prof__gcache *cache;
    size_t cache_mask;
    prof__gmemo *memo; /* per stack node, or NULL */
    uint32_t *racc;    /* with memos: per row, its acc */
    size_t capracc;
    prof__gxacc *xacc; /* with memos: the sums of rows whose first node's entry holds another row's */
    size_t nxacc, capxacc;
    int lin;           /* with memos, no extras and no device times: prof__grouping_memo_lin */
    prof__map copied;  /* finish: a string of the list -> its copy's index */
    const char **copies;
    size_t ncopies, capcopies;
    const char **node_copy; /* finish: per stack node, its frame's copy (NULL = not yet) */
    const char **site_copy; /* finish: per site, its name's copy (NULL = not yet) */
    const char *copy_src[64], *copy_dst[64]; /* finish: a string's copy, a slot per string's
                                                address, before the map (stack nodes share
                                                frames: 51 frames on 61k nodes in the stress case) */
    /* With memos, one block of huge pages for memo, fh, node_copy, the
       rows' map and first and racc as first sized (each array in 4 KiB
       pages cost a fault per page touched, 680 in all for the stress
       case's 61k nodes, 12-35 us each on a VM). An array of the block is
       never given to realloc or free: one that outgrows it moves out
       (prof__ggrow, prof__group_find). */
    char *arena;
    size_t arena_bytes;
} prof__grouping;
/* Whether p lies in the grouping's block (then not freed on its own). */
static PROF__NI int prof__gin(const prof__grouping *gr, const void *p) {
    uintptr_t a = (uintptr_t)gr->arena, q = (uintptr_t)p;
    return gr->arena && q >= a && q - a < gr->arena_bytes;
}
static PROF__NI void prof__gfree(const prof__grouping *gr, void *p) {
    if (!prof__gin(gr, p)) PROF__FREE(p);
}
/* prof__grow for an array that may lie in the block: moved out into its
   own memory when it must grow. */
static PROF__NI int prof__ggrow(const prof__grouping *gr, void *pp, size_t *cap, size_t need, size_t elem) {
    void *p, *np = NULL;
    size_t nc = 0;
    memcpy(&p, pp, sizeof p);
    if (need <= *cap || !prof__gin(gr, p)) return prof__grow(pp, cap, need, elem);
    if (!prof__grow((void *)&np, &nc, need > *cap * 2 ? need : *cap * 2, elem)) return 0;
    memcpy(np, p, *cap * elem);
    memcpy(pp, &np, sizeof np);
    *cap = nc;
    return 1;
}
/* Room for n elements of elem bytes at *off in the block, 8-byte aligned;
   0 when the total would not fit a size_t. */
static PROF__NI int prof__gpart(size_t *off, size_t *at, size_t n, size_t elem) {
    size_t o = (*off + 7) & ~(size_t)7;
    if (o < *off || o > (size_t)PTRDIFF_MAX || n > PROF__MAX_ELEMS(elem) || n * elem > (size_t)PTRDIFF_MAX - o) return 0;
    *at = o;
    *off = o + n * elem;
    return 1;
}

/* group_by_stack_n: evt.stack[:n] is the key, so two stacks are one key
   when their first n frames (innermost first) are the same: the key holds
   the stack's node and the hash of those frames (made once per node), and
   two keys with the same hash compare the frames, walking up from each
   node (nodes are interned: two stacks meet at a common node at most n
   frames up, or differ). */
static PROF__NI int prof__gstack_same(const prof_events *e, uint32_t a, uint32_t b, int n) {
    int i, da = prof__node_depth(e, a), db = prof__node_depth(e, b);
    if ((da < n ? da : n) != (db < n ? db : n)) return 0;
    for (i = 0; i < n && a != b && a && b; i++, a = prof__node_parent(e, a), b = prof__node_parent(e, b))
        if (prof__node_frame(e, a) != prof__node_frame(e, b)) return 0;
    return 1;
}
static PROF__NI uint64_t prof__gstack_hash(prof__grouping *gr, uint32_t node) {
    const prof_events *e = gr->e;
    uint64_t h = prof__mix((uint64_t)gr->g.group_by_stack_n);
    uint32_t a = node;
    int i;
    for (i = 0; i < gr->g.group_by_stack_n && a; i++, a = prof__node_parent(e, a)) {
        const char *f = prof__node_frame(e, a);
        h = (h ^ (uint64_t)(uintptr_t)f) * 0x9e3779b97f4a7c15ull; /* mixed once at the end, and by the key's hash */
    }
    return gr->fh[node] = prof__mix(h) | 1; /* never 0, "not yet" */
}
/* With memos, every node's hash at once, parents before their children
   (a node is interned after its parent): the hash of a node's first k
   frames is that of its parent's first k - 1 and its own frame, so each
   node reads its parent's row of n - 1 hashes, a miss that the next
   nodes' overlap, where prof__gstack_hash walks n parents, a miss each
   that waits for the one before (7 ns an event in the stress case's 61k
   nodes). Frames are combined outermost first here and innermost first
   there: a grouping uses one or the other for all its nodes, never both.
   lv: room for n - 1 hashes per node (n <= PROF__GLEVELS). */
#define PROF__GLEVELS 8
static PROF__NI void prof__gstack_hashes(prof__grouping *gr, uint64_t *lv) {
    const prof_events *e = gr->e;
    size_t n = (size_t)gr->g.group_by_stack_n, w = n - 1, k, node;
    uint64_t seed = prof__mix((uint64_t)n);
    for (k = 0; k < w; k++) lv[k] = seed; /* node 0, the empty stack: every k */
    gr->fh[0] = prof__mix(seed) | 1;
    for (node = 1; node < e->nnodes; node++) {
        uint32_t p = prof__node_parent(e, (uint32_t)node);
        const char *frame = prof__node_frame(e, (uint32_t)node);
        uint64_t f = (uint64_t)(uintptr_t)frame, prev = seed;
        if (p >= node) { /* not parents first: hashed one at a time instead */
            memset(gr->fh, 0, (e->nnodes + 1) * sizeof *gr->fh);
            return;
        }
        for (k = 0; k < w; k++) { /* hash k + 1 from the parent's k (the seed for 0) */
            lv[node * w + k] = (prev ^ f) * 0x9e3779b97f4a7c15ull;
            prev = lv[(size_t)p * w + k];
        }
        gr->fh[node] = prof__mix((prev ^ f) * 0x9e3779b97f4a7c15ull) | 1; /* never 0, "not yet" */
    }
}
static PROF__NI int prof__gkey_eq(const prof__grouping *gr, const prof__gkey *a, const prof__gkey *b) {
    return a->name == b->name && a->node_id == b->node_id && a->kind == b->kind && a->overload == b->overload && a->shapes == b->shapes && a->fh == b->fh &&
           (!gr->fh || prof__gstack_same(gr->e, a->node, b->node, gr->g.group_by_stack_n));
}
/* Event i's key (its stack's hash made: gr->fh[node] set), as
   prof__group_row makes it; a row's key is its first event's, made again
   where a lookup compares it, so rows keep no key. */
/* "No overload name" as one object: keys compare these pointers, and two
   equal string literals need not be one object. */
static const char prof__no_overload[1] = "";
static PROF__NI void prof__gkey_of(const prof__grouping *gr, size_t i, prof__gkey *k) {
    const prof_events *e = gr->e;
    const prof__ev *v = &e->ev[i];
    const prof__extra *x = prof__xr(e, v);
    k->name = e->sites[v->site].name;
    k->node_id = v->node_id;
    k->kind = prof__gkind(v);
    k->overload = !gr->g.group_by_overload_name ? NULL : x && x->overload_name ? x->overload_name : prof__no_overload;
    k->shapes = !gr->g.group_by_input_shapes ? NULL : x && x->shapes ? x->shapes : e->no_shapes;
    k->node = gr->fh ? prof__stack_node(e, i) : 0;
    k->fh = gr->fh ? gr->fh[k->node] : 0;
}
typedef struct prof__growkey { const prof__grouping *gr; const prof__gkey *k; } prof__growkey;
static PROF__NI int prof__grow_same(const void *key, uint32_t v) {
    const prof__growkey *k = (const prof__growkey *)key;
    prof__gkey rk;
    prof__gkey_of(k->gr, k->gr->first[v], &rk);
    return prof__gkey_eq(k->gr, &rk, k->k);
}
/* The row of key k, made if new (in first-seen order, as the dict's) with
   event i as its first. UINT32_MAX: out of memory. */
static PROF__NI uint32_t prof__group_find(prof__grouping *gr, prof_averages *a, const prof__gkey *k, size_t i) {
    prof__growkey key;
    uint64_t h = prof__gkey_hash(k);
    uint32_t v;
    key.gr = gr;
    key.k = k;
    if ((v = prof__map_find(&gr->rows, h, prof__grow_same, &key)) != UINT32_MAX) return v;
    if (a->n >= UINT32_MAX - 1) return UINT32_MAX;
    if (a->n >= a->cap || a->n >= gr->capfirst) /* grown together, checked once */
        if (!PROF__PUSH_OK(a->rows, a->n, a->cap) || !prof__ggrow(gr, (void *)&gr->first, &gr->capfirst, a->n + 1, sizeof *gr->first)) return UINT32_MAX;
    if (gr->memo) { /* the row's sums: its node's entry if free, else a place of their own */
        prof__gmemo *m = &gr->memo[k->node];
        if (!prof__ggrow(gr, (void *)&gr->racc, &gr->capracc, a->n + 1, sizeof *gr->racc)) return UINT32_MAX;
        if (m->own == UINT32_MAX) {
            m->own = (uint32_t)a->n;
            gr->racc[a->n] = k->node;
        } else {
            if (gr->nxacc >= UINT32_MAX - gr->e->nnodes - 2 || !PROF__PUSH_OK(gr->xacc, gr->nxacc, gr->capxacc)) return UINT32_MAX;
            memset(&gr->xacc[gr->nxacc], 0, sizeof gr->xacc[0]);
            gr->xacc[gr->nxacc].row = (uint32_t)a->n;
            gr->racc[a->n] = (uint32_t)(gr->e->nnodes + 1 + gr->nxacc++);
        }
    }
    memset(&a->rows[a->n], 0, sizeof a->rows[0]);
    gr->first[a->n] = (uint32_t)i;
    if ((gr->rows.n + 1) * 4 >= gr->rows.cap * 3 && prof__gin(gr, gr->rows.keys)) { /* the map outgrows the block: out of it */
        prof__map m;
        size_t j;
        memset(&m, 0, sizeof m);
        if (!prof__map_rehash(&m, gr->rows.cap * 2)) return UINT32_MAX;
        for (j = 0; j < gr->rows.cap; j++) /* room for all: no add fails */
            if (gr->rows.vals[j] != UINT32_MAX) (void)prof__map_add(&m, gr->rows.keys[j], gr->rows.vals[j]);
        gr->rows = m;
    }
    if (!prof__map_add(&gr->rows, h, (uint32_t)a->n)) return UINT32_MAX;
    return (uint32_t)a->n++;
}
/* Event i's row: the key is the event's name (its site's), node_id, kind,
   and what the options add (overload name, input shapes, the stack's
   first n frames): node is the event's stack node by stack, else 0;
   `more`: grouped by overload name or input shapes (a constant where it
   is inlined, so the loop without them does not test them). UINT32_MAX:
   out of memory. */
static __inline__ __attribute__((__always_inline__)) uint32_t prof__group_row(prof__grouping *gr, prof_averages *a, size_t i, uint32_t node, int more) {
    const prof_events *e = gr->e;
    const prof__ev *v = &e->ev[i];
    prof__gcache *c;
    prof__gkey k;
    /* the cache slot of the event's site and, by stack, its stack node,
       whose frames are hashed only on a miss */
    prof__gmemo *m = gr->memo ? &gr->memo[node] : NULL;
    k.kind = prof__gkind(v);
    if (m && m->site == v->site && m->node_id == v->node_id && m->kind == k.kind) return m->row;
    k.overload = k.shapes = NULL;
    if (more) {
        const prof__extra *x = prof__xr(e, v);
        if (gr->g.group_by_overload_name) k.overload = x && x->overload_name ? x->overload_name : prof__no_overload;
        if (gr->g.group_by_input_shapes) k.shapes = x && x->shapes ? x->shapes : e->no_shapes;
    }
    c = &gr->cache[(v->site + node * 0x9e3779b1u) & gr->cache_mask];
    if (c->site == v->site && c->node == node && c->node_id == v->node_id && c->kind == k.kind && c->overload == k.overload && c->shapes == k.shapes) {
        if (m) { m->site = v->site; m->row = c->row; m->kind = k.kind; m->node_id = v->node_id; m->acc = gr->racc[c->row]; }
        return c->row;
    }
    k.node = node;
    k.fh = gr->fh ? (gr->fh[node] ? gr->fh[node] : prof__gstack_hash(gr, node)) : 0;
    k.name = e->sites[v->site].name;
    k.node_id = v->node_id;
    if ((c->row = prof__group_find(gr, a, &k, i)) == UINT32_MAX) { c->site = UINT32_MAX; return UINT32_MAX; }
    c->site = v->site;
    c->node = node;
    c->node_id = v->node_id;
    c->kind = k.kind;
    c->overload = k.overload;
    c->shapes = k.shapes;
    if (m) { m->site = v->site; m->row = c->row; m->kind = k.kind; m->node_id = v->node_id; m->acc = gr->racc[c->row]; }
    return c->row;
}
/* The same, out of line: the memo loop's misses (a call there keeps the
   loop's registers for the hits). */
static PROF__NI __attribute__((__noinline__)) uint32_t prof__group_row_miss(prof__grouping *gr, prof_averages *a, size_t i, uint32_t node) { return prof__group_row(gr, a, i, node, 0); }
/* Adds event i's numbers to its row r (count, CPU and self CPU time to
   h's: the row's own, or its acc), as prof__row_of_event and
   FunctionEventAvg.add compute them (the same sums, saturating, in the
   same order), reading only what the event has: a child's memory only
   when the child has an extra record, device times only with use_device. */
static __inline__ __attribute__((__always_inline__)) void prof__group_add(const prof_events *e, size_t i, int64_t *count, int64_t *cpu_sum, int64_t *self_sum, prof_avg *r) {
    const prof__ev *v = &e->ev[i], *ev = e->ev;
    int64_t cpu = prof__cpu_total(v);
    ++*count;
    prof__sat_add(cpu_sum, cpu);
    if (prof__in_tree(v)) {
        int64_t self = cpu;
        uint32_t child_extra = 0;
        int32_t c;
        for (c = v->first_child; c >= 0; c = ev[c].next_sibling) { /* children are CPU events */
            prof__sat_sub(&self, ev[c].end - ev[c].start);
            child_extra |= ev[c].extra;
        }
        prof__sat_add(self_sum, self);
        if (v->extra || child_extra) {
            prof__sat_add(&r->self_cpu_memory_usage, prof__self_mem(e, v, 0));
            prof__sat_add(&r->self_device_memory_usage, prof__self_mem(e, v, 1));
        }
    }
    if (v->extra) {
        const prof__extra *x = prof__x(e, v);
        prof__sat_add(&r->cpu_memory_usage, prof__mem_of(x, 0));
        prof__sat_add(&r->device_memory_usage, prof__mem_of(x, 1));
        prof__sat_add(&r->flops, x->flops);
    }
    if (e->dev_memo) {
        prof__sat_add(&r->device_time_total_ns, prof__dev_total(e, i));
        prof__sat_add(&r->self_device_time_total_ns, prof__self_dev(e, i));
    }
}
static PROF__NI void prof__grouping_free(prof__grouping *gr) {
    prof__gfree(gr, gr->fh);
    prof__gfree(gr, gr->first);
    PROF__FREE(gr->cache);
    prof__gfree(gr, gr->racc);
    PROF__FREE(gr->xacc);
    PROF__FREE(gr->copies);
    prof__gfree(gr, gr->node_copy);
    PROF__FREE(gr->site_copy);
    if (prof__gin(gr, gr->rows.keys)) memset(&gr->rows, 0, sizeof gr->rows);
    prof__map_free(&gr->rows);
    prof__map_free(&gr->copied);
    PROF__FREE(gr->arena); /* memo's too */
    gr->arena = NULL;
}
/* The averages' copy of a string of the list (NULL stays NULL): each
   distinct string is copied and hashed once, however many rows show it. */
static PROF__NI const char *prof__group_copy(prof__grouping *gr, prof_averages *a, const char *s) {
    uint32_t *slot;
    int found;
    size_t k = (size_t)(((uintptr_t)s >> 3) ^ ((uintptr_t)s >> 9)) & 63u;
    if (!s) return NULL;
    if (gr->copy_src[k] == s) return gr->copy_dst[k];
    if (!(slot = prof__map_slot(&gr->copied, (uint64_t)(uintptr_t)s, &found))) return NULL;
    if (found) {
        gr->copy_src[k] = s;
        return gr->copy_dst[k] = gr->copies[*slot];
    }
    /* the key is in the map now: its value must be set, or the map dropped */
    if (!PROF__PUSH_OK(gr->copies, gr->ncopies, gr->capcopies) || !(gr->copies[gr->ncopies] = prof__intern(&a->strs, s))) {
        prof__map_free(&gr->copied);
        return NULL;
    }
    *slot = (uint32_t)gr->ncopies;
    gr->copy_src[k] = s;
    return gr->copy_dst[k] = gr->copies[gr->ncopies++];
}
/* The rows' other fields, from their first events (prof__row_of_event's),
   with the strings copied so the averages outlive the list: a row's name
   and stack frames come from per-site and per-node memos, so a frame
   shared by many rows' stacks is looked up once. */
/* evt.stack[:group_by_stack_n] of a stack of depth d, a Python slice: a
   negative n drops that many from the end (the key ignores the stack then,
   as for 0) */
static PROF__NI int prof__group_depth(int n, int d) { return n >= 0 ? (d < n ? d : n) : (d + n > 0 ? d + n : 0); }
static PROF__NI int prof__group_finish(prof__grouping *gr, prof_averages *a) {
    prof_events *e = gr->e;
    size_t i, total = 0;
    const char **st = NULL;
    /* the rows' stacks in one piece of exactly their size */
    for (i = 0; gr->g.group_by_stack_n && i < a->n; i++)
        if ((total += (size_t)prof__group_depth(gr->g.group_by_stack_n, prof__node_depth(e, prof__stack_node(e, gr->first[i])))) > PROF__MAX_ELEMS(sizeof *st)) return -1;
    if (total && !(st = a->stacks = (const char **)prof__malloc_huge(total, sizeof *st))) return -1;
    if (!(gr->site_copy = PROF__ALLOC(const char *, e->nsites + 1))) return -1;
    memset(gr->site_copy, 0, (e->nsites + 1) * sizeof *gr->site_copy);
    if (gr->g.group_by_stack_n && e->nnodes) {
        if (!gr->node_copy && !(gr->node_copy = PROF__ALLOC(const char *, e->nnodes))) return -1;
        memset(gr->node_copy, 0, e->nnodes * sizeof *gr->node_copy);
    }
    for (i = 0; i < a->n; i++) {
        prof_avg *r = &a->rows[i];
        size_t fi = gr->first[i];
        const prof__ev *v = &e->ev[fi];
        const prof__extra *x = prof__x(e, v);
        uint32_t node = prof__stack_node(e, fi);
        int k, depth = prof__group_depth(gr->g.group_by_stack_n, prof__node_depth(e, node));
#if defined(__GNUC__) || defined(__clang__)
        /* rows' first events are in list order but far apart (16 events
           an average in the stress case): a miss each, made ahead, and
           their stack nodes' (read 8 rows ahead of here, their stk 16) */
        if (i + 8 < a->n) {
            size_t f8 = gr->first[i + 8];
            __builtin_prefetch(&e->ev[f8]);
            if (gr->node_copy && f8 < e->capstk) {
                uint32_t n8 = e->stk[f8];
                __builtin_prefetch(&e->nodes[n8]);
                __builtin_prefetch(&gr->node_copy[n8]);
            }
            if (i + 16 < a->n && gr->node_copy && gr->first[i + 16] < e->capstk) __builtin_prefetch(&e->stk[gr->first[i + 16]]);
        }
#endif
        if (!gr->site_copy[v->site]) gr->site_copy[v->site] = prof__group_copy(gr, a, prof__ev_name(e, v));
        r->key = gr->site_copy[v->site];
        r->overload_name = gr->g.group_by_overload_name ? prof__group_copy(gr, a, x->overload_name ? x->overload_name : "") : "";
        r->input_shapes = "";
        if (gr->g.group_by_input_shapes) {
            const char *sh = x->shapes ? x->shapes : e->no_shapes;
            if (sh && !(r->input_shapes = prof__group_copy(gr, a, sh))) return -1;
            if (!sh) r->input_shapes = NULL;
        }
        r->stack = depth > 0 ? st : NULL;
        r->stack_depth = depth;
        for (k = 0; k < depth; k++, node = prof__node_parent(e, node)) {
            if (!gr->node_copy[node] && !(gr->node_copy[node] = prof__group_copy(gr, a, prof__node_frame(e, node)))) return -1;
            *st++ = gr->node_copy[node];
        }
        r->node_id = v->node_id;
        r->device_type = (prof_device_type)v->device_type;
        r->is_async = (v->flags & PROF__F_ASYNC) != 0;
        r->is_user_annotation = (v->flags & PROF__F_USER_ANN) != 0;
        r->is_remote = 0;
        r->is_legacy = (v->flags & PROF__F_LEGACY) != 0;
        r->has_cpu_parent = v->parent >= 0;
        if (!r->key || !r->overload_name) return -1;
    }
    return 0;
}
/* By stack with memos (scope stacks, nothing else in the key): the memos,
   stack hashes, rows' map and indices in one block of huge pages, the
   rows' room reserved. */
static PROF__NI int prof__grouping_memos(prof__grouping *gr, prof_averages *a) {
    const prof_events *e = gr->e;
    size_t i, want, mcap;
    size_t off = 0, at_memo, at_fh, at_copy, at_keys, at_vals, at_first, at_racc, at_lv, lv_bytes = 0;
    uint64_t *lv = NULL;
    /* self times by parents (prof__grouping_memo_lin): no event has an
       extra record (its memory would be walked from its children) and no
       device times, every event's node in stk, indices in 32 bits */
    int lin = e->nex <= 1 && !e->dev_memo && e->n < UINT32_MAX && e->capstk >= e->n;
    size_t w = gr->g.group_by_stack_n <= PROF__GLEVELS ? (size_t)gr->g.group_by_stack_n - 1 : 0; /* prof__gstack_hashes' row */
    /* scope stacks: about a row per node. Room for that many rows
       up front (at most an eighth of the events: 19 B an event of
       address space), so that the row arrays are not copied into
       fresh memory at each doubling (room never written costs no
       page, but for the rest of a huge page; the rows' is given
       back at the end), the rows in huge pages. Without it (no
       memory for it), they grow as they go. */
    want = e->nnodes + e->nsites < e->n / 8 + 64 ? e->nnodes + e->nsites : e->n / 8 + 64;
    if (w && e->nnodes + 1 <= PROF__MAX_ELEMS(w * sizeof(uint64_t))) lv_bytes = (e->nnodes + 1) * w * sizeof(uint64_t);
    else if (w) return -1;
    if ((a->rows = (prof_avg *)prof__malloc_huge(want, sizeof *a->rows))) a->cap = want;
    /* the stack hashes' rows are needed only until every node's hash is
       made, before any row is written: in the rows' room when it is big
       enough (2 MB less of fresh memory at 61k nodes, the rows' pages
       touched a little earlier), else in the block */
    if (a->rows && lv_bytes <= want * sizeof *a->rows) {
        void *room = a->rows;
        lv = (uint64_t *)room;
        lv_bytes = 0;
    }
    /* the rows' map sized once too: its doublings rehashed every
       key and left their old arrays behind, fresh memory each */
    for (mcap = 64; mcap * 3 <= (want + 1) * 4; mcap *= 2) {}
    if (!prof__gpart(&off, &at_memo, e->nnodes + 1, sizeof *gr->memo) || !prof__gpart(&off, &at_fh, e->nnodes + 1, sizeof *gr->fh) ||
        !prof__gpart(&off, &at_copy, e->nnodes, sizeof *gr->node_copy) || !prof__gpart(&off, &at_keys, mcap, sizeof *gr->rows.keys) ||
        !prof__gpart(&off, &at_vals, mcap, sizeof *gr->rows.vals) || !prof__gpart(&off, &at_first, want, sizeof *gr->first) ||
        !prof__gpart(&off, &at_racc, want, sizeof *gr->racc) || !prof__gpart(&off, &at_lv, lv_bytes, 1) ||
        !(gr->arena = (char *)prof__malloc_huge(off, 1)))
        return -1;
    gr->arena_bytes = off;
    gr->memo = (prof__gmemo *)(void *)(gr->arena + at_memo);
    gr->fh = (uint64_t *)(void *)(gr->arena + at_fh);
    gr->node_copy = (const char **)(void *)(gr->arena + at_copy);
    gr->rows.keys = (uint64_t *)(void *)(gr->arena + at_keys);
    gr->rows.vals = (uint32_t *)(void *)(gr->arena + at_vals);
    gr->rows.cap = mcap;
    gr->first = (uint32_t *)(void *)(gr->arena + at_first);
    gr->racc = (uint32_t *)(void *)(gr->arena + at_racc);
    gr->capfirst = gr->capracc = want;
    gr->lin = lin;
    for (i = 0; i < mcap; i++) gr->rows.vals[i] = UINT32_MAX;
    for (i = 0; i <= e->nnodes; i++) {
        prof__gmemo *m = &gr->memo[i];
        m->site = m->row = m->kind = m->acc = m->own = UINT32_MAX;
        m->node_id = 0;
        m->h.count = m->h.cpu = m->h.self_cpu = 0;
    }
    if (w && !lv) lv = (uint64_t *)(void *)(gr->arena + at_lv);
    if (gr->g.group_by_stack_n <= PROF__GLEVELS) prof__gstack_hashes(gr, w ? lv : NULL);
    else memset(gr->fh, 0, (e->nnodes + 1) * sizeof *gr->fh);
    return 0;
}
/* The place of an acc's sums (prof__gmemo's acc). */
static __inline__ __attribute__((__always_inline__)) prof__ghot *prof__gsums(const prof__grouping *gr, uint32_t acc) {
    return acc <= gr->e->nnodes ? &gr->memo[acc].h : &gr->xacc[acc - gr->e->nnodes - 1].h;
}
/* The events by stack with memos: each event's memo entry tested here,
   prof__group_row_miss on a miss. */
static PROF__NI int prof__grouping_memo_loop(prof__grouping *gr, prof_averages *a, const uint32_t *stk, size_t nstk) {
    const prof_events *e = gr->e;
    size_t i;
    prof__gmemo *memo = gr->memo;
    const prof__ev *ev = e->ev;
    for (i = 0; i < e->n; i++) {
        uint32_t node = i < nstk ? stk[i] : 0, r;
        const prof__ev *v = &ev[i];
        prof__gmemo *m = &memo[node];
        prof__ghot *h;
#if defined(__GNUC__) || defined(__clang__)
        /* the memo entry of an event a few ahead: scope stacks'
           nodes come in no order, each event's entry a cache miss */
        if (i + 8 < nstk) __builtin_prefetch(&memo[stk[i + 8]], 1);
        /* and the first child of one a few ahead: an outer scope's
           children are far apart */
        if (i + 4 < e->n && ev[i + 4].first_child >= 0) __builtin_prefetch(&ev[ev[i + 4].first_child]);
#endif
        if (prof__gmemo_holds(m, v))
            r = m->row;
        else if ((r = prof__group_row_miss(gr, a, i, node)) == UINT32_MAX)
            return -1;
        /* the row's sums: the memo entry holds its acc */
        h = m->acc == node ? &m->h : prof__gsums(gr, m->acc);
        prof__group_add(e, i, &h->count, &h->cpu, &h->self_cpu, &a->rows[r]);
    }
    return 0;
}
/* The same loop with self times taken from the parents' side: an event
   adds its duration to its row's self time and takes it from its
   parent's row's, where prof__group_add walks each event's children, a
   chain of misses for an outer scope, whose children are far apart.
   Every access of an event is then to it, its memo entry or its
   parent's (a few events back, or an outer scope's, touched by each of
   its children), none waiting for another. The parent's row is its
   memo entry's while that holds the parent's key (scope stacks: always),
   else found again (no new row: the parent came first). No array per
   event: an acc per event (40 MB at 10M events, fresh pages) cost the
   first call more than the parent's entry does.
   Each row's self time is then the same sum in another order, exactly
   the same where no partial sum saturates: the caller checks that
   (returns 1, also when a parent comes after its child, and the sums are
   made again in the list's order; -1: out of memory). With every
   |duration| summed below 2^62, no sum of prof__group_add's (an event's
   self time: its duration less its children's; a row's: those summed)
   comes near the bounds (the check counts each duration at its whole
   2^32 ns above, so a list of 2^30 events or more is always made again).
   Only without extra records and device times
   (prof__grouping_memos' `lin`), so count, CPU and self CPU time are
   all it adds. */
static PROF__NI int prof__grouping_memo_lin(prof__grouping *gr, prof_averages *a, const uint32_t *stk) {
    const prof_events *e = gr->e;
    const prof__ev *ev = e->ev;
    prof__gmemo *memo = gr->memo;
    size_t i, n = e->n;
    uint64_t big = 0; /* |duration| >> 32 summed (< 2^63, no wrap): the sum of every
                         |duration| is below 2^32 (big + n) */
    int later = 0; /* a parent after its child */
    for (i = 0; i < n; i++) {
        const prof__ev *v = &ev[i];
        uint32_t node = stk[i], acc;
        prof__gmemo *m = &memo[node];
        prof__ghot *h;
        uint64_t d = (uint64_t)v->end - (uint64_t)v->start, ad = d >> 63 ? 0 - d : d;
        int32_t p = v->parent;
#if defined(__GNUC__) || defined(__clang__)
        /* the memo entry of an event a few ahead: scope stacks' nodes
           come in no order, each event's entry a cache miss; an entry
           of 48 bytes in two lines half the time, its sums in the second */
        {
            const prof__gmemo *ahead = &memo[stk[i + 8 < n ? i + 8 : i]];
            __builtin_prefetch(ahead, 1);
            __builtin_prefetch(&ahead->h.self_cpu, 1);
        }
#endif
        if (!prof__gmemo_holds(m, v) &&
            prof__group_row_miss(gr, a, i, node) == UINT32_MAX)
            return -1;
        acc = m->acc;
        h = acc == node ? &m->h : prof__gsums(gr, acc);
        h->count++;
        if (v->device_type == PROF_DEVICE_CPU) {
            h->cpu = (int64_t)((uint64_t)h->cpu + d);
            if (!(v->flags & PROF__F_ASYNC)) h->self_cpu = (int64_t)((uint64_t)h->self_cpu + d);
        }
        if (p >= 0) {
            if ((size_t)p < i) {
                const prof__ev *pv = &ev[p];
                uint32_t pnode = stk[p];
                prof__gmemo *pm = &memo[pnode];
                prof__ghot *hp;
                if (!prof__gmemo_holds(pm, pv) &&
                    prof__group_row_miss(gr, a, (size_t)p, pnode) == UINT32_MAX) /* its row, made already */
                    return -1;
                hp = prof__gsums(gr, pm->acc);
                hp->self_cpu = (int64_t)((uint64_t)hp->self_cpu - d);
            } else {
                later = 1;
            }
        }
        big += ad >> 32;
    }
    return later || big + n >= (uint64_t)1 << 30; /* the sum of |durations| at 2^62 or past */
}
/* The sums the memos kept apart from their rows, into the rows. */
static PROF__NI void prof__grouping_sums(const prof__grouping *gr, prof_averages *a) {
    size_t i;
    for (i = 0; gr->memo && i <= gr->e->nnodes; i++) {
        const prof__gmemo *m = &gr->memo[i];
        if (m->own == UINT32_MAX) continue;
        a->rows[m->own].count = m->h.count;
        a->rows[m->own].cpu_time_total_ns = m->h.cpu;
        a->rows[m->own].self_cpu_time_total_ns = m->h.self_cpu;
    }
    for (i = 0; i < gr->nxacc; i++) {
        const prof__gxacc *x = &gr->xacc[i];
        a->rows[x->row].count = x->h.count;
        a->rows[x->row].cpu_time_total_ns = x->h.cpu;
        a->rows[x->row].self_cpu_time_total_ns = x->h.self_cpu;
    }
}
PROF_API prof_averages *prof_key_averages(prof_events *e, const prof_group_options *opt) {
    prof__grouping gr;
    prof_averages *a;
    size_t i, ncache = 1;
    if (!e) { prof__report(PROF_LOG_ERROR, PROF_E_ARG, "prof_key_averages: the event list is NULL"); return NULL; }
    if (prof__prepare(e) != PROF_OK) return NULL;
    a = PROF__ALLOC(prof_averages, 1);
    if (!a) { prof__report(PROF_LOG_ERROR, PROF_E_NOMEM, "prof_key_averages: out of memory"); return NULL; }
    memset(a, 0, sizeof *a);
    memset(&gr, 0, sizeof gr);
    gr.e = e;
    if (opt) gr.g = *opt;
    a->strs.arena = &a->arena;
    a->use_device = e->use_device ? prof__intern(&a->strs, e->use_device) : NULL;
    if (e->use_device && !a->use_device) goto oom; /* else rows without their device: a table without its device columns */
    a->profile_memory = e->profile_memory;
    a->with_flops = e->with_flops;
    a->dropped_scopes = e->stats.scopes_dropped;
    a->dropped = e->stats.dropped;
    if (gr.g.group_by_stack_n > 0) {
        if (!gr.g.group_by_overload_name && !gr.g.group_by_input_shapes && e->nnodes > e->nsites) { /* else nodes' names vary: the memo would miss */
            if (prof__grouping_memos(&gr, a) != 0) goto oom;
        } else {
            if (!(gr.fh = PROF__ALLOC(uint64_t, e->nnodes + 1))) goto oom;
            memset(gr.fh, 0, (e->nnodes + 1) * sizeof *gr.fh);
        }
    }
    /* with memos the cache sees only their misses (mostly a node's first
       event, which no cache holds yet): sized for the sites, as without
       stacks, not for the nodes (its fresh pages, 2.6 MB at 64k slots,
       cost more than its misses: a first touch costs microseconds on a VM).
       Without memos, 16 slots per (site, node) pair: fewer and two pairs
       that share a slot take turns missing it (51 names on 8 Python-like
       stacks missed 12% of their events with 2) */
    if (gr.g.group_by_stack_n > 0 && !gr.memo) while (ncache < 16 * (e->nnodes + e->nsites) && ncache < 65536) ncache *= 2;
    else while (ncache < 2 * e->nsites && ncache < 4096) ncache *= 2;
    gr.cache_mask = ncache - 1;
    if (!(gr.cache = PROF__ALLOC(struct prof__gcache, ncache))) goto oom;
    for (i = 0; i < ncache; i++) gr.cache[i].site = UINT32_MAX;
    {
        /* the events' stack nodes (by stack) read here, not through
           prof__stack_node's tests per event */
        const uint32_t *stk = gr.fh ? e->stk : NULL;
        size_t nstk = stk ? (e->capstk < e->n ? e->capstk : e->n) : 0;
        int more = gr.g.group_by_overload_name || gr.g.group_by_input_shapes;
        if (gr.memo) { /* by stack with memos (never `more`): the memo tested here, prof__group_row on a miss */
            int lin = gr.lin ? prof__grouping_memo_lin(&gr, a, stk) : 1;
            if (lin < 0) goto oom;
            if (lin && gr.lin) { /* the sums in the list's order instead: from 0 again */
                for (i = 0; i <= e->nnodes; i++) memset(&gr.memo[i].h, 0, sizeof gr.memo[i].h);
                for (i = 0; i < gr.nxacc; i++) memset(&gr.xacc[i].h, 0, sizeof gr.xacc[i].h);
            }
            if (lin && prof__grouping_memo_loop(&gr, a, stk, nstk) != 0) goto oom;
        } else {
            for (i = 0; i < e->n; i++) {
                uint32_t node = i < nstk ? stk[i] : 0;
                uint32_t r = more ? prof__group_row(&gr, a, i, node, 1) : prof__group_row(&gr, a, i, node, 0);
                prof_avg *row;
                if (r == UINT32_MAX) goto oom;
                row = &a->rows[r];
                prof__group_add(e, i, &row->count, &row->cpu_time_total_ns, &row->self_cpu_time_total_ns, row);
            }
        }
        prof__grouping_sums(&gr, a);
    }
    if (prof__group_finish(&gr, a) != 0) goto oom;
    prof__grouping_free(&gr);
    if (a->cap > a->n + a->n / 8 + 64) { /* room reserved and not used */
        prof_avg *nr = (prof_avg *)PROF__REALLOC(a->rows, (a->n ? a->n : 1) * sizeof *a->rows);
        if (nr) { a->rows = nr; a->cap = a->n ? a->n : 1; }
    }
    return a;
oom:
    prof__grouping_free(&gr);
    prof_averages_free(a);
    prof__report(PROF_LOG_ERROR, PROF_E_NOMEM, "prof_key_averages: out of memory");
    return NULL;
}

PROF_API void prof_averages_free(prof_averages *a) {
    if (!a) return;
    PROF__FREE(a->rows);
    PROF__FREE(a->stacks);
    prof__strtab_free(&a->strs);
    prof__arena_free(&a->arena);
    PROF__FREE(a);
}
PROF_API size_t prof_averages_count(const prof_averages *a) { return a ? a->n : 0; }
PROF_API const prof_avg *prof_averages_get(const prof_averages *a, size_t i) { return (a && i < a->n) ? &a->rows[i] : NULL; }

/* total_average: every field but the sums comes from the last event. */
static PROF__NI void prof__total_add(prof_avg *t, const prof_avg *r) {
    t->key = NULL;
    prof__avg_add(t, r);
}
PROF_API prof_avg prof_events_total_average(prof_events *e) {
    prof_avg t;
    size_t i;
    memset(&t, 0, sizeof t);
    if (e && prof__prepare(e) == PROF_OK) {
        for (i = 0; i < e->n; i++) {
            prof_avg r;
            prof__row_of_event(e, i, &r, NULL);
            prof__total_add(&t, &r);
        }
        /* the last event's stack, as the loop above leaves it in Python */
        if (e->n && t.stack_depth && !(t.stack = prof__node_array(e, e->n - 1))) t.stack_depth = 0;
    }
    t.key = "Total";
    return t;
}
PROF_API prof_avg prof_averages_total_average(const prof_averages *a) {
    prof_avg t;
    size_t i;
    memset(&t, 0, sizeof t);
    for (i = 0; a && i < a->n; i++) prof__total_add(&t, &a->rows[i]);
    t.key = "Total";
    return t;
}

/* >>table ================================================================*/
/* _build_table of profiler_util.py, byte for byte. Widths count code points
   as Python's len() does. Text that is not valid UTF-8 (a name from C is
   any bytes) is printed as the exporters write it: each maximal invalid
   subpart one U+FFFD (as Python's decode(errors='replace')), one
   character wide, so that the table is valid UTF-8 and its
   columns line up as a terminal shows them. (Counting lead bytes, a name
   of 60 stray continuation bytes was 0 wide, never cut, and written
   through.) */
static int prof__utf8_len(const unsigned char *p); /* >>x_writer */
static int prof__utf8_bad(const unsigned char *p);
/* Bytes of the character at s (not at its end): a valid sequence, or the
   invalid subpart one U+FFFD stands for. */
static PROF__NI size_t prof__cp_bytes(const char *s) {
    int n;
    if (!((unsigned char)*s & 0x80)) return 1;
    n = prof__utf8_len((const unsigned char *)s);
    return (size_t)(n > 0 ? n : prof__utf8_bad((const unsigned char *)s));
}
static PROF__NI size_t prof__cp_len(const char *s) {
    size_t n = 0;
    for (; *s; n++) s += ((unsigned char)*s & 0x80) ? prof__cp_bytes(s) : 1;
    return n;
}
/* Bytes taken by the first k code points of s. */
static PROF__NI size_t prof__cp_prefix(const char *s, size_t k) {
    size_t i = 0;
    for (; s[i] && k; k--) i += ((unsigned char)s[i] & 0x80) ? prof__cp_bytes(s + i) : 1;
    return i;
}
/* s into the table: valid UTF-8 as it is, each invalid subpart as U+FFFD. */
static PROF__NI void prof__tb_text(prof__buf *b, const char *s) {
    const char *run = s;
    while (*s) {
        if (((unsigned char)*s & 0x80) && prof__utf8_len((const unsigned char *)s) == 0) {
            prof__buf_put(b, run, (size_t)(s - run));
            prof__buf_put(b, "\xEF\xBF\xBD", 3);
            s += prof__utf8_bad((const unsigned char *)s);
            run = s;
        } else {
            s += ((unsigned char)*s & 0x80) ? prof__cp_bytes(s) : 1;
        }
    }
    prof__buf_put(b, run, (size_t)(s - run));
}
static PROF__NI const char *prof__cp_skip(const char *s, size_t k) { return s + prof__cp_prefix(s, k); }

/* Numbers are written in the C locale's form whatever locale the host set
   (setlocale(LC_ALL, "") under de_DE or fr_FR makes printf's decimal point
   a comma: invalid JSON, and tables unlike PyTorch's, whose formatting
   ignores the C locale). printf's %f, %e and %g differ from the C
   locale's only in the decimal point (no grouping without the ' flag), so
   the point is put back after printf. */
static PROF__NI void prof__c_point(char *s) {
    const struct lconv *lc = localeconv();
    const char *dp = lc && lc->decimal_point && lc->decimal_point[0] ? lc->decimal_point : ".";
    size_t k = strlen(dp);
    char *at;
    if (k == 1 && dp[0] == '.') return;
    while ((at = strstr(s, dp)) != NULL) {
        *at = '.';
        if (k > 1) memmove(at + 1, at + k, strlen(at + k) + 1);
        s = at + 1;
    }
}
static PROF__NI void prof__fmt_c(char *out, size_t n, const char *fmt, ...) __attribute__((__format__(__printf__, 3, 4)));
static PROF__NI void prof__fmt_c(char *out, size_t n, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(out, n, fmt, ap);
    va_end(ap);
    if (n) prof__c_point(out);
}
static PROF__NI void prof__fmt_time(char *out, size_t n, double us) {
    if (us >= 1000000.0) prof__fmt_c(out, n, "%.3fs", us / 1000000.0);
    else if (us >= 1000.0) prof__fmt_c(out, n, "%.3fms", us / 1000.0);
    else prof__fmt_c(out, n, "%.3fus", us);
}
static PROF__NI void prof__fmt_time_unit(char *out, size_t n, double us, const char *unit) {
    if (unit && strcmp(unit, "s") == 0) prof__fmt_c(out, n, "%.3fs", us / 1000000.0);
    else if (unit && strcmp(unit, "ms") == 0) prof__fmt_c(out, n, "%.3fms", us / 1000.0);
    else if (unit && strcmp(unit, "us") == 0) prof__fmt_c(out, n, "%.3fus", us);
    else prof__fmt_time(out, n, us);
}
static PROF__NI void prof__fmt_share(char *out, size_t n, double us, double total_us) {
    if (!(total_us < 0) && !(total_us > 0)) snprintf(out, n, "NaN"); /* == 0, without -Wfloat-equal's warning */
    else prof__fmt_c(out, n, "%.2f%%", us * 100.0 / total_us);
}
static PROF__NI void prof__fmt_memory(char *out, size_t n, int64_t bytes) {
    const double kib = 1024.0, mib = 1024.0 * kib, gib = 1024.0 * mib;
    double a = bytes < 0 ? -(double)bytes : (double)bytes; /* no int64 negation: INT64_MIN has no positive */
    if (a >= gib) prof__fmt_c(out, n, "%.2f GB", (double)bytes / gib);
    else if (a >= mib) prof__fmt_c(out, n, "%.2f MB", (double)bytes / mib);
    else if (a >= kib) prof__fmt_c(out, n, "%.2f KB", (double)bytes / kib);
    else snprintf(out, n, "%lld B", (long long)bytes);
}
/* ns as microseconds: the nearest double, also past 2^53 ns (104 days),
   where (double)ns is no longer exact (the exporters' function) */
static double prof__us_double(int64_t ns);
static PROF__NI double prof__us(int64_t ns) { return prof__us_double(ns); }

/* Sort keys that _build_table accepts (after cuda/xpu/privateuse1 -> device). */
static const char *const prof__sort_keys_names[] = {
    "cpu_time", "device_time", "cpu_time_total", "device_time_total", "self_cpu_time_total",
    "self_device_time_total", "cpu_memory_usage", "device_memory_usage", "self_cpu_memory_usage",
    "self_device_memory_usage", "count", "flops", "node_id"
};
static PROF__NI double prof__avg_us(int64_t total_ns, int64_t count) { return count ? prof__us(total_ns) / (double)count : 0.0; }
/* A row's sort key as an unsigned integer in the key's order, so rows
   compare with one instruction. Integers compare exactly, as PyTorch's
   Python ints do (as doubles, 2^53 and 2^53 + 1 FLOPs would tie): int64
   with its sign bit flipped. The averages (cpu_time, device_time) are the
   floats PyTorch divides them into, finite (no NaN: a count of 0 gives
   0.0), as the bits of an IEEE double in order: negatives inverted, the
   sign bit set on the others, -0.0 first made 0.0 (they compare equal). */
static PROF__NI uint64_t prof__sort_key_of(const prof_avg *r, int key) {
    int64_t x;
    switch (key) {
    case 0: case 1: {
        double d = prof__avg_us(key == 0 ? r->cpu_time_total_ns : r->device_time_total_ns, r->count) + 0.0;
        uint64_t u;
        memcpy(&u, &d, sizeof u);
        return u >> 63 ? ~u : u | (uint64_t)1 << 63;
    }
    case 2: x = r->cpu_time_total_ns; break;
    case 3: x = r->device_time_total_ns; break;
    case 4: x = r->self_cpu_time_total_ns; break;
    case 5: x = r->self_device_time_total_ns; break;
    case 6: x = r->cpu_memory_usage; break;
    case 7: x = r->device_memory_usage; break;
    case 8: x = r->self_cpu_memory_usage; break;
    case 9: x = r->self_device_memory_usage; break;
    case 10: x = r->count; break;
    case 11: x = r->flops; break;
    default: x = r->node_id; break;
    }
    return (uint64_t)x ^ (uint64_t)1 << 63;
}
static PROF__NI int prof__sort_key_index(const char *sort_by) {
    char k[64];
    size_t i, o = 0;
    const char *s = sort_by;
    while (*s && o + 8 < sizeof k) {
        if (strncmp(s, "cuda", 4) == 0) { memcpy(k + o, "device", 6); o += 6; s += 4; }
        else if (strncmp(s, "xpu", 3) == 0) { memcpy(k + o, "device", 6); o += 6; s += 3; }
        else if (strncmp(s, "privateuse1", 11) == 0) { memcpy(k + o, "device", 6); o += 6; s += 11; }
        else k[o++] = *s++;
    }
    if (*s) return -1;
    k[o] = 0;
    for (i = 0; i < sizeof prof__sort_keys_names / sizeof *prof__sort_keys_names; i++)
        if (strcmp(k, prof__sort_keys_names[i]) == 0) return (int)i;
    return -1;
}

typedef struct prof__col { size_t width; char align; } prof__col;
typedef struct prof__tab { prof__buf *b; prof__col *cols; int ncols; } prof__tab;

static PROF__NI void prof__cell(prof__buf *b, const char *s, size_t width, char align) {
    size_t len = prof__cp_len(s);
    if (align == '<') { prof__tb_text(b, s); if (len < width) prof__buf_chars(b, ' ', (long)(width - len)); }
    else { if (len < width) prof__buf_chars(b, ' ', (long)(width - len)); prof__tb_text(b, s); }
    prof__buf_str(b, "  ");
}
static PROF__NI void prof__row_out(prof__tab *t, const char *const *vals) {
    int i;
    for (i = 0; i < t->ncols; i++) prof__cell(t->b, vals[i], t->cols[i].width, t->cols[i].align);
    prof__buf_str(t->b, "\n");
}
/* 001's _trim_path as pieces: "..." (or nothing) and the tail of path. */
static PROF__NI const char *prof__trim_path(const char *path, size_t width, const char **pre) {
    size_t len = prof__cp_len(path);
    *pre = "";
    if (len > width) {
        path = prof__cp_skip(path, len - width);
        if (prof__cp_len(path) > 3) { *pre = "..."; return prof__cp_skip(path, 3); }
    }
    return path;
}
/* 001's name[:w - 3] + "..." when len(name) >= w - 3, with Python's slice
   of a negative bound (w of 1 or 2 drops the last 2 or 1 characters):
   the bytes of name kept, or -1 when it is shown whole. */
static PROF__NI long prof__name_cut(const char *name, int w) {
    long len = (long)prof__cp_len(name), keep = (long)w - 3;
    if (len < keep) return -1;
    if (keep < 0) keep = len + keep > 0 ? len + keep : 0;
    return (long)prof__cp_prefix(name, (size_t)keep);
}

#define PROF__MAXCOLS 24
#define PROF__CELL 1024
/* A cell: pre, then len bytes of s, then post, in the cell's own buffer,
   or, when longer (names and stack entries have no bound), in an
   allocation kept in *spill until the row is written. Without memory the
   text is cut to the buffer and the table reports PROF_E_NOMEM. */
static PROF__NI const char *prof__cell_text(char *cell, char **spill, int *oom, const char *pre, const char *s, size_t len, const char *post) {
    size_t a = strlen(pre), c = strlen(post);
    char *out = cell;
    if (a + len + c + 1 > PROF__CELL) {
        PROF__FREE(*spill);
        *spill = (char *)PROF__MALLOC(a + len + c + 1);
        if (*spill) out = *spill;
        else { *oom = 1; len = PROF__CELL - 1 - a - c; }
    }
    memcpy(out, pre, a);
    memcpy(out + a, s, len);
    memcpy(out + a + len, post, c);
    out[a + len + c] = 0;
    return out;
}

/* prof__build_table's state, filled phase by phase: the options, the rows
   in table order, which optional columns the rows need, the columns, the
   totals, and one row's cells. */
typedef struct prof__table {
    prof__buf *b;
    prof_table_options o;
    const prof_avg *rows_in;          /* the rows (key_averages'), or NULL: each made from ev when read */
    prof_events *ev;                  /* the list whose events are the rows (prof__tb_get) */
    prof_avg scratch;                 /* the event's row last read */
    uint64_t *key;                    /* per row, its sort key (prof__tb_scan, for prof__tb_sort) */
    uint32_t *order;                  /* the rows in table order; NULL: as they come */
    double *self_us;                  /* per row, its Self CPU us and its self device us where summed (prof__tb_sums) */
    int64_t min_flops;                /* the least positive FLOPs of a row (prof__tb_flops_unit) */
    size_t n;
    const char *use_device;
    int profile_memory, with_flops;
    int has_dev_time, has_dev_mem, has_shapes, has_overload, has_stack, append_node;
    int sort_key, row_limit;
    size_t name_w, shapes_w, src_w, line_len;
    char *devname;                    /* use_device upper-cased, any length */
    char *dev_hdr[6];                 /* the headers that name it */
    char flops_hdr[32];               /* "Total <unit>" */
    double flops_scale, sum_self_cpu, sum_self_dev;
    const char *headers[PROF__MAXCOLS];
    prof__col cols[PROF__MAXCOLS];
    int ncols;
    prof__tab tab;
    char cells[PROF__MAXCOLS][PROF__CELL];
    const char *vals[PROF__MAXCOLS];
    char *spill[PROF__MAXCOLS];
    int oom;
} prof__table;

/* Phase 1: the options checked, PyTorch's defaults filled in. */
static PROF__NI prof_result prof__tb_options(prof__table *t, const prof_table_options *opt_in) {
    prof_table_options *o = &t->o;
    if (opt_in) *o = *opt_in;
    else memset(o, 0, sizeof *o);
    if (o->time_unit && strcmp(o->time_unit, "s") && strcmp(o->time_unit, "ms") && strcmp(o->time_unit, "us"))
        return prof__report(PROF_LOG_ERROR, PROF_E_ARG, "table: time_unit '%s' is not one of s, ms, us", o->time_unit);
    t->sort_key = -1;
    if (o->sort_by && (t->sort_key = prof__sort_key_index(o->sort_by)) < 0)
        return prof__report(PROF_LOG_ERROR, PROF_E_UNKNOWN_KEY, "table: cannot sort by '%s'; use cpu_time, device_time, cpu_time_total, device_time_total, self_cpu_time_total, self_device_time_total, cpu_memory_usage, device_memory_usage, self_cpu_memory_usage, self_device_memory_usage, count, flops or node_id (cuda, xpu or privateuse1 may stand for device)", o->sort_by);
    t->row_limit = o->row_limit == 0 ? 100 : o->row_limit == PROF_ROW_LIMIT_ZERO ? 0 : o->row_limit;
    if (o->max_src_column_width == 0) o->max_src_column_width = 75;
    if (o->max_name_column_width == 0) o->max_name_column_width = 55;
    if (o->max_shapes_column_width == 0) o->max_shapes_column_width = 80;
    return PROF_OK;
}

/* A string's width, remembered by its address: rows share their strings
   (key_averages copies each distinct string once), and with stacks grouped
   by stack (tens of thousands of rows, a few frames each, few distinct
   frames) counting every frame's code points was most of the table's time.
   A direct-mapped memo: a miss only counts again. */
#define PROF__WMEMO 256
typedef struct prof__wmemo { const char *s[PROF__WMEMO]; size_t len[PROF__WMEMO]; } prof__wmemo;
static PROF__NI size_t prof__wmemo_len(prof__wmemo *m, const char *s) {
    size_t k = (size_t)(((uintptr_t)s >> 3) ^ ((uintptr_t)s >> 11)) & (PROF__WMEMO - 1);
    if (m->s[k] != s) { m->s[k] = s; m->len[k] = prof__cp_len(s); }
    return m->len[k];
}
/* Row i: key_averages' own, or event i's made afresh in t->scratch (valid
   until the next read). A list's table so holds no row per event, only
   16 to 32 bytes (its keys, order and self times): a 10-row table of 20M
   events took 168 B an event in rows. A stack that cannot be flattened
   (no memory) is left out and the table fails. */
static PROF__NI const prof_avg *prof__tb_get(prof__table *t, size_t i) {
    if (!t->ev) return &t->rows_in[i];
    if (prof__row_stack(t->ev, i, &t->scratch, NULL) != 0) {
        t->oom = 1;
        t->scratch.stack_depth = 0;
    }
    return &t->scratch;
}
#define PROF__TB_ROW(t, i) ((t)->order ? (size_t)(t)->order[i] : (i)) /* the row at place i of the table */
/* Phase 2: each row read once: the optional columns and widths, its sort
   key, its self times for the sums, the least FLOPs. */
static PROF__NI int prof__tb_scan(prof__table *t) {
    size_t i;
    prof__wmemo *wm;
    if (t->sort_key >= 0 && t->n >= 2 && (t->n > UINT32_MAX || !(t->key = PROF__ALLOC(uint64_t, t->n)))) return -1;
    if (!(t->self_us = PROF__ALLOC(double, 2 * t->n))) return -1;
    if (!(wm = PROF__ALLOC(prof__wmemo, 1))) return -1;
    memset(wm, 0, sizeof *wm);
    for (i = 0; i < t->n; i++) {
        const prof_avg *r = prof__tb_get(t, i);
        const int dt = (int)r->device_type; /* (as an int: see below) */
        size_t l;
        if (t->key) t->key[i] = prof__sort_key_of(r, t->sort_key);
        t->self_us[2 * i] = prof__us(r->self_cpu_time_total_ns);
        /* the footer's device total, as _build_table sums it: a legacy CPU
           op's kernels, and device events of CUDA, MTIA (19) and
           PrivateUse1 (20) that are no annotation (not HPU's, 15, though
           their rows have device time). As an int: the enum names 0 and 1
           only, and clang's C++ calls a compare with 19 always false
           (-Wtautological-constant-out-of-range-compare, on by default) */
        t->self_us[2 * i + 1] = (dt == PROF_DEVICE_CPU ? r->is_legacy
                                 : (dt == PROF_DEVICE_CUDA || dt == 19 || dt == 20) && !r->is_user_annotation)
                                ? prof__us(r->self_device_time_total_ns) : 0.0;
        if (r->flops > 0 && (t->min_flops == 0 || r->flops < t->min_flops)) t->min_flops = r->flops;
        if (r->self_device_time_total_ns > 0) t->has_dev_time = 1;
        if (r->self_device_memory_usage > 0) t->has_dev_mem = 1;
        /* a list with inputs: not None, not "" (averages) and not [] */
        if (r->input_shapes && r->input_shapes[0] && strcmp(r->input_shapes, "[]") != 0) t->has_shapes = 1;
        if (r->overload_name && r->overload_name[0]) t->has_overload = 1;
        if (r->node_id != -1) t->append_node = 1;
        if ((l = prof__wmemo_len(wm, r->key) + 4) > t->name_w) t->name_w = l;
        if ((l = (r->input_shapes ? prof__wmemo_len(wm, r->input_shapes) : 4) + 4) > t->shapes_w) t->shapes_w = l;
        if (r->stack_depth > 0) {
            int k;
            t->has_stack = 1;
            for (k = 0; k < r->stack_depth; k++) if ((l = prof__wmemo_len(wm, r->stack[k]) + 4) > t->src_w) t->src_w = l;
        }
    }
    PROF__FREE(wm);
    if (!t->use_device) t->has_dev_time = 0; /* device times are zero without a device */
    return t->oom ? -1 : 0;
}

/* Phase 3: sorted(..., reverse=True), which is stable: a merge sort of
   the rows' indices through a temporary array, each row's key made once
   (read through a switch at each comparison, the keys took most of the
   time of sorting 61k rows; an insertion sort would be O(n^2)). 16 bytes
   a row, all fresh memory. */
static PROF__NI int prof__tb_sort(prof__table *t) {
    const uint64_t *key = t->key; /* (made by prof__tb_scan) */
    uint32_t *src, *dst;
    size_t w, i, n = t->n;
    if (!key) return 0; /* no sort, or under 2 rows */
    src = PROF__ALLOC(uint32_t, n);
    dst = PROF__ALLOC(uint32_t, n);
    if (!src || !dst) { PROF__FREE(src); PROF__FREE(dst); return -1; }
    for (i = 0; i < n; i++) src[i] = (uint32_t)i;
    for (w = 1; w < n; w *= 2) {
        for (i = 0; i < n; i += 2 * w) {
            size_t lo = i, mid = i + w < n ? i + w : n, hi = i + 2 * w < n ? i + 2 * w : n, p = lo, q = mid, k = lo;
            while (p < mid && q < hi) dst[k++] = key[src[q]] > key[src[p]] ? src[q++] : src[p++];
            while (p < mid) dst[k++] = src[p++];
            while (q < hi) dst[k++] = src[q++];
        }
        { uint32_t *x = src; src = dst; dst = x; }
    }
    t->order = src;
    PROF__FREE(dst);
    return 0;
}

static PROF__NI void prof__tb_col(prof__table *t, const char *text, size_t width, char align) {
    t->headers[t->ncols] = text;
    t->cols[t->ncols].width = width;
    t->cols[t->ncols].align = align;
    t->ncols++;
}
/* A header naming the device: pre + devname + post (NULL: no memory). */
static PROF__NI const char *prof__tb_dev_hdr(prof__table *t, int i, const char *pre, const char *post) {
    size_t a = strlen(pre), d = strlen(t->devname), c = strlen(post);
    char *h = (char *)PROF__MALLOC(a + d + c + 1);
    if (!h) return NULL;
    memcpy(h, pre, a);
    memcpy(h + a, t->devname, d);
    memcpy(h + a + d, post, c + 1);
    return t->dev_hdr[i] = h;
}
/* The FLOPs column's unit: PyTorch's floor(min(log10(mn) / 3, 5)) and
   pow(10, -3 * that), for the smallest positive count mn. Counted in
   integers (no libm): whole thousands, except that in doubles log10 of
   the two integers just below 1e15 rounds up to 15 (glibc's pow of 10 is
   exact for these). 0: no row has FLOPs (no column). */
static PROF__NI int prof__tb_flops_unit(prof__table *t) {
    static const char *const units[] = { "FLOPs", "KFLOPs", "MFLOPs", "GFLOPs", "TFLOPs", "PFLOPs" };
    static const double scales[] = { 1.0, 1e-3, 1e-6, 1e-9, 1e-12, 1e-15 };
    const int64_t mn = t->min_flops; /* (prof__tb_scan) */
    int64_t v;
    int k = 0;
    if (mn <= 0) return 0;
    for (v = mn; v >= 1000 && k < 5; v /= 1000) k++;
    if (mn >= 999999999999998LL) k = 5;
    t->flops_scale = scales[k];
    snprintf(t->flops_hdr, sizeof t->flops_hdr, "Total %s", units[k]);
    return 1;
}
/* Phase 4: the columns, in PyTorch's order, and the line's length. */
static PROF__NI int prof__tb_columns(prof__table *t) {
    const prof_table_options *o = &t->o;
    const char *u = t->use_device ? t->use_device : "None";
    size_t k, ulen = strlen(u);
    if (o->max_name_column_width > 0 && t->name_w > (size_t)o->max_name_column_width) t->name_w = (size_t)o->max_name_column_width;
    if (o->max_shapes_column_width > 0 && t->shapes_w > (size_t)o->max_shapes_column_width) t->shapes_w = (size_t)o->max_shapes_column_width;
    if (t->has_stack && o->max_src_column_width > 0 && t->src_w > (size_t)o->max_src_column_width) t->src_w = (size_t)o->max_src_column_width;
    if (!(t->devname = (char *)PROF__MALLOC(ulen + 1))) return -1;
    for (k = 0; k <= ulen; k++) t->devname[k] = (char)((u[k] >= 'a' && u[k] <= 'z') ? u[k] - 32 : u[k]);
    prof__tb_col(t, "Name", t->name_w, '>');
    if (t->has_overload) prof__tb_col(t, "Overload Name", t->name_w, '>');
    prof__tb_col(t, "Self CPU %", 12, '>');
    prof__tb_col(t, "Self CPU", 12, '>');
    prof__tb_col(t, "CPU total %", 12, '>');
    prof__tb_col(t, "CPU total", 12, '>');
    prof__tb_col(t, "CPU time avg", 12, '>');
    if (t->has_dev_time) {
        if (!prof__tb_dev_hdr(t, 0, "Self ", "") || !prof__tb_dev_hdr(t, 1, "Self ", " %") ||
            !prof__tb_dev_hdr(t, 2, "", " total") || !prof__tb_dev_hdr(t, 3, "", " time avg")) return -1;
        for (k = 0; k < 4; k++) prof__tb_col(t, t->dev_hdr[k], 12, '>');
    }
    if (t->profile_memory) { prof__tb_col(t, "CPU Mem", 12, '>'); prof__tb_col(t, "Self CPU Mem", 12, '>'); }
    if (t->profile_memory && t->use_device && t->has_dev_mem) { /* nested under profile_memory, as in PyTorch */
        if (!prof__tb_dev_hdr(t, 4, "", " Mem") || !prof__tb_dev_hdr(t, 5, "Self ", " Mem")) return -1;
        prof__tb_col(t, t->dev_hdr[4], 12, '>');
        prof__tb_col(t, t->dev_hdr[5], 12, '>');
    }
    prof__tb_col(t, "# of Calls", 12, '>');
    if (t->append_node) prof__tb_col(t, "Node ID", 12, '>');
    if (t->has_shapes) prof__tb_col(t, "Input Shapes", t->shapes_w, '>');
    if (t->has_stack) prof__tb_col(t, "Source Location", t->src_w, '<');
    if (t->with_flops && (t->with_flops = prof__tb_flops_unit(t)) != 0) prof__tb_col(t, t->flops_hdr, 12, '>');
    for (k = 0; k < (size_t)t->ncols; k++) t->line_len += t->cols[k].width + 2;
    t->line_len -= 2;
    t->tab.b = t->b;
    t->tab.cols = t->cols;
    t->tab.ncols = t->ncols;
    return 0;
}

/* Phase 5: the totals the percentages are of, in table order. */
static PROF__NI void prof__tb_sums(prof__table *t) {
    size_t i;
    for (i = 0; i < t->n; i++) { /* (a row whose device time is not summed holds 0.0 there: adding it changes no sum) */
        const size_t k = PROF__TB_ROW(t, i);
        t->sum_self_cpu += t->self_us[2 * k];
        t->sum_self_dev += t->self_us[2 * k + 1];
    }
}

static PROF__NI void prof__tb_sep(prof__table *t) {
    int c;
    for (c = 0; c < t->ncols; c++) { prof__buf_chars(t->b, '-', (long)t->cols[c].width); prof__buf_str(t->b, "  "); }
    prof__buf_str(t->b, "\n");
}
/* Phase 6: the header line, the note on top-level ops, the column heads. */
static PROF__NI void prof__tb_head(prof__table *t) {
    prof__buf *b = t->b;
    if (t->o.header) { prof__buf_chars(b, '=', (long)t->line_len); prof__buf_str(b, "\n"); prof__tb_text(b, t->o.header); prof__buf_str(b, "\n"); }
    if (t->o.top_level_events_only) {
        prof__buf_chars(b, '=', (long)t->line_len);
        prof__buf_str(b, "\nThis report only display top-level ops statistics\n");
    }
    prof__tb_sep(t);
    prof__row_out(&t->tab, t->headers);
    prof__tb_sep(t);
}

/* A name cell: name[:w - 3] + "..." when it is too long (001's rule). */
static PROF__NI const char *prof__tb_name_cell(prof__table *t, int c, const char *name) {
    long cut = t->o.max_name_column_width > 0 ? prof__name_cut(name, t->o.max_name_column_width) : -1;
    return cut >= 0 ? prof__cell_text(t->cells[c], &t->spill[c], &t->oom, "", name, (size_t)cut, "...") : name;
}
/* Phase 7, per row: its cells, then its row, then the rest of its stack
   (one row each, in the last column) and an empty row. */
static PROF__NI void prof__tb_row(prof__table *t, const prof_avg *r) {
    const char *unit = t->o.time_unit;
    char (*cells)[PROF__CELL] = t->cells;
    const char **vals = t->vals;
    int c = 0, k;
    for (k = 0; k < PROF__MAXCOLS; k++) { cells[k][0] = 0; vals[k] = cells[k]; }
    vals[c] = prof__tb_name_cell(t, c, r->key);
    c++;
    if (t->has_overload) { vals[c] = prof__tb_name_cell(t, c, r->overload_name ? r->overload_name : ""); c++; }
    prof__fmt_share(cells[c++], PROF__CELL, prof__us(r->self_cpu_time_total_ns), t->sum_self_cpu);
    prof__fmt_time_unit(cells[c++], PROF__CELL, prof__us(r->self_cpu_time_total_ns), unit);
    if (r->is_async) snprintf(cells[c++], PROF__CELL, "0");
    else prof__fmt_share(cells[c++], PROF__CELL, prof__us(r->cpu_time_total_ns), t->sum_self_cpu);
    prof__fmt_time_unit(cells[c++], PROF__CELL, prof__us(r->cpu_time_total_ns), unit);
    prof__fmt_time_unit(cells[c++], PROF__CELL, prof__avg_us(r->cpu_time_total_ns, r->count), unit);
    if (t->has_dev_time) {
        prof__fmt_time_unit(cells[c++], PROF__CELL, prof__us(r->self_device_time_total_ns), unit);
        prof__fmt_share(cells[c++], PROF__CELL, prof__us(r->self_device_time_total_ns), t->sum_self_dev);
        prof__fmt_time_unit(cells[c++], PROF__CELL, prof__us(r->device_time_total_ns), unit);
        prof__fmt_time_unit(cells[c++], PROF__CELL, prof__avg_us(r->device_time_total_ns, r->count), unit);
    }
    if (t->profile_memory) {
        prof__fmt_memory(cells[c++], PROF__CELL, r->cpu_memory_usage);
        prof__fmt_memory(cells[c++], PROF__CELL, r->self_cpu_memory_usage);
    }
    if (t->profile_memory && t->use_device && t->has_dev_mem) {
        prof__fmt_memory(cells[c++], PROF__CELL, r->device_memory_usage);
        prof__fmt_memory(cells[c++], PROF__CELL, r->self_device_memory_usage);
    }
    snprintf(cells[c++], PROF__CELL, "%lld", (long long)r->count);
    if (t->append_node) snprintf(cells[c++], PROF__CELL, "%d", r->node_id);
    if (t->has_shapes) {
        const char *s = r->input_shapes ? r->input_shapes : "None";
        vals[c] = prof__cell_text(cells[c], &t->spill[c], &t->oom, "", s, prof__cp_prefix(s, t->shapes_w), "");
        c++;
    }
    /* 001 appends the FLOPs value before the source location although its
       headers have them the other way round; kept as PyTorch prints. */
    if (t->with_flops) {
        if (r->flops <= 0) snprintf(cells[c++], PROF__CELL, "--");
        else prof__fmt_c(cells[c++], PROF__CELL, "%8.3f", (double)r->flops * t->flops_scale);
    }
    if (t->has_stack) {
        if (r->stack_depth > 0) {
            const char *pre, *tail = prof__trim_path(r->stack[0], t->src_w, &pre);
            vals[c] = prof__cell_text(cells[c], &t->spill[c], &t->oom, pre, tail, strlen(tail), "");
        }
        c++;
    }
    prof__row_out(&t->tab, vals);
    if (!t->has_stack) return;
    for (k = 1; k < r->stack_depth; k++) {
        int z;
        const char *pre, *tail = prof__trim_path(r->stack[k], t->src_w, &pre);
        for (z = 0; z < t->ncols; z++) vals[z] = "";
        vals[t->ncols - 1] = prof__cell_text(cells[0], &t->spill[0], &t->oom, pre, tail, strlen(tail), "");
        prof__row_out(&t->tab, vals);
    }
    for (k = 0; k < t->ncols; k++) vals[k] = "";
    prof__row_out(&t->tab, vals);
}

/* Phase 8: the closing line and the totals. */
static PROF__NI void prof__tb_foot(prof__table *t) {
    char tbuf[64];
    prof__tb_sep(t);
    prof__fmt_time_unit(tbuf, sizeof tbuf, t->sum_self_cpu, t->o.time_unit);
    prof__buf_fmt(t->b, "Self CPU time total: %s\n", tbuf);
    if (t->has_dev_time) {
        prof__fmt_time_unit(tbuf, sizeof tbuf, t->sum_self_dev, t->o.time_unit);
        prof__buf_fmt(t->b, "Self %s time total: %s\n", t->devname, tbuf);
    }
}

/* PyTorch's _build_table (001) over rows_in[0..n), or over the n events of
   ev (rows_in NULL), appended to b. */
static PROF__NI prof_result prof__build_table(prof__buf *b, const prof_avg *rows_in, prof_events *ev, size_t n, const char *use_device,
                                              int profile_memory, int with_flops, const prof_table_options *opt_in) {
    prof__table *t;
    prof_result rc;
    size_t i;
    int shown = 0;
    if (n == 0) return PROF_OK;
    /* on the heap: its cells are 24 KiB */
    if (!(t = (prof__table *)PROF__MALLOC(sizeof *t))) return prof__report(PROF_LOG_ERROR, PROF_E_NOMEM, "table: out of memory");
    memset(t, 0, sizeof *t);
    t->b = b;
    t->rows_in = rows_in;
    t->ev = ev;
    t->n = n;
    t->use_device = use_device;
    t->profile_memory = profile_memory;
    t->with_flops = with_flops;
    if ((rc = prof__tb_options(t, opt_in)) == PROF_OK) {
        if (prof__tb_scan(t) != 0 || prof__tb_sort(t) != 0 || prof__tb_columns(t) != 0) {
            t->oom = 1;
        } else {
            prof__tb_sums(t);
            prof__tb_head(t);
            for (i = 0; i < n && !(t->row_limit >= 0 && shown == t->row_limit); i++) {
                const prof_avg *r = prof__tb_get(t, PROF__TB_ROW(t, i));
                if (t->o.top_level_events_only && r->has_cpu_parent) continue;
                shown++;
                prof__tb_row(t, r);
            }
            prof__tb_foot(t);
        }
        if (t->oom || b->oom) {
            b->oom = 1;
            rc = prof__report(PROF_LOG_ERROR, PROF_E_NOMEM, "table: out of memory");
        }
    }
    for (i = 0; i < PROF__MAXCOLS; i++) PROF__FREE(t->spill[i]);
    for (i = 0; i < 6; i++) PROF__FREE(t->dev_hdr[i]);
    PROF__FREE(t->devname);
    PROF__FREE(t->key);
    PROF__FREE(t->order);
    PROF__FREE(t->self_us);
    PROF__FREE(t);
    return rc;
}

static PROF__NI char *prof__table_string(prof__buf *b, prof_result r) {
    if (r != PROF_OK) { PROF__FREE(b->p); return NULL; }
    if (!b->p) {
        b->p = (char *)PROF__MALLOC(1);
        if (b->p) b->p[0] = 0;
    }
    return b->p;
}
/* A profile the cap (or a lack of memory) cut says so in one line after the
   totals; a complete one prints PyTorch's table byte for byte. */
static PROF__NI prof_result prof__table_dropped(prof__buf *b, uint64_t scopes, uint64_t all) {
    if (!all) return PROF_OK;
    prof__buf_fmt(b, "Incomplete profile: %llu scope%s dropped (each with all it encloses) and %llu other record%s (prof_events_stats)\n",
                  (unsigned long long)scopes, scopes == 1 ? "" : "s", (unsigned long long)(all - scopes), all - scopes == 1 ? "" : "s");
    return b->oom ? prof__report(PROF_LOG_ERROR, PROF_E_NOMEM, "table: out of memory") : PROF_OK;
}
static PROF__NI prof_result prof__events_table_buf(prof__buf *b, prof_events *e, const prof_table_options *opt) {
    prof_result r;
    if (!e) return prof__report(PROF_LOG_ERROR, PROF_E_ARG, "table: the event list is NULL");
    if ((r = prof__prepare(e)) != PROF_OK) return r;
    r = prof__build_table(b, NULL, e, e->n, e->use_device, e->profile_memory, e->with_flops, opt);
    return r == PROF_OK ? prof__table_dropped(b, e->stats.scopes_dropped, e->stats.dropped) : r;
}
PROF_API char *prof_events_table(prof_events *e, const prof_table_options *opt) {
    prof__buf b;
    memset(&b, 0, sizeof b);
    return prof__table_string(&b, prof__events_table_buf(&b, e, opt));
}
PROF_API char *prof_averages_table(const prof_averages *a, const prof_table_options *opt) {
    prof__buf b;
    prof_result r;
    memset(&b, 0, sizeof b);
    if (!a) { prof__report(PROF_LOG_ERROR, PROF_E_ARG, "table: the averages are NULL"); return NULL; }
    r = prof__build_table(&b, a->rows, NULL, a->n, a->use_device, a->profile_memory, a->with_flops, opt);
    return prof__table_string(&b, r == PROF_OK ? prof__table_dropped(&b, a->dropped_scopes, a->dropped) : r);
}
static PROF__NI int prof__write_all(int fd, const char *s, size_t n);
static __inline__ int prof__would_block(int err);
/* The host's stream f on a pipe, socket or terminal (descriptor fd)
   flushed before prof.h writes to fd, so that its bytes come first and
   none is lost. glibc drops what it buffered when the write fails: on the
   EINTR of a handler without SA_RESTART, and on the EAGAIN of a
   non-blocking pipe that is full for a moment. So a non-blocking
   descriptor is first waited on until it takes a write (POLLOUT: a pipe
   then has room for PIPE_BUF bytes, a stream's whole buffer on a pipe,
   which a write of at most PIPE_BUF takes whole or not at all), and a
   flush that a signal or another writer still ends is tried again (what
   it dropped then is lost: only a buffer set past PIPE_BUF, or a writer
   racing for the room). Returns an errno, 0 when flushed; waits as long
   as the reader does not read (as the write after it would), and only
   where the stream holds bytes and its descriptor was opened to write:
   a descriptor that never takes a write (a pipe's read end) fails the
   flush at once, as it did before the wait. */
static PROF__NI int prof__flush_host(FILE *f, int fd) {
    const int fl = fcntl(fd, F_GETFL);
#if defined(PROF__HAVE_FPENDING)
    const int pending = __fpending(f) > 0;
#else
    const int pending = 1;
#endif
    for (;;) {
        int why;
        if (fl >= 0 && (fl & O_NONBLOCK) && (fl & O_ACCMODE) != O_RDONLY && pending) { /* (POLLERR, POLLHUP end it too) */
            struct pollfd pfd;
            pfd.fd = fd;
            pfd.events = POLLOUT;
            pfd.revents = 0;
            while (poll(&pfd, 1, -1) < 0)
                if (errno != EINTR && errno != EAGAIN) return errno;
        }
        errno = 0;
        if (fflush(f) == 0) return 0;
        why = errno;
        if (why != EINTR && !prof__would_block(why)) return why ? why : EIO;
        clearerr(f);
    }
}
/* A stream on a pipe, socket or terminal is flushed (the host's bytes come
   first: prof__flush_host) and s written to its descriptor by
   prof__write_all, which retries and waits where stdio gives up (EINTR,
   EAGAIN). Files (whose writes are not interrupted) and streams without
   a descriptor take stdio. Returns an errno, 0 when written; the caller
   holds SIGPIPE and SIGXFSZ (prof__sig_hold). For the table and the
   default log's lines. */
static PROF__NI int prof__stream_put(FILE *f, const char *s, size_t n) {
    int err = 0, fd;
    errno = 0;
    fd = fileno(f);
    if (fd >= 0 && lseek(fd, 0, SEEK_CUR) < 0 && errno == ESPIPE) {
        err = prof__flush_host(f, fd);
        if (!err) err = prof__write_all(fd, s, n);
    } else {
        errno = 0;
        if (fwrite(s, 1, n, f) != n || fflush(f) != 0) err = errno ? errno : EIO;
    }
    return err;
}
/* `s` from a table function called just after prof__last_error_code was
   cleared: NULL means that call failed, for the reason it reported (s is
   freed here). The stream is flushed, so that a write that fails (a full
   disk, a pipe whose reader is gone: prof_report then still writes its
   files) is an error here rather than at the host's next write or exit. */
static PROF__NI prof_result prof__print(FILE *f, char *s) {
    int err, cancel_state;
    prof__sig_guard g;
    if (!s) return prof__last_error_code != PROF_OK ? prof__last_error_code : PROF_E_NOMEM;
    pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &cancel_state); /* (fwrite is a cancellation point: s would leak) */
    prof__sig_hold(&g);
    err = prof__stream_put(f, s, strlen(s));
    prof__sig_release(&g, err);
    PROF__FREE(s);
    pthread_setcancelstate(cancel_state, NULL);
    if (err) return prof__report(PROF_LOG_ERROR, PROF_E_IO, "table: writing the table failed: %s", strerror(err));
    return PROF_OK;
}
PROF_API prof_result prof_events_print_table(FILE *f, prof_events *e, const prof_table_options *opt) {
    if (!f) return prof__report(PROF_LOG_ERROR, PROF_E_ARG, "table: FILE is NULL");
    prof__last_error_code = PROF_OK;
    return prof__print(f, prof_events_table(e, opt));
}
PROF_API prof_result prof_averages_print_table(FILE *f, const prof_averages *a, const prof_table_options *opt) {
    if (!f) return prof__report(PROF_LOG_ERROR, PROF_E_ARG, "table: FILE is NULL");
    prof__last_error_code = PROF_OK;
    return prof__print(f, prof_averages_table(a, opt));
}
PROF_API void prof_free_string(char *s) { PROF__FREE(s); }

/* >>exporters ============================================================*/
/* >>x_writer. Streaming writer: fixed buffers and write(2), integers formatted by hand,
   names escaped once per call site. Memory stays constant whatever the
   number of events. Output goes to a temporary file that is renamed over
   the target only when every byte was written, so a failed export never
   leaves a file that looks complete (OUTPUT FILES in the manual).
   Once an export is past its first prof__w_async_after bytes, a writer
   thread takes over the write(2) calls: the kernel's copy into the page
   cache costs a fifth to a half of the formatting, so the two run on two
   cores instead of one after the other. The formatter hands over full
   buffers through a queue of PROF__W_NBUF and goes on with the next free
   one: it waits only when every buffer is queued, so the writer thread
   being woken late (tens of microseconds to milliseconds on a busy VM,
   against ~0.3 ms to fill a buffer) stalls nothing, and neither side
   signals the other unless it sleeps. A failed write stops the
   formatting at its next hand-over and is reported by the close. */
#define PROF__ALWAYS __inline__ __attribute__((__always_inline__)) /* a few instructions, called per event: no call */
#define PROF__W_CHUNK ((size_t)256 << 10)
#define PROF__W_NBUF 4 /* a file's buffers: one being filled, the others queued or free */
#define PROF__ESC_MAX ((size_t)1 << 16) /* longest site name escaped ahead, as JSON */
#define PROF__W_ASYNC_AFTER ((size_t)1 << 20)
static uint64_t prof__w_async_after = PROF__W_ASYNC_AFTER; /* smaller exports: no thread (tests set it) */
typedef struct prof__wthread {
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t job_cv;     /* the writer thread waits here for a buffer */
    pthread_cond_t free_cv;    /* the formatter waits here for a free one, or for all to be written */
    int fd, err, quit;
    int idle, waiting;         /* asleep: the writer thread (job_cv), the formatter (free_cv) */
    unsigned nbuf;
    uint64_t head, tail;       /* queued: buffers head .. tail - 1, number k in bufs[k % nbuf] */
    char *const *bufs;
    size_t len[PROF__W_NBUF];
} prof__wthread;
typedef struct prof__w {
    char *buf;                 /* the buffer being filled */
    size_t n, cap;
    int fd, err;               /* fd -1: a string in memory, never flushed */
    uint64_t written;          /* bytes handed to write(2) so far */
    char *bufs[PROF__W_NBUF];  /* a file's buffers: nbuf of them, 1 until the writer thread starts; [1] .. one block */
    unsigned nbuf;
    prof__wthread *th;         /* the writer thread, once started */
    int no_thread;             /* it could not start: not tried again */
    struct prof__par *par;     /* a worker's writer when formatting in parallel (prof__par_items) */
    size_t chunk;              /* ... the chunk it is formatting */
    uint64_t chunk_out;        /* ... bytes of it written so far (its buffer overflowed) */
    int par_me;                /* ... and which worker it is (prof__par) */
    int can_redo;              /* our own temporary file: prof__w_rewind may start it over */
} prof__w;
/* w->err of a format that found, while writing, that it must start over
   (prof__w_rewind): no errno, never reported. */
#define PROF__W_REDO (-1)
static PROF__NI void prof__par_flush(prof__w *w);

/* A writer into caller memory (escaping a name ahead of time). */
static PROF__NI void prof__w_mem(prof__w *w, char *mem, size_t cap) {
    memset(w, 0, sizeof *w);
    w->buf = mem;
    w->cap = cap;
    w->fd = -1;
}
/* EAGAIN, or EWOULDBLOCK where it differs (equal on Linux: gcc's
   -Wlogical-op flags the two compared together) */
static __inline__ int prof__would_block(int err) {
#if defined(EWOULDBLOCK) && EWOULDBLOCK != EAGAIN
    if (err == EWOULDBLOCK) return 1;
#endif
    return err == EAGAIN;
}
static int prof__par_stream = 0; /* 1: the parallel JSON writes our own file as a stream too (tests set it) */
static uint64_t prof__par_pwrites; /* pwrite calls (atomic; tests read it) */
/* write(2) of all n bytes; returns 0 or the errno. SIGPIPE and SIGXFSZ
   are held around the writes (prof__sig_hold, in >>table). The exporters'
   own threads run with every signal blocked (prof__spawn), so they take
   this path too. Three system calls per 256 kB buffer. A descriptor the
   host made non-blocking (a pipe to a slow reader) says EAGAIN once the
   pipe is full: wait for room rather than fail half-way through.
   With at >= 0, pwrite(2) from that offset instead (the parallel JSON
   into our own regular file, prof__par_items; never where
   PROF__NO_PWRITE). */
static PROF__NI int prof__write_at(int fd, const char *s, size_t n, int64_t at) {
    prof__sig_guard g;
    int err = 0;
    prof__sig_hold(&g);
    while (n) {
        ssize_t k;
#if !defined(PROF__NO_PWRITE)
        if (at >= 0) {
            k = pwrite(fd, s, n, (off_t)at);
            __atomic_fetch_add(&prof__par_pwrites, 1, __ATOMIC_RELAXED);
        } else
#endif
            k = write(fd, s, n);
        if (k < 0) {
            if (errno == EINTR) continue;
            if (prof__would_block(errno)) {
                struct pollfd pfd;
                pfd.fd = fd;
                pfd.events = POLLOUT;
                pfd.revents = 0;
                if (poll(&pfd, 1, -1) >= 0 || errno == EINTR) continue;
            }
            err = errno;
            break;
        }
        if (k == 0) { err = EIO; break; }
        s += k;
        n -= (size_t)k;
        if (at >= 0) at += k;
    }
    prof__sig_release(&g, err);
    return err;
}
static PROF__NI int prof__write_all(int fd, const char *s, size_t n) { return prof__write_at(fd, s, n, -1); }
static void *prof__w_thread_main(void *arg) {
    prof__wthread *th = (prof__wthread *)arg;
    int err = 0;
    pthread_mutex_lock(&th->lock);
    for (;;) {
        const char *b;
        size_t n;
        while (th->head == th->tail && !th->quit) {
            th->idle = 1;
            pthread_cond_wait(&th->job_cv, &th->lock);
        }
        th->idle = 0;
        if (th->head == th->tail) break;
        b = th->bufs[th->head % th->nbuf];
        n = th->len[th->head % th->nbuf];
        pthread_mutex_unlock(&th->lock);
        if (!err) err = prof__write_all(th->fd, b, n); /* after an error, the rest is dropped */
        pthread_mutex_lock(&th->lock);
        if (err) th->err = err;
        th->head++;
        if (th->waiting) pthread_cond_signal(&th->free_cv);
    }
    pthread_mutex_unlock(&th->lock);
    return NULL;
}
/* Starts the writer thread with the file's other buffers; on any failure
   the export stays synchronous. */
static PROF__NI void prof__w_start_thread(prof__w *w) {
    prof__wthread *th;
    char *block;
    unsigned k;
    w->no_thread = 1; /* until it runs */
    /* the other buffers in one block, in huge pages (prof__malloc_huge):
       as 4 KiB pages, 192 first touches per export */
    if (w->nbuf == 1 && (block = (char *)prof__malloc_huge_from(PROF__W_NBUF - 1, w->cap, PROF__HUGE / 4)) != NULL)
        for (k = 1; k < PROF__W_NBUF; k++) w->bufs[w->nbuf++] = block + (size_t)(k - 1) * w->cap;
    if (w->nbuf < 2 || !(th = PROF__ALLOC(prof__wthread, 1))) return;
    memset(th, 0, sizeof *th);
    th->fd = w->fd;
    th->nbuf = w->nbuf;
    th->bufs = w->bufs;
    w->buf = w->bufs[0]; /* the one being filled: the queue starts with it */
    if (pthread_mutex_init(&th->lock, NULL) != 0) { PROF__FREE(th); return; }
    if (pthread_cond_init(&th->job_cv, NULL) != 0) { pthread_mutex_destroy(&th->lock); PROF__FREE(th); return; }
    if (pthread_cond_init(&th->free_cv, NULL) != 0) { pthread_cond_destroy(&th->job_cv); pthread_mutex_destroy(&th->lock); PROF__FREE(th); return; }
    if (!prof__spawn(&th->thread, prof__w_thread_main, th)) {
        pthread_cond_destroy(&th->free_cv); pthread_cond_destroy(&th->job_cv); pthread_mutex_destroy(&th->lock); PROF__FREE(th);
        return;
    }
    w->th = th;
    w->no_thread = 0;
}
/* Waits until the formatter may go on: `all` (every queued buffer
   written) or a free buffer; takes over the writer thread's error.
   Called with th->lock held. */
static PROF__NI void prof__w_wait(prof__w *w, int all) {
    prof__wthread *th = w->th;
    while (all ? th->head != th->tail : th->tail - th->head >= th->nbuf) {
        th->waiting = 1;
        pthread_cond_wait(&th->free_cv, &th->lock);
    }
    th->waiting = 0;
    if (th->err && !w->err) w->err = th->err;
}
/* Waits until the writer thread has written everything queued. */
static PROF__NI void prof__w_wait_idle(prof__w *w) {
    pthread_mutex_lock(&w->th->lock);
    prof__w_wait(w, 1);
    pthread_mutex_unlock(&w->th->lock);
}
/* Queues the full buffer for the writer thread and goes on with the next
   free one (waiting only when none is). */
static PROF__NI void prof__w_hand_over(prof__w *w) {
    prof__wthread *th = w->th;
    pthread_mutex_lock(&th->lock);
    th->len[th->tail % th->nbuf] = w->n;
    th->tail++;
    if (th->idle) {
        th->idle = 0;
        pthread_cond_signal(&th->job_cv);
    }
    prof__w_wait(w, 0);
    w->buf = w->bufs[th->tail % th->nbuf];
    pthread_mutex_unlock(&th->lock);
}
static PROF__NI void prof__w_flush(prof__w *w) {
    if (!w->n) return;
    if (w->par) { prof__par_flush(w); return; }
    if (w->fd < 0) { if (!w->err) w->err = ENOSPC; return; } /* a buffer in memory is full: its content stays, the error says so */
    if (!w->th && !w->no_thread && w->written >= prof__w_async_after) prof__w_start_thread(w);
    if (w->th) {
        if (!w->err) prof__w_hand_over(w);
    } else if (!w->err) {
        w->err = prof__write_all(w->fd, w->buf, w->n);
    }
    w->written += w->n;
    w->n = 0;
}
/* Flushes everything and ends the writer thread. */
static PROF__NI void prof__w_finish(prof__w *w) {
    prof__w_flush(w);
    if (w->th) {
        prof__wthread *th = w->th;
        pthread_mutex_lock(&th->lock);
        prof__w_wait(w, 1);
        th->quit = 1;
        pthread_cond_signal(&th->job_cv);
        pthread_mutex_unlock(&th->lock);
        pthread_join(th->thread, NULL);
        pthread_cond_destroy(&th->free_cv);
        pthread_cond_destroy(&th->job_cv);
        pthread_mutex_destroy(&th->lock);
        PROF__FREE(th);
        w->th = NULL;
    }
}
/* Empties the file (w->can_redo: a temporary file no one else has seen)
   to write it again from its first byte; 0, or the errno (in w->err). */
static PROF__NI int prof__w_rewind(prof__w *w) {
    w->err = 0;
    w->n = 0;
    if (w->th) prof__w_wait_idle(w); /* takes over its error */
    if (!w->err && lseek(w->fd, 0, SEEK_SET) != 0) w->err = errno;
    if (!w->err) {
        int rc;
        while ((rc = ftruncate(w->fd, 0)) != 0 && errno == EINTR) {}
        if (rc != 0) w->err = errno;
    }
    w->written = 0;
    return w->err;
}
static PROF__NI void prof__w_put_slow(prof__w *w, const char *s, size_t n) {
    while (n && !w->err) {
        size_t k = w->cap - w->n;
        if (!k) { prof__w_flush(w); continue; }
        if (k > n) k = n;
        memcpy(w->buf + w->n, s, k);
        w->n += k;
        s += k;
        n -= k;
    }
}
static __inline__ void prof__w_put(prof__w *w, const char *s, size_t n) {
    if (PROF__LIKELY(n <= w->cap - w->n)) {
        memcpy(w->buf + w->n, s, n);
        w->n += n;
    } else {
        prof__w_put_slow(w, s, n);
    }
}
#define PROF__W_LIT(w, lit) prof__w_put((w), (lit), sizeof(lit) - 1)
static PROF__NI void prof__w_str(prof__w *w, const char *s) { prof__w_put(w, s, strlen(s)); }
static const char prof__digits2[] =
    "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
    "8081828384858687888990919293949596979899";
/* Decimal digits in place. Values below 10^8 become eight characters in
   one register (SWAR): the value is cut into two 4-digit lanes, each lane
   into two 2-digit lanes, each of those into two digits, by multiplying by
   reciprocals, so no lane spills into the next; on little-endian targets
   the leading zeros are shifted out and the register is stored whole, so
   the cursor needs 8 bytes of room whatever the length. Longer values are
   cut in 8-digit pieces. */
static PROF__ALWAYS uint64_t prof__digits8(uint32_t v) { /* v < 10^8: 8 chars, zero-padded, in memory order */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    /* a lane's quotient q and remainder r side by side as q + (r << w),
       i.e. (x << w) + q * (1 - (d << w)): one multiply-add, no masking */
    uint64_t h = ((uint64_t)v * 109951163u) >> 40;                           /* v / 10^4 (exact for v < 10^8) */
    uint64_t x = ((uint64_t)v << 32) + h * (1 - (10000ull << 32));           /* first 4 digits in the low lane */
    uint64_t q = ((x * 10486) >> 20) & 0x0000007F0000007Full;                /* each lane / 100 (lanes < 10^4) */
    uint64_t y = (x << 16) + q * (1 - (100ull << 16));                       /* 2-digit lanes, first in the low half */
    uint64_t t = ((y * 103) >> 10) & 0x000F000F000F000Full;                  /* each lane / 10 (lanes < 100) */
    return (y << 8) + t * (1 - (10ull << 8)) + 0x3030303030303030ull;
#else
    uint32_t hi = v / 10000, lo = v % 10000;
    char c[8];
    uint64_t x;
    c[0] = (char)('0' + hi / 1000); c[1] = (char)('0' + hi / 100 % 10); c[2] = (char)('0' + hi / 10 % 10); c[3] = (char)('0' + hi % 10);
    c[4] = (char)('0' + lo / 1000); c[5] = (char)('0' + lo / 100 % 10); c[6] = (char)('0' + lo / 10 % 10); c[7] = (char)('0' + lo % 10);
    memcpy(&x, c, 8);
    return x;
#endif
}
static __inline__ void prof__put_8digits(char *d, uint32_t v) { /* exactly 8, zero-padded */
    uint64_t x = prof__digits8(v);
    memcpy(d, &x, 8);
}
static PROF__ALWAYS char *prof__put_u32(char *d, uint32_t v) { /* v < 10^8; writes 8 bytes */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    uint64_t x = prof__digits8(v);
    unsigned s = (unsigned)__builtin_ctzll((x & 0x0F0F0F0F0F0F0F0Full) | ((uint64_t)1 << 56)) >> 3; /* leading zeros, the last digit kept */
    x >>= 8 * s;
    memcpy(d, &x, 8);
    return d + 8 - s;
#else
    static const uint32_t pow10[8] = { 1u, 10u, 100u, 1000u, 10000u, 100000u, 1000000u, 10000000u };
    char tmp[8];
    int n = 8;
    while (n > 1 && v < pow10[n - 1]) n--;
    prof__put_8digits(tmp, v);
    memcpy(d, tmp + 8 - n, (size_t)n);
    return d + n;
#endif
}
static PROF__ALWAYS char *prof__put_u64(char *d, uint64_t v) { /* up to 20 digits; writes 24 bytes at most */
    if (v < 100000000u) return prof__put_u32(d, (uint32_t)v);
    if (v < 10000000000000000u) {
        d = prof__put_u32(d, (uint32_t)(v / 100000000u));
    } else {
        uint64_t hi = v / 100000000u;
        d = prof__put_u32(d, (uint32_t)(hi / 100000000u));
        prof__put_8digits(d, (uint32_t)(hi % 100000000u));
        d += 8;
    }
    prof__put_8digits(d, (uint32_t)(v % 100000000u));
    return d + 8;
}
/* Room for `need` bytes at w->buf + w->n: a file's buffer is flushed; a
   buffer in memory that is too small takes the error instead. */
static __inline__ int prof__w_room(prof__w *w, size_t need) {
    if (PROF__LIKELY(w->cap - w->n >= need)) return 1;
    prof__w_flush(w);
    if (w->cap - w->n >= need) return 1;
    if (!w->err) w->err = ENOSPC;
    return 0;
}
static PROF__NI void prof__w_u64(prof__w *w, uint64_t v) {
    if (PROF__UNLIKELY(w->cap - w->n < 24) && !prof__w_room(w, 24)) return;
    w->n = (size_t)(prof__put_u64(w->buf + w->n, v) - w->buf);
}
static PROF__NI void prof__w_i64(prof__w *w, int64_t v) {
    if (PROF__LIKELY(v >= 0 && w->cap - w->n >= 24)) { w->n = (size_t)(prof__put_u64(w->buf + w->n, (uint64_t)v) - w->buf); return; }
    if (v < 0) { PROF__W_LIT(w, "-"); prof__w_u64(w, (uint64_t)0 - (uint64_t)v); }
    else prof__w_u64(w, (uint64_t)v);
}
static PROF__NI void prof__w_u64_pad19(prof__w *w, uint64_t v) { /* v < 10^19, 19 digits */
    char d[24];
    int k;
    for (k = 18; k >= 0; k--) { d[k] = (char)('0' + v % 10); v /= 10; }
    prof__w_put(w, d, 19);
}
#if !defined(__SIZEOF_INT128__) || defined(PROF__NO_INT128)
/* u (unsigned, two halves) divided by d in place, bit by bit (only sums
   past int64 come here); returns the remainder */
static PROF__NI uint64_t prof__u128_divmod(prof__i128 *u, uint64_t d) {
    prof__i128 q = { 0, 0 };
    uint64_t r = 0;
    int k;
    for (k = 127; k >= 0; k--) {
        const uint64_t top = r >> 63;
        r = (r << 1) | ((k >= 64 ? u->hi >> (k - 64) : u->lo >> k) & 1);
        if (top || r >= d) { /* (with top set the true value is 2^64 + r, below 2d: r - d wraps to it) */
            r -= d;
            if (k >= 64) q.hi |= (uint64_t)1 << (k - 64);
            else q.lo |= (uint64_t)1 << k;
        }
    }
    *u = q;
    return r;
}
#endif
/* A 128-bit sum (the memory timeline's) in decimal, whole. */
static PROF__NI void prof__w_i128(prof__w *w, prof__i128 v) {
#if defined(__SIZEOF_INT128__) && !defined(PROF__NO_INT128)
    prof__u128 u;
    const uint64_t e19 = 10000000000000000000ull;
    if (v >= INT64_MIN && v <= INT64_MAX) { prof__w_i64(w, (int64_t)v); return; }
    if (v < 0) PROF__W_LIT(w, "-");
    u = v < 0 ? (prof__u128)0 - (prof__u128)v : (prof__u128)v;
    if (u < e19) { prof__w_u64(w, (uint64_t)u); return; } /* [2^63, 10^19): one part, no leading 0 */
    if (u / e19 >= e19) { /* three 19-digit parts at most */
        prof__w_u64(w, (uint64_t)(u / e19 / e19));
        prof__w_u64_pad19(w, (uint64_t)(u / e19 % e19));
    } else prof__w_u64(w, (uint64_t)(u / e19));
    prof__w_u64_pad19(w, (uint64_t)(u % e19));
#else
    const uint64_t e19 = 10000000000000000000ull;
    uint64_t r0, r1;
    int64_t narrow;
    if (prof__i128_fits(v, &narrow)) { prof__w_i64(w, narrow); return; }
    if (v.hi >> 63) { /* the magnitude */
        PROF__W_LIT(w, "-");
        v.lo = ~v.lo + 1;
        v.hi = ~v.hi + (v.lo == 0);
    }
    if (v.hi == 0 && v.lo < e19) { prof__w_u64(w, v.lo); return; }
    r0 = prof__u128_divmod(&v, e19); /* v: the digits above the last 19 */
    if (v.hi != 0 || v.lo >= e19) {
        r1 = prof__u128_divmod(&v, e19);
        prof__w_u64(w, v.lo);
        prof__w_u64_pad19(w, r1);
    } else prof__w_u64(w, v.lo);
    prof__w_u64_pad19(w, r0);
#endif
}
/* Nanoseconds as microseconds with three decimals: exact, no floating point.
   At most 25 bytes (writes up to 32). Below 10^16 ns (116 days: every
   trace's ts and dur in practice) the value is cut in two 8-digit halves
   made by prof__digits8 alone: the high half's leading zeros found with
   one ctz (no digit count), the low half "IIIIIFFF" stored with its point
   put in by shifts. */
static PROF__NI char *prof__put_us_long(char *d, uint64_t a) { /* any a, no sign */
    uint64_t q = a / 1000;
    unsigned f = (unsigned)(a - q * 1000);
    if (q < 100000000u) d = prof__put_u32(d, (uint32_t)q);
    else d = prof__put_u64(d, q);
    d[0] = '.';
    d[1] = (char)('0' + f / 100);
    d[2] = prof__digits2[f % 100 * 2];
    d[3] = prof__digits2[f % 100 * 2 + 1];
    return d + 4;
}
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define PROF__DIGIT_BITS 0x0F0F0F0F0F0F0F0Full /* a digit's value bits, in every byte of prof__digits8 */
/* x, eight digits "IIIIIFFF" (prof__digits8 of ns < 10^8), as "IIIII.FFF"
   without its first s digits (s <= 4); writes 9 bytes. Two stores that
   overlap: the digits shifted down, then ".FFF" over the integer part's
   end (fewer instructions than moving the fraction up in the register). */
static PROF__ALWAYS char *prof__put_us8(char *d, uint64_t x, unsigned s) {
    uint64_t p = x >> 8 * s;
    uint32_t f = ((uint32_t)(x >> 32) & 0xFFFFFF00u) | (uint32_t)'.'; /* digit 5 (the last integer one) becomes the point */
    memcpy(d, &p, 8);
    memcpy(d + 5 - s, &f, 4);
    return d + 9 - s;
}
/* ns < 10^8: its leading zeros cut, but the one before the point. */
static PROF__ALWAYS char *prof__put_us_small(char *d, uint32_t ns) {
    uint64_t x = prof__digits8(ns);
    return prof__put_us8(d, x, (unsigned)__builtin_ctzll((x & PROF__DIGIT_BITS) | ((uint64_t)1 << 32)) >> 3);
}
/* hi in [1, 10^8) as digits, its leading zeros shifted out; *len digits. */
static PROF__ALWAYS uint64_t prof__digits_nz(uint32_t hi, unsigned *len) {
    uint64_t h = prof__digits8(hi);
    unsigned s = (unsigned)__builtin_ctzll(h & PROF__DIGIT_BITS) >> 3; /* hi > 0: a digit is not 0 */
    *len = 8 - s;
    return h >> 8 * s;
}
#endif
static PROF__ALWAYS char *prof__put_us(char *d, int64_t ns) {
    uint64_t a;
    if (ns < 0) { *d++ = '-'; a = (uint64_t)0 - (uint64_t)ns; }
    else a = (uint64_t)ns;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    if (PROF__LIKELY(a < 100000000u)) return prof__put_us_small(d, (uint32_t)a);
    if (PROF__LIKELY(a < 10000000000000000u)) {
        uint64_t hi = a / 100000000u, h;
        unsigned n;
        h = prof__digits_nz((uint32_t)hi, &n);
        memcpy(d, &h, 8);
        return prof__put_us8(d + n, prof__digits8((uint32_t)(a - hi * 100000000u)), 0);
    }
#endif
    return prof__put_us_long(d, a);
}
/* A decimal counter for numbers that go up by one from event to event (the
   trace's "Ev Idx" and "External id"): incrementing the digits in place is
   cheaper than formatting the number again. The digits are right-aligned
   at d + 24 and followed by slack, so one fixed 24-byte copy takes them
   whatever their length. */
typedef struct prof__dec { uint64_t v; size_t len; char d[48]; } prof__dec;
static PROF__NI void prof__dec_set(prof__dec *c, uint64_t v) {
    char tmp[32];
    size_t n = (size_t)(prof__put_u64(tmp, v) - tmp);
    memset(c->d, '0', sizeof c->d);
    memcpy(c->d + 24 - n, tmp, n);
    c->v = v;
    c->len = n;
}
static __inline__ void prof__dec_inc(prof__dec *c) { /* v < 10^20 - 1 */
    char *p = c->d + 23;
    while (*p == '9') *p-- = '0';
    (*p)++;
    if (p < c->d + 24 - c->len) c->len++;
    c->v++;
}
static __inline__ char *prof__dec_put(char *d, const prof__dec *c) { /* writes 24 bytes */
    memcpy(d, c->d + 24 - c->len, 24);
    return d + c->len;
}
static PROF__NI void prof__w_us(prof__w *w, int64_t ns) {
    if (PROF__UNLIKELY(w->cap - w->n < 32) && !prof__w_room(w, 32)) return;
    w->n = (size_t)(prof__put_us(w->buf + w->n, ns) - w->buf);
}
/* A literal at a cursor that has room. */
#define PROF__D_LIT(d, lit) (memcpy((d), (lit), sizeof(lit) - 1), (d) += sizeof(lit) - 1)
static PROF__NI void prof__w_double(prof__w *w, double v) {
    char t[40];
    if (__builtin_isnan(v) || v > 1.7976931348623157e308 || v < -1.7976931348623157e308) { PROF__W_LIT(w, "null"); return; }
    prof__fmt_c(t, sizeof t, "%.17g", v);
    prof__w_str(w, t);
}

/* Length of the valid UTF-8 sequence at p, 0 if invalid (overlong forms,
   surrogates and code points past U+10FFFF are invalid). */
static PROF__NI int prof__utf8_len(const unsigned char *p) {
    unsigned c = p[0];
#define PROF__CONT(x) (((x) & 0xC0) == 0x80)
    if (c >= 0xC2 && c <= 0xDF) return PROF__CONT(p[1]) ? 2 : 0;
    if (c == 0xE0) return (p[1] >= 0xA0 && p[1] <= 0xBF && PROF__CONT(p[2])) ? 3 : 0;
    if ((c >= 0xE1 && c <= 0xEC) || c == 0xEE || c == 0xEF) return (PROF__CONT(p[1]) && PROF__CONT(p[2])) ? 3 : 0;
    if (c == 0xED) return (p[1] >= 0x80 && p[1] <= 0x9F && PROF__CONT(p[2])) ? 3 : 0;
    if (c == 0xF0) return (p[1] >= 0x90 && p[1] <= 0xBF && PROF__CONT(p[2]) && PROF__CONT(p[3])) ? 4 : 0;
    if (c >= 0xF1 && c <= 0xF3) return (PROF__CONT(p[1]) && PROF__CONT(p[2]) && PROF__CONT(p[3])) ? 4 : 0;
    if (c == 0xF4) return (p[1] >= 0x80 && p[1] <= 0x8F && PROF__CONT(p[2]) && PROF__CONT(p[3])) ? 4 : 0;
    return 0;
}
/* Length of the invalid stretch at p that one U+FFFD replaces, p not
   starting a valid sequence (prof__utf8_len 0, p[0] >= 0x80): the longest
   prefix of a sequence that could still have been valid (a lead byte and
   the continuation bytes it allows, cut short), else the one byte. This
   is Unicode's "maximal subpart" practice, which Python's
   decode(errors="replace") and the WHATWG TextDecoder (DevTools, Perfetto
   UI, speedscope) follow, so a name reads the same in every format and in
   any reader that decodes the raw bytes: "\xe2\x82A" is U+FFFD "A", while
   "\xed\xa0\x80" (a surrogate) is three. Never reads past a NUL (not a
   continuation byte). */
static PROF__NI int prof__utf8_bad(const unsigned char *p) {
    unsigned c = p[0], lo = 0x80, hi = 0xBF;
    if (c < 0xE0 || c > 0xF4) return 1; /* C2..DF cut short, or never a lead byte */
    if (c == 0xE0) lo = 0xA0;           /* the second bytes that are not overlong, */
    else if (c == 0xED) hi = 0x9F;      /* not a surrogate, */
    else if (c == 0xF0) lo = 0x90;
    else if (c == 0xF4) hi = 0x8F;      /* not past U+10FFFF */
    if (p[1] < lo || p[1] > hi) return 1;
    return c >= 0xF0 && PROF__CONT(p[2]) ? 3 : 2;
}
#undef PROF__CONT

/* A JSON string: quotes, backslashes and control bytes escaped (DEL too:
   JSON allows it raw, but trace_processor's JSON importer fails the whole
   file on one in a top-level value, where it reads strings with iscntrl);
   invalid UTF-8 replaced by U+FFFD (one per maximal subpart,
   prof__utf8_bad), never written through. */
static PROF__NI void prof__w_json_body(prof__w *w, const char *str) {
    static const char hex[] = "0123456789abcdef";
    const unsigned char *p = (const unsigned char *)(str ? str : ""), *run = p;
    while (*p) {
        unsigned c = *p;
        int n;
        if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\') { p++; continue; }
        prof__w_put(w, (const char *)run, (size_t)(p - run));
        if (c < 0x80) {
            char e[6];
            switch (c) {
            case '"': PROF__W_LIT(w, "\\\""); break;
            case '\\': PROF__W_LIT(w, "\\\\"); break;
            case '\n': PROF__W_LIT(w, "\\n"); break;
            case '\r': PROF__W_LIT(w, "\\r"); break;
            case '\t': PROF__W_LIT(w, "\\t"); break;
            default:
                e[0] = '\\'; e[1] = 'u'; e[2] = '0'; e[3] = '0'; e[4] = hex[c >> 4]; e[5] = hex[c & 15];
                prof__w_put(w, e, 6);
            }
            p++;
        } else if ((n = prof__utf8_len(p)) > 0) {
            prof__w_put(w, (const char *)p, (size_t)n);
            p += n;
        } else {
            PROF__W_LIT(w, "\\ufffd");
            p += prof__utf8_bad(p);
        }
        run = p;
    }
    prof__w_put(w, (const char *)run, (size_t)(p - run));
}
/* Valid JSON (prof_json_valid) as it is, but for DEL, which it can hold
   only inside a string: escaped, as above. */
static PROF__NI void prof__w_json_raw(prof__w *w, const char *json) {
    const char *del;
    while ((del = strchr(json, 0x7f)) != NULL) {
        prof__w_put(w, json, (size_t)(del - json));
        PROF__W_LIT(w, "\\u007f");
        json = del + 1;
    }
    prof__w_str(w, json);
}
static PROF__NI void prof__w_json_str(prof__w *w, const char *str) {
    PROF__W_LIT(w, "\"");
    prof__w_json_body(w, str);
    PROF__W_LIT(w, "\"");
}

/* Strings of a list are interned, so whether one needs escaping is worth
   remembering by address: stack entries repeat on every event. */
typedef struct prof__clean { const char *key; size_t len; int clean; } prof__clean;
#define PROF__CLEAN_SLOTS 4096
/* The cache slot of an interned string: its length, and whether it needs
   escaping, found once per address. */
static PROF__NI const prof__clean *prof__clean_of(prof__clean *cache, const char *str) {
    prof__clean *c = &cache[prof__mix((uint64_t)(uintptr_t)str) & (PROF__CLEAN_SLOTS - 1)];
    if (c->key != str) {
        const unsigned char *p = (const unsigned char *)str;
        c->clean = 1;
        for (; *p; p++) if (*p < 0x20 || *p >= 0x7f || *p == '"' || *p == '\\') c->clean = 0;
        c->len = (size_t)(p - (const unsigned char *)str);
        c->key = str;
    }
    return c;
}
static PROF__NI void prof__w_json_body_cached(prof__w *w, prof__clean *cache, const char *str) {
    const prof__clean *c;
    if (!cache || !str) { prof__w_json_body(w, str); return; }
    c = prof__clean_of(cache, str);
    if (c->clean) prof__w_put(w, str, c->len);
    else prof__w_json_body(w, str);
}
/* An interned string that is JSON already (shapes), through the same cache
   for its length. */
static PROF__NI void prof__w_raw_cached(prof__w *w, prof__clean *cache, const char *str) {
    if (!cache) prof__w_str(w, str);
    else prof__w_put(w, str, prof__clean_of(cache, str)->len);
}

/* ----- >>x_writer: protobuf (Perfetto, pprof) -----
   Varints, tags, and length-delimited fields: at a cursor with room
   (prof__pb_varint ...), or appended to a growable message that is then
   closed into its parent with its length (prof__pb_u ..., prof__pb_sub). */
static __inline__ char *prof__pb_varint(char *d, uint64_t v) {
    while (v >= 0x80) { *d++ = (char)(v | 0x80); v >>= 7; }
    *d++ = (char)v;
    return d;
}
static __inline__ char *prof__pb_uint(char *d, unsigned field, uint64_t v) { return prof__pb_varint(prof__pb_varint(d, (uint64_t)field << 3), v); }
static __inline__ char *prof__pb_fixed64(char *d, unsigned field, uint64_t v) {
    int k;
    d = prof__pb_varint(d, ((uint64_t)field << 3) | 1);
    for (k = 0; k < 8; k++) *d++ = (char)(v >> (8 * k));
    return d;
}
static __inline__ char *prof__pb_double(char *d, unsigned field, double x) {
    uint64_t v;
    memcpy(&v, &x, 8);
    return prof__pb_fixed64(d, field, v);
}
static __inline__ char *prof__pb_len(char *d, unsigned field, size_t n) { return prof__pb_varint(prof__pb_varint(d, ((uint64_t)field << 3) | 2), n); }
/* A message under construction: fields appended to a growable buffer, then
   closed into its parent with its length. */
static PROF__NI void prof__pb_raw(prof__buf *b, const char *s, size_t n) { prof__buf_put(b, s, n); }
static PROF__NI void prof__pb_u(prof__buf *b, unsigned field, uint64_t v) { char t[24]; prof__buf_put(b, t, (size_t)(prof__pb_uint(t, field, v) - t)); }
static PROF__NI void prof__pb_i(prof__buf *b, unsigned field, int64_t v) { prof__pb_u(b, field, (uint64_t)v); }
static PROF__NI void prof__pb_f64(prof__buf *b, unsigned field, double x) { char t[16]; prof__buf_put(b, t, (size_t)(prof__pb_double(t, field, x) - t)); }
static PROF__NI void prof__pb_sub(prof__buf *b, unsigned field, const prof__buf *m) {
    char t[16];
    prof__buf_put(b, t, (size_t)(prof__pb_len(t, field, m->n) - t));
    prof__buf_put(b, m->p, m->n);
}
/* A string field: valid UTF-8 kept, each maximal invalid subpart becomes
   U+FFFD (prof__utf8_bad, as in the JSON trace, so both read the same).
   The first pass finds the field's length: the bytes, less each invalid
   stretch, plus 3 for its U+FFFD. */
static PROF__NI void prof__pb_s(prof__buf *b, unsigned field, const char *s) {
    const unsigned char *p = (const unsigned char *)(s ? s : "");
    size_t n = 0, len = 0;
    int bad = 0;
    char t[16];
    for (; p[n]; n++) if (p[n] >= 0x80) {
        int k = prof__utf8_len(p + n);
        if (!k) { k = prof__utf8_bad(p + n); len += 3 - (size_t)k; bad = 1; }
        n += (size_t)k - 1;
    }
    len += n;
    prof__buf_put(b, t, (size_t)(prof__pb_len(t, field, len) - t));
    if (!bad) { prof__buf_put(b, (const char *)p, n); return; }
    while (*p) {
        int k = *p >= 0x80 ? prof__utf8_len(p) : 1;
        if (k) { prof__buf_put(b, (const char *)p, (size_t)k); p += k; }
        else { prof__buf_put(b, "\xef\xbf\xbd", 3); p += prof__utf8_bad(p); }
    }
}

/* ----- >>x_writer: formatting in parallel -----
   The items of a big export (the trace's events) are formatted by two
   threads at once: the list is cut into chunks of prof__par_chunk items,
   each formatted alone into the same bytes as the whole list would give
   (a format's ops reset their context per chunk). A worker takes a free
   buffer of the pool with the next chunk, formats the chunk into it and
   queues it. How the chunks go out depends on the file:
   - Our own temporary file (the usual case: a regular file replaced
     atomically): each chunk is written by the worker that formatted it,
     with pwrite at its offset, as soon as every chunk before it is
     formatted (their lengths give its offset) and nobody else is writing
     (a token under the lock: two pwrites at once spin on the file's lock
     in the kernel). Each worker has buffers of its own (b % 2), so
     the bytes it formats stay in its core's cache until its own write(2)
     copies them. Written by the other core, every line of a buffer went
     through that core and back: the formatting took 2x the CPU on this
     VM while the other core wrote into tmpfs (1x into /dev/null); and
     written in order by their own workers alone, every hand-over of the
     turn waited for the other worker to end its chunk.
   - A stream (a pipe, a device, a descriptor the caller gave): in order,
     each chunk written by whichever worker finds it next in turn with
     nobody writing (a token under the lock): the one that completes it,
     or the one writing the chunk before it, which goes on with it. So a
     worker never waits for a chunk's turn.
   A worker waits only when every buffer it may take is queued, or when
   its chunk outgrows its buffer: then it writes the part it has once the
   chunk's offset is known (a stream: in the chunk's turn). A chunk of
   plain events takes ~0.35 MiB, with full args ~0.7 MiB: 2048 of them
   fit. A chunk must be long beside the hand-over (a lock, sometimes a
   wake-up): 2048 events are 0.1-0.2 ms of formatting. Each worker has
   one chunk being formatted and, when the other is behind, one or two
   waiting for their offset: three buffers each. The pool is 6 MiB,
   three huge pages (prof__par_pool), all of it resident while the export
   runs. */
#define PROF__PAR_CHUNK 2048
#define PROF__PAR_BUF ((size_t)1 << 20)
#define PROF__PAR_NBUF 6 /* positional: buffer b is worker b % 2's */
static size_t prof__par_min_events = 32768; /* smaller lists: one thread (tests set it) */
static size_t prof__par_chunk = PROF__PAR_CHUNK;              /* items per chunk (tests set it) */
/* What a format gives the workers. */
typedef struct prof__par_ops {
    void *(*open)(const void *proto);             /* a worker's own context; NULL: no memory */
    void (*chunk)(void *ctx, size_t first);       /* a chunk starts at item `first` */
    void (*items)(prof__w *w, void *ctx, size_t first, size_t end); /* formats items [first, end) until w->err */
    void (*close)(void *ctx);
} prof__par_ops;
typedef struct prof__par {
    const prof__par_ops *ops;
    const void *proto;             /* what open copies from */
    size_t n;                      /* items */
    int fd;
    int positional;                /* chunks go out with pwrite at their offsets, each by its worker */
    pthread_mutex_t lock;
    pthread_cond_t cv;             /* a buffer freed, an offset known, the turn moved or the token released */
    int waiters;                   /* workers waiting on cv */
    unsigned gen;                  /* prof__par_wake's count */
    int workers;                   /* workers started: the next one's number */
    size_t chunk;                  /* items per chunk */
    size_t next_chunk, nchunks;
    size_t sized;                  /* positional: chunks [0, sized) have their lengths ... */
    int64_t end;                   /* ... and chunk `sized` starts at this offset */
    size_t turn;                   /* a stream: the chunk whose bytes go out next */
    int writing;                   /* ... and the token: a worker is in write(2) */
    int nbuf;
    char *buf[PROF__PAR_NBUF];     /* the pool */
    size_t len[PROF__PAR_NBUF];    /* a queued buffer's bytes */
    size_t owner[PROF__PAR_NBUF];  /* ... its chunk */
    uint64_t pre[PROF__PAR_NBUF];  /* ... the bytes of its chunk written before them (prof__par_flush) */
    int64_t at[PROF__PAR_NBUF];    /* ... positional: their offset once known, else -1 */
    unsigned char state[PROF__PAR_NBUF]; /* PROF__PB_FREE, _TAKEN (being formatted), _QUEUED (complete) */
    uint64_t written;              /* bytes written */
    int err;
} prof__par;
enum { PROF__PB_FREE, PROF__PB_TAKEN, PROF__PB_QUEUED };

/* Anything a worker may wait for happened: a buffer freed, an offset
   known, the turn moved, the token released. Called with the lock held. */
static PROF__NI void prof__par_wake(prof__par *p) {
    p->gen++;
    if (p->waiters) pthread_cond_broadcast(&p->cv);
}
/* Waits for the next prof__par_wake (the caller checks again what it
   waits for). Called with the lock held. (Spinning first, 30 to 300 us,
   moved the export's time by less than its run-to-run spread here and
   added 8-20% to its CPU.) */
static PROF__NI void prof__par_wait(prof__par *p) {
    const unsigned gen = p->gen;
    p->waiters++;
    while (p->gen == gen) pthread_cond_wait(&p->cv, &p->lock);
    p->waiters--;
}
/* One write of a worker's bytes, the lock released around it: at `at`
   (positional) or at the file's offset. */
static PROF__NI void prof__par_out(prof__par *p, const char *s, size_t n, int64_t at) {
    int err;
    pthread_mutex_unlock(&p->lock);
    err = prof__write_at(p->fd, s, n, p->positional ? at : -1);
    pthread_mutex_lock(&p->lock);
    if (err && !p->err) p->err = err;
    if (!err) p->written += n;
}
/* The buffer worker me may write next, or -1: its queued chunk of known
   offset with the lowest number (a stream: any worker's chunk next in
   turn). */
static PROF__NI int prof__par_next(const prof__par *p, int me) {
    int b, best = -1;
    for (b = 0; b < p->nbuf; b++) {
        if (p->state[b] != PROF__PB_QUEUED) continue;
        if (!p->positional) { if (p->owner[b] == p->turn) return b; continue; }
        if ((b & 1) == me && p->at[b] >= 0 && (best < 0 || p->owner[b] < p->owner[best])) best = b;
    }
    return best;
}
/* Called with the lock held: unless another worker holds the token,
   writes what worker me may write (prof__par_next) until nothing is left;
   after an error it is dropped. Returns whether it freed a buffer. */
static PROF__NI int prof__par_drain(prof__par *p, int me) {
    int b, freed = 0;
    if (p->writing) return 0; /* its holder looks for more after each write, and wakes the waiters when done */
    p->writing = 1;
    while ((b = prof__par_next(p, me)) >= 0) {
        if (!p->err) prof__par_out(p, p->buf[b], p->len[b], p->at[b]);
        p->state[b] = PROF__PB_FREE;
        if (!p->positional) p->turn++;
        freed = 1;
        prof__par_wake(p);
    }
    p->writing = 0;
    prof__par_wake(p);
    return freed;
}
/* Positional, with the lock held: the offsets of the complete chunks
   that follow the sized ones. Returns whether any became known. */
static PROF__NI int prof__par_size(prof__par *p) {
    int b, any = 0;
    for (;;) {
        for (b = 0; b < p->nbuf && !(p->state[b] == PROF__PB_QUEUED && p->owner[b] == p->sized); b++) {}
        if (b == p->nbuf) return any;
        p->at[b] = p->end + (int64_t)p->pre[b];
        p->end += (int64_t)(p->pre[b] + p->len[b]);
        p->sized++;
        any = 1;
    }
}
/* A worker's buffer is full in the middle of its chunk: once the chunk's
   offset is known (a stream: in its turn, with the token), what it holds
   is written. */
static PROF__NI void prof__par_flush(prof__w *w) {
    prof__par *p = w->par;
    pthread_mutex_lock(&p->lock);
    while (!p->err && ((p->positional ? p->sized : p->turn) != w->chunk || p->writing))
        if (!prof__par_drain(p, w->par_me)) prof__par_wait(p);
    if (!p->err) {
        p->writing = 1;
        prof__par_out(p, w->buf, w->n, p->end + (int64_t)w->chunk_out);
        p->writing = 0;
        prof__par_wake(p);
    }
    if (p->err) w->err = p->err;
    pthread_mutex_unlock(&p->lock);
    w->written += w->n;
    w->chunk_out += w->n;
    w->n = 0;
}
/* Writes what worker me may write, then takes a free buffer (*slot) and
   the next chunk for it, waiting when none is free; nchunks when none is
   left (or on an error), once its own queued chunks are written. */
static PROF__NI size_t prof__par_take(prof__par *p, int me, int *slot) {
    const int step = p->positional ? 2 : 1;
    size_t k;
    int b;
    pthread_mutex_lock(&p->lock);
    for (;;) {
        if (prof__par_drain(p, me)) continue; /* more may have come in turn meanwhile */
        if (p->err || p->next_chunk >= p->nchunks) {
            for (b = me; p->positional && b < p->nbuf && p->state[b] != PROF__PB_QUEUED; b += 2) {}
            if (!p->err && p->positional && b < p->nbuf) { prof__par_wait(p); continue; } /* its offset is not known yet */
            k = p->nchunks;
            break;
        }
        for (b = p->positional ? me : 0; b < p->nbuf && p->state[b] != PROF__PB_FREE; b += step) {}
        if (b < p->nbuf) {
            p->state[b] = PROF__PB_TAKEN;
            *slot = b;
            k = p->next_chunk++;
            break;
        }
        prof__par_wait(p);
    }
    pthread_mutex_unlock(&p->lock);
    return k;
}
/* The worker's chunk is complete in buffer `slot`: queued, with its
   offset where the chunks before it are sized (positional, waking a
   worker that waits for one), else written in its turn. */
static PROF__NI void prof__par_done(prof__par *p, const prof__w *w, int slot, int me) {
    pthread_mutex_lock(&p->lock);
    p->len[slot] = w->n;
    p->owner[slot] = w->chunk;
    p->pre[slot] = w->chunk_out;
    p->at[slot] = -1;
    p->state[slot] = PROF__PB_QUEUED;
    if (p->positional && prof__par_size(p)) prof__par_wake(p);
    prof__par_drain(p, me);
    pthread_mutex_unlock(&p->lock);
}
static void *prof__par_worker(void *arg) {
    prof__par *p = (prof__par *)arg;
    prof__w w;
    void *ctx = p->ops->open(p->proto);
    size_t k, end;
    int slot = 0;
    if (!ctx) return NULL; /* without memory this worker takes no chunk: the other one takes them all */
    memset(&w, 0, sizeof w);
    w.cap = PROF__PAR_BUF;
    w.fd = p->fd;
    w.par = p;
    pthread_mutex_lock(&p->lock);
    w.par_me = p->workers++ & 1;
    pthread_mutex_unlock(&p->lock);
    while ((k = prof__par_take(p, w.par_me, &slot)) < p->nchunks) {
        w.buf = p->buf[slot];
        w.n = 0;
        w.chunk = k;
        w.chunk_out = 0;
        w.err = 0;
        p->ops->chunk(ctx, k * p->chunk);
        end = (k + 1) * p->chunk < p->n ? (k + 1) * p->chunk : p->n;
        p->ops->items(&w, ctx, k * p->chunk, end);
        if (w.err) { /* the export fails: nothing more goes out */
            pthread_mutex_lock(&p->lock);
            if (!p->err) p->err = w.err;
            p->state[slot] = PROF__PB_FREE;
            prof__par_wake(p);
            pthread_mutex_unlock(&p->lock);
            break;
        }
        prof__par_done(p, &w, slot, w.par_me);
    }
    p->ops->close(ctx);
    return NULL;
}
/* The pool's buffers in one block, of huge pages where libc allocates:
   they are fresh memory at every export, and the 1536 4 KiB pages of the
   pool, first touched while formatting, can cost as much as formatting
   50k events on this VM (a first touch takes microseconds under a
   hypervisor, tens of them on a busy one: 8 MiB took 56-71 ms here, with
   huge pages 0.3 ms; an export of 1M plain events took 719 page faults,
   4 with the pool in huge pages; prof__malloc_huge, shared with
   key_averages). Returns the block to free, or NULL: then the buffers are
   allocated one by one. */
static PROF__NI char *prof__par_pool(prof__par *p) {
    char *block = (char *)prof__malloc_huge(PROF__PAR_NBUF, PROF__PAR_BUF);
    int b;
    if (!block) return NULL;
    for (b = 0; b < PROF__PAR_NBUF; b++) p->buf[b] = block + (size_t)b * PROF__PAR_BUF;
    p->nbuf = PROF__PAR_NBUF;
    return block;
}
/* Writes items [0, n) through two workers (this thread and one more);
   returns 0 when it could not start (then nothing was written). */
static PROF__NI int prof__par_items(prof__w *w, size_t n, const prof__par_ops *ops, const void *proto) {
    prof__par p;
    pthread_t th;
    char *pool;
    int b, ok = 0;
    if (w->fd < 0 || !prof__par_chunk || n < prof__par_min_events || n < 2 * prof__par_chunk || sysconf(_SC_NPROCESSORS_ONLN) < 2) return 0;
    memset(&p, 0, sizeof p);
    if (!(pool = prof__par_pool(&p))) {
        for (b = 0; b < PROF__PAR_NBUF && (p.buf[b] = (char *)PROF__MALLOC(PROF__PAR_BUF)) != NULL; b++) {}
        p.nbuf = b;
    }
    if (p.nbuf >= 2 && pthread_mutex_init(&p.lock, NULL) == 0) {
        if (pthread_cond_init(&p.cv, NULL) == 0) {
            /* what the file's writer holds goes out first */
            prof__w_flush(w);
            if (w->th) prof__w_wait_idle(w);
            ok = 1;
            if (!w->err) {
                p.ops = ops;
                p.proto = proto;
                p.n = n;
                p.fd = w->fd;
                p.chunk = prof__par_chunk;
                p.nchunks = (n + p.chunk - 1) / p.chunk;
                /* our own temporary file, written from its offset now */
#if !defined(PROF__NO_PWRITE)
                p.positional = w->can_redo && !prof__par_stream && (p.end = (int64_t)lseek(w->fd, 0, SEEK_CUR)) >= 0;
#else
                (void)prof__par_stream; (void)prof__par_pwrites;
#endif
                if (!prof__spawn(&th, prof__par_worker, &p)) {
                    ok = 0;
                } else {
                    prof__par_worker(&p);
                    pthread_join(th, NULL);
                    if (!p.err && p.next_chunk == 0) ok = 0; /* neither worker got its context: nothing was written, one thread does it */
                    else if (p.err) w->err = p.err;
                    else if ((p.positional ? p.sized : p.turn) != p.nchunks) w->err = EIO; /* cannot happen: every chunk is written */
                    else if (p.positional && lseek(w->fd, (off_t)p.end, SEEK_SET) != (off_t)p.end) w->err = errno ? errno : EIO; /* the rest goes after them */
                    w->written += p.written;
                }
            }
            pthread_cond_destroy(&p.cv);
        }
        pthread_mutex_destroy(&p.lock);
    }
    if (pool) PROF__FREE(pool);
    else for (b = 0; b < p.nbuf; b++) PROF__FREE(p.buf[b]);
    return ok;
}

/* ----- >>x_writer: output files -----
   Where an export writes: a descriptor (/dev/stdout, /dev/fd/N, or a
   symlink to one), a device, pipe or /proc file (written as it goes), or a
   regular file (a temporary file in the target's directory, synced and
   renamed over the target). The directory is opened once, and the
   temporary file made, synced, renamed and removed against it (openat,
   renameat, unlinkat): another thread's chdir during the export changes
   nothing, and the temporary name need only fit NAME_MAX, not PATH_MAX
   beside a long target. (A file that sets _POSIX_C_SOURCE below 200809L
   before prof.h has no *at calls: the names are then whole paths.) */
#if defined(AT_FDCWD) && defined(AT_EACCESS) && defined(O_DIRECTORY)
#  define PROF__AT 1
#  if defined(O_PATH)
#    define PROF__DIR_FLAGS (O_PATH | O_DIRECTORY | O_CLOEXEC) /* a directory we may not list */
#  else
#    define PROF__DIR_FLAGS (O_RDONLY | O_DIRECTORY | O_CLOEXEC)
#  endif
#else
#  define PROF__AT 0
#endif
typedef struct prof__out {
    prof__w *w;
    const char *path;   /* as the user gave it: the messages' */
    char *target;       /* where a symlink at path points, or NULL */
    int dir;            /* the target's directory (PROF__AT), else -1 */
    char *name;         /* the target's name in dir (a whole path without PROF__AT) */
    char *tmp;          /* the temporary file's, renamed to name at the end */
    int in_place;       /* an existing file written through (no writable directory) */
    int stream;         /* a descriptor, pipe, device or /proc file: written as it goes */
    int plug[3];        /* /dev/null at descriptors 0-2 the host had closed, for the export */
    ino_t plug_ino;     /* its inode: a descriptor the host put there meanwhile stays */
    int cancel_state;   /* the caller's, restored by prof__out_close: an export is
                           not cancelled half-way (its temporary file left, its
                           descriptor leaked); a pending cancel acts after it */
} prof__out;

/* Frees what prof__out_open allocated (any of it may be NULL). */
static PROF__NI void prof__out_free(prof__out *o) {
    int k;
    if (o->w) {
        PROF__FREE(o->w->bufs[0]);
        if (o->w->nbuf > 1) PROF__FREE(o->w->bufs[1]); /* the others' block (prof__w_start_thread) */
        PROF__FREE(o->w);
    }
    if (o->dir >= 0) close(o->dir);
    for (k = 0; k < 3; k++) {
        struct stat st;
        /* still ours: another thread of the host may have set its own
           stderr there meanwhile (freopen, dup2), which stays open */
        if (o->plug[k] >= 0 && fstat(o->plug[k], &st) == 0 && S_ISCHR(st.st_mode) && st.st_ino == o->plug_ino) close(o->plug[k]);
    }
    PROF__FREE(o->tmp);
    PROF__FREE(o->name);
    PROF__FREE(o->target);
    o->w = NULL;
    o->dir = o->plug[0] = o->plug[1] = o->plug[2] = -1;
    o->tmp = o->name = o->target = NULL;
}

/* The calls on a name in the target's directory. */
static int prof__out_openat(const prof__out *o, const char *name, int flags, mode_t mode) {
#if PROF__AT
    return openat(o->dir, name, flags | O_CLOEXEC, mode);
#else
    (void)o;
    return open(name, flags | O_CLOEXEC, mode);
#endif
}
static int prof__out_unlinkat(const prof__out *o, const char *name) {
#if PROF__AT
    return unlinkat(o->dir, name, 0);
#else
    (void)o;
    return unlink(name);
#endif
}
static int prof__out_renameat(const prof__out *o, const char *from, const char *to) {
#if PROF__AT
    return renameat(o->dir, from, o->dir, to);
#else
    (void)o;
    return rename(from, to);
#endif
}
/* 0 if the effective user may write the file (as open(2) decides), else -1 */
static int prof__out_writable(const prof__out *o, const char *name) {
#if PROF__AT
    return faccessat(o->dir, name, W_OK, AT_EACCESS);
#else
    (void)o;
    return access(name, W_OK);
#endif
}
static int prof__out_stat(const prof__out *o, const char *name, struct stat *st) {
#if PROF__AT
    return fstatat(o->dir, name, st, 0);
#else
    (void)o;
    return stat(name, st);
#endif
}

/* The descriptor that /dev/stdout, /dev/stderr, /dev/fd/N, /proc/self/fd/N,
   /proc/thread-self/fd/N or /proc/<this process>/fd/N names (also spelled
   with "//" or "/./"), else -1. Written through a duplicate of it, so a
   redirect keeps its offset (and >>). */
static PROF__NI int prof__fd_path(const char *path) {
    char p[64], own[40];
    const char *n = NULL;
    size_t k = 0;
    if (path[0] != '/') return -1;
    for (; *path; path++) { /* "//" and "/./" made "/" */
        if (*path == '/' && k && p[k - 1] == '/') continue;
        if (*path == '.' && k && p[k - 1] == '/' && (path[1] == '/' || !path[1])) continue;
        if (k + 1 >= sizeof p) return -1;
        p[k++] = *path;
    }
    p[k] = 0;
    if (strcmp(p, "/dev/stdout") == 0) return 1;
    if (strcmp(p, "/dev/stderr") == 0) return 2;
    snprintf(own, sizeof own, "/proc/%ld/fd/", (long)getpid());
    if (strncmp(p, "/dev/fd/", 8) == 0) n = p + 8;
    else if (strncmp(p, "/proc/self/fd/", 14) == 0) n = p + 14;
    else if (strncmp(p, "/proc/thread-self/fd/", 21) == 0) n = p + 21;
    else if (strncmp(p, own, strlen(own)) == 0) n = p + strlen(own);
    if (n && *n >= '0' && *n <= '9') {
        char *end;
        long v = strtol(n, &end, 10);
        if (!*end && v >= 0 && v < 1 << 20) return (int)v;
    }
    return -1;
}

/* Where a symlink at path leads, followed link by link as open(2) would,
   also when the last one dangles (the file is created where it points);
   NULL with *err = 0 when path is no symlink, with *err set on a loop or
   an unreadable link. A link that leads to a descriptor's name (a log
   file linked to /dev/stdout, as containers do) stops there: *fd is that
   descriptor (else -1), the way such a name is written. */
static PROF__NI char *prof__follow_links(const char *path, int *err, int *fd) {
    char *cur = NULL, *next;
    const char *at = path;
    int hops;
    *err = 0;
    *fd = -1;
    for (hops = 0; hops < 40; hops++) {
        struct stat st;
        char link[4096];
        ssize_t n;
        size_t dir = 0, k;
        if (at != path && (*fd = prof__fd_path(at)) >= 0) return cur;
        if (lstat(at, &st) != 0 || !S_ISLNK(st.st_mode)) return cur;
        if ((n = readlink(at, link, sizeof link)) < 0 || (size_t)n == sizeof link) { /* a full buffer may be cut short */
            *err = n < 0 ? errno : ENAMETOOLONG;
            PROF__FREE(cur);
            return NULL;
        }
        link[n] = 0;
        if (link[0] != '/') /* relative to the link's directory */
            for (k = 0; at[k]; k++) if (at[k] == '/') dir = k + 1;
        next = (char *)PROF__MALLOC(dir + (size_t)n + 1);
        if (!next) { *err = ENOMEM; PROF__FREE(cur); return NULL; }
        memcpy(next, at, dir);
        memcpy(next + dir, link, (size_t)n + 1);
        PROF__FREE(cur);
        at = cur = next;
    }
    *err = ELOOP;
    PROF__FREE(cur);
    return NULL;
}

/* 1 if path is a file of /proc (or, new, would be one): written in place,
   since /proc makes no new files. Decided by the file system, not the
   name: /proc/self/cwd/x and /proc/self/root/x are ordinary files. */
static PROF__NI int prof__on_procfs(const char *path) {
#if defined(__linux__)
    struct statfs sf;
    char *dir;
    size_t k, cut = 0;
    int by_name = strncmp(path, "/proc/", 6) == 0, r; /* where statfs cannot tell */
    if (statfs(path, &sf) == 0) return sf.f_type == 0x9fa0; /* PROC_SUPER_MAGIC */
    if (errno != ENOENT) return by_name;
    for (k = 0; path[k]; k++) if (path[k] == '/') cut = k; /* not there: its directory */
    if (!cut) return 0;
    if (!(dir = (char *)PROF__MALLOC(cut + 1))) return by_name;
    memcpy(dir, path, cut);
    dir[cut] = 0;
    r = statfs(dir, &sf) == 0 ? sf.f_type == 0x9fa0 : by_name;
    PROF__FREE(dir);
    return r;
#else
    return strncmp(path, "/proc/", 6) == 0;
#endif
}

/* The writer and its first buffer (the others come with the writer
   thread, optional: none, no thread); 0, or -1 without memory. */
static PROF__NI int prof__out_alloc(prof__out *o) {
    o->w = (prof__w *)PROF__MALLOC(sizeof(prof__w));
    if (!o->w) return -1;
    memset(o->w, 0, sizeof *o->w);
    if (!(o->w->bufs[0] = (char *)PROF__MALLOC(PROF__W_CHUNK))) return -1;
    o->w->nbuf = 1;
    o->w->buf = o->w->bufs[0];
    o->w->cap = PROF__W_CHUNK;
    o->w->fd = -1;
    return 0;
}
/* fd, or, if it is one of 0-2 (the host closed them and /dev/null could
   not hold them: see prof__out_open), a duplicate above them, the low one
   closed: what the host or a log writes to stderr meanwhile must not land
   in an export's files. -1 with errno if no descriptor is left. */
static PROF__NI int prof__fd_high(int fd) {
    int high, why;
    if (fd > 2) return fd;
    high = fcntl(fd, F_DUPFD_CLOEXEC, 3);
    why = errno;
    close(fd);
    errno = why;
    return high;
}
/* o->dir and o->name for target: its directory opened (PROF__AT) and its
   last component; 0, or the errno. */
static PROF__NI int prof__out_dir(prof__out *o, const char *target) {
    size_t k, cut = 0, len = strlen(target);
    int slash = 0;
    for (k = 0; k < len; k++) if (target[k] == '/') { cut = k + 1; slash = 1; }
#if PROF__AT
    {
        char *dir = (char *)PROF__MALLOC(cut + 2);
        if (!dir) return ENOMEM;
        if (!slash) memcpy(dir, ".", 2);
        else { memcpy(dir, target, cut); dir[cut] = 0; } /* "/x" -> "/" */
        while ((o->dir = open(dir, PROF__DIR_FLAGS)) < 0 && errno == EINTR) {}
        PROF__FREE(dir);
        if (o->dir < 0 || (o->dir = prof__fd_high(o->dir)) < 0) return errno;
    }
    if (!(o->name = prof__strdup(target + cut))) return ENOMEM;
#else
    (void)slash;
    (void)cut;
    if (!(o->name = prof__strdup(target))) return ENOMEM;
#endif
    return 0;
}
/* A regular file (or a new one): written under a temporary name in the
   same directory, renamed over the target by prof__out_end; a symlink to
   one gets the new file where it points. A new file gets fopen's mode; one
   that replaces a file, its mode and (where allowed) its owner. A file
   the user may not write is not replaced (EACCES, as open(2) says). O_EXCL:
   never through something already at the temporary name (a stale file, a
   planted link). A file that is writable in a directory that is not is
   written in place, and emptied if the export fails. Returns 0 when
   o->w->fd is open, else the errno for the message. */
static PROF__NI int prof__out_open_file(prof__out *o, const char *target) {
    static unsigned counter;
    const char *base;
    struct stat st;
    int err, have_old, tries = 0;
    size_t len, pre;
    unsigned n;
    if ((err = prof__out_dir(o, target)) != 0) return err;
    if (prof__out_stat(o, o->name, &st) == 0) have_old = S_ISREG(st.st_mode);
    else if (errno == ENAMETOOLONG) return ENAMETOOLONG; /* a name past NAME_MAX: the rename would fail after the whole file */
    else have_old = 0;
    if (have_old && prof__out_writable(o, o->name) != 0) return errno;
    base = strrchr(o->name, '/');
    base = base ? base + 1 : o->name;
    pre = (size_t)(base - o->name); /* the directory part (without PROF__AT) */
    len = strlen(o->name) + 48;
    if (!(o->tmp = (char *)PROF__MALLOC(len))) return ENOMEM;
    do {
        /* a count, and after a name that was taken a clock's bits: a
           container's program has the same pid in every run, and the
           temporary files of runs killed mid-export stay */
        n = __atomic_fetch_add(&counter, 1u, __ATOMIC_RELAXED);
        if (tries) n += (unsigned)((uint64_t)prof__mono_ns() * 2654435761u >> 7) & 0xffffffu;
        if (strlen(base) + 32 <= 255) { /* NAME_MAX: name.json.tmp<pid>.<n> shows what it is */
            snprintf(o->tmp, len, "%s.tmp%ld.%u", o->name, (long)getpid(), n);
        } else { /* a long name: a short one in the same directory */
            snprintf(o->tmp, len, "%.*s.prof%ld.%u.tmp", (int)pre, o->name, (long)getpid(), n);
        }
        o->w->fd = prof__out_openat(o, o->tmp, O_WRONLY | O_CREAT | O_EXCL, have_old ? 0600 : 0666);
        /* a signal that ends the open (a network or FUSE file system, a
           handler without SA_RESTART) is no failure: the name may have
           been made before it came, so it goes, and the next is tried */
        if (o->w->fd < 0 && errno == EINTR) {
            prof__out_unlinkat(o, o->tmp);
            errno = EINTR;
        }
    } while (o->w->fd < 0 && (errno == EINTR || (errno == EEXIST && ++tries < 16)));
    o->w->can_redo = o->w->fd >= 0;
    if (o->w->fd >= 0 && have_old) {
        if (fchmod(o->w->fd, st.st_mode & 07777) != 0) /* (made 0600: no one else reads it before it has the old file's owner) */
            prof__report(PROF_LOG_WARNING, PROF_E_IO, "could not give the new '%s' the mode %04o of the file it replaces: %s; it will be 0600", o->name, (unsigned)(st.st_mode & 07777), strerror(errno));
        if (fchown(o->w->fd, st.st_uid, st.st_gid) != 0) {}
    }
    if (o->w->fd < 0 && have_old && (errno == EACCES || errno == EPERM || errno == EROFS)) {
        PROF__FREE(o->tmp);
        o->tmp = NULL;
        o->in_place = 1;
        while ((o->w->fd = prof__out_openat(o, o->name, O_WRONLY | O_TRUNC, 0)) < 0 && errno == EINTR) {}
    }
    return o->w->fd < 0 ? errno : 0;
}
/* The JSON formats refuse a path ending in ".gz": their readers go by the
   name (TensorBoard's plugin and HTA gunzip "x.json.gz"), so plain bytes
   under it would fail there, after the export said OK. (pprof's readers
   look at the bytes: "profile.pb.gz" is read as it is.) */
static PROF__NI prof_result prof__out_json_name(const char *path, const char *who) {
    size_t n = path ? strlen(path) : 0;
    if (n > 3 && strcmp(path + n - 3, ".gz") == 0)
        return prof__report(PROF_LOG_ERROR, PROF_E_ARG, "%s: '%s' ends in .gz, but prof.h writes JSON uncompressed (it depends on no zlib): write '%.*s' and gzip it", who, path, (int)(n - 3 < 4096 ? n - 3 : 4096), path);
    return PROF_OK;
}
static PROF__NI prof_result prof__out_open(prof__out *o, const char *path, const char *who) {
    struct stat st;
    int fd, err = 0;
    prof_result rc;
    memset(o, 0, sizeof o[0]);
    o->dir = o->plug[0] = o->plug[1] = o->plug[2] = -1;
    if (!path || !path[0]) return prof__report(PROF_LOG_ERROR, PROF_E_ARG, "%s: no output path given", who);
    pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &o->cancel_state);
    if (prof__out_alloc(o) != 0) {
        prof__out_free(o);
        rc = prof__report(PROF_LOG_ERROR, PROF_E_NOMEM, "%s: out of memory", who);
        pthread_setcancelstate(o->cancel_state, NULL);
        return rc;
    }
    o->path = path;
    /* Standard descriptors the host closed get /dev/null while the export
       lasts: else the export's own files (opened at the lowest free
       descriptor) would be "stderr", and what another thread or a log
       writes there meanwhile would land in the middle of the file. */
    for (fd = 0; fd < 3; fd++)
        if (fcntl(fd, F_GETFD) < 0 && errno == EBADF) {
            int k = open("/dev/null", O_RDWR | O_CLOEXEC);
            struct stat null_st;
            if (k >= 0 && k > 2) { close(k); break; } /* (another thread took it) */
            if (k >= 0) o->plug[k] = k;
            if (k >= 0 && fstat(k, &null_st) == 0) o->plug_ino = null_st.st_ino;
        }
    /* Descriptors, devices, pipes and files of /proc are written in place:
       renaming over them would replace the node (and /proc refuses new
       files). Regular files, /dev/shm's included, get a temporary name and
       a rename. */
    if ((fd = prof__fd_path(path)) < 0 && !(o->target = prof__follow_links(path, &err, &fd)) && err) {
        /* (a loop, an unreadable link, no memory: said below) */
    } else if (fd >= 0 && fd < 3 && o->plug[fd] >= 0) {
        err = EBADF; /* a standard descriptor the host closed */
    } else if (fd >= 0) {
        o->stream = 1;
        /* what the host printed before comes first (not where the
           descriptor is closed: the host may have closed its stream too) */
        if ((fd == 1 || fd == 2) && fcntl(fd, F_GETFD) >= 0) {
            /* with SIGPIPE held: a reader gone raised it here, at the
               host's bytes, and ended the host before the export could
               say EPIPE (its own write says it: the flush's failure is
               not reported twice) */
            prof__sig_guard g;
            prof__sig_hold(&g);
            prof__sig_release(&g, prof__flush_host(fd == 1 ? stdout : stderr, fd));
        }
        if ((o->w->fd = fcntl(fd, F_DUPFD_CLOEXEC, 3)) < 0) err = errno;
    } else if (prof__on_procfs(path) || (stat(path, &st) == 0 && !S_ISREG(st.st_mode))) {
        /* a FIFO's open waits for its reader: a signal's handler (no
           SA_RESTART) ends that wait with EINTR, which is no failure */
        o->stream = 1;
        while ((o->w->fd = open(path, O_WRONLY | O_CLOEXEC)) < 0 && errno == EINTR) {}
        if (o->w->fd < 0) err = errno;
    } else {
        err = prof__out_open_file(o, o->target ? o->target : path);
    }
    if (!err && (o->w->fd = prof__fd_high(o->w->fd)) < 0) {
        err = errno;
        if (o->tmp) prof__out_unlinkat(o, o->tmp); /* (ours: just made) */
    }
    if (err) {
        prof__out_free(o);
        if (err == ENOMEM) rc = prof__report(PROF_LOG_ERROR, PROF_E_NOMEM, "%s: out of memory", who);
        else rc = prof__report(PROF_LOG_ERROR, PROF_E_IO, "%s: cannot create '%s': %s", who, path, strerror(err));
        pthread_setcancelstate(o->cancel_state, NULL);
        return rc;
    }
    return PROF_OK;
}
/* A file's bytes reach its disk before the rename makes it the target:
   after a crash the target is the old file or the new one whole (not an
   empty or partly written one, which some file systems leave of a file
   renamed before its data was written); and a write error the file system
   reports only at writeback (NFS, quotas, thin disks) fails the export
   instead of replacing a good file. Where there is nothing to sync
   (EINVAL, EROFS, ENOTSUP: a special file) it is no error. 0 or the errno. */
static PROF__NI int prof__out_sync(int fd) {
    while (fsync(fd) != 0) {
        if (errno == EINTR) continue;
        return errno != EINVAL && errno != EROFS && errno != ENOTSUP ? errno : 0;
    }
    return 0;
}
/* The finished temporary file's bytes copied over the target, when the
   rename was refused (EPERM, EACCES: another user's file in a sticky
   directory such as /tmp, which we may write but not replace), as open(2)
   would write it; the temporary file goes either way. 0 or the errno (the
   target then emptied: o->in_place); `why`, the rename's, where there is
   no target to write over. */
static PROF__NI void prof__out_empty(prof__out *o);
static PROF__NI int prof__out_copy_over(prof__out *o, int why) {
    int in, out, err = 0;
    if (prof__out_writable(o, o->name) != 0) return errno == ENOENT ? why : errno;
    while ((out = prof__out_openat(o, o->name, O_WRONLY | O_TRUNC, 0)) < 0 && errno == EINTR) {}
    if (out < 0) return errno;
    o->in_place = 1;
    while ((in = prof__out_openat(o, o->tmp, O_RDONLY, 0)) < 0 && errno == EINTR) {}
    if (in < 0) err = errno;
    while (!err) {
        ssize_t k = read(in, o->w->bufs[0], PROF__W_CHUNK);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) { err = k < 0 ? errno : 0; break; }
        if ((err = prof__write_all(out, o->w->bufs[0], (size_t)k)) != 0) break;
    }
    if (in >= 0) close(in);
    if (!err) err = prof__out_sync(out);
    if (err) while (ftruncate(out, 0) != 0 && errno == EINTR) {}
    if (close(out) != 0 && errno != EINTR && !err) {
        err = errno;
        prof__out_empty(o);
    }
    return err;
}
/* A file written in place emptied by its name, after its descriptor's
   close failed (a network file system's flush: EIO, ENOSPC) with all its
   bytes in it: what stays must not look complete. */
static PROF__NI void prof__out_empty(prof__out *o) {
    int fd;
    while ((fd = prof__out_openat(o, o->name, O_WRONLY | O_TRUNC, 0)) < 0 && errno == EINTR) {}
    if (fd >= 0) close(fd);
}
/* prof__out_close's work: the file finished (renamed into place, or
   removed), the writer freed, the error reported. */
static PROF__NI prof_result prof__out_end(prof__out *o, const char *who) {
    int err;
    prof_result rc;
    prof__w_finish(o->w);
    err = o->w->err;
    if (!err && !o->stream) err = prof__out_sync(o->w->fd);
    if (err && o->in_place) /* nothing that looks complete (also after a failed sync) */
        while (ftruncate(o->w->fd, 0) != 0 && errno == EINTR) {}
    /* close is never retried: Linux frees the descriptor whatever it
       says. EINTR (a signal during a network file system's flush) says
       nothing of the bytes, which write(2) all took; EIO or ENOSPC does */
    if (close(o->w->fd) != 0 && errno != EINTR && !err) {
        err = errno;
        if (o->in_place) prof__out_empty(o);
    }
    if (!err && o->tmp && prof__out_renameat(o, o->tmp, o->name) != 0) {
        err = errno;
        if (err == EPERM || err == EACCES) err = prof__out_copy_over(o, err);
    }
    if (o->tmp && (err || o->in_place)) prof__out_unlinkat(o, o->tmp);
    prof__out_free(o);
    if (!err) return PROF_OK;
    if (err < 0) err = EIO; /* PROF__W_REDO that was never redone: cannot happen, but never "Unknown error -1" */
    /* out of memory (a format's own, or its writer's) is PROF_E_NOMEM, one message */
    rc = err == ENOMEM ? PROF_E_NOMEM : PROF_E_IO;
    if (o->in_place)
        return prof__report(PROF_LOG_ERROR, rc, "%s: writing '%s' in place (its directory is not writable, or refused to replace it) failed: %s; the file was emptied", who, o->path, strerror(err));
    if (o->stream)
        return prof__report(PROF_LOG_ERROR, rc, "%s: writing to '%s' failed: %s; what was written before the error was sent and the rest was dropped (a pipe, descriptor or device is written as it goes)", who, o->path, strerror(err));
    return prof__report(PROF_LOG_ERROR, rc, "%s: writing '%s' failed: %s; the file was not replaced (a file already there is unchanged)", who, o->path, strerror(err));
}
static PROF__NI prof_result prof__out_close(prof__out *o, const char *who) {
    int cancel_state = o->cancel_state;
    prof_result rc = prof__out_end(o, who);
    pthread_setcancelstate(cancel_state, NULL); /* (a pending cancel acts from here) */
    return rc;
}

/* ----- >>x_options: export options (prof_events_set_export_options) -----
   Source paths are cut in the exporters only: the tables' Source Location
   and prof_event.stack stay as recorded, as PyTorch prints them. */
PROF_API prof_result prof_events_set_export_options(prof_events *e, const prof_export_options *opt) {
    prof_export_options o;
    char *copy = NULL;
    if (!e) return prof__report(PROF_LOG_ERROR, PROF_E_ARG, "prof_events_set_export_options: the event list is NULL");
    memset(&o, 0, sizeof o);
    if (opt) o = *opt;
    if (o.args != PROF_ARGS_FULL && o.args != PROF_ARGS_LIGHT)
        return prof__report(PROF_LOG_ERROR, PROF_E_ARG, "prof_events_set_export_options: args %d is not PROF_ARGS_FULL or PROF_ARGS_LIGHT", (int)o.args);
    /* the prefix copied, the old one freed: set again and again, the list does not grow */
    if (o.source_prefix && !(copy = prof__strdup(o.source_prefix)))
        return prof__report(PROF_LOG_ERROR, PROF_E_NOMEM, "prof_events_set_export_options: out of memory");
    o.source_prefix = copy;
    PROF__FREE(e->xprefix);
    e->xprefix = copy;
    e->xopt = o;
    return PROF_OK;
}
static PROF__NI void prof__pp_split(const char *f, size_t *name_len, const char **file, size_t *file_len, int64_t *line);
/* An export's view of the source paths: the prefix cut, and each stack
   node's frame with it cut (made once, before any writing thread starts,
   then only read). */
typedef struct prof__xpaths {
    const char *prefix;
    size_t len;                /* 0: paths as recorded */
    const char **node;         /* per stack node: its frame, cut; NULL when len is 0 */
    prof__map of;              /* frame address -> a node with that frame */
    prof__strtab strs;
    prof__arena arena;
} prof__xpaths;
/* How many bytes of path (n bytes) the prefix takes: 0 unless the path
   starts with it at a directory boundary and goes on after it. */
static PROF__NI size_t prof__xp_cut(const prof__xpaths *xp, const char *path, size_t n) {
    size_t k = xp->len;
    if (!k || n <= k || memcmp(path, xp->prefix, k) != 0) return 0;
    if (xp->prefix[k - 1] != '/') {
        if (path[k] != '/') return 0;
        k++;
    }
    return k < n ? k : 0;
}
static PROF__NI const char *prof__xp_path(const prof__xpaths *xp, const char *path) {
    return path ? path + prof__xp_cut(xp, path, strlen(path)) : path;
}
/* The prefix: the option's, else the longest common directory of the
   sites' files (up to and with its last '/'). */
static PROF__NI void prof__xp_prefix(prof__xpaths *xp, const prof_events *e) {
    const char *first = NULL;
    size_t i, n = 0;
    if (e->xopt.source_prefix) { xp->prefix = e->xopt.source_prefix; xp->len = strlen(xp->prefix); return; }
    for (i = 0; i < e->nsites; i++) {
        const char *f = e->sites[i].file;
        size_t k = 0;
        if (!f || !f[0]) continue;
        /* not prof.h's own ProfilerStep# site ("prof.h", line 0): it is
           in none of the user's directories */
        if (e->sites[i].line == 0 && strcmp(f, "prof.h") == 0 && strncmp(e->sites[i].name, "ProfilerStep", 12) == 0) continue;
        if (!first) { first = f; n = strlen(f); continue; }
        while (k < n && f[k] == first[k]) k++;
        n = k;
    }
    while (n > 0 && first[n - 1] != '/') n--;
    xp->prefix = first;
    xp->len = n;
}
/* A frame "name (file:line)" with the prefix cut from its file; other
   frames (native ones) as they are. NULL when out of memory. */
static PROF__NI const char *prof__xp_cut_frame(prof__xpaths *xp, const char *f) {
    const char *file;
    size_t name_len, file_len, cut, head;
    int64_t line;
    prof__buf b;
    const char *r;
    prof__pp_split(f, &name_len, &file, &file_len, &line);
    if (!file_len || !(cut = prof__xp_cut(xp, file, file_len))) return f;
    head = (size_t)(file - f);
    memset(&b, 0, sizeof b);
    prof__buf_put(&b, f, head);
    prof__buf_str(&b, file + cut);
    r = b.oom ? NULL : prof__intern_n(&xp->strs, b.p, b.n);
    PROF__FREE(b.p);
    return r;
}
static PROF__NI int prof__xp_init(prof__xpaths *xp, const prof_events *e) {
    size_t n;
    memset(xp, 0, sizeof *xp);
    xp->strs.arena = &xp->arena;
    prof__xp_prefix(xp, e);
    if (!xp->len || e->nnodes < 2) return 0;
    if (!(xp->node = PROF__ALLOC(const char *, e->nnodes))) return -1;
    xp->node[0] = NULL;
    for (n = 1; n < e->nnodes; n++) {
        const char *f = e->nodes[n].frame;
        int found;
        uint32_t *slot = prof__map_slot(&xp->of, (uint64_t)(uintptr_t)f, &found);
        if (!slot) return -1;
        if (found) { xp->node[n] = xp->node[*slot]; continue; }
        *slot = (uint32_t)n;
        if (!(xp->node[n] = prof__xp_cut_frame(xp, f))) return -1;
    }
    return 0;
}
static PROF__NI void prof__xp_free(prof__xpaths *xp) {
    PROF__FREE(xp->node);
    prof__map_free(&xp->of);
    prof__strtab_free(&xp->strs);
    prof__arena_free(&xp->arena);
}
/* Node n's frame / a frame of a node, as the export writes it. */
static __inline__ const char *prof__xp_node(const prof__xpaths *xp, const prof_events *e, uint32_t n) {
    return xp->node ? xp->node[n] : prof__node_frame(e, n);
}
static PROF__NI const char *prof__xp_frame(const prof__xpaths *xp, const char *f) {
    uint32_t n;
    if (!xp->node) return f;
    n = prof__map_get(&xp->of, (uint64_t)(uintptr_t)f);
    return n == UINT32_MAX ? f : xp->node[n];
}

/* ----- >>x_common: what every format reads of an event -----
   Its category, its lane (device stream or thread), its stack as an array,
   the process's name; the list's span. */
/* The times the list covers, ns from the session's start: [*t0, *t1] holds
   every event, mark, counter sample and memory record, and with `start` 0
   (the session's start). A list of events only (none at all: [0, 0]). */
static PROF__NI void prof__list_span(const prof_events *e, int start, int64_t *t0, int64_t *t1) {
    const int from0 = start || !(e->n + e->ninst + e->nmem);
    size_t i;
    *t0 = from0 ? 0 : INT64_MAX;
    *t1 = from0 ? 0 : INT64_MIN;
    for (i = 0; i < e->n; i++) {
        if (e->ev[i].start < *t0) *t0 = e->ev[i].start;
        if (e->ev[i].end > *t1) *t1 = e->ev[i].end;
    }
    for (i = 0; i < e->ninst; i++) {
        if (e->inst[i].ts < *t0) *t0 = e->inst[i].ts;
        if (e->inst[i].ts > *t1) *t1 = e->inst[i].ts;
    }
    for (i = 0; i < e->nmem; i++) {
        if (e->mem[i].ts < *t0) *t0 = e->mem[i].ts;
        if (e->mem[i].ts > *t1) *t1 = e->mem[i].ts;
    }
}
/* Kineto's category of an event, as an index into its names; then those
   the JSON gives its async pairs, counters and memory records (the Perfetto
   trace gives each event the JSON's category, interned with iid index + 1). */
static const char *const prof__pft_cats[] = { "user_annotation", "cpu_op", "kernel", "gpu_memcpy", "gpu_memset", "cuda_sync", "cuda_runtime", "cuda_driver",
                                               "blink.user_timing", "counter", "cpu_instant_event" };
enum { PROF__CAT_ASYNC = 8, PROF__CAT_COUNTER, PROF__CAT_MEMORY };
static PROF__NI unsigned prof__pft_cat(unsigned f, int on_cpu) {
    if (f & PROF_SITE_GPU_KERNEL) return 2;
    if (f & PROF_SITE_GPU_MEMCPY) return 3;
    if (f & PROF_SITE_GPU_MEMSET) return 4;
    if (f & PROF_SITE_CUDA_SYNC) return 5;
    if (f & PROF_SITE_CUDA_RUNTIME) return 6;
    if (f & PROF_SITE_CUDA_DRIVER) return 7;
    if (!on_cpu) return 2;
    return (f & PROF_SITE_CPU_OP) ? 1 : 0;
}
/* Kineto's "cat" for an event of a site with flags f. */
static PROF__NI void prof__w_category(prof__w *w, unsigned f, int on_cpu) {
    prof__w_str(w, prof__pft_cats[prof__pft_cat(f, on_cpu)]);
}
static PROF__NI void prof__process_name(char *out, size_t n) {
    size_t k = prof__read_small("/proc/self/comm", out, n);
    while (k && (out[k - 1] == '\n' || out[k - 1] == '\r')) k--;
    out[k] = 0;
    if (!k) snprintf(out, n, "process %ld", (long)getpid());
}

/* device_resource_id: the stream, or the thread when none was given */
static PROF__NI int64_t prof__stream_of(const prof_events *e, const prof__ev *v) {
    const prof__extra *x = prof__x(e, v);
    return x->has_resource ? x->resource_id : (int64_t)e->thr[v->thread].tid;
}
/* The trace's tid of a device event's lane before prof__trace_streams:
   a thread's as written (prof__thr.tid_w), a stream as given. */
static PROF__NI int64_t prof__stream_tid_raw(const prof_events *e, const prof__ev *v) {
    const prof__extra *x = prof__x(e, v);
    return x->has_resource ? x->resource_id : (int64_t)e->thr[v->thread].tid_w;
}
/* Whether a lane's id is written as it is: 0 to INT32_MAX, or -1 (Kineto
   writes the context-wide sync lane as -1). Perfetto's JSON importer reads
   tid as a uint32 (every negative one as 0) and JavaScript viewers as a
   double, so two streams past that range would share a track there. */
#define PROF__TID_FITS(t) ((t) >= -1 && (t) <= (int64_t)INT32_MAX)
/* The trace's tid of a device event's lane: a stream that does not fit
   takes the id prof__trace_streams gave it (sw: stream -> id). */
static PROF__NI int64_t prof__stream_tid(const prof_events *e, const prof__ev *v, const prof__map *sw) {
    int64_t t = prof__stream_tid_raw(e, v);
    return PROF__TID_FITS(t) ? t : (int64_t)prof__map_get(sw, (uint64_t)t);
}
/* A device event's lane, (device index, stream), in a map of lanes: the
   map holds an event of each lane as its value, keyed by the pair's hash
   and told apart by the pair itself, so two lanes stay two whatever their
   numbers. The lane's slot (the caller may put another event of the same
   lane there), *found saying whether it was there; NULL without memory. */
typedef struct prof__lanekey { const prof_events *e; int32_t dev; int64_t stream; } prof__lanekey;
static PROF__NI int prof__lane_same(const void *key, uint32_t v) {
    const prof__lanekey *k = (const prof__lanekey *)key;
    const prof__ev *u = &k->e->ev[v];
    return prof__x(k->e, u)->device_index == k->dev && prof__stream_of(k->e, u) == k->stream;
}
static PROF__NI uint32_t *prof__lane_slot(prof__map *m, const prof_events *e, uint32_t i, int *found) {
    prof__lanekey k;
    uint64_t h;
    uint32_t *slot;
    k.e = e;
    k.dev = prof__x(e, &e->ev[i])->device_index;
    k.stream = prof__stream_of(e, &e->ev[i]);
    h = prof__mix((uint64_t)k.stream ^ prof__mix((uint64_t)(uint32_t)k.dev ^ 0x1a4eu));
    if ((slot = prof__map_find_slot(m, h, prof__lane_same, &k)) != NULL) { *found = 1; return slot; }
    *found = 0;
    if (!prof__map_add(m, h, i)) return NULL;
    return prof__map_find_slot(m, h, prof__lane_same, &k);
}

/* Event i's stack for the exporters: its node in the list's stack tree
   (0: none; equal stacks have equal nodes) and its frames innermost first,
   from the arrays prof__nodes_flatten made before the export began. */
typedef struct prof__frames { const char *const *p; int32_t depth; uint32_t node; } prof__frames;
static PROF__NI prof__frames prof__pft_frames(const prof_events *e, size_t i) {
    prof__frames f;
    f.node = prof__stack_node(e, i);
    f.p = f.node ? (const char *const *)e->nodes[f.node].arr : NULL;
    f.depth = f.p ? prof__node_depth(e, f.node) : 0;
    if (!f.p) f.node = 0;
    return f;
}

/* correlation -> the CPU event of the API call that launched the device
   work (a runtime call over the driver call inside it); 0, or -1 without
   memory. */
static PROF__NI int prof__api_calls(const prof_events *e, prof__map *api) {
    size_t i;
    for (i = 1; i < e->nex && !e->ex[i].correlation; i++) {}
    if (i >= e->nex) return 0; /* no extra has a correlation (CUPTI's): no pass over the events (48 MB at 1M) */
    for (i = 0; i < e->n; i++) {
        const prof__ev *v = &e->ev[i];
        int found;
        uint32_t *slot;
        if (!v->extra || !prof__x(e, v)->correlation || v->device_type != PROF_DEVICE_CPU) continue;
        if (!(slot = prof__map_slot(api, prof__x(e, v)->correlation, &found))) return -1;
        if (!found || (e->sites[v->site].flags & PROF_SITE_CUDA_RUNTIME)) *slot = (uint32_t)i;
    }
    return 0;
}

/* The correlation of device event v when it gets an arrow from the API
   call that launched it, else 0: the one rule of the JSON trace's and the
   Perfetto trace's flows (CUDA's synchronization records, annotations of
   their own, get none). */
static PROF__NI uint32_t prof__flow_corr(const prof_events *e, const prof__ev *v, const prof__map *api) {
    uint32_t corr;
    if (v->device_type == PROF_DEVICE_CPU || !v->extra || (v->flags & PROF__F_USER_ANN) || (e->sites[v->site].flags & PROF_SITE_CUDA_SYNC)) return 0;
    corr = prof__x(e, v)->correlation;
    return corr && prof__map_get(api, corr) != UINT32_MAX ? corr : 0;
}

/* ----- >>x_meta: metadata (add_metadata / add_metadata_json) ----- */

/* Skips one JSON value; returns NULL if s does not start with one. */
static PROF__NI const char *prof__json_skip_ws(const char *s) { while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r') s++; return s; }
static PROF__NI const char *prof__json_value(const char *s, int depth) {
    s = prof__json_skip_ws(s);
    if (*s == '"') {
        s++;
        while (*s != '"') {
            if ((unsigned char)*s < 0x20) return NULL;
            if (*s == '\\') {
                s++;
                if (*s == 'u') { int i; for (i = 1; i <= 4; i++) if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f') || (s[i] >= 'A' && s[i] <= 'F'))) return NULL; s += 4; }
                else if (!strchr("\"\\/bfnrt", *s) || !*s) return NULL;
                s++;
            } else if ((unsigned char)*s >= 0x80) {
                int n = prof__utf8_len((const unsigned char *)s);
                if (!n) return NULL;
                s += n;
            } else s++;
        }
        return s + 1;
    }
    if (*s == '{' || *s == '[') {
        char close = *s == '{' ? '}' : ']';
        int obj = *s == '{';
        if (depth >= 64) return NULL; /* 64 levels of arrays and objects: [[...]] 64 deep */
        s = prof__json_skip_ws(s + 1);
        if (*s == close) return s + 1;
        for (;;) {
            if (obj) {
                if (*(s = prof__json_skip_ws(s)) != '"' || !(s = prof__json_value(s, depth + 1))) return NULL;
                s = prof__json_skip_ws(s);
                if (*s++ != ':') return NULL;
            }
            if (!(s = prof__json_value(s, depth + 1))) return NULL;
            s = prof__json_skip_ws(s);
            if (*s == ',') { s++; continue; }
            if (*s == close) return s + 1;
            return NULL;
        }
    }
    if (strncmp(s, "true", 4) == 0) return s + 4;
    if (strncmp(s, "false", 5) == 0) return s + 5;
    if (strncmp(s, "null", 4) == 0) return s + 4;
    {
        const char *st = s;
        if (*s == '-') s++;
        if (*s == '0') s++;
        else if (*s >= '1' && *s <= '9') while (*s >= '0' && *s <= '9') s++;
        else return NULL;
        if (*s == '.') { s++; if (!(*s >= '0' && *s <= '9')) return NULL; while (*s >= '0' && *s <= '9') s++; }
        if (*s == 'e' || *s == 'E') { s++; if (*s == '+' || *s == '-') s++; if (!(*s >= '0' && *s <= '9')) return NULL; while (*s >= '0' && *s <= '9') s++; }
        return s > st ? s : NULL;
    }
}
PROF_API int prof_json_valid(const char *json) {
    const char *e;
    if (!json) return 0;
    e = prof__json_value(json, 0);
    return e && *prof__json_skip_ws(e) == 0;
}

static PROF__NI prof_result prof__add_meta(prof_events *e, const char *key, const char *value, int is_json) {
    const char *k;
    char *copy, *old;
    if (!e || !key || !value) return prof__report(PROF_LOG_ERROR, PROF_E_ARG, "add_metadata: list, key and value must not be NULL");
    if (prof__meta_key_reserved(key)) return prof__report(PROF_LOG_ERROR, PROF_E_ARG, "add_metadata: '%s' is one of the trace's own keys", key);
    if (is_json && !prof_json_valid(value))
        return prof__report(PROF_LOG_ERROR, PROF_E_ARG, "add_metadata_json: the value for '%s' is not valid JSON", key);
    /* a key set again replaces its value, freed: a list updated before
       each export (a "step" key) stays the size of its keys and values */
    if (!(k = prof__intern(&e->strs, key)) || !(copy = prof__strdup(value)))
        return prof__report(PROF_LOG_ERROR, PROF_E_NOMEM, "add_metadata: out of memory");
    if (!prof__metas_set(&e->meta, k, copy, is_json, &old)) {
        PROF__FREE(copy);
        return prof__report(PROF_LOG_ERROR, PROF_E_NOMEM, "add_metadata: out of memory");
    }
    PROF__FREE(old);
    return PROF_OK;
}
PROF_API prof_result prof_events_add_metadata(prof_events *e, const char *key, const char *value) { return prof__add_meta(e, key, value, 0); }
PROF_API prof_result prof_events_add_metadata_json(prof_events *e, const char *key, const char *json) { return prof__add_meta(e, key, json, 1); }

/* ----- >>x_chrome: Chrome trace in Kineto's layout ----- */
/* A device's pid in the trace: its index, as Kineto writes it, unless
   that is the process's own id (PID 1, a container's entrypoint, with
   GPU 1), which would put the GPU's lanes in the CPU's process: then
   INT32_MAX - index. Its args keep the index ("device"). */
static PROF__NI int64_t prof__dev_pid(int32_t device_index, uint64_t pid) {
    return (uint64_t)(int64_t)device_index == pid ? (int64_t)INT32_MAX - device_index : (int64_t)device_index;
}
static PROF__NI void prof__w_pid_tid(prof__w *w, const prof_events *e, const prof__ev *v, uint64_t pid, const prof__map *sw) {
    PROF__W_LIT(w, "\"pid\": ");
    if (v->device_type == PROF_DEVICE_CPU) prof__w_u64(w, pid);
    else prof__w_i64(w, prof__dev_pid(prof__x(e, v)->device_index, pid));
    PROF__W_LIT(w, ", \"tid\": ");
    if (v->device_type == PROF_DEVICE_CPU) prof__w_u64(w, e->thr[v->thread].tid_w);
    else prof__w_i64(w, prof__stream_tid(e, v, sw));
}

/* ----- ts and dur that nest in doubles -----
   A viewer reads ts and dur as doubles and adds them: DevTools drops a
   child that ends after its parent by an ulp, speedscope warns, and an
   event that ends where the next one on its thread begins (common: a TSC
   that moves in 10 ns steps) appears to overrun it. ts is always written
   exact; the dur of an event whose end meets its parent's end or its
   follower's start is written so that its end keeps clear of it
   (prof__push_level). */
/* The double a JSON parser makes of the microseconds we print for ns:
   correctly rounded ns/1000, also past 2^53 where (double)ns is not exact. */
static PROF__NI double prof__us_double(int64_t ns) {
    uint64_t n, q, m, rem, div;
    int b, ex;
    double r;
    if (ns > -((int64_t)1 << 53) && ns < ((int64_t)1 << 53)) return (double)ns / 1000.0;
    n = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;
    q = n / 1000;
    b = 64 - __builtin_clzll(q);
    ex = b - 53; /* m = n / 1000 / 2^ex lies in [2^52, 2^53) */
    if (ex >= 0) { div = (uint64_t)1000 << ex; m = n / div; rem = n % div; }
    else { div = 1000; m = (n << -ex) / 1000; rem = (n << -ex) % 1000; }
    if (rem * 2 > div || (rem * 2 == div && (m & 1))) m++; /* ties to even */
    r = ldexp((double)m, ex);
    return ns < 0 ? -r : r;
}
/* The neighbour below (or above) a double > 0 (no libm: nextafter is there). */
static __inline__ double prof__next_double(double x, int up) {
    uint64_t b;
    memcpy(&b, &x, sizeof b);
    if (up) b++;
    else if (b) b--;
    memcpy(&x, &b, sizeof b);
    return x;
}
/* A dur >= 0 with start_d + dur <= bound in doubles, as large as the
   difference allows (0 if none). bound - start_d is exact when start_d <=
   bound <= 2 start_d (Sterbenz), so the sum is then bound itself; else
   (an event long for its start, or starting before 0) x is at least about
   bound / 2, so each step down moves the sum, and one or two do. */
static PROF__NI double prof__fit_dur(double start_d, double bound) {
    double x = bound - start_d;
    int steps;
    for (steps = 0; x > 0 && start_d + x > bound; steps++) {
        if (steps == 16) return 0; /* not seen; a bound kept over a lost ns */
        x = prof__next_double(x, 0);
    }
    return x > 0 ? x : 0;
}
/* A fitted dur in the fewest decimals (at least three) that read back as
   exactly that double. At most 40 bytes; no exponent. */
static PROF__NI char *prof__put_fit(char *d, double x) {
    char t[64];
    int p, k = 0;
    double ten = 1, back;
    while (k < 17 && x >= ten * 10) { ten *= 10; k++; } /* digits before the point - 1 */
    for (p = 3; p < 24; p = p == 3 && 15 - k > 4 ? 15 - k : p + 1) { /* three decimals, else from near 17 digits */
        snprintf(t, sizeof t, "%.*f", p, x);
        back = strtod(t, NULL); /* (both in the host's locale) */
        if (!(back < x) && !(back > x)) break; /* reads back as x */
    }
    prof__c_point(t);
    for (k = 0; t[k] && k < 40; k++) d[k] = t[k];
    return d + k;
}

/* The written ends of the previous event's ancestors (events come parents
   first), so an event's bound starts from its parent's result instead of
   replaying the whole chain. Most children end a nanosecond or more before
   their parent: below PROF__EXACT_NS the rounding of either end (a few
   ulps of at most 2^-16 us) cannot reverse that, so the doubles are only
   computed, once per event, when an event ends with its parent or with
   its follower's start, or near the limit. */
#define PROF__EXACT_NS ((int64_t)1 << 46) /* ~19.5 hours from the trace's base */
/* Past 2^40 us (12.7 days) a double's step in us is 2^-12 (a quarter ns):
   the rounding of ts and of ts + dur (an ulp or two of the end) comes
   within a few times of a nanosecond, and the sub-ns steps of
   prof__sub_end_in no longer survive it (a fuzz found ends an ulp late in
   2% of lists just below 2^50 ns; below 2^40 us only where a chain has
   more levels in its room than steps of a few ulps allow, from 2^46 ns:
   README). Every event's end
   is then written as exactly its bound (its own end or its parent's, as
   parsed), not only one that touches. */
#define PROF__NEAR_NS ((int64_t)1099511627776000) /* 2^40 us in ns, ~2^49.97 */
typedef struct prof__dur_level {
    int32_t idx;
    int has_end_d;
    int64_t start, dur;        /* ns */
    int32_t ps;                /* picoseconds written past dur (0..999): a sub-ns end (prof__sub_end) */
    int64_t lim;               /* start + dur where no rounding can reverse an end before it (PROF__EXACT_NS),
                                  else INT64_MIN: a child that ends before lim takes prof__w_events_fast */
    double fit;                /* dur as written in us when fitted, else -1 */
    double end_d;              /* us(start) + dur as written, as a parser sums them */
    int32_t reach, rdepth;     /* where its prof__sub_end walk stopped: that event, rdepth levels below it (0: no walk) */
} prof__dur_level;
/* One thread's (or device stream's) path of ancestors, set aside while
   other threads' events are written (prof__path_switch). */
typedef struct prof__dur_lane {
    uint32_t tag;              /* whose ancestors it holds (prof__path_tag) */
    int n, cap;
    prof__dur_level *lv;
    int32_t *chain;
} prof__dur_lane;
#define PROF__PATH_LANES 256   /* threads whose paths are kept at once (by thread index % 256: distinct for 256 threads) */
#define PROF__PATH_DEV_LANES 64 /* and device streams', in slots of their own (by a hash of device and stream) */
typedef struct prof__dur_path {
    int n, cap;                /* levels on the path, room */
    int oom;                   /* the path could not grow: the export fails */
    uint32_t tag;              /* whose ancestors the path holds (prof__path_tag; any, while n is 0) */
    const unsigned char *root_touch; /* bit i: top-level event i touches its lane's next one; NULL = assume so */
    const int64_t *lane_w;     /* per event, its written dur in ps where its thread's lane is not its tree (prof__lane_durs), else INT64_MIN; NULL: none is */
    prof__dur_level *lv;       /* grows to the trace's depth; lv[k] is at depth k */
    int32_t *chain;            /* scratch of prof__path_rebuild, as long */
    uint64_t work;             /* levels pushed here and chain members walked (prof__path_work) */
    prof__dur_lane *lanes;     /* [PROF__PATH_LANES + PROF__PATH_DEV_LANES]: the other threads' and streams' paths, or NULL (none yet, or no memory: then a switch empties the path) */
    int32_t *lastc;            /* per event, its last child (-1: none), made by the first prof__sub_end walk past PROF__SIB_WALK siblings; NULL until then (or without memory) */
    int32_t hint[128];         /* [idx % 64]: the level event idx was pushed at on its thread's path, maybe since overwritten (checked); [64, 128): leaves', never read */
} prof__dur_path;
/* Room for n levels; 0 without memory (path->oom set). */
static PROF__NI int prof__path_room(prof__dur_path *path, int n) {
    size_t cap = (size_t)path->cap, cap2 = (size_t)path->cap;
    if (n <= path->cap) return 1;
    if (n >= INT32_MAX / 2 || !prof__grow((void *)&path->lv, &cap, (size_t)n, sizeof *path->lv) || !prof__grow((void *)&path->chain, &cap2, (size_t)n, sizeof *path->chain)) {
        path->oom = 1;
        return 0;
    }
    path->cap = (int)(cap < cap2 ? cap : cap2);
    return 1;
}
/* The work of the JSON trace's paths, in all: levels pushed by the slow
   path (prof__push_level) and members walked (prof__sub_end,
   prof__lane_durs), added as each path is freed. Tests check that it grows
   with the events alone, not with depth, threads or chains that end
   together (each was once quadratic). */
static uint64_t prof__path_work;
static PROF__NI void prof__path_free(prof__dur_path *path) {
    size_t k;
    __atomic_fetch_add(&prof__path_work, path->work, __ATOMIC_RELAXED);
    path->work = 0;
    PROF__FREE(path->lv);
    PROF__FREE(path->chain);
    PROF__FREE(path->lastc);
    path->lv = NULL;
    path->chain = NULL;
    path->lastc = NULL;
    path->n = path->cap = 0;
    for (k = 0; path->lanes && k < PROF__PATH_LANES + PROF__PATH_DEV_LANES; k++) {
        PROF__FREE(path->lanes[k].lv);
        PROF__FREE(path->lanes[k].chain);
    }
    PROF__FREE(path->lanes);
    path->lanes = NULL;
}
/* The path of thread `tag` made the current one. Events of several threads
   interleave in start order; with one path, each change of thread would
   rebuild the new thread's ancestors from its root (two threads at depth
   1000: 9 us an event). The current path is taken out of its slot
   (prof__path_slot), which stays empty meanwhile: a switch puts it back
   and takes out the new thread's, or, where another thread's is there, its
   room with no levels (rebuilt as needed). */
static __inline__ uint32_t prof__path_slot(uint32_t tag) { return tag >> 31 ? PROF__PATH_LANES + tag % PROF__PATH_DEV_LANES : tag % PROF__PATH_LANES; }
static PROF__NI void prof__path_switch(prof__dur_path *path, uint32_t tag) {
    const uint32_t from = prof__path_slot(path->tag), to = prof__path_slot(tag);
    if (!path->lanes) {
        path->lanes = PROF__ALLOC(prof__dur_lane, PROF__PATH_LANES + PROF__PATH_DEV_LANES);
        if (path->lanes) memset(path->lanes, 0, (PROF__PATH_LANES + PROF__PATH_DEV_LANES) * sizeof *path->lanes);
    }
    if (path->lanes && from != to) {
        prof__dur_lane *s = &path->lanes[from], *t = &path->lanes[to];
        s->tag = path->tag; s->n = path->n; s->cap = path->cap; s->lv = path->lv; s->chain = path->chain;
        path->n = t->tag == tag ? t->n : 0;
        path->cap = t->cap; path->lv = t->lv; path->chain = t->chain;
        memset(t, 0, sizeof *t);
    } else path->n = 0;
    path->tag = tag;
}
/* The path an event's ancestors are kept on: its thread's, or a device
   event's stream's. (Its thread is the one that launched it, and its tree
   is the stream's: kept on the thread's path, each kernel emptied it, and
   a CPU chain with kernels between its levels was rebuilt from its root at
   each: quadratic in its depth.) Tags that collide cost rebuilds only. */
static PROF__NI uint32_t prof__path_tag(const prof_events *e, const prof__ev *v) {
    if (v->device_type == PROF_DEVICE_CPU) return v->thread;
    return 0x80000000u | (uint32_t)(prof__mix((uint64_t)prof__stream_of(e, v) ^ ((uint64_t)(uint32_t)prof__x(e, v)->device_index << 40) ^ ((uint64_t)v->device_type << 56)) & 0x7fffffffu);
}
static PROF__NI double prof__level_end(prof__dur_level *l) {
    if (!l->has_end_d) {
        l->end_d = prof__us_double(l->start) + prof__us_double(l->dur);
        l->has_end_d = 1;
    }
    return l->end_d;
}
/* Whether the event that follows event i on its lane starts exactly where i
   ends. The follower of a child is its next sibling; of a last child, past
   the parent's end, which the parent's own bound covers; of a top-level
   event, the next one on its lane, found before the trace is written
   (prof__root_touch). */
static __inline__ int prof__touches_next(const prof_events *e, size_t i, const unsigned char *root_touch) {
    const prof__ev *v = &e->ev[i];
    if (v->next_sibling >= 0) return e->ev[v->next_sibling].start == v->end;
    if (v->parent >= 0) return 0;
    return !root_touch || ((__atomic_load_n(&root_touch[i >> 3], __ATOMIC_RELAXED) >> (i & 7)) & 1); /* see prof__tpipe */
}
/* Pushes event `idx` on the path with its written dur. In the range where a
   nanosecond is many ulps, whole nanoseconds: an event that ends with (or
   after) its parent's written end is written to end 1 ns before it, and
   one whose follower starts at its end, 1 ns before that. A strict gap,
   not an equal double, because consumers do their own arithmetic:
   speedscope subtracts the first ts before adding dur, and ends events of
   equal end time in the order they began. Only such events lose their last
   nanosecond (one per level of a chain that ends together). Far out, where
   a nanosecond nears an ulp, no gap survives the rounding: there every
   end is written as exactly its bound (its own end as parsed, or its
   parent's written end), with a fitted dur. */
/* The written end, in ps after the start, of an event that must end
   before u (ps after its start: its parent's written end, or its
   follower's start). 1 ns before u, as ever, where that leaves room for
   its descendants: the chain of last children that end within 2 ns of u
   (d levels, the deepest starting at lo), each a positive dur in steps of
   at least g, a few ulps at the event's magnitude (up to 14 levels; a
   1 ns trim always where each level had a whole ns). Else (a 1 ns event
   that touches its follower, a child that starts in its parent's trimmed
   last ns) the room (lo, u) is cut in d + 2 equal steps, and the event
   takes the last: whole-ns bounds keep every end on a ps. */
/* The walk's end is kept in the event's level (l): where the parent's walk
   (p) went through the event and on below it, the chain to there ends
   within 2 ns of the event's bound too (that bound is the parent's written
   end or earlier, itself before the parent's bound), so the walk goes on
   from there: a chain of any length that ends together costs its length
   once, not once per level. */
static PROF__NI int64_t prof__sub_end_in(const prof__ev *v, int64_t u, int d, int64_t lo);
/* Whether last child b goes on v's chain under bound u (ps after v's
   start): it ends within 2 ns of u (else it and all below it end more
   than 1 ns before the trimmed end), and begins before u (one that
   begins at u or past it, in the last ns of an ancestor trimmed by a
   whole ns, has no room there and takes none from v). Both walks, the
   tree's and the lanes', stop where this fails. */
static __inline__ int prof__chain_on(const prof__ev *v, const prof__ev *b, int64_t u) {
    return (b->end - v->start) * 1000 >= u - 2000 && (b->start - v->start) * 1000 < u;
}
/* The last child of c (-1: none). The tree links only first children and
   next siblings, and a walk may pass the same parent again (another
   worker's path, a thread's path rebuilt after a switch), so past
   PROF__SIB_WALK siblings in one walk the path indexes every event's last
   child once (4 bytes an event, one pass) and looks them up from then on.
   Without memory for that index the walk stops where it is (-2): the
   levels below are then trimmed by whole ns, as before sub-ns ends. */
#define PROF__SIB_WALK 4096
static PROF__NI int32_t prof__last_child(const prof_events *e, int32_t c, prof__dur_path *path, int *hops) {
    int32_t k = e->ev[c].first_child;
    size_t i;
    if (path->lastc) return path->lastc[c];
    while (k >= 0 && e->ev[k].next_sibling >= 0 && *hops < PROF__SIB_WALK) { k = e->ev[k].next_sibling; ++*hops; }
    if (k < 0 || e->ev[k].next_sibling < 0) return k;
    if (!(path->lastc = PROF__ALLOC(int32_t, e->n + 1))) return -2;
    for (i = 0; i < e->n; i++) path->lastc[i] = -1;
    for (i = 0; i < e->n; i++)
        for (k = e->ev[i].first_child; k >= 0; k = e->ev[k].next_sibling) path->lastc[i] = k;
    return path->lastc[c];
}
static PROF__NI int64_t prof__sub_end(const prof_events *e, int32_t idx, int64_t u, prof__dur_path *path) {
    const prof__ev *v = &e->ev[idx];
    const prof__dur_level *p = path->n > 0 ? &path->lv[path->n - 1] : NULL;
    prof__dur_level *l = &path->lv[path->n];
    int64_t lo = 0;
    int32_t c = idx, k;
    int d = 0, hops = 0;
    if (p && p->rdepth >= 2 && p->idx == v->parent && v->next_sibling < 0) { /* the chain below goes through idx, the last child */
        c = p->reach;
        d = p->rdepth - 1;
    }
    while ((k = prof__last_child(e, c, path, &hops)) >= 0 && prof__chain_on(v, &e->ev[k], u)) {
        c = k;
        d++;
        path->work++;
    }
    if (c != idx) lo = (e->ev[c].start - v->start) * 1000;
    l->reach = c;
    l->rdepth = d;
    return prof__sub_end_in(v, u, d, lo);
}
/* The same for the chain of d levels, its deepest starting lo ps after v. */
static PROF__NI int64_t prof__sub_end_in(const prof__ev *v, int64_t u, int d, int64_t lo) {
    int64_t g = 1, room;
    const int64_t mag = v->end > -v->start ? v->end : -v->start; /* the larger of |start|, |end| */
    const int b = mag > 0 ? 64 - __builtin_clzll((unsigned long long)mag) : 0;
    if (b > 40) g = b > 46 ? 64 : (int64_t)1 << (b - 40);
    /* at most 960: where 1 ns each fits, whole ns are kept, as ever */
    if (u - 1000 - lo >= (d < 14 ? (d + 1) * g : 960)) return u - 1000;
    room = u - lo;
    if (room <= 0) return 0; /* never, where the bounds come from here */
    return u - (room / (d + 2) ? room / (d + 2) : 1); /* 1 ps: a chain of 1000 levels in one ns (then the deepest end at lo) */
}
static __inline__ int64_t prof__lim(int64_t end) { return end < PROF__EXACT_NS && end > -PROF__EXACT_NS ? end : INT64_MIN; }
static PROF__NI void prof__push_level(const prof_events *e, int32_t idx, prof__dur_path *path) {
    const prof__ev *v = &e->ev[idx];
    prof__dur_level *l = &path->lv[path->n];
    prof__dur_level *p = path->n > 0 ? &path->lv[path->n - 1] : NULL;
    int distant = v->start <= -PROF__NEAR_NS || v->end >= PROF__NEAR_NS;
    l->idx = idx;
    l->start = v->start;
    l->fit = -1;
    l->has_end_d = 0;
    l->ps = 0;
    l->rdepth = 0;
    path->work++;
    if (!distant) {
        int64_t pe = p ? p->start + p->dur : 0, w;
        if (PROF__UNLIKELY(path->lane_w != NULL) && path->lane_w[idx] != INT64_MIN) {
            w = path->lane_w[idx];
        } else if (v->end == v->start) { /* a zero-length event: half a ns, or half its room in its parent */
            w = p && (pe - v->start) * 1000 + p->ps < 1000 ? ((pe - v->start) * 1000 + p->ps) / 2 : 500;
        } else if (p && (v->end > pe || (v->end == pe && !p->ps))) {
            w = prof__sub_end(e, idx, (pe - v->start) * 1000 + p->ps, path);
        } else if (prof__touches_next(e, (size_t)idx, path->root_touch)) {
            w = prof__sub_end(e, idx, (v->end - v->start) * 1000, path);
        } else {
            w = (v->end - v->start) * 1000;
        }
        l->dur = w / 1000;
        l->ps = (int32_t)(w % 1000);
        l->lim = prof__lim(l->start + l->dur + (l->ps > 0));
    } else {
        double start_d = prof__us_double(v->start), bound = prof__us_double(v->end);
        if (v->end == v->start) bound = start_d + 0.0005; /* a zero-length event: half a ns, as in the near range (0 from 2^43 us, where that is under half an ulp) */
        if (p && prof__level_end(p) < bound) bound = prof__level_end(p);
        l->dur = v->end - v->start;
        l->end_d = start_d + prof__us_double(l->dur);
        l->has_end_d = 1;
        if (l->end_d < bound || l->end_d > bound) {
            l->fit = prof__fit_dur(start_d, bound);
            l->end_d = start_d + l->fit;
        }
        l->lim = prof__lim(v->end);
    }
    path->hint[idx & 63] = path->n;
    path->n++;
}
/* Event c's level on the path, or -1: the level its index was last pushed
   at (hint), else a binary search, as a path's indices grow with depth
   (events come parents first; where a list's do not, a miss rebuilds). */
static PROF__NI int prof__lv_find(const prof__dur_level *lv, int n, const int32_t *hint, int32_t c) {
    int t = hint[c & 63], lo = 0, hi = n;
    if ((unsigned)t < (unsigned)n && lv[t].idx == c) return t;
    while (lo < hi) {
        const int mid = lo + (hi - lo) / 2;
        if (lv[mid].idx < c) lo = mid + 1;
        else hi = mid;
    }
    return lo < n && lv[lo].idx == c ? lo : -1;
}
static __inline__ int prof__path_find(const prof__dur_path *path, int32_t c) { return prof__lv_find(path->lv, path->n, path->hint, c); }
/* The path cut back to c's nearest ancestor on it (or emptied), then
   c's ancestors below that and c pushed in order, as writing them one by
   one would have left it: each level depends on its parent's alone. So a
   chunk's first event, or a thread's after another thread's slot held its
   path, costs the levels that changed. Returns c's level, -1 without
   memory. */
static PROF__NI int prof__path_rebuild(const prof_events *e, int32_t c, prof__dur_path *path) {
    int n = 0, k, top = -1;
    for (; c >= 0 && (top = prof__path_find(path, c)) < 0; c = e->ev[c].parent) {
        if (!prof__path_room(path, n + 2)) return -1; /* (chain: n + 1) */
        path->chain[n++] = c;
    }
    if (!prof__path_room(path, top + n + 3)) return -1; /* + 2: the event that asked, after c */
    path->n = top + 1;
    for (k = n; k-- > 0;) prof__push_level(e, path->chain[k], path);
    return path->n - 1;
}
/* Event i's level as written: its dur in ns, or fitted (fit >= 0, in us);
   NULL without memory. Valid until the next call. Its parent is on its
   thread's path (events come parents first) unless the path starts here
   (a chunk's first event, a slot another thread held): then the path is
   rebuilt. */
static PROF__NI const prof__dur_level *prof__written_dur(const prof_events *e, size_t i, prof__dur_path *path) {
    int32_t c = e->ev[i].parent;
    int top = -1;
    const uint32_t tag = prof__path_tag(e, &e->ev[i]);
    if (PROF__UNLIKELY(tag != path->tag)) prof__path_switch(path, tag);
    if (c >= 0) {
        top = path->n > 0 && path->lv[path->n - 1].idx == c ? path->n - 1 : prof__path_find(path, c);
        if (top < 0 && (top = prof__path_rebuild(e, c, path)) < 0) return NULL;
    }
    if (!prof__path_room(path, top + 2)) return NULL;
    path->n = top + 1; /* 0 for a root */
    prof__push_level(e, (int32_t)i, path);
    return &path->lv[path->n - 1];
}

/* prof__dur_path.root_touch: for each top-level event, whether the next
   top-level event of its lane (thread, or device and stream) starts exactly
   where it ends. Events are read in start order (sorted where the list,
   or its device events, are not in it). NULL without memory (then
   every top-level event is bounded by its own end: nesting stays exact,
   some lose a nanosecond). Events written as pairs (ovl, n of them, in
   order: prof__trace_overlaps) are not on the lane. *on_device: whether
   any event is on a device (not set without memory); *overlap: whether an
   event may overlap its lane's without nesting (it begins before its
   previous sibling or top-level event ends; where none does, the tree's
   events nest, each in its parent, and prof__trace_overlaps finds none).
   The pass reads every event before the first is written, so a big list's
   parts are read on two threads (prof__touch_parts): it ran alone while
   the other core waited, ~5 ms of a 1M-event export that write(2) alone
   takes ~35 ms to copy. A big trace written to its own temporary file
   does without the pass: prof__tpipe finds the bits as it writes. */
/* Whether event i is one of the events written as pairs (ovl, n of them,
   in index order: prof__trace_overlaps): the first of them at i or after
   (n: none). */
static PROF__NI size_t prof__overlap_at(const uint32_t *ovl, size_t n, size_t i) {
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (ovl[mid] < i) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}
/* One part of the pass: events [lo, hi) (lo a multiple of 8, so parts set
   bits in bytes of their own), each thread's first and last top-level
   event in it in first[] and last[] (nthr + 1 slots, UINT32_MAX: none)
   for joining the parts. A device event ends a part's scan (dev: the
   whole list is then read in one pass, `whole`), where a device's lanes
   are keyed in a map: a lane's value is its innermost event still open,
   `up` (allocated then, one per event) the one that encloses each, so
   that an event that encloses others on its stream is found touching its
   follower too (a device's events have no parents to tell). `order`: the
   list's events in start order where the list is not in it (whole only). */
typedef struct prof__touch_part {
    const prof_events *e;
    const uint32_t *ovl, *order;
    size_t novl, lo, hi;
    unsigned char *bits;
    uint32_t *first, *last, *up;
    int whole, overlap, dev, oom;
    int unordered;             /* a device's events out of start order (whole only) */
} prof__touch_part;
/* A device event i on its lane (the lane's slot): the events it does not
   nest in close first, each marked where it ends at i's start. */
static PROF__NI void prof__touch_device(prof__touch_part *p, uint32_t *slot, int found, uint32_t i) {
    const prof__ev *const ev = p->e->ev;
    uint32_t j = found ? *slot : UINT32_MAX;
    if (j != UINT32_MAX && !p->order && (ev[i].start < ev[j].start || (ev[i].start == ev[j].start && ev[i].end > ev[j].end)))
        p->unordered = 1; /* (the list's order is for its CPU events: the caller reads it again in start order) */
    for (; j != UINT32_MAX && ev[j].end <= ev[i].start; j = p->up[j])
        if (ev[j].end == ev[i].start) __atomic_fetch_or(&p->bits[j >> 3], (unsigned char)(1u << (j & 7)), __ATOMIC_RELAXED);
    if (j != UINT32_MAX) p->overlap = 1; /* open on the lane: i nests in it, or overlaps it */
    p->up[i] = j;
    *slot = i;
}
static PROF__NI void prof__touch_scan(prof__touch_part *p) {
    prof__map lanes; /* device lane -> its innermost open event */
    const prof_events *e = p->e;
    const prof__ev *const ev = e->ev;
    size_t at, k = 0;
    memset(&lanes, 0, sizeof lanes);
    for (at = p->lo; at < p->hi; at++) {
        const size_t i = p->order ? p->order[at] : at;
        const prof__ev *v = &ev[i];
        uint32_t *slot;
        int found = 1;
        if (v->device_type != PROF_DEVICE_CPU) {
            p->dev = 1;
            if (!p->whole) break; /* the caller reads the list again in one pass */
        }
        if (PROF__UNLIKELY(k < p->novl)) {
            if (p->order) { /* ovl is in index order: looked up */
                size_t o = prof__overlap_at(p->ovl, p->novl, i);
                if (o < p->novl && p->ovl[o] == i) continue;
            } else if (p->ovl[k] == i) {
                k++;
                continue;
            }
        }
        if (v->next_sibling >= 0 && ev[v->next_sibling].start < v->end) p->overlap = 1;
        if (v->parent >= 0 || (v->flags & PROF__F_MEMROW) || ((v->flags & PROF__F_ASYNC) && v->device_type == PROF_DEVICE_CPU)) continue; /* most events: not top-level; [memory] rows are not written, a CPU async range not as "X" (a device's still is) */
        if (v->device_type == PROF_DEVICE_CPU) {
            const size_t t = v->thread < e->nthr ? v->thread : e->nthr;
            slot = &p->last[t];
            found = *slot != UINT32_MAX;
            if (!found) p->first[t] = (uint32_t)i;
        } else {
            if ((!p->up && !(p->up = PROF__ALLOC(uint32_t, e->n))) || !(slot = prof__lane_slot(&lanes, e, (uint32_t)i, &found))) { p->oom = 1; break; }
            prof__touch_device(p, slot, found, (uint32_t)i);
            continue;
        }
        if (found && ev[*slot].end == v->start) __atomic_fetch_or(&p->bits[*slot >> 3], (unsigned char)(1u << (*slot & 7)), __ATOMIC_RELAXED); /* a worker may read the byte's other bits (prof__tpipe) */
        if (found && ev[*slot].end > v->start) p->overlap = 1;
        *slot = (uint32_t)i;
    }
    prof__map_free(&lanes);
}
/* The parts of a big list, taken in turn by this thread and one more:
   on a busy machine the other may start late, and this one then takes
   the parts it did not. */
#define PROF__TOUCH_PARTS 8
typedef struct prof__touch_job { prof__touch_part *part; int n, next; } prof__touch_job;
static void *prof__touch_main(void *arg) {
    prof__touch_job *job = (prof__touch_job *)arg;
    int k;
    while ((k = __atomic_fetch_add(&job->next, 1, __ATOMIC_RELAXED)) < job->n) prof__touch_scan(&job->part[k]);
    return NULL;
}
/* The parts at once, then joined in order: each thread's last top-level
   event so far meets its first of the next part (part[0].last follows
   them). 0 when that cannot be (a small list, one core, no thread, a
   device's lanes, which are keyed in maps): then the caller starts over. */
static PROF__NI int prof__touch_parts(prof__touch_part *part) {
    const prof_events *e = part[0].e;
    prof__touch_job job;
    size_t t;
    int k, ok = 1;
    pthread_t th;
    if (e->n < prof__par_min_events || e->n < 8 * PROF__TOUCH_PARTS || sysconf(_SC_NPROCESSORS_ONLN) < 2) return 0;
    for (k = 0; k < PROF__TOUCH_PARTS; k++) {
        part[k].lo = e->n / PROF__TOUCH_PARTS * (size_t)k & ~(size_t)7;
        part[k].hi = k + 1 < PROF__TOUCH_PARTS ? e->n / PROF__TOUCH_PARTS * (size_t)(k + 1) & ~(size_t)7 : e->n;
    }
    job.part = part;
    job.n = PROF__TOUCH_PARTS;
    job.next = 0;
    if (!prof__spawn(&th, prof__touch_main, &job)) return 0;
    prof__touch_main(&job);
    pthread_join(th, NULL);
    for (k = 0; k < PROF__TOUCH_PARTS; k++) if (part[k].dev) ok = 0;
    for (k = 1; ok && k < PROF__TOUCH_PARTS; k++) {
        for (t = 0; t <= e->nthr; t++) {
            const uint32_t a = part[0].last[t], b = part[k].first[t];
            if (b == UINT32_MAX) continue;
            if (a != UINT32_MAX && e->ev[a].end == e->ev[b].start) part[0].bits[a >> 3] |= (unsigned char)(1u << (a & 7));
            if (a != UINT32_MAX && e->ev[a].end > e->ev[b].start) part[0].overlap = 1;
            part[0].last[t] = part[k].last[t];
        }
        part[0].overlap |= part[k].overlap;
    }
    return ok;
}
/* The pass in one go, in start order (`sort`: sorted first, for a list
   built in another order, or whose device events are not in it). */
static PROF__NI void prof__touch_whole(prof__touch_part *p, const uint32_t *ovl, size_t novl, int sort) {
    const prof_events *e = p->e;
    uint32_t *order = NULL, *tmp = NULL;
    size_t i;
    memset(p->bits, 0, e->n / 8 + 1);
    memset(p->first, 0xFF, 2 * (e->nthr + 1) * sizeof *p->first); /* first and last */
    if (sort) {
        if (!(order = PROF__ALLOC(uint32_t, e->n)) || !(tmp = PROF__ALLOC(uint32_t, e->n))) p->oom = 1;
        for (i = 0; order && tmp && i < e->n; i++) order[i] = (uint32_t)i;
        if (order && tmp) prof__msort_u32(order, tmp, e->n, prof__ev_order_less, e->ev);
        PROF__FREE(tmp);
    }
    p->ovl = ovl;
    p->novl = novl;
    p->order = order;
    p->lo = 0;
    p->hi = e->n;
    p->whole = 1;
    p->overlap = p->dev = p->unordered = 0;
    if (!p->oom) prof__touch_scan(p);
    PROF__FREE(order);
    PROF__FREE(p->up);
    p->order = NULL;
    p->up = NULL;
}
/* *sort: in: read the list in sorted order (it is not in start order);
   out: whether it had to be (its device events were not either). */
static PROF__NI unsigned char *prof__root_touch(const prof_events *e, const uint32_t *ovl, size_t novl, int *on_device, int *overlap, int *sort) {
    const size_t nslots = e->nthr + 1;
    uint32_t *lanes = PROF__ALLOC(uint32_t, 2 * PROF__TOUCH_PARTS * nslots); /* first and last per thread, for each part */
    unsigned char *bits = (unsigned char *)PROF__MALLOC(e->n / 8 + 1);
    prof__touch_part part[PROF__TOUCH_PARTS];
    int k;
    if (!bits || !lanes) { PROF__FREE(bits); PROF__FREE(lanes); return NULL; }
    memset(bits, 0, e->n / 8 + 1);
    memset(lanes, 0xFF, 2 * PROF__TOUCH_PARTS * nslots * sizeof *lanes);
    memset(part, 0, sizeof part);
    for (k = 0; k < PROF__TOUCH_PARTS; k++) {
        part[k].e = e;
        part[k].bits = bits;
        part[k].first = lanes + (size_t)(2 * k) * nslots;
        part[k].last = part[k].first + nslots;
    }
    if (novl || *sort || !prof__touch_parts(part)) { /* in one pass, from a clean slate (the parts may have begun) */
        prof__touch_whole(part, ovl, novl, *sort);
        if (part[0].unordered && !part[0].oom) {
            *sort = 1;
            prof__touch_whole(part, ovl, novl, 1);
        }
    }
    PROF__FREE(lanes);
    if (part[0].oom) { PROF__FREE(bits); return NULL; }
    *on_device = part[0].dev;
    if (part[0].overlap) *overlap = 1;
    return bits;
}

/* Events that overlap on their lane. A list built by hand may hold CPU
   events that overlap without nesting (one begins inside another and ends
   after it), and CUPTI reports kernels of one stream that overlap (a
   programmatic dependent launch begins before the kernel ahead of it
   ends); as "X" events DevTools' trace engine drops the later one. They
   are written as async pairs instead, as PROF_ASYNC ranges are
   (prof__w_async_pair), chosen as the Perfetto writer chooses its
   overlapping lanes (prof__pft_event): in (start, -end) order on each
   lane (a thread, or a device's stream), an event that ends after the
   innermost event still open at its start (of those that nest). Their
   indices in list order, in *out (NULL, n 0, where all nest: nested lists
   come out as before); -1 without memory. `sort`: the list is not in
   start order (prof__root_touch). *dev_nest (may be NULL): set where a
   device event nests in another of its stream (prof__lane_durs then
   bounds them). */
static PROF__NI int prof__uint_less(const void *ctx, uint32_t a, uint32_t b) { (void)ctx; return a < b; }
/* A lane's events still open: their ends, innermost last. */
typedef struct prof__olane { int64_t *st; size_t dep, cap; } prof__olane;
/* The lanes: the threads' first (0 .. nthr - 1), then each device stream
   as met (its lane numbered through the lane's first event). */
typedef struct prof__olanes { prof__olane *l; size_t n, cap; prof__map dev, dev_id; } prof__olanes;
static PROF__NI prof__olane *prof__olane_of(prof__olanes *ls, const prof_events *e, uint32_t k) {
    const prof__ev *v = &e->ev[k];
    uint32_t *first, *id;
    int found;
    if (v->device_type == PROF_DEVICE_CPU) return v->thread < e->nthr ? &ls->l[v->thread] : NULL;
    if (!(first = prof__lane_slot(&ls->dev, e, k, &found)) || !(id = prof__map_slot(&ls->dev_id, *first, &found))) return NULL;
    if (!found) {
        if (!prof__grow((void *)&ls->l, &ls->cap, ls->n + 1, sizeof *ls->l)) return NULL; /* (the maps are freed with the rest) */
        memset(&ls->l[ls->n], 0, sizeof ls->l[ls->n]);
        *id = (uint32_t)ls->n++;
    }
    return &ls->l[*id];
}
static PROF__NI int prof__trace_overlaps(const prof_events *e, int sort, uint32_t **out, size_t *nout, int *dev_nest) {
    size_t i, n = 0, cap = 0;
    prof__olanes ls;
    uint32_t *order = NULL, *tmp = NULL, *ovl = NULL;
    int rc = -1;
    *out = NULL;
    *nout = 0;
    memset(&ls, 0, sizeof ls);
    if (!prof__grow((void *)&ls.l, &ls.cap, e->nthr + 1, sizeof *ls.l)) goto done;
    memset(ls.l, 0, (e->nthr + 1) * sizeof *ls.l);
    ls.n = e->nthr;
    if (sort) { /* a list built in another order: sorted indices */
        if (!(order = PROF__ALLOC(uint32_t, e->n)) || !(tmp = PROF__ALLOC(uint32_t, e->n))) goto done;
        for (i = 0; i < e->n; i++) order[i] = (uint32_t)i;
        prof__msort_u32(order, tmp, e->n, prof__ev_order_less, e->ev);
    }
    for (i = 0; i < e->n; i++) {
        uint32_t k = order ? order[i] : (uint32_t)i;
        const prof__ev *v = &e->ev[k];
        prof__olane *l;
        size_t d;
        /* not on a lane: [memory] rows, a CPU async range (a pair anyway;
           a device's is an "X" on its stream) */
        if ((v->flags & PROF__F_MEMROW) || ((v->flags & PROF__F_ASYNC) && v->device_type == PROF_DEVICE_CPU)) continue;
        if (!(l = prof__olane_of(&ls, e, k))) {
            if (v->device_type == PROF_DEVICE_CPU) continue; /* a thread out of range */
            goto done;
        }
        for (d = l->dep; d > 0 && l->st[d - 1] <= v->start; d--) {}
        if (d == 0 || l->st[d - 1] >= v->end) { /* nests: open on the lane */
            if (d > 0 && dev_nest && v->device_type != PROF_DEVICE_CPU) *dev_nest = 1;
            if (d == l->cap && !prof__grow((void *)&l->st, &l->cap, d + 1, sizeof *l->st)) goto done;
            l->st[d++] = v->end;
        } else {
            if (!prof__grow((void *)&ovl, &cap, n + 1, sizeof *ovl)) goto done;
            ovl[n++] = k;
        }
        l->dep = d;
    }
    if (n && order) {
        prof__msort_u32(ovl, tmp, n, prof__uint_less, NULL);
    }
    *out = ovl;
    *nout = n;
    ovl = NULL;
    rc = 0;
done:
    for (i = 0; i < ls.n; i++) PROF__FREE(ls.l[i].st);
    PROF__FREE(ls.l);
    prof__map_free(&ls.dev);
    prof__map_free(&ls.dev_id);
    PROF__FREE(order);
    PROF__FREE(tmp);
    PROF__FREE(ovl);
    return rc;
}
/* Written durs on the threads that have events written as pairs. There a
   viewer nests the "X" events by time alone, with the pairs on tracks of
   their own, and that nesting is not the tree's: an event inside a pair
   has the pair as its parent, but on the lane it follows, or lies inside,
   an event the pair overlapped (P [1290, 1400], the pair A [1380, 1750], A's
   child B [1400, 1740]: B begins where P ends, and B is not P's sibling).
   The bounds of prof__push_level are taken from the lane instead: in the
   order of prof__trace_overlaps (which left exactly the events that nest
   on the lane), each event's lane parent is the innermost one still open,
   and it touches its follower when the event that closes it begins at
   its end. `dev`: a device's events nest on their streams (hand-built
   lists: CUPTI's kernels of a stream follow one another), which have no
   tree at all, so their lanes are bounded the same way, or a kernel that
   ends with the one it lies in would be trimmed to the same end as it.
   *out: per event, its written dur in ps on such a lane (in the exact
   range: PROF__NEAR_NS), else INT64_MIN; NULL where no lane needs it.
   -1 without memory. */
/* prof__lane_durs's state, one function per phase below. */
typedef struct prof__lanedur {
    const prof_events *e;
    const uint32_t *ovl;       /* the pairs, in index order */
    size_t novl, nl;           /* nl: lanes (the threads', then the streams') */
    unsigned char *has;        /* per thread: it has pairs */
    unsigned char *touch;      /* bit per event: its lane follower begins at its end */
    uint32_t *order;           /* the events in start order (a list not in it), else NULL */
    uint32_t *lane;            /* per event, its lane, UINT32_MAX: none */
    uint32_t *seq;             /* the lanes' events, lane by lane, each in start order */
    size_t *at;                /* where each lane's run ends in seq */
    int32_t *par, *lastc;      /* lane parent; last lane child, or -1 */
    int32_t *reach, *rdep;     /* where each event's chain walk stopped, and how deep (as prof__dur_level's) */
    int64_t *lw;               /* the result */
    uint64_t work;             /* members walked (prof__path_work) */
    prof__olanes ls;           /* the device streams' lane numbers (from nthr) */
} prof__lanedur;

/* Each event's lane: its thread's where that has pairs, its stream's where
   devices nest (dev), else none. 0: no thread has pairs and no device
   nests; -1 without memory. */
static PROF__NI int prof__ld_lanes(prof__lanedur *ld, int sort, int dev) {
    const prof_events *e = ld->e;
    const size_t nthr = e->nthr;
    size_t i, k, o;
    if (!(ld->has = (unsigned char *)PROF__MALLOC(nthr + 1))) return -1;
    memset(ld->has, 0, nthr + 1);
    for (k = 0; k < ld->novl; k++) {
        const prof__ev *v = &e->ev[ld->ovl[k]];
        if (v->device_type == PROF_DEVICE_CPU && v->thread < nthr) ld->has[v->thread] = 1;
    }
    for (i = 0; i < nthr && !ld->has[i]; i++) {}
    if (i == nthr && !dev) return 0; /* the pairs are on devices */
    if (!(ld->lane = PROF__ALLOC(uint32_t, e->n + 1)) || !prof__grow((void *)&ld->ls.l, &ld->ls.cap, nthr + 1, sizeof *ld->ls.l)) return -1;
    memset(ld->ls.l, 0, (nthr + 1) * sizeof *ld->ls.l);
    ld->ls.n = nthr;
    if (sort) {
        uint32_t *tmp = PROF__ALLOC(uint32_t, e->n + 1);
        if (!tmp || !(ld->order = PROF__ALLOC(uint32_t, e->n))) { PROF__FREE(tmp); return -1; }
        for (i = 0; i < e->n; i++) ld->order[i] = (uint32_t)i;
        prof__msort_u32(ld->order, tmp, e->n, prof__ev_order_less, e->ev);
        PROF__FREE(tmp);
    }
    for (i = 0, o = 0; i < e->n; i++) {
        const prof__ev *v = &e->ev[i];
        const prof__olane *l;
        while (o < ld->novl && ld->ovl[o] < i) o++;
        ld->lane[i] = UINT32_MAX;
        if ((o < ld->novl && ld->ovl[o] == i) || (v->flags & PROF__F_MEMROW)) continue;
        if (v->device_type == PROF_DEVICE_CPU) {
            if (v->thread < nthr && ld->has[v->thread] && !(v->flags & PROF__F_ASYNC)) ld->lane[i] = (uint32_t)v->thread;
        } else if (dev) { /* (a device's async range is an "X" on its stream) */
            if (!(l = prof__olane_of(&ld->ls, e, (uint32_t)i))) return -1;
            ld->lane[i] = (uint32_t)(l - ld->ls.l);
        }
    }
    ld->nl = ld->ls.n;
    return 1;
}

/* The lanes' events, lane by lane, each lane's in start order: a counting
   sort by lane (at[l] ends as where run l ends). */
static PROF__NI int prof__ld_order(prof__lanedur *ld) {
    const size_t n = ld->e->n, nl = ld->nl;
    size_t i;
    if (!(ld->seq = PROF__ALLOC(uint32_t, n + 1)) || !(ld->at = PROF__ALLOC(size_t, nl + 1))) return -1;
    memset(ld->at, 0, (nl + 1) * sizeof *ld->at);
    for (i = 0; i < n; i++) if (ld->lane[i] != UINT32_MAX) ld->at[ld->lane[i] + 1]++;
    for (i = 1; i <= nl; i++) ld->at[i] += ld->at[i - 1];
    for (i = 0; i < n; i++) {
        const uint32_t x = ld->order ? ld->order[i] : (uint32_t)i;
        if (ld->lane[x] != UINT32_MAX) ld->seq[ld->at[ld->lane[x]]++] = x;
    }
    return 0;
}

/* Lane parents, last children and touches, one lane's run at a time. */
static PROF__NI int prof__ld_parents(prof__lanedur *ld) {
    const prof__ev *ev = ld->e->ev;
    const size_t n = ld->e->n;
    uint32_t *stk;
    size_t i, o;
    if (!(ld->par = PROF__ALLOC(int32_t, n + 1)) || !(ld->lastc = PROF__ALLOC(int32_t, n + 1)) ||
        !(ld->touch = (unsigned char *)PROF__MALLOC(n / 8 + 1)) || !(stk = PROF__ALLOC(uint32_t, n + 1)))
        return -1;
    for (i = 0; i < n; i++) ld->lastc[i] = -1;
    memset(ld->touch, 0, n / 8 + 1);
    for (i = 0, o = 0; o < ld->nl; o++) {
        size_t d = 0;
        for (; i < ld->at[o]; i++) {
            const uint32_t x = ld->seq[i];
            while (d > 0 && ev[stk[d - 1]].end <= ev[x].start) {
                const uint32_t j = stk[--d];
                if (ev[j].end == ev[x].start) ld->touch[j >> 3] |= (unsigned char)(1u << (j & 7));
            }
            ld->par[x] = d ? (int32_t)stk[d - 1] : -1;
            if (d) ld->lastc[stk[d - 1]] = (int32_t)x;
            stk[d++] = x;
        }
    }
    PROF__FREE(stk);
    return 0;
}

/* The written durs, parents first, as prof__push_level writes them. */
static PROF__NI int prof__ld_durs(prof__lanedur *ld) {
    const prof__ev *ev = ld->e->ev;
    const size_t n = ld->e->n;
    size_t i;
    if (!(ld->lw = PROF__ALLOC(int64_t, n + 1)) || !(ld->reach = PROF__ALLOC(int32_t, n + 1)) || !(ld->rdep = PROF__ALLOC(int32_t, n + 1))) return -1;
    for (i = 0; i < n; i++) { ld->lw[i] = INT64_MIN; ld->rdep[i] = 0; }
    for (i = 0; i < (ld->nl ? ld->at[ld->nl - 1] : 0); i++) {
        const uint32_t x = ld->seq[i];
        const prof__ev *v = &ev[x];
        const int32_t pi = ld->par[x];
        int64_t u, w; /* u: the parent's written end, in ps after v's start */
        if (v->start <= -PROF__NEAR_NS || v->end >= PROF__NEAR_NS) continue; /* far: bounded by the tree (prof__push_level) */
        if (pi < 0) u = INT64_MAX;
        else if (ld->lw[pi] != INT64_MIN) u = (ev[pi].start - v->start) * 1000 + ld->lw[pi];
        else if (ev[pi].end < PROF__NEAR_NS) u = (ev[pi].end - v->start) * 1000; /* a far lane parent: its end, as prof__push_level bounds by a far tree parent */
        else u = INT64_MAX; /* one that ends past PROF__NEAR_NS: at least 1 ns after v, no bound */
        if (v->end == v->start) w = u < 1000 ? u / 2 : 500;
        else if ((v->end - v->start) * 1000 >= u || ((ld->touch[x >> 3] >> (x & 7)) & 1)) {
            /* as prof__sub_end, over the lane's chain of last children */
            int32_t c = (int32_t)x, below;
            int d = 0;
            if ((v->end - v->start) * 1000 < u) u = (v->end - v->start) * 1000;
            if (pi >= 0 && ld->lastc[pi] == (int32_t)x && ld->rdep[pi] >= 2) { c = ld->reach[pi]; d = ld->rdep[pi] - 1; } /* on from the parent's walk */
            while ((below = ld->lastc[c]) >= 0 && d < (1 << 30) && prof__chain_on(v, &ev[below], u)) {
                c = below;
                d++;
                ld->work++;
            }
            ld->reach[x] = c;
            ld->rdep[x] = d;
            w = prof__sub_end_in(v, u, d, c != (int32_t)x ? (ev[c].start - v->start) * 1000 : 0);
        } else w = (v->end - v->start) * 1000;
        ld->lw[x] = w > 0 ? w : 0; /* (never below: the chain had room) */
    }
    return 0;
}

static PROF__NI int prof__lane_durs(const prof_events *e, const uint32_t *ovl, size_t novl, int sort, int dev, int64_t **out) {
    prof__lanedur ld;
    size_t i;
    int rc;
    memset(&ld, 0, sizeof ld);
    ld.e = e;
    ld.ovl = ovl;
    ld.novl = novl;
    *out = NULL;
    rc = prof__ld_lanes(&ld, sort, dev);
    if (rc > 0) rc = prof__ld_order(&ld) != 0 || prof__ld_parents(&ld) != 0 || prof__ld_durs(&ld) != 0 ? -1 : 0;
    if (rc == 0) {
        *out = ld.lw;
        ld.lw = NULL;
    }
    __atomic_fetch_add(&prof__path_work, ld.work, __ATOMIC_RELAXED);
    PROF__FREE(ld.has);
    PROF__FREE(ld.touch);
    PROF__FREE(ld.order);
    PROF__FREE(ld.lane);
    PROF__FREE(ld.seq);
    PROF__FREE(ld.at);
    PROF__FREE(ld.par);
    PROF__FREE(ld.lastc);
    PROF__FREE(ld.reach);
    PROF__FREE(ld.rdep);
    PROF__FREE(ld.lw);
    for (i = 0; i < ld.ls.n; i++) PROF__FREE(ld.ls.l[i].st);
    PROF__FREE(ld.ls.l);
    prof__map_free(&ld.ls.dev);
    prof__map_free(&ld.ls.dev_id);
    return rc < 0 ? -1 : 0;
}
/* The events the JSON trace writes as pairs though no async ranges, chosen
   as prof__trace_events chooses them, for prof_export_perfetto: the
   device events among them get the pairs' category there, as its CPU
   "overlapping" lanes do. -1 without memory. */
static PROF__NI int prof__json_pairs(const prof_events *e, uint32_t **ovl, size_t *novl) {
    int on_device = 0, overlap = 0, sort = !e->in_order;
    unsigned char *bits = prof__root_touch(e, NULL, 0, &on_device, &overlap, &sort);
    *ovl = NULL;
    *novl = 0;
    if (!bits) return -1;
    PROF__FREE(bits);
    return overlap || sort ? prof__trace_overlaps(e, sort, ovl, novl, NULL) : 0;
}

/* What the trace's events share: names escaped once per site, the cache of
   strings known clean, the written ends of the current ancestors. */
#define PROF__TID_JSON 64 /* room per thread for ", \"pid\": P, \"tid\": T" */
/* The digits of a ts's part above 10^8 ns, hi > 0: base = hi * 10^8, len digits
   (prof__ts_init: hi = 1 to begin with, so that no value is ever unset). */
typedef struct prof__ts_hi { uint64_t base, digits; unsigned len; } prof__ts_hi;
/* The ids that open the args of event i, as written: one copy, and the
   digits stepped in place to event i + 1's (prof__ids_next). */
typedef struct prof__ids {
    uint64_t i;                /* the event they are for; UINT64_MAX: none */
    unsigned len;              /* bytes of t */
    unsigned ext[2], idx[2];   /* where the External id's and Ev Idx's digits start and end in t */
    char t[112];               /* ", \"args\": {\"External id\": " i + 1 ", \"Ev Idx\": " i, then zeros */
} prof__ids;
typedef struct prof__trace_ctx {
    prof_events *e;
    uint64_t pid;
    char *tid_json;            /* PROF__TID_JSON bytes per thread, or NULL */
    unsigned char *tid_json_len; /* follows tid_json in its allocation */
    const char **site_json;    /* per site: the head of its CPU events (padded by PROF__HEAD_PAD) */
    size_t *site_json_len;
    unsigned char *site_fast;  /* per site: its CPU events may take prof__w_events_fast */
    prof__clean *cache;
    prof__dec ev_idx;          /* the last event's index, as digits */
    prof__dec seq;             /* the sequence number the next op is likely to have (the last one's + 1), as digits */
    prof__ts_hi ts_hi;         /* the digits of the last ts above 10^8 ns (prof__put_ts) */
    prof__ids ids;             /* the ids of the next event (prof__w_events_fast) */
    const prof__map *calls;    /* correlation -> the CPU event of its API call, or NULL */
    prof__map owners;          /* correlation -> the op its device work is counted in (prof__trace_owners) */
    const prof__xpaths *xp;    /* the stacks' frames as written */
    int light;                 /* PROF_ARGS_LIGHT: no per-event ids */
    int args_any;              /* any event may have args past the ids: some have stacks */
    struct prof__memo *memo;   /* the stacks' strings as written, or NULL */
    unsigned char *root_touch; /* path.root_touch, owned */
    uint32_t *ovl;             /* the events written as pairs though no async ranges (prof__trace_overlaps), owned */
    size_t novl;
    int64_t *lane_w;           /* path.lane_w, owned (prof__lane_durs) */
    int on_device;             /* any event on a device (else no GPU lanes to name) */
    struct prof__tpipe *tp;    /* root_touch still being found, or NULL (prof__trace_events) */
    prof__map stream_w;        /* device lanes' streams that do not fit a tid -> their tids (prof__trace_streams) */
    prof__dur_path path;
} prof__trace_ctx;

/* Kineto's "External id" of an event that is not one of the profiler's own
   ops: the id of the op it is linked to, else its own correlation id, else
   its own index + 1. The op of GPU work and of the call that launched it
   is the one the table counts the work in (its kernel list holds it,
   prof__trace_owners), also for a call Kineto's filter left out of the
   list, as Kineto's external correlation gives both the op open at the
   launch; the op of another CUDA API call is the op it ran in. */
#define PROF__API_CALL (PROF_SITE_CUDA_RUNTIME | PROF_SITE_CUDA_DRIVER)
static PROF__NI int32_t prof__op_of(const prof_events *e, int32_t i) { /* the nearest event that is no API call */
    while (i >= 0 && (e->sites[e->ev[i].site].flags & PROF__API_CALL)) i = e->ev[i].parent;
    return i;
}
static PROF__NI uint64_t prof__linked_external_id(const prof_events *e, size_t i, const prof__trace_ctx *cx) {
    const prof__ev *v = &e->ev[i];
    const prof__extra *x = prof__x(e, v);
    uint32_t owner = x->correlation ? prof__map_get(&cx->owners, x->correlation) : UINT32_MAX;
    int32_t op = -1;
    if (owner != UINT32_MAX) {
        op = (int32_t)owner; /* the op the table counts its device work in: the call's and the work's id */
    } else if (v->device_type == PROF_DEVICE_CPU) {
        op = prof__op_of(e, v->parent);
    } else if (x->correlation && cx->calls) {
        uint32_t call = prof__map_get(cx->calls, x->correlation);
        if (call != UINT32_MAX) op = prof__op_of(e, (int32_t)call);
    }
    if (op >= 0) return (uint64_t)op + 1;
    return x->correlation ? x->correlation : (uint64_t)i + 1;
}

/* An args key: lit is ", \"key\": ", written without its comma when it is
   the first of the object (*first; only with PROF_ARGS_LIGHT, where no id
   opens the object). */
static PROF__NI void prof__w_key(prof__w *w, int *first, const char *lit, size_t n) {
    if (*first) { *first = 0; prof__w_put(w, lit + 2, n - 2); }
    else prof__w_put(w, lit, n);
}
#define PROF__W_KEY(w, first, lit) prof__w_key((w), (first), (lit), sizeof(lit) - 1) /* first: an int * */
/* ----- one event of the trace, in phases (prof__w_event) -----
   head (ph, cat, name, pid, tid), middle (ts, dur, the ids that open
   args), the rest of args (each kind its own function), the close. The
   common event takes prof__w_events_fast instead, which writes the same
   bytes in one go. */
/* An event's head. */
static PROF__NI void prof__w_ev_head(prof__w *w, const prof_events *e, const prof__ev *v, const prof__trace_ctx *cx) {
    const prof__extra *x = prof__x(e, v);
    if (v->device_type == PROF_DEVICE_CPU && !x->trace_name && cx->site_json[v->site]) {
        prof__w_put(w, cx->site_json[v->site], cx->site_json_len[v->site]); /* the event's head, made once per site */
    } else {
        PROF__W_LIT(w, "  {\"ph\": \"X\", \"cat\": \"");
        prof__w_category(w, e->sites[v->site].flags, v->device_type == PROF_DEVICE_CPU);
        PROF__W_LIT(w, "\", \"name\": ");
        prof__w_json_str(w, x->trace_name ? x->trace_name : e->sites[v->site].name);
    }
    if (v->device_type == PROF_DEVICE_CPU && cx->tid_json) {
        prof__w_put(w, cx->tid_json + (size_t)v->thread * PROF__TID_JSON, cx->tid_json_len[v->thread]);
    } else {
        PROF__W_LIT(w, ", ");
        prof__w_pid_tid(w, e, v, cx->pid, &cx->stream_w);
    }
}
/* The fixed middle of every event: ts, dur (as prof__written_dur made it
   nest) and the ids that open args; at most ~150 bytes and the 24-byte
   stores of the numbers: one room check. */
static PROF__NI void prof__w_ev_middle(prof__w *w, const prof_events *e, size_t i, prof__trace_ctx *cx, const prof__dur_level *lv) {
    const prof__ev *v = &e->ev[i];
    char *d, idx[24];
    size_t idx_len;
    if (PROF__UNLIKELY(w->cap - w->n < 192) && !prof__w_room(w, 192)) return;
    d = w->buf + w->n;
    PROF__D_LIT(d, ", \"ts\": ");
    d = prof__put_us(d, v->start);
    PROF__D_LIT(d, ", \"dur\": ");
    if (PROF__LIKELY(lv->fit < 0)) {
        d = prof__put_us(d, lv->dur);
        if (PROF__UNLIKELY(lv->ps)) { /* a sub-ns end: up to three more digits */
            d[0] = (char)('0' + lv->ps / 100);
            d[1] = (char)('0' + lv->ps / 10 % 10);
            d[2] = (char)('0' + lv->ps % 10);
            d += lv->ps % 10 ? 3 : lv->ps % 100 ? 2 : 1;
        }
    } else {
        d = prof__put_fit(d, lv->fit);
    }
    if (PROF__UNLIKELY(cx->light)) {
        PROF__D_LIT(d, ", \"args\": {");
    } else if (PROF__LIKELY(v->device_type == PROF_DEVICE_CPU && !(e->sites[v->site].flags & PROF__API_CALL))) {
        /* one of the profiler's own ops: its id and its index */
        PROF__D_LIT(d, ", \"args\": {\"External id\": ");
        if (PROF__UNLIKELY(cx->ev_idx.v != (uint64_t)i)) prof__dec_set(&cx->ev_idx, (uint64_t)i);
        idx_len = cx->ev_idx.len;
        memcpy(idx, cx->ev_idx.d + 24 - idx_len, 24);
        prof__dec_inc(&cx->ev_idx); /* i + 1, and the next event's index */
        d = prof__dec_put(d, &cx->ev_idx);
        PROF__D_LIT(d, ", \"Ev Idx\": ");
        memcpy(d, idx, 24);
        d += idx_len;
    } else {
        PROF__D_LIT(d, ", \"args\": {\"External id\": ");
        d = prof__put_u64(d, prof__linked_external_id(e, i, cx));
    }
    w->n = (size_t)(d - w->buf);
}
/* Kineto's "Call stack": the entries innermost first, each followed by
   ';' (PyTorch's stacksToStr writes the delimiter after every entry, the
   last one included).
   Events share stacks (a node of the list's stack tree each), so a
   stack's escaped string is kept by node once written, in a direct-mapped
   memo of PROF__MEMO_SLOTS strings of up to PROF__MEMO_MAX bytes, at most
   PROF__MEMO_BYTES in all per export (or worker): memory stays bounded
   whatever the trace, and other stacks are joined again. */
#define PROF__MEMO_SLOTS 1024
#define PROF__MEMO_MAX 4096
#define PROF__MEMO_BYTES ((size_t)4 << 20)
static size_t prof__memo_bytes = PROF__MEMO_BYTES; /* the budget (tests make it small) */
#define PROF__FRAG_SLOTS 1024
typedef struct prof__memo {
    struct { uint32_t node, len; const char *s; } slot[PROF__MEMO_SLOTS];
    /* an op's input shapes and stack as one piece of its args (shapes and
       stack interned, so the pair repeats: prof__w_ev_args_fast), keyed by
       both: ", \"Input Dims\": S, \"Call stack\": \"K\"", either part absent */
    struct { const char *shapes, *s; uint32_t node, len; } frag[PROF__FRAG_SLOTS];
    prof__arena arena;         /* both kinds, PROF__MEMO_BYTES at most */
    size_t bytes;
} prof__memo;
static PROF__NI void prof__w_stack_body(prof__w *w, const prof_events *e, uint32_t node, const prof__trace_ctx *cx) {
    for (; node; node = prof__node_parent(e, node)) {
        prof__w_json_body_cached(w, cx->cache, prof__xp_node(cx->xp, e, node));
        PROF__W_LIT(w, ";");
    }
}
static PROF__NI void prof__w_ev_stack(prof__w *w, const prof_events *e, uint32_t node, const prof__trace_ctx *cx, int *first) {
    prof__memo *m = cx->memo;
    PROF__W_KEY(w, first, ", \"Call stack\": \"");
    if (m && m->slot[node & (PROF__MEMO_SLOTS - 1)].node == node) {
        prof__w_put(w, m->slot[node & (PROF__MEMO_SLOTS - 1)].s, m->slot[node & (PROF__MEMO_SLOTS - 1)].len);
    } else {
        size_t at = w->n;
        uint64_t written = w->written;
        char *s;
        prof__w_stack_body(w, e, node, cx);
        /* kept when it is in the buffer whole (no flush in between) */
        if (m && w->written == written && !w->err && w->n - at <= PROF__MEMO_MAX && m->bytes + (w->n - at) <= prof__memo_bytes &&
            (s = (char *)prof__arena_alloc(&m->arena, w->n - at + 1)) != NULL) {
            memcpy(s, w->buf + at, w->n - at);
            m->slot[node & (PROF__MEMO_SLOTS - 1)].node = node;
            m->slot[node & (PROF__MEMO_SLOTS - 1)].len = (uint32_t)(w->n - at);
            m->slot[node & (PROF__MEMO_SLOTS - 1)].s = s;
            m->bytes += w->n - at;
        }
    }
    PROF__W_LIT(w, "\"");
}
/* A memo for the trace's stacks, or NULL (then each is joined again). */
static PROF__NI prof__memo *prof__memo_new(const prof_events *e) {
    prof__memo *m;
    if (!e->stk && !e->nex) return NULL; /* no stacks, no op's shapes */
    if ((m = (prof__memo *)PROF__MALLOC(sizeof *m)) != NULL) memset(m, 0, sizeof *m); /* node 0 is no stack: empty slots never match */
    return m;
}
static PROF__NI void prof__memo_free(prof__memo *m) {
    if (!m) return;
    prof__arena_free(&m->arena);
    PROF__FREE(m);
}
/* A kernel's launch, a copy's or set's bytes, a graph's ids (CUPTI). */
static PROF__NI void prof__w_ev_cuda(prof__w *w, const prof__ev *v, const prof__cuinfo *c, int *first) {
    if (c->kind == 1) {
        PROF__W_KEY(w, first, ", \"registers per thread\": ");
        prof__w_i64(w, c->registers);
        PROF__W_LIT(w, ", \"shared memory\": ");
        prof__w_i64(w, (int64_t)c->shared_static + c->shared_dynamic);
        if (c->sms) { /* Kineto's: the grid's blocks and warps of 32 threads over the SMs */
            double blocks = (double)c->grid[0] * c->grid[1] * c->grid[2] / c->sms;
            PROF__W_LIT(w, ", \"blocks per SM\": ");
            prof__w_double(w, blocks);
            PROF__W_LIT(w, ", \"warps per SM\": ");
            prof__w_double(w, blocks * ((double)c->block[0] * c->block[1] * c->block[2]) / 32.0);
        }
        PROF__W_LIT(w, ", \"grid\": [");
        prof__w_i64(w, c->grid[0]); PROF__W_LIT(w, ", "); prof__w_i64(w, c->grid[1]); PROF__W_LIT(w, ", "); prof__w_i64(w, c->grid[2]);
        PROF__W_LIT(w, "], \"block\": [");
        prof__w_i64(w, c->block[0]); PROF__W_LIT(w, ", "); prof__w_i64(w, c->block[1]); PROF__W_LIT(w, ", "); prof__w_i64(w, c->block[2]);
        PROF__W_LIT(w, "]");
        if (c->queued >= 0) { PROF__W_LIT(w, ", \"queued\": "); prof__w_us(w, c->queued); }
    } else if (c->kind == 2 || c->kind == 3) {
        PROF__W_KEY(w, first, ", \"bytes\": ");
        prof__w_u64(w, c->bytes);
        PROF__W_LIT(w, ", \"memory bandwidth (GB/s)\": ");
        prof__w_double(w, v->end > v->start ? (double)c->bytes / (double)(v->end - v->start) : 0.0);
        if (c->src_device >= 0) {
            PROF__W_LIT(w, ", \"src device\": ");
            prof__w_i64(w, c->src_device);
            PROF__W_LIT(w, ", \"dst device\": ");
            prof__w_i64(w, c->dst_device);
        }
    }
    if (c->graph_id) { /* Kineto's keys */
        PROF__W_KEY(w, first, ", \"graph id\": ");
        prof__w_u64(w, c->graph_id);
        PROF__W_LIT(w, ", \"graph node id\": ");
        prof__w_u64(w, c->graph_node);
    }
    PROF__W_KEY(w, first, ", \"context\": ");
    prof__w_u64(w, c->context);
}
/* An op's details: sequence number, forward thread, FLOPs, overload. */
static PROF__NI void prof__w_ev_op(prof__w *w, const prof__extra *x, int64_t seq, const prof__trace_ctx *cx, int *first) {
    if (seq >= 0 && !cx->light) { PROF__W_LIT(w, ", \"Sequence number\": "); prof__w_i64(w, seq); }
    if (x->has_fwd_thread) { PROF__W_KEY(w, first, ", \"Fwd thread id\": "); prof__w_u64(w, x->fwd_thread); }
    if (x->flops > 0) { PROF__W_KEY(w, first, ", \"flops\": "); prof__w_i64(w, x->flops); }
    if (x->overload_name) {
        PROF__W_KEY(w, first, ", \"Overload name\": \"");
        prof__w_json_body_cached(w, cx->cache, x->overload_name);
        PROF__W_LIT(w, "\"");
    }
}
/* An event's "Input Dims" (the JSON's args, Perfetto's annotations): its
   input shapes where it has inputs, else NULL. PyTorch writes the key only
   for an op whose recorded inputs are not empty, so a scope, a device
   event and an op of no inputs have none, with record_shapes too (the
   tables still show them with "[]", as PyTorch's do). */
static __inline__ const char *prof__dims_of(const prof__extra *x) {
    const char *s = x ? x->shapes : NULL;
    return s && !(s[0] == '[' && s[1] == ']' && !s[2]) ? s : NULL;
}
/* The args after the ids, in Kineto's order. */
static PROF__NI void prof__w_ev_args(prof__w *w, const prof_events *e, size_t i, const prof__trace_ctx *cx) {
    const prof__ev *v = &e->ev[i];
    const prof__extra *x = prof__x(e, v);
    const char *dims = prof__dims_of(x);
    uint32_t node = prof__stack_node(e, i);
    int first = cx->light;
    if (dims) {
        PROF__W_KEY(w, &first, ", \"Input Dims\": ");
        prof__w_raw_cached(w, cx->cache, dims); /* Python's repr of int lists is JSON */
    }
    if (node) prof__w_ev_stack(w, e, node, cx, &first);
    if (v->device_type != PROF_DEVICE_CPU) {
        PROF__W_KEY(w, &first, ", \"device\": ");
        prof__w_i64(w, x->device_index);
        PROF__W_LIT(w, ", \"stream\": ");
        prof__w_i64(w, prof__stream_of(e, v));
    }
    if (x->cbid) { PROF__W_KEY(w, &first, ", \"cbid\": "); prof__w_u64(w, x->cbid); } /* (not an id of the event: light too) */
    if (x->correlation && !cx->light) { PROF__W_LIT(w, ", \"correlation\": "); prof__w_u64(w, x->correlation); }
    if (x->cu) prof__w_ev_cuda(w, v, x->cu, &first);
    if (v->extra) prof__w_ev_op(w, x, prof__seq_nr(e, v), cx, &first);
}
/* An async range (PROF_ASYNC_BEGIN/END, PROF_EVENT_ASYNC on the CPU): a
   nestable async pair, "b" at its start with the args an "X" would have
   and "e" at its end, both on the beginning thread, "id" the event's index
   as "0x..." (unique in the trace; the recorded id is not kept). Not an
   "X": a range need not nest in the thread's scopes, and an "X" that
   overlaps one makes DevTools drop that scope from its call tree
   (speedscope warns). cat "blink.user_timing": DevTools' trace engine
   draws such pairs as measures on its Timings track and ignores other
   categories'; Perfetto puts each on an async track of the process (by
   cat, id and name); speedscope leaves them out. */
static PROF__NI void prof__w_async_pair(prof__w *w, prof_events *e, size_t i, prof__trace_ctx *cx) {
    const prof__ev *v = &e->ev[i];
    const prof__extra *x = prof__x(e, v);
    char id[24];
    int phase;
    snprintf(id, sizeof id, "0x%llx", (unsigned long long)i);
    for (phase = 0; phase < 2 && !w->err; phase++) {
        char *d;
        PROF__W_LIT(w, "  {\"ph\": \"");
        prof__w_put(w, phase ? "e" : "b", 1);
        PROF__W_LIT(w, "\", \"cat\": \"blink.user_timing\", \"name\": ");
        prof__w_json_str(w, x->trace_name ? x->trace_name : e->sites[v->site].name);
        PROF__W_LIT(w, ", \"id\": \"");
        prof__w_str(w, id);
        PROF__W_LIT(w, "\", ");
        prof__w_pid_tid(w, e, v, cx->pid, &cx->stream_w);
        if (!prof__w_room(w, 64)) return;
        d = w->buf + w->n;
        PROF__D_LIT(d, ", \"ts\": ");
        d = prof__put_us(d, phase ? v->end : v->start);
        w->n = (size_t)(d - w->buf);
        if (phase) { PROF__W_LIT(w, "},\n"); break; }
        if (cx->light) {
            PROF__W_LIT(w, ", \"args\": {");
        } else {
            /* as prof__w_ev_middle: a device event (a kernel or sync
               record overlapping another on its stream) carries its op's id */
            int own = v->device_type == PROF_DEVICE_CPU && !(e->sites[v->site].flags & PROF__API_CALL);
            PROF__W_LIT(w, ", \"args\": {\"External id\": ");
            prof__w_u64(w, own ? (uint64_t)i + 1 : prof__linked_external_id(e, i, cx));
            if (own) { PROF__W_LIT(w, ", \"Ev Idx\": "); prof__w_u64(w, (uint64_t)i); }
        }
        if (v->extra || cx->args_any) prof__w_ev_args(w, e, i, cx);
        PROF__W_LIT(w, "}},\n");
    }
}
static PROF__NI void prof__w_event(prof__w *w, prof_events *e, size_t i, prof__trace_ctx *cx) {
    const prof__ev *v = &e->ev[i];
    const prof__dur_level *lv;
    if (v->flags & PROF__F_MEMROW) return; /* PyTorch leaves its [memory] events out; the records are the [memory] instants */
    if (PROF__UNLIKELY(v->flags & PROF__F_ASYNC) && v->device_type == PROF_DEVICE_CPU) { prof__w_async_pair(w, e, i, cx); return; }
    if (PROF__UNLIKELY(cx->novl)) {
        size_t k = prof__overlap_at(cx->ovl, cx->novl, i);
        if (k < cx->novl && cx->ovl[k] == i) { prof__w_async_pair(w, e, i, cx); return; }
    }
    if (!(lv = prof__written_dur(e, i, &cx->path))) { w->err = ENOMEM; return; }
    prof__w_ev_head(w, e, v, cx);
    prof__w_ev_middle(w, e, i, cx, lv);
    if (v->extra || cx->args_any) prof__w_ev_args(w, e, i, cx);
    PROF__W_LIT(w, "}},\n");
}

/* ----- the common event, in one go (prof__w_events_fast) -----
   Most events of a trace are CPU events of one of the profiler's own ops
   (no API call, no trace name of their own) that end before their parent
   in the range where no rounding can reverse that (prof__written_dur's
   common case: a root, or the child of the event on the path, its dur its
   own, 1 ns less when its follower starts where it ends). Those are
   written here at a cursor after one room check: the site's head and the
   thread's pid and tid (made once per export) in fixed moves, ts, dur
   and the ids, with no call but for the args of events that have any,
   and no branch on what goes either way from event to event (whether it
   touches its follower, whether it is a leaf, the head's length up to
   PROF__HEAD_MOVE): a mispredicted branch costs ~15 cycles, more than
   the work it saves (callgrind's branch simulation: 2.1 mispredicted
   branches an event before, 0.5 after, for ~25 more instructions).
   The bytes are prof__w_event's (test_fast_same_bytes). */
#define PROF__HEAD_PAD 32 /* a site's head is readable to PROF__HEAD_MOVE bytes, or its length rounded up to 32 */
#define PROF__HEAD_MOVE 96 /* a head's first bytes, moved whatever its length: most heads fit (no branch per event) */
#define PROF__FAST_ROOM 256 /* past the head: pid and tid (<= 48), two numbers (<= 32 each), ids (<= 2 x 24), literals */
static const char prof__lit_ts[16] = ", \"ts\": ";
static const char prof__lit_dur[16] = ", \"dur\": ";
static const char prof__lit_ext[32] = ", \"args\": {\"External id\": ";
static const char prof__lit_idx[16] = ", \"Ev Idx\": ";
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
/* The fast path's eight digits from a table of every 4-digit group
   (40 KB, filled once): two loads instead of prof__digits8's lanes, 9
   instructions instead of 22 for each of ts and dur. */
static uint32_t prof__dig4[10000];
static pthread_once_t prof__dig4_once = PTHREAD_ONCE_INIT;
static void prof__dig4_fill(void) { /* the digits in memory order: the first in the low byte */
    uint32_t a, b, c, e, k = 0;
    for (a = 0; a < 10; a++)
        for (b = 0; b < 10; b++)
            for (c = 0; c < 10; c++)
                for (e = 0; e < 10; e++) prof__dig4[k++] = 0x30303030u + a + (b << 8) + (c << 16) + (e << 24);
}
static PROF__ALWAYS uint64_t prof__digits8_tab(uint32_t v) { /* as prof__digits8 (v < 10^8), prof__dig4 filled */
    uint32_t h = (uint32_t)(((uint64_t)v * 109951163u) >> 40); /* v / 10^4 */
    return (uint64_t)prof__dig4[h] | (uint64_t)prof__dig4[v - h * 10000u] << 32;
}
/* prof__put_us from the table: ns < 10^8 (dur: nearly always) inline. */
static PROF__ALWAYS char *prof__put_us_tab(char *d, int64_t ns) {
    if (PROF__LIKELY((uint64_t)ns < 100000000u)) {
        uint64_t x = prof__digits8_tab((uint32_t)ns);
        return prof__put_us8(d, x, (unsigned)__builtin_ctzll((x & PROF__DIGIT_BITS) | ((uint64_t)1 << 32)) >> 3);
    }
    return prof__put_us(d, ns);
}
#endif
static PROF__NI void prof__ts_set(prof__ts_hi *m, uint64_t hi) { /* 0 < hi < 10^8 */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    m->digits = prof__digits_nz((uint32_t)hi, &m->len);
#endif
    m->base = hi * 100000000u;
}
static PROF__NI void prof__ts_init(prof__ts_hi *m) { prof__ts_set(m, 1); }
/* An event's ts: the same digits as prof__put_us, with those above 10^8 ns
   (100 ms) kept from the last event (events come in start order): one
   subtraction tells whether they still hold (a ts below base wraps past
   10^8, as does a negative one). */
static PROF__ALWAYS char *prof__put_ts(char *d, int64_t ns, prof__ts_hi *m) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    uint64_t lo = (uint64_t)ns - m->base;
    if (PROF__UNLIKELY(lo >= 100000000u)) {
        if ((uint64_t)ns - 100000000u >= 10000000000000000u - 100000000u) return prof__put_us(d, ns); /* not in [10^8, 10^16) */
        prof__ts_set(m, (uint64_t)ns / 100000000u);
        lo = (uint64_t)ns - m->base;
    }
    memcpy(d, &m->digits, 8);
    return prof__put_us8(d + m->len, prof__digits8_tab((uint32_t)lo), 0);
#else
    (void)m;
    return prof__put_us(d, ns);
#endif
}
static PROF__NI void prof__ids_set(prof__ids *c, uint64_t i) {
    char *d = c->t;
    memset(c->t, 0, sizeof c->t);
    memcpy(d, prof__lit_ext, 26);
    c->ext[0] = 26;
    d = prof__put_u64(d + 26, i + 1);
    c->ext[1] = (unsigned)(d - c->t);
    memcpy(d, prof__lit_idx, 12);
    c->idx[0] = c->ext[1] + 12;
    d = prof__put_u64(d + 12, i);
    c->idx[1] = (unsigned)(d - c->t);
    memset(d, 0, (size_t)(c->t + sizeof c->t - d)); /* past the digits: the fixed moves copy zeros */
    c->len = c->idx[1];
    c->i = i;
}
/* The number in t[at[0], at[1]) plus one in place; 0 when its digits are
   all 9s (it grows: the caller sets them again). */
static PROF__ALWAYS int prof__ids_inc(char *t, const unsigned *at) {
    char *p = t + at[1] - 1;
    while (*p == '9') {
        *p = '0';
        if (p-- == t + at[0]) return 0;
    }
    (*p)++;
    return 1;
}
static PROF__NI void prof__ids_next(prof__ids *c) {
    if (PROF__LIKELY(prof__ids_inc(c->t, c->ext) && prof__ids_inc(c->t, c->idx))) c->i++;
    else prof__ids_set(c, c->i + 1);
}
/* The args after the ids of a CPU event with none but input shapes, a
   stack, a sequence number and FLOPs (an op, or a plain scope with its
   stack), its stack's string in the memo: written at the cursor with the
   close, as prof__w_ev_args and prof__w_event would. 0 when the event has
   others or the string is not in the memo (nothing written). */
static const char prof__lit_dims[32] = ", \"Input Dims\": ";
static const char prof__lit_stack[32] = ", \"Call stack\": \"";
static const char prof__lit_seq[32] = ", \"Sequence number\": ";
static const char prof__lit_flops[32] = ", \"flops\": "; /* 32: read 16 from + 2 (light: no comma) */
static const char prof__lit_stack_end[8] = "\"}},\n";
/* The fragment of shapes and stack (prof__memo.frag) made and kept; NULL
   when it is too long or the memo is full (the caller writes the parts). */
static PROF__NI const char *prof__frag_make(prof__memo *m, const prof_events *e, const char *shapes, uint32_t node, const prof__trace_ctx *cx, size_t slot) {
    char tmp[PROF__MEMO_MAX];
    prof__w t;
    char *s;
    if (m->bytes >= prof__memo_bytes) return NULL;
    prof__w_mem(&t, tmp, sizeof tmp);
    if (shapes) { PROF__W_LIT(&t, ", \"Input Dims\": "); prof__w_str(&t, shapes); } /* as prof__w_ev_args writes them */
    if (node) { PROF__W_LIT(&t, ", \"Call stack\": \""); prof__w_stack_body(&t, e, node, cx); PROF__W_LIT(&t, "\""); }
    if (t.err || m->bytes + t.n > prof__memo_bytes || !(s = (char *)prof__arena_alloc(&m->arena, t.n + 1))) return NULL;
    memcpy(s, tmp, t.n);
    s[t.n] = 0;
    m->bytes += t.n;
    m->frag[slot].shapes = shapes;
    m->frag[slot].node = node;
    m->frag[slot].len = (uint32_t)t.n;
    m->frag[slot].s = s;
    return s;
}
static PROF__NI int prof__w_ev_args_fast(prof__w *w, const prof_events *e, size_t i, prof__trace_ctx *cx) {
    const prof__ev *v = &e->ev[i];
    const prof__extra *x = prof__xr(e, v);
    int64_t seq = prof__seq_nr(e, v);
    prof__memo *m = cx->memo;
    const char *shapes = prof__dims_of(x), *stack = NULL, *frag = NULL;
    uint32_t node = prof__stack_node(e, i);
    size_t sn = 0, kn = 0, fn = 0, skip = (size_t)(cx->light ? 2 : 0); /* light: the first key of args has no comma */
    char *d;
    if (x && (x->cu || x->correlation || x->overload_name || x->has_fwd_thread)) return 0;
    if ((shapes || node) && m) { /* one piece for both, made once per pair */
        size_t slot = (size_t)((((uintptr_t)shapes >> 3) ^ ((uint64_t)node * 0x9E3779B1u)) & (PROF__FRAG_SLOTS - 1));
        if (m->frag[slot].s && m->frag[slot].shapes == shapes && m->frag[slot].node == node) frag = m->frag[slot].s;
        else frag = prof__frag_make(m, e, shapes, node, cx, slot);
        if (frag) fn = m->frag[slot].len;
    }
    if (!frag) {
        if (node) {
            if (!m || m->slot[node & (PROF__MEMO_SLOTS - 1)].node != node) return 0;
            stack = m->slot[node & (PROF__MEMO_SLOTS - 1)].s;
            kn = m->slot[node & (PROF__MEMO_SLOTS - 1)].len;
        }
        if (shapes) {
            if (!cx->cache) return 0;
            sn = prof__clean_of(cx->cache, shapes)->len;
        }
    }
    if (PROF__UNLIKELY(w->cap - w->n < fn + sn + kn + 160) && !prof__w_room(w, fn + sn + kn + 160)) return 1;
    d = w->buf + w->n;
    if (frag) {
        memcpy(d, frag + skip, fn - skip);
        d += fn - skip;
        skip = 0;
    } else {
        if (shapes) {
            memcpy(d, prof__lit_dims + skip, 16);
            d += 16 - skip;
            memcpy(d, shapes, sn); /* Python's repr of int lists is JSON */
            d += sn;
            skip = 0;
        }
        if (node) {
            memcpy(d, prof__lit_stack + skip, 16);
            d += 17 - skip;
            d[-1] = '"';
            memcpy(d, stack, kn);
            d += kn;
            *d++ = '"';
            skip = 0;
        }
    }
    if (seq >= 0 && !cx->light) { /* ops' numbers mostly go up by one: stepped in place */
        memcpy(d, prof__lit_seq, 32);
        if (PROF__UNLIKELY(cx->seq.v != (uint64_t)seq)) prof__dec_set(&cx->seq, (uint64_t)seq);
        d = prof__dec_put(d + 21, &cx->seq);
        prof__dec_inc(&cx->seq);
    }
    if (x && x->flops > 0) {
        memcpy(d, prof__lit_flops + skip, 16);
        d = prof__put_u64(d + 11 - skip, (uint64_t)x->flops);
    }
    memcpy(d, "}},\n", 4);
    w->n = (size_t)(d + 4 - w->buf);
    return 1;
}
/* The same for the commonest case: a plain scope's stack alone, inline. */
static __inline__ int prof__w_ev_stack_fast(prof__w *w, const prof_events *e, size_t i, const prof__trace_ctx *cx) {
    uint32_t node = prof__stack_node(e, i);
    const prof__memo *m = cx->memo;
    size_t n, skip = (size_t)(cx->light ? 2 : 0);
    char *d;
    if (!node) {
        PROF__W_LIT(w, "}},\n");
        return 1;
    }
    if (!m || m->slot[node & (PROF__MEMO_SLOTS - 1)].node != node) return 0;
    n = m->slot[node & (PROF__MEMO_SLOTS - 1)].len;
    if (PROF__UNLIKELY(w->cap - w->n < n + 64) && !prof__w_room(w, n + 64)) return 1;
    d = w->buf + w->n;
    memcpy(d, prof__lit_stack + skip, 16);
    d += 17 - skip;
    d[-1] = '"';
    memcpy(d, m->slot[node & (PROF__MEMO_SLOTS - 1)].s, n);
    memcpy(d + n, prof__lit_stack_end, 8);
    w->n = (size_t)(d + n + 5 - w->buf);
    return 1;
}
/* A run of common events (prof__w_events_fast) keeps what it reads per
   event in this struct, a local of the run: the output's stores are char
   stores, which may alias anything, so fields read through cx or e would
   be read again after each store, while a local whose address goes to no
   call stays in registers. What the run changes (the path's depth, the
   ts's high digits, the ids' event) is stored back before any call
   (prof__fast_sync) and at the end. */
typedef struct prof__fast {
    const prof__ev *ev;
    const prof__extra *ex;
    const prof__seqx *sx;
    const char *const *site_json;
    const size_t *site_len;
    const unsigned char *site_fast, *tid_len, *root_touch;
    const char *tid_json;
    int light, args_any;
    const uint32_t *stk;
    size_t capstk;
    const prof__memo *memo;
    prof__dur_path *path;
    prof__dur_level *lv;
    int cap, n;                /* the path's room and depth */
    uint32_t tag;              /* its thread */
    prof__ts_hi ts;
    prof__ids *ids;
    unsigned id_len;
    char *ext_last, *idx_last; /* the ids' last digits */
    char *buf;                 /* w's buffer, cursor and room */
    size_t pos, wcap;
} prof__fast;
static PROF__ALWAYS void prof__fast_begin(prof__fast *f, const prof__w *w, const prof_events *e, prof__trace_ctx *cx) {
    f->ev = e->ev;
    f->ex = e->ex;
    f->sx = e->sx;
    f->site_json = cx->site_json;
    f->site_len = cx->site_json_len;
    f->site_fast = cx->site_fast;
    f->tid_json = cx->tid_json;
    f->tid_len = cx->tid_json_len;
    f->root_touch = cx->path.root_touch;
    f->light = cx->light;
    f->args_any = cx->args_any;
    f->stk = e->stk;
    f->capstk = e->capstk;
    f->memo = cx->memo;
    f->path = &cx->path;
    f->lv = cx->path.lv;
    f->cap = cx->path.cap;
    f->n = cx->path.n;
    f->tag = cx->path.tag;
    f->ts = cx->ts_hi;
    f->ids = &cx->ids;
    f->buf = w->buf;
    f->pos = w->n;
    f->wcap = w->cap;
}
/* The ids' length and last digits, after they were set or carried. */
static PROF__ALWAYS void prof__fast_ids_load(prof__fast *f) {
    f->id_len = f->ids->len;
    f->ext_last = f->ids->t + f->ids->ext[1] - 1;
    f->idx_last = f->ids->t + f->ids->idx[1] - 1;
}
/* The writer and the path as the run left them, before a call. */
static PROF__ALWAYS void prof__fast_sync(const prof__fast *f, prof__w *w) {
    w->n = f->pos;
    f->path->n = f->n;
}
static PROF__ALWAYS void prof__fast_reload(prof__fast *f, const prof__w *w) {
    f->buf = w->buf;
    f->pos = w->n;
    f->wcap = w->cap;
}
/* Whether event i is a common one: one of the profiler's own CPU ops,
   its parent on the path (not so for a chunk's first events: the path is
   rebuilt), in the exact range. If so, *top is its parent's level (-1
   for a root, with *root_touches: whether it touches its lane's next
   top-level event); if not, it ends the run. */
static PROF__ALWAYS int prof__fast_parent(prof__fast *f, const prof__ev *v, size_t i, int *top, int *root_touches) {
    const int32_t c = v->parent;
    const uint32_t extra = PROF__UNLIKELY(v->flags & PROF__F_SEQX) ? f->sx[v->extra].ex : v->extra;
    if (v->device_type != PROF_DEVICE_CPU || (v->flags & (PROF__F_MEMROW | PROF__F_ASYNC)) || !f->site_fast[v->site] || (extra && f->ex[extra].trace_name)) return 0;
    *root_touches = 0;
    *top = -1;
    if (PROF__UNLIKELY(v->thread != f->tag)) { /* another thread's path (through f->path, not f: f stays in registers) */
        f->path->n = f->n;
        prof__path_switch(f->path, v->thread);
        f->lv = f->path->lv;
        f->cap = f->path->cap;
        f->n = f->path->n;
        f->tag = v->thread;
    }
    if (c >= 0) {
        int t = f->path->hint[c & 63];
        if (PROF__UNLIKELY((unsigned)t >= (unsigned)f->n || f->lv[t].idx != c) && (t = prof__lv_find(f->lv, f->n, f->path->hint, c)) < 0) return 0;
        if (!(v->end < f->lv[t].lim)) return 0;
        *top = t;
    } else {
        if (!(v->end < PROF__EXACT_NS)) return 0;
        *root_touches = v->next_sibling < 0 && (!f->root_touch || ((__atomic_load_n(&f->root_touch[i >> 3], __ATOMIC_RELAXED) >> (i & 7)) & 1));
    }
    return v->start > -PROF__EXACT_NS && *top + 2 <= f->cap;
}
/* prof__touches_next, without a branch on the data: whether an event
   touches its follower, and whether it is a leaf, go either way from
   event to event, and a mispredicted branch costs more than the work.
   Without a next sibling, the event itself stands in: it "touches" only
   when it has zero length; a top-level one's is in root_touch. Returns
   the written dur; *rare: the event is left to prof__w_event (its dur
   would be 0, or it touches and has children, whose room it checks). */
static PROF__ALWAYS int64_t prof__fast_dur(const prof__fast *f, const prof__ev *v, size_t i, int root_touches, int *rare) {
    const int32_t next = v->next_sibling;
    const size_t has_next = (size_t)0 - (size_t)(next >= 0); /* all ones or 0: a mask, which compilers keep (a ?: they may not) */
    const int touches = (f->ev[i ^ ((i ^ (size_t)(uint32_t)next) & has_next)].start == v->end) | root_touches;
    const int64_t dur = v->end - v->start - touches;
    *rare = (dur <= 0) | (touches & (v->first_child >= 0)); /* a sub-ns end, or one that looks at the children: prof__push_level */
    return dur;
}
/* The event's level, pushed: a leaf's is written too but left off the
   path (nothing looks it up; lv has room: top + 2 <= cap). */
static PROF__ALWAYS void prof__fast_push(prof__fast *f, const prof__ev *v, size_t i, int top, int64_t start, int64_t dur) {
    const size_t leaf = (size_t)((uint32_t)v->first_child >> 31);
    prof__dur_level *l = &f->lv[top + 1];
    l->idx = (int32_t)i;
    l->start = start;
    l->dur = dur;
    l->ps = 0;
    l->rdepth = 0;
    l->lim = start + dur; /* in the exact range: start > -PROF__EXACT_NS, end < PROF__EXACT_NS */
    l->has_end_d = 0;     /* fit is not set: only the level prof__written_dur returns is read for it */
    f->path->hint[(i & 63) | leaf << 6] = top + 1; /* a leaf's goes to [64, 128): it would push out its parent's */
    f->n = top + 2 - (int)leaf;
}
/* The site's head and the thread's pid and tid, in fixed moves. */
static PROF__ALWAYS char *prof__fast_head(const prof__fast *f, char *d, uint32_t site, size_t hn, uint32_t thr) {
    const char *head = f->site_json[site];
    size_t k;
    memcpy(d, head, PROF__HEAD_MOVE);
    for (k = PROF__HEAD_MOVE; PROF__UNLIKELY(k < hn); k += 32) memcpy(d + k, head + k, 32);
    d += hn;
    memcpy(d, f->tid_json + (size_t)thr * PROF__TID_JSON, 48); /* ", \"pid\": P, \"tid\": T" is 48 bytes at most */
    return d + f->tid_len[thr];
}
/* ts and dur. */
static PROF__ALWAYS char *prof__fast_times(prof__fast *f, char *d, int64_t start, int64_t dur) {
    memcpy(d, prof__lit_ts, 16);
    d = prof__put_ts(d + 8, start, &f->ts);
    memcpy(d, prof__lit_dur, 16);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    return prof__put_us_tab(d + 9, dur);
#else
    return prof__put_us(d + 9, dur);
#endif
}
/* The ids that open args (event i's), stepped to event i + 1's. */
static PROF__ALWAYS char *prof__fast_ids(prof__fast *f, char *d, size_t i) {
    if (PROF__UNLIKELY(f->light)) {
        PROF__D_LIT(d, ", \"args\": {");
        return d;
    }
    memcpy(d, f->ids->t, 64);
    if (PROF__UNLIKELY(f->id_len > 64)) memcpy(d + 64, f->ids->t + 64, 48); /* 26 + 20 + 12 + 20 = 78 at most */
    d += f->id_len;
    if (PROF__LIKELY((unsigned char)(*f->ext_last - '1') < 8)) { /* 1..8: neither number carries (i's last digit is 0..7) */
        (*f->ext_last)++;
        (*f->idx_last)++;
    } else {
        f->ids->i = (uint64_t)i;
        prof__ids_next(f->ids);
        prof__fast_ids_load(f);
    }
    return d;
}
/* A plain scope's stack string from the memo (or none), with the close, at
   the cursor; 0 when it is not in the memo or the buffer lacks room
   (nothing written). */
static PROF__ALWAYS int prof__fast_stack(prof__fast *f, char *d, size_t i) {
    const uint32_t node = i < f->capstk ? f->stk[i] : 0;
    const prof__memo *m = f->memo;
    size_t kn;
    if (!node) {
        memcpy(d, "}},\n", 4);
        f->pos = (size_t)(d + 4 - f->buf);
        return 1;
    }
    if (!m || m->slot[node & (PROF__MEMO_SLOTS - 1)].node != node ||
        f->wcap - (size_t)(d - f->buf) < (kn = m->slot[node & (PROF__MEMO_SLOTS - 1)].len) + 64) return 0;
    memcpy(d, prof__lit_stack + 2 * f->light, 16); /* light: the first key of args has no comma */
    d += 17 - 2 * f->light;
    d[-1] = '"';
    memcpy(d, m->slot[node & (PROF__MEMO_SLOTS - 1)].s, kn);
    memcpy(d + kn, prof__lit_stack_end, 8);
    f->pos = (size_t)(d + kn + 5 - f->buf);
    return 1;
}
/* The args past the ids and the close, at w's cursor (plain: a plain
   scope's stack alone). */
static PROF__NI void prof__w_ev_rest(prof__w *w, const prof_events *e, size_t i, prof__trace_ctx *cx, int plain) {
    if (!(plain ? prof__w_ev_stack_fast(w, e, i, cx) : prof__w_ev_args_fast(w, e, i, cx))) {
        prof__w_ev_args(w, e, i, cx);
        PROF__W_LIT(w, "}},\n");
    }
}
/* The same from the run, which hands its cursor over and takes it back;
   0 after an error. */
static PROF__ALWAYS int prof__fast_rest(prof__fast *f, prof__w *w, char *d, const prof_events *e, size_t i, prof__trace_ctx *cx, int plain) {
    f->pos = (size_t)(d - f->buf);
    prof__fast_sync(f, w);
    prof__w_ev_rest(w, e, i, cx, plain);
    prof__fast_reload(f, w);
    return !w->err;
}
/* Room for the event at the cursor, its head hn bytes (a flush may come
   first); 0 after an error (w->err set: the export stops). */
static PROF__ALWAYS int prof__fast_room(prof__fast *f, prof__w *w, size_t hn) {
    const size_t need = hn + PROF__FAST_ROOM;
    if (PROF__LIKELY(f->wcap - f->pos >= need)) return 1;
    w->n = f->pos;
    if (!prof__w_room(w, need)) return 0;
    prof__fast_reload(f, w);
    return 1;
}
/* Events from i on while they are common ones (see above), up to end or
   an error; returns the first it did not write. */
static PROF__NI size_t prof__w_events_fast(prof__w *w, const prof_events *e, size_t i, size_t end, prof__trace_ctx *cx) {
    prof__fast f;
    int ids_ready = cx->light || cx->ids.i == (uint64_t)i;
    prof__fast_begin(&f, w, e, cx);
    /* the ids are set for the run's first event if it may be a common one
       (else the loop ends at once, and a device event or an API call does
       not pay for them), then follow i through the run */
    if (!ids_ready && i < end && f.ev[i].device_type == PROF_DEVICE_CPU && f.site_fast[f.ev[i].site]) {
        prof__ids_set(f.ids, (uint64_t)i);
        ids_ready = 1;
    }
    prof__fast_ids_load(&f);
    for (; i < end; i++) {
        const prof__ev *v = &f.ev[i];
        const int64_t start = v->start; /* read once: the stores below may alias the event */
        const uint32_t site = v->site;
        int root_touches, top, rare;
        int64_t dur;
        size_t hn;
        char *d;
        if (!prof__fast_parent(&f, v, i, &top, &root_touches) || !prof__fast_room(&f, w, hn = f.site_len[site])) break;
        dur = prof__fast_dur(&f, v, i, root_touches, &rare);
        if (PROF__UNLIKELY(rare)) break; /* prof__w_event writes it */
        prof__fast_push(&f, v, i, top, start, dur);
        d = prof__fast_head(&f, f.buf + f.pos, site, hn, v->thread);
        d = prof__fast_times(&f, d, start, dur);
        d = prof__fast_ids(&f, d, i);
        if (PROF__LIKELY(!(v->extra | (uint32_t)f.args_any))) {
            memcpy(d, "}},\n", 4);
            f.pos = (size_t)(d + 4 - f.buf);
        } else if (!(!v->extra && prof__fast_stack(&f, d, i)) && !prof__fast_rest(&f, w, d, e, i, cx, !v->extra)) {
            i++;
            break;
        }
    }
    prof__fast_sync(&f, w);
    cx->ts_hi = f.ts;
    if (ids_ready && !f.light) f.ids->i = (uint64_t)i; /* the ids of event i (the first not written here) */
    return i;
}
static int prof__trace_fast = 1; /* 0: every event through prof__w_event (tests compare the bytes) */
/* Events [i, end) of the trace, until an error. */
static PROF__NI void prof__w_events(prof__w *w, prof_events *e, size_t i, size_t end, prof__trace_ctx *cx) {
    /* a trace with lane bounds (rare: events that overlap) is written by
       prof__w_event alone, which costs it ~11% more instructions, rather
       than a test per event in the fast runs, which cost every trace ~0.7% */
    if (!prof__trace_fast || cx->lane_w) {
        for (; i < end && !w->err; i++) prof__w_event(w, e, i, cx);
        return;
    }
    while (i < end && !w->err) {
        size_t stop = end; /* the fast runs stop at an event written as a pair */
        if (PROF__UNLIKELY(cx->novl)) {
            size_t k = prof__overlap_at(cx->ovl, cx->novl, i);
            if (k < cx->novl && cx->ovl[k] < end) stop = cx->ovl[k];
        }
        i = prof__w_events_fast(w, e, i, stop, cx);
        if (i < end && !w->err) prof__w_event(w, e, i++, cx);
    }
}

/* root_touch found while the events are written. The pass of
   prof__root_touch reads every event before the first byte of them can
   go out: with the writes of a big trace serialised by the file (its
   inode lock), that pass (5-15 ms for 1M events here, against 40-60 ms of
   write(2)) came whole on top of them. So a big trace written to its
   temporary file starts on the guess that its events nest (most do:
   every recorded list without async ranges or steps cut across scopes)
   and are on the CPU (no use_device), and finds the bits as it goes: a
   worker, before it formats a chunk, scans on until every top-level event
   before the chunk's end has met its lane's next one (or the list ends),
   under the pipe's lock, one worker at a time, a step of chunks at once.
   An event that overlaps (a pair, then) or one on a device proves the
   guess wrong: the export stops (PROF__W_REDO), empties its temporary file
   and writes it again, with the whole pass first, so the bytes are always
   those of prof__root_touch's bits. A bit is set while a worker may read
   its byte's others: atomic or and loads (relaxed: a worker reads only
   bits the pipe's lock has published to it). */
#define PROF__TP_STEP ((size_t)1 << 13) /* events scanned per turn */
typedef struct prof__tpipe {
    pthread_mutex_t lock;
    prof__touch_part part;     /* the scan: lo = events scanned, last = each thread's pending top-level event */
    size_t resolved;           /* every top-level event below it has its final bit */
    int abort;                 /* the guess failed: start over */
} prof__tpipe;
/* Whether every bit below `end` is final (else the guess failed). The
   scan keeps ahead, to four times `end`: it ends when a quarter of the
   events are written, so a guess that fails wastes at most that much.
   A worker whose bits are final does not wait while the other scans. */
static PROF__NI int prof__tp_ensure(prof__tpipe *tp, size_t end) {
    prof__touch_part *p = &tp->part;
    const size_t nslots = p->e->nthr + 1, n = p->e->n, want = end < n / 4 && 4 * end + PROF__TP_STEP < n ? 4 * end + PROF__TP_STEP : n;
    size_t t, r;
    for (;;) {
        if (__atomic_load_n(&tp->resolved, __ATOMIC_ACQUIRE) >= end) {
            if (pthread_mutex_trylock(&tp->lock) != 0) return 1;
        } else {
            pthread_mutex_lock(&tp->lock);
        }
        if (tp->abort || (tp->resolved >= end && p->lo >= want)) break;
        p->hi = n - p->lo > PROF__TP_STEP ? p->lo + PROF__TP_STEP : n;
        prof__touch_scan(p);
        if (p->overlap || p->dev || p->oom) { tp->abort = 1; break; }
        p->lo = r = p->hi;
        if (r < n) /* the pending events have not met their next */
            for (t = 0; t < nslots; t++) if (p->last[t] != UINT32_MAX && p->last[t] < r) r = p->last[t];
        __atomic_store_n(&tp->resolved, r, __ATOMIC_RELEASE); /* after the bits it publishes */
        pthread_mutex_unlock(&tp->lock);
    }
    r = !tp->abort;
    pthread_mutex_unlock(&tp->lock);
    return (int)r;
}

/* The trace's events in parallel (prof__par_items): each worker has its
   own context (its own cache of clean strings and its own paths of
   ancestors) and starts each chunk at the chunk's first index. */
static void *prof__trace_worker_open(const void *proto) {
    prof__trace_ctx *cx = (prof__trace_ctx *)PROF__MALLOC(sizeof *cx);
    if (!cx) return NULL;
    *cx = *(const prof__trace_ctx *)proto;
    cx->path.lv = NULL; /* its own paths */
    cx->path.chain = NULL;
    cx->path.lanes = NULL;
    cx->path.lastc = NULL;
    cx->path.work = 0;
    cx->path.n = cx->path.cap = 0;
    cx->memo = prof__memo_new(cx->e); /* optional, its own */
    cx->cache = PROF__ALLOC(prof__clean, PROF__CLEAN_SLOTS); /* optional */
    if (cx->cache) memset(cx->cache, 0, PROF__CLEAN_SLOTS * sizeof *cx->cache);
    return cx;
}
static void prof__trace_worker_chunk(void *ctx, size_t first) {
    prof__trace_ctx *cx = (prof__trace_ctx *)ctx;
    /* the paths stay: whatever a path holds is a chain of ancestors, each
       level as written, so the chunk's first events cut it back to their
       parents' and push only what changed since (prof__path_rebuild) */
    prof__dec_set(&cx->ev_idx, first);
}
static void prof__trace_worker_items(prof__w *w, void *ctx, size_t first, size_t end) {
    prof__trace_ctx *cx = (prof__trace_ctx *)ctx;
    if (cx->tp && !prof__tp_ensure(cx->tp, end)) { w->err = PROF__W_REDO; return; }
    prof__w_events(w, cx->e, first, end, cx);
}
static void prof__trace_worker_close(void *ctx) {
    prof__trace_ctx *cx = (prof__trace_ctx *)ctx;
    prof__path_free(&cx->path);
    prof__memo_free(cx->memo);
    PROF__FREE(cx->cache);
    PROF__FREE(cx);
}
static const prof__par_ops prof__trace_par_ops = { prof__trace_worker_open, prof__trace_worker_chunk, prof__trace_worker_items, prof__trace_worker_close };

/* The phases of prof_export_chrome_trace, in file order: top-level keys,
   the events (prof__w_event, maybe in parallel), instants, flows, GPU lanes,
   memory instants, the process's and threads' metadata events. */
/* The trace's top-level keys, up to the opening of traceEvents. */
static PROF__NI void prof__trace_head(prof__w *w, const prof_events *e) {
    const prof__meta *m;
    size_t i;
    PROF__W_LIT(w, "{\n  \"schemaVersion\": 1,\n  \"deviceProperties\": [\n");
    if (e->device_props) { prof__w_str(w, e->device_props); PROF__W_LIT(w, "\n"); }
    PROF__W_LIT(w, "  ],\n");
    for (i = 0; i < e->meta.n && strcmp(e->meta.v[i].key, "distributedInfo") != 0; i++) {}
    if (i == e->meta.n) { /* a user's distributedInfo (metadata) replaces this one; always
                 written, since HTA finds the rank nowhere else (rank 0 of 1
                 when the session had no node id) */
        PROF__W_LIT(w, "  \"distributedInfo\": {\"backend\": \"prof.h\", \"rank\": ");
        prof__w_i64(w, e->with_node_id ? e->node_id : 0);
        PROF__W_LIT(w, ", \"world_size\": ");
        prof__w_i64(w, e->with_node_id ? e->world_size : 1);
        PROF__W_LIT(w, "},\n");
    }
    if (e->stats.dropped) { /* an incomplete profile says so */
        PROF__W_LIT(w, "  \"prof_dropped\": {\"scopes\": ");
        prof__w_u64(w, e->stats.scopes_dropped);
        PROF__W_LIT(w, ", \"scopes_entered\": ");
        prof__w_u64(w, e->stats.scopes_entered);
        PROF__W_LIT(w, ", \"marks\": ");
        prof__w_u64(w, e->stats.marks_dropped);
        PROF__W_LIT(w, ", \"counters\": ");
        prof__w_u64(w, e->stats.counters_dropped);
        PROF__W_LIT(w, ", \"allocs\": ");
        prof__w_u64(w, e->stats.allocs_dropped);
        PROF__W_LIT(w, ", \"async\": ");
        prof__w_u64(w, e->stats.async_dropped);
        PROF__W_LIT(w, ", \"all\": ");
        prof__w_u64(w, e->stats.dropped);
        PROF__W_LIT(w, "},\n");
    }
    if (e->stats.open_at_stop) { /* scopes not recorded: still running at prof_stop, or left by a longjmp */
        PROF__W_LIT(w, "  \"prof_open_at_stop\": {\"scopes\": ");
        prof__w_u64(w, e->stats.open_at_stop);
        PROF__W_LIT(w, ", \"scopes_entered\": ");
        prof__w_u64(w, e->stats.scopes_entered);
        PROF__W_LIT(w, "},\n");
    }
    for (i = 0; i < e->meta.n; i++) {
        m = &e->meta.v[i];
        PROF__W_LIT(w, "  ");
        prof__w_json_str(w, m->key);
        PROF__W_LIT(w, ": ");
        if (m->is_json) prof__w_json_raw(w, m->value);
        else prof__w_json_str(w, m->value);
        PROF__W_LIT(w, ",\n");
    }
    PROF__W_LIT(w, "  \"displayTimeUnit\": \"ms\",\n  \"baseTimeNanoseconds\": ");
    prof__w_i64(w, e->base_real_ns);
    PROF__W_LIT(w, ",\n  \"traceEvents\": [\n");
}
/* Marks ("I") and counter samples ("C"). */
static PROF__NI void prof__trace_instants(prof__w *w, const prof_events *e, uint64_t pid) {
    size_t i;
    for (i = 0; i < e->ninst; i++) {
        const prof__instant_ev *in = &e->inst[i];
        if (in->kind == 1) {
            /* "I", not Kineto's "i": DevTools' trace engine keeps only "I" */
            PROF__W_LIT(w, "  {\"ph\": \"I\", \"cat\": \"user_annotation\", \"s\": \"t\", \"name\": ");
            prof__w_json_str(w, e->sites[in->site].name);
        } else {
            PROF__W_LIT(w, "  {\"ph\": \"C\", \"cat\": \"counter\", \"name\": ");
            prof__w_json_str(w, e->sites[in->site].name);
        }
        PROF__W_LIT(w, ", \"pid\": ");
        prof__w_u64(w, pid);
        PROF__W_LIT(w, ", \"tid\": ");
        prof__w_u64(w, e->thr[in->thread].tid_w);
        PROF__W_LIT(w, ", \"ts\": ");
        prof__w_us(w, in->ts);
        if (in->kind == 1) PROF__W_LIT(w, "},\n");
        else {
            PROF__W_LIT(w, ", \"args\": {");
            prof__w_json_str(w, e->sites[in->site].name);
            PROF__W_LIT(w, ": ");
            prof__w_double(w, in->value);
            PROF__W_LIT(w, "}},\n");
        }
    }
}
static PROF__NI void prof__trace_flows(prof__w *w, const prof_events *e, const prof__map *api, uint64_t pid, const prof__map *sw) {
    size_t i;
    /* Flow arrows (ac2g) from each launching call to its kernel, copy or set.
       A flow's id is the correlation id; the kernels of one graph launch
       share it, so the second and later get (n << 32) added, one arrow each. */
    {
        prof__map flows; /* correlation -> arrows so far */
        memset(&flows, 0, sizeof flows);
        for (i = 0; i < e->n && !w->err && api->n; i++) {
            const prof__ev *v = &e->ev[i], *a;
            uint32_t corr = prof__flow_corr(e, v, api), *seen;
            uint64_t id;
            int found;
            if (!corr) continue;
            if (!(seen = prof__map_slot(&flows, corr, &found))) { w->err = ENOMEM; break; }
            if (!found) *seen = 0;
            id = corr | (uint64_t)(*seen)++ << 32;
            a = &e->ev[prof__map_get(api, corr)];
            PROF__W_LIT(w, "  {\"ph\": \"s\", \"id\": ");
            prof__w_u64(w, id);
            PROF__W_LIT(w, ", \"pid\": ");
            prof__w_u64(w, pid);
            PROF__W_LIT(w, ", \"tid\": ");
            prof__w_u64(w, e->thr[a->thread].tid_w);
            PROF__W_LIT(w, ", \"ts\": ");
            prof__w_us(w, a->start);
            PROF__W_LIT(w, ", \"cat\": \"ac2g\", \"name\": \"ac2g\"},\n  {\"ph\": \"f\", \"id\": ");
            prof__w_u64(w, id);
            PROF__W_LIT(w, ", ");
            prof__w_pid_tid(w, e, v, pid, sw);
            PROF__W_LIT(w, ", \"ts\": ");
            prof__w_us(w, v->start);
            PROF__W_LIT(w, ", \"cat\": \"ac2g\", \"name\": \"ac2g\", \"bp\": \"e\"},\n");
        }
        prof__map_free(&flows);
    }
}
static PROF__NI void prof__trace_gpu_lanes(prof__w *w, const prof_events *e, uint64_t pid, const prof__map *sw) {
    size_t i;
    /* Lanes of the GPUs: one process per device, one thread per stream. */
    {
        prof__map devs, lanes;
        memset(&devs, 0, sizeof devs);
        memset(&lanes, 0, sizeof lanes);
        for (i = 0; i < e->n && !w->err; i++) {
            const prof__ev *v = &e->ev[i];
            const prof__extra *x;
            int64_t stream, tid;
            int found;
            uint32_t *slot;
            char label[64];
            if (v->device_type == PROF_DEVICE_CPU) continue;
            x = prof__x(e, v);
            stream = prof__stream_of(e, v);
            tid = prof__stream_tid(e, v, sw);
            /* a device first seen: name its process */
            if (!(slot = prof__map_slot(&devs, (uint64_t)(uint32_t)x->device_index, &found))) { w->err = ENOMEM; break; }
            if (!found) {
                *slot = 1;
                snprintf(label, sizeof label, "GPU %d", x->device_index);
                PROF__W_LIT(w, "  {\"name\": \"process_name\", \"ph\": \"M\", \"ts\": 0.000, \"pid\": ");
                prof__w_i64(w, prof__dev_pid(x->device_index, pid));
                PROF__W_LIT(w, ", \"tid\": 0, \"args\": {\"name\": ");
                prof__w_json_str(w, label);
                PROF__W_LIT(w, "}},\n  {\"name\": \"process_labels\", \"ph\": \"M\", \"ts\": 0.000, \"pid\": ");
                prof__w_i64(w, prof__dev_pid(x->device_index, pid));
                PROF__W_LIT(w, ", \"tid\": 0, \"args\": {\"labels\": ");
                prof__w_json_str(w, label);
                PROF__W_LIT(w, "}},\n  {\"name\": \"process_sort_index\", \"ph\": \"M\", \"ts\": 0.000, \"pid\": ");
                prof__w_i64(w, prof__dev_pid(x->device_index, pid));
                PROF__W_LIT(w, ", \"tid\": 0, \"args\": {\"sort_index\": ");
                prof__w_i64(w, (int64_t)0x1000000 + x->device_index); /* (int64: an index near INT32_MAX) */
                PROF__W_LIT(w, "}},\n");
            }
            if (!(slot = prof__lane_slot(&lanes, e, (uint32_t)i, &found))) { w->err = ENOMEM; break; }
            if (!found) {
                if (stream == -1) snprintf(label, sizeof label, "sync"); /* context-wide synchronization (Kineto's -1) */
                else snprintf(label, sizeof label, "stream %lld", (long long)stream); /* (the real id, where the tid is a thread's as written) */
                PROF__W_LIT(w, "  {\"name\": \"thread_name\", \"ph\": \"M\", \"ts\": 0.000, \"pid\": ");
                prof__w_i64(w, prof__dev_pid(x->device_index, pid));
                PROF__W_LIT(w, ", \"tid\": ");
                prof__w_i64(w, tid);
                PROF__W_LIT(w, ", \"args\": {\"name\": ");
                prof__w_json_str(w, label);
                PROF__W_LIT(w, "}},\n  {\"name\": \"thread_sort_index\", \"ph\": \"M\", \"ts\": 0.000, \"pid\": ");
                prof__w_i64(w, prof__dev_pid(x->device_index, pid));
                PROF__W_LIT(w, ", \"tid\": ");
                prof__w_i64(w, tid);
                PROF__W_LIT(w, ", \"args\": {\"sort_index\": ");
                prof__w_i64(w, tid);
                PROF__W_LIT(w, "}},\n");
            }
        }
        prof__map_free(&devs);
        prof__map_free(&lanes);
    }
}
static PROF__NI void prof__trace_memory(prof__w *w, const prof_events *e, uint64_t pid) {
    size_t i;
    /* Allocations as Kineto writes them: [memory] instants with totals.
       PyTorch's CPU allocator reports nothing reserved (0); a device's
       reserved bytes are not known here, so its allocated total stands
       for them (a caching allocator reserves at least that much). */
    for (i = 0; i < e->nmem && !w->err; i++) {
        const prof__memrec *mr = &e->mem[i];
        PROF__W_LIT(w, "  {\"ph\": \"i\", \"cat\": \"cpu_instant_event\", \"s\": \"t\", \"name\": \"[memory]\", \"pid\": ");
        prof__w_u64(w, pid);
        PROF__W_LIT(w, ", \"tid\": ");
        prof__w_u64(w, e->thr[mr->thread].tid_w);
        PROF__W_LIT(w, ", \"ts\": ");
        prof__w_us(w, mr->ts);
        PROF__W_LIT(w, ", \"args\": {\"Total Reserved\": ");
        prof__w_i64(w, mr->device_type == PROF_DEVICE_CPU ? 0 : mr->total);
        PROF__W_LIT(w, ", \"Total Allocated\": ");
        prof__w_i64(w, mr->total);
        PROF__W_LIT(w, ", \"Bytes\": ");
        prof__w_i64(w, mr->bytes);
        PROF__W_LIT(w, ", \"Addr\": ");
        prof__w_u64(w, mr->ptr);
        PROF__W_LIT(w, ", \"Device Id\": ");
        prof__w_i64(w, mr->device_type == PROF_DEVICE_CPU ? -1 : mr->device_index);
        PROF__W_LIT(w, ", \"Device Type\": ");
        prof__w_i64(w, mr->device_type);
        if (mr->category) { PROF__W_LIT(w, ", \"Category\": "); prof__w_json_str(w, mr->category); }
        PROF__W_LIT(w, "}},\n");
    }
}
/* Marks thread thr as seen on the CPU (bit 1) or on a device (bit 2);
   *left counts the threads not yet seen on the CPU. */
static PROF__NI void prof__cpu_mark(uint8_t *u, size_t *left, uint32_t thr, size_t nthr, unsigned bit) {
    if (thr >= nthr) return;
    if (bit == 1 && !(u[thr] & 1)) --*left;
    u[thr] |= (uint8_t)bit;
}
/* Which entries of the thread table are threads of the process (1): those
   that ran something on the CPU (an event, a memory record, a mark) or
   nothing at all (a hand-built list's). An entry that only device events
   use is a GPU stream's (CUPTI files its records by stream), named under
   its device's pid, not the process's (0). Once every thread has been
   seen on the CPU the rest cannot change that: a list of CPU threads
   alone is decided in its first events, not by a pass over all of them
   (2 ms of a 1M-event export, with no write running). NULL without
   memory: all are. */
static PROF__NI uint8_t *prof__cpu_threads(const prof_events *e) {
    uint8_t *u = (uint8_t *)PROF__MALLOC(e->nthr + 1);
    size_t i, left = e->nthr; /* threads with no CPU event seen yet */
    if (!u) return NULL;
    memset(u, 0, e->nthr + 1);
    for (i = 0; i < e->n && left; i++) prof__cpu_mark(u, &left, e->ev[i].thread, e->nthr, e->ev[i].device_type == PROF_DEVICE_CPU ? 1u : 2u);
    for (i = 0; i < e->nmem && left; i++) prof__cpu_mark(u, &left, e->mem[i].thread, e->nthr, 1u);
    for (i = 0; i < e->ninst && left; i++) prof__cpu_mark(u, &left, e->inst[i].thread, e->nthr, 1u);
    for (i = 0; i < e->nthr; i++) u[i] = u[i] != 2;
    return u;
}
static PROF__NI void prof__trace_cpu_lanes(prof__w *w, const prof_events *e, uint64_t pid) {
    char pname[256];
    size_t i;
    uint8_t *cpu = prof__cpu_threads(e);
    /* Metadata events name the process and its threads. */
    prof__process_name(pname, sizeof pname);
    PROF__W_LIT(w, "  {\"name\": \"process_name\", \"ph\": \"M\", \"ts\": 0.000, \"pid\": ");
    prof__w_u64(w, pid);
    PROF__W_LIT(w, ", \"tid\": 0, \"args\": {\"name\": ");
    prof__w_json_str(w, pname);
    PROF__W_LIT(w, "}},\n  {\"name\": \"process_labels\", \"ph\": \"M\", \"ts\": 0.000, \"pid\": ");
    prof__w_u64(w, pid);
    PROF__W_LIT(w, ", \"tid\": 0, \"args\": {\"labels\": \"CPU\"}},\n  {\"name\": \"process_sort_index\", \"ph\": \"M\", \"ts\": 0.000, \"pid\": ");
    prof__w_u64(w, pid);
    PROF__W_LIT(w, ", \"tid\": 0, \"args\": {\"sort_index\": ");
    prof__w_u64(w, pid);
    PROF__W_LIT(w, "}}");
    for (i = 0; i < e->nthr; i++) {
        char tn[96];
        if (cpu && !cpu[i]) continue;
        if (e->thr[i].name) snprintf(tn, sizeof tn, "%s", e->thr[i].name);
        else snprintf(tn, sizeof tn, "thread %llu", (unsigned long long)e->thr[i].tid);
        PROF__W_LIT(w, ",\n  {\"name\": \"thread_name\", \"ph\": \"M\", \"ts\": 0.000, \"pid\": ");
        prof__w_u64(w, pid);
        PROF__W_LIT(w, ", \"tid\": ");
        prof__w_u64(w, e->thr[i].tid_w);
        PROF__W_LIT(w, ", \"args\": {\"name\": ");
        if (e->thr[i].name) prof__w_json_str(w, e->thr[i].name);
        else prof__w_json_str(w, tn);
        PROF__W_LIT(w, "}},\n  {\"name\": \"thread_sort_index\", \"ph\": \"M\", \"ts\": 0.000, \"pid\": ");
        prof__w_u64(w, pid);
        PROF__W_LIT(w, ", \"tid\": ");
        prof__w_u64(w, e->thr[i].tid_w);
        PROF__W_LIT(w, ", \"args\": {\"sort_index\": ");
        prof__w_u64(w, e->thr[i].tid_w); /* Kineto's: the thread's id, so the main thread (the lowest id) comes first */
        PROF__W_LIT(w, "}}");
    }
    PROF__FREE(cpu);
}
/* The trace's shared context: each site's head of a CPU event (ph, cat
   and the escaped name) and each thread's pid and tid, made once so that
   most events start with two copies; the options. The heads live in
   scratch; names too long for the buffer are escaped per event instead.
   0, or -1 without memory (the tids are optional). */
static PROF__NI int prof__trace_site_heads(prof__trace_ctx *cx, const prof_events *e, prof__arena *scratch) {
    const char **site_json = (const char **)PROF__MALLOC((e->nsites + 1) * (sizeof(const char *) + sizeof(size_t) + 1));
    char *esc = (char *)PROF__MALLOC(PROF__ESC_MAX);
    size_t i;
    cx->site_json = site_json;
    if (!site_json || !esc) { PROF__FREE(esc); return -1; }
    { void *lens = site_json + e->nsites + 1; cx->site_json_len = (size_t *)lens; } /* the lengths follow the pointers, then the flags */
    cx->site_fast = (unsigned char *)(cx->site_json_len + e->nsites + 1);
    for (i = 0; i < e->nsites; i++) {
        prof__w tmpw;
        char *s;
        site_json[i] = NULL;
        cx->site_fast[i] = 0;
        if (strlen(e->sites[i].name) * 6 + 64 >= PROF__ESC_MAX) continue;
        prof__w_mem(&tmpw, esc, PROF__ESC_MAX);
        PROF__W_LIT(&tmpw, "  {\"ph\": \"X\", \"cat\": \"");
        prof__w_category(&tmpw, e->sites[i].flags, 1);
        PROF__W_LIT(&tmpw, "\", \"name\": ");
        prof__w_json_str(&tmpw, e->sites[i].name);
        if (!(s = (char *)prof__arena_alloc(scratch, (tmpw.n > PROF__HEAD_MOVE ? tmpw.n : PROF__HEAD_MOVE) + PROF__HEAD_PAD))) { PROF__FREE(esc); return -1; } /* padded for the fixed moves */
        memcpy(s, esc, tmpw.n);
        s[tmpw.n] = 0;
        site_json[i] = s;
        cx->site_json_len[i] = tmpw.n;
        cx->site_fast[i] = !(e->sites[i].flags & PROF__API_CALL) && cx->tid_json; /* an API call's External id is its op's */
    }
    PROF__FREE(esc);
    return 0;
}
static PROF__NI void prof__trace_tids(prof__trace_ctx *cx, const prof_events *e) {
    size_t i;
    cx->tid_json = (char *)PROF__MALLOC((e->nthr + 1) * (PROF__TID_JSON + 1)); /* PROF__TID_JSON bytes each, then the lengths */
    cx->tid_json_len = cx->tid_json ? (unsigned char *)(cx->tid_json + (e->nthr + 1) * PROF__TID_JSON) : NULL;
    for (i = 0; cx->tid_json && i < e->nthr; i++) {
        prof__w tw;
        prof__w_mem(&tw, cx->tid_json + i * PROF__TID_JSON, PROF__TID_JSON);
        PROF__W_LIT(&tw, ", \"pid\": ");
        prof__w_u64(&tw, cx->pid);
        PROF__W_LIT(&tw, ", \"tid\": ");
        prof__w_u64(&tw, e->thr[i].tid_w);
        cx->tid_json_len[i] = (unsigned char)tw.n;
        if (tw.err) { PROF__FREE(cx->tid_json); cx->tid_json = NULL; }
    }
}
/* cx->stream_w: each device lane whose id does not fit a tid
   (PROF__TID_FITS) gets one of its own, counted down from INT32_MAX past
   the ids other lanes have as their own, in the order the events give
   them; as prof__thr_write_id does for threads, and the lane's name keeps
   the real id. -1 without memory. */
static PROF__NI int prof__trace_streams(prof__trace_ctx *cx, const prof_events *e) {
    prof__map own; /* the lanes' ids that fit, as keys */
    size_t i;
    uint32_t next = (uint32_t)INT32_MAX, *slot;
    int any = 0, found, r = 0;
    for (i = 1; i < e->nex && !any; i++) /* the extras first: most lists have no such stream */
        any = e->ex[i].has_resource && !PROF__TID_FITS(e->ex[i].resource_id);
    if (!any) return 0;
    memset(&own, 0, sizeof own);
    for (i = 0; i < e->n && r == 0; i++) {
        int64_t t;
        if (e->ev[i].device_type == PROF_DEVICE_CPU) continue;
        t = prof__stream_tid_raw(e, &e->ev[i]);
        if (!PROF__TID_FITS(t) || t < 0) continue;
        if (!(slot = prof__map_slot(&own, (uint64_t)t, &found))) r = -1;
        else *slot = 1;
    }
    for (i = 0; i < e->n && r == 0; i++) {
        int64_t t;
        if (e->ev[i].device_type == PROF_DEVICE_CPU) continue;
        t = prof__stream_tid_raw(e, &e->ev[i]);
        if (PROF__TID_FITS(t)) continue;
        if (!(slot = prof__map_slot(&cx->stream_w, (uint64_t)t, &found))) { r = -1; break; }
        if (found) continue;
        while (next > 0 && prof__map_get(&own, next) != UINT32_MAX) next--; /* some lane's own id */
        *slot = next > 0 ? next-- : 0;
    }
    prof__map_free(&own);
    return r;
}
static PROF__NI int prof__trace_ctx_init(prof__trace_ctx *cx, prof_events *e, uint64_t pid, prof__arena *scratch) {
    memset(cx, 0, sizeof *cx);
    cx->e = e;
    cx->pid = pid;
    cx->light = e->xopt.args == PROF_ARGS_LIGHT;
    cx->args_any = e->stk != NULL;
    prof__dec_set(&cx->ev_idx, 0);
    prof__dec_set(&cx->seq, 0);
    prof__ts_init(&cx->ts_hi);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    pthread_once(&prof__dig4_once, prof__dig4_fill); /* before the workers start: they read it */
#endif
    cx->ids.i = UINT64_MAX;
    prof__trace_tids(cx, e); /* first: a site's fast flag needs them */
    if (prof__trace_site_heads(cx, e, scratch) != 0) return -1;
    return 0;
}
/* The kernels of chain k (from its head) are op i's, unless a list already
   names theirs (own: always). -1 without memory. */
static PROF__NI int prof__trace_own(prof__trace_ctx *cx, const prof_events *e, int32_t k, size_t i, int own) {
    for (; k >= 0; k = e->kern[k].next) {
        int found;
        uint32_t *slot;
        if (!e->kern[k].corr) continue;
        if (!(slot = prof__map_slot(&cx->owners, e->kern[k].corr, &found))) return -1;
        if (own || !found) *slot = (uint32_t)i;
    }
    return 0;
}
/* cx->owners: each correlation id of device work the join gave to an op
   (prof__cupti_correlate) -> that op, from the ops' kernel lists (which
   _remove_dup_nodes may have moved to a parent). -1 without memory. */
static PROF__NI int prof__trace_owners(prof__trace_ctx *cx, const prof_events *e) {
    prof__map saved; /* an op's extra -> its first e->dupk entry */
    size_t i;
    uint32_t k;
    int rc = 0;
    for (i = 0; i < e->nkern && !e->kern[i].corr; i++) {}
    if (i >= e->nkern) return 0; /* no kernel from CUPTI: no pass over the events */
    /* the kernels a merge took from their op (the table counts them
       nowhere, as PyTorch's: the op took its merged child's): Kineto links
       GPU work to the op open at its launch, whatever the merge does, so
       the trace still names that op (a call Kineto's filter leaves out
       launched it: a launch in the trace would be a second child, and
       nothing merges) */
    memset(&saved, 0, sizeof saved);
    if (!prof__dupk_map(e, &saved)) rc = -1;
    for (i = 0; i < e->n && rc == 0; i++) {
        const prof__ev *v = &e->ev[i];
        if (!v->extra || v->device_type != PROF_DEVICE_CPU) continue;
        rc = prof__trace_own(cx, e, prof__x(e, v)->kern_head, i, 1);
        if (rc == 0 && saved.n && (k = prof__map_get(&saved, prof__xi(e, v))) != UINT32_MAX)
            rc = prof__trace_own(cx, e, e->dupk[k].kern_head, i, 0);
    }
    prof__map_free(&saved);
    return rc;
}
/* Undoes prof__trace_events (for a second run, or the end). */
static PROF__NI void prof__trace_events_undo(prof__trace_ctx *cx) {
    prof__path_free(&cx->path);
    prof__map_free(&cx->owners);
    prof__map_free(&cx->stream_w);
    prof__memo_free(cx->memo);
    PROF__FREE(cx->root_touch);
    PROF__FREE(cx->ovl);
    PROF__FREE(cx->lane_w);
    PROF__FREE(cx->cache);
    cx->lane_w = NULL;
    cx->path.lane_w = NULL;
    cx->memo = NULL;
    cx->root_touch = NULL;
    cx->ovl = NULL;
    cx->novl = 0;
    cx->cache = NULL;
    cx->calls = NULL;
    cx->path.root_touch = NULL;
}
static PROF__NI void prof__trace_ctx_free(prof__trace_ctx *cx) {
    if (!cx) return;
    prof__trace_events_undo(cx);
    PROF__FREE(cx->tid_json);
    PROF__FREE(cx->site_json);
    PROF__FREE(cx);
}
/* The events, in parallel when the trace is big (prof__par_items), else
   here; with what only they need: the cache of clean strings, the
   top-level events that touch their follower, the memo of stacks. */
static PROF__NI void prof__trace_events_guess(prof__w *w, prof_events *e, prof__trace_ctx *cx);
static PROF__NI void prof__trace_events(prof__w *w, prof_events *e, prof__trace_ctx *cx, prof__map *api, const prof__xpaths *xp, int may_guess) {
    int overlap = 0, sort;
    if ((cx->cache = PROF__ALLOC(prof__clean, PROF__CLEAN_SLOTS)) != NULL) memset(cx->cache, 0, PROF__CLEAN_SLOTS * sizeof *cx->cache); /* optional */
    cx->xp = xp;
    if (may_guess && w->can_redo && e->in_order && !e->use_device && e->n >= prof__par_min_events && e->n < UINT32_MAX) {
        prof__trace_events_guess(w, e, cx); /* the bits as it goes: prof__tpipe */
        return;
    }
    cx->on_device = 1;
    sort = !e->in_order;
    /* NULL is out of memory: the export fails rather than write every
       top-level dur as if it touched its follower (a nanosecond short) */
    if (!(cx->root_touch = prof__root_touch(e, NULL, 0, &cx->on_device, &overlap, &sort))) { w->err = ENOMEM; return; }
    if (overlap || sort) { /* events that may overlap: found, and left off the lanes */
        int dev_nest = 0;
        if (prof__trace_overlaps(e, sort, &cx->ovl, &cx->novl, &dev_nest) != 0) { w->err = ENOMEM; return; }
        if (cx->novl) {
            PROF__FREE(cx->root_touch);
            if (!(cx->root_touch = prof__root_touch(e, cx->ovl, cx->novl, &cx->on_device, &overlap, &sort))) { w->err = ENOMEM; return; }
        }
        if ((cx->novl || dev_nest) && prof__lane_durs(e, cx->ovl, cx->novl, sort, dev_nest, &cx->lane_w) != 0) { w->err = ENOMEM; return; }
    }
    cx->path.root_touch = cx->root_touch;
    cx->path.lane_w = cx->lane_w;
    /* the API calls by correlation serve device events alone (their
       External id, the flows): without any, no pass over the extras
       (128 bytes each, one after the other before the events) */
    if (cx->on_device && (prof__api_calls(e, api) != 0 || prof__trace_owners(cx, e) != 0 || prof__trace_streams(cx, e) != 0)) w->err = ENOMEM;
    cx->memo = prof__memo_new(e);              /* optional */
    cx->calls = api->n ? api : NULL;
    if (!prof__par_items(w, e->n, &prof__trace_par_ops, cx))
        prof__w_events(w, e, 0, e->n, cx);
}
/* prof__trace_events on the guess that the events nest on the CPU
   (prof__tpipe); w->err PROF__W_REDO where it failed. */
static PROF__NI void prof__trace_events_guess(prof__w *w, prof_events *e, prof__trace_ctx *cx) {
    const size_t nslots = e->nthr + 1;
    prof__tpipe tp;
    uint32_t *lanes = PROF__ALLOC(uint32_t, 2 * nslots);
    memset(&tp, 0, sizeof tp);
    cx->root_touch = (unsigned char *)PROF__MALLOC(e->n / 8 + 1);
    if (!lanes || !cx->root_touch || pthread_mutex_init(&tp.lock, NULL) != 0) { /* no memory: the pass first */
        PROF__FREE(lanes);
        w->err = PROF__W_REDO;
        return;
    }
    memset(cx->root_touch, 0, e->n / 8 + 1);
    memset(lanes, 0xFF, 2 * nslots * sizeof *lanes);
    tp.part.e = e;
    tp.part.bits = cx->root_touch;
    tp.part.first = lanes;
    tp.part.last = lanes + nslots;
    cx->path.root_touch = cx->root_touch;
    cx->on_device = 0;
    cx->memo = prof__memo_new(e);              /* optional */
    cx->calls = NULL;                          /* no event on a device */
    cx->tp = &tp;
    if (!prof__par_items(w, e->n, &prof__trace_par_ops, cx) && !w->err) {
        if (prof__tp_ensure(&tp, e->n)) { /* one thread: the bits whole, then the events */
            cx->tp = NULL;
            prof__w_events(w, e, 0, e->n, cx);
        } else {
            w->err = PROF__W_REDO;
        }
    }
    cx->tp = NULL;
    pthread_mutex_destroy(&tp.lock);
    PROF__FREE(lanes);
}
PROF_API prof_result prof_export_chrome_trace(prof_events *e, const char *path) {
    static const char *const who = "prof_export_chrome_trace";
    prof__out o;
    prof_result r;
    prof__trace_ctx *cx;
    prof__arena scratch;        /* the sites' heads */
    prof__map api;              /* correlation -> the CPU event of the API call */
    prof__xpaths xp;
    uint64_t pid = (uint64_t)getpid();
    if (!e) return prof__report(PROF_LOG_ERROR, PROF_E_ARG, "%s: the event list is NULL", who);
    if ((r = prof__out_json_name(path, who)) != PROF_OK || (r = prof__prepare(e)) != PROF_OK) return r;
    memset(&scratch, 0, sizeof scratch);
    memset(&api, 0, sizeof api);
    cx = (prof__trace_ctx *)PROF__MALLOC(sizeof *cx);
    if (cx) memset(cx, 0, sizeof *cx); /* prof__trace_ctx_free reads it also when prof__xp_init failed first */
    if (prof__xp_init(&xp, e) != 0 || !cx || prof__trace_ctx_init(cx, e, pid, &scratch) != 0)
        r = prof__report(PROF_LOG_ERROR, PROF_E_NOMEM, "%s: out of memory", who);
    else r = prof__out_open(&o, path, who);
    if (r == PROF_OK) {
        prof__trace_head(o.w, e);
        prof__trace_events(o.w, e, cx, &api, &xp, 1);
        if (o.w->err == PROF__W_REDO && prof__w_rewind(o.w) == 0) { /* the guess of prof__tpipe failed: again, with the whole pass first */
            prof__trace_events_undo(cx);
            prof__trace_head(o.w, e);
            prof__trace_events(o.w, e, cx, &api, &xp, 0);
        }
        prof__trace_instants(o.w, e, pid);
        prof__trace_flows(o.w, e, &api, pid, &cx->stream_w);
        if (cx->on_device) prof__trace_gpu_lanes(o.w, e, pid, &cx->stream_w);
        prof__trace_memory(o.w, e, pid);
        prof__trace_cpu_lanes(o.w, e, pid);
        PROF__W_LIT(o.w, "\n  ],\n  \"traceName\": ");
        prof__w_json_str(o.w, path);
        PROF__W_LIT(o.w, "\n}\n");
        r = prof__out_close(&o, who);
    }
    prof__trace_ctx_free(cx);
    prof__map_free(&api);
    prof__arena_free(&scratch);
    prof__xp_free(&xp);
    return r;
}

/* ----- >>x_perfetto: Perfetto protobuf (export_perfetto) -----
   A Trace is a sequence of `packet` fields (TracePacket). Each CPU thread
   is a packet sequence of its own whose timestamps are deltas (a
   sequence-scoped incremental clock, id 64) and whose TrackEvents default
   to the thread's track: a plain scope is a SLICE_BEGIN with an interned
   name (no category: user_annotation is the one left out, since a
   TrackEvent cannot default its category and it would cost 2 bytes) and
   an SLICE_END, about 20 bytes. Names, categories, source
   locations, call stacks and annotation names are interned per sequence
   (emitted on it before first use; iids are global: site + 1, ...).
   Everything else (track descriptors, marks, counters, memory, device
   events, async and badly nested events, metadata) goes on sequence 1 with
   absolute timestamps, on tracks of its own. The file's memory stays a
   stack per thread plus a bit per (sequence, site).
   What trace_processor's importer (and so the UI) does with it, and why
   the writer does what it does:
   - it sorts all packets by time, keeping file order for ties, so a track
     of sequence 1 may get an event's begin and end written together;
   - a track holds at most 512 open slices (slice_tracker's kMaxDepth: the
     begin past it is dropped and its end then closes the wrong slice), so
     a thread's slices nested deeper go to a child track per 512 levels;
   - name_iid wins over name: an event named apart from its site
     (ProfilerStep#N, CUDA's) has a name and no name_iid;
   - a terminating flow id read before its start is dropped, so both ends
     of an arrow carry flow_ids (paired in time order), one id per arrow
     as the JSON numbers them;
   - a thread's descriptor also names the sequence it is written on, so it
     goes on the thread's own sequence; threads keep their order only with
     thread_ordering EXPLICIT on the root track (uuid 0);
   - each counter track is a series: counters are keyed by name;
   - debug annotation names lose '.', '[' and ']', so metadata is also
     written as trace attributes (their keys unchanged). */
#define PROF__PFT_SEQ_MISC 1u
#define PROF__PFT_CLOCK 64u
#define PROF__PFT_UUID_PROCESS 1u
#define PROF__PFT_UUID_THREAD(t) (0x100000ull + (uint64_t)(t))
#define PROF__PFT_UUID_COUNTER(k) (0x200000000ull + (uint64_t)(k))
#define PROF__PFT_MAX_DEPTH 512u /* trace_processor's open slices per track */
#define PROF__PFT_SEEN_BITS ((size_t)1 << 23) /* 1 MB: past it, a map of the (sequence, site) pairs met */
#define PROF__PFT_UUID_MEMORY(dt, di) (0x300000000ull + ((uint64_t)(uint32_t)(dt) << 20) + (uint64_t)(uint32_t)(di))
/* Debug annotation names, interned with fixed iids (index + 1). */
static const char *const prof__pft_arg_names[] = { "Input Dims", "Sequence number", "Fwd thread id", "flops", "Overload name", "correlation", "device", "stream", "External id", "Call stack", "value", "cbid" };
enum { PROF__PA_DIMS = 1, PROF__PA_SEQ, PROF__PA_FWD, PROF__PA_FLOPS, PROF__PA_OVERLOAD, PROF__PA_CORR, PROF__PA_DEVICE, PROF__PA_STREAM, PROF__PA_EXTID, PROF__PA_STACK, PROF__PA_VALUE, PROF__PA_CBID };

/* Lanes of events that may overlap (async ranges, events that do not nest
   in their thread's slices, device events): per group (a thread, a device
   stream), the end of each lane so far; an event takes the first lane
   free at its start. The ends are the leaves of a min tree (tree[cap + k]
   lane k, tree[j] the least of tree[2j] and tree[2j + 1], unused leaves
   INT64_MAX), so that finding that lane among a million open async ranges
   takes 20 steps, not a million. Lanes are tracks on sequence 1. */
typedef struct prof__pft_lanes { uint64_t group; int64_t *tree; size_t n, cap; } prof__pft_lanes;

/* Where marks go. A track holds 512 slices open at once and the importer
   drops a 513th (slice_max_depth_exceeded). A mark is an instant on its
   thread's track: it lands on the track's open slices and stays on the
   track's stack until an event at a later time (or a slice at its own)
   pops it, so marks at one timestamp stack on each other (slice_tracker:
   "instants stack on top of each other"). A mark's level is therefore its
   thread's slices open at its time (begun at it or before, ending after
   it) plus its thread's marks at that time before it; level L goes on
   band L / 512: band 0 is the thread's track, band b its child track for
   levels [512b, 512b + 511] (prof__pft_band_track), where the deep slices
   are. The levels are found in the event pass, when the thread's stack
   is as it was at the mark's time (prof__pft_marks_place). */
typedef struct prof__pft_marks {
    uint32_t *idx;    /* the marks (indices into e->inst), by thread, then time, then list order */
    size_t *cur, *end; /* per thread: its first mark not yet placed, and past its last, in idx */
    int64_t *next;    /* per thread: that mark's time, INT64_MAX for none (checked per event) */
    uint32_t *band;   /* per entry of e->inst: a mark's band */
} prof__pft_marks;
typedef struct prof__pft {
    prof__w *w;
    prof_events *e;
    uint64_t offset;             /* added to every ns: timestamps >= 0 */
    size_t nseq;                 /* 1 + threads */
    unsigned char *seen;         /* per sequence, a bit per site: name interned */
    unsigned char *seen_loc;     /* ... source location interned */
    prof__map seen_map;          /* instead of seen when its bits would pass
                                    PROF__PFT_SEEN_BITS (many threads and
                                    many sites): (seq << 32 | site) -> 1 */
    int64_t *last_ts;            /* per thread sequence: the clock's last value */
    int32_t **stack;             /* per thread: open slices (event indices) */
    size_t *depth, *cap;
    prof__pft_lanes *lanes;
    size_t nlanes, caplanes;
    prof__map lane_map;          /* group -> index into lanes */
    prof__map stream_lanes;      /* a device event's lane (prof__lane_slot) -> its first event */
    prof__map stream_rank;       /* a device event's group -> its stream's rank */
    prof__map api;               /* correlation -> the CPU event of its API call */
    prof__map frame_iid;         /* frame string address -> frame iid */
    prof__map stack_seen;        /* (sequence, callstack iid) emitted */
    prof__map flow_n;            /* device event -> its arrow's number n (id: correlation | n << 32) */
    prof__map flow_count;        /* correlation -> its arrows */
    prof__map deep_seen;         /* (thread, 512 levels) whose track is described */
    prof__pft_marks mk;          /* each mark's band (prof__pft_marks) */
    uint32_t *order;             /* the events in (start, -end) order; NULL: the list's own */
    int wall;                    /* the wall clock is known: REALTIME in the clock snapshot */
    int boot;                    /* absolute times are CLOCK_BOOTTIME (else the wall clock where known) */
    uint32_t next_frame;
    struct prof__pft_head *head; /* per site: a common begin's TrackEvent, or NULL */
    prof__clean *cache;          /* interned strings known clean, or NULL */
    prof__buf pkt, msg, sub, sub2; /* scratch for the packet being built */
    int oom;
    int as_pair;                 /* the slice being written is one the JSON writes as a b/e pair */
    uint32_t *dev_pairs;         /* of those, where the list has device events: all (prof__json_pairs) */
    size_t ndev_pairs;
    prof__xpaths xp;             /* the source paths as written */
} prof__pft;

/* Writes a finished packet (its fields in pf->pkt) as Trace.packet. */
static PROF__NI void prof__pft_emit(prof__pft *pf) {
    char t[16];
    if (pf->pkt.oom) { pf->oom = 1; return; }
    prof__w_put(pf->w, t, (size_t)(prof__pb_len(t, 1, pf->pkt.n) - t));
    prof__w_put(pf->w, pf->pkt.p, pf->pkt.n);
    pf->pkt.n = 0;
}
static PROF__NI uint64_t prof__pft_ts(const prof__pft *pf, int64_t ns) { return (uint64_t)ns + pf->offset; }

/* The track of a thread's lane group or a device stream, by group key. */
static PROF__NI uint64_t prof__pft_lane_uuid(uint64_t group, size_t lane) { return (prof__mix(group) | ((uint64_t)1 << 62)) + ((uint64_t)lane << 1); }
/* A descriptor for a track: name, parent (0 = none), sort rank (among its
   siblings where the parent orders them explicitly), whether its own child
   tracks go by rank (PROF__PFT_ORDERED). */
#define PROF__PFT_ORDERED (-2)
static PROF__NI void prof__pft_track(prof__pft *pf, uint64_t uuid, uint64_t parent, const char *name, int rank, int counter_unit) {
    prof__buf *m = &pf->msg;
    m->n = 0;
    prof__pb_u(m, 1, uuid);
    if (parent) prof__pb_u(m, 5, parent);
    prof__pb_s(m, 2, name);
    if (counter_unit == PROF__PFT_ORDERED) prof__pb_u(m, 11, 3); /* child_ordering EXPLICIT */
    prof__pb_i(m, 12, rank);
    if (counter_unit >= 0) {
        pf->sub.n = 0;
        if (counter_unit) prof__pb_u(&pf->sub, 3, (uint64_t)counter_unit);
        prof__pb_sub(m, 8, &pf->sub);
    }
    prof__pb_u(&pf->pkt, 10, PROF__PFT_SEQ_MISC);
    prof__pb_sub(&pf->pkt, 60, m);
    prof__pft_emit(pf);
}
/* The lane of group for an event [start, end], its track described when
   new: the UI orders a track's child tracks by rank (child_ordering
   EXPLICIT on the parent), else by name as text, which put "async (10)"
   before "async (2)". The first lane is a child of `parent` ranked rank0,
   the others children of the first ranked by their number, so that every
   rank is exact whatever the number of lanes, streams and devices (ranks
   are int32: stream << 8 plus the lane gave stream 0's 257th lane stream
   1's rank). A thread's tracks: its depth tracks (rank = their band), its
   async lanes, its overlapping ones; a GPU's: its streams in order. */
#define PROF__PFT_RANK_ASYNC (INT32_MAX - 1)
#define PROF__PFT_RANK_OVERLAP INT32_MAX
/* Twice the lanes g can hold: the leaves copied, the inner nodes rebuilt. */
static PROF__NI int prof__pft_lanes_grow(prof__pft_lanes *g) {
    size_t cap = g->cap ? 2 * g->cap : 8, j;
    int64_t *t;
    if (cap > PROF__MAX_ELEMS(2 * sizeof *t) || !(t = PROF__ALLOC(int64_t, 2 * cap))) return 0;
    for (j = 0; j < cap; j++) t[cap + j] = j < g->cap ? g->tree[g->cap + j] : INT64_MAX;
    for (j = cap - 1; j >= 1; j--) t[j] = t[2 * j] < t[2 * j + 1] ? t[2 * j] : t[2 * j + 1];
    PROF__FREE(g->tree);
    g->tree = t;
    g->cap = cap;
    return 1;
}
static PROF__NI uint64_t prof__pft_lane(prof__pft *pf, uint64_t group, int64_t start, int64_t end, uint64_t parent, const char *name, int rank0) {
    uint32_t *slot;
    int found;
    prof__pft_lanes *g;
    size_t k, j;
    if (!(slot = prof__map_slot(&pf->lane_map, group, &found))) { pf->oom = 1; return 0; }
    if (!found) {
        if (!prof__grow((void *)&pf->lanes, &pf->caplanes, pf->nlanes + 1, sizeof *pf->lanes)) { pf->oom = 1; return 0; }
        *slot = (uint32_t)pf->nlanes;
        memset(&pf->lanes[pf->nlanes], 0, sizeof *pf->lanes);
        pf->lanes[pf->nlanes++].group = group;
    }
    g = &pf->lanes[*slot];
    if (g->n && g->tree[1] <= start) /* a lane is free: the leftmost */
        for (k = 1; k < g->cap;) k = 2 * k + (g->tree[2 * k] > start);
    else
        k = g->cap + g->n;
    k -= g->cap;
    if (k == g->n) {
        char label[64];
        if (g->n == g->cap && !prof__pft_lanes_grow(g)) { pf->oom = 1; return 0; }
        g->n++;
        if (k == 0) prof__pft_track(pf, prof__pft_lane_uuid(group, k), parent, name, rank0, PROF__PFT_ORDERED);
        else { /* k < 2^31: a lane holds an event, a list fewer than 2^31 */
            snprintf(label, sizeof label, " (%zu)", k + 1);
            pf->sub2.n = 0;
            prof__buf_str(&pf->sub2, name);
            prof__buf_str(&pf->sub2, label);
            prof__buf_put(&pf->sub2, "", 1);
            prof__pft_track(pf, prof__pft_lane_uuid(group, k), prof__pft_lane_uuid(group, 0), pf->sub2.oom ? name : pf->sub2.p, (int)(k < INT32_MAX ? k : INT32_MAX), -1);
        }
    }
    for (j = g->cap + k, g->tree[j] = end; j > 1; j /= 2)
        g->tree[j / 2] = g->tree[j & ~(size_t)1] < g->tree[j | 1] ? g->tree[j & ~(size_t)1] : g->tree[j | 1];
    return prof__pft_lane_uuid(group, k);
}

/* The first packet of a sequence: its state cleared, the interned names
   every event may use (categories, annotation names), and for a thread,
   the incremental clock and its track as the default. */
static PROF__NI void prof__pft_seq_start(prof__pft *pf, uint32_t seq, int64_t t0, uint64_t track) {
    prof__buf *m = &pf->msg, *s = &pf->sub;
    size_t k;
    prof__pb_u(&pf->pkt, 10, seq);
    prof__pb_u(&pf->pkt, 13, 1); /* SEQ_INCREMENTAL_STATE_CLEARED */
    prof__pb_u(&pf->pkt, 87, 1); /* first_packet_on_sequence */
    m->n = 0;
    for (k = 0; k < sizeof prof__pft_cats / sizeof *prof__pft_cats; k++) {
        s->n = 0;
        prof__pb_u(s, 1, k + 1);
        prof__pb_s(s, 2, prof__pft_cats[k]);
        prof__pb_sub(m, 1, s);
    }
    for (k = 0; k < sizeof prof__pft_arg_names / sizeof *prof__pft_arg_names; k++) {
        s->n = 0;
        prof__pb_u(s, 1, k + 1);
        prof__pb_s(s, 2, prof__pft_arg_names[k]);
        prof__pb_sub(m, 3, s);
    }
    prof__pb_sub(&pf->pkt, 12, m);
    if (track) {
        /* clock 64 counts from t0 in deltas; BOOTTIME (6) anchors it, and
           this packet's own time is in BOOTTIME */
        prof__pb_u(&pf->pkt, 8, prof__pft_ts(pf, t0));
        prof__pb_u(&pf->pkt, 58, 6);
        m->n = 0;
        s->n = 0;
        prof__pb_u(s, 1, PROF__PFT_CLOCK);
        prof__pb_u(s, 2, prof__pft_ts(pf, t0));
        prof__pb_u(s, 3, 1);
        prof__pb_sub(m, 1, s);
        s->n = 0;
        prof__pb_u(s, 1, 6);
        prof__pb_u(s, 2, prof__pft_ts(pf, t0));
        prof__pb_sub(m, 1, s);
        prof__pb_sub(&pf->pkt, 6, m);
        m->n = 0;
        prof__pb_u(m, 58, PROF__PFT_CLOCK);
        s->n = 0;
        prof__pb_u(s, 11, track);
        prof__pb_sub(m, 11, s);
        prof__pb_sub(&pf->pkt, 59, m);
    } else {
        /* sequence 1's absolute times are BOOTTIME (6); the wall clock at
           the same moment, REALTIME (1), is for the UI's dates */
        prof__pb_u(&pf->pkt, 8, prof__pft_ts(pf, t0));
        prof__pb_u(&pf->pkt, 58, 6);
        m->n = 0;
        s->n = 0;
        prof__pb_u(s, 1, 6);
        prof__pb_u(s, 2, prof__pft_ts(pf, t0));
        prof__pb_sub(m, 1, s);
        if (pf->wall) {
            s->n = 0;
            prof__pb_u(s, 1, 1);
            prof__pb_u(s, 2, (uint64_t)pf->e->base_real_ns + (uint64_t)t0);
            prof__pb_sub(m, 1, s);
        }
        prof__pb_sub(&pf->pkt, 6, m);
    }
    prof__pft_emit(pf);
}

/* Interned data the event of site `site` needs on sequence seq that the
   sequence has not had: its name and source location (site + 1), its
   call stack, frames and their names. Into m (an InternedData). */
static PROF__NI void prof__pft_intern_site(prof__pft *pf, prof__buf *m, uint32_t seq, uint32_t site) {
    const prof_site *st = &pf->e->sites[site];
    size_t bit = (size_t)seq * pf->e->nsites + site;
    if (pf->seen) {
        if (pf->seen[bit >> 3] & (1u << (bit & 7))) return;
        pf->seen[bit >> 3] |= (unsigned char)(1u << (bit & 7));
    } else {
        int found;
        uint32_t *slot = prof__map_slot(&pf->seen_map, (uint64_t)seq << 32 | site, &found);
        if (!slot) { pf->oom = 1; return; }
        *slot = 1;
        if (found) return;
    }
    pf->sub.n = 0;
    prof__pb_u(&pf->sub, 1, (uint64_t)site + 1);
    prof__pb_s(&pf->sub, 2, st->name);
    prof__pb_sub(m, 2, &pf->sub);
    if (st->file && st->file[0]) {
        pf->sub.n = 0;
        prof__pb_u(&pf->sub, 1, (uint64_t)site + 1);
        prof__pb_s(&pf->sub, 2, prof__xp_path(&pf->xp, st->file));
        if (st->func) prof__pb_s(&pf->sub, 3, st->func);
        prof__pb_u(&pf->sub, 4, (uint64_t)(uint32_t)st->line);
        prof__pb_sub(m, 4, &pf->sub);
    }
}
/* The callstack iid of event i's stack (0: none), interned on sequence seq
   into m when new there. */
static PROF__NI uint64_t prof__pft_intern_stack(prof__pft *pf, prof__buf *m, uint32_t seq, size_t i) {
    prof__frames st = prof__pft_frames(pf->e, i);
    uint32_t *slot, iid;
    int found, k;
    if (st.depth <= 0) return 0;
    iid = st.node; /* the stack tree's node is the callstack's iid */
    if (!(slot = prof__map_slot(&pf->stack_seen, ((uint64_t)seq << 32) | iid, &found))) { pf->oom = 1; return 0; }
    if (found) return iid;
    *slot = 1;
    pf->sub2.n = 0;
    prof__pb_u(&pf->sub2, 1, iid);
    for (k = st.depth; k-- > 0;) { /* bottom (outermost) frame first */
        uint32_t *fs = prof__map_slot(&pf->frame_iid, (uint64_t)(uintptr_t)st.p[k], &found);
        uint64_t fid;
        if (!fs) { pf->oom = 1; return 0; }
        if (!found) *fs = ++pf->next_frame;
        fid = *fs;
        prof__pb_u(&pf->sub2, 2, fid);
        if (!(fs = prof__map_slot(&pf->stack_seen, ((uint64_t)(seq | 0x80000000u) << 32) | fid, &found))) { pf->oom = 1; return 0; }
        if (!found) {
            *fs = 1;
            pf->sub.n = 0;
            prof__pb_u(&pf->sub, 1, fid);
            prof__pb_s(&pf->sub, 2, prof__xp_frame(&pf->xp, st.p[k]));
            prof__pb_sub(m, 5, &pf->sub); /* function_names */
            pf->sub.n = 0;
            prof__pb_u(&pf->sub, 1, fid);
            prof__pb_u(&pf->sub, 2, fid);
            prof__pb_sub(m, 6, &pf->sub); /* frames */
        }
    }
    prof__pb_sub(m, 7, &pf->sub2); /* callstacks */
    return iid;
}

/* The annotations of event i (the JSON trace's args but its per-event
   ids) into te. */
static PROF__NI void prof__pft_args(prof__pft *pf, prof__buf *te, size_t i) {
    const prof_events *e = pf->e;
    const prof__ev *v = &e->ev[i];
    const prof__extra *x = prof__x(e, v);
    prof__buf *a = &pf->sub;
    int light = e->xopt.args == PROF_ARGS_LIGHT; /* no per-event ids */
#define PROF__PFT_ARG_I(id, val) do { a->n = 0; prof__pb_u(a, 1, (id)); prof__pb_i(a, 4, (val)); prof__pb_sub(te, 4, a); } while (0)
#define PROF__PFT_ARG_S(id, val) do { a->n = 0; prof__pb_u(a, 1, (id)); prof__pb_s(a, 6, (val)); prof__pb_sub(te, 4, a); } while (0)
    const char *dims = prof__dims_of(x);
    if (dims) PROF__PFT_ARG_S(PROF__PA_DIMS, dims); /* as the JSON */
    if (prof__seq_nr(e, v) >= 0 && !light) PROF__PFT_ARG_I(PROF__PA_SEQ, prof__seq_nr(e, v));
    if (x->has_fwd_thread) PROF__PFT_ARG_I(PROF__PA_FWD, (int64_t)x->fwd_thread);
    if (x->flops > 0) PROF__PFT_ARG_I(PROF__PA_FLOPS, x->flops);
    if (x->overload_name && x->overload_name[0]) PROF__PFT_ARG_S(PROF__PA_OVERLOAD, x->overload_name);
    if (x->cbid) PROF__PFT_ARG_I(PROF__PA_CBID, (int64_t)x->cbid);
    if (x->correlation && !light) PROF__PFT_ARG_I(PROF__PA_CORR, (int64_t)x->correlation);
    if (v->device_type != PROF_DEVICE_CPU) {
        PROF__PFT_ARG_I(PROF__PA_DEVICE, x->device_index);
        PROF__PFT_ARG_I(PROF__PA_STREAM, prof__stream_of(e, v));
    }
#undef PROF__PFT_ARG_I
#undef PROF__PFT_ARG_S
}

/* The arrows, numbered as the JSON numbers them: the n-th device event of
   a correlation (in list order) ends arrow correlation | n << 32, and the
   API call that launched them starts them all (a graph launch: several). */
static PROF__NI void prof__pft_flows(prof__pft *pf) {
    const prof_events *e = pf->e;
    size_t i;
    for (i = 0; i < e->n && pf->api.n; i++) {
        uint32_t corr = prof__flow_corr(e, &e->ev[i], &pf->api), *slot, n;
        int found;
        if (!corr) continue;
        if (!(slot = prof__map_slot(&pf->flow_count, corr, &found))) { pf->oom = 1; return; }
        n = found ? *slot : 0;
        *slot = n + 1;
        if (!(slot = prof__map_slot(&pf->flow_n, i, &found))) { pf->oom = 1; return; }
        *slot = n;
    }
}
/* Event i's ends of arrows, as flow_ids on both sides: the importer pairs
   two slices with one id in time order, whichever it reads first (a
   terminating id read before its start would be dropped). */
static PROF__NI void prof__pft_flow_ids(prof__pft *pf, prof__buf *te, size_t i) {
    const prof__ev *v = &pf->e->ev[i];
    uint32_t corr = prof__x(pf->e, v)->correlation, n, k;
    char t[16];
    if (v->device_type == PROF_DEVICE_CPU) {
        if (prof__map_get(&pf->api, corr) != (uint32_t)i || (n = prof__map_get(&pf->flow_count, corr)) == UINT32_MAX) return;
        for (k = 0; k < n; k++) prof__pb_raw(te, t, (size_t)(prof__pb_fixed64(t, 47, corr | (uint64_t)k << 32) - t));
    } else if ((n = prof__map_get(&pf->flow_n, i)) != UINT32_MAX) {
        prof__pb_raw(te, t, (size_t)(prof__pb_fixed64(t, 47, corr | (uint64_t)n << 32) - t));
    }
}

/* A slice begin (or an instant) of event i on its thread's sequence (track
   0: the default) or on sequence 1 (track: its lane, absolute time). */
static PROF__NI void prof__pft_begin(prof__pft *pf, size_t i, uint32_t seq, uint64_t track, int64_t ts) {
    const prof_events *e = pf->e;
    const prof__ev *v = &e->ev[i];
    const prof__extra *x = prof__x(e, v);
    prof__buf *te = &pf->msg, *in = &pf->sub2;
    unsigned cat = (v->device_type == PROF_DEVICE_CPU && (v->flags & PROF__F_ASYNC)) || pf->as_pair ? (unsigned)PROF__CAT_ASYNC /* as the JSON's b/e pairs */
                   : prof__pft_cat(e->sites[v->site].flags, v->device_type == PROF_DEVICE_CPU);
    uint64_t stack;
    /* interned data first: it uses sub and sub2 */
    in->n = 0;
    {
        prof__buf idata;
        memset(&idata, 0, sizeof idata);
        prof__pft_intern_site(pf, &idata, seq, v->site);
        stack = prof__pft_intern_stack(pf, &idata, seq, i);
        if (idata.oom) pf->oom = 1;
        if (idata.n) prof__pb_sub(&pf->pkt, 12, &idata);
        PROF__FREE(idata.p);
    }
    te->n = 0;
    prof__pb_u(te, 9, 1); /* TYPE_SLICE_BEGIN */
    if (track) prof__pb_u(te, 11, track);
    if (!x->trace_name) prof__pb_u(te, 10, (uint64_t)v->site + 1); /* the importer prefers name_iid to name */
    if (cat) prof__pb_u(te, 3, cat + 1); /* category_iids: the JSON's "cat"; none = user_annotation (plain scopes: 2 bytes of ~24 saved) */
    if (e->sites[v->site].file && e->sites[v->site].file[0]) prof__pb_u(te, 34, (uint64_t)v->site + 1);
    if (stack) prof__pb_u(te, 56, stack);
    if (x->trace_name) { /* an event named apart from its site (CUPTI) */
        prof__buf *nm = &pf->sub;
        nm->n = 0;
        prof__pb_s(nm, 23, x->trace_name);
        prof__pb_raw(te, nm->p, nm->n);
    }
    if (v->extra) prof__pft_args(pf, te, i);
    if (x->correlation) prof__pft_flow_ids(pf, te, i);
    prof__pb_u(&pf->pkt, 8, track ? prof__pft_ts(pf, ts) : (uint64_t)ts);
    prof__pb_u(&pf->pkt, 10, seq);
    prof__pb_sub(&pf->pkt, 11, te);
    prof__pft_emit(pf);
}
/* A slice end: on a thread's sequence (track 0, delta ts), else absolute.
   At most 40 bytes, straight into the writer's buffer: one room check. */
static __inline__ void prof__pft_end(prof__pft *pf, uint32_t seq, uint64_t track, uint64_t ts) {
    prof__w *w = pf->w;
    char *d, *te;
    if (PROF__UNLIKELY(w->cap - w->n < 48) && !prof__w_room(w, 48)) return;
    d = w->buf + w->n;
    d[0] = 0x0a;                     /* Trace.packet; its length (< 128) in d[1] */
    te = prof__pb_uint(d + 2, 8, ts); /* timestamp */
    te = prof__pb_uint(te, 10, seq);  /* trusted_packet_sequence_id */
    te[0] = 0x5a;                    /* track_event; its length in te[1] */
    d[1] = (char)((track ? prof__pb_uint(prof__pb_uint(te + 2, 9, 2), 11, track) : prof__pb_uint(te + 2, 9, 2)) - (d + 2));
    te[1] = (char)(d[1] - (te + 2 - (d + 2)));
    w->n += (size_t)d[1] + 2;
}
/* Clock 64 of thread t's sequence to ns: the delta to write. */
static __inline__ uint64_t prof__pft_delta(prof__pft *pf, uint32_t t, int64_t ns) {
    uint64_t d = (uint64_t)ns - (uint64_t)pf->last_ts[t]; /* unsigned: a list may span more than 2^63 ns */
    pf->last_ts[t] = ns;
    return d;
}
/* Ends the open slices of thread t that end by `until` (all: INT64_MAX);
   those past PROF__PFT_MAX_DEPTH levels ended with their begin. */
static PROF__NI void prof__pft_close(prof__pft *pf, uint32_t t, int64_t until) {
    const prof__ev *ev = pf->e->ev;
    int32_t *stack = pf->stack[t];
    size_t depth = pf->depth[t];
    while (depth > 0 && ev[stack[depth - 1]].end <= until) {
        if (PROF__LIKELY(depth <= PROF__PFT_MAX_DEPTH)) prof__pft_end(pf, t + 2, 0, prof__pft_delta(pf, t, ev[stack[depth - 1]].end));
        depth--;
    }
    pf->depth[t] = depth;
}

/* Thread t's marks before lim (all: every one left) placed (prof__pft_marks):
   called before the thread's slices that end by lim close, so that its
   stack holds every slice open at those marks' times, with some that end
   at or before them, which do not count (a stack's ends do not grow from
   its root up: the ones that count are a prefix). */
static PROF__NI void prof__pft_marks_place(prof__pft *pf, uint32_t t, int64_t lim, int all) {
    const prof_events *e = pf->e;
    const int32_t *stack = pf->stack[t];
    const size_t depth = pf->depth[t], first = pf->mk.cur[t], end = pf->mk.end[t];
    size_t k, same = 0;
    for (k = first; k < end; k++) {
        const prof__instant_ev *in = &e->inst[pf->mk.idx[k]];
        size_t lo = 0, hi = depth;
        if (!all && in->ts >= lim) break;
        while (lo < hi) { /* the first slice that ends at or before the mark: the count open */
            size_t mid = lo + (hi - lo) / 2;
            if (e->ev[stack[mid]].end > in->ts) lo = mid + 1;
            else hi = mid;
        }
        same = k > first && e->inst[pf->mk.idx[k - 1]].ts == in->ts ? same + 1 : 0; /* (one thread's marks at one time come in one call) */
        pf->mk.band[pf->mk.idx[k]] = (uint32_t)((lo + same) / PROF__PFT_MAX_DEPTH);
    }
    pf->mk.cur[t] = k;
    pf->mk.next[t] = k < end ? e->inst[pf->mk.idx[k]].ts : INT64_MAX;
}

/* ----- the common slice begin, straight into the writer's buffer -----
   A CPU slice on its thread's track whose site (and stack) its sequence
   has interned and that carries no annotations: the packet is the site's
   TrackEvent head, made once per export (prof__pft_heads), with the delta,
   the sequence and the stack's iid around it; the same bytes as
   prof__pft_begin writes for it. */
typedef struct prof__pft_head { unsigned char n; char b[31]; } prof__pft_head;
/* Each site's head (fields 9, 10, 3 and 34 in prof__pft_begin's order);
   NULL without memory (then every event takes prof__pft_begin). */
static PROF__NI prof__pft_head *prof__pft_heads(const prof_events *e) {
    prof__pft_head *h = PROF__ALLOC(prof__pft_head, e->nsites + 1);
    size_t s;
    for (s = 0; h && s < e->nsites; s++) {
        unsigned cat = prof__pft_cat(e->sites[s].flags, 1);
        char *d = prof__pb_uint(h[s].b, 9, 1); /* TYPE_SLICE_BEGIN */
        d = prof__pb_uint(d, 10, (uint64_t)s + 1);
        if (cat) d = prof__pb_uint(d, 3, cat + 1); /* none = user_annotation, as in prof__pft_begin */
        if (e->sites[s].file && e->sites[s].file[0]) d = prof__pb_uint(d, 34, (uint64_t)s + 1);
        h[s].n = (unsigned char)(d - h[s].b);
    }
    return h;
}
/* Whether the sequence has had the site's name (and source location). */
static __inline__ int prof__pft_seen(const prof__pft *pf, uint32_t seq, uint32_t site) {
    size_t bit = (size_t)seq * pf->e->nsites + site;
    if (PROF__UNLIKELY(!pf->seen)) return prof__map_get(&pf->seen_map, (uint64_t)seq << 32 | site) != UINT32_MAX;
    return (pf->seen[bit >> 3] >> (bit & 7)) & 1;
}
/* The annotations of a common event (prof__pft_args' fields and order,
   without correlation), gathered with their sizes so the packet's lengths
   are known before a byte is written. Strings go out as they are, so only
   those known clean (ASCII, from the cache of interned strings) qualify. */
typedef struct prof__pft_fargs {
    int n;
    size_t bytes;                /* the annotations' fields, tags included */
    struct { unsigned iid; size_t inner; uint64_t v; const char *s; size_t len; } a[5]; /* s NULL: an int */
} prof__pft_fargs;
static __inline__ size_t prof__pb_vlen(uint64_t v) {
    size_t n = 1;
    while (v >= 0x80) { v >>= 7; n++; }
    return n;
}
static __inline__ void prof__pft_farg(prof__pft_fargs *f, unsigned iid, const char *s, size_t len, uint64_t v) {
    size_t inner = 2 + (s ? 1 + prof__pb_vlen(len) + len : 1 + prof__pb_vlen(v)); /* name_iid, then string_value or int_value */
    f->a[f->n].iid = iid;
    f->a[f->n].inner = inner;
    f->a[f->n].v = v;
    f->a[f->n].s = s;
    f->a[f->n].len = len;
    f->n++;
    f->bytes += 1 + prof__pb_vlen(inner) + inner;
}
/* 0 when a string needs more than a copy (then prof__pft_begin writes it). */
static PROF__NI int prof__pft_fast_args(prof__pft *pf, const prof__ev *v, prof__pft_fargs *f) {
    const prof_events *e = pf->e;
    const prof__extra *x = prof__x(e, v);
    const char *dims = prof__dims_of(x);
    const prof__clean *c;
    int light = e->xopt.args == PROF_ARGS_LIGHT;
    f->n = 0;
    f->bytes = 0;
    if (dims) {
        if (!pf->cache || !(c = prof__clean_of(pf->cache, dims))->clean) return 0;
        prof__pft_farg(f, PROF__PA_DIMS, c->key, c->len, 0);
    }
    if (prof__seq_nr(e, v) >= 0 && !light) prof__pft_farg(f, PROF__PA_SEQ, NULL, 0, (uint64_t)prof__seq_nr(e, v));
    if (x->has_fwd_thread) prof__pft_farg(f, PROF__PA_FWD, NULL, 0, x->fwd_thread);
    if (x->flops > 0) prof__pft_farg(f, PROF__PA_FLOPS, NULL, 0, (uint64_t)x->flops);
    if (x->overload_name && x->overload_name[0]) {
        if (!pf->cache || !(c = prof__clean_of(pf->cache, x->overload_name))->clean) return 0;
        prof__pft_farg(f, PROF__PA_OVERLOAD, c->key, c->len, 0);
    }
    return 1;
}
static __inline__ char *prof__pft_put_fargs(char *d, const prof__pft_fargs *f) {
    int k;
    for (k = 0; k < f->n; k++) {
        d = prof__pb_len(d, 4, f->a[k].inner); /* debug_annotations */
        d = prof__pb_uint(d, 1, f->a[k].iid);
        if (f->a[k].s) {
            d = prof__pb_len(d, 6, f->a[k].len);
            memcpy(d, f->a[k].s, f->a[k].len);
            d += f->a[k].len;
        } else {
            d = prof__pb_uint(d, 4, f->a[k].v);
        }
    }
    return d;
}
/* Writes event i's begin if it is a common one; 0: not, nothing written. */
static __inline__ int prof__pft_begin_fast(prof__pft *pf, size_t i, uint32_t seq, uint64_t delta) {
    const prof__ev *v = &pf->e->ev[i];
    prof__w *w = pf->w;
    const prof__pft_head *h;
    prof__pft_fargs f;
    uint32_t node;
    size_t te_n, body;
    char *d;
    if (!pf->head || !prof__pft_seen(pf, seq, v->site)) return 0;
    node = prof__stack_node(pf->e, i);
    if (node && prof__map_get(&pf->stack_seen, ((uint64_t)seq << 32) | node) == UINT32_MAX) return 0;
    f.n = 0;
    f.bytes = 0;
    if (PROF__UNLIKELY(v->extra)) {
        const prof__extra *x = prof__x(pf->e, v);
        if (x->trace_name || x->correlation || !prof__pft_fast_args(pf, v, &f)) return 0;
    }
    h = &pf->head[v->site];
    if (!f.n) { /* no annotations: both lengths fit a byte (at most 11 + 6 + 2 + 18 + 7) */
        char *te;
        if (PROF__UNLIKELY(w->cap - w->n < 80) && !prof__w_room(w, 80)) return 1;
        d = w->buf + w->n;
        d[0] = 0x0a;                        /* Trace.packet; its length in d[1] */
        te = prof__pb_uint(d + 2, 8, delta); /* timestamp */
        te = prof__pb_uint(te, 10, seq);     /* trusted_packet_sequence_id */
        te[0] = 0x5a;                       /* track_event; its length in te[1] */
        memcpy(te + 2, h->b, sizeof h->b);
        d[1] = (char)((node ? prof__pb_uint(te + 2 + h->n, 56, node) : te + 2 + h->n) - (d + 2)); /* callstack_iid */
        te[1] = (char)(d[1] - (te + 2 - (d + 2)));
        w->n += (size_t)d[1] + 2;
        return 1;
    }
    te_n = h->n + (node ? 2 + prof__pb_vlen(node) : 0) + f.bytes;
    body = 1 + prof__pb_vlen(delta) + 1 + prof__pb_vlen(seq) + 1 + prof__pb_vlen(te_n) + te_n;
    if (body + 48 > w->cap / 2) return 0; /* a huge one: prof__pft_begin's buffers */
    if (PROF__UNLIKELY(w->cap - w->n < body + 48) && !prof__w_room(w, body + 48)) return 1;
    d = prof__pb_len(w->buf + w->n, 1, body); /* Trace.packet */
    d = prof__pb_uint(d, 8, delta);           /* timestamp */
    d = prof__pb_uint(d, 10, seq);            /* trusted_packet_sequence_id */
    d = prof__pb_len(d, 11, te_n);            /* track_event */
    memcpy(d, h->b, sizeof h->b);             /* 32 bytes of room past the packet: the room check's slack */
    d += h->n;
    if (node) d = prof__pb_uint(d, 56, node); /* callstack_iid */
    d = prof__pft_put_fargs(d, &f);
    w->n = (size_t)(d - w->buf);
    return 1;
}

/* The lane group of device event i: its device and stream, as the first
   event of that lane (<< 2 | 2: apart from the threads' groups, whose bit
   0 is set); 0 without memory. */
static PROF__NI uint64_t prof__pft_stream_group(prof__pft *pf, size_t i) {
    int found;
    uint32_t *slot = prof__lane_slot(&pf->stream_lanes, pf->e, (uint32_t)i, &found);
    if (!slot) { pf->oom = 1; return 0; }
    return ((uint64_t)*slot << 2) | 2;
}
/* An event that does not nest in its thread's slices (async, overlapping)
   or a device event: a begin and an end on a lane of sequence 1, by device
   and stream or by thread. */
static PROF__NI void prof__pft_lane_event(prof__pft *pf, size_t i) {
    const prof_events *e = pf->e;
    const prof__ev *v = &e->ev[i];
    uint32_t t = v->thread;
    uint64_t group, track, parent;
    const char *name;
    char label[96];
    int rank0 = 0;
    if (v->device_type != PROF_DEVICE_CPU) {
        const prof__extra *x = prof__x(e, v);
        int64_t stream = prof__stream_of(e, v);
        if (!(group = prof__pft_stream_group(pf, i))) return;
        parent = PROF__PFT_UUID_MEMORY(v->device_type, x->device_index) ^ ((uint64_t)1 << 40); /* the device's process track */
        snprintf(label, sizeof label, "stream %lld", (long long)stream);
        name = label;
        rank0 = (int)prof__map_get(&pf->stream_rank, group); /* the streams in order (prof__pft_stream_ranks) */
    } else { /* async ranges and overlapping events apart, after the depth tracks */
        int async = (v->flags & PROF__F_ASYNC) != 0;
        group = ((uint64_t)t << 2) | 1 | (uint64_t)(async << 1);
        parent = PROF__PFT_UUID_THREAD(t);
        name = async ? "async" : "overlapping";
        rank0 = async ? PROF__PFT_RANK_ASYNC : PROF__PFT_RANK_OVERLAP;
    }
    track = prof__pft_lane(pf, group, v->start, v->end, parent, name, rank0);
    if (!track) return;
    { /* an overlapping event: the JSON's pair (prof__trace_overlaps); a device's where the JSON's is */
        size_t k = prof__overlap_at(pf->dev_pairs, pf->ndev_pairs, i);
        pf->as_pair = v->device_type == PROF_DEVICE_CPU || (k < pf->ndev_pairs && pf->dev_pairs[k] == i);
    }
    prof__pft_begin(pf, i, PROF__PFT_SEQ_MISC, track, v->start);
    pf->as_pair = 0;
    prof__pft_end(pf, PROF__PFT_SEQ_MISC, track, prof__pft_ts(pf, v->end));
}
/* Event i of thread t, nested `depth` deep where a track cannot hold it:
   on the thread's child track for its 512 levels, begin and end together
   (the importer sorts by time; the levels nest there as they do here). */
/* Thread t's child track for levels [band * 512, band * 512 + 511],
   described when first used; 0 without memory. */
static PROF__NI uint64_t prof__pft_band_track(prof__pft *pf, uint32_t t, uint64_t band) {
    uint64_t key = ((uint64_t)t << 24) | band;
    uint64_t track = (prof__mix(key ^ 0xdee9u) | ((uint64_t)1 << 61)) & ~((uint64_t)1 << 62);
    uint32_t *slot;
    int found;
    if (!(slot = prof__map_slot(&pf->deep_seen, key, &found))) { pf->oom = 1; return 0; }
    *slot = 1;
    if (!found) {
        char label[64];
        snprintf(label, sizeof label, "depth %llu-%llu", (unsigned long long)(band * PROF__PFT_MAX_DEPTH), (unsigned long long)(band * PROF__PFT_MAX_DEPTH + PROF__PFT_MAX_DEPTH - 1));
        prof__pft_track(pf, track, PROF__PFT_UUID_THREAD(t), label, (int)band, -1);
    }
    return track;
}
static PROF__NI void prof__pft_deep_event(prof__pft *pf, size_t i, uint32_t t, size_t depth) {
    const prof__ev *v = &pf->e->ev[i];
    uint64_t track = prof__pft_band_track(pf, t, depth / PROF__PFT_MAX_DEPTH);
    if (!track) return;
    prof__pft_begin(pf, i, PROF__PFT_SEQ_MISC, track, v->start);
    prof__pft_end(pf, PROF__PFT_SEQ_MISC, track, prof__pft_ts(pf, v->end));
}
/* One event: a slice on its thread's sequence when it nests there (on a
   deeper track past 512 levels), else on a lane of sequence 1. */
static PROF__NI void prof__pft_event(prof__pft *pf, size_t i) {
    const prof_events *e = pf->e;
    const prof__ev *v = &e->ev[i];
    uint32_t t = v->thread;
    if (v->flags & PROF__F_MEMROW) return; /* as the JSON: its record is a memory counter value, not a slice */
    if (PROF__LIKELY(v->device_type == PROF_DEVICE_CPU && !(v->flags & PROF__F_ASYNC) && t < e->nthr)) {
        size_t depth;
        if (PROF__UNLIKELY(pf->mk.next[t] < v->start)) prof__pft_marks_place(pf, t, v->start, 0); /* before the slices that end by v's start close */
        prof__pft_close(pf, t, v->start);
        depth = pf->depth[t];
        if (v->start >= pf->last_ts[t] && (depth == 0 || e->ev[pf->stack[t][depth - 1]].end >= v->end)) {
            uint64_t delta;
            if (PROF__UNLIKELY(depth == pf->cap[t]) && !prof__grow((void *)&pf->stack[t], &pf->cap[t], depth + 1, sizeof(int32_t))) { pf->oom = 1; return; }
            pf->stack[t][depth] = (int32_t)i;
            pf->depth[t] = depth + 1;
            if (PROF__UNLIKELY(depth >= PROF__PFT_MAX_DEPTH)) { /* its end goes with its begin */
                prof__pft_deep_event(pf, i, t, depth);
                return;
            }
            delta = prof__pft_delta(pf, t, v->start);
            if (!prof__pft_begin_fast(pf, i, t + 2, delta)) prof__pft_begin(pf, i, t + 2, 0, (int64_t)delta);
            return;
        }
    }
    prof__pft_lane_event(pf, i);
}
/* A TrackEvent (in pf->msg) on sequence 1 at absolute time ns, as a packet. */
static PROF__NI void prof__pft_emit_misc(prof__pft *pf, int64_t ns) {
    prof__pb_u(&pf->pkt, 8, prof__pft_ts(pf, ns));
    prof__pb_u(&pf->pkt, 10, PROF__PFT_SEQ_MISC);
    prof__pb_sub(&pf->pkt, 11, &pf->msg);
    prof__pft_emit(pf);
}
/* Marks (instants on their thread's track, their names interned) and
   counters (a counter track per counter name, as the JSON's series are,
   described when first seen: `counters` maps a name to the site that
   named its track first), on sequence 1. */
typedef struct prof__pft_ckey { const prof_events *e; const char *name; } prof__pft_ckey;
static PROF__NI int prof__pft_counter_same(const void *key, uint32_t v) {
    const prof__pft_ckey *k = (const prof__pft_ckey *)key;
    return strcmp(k->e->sites[v].name, k->name) == 0;
}
static PROF__NI void prof__pft_instant(prof__pft *pf, size_t i, prof__map *counters) {
    const prof_events *e = pf->e;
    const prof__instant_ev *in = &e->inst[i];
    prof__buf *te = &pf->msg;
    uint64_t track;
    if (in->kind != 1) {
        prof__pft_ckey key;
        uint64_t h;
        uint32_t first;
        key.e = e;
        key.name = e->sites[in->site].name;
        h = prof__hash_bytes(key.name, strlen(key.name), 0);
        if ((first = prof__map_find(counters, h, prof__pft_counter_same, &key)) == UINT32_MAX) {
            if (!prof__map_add(counters, h, in->site)) { pf->oom = 1; return; }
            first = in->site;
            prof__pft_track(pf, PROF__PFT_UUID_COUNTER(first), PROF__PFT_UUID_PROCESS, key.name, (int)first, 0);
        }
        track = PROF__PFT_UUID_COUNTER(first);
    } else {
        prof__buf idata;
        memset(&idata, 0, sizeof idata);
        prof__pft_intern_site(pf, &idata, PROF__PFT_SEQ_MISC, in->site);
        if (idata.oom) pf->oom = 1;
        if (idata.n) prof__pb_sub(&pf->pkt, 12, &idata);
        PROF__FREE(idata.p);
        track = PROF__PFT_UUID_THREAD(in->thread);
        if (pf->mk.band && pf->mk.band[i] && !(track = prof__pft_band_track(pf, in->thread, pf->mk.band[i]))) return;
    }
    te->n = 0;
    prof__pb_u(te, 11, track);
    if (in->kind == 1) {
        prof__pb_u(te, 9, 3); /* TYPE_INSTANT */
        prof__pb_u(te, 10, (uint64_t)in->site + 1);
        prof__pb_u(te, 3, 1); /* user_annotation, as the JSON's "I" */
    } else {
        prof__pb_u(te, 9, 4); /* TYPE_COUNTER */
        prof__pb_f64(te, 44, in->value);
        prof__pb_u(te, 3, PROF__CAT_COUNTER + 1);
    }
    prof__pft_emit_misc(pf, in->ts);
}
/* A memory record: the bytes allocated on its device, a counter track per
   device (`tracks` remembers which were described). */
static PROF__NI void prof__pft_memory(prof__pft *pf, const prof__memrec *mr, prof__map *tracks) {
    uint64_t track = PROF__PFT_UUID_MEMORY(mr->device_type, mr->device_type == PROF_DEVICE_CPU ? 0 : mr->device_index);
    uint32_t *slot;
    int found;
    prof__buf *te = &pf->msg;
    if (!(slot = prof__map_slot(tracks, track, &found))) { pf->oom = 1; return; }
    *slot = 1;
    if (!found) {
        char label[64];
        if (mr->device_type == PROF_DEVICE_CPU) snprintf(label, sizeof label, "[memory] CPU");
        else if (mr->device_type == PROF_DEVICE_CUDA) snprintf(label, sizeof label, "[memory] device %d", mr->device_index);
        else snprintf(label, sizeof label, "[memory] device %d:%d", mr->device_type, mr->device_index); /* (another type's index 3 is no CUDA device 3) */
        prof__pft_track(pf, track, PROF__PFT_UUID_PROCESS, label, 0x10000 + (int)(track & 0xffff), 3 /* UNIT_SIZE_BYTES */);
    }
    te->n = 0;
    prof__pb_u(te, 11, track);
    prof__pb_u(te, 9, 4);
    prof__pb_i(te, 30, mr->total);
    prof__pb_u(te, 3, PROF__CAT_MEMORY + 1); /* the JSON's [memory] instants' */
    prof__pft_emit_misc(pf, mr->ts);
}
/* Marks and counters, then the memory records, on sequence 1. */
static PROF__NI void prof__pft_instants(prof__pft *pf) {
    const prof_events *e = pf->e;
    size_t i;
    prof__map seen;
    memset(&seen, 0, sizeof seen);
    for (i = 0; i < e->ninst && !pf->oom && !pf->w->err; i++) prof__pft_instant(pf, i, &seen);
    prof__map_free(&seen);
    memset(&seen, 0, sizeof seen);
    for (i = 0; i < e->nmem && !pf->oom && !pf->w->err; i++) prof__pft_memory(pf, &e->mem[i], &seen);
    prof__map_free(&seen);
}

/* Each device stream's rank among its device's (pf->stream_rank): a
   device's streams in order (device, stream), ranked 0, 1, ... over all
   devices, so exact for any stream numbers. */
static PROF__NI int prof__pft_stream_less(const void *ctx, uint32_t a, uint32_t b) {
    const prof_events *e = (const prof_events *)ctx;
    int da = prof__x(e, &e->ev[a])->device_index, db = prof__x(e, &e->ev[b])->device_index;
    return da != db ? da < db : prof__stream_of(e, &e->ev[a]) < prof__stream_of(e, &e->ev[b]);
}
static PROF__NI void prof__pft_stream_ranks(prof__pft *pf) {
    const prof_events *e = pf->e;
    uint32_t *first = NULL, *tmp;
    size_t n = 0, cap = 0, i;
    int found;
    for (i = 0; i < e->n; i++) { /* the first event of each stream */
        uint64_t group;
        uint32_t *slot;
        if (e->ev[i].device_type == PROF_DEVICE_CPU) continue;
        if (!(group = prof__pft_stream_group(pf, i)) || !(slot = prof__map_slot(&pf->stream_rank, group, &found))) { pf->oom = 1; break; }
        if (found) continue;
        *slot = 0; /* (ranked below) */
        if (!prof__grow((void *)&first, &cap, n + 1, sizeof *first)) { pf->oom = 1; break; }
        first[n++] = (uint32_t)i;
    }
    if (!pf->oom && n && (tmp = PROF__ALLOC(uint32_t, n))) {
        prof__msort_u32(first, tmp, n, prof__pft_stream_less, e);
        for (i = 0; i < n; i++) *prof__map_slot(&pf->stream_rank, ((uint64_t)first[i] << 2) | 2, &found) = (uint32_t)i; /* (first[i] is its lane's first event: its group) */
        PROF__FREE(tmp);
    } else if (n) {
        pf->oom = 1;
    }
    PROF__FREE(first);
}

/* Descriptors on sequence 1: the root track (threads in the order given
   by their rank), the process, each device's track (its streams in
   order). The threads' own come with their sequences (prof__pft_thread). */
static PROF__NI void prof__pft_descriptors(prof__pft *pf, uint64_t pid, const char *pname) {
    const prof_events *e = pf->e;
    prof__buf *m = &pf->msg, *s = &pf->sub;
    size_t i;
    prof__pft_stream_ranks(pf);
    m->n = 0;
    prof__pb_u(m, 1, 0);
    prof__pb_u(m, 20, 1); /* thread_ordering: THREAD_ORDERING_EXPLICIT */
    prof__pb_u(&pf->pkt, 10, PROF__PFT_SEQ_MISC);
    prof__pb_sub(&pf->pkt, 60, m);
    prof__pft_emit(pf);
    m->n = 0;
    prof__pb_u(m, 1, PROF__PFT_UUID_PROCESS);
    s->n = 0;
    prof__pb_i(s, 1, (int64_t)(int32_t)pid);
    prof__pb_s(s, 6, pname);
    prof__pb_sub(m, 3, s);
    prof__pb_u(m, 11, 3); /* child_ordering EXPLICIT */
    prof__pb_u(&pf->pkt, 10, PROF__PFT_SEQ_MISC);
    prof__pb_sub(&pf->pkt, 60, m);
    prof__pft_emit(pf);
    {
        prof__map seen;
        memset(&seen, 0, sizeof seen);
        for (i = 0; i < e->n && !pf->oom; i++) {
            const prof__ev *v = &e->ev[i];
            uint64_t uuid;
            uint32_t *slot;
            int found;
            char label[64];
            if (v->device_type == PROF_DEVICE_CPU) continue;
            uuid = PROF__PFT_UUID_MEMORY(v->device_type, prof__x(e, v)->device_index) ^ ((uint64_t)1 << 40);
            if (!(slot = prof__map_slot(&seen, uuid, &found))) { pf->oom = 1; break; }
            *slot = 1;
            if (found) continue;
            snprintf(label, sizeof label, "GPU %d", prof__x(e, v)->device_index);
            m->n = 0;
            prof__pb_u(m, 1, uuid);
            prof__pb_s(m, 2, label);
            prof__pb_u(m, 11, 3); /* child_ordering EXPLICIT: the streams by rank */
            prof__pb_i(m, 12, (int64_t)0x1000000 + (prof__x(e, v)->device_index < INT32_MAX - 0x1000000 ? prof__x(e, v)->device_index : INT32_MAX - 0x1000000));
            prof__pb_u(&pf->pkt, 10, PROF__PFT_SEQ_MISC);
            prof__pb_sub(&pf->pkt, 60, m);
            prof__pft_emit(pf);
        }
        prof__map_free(&seen);
    }
}
/* The threads' ranks on the process track: in the order of their ids, as
   the JSON's thread_sort_index (Kineto's: the id itself; a rank here
   because sibling_order_rank is int32 and shared with the counter tracks'
   ranks). NULL without memory. */
static int prof__thr_tid_less(const void *ctx, uint32_t a, uint32_t b) {
    const prof__thr *t = (const prof__thr *)ctx;
    return t[a].tid_w < t[b].tid_w;
}
static PROF__NI uint32_t *prof__thr_ranks(const prof_events *e) {
    uint32_t *ord = PROF__ALLOC(uint32_t, 2 * e->nthr + 1), *rank;
    size_t k;
    if (!ord) return NULL;
    rank = ord + e->nthr; /* the sort's scratch, then the ranks */
    for (k = 0; k < e->nthr; k++) ord[k] = (uint32_t)k;
    prof__msort_u32(ord, rank, e->nthr, prof__thr_tid_less, e->thr);
    for (k = 0; k < e->nthr; k++) rank[ord[k]] = (uint32_t)k;
    memmove(ord, rank, e->nthr * sizeof *ord);
    return ord;
}
/* Thread i's sequence: its first packet, then the thread's descriptor
   (name, pid and tid, its rank among the threads) on it. */
static PROF__NI void prof__pft_thread(prof__pft *pf, size_t i, uint32_t rank, uint64_t pid, int64_t t0) {
    const prof_events *e = pf->e;
    prof__buf *m = &pf->msg, *s = &pf->sub;
    char tn[64];
    prof__pft_seq_start(pf, (uint32_t)i + 2, t0, PROF__PFT_UUID_THREAD(i));
    m->n = 0;
    prof__pb_u(m, 1, PROF__PFT_UUID_THREAD(i));
    s->n = 0;
    prof__pb_i(s, 1, (int64_t)(int32_t)pid);
    prof__pb_i(s, 2, (int64_t)e->thr[i].tid_w);
    if (!e->thr[i].name) snprintf(tn, sizeof tn, "thread %llu", (unsigned long long)e->thr[i].tid);
    prof__pb_s(s, 5, e->thr[i].name ? e->thr[i].name : tn);
    prof__pb_sub(m, 4, s);
    prof__pb_u(m, 11, 3); /* child_ordering EXPLICIT: its depth tracks and lanes by rank */
    prof__pb_i(m, 12, (int64_t)rank); /* sibling_order_rank */
    prof__pb_u(&pf->pkt, 10, (uint64_t)i + 2);
    prof__pb_sub(&pf->pkt, 60, m);
    prof__pft_emit(pf);
}

/* Metadata (add_metadata, distributedInfo): annotations of an instant
   named "metadata" on the process track at the trace's start, and the
   same as trace attributes, whose keys the importer keeps as they are. */
static PROF__NI void prof__pft_metadata(prof__pft *pf, int64_t t0) {
    const prof_events *e = pf->e;
    prof__buf *te = &pf->msg, *a = &pf->sub;
    const prof__meta *m;
    size_t i;
    char di[160];
    int have_di = 0;
    te->n = 0;
    prof__pb_u(te, 11, PROF__PFT_UUID_PROCESS);
    prof__pb_u(te, 9, 3);
    prof__pb_s(te, 23, "metadata");
    for (i = 0; i < e->meta.n; i++) {
        m = &e->meta.v[i];
        a->n = 0;
        prof__pb_s(a, 10, m->key);
        prof__pb_s(a, m->is_json ? 9 : 6, m->value);
        prof__pb_sub(te, 4, a);
        if (strcmp(m->key, "distributedInfo") == 0) have_di = 1;
    }
    if (!have_di) {
        snprintf(di, sizeof di, "{\"backend\": \"prof.h\", \"rank\": %d, \"world_size\": %d}", e->with_node_id ? e->node_id : 0, e->with_node_id ? e->world_size : 1);
        a->n = 0;
        prof__pb_s(a, 10, "distributedInfo");
        prof__pb_s(a, 9, di);
        prof__pb_sub(te, 4, a);
    }
    prof__pb_u(&pf->pkt, 8, prof__pft_ts(pf, t0));
    prof__pb_u(&pf->pkt, 10, PROF__PFT_SEQ_MISC);
    prof__pb_sub(&pf->pkt, 11, te);
    prof__pft_emit(pf);
    /* TraceAttributes: attribute = 1 { key = 1, string_value = 3 } */
    te->n = 0;
    for (i = 0; i < e->meta.n; i++) {
        m = &e->meta.v[i];
        a->n = 0;
        prof__pb_s(a, 1, m->key);
        prof__pb_s(a, 3, m->value);
        prof__pb_sub(te, 1, a);
    }
    if (!have_di) {
        a->n = 0;
        prof__pb_s(a, 1, "distributedInfo");
        prof__pb_s(a, 3, di);
        prof__pb_sub(te, 1, a);
    }
    prof__pb_u(&pf->pkt, 10, PROF__PFT_SEQ_MISC);
    prof__pb_sub(&pf->pkt, 126, te);
    prof__pft_emit(pf);
}

/* The marks in (thread, time) order, for prof__pft_marks_place; -1
   without memory. */
static PROF__NI int prof__pft_mark_less(const void *ctx, uint32_t a, uint32_t b) {
    const prof__instant_ev *in = (const prof__instant_ev *)ctx;
    return in[a].thread != in[b].thread ? in[a].thread < in[b].thread : in[a].ts < in[b].ts;
}
static PROF__NI int prof__pft_marks_init(prof__pft *pf) {
    const prof_events *e = pf->e;
    prof__pft_marks *m = &pf->mk;
    uint32_t *tmp;
    size_t i, n = 0;
    if (!(m->next = PROF__ALLOC(int64_t, e->nthr + 1))) return -1;
    for (i = 0; i <= e->nthr; i++) m->next[i] = INT64_MAX;
    for (i = 0; i < e->ninst; i++) n += e->inst[i].kind == 1 && e->inst[i].thread < e->nthr;
    if (!n) return 0;
    m->idx = PROF__ALLOC(uint32_t, n);
    tmp = PROF__ALLOC(uint32_t, n);
    m->cur = PROF__ALLOC(size_t, e->nthr + 1);
    m->end = PROF__ALLOC(size_t, e->nthr + 1);
    m->band = PROF__ALLOC(uint32_t, e->ninst);
    if (!m->idx || !tmp || !m->cur || !m->end || !m->band) { PROF__FREE(tmp); return -1; }
    memset(m->band, 0, e->ninst * sizeof *m->band);
    for (i = 0, n = 0; i < e->ninst; i++)
        if (e->inst[i].kind == 1 && e->inst[i].thread < e->nthr) m->idx[n++] = (uint32_t)i;
    prof__msort_u32(m->idx, tmp, n, prof__pft_mark_less, e->inst);
    PROF__FREE(tmp);
    memset(m->cur, 0, (e->nthr + 1) * sizeof *m->cur);
    memset(m->end, 0, (e->nthr + 1) * sizeof *m->end);
    for (i = 0; i < n; i++) { /* each thread's run in idx */
        uint32_t t = e->inst[m->idx[i]].thread;
        if (m->end[t] == 0) {
            m->cur[t] = i;
            m->next[t] = e->inst[m->idx[i]].ts;
        }
        m->end[t] = i + 1;
    }
    return 0;
}
/* A thread's slices go out in (start, -end) order, parents before their
   children, as its stack of open slices needs: the order prof_stop leaves
   them in, which the tree found (e->in_order; prof__prepare built it). A
   list built by hand in another order is sorted (indices, 8 bytes an event
   while the export runs). -1: out of memory. */
static PROF__NI int prof__pft_order(prof__pft *pf) {
    const prof_events *e = pf->e;
    uint32_t *tmp;
    size_t i;
    if (e->in_order) return 0;
    if (!(pf->order = PROF__ALLOC(uint32_t, e->n)) || !(tmp = PROF__ALLOC(uint32_t, e->n))) return -1;
    for (i = 0; i < e->n; i++) pf->order[i] = (uint32_t)i;
    prof__msort_u32(pf->order, tmp, e->n, prof__ev_order_less, e->ev);
    PROF__FREE(tmp);
    return 0;
}
static PROF__NI void prof__pft_free(prof__pft *pf) {
    size_t i;
    for (i = 0; pf->stack && i < pf->e->nthr; i++) PROF__FREE(pf->stack[i]);
    for (i = 0; i < pf->nlanes; i++) PROF__FREE(pf->lanes[i].tree);
    PROF__FREE(pf->stack); PROF__FREE(pf->depth); PROF__FREE(pf->cap); PROF__FREE(pf->last_ts);
    PROF__FREE(pf->seen); PROF__FREE(pf->lanes); PROF__FREE(pf->head); PROF__FREE(pf->cache);
    prof__map_free(&pf->lane_map); prof__map_free(&pf->stream_lanes); prof__map_free(&pf->stream_rank); prof__map_free(&pf->api); prof__map_free(&pf->seen_map);
    prof__map_free(&pf->frame_iid); prof__map_free(&pf->stack_seen);
    prof__map_free(&pf->flow_n); prof__map_free(&pf->flow_count); prof__map_free(&pf->deep_seen);
    PROF__FREE(pf->order);
    PROF__FREE(pf->mk.idx); PROF__FREE(pf->mk.cur); PROF__FREE(pf->mk.end); PROF__FREE(pf->mk.next); PROF__FREE(pf->mk.band);
    PROF__FREE(pf->dev_pairs);
    PROF__FREE(pf->pkt.p); PROF__FREE(pf->msg.p); PROF__FREE(pf->sub.p); PROF__FREE(pf->sub2.p);
    prof__xp_free(&pf->xp);
}

PROF_API prof_result prof_export_perfetto(prof_events *e, const char *path) {
    static const char *const who = "prof_export_perfetto";
    prof__out o;
    prof_result r;
    prof__pft pf;
    size_t i, nseq;
    int big;
    int64_t t0, t1;
    char pname[256];
    if (!e) return prof__report(PROF_LOG_ERROR, PROF_E_ARG, "%s: the event list is NULL", who);
    if ((r = prof__prepare(e)) != PROF_OK) return r;
    if (prof__nodes_flatten(e) != 0) return prof__report(PROF_LOG_ERROR, PROF_E_NOMEM, "%s: out of memory", who);
    memset(&pf, 0, sizeof pf);
    pf.e = e;
    nseq = e->nthr + 2;
    big = e->nsites + 1 > PROF__PFT_SEEN_BITS / nseq; /* 60000 threads, each with a name of its own: 450 MB of bits */
    pf.seen = big ? NULL : (unsigned char *)PROF__MALLOC(nseq * (e->nsites + 1) / 8 + 1);
    pf.stack = PROF__ALLOC(int32_t *, e->nthr + 1);
    if (pf.stack) memset(pf.stack, 0, (e->nthr + 1) * sizeof *pf.stack); /* prof__pft_free frees each, also when what follows fails */
    pf.depth = PROF__ALLOC(size_t, e->nthr + 1);
    pf.cap = PROF__ALLOC(size_t, e->nthr + 1);
    pf.last_ts = PROF__ALLOC(int64_t, e->nthr + 1);
    pf.head = prof__pft_heads(e); /* optional */
    pf.cache = PROF__ALLOC(prof__clean, PROF__CLEAN_SLOTS); /* optional */
    if (pf.cache) memset(pf.cache, 0, PROF__CLEAN_SLOTS * sizeof *pf.cache);
    if (prof__xp_init(&pf.xp, e) != 0 || (!pf.seen && !big) || !pf.stack || !pf.depth || !pf.cap || !pf.last_ts) {
        prof__pft_free(&pf);
        return prof__report(PROF_LOG_ERROR, PROF_E_NOMEM, "%s: out of memory", who);
    }
    if (pf.seen) memset(pf.seen, 0, nseq * (e->nsites + 1) / 8 + 1);
    memset(pf.stack, 0, (e->nthr + 1) * sizeof *pf.stack);
    memset(pf.depth, 0, (e->nthr + 1) * sizeof *pf.depth);
    memset(pf.cap, 0, (e->nthr + 1) * sizeof *pf.cap);
    prof__list_span(e, 1, &t0, &t1); /* the earliest time: every sequence's clock starts there */
    for (i = 0; i <= e->nthr; i++) pf.last_ts[i] = t0;
    /* absolute times: the session's CLOCK_BOOTTIME, the clock the packets
       name (6), so the trace lines up with a kernel trace of the same
       boot; where that is not known, its wall clock (then written as
       BOOTTIME, as before Linux's), else from 0 at the first event; only
       where that keeps them in [0, INT64_MAX] (trace_processor reads them
       as int64 and drops an event at a negative time). The wall clock goes
       in the clock snapshot (REALTIME, 1) for the UI's dates. */
    pf.wall = e->base_real_ns > 0 && e->base_real_ns + t0 >= 0 && t1 <= INT64_MAX - e->base_real_ns;
    pf.boot = e->base_boot_ns > 0 && e->base_boot_ns + t0 >= 0 && t1 <= INT64_MAX - e->base_boot_ns;
    pf.offset = pf.boot ? (uint64_t)e->base_boot_ns : pf.wall ? (uint64_t)e->base_real_ns : (uint64_t)0 - (uint64_t)t0;
    if (prof__api_calls(e, &pf.api) != 0 || prof__pft_order(&pf) != 0 || prof__pft_marks_init(&pf) != 0) pf.oom = 1;
    prof__pft_flows(&pf);
    if ((r = prof__out_open(&o, path, who)) != PROF_OK) { prof__pft_free(&pf); return r; }
    pf.w = o.w;
    prof__process_name(pname, sizeof pname);
    prof__pft_seq_start(&pf, PROF__PFT_SEQ_MISC, t0, 0);
    prof__pft_descriptors(&pf, (uint64_t)getpid(), pname);
    if (pf.stream_rank.n && prof__json_pairs(e, &pf.dev_pairs, &pf.ndev_pairs) != 0) pf.oom = 1; /* (streams: device events) */
    {
        uint8_t *cpu = prof__cpu_threads(e); /* (a stream's entry is no thread's track) */
        uint32_t *rank = prof__thr_ranks(e);
        if (!rank) pf.oom = 1;
        for (i = 0; i < e->nthr && rank; i++)
            if (!cpu || cpu[i]) prof__pft_thread(&pf, i, rank[i], (uint64_t)getpid(), t0);
        PROF__FREE(rank);
        PROF__FREE(cpu);
    }
    for (i = 0; i < e->n && !pf.oom && !o.w->err; i++) prof__pft_event(&pf, pf.order ? pf.order[i] : i);
    for (i = 0; i < e->nthr && !pf.oom; i++) {
        if (pf.mk.band) prof__pft_marks_place(&pf, (uint32_t)i, 0, 1);
        prof__pft_close(&pf, (uint32_t)i, INT64_MAX);
    }
    if (!pf.oom) prof__pft_instants(&pf);
    if (!pf.oom) prof__pft_metadata(&pf, t0);
    if (pf.oom || pf.pkt.oom || pf.msg.oom || pf.sub.oom || pf.sub2.oom) {
        prof__pft_free(&pf);
        o.w->err = ENOMEM;
        return prof__out_close(&o, who);
    }
    prof__pft_free(&pf);
    return prof__out_close(&o, who);
}

/* ----- >>x_stacks: flamegraph stacks (export_stacks) ----- */
static PROF__NI int prof__stack_metric(const char *metric) {
    if (!metric) return 0; /* the default, as PyTorch's export_stacks */
    if (strcmp(metric, "self_cpu_time_total") == 0) return 0;
    if (strcmp(metric, "self_cuda_time_total") == 0 || strcmp(metric, "self_device_time_total") == 0 ||
        strcmp(metric, "self_xpu_time_total") == 0 || strcmp(metric, "self_privateuse1_time_total") == 0) return 1;
    return -1;
}
/* Whether the n-byte UTF-8 character at p is Unicode white space past
   ASCII and the C1 controls (Perl's \s there): U+00A0, U+1680,
   U+2000-U+200A, U+2028, U+2029, U+202F, U+205F, U+3000. */
static PROF__NI int prof__uspace(const unsigned char *p, int n) {
    if (n == 2) return p[0] == 0xC2 && p[1] == 0xA0;
    if (n != 3) return 0;
    if (p[0] == 0xE2 && p[1] == 0x80) return p[2] <= 0x8A || p[2] == 0xA8 || p[2] == 0xA9 || p[2] == 0xAF;
    return (p[0] == 0xE1 && p[1] == 0x9A && p[2] == 0x80) || (p[0] == 0xE2 && p[1] == 0x81 && p[2] == 0x9F) ||
           (p[0] == 0xE3 && p[1] == 0x80 && p[2] == 0x80);
}
/* One frame of a folded stack: the separators of the format (space, ';',
   tab, CR, LF), other control characters (C0, DEL, C1) and Unicode's
   white space (prof__uspace) become '_',
   invalid UTF-8 becomes U+FFFD (one per maximal subpart, prof__utf8_bad),
   and an empty frame becomes "_" so every line parses. Runs of bytes kept
   as they are go in one copy. */
static PROF__NI void prof__buf_frame(prof__buf *b, const char *s) {
    const unsigned char *p = (const unsigned char *)s, *run = p;
    if (!*p) { prof__buf_str(b, "_"); return; }
    while (*p) {
        const char *sub = "_";
        int n = 1;
        if (*p < 0x80) {
            if (*p != ' ' && *p != ';' && *p >= 0x20 && *p != 0x7f) { p++; continue; }
        } else if ((n = prof__utf8_len(p)) > 0) {
            /* U+2028 and U+2029 end a line for JavaScript readers
               (speedscope), the C1 controls U+0080-U+009F (NEL among
               them) for Python's str.splitlines; the rest of Unicode's
               white space splits a line for flamegraph.pl, which reads
               UTF-8 (Perl's \s) */
            if (!prof__uspace(p, n) && !(n == 2 && p[0] == 0xC2 && p[1] <= 0x9F)) { p += n; continue; }
        } else {
            sub = "\xef\xbf\xbd";
            n = prof__utf8_bad(p);
        }
        prof__buf_put(b, (const char *)run, (size_t)(p - run));
        prof__buf_str(b, sub);
        p += n;
        run = p;
    }
    prof__buf_put(b, (const char *)run, (size_t)(p - run));
}

/* The lines of the folded stacks, as a trie of cleaned frames: a line is
   (its parent line, one frame as written), each distinct frame is cleaned
   and interned once, so two stacks that print alike are one line without
   their text being compared, and each stack node finds its line once. A
   line gets its place in the output (first-seen order) when an event
   first writes it, and its text (made once, root first) then too where
   each event writes it (merged lines are written once, from the trie);
   lines that are only some stack's outer part cost their trie entry. */
typedef struct prof__fline {
    uint32_t parent, out;       /* out: the line's place in the output + 1, 0 = none yet */
    const char *frame;          /* cleaned, interned */
    size_t flen, len;           /* the frame's length; the text's, ';'s included */
} prof__fline;
typedef struct prof__fout { const char *text; size_t len; int64_t sum; uint32_t line; } prof__fout; /* text in ua (NULL: merged); sum: merged */
typedef struct prof__folded {
    prof__fline *lines;         /* [0]: the empty stack */
    size_t nlines, caplines;
    prof__map line_map;         /* (parent, frame) -> line */
    prof__map clean_of;         /* a frame's address -> its cleaned copy (cframes) */
    const char **cframes;       /* with their lengths */
    size_t *cframe_len, capcframe_len;
    size_t ncframes, capcframes;
    prof__strtab frames;        /* the cleaned frames, interned */
    uint32_t *of_node;          /* per stack node: its line, 0 = not found yet */
    uint32_t *out_node;         /* per stack node: its line's place + 1, 0 = none yet */
    prof__fout *out;            /* per place in the output */
    size_t nout, capout;
    prof__arena ua, frames_arena;
    uint32_t *chain;            /* a walk's nodes or lines */
    size_t capchain;
    prof__buf line;
    prof__xpaths xp;
} prof__folded;
typedef struct prof__flinekey { const prof__folded *f; uint32_t parent; const char *frame; } prof__flinekey;
static PROF__NI int prof__fline_same(const void *key, uint32_t v) {
    const prof__flinekey *k = (const prof__flinekey *)key;
    return k->f->lines[v].parent == k->parent && k->f->lines[v].frame == k->frame;
}
/* Frame s (as the export writes it) cleaned and interned, and its length:
   once per distinct frame. UINT32_MAX: out of memory. */
static PROF__NI uint32_t prof__folded_frame(prof__folded *f, const char *s) {
    uint32_t *slot;
    int found;
    if (!(slot = prof__map_slot(&f->clean_of, (uint64_t)(uintptr_t)s, &found))) return UINT32_MAX;
    if (found) return *slot;
    f->line.n = 0;
    prof__buf_frame(&f->line, s);
    if (f->line.oom || !PROF__PUSH_OK(f->cframes, f->ncframes, f->capcframes) ||
        !prof__grow((void *)&f->cframe_len, &f->capcframe_len, f->ncframes + 1, sizeof *f->cframe_len) ||
        !(f->cframes[f->ncframes] = prof__intern_n(&f->frames, f->line.p, f->line.n))) {
        prof__map_free(&f->clean_of); /* the key is in: the map goes, the export fails */
        return UINT32_MAX;
    }
    f->cframe_len[f->ncframes] = f->line.n;
    *slot = (uint32_t)f->ncframes;
    return (uint32_t)f->ncframes++;
}
/* The line (parent, frame), made if new. UINT32_MAX: out of memory. */
static PROF__NI uint32_t prof__folded_child(prof__folded *f, uint32_t parent, uint32_t cf) {
    const char *frame = f->cframes[cf];
    prof__flinekey key;
    uint64_t h = prof__mix(((uint64_t)parent << 32) ^ (uint64_t)(uintptr_t)frame);
    prof__fline *l;
    uint32_t v;
    key.f = f;
    key.parent = parent;
    key.frame = frame;
    if ((v = prof__map_find(&f->line_map, h, prof__fline_same, &key)) != UINT32_MAX) return v;
    if (f->nlines >= UINT32_MAX - 1 || !PROF__PUSH_OK(f->lines, f->nlines, f->caplines)) return UINT32_MAX;
    l = &f->lines[f->nlines];
    l->parent = parent;
    l->out = 0;
    l->frame = frame;
    l->flen = f->cframe_len[cf];
    l->len = l->flen + f->lines[parent].len + (parent ? 1 : 0);
    if (!prof__map_add(&f->line_map, h, (uint32_t)f->nlines)) return UINT32_MAX;
    return (uint32_t)f->nlines++;
}
/* Node's line: its ancestors' first, up to the nearest one already found. */
static PROF__NI uint32_t prof__folded_node_line(prof__folded *f, const prof_events *e, uint32_t node) {
    size_t k = 0;
    uint32_t a, line, cf;
    if (f->capchain < (size_t)prof__node_depth(e, node) && !prof__grow((void *)&f->chain, &f->capchain, (size_t)prof__node_depth(e, node), sizeof *f->chain))
        return UINT32_MAX;
    for (a = node; a && !f->of_node[a]; a = prof__node_parent(e, a)) f->chain[k++] = a;
    line = a ? f->of_node[a] : 0;
    while (k-- > 0) {
        if ((cf = prof__folded_frame(f, prof__xp_node(&f->xp, e, f->chain[k]))) == UINT32_MAX ||
            (line = prof__folded_child(f, line, cf)) == UINT32_MAX) return UINT32_MAX;
        f->of_node[f->chain[k]] = line;
    }
    return line;
}
/* The place of event i's stack (node) in the output, 0-based; its line's
   text made when the line is new there (with `text`). -1 without memory. */
static PROF__NI int64_t prof__folded_line(prof__folded *f, const prof_events *e, uint32_t node, int text) {
    uint32_t line, a, k;
    prof__fline *l;
    char *t;
    size_t at;
    if (f->out_node[node]) return (int64_t)f->out_node[node] - 1;
    if ((line = prof__folded_node_line(f, e, node)) == UINT32_MAX) return -1;
    l = &f->lines[line];
    if (!l->out) {
        t = NULL;
        if (f->nout >= UINT32_MAX - 1 || !PROF__PUSH_OK(f->out, f->nout, f->capout) || (text && !(t = (char *)prof__arena_alloc(&f->ua, l->len + 1))))
            return -1;
        /* the text, written from its end: the innermost frame last */
        at = l->len;
        if (t) t[at] = 0;
        for (a = line; t && a; a = f->lines[a].parent) {
            at -= f->lines[a].flen;
            memcpy(t + at, f->lines[a].frame, f->lines[a].flen);
            if (at) t[--at] = ';';
        }
        f->out[f->nout].text = t;
        f->out[f->nout].line = line;
        f->out[f->nout].len = l->len;
        f->out[f->nout].sum = 0;
        l->out = (uint32_t)++f->nout;
    }
    k = l->out;
    f->out_node[node] = k;
    return (int64_t)k - 1;
}
static PROF__NI void prof__folded_free(prof__folded *f) {
    PROF__FREE(f->lines);
    PROF__FREE(f->cframes);
    PROF__FREE(f->cframe_len);
    PROF__FREE(f->of_node);
    PROF__FREE(f->out_node);
    PROF__FREE(f->out);
    PROF__FREE(f->chain);
    PROF__FREE(f->line.p);
    prof__map_free(&f->line_map);
    prof__map_free(&f->clean_of);
    prof__strtab_free(&f->frames);
    prof__arena_free(&f->frames_arena);
    prof__arena_free(&f->ua);
    prof__xp_free(&f->xp);
}
/* One line: the stack and its value in whole microseconds. */
static PROF__NI void prof__w_folded(prof__w *w, const char *stack, size_t len, int64_t us) {
    prof__w_put(w, stack, len);
    PROF__W_LIT(w, " ");
    prof__w_i64(w, us);
    PROF__W_LIT(w, "\n");
}
/* The same for a line with no text made: its frames from the trie, root
   first (f->chain has room: the line's depth is at most its node's). */
static PROF__NI void prof__w_fline(prof__w *w, prof__folded *f, uint32_t line, int64_t us) {
    size_t k = 0;
    uint32_t a;
    for (a = line; a; a = f->lines[a].parent) f->chain[k++] = a;
    while (k-- > 0) {
        prof__w_put(w, f->lines[f->chain[k]].frame, f->lines[f->chain[k]].flen);
        if (k) PROF__W_LIT(w, ";");
    }
    PROF__W_LIT(w, " ");
    prof__w_i64(w, us);
    PROF__W_LIT(w, "\n");
}
/* Merged: each stack node's line, written from the node's own frames
   (f->chain has room for its depth), when no two distinct frames print
   alike once cleaned: then two nodes print alike only if they are one
   node, so a node is its line, with no trie of lines to build. */
static PROF__NI void prof__w_node_line(prof__w *w, prof__folded *f, const prof_events *e, const uint32_t *cf, uint32_t node, int64_t us) {
    size_t k = 0;
    uint32_t a;
    for (a = node; a; a = prof__node_parent(e, a)) f->chain[k++] = cf[a] - 1;
    while (k-- > 0) {
        prof__w_put(w, f->cframes[f->chain[k]], f->cframe_len[f->chain[k]]);
        if (k) PROF__W_LIT(w, ";");
    }
    PROF__W_LIT(w, " ");
    prof__w_i64(w, us);
    PROF__W_LIT(w, "\n");
}
/* The merged lines' sums, taken by one thread or two: each thread adds
   an event's value to its stack node's sum in its own array (one array
   read in event order, one random write), and a node goes to the
   thread's `order` at its first event with a value there. Positive values
   only: a saturating sum of them is the same in any order and grouping,
   so the threads' sums add up to the list's. */
typedef struct prof__fsum { int64_t *nsum; uint32_t *order; size_t norder, with; } prof__fsum;
/* A big list in parts, taken in turn by this thread and one more (as
   prof__touch_parts': on a busy machine the other may start late, or be
   put off a core with a part in hand, and waiting on it costs at most a
   part). Each part's nodes new to its thread's sum are a segment of that
   thread's order, so the parts' segments in turn give the nodes in the
   order of their first event with a value. The loop waits on a miss or
   two an event (its children, its node's sum): ~11 ns an event, 11 ms
   of a 1M-event export before anything is written. */
#define PROF__FPARTS 8
typedef struct prof__fjob {
    const prof_events *e;
    int which, nparts, next;
    size_t nstk;
    prof__fsum sum[2];                 /* [0]: the calling thread's, [1]: the helper's */
    int owner[PROF__FPARTS];           /* the thread that took part k */
    size_t seg[PROF__FPARTS][2];       /* part k's new nodes: its thread's order[seg[k][0] .. seg[k][1]) */
} prof__fjob;
static PROF__NI void prof__folded_sum_range(const prof_events *e, int which, size_t lo, size_t hi, prof__fsum *s) {
    const prof__ev *ev = e->ev;
    const uint32_t *stk = e->stk;
    int64_t *nsum = s->nsum;
    size_t i, norder = s->norder, with = 0;
    for (i = lo; i < hi; i++) {
        uint32_t node = stk[i];
        const prof__ev *v = &ev[i];
        int64_t value;
        int32_t c;
        if (!node) continue;
        with++;
        /* ns; summed before the cut to whole microseconds, so that
           many short calls are not each cut to 0. Self CPU time as
           prof__self_cpu's (the children are CPU events). */
        if (which == 0) {
            if (!prof__in_tree(v)) continue;
            value = v->end - v->start;
            for (c = v->first_child; c >= 0; c = ev[c].next_sibling) prof__sat_sub(&value, ev[c].end - ev[c].start);
        } else {
            value = prof__self_dev(e, i);
        }
        if (value <= 0) continue;
        if (!nsum[node]) s->order[norder++] = node;
        prof__sat_add(&nsum[node], value);
    }
    s->norder = norder;
    s->with += with;
}
/* Thread t's turn: its sums zeroed, then parts while any is left. */
static PROF__NI void prof__folded_sum_take(prof__fjob *job, int t) {
    prof__fsum *s = &job->sum[t];
    size_t step = job->nstk / (size_t)job->nparts;
    int k;
    memset(s->nsum, 0, job->e->nnodes * sizeof *s->nsum);
    while ((k = __atomic_fetch_add(&job->next, 1, __ATOMIC_RELAXED)) < job->nparts) {
        job->owner[k] = t;
        job->seg[k][0] = s->norder;
        prof__folded_sum_range(job->e, job->which, step * (size_t)k, k + 1 < job->nparts ? step * (size_t)(k + 1) : job->nstk, s);
        job->seg[k][1] = s->norder;
    }
}
static void *prof__folded_sum_main(void *arg) {
    prof__folded_sum_take((prof__fjob *)arg, 1);
    return NULL;
}
/* The merged lines: the events' values summed per stack node
   (prof__fjob), and the nodes then go to their lines in the order of
   their first event with a value: the lines come out in first-seen order
   with their sums. Each node met gets its cleaned frame (cf, + 1) once;
   when the cleaned frames are as many as the frames, a node is its line
   (prof__w_node_line), else the nodes go through the trie of lines.
   Returns the lines written, -1 without memory. */
static PROF__NI long prof__folded_merged(prof__folded *f, prof__w *w, prof_events *e, int which, size_t *with_stacks) {
    long lines = 0;
    size_t i, norder, maxd = 0, nstk = e->stk ? (e->capstk < e->n ? e->capstk : e->n) : 0;
    int part, two = nstk >= prof__par_min_events && nstk >= PROF__FPARTS && sysconf(_SC_NPROCESSORS_ONLN) >= 2;
    /* the per-node sums, orders and cleaned frames in one block, in huge
       pages when it is big: 16 B a node (32 with two threads: a second
       sum and order, and the joined order), filled whole (61k distinct
       stacks took 470 page faults in 4 KiB pages) */
    char *block = (char *)prof__malloc_huge_from(e->nnodes, two ? 2 * sizeof(int64_t) + 4 * sizeof(uint32_t) : sizeof(int64_t) + 2 * sizeof(uint32_t), PROF__HUGE / 4);
    int64_t *nsum = (int64_t *)(void *)block;
    uint32_t *order = block ? (uint32_t *)(void *)(block + e->nnodes * sizeof *nsum * (two ? 2 : 1)) : NULL, *cf = order ? order + e->nnodes : NULL;
    prof__fjob job;
    if (!block) goto oom;
    memset(cf, 0, e->nnodes * sizeof *cf);
    memset(&job, 0, sizeof job);
    job.e = e;
    job.which = which;
    job.nstk = nstk;
    job.nparts = two ? PROF__FPARTS : 1;
    job.sum[0].nsum = nsum;
    job.sum[0].order = order;
    if (two) {
        pthread_t th;
        uint32_t *joined = cf + e->nnodes;
        job.sum[1].nsum = nsum + e->nnodes;
        job.sum[1].order = joined + e->nnodes;
        if (prof__spawn(&th, prof__folded_sum_main, &job)) {
            prof__folded_sum_take(&job, 0);
            pthread_join(th, NULL);
        } else {
            prof__folded_sum_take(&job, 0);
        }
        /* the parts' new nodes in turn, each node at its first (cf
           marks the nodes taken, cleared after), and the helper's sums
           into this thread's */
        for (norder = 0, part = 0; part < job.nparts; part++) {
            const prof__fsum *s = &job.sum[job.owner[part]];
            for (i = job.seg[part][0]; i < job.seg[part][1]; i++)
                if (!cf[s->order[i]]) {
                    cf[s->order[i]] = 1;
                    joined[norder++] = s->order[i];
                }
        }
        for (i = 0; i < norder; i++) cf[joined[i]] = 0;
        for (i = 0; i < job.sum[1].norder; i++) prof__sat_add(&nsum[job.sum[1].order[i]], job.sum[1].nsum[job.sum[1].order[i]]);
        order = joined;
    } else {
        prof__folded_sum_take(&job, 0);
        norder = job.sum[0].norder;
    }
    *with_stacks += job.sum[0].with + job.sum[1].with;
    for (i = 0; i < norder; i++) {
        uint32_t a;
        if ((size_t)prof__node_depth(e, order[i]) > maxd) maxd = (size_t)prof__node_depth(e, order[i]);
        for (a = order[i]; a && !cf[a]; a = prof__node_parent(e, a)) {
            uint32_t c = prof__folded_frame(f, prof__xp_node(&f->xp, e, a));
            if (c == UINT32_MAX) goto oom;
            cf[a] = c + 1;
        }
    }
    if (f->capchain < maxd && !prof__grow((void *)&f->chain, &f->capchain, maxd, sizeof *f->chain)) goto oom;
    if (f->frames.n == f->ncframes) {
        for (i = 0; i < norder && !w->err; i++) {
            if (nsum[order[i]] / 1000 <= 0) continue;
            prof__w_node_line(w, f, e, cf, order[i], nsum[order[i]] / 1000);
            lines++;
        }
    } else {
        f->of_node = PROF__ALLOC(uint32_t, e->nnodes);
        f->out_node = PROF__ALLOC(uint32_t, e->nnodes);
        if (!f->of_node || !f->out_node || !PROF__PUSH_OK(f->lines, f->nlines, f->caplines)) goto oom;
        memset(f->of_node, 0, e->nnodes * sizeof *f->of_node);
        memset(f->out_node, 0, e->nnodes * sizeof *f->out_node);
        memset(&f->lines[0], 0, sizeof f->lines[0]);
        f->nlines = 1;
        for (i = 0; i < norder; i++) {
            int64_t k = prof__folded_line(f, e, order[i], 0);
            if (k < 0) goto oom;
            prof__sat_add(&f->out[k].sum, nsum[order[i]]);
        }
        for (i = 0; i < f->nout && !w->err; i++) {
            if (f->out[i].sum / 1000 <= 0) continue;
            prof__w_fline(w, f, f->out[i].line, f->out[i].sum / 1000);
            lines++;
        }
    }
    PROF__FREE(nsum);
    return lines;
oom:
    PROF__FREE(nsum);
    return -1;
}
/* The events' lines, each event's own (PyTorch's export_stacks), or merged
   (prof__folded_merged). Returns the lines written, -1 without memory;
   *with_stacks counts the events that had a stack. */
static PROF__NI long prof__folded_events(prof__folded *f, prof__w *w, prof_events *e, int which, int merge, size_t *with_stacks) {
    long lines = 0;
    size_t i;
    if (!e->nnodes) return 0;
    if (merge) return prof__folded_merged(f, w, e, which, with_stacks);
    f->of_node = PROF__ALLOC(uint32_t, e->nnodes);
    f->out_node = PROF__ALLOC(uint32_t, e->nnodes);
    if (!f->of_node || !f->out_node || !PROF__PUSH_OK(f->lines, f->nlines, f->caplines)) return -1;
    memset(f->of_node, 0, e->nnodes * sizeof *f->of_node);
    memset(f->out_node, 0, e->nnodes * sizeof *f->out_node);
    memset(&f->lines[0], 0, sizeof f->lines[0]);
    f->nlines = 1;
    for (i = 0; i < e->n && !w->err; i++) {
        uint32_t node = prof__stack_node(e, i);
        int64_t value, k;
        if (!node) continue;
        ++*with_stacks;
        value = which == 0 ? prof__self_cpu(e, &e->ev[i]) : prof__self_dev(e, i); /* ns */
        /* PyTorch's lines: int(us), which truncates, and none at 0 */
        if ((value /= 1000) <= 0) continue;
        if ((k = prof__folded_line(f, e, node, 1)) < 0) return -1;
        prof__w_folded(w, f->out[k].text, f->out[k].len, value);
        lines++;
    }
    return lines;
}
/* A stacks file (folded or pprof) of a list with events and no stack: empty,
   as PyTorch writes it, but not without a word. */
static PROF__NI void prof__warn_no_stacks(const char *who, const char *path) {
    prof__report(PROF_LOG_WARNING, PROF_E_ARG, "%s: no event has a stack, so %s is empty: record with prof_config.with_stack = PROF_STACK_SCOPES (or PROF_STACK_NATIVE, which finds no frames in code built with -fno-asynchronous-unwind-tables)", who, path);
}
/* A device metric on a list that has no device time (no device set:
   a CPU session, or a hand-built list without prof_events_set_device):
   said so, where "under 1 us" or an empty profile would puzzle. */
static PROF__NI int prof__no_device_time(const prof_events *e) { return !e->use_device || !e->use_device[0]; }
static PROF__NI void prof__warn_no_device(const char *who, const char *path) {
    prof__report(PROF_LOG_WARNING, PROF_E_ARG, "%s: the list has no device time (a CPU session, or a hand-built list with no device set: prof_events_set_device), so %s holds no stack", who, path);
}
static PROF__NI prof_result prof__export_stacks(prof_events *e, const char *path, const char *metric, int merge) {
    const char *const who = merge ? "prof_export_stacks_merged" : "prof_export_stacks";
    int which = prof__stack_metric(metric);
    prof__out o;
    prof_result r;
    prof__folded f;
    size_t with_stacks = 0;
    long lines;
    if (!e) return prof__report(PROF_LOG_ERROR, PROF_E_ARG, "%s: the event list is NULL", who);
    if (which < 0)
        return prof__report(PROF_LOG_ERROR, PROF_E_UNKNOWN_KEY, "%s: metric '%s' is not one of self_cpu_time_total, self_cuda_time_total, self_device_time_total, self_xpu_time_total, self_privateuse1_time_total", who, metric ? metric : "(null)");
    if ((r = prof__prepare(e)) != PROF_OK) return r;
    memset(&f, 0, sizeof f);
    f.frames.arena = &f.frames_arena;
    if (prof__xp_init(&f.xp, e) != 0) { prof__folded_free(&f); return prof__report(PROF_LOG_ERROR, PROF_E_NOMEM, "%s: out of memory", who); }
    if ((r = prof__out_open(&o, path, who)) != PROF_OK) { prof__folded_free(&f); return r; }
    lines = prof__folded_events(&f, o.w, e, which, merge, &with_stacks);
    prof__folded_free(&f);
    if (lines < 0) {
        o.w->err = ENOMEM;
        return prof__out_close(&o, who);
    }
    r = prof__out_close(&o, who);
    if (r == PROF_OK && e->n && !with_stacks) prof__warn_no_stacks(who, path);
    else if (r == PROF_OK && with_stacks && which == 1 && prof__no_device_time(e)) prof__warn_no_device(who, path);
    else if (r == PROF_OK && with_stacks && !lines)
        prof__report(PROF_LOG_WARNING, PROF_E_ARG, "%s: every stack's %s is under 1 us, so %s is empty (the values are whole microseconds)%s", who,
                     which == 0 ? "self CPU time" : "self device time", path, merge ? "" : "; prof_export_stacks_merged sums the calls of a stack first");
    return r;
}
PROF_API prof_result prof_export_stacks(prof_events *e, const char *path, const char *metric) { return prof__export_stacks(e, path, metric, 0); }

/* ----- >>x_pprof: pprof (export_pprof) -----
   profile.proto, uncompressed (pprof and go tool pprof take it as is): one
   sample per unique stack with the metric summed in ns (self CPU or self
   device time), a location per distinct frame with its function (name,
   file) and line. Frames read "name (file:line)" (PROF_STACK_SCOPES) or
   anything else (then the whole frame is the name). Memory: the unique
   stacks, frames and strings. time_nanos is the session's start on the
   wall clock, duration_nanos the list's span from there (prof__list_span;
   a list built by hand: from its first time). */
typedef struct prof__pp {
    prof_events *e;
    prof__map stack_of;          /* hash of a stack's frames -> sample index + 1 */
    uint32_t *rep;               /* per sample: an event with its stack */
    int64_t *value;
    size_t n, cap, capv;
    prof__map loc_of;            /* frame address -> location id */
    const char **loc_frame;      /* per location id - 1: its frame */
    size_t nloc, caploc;
    prof__strtab strs;           /* the string table's strings, interned */
    prof__arena arena;
    prof__map str_idx;           /* interned address -> string table index */
    const char **table;          /* string table, in index order */
    size_t ntable, captable;
    prof__map fn_of;             /* interned "name\x1ffile" -> function id */
    int64_t *fn_name, *fn_file;  /* per function id - 1: string indices */
    size_t nfn, capfn, capfn2;
    prof__xpaths xp;             /* the source paths as written */
    int oom;
} prof__pp;
static PROF__NI int64_t prof__pp_str(prof__pp *p, const char *s, size_t n) {
    const char *k = prof__intern_n(&p->strs, s, n);
    uint32_t *slot;
    int found;
    if (!k || !(slot = prof__map_slot(&p->str_idx, (uint64_t)(uintptr_t)k, &found))) { p->oom = 1; return 0; }
    if (!found) {
        if (!prof__grow((void *)&p->table, &p->captable, p->ntable + 1, sizeof *p->table)) { p->oom = 1; return 0; }
        *slot = (uint32_t)p->ntable;
        p->table[p->ntable++] = k;
    }
    return (int64_t)*slot;
}
/* The location of a frame: "name (file:line)" split, else all name. */
static PROF__NI uint64_t prof__pp_loc(prof__pp *p, const char *frame) {
    uint32_t *slot;
    int found;
    if (!(slot = prof__map_slot(&p->loc_of, (uint64_t)(uintptr_t)frame, &found))) { p->oom = 1; return 0; }
    if (!found) {
        if (!prof__grow((void *)&p->loc_frame, &p->caploc, p->nloc + 1, sizeof *p->loc_frame)) { p->oom = 1; return 0; }
        p->loc_frame[p->nloc++] = frame;
        *slot = (uint32_t)p->nloc;
    }
    return *slot;
}
/* The '(' of the " (" that opens a frame's file or module, which ends
   at f[end] (its ':' or "+0x"): the nearest one whose file has its
   parentheses whole ("/home/me/proj (2)/a.c", "libplug (1).so" keep their
   own " ("), else the nearest (a name may hold " (" too: "get (cached)");
   0 if none. */
static PROF__NI size_t prof__frame_open(const char *f, size_t end) {
    size_t open, pick = 0;
    long d = 0; /* ')' less '(' in f[open + 1 .. end) */
    for (open = end; open > 0; open--) {
        if (f[open] == '(' && f[open - 1] == ' ') {
            if (!pick) pick = open;
            if (d == 0) return open;
        }
        if (f[open] == ')') d++;
        else if (f[open] == '(' && --d < 0) break; /* no file further left is whole */
    }
    return pick;
}
static PROF__NI void prof__pp_split(const char *f, size_t *name_len, const char **file, size_t *file_len, int64_t *line) {
    size_t n = strlen(f), k, open;
    *name_len = n; *file = ""; *file_len = 0; *line = 0;
    if (n < 5 || f[n - 1] != ')') return;
    for (k = n - 2; k > 0 && f[k] >= '0' && f[k] <= '9'; k--) {}
    if (k == n - 2 || f[k] != ':' || !(open = prof__frame_open(f, k))) return;
    *name_len = open - 1;
    *file = f + open + 1;
    *file_len = k - open - 1;
    *line = strtoll(f + k + 1, NULL, 10);
}
/* A native frame, "function (module+0xoffset)" (prof__native_stacks):
   1 with the function and the module apart and the offset, so that the
   return addresses of one function are locations of one Function (each
   was a function of its own: go tool pprof -top listed "main (app+0x475a)"
   and "main (app+0x475f)" apart). An unnamed function ("??") stays whole:
   its frames would all be one function "??". */
static PROF__NI int prof__pp_native(const char *f, size_t *name_len, const char **module, size_t *module_len, uint64_t *offset) {
    size_t n = strlen(f), k, open;
    const char *plus;
    if (n < 8 || f[n - 1] != ')') return 0;
    for (k = n - 2; k > 0 && ((f[k] >= '0' && f[k] <= '9') || (f[k] >= 'a' && f[k] <= 'f')); k--) {}
    if (k == n - 2 || k < 2 || f[k] != 'x' || f[k - 1] != '0' || f[k - 2] != '+') return 0;
    plus = f + k - 2;
    open = prof__frame_open(f, (size_t)(plus - f));
    if (open <= 1 || open + 1 >= (size_t)(plus - f)) return 0;
    if (open - 1 == 2 && f[0] == '?' && f[1] == '?') return 0;
    *name_len = open - 1;
    *module = f + open + 1;
    *module_len = (size_t)(plus - *module);
    *offset = (uint64_t)strtoull(plus + 3, NULL, 16);
    return 1;
}
static PROF__NI void prof__pp_free(prof__pp *p) {
    prof__map_free(&p->stack_of); prof__map_free(&p->loc_of); prof__map_free(&p->str_idx); prof__map_free(&p->fn_of);
    PROF__FREE(p->rep); PROF__FREE(p->value); PROF__FREE(p->loc_frame); PROF__FREE(p->table); PROF__FREE(p->fn_name); PROF__FREE(p->fn_file);
    prof__strtab_free(&p->strs); prof__arena_free(&p->arena);
    prof__xp_free(&p->xp);
}
/* Adds event i's metric to the sample of its stack. */
static PROF__NI void prof__pp_add(prof__pp *p, size_t i, int64_t v) {
    uint32_t *slot;
    int found;
    /* a node is a stack: keyed by the node (the map mixes its keys) */
    if (!(slot = prof__map_slot(&p->stack_of, prof__pft_frames(p->e, i).node, &found))) { p->oom = 1; return; }
    if (!found) {
        if (!prof__grow((void *)&p->rep, &p->cap, p->n + 1, sizeof *p->rep) ||
            !prof__grow((void *)&p->value, &p->capv, p->n + 1, sizeof *p->value)) { p->oom = 1; return; }
        p->rep[p->n] = (uint32_t)i;
        p->value[p->n] = 0;
        *slot = (uint32_t)++p->n;
    }
    prof__sat_add(&p->value[*slot - 1], v);
}
/* The parts of a Profile, appended to s (flushed to w whenever it passes
   64 kB: memory stays bounded), m is a scratch message. */
#define PROF__PP_FLUSH(w, s) do { if ((s)->n >= ((size_t)1 << 16)) { prof__w_put((w), (s)->p, (s)->n); (s)->n = 0; } } while (0)
/* The samples: one per unique stack, leaf first, with its value. */
static PROF__NI void prof__pp_samples(prof__pp *p, prof__w *w, prof__buf *s, prof__buf *m) {
    size_t i;
    int k;
    for (i = 0; i < p->n; i++) {
        prof__frames st = prof__pft_frames(p->e, p->rep[i]);
        if (p->value[i] <= 0) continue;
        m->n = 0;
        for (k = 0; k < st.depth; k++) prof__pb_u(m, 1, prof__pp_loc(p, st.p[k]));
        prof__pb_i(m, 2, p->value[i]);
        prof__pb_sub(s, 2, m);
        PROF__PP_FLUSH(w, s);
    }
}
/* Location i (a frame) with its line, and its function (name and file)
   numbered when first seen; 0, or -1 without memory. */
static PROF__NI int prof__pp_location(prof__pp *p, size_t i, prof__buf *s, prof__buf *m) {
    const char *file;
    size_t nl, fl, cut;
    int64_t line, name_i, file_i;
    uint32_t *slot;
    int found;
    prof__buf ln;
    uint64_t offset = 0;
    int native;
    prof__pp_split(p->loc_frame[i], &nl, &file, &fl, &line);
    native = !fl && !line && prof__pp_native(p->loc_frame[i], &nl, &file, &fl, &offset);
    cut = native ? 0 : prof__xp_cut(&p->xp, file, fl);
    file += cut;
    fl -= cut;
    name_i = prof__pp_str(p, p->loc_frame[i], nl);
    file_i = prof__pp_str(p, file, fl);
    if (!(slot = prof__map_slot(&p->fn_of, ((uint64_t)name_i << 32) ^ (uint64_t)file_i, &found))) return -1;
    if (!found) {
        if (!prof__grow((void *)&p->fn_name, &p->capfn, p->nfn + 1, sizeof(int64_t)) ||
            !prof__grow((void *)&p->fn_file, &p->capfn2, p->nfn + 1, sizeof(int64_t))) return -1;
        p->fn_name[p->nfn] = name_i;
        p->fn_file[p->nfn] = file_i;
        *slot = (uint32_t)++p->nfn;
    }
    memset(&ln, 0, sizeof ln);
    prof__pb_u(&ln, 1, *slot);
    prof__pb_i(&ln, 2, line);
    m->n = 0;
    prof__pb_u(m, 1, i + 1);
    if (native) prof__pb_u(m, 3, offset); /* address: the offset in the module */
    prof__pb_sub(m, 4, &ln);
    PROF__FREE(ln.p);
    prof__pb_sub(s, 4, m);
    return ln.oom ? -1 : 0;
}
/* The functions, then the string table. */
static PROF__NI void prof__pp_functions(prof__pp *p, prof__w *w, prof__buf *s, prof__buf *m) {
    size_t i;
    for (i = 0; i < p->nfn; i++) {
        m->n = 0;
        prof__pb_u(m, 1, i + 1);
        prof__pb_i(m, 2, p->fn_name[i]);
        prof__pb_i(m, 3, p->fn_name[i]);
        prof__pb_i(m, 4, p->fn_file[i]);
        prof__pb_sub(s, 5, m);
    }
    for (i = 0; i < p->ntable; i++) {
        prof__pb_s(s, 6, p->table[i]);
        PROF__PP_FLUSH(w, s);
    }
}
static PROF__NI void prof__pp_write(prof__pp *p, prof__w *w, int which) {
    prof__buf m, s;
    size_t i;
    int64_t t_type, t_unit;
    memset(&m, 0, sizeof m);
    memset(&s, 0, sizeof s);
    prof__pp_str(p, "", 0);
    t_type = prof__pp_str(p, which == 0 ? "cpu" : "device", which == 0 ? 3 : 6);
    t_unit = prof__pp_str(p, "nanoseconds", 11);
    prof__pb_i(&m, 1, t_type);
    prof__pb_i(&m, 2, t_unit);
    prof__pb_sub(&s, 1, &m);  /* sample_type */
    prof__pb_sub(&s, 11, &m); /* period_type */
    prof__pb_i(&s, 12, 1);
    prof__pp_samples(p, w, &s, &m);
    for (i = 0; i < p->nloc && !p->oom; i++) {
        if (prof__pp_location(p, i, &s, &m) != 0) p->oom = 1;
        PROF__PP_FLUSH(w, &s);
    }
    prof__pp_functions(p, w, &s, &m);
    prof__pb_i(&s, 9, p->e->base_real_ns);
    {
        int64_t t0, t1, d;
        /* from the session's start; a list built by hand has none (its
           times may be the Unix clock's): from its first time */
        prof__list_span(p->e, p->e->base_real_ns != 0, &t0, &t1);
        if (!__builtin_sub_overflow(t1, t0, &d) && d > 0) prof__pb_i(&s, 10, d); /* duration_nanos (go tool pprof prints it) */
    }
    if (m.oom || s.oom) p->oom = 1;
    if (s.n) prof__w_put(w, s.p, s.n); /* s.p is NULL if its first growth failed */
    PROF__FREE(m.p);
    PROF__FREE(s.p);
}
PROF_API prof_result prof_export_pprof(prof_events *e, const char *path, const char *metric) {
    static const char *const who = "prof_export_pprof";
    int which = prof__stack_metric(metric);
    prof__out o;
    prof_result r;
    prof__pp p;
    size_t i, with_stacks = 0;
    if (!e) return prof__report(PROF_LOG_ERROR, PROF_E_ARG, "%s: the event list is NULL", who);
    if (which < 0)
        return prof__report(PROF_LOG_ERROR, PROF_E_UNKNOWN_KEY, "%s: metric '%s' is not one of self_cpu_time_total, self_cuda_time_total, self_device_time_total, self_xpu_time_total, self_privateuse1_time_total", who, metric ? metric : "(null)");
    if ((r = prof__prepare(e)) != PROF_OK) return r;
    if (prof__nodes_flatten(e) != 0) return prof__report(PROF_LOG_ERROR, PROF_E_NOMEM, "%s: out of memory", who);
    memset(&p, 0, sizeof p);
    p.e = e;
    p.strs.arena = &p.arena;
    if (prof__xp_init(&p.xp, e) != 0) p.oom = 1;
    for (i = 0; i < e->n && !p.oom; i++) {
        int64_t v;
        if (prof__pft_frames(e, i).depth <= 0) continue;
        with_stacks++;
        v = which == 0 ? prof__self_cpu(e, &e->ev[i]) : prof__self_dev(e, i);
        if (v > 0) prof__pp_add(&p, i, v);
    }
    if (p.oom) { prof__pp_free(&p); return prof__report(PROF_LOG_ERROR, PROF_E_NOMEM, "%s: out of memory", who); }
    if ((r = prof__out_open(&o, path, who)) != PROF_OK) { prof__pp_free(&p); return r; }
    prof__pp_write(&p, o.w, which);
    if (p.oom) {
        prof__pp_free(&p);
        o.w->err = ENOMEM;
        return prof__out_close(&o, who);
    }
    prof__pp_free(&p);
    r = prof__out_close(&o, who);
    if (r == PROF_OK && e->n && !with_stacks) prof__warn_no_stacks(who, path);
    else if (r == PROF_OK && with_stacks && which == 1 && prof__no_device_time(e)) prof__warn_no_device(who, path);
    return r;
}

/* ----- >>x_timeline: memory timeline (export_memory_timeline) -----
   [times, sizes]: times in microseconds since the session start, one per
   distinct allocation time on the device; sizes[i][c] the bytes live in
   category c after times[i], summed exactly (past int64, whole decimals,
   as Python's ints). Category 0 is "unknown" (no category given),
   the others follow in order of first use; prof_memory_categories names them. */
static PROF__NI int prof__mem_on(const prof__memrec *m, prof_device_type device, int index) {
    return m->device_type == (int)device && (device == PROF_DEVICE_CPU || m->device_index == index);
}
/* The column of each record on the device (col[i], when col is not NULL;
   records elsewhere get 0) and the columns' names (up to max); returns
   the number of columns, 0 out of memory. Categories are interned in the
   list's strings, so a pointer is a text: the map goes from pointer to
   column. A text "unknown" or "" is column 0, PyTorch's unknown. */
static PROF__NI size_t prof__mem_columns(const prof_events *e, prof_device_type device, int device_index, const char **names, size_t max, uint32_t *col) {
    prof__map map;
    size_t n = 1, i;
    memset(&map, 0, sizeof map);
    if (max > 0) names[0] = "unknown";
    for (i = 0; i < e->nmem; i++) {
        const char *c = e->mem[i].category;
        uint32_t *slot;
        int seen = 0;
        if (col) col[i] = 0;
        if (!c || !*c || strcmp(c, "unknown") == 0 || !prof__mem_on(&e->mem[i], device, device_index)) continue;
        if (!(slot = prof__map_slot(&map, (uint64_t)(uintptr_t)c, &seen))) { prof__map_free(&map); return 0; }
        if (!seen) {
            *slot = (uint32_t)n;
            if (n < max) names[n] = c;
            n++;
        }
        if (col) col[i] = *slot;
    }
    prof__map_free(&map);
    return n;
}
PROF_API size_t prof_memory_categories(prof_events *e, prof_device_type device, int device_index, const char **names, size_t max) {
    size_t n;
    if (!e) return 0;
    if (!names) max = 0; /* only counted */
    if (!(n = prof__mem_columns(e, device, device_index, names, max, NULL)))
        prof__report(PROF_LOG_ERROR, PROF_E_NOMEM, "prof_memory_categories: out of memory");
    return n;
}
/* One point of the timeline: its time (pass 0) or its sizes (pass 1). */
static PROF__NI void prof__timeline_point(prof__w *w, size_t pass, int64_t ts, const prof__i128 *live, size_t ncat, int *first) {
    size_t k;
    if (!*first) PROF__W_LIT(w, ", ");
    *first = 0;
    if (pass == 0) { prof__w_us(w, ts); return; }
    PROF__W_LIT(w, "[");
    for (k = 0; k < ncat; k++) {
        if (k) PROF__W_LIT(w, ", ");
        prof__w_i128(w, live[k]);
    }
    PROF__W_LIT(w, "]");
}
PROF_API prof_result prof_export_memory_timeline(prof_events *e, const char *path, prof_device_type device, int device_index) {
    static const char *const who = "prof_export_memory_timeline";
    prof__out o;
    prof_result r;
    const char **cats = NULL;
    prof__i128 *live = NULL, *pre = NULL; /* exact sums, written whole (Python's are unbounded) */
    uint32_t *ord = NULL, *tmp = NULL, *col = NULL; /* col: each record's column */
    size_t ncat, i, n = 0, pass;
    int has_pre = 0;
    if (!e) return prof__report(PROF_LOG_ERROR, PROF_E_ARG, "%s: the event list is NULL", who);
    if ((r = prof__out_json_name(path, who)) != PROF_OK) return r;
    if ((unsigned)device > 31u || (device != PROF_DEVICE_CPU && (device_index < 0 || device_index > 63))) /* (what a record holds; the CPU's: every index) */
        return prof__report(PROF_LOG_ERROR, PROF_E_ARG, "%s: device %d:%d is not a device type 0-31 and index 0-63", who, (int)device, device_index);
    ord = PROF__ALLOC(uint32_t, e->nmem + 1);
    tmp = PROF__ALLOC(uint32_t, e->nmem + 1);
    col = PROF__ALLOC(uint32_t, e->nmem + 1);
    ncat = col ? prof__mem_columns(e, device, device_index, NULL, 0, col) : 0;
    cats = PROF__ALLOC(const char *, ncat);
    live = PROF__ALLOC(prof__i128, ncat);
    pre = PROF__ALLOC(prof__i128, ncat);
    if (!ncat || !cats || !live || !pre || !ord || !tmp || !col) goto nomem;
    prof__mem_columns(e, device, device_index, cats, ncat, NULL);
    for (i = 0; i < e->nmem; i++) if (prof__mem_on(&e->mem[i], device, device_index)) ord[n++] = (uint32_t)i;
    prof__msort_u32(ord, tmp, n, prof__mem_ts_less, e);
    /* tmp: each record's prev (prof__mem_replay). The blocks freed that
       the list never saw allocated are live from the first point, in a
       point of their own at its time (PyTorch's PREEXISTING at -1, given
       the first time) */
    if (prof__mem_replay(e, ord, n, tmp) != 0) goto nomem;
    memset(pre, 0, ncat * sizeof *pre);
    for (i = 0; i < n; i++)
        if (e->mem[ord[i]].bytes < 0 && tmp[i] == PROF__MEM_NONE) {
            PROF__I128_SUB(pre[col[ord[i]]], e->mem[ord[i]].bytes);
            has_pre = 1;
        }
    if ((r = prof__out_open(&o, path, who)) != PROF_OK) goto out;
    /* two passes over the same points: the times, then the sizes */
    PROF__W_LIT(o.w, "[[");
    for (pass = 0; pass < 2; pass++) {
        int first = 1;
        memcpy(live, pre, ncat * sizeof *live);
        if (pass == 1) PROF__W_LIT(o.w, "], [");
        if (has_pre) prof__timeline_point(o.w, pass, e->mem[ord[0]].ts, live, ncat, &first); /* the blocks from before alone */
        for (i = 0; i < n; i++) {
            const prof__memrec *m = &e->mem[ord[i]];
            if (m->bytes > 0 && tmp[i] < PROF__MEM_ANON) PROF__I128_SUB(live[col[tmp[i]]], e->mem[tmp[i]].bytes); /* the block it replaces */
            PROF__I128_ADD(live[col[ord[i]]], m->bytes);
            if (i + 1 < n && e->mem[ord[i + 1]].ts == m->ts) continue; /* one point per time */
            prof__timeline_point(o.w, pass, m->ts, live, ncat, &first);
        }
    }
    PROF__W_LIT(o.w, "]]\n");
    r = prof__out_close(&o, who);
out:
    PROF__FREE(cats); PROF__FREE(live); PROF__FREE(pre); PROF__FREE(ord); PROF__FREE(tmp); PROF__FREE(col);
    return r;
nomem:
    r = prof__report(PROF_LOG_ERROR, PROF_E_NOMEM, "%s: out of memory", who);
    goto out;
}
PROF_API prof_result prof_export_stacks_merged(prof_events *e, const char *path, const char *metric) { return prof__export_stacks(e, path, metric, 1); }

/* >>report ===============================================================*/
PROF_API prof_result prof_report(prof_events *e, const prof_report_options *opt) {
    prof_report_options o;
    prof_result first = PROF_OK, r;
    const char *metric;
    if (!e) return prof__report(PROF_LOG_ERROR, PROF_E_ARG, "prof_report: the event list is NULL (prof_stop failed?)");
    if (opt) o = *opt;
    else memset(&o, 0, sizeof o);
    metric = o.stacks_metric ? o.stacks_metric : "self_cpu_time_total";
/* every part runs; the first failure is the result */
#define PROF__REPORT_PART(call) do { r = (call); if (r != PROF_OK && first == PROF_OK) first = r; } while (0)
    if (!o.no_table) {
        prof_averages *avg;
        FILE *out = o.out ? o.out : stdout; /* (not in the macro's argument: stdout is a macro, which clang's -Wdisabled-macro-expansion flags there) */
        prof__last_error_code = PROF_OK;
        avg = prof_key_averages(e, &o.group);
        if (!avg) PROF__REPORT_PART(prof__last_error_code != PROF_OK ? prof__last_error_code : PROF_E_NOMEM);
        else PROF__REPORT_PART(prof_averages_print_table(out, avg, &o.table));
        prof_averages_free(avg);
    }
    if (o.chrome_trace) PROF__REPORT_PART(prof_export_chrome_trace(e, o.chrome_trace));
    if (o.perfetto) PROF__REPORT_PART(prof_export_perfetto(e, o.perfetto));
    if (o.pprof) PROF__REPORT_PART(prof_export_pprof(e, o.pprof, metric));
    if (o.stacks) PROF__REPORT_PART(prof_export_stacks(e, o.stacks, metric));
    if (o.stacks_merged) PROF__REPORT_PART(prof_export_stacks_merged(e, o.stacks_merged, metric));
    if (o.memory_timeline)
        PROF__REPORT_PART(prof_export_memory_timeline(e, o.memory_timeline, o.memory_device, o.memory_device_index));
#undef PROF__REPORT_PART
    return first;
}

/* >>cupti ================================================================*/
/* CUDA through CUPTI's activity API (compiled only with PROF_CUPTI): kernels,
   copies, sets, runtime and driver API calls, synchronization and device
   memory arrive in buffers that CUPTI requests on the threads that call CUDA
   and completes on its own thread, mid-session or in prof_stop's forced
   flush; prof_stop turns them into events and gives CUPTI back
   (unsubscribe, finalize) so that another client can take it. Nothing here
   touches the recording hot path: kernels are tied to scopes afterwards,
   through the API call that launched them (same correlation id): the scope
   around that call, or, for a call that is filtered out, the innermost
   scope of its thread open at its start. A timestamp callback puts GPU
   times on CLOCK_MONOTONIC, the clock the scopes are calibrated against. */
#if defined(PROF_CUPTI)

/* Record versions by header: CUDA 13.0 renamed the current records (the
   fields read here keep their offsets); CUDA 12 headers have the older ones.
   Newer libraries append fields (Kernel11, Device6 from 13.1):
   cuptiActivityGetNextRecord steps over them. */
#if !defined(CUPTI_API_VERSION) || CUPTI_API_VERSION < 19
#error "prof.h: PROF_CUPTI needs the CUPTI headers of CUDA 12.0 or newer (CUPTI_API_VERSION >= 19)"
#elif CUPTI_API_VERSION >= 130000
typedef CUpti_ActivityKernel10 prof__cu_kernel_rec;
typedef CUpti_ActivityMemcpy6 prof__cu_memcpy_rec;
typedef CUpti_ActivityMemory4 prof__cu_memory_rec;
typedef CUpti_ActivitySynchronization2 prof__cu_sync_rec;
typedef CUpti_ActivityDevice5 prof__cu_device_rec;
#else
typedef CUpti_ActivityKernel9 prof__cu_kernel_rec;
typedef CUpti_ActivityMemcpy5 prof__cu_memcpy_rec;
typedef CUpti_ActivityMemory3 prof__cu_memory_rec;
typedef CUpti_ActivitySynchronization prof__cu_sync_rec;
typedef CUpti_ActivityDevice4 prof__cu_device_rec;
#endif
typedef CUpti_ActivityMemset4 prof__cu_memset_rec;    /* CUDA 11.6 on */
typedef CUpti_ActivityMemcpyPtoP4 prof__cu_ptop_rec;  /* CUDA 11.6 on */

/* CUPTI's activity buffers. CUDA 13 gives every thread that calls CUDA a
   buffer of its own (CUPTI_ACTIVITY_ATTR_PER_THREAD_ACTIVITY_BUFFER), held
   until it is full or flushed: a pool of request threads holds hundreds,
   each with a few records. So the bytes are capped, not the buffers: 1 MiB
   each while 64 more fit, 64 KiB each after that, and a completed buffer
   shrinks to what it holds. Past the budget CUPTI gets no buffer and drops
   the records it had for it (counted, said at prof_stop). */
#define PROF__CUPTI_BUFFER ((size_t)1 << 20)
#define PROF__CUPTI_SMALL ((size_t)64 << 10)
#define PROF__CUPTI_BUDGET ((size_t)256 << 20)

/* A buffer's node is its first bytes; CUPTI fills what follows (8-byte
   aligned). bytes: the allocation's size, as counted in prof__cu.bytes. */
typedef struct prof__cubuf { uint8_t *data; size_t valid, bytes; struct prof__cubuf *next; } prof__cubuf;
#define PROF__CUBUF_HDR ((sizeof(prof__cubuf) + 15u) & ~(size_t)15u)
/* An API call filtered out of the events: its thread and start still tie
   the GPU work it launched to a scope. */
typedef struct prof__cuhidden { uint32_t correlation; uint64_t tid; int64_t start, end; } prof__cuhidden;
static struct {
    pthread_mutex_t lock;
    int enabled, warned, subscribed;
    int no_gpu;                /* 1: no CUDA in this process; 2: none in a forked child, not said yet */
    int used;                  /* cuptiSubscribe succeeded once in this process (a fork's child may not use CUDA) */
    unsigned flags;            /* the session's prof_config.cuda_flags */
    uint64_t kinds_on;         /* bit k: kind prof__cu_kinds[k] enabled */
    prof__cubuf *done, **tail;
    size_t bytes;              /* of the buffers CUPTI holds and those done */
    uint64_t dropped;          /* records CUPTI dropped (its count) */
    uint64_t refused;          /* buffers not given: the budget spent, or no memory */
    prof__buf devices;         /* deviceProperties entries, each device once per process */
    uint64_t devices_seen;     /* bit id: device id < 64 already in devices */
    CUpti_SubscriberHandle subscriber;
    prof__cuhidden *hidden;    /* gather -> correlate */
    size_t nhidden, caphidden;
    uint32_t sms[64];          /* each device's SMs, from its DEVICE record (0: none seen) */
} prof__cu = { PTHREAD_MUTEX_INITIALIZER, 0, 0, 0, 0, 0, 0, 0, NULL, NULL, 0, 0, 0, { NULL, 0, 0, 0 }, 0, NULL, NULL, 0, 0, { 0 } };

/* The subscription only reserves CUPTI for us; no callback is enabled. */
static void CUPTIAPI prof__cu_callback(void *user, CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void *data) {
    (void)user; (void)domain; (void)cbid; (void)data;
}

static const CUpti_ActivityKind prof__cu_kinds[] = {
    CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY, CUPTI_ACTIVITY_KIND_MEMCPY2, CUPTI_ACTIVITY_KIND_MEMSET,
    CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_ACTIVITY_KIND_DRIVER, CUPTI_ACTIVITY_KIND_SYNCHRONIZATION, CUPTI_ACTIVITY_KIND_MEMORY2
};
#define PROF__CU_NKINDS (sizeof prof__cu_kinds / sizeof prof__cu_kinds[0])

/* Checked CUPTI calls name the call and where it failed. */
#define PROF__CUPTI_CALL(call) prof__cupti_ok((call), #call, __LINE__)
static PROF__NI int prof__cupti_ok(CUptiResult r, const char *what, int line) {
    const char *msg = NULL;
    if (r == CUPTI_SUCCESS) return 1;
    if (cuptiGetResultString(r, &msg) != CUPTI_SUCCESS || !msg) msg = "unknown error";
    if (!prof__cu.warned) {
        prof__report(PROF_LOG_ERROR, PROF_E_CUPTI, "CUPTI: %s failed (prof.h:%d): %s (%d)%s; no CUDA activity will be recorded, the CPU profile goes on",
                     what, line, msg, (int)r,
                     r == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED
                         ? " (another CUPTI client holds it: Nsight, compute-sanitizer, or PyTorch's profiler, which keeps it until the process exits once it has profiled CUDA)"
                         : "");
        prof__cu.warned = 1;
    }
    return 0;
}

static uint64_t CUPTIAPI prof__cu_timestamp(void) { return (uint64_t)prof__mono_ns(); }

/* The lock is held for the counts only: never across an allocation (a
   fork waits for it, prof__cupti_atfork). */
static void CUPTIAPI prof__cu_requested(uint8_t **buffer, size_t *size, size_t *max_records) {
    prof__cubuf *n = NULL;
    size_t want = PROF__CUPTI_BUFFER;
    pthread_mutex_lock(&prof__cu.lock);
    if (prof__cu.bytes + 64 * (PROF__CUBUF_HDR + PROF__CUPTI_BUFFER) > PROF__CUPTI_BUDGET) want = PROF__CUPTI_SMALL;
    if (prof__cu.bytes + PROF__CUBUF_HDR + want <= PROF__CUPTI_BUDGET) prof__cu.bytes += PROF__CUBUF_HDR + want;
    else {
        prof__cu.refused++;
        want = 0;
    }
    pthread_mutex_unlock(&prof__cu.lock);
    if (want && !(n = (prof__cubuf *)PROF__MALLOC(PROF__CUBUF_HDR + want))) {
        pthread_mutex_lock(&prof__cu.lock);
        prof__cu.bytes -= PROF__CUBUF_HDR + want;
        prof__cu.refused++;
        pthread_mutex_unlock(&prof__cu.lock);
    }
    if (n) {
        n->data = (uint8_t *)n + PROF__CUBUF_HDR;
        n->bytes = PROF__CUBUF_HDR + want;
        n->valid = 0;
        n->next = NULL;
    }
    *buffer = n ? n->data : NULL;
    *size = n ? want : 0;
    *max_records = 0;
}

/* A buffer CUPTI is done with: shrunk to its records (most of a thread's
   own buffer is often empty), then queued for prof_stop. */
static void CUPTIAPI prof__cu_completed(CUcontext ctx, uint32_t stream, uint8_t *buffer, size_t size, size_t valid) {
    prof__cubuf *n = buffer ? (prof__cubuf *)(void *)(buffer - PROF__CUBUF_HDR) : NULL; /* (see prof__cu_requested) */
    size_t was, keep;
    (void)size;
    (void)ctx;
    (void)stream;
    if (!n) return;
    was = n->bytes;
    keep = PROF__CUBUF_HDR + ((valid + 15u) & ~(size_t)15u);
    if (keep + 4096 <= was) {
        prof__cubuf *m = (prof__cubuf *)PROF__REALLOC(n, keep);
        if (m) {
            n = m;
            n->bytes = keep;
        }
    }
    n->data = (uint8_t *)n + PROF__CUBUF_HDR;
    n->valid = valid;
    n->next = NULL;
    pthread_mutex_lock(&prof__cu.lock);
    prof__cu.bytes -= was - n->bytes;
    if (!prof__cu.tail) prof__cu.tail = &prof__cu.done;
    *prof__cu.tail = n;
    prof__cu.tail = &n->next;
    pthread_mutex_unlock(&prof__cu.lock);
}

/* Around a fork (prof__atfork_*): the lock is taken, so that the child has
   the done list whole, and then made afresh there. */
static void prof__cupti_atfork(int dir) {
    if (dir < 0) pthread_mutex_lock(&prof__cu.lock);
    else if (dir > 0) pthread_mutex_unlock(&prof__cu.lock);
    else {
        pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
        prof__cu.lock = m;
        /* CUDA does not cross a fork: a child of a process that used it
           cannot (the driver refuses it), and CUPTI's threads and locks
           are the parent's, so a call into CUPTI here may never return.
           The child calls CUPTI no more: its prof_stop closes the session
           it inherited without the parent's GPU records (the parent's to
           report), and its own sessions record the CPU (said once). */
        if (prof__cu.used) prof__cu.no_gpu = 2;
        prof__cu.enabled = prof__cu.subscribed = 0;
        prof__cu.kinds_on = 0;
    }
}

/* Gives CUPTI back: another client (a second profiler, Nsight) can
   subscribe after this, and the next prof_start sets everything up again. */
static PROF__NI void prof__cupti_release(void) {
    if (!prof__cu.subscribed) return;
    cuptiUnsubscribe(prof__cu.subscriber);
    cuptiFinalize();
    prof__cu.subscribed = 0;
}

static PROF__NI void prof__cupti_start(unsigned activities) {
    size_t k;
    if (!(activities & PROF_ACTIVITY_CUDA)) return;
    if (prof__cu.no_gpu == 2) { /* (said once) */
        prof__report(PROF_LOG_INFO, PROF_E_CUPTI, "CUPTI: this process was forked from one that used CUDA, which a child cannot; CUDA activity is not recorded in it, the CPU profile goes on");
        prof__cu.no_gpu = 1;
    }
    if (prof__cu.no_gpu) return;
    prof__cu.warned = 0;
    prof__cu.flags = prof__g.cfg.cuda_flags;
    prof__cu.kinds_on = 0;
    /* the one subscriber slot: taken, another CUPTI client (Nsight,
       compute-sanitizer, another profiler) is attached. PyTorch's Kineto
       keeps its subscription from its first CUDA profile to the process's
       exit (seen with PyTorch 2.11): prof.h then records the CPU only. */
    if (!prof__cu.subscribed) {
        CUptiResult r = cuptiSubscribe(&prof__cu.subscriber, prof__cu_callback, NULL);
        if (r == CUPTI_ERROR_UNKNOWN || r == CUPTI_ERROR_NOT_INITIALIZED) {
            /* no driver or no GPU (CUDA 13 has no NO_DEVICE code): not an
               error, one info line per process, and no more asking (each
               failing call searches for libcuda.so.1 anew) */
            const char *msg = NULL;
            if (cuptiGetResultString(r, &msg) != CUPTI_SUCCESS || !msg) msg = "unknown error";
            prof__report(PROF_LOG_INFO, PROF_E_CUPTI, "CUPTI: no CUDA driver or GPU (cuptiSubscribe: %s); CUDA activity is not recorded in this process, the CPU profile goes on",
                         msg);
            prof__cu.no_gpu = 1;
            return;
        }
        if (!prof__cupti_ok(r, "cuptiSubscribe(&prof__cu.subscriber, prof__cu_callback, NULL)", __LINE__)) return;
        prof__cu.subscribed = 1;
        prof__cu.used = 1;
    }
    /* API records then carry gettid()'s ids, as the scopes do; the clock
       must be set before the first activity is enabled; the devices'
       properties are for the trace's deviceProperties */
    if (!PROF__CUPTI_CALL(cuptiSetThreadIdType(CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM)) ||
        !PROF__CUPTI_CALL(cuptiActivityRegisterTimestampCallback(prof__cu_timestamp)) ||
        !PROF__CUPTI_CALL(cuptiActivityRegisterCallbacks(prof__cu_requested, prof__cu_completed)) ||
        !PROF__CUPTI_CALL(cuptiActivityEnableAndDump(CUPTI_ACTIVITY_KIND_DEVICE))) {
        prof__cupti_release();
        return;
    }
    for (k = 0; k < PROF__CU_NKINDS; k++) {
        if (prof__cu_kinds[k] == CUPTI_ACTIVITY_KIND_SYNCHRONIZATION && !(prof__cu.flags & PROF_CUDA_SYNC)) continue;
        if (!PROF__CUPTI_CALL(cuptiActivityEnable(prof__cu_kinds[k]))) {
            while (k-- > 0)
                if (prof__cu.kinds_on >> k & 1u) cuptiActivityDisable(prof__cu_kinds[k]);
            prof__cu.kinds_on = 0;
            prof__cupti_release();
            return;
        }
        prof__cu.kinds_on |= (uint64_t)1 << k;
    }
#if CUPTI_API_VERSION >= 130000
    /* no records for event and stream queries that found work pending
       (polling loops would flood the lanes); not fatal if refused */
    if (prof__cu.flags & PROF_CUDA_SYNC) cuptiActivityEnableAllSyncRecords(0);
#endif
    prof__cu.enabled = 1;
}

static PROF__NI int prof__cupti_active(void) { return prof__cu.enabled; }

/* CUPTI carried on from a schedule's warm-up (prof__transit): the buffers
   completed meanwhile hold only records from before the recording window
   begins; they go now rather than hold the budget until the window's
   stop, and so do the warm-up's counts of dropped records. */
static PROF__NI void prof__cupti_forget_done(void) {
    prof__cubuf *list;
    pthread_mutex_lock(&prof__cu.lock);
    list = prof__cu.done;
    prof__cu.done = NULL;
    prof__cu.tail = &prof__cu.done;
    prof__cu.dropped = prof__cu.refused = 0;
    pthread_mutex_unlock(&prof__cu.lock);
    prof__cupti_bufs_free(list);
}

static PROF__NI void prof__cupti_stop(void) {
    size_t k, dropped = 0;
    if (!prof__cu.enabled) return;
    for (k = 0; k < PROF__CU_NKINDS; k++)
        if (prof__cu.kinds_on >> k & 1u) cuptiActivityDisable(prof__cu_kinds[k]);
    PROF__CUPTI_CALL(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED));
    /* records CUPTI could not buffer, counted after the forced flush (never
       from inside the buffer callback) */
    if (cuptiActivityGetNumDroppedRecords(NULL, 0, &dropped) == CUPTI_SUCCESS) {
        pthread_mutex_lock(&prof__cu.lock);
        prof__cu.dropped += dropped;
        pthread_mutex_unlock(&prof__cu.lock);
    }
    prof__cupti_release(); /* every buffer is ours now: parsing them needs no CUPTI state */
    prof__cu.enabled = 0;
}

/* Kineto's names for copies and sets (libkineto's cupti_strings), its
   words for kinds it does not know included: "Unknown" is CUPTI's
   UNKNOWN memory kind, "Unrecognized" one past those it names, and
   "<unknown>" any copy kind but its ten. */
static PROF__NI const char *prof__cu_mem_kind(int k) {
    switch (k) {
    case CUPTI_ACTIVITY_MEMORY_KIND_UNKNOWN: return "Unknown";
    case CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE: return "Pageable";
    case CUPTI_ACTIVITY_MEMORY_KIND_PINNED: return "Pinned";
    case CUPTI_ACTIVITY_MEMORY_KIND_DEVICE: return "Device";
    case CUPTI_ACTIVITY_MEMORY_KIND_ARRAY: return "Array";
    case CUPTI_ACTIVITY_MEMORY_KIND_MANAGED: return "Managed";
    case CUPTI_ACTIVITY_MEMORY_KIND_DEVICE_STATIC: return "Device Static";
    case CUPTI_ACTIVITY_MEMORY_KIND_MANAGED_STATIC: return "Managed Static";
    default: return "Unrecognized";
    }
}
static PROF__NI const char *prof__cu_copy_kind(int k) {
    switch (k) {
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOD: return "HtoD";
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOH: return "DtoH";
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOA: return "HtoA";
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOH: return "AtoH";
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOA: return "AtoA";
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOD: return "AtoD";
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOA: return "DtoA";
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOD: return "DtoD";
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOH: return "HtoH";
    case CUPTI_ACTIVITY_MEMCPY_KIND_PTOP: return "PtoP";
    default: return "<unknown>";
    }
}

/* API calls kept as events (Kineto's filter, cuda_flags = 0), by their
   stripped names, which stay put across CUDA versions where cbids do not. */
static PROF__NI int prof__cu_api_kept(const char *name, int driver) {
    static const char *const runtime_dropped[] = {
        "cudaGetDevice", "cudaSetDevice", "cudaGetLastError", "cudaEventCreate", "cudaEventCreateWithFlags", "cudaEventDestroy"
    };
    static const char *const driver_kept[] = { /* prefixes: launches and allocations */
        "cuLaunchKernel", "cuLaunchCooperativeKernel", "cuGraphLaunch", "cuMemAlloc", "cuMemFree", "cuMemCreate",
        "cuMemRelease", "cuMemMap", "cuMemUnmap"
    };
    size_t i;
    if (prof__cu.flags & PROF_CUDA_ALL_API) return 1;
    if (driver) {
        for (i = 0; i < sizeof driver_kept / sizeof driver_kept[0]; i++)
            if (strncmp(name, driver_kept[i], strlen(driver_kept[i])) == 0) return 1;
        return 0;
    }
    if (name[0] == '_' && name[1] == '_') return 0; /* CUDA 13's __cudaPushCallConfiguration, __cudaLaunchKernel, ... */
    for (i = 0; i < sizeof runtime_dropped / sizeof runtime_dropped[0]; i++)
        if (strcmp(name, runtime_dropped[i]) == 0) return 0;
    return 1;
}

/* Appends one key for a CUDA record; its details go to an extra. */
static PROF__NI prof__extra *prof__cu_key(prof_events *e, prof__key **keys, size_t *n, size_t *cap, int64_t start, int64_t end,
                                          uint64_t tid, const char *name, unsigned site_flags, int device_type, uint8_t flags) {
    prof__key *k;
    prof__ev tmpv;
    int64_t site = prof__site_index(e, name, "", "", 0, site_flags), thr = prof__thread_index(e, tid, NULL);
    if (site < 0 || thr < 0 || !prof__grow((void *)keys, cap, *n + 1, sizeof **keys)) return NULL;
    memset(&tmpv, 0, sizeof tmpv);
    if (!prof__extra_of(e, &tmpv)) return NULL;
    k = &(*keys)[(*n)++];
    k->start = start;
    k->end = end > start ? end : start;
    k->thread = (uint32_t)thr;
    k->site = (uint32_t)site;
    k->extra = tmpv.extra;
    k->scope = 0;
    k->flags = flags;
    k->device_type = (uint8_t)device_type;
    return &e->ex[tmpv.extra];
}

/* A kernel, copy or set on its device and stream, with its details. */
static PROF__NI prof__cuinfo *prof__cu_device_event(prof_events *e, prof__key **keys, size_t *n, size_t *cap, int64_t start, int64_t end,
                                                   uint32_t device, uint32_t context, uint32_t stream, uint32_t correlation,
                                                   const char *name, unsigned site_flags, int kind) {
    prof__extra *x = prof__cu_key(e, keys, n, cap, start, end, stream, name, site_flags, PROF_DEVICE_CUDA, 0);
    prof__cuinfo *ci;
    if (!x || !(ci = (prof__cuinfo *)prof__arena_alloc(&e->arena, sizeof *ci))) return NULL;
    memset(ci, 0, sizeof *ci);
    ci->kind = kind;
    ci->context = context;
    ci->queued = -1;
    ci->src_device = ci->dst_device = -1;
    x->cu = ci;
    x->correlation = correlation;
    x->device_index = (int)device;
    x->has_resource = 1;
    x->resource_id = stream;
    return ci;
}

/* Whether a kernel, copy or set goes into the session's events: records
   without timestamps (CUPTI could not collect them) and work not finished
   at prof_stop are counted; work of an earlier session is not ours. */
static PROF__NI int prof__cu_span_ok(prof_events *e, uint64_t start, uint64_t end, int64_t lo, int64_t hi) {
    if (!start && !end) { e->stats.cuda_no_timestamps++; return 0; }
    if (!start || !end || end < start || (int64_t)start > hi) { e->stats.cuda_unfinished++; return 0; }
    if ((int64_t)start < lo) return 0;
    if ((int64_t)end > hi) e->stats.cuda_unfinished++; /* kept: it began in the session */
    return 1;
}

/* prof__cupti_gather's state: the list being filled, the session's window
   on CLOCK_MONOTONIC, and a scratch buffer for the names it formats, which
   grows to whatever length a name has. */
typedef char *(*prof__demangle_fn)(const char *, char *, size_t *, int *);
typedef struct prof__cu_gather {
    prof_events *e;
    prof__key **keys;
    size_t *nkeys, *capkeys;
    const prof__cu_thr *thr;
    size_t nthr;
    int64_t mono_start, mono_stop;
    size_t first_key;           /* the first key this gather added */
    size_t room;                /* the events the list may still take under the cap (prof__cug_cap) */
    prof__demangle_fn demangle; /* __cxa_demangle when the process has it */
    prof__map ctx_dev;          /* context -> device, for synchronization records */
    prof__map by_pthread;       /* pthread_t -> its first index in thr (prof__cug_tid) */
    int by_pthread_ok;          /* it was built (else thr is searched) */
    prof__buf name;             /* the name being formatted */
} prof__cu_gather;

static PROF__NI int64_t prof__cug_ns(const prof__cu_gather *g, uint64_t t) { return (int64_t)t - g->mono_start; }
static PROF__NI int prof__cug_in(const prof__cu_gather *g, uint64_t t) { return (int64_t)t >= g->mono_start && (int64_t)t <= g->mono_stop; }
/* The OS thread id of an API record's thread id. prof.h asks CUPTI for
   the system's ids, which these already are; a pthread_t (CUPTI's
   default, should another user of CUPTI set it back) is looked up. By
   map: a scan of every thread for every record cost threads x records. */
static PROF__NI uint64_t prof__cug_tid(const prof__cu_gather *g, uint64_t id) {
    size_t i;
    uint32_t k;
    if (g->by_pthread_ok) return (k = prof__map_get(&g->by_pthread, id)) != UINT32_MAX ? g->thr[k].tid : id;
    for (i = 0; i < g->nthr; i++) if (g->thr[i].pthread_id == id) return g->thr[i].tid;
    return id;
}
/* The name formatted into the scratch buffer: NULL when out of memory. */
#if defined(__GNUC__)
__attribute__((__format__(__printf__, 2, 3)))
#endif
static PROF__NI const char *prof__cug_name(prof__cu_gather *g, const char *fmt, ...) {
    va_list ap;
    int n;
    g->name.n = 0;
    va_start(ap, fmt);
    n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0 || !prof__grow((void *)&g->name.p, &g->name.cap, (size_t)n + 1, 1)) return NULL;
    va_start(ap, fmt);
    vsnprintf(g->name.p, (size_t)n + 1, fmt, ap);
    va_end(ap);
    g->name.n = (size_t)n;
    return g->name.p;
}

/* An API call's name as Kineto gives it: "cudaLaunchKernel_v7000" ->
   "cudaLaunchKernel" ("cuMemAlloc_v2" keeps its suffix: 4 digits or more
   only); CUDA 13 compiles <<<>>> to __cudaLaunchKernel, named as the
   launch it is, cudaLaunchKernel, as CUDA 12 records it. */
static PROF__NI const char *prof__cug_api_name(prof__cu_gather *g, int driver, uint32_t cbid) {
    const char *cbname = NULL;
    size_t len, end;
    if (cuptiGetCallbackName(driver ? CUPTI_CB_DOMAIN_DRIVER_API : CUPTI_CB_DOMAIN_RUNTIME_API, cbid, &cbname) != CUPTI_SUCCESS || !cbname)
        cbname = driver ? "cuda_driver_call" : "cuda_runtime_call";
    len = end = strlen(cbname);
    while (end > 0 && cbname[end - 1] >= '0' && cbname[end - 1] <= '9') end--;
    if (end >= 2 && cbname[end - 1] == 'v' && cbname[end - 2] == '_' && len - end >= 4) len = end - 2;
    if (!driver && !(prof__cu.flags & PROF_CUDA_ALL_API) && len >= 18 && strncmp(cbname, "__cudaLaunchKernel", 18) == 0) {
        cbname += 2;
        len -= 2;
    }
    g->name.n = 0;
    prof__buf_put(&g->name, cbname, len);
    if (g->name.oom) { g->name.oom = 0; return NULL; }
    return g->name.p ? g->name.p : "";
}

/* The deviceProperties entry of a DEVICE record (Kineto's keys), once per
   device and process, appended to prof__cu.devices (a name of any length). */
static PROF__NI void prof__cu_device_props(const prof__cu_device_rec *d) {
    prof__buf *b = &prof__cu.devices;
    size_t at = b->n;
    prof__w jw;
    char *jname;
    size_t jcap;
    const char *name = d->name ? d->name : "";
    if (d->id < 64) prof__cu.sms[d->id] = d->numMultiprocessors;
    if (d->id < 64 && (prof__cu.devices_seen >> d->id & 1u)) return;
    /* the name as a JSON string: at most 6 bytes per byte, and the quotes */
    jcap = strlen(name) * 6 + 3;
    if (!(jname = (char *)PROF__MALLOC(jcap))) return;
    prof__w_mem(&jw, jname, jcap);
    prof__w_json_str(&jw, name);
    if (b->n) prof__buf_str(b, ",\n");
    prof__buf_fmt(b, "    {\"id\": %u, \"name\": ", d->id);
    prof__buf_put(b, jw.err ? "\"\"" : jname, jw.err ? 2 : jw.n);
    prof__buf_fmt(b, ", \"totalGlobalMem\": %llu, \"computeMajor\": %u, \"computeMinor\": %u, "
                     "\"maxThreadsPerBlock\": %u, \"maxThreadsPerMultiprocessor\": %u, \"regsPerBlock\": %u, "
                     "\"regsPerMultiprocessor\": %u, \"warpSize\": %u, \"sharedMemPerBlock\": %u, "
                     "\"sharedMemPerMultiprocessor\": %u, \"numSms\": %u}",
                  (unsigned long long)d->globalMemorySize, d->computeCapabilityMajor, d->computeCapabilityMinor, d->maxThreadsPerBlock,
                  d->maxWarpsPerMultiprocessor * d->numThreadsPerWarp, d->maxRegistersPerBlock,
                  d->maxRegistersPerMultiprocessor, d->numThreadsPerWarp, d->maxSharedMemoryPerBlock,
                  d->maxSharedMemoryPerMultiprocessor, d->numMultiprocessors);
    PROF__FREE(jname);
    if (b->oom) { /* no memory: the entry is left out, the next device may fit */
        b->oom = 0;
        b->n = at;
        if (b->p) b->p[at] = 0;
        return;
    }
    if (d->id < 64) prof__cu.devices_seen |= (uint64_t)1 << d->id;
}

/* Phase 1: the completed buffers are taken (CUPTI's drops counted, the
   hidden calls of a stop that failed before correlating forgotten). */
static PROF__NI prof__cubuf *prof__cug_take(prof__cu_gather *g) {
    prof__cubuf *list;
    prof__cuhidden *hidden;
    uint64_t dropped, refused;
    pthread_mutex_lock(&prof__cu.lock);
    list = prof__cu.done;
    prof__cu.done = NULL;
    prof__cu.tail = &prof__cu.done;
    dropped = prof__cu.dropped;
    refused = prof__cu.refused;
    prof__cu.dropped = prof__cu.refused = 0;
    hidden = prof__cu.hidden;
    prof__cu.hidden = NULL;
    prof__cu.nhidden = prof__cu.caphidden = 0;
    pthread_mutex_unlock(&prof__cu.lock);
    /* (said and freed out of the lock: the log callback is the user's) */
    PROF__FREE(hidden);
    g->e->stats.dropped += dropped; /* the cap's own warning counts only the CPU's */
    if (dropped && refused)
        prof__report(PROF_LOG_WARNING, PROF_E_DROPPED, "CUPTI dropped %llu activity records: prof.h refused %llu of its buffers (they hold at most %zu MiB in all, or there was no memory for more)",
                     (unsigned long long)dropped, (unsigned long long)refused, PROF__CUPTI_BUDGET >> 20);
    else if (dropped)
        prof__report(PROF_LOG_WARNING, PROF_E_DROPPED, "CUPTI dropped %llu activity records (its own buffers were full)", (unsigned long long)dropped);
    return list;
}

/* Phase 2, one function per record kind; each returns -1 when out of
   memory, 0 otherwise (a record outside the session is skipped). */
static PROF__NI int prof__cug_kernel(prof__cu_gather *g, const prof__cu_kernel_rec *k) {
    prof__cuinfo *ci;
    char *dem = NULL;
    int status = -1, found;
    uint32_t *slot;
    if (!prof__cu_span_ok(g->e, k->start, k->end, g->mono_start, g->mono_stop)) return 0;
    if (g->demangle && k->name) dem = g->demangle(k->name, NULL, NULL, &status);
    ci = prof__cu_device_event(g->e, g->keys, g->nkeys, g->capkeys, prof__cug_ns(g, k->start), prof__cug_ns(g, k->end), k->deviceId,
                               k->contextId, k->streamId, k->correlationId, (dem && status == 0) ? dem : (k->name ? k->name : "kernel"),
                               PROF_SITE_GPU_KERNEL, 1);
    free(dem); /* __cxa_demangle allocates with malloc */
    if (!ci) return -1;
    ci->grid[0] = k->gridX; ci->grid[1] = k->gridY; ci->grid[2] = k->gridZ;
    ci->block[0] = k->blockX; ci->block[1] = k->blockY; ci->block[2] = k->blockZ;
    ci->registers = k->registersPerThread;
    ci->shared_static = k->staticSharedMemory;
    ci->shared_dynamic = k->dynamicSharedMemory;
    ci->queued = k->queued && k->queued != (uint64_t)-1 ? prof__cug_ns(g, k->queued) : -1;
    ci->graph_id = k->graphId;
    ci->graph_node = k->graphNodeId;
    if ((slot = prof__map_slot(&g->ctx_dev, k->contextId, &found)) != NULL) *slot = k->deviceId;
    return 0;
}
static PROF__NI int prof__cug_memcpy(prof__cu_gather *g, const prof__cu_memcpy_rec *m) {
    prof__cuinfo *ci;
    const char *name;
    if (!prof__cu_span_ok(g->e, m->start, m->end, g->mono_start, g->mono_stop)) return 0;
    name = prof__cug_name(g, "Memcpy %s (%s -> %s)", prof__cu_copy_kind(m->copyKind), prof__cu_mem_kind(m->srcKind), prof__cu_mem_kind(m->dstKind));
    /* correlationId is the driver call's; the runtime call around it
       (cudaMemcpy*), the one kept as an event, has its own */
    if (!name || !(ci = prof__cu_device_event(g->e, g->keys, g->nkeys, g->capkeys, prof__cug_ns(g, m->start), prof__cug_ns(g, m->end),
                                              m->deviceId, m->contextId, m->streamId,
                                              m->runtimeCorrelationId ? m->runtimeCorrelationId : m->correlationId, name,
                                              PROF_SITE_GPU_MEMCPY, 2))) return -1;
    ci->bytes = m->bytes;
    ci->graph_id = m->graphId;
    ci->graph_node = m->graphNodeId;
    return 0;
}
static PROF__NI int prof__cug_ptop(prof__cu_gather *g, const prof__cu_ptop_rec *m) {
    prof__cuinfo *ci;
    const char *name;
    if (!prof__cu_span_ok(g->e, m->start, m->end, g->mono_start, g->mono_stop)) return 0;
    name = prof__cug_name(g, "Memcpy PtoP (%s -> %s)", prof__cu_mem_kind(m->srcKind), prof__cu_mem_kind(m->dstKind));
    if (!name || !(ci = prof__cu_device_event(g->e, g->keys, g->nkeys, g->capkeys, prof__cug_ns(g, m->start), prof__cug_ns(g, m->end),
                                              m->deviceId, m->contextId, m->streamId, m->correlationId, name, PROF_SITE_GPU_MEMCPY, 2)))
        return -1;
    ci->bytes = m->bytes;
    ci->src_device = (int32_t)m->srcDeviceId;
    ci->dst_device = (int32_t)m->dstDeviceId;
    ci->graph_id = m->graphId;
    ci->graph_node = m->graphNodeId;
    return 0;
}
static PROF__NI int prof__cug_memset(prof__cu_gather *g, const prof__cu_memset_rec *m) {
    prof__cuinfo *ci;
    const char *name;
    if (!prof__cu_span_ok(g->e, m->start, m->end, g->mono_start, g->mono_stop)) return 0;
    name = prof__cug_name(g, "Memset (%s)", prof__cu_mem_kind(m->memoryKind));
    if (!name || !(ci = prof__cu_device_event(g->e, g->keys, g->nkeys, g->capkeys, prof__cug_ns(g, m->start), prof__cug_ns(g, m->end),
                                              m->deviceId, m->contextId, m->streamId, m->correlationId, name, PROF_SITE_GPU_MEMSET, 3)))
        return -1;
    ci->bytes = m->bytes;
    ci->graph_id = m->graphId;
    ci->graph_node = m->graphNodeId;
    return 0;
}
/* Keeps a CUDA call that is not an event (filtered out, or dropped by the
   cap) aside: its GPU work and memory records find their thread by it. */
static int prof__cu_hide(uint32_t correlation, uint64_t tid, int64_t start, int64_t end) {
    if (!PROF__PUSH_OK(prof__cu.hidden, prof__cu.nhidden, prof__cu.caphidden)) return -1;
    prof__cu.hidden[prof__cu.nhidden].correlation = correlation;
    prof__cu.hidden[prof__cu.nhidden].tid = tid;
    prof__cu.hidden[prof__cu.nhidden].start = start;
    prof__cu.hidden[prof__cu.nhidden].end = end;
    prof__cu.nhidden++;
    return 0;
}
/* A runtime or driver call: an event, or, filtered out, kept aside for the
   GPU work it launched. */
static PROF__NI int prof__cug_api(prof__cu_gather *g, const CUpti_ActivityAPI *a, int driver) {
    prof__extra *x;
    const char *name;
    uint64_t tid;
    if (!a->start || !prof__cug_in(g, a->start) || a->end < a->start) return 0;
    if (!(name = prof__cug_api_name(g, driver, a->cbid))) return -1;
    tid = prof__cug_tid(g, a->threadId);
    if (!prof__cu_api_kept(name, driver)) {
        return prof__cu_hide(a->correlationId, tid, prof__cug_ns(g, a->start), prof__cug_ns(g, a->end));
    }
    x = prof__cu_key(g->e, g->keys, g->nkeys, g->capkeys, prof__cug_ns(g, a->start), prof__cug_ns(g, a->end), tid, name,
                     PROF_SITE_CPU_OP | (driver ? PROF_SITE_CUDA_DRIVER : PROF_SITE_CUDA_RUNTIME), PROF_DEVICE_CPU, 0);
    if (!x) return -1;
    x->correlation = a->correlationId;
    x->cbid = a->cbid;
    return 0;
}
/* A synchronization: on its stream's lane (a context-wide one, which has
   no stream, on its own "sync" lane); a CUDA event, as PyTorch's
   deviceTypeFromActivity makes Kineto's cuda_sync (not an annotation: its
   time is device time, counted in its op and the table's total, as
   PyTorch counts it); its device settled once every buffer was read. */
static PROF__NI int prof__cug_sync(prof__cu_gather *g, const prof__cu_sync_rec *s) {
    static const char *const names[] = { "Unknown Sync", "Event Sync", "Stream Wait Event", "Stream Sync", "Context Sync" };
    int64_t lane = s->streamId == CUPTI_INVALID_STREAM_ID ? -1 : (int64_t)s->streamId;
    prof__extra *x;
    prof__cuinfo *ci;
    uint32_t dev;
    if (!s->start || !prof__cug_in(g, s->start) || s->end < s->start) return 0;
    dev = prof__map_get(&g->ctx_dev, s->contextId);
    x = prof__cu_key(g->e, g->keys, g->nkeys, g->capkeys, prof__cug_ns(g, s->start), prof__cug_ns(g, s->end), (uint64_t)lane,
                     names[(unsigned)s->type < 5 ? (unsigned)s->type : 0], PROF_SITE_CUDA_SYNC, PROF_DEVICE_CUDA, 0);
    if (!x || !(ci = (prof__cuinfo *)prof__arena_alloc(&g->e->arena, sizeof *ci))) return -1;
    x->correlation = s->correlationId;
    x->device_index = dev == UINT32_MAX ? 0 : (int)dev;
    memset(ci, 0, sizeof *ci);
    ci->kind = 4;
    ci->context = s->contextId;
    ci->src_device = ci->dst_device = -1;
    x->cu = ci;
    x->has_resource = 1;
    x->resource_id = lane;
    return 0;
}
/* An allocation or release; pinned and pageable host memory is the host's,
   not the device's. Its thread is the runtime call's: fixed up by
   correlation afterwards (prof__cupti_correlate), which finds the record
   by its thread PROF__CU_MEM_PENDING and its correlation id, whole. */
#define PROF__CU_MEM_PENDING UINT32_MAX
static PROF__NI int prof__cug_memory(prof__cu_gather *g, const prof__cu_memory_rec *m) {
    prof_events *e = g->e;
    int host = m->memoryKind == CUPTI_ACTIVITY_MEMORY_KIND_PINNED || m->memoryKind == CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE;
    prof__memrec *r;
    int64_t bytes;
    if (!m->timestamp || !prof__cug_in(g, m->timestamp)) return 0;
    if (m->memoryOperationType == CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_ALLOCATION && m->bytes) bytes = (int64_t)m->bytes; /* (a 0-byte block is none, as on the CPU) */
    else if (m->memoryOperationType == CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_RELEASE) bytes = -(int64_t)m->bytes;
    else return 0;
    if (!PROF__PUSH_OK(e->mem, e->nmem, e->capmem)) return -1;
    r = &e->mem[e->nmem++];
    r->ts = prof__cug_ns(g, m->timestamp);
    r->bytes = bytes;
    r->total = 0;
    r->corr = m->correlationId;
    r->ptr = m->address;
    r->thread = PROF__CU_MEM_PENDING;
    r->device_type = host ? PROF_DEVICE_CPU : PROF_DEVICE_CUDA;
    r->device_index = host ? -1 : (int)m->deviceId;
    r->category = NULL;
    return 0;
}
/* One record, by kind: each kind's record type is read through `raw` (no
   type-punned cast). */
static PROF__NI int prof__cug_record(prof__cu_gather *g, const CUpti_Activity *rec) {
    const void *raw = rec;
    switch (rec->kind) {
    case CUPTI_ACTIVITY_KIND_KERNEL:
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: return prof__cug_kernel(g, (const prof__cu_kernel_rec *)raw);
    case CUPTI_ACTIVITY_KIND_MEMCPY: return prof__cug_memcpy(g, (const prof__cu_memcpy_rec *)raw);
    case CUPTI_ACTIVITY_KIND_MEMCPY2: return prof__cug_ptop(g, (const prof__cu_ptop_rec *)raw);
    case CUPTI_ACTIVITY_KIND_MEMSET: return prof__cug_memset(g, (const prof__cu_memset_rec *)raw);
    case CUPTI_ACTIVITY_KIND_RUNTIME: return prof__cug_api(g, (const CUpti_ActivityAPI *)raw, 0);
    case CUPTI_ACTIVITY_KIND_DRIVER: return prof__cug_api(g, (const CUpti_ActivityAPI *)raw, 1);
    case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION: return prof__cug_sync(g, (const prof__cu_sync_rec *)raw);
    case CUPTI_ACTIVITY_KIND_MEMORY2: return prof__cug_memory(g, (const prof__cu_memory_rec *)raw);
    case CUPTI_ACTIVITY_KIND_DEVICE: {
        const prof__cu_device_rec *d = (const prof__cu_device_rec *)raw;
        prof__cu_device_props(d);
        free((void *)(uintptr_t)d->name); /* the client owns it (cupti_activity.h), malloc'ed by CUPTI */
        return 0;
    }
    default: return 0;
    }
}

/* Phase 3: what is known once every buffer was read: a synchronization's
   device (its record names a context only) and a kernel's SM count (its
   device's record may come in another thread's buffer). */
static PROF__NI void prof__cug_settle_devices(prof__cu_gather *g) {
    size_t k;
    for (k = g->first_key; k < *g->nkeys; k++) {
        prof__extra *x = &g->e->ex[(*g->keys)[k].extra];
        uint32_t dev;
        if (!x->cu) continue;
        if (x->cu->kind == 1 && x->device_index >= 0 && x->device_index < 64) {
            ((prof__cuinfo *)(uintptr_t)x->cu)->sms = prof__cu.sms[x->device_index]; /* the gather's own arena */
        } else if (x->cu->kind == 4) {
            dev = prof__map_get(&g->ctx_dev, x->cu->context);
            if (dev != UINT32_MAX) x->device_index = (int)dev;
        }
    }
}

/* Phase 3a: a release whose record says 0 bytes frees what the block's
   allocation took (found by address, in time order: buffers of different
   threads complete in any order), so that it is not live forever. -1
   without memory. */
typedef struct prof__cug_mem_order { const prof__memrec *m; } prof__cug_mem_order;
static int prof__cug_mem_before(const void *ctx, uint32_t a, uint32_t b) {
    const prof__memrec *m = ((const prof__cug_mem_order *)ctx)->m;
    return m[a].ts < m[b].ts;
}
static PROF__NI int prof__cug_release_sizes(prof__cu_gather *g, size_t nmem0) {
    prof_events *e = g->e;
    prof__map live; /* address -> 1 + the index of its allocation, 0 once released */
    prof__cug_mem_order ord;
    uint32_t *idx, *slot;
    size_t i, n = e->nmem - nmem0;
    int found, rc = 0;
    for (i = nmem0; i < e->nmem && e->mem[i].bytes != 0; i++) {}
    if (i >= e->nmem) return 0; /* every record has its size */
    if (!(idx = PROF__ALLOC(uint32_t, 2 * n))) return -1;
    memset(&live, 0, sizeof live);
    for (i = 0; i < n; i++) idx[i] = (uint32_t)(nmem0 + i);
    ord.m = e->mem;
    prof__msort_u32(idx, idx + n, n, prof__cug_mem_before, &ord);
    for (i = 0; i < n && rc == 0; i++) {
        prof__memrec *m = &e->mem[idx[i]];
        if (m->bytes > 0) {
            if (!(slot = prof__map_slot(&live, m->ptr, &found))) rc = -1;
            else *slot = idx[i] + 1;
        } else if ((slot = prof__map_at(&live, m->ptr)) != NULL && *slot) {
            if (m->bytes == 0) m->bytes = -e->mem[*slot - 1].bytes;
            *slot = 0;
        }
    }
    prof__map_free(&live);
    PROF__FREE(idx);
    return rc;
}

/* Phase 3b: the cap (max_events), for CUPTI's records, which reach the
   list only now. A call and the GPU work it launched are kept or dropped
   together (by their correlation id, collected in `gone`):
   - once the cap refused a thread no new scope begins recording there, so
     a CUDA call the thread made from then on is dropped as such a scope
     is, with its work (also that of a filtered call); kept, the call would
     be the child of a scope around the dropped one and its kernels that
     scope's own;
   - the rest take the room the list has left under the cap (g->room) in
     the order the calls began: past it, every later call and its work are
     dropped, as the cap drops what comes after it.
   Dropped records count in prof_stats.dropped. -1 without memory. */
typedef struct prof__cug_unit { int64_t start; uint32_t corr; } prof__cug_unit;
static int prof__cug_unit_less(const void *ctx, uint32_t a, uint32_t b) {
    const prof__cug_unit *u = (const prof__cug_unit *)ctx;
    return u[a].start < u[b].start;
}
static PROF__NI int prof__cug_gone_add(prof__map *gone, uint32_t corr) {
    int found;
    uint32_t *slot = prof__map_slot(gone, corr, &found);
    if (!slot) return -1;
    *slot = 1;
    return 0;
}
/* Whether a call of thread `tid` at `start` came after the cap refused
   the thread (by_tid: tid -> the index in g->thr of a state of that id,
   the others through next[]). The state of the id bound last by then
   makes the call: a later thread the kernel gave the id is another from
   the first scope it records (its state's bind), as is the late state of
   the refused thread itself (a scope in a key destructor run after
   prof.h's, recorded with its calls). Not the refused thread's exit: a
   key destructor is still that thread, and may call CUDA. */
static PROF__NI int prof__cug_past_cap(const prof__cu_gather *g, const prof__map *by_tid, const uint32_t *next, uint64_t tid, int64_t start) {
    uint32_t k, cur = UINT32_MAX;
    for (k = prof__map_get(by_tid, tid); k != UINT32_MAX; k = next[k])
        if (prof__c_ns(g->thr[k].bind_tick) <= start && (cur == UINT32_MAX || g->thr[k].bind_tick > g->thr[cur].bind_tick)) cur = k;
    return cur != UINT32_MAX && g->thr[cur].capped_tick && start >= prof__c_ns(g->thr[cur].capped_tick);
}
/* The calls of threads the cap refused, made after it did. */
static PROF__NI int prof__cug_cap_threads(prof__cu_gather *g, prof__map *gone) {
    prof_events *e = g->e;
    const prof__key *keys = *g->keys;
    prof__map by_tid; /* tid -> index in g->thr of a state of that id */
    uint32_t *next;   /* -> the next of the same id, UINT32_MAX: none */
    size_t i, n = *g->nkeys;
    uint32_t *slot;
    int found, rc = 0;
    for (i = 0; i < g->nthr && !g->thr[i].capped_tick; i++) {}
    if (i >= g->nthr) return 0;
    if (!(next = PROF__ALLOC(uint32_t, g->nthr))) return -1;
    memset(&by_tid, 0, sizeof by_tid);
    for (i = 0; i < g->nthr && rc == 0; i++) {
        if (!(slot = prof__map_slot(&by_tid, g->thr[i].tid, &found))) {
            rc = -1;
        } else {
            next[i] = found ? *slot : UINT32_MAX;
            *slot = (uint32_t)i;
        }
    }
    for (i = g->first_key; i < n && rc == 0; i++) { /* the kept calls */
        const prof__key *y = &keys[i];
        if (y->device_type != PROF_DEVICE_CPU || !(e->sites[y->site].flags & PROF__API_CALL)) continue;
        if (prof__cug_past_cap(g, &by_tid, next, e->thr[y->thread].tid, y->start)) rc = prof__cug_gone_add(gone, e->ex[y->extra].correlation);
    }
    for (i = 0; i < prof__cu.nhidden && rc == 0; i++) /* the filtered ones */
        if (prof__cug_past_cap(g, &by_tid, next, prof__cu.hidden[i].tid, prof__cu.hidden[i].start))
            rc = prof__cug_gone_add(gone, prof__cu.hidden[i].correlation);
    prof__map_free(&by_tid);
    PROF__FREE(next);
    return rc;
}
/* The rest, in the room left: each call (or GPU work whose call is not
   in the list) a unit of its correlation id, costing the records of that
   id; taken in order of start until one does not fit. */
static PROF__NI int prof__cug_cap_room(prof__cu_gather *g, prof__map *gone) {
    prof_events *e = g->e;
    const prof__key *keys = *g->keys;
    prof__map cost;         /* correlation -> its records not gone yet */
    prof__cug_unit *u = NULL;
    uint32_t *idx = NULL, *slot;
    size_t i, n = *g->nkeys, nu = 0, left = 0, room = g->room;
    int found, rc = 0;
    for (i = g->first_key; i < n; i++) left += prof__map_get(gone, e->ex[keys[i].extra].correlation) == UINT32_MAX;
    if (left <= room) return 0;
    memset(&cost, 0, sizeof cost);
    u = PROF__ALLOC(prof__cug_unit, left + prof__cu.nhidden + 1);
    idx = PROF__ALLOC(uint32_t, 2 * (left + prof__cu.nhidden + 1));
    if (!u || !idx) rc = -1;
    for (i = g->first_key; i < n && rc == 0; i++) {
        const prof__key *y = &keys[i];
        uint32_t corr = e->ex[y->extra].correlation;
        if (prof__map_get(gone, corr) != UINT32_MAX) continue;
        if (!(slot = prof__map_slot(&cost, corr, &found))) { rc = -1; break; }
        *slot = found ? *slot + 1 : 1;
        if (y->device_type == PROF_DEVICE_CPU || !found) { u[nu].start = y->start; u[nu].corr = corr; nu++; }
    }
    for (i = 0; i < prof__cu.nhidden && rc == 0; i++) {
        uint32_t corr = prof__cu.hidden[i].correlation;
        if (prof__map_get(gone, corr) != UINT32_MAX || prof__map_get(&cost, corr) == UINT32_MAX) continue; /* (nothing of it in the list) */
        u[nu].start = prof__cu.hidden[i].start;
        u[nu].corr = corr;
        nu++;
    }
    for (i = 0; i < nu && rc == 0; i++) idx[i] = (uint32_t)i;
    if (rc == 0) prof__msort_u32(idx, idx + nu, nu, prof__cug_unit_less, u);
    for (i = 0; i < nu && rc == 0; i++) {
        uint32_t corr = u[idx[i]].corr, *c = prof__map_at(&cost, corr);
        if (!*c) continue; /* (its id was decided by an earlier unit) */
        if (*c <= room) room -= *c;
        else { room = 0; rc = prof__cug_gone_add(gone, corr); }
        *c = 0;
    }
    PROF__FREE(u);
    PROF__FREE(idx);
    prof__map_free(&cost);
    return rc;
}
static PROF__NI int prof__cug_cap(prof__cu_gather *g) {
    prof_events *e = g->e;
    prof__key *keys = *g->keys;
    prof__map gone; /* the correlation ids dropped */
    size_t i, k, n = *g->nkeys, calls = 0, work = 0;
    int rc;
    memset(&gone, 0, sizeof gone);
    rc = prof__cug_cap_threads(g, &gone);
    if (rc == 0) rc = prof__cug_cap_room(g, &gone);
    for (i = k = g->first_key; i < n && rc == 0 && gone.n; i++) { /* the keys kept, in order */
        const prof__key *y = &keys[i];
        if (prof__map_get(&gone, e->ex[y->extra].correlation) != UINT32_MAX) {
            if (y->device_type != PROF_DEVICE_CPU) {
                work++;
                continue;
            }
            /* a dropped call goes with the filtered ones: CUDA's memory
               records (not capped) still find its thread by it */
            if ((rc = prof__cu_hide(e->ex[y->extra].correlation, e->thr[y->thread].tid, y->start, y->end)) != 0) break;
            calls++;
            continue;
        }
        keys[k++] = *y;
    }
    if (rc == 0 && gone.n) {
        *g->nkeys = k;
        e->stats.dropped += calls + work;
        if (calls + work)
            prof__report(PROF_LOG_WARNING, PROF_E_DROPPED, "%zu CUDA API call%s and %zu kernel%s, cop%s or set%s dropped at the cap of %zu events (raise prof_config.max_events)",
                         calls, calls == 1 ? "" : "s", work, work == 1 ? "" : "s", work == 1 ? "y" : "ies", work == 1 ? "" : "s", prof__g.cfg.max_events);
    }
    prof__map_free(&gone);
    return rc;
}

/* CUPTI's buffers, given back (prof__cu.bytes counts them; each node is
   its buffer's first bytes). */
static PROF__NI void prof__cupti_bufs_free(prof__cubuf *list) {
    if (!list) return;
    while (list) {
        prof__cubuf *n = list->next;
        size_t bytes = list->bytes;
        PROF__FREE(list);
        pthread_mutex_lock(&prof__cu.lock);
        prof__cu.bytes -= bytes;
        pthread_mutex_unlock(&prof__cu.lock);
        list = n;
    }
}
/* Phase 4: the warnings, the devices' properties, and the buffers freed
   (whatever happened before: this is the one cleanup). */
static PROF__NI int prof__cug_finish(prof__cu_gather *g, prof__cubuf *list, int rc) {
    prof_events *e = g->e;
    if (e->stats.cuda_no_timestamps)
        prof__report(PROF_LOG_WARNING, PROF_E_DROPPED, "CUPTI delivered %llu CUDA kernels, copies or sets without timestamps; they are not in the profile (CUPTI before 13.1 does this)",
                     (unsigned long long)e->stats.cuda_no_timestamps);
    if (e->stats.cuda_unfinished)
        prof__report(PROF_LOG_WARNING, PROF_E_DROPPED, "%llu CUDA kernels, copies or sets were not finished at prof_stop (those not begun are left out): call cudaDeviceSynchronize() before prof_stop",
                     (unsigned long long)e->stats.cuda_unfinished);
    prof__map_free(&g->ctx_dev);
    prof__map_free(&g->by_pthread);
    PROF__FREE(g->name.p);
    prof__cupti_bufs_free(list);
    return rc;
}

/* Drains the completed buffers into keys (device events and API calls),
   memory records and the list's CUDA details. *kept: the buffers of an
   earlier gather that ran out of memory, read first. Out of memory, what
   this gather added is taken back (keys, memory records, extras, counts,
   the filtered calls) and every buffer it read goes to *kept, so that a
   retry reads the same records once (a DEVICE record's name, freed when
   read, is cleared: its entry is made once per process anyway). */
static PROF__NI int prof__cupti_gather(prof_events *e, prof__key **keys, size_t *nkeys, size_t *capkeys, const prof__cu_thr *thr, size_t nthr,
                                       int64_t mono_start, int64_t mono_stop, size_t room, prof__cubuf **kept) {
    prof__cu_gather g;
    prof__cubuf *list, *b, **tail;
    prof_stats st0;
    size_t nmem0 = e->nmem, nex0 = e->nex;
    int rc = 0;
    memset(&g, 0, sizeof g);
    g.e = e;
    g.keys = keys;
    g.nkeys = nkeys;
    g.capkeys = capkeys;
    g.thr = thr;
    g.nthr = nthr;
    g.mono_start = mono_start;
    g.mono_stop = mono_stop;
    g.first_key = *nkeys;
    g.room = room;
    {
        size_t i;
        uint32_t *slot;
        int found;
        for (i = 0, g.by_pthread_ok = 1; i < nthr && g.by_pthread_ok; i++) {
            if (!(slot = prof__map_slot(&g.by_pthread, thr[i].pthread_id, &found))) g.by_pthread_ok = 0; /* (searched instead) */
            else if (!found) *slot = (uint32_t)i;
        }
    }
    {   /* a function pointer from dlsym: copied, as POSIX allows */
        void *sym = dlsym(RTLD_DEFAULT, "__cxa_demangle");
        memcpy(&g.demangle, &sym, sizeof g.demangle);
    }
    list = prof__cug_take(&g);
    st0 = e->stats; /* (after the take: CUPTI's drops count once) */
    if (*kept) { /* the kept buffers first, in the order they came */
        for (tail = kept; *tail; tail = &(*tail)->next) {}
        *tail = list;
        list = *kept;
        *kept = NULL;
    }
    for (b = list; b && !rc; b = b->next) {
        CUpti_Activity *rec = NULL;
        while (!rc && cuptiActivityGetNextRecord(b->data, b->valid, &rec) == CUPTI_SUCCESS) {
            rc = prof__cug_record(&g, rec);
            if (rec->kind == CUPTI_ACTIVITY_KIND_DEVICE) {
                const void *raw = rec;
                ((prof__cu_device_rec *)(uintptr_t)raw)->name = NULL; /* freed by prof__cug_record */
            }
        }
    }
    if (!rc) prof__cug_settle_devices(&g);
    if (!rc) rc = prof__cug_release_sizes(&g, nmem0);
    if (!rc) rc = prof__cug_cap(&g);
    if (!rc && prof__cu.devices.n && !(e->device_props = prof__intern(&e->strs, prof__cu.devices.p))) rc = -1;
    if (rc) {
        *nkeys = g.first_key;
        e->nmem = nmem0;
        e->nex = nex0;
        e->stats = st0;
        pthread_mutex_lock(&prof__cu.lock);
        prof__cu.nhidden = 0; /* (the retry's take frees them) */
        pthread_mutex_unlock(&prof__cu.lock);
        *kept = list;
        list = NULL;
    }
    return prof__cug_finish(&g, list, rc);
}

/* CPU events by thread, then start: the innermost scope open at a time. */
typedef struct prof__cu_order { const prof_events *e; } prof__cu_order;
static int prof__cu_before(const void *ctx, uint32_t a, uint32_t b) {
    const prof_events *e = ((const prof__cu_order *)ctx)->e;
    const prof__ev *x = &e->ev[a], *y = &e->ev[b];
    uint64_t tx = e->thr[x->thread].tid, ty = e->thr[y->thread].tid;
    if (tx != ty) return tx < ty;
    if (x->start != y->start) return x->start < y->start;
    return x->end > y->end;
}
/* The innermost event of thread `tid` open at `ts`, or -1: the last one to
   begin by then, or the nearest of its ancestors still open. */
static PROF__NI int64_t prof__cu_open_at(const prof_events *e, const uint32_t *cpu, size_t n, uint64_t tid, int64_t ts) {
    size_t lo = 0, hi = n;
    int32_t p;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const prof__ev *v = &e->ev[cpu[mid]];
        uint64_t t = e->thr[v->thread].tid;
        if (t < tid || (t == tid && v->start <= ts)) lo = mid + 1;
        else hi = mid;
    }
    if (!lo || e->thr[e->ev[cpu[lo - 1]].thread].tid != tid) return -1;
    for (p = (int32_t)cpu[lo - 1]; p >= 0 && e->ev[p].end < ts; p = e->ev[p].parent) {}
    return p;
}

/* The scope that owns GPU work launched by a call of thread `tid` over
   [start, end]: the innermost scope open at the call's middle that is no
   CUDA call itself (so work launched by a driver call inside a runtime
   call reaches the user's scope), as Kineto gives a kernel the op whose
   correlation id was pushed when it was launched. The middle, not the
   tree: CUPTI stamps calls with CLOCK_MONOTONIC and scopes are timed in
   ticks, and the two agree only to within the start pair's window, so a
   scope that only launches may end a few ns before its call does (the
   call then nests in the scope around it), or a call may begin a few ns
   after the scope before it ended. */
static PROF__NI int32_t prof__cu_owner(const prof_events *e, const uint32_t *cpu, size_t ncpu, uint64_t tid, int64_t start, int64_t end) {
    int32_t p = (int32_t)prof__cu_open_at(e, cpu, ncpu, tid, start + (end - start) / 2);
    for (; p >= 0 && (e->sites[e->ev[p].site].flags & (PROF_SITE_CUDA_RUNTIME | PROF_SITE_CUDA_DRIVER)); p = e->ev[p].parent) {}
    return p;
}

/* Before the tree (its merges hand an op's kernels to its parent, as
   PyTorch's attach them first): each kernel, copy and set joins the scope
   that owns the call that launched it (append_kernel), found by thread and
   time on the links prof_stop made as it ordered the events; device
   memory records take that call's thread. Out of memory it leaves no kernel attached and keeps the
   filtered calls, so that a failed prof_stop's retry attaches each once
   (a memory record that took its thread keeps it: it is not CUPTI's
   form any more). */
static PROF__NI int prof__cupti_correlate(prof_events *e) {
    prof__map api;      /* correlation -> API event */
    prof__map hid;      /* correlation -> filtered call (prof__cu.hidden) */
    uint32_t *cpu = NULL, *tmp = NULL;
    size_t i, ncpu = 0, nkern0 = e->nkern;
    int rc = -1;
    memset(&api, 0, sizeof api);
    memset(&hid, 0, sizeof hid);
    for (i = 0; i < e->n; i++) {
        const prof__ev *v = &e->ev[i];
        int found;
        uint32_t *slot;
        if (!v->extra || !(e->sites[v->site].flags & (PROF_SITE_CUDA_RUNTIME | PROF_SITE_CUDA_DRIVER))) continue;
        if (!(slot = prof__map_slot(&api, prof__x(e, v)->correlation, &found))) goto done;
        /* runtime records win over the driver calls they make */
        if (!found || (e->sites[v->site].flags & PROF_SITE_CUDA_RUNTIME)) *slot = (uint32_t)i;
    }
    for (i = 0; i < prof__cu.nhidden; i++) {
        int found;
        uint32_t *slot = prof__map_slot(&hid, prof__cu.hidden[i].correlation, &found);
        if (!slot) goto done;
        if (!found) *slot = (uint32_t)i;
    }
    if (prof__cu.nhidden || api.n) { /* the scopes (CUDA calls left out) by thread and start */
        prof__cu_order ord;
        cpu = (uint32_t *)PROF__MALLOC((e->n ? e->n : 1) * sizeof *cpu);
        tmp = (uint32_t *)PROF__MALLOC((e->n ? e->n : 1) * sizeof *tmp);
        if (!cpu || !tmp) goto done;
        for (i = 0; i < e->n; i++)
            if (e->ev[i].device_type == PROF_DEVICE_CPU && !(e->ev[i].flags & (PROF__F_ASYNC | PROF__F_MEMROW)) &&
                !(e->sites[e->ev[i].site].flags & (PROF_SITE_CUDA_RUNTIME | PROF_SITE_CUDA_DRIVER)))
                cpu[ncpu++] = (uint32_t)i; /* (an async range is no scope: not on the thread's stack) */
        ord.e = e;
        prof__msort_u32(cpu, tmp, ncpu, prof__cu_before, &ord);
    }
    for (i = 0; i < e->n; i++) {
        const prof__ev *v = &e->ev[i];
        const prof__extra *x;
        uint32_t a, h;
        int32_t p = -1;
        if (v->device_type == PROF_DEVICE_CPU || !v->extra || (v->flags & PROF__F_USER_ANN)) continue;
        x = prof__x(e, v);
        if (!x->correlation) continue;
        if ((a = prof__map_get(&api, x->correlation)) != UINT32_MAX)
            p = prof__cu_owner(e, cpu, ncpu, e->thr[e->ev[a].thread].tid, e->ev[a].start, e->ev[a].end);
        else if ((h = prof__map_get(&hid, x->correlation)) != UINT32_MAX)
            p = prof__cu_owner(e, cpu, ncpu, prof__cu.hidden[h].tid, prof__cu.hidden[h].start, prof__cu.hidden[h].end);
        if (p >= 0 && prof__append_kernel(e, (size_t)p, e->sites[v->site].name, x->device_index, v->end - v->start, x->correlation) != PROF_OK) goto done;
    }
    for (i = 0; i < e->nmem; i++) {
        prof__memrec *m = &e->mem[i];
        uint32_t a, h, corr;
        if (m->thread != PROF__CU_MEM_PENDING) continue; /* not from CUPTI, or joined */
        corr = m->corr;
        if ((a = prof__map_get(&api, corr)) != UINT32_MAX) m->thread = e->ev[a].thread;
        else {
            /* a filtered call's thread, or with no launching call seen, a
               lane of its own */
            int64_t t = (h = prof__map_get(&hid, corr)) != UINT32_MAX ? prof__thread_index(e, prof__cu.hidden[h].tid, NULL)
                                                                        : prof__thread_index(e, 0, "CUDA");
            if (t < 0) goto done; /* (kept pending for the retry) */
            m->thread = (uint32_t)t;
        }
    }
    rc = 0;
done:
    PROF__FREE(cpu);
    PROF__FREE(tmp);
    if (rc == 0) {
        PROF__FREE(prof__cu.hidden);
        prof__cu.hidden = NULL;
        prof__cu.nhidden = prof__cu.caphidden = 0;
    } else if (e->nkern > nkern0) {
        /* the kernels attached here go, with their time: each was appended
           at its chain's tail, after the kernels the chain had */
        for (i = 1; i < e->nex; i++) {
            prof__extra *x = &e->ex[i];
            int32_t k;
            int64_t ns = 0;
            if (x->kern_head < 0 || e->kern[x->kern_head].tail < (int32_t)nkern0) continue; /* not touched */
            if (x->kern_head >= (int32_t)nkern0) {
                x->kern_head = -1;
                x->kern_ns = 0;
                continue;
            }
            for (k = x->kern_head;; k = e->kern[k].next) {
                prof__sat_add(&ns, e->kern[k].dur);
                if (e->kern[k].next < 0 || e->kern[k].next >= (int32_t)nkern0) break; /* its last old one */
            }
            e->kern[k].next = -1;
            e->kern[x->kern_head].tail = k;
            x->kern_ns = ns;
        }
        e->nkern = nkern0;
    }
    prof__map_free(&hid);
    prof__map_free(&api);
    return rc;
}

#endif /* PROF_CUPTI */

#ifdef __cplusplus
}
#endif
#endif /* !PROF__IMPL_STOPPED */
#if defined(PROF__IMPL_CXX_PRAGMAS)
#  pragma GCC diagnostic pop
#endif
#if defined(PROF__IMPL_DEPR_PRAGMAS)
#  pragma GCC diagnostic pop
#endif
#if defined(PROF__IMPL_GCC_PRAGMAS)
#  pragma GCC diagnostic pop
#endif
#endif /* PROF_IMPLEMENTATION */

/*
   MIT License

   Copyright (c) 2026 The prof.h authors

   Permission is hereby granted, free of charge, to any person obtaining a copy
   of this software and associated documentation files (the "Software"), to deal
   in the Software without restriction, including without limitation the rights
   to use, copy, modify, merge, publish, distribute, sublicense, and/or sell
   copies of the Software, and to permit persons to whom the Software is
   furnished to do so, subject to the following conditions:

   The above copyright notice and this permission notice shall be included in all
   copies or substantial portions of the Software.

   THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR
   IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY,
   FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE
   AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER
   LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM,
   OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE
   SOFTWARE.
*/
