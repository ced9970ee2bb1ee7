#!/usr/bin/env bash
# Every reference solution under compute-sanitizer, correctness checks only: memcheck (bad or
# misaligned accesses, leaks), racecheck (shared-memory hazards) and synccheck (barriers misused).
# For maintainers, on a machine with an NVIDIA GPU:
#   tools/sanitize-check.sh [chapters...]           e.g. tools/sanitize-check.sh 2 5
# SANITIZE_TOOLS="memcheck racecheck synccheck", SANITIZE_TIMEOUT=1800 (seconds per run) and
# SANITIZE_DEADLINE (start no run after this many seconds; 0: none) may be set.
# On an H100 every run took seconds to a minute, except racecheck on chapter 7, whose correctness
# cases include 1000^3 products: stages 1 and 2 alone took 2 minutes, and stages 3 to 8, run side
# by side as six processes ([stageN] filters), took 2 to 5 minutes each.
# `tools/sanitize-check.sh 1 2 3 4 5 6` leaves chapter 7 out. Logs go to $OUT (or build/sanitize-check); the exit status is 1 if any run reported an error.
set -uo pipefail
cd "$(dirname "$0")/.."
out="${OUT:-build/sanitize-check}"
mkdir -p "$out"
tools="${SANITIZE_TOOLS:-memcheck racecheck synccheck}"
limit="${SANITIZE_TIMEOUT:-1800}"
deadline="${SANITIZE_DEADLINE:-0}"
sanitizer="$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)"
[ -x "$sanitizer" ] || { echo "compute-sanitizer was not found: it ships with the CUDA Toolkit (bin/ folder); put that folder on PATH."; exit 1; }

chapters=("$@")
if [ ${#chapters[@]} -eq 0 ]; then
  for dir in chapters/[0-9][0-9]_*/; do chapters+=("$((10#$(basename "$dir" | cut -c1-2)))"); done
fi

start=$(date +%s)
cmake -S . -B build -G Ninja > "$out/configure.log" 2>&1 || { tail -30 "$out/configure.log"; exit 1; }
targets=()
for c in "${chapters[@]}"; do targets+=(--target "$(printf 'ch%02d_grade_solutions' "$c")"); done
cmake --build build -j "$(nproc)" "${targets[@]}" > "$out/build.log" 2>&1 || { grep -E "error|Error" "$out/build.log" | head -40; exit 1; }
echo "build: $(( $(date +%s) - start )) s"

failed=0
for tool in $tools; do
  for c in "${chapters[@]}"; do
    name=$(printf 'ch%02d' "$c")
    log="$out/$name-$tool.log"
    if [ "$deadline" -gt 0 ] && [ $(( $(date +%s) - start )) -gt "$deadline" ]; then
      printf '%-10s %s  %s\n' "$tool" "$name" "NOT RUN (past the deadline of $deadline s)"; continue
    fi
    t0=$(date +%s)
    WORKBOOK_SANITIZE=0 WORKBOOK_CORRECTNESS_ONLY=1 WORKBOOK_KERNEL_TIMEOUT=600 timeout "$limit" \
      "$sanitizer" --tool "$tool" --error-exitcode 99 "build/bin/${name}_grade_solutions" > "$log" 2>&1
    code=$?
    summary=$(grep -E "(ERROR|RACECHECK) SUMMARY" "$log" | tail -1 | sed 's/^=* *//')
    stages=$(grep -c '^WORKBOOK-RESULT .*"status": "passed"' "$log")
    hazards=$(grep -o -E "RACECHECK SUMMARY: [0-9]+ hazard" "$log" | grep -o -E "[0-9]+" | tail -1)
    # racecheck counts most hazards as warnings, which do not set the exit status
    [ "$code" = 0 ] && [ "${hazards:-0}" -gt 0 ] && code=98
    case $code in
      0) verdict="clean" ;;
      124) verdict="TIMED OUT after ${limit} s"; failed=1 ;;
      99) verdict="ERRORS"; failed=1 ;;
      98) verdict="HAZARDS"; failed=1 ;;
      *) verdict="grader exit status $code"; failed=1 ;;
    esac
    printf '%-10s %s  %-22s %3s s  %s stages passed  %s\n' "$tool" "$name" "$verdict" "$(( $(date +%s) - t0 ))" "$stages" "$summary"
  done
done | tee "$out/summary.txt"
grep -q -E "TIMED OUT|ERRORS|HAZARDS|exit status|NOT RUN" "$out/summary.txt" && failed=1
echo "total: $(( $(date +%s) - start )) s"
exit $failed
