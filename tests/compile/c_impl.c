/* C-compiled implementation, linked into a C++ program (cxx_main.cpp):
 * checks the extern "C" linkage of the public API. */
#define PROF_IMPLEMENTATION
#include "prof.h"
