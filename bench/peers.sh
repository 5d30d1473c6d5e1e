#!/bin/sh
# bench/peers.sh - builds and runs bench/peers.cpp: prof.h and Tracy's
# client side by side against the same floor (see the comment at the top
# of bench/peers.cpp). Needs a checkout of Tracy (github.com/wolfpld/tracy;
# measured with commit aa53e37, protocol 82), given as TRACY_DIR or the
# first argument. Run from the repository root; x86-64 only (rdtsc floor).
# Tracy's client is built with its sampling, system tracing, broadcast and
# code transfer off, so that only the zones are measured.
set -eu
TRACY_DIR=${1:-${TRACY_DIR:-}}
if [ -z "$TRACY_DIR" ] || [ ! -f "$TRACY_DIR/public/TracyClient.cpp" ]; then
    echo "bench/peers.sh: set TRACY_DIR to a Tracy checkout (with public/TracyClient.cpp)" >&2
    exit 2
fi
CXX=${CXX:-c++}
out=${BUILD:-build}/bench-peers
mkdir -p "$out"
defs="-DTRACY_ENABLE -DTRACY_NO_SAMPLING -DTRACY_NO_SYSTEM_TRACING -DTRACY_NO_CONTEXT_SWITCH -DTRACY_NO_BROADCAST -DTRACY_NO_CODE_TRANSFER"
if [ ! -f "$out/TracyClient.o" ] || [ "$TRACY_DIR/public/TracyClient.cpp" -nt "$out/TracyClient.o" ]; then
    $CXX -O2 -std=c++17 $defs -c "$TRACY_DIR/public/TracyClient.cpp" -o "$out/TracyClient.o"
fi
$CXX -O2 -std=c++17 $defs -I. -I"$TRACY_DIR/public" bench/peers.cpp "$out/TracyClient.o" -o "$out/peers" -pthread -ldl -lm
exec "$out/peers"
