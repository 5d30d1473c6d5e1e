/* A host program that calls setlocale(LC_ALL, "") - as any program that
   honours its user's language does - under a locale whose decimal point
   is a comma (de_DE, fr_FR, ru_RU, pt_BR, es_ES, it_IT, nl_NL, ...):
   printf's %f and %g then write "0,25". prof.h formats some numbers with
   snprintf and takes the text as it is:
   - the JSON trace's counter values (prof__w_double, "%.17g": PROF_COUNTER
     samples, "args": {"loss": 0,25}) - the trace is no longer JSON, and
     Perfetto, chrome://tracing and json.load refuse the whole file (the
     same function writes a memcpy's bandwidth, "Memory bandwidth (GB/s)");
   - every table (prof__fmt_time, the percentages, memory, FLOPs:
     "%.3fms", "%.2f%%", "%.2f MB", "%8.3f"): "2,234ms", "100,00%",
     where PyTorch's tables (Python's format, which ignores the C
     locale) print "2.234ms" - the manual promises them byte for byte.
   (prof__put_fit already turns ',' back into '.' for the trace's dur;
   nothing else does.)
   The trace and the table must be the same bytes as under the "C"
   locale. A comma locale is looked for among the installed ones; failing
   that, one is built with localedef into a temporary LOCPATH when
   glibc's locale sources are there (a few seconds); else skipped. */
#define _GNU_SOURCE
#define PROF_IMPLEMENTATION
#include "prof.h"
#include "check.h"

#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int comma_locale(void) {
    static const char *const NAMES[] = { "de_DE.UTF-8", "de_DE.utf8", "fr_FR.UTF-8", "fr_FR.utf8", "ru_RU.UTF-8", "ru_RU.utf8",
                                         "pt_BR.UTF-8", "es_ES.UTF-8", "it_IT.UTF-8", "nl_NL.UTF-8", "de_DE", "fr_FR" };
    size_t k;
    for (k = 0; k < sizeof NAMES / sizeof NAMES[0]; k++)
        if (setlocale(LC_ALL, NAMES[k]) && strcmp(localeconv()->decimal_point, ",") == 0) return 1;
    setlocale(LC_ALL, "C");
    return 0;
}

int main(void) {
    char dir[] = "/tmp/prof_probe26C_XXXXXX", path[128], cmd[512];
    prof_config cfg;
    prof_events *ev;
    prof_event_desc d;
    prof_table_options t;
    char *trace_c, *trace_comma, *table_c, *table_comma;
    int have, built = 0;
    prof_set_log(check_log, NULL);
    if (!CHECK(mkdtemp(dir) != NULL)) return check_report();
    snprintf(path, sizeof path, "%s/trace.json", dir);

    memset(&cfg, 0, sizeof cfg);
    cfg.profile_memory = 1;
    cfg.with_flops = 1;
    CHECK_EQ_INT(prof_start(&cfg), PROF_OK);
    {
        PROF_SCOPE("step");
        PROF_COUNTER("loss", 0.25);
        PROF_COUNTER("lr", 1e-3);
        {
            PROF_SCOPE_FLOPS("matmul", 123456789);
        }
    }
    ev = prof_stop();
    if (!CHECK(ev != NULL)) return check_report();
    /* fixed times and sizes in the table: a hand-added op */
    memset(&d, 0, sizeof d);
    d.name = "fixed";
    d.thread = 77;
    d.start_ns = 1000;
    d.end_ns = 2234567;
    d.flops = 987654321;
    CHECK(prof_events_add(ev, &d) >= 0);
    CHECK_EQ_INT(prof_events_add_memory(ev, 77, 1500, 1536 * 1024 + 512, PROF_DEVICE_CPU, 0), PROF_OK);

    /* under "C" */
    setlocale(LC_ALL, "C");
    memset(&t, 0, sizeof t);
    CHECK_EQ_INT(prof_export_chrome_trace(ev, path), PROF_OK);
    trace_c = check_read_file(path);
    table_c = prof_events_table(ev, &t);
    CHECK(trace_c && prof_json_valid(trace_c));
    CHECK(table_c && strstr(table_c, "2.234ms"));

    have = comma_locale();
    if (!have && access("/usr/share/i18n/locales/de_DE", R_OK) == 0 && access("/usr/bin/localedef", X_OK) == 0) {
        snprintf(cmd, sizeof cmd, "localedef -i de_DE -f UTF-8 %s/de_DE.UTF-8 >/dev/null 2>&1", dir);
        if (system(cmd) == 0) {
            built = 1;
            setenv("LOCPATH", dir, 1);
            have = comma_locale();
        }
    }
    if (!have) {
        printf("test_probe26C_locale_comma: skipped (no locale with a decimal comma here)\n");
    } else {
        prof_result r;
        r = prof_export_chrome_trace(ev, path);
        table_comma = prof_events_table(ev, &t);
        trace_comma = check_read_file(path);
        setlocale(LC_ALL, "C");
        CHECK_EQ_INT(r, PROF_OK);
        CHECK_MSG(trace_comma && prof_json_valid(trace_comma), "under a decimal-comma locale the trace is not valid JSON: %.40s",
                  trace_comma && strstr(trace_comma, "\"loss\": ") ? strstr(trace_comma, "\"loss\": ") : "(no counter)");
        CHECK_MSG(trace_c && trace_comma && strcmp(trace_c, trace_comma) == 0, "the trace differs from the one under \"C\"");
        CHECK_MSG(table_c && table_comma && strcmp(table_c, table_comma) == 0, "the table under a decimal-comma locale differs from PyTorch's (\"C\"):\n%s\nnot\n%s",
                  table_comma ? table_comma : "(none)", table_c ? table_c : "(none)");
        prof_free_string(table_comma);
        free(trace_comma);
    }
    setlocale(LC_ALL, "C");
    if (built) {
        snprintf(cmd, sizeof cmd, "rm -rf %s/de_DE.UTF-8", dir);
        if (system(cmd) != 0) {}
    }
    unlink(path);
    rmdir(dir);
    free(trace_c);
    prof_free_string(table_c);
    prof_events_free(ev);
    prof_shutdown();
    return check_report();
}
