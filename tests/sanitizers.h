/* Which sanitizer a test is built with, for the tests that must step
   aside under one: TSan interposes the libc functions some tests replace
   (mmap, posix_memalign), refuses new threads in the child of a
   multi-threaded fork, and tears a thread's allocator down before the
   last pass of its key destructors. gcc says so with __SANITIZE_*__,
   clang with __has_feature. Only the preprocessor, so a test may include
   it first of all: before its own libc overrides and before prof.h. */
#ifndef PROF_TEST_SANITIZERS_H
#define PROF_TEST_SANITIZERS_H

#if defined(__SANITIZE_THREAD__)
#  define TEST_TSAN 1
#elif defined(__has_feature)
#  if __has_feature(thread_sanitizer)
#    define TEST_TSAN 1
#  endif
#endif

#if defined(__SANITIZE_ADDRESS__)
#  define TEST_ASAN 1
#elif defined(__has_feature)
#  if __has_feature(address_sanitizer)
#    define TEST_ASAN 1
#  endif
#endif

#if defined(__has_feature)
#  if __has_feature(memory_sanitizer)
#    define TEST_MSAN 1
#  endif
#endif

#endif
