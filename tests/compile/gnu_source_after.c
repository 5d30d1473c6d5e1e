/* The implementation on a file's first line, then the file's own
   `#define _GNU_SOURCE`, bare as feature_test_macros(7) writes it (code
   that put it on its own first line before prof.h came). prof.h asks for
   _GNU_SOURCE when it comes first; defined as 1, the file's bare define
   was a redefinition with another body: a warning in gcc and clang by
   default, an error under -Werror. The features are glibc's GNU set
   either way (prof.h's system headers fixed them), and the macro stays
   defined, so code that tests it (strerror_r's GNU form) sees what glibc
   declared. */
#define PROF_IMPLEMENTATION
#include "prof.h"
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>

int main(void) {
    char buf[64];
    const char *msg;
    prof_events *ev;
    if (prof_start(NULL) != PROF_OK) return 1;
    {
        PROF_SCOPE("after");
#if defined(__GLIBC__)
        msg = strerror_r(2, buf, sizeof buf); /* the GNU form: returns the message */
#else
        msg = strerror_r(2, buf, sizeof buf) == 0 ? buf : "";
#endif
    }
    ev = prof_stop();
    if (!ev || prof_events_count(ev) != 1 || !*msg) return 1;
    printf("%s: %zu event\n", msg, prof_events_count(ev));
    prof_events_free(ev);
    return 0;
}
