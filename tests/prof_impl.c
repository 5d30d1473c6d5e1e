/* prof_impl.c - prof.h's implementation in a translation unit of its own,
   as a project compiles it: built once per test variant (plain, ASan+UBSan,
   TSan) and linked into every tests/test_*.c that does not define
   PROF_IMPLEMENTATION itself (tests/CMakeLists.txt). A test that sets a
   config macro, hooks an allocator or reads prof.h's internals defines
   PROF_IMPLEMENTATION and compiles its own copy. */
#define PROF_IMPLEMENTATION
#include "prof.h"
