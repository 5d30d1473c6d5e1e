/* prof_stop's op fast path (prof__c_op_one) takes an op's shape values
   from the DATA records after its SHAPES header, and tests that they are
   DATA records as it hashes them: a header that announces more values
   than DATA records follow it (records the macros never write) must give
   what the general way reads, not values taken from the records after.
   Here a header announces 4 values, one DATA record (1, 5) follows, then a
   FLOPS record (0, 0): the general way reads [[5]] and FLOPs 0. The list
   [1, 5, 0, 0] ("[[5], [], []]") is in the shape caches from an honest op
   before it, so reading the FLOPS record as the values would hit them. */
#define PROF_IMPLEMENTATION
#include "prof.h"
#include "check.h"

#include <stdio.h>
#include <string.h>

static const prof_site forged_site = { "op_forged", __FILE__, "forge", 1, PROF_SITE_CPU_OP };
/* an op of n announced values, its DATA records holding nd of them,
   then one extension record (kind, t0; none for kind 0) */
static void forge(const int64_t *sh, int n, int nd, unsigned kind, uint64_t t0, uint64_t seq) {
    prof__scope s = prof__scope_enter(&forged_site, NULL);
    size_t k = 1 + 1 + ((size_t)nd + 1) / 2 + (kind ? 1 : 0) + (seq ? 1 : 0);
    prof__rec *r, *start;
    CHECK(s.t != NULL);
    if (!s.t || !(r = start = prof__slots(s.t, k))) return;
    r->site = PROF__EXT(PROF__EXT_SHAPES, n);
    r->t0 = r->t1 = 0;
    r++;
    prof__put_data(&r, (const uint64_t *)(const void *)sh, (size_t)nd);
    if (kind) {
        r->site = PROF__EXT(kind, 0);
        r->t0 = t0;
        r->t1 = 0;
        r++;
    }
    if (seq) { /* a sequence number: the extra is the op's own (args mode's way) */
        r->site = PROF__EXT(PROF__EXT_AUTOGRAD, 0x100u);
        r->t0 = seq;
        r->t1 = 0;
        r++;
    }
    r->site = s.site;
    r->t0 = s.t0;
    r->t1 = prof__now();
    PROF__STORE(&s.t->pos, start + k);
}

static void run(int own) {
    static const int64_t sh4[4] = { 1, 5, 0, 0 };
    prof_config cfg;
    prof_events *ev;
    size_t k, n;
    int i;
    memset(&cfg, 0, sizeof cfg);
    cfg.log = check_log;
    cfg.record_shapes = 1;
    cfg.with_flops = 1;
    CHECK_EQ_INT(prof_start(&cfg), PROF_OK);
    for (i = 0; i < 8; i++) {
        PROF_SCOPE("it");
        /* honest: [1, 5, 0, 0]; shared: no FLOPs (the forged op, read
           wrongly, has none: the FLOPS record taken as values); own:
           FLOPs 0 and a sequence number */
        forge(sh4, 4, 4, own ? PROF__EXT_FLOPS : 0, 0, own ? (uint64_t)i + 1 : 0);
        /* forged: 4 announced, 2 in DATA, then FLOPS (0, 0) */
        forge(sh4, 4, 2, PROF__EXT_FLOPS, 0, own ? (uint64_t)i + 1 : 0);
    }
    ev = prof_stop();
    CHECK(ev != NULL);
    if (!ev) return;
    n = prof_events_count(ev);
    CHECK_EQ_INT(n, 8 * 3);
    for (k = 0; k < n; k++) {
        prof_event e;
        memset(&e, 0, sizeof e);
        CHECK_EQ_INT(prof_events_get(ev, k, &e), PROF_OK);
        if (!strcmp(e.name, "it")) continue;
        CHECK(e.input_shapes != NULL);
        if (!e.input_shapes) continue;
        if (k % 3 == 1) { /* the honest op */
            CHECK_EQ_STR(e.input_shapes, "[[5], [], []]");
            CHECK_EQ_INT(e.flops, 0);
        } else { /* the forged one: what the general way reads */
            CHECK_EQ_STR(e.input_shapes, "[[5]]");
            CHECK_EQ_INT(e.flops, 0);
        }
    }
    prof_events_free(ev);
}

int main(void) {
    run(0); /* shapes and FLOPs: the shared extras' cache */
    run(1); /* a sequence number: the shapes' cache */
    return check_report();
}
