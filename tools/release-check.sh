#!/usr/bin/env bash
# The GPU verification of the workbook, for maintainers before a release, on a machine with an
# NVIDIA GPU. One script, in steps:
#   tools/release-check.sh [steps]              default steps: build selfcheck bench
#   build      configure with the catalog of known-wrong kernels, build (only CHAPTERS' graders and
#              catalog entries when CHAPTERS is set), run the harness's CPU tests
#   selfcheck  `make selfcheck` SELFCHECK_REPEAT times (default 3; no repetition starts that would end
#              past SELFCHECK_DEADLINE seconds, default 300): every solution passes, every skeleton says
#              "not implemented yet", every catalog entry fails for its reason; outcomes that differ
#              between repetitions are listed as flaky
#   bench      `make bench`: build/bench/results.json and results.md, copied to $OUT
#   sanitize   every reference solution under compute-sanitizer, correctness checks only: memcheck,
#              racecheck and synccheck (SANITIZE_TOOLS), one run per tool and chapter, each limited to
#              SANITIZE_TIMEOUT seconds (default 1800); no run starts after SANITIZE_DEADLINE seconds
#              (default 0: no deadline). On an H100 every run took seconds to a minute, except racecheck
#              on chapter 7 (1000^3 products in its correctness cases): 2 to 5 minutes per stage.
#   checktime  `make check-chapter N` with the reference solutions copied into exercises/, timed with
#              and without the compute-sanitizer pass; the exercises are restored afterwards
#   profile    `make profile-chapter N` (Nsight Compute) for every reference stage of each chapter: the
#              Markdown tables of the READMEs' "Reading the profile" sections, in $OUT/profile-chNN.md;
#              and chapter 5 stage 4 with the solution as the candidate (the three-column table)
#   tune       `make tune-chapter N` for each chapter that has an autotuner (chapter 7): every candidate
#              shape timed against the library; the result file and its table are copied to $OUT
#   tensorcheck  the tensor-core primitives (chapters/common/tensor_core.cuh) on this GPU against the
#              fragment layouts of the PTX ISA that the emulator's tests use (emu/tests/gpu/)
#   mutate     tools/mutate.py on each chapter with the CUDA backend (its own scratch copy, build/mutate):
#              MUTATE_OPERATORS (default width: 64-bit integers narrowed to int, which only the GPU's
#              cases past 2^31 can catch; the other operators are judged as well in emulation) and
#              MUTATE_STAGE; the survivors are listed in $OUT/mutants-chNN.log. A survivor is not a failure
#              by itself: it is read, and is either harmless or a gap for a catalog entry.
# SELFCHECK_SUITES (default harness,solutions,skeletons,catalog) and SELFCHECK_MATCH (a regular expression
# on catalog entry names) narrow the selfcheck step, e.g. to the solutions and the entries a change concerns.
# CHAPTERS="1 2" limits every step to those chapters (default: every chapter), e.g. a quick check of
# the chapters a change touched:  CHAPTERS="1 2" tools/release-check.sh build selfcheck bench
# Repetitions split over several runs (each keeps $OUT/selfcheck.json) are judged together with
#   python3 tools/selfcheck.py --merge run1/selfcheck.json run2/selfcheck.json
# Logs and tables go to $OUT (or build/release-check). The exit status is 1 when a step found a problem.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
out="${OUT:-build/release-check}"
mkdir -p "$out"
steps="${*:-build selfcheck bench}"
read -r -a chapters <<< "${CHAPTERS:-}"
if [ ${#chapters[@]} -eq 0 ]; then
  for dir in chapters/[0-9][0-9]_*/; do chapters+=("$((10#$(basename "$dir" | cut -c1-2)))"); done
fi
all_chapters=$([ -z "${CHAPTERS:-}" ] && echo 1 || echo 0)
suites="${SELFCHECK_SUITES:-harness,solutions,skeletons,catalog}"
want() { [[ " $steps " == *" $1 "* ]]; }
for step in $steps; do
  case $step in build|selfcheck|bench|sanitize|checktime|profile|tune|tensorcheck|mutate) ;; *) echo "unknown step '$step': use build, selfcheck, bench, sanitize, checktime, profile, tune, tensorcheck or mutate"; exit 2 ;; esac
done
prefix() { printf 'ch%02d' "$1"; }
{
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv
  nvcc --version | tail -1
  date -u +"%Y-%m-%d %H:%M UTC"
} > "$out/gpu.txt" 2>&1
cat "$out/gpu.txt"
failed=0
start=$(date +%s)

