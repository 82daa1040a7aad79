# pleat - submillimetre cloth wrinkles on a grid.
#
#   make                 build every program into bin/ (and the CUDA objects
#                        when nvcc is found; CUDA=0 or CUDA=1 forces it)
#   make test            run the test suite (prove + bats)
#   make model           the CUDA backend under the CUDA execution model
#                        (part of make; see cudamodel/model.cc)
#   make san             AddressSanitizer + UBSan build under build/san/
#   make test-san        the I/O, collision and gathering tests against
#                        the sanitizer build
#   make bench           benchmarks (prints figures, asserts nothing)
#   make example         the quick start (examples/run): a gathered skirt
#                        solved coarse to fine, meshed and baked
#   make check-fresh     the README's set-up on a fresh Debian 12 root
#                        made by debootstrap (as root; downloads; slow)
#   make install PREFIX=/usr/local
#   make clean

PREFIX  ?= /usr/local
BUILD   ?= build
BINDIR  ?= bin
CC      ?= cc
NVCC    ?= $(shell command -v nvcc 2>/dev/null || ls /usr/local/cuda/bin/nvcc 2>/dev/null)

CSTD     = -std=c11 -D_POSIX_C_SOURCE=200809L
WARN     = -Wall -Wextra -Wshadow -Wpointer-arith -Wstrict-prototypes \
           -Wmissing-prototypes -Wvla -Wformat=2
OPT     ?= -O2 -g
CFLAGS  ?= $(OPT)
# No errno from the math library and no trapping floating point (pleat
# checks results for NaN, never errno or traps): what lets the solver's
# per-vertex loops with sqrt and guarded divisions vectorise.  Neither
# changes a result.  No contraction of a*b+c into a fused multiply-add:
# every operation rounds as written, on every architecture, so the CPU
# and the GPU (below) give the same bytes.
FPFLAGS  = -fno-math-errno -fno-trapping-math -ffp-contract=off
ALL_CFLAGS = $(CSTD) $(WARN) $(FPFLAGS) $(CFLAGS) -fopenmp -Icommon -MMD -MP
LDLIBS   = -lxxhash -lpng -lm
ALL_LDFLAGS = -fopenmp $(LDFLAGS)

# -O2 as the release build: the sanitizers need -O1 or more, and the
# garment-sized collision tests run a third faster than at -O1.
ifeq ($(SAN),1)
CFLAGS   = -O2 -g -fno-omit-frame-pointer -fsanitize=address,undefined \
           -fno-sanitize-recover=all
LDFLAGS  = -fsanitize=address,undefined
BUILD    = build/san
BINDIR   = build/san/bin
# nvcc would link tests/test_cuda against the sanitized library without
# the sanitizers' runtime: the sanitized build is the CPU's alone.
CUDA    ?= 0
endif

# CUDA: on when nvcc is found, unless CUDA=0; CUDA=1 without nvcc is an error.
ifeq ($(CUDA),)
CUDA := $(if $(NVCC),1,0)
endif
ifeq ($(CUDA),1)
ifeq ($(NVCC),)
$(error CUDA=1 but nvcc was not found; set NVCC=/path/to/nvcc)
endif
endif
# Real architectures only, Turing to Hopper; PTX for the newest so a
# later GPU can still JIT it.
CUDA_ARCH ?= -gencode arch=compute_75,code=sm_75 \
             -gencode arch=compute_80,code=sm_80 \
             -gencode arch=compute_86,code=sm_86 \
             -gencode arch=compute_89,code=sm_89 \
             -gencode arch=compute_90,code=sm_90 \
             -gencode arch=compute_90,code=compute_90
NVCCFLAGS ?= -O2 -std=c++17 $(CUDA_ARCH) -Icommon \
             -Xcompiler -Wall,-Wextra --Werror all-warnings
# The device rounds every operation as the CPU does (-fmad=false; the
# square roots and divisions are IEEE by default), so --device cuda gives
# the CPU backend's bytes.  CUDA_FMAD=1 lets nvcc fuse a*b+c: a little
# faster, and each iteration then differs from the CPU by a few units in
# the last place (tests/gpu.bats bounds it).
CUDA_FMAD ?= 0
NVCC_FP   = $(if $(filter 1,$(CUDA_FMAD)),-DPLEAT_CUDA_FMAD,-fmad=false)

