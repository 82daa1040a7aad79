# fuzz/fuzz.mk - libFuzzer harnesses for the readers, included by the
# Makefile (which defines CSTD, WARN and LIB_SRC).
#
#   make fuzz [FUZZ_SECONDS=60]   build the harnesses with clang and run
#                                 each for FUZZ_SECONDS, seeded from
#                                 fuzz/corpus/NAME; new inputs are kept in
#                                 build/fuzz/corpus-NAME, never in the
#                                 committed corpus; prints execs per second
#                                 and total execs of each
#   make fuzz-ci [FUZZ_RUNS=200000] each harness for FUZZ_RUNS inputs from a
#                                 fresh copy of the committed corpus with
#                                 -seed=1 (reproducible); fails on any
#                                 crash, leak, hang or sanitizer report
#
# The library is compiled again with clang into build/fuzz/, apart from
# the gcc build.  Crash inputs are saved as build/fuzz/crash-* (and
# leak-*, timeout-*, oom-*): turn each into a fixture under
# tests/fixtures/corrupt/ with a test in tests/corrupt.bats.

FUZZ_CC      ?= clang
FUZZ_DIR      = build/fuzz
FUZZ_SECONDS ?= 60
FUZZ_RUNS    ?= 200000
FUZZ_NAMES    = obj grid
FUZZ_SAN      = -fsanitize=address,undefined -fno-sanitize-recover=all
FUZZ_CFLAGS   = $(CSTD) $(WARN) -g -O1 -fno-omit-frame-pointer $(FUZZ_SAN) \
                -Icommon
FUZZ_LIB_OBJ  = $(LIB_SRC:%.c=$(FUZZ_DIR)/%.o)
FUZZ_BIN      = $(FUZZ_NAMES:%=$(FUZZ_DIR)/fuzz_%)
# The malloc limit turns any single allocation over 512 MiB into a
# reported failure: a reader must never allocate far beyond its input.
FUZZ_OPTS     = -rss_limit_mb=2048 -malloc_limit_mb=512 -timeout=10 \
                -print_final_stats=1 -artifact_prefix=$(FUZZ_DIR)/

$(FUZZ_DIR)/common/%.o: common/%.c
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -MMD -MP -c $< -o $@

$(FUZZ_DIR)/fuzz_%: fuzz/fuzz_%.c $(FUZZ_LIB_OBJ)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer $^ -lxxhash -lm -o $@

fuzz-build: $(FUZZ_BIN)

# Kept: make would otherwise delete them as intermediate files.
.SECONDARY: $(FUZZ_LIB_OBJ)

# fuzz_run NAME OPTIONS CORPUS-DIRS: runs one harness (new inputs go to
# the first corpus dir), keeps its log in build/fuzz/NAME.log, prints the
# log's tail on failure and the final stats on success.
fuzz_run = \
	echo "fuzz_$(1) $(2)"; \
	if $(FUZZ_DIR)/fuzz_$(1) $(FUZZ_OPTS) -dict=fuzz/$(1).dict $(2) $(3) \
		> $(FUZZ_DIR)/$(1).log 2>&1; then \
		awk -F': *' -v n=fuzz_$(1) \
		  '/^stat::number_of_executed_units/ { runs = $$NF } \
		   /^stat::average_exec_per_sec/ { rate = $$NF } \
		   END { printf "%s: %s execs/s, %s execs\n", n, rate, runs }' \
		  $(FUZZ_DIR)/$(1).log; \
	else \
		tail -n 60 $(FUZZ_DIR)/$(1).log; \
		echo "fuzz_$(1): FAILED (log: $(FUZZ_DIR)/$(1).log)"; exit 1; \
	fi

fuzz: $(FUZZ_NAMES:%=fuzz-run-%)
fuzz-run-%: $(FUZZ_DIR)/fuzz_%
	@mkdir -p $(FUZZ_DIR)/corpus-$*
	@$(call fuzz_run,$*,-max_total_time=$(FUZZ_SECONDS),$(FUZZ_DIR)/corpus-$* fuzz/corpus/$*)

# A fresh copy of the committed corpus, so that a CI run is reproducible
# and leaves fuzz/corpus untouched.
fuzz-ci: $(FUZZ_NAMES:%=fuzz-ci-%)
fuzz-ci-%: $(FUZZ_DIR)/fuzz_%
	@rm -rf $(FUZZ_DIR)/ci-$* && mkdir -p $(FUZZ_DIR)/ci-$*
	@cp fuzz/corpus/$*/* $(FUZZ_DIR)/ci-$*/
	@$(call fuzz_run,$*,-runs=$(FUZZ_RUNS) -seed=1,$(FUZZ_DIR)/ci-$*)

# (fuzz-run-NAME and fuzz-ci-NAME are pattern rules, which .PHONY would
# disable.)
.PHONY: fuzz fuzz-ci fuzz-build

-include $(wildcard $(FUZZ_DIR)/common/*.d)
