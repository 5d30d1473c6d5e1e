/* prof_alloc_ex takes any device type and index without a word, and
   records them cut to the bits its record has: device type 40 becomes
   type 8 (40 & 31, "Device Type": 8 in the trace), and the running totals
   (the trace's "Total Allocated"/"Total Reserved") are kept per
   (CPU or not, index & 63): an allocation on cuda:64 or cuda:16777216 is
   added to cuda:0's total, one of type 40 too. prof_events_add_memory
   refuses the same values with PROF_E_ARG ("device 1:64 is not a device
   type 0-31 and index 0-63"). prof_alloc_ex should refuse them as well
   (an error, nothing recorded), so cuda:0's total stays its own. */
#include "prof.h"
#include "check.h"

#define TR "build/test_probe23C_alloc_ex_device.json"

int main(void) {
    prof_config cfg;
    prof_events *ev;
    char *text;
    mkdir("build", 0777); /* (the files go to build/, as the suite's, cwd = repo root) */
    prof_set_log(check_log, NULL);
    memset(&cfg, 0, sizeof cfg);
    cfg.profile_memory = 1;
    cfg.log = check_log;
    if (!CHECK_EQ_INT(prof_start(&cfg), PROF_OK)) return check_report();
    {
        PROF_SCOPE("op");
        prof_alloc_ex((const void *)0x1000, 10, PROF_DEVICE_CUDA, 0, NULL);
        prof_alloc_ex((const void *)0x2000, 20, PROF_DEVICE_CUDA, 64, NULL);
        prof_alloc_ex((const void *)0x3000, 40, PROF_DEVICE_CUDA, -1, NULL);
        prof_alloc_ex((const void *)0x4000, 80, (prof_device_type)40, 0, NULL);
        prof_alloc_ex((const void *)0x5000, 160, PROF_DEVICE_CUDA, 1 << 24, NULL);
        prof_alloc_ex((const void *)0x6000, 320, PROF_DEVICE_CUDA, 0, NULL);
    }
    ev = prof_stop();
    if (!CHECK(ev != NULL)) return check_report();
    CHECK(check_log_count(PROF_E_ARG) >= 1); /* an error for the refused calls (one each, or once) */
    CHECK_EQ_INT(prof_events_stats(ev).allocs, 2);
    if (CHECK_EQ_INT(prof_events_count(ev), 1)) {
        prof_event e;
        if (CHECK_EQ_INT(prof_events_get(ev, 0, &e), PROF_OK)) CHECK_EQ_INT(e.device_memory_usage, 330);
    }
    if (CHECK_EQ_INT(prof_export_chrome_trace(ev, TR), PROF_OK) && CHECK((text = check_read_file(TR)) != NULL)) {
        const char *s = text, *at = NULL;
        while ((s = strstr(s, "\"Total Allocated\": ")) != NULL) at = s = s + strlen("\"Total Allocated\": ");
        if (CHECK(at != NULL)) CHECK_EQ_INT(strtoll(at, NULL, 10), 330); /* cuda:0 after its 10 and 320 */
        CHECK(strstr(text, "\"Device Type\": 8") == NULL);
        free(text);
        remove(TR);
    }
    prof_events_free(ev);
    return check_report();
}
