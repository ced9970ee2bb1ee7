#!/usr/bin/env bash
# Everything that needs a real GPU, in one go: build, every solution grader, every skeleton,
# the benchmarks. Logs go to $OUT (or build/gpu-check). Used by the maintainers before a release:
#   tools/gpu-check.sh [chapters...]        e.g. tools/gpu-check.sh 1 2
set -uo pipefail
cd "$(dirname "$0")/.."
out="${OUT:-build/gpu-check}"
mkdir -p "$out"
chapters=("$@")
{
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv
  nvcc --version | tail -1
} > "$out/gpu.txt" 2>&1
cat "$out/gpu.txt"

start=$(date +%s)
cmake -S . -B build -G Ninja > "$out/configure.log" 2>&1 || { tail -30 "$out/configure.log"; exit 1; }
targets=()
if [ ${#chapters[@]} -gt 0 ]; then
  for c in "${chapters[@]}"; do targets+=(--target "$(printf 'ch%02d_grade_solutions' "$c")" --target "$(printf 'ch%02d_grade_exercises' "$c")"); done
fi
cmake --build build -j "$(nproc)" "${targets[@]}" > "$out/build.log" 2>&1 || { grep -E "error|Error" "$out/build.log" | head -40; exit 1; }
echo "build: $(( $(date +%s) - start )) s"

label_args=()
if [ ${#chapters[@]} -gt 0 ]; then
  regex=$(printf 'ch%02d|' "${chapters[@]}"); regex="^(${regex%|})\\."
  label_args=(-R "$regex")
fi
# Solutions: every stage must pass. -V keeps each stage's report (speed lines included) in the log.
ctest --test-dir build "${label_args[@]}" -L solutions -V > "$out/solutions.log" 2>&1
python3 tools/workbook.py results < "$out/solutions.log"
grep -E "tests passed|tests failed|Failed|Timeout" "$out/solutions.log" | tail -20
# Skeletons: every untouched exercise must report "not implemented yet".
ctest --test-dir build "${label_args[@]}" -L skeletons > "$out/skeletons.log" 2>&1
grep -E "tests passed|tests failed|Failed" "$out/skeletons.log" | tail -10
python3 tools/workbook.py bench "${chapters[@]}" > "$out/bench.log" 2>&1; tail -60 "$out/bench.log"
cp build/bench/results.json "$out/" 2>/dev/null || true
echo "total: $(( $(date +%s) - start )) s"
