#!/bin/sh
# bench/compiled_out.sh - with -DPROF_DISABLED every recording macro must
# vanish: a loop full of them compiles to exactly the machine code of the
# same loop without them, and the object references no prof.h symbol.
# Prints `compiled_out_identical yes|no`. Run from the repository root
# (`make bench` runs it through build/bench-O2/overhead).
# Compilers: $CC (default cc), plus clang when it is installed.
set -u
CC=${CC:-cc}
dir=$(mktemp -d "${TMPDIR:-/tmp}/prof-compiled-out.XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT INT TERM

cat > "$dir/tu.c" <<'SRC'
#include "prof.h"
/* Same body twice; only the first is instrumented. */
void loop_instrumented(unsigned long n) {
    unsigned long i;
    PROF_FUNC();
    for (i = 0; i < n; i++) {
        PROF_SCOPE("scope");
        PROF_SCOPE_DYN("dynamic");
        PROF_BEGIN("range");
        PROF_MARK("mark");
        PROF_COUNTER("counter", i);
        __asm__ __volatile__("" : : "r"(i));
        PROF_END();
    }
}
void loop_plain(unsigned long n) {
    unsigned long i;
    for (i = 0; i < n; i++) {
        __asm__ __volatile__("" : : "r"(i));
    }
}
SRC

# Instructions of one function, without addresses and alignment padding.
body() {
    objdump -d --no-show-raw-insn "$1" |
        awk -v f="<$2>:" '$2 == f { on = 1; next } on && /^$/ { exit } on' |
        sed -e 's/^ *[0-9a-f]*:[[:space:]]*//' -e 's/[[:space:]]*#.*$//' -e 's/ <.*>$//' | grep -v -e '^nop' -e '^xchg *%ax,%ax$' -e '^data16' -e '^cs nop'
}

compilers=$CC
if command -v clang >/dev/null 2>&1 && [ "$CC" != clang ]; then compilers="$compilers clang"; fi
all=yes
for c in $compilers; do
    # -fno-ipa-icf: gcc would otherwise fold the two functions into one,
    # which also proves them identical but leaves nothing to compare.
    extra=""
    if $c -fno-ipa-icf -x c -c /dev/null -o "$dir/probe.o" 2>/dev/null; then extra=-fno-ipa-icf; fi
    # -ffunction-sections: each function at offset 0 of its own section, so
    # jump targets compare equal.
    if ! $c -std=c11 -O2 -ffunction-sections $extra -Wall -Wextra -Werror -DPROF_DISABLED -I. -c "$dir/tu.c" -o "$dir/tu.o"; then
        echo "# $c: compiling with -DPROF_DISABLED failed"
        all=no
        continue
    fi
    body "$dir/tu.o" loop_instrumented > "$dir/a"
    body "$dir/tu.o" loop_plain > "$dir/b"
    undef=$(nm -u "$dir/tu.o" | grep -c prof_ || true)
    if [ -s "$dir/a" ] && cmp -s "$dir/a" "$dir/b" && [ "$undef" = 0 ]; then
        echo "# $c -O2 -DPROF_DISABLED: $(wc -l < "$dir/a") instructions, identical to the uninstrumented loop; no prof.h symbols referenced"
    else
        echo "# $c -O2 -DPROF_DISABLED: machine code differs ($undef prof.h symbols referenced):"
        diff "$dir/a" "$dir/b" | sed 's/^/#   /'
        all=no
    fi
done
echo "compiled_out_identical $all"
