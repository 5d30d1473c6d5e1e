#!/bin/sh
# bench/chrome_same.sh - the JSON trace of this prof.h against another's,
# byte for byte, on varied lists (bench/chrome_same.c says which).
# Usage (from the repo root): sh bench/chrome_same.sh OLD/prof.h [BUILD]
# e.g. with the last commit's header:
#   mkdir -p /tmp/old && git archive HEAD prof.h | tar -x -C /tmp/old
#   sh bench/chrome_same.sh /tmp/old/prof.h
# The old header must share this one's event list representation (>>types).
# Both traces come from one process, so they carry the same pid.
set -eu
old=${1:?usage: sh bench/chrome_same.sh OLD/prof.h [BUILD]}
build=${2:-build}
mkdir -p "$build/chrome_same"
cc=${CC:-cc}
$cc -std=c11 -O2 -g -pthread -I. -Ibench -c bench/chrome_same.c -o "$build/chrome_same/new.o"
$cc -std=c11 -O2 -g -pthread -w -DOLD_PROF_H="\"$(cd "$(dirname "$old")" && pwd)/$(basename "$old")\"" -c bench/chrome_same_old.c -o "$build/chrome_same/old0.o"
objcopy -w --localize-symbol='prof*' "$build/chrome_same/old0.o" "$build/chrome_same/old.o"
$cc -pthread "$build/chrome_same/new.o" "$build/chrome_same/old.o" -o "$build/chrome_same/chrome_same" -ldl -lm
out="${TMPDIR:-/dev/shm}/prof_chrome_same.$$.json"
trap 'rm -f "$out" "$out".tmp*' EXIT INT TERM # a killed run leaves no trace behind
"$build/chrome_same/chrome_same" "$out"
