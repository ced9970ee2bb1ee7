# CUDA Kernel Workbook: the commands you type. A thin layer over CMake and tools/workbook.py.
# `make help` lists them.

BUILD     ?= build
CUDA_ARCH ?=
BACKEND   ?=
PYTHON    ?= python3
GENERATOR := $(shell command -v ninja >/dev/null 2>&1 && echo Ninja || echo "Unix Makefiles")
JOBS      ?= $(shell nproc 2>/dev/null || echo 2)
# tools/workbook.py, told which build folder to use (BUILD=...), as every target that reads it must be.
TOOL       = WORKBOOK_BUILD="$(abspath $(BUILD))" $(PYTHON) tools/workbook.py

# `make check-chapter 2` passes the chapter as a second goal; N=2 works too. Numbers given as goals
# are arguments, not targets (the rule at the end makes them do nothing on their own). The numbers come
# from the chapter folders, so a new chapter needs no edit here.
CHAPTER_PREFIXES := $(foreach d,$(notdir $(wildcard chapters/[0-9][0-9]_*)),$(firstword $(subst _, ,$(d))))
CHAPTER_NUMBERS  := $(sort $(CHAPTER_PREFIXES) $(patsubst 0%,%,$(CHAPTER_PREFIXES)))
NUMBER_GOALS    := $(shell printf '%s\n' $(MAKECMDGOALS) | grep -E '^[0-9]+$$')
GOAL_NUMBER     := $(firstword $(NUMBER_GOALS))
N               ?= $(GOAL_NUMBER)
CH              ?= $(N)
CHAPTER         := $(if $(CH),$(shell printf '%02d' '$(patsubst 0%,%,$(CH))' 2>/dev/null))

.PHONY: help configure check-chapter test docs bench memcheck-chapter selfcheck selfcheck-static clean chapters
.PHONY: progress hint reset-chapter watch-chapter drill drill-grade drill-stop plot-chapter profile-chapter emu-profile-chapter
.PHONY: tune-chapter

# WORKBOOK_LANG=zh (or, without it, a zh_* LC_ALL, LC_MESSAGES or LANG): `make help` and the learner
# tools speak Chinese (tools/wbtools/i18n.py, which decides the same way).
HELP_IN_CHINESE := $(if $(WORKBOOK_LANG),$(filter zh%,$(WORKBOOK_LANG)),$(filter zh%,$(firstword $(LC_ALL) $(LC_MESSAGES) $(LANG))))

ifneq ($(HELP_IN_CHINESE),)
help:
	@$(PYTHON) tools/workbook.py help-zh
