/* Names chosen to share one hash. A program's names may come from its
   input (a server's PROF_SCOPE_DYN of a request path), and the string hash
   was fixed and weak: a multiply carries bits only upwards, so two names
   whose first word differs in its top bit (bit 63) hashed to states that
   differ in bits 63 and 34 only, which the next word cancelled. With 16
   such pairs of words, 65,536 names of 256 bytes had one hash, whatever
   the seed, and interning them at prof_stop compared each with all before
   it: 16,384 took 1.9 s, 65,536 about half a minute. The hash is now keyed
   per process and folds a full product each word; the watchdog (check.h)
   fails the quadratic path.

   Checked: every name is its own event and its own row, whole. */
#include "prof.h"
#include "check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PAIRS 16
#define LEN (PAIRS * 16)
#define NAMES (1u << PAIRS)

/* Name i: pair p's two words changed (bit 63 of the first; bits 63 and
   34 of the second) where bit p of i is set. */
static void name_of(char *s, unsigned i) {
    unsigned p;
    for (p = 0; p < LEN; p++) s[p] = (char)('a' + p % 26);
    s[LEN] = 0;
    for (p = 0; p < PAIRS; p++)
        if (i >> p & 1) {
            s[p * 16 + 7] = (char)(s[p * 16 + 7] ^ 0x80);
            s[p * 16 + 15] = (char)(s[p * 16 + 15] ^ 0x80);
            s[p * 16 + 12] = (char)(s[p * 16 + 12] ^ 0x04);
        }
}
static void dyn(const char *name) { PROF_SCOPE_DYN(name); }

int main(void) {
    prof_config cfg;
    prof_events *ev;
    prof_averages *av = NULL;
    char s[LEN + 1];
    unsigned i;
    size_t k, bad = 0;
    unsigned char *seen = (unsigned char *)calloc(NAMES, 1);
    CHECK(seen != NULL);
    memset(&cfg, 0, sizeof cfg);
    cfg.log = check_log;
    CHECK_EQ_INT(prof_start(&cfg), PROF_OK);
    for (i = 0; i < NAMES; i++) {
        name_of(s, i);
        dyn(s);
    }
    check_watchdog(20, "prof_stop and key_averages of names that share a hash");
    ev = prof_stop();
    CHECK(ev != NULL);
    if (ev) av = prof_key_averages(ev, NULL);
    check_watchdog(0, NULL);
    CHECK(av != NULL);
    if (!ev || !av || !seen) return check_report();
    CHECK_EQ_INT(prof_events_count(ev), NAMES);
    CHECK_EQ_INT(prof_averages_count(av), NAMES);
    for (k = 0; k < prof_averages_count(av); k++) { /* each name once, whole */
        const prof_avg *a = prof_averages_get(av, k);
        unsigned j = 0, p;
        if (!a->key || strlen(a->key) != LEN || a->count != 1) { bad++; continue; }
        for (p = 0; p < PAIRS; p++)
            if ((unsigned char)a->key[p * 16 + 7] >= 0x80) j |= 1u << p;
        name_of(s, j);
        if (strcmp(s, a->key) != 0 || seen[j]++) bad++;
    }
    CHECK_EQ_INT(bad, 0);
    prof_averages_free(av);
    prof_events_free(ev);
    free(seen);
    return check_report();
}