step_build() {
  cmake -S . -B build -G Ninja -DWORKBOOK_CATALOG=ON -DWORKBOOK_SCAFFOLD_LEVELS=ON > "$out/configure.log" 2>&1 || { tail -30 "$out/configure.log"; exit 1; }
  local targets=()
  if [ "$all_chapters" = 0 ]; then   # the chapters' graders and catalog entries, and the harness's tests
    targets=(--target workbook_cpu_tests)
    for c in "${chapters[@]}"; do
      for t in $(ninja -C build -t targets all 2>/dev/null | grep -oE "^$(prefix "$c")_(grade_solutions|grade_exercises|grade_guided|grade_blank|catalog_[A-Za-z0-9_]+)(:| )" | tr -d ': ' | sort -u); do
        # only what the selfcheck step will run (SELFCHECK_SUITES, SELFCHECK_MATCH)
        case $t in
          *_grade_exercises|*_grade_guided|*_grade_blank) [[ ",$suites," == *",skeletons,"* ]] || continue ;;
          *_catalog_*) [[ ",$suites," == *",catalog,"* ]] || continue
                       [[ -z "${SELFCHECK_MATCH:-}" ]] || python3 -c 'import re,sys; sys.exit(not re.search(sys.argv[1], sys.argv[2]))' "$SELFCHECK_MATCH" "${t#*_catalog_}" || continue ;;
        esac
        targets+=(--target "$t")
      done
    done
  fi
  cmake --build build -j "$(nproc)" "${targets[@]}" > "$out/build.log" 2>&1 || { grep -E "error|Error" "$out/build.log" | head -40; exit 1; }
  echo "build: $(( $(date +%s) - start )) s"
  ctest --test-dir build -L cpu > "$out/cpu-tests.log" 2>&1 || failed=1
  grep -E "tests passed|tests failed" "$out/cpu-tests.log"
}

step_selfcheck() {
  local chapter_args=()
  [ "$all_chapters" = 0 ] && chapter_args=(--chapters "${chapters[@]}")
  python3 tools/selfcheck.py --build build --repeat "${SELFCHECK_REPEAT:-3}" --deadline "${SELFCHECK_DEADLINE:-300}" \
    "${chapter_args[@]}" --suites "$suites" \
    --match "${SELFCHECK_MATCH:-}" --output "$out/selfcheck.txt" --json "$out/selfcheck.json" > "$out/selfcheck.log" 2>&1
  local code=$?
  [ "$code" = 0 ] || failed=1
  echo "selfcheck exit status: $code  ($(( $(date +%s) - start )) s)"
  tail -n 25 "$out/selfcheck.txt"
}

step_bench() {
  local chapter_args=()
  [ "$all_chapters" = 0 ] && chapter_args=("${chapters[@]}")
  python3 tools/workbook.py bench "${chapter_args[@]}" > "$out/bench.log" 2>&1
  local code=$?
  [ "$code" = 0 ] || failed=1
  echo "bench exit status: $code"
  tail -n 60 "$out/bench.log"
  cp build/bench/results.json build/bench/results.md "$out/" 2>/dev/null || true
}

# One line per tool and chapter: clean, ERRORS, HAZARDS (racecheck counts most hazards as warnings,
# which do not set the exit status), TIMED OUT or NOT RUN (past the deadline).
step_sanitize() {
  local sanitizer limit deadline
  sanitizer="$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)"
  [ -x "$sanitizer" ] || { echo "compute-sanitizer was not found: it ships with the CUDA Toolkit (bin/ folder); put that folder on PATH."; failed=1; return; }
  limit="${SANITIZE_TIMEOUT:-1800}"
  deadline="${SANITIZE_DEADLINE:-0}"
  for tool in ${SANITIZE_TOOLS:-memcheck racecheck synccheck}; do
    for c in "${chapters[@]}"; do
      local name log t0 code summary stages hazards verdict
      name=$(prefix "$c")
      log="$out/$name-$tool.log"
      if [ "$deadline" -gt 0 ] && [ $(( $(date +%s) - start )) -gt "$deadline" ]; then
        printf '%-10s %s  %s\n' "$tool" "$name" "NOT RUN (past the deadline of $deadline s)"; continue
      fi
      t0=$(date +%s)
      WORKBOOK_MEMCHECK=1 WORKBOOK_SANITIZE=0 WORKBOOK_CORRECTNESS_ONLY=1 WORKBOOK_KERNEL_TIMEOUT=600 timeout "$limit" \
        "$sanitizer" --tool "$tool" --error-exitcode 99 "build/bin/${name}_grade_solutions" > "$log" 2>&1
      code=$?
      summary=$(grep -E "(ERROR|RACECHECK) SUMMARY" "$log" | tail -1 | sed 's/^=* *//')
      stages=$(grep -c '^WORKBOOK-RESULT .*"status": "passed"' "$log")
      hazards=$(grep -o -E "RACECHECK SUMMARY: [0-9]+ hazard" "$log" | grep -o -E "[0-9]+" | tail -1)
      [ "$code" = 0 ] && [ "${hazards:-0}" -gt 0 ] && code=98
      case $code in
        0) verdict="clean" ;;
        124) verdict="TIMED OUT after ${limit} s" ;;
        99) verdict="ERRORS" ;;
        98) verdict="HAZARDS" ;;
        *) verdict="grader exit status $code" ;;
      esac
      printf '%-10s %s  %-22s %3s s  %s stages passed  %s\n' "$tool" "$name" "$verdict" "$(( $(date +%s) - t0 ))" \
        "$stages" "$summary"
    done
  done | tee "$out/sanitize.txt"
  grep -q -E "TIMED OUT|ERRORS|HAZARDS|exit status|NOT RUN" "$out/sanitize.txt" && failed=1
}

