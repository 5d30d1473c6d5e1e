/* Two-TU link test, TU 1: the implementation plus some use of the macros. */
#define PROF_IMPLEMENTATION
#include "prof.h"
#include "usage.h"

int two_tu_impl_work(void);
int two_tu_impl_work(void)
{
    (void)usage_session; /* only main() runs a session */
    return usage_all();
}
