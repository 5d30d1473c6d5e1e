/* PROF_SCOPE_ARGS with values outside what prof_args allows loses or
   changes them without a word:
   - shapes_len 65 (the manual: at most 64) with a well-formed list: Input
     Shapes [] and malformed_shapes 0, no warning: the shapes are gone;
   - shapes NULL with shapes_len 3: [] and not counted either;
   - scope 256: recorded as 0 (forward), scope -1 as 255: the recorder keeps
     8 bits and the value wraps into another, valid-looking one.
   prof_events_add refuses the same scope values (PROF_E_ARG), and
   prof_stop counts and reports malformed shape lists (malformed_shapes and
   a warning). Wanted for each case: the value kept as given, or the loss
   reported (a warning from prof_stop, and for shapes malformed_shapes). */
#include "prof.h"
#include "check.h"

/* One scope with these args in a session of its own: its event, whether
   prof_stop logged anything, and the malformed count. */
static int one(const prof_args *a, char *shapes, size_t cap, int *scope, uint64_t *malformed) {
    prof_config cfg;
    prof_events *ev;
    prof_event e;
    int logged;
    memset(&cfg, 0, sizeof cfg);
    cfg.record_shapes = 1;
    if (prof_start(&cfg) != PROF_OK) return -1;
    check_log_reset();
    {
        PROF_SCOPE_ARGS("op", a);
    }
    ev = prof_stop();
    logged = check_log_total() > 0;
    if (!ev || prof_events_count(ev) != 1 || prof_events_get(ev, 0, &e) != PROF_OK) {
        prof_events_free(ev);
        return -1;
    }
    snprintf(shapes, cap, "%s", e.input_shapes ? e.input_shapes : "None");
    *scope = e.scope;
    *malformed = prof_events_stats(ev).malformed_shapes;
    prof_events_free(ev);
    return logged;
}

int main(void) {
    prof_args a;
    int64_t s[65];
    char shapes[1024], want[1024];
    int i, scope, logged;
    uint64_t malformed;
    size_t k;
    prof_set_log(check_log, NULL);

    /* 65 values: one input of 64 dims */
    s[0] = 64;
    for (i = 1; i < 65; i++) s[i] = 2;
    memset(&a, 0, sizeof a);
    a.shapes = s;
    a.shapes_len = 65;
    logged = one(&a, shapes, sizeof shapes, &scope, &malformed);
    k = (size_t)snprintf(want, sizeof want, "[[");
    for (i = 1; i < 65; i++) k += (size_t)snprintf(want + k, sizeof want - k, i > 1 ? ", 2" : "2");
    snprintf(want + k, sizeof want - k, "]]");
    printf("shapes_len 65: Input Shapes %.20s..., malformed %llu, %s\n", shapes, (unsigned long long)malformed, logged ? "reported" : "nothing reported");
    CHECK(logged >= 0);
    CHECK(strcmp(shapes, want) == 0 || (malformed == 1 && logged == 1));

    /* NULL shapes with a length */
    memset(&a, 0, sizeof a);
    a.shapes = NULL;
    a.shapes_len = 3;
    logged = one(&a, shapes, sizeof shapes, &scope, &malformed);
    printf("shapes NULL, shapes_len 3: Input Shapes %s, malformed %llu, %s\n", shapes, (unsigned long long)malformed, logged ? "reported" : "nothing reported");
    CHECK(malformed == 1 && logged == 1);

    /* scope outside 0-255 */
    memset(&a, 0, sizeof a);
    a.scope = 256;
    logged = one(&a, shapes, sizeof shapes, &scope, &malformed);
    printf("scope 256: recorded as %d, %s\n", scope, logged ? "reported" : "nothing reported");
    CHECK(scope == 256 || logged == 1);
    a.scope = -1;
    logged = one(&a, shapes, sizeof shapes, &scope, &malformed);
    printf("scope -1: recorded as %d, %s\n", scope, logged ? "reported" : "nothing reported");
    CHECK(scope == -1 || logged == 1);
    return check_report();
}
