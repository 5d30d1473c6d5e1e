/* Many metadata keys, on a list (prof_events_add_metadata) and on a session
   (prof_add_metadata). Each key set looked for its key along a list of the
   keys before it (the session's with strcmp, under the threads' lock), so n
   keys cost n^2/2 steps: 40,000 keys took 3-11 s, 400,000 would take
   minutes. A key's entry is now found through a map, so each set costs the
   same at any count; the watchdog (check.h) fails the quadratic path.

   Checked: every key in the order first given, each once, with the value
   set last (string or JSON), in the JSON trace's top-level keys and in
   the Perfetto trace's attributes; a session's keys reach its list at
   prof_stop. */
#define _GNU_SOURCE 1
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "prof.h"
#include "check.h"

/* key i's expected line in the JSON trace: set again (JSON) for i % 3 == 0 */
static int json_line(char *out, size_t cap, long i) {
    if (i % 3 == 0) return snprintf(out, cap, "  \"k%ld\": [%ld],\n", i, i);
    return snprintf(out, cap, "  \"k%ld\": \"v%ld\",\n", i, i);
}

/* The trace's top-level key lines, k0 .. k(n-1) in order, then the end of
   the keys (displayTimeUnit): each once. */
static void check_json_keys(const char *path, long n) {
    char *text = check_read_file(path), line[96];
    const char *p;
    long i, bad = 0;
    CHECK(text != NULL);
    if (!text) return;
    p = strstr(text, "  \"k0\": ");
    CHECK(p != NULL);
    for (i = 0; p && i < n; i++) {
        int len = json_line(line, sizeof line, i);
        if (strncmp(p, line, (size_t)len) != 0) {
            if (bad++ < 3) fprintf(stderr, "key %ld: expected %.*s, found %.60s\n", i, len - 1, line, p);
            p = strstr(p, "\n");
            if (p) p++;
            continue;
        }
        p += len;
    }
    CHECK_EQ_INT(bad, 0);
    CHECK(p && strncmp(p, "  \"displayTimeUnit\"", 19) == 0);
    snprintf(line, sizeof line, "\"k%ld\"", n); /* no key past the last */
    CHECK(strstr(text, line) == NULL);
    free(text);
}

static void set_keys(long n, prof_result (*set)(const char *, const char *), prof_result (*set_json)(const char *, const char *)) {
    char k[32], v[32];
    long i, failed = 0;
    for (i = 0; i < n; i++) { /* every key, then every third again, as JSON */
        snprintf(k, sizeof k, "k%ld", i);
        snprintf(v, sizeof v, "v%ld", i);
        if (set(k, v) != PROF_OK) failed++;
    }
    for (i = 0; i < n; i += 3) {
        snprintf(k, sizeof k, "k%ld", i);
        snprintf(v, sizeof v, "[%ld]", i);
        if (set_json(k, v) != PROF_OK) failed++;
    }
    CHECK_EQ_INT(failed, 0);
}

static prof_events *g_list;
static prof_result list_set(const char *k, const char *v) { return prof_events_add_metadata(g_list, k, v); }
static prof_result list_set_json(const char *k, const char *v) { return prof_events_add_metadata_json(g_list, k, v); }

static void on_a_list(long n) {
    prof_event_desc d;
    char *pft;
    size_t len = 0;
    g_list = prof_events_create();
    memset(&d, 0, sizeof d);
    d.name = "x";
    d.thread = 1;
    d.end_ns = 5;
    CHECK(prof_events_add(g_list, &d) == 0);
    check_watchdog(20, "setting a list's metadata keys");
    set_keys(n, list_set, list_set_json);
    check_watchdog(0, NULL);
    CHECK_EQ_INT(prof_export_chrome_trace(g_list, "test_meta_keys.json"), PROF_OK);
    check_json_keys("test_meta_keys.json", n);
    /* Perfetto: each key twice (the instant's annotations, the trace's
       attributes), the value set last */
    CHECK_EQ_INT(prof_export_perfetto(g_list, "test_meta_keys.pftrace"), PROF_OK);
    pft = check_read_file_n("test_meta_keys.pftrace", &len);
    CHECK(pft != NULL);
    if (pft) {
        long i, twice = 0;
        const char *p, *end = pft + len;
        char key[40];
        for (i = n - 3; i < n; i++) { /* the last keys (k0 is a prefix of k00..) */
            int kl = snprintf(key, sizeof key, "k%ld", i), seen = 0;
            for (p = pft; (p = (const char *)memmem(p, (size_t)(end - p), key, (size_t)kl)) != NULL; p += kl)
                if (p > pft && p[-1] == (char)kl && p + kl < end) seen++;
            if (seen == 2) twice++;
        }
        CHECK_EQ_INT(twice, 3);
        free(pft);
    }
    prof_events_free(g_list);
    g_list = NULL;
    unlink("test_meta_keys.json");
    unlink("test_meta_keys.pftrace");
}

static void on_a_session(long n) {
    prof_config cfg = {0};
    prof_events *ev;
    CHECK_EQ_INT(prof_start(&cfg), PROF_OK);
    {
        PROF_SCOPE("work");
        check_watchdog(20, "setting a session's metadata keys");
        set_keys(n, prof_add_metadata, prof_add_metadata_json);
        check_watchdog(0, NULL);
    }
    check_watchdog(20, "prof_stop with many metadata keys");
    ev = prof_stop();
    check_watchdog(0, NULL);
    CHECK(ev != NULL);
    if (!ev) return;
    CHECK_EQ_INT(prof_export_chrome_trace(ev, "test_meta_keys_s.json"), PROF_OK);
    check_json_keys("test_meta_keys_s.json", n);
    prof_events_free(ev);
    unlink("test_meta_keys_s.json");
    /* the next session starts with none */
    CHECK_EQ_INT(prof_start(&cfg), PROF_OK);
    CHECK_EQ_INT(prof_add_metadata("only", "1"), PROF_OK);
    ev = prof_stop();
    CHECK(ev != NULL);
    if (ev) {
        char *text;
        CHECK_EQ_INT(prof_export_chrome_trace(ev, "test_meta_keys_s.json"), PROF_OK);
        text = check_read_file("test_meta_keys_s.json");
        CHECK(text && strstr(text, "\"only\": \"1\"") && !strstr(text, "\"k0\""));
        free(text);
        prof_events_free(ev);
        unlink("test_meta_keys_s.json");
    }
}

int main(void) {
    long n = check_scale(400000, 4);
    prof_set_log(check_log, NULL);
    on_a_list(n);
    on_a_session(n);
    prof_shutdown();
    printf("%ld keys: %ld checks failed\n", n, check_failures());
    return check_failures() ? 1 : 0;
}
