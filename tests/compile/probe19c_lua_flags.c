/* probe19c-lua-flags-{gcc,clang}: prof.h in a file built with Lua's own
   developer flags (its makefile's CWARNSCPP, CWARNSC and, for gcc,
   CWARNGCC: -Wlogical-op among them), -std=c99 -O2, plus -Werror. The
   implementation is here too, as Lua's lua.c would hold it (Lua's
   lprefix.h sets _XOPEN_SOURCE 600 and _FILE_OFFSET_BITS 64 before its
   first system header). The scopes are in Lua's style: C90 declarations
   at the top of blocks, a switch over states, early returns, a goto back
   to a label. */
#define _XOPEN_SOURCE 600
#define _FILE_OFFSET_BITS 64
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PROF_IMPLEMENTATION
#include "prof.h"

typedef ptrdiff_t l_mem;
typedef struct gstate { int state; l_mem debt; unsigned asize; } gstate;

static l_mem singlestep(gstate *g);
static int lua_like(gstate *g, int n);

static l_mem singlestep(gstate *g) {
  l_mem work;
  PROF_SCOPE("singlestep");
  PROF_COUNTER("GCdebt", g->debt);
  switch (g->state) {
    case 0: {
      PROF_SCOPE_SHAPES("resize", 1, g->asize);
      g->state = 1;
      work = 1;
      break;
    }
    case 1:
      PROF_MARK("atomic");
      g->state = 2;
      work = 2;
      break;
    default:
      g->state = 0;
      return 0;
  }
  return work;
}

static int lua_like(gstate *g, int n) {
  int calls = 0;
  PROF_FUNC();
 startfunc:
  calls++;
  {
    l_mem w;
    PROF_SCOPE_DYN(n % 2 ? "odd" : "even");
    w = singlestep(g);
    g->debt -= w;
  }
  if (--n > 0) goto startfunc;
  return calls;
}

int main(void) {
  gstate g;
  prof_config cfg;
  prof_events *ev;
  prof_stats st;
  int calls;
  memset(&g, 0, sizeof g);
  g.asize = 8u;
  memset(&cfg, 0, sizeof cfg);
  if (prof_start(&cfg) != PROF_OK) return 1;
  calls = lua_like(&g, 6);
  ev = prof_stop();
  if (ev == NULL) return 1;
  st = prof_events_stats(ev);
  prof_events_free(ev);
  /* lua_like + 6 dynamic + 6 singlestep + 2 resize */
  if (calls != 6 || st.scopes_recorded != 15 || st.marks != 2 || st.counters != 6) {
    fprintf(stderr, "calls %d scopes %llu marks %llu counters %llu\n", calls,
            (unsigned long long)st.scopes_recorded, (unsigned long long)st.marks,
            (unsigned long long)st.counters);
    return 1;
  }
  return 0;
}
