# pleat-shot.mk - the frame recipe over a shot, for GNU make.  See
# pleat-shot(7).  A shot's Makefile:
#
#     SHOT_FRAMES = $(wildcard in/frame_*.obj)
#     SHOT_FRAME_FLAGS = --material cotton --body body.obj
#     include pleat-shot.mk
#
# `make -j4` then writes out/frame_0001.grid ... (and .obj meshes, .png
# normal maps when asked for).  Frames are taken in the sorted order of
# their names.
#
# How the work splits.  The transfer from one frame to the next happens at
# the coarsest level (pleat-frame(1)), so the frames form a chain only
# there: the coarsest level of frame N, carry/NAME.grid, starts from that
# of frame N-1.  That chain is serial by nature, but cheap (a 1024 level
# costs 1/16 of a 4096 one).  The finer levels of each frame, the mesh and
# the normal map depend on the frame's own carry only, so make -j runs
# them side by side, and touching an input frame redoes that frame and
# the ones after it, nothing before.
#
# Chunks.  SHOT_FIRST and SHOT_LAST (positions in the sorted list, from 1)
# make this a chunk of the shot, an independent job: its first frame
# starts cold unless SHOT_OVERLAP frames before it are solved first, at
# the coarsest level only, to warm the transfer chain up.  Their results
# stay in $(SHOT_OUT)/warmup-$(SHOT_FIRST)/ and are no part of the shot.

SHOT_OUT        ?= out
SHOT_LEVELS     ?= 1024,2048,4096
SHOT_ITERATIONS ?= 256
SHOT_FRAME_FLAGS ?=
SHOT_MESH       ?= 0
SHOT_NORMALMAP  ?= 0
SHOT_SIMPLIFY_FLAGS ?=
SHOT_NORMALMAP_FLAGS ?=
SHOT_OVERLAP    ?= 0
PLEAT_FRAME     ?= pleat-frame
PLEAT_SIMPLIFY  ?= pleat-simplify
PLEAT_NORMALMAP ?= pleat-normalmap

shot_frames := $(sort $(SHOT_FRAMES))
shot_count  := $(words $(shot_frames))
ifeq ($(shot_count),0)
$(error pleat-shot.mk: SHOT_FRAMES names no frame)
endif
SHOT_FIRST ?= 1
SHOT_LAST  ?= $(shot_count)

shot_comma := ,
shot_words = $(subst $(shot_comma), ,$(1))
shot_coarsest := $(firstword $(call shot_words,$(SHOT_LEVELS)))
shot_coarse_iterations := $(firstword $(call shot_words,$(SHOT_ITERATIONS)))

# The chunk's positions and its warm-up positions, counted by awk, which
# also says what is wrong with them.
shot_awk = awk -v first='$(SHOT_FIRST)' -v last='$(SHOT_LAST)' \
	-v overlap='$(SHOT_OVERLAP)' -v count=$(shot_count) 'BEGIN { $(1) }'
shot_problem := $(shell $(call shot_awk,\
	if (first !~ /^[0-9]+$$/ || last !~ /^[0-9]+$$/ || overlap !~ /^[0-9]+$$/) \
		print "SHOT_FIRST$(shot_comma) SHOT_LAST and SHOT_OVERLAP are counts"; \
	else if (first < 1 || first > last || last > count) \
		print "frames " first " to " last " are not a chunk of the " count " frames of SHOT_FRAMES"))
ifneq ($(shot_problem),)
$(error pleat-shot.mk: $(shot_problem))
endif
shot_chunk  := $(shell $(call shot_awk,for (k = first; k <= last; k++) print k))
shot_warmup := $(shell $(call shot_awk,for (k = first - overlap; k < first; k++) if (k >= 1) print k))

shot_name  = $(basename $(notdir $(word $(1),$(shot_frames))))
shot_input = $(word $(1),$(shot_frames))
shot_carry_dir  := $(SHOT_OUT)/carry
shot_warmup_dir := $(SHOT_OUT)/warmup-$(SHOT_FIRST)

# The coarsest-level result of position K in this chunk's chain.
shot_carry = $(if $(filter $(1),$(shot_warmup)),$(shot_warmup_dir),$(shot_carry_dir))/$(call shot_name,$(1)).grid
# The carry position K transfers from: none for the chain's first frame.
shot_prev = $(if $(filter $(1),$(firstword $(shot_warmup) $(shot_chunk))),,$(call shot_carry,$(words x $(wordlist 3,$(1),$(shot_frames)))))

shot_grids    := $(foreach k,$(shot_chunk),$(SHOT_OUT)/$(call shot_name,$(k)).grid)
shot_meshes   := $(if $(filter 1,$(SHOT_MESH)),$(shot_grids:.grid=.obj))
shot_maps     := $(if $(filter 1,$(SHOT_NORMALMAP)),$(shot_grids:.grid=.png))
shot_products := $(shot_grids) $(shot_meshes) $(shot_maps)

ifneq ($(filter $(shot_products),$(shot_frames)),)
$(error pleat-shot.mk: SHOT_OUT=$(SHOT_OUT) would overwrite input frames: $(filter $(shot_products),$(shot_frames)))
endif

shot: $(shot_products)

# The coarsest level of position K: the chain.
define shot_carry_rule
$(call shot_carry,$(1)): $(call shot_input,$(1)) $(call shot_prev,$(1))
	@mkdir -p $$(@D)
	$$(PLEAT_FRAME) $$(SHOT_FRAME_FLAGS) -l $(shot_coarsest) -n $(shot_coarse_iterations) $(if $(call shot_prev,$(1)),--prev $(call shot_prev,$(1))) -o $$@ $(call shot_input,$(1))
endef

# The finer levels, mesh and map of position K: independent of the others.
define shot_frame_rule
$(SHOT_OUT)/$(call shot_name,$(1)).grid: $(call shot_input,$(1)) $(call shot_carry,$(1))
	$$(PLEAT_FRAME) $$(SHOT_FRAME_FLAGS) -l $$(SHOT_LEVELS) -n $$(SHOT_ITERATIONS) --coarse $(call shot_carry,$(1)) -o $$@ $(call shot_input,$(1))
$(SHOT_OUT)/$(call shot_name,$(1)).obj: $(SHOT_OUT)/$(call shot_name,$(1)).grid
	$$(PLEAT_SIMPLIFY) -q $$(SHOT_SIMPLIFY_FLAGS) -o $$@ $$<
$(SHOT_OUT)/$(call shot_name,$(1)).png: $(SHOT_OUT)/$(call shot_name,$(1)).grid $(call shot_input,$(1))
	$$(PLEAT_NORMALMAP) -m $(call shot_input,$(1)) $$(SHOT_NORMALMAP_FLAGS) -o $$@ $$<
endef

$(foreach k,$(shot_warmup) $(shot_chunk),$(eval $(call shot_carry_rule,$(k))))
$(foreach k,$(shot_chunk),$(eval $(call shot_frame_rule,$(k))))

# The number of frames of the shot, for the farm scripts.
shot-count:
	@echo $(shot_count)

# Removes what this chunk made (its carries and warm-up frames included).
shot-clean:
	rm -f $(shot_products) $(foreach k,$(shot_chunk),$(call shot_carry,$(k)))
	rm -rf $(shot_warmup_dir)

.PHONY: shot shot-count shot-clean
