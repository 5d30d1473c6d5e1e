/* prof_flops_conv2d at the edge the manual draws: the count is
   2 * N * H * W * C_out * (C_in/groups) * KH * KW with C_in/groups taken
   from the weight, so x's own C_in is not a factor: x's C_in = 0 still
   gives the product (7077888 for x [8, 0, 32, 32], w [16, 3, 3, 3]); it
   only has to be a size (negative: 0, test_limits). A zero C_in/groups in
   the weight gives 0. Grouped and plain convolutions against PyTorch
   1.13's with_flops counts of the same shapes (padding 1, so the output's
   H and W are the input's): depthwise x [8, 64, 32, 32] * w [64, 1, 3, 3]
   (groups 64) 9437184; x [2, 3, 8, 8] * w [16, 3, 3, 3] 110592. The
   count reaches the event, key_averages and the table's FLOPs column
   through PROF_SCOPE_FLOPS. */
#include "prof.h"
#include "check.h"

#include <stdio.h>
#include <string.h>

static void conv2d_counts(void) {
    static const int64_t x0[4] = { 8, 0, 32, 32 }, w0[4] = { 16, 3, 3, 3 }, wz[4] = { 16, 0, 3, 3 };
    static const int64_t xg[4] = { 8, 64, 32, 32 }, wg[4] = { 64, 1, 3, 3 };
    static const int64_t xp[4] = { 2, 3, 8, 8 }, wp[4] = { 16, 3, 3, 3 };
    CHECK_EQ_INT(prof_flops_conv2d(x0, w0), 7077888);
    CHECK_EQ_INT(prof_flops_conv2d(x0, wz), 0);
    CHECK_EQ_INT(prof_flops_conv2d(xg, wz), 0);
    CHECK_EQ_INT(prof_flops_conv2d(xg, wg), 9437184);
    CHECK_EQ_INT(prof_flops_conv2d(xp, wp), 110592);
}

static void conv2d_in_a_session(void) {
    static const int64_t x0[4] = { 8, 0, 32, 32 }, w0[4] = { 16, 3, 3, 3 };
    prof_config cfg;
    prof_events *e;
    prof_averages *a;
    memset(&cfg, 0, sizeof cfg);
    cfg.with_flops = 1;
    cfg.log = check_log;
    if (!CHECK_EQ_INT(prof_start(&cfg), PROF_OK)) return;
    { PROF_SCOPE_FLOPS("aten::conv2d", prof_flops_conv2d(x0, w0)); }
    { PROF_SCOPE_FLOPS("aten::conv2d", prof_flops_conv2d(x0, w0)); }
    e = prof_stop();
    if (!CHECK(e != NULL)) return;
    if (CHECK_EQ_INT(prof_events_count(e), 2)) {
        prof_event ev;
        if (CHECK_EQ_INT(prof_events_get(e, 0, &ev), PROF_OK)) CHECK_EQ_INT(ev.flops, 7077888);
    }
    a = prof_key_averages(e, NULL);
    if (CHECK(a != NULL) && CHECK_EQ_INT(prof_averages_count(a), 1)) {
        const prof_avg *r = prof_averages_get(a, 0);
        CHECK_EQ_STR(r->key, "aten::conv2d");
        CHECK_EQ_INT(r->count, 2);
        CHECK_EQ_INT(r->flops, 2 * 7077888);
    }
    {
        prof_table_options o;
        char *t;
        memset(&o, 0, sizeof o);
        t = prof_averages_table(a, &o);
        /* the smallest count, 14155776, picks MFLOPs: 14.156 */
        CHECK(t != NULL && strstr(t, "Total MFLOPs  \n") != NULL);
        CHECK(t != NULL && strstr(t, "             2        14.156  \n") != NULL);
        prof_free_string(t);
    }
    prof_averages_free(a);
    prof_events_free(e);
}

int main(void) {
    prof_set_log(check_log, NULL);
    conv2d_counts();
    conv2d_in_a_session();
    prof_shutdown();
    return check_report();
}
