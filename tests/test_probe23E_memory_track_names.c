/* prof_export_perfetto names a device's memory counter track
   "[memory] device <index>", without the device type: allocations on two
   device types with the same index (prof_alloc_ex(p, n, 1, 3, ...) and
   prof_alloc_ex(q, n, 2, 3, ...), which the API accepts, types 0-31)
   give two counter tracks both named "[memory] device 3", which no
   reader of the trace can tell apart (and which tests/export/
   check_perfetto.py's "one track per counter name" refuses: found by
   the s23-E API fuzzer). Each memory track's name must be distinct. The
   JSON trace keeps them apart (its [memory] instants carry Device Type
   and Device Id). */
#include "prof.h"
#include "check.h"

int main(void) {
    prof_config cfg;
    prof_events *ev;
    static char a[16], b[16];
    char *buf, *names[8];
    size_t len, i, j;
    int n = 0;
    prof_set_log(check_log, NULL);
    memset(&cfg, 0, sizeof cfg);
    cfg.profile_memory = 1;
    CHECK(prof_start(&cfg) == PROF_OK);
    {
        PROF_SCOPE("op");
        prof_alloc_ex(a, 100, (prof_device_type)1, 3, NULL);
        prof_alloc_ex(b, 200, (prof_device_type)2, 3, NULL);
    }
    ev = prof_stop();
    CHECK(ev != NULL);
    if (!ev) return check_report();
    CHECK(prof_export_perfetto(ev, "probe23E_memtracks.pftrace") == PROF_OK);
    buf = check_read_file_n("probe23E_memtracks.pftrace", &len);
    CHECK(buf != NULL);
    /* every length-delimited string that starts with "[memory]": a memory
       counter track's name (allocations inside a scope make no [memory] row) */
    for (i = 1; buf && i + 8 <= len; i++) {
        size_t sl = (unsigned char)buf[i - 1];
        if (memcmp(buf + i, "[memory]", 8) == 0 && sl >= 8 && sl < 0x80 && i + sl <= len && n < 8) {
            names[n] = (char *)calloc(1, sl + 1);
            memcpy(names[n], buf + i, sl);
            n++;
        }
    }
    CHECK_EQ_INT(n, 2); /* one track per device */
    for (i = 0; i < (size_t)n; i++)
        for (j = i + 1; j < (size_t)n; j++)
            if (!CHECK(strcmp(names[i], names[j]) != 0)) fprintf(stderr, "  two memory tracks named '%s'\n", names[i]);
    for (i = 0; i < (size_t)n; i++) free(names[i]);
    free(buf);
    remove("probe23E_memtracks.pftrace");
    prof_events_free(ev);
    return check_report();
}