else
help:
	@echo "CUDA Kernel Workbook"
	@echo ""
	@echo "  make check-chapter N     grade your exercises of chapter N (also: N=2, STAGE=3 for one stage)"
	@echo "  make memcheck-chapter N  run chapter N's grader under compute-sanitizer (finds bad accesses)"
	@echo "  make chapters            list the chapters and their stages"
	@echo "  make test                build everything, check the reference solutions and the harness"
	@echo "  make selfcheck           GPU: solutions pass, skeletons say 'not implemented yet', every known-wrong"
	@echo "                           kernel of catalog/ fails for its expected reason; prints one table"
	@echo "  make selfcheck-static    no build, no GPU: stages.json against the files, a TODO in every skeleton,"
	@echo "                           the launcher naming rule, the catalog's headers (make test runs it too)"
	@echo "  make bench               time every reference stage and library baseline: build/bench/results.md"
	@echo "  make docs                build the documentation site: build/docs/html/index.html"
	@echo "  make emu-profile-chapter N  CPU emulator: memory-behaviour counters of every reference stage (Markdown)"
	@echo "  make clean               delete the build folder (your exercises are never touched)"
	@echo ""
	@echo "  While you learn:"
	@echo "  make progress            chapters x stages: passed, too slow, failing, not started; speed-ups"
	@echo "  make hint CH=2 STAGE=3   the next hint of a stage, one more each time (no STAGE: your current stage)"
	@echo "  make watch-chapter N     re-grade the stage you edit on every save (STAGE=k: start with it)"
	@echo "  make reset-chapter N     restore chapter N's skeletons (STAGE=k: one stage); your files are backed up"
	@echo "                           LEVEL=outline|guided|blank: switch the scaffolding (outline: one sentence per"
	@echo "                           kernel; guided: step by step; blank: the contract only); stages you changed"
	@echo "                           are left alone unless FORCE=1. The level is remembered for later resets."
	@echo "  make drill [CH=n]        timed interview drill: a blank stage with only its contract, in drill/"
	@echo "                           PAPER=1: on paper, no compiling for PAPER_MINUTES (20), then one grading"
	@echo "  make drill-grade         grade the running drill; make drill-stop gives it up (its file is kept)"
	@echo "  make plot-chapter N      chapter N's make bench results as a bar chart, and a roofline from make profile-chapter N: build/plots/ (matplotlib)"
	@echo "  make profile-chapter N STAGE=k   why is my stage slow? Nsight Compute counters of your stage k beside"
	@echo "                           references k-1 and k (no STAGE: every reference stage): build/profile/"
	@echo "  make tune-chapter 7      autotuner: stage 9's candidate tile shapes timed against cuBLAS on your GPU;"
	@echo "                           the fastest is kept for it (chapters/07_sgemm/tune/results/) and built from then on"
	@echo ""
	@echo "  Options: CUDA_ARCH=90 builds for that compute capability (default: this machine's GPU)."
	@echo "           BACKEND=cpu runs the kernels on the CPU emulator: correctness only, no GPU needed"
	@echo "           (docs/emulation.md; set it on a fresh build folder, e.g. after make clean)."
	@echo "           WORKBOOK_LANG=zh: the learner tools in Chinese (so does a zh_* LANG or LC_ALL)."
endif

$(BUILD)/CMakeCache.txt:
	@command -v cmake >/dev/null 2>&1 || { echo "CMake was not found: install it (Debian/Ubuntu: sudo apt-get install cmake)."; exit 1; }
	cmake -S . -B $(BUILD) -G "$(GENERATOR)" $(if $(CUDA_ARCH),-DWORKBOOK_CUDA_ARCH=$(CUDA_ARCH)) $(if $(BACKEND),-DWORKBOOK_BACKEND=$(BACKEND))

configure: $(BUILD)/CMakeCache.txt
	@$(if $(CUDA_ARCH),cmake -S . -B $(BUILD) -DWORKBOOK_CUDA_ARCH=$(CUDA_ARCH) >/dev/null,true)
	@$(if $(BACKEND),cmake -S . -B $(BUILD) -DWORKBOOK_BACKEND=$(BACKEND) >/dev/null,true)

define need_chapter
	@if [ -z "$(CH)" ]; then echo "Say which chapter, e.g. make $(1) 2 (see make chapters for the list)."; exit 2; fi
	@$(PYTHON) tools/workbook.py chapters >/dev/null 2>&1 || { echo "Python 3 was not found: install it (Debian/Ubuntu: sudo apt-get install python3)."; exit 1; }
	@if ! ls -d chapters/$(CHAPTER)_* >/dev/null 2>&1; then $(PYTHON) tools/workbook.py check $(CH); exit 2; fi
endef

check-chapter: configure
	$(call need_chapter,check-chapter)
	@cmake --build $(BUILD) --target ch$(CHAPTER) -j $(JOBS)
	@$(TOOL) check $(CH) $(if $(STAGE),--stage $(STAGE))

memcheck-chapter: configure
	$(call need_chapter,memcheck-chapter)
	@command -v compute-sanitizer >/dev/null 2>&1 || { echo "compute-sanitizer was not found: it ships with the CUDA Toolkit (bin/ folder); put that folder on PATH."; exit 1; }
	@cmake --build $(BUILD) --target ch$(CHAPTER) -j $(JOBS)
	WORKBOOK_MEMCHECK=1 WORKBOOK_SANITIZE=0 WORKBOOK_CORRECTNESS_ONLY=1 WORKBOOK_KERNEL_TIMEOUT=600 compute-sanitizer --tool memcheck --error-exitcode 1 \
	  $(BUILD)/bin/ch$(CHAPTER)_grade_exercises $(if $(STAGE),"[stage$(STAGE)]")

