/* i386: a reserve_events past the address space (150M records, 3.4 GB)
   was capped only by half the machine's memory (11.5 GB here): prof_start
   faulted in 3.3 GB of a 4 GiB address space, the program's own 100 MB
   malloc then failed, and so did prof_stop. It is now also capped at a
   quarter of the address space (1 GiB): the program keeps room, and the
   session ends with its events. */
#define PROF_IMPLEMENTATION
#include "prof.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int g_cut;
static void on_log(prof_log_level level, prof_result code, const char *msg, void *user) {
    (void)level;
    (void)user;
    if (code == PROF_E_ARG && strstr(msg, "reserve")) g_cut = 1;
}

int main(void) {
    prof_config cfg;
    prof_events *ev;
    char *mine;
    int i;
    memset(&cfg, 0, sizeof cfg);
    cfg.reserve_events = 150000000u;
    cfg.log = on_log;
    if (sizeof(void *) != 4) { puts("skipped: not a 32-bit build"); return 77; }
    if (prof_start(&cfg) != PROF_OK) { puts("prof_start failed"); return 1; }
    if (!g_cut) { puts("the reserve was not cut"); return 1; }
    for (i = 0; i < 100000; i++) { PROF_SCOPE("work"); }
    mine = (char *)malloc(100u << 20);
    if (!mine) { puts("the program's own 100 MB malloc failed"); return 1; }
    memset(mine, 1, 100u << 20);
    ev = prof_stop();
    if (!ev || prof_events_count(ev) != 100000) { puts("prof_stop failed"); return 1; }
    prof_events_free(ev);
    free(mine);
    prof_shutdown();
    puts("ok");
    return 0;
}
