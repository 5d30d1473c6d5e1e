/* probe21a-unsuffixed-float-gcc: user code with every recording macro
   (strict_user.h) and no floating constant of its own without a suffix,
   built with -Wunsuffixed-float-constants -Werror, as the Intel SGX SDK's
   SGX_COMMON_CFLAGS and other C99 projects that care which precision a
   constant has do. Only the macros can bring such a constant:
     gcc 12: strict_user.h:29: unsuffixed floating constant
       [-Wunsuffixed-float-constants] at PROF_MARK("mark"), whose expansion
       passes 0.0 to prof__instant (prof.h, the recording PROF_MARK).
   Correct: builds quietly (PROF_MARK could pass 0 or (double)0), runs. The
   implementation is built elsewhere (c_impl.c) with the matrix's flags. */
#include "prof.h"
#include "strict_user.h"

int main(void) {
    prof_config cfg;
    prof_events *ev;
    int r;
    memset(&cfg, 0, sizeof cfg);
    if (prof_start(&cfg) != PROF_OK) return 1;
    r = strict_user_work(3, 1.5f, 2.5f, (int64_t)1 << 40, (uint64_t)7, 9u);
    ev = prof_stop();
    if (!ev || r != 10) return 1;
    prof_events_free(ev);
    return 0;
}
