/* Compile matrix: single TU with the implementation (C++). */
#define PROF_IMPLEMENTATION
#include "prof.h"
#include "usage.h"

int main(void)
{
    PROF_FUNC();
    return usage_session(0);
}
