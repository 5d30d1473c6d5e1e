/* PROF_CUPTI build: compiled (and, from CMake, linked against libcupti). */
#define PROF_IMPLEMENTATION
#include "prof.h"
#include "usage.h"

int main(void)
{
    PROF_FUNC();
    return usage_session(NULL);
}
