# prof.h developer targets.
#
#   make demo    build examples/demo.c and run it (cwd = repo root)
#   make mlp     build examples/mlp.c (shapes, FLOPs, memory, schedule) and run it
#   make cuda-demo  build examples/cuda_demo.cu with nvcc and run it (needs a GPU)
#   make gpu-check  tests/gpu/run.sh: the CUDA path checked on a GPU (without
#                one, the same checks on the fake CUPTI)
#   make test    the whole suite (tests/suite.sh): installs the tools it needs
#                (as root with apt-get) or names the command to run, builds
#                into build/, runs CTest, ends with a summary that names every
#                skipped part and every failure
#   make deps    only the tools (what `make test` installs first)
#   make bench   build the bench/ programs with -O2 and run them
#   make bench-peers TRACY_DIR=/path/to/tracy   prof.h and Tracy side by side (bench/peers.sh)
#   make clean   remove build outputs
#
# Variables: CC (default cc), CXX (default c++), JOBS (default 2),
# CTEST_ARGS (extra ctest arguments, e.g. CTEST_ARGS='-LE valgrind'),
# ALLOW_MISSING=1 (test without the missing tools; their parts are skipped).

CC ?= cc
CXX ?= c++
CMAKE ?= cmake
CTEST ?= ctest
JOBS ?= 2
BUILD ?= build

CFLAGS_DEMO  ?= -std=c11 -O1 -g -Wall -Wextra -Wpedantic -Werror
CFLAGS_BENCH ?= -std=c11 -O2 -Wall -Wextra -Wpedantic -Werror
# -lm is for the examples' and benches' own math; prof.h needs none
LDLIBS_PROF  := -pthread -ldl -lm

MAKEFLAGS += --no-print-directory
ALLOW_MISSING ?= 0

.PHONY: all demo mlp cuda-demo gpu-check test deps configure build bench bench-peers clean

all: test

demo: $(BUILD)/demo
	$(BUILD)/demo

$(BUILD)/demo: examples/demo.c prof.h
	@mkdir -p $(BUILD)
	$(CC) $(CFLAGS_DEMO) -pthread -I. $< -o $@ $(LDLIBS_PROF)

mlp: $(BUILD)/mlp
	$(BUILD)/mlp

$(BUILD)/mlp: examples/mlp.c prof.h
	@mkdir -p $(BUILD)
	$(CC) $(CFLAGS_DEMO) -O2 -pthread -I. $< -o $@ $(LDLIBS_PROF)

CUDA_HOME ?= /usr/local/cuda
NVCC ?= $(CUDA_HOME)/bin/nvcc

cuda-demo: $(BUILD)/cuda_demo
	$(BUILD)/cuda_demo

$(BUILD)/cuda_demo: examples/cuda_demo.cu prof.h
	@mkdir -p $(BUILD)
	$(NVCC) -O2 -DPROF_CUPTI -I. -I$(CUDA_HOME)/include $< -o $@ -L$(CUDA_HOME)/lib64 -Xlinker -rpath -Xlinker $(CUDA_HOME)/lib64 -lcupti -lcublas -ldl

gpu-check:
	CUDA_HOME="$(CUDA_HOME)" NVCC="$(NVCC)" bash tests/gpu/run.sh $(BUILD)/gpu-check

# CC/CXX are only read on the first configure of $(BUILD); `make clean` to change.
configure:
	CC="$(CC)" CXX="$(CXX)" $(CMAKE) -S . -B $(BUILD)

build: configure
	$(CMAKE) --build $(BUILD) -j$(JOBS)

test:
	@CC="$(CC)" CXX="$(CXX)" BUILD="$(BUILD)" JOBS="$(JOBS)" CTEST_ARGS="$(CTEST_ARGS)" ALLOW_MISSING="$(ALLOW_MISSING)" bash tests/suite.sh

deps:
	@BUILD="$(BUILD)" ALLOW_MISSING="$(ALLOW_MISSING)" bash tests/suite.sh --deps

BENCH_PROGS := overhead features analysis export stop roundtrip

bench: $(addprefix $(BUILD)/bench-O2/,$(BENCH_PROGS))
	@for p in $(BENCH_PROGS); do \
	    echo "== bench/$$p"; $(BUILD)/bench-O2/$$p || exit 1; \
	done

$(BUILD)/bench-O2/%: bench/%.c bench/common.h bench/synth.h prof.h
	@mkdir -p $(BUILD)/bench-O2
	$(CC) $(CFLAGS_BENCH) -pthread -I. $< -o $@ $(LDLIBS_PROF)

# (export_pair includes export.c)
$(BUILD)/bench-O2/export_pair: bench/export.c

# prof.h and Tracy's client side by side (needs TRACY_DIR=/path/to/tracy)
bench-peers:
	BUILD=$(BUILD) CXX=$(CXX) bench/peers.sh

clean:
	rm -rf $(BUILD)
