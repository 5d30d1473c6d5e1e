/* The summary table's row options at their edges, as PyTorch's
   _build_table (reference 001) applies them:
   - row_limit 0 in prof_table_options means PyTorch's default, 100: a
     list of 101 operators shows 100 rows (the 101st is cut);
   - sort_by sorts a table of only two rows too (sorted(..., key=...,
     reverse=True)): the second row of the list, the larger by the key,
     comes first.
   Found by mutation testing: a default of 101, and skipping the sort
   under 3 rows, left every other test passing.
   - an empty list's table is "" (PyTorch's _build_table returns "" at
     once), but a sort key or time unit that is none is still refused
     (it gave PROF_OK and "" until a list had rows: a caller's typo
     surfaced only once there was data). */
#include "prof.h"
#include "check.h"

#include <stdio.h>
#include <string.h>


static void default_row_limit(void) {
    prof_events *e = prof_events_create();
    prof_table_options o;
    char name[32], *t;
    int i;
    memset(&o, 0, sizeof o);
    for (i = 0; i < 101; i++) {
        snprintf(name, sizeof name, "op_%03d", i);
        check_add_event(e, name, 1, (int64_t)i * 10000, (int64_t)i * 10000 + 1000);
    }
    t = prof_events_table(e, &o);
    if (CHECK(t != NULL)) {
        CHECK_EQ_INT(check_count_str(t, "op_"), 100);
        CHECK(strstr(t, "op_099") != NULL);
        CHECK(strstr(t, "op_100") == NULL);
        prof_free_string(t);
    }
    o.row_limit = -1; /* no limit */
    t = prof_events_table(e, &o);
    if (CHECK(t != NULL)) {
        CHECK_EQ_INT(check_count_str(t, "op_"), 101);
        prof_free_string(t);
    }
    prof_events_free(e);
}

static void sort_two_rows(void) {
    prof_events *e = prof_events_create();
    prof_table_options o;
    char *t;
    memset(&o, 0, sizeof o);
    check_add_event(e, "short_op", 1, 0, 1000);
    check_add_event(e, "long_op", 1, 2000, 7000);
    o.sort_by = "cpu_time_total";
    t = prof_events_table(e, &o);
    if (CHECK(t != NULL)) {
        const char *l = strstr(t, "long_op"), *s = strstr(t, "short_op");
        CHECK(l != NULL && s != NULL && l < s);
        prof_free_string(t);
    }
    o.sort_by = NULL; /* list order */
    t = prof_events_table(e, &o);
    if (CHECK(t != NULL)) {
        const char *l = strstr(t, "long_op"), *s = strstr(t, "short_op");
        CHECK(l != NULL && s != NULL && s < l);
        prof_free_string(t);
    }
    prof_events_free(e);
}

static void empty_list_options(void) {
    prof_events *e = prof_events_create();
    prof_averages *a;
    prof_table_options o;
    FILE *devnull = fopen("/dev/null", "w");
    char *t;
    if (!CHECK(e != NULL && devnull != NULL)) { prof_events_free(e); if (devnull) fclose(devnull); return; }
    a = prof_key_averages(e, NULL);
    if (!CHECK(a != NULL)) { prof_events_free(e); fclose(devnull); return; }
    memset(&o, 0, sizeof o);
    o.sort_by = "self_cpu_time_total";
    o.time_unit = "ms";
    t = prof_events_table(e, &o); /* valid options: the empty table */
    if (CHECK(t != NULL)) { CHECK_EQ_STR(t, ""); prof_free_string(t); }
    CHECK_EQ_INT(prof_events_print_table(devnull, e, &o), PROF_OK);
    CHECK_EQ_INT(prof_averages_print_table(devnull, a, &o), PROF_OK);
    CHECK_EQ_INT(prof_events_print_table(devnull, e, NULL), PROF_OK);
    o.sort_by = "self_cpu_time"; /* not a key (self_cpu_time_total is) */
    CHECK(prof_events_table(e, &o) == NULL);
    CHECK(check_log_has(PROF_E_UNKNOWN_KEY, "self_cpu_time"));
    CHECK_EQ_INT(prof_events_print_table(devnull, e, &o), PROF_E_UNKNOWN_KEY);
    CHECK_EQ_INT(prof_averages_print_table(devnull, a, &o), PROF_E_UNKNOWN_KEY);
    CHECK(prof_averages_table(a, &o) == NULL);
    o.sort_by = NULL;
    o.time_unit = "ns";
    CHECK_EQ_INT(prof_events_print_table(devnull, e, &o), PROF_E_ARG);
    CHECK(check_log_has(PROF_E_ARG, "time_unit 'ns'"));
    CHECK(prof_averages_table(a, &o) == NULL);
    prof_averages_free(a);
    prof_events_free(e);
    fclose(devnull);
}

int main(void) {
    prof_set_log(check_log, NULL);
    default_row_limit();
    sort_two_rows();
    empty_list_options();
    return check_report();
}
