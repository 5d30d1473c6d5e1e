/* Two-TU link test, TU 2: header only (no PROF_IMPLEMENTATION). Linking
 * this with two_tu_impl.c catches symbols that are defined in the
 * declaration part of prof.h (missing static/inline) or missing from the
 * implementation part. */
#include "prof.h"
#include "usage.h"

int two_tu_impl_work(void);

int main(void)
{
    PROF_FUNC();
    return usage_session(two_tu_impl_work);
}