step_checktime() {
  local saved
  saved="$(mktemp -d)"
  cp -r exercises "$saved/"
  for d in solutions/*/; do cp "$d"*.cu "exercises/$(basename "$d")/"; done
  : > "$out/checktime.txt"
  for n in "${chapters[@]}"; do
    cmake --build build --target "$(prefix "$n")" -j "$(nproc)" > /dev/null 2>&1
    for sanitize in 1 0; do
      local t0 t1 rc log="$out/check-ch$n-sanitize$sanitize.log"
      t0=$(date +%s.%N)
      WORKBOOK_SANITIZE=$sanitize python3 tools/workbook.py check "$n" > "$log" 2>&1
      rc=$?
      t1=$(date +%s.%N)
      printf 'chapter %s  sanitizer pass %s  %6.1f s  exit %s  %s\n' "$n" "$([ "$sanitize" = 1 ] && echo on || echo off)" \
        "$(awk "BEGIN { print $t1 - $t0 }")" "$rc" "$(grep -c "ok stage" "$log") stages passed" | tee -a "$out/checktime.txt"
    done
  done
  rm -rf exercises && cp -r "$saved/exercises" . && rm -rf "$saved"
}

step_profile() {
  for n in "${chapters[@]}"; do
    local log
    log="$out/profile-$(prefix "$n").md"
    timeout "${PROFILE_TIMEOUT:-600}" python3 tools/workbook.py profile "$n" --markdown > "$log" 2>&1 || failed=1
    echo "profile chapter $n: $(grep -c '^|' "$log") table lines ($(( $(date +%s) - start )) s)"
  done
  [[ " ${chapters[*]} " == *" 5 "* ]] || return 0   # the three-column table is chapter 5's
  python3 tools/workbook.py profile 5 --stage 4 --solutions > "$out/profile-ch05-stage4.txt" 2>&1 || failed=1
  cat "$out/profile-ch05-stage4.txt"
}

step_tune() {
  for n in "${chapters[@]}"; do
    local dir
    dir=$(ls -d chapters/"$(printf '%02d' "$n")"_*/tune 2>/dev/null) || continue
    python3 tools/workbook.py tune "$n" > "$out/tune-$(prefix "$n").log" 2>&1 || failed=1
    tail -n 25 "$out/tune-$(prefix "$n").log"
    cp "$dir"/results/*.json "build/tune/$(prefix "$n").md" "$out/" 2>/dev/null || true
  done
}

step_tensorcheck() {
  local arch
  arch="$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -1 | tr -d '.')"
  nvcc -std=c++17 -arch="sm_${arch:-80}" -I chapters emu/tests/gpu/tensor_core_check.cu -o build/tensor_core_check \
    > "$out/tensorcheck.log" 2>&1 && build/tensor_core_check >> "$out/tensorcheck.log" 2>&1 || failed=1
  tail -n 20 "$out/tensorcheck.log"
}

step_mutate() {
  local stage=()
  [ -n "${MUTATE_STAGE:-}" ] && stage=(--stage "$MUTATE_STAGE")
  for n in "${chapters[@]}"; do
    python3 tools/mutate.py --chapter "$n" --backend cuda --operators "${MUTATE_OPERATORS:-width}" "${stage[@]}" \
      --scratch build/mutate > "$out/mutants-$(prefix "$n").log" 2>&1 || failed=1
    sed -n '/mutants built/,$p' "$out/mutants-$(prefix "$n").log"
    cp "build/mutate/mutants-$(prefix "$n").json" "$out/" 2>/dev/null || true
  done
}

# In this order, whatever order the steps were given in.
for step in build selfcheck bench sanitize checktime profile tune tensorcheck mutate; do
  want "$step" && "step_$step"
done
echo "total: $(( $(date +%s) - start )) s"
exit $failed
