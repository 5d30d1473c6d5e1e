/* The memory a table of a list's events holds while it is made, counted
   through PROF_MALLOC/PROF_REALLOC/PROF_FREE: a table of 10 rows of 60,000
   events held a row (a prof_avg, 168 bytes) for every event, sorted, and
   then dropped all but 10 (3.4 GB for 20M events). Each row is now made
   when read; what stays is per event its sort key, its place and its two
   self times (32 bytes with a sort). Checked: the peak during
   prof_events_table, with and without sort_by, stays under 48 bytes an
   event above what was held before it, nothing stays held after it, and
   the table has its 10 rows, the one with the most self CPU first. */
#define _DEFAULT_SOURCE 1
#include <stdlib.h>
#include <string.h>

static size_t live, peak;
/* each block carries its size in front (16 bytes keep the alignment) */
static void *test_malloc(size_t n) {
    size_t *p = (size_t *)malloc(n + 16);
    if (!p) return NULL;
    *p = n;
    live += n;
    if (live > peak) peak = live;
    return (char *)p + 16;
}
static void test_free(void *q) {
    if (!q) return;
    live -= *(size_t *)((char *)q - 16);
    free((char *)q - 16);
}
static void *test_realloc(void *q, size_t n) {
    void *r;
    size_t old;
    if (!q) return test_malloc(n);
    old = *(size_t *)((char *)q - 16);
    if (!(r = test_malloc(n))) return NULL;
    memcpy(r, q, old < n ? old : n);
    test_free(q);
    return r;
}
#define PROF_MALLOC(n) test_malloc(n)
#define PROF_REALLOC(p, n) test_realloc((p), (n))
#define PROF_FREE(p) test_free(p)
#define PROF_IMPLEMENTATION
#include "prof.h"
#include "check.h"

#define N 60000

int main(void) {
    prof_events *ev;
    prof_table_options to;
    char *t;
    static char names[64][8];
    int i, k;
    prof_set_log(check_log, NULL);
    ev = prof_events_create();
    for (i = 0; i < 64; i++) snprintf(names[i], sizeof names[i], "op%d", i);
    /* roots of two children each, distinct self times: the top 10 by self CPU are known */
    for (i = 0; i < N / 3; i++) {
        const int64_t s = (int64_t)i * 100000;
        check_add_event(ev, names[i % 64], 1, s, s + 50000 + i);
        check_add_event(ev, names[(i + 1) % 64], 1, s + 10, s + 20);
        check_add_event(ev, names[(i + 2) % 64], 1, s + 30, s + 40);
    }
    CHECK_EQ_INT(prof_events_count(ev), N);
    t = prof_events_table(ev, NULL); /* the tree and its arrays made first */
    CHECK(t != NULL);
    prof_free_string(t);
    for (k = 0; k < 2; k++) {
        size_t before = live;
        memset(&to, 0, sizeof to);
        to.row_limit = 10;
        if (k) to.sort_by = "self_cpu_time_total";
        peak = live;
        t = prof_events_table(ev, &to);
        if (!CHECK(t != NULL)) continue;
        CHECK_MSG((double)(peak - before) / N < 48.0, "%s: the table held %.1f bytes an event at its peak", k ? "sorted" : "unsorted", (double)(peak - before) / N);
        CHECK_EQ_INT(check_count_str(t, "\n"), 10 + 5); /* 10 rows, 3 rules, the head, the total */
        if (k) { /* the last root (self 50000 + i - 20 ns, the most) in the first row, after a rule, the head and a rule */
            const char *row = t;
            char want[64];
            int l;
            for (l = 0; l < 3 && row; l++) row = strchr(row, '\n') ? strchr(row, '\n') + 1 : NULL;
            snprintf(want, sizeof want, " %s  ", names[(N / 3 - 1) % 64]);
            CHECK_MSG(row && strncmp(row + strspn(row, " ") - 1, want, strlen(want)) == 0, "the first row is not%s:\n%s", want, t);
        }
        prof_free_string(t);
        CHECK_EQ_INT(live, before);
    }
    prof_events_free(ev);
    return check_report();
}
