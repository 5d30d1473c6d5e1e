/* C++ TU, header only, calling into the C-compiled implementation (c_impl.c). */
#include "prof.h"
#include "usage.h"

int main()
{
    PROF_FUNC();
    return usage_session(0);
}
