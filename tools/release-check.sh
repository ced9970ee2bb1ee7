#!/usr/bin/env bash
# The whole GPU verification of the workbook in one command, for maintainers before a release:
# build everything with the catalog of known-wrong kernels, run `make selfcheck` several times
# (every solution passes, every skeleton says "not implemented yet", every catalog entry fails for
# its reason; outcomes that differ between repetitions are listed as flaky), then `make bench`.
#   SELFCHECK_REPEAT=3 SELFCHECK_DEADLINE=300 [SELFCHECK_CHAPTERS="1 2"] tools/release-check.sh [steps]
# steps: any of build, selfcheck, bench, checktime (default: build, selfcheck, bench, in that order).
# checktime: `make check-chapter N` with the reference solutions copied into exercises/, timed with and
# without the compute-sanitizer pass, for the chapters in CHECKTIME_CHAPTERS (default 1 to 7); the
# exercises are restored afterwards.
# Repetitions split over several runs (each keeps $OUT/selfcheck.json) are judged together with
#   python3 tools/selfcheck.py --merge run1/selfcheck.json run2/selfcheck.json
# Logs and tables go to $OUT (or build/release-check).
set -uo pipefail
cd "$(dirname "$0")/.."
out="${OUT:-build/release-check}"
mkdir -p "$out"
repeat="${SELFCHECK_REPEAT:-3}"
deadline="${SELFCHECK_DEADLINE:-300}"
steps="${*:-build selfcheck bench}"
chapters="${CHECKTIME_CHAPTERS:-1 2 3 4 5 6 7}"
want() { [[ " $steps " == *" $1 "* ]]; }
{
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv
  nvcc --version | tail -1
  date -u +"%Y-%m-%d %H:%M UTC"
} > "$out/gpu.txt" 2>&1
cat "$out/gpu.txt"

start=$(date +%s)
if want build; then
  cmake -S . -B build -G Ninja -DWORKBOOK_CATALOG=ON > "$out/configure.log" 2>&1 || { tail -30 "$out/configure.log"; exit 1; }
  cmake --build build -j "$(nproc)" > "$out/build.log" 2>&1 || { grep -E "error|Error" "$out/build.log" | head -40; exit 1; }
  echo "build: $(( $(date +%s) - start )) s"
  ctest --test-dir build -L cpu > "$out/cpu-tests.log" 2>&1; grep -E "tests passed|tests failed" "$out/cpu-tests.log"
fi
if want selfcheck; then
  python3 tools/selfcheck.py --build build --repeat "$repeat" --deadline "$deadline" \
    ${SELFCHECK_CHAPTERS:+--chapters $SELFCHECK_CHAPTERS} \
    --output "$out/selfcheck.txt" --json "$out/selfcheck.json" > "$out/selfcheck.log" 2>&1
  echo "selfcheck exit status: $?  ($(( $(date +%s) - start )) s)"
  tail -n 25 "$out/selfcheck.txt"
fi
if want bench; then
  python3 tools/workbook.py bench > "$out/bench.log" 2>&1
  echo "bench exit status: $?"
  cp build/bench/results.json build/bench/results.md "$out/" 2>/dev/null || true
fi
if want checktime; then
  saved="$(mktemp -d)"
  cp -r exercises "$saved/"
  for d in solutions/*/; do cp "$d"*.cu "exercises/$(basename "$d")/"; done
  : > "$out/checktime.txt"
  for n in $chapters; do
    cmake --build build --target "ch$(printf '%02d' "$n")" -j "$(nproc)" > /dev/null 2>&1
    for sanitize in 1 0; do
      t0=$(date +%s.%N)
      WORKBOOK_SANITIZE=$sanitize python3 tools/workbook.py check "$n" > "$out/check-ch$n-sanitize$sanitize.log" 2>&1
      rc=$?
      t1=$(date +%s.%N)
      printf 'chapter %s  sanitizer pass %s  %6.1f s  exit %s  %s\n' "$n" "$([ $sanitize = 1 ] && echo on || echo off)" \
        "$(awk "BEGIN { print $t1 - $t0 }")" "$rc" "$(grep -c "ok stage" "$out/check-ch$n-sanitize$sanitize.log") stages passed" \
        | tee -a "$out/checktime.txt"
    done
  done
  rm -rf exercises && cp -r "$saved/exercises" . && rm -rf "$saved"
fi
echo "total: $(( $(date +%s) - start )) s"
