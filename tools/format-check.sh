#!/usr/bin/env bash
# Checks that the C++ and CUDA sources follow .clang-format: lists each file clang-format would
# change, with how many lines, and exits 1 if there is any.
#   tools/format-check.sh [folders...]      default: the folders below
#   tools/format-check.sh --fix [folders...] reformats those files in place instead
# Exit status 77 (a skipped test for ctest) when clang-format is missing or is not the major version
# the style was tuned with: another version breaks some lines differently, which is not an error of
# the sources. CLANG_FORMAT names another binary.
set -uo pipefail
cd "$(dirname "$0")/.."
expected_major=14
folders=(harness emu chapters solutions scaffolds exercises catalog)

fix=0
if [ "${1:-}" = "--fix" ]; then
  fix=1
  shift
fi
[ $# -gt 0 ] && folders=("$@")

clang_format="${CLANG_FORMAT:-$(command -v clang-format || true)}"
if [ -z "$clang_format" ]; then
  echo "format-check: clang-format is not installed (apt-get install clang-format); skipped."
  exit 77
fi
major="$("$clang_format" --version | sed -n 's/.*version \([0-9]*\).*/\1/p')"
if [ "$major" != "$expected_major" ]; then
  echo "format-check: $("$clang_format" --version) is not clang-format $expected_major; skipped."
  exit 77
fi

mapfile -t files < <(git ls-files -- "${folders[@]}" 2>/dev/null | grep -E '\.(cpp|hpp|h|cu|cuh)$' ||
                     find "${folders[@]}" -type f \( -name '*.cpp' -o -name '*.hpp' -o -name '*.h' -o -name '*.cu' -o -name '*.cuh' \))
if [ $fix -eq 1 ]; then
  "$clang_format" -i --style=file "${files[@]}"
  echo "format-check: reformatted ${#files[@]} files."
  exit 0
fi

changed_files=0
changed_lines=0
for f in "${files[@]}"; do
  n=$("$clang_format" --style=file "$f" | diff "$f" - | grep -c '^<')
  if [ "$n" -gt 0 ]; then
    echo "$f: $n lines would change"
    changed_files=$((changed_files + 1))
    changed_lines=$((changed_lines + n))
  fi
done
if [ $changed_files -gt 0 ]; then
  echo "format-check: $changed_lines lines in $changed_files of ${#files[@]} files differ from .clang-format;" \
       "tools/format-check.sh --fix ${folders[*]} reformats them."
  exit 1
fi
echo "format-check: ${#files[@]} files follow .clang-format."