PROGRAMS = resample grid solve initialize simplify normalmap collide gather
LIB_SRC  = $(wildcard common/*.c)
LIB_OBJ  = $(LIB_SRC:%.c=$(BUILD)/%.o)
LIB      = $(BUILD)/libpleat.a
CU_SRC   = $(wildcard common/*.cu)
CU_OBJ   = $(CU_SRC:%.cu=$(BUILD)/%.cu.o)
CU_LIB   = $(BUILD)/libpleat-cuda.a
BIN      = $(PROGRAMS:%=$(BINDIR)/pleat-%)
TEST_SRC = $(wildcard tests/unit/*.c)
TEST_BIN = $(TEST_SRC:tests/unit/%.c=$(BUILD)/tests/%)
SCRIPTS  = $(wildcard scripts/pleat-*)
SCRIPT_BIN = $(SCRIPTS:scripts/%=$(BINDIR)/%)

CU_TEST  = $(if $(filter 1,$(CUDA)),$(BUILD)/tests/test_cuda)

all: $(BIN) $(TEST_BIN) $(CU_TEST) $(if $(filter 1,$(SAN)),,model)
all: $(SCRIPT_BIN) $(BUILD)/examples/render

# The quick start's renderer (examples/run), not installed.
$(BUILD)/examples/render: $(BUILD)/examples/render.o $(LIB)
	@mkdir -p $(@D)
	$(CC) $(ALL_LDFLAGS) $^ $(LDLIBS) -o $@

# The driver scripts (pleat-frame) are programs too: copied into bin/.
$(SCRIPT_BIN): $(BINDIR)/%: scripts/%
	@mkdir -p $(@D)
	install -m 755 $< $@

$(BUILD)/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -c $< -o $@

$(BUILD)/%.cu.o: %.cu
	@mkdir -p $(@D)
	$(NVCC) $(NVCCFLAGS) $(NVCC_FP) -MMD -MP -c $< -o $@

$(LIB): $(LIB_OBJ)
	@mkdir -p $(@D)
	$(AR) rcs $@ $^

$(CU_LIB): $(CU_OBJ)
	@mkdir -p $(@D)
	$(AR) rcs $@ $^

cuda: $(CU_LIB) $(BUILD)/tests/test_cuda

# test_cuda compares the GPU with the CPU's library (tests/cuda/*.c).
$(BUILD)/tests/test_cuda: tests/cuda/test_cuda.cu \
		$(patsubst %.c,$(BUILD)/%.o,$(wildcard tests/cuda/*.c)) $(CU_LIB) $(LIB)
	@mkdir -p $(@D)
	$(NVCC) $(NVCCFLAGS) $(NVCC_FP) -Itests/cuda $^ $(LDLIBS) -lgomp -o $@

# The CUDA execution model (cudamodel/): the same .cu files compiled by
# the host C++ compiler against the model's cuda_runtime.h, every load
# and store instrumented, so that pleat-solve's CUDA backend and the GPU
# tests run without a GPU (tests/gpu.bats runs against it in every test
# run).  No fused multiply-adds: the model's results are the CPU
# backend's to the bit.  make model-fmad builds it as CUDA_FMAD=1 builds
# the GPU code (a*b+c contracted into fused multiply-adds, where the CPU
# has them), in build/model-fmad, to test the bound on what that changes.
MODEL   ?= $(BUILD)/model
MODEL_FP = $(if $(filter 1,$(CUDA_FMAD)),-mfma -ffp-contract=fast -DPLEAT_CUDA_FMAD,-ffp-contract=off)
MODEL_CXXFLAGS = -std=c++17 -O2 -g $(FPFLAGS) $(MODEL_FP) -DPLEAT_CUDA_MODEL \
                 -Icudamodel -Icommon -Wall -Wextra -MMD -MP
MODEL_CHECKS = -fsanitize=thread --param tsan-instrument-func-entry-exit=0
MODEL_RT   = $(MODEL)/cudamodel/model.o
MODEL_CU   = $(CU_SRC:%.cu=$(MODEL)/%.cu.o)
MODEL_SOLVE = $(patsubst %.c,$(BUILD)/%.o,$(filter-out solve/device.c,$(wildcard solve/*.c))) \
              $(MODEL)/solve/device.o $(MODEL)/solve/gpu.cu.o
MODEL_BIN  = $(MODEL)/bin/pleat-solve $(MODEL)/tests/test_cuda \
             $(MODEL)/tests/model_test $(MODEL)/racy/pleat-solve

model: $(MODEL_BIN)

model-fmad:
	$(MAKE) CUDA_FMAD=1 MODEL=$(BUILD)/model-fmad model

$(MODEL)/%.cu.o: %.cu
	@mkdir -p $(@D)
	$(CXX) $(MODEL_CXXFLAGS) $(MODEL_CHECKS) -x c++ -c $< -o $@

$(MODEL_RT): cudamodel/model.cc
	@mkdir -p $(@D)
	$(CXX) $(MODEL_CXXFLAGS) -c $< -o $@

$(MODEL)/solve/device.o: solve/device.c
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -DPLEAT_CUDA -c $< -o $@

$(MODEL)/bin/pleat-solve: $(MODEL_SOLVE) $(MODEL_CU) $(MODEL_RT) $(LIB)
	@mkdir -p $(@D)
	$(CXX) $(ALL_LDFLAGS) $^ $(LDLIBS) -o $@

$(MODEL)/tests/test_cuda: $(MODEL)/tests/cuda/test_cuda.cu.o \
		$(patsubst %.c,$(BUILD)/%.o,$(wildcard tests/cuda/*.c)) \
		$(MODEL_CU) $(MODEL_RT) $(LIB)
	@mkdir -p $(@D)
	$(CXX) $(ALL_LDFLAGS) $^ $(LDLIBS) -o $@

$(MODEL)/tests/model_test: $(MODEL)/tests/cuda/model_test.cu.o $(MODEL_RT)
	@mkdir -p $(@D)
	$(CXX) $^ -o $@

# A copy of pleat-solve whose block kernel lacks the barrier between an
# inner iteration's steps and its moves: the race the tests must see.
$(MODEL)/racy/gpu.cu: solve/gpu.cu tests/cuda/drop-barrier
	@mkdir -p $(@D)
	tests/cuda/drop-barrier $< > $@

$(MODEL)/racy/gpu.cu.o: $(MODEL)/racy/gpu.cu
	$(CXX) $(MODEL_CXXFLAGS) $(MODEL_CHECKS) -Isolve -x c++ -c $< -o $@

$(MODEL)/racy/pleat-solve: $(filter-out $(MODEL)/solve/gpu.cu.o,$(MODEL_SOLVE)) \
		$(MODEL)/racy/gpu.cu.o $(MODEL_CU) $(MODEL_RT) $(LIB)
	$(CXX) $(ALL_LDFLAGS) $^ $(LDLIBS) -o $@

# Each program is its folder's sources linked with the common library,
# and EXTRA_name / LIBS_name when it has more.
define program
$(BINDIR)/pleat-$(1): $(patsubst %.c,$(BUILD)/%.o,$(wildcard $(1)/*.c)) $$(EXTRA_$(1)) $(LIB)
	@mkdir -p $$(@D)
	$$(CC) $$(ALL_LDFLAGS) $$^ $$(LDLIBS) $$(LIBS_$(1)) -o $$@
endef

# pleat-solve's CUDA backend (solve/*.cu), linked with the static CUDA
# runtime so the program runs, on the CPU, where no driver is installed.
# solve/device.o knows whether it is there; a change of CUDA rebuilds it.
CUDA_HOME ?= $(patsubst %/bin/nvcc,%,$(NVCC))
ifeq ($(CUDA),1)
EXTRA_solve = $(patsubst %.cu,$(BUILD)/%.cu.o,$(wildcard solve/*.cu)) $(CU_LIB)
LIBS_solve  = -L$(CUDA_HOME)/lib64 -lcudart_static -ldl -lrt -lpthread -lstdc++
$(BUILD)/solve/device.o: ALL_CFLAGS += -DPLEAT_CUDA
endif
$(shell mkdir -p $(BUILD) && (echo $(CUDA) | cmp -s - $(BUILD)/cuda.flag || echo $(CUDA) > $(BUILD)/cuda.flag))
$(BUILD)/solve/device.o: $(BUILD)/cuda.flag
$(foreach p,$(PROGRAMS),$(eval $(call program,$(p))))

$(BUILD)/tests/%: $(BUILD)/tests/unit/%.o $(LIB)
	@mkdir -p $(@D)
	$(CC) $(ALL_LDFLAGS) $^ $(LDLIBS) -o $@

# test_intersect counts in exact integers (GMP).
$(BUILD)/tests/test_intersect: LDLIBS += -lgmp

# test_solve also reaches into pleat-solve's pieces (all but its main).
SOLVE_OBJ = $(patsubst %.c,$(BUILD)/%.o,$(filter-out solve/main.c solve/device.c,$(wildcard solve/*.c)))
$(BUILD)/tests/test_solve: $(BUILD)/tests/unit/test_solve.o $(SOLVE_OBJ) $(LIB)
	@mkdir -p $(@D)
	$(CC) $(ALL_LDFLAGS) $^ $(LDLIBS) -o $@

# The GPU suite (tests/gpu.bats) runs against the CUDA execution model
# with the rest of the suite; first, against the model with fused
# multiply-adds where this CPU has them, and against the GPU where one
# answers.  The last line is prove's verdict on the whole suite.
TEST_FILES ?= tests/*.bats
HAVE_FMA = grep -qw fma /proc/cpuinfo 2>/dev/null
GPU_ANSWERS = test -x $(BUILD)/tests/test_cuda && $(BUILD)/tests/test_cuda devices > /dev/null
test: all
	if $(GPU_ANSWERS); then PLEAT_CUDA_TARGET=device prove -e 'bats --tap' tests/gpu.bats; fi
	if $(HAVE_FMA); then $(MAKE) model-fmad && \
	   PLEAT_CUDA_TARGET=model-fmad prove -e 'bats --tap' tests/gpu.bats; fi
	prove -e 'bats --tap' $(TEST_FILES)

san:
	$(MAKE) SAN=1 CUDA=0 all

# The I/O tests (grid stream, OBJ reader, resample) under ASan + UBSan,
# and the collision and gathering ones (proximity lists, --safe's hash and
# bounds, tensor reads at the grid's edges).  PLEAT_SANITIZED skips the
# few solves of a whole garment at full size (tests/common.bash:
# not_sanitized), which take minutes each under the sanitizers; the
# suite runs them, and smaller tests reach the same code here.
SAN_TESTS ?= tests/grid.bats tests/obj.bats tests/resample.bats tests/cli.bats \
             tests/corrupt.bats tests/collide.bats tests/gather.bats \
             tests/self.bats
test-san: san
	PLEAT_SANITIZED=1 \
	PLEAT_BIN=$(CURDIR)/build/san/bin PLEAT_TESTBIN=$(CURDIR)/build/san/tests \
	ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
	prove -e 'bats --tap' $(SAN_TESTS)

bench: all
	bench/run

example: all
	examples/run

# Not part of make test or .ci/run: it downloads a Debian system and runs
# the whole suite in it (.ci/check-fresh says how).
check-fresh:
	.ci/check-fresh

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1 \
	           $(DESTDIR)$(PREFIX)/share/man/man5
	install -m 755 $(BIN) $(DESTDIR)$(PREFIX)/bin/
	install -m 644 man/man1/*.1 $(DESTDIR)$(PREFIX)/share/man/man1/
	install -m 644 man/man5/*.5 $(DESTDIR)$(PREFIX)/share/man/man5/
	install -m 755 $(SCRIPT_BIN) $(DESTDIR)$(PREFIX)/bin/
	install -d $(DESTDIR)$(PREFIX)/share/man/man7 $(DESTDIR)$(PREFIX)/share/pleat
	install -m 644 man/man7/*.7 $(DESTDIR)$(PREFIX)/share/man/man7/
	install -m 644 mk/pleat-shot.mk $(DESTDIR)$(PREFIX)/share/pleat/
	install -m 755 examples/farm/* $(DESTDIR)$(PREFIX)/share/pleat/

lint-man:
	mandoc -T lint -W warning man/man1/*.1 man/man5/*.5 man/man7/*.7

clean:
	rm -rf build $(BIN)
	rm -f $(SCRIPT_BIN)

.PHONY: all cuda model model-fmad test san test-san bench example check-fresh install lint-man clean

-include $(wildcard $(BUILD)/*/*.d $(BUILD)/tests/unit/*.d $(BUILD)/tests/cuda/*.d \
	$(MODEL)/*/*.d $(MODEL)/tests/cuda/*.d $(MODEL)/racy/*.d)

# Fuzz harnesses (libFuzzer with clang): make fuzz, make fuzz-ci.
-include fuzz/fuzz.mk
