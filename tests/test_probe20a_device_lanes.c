/* Device lanes in the JSON trace, for indices and streams that
   prof_events_add accepts (it refuses a device type outside 0-31, not an
   index or a resource id):

   1. A device_index near INT32_MAX: prof_export_chrome_trace (>>x_chrome,
      the device processes' metadata) writes process_sort_index as
      `0x1000000 + x->device_index` in int, a signed overflow (UBSan:
      "signed integer overflow: 2147483647 + 16777216 cannot be represented
      in type 'int'"); in practice it wraps to -2130706433, which sorts that
      GPU before every process. Correct: the sum in int64, 2164260863.
   2. Each device stream (device, resource id) gets one thread_name /
      thread_sort_index pair. The lanes already named are kept in a map
      keyed by ((uint64_t)device_index << 40) ^ stream, so (device 0,
      stream 2^40) and (device 1, stream 0) are one key, as are (2, 7) and
      (3, 7 ^ 2^40): the second of each pair gets no thread_name, and
      viewers show it unnamed. prof_export_perfetto keys its lanes the
      same way (((uint64_t)(uint32_t)device_index << 40) ^ stream), so
      there GPU 1's stream 0 becomes a lane "stream 0 (2)" under GPU 0's
      stream 2^40 (its parent_uuid), i.e. GPU 1's kernels are drawn under
      GPU 0, and GPU 3's stream under GPU 2 ("stream 1099511627783 (2)").
      The JSON trim of touching events (prof__touch, the same key) also
      treats such two lanes as one. Correct: every lane named ("stream 0"
      on pid 1, "stream 1099511627783" on pid 3) and on its own GPU's
      track, e.g. by keying the maps on both values (or comparing them on
      a hit). */
#define PROF_IMPLEMENTATION
#include "prof.h"
#include "check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define OUT "build/probe20a_device_lanes"

static void add(prof_events *ev, const char *name, int device, int64_t stream) {
    prof_event_desc d;
    memset(&d, 0, sizeof d);
    d.name = name;
    d.thread = 1;
    d.start_ns = 0;
    d.end_ns = 100;
    d.device_type = PROF_DEVICE_CUDA;
    d.device_index = device;
    d.set = PROF_EVENT_RESOURCE_ID;
    d.device_resource_id = stream;
    CHECK(prof_events_add(ev, &d) >= 0);
}

int main(void) {
    prof_events *ev;
    char *p;
    prof_set_log(check_log, NULL);
    mkdir("build", 0777);
    mkdir(OUT, 0777);

    ev = prof_events_create();
    add(ev, "k_big", 2147483647, 3);
    CHECK_EQ_INT(prof_export_chrome_trace(ev, OUT "/big.json"), PROF_OK);
    p = check_read_file(OUT "/big.json");
    if (CHECK(p != NULL)) {
        CHECK_MSG(strstr(p, "\"pid\": 2147483647, \"tid\": 0, \"args\": {\"sort_index\": 2164260863}") != NULL,
                  "GPU 2147483647's process_sort_index must be 0x1000000 + 2147483647 = 2164260863");
        CHECK(strstr(p, "\"sort_index\": -") == NULL);
        free(p);
    }
    prof_events_free(ev);

    ev = prof_events_create();
    add(ev, "k0", 0, (int64_t)1 << 40);
    add(ev, "k1", 1, 0);
    add(ev, "k2", 2, 7);
    add(ev, "k3", 3, 7 ^ ((int64_t)1 << 40));
    CHECK_EQ_INT(prof_export_chrome_trace(ev, OUT "/lanes.json"), PROF_OK);
    p = check_read_file(OUT "/lanes.json");
    if (CHECK(p != NULL)) {
        /* (streams past INT32_MAX take tids of their own, counted down from
           it: test_probe24A_resource_tid; their names keep the real id) */
        CHECK(strstr(p, "\"pid\": 0, \"tid\": 2147483647, \"args\": {\"name\": \"stream 1099511627776\"}") != NULL);
        CHECK_MSG(strstr(p, "\"pid\": 1, \"tid\": 0, \"args\": {\"name\": \"stream 0\"}") != NULL,
                  "GPU 1's stream 0 has no thread_name (its lane key equals GPU 0's stream 2^40)");
        CHECK(strstr(p, "\"pid\": 2, \"tid\": 7, \"args\": {\"name\": \"stream 7\"}") != NULL);
        CHECK_MSG(strstr(p, "\"pid\": 3, \"tid\": 2147483646, \"args\": {\"name\": \"stream 1099511627783\"}") != NULL,
                  "GPU 3's stream 7 ^ 2^40 has no thread_name (its lane key equals GPU 2's stream 7)");
        free(p);
    }
    CHECK_EQ_INT(prof_export_perfetto(ev, OUT "/lanes.pftrace"), PROF_OK);
    {
        size_t n = 0, i;
        int dup = 0, named = 0;
        p = check_read_file_n(OUT "/lanes.pftrace", &n);
        if (CHECK(p != NULL)) {
            /* TrackDescriptor.name (field 2): 0x12, length, bytes */
            for (i = 0; i + 10 <= n; i++) {
                if (memcmp(p + i, "\x12\x08stream 0", 10) == 0) named++;
                if (i + 12 <= n && memcmp(p + i, "stream 0 (2)", 12) == 0) dup++;
                if (i + 24 <= n && memcmp(p + i, "stream 1099511627783 (2)", 24) == 0) dup++;
            }
            CHECK_MSG(named == 1, "Perfetto: %d tracks named \"stream 0\" (GPU 1's)", named);
            CHECK_MSG(dup == 0, "Perfetto: %d lanes of one GPU put under another GPU's stream as \"(2)\"", dup);
            free(p);
        }
    }
    prof_events_free(ev);
    return check_report();
}