chapters:
	@$(PYTHON) tools/workbook.py chapters

test: configure
	cmake --build $(BUILD) -j $(JOBS)
	ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS) -LE "skeletons|catalog|docs"

# The graders' own test (docs/grading.md): builds the catalog of known-wrong kernels too
# (WORKBOOK_CATALOG=ON, remembered in the build folder), runs the harness's CPU tests, then
# tools/selfcheck.py: one table, exit status 1 on any surprise. Without a GPU it says so and passes.
selfcheck: configure
	cmake -S . -B $(BUILD) -DWORKBOOK_CATALOG=ON -DWORKBOOK_SCAFFOLD_LEVELS=ON >/dev/null
	cmake --build $(BUILD) -j $(JOBS)
	ctest --test-dir $(BUILD) --output-on-failure -L cpu
	@$(PYTHON) tools/selfcheck.py --build $(BUILD)

selfcheck-static:
	@$(PYTHON) tools/selfcheck.py --static

bench: configure
	cmake --build $(BUILD) -j $(JOBS)
	@$(TOOL) bench

docs: configure
	cmake --build $(BUILD) --target docs

clean:
	rm -rf $(BUILD)

# The learner's tools (tools/wbtools/). State lives in $(BUILD)/progress.json, which git ignores.

progress:
	@$(TOOL) progress $(CH)

hint:
	@$(TOOL) hint $(CH) $(if $(STAGE),--stage $(STAGE)) $(if $(filter 1 yes,$(RESET)),--reset) $(if $(filter 1 yes,$(ALL)),--all)

reset-chapter:
	$(call need_chapter,reset-chapter)
	@$(TOOL) reset $(CH) $(if $(STAGE),--stage $(STAGE)) $(if $(LEVEL),--level $(LEVEL)) $(if $(filter 1 yes,$(FORCE)),--force)

watch-chapter: configure
	$(call need_chapter,watch-chapter)
	@$(TOOL) watch $(CH) $(if $(STAGE),--stage $(STAGE))

drill: configure
	@$(TOOL) drill $(CH) $(if $(STAGE),--stage $(STAGE)) $(if $(filter 1 yes,$(PAPER)),--paper) \
	  $(if $(PAPER_MINUTES),--minutes $(PAPER_MINUTES))

drill-grade:
	@$(TOOL) drill --grade

drill-stop:
	@$(TOOL) drill --stop

profile-chapter: configure
	$(call need_chapter,profile-chapter)
	@cmake --build $(BUILD) --target ch$(CHAPTER) $(if $(STAGE),,ch$(CHAPTER)_grade_solutions) -j $(JOBS)
	@$(TOOL) profile $(CH) $(if $(STAGE),--stage $(STAGE))

plot-chapter:
	$(call need_chapter,plot-chapter)
	@$(TOOL) plot $(CH)

# The autotuner (tools/wbtools/tune.py): builds one program per candidate of chapters/NN_*/tune/candidates.json
# (the build does that itself; the programs are not part of `make test`), times them, keeps the winner.
tune-chapter: configure
	$(call need_chapter,tune-chapter)
	@$(TOOL) tune $(CH) $(if $(ONLY),--only $(ONLY))

# The CPU emulator's memory-behaviour counters of every reference stage, as a Markdown table (docs/emulation.md).
emu-profile-chapter: configure
	$(call need_chapter,emu-profile-chapter)
	@cmake --build $(BUILD) --target ch$(CHAPTER)_grade_solutions -j $(JOBS)
	@$(PYTHON) tools/emu_profile_table.py $(CH)

# Chapter numbers given as goals (make check-chapter 2) are arguments: do nothing for them.
$(sort $(CHAPTER_NUMBERS) $(NUMBER_GOALS)):
	@:
