/* Consumer of an installed prof.h (tests/install/run.sh). */
#define PROF_IMPLEMENTATION
#include <prof.h>

#if !defined(PROF_VERSION_MAJOR) || !defined(PROF_VERSION_MINOR) || !defined(PROF_VERSION_PATCH)
#error "prof.h defines no PROF_VERSION_MAJOR/MINOR/PATCH"
#endif

static int work(int n)
{
    PROF_FUNC();
    int s = 0;
    for (int i = 0; i < n; i++) {
        PROF_SCOPE("iter");
        s += i;
    }
    return s;
}

int main(void)
{
    PROF_BEGIN("main");
    PROF_MARK("start");
    int s = work(10);
    PROF_END();
    return s == 45 ? 0 : 1;
}
