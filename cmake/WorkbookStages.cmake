# The one CMake reader of a chapter's stages.json, and the grader header generated from it.
#
# stages.json is the only list of a chapter's stages. Everything else about a stage is derived:
#   the files       exercises/<chapter>/<file>.cu and solutions/<chapter>/<file>.cu
#   the launcher    <op>_<file>, e.g. op "transpose" and file "3_shared_tile" -> transpose_3_shared_tile;
#                   "op" is the chapter's, or the stage's own where it has one ("op": "dot")
#   the tests       ctest chNN.solutions.stageK / chNN.skeletons.stageK, Catch2 tag [stageK]
#
# workbook_read_chapter(<folder under chapters/> <var>) reads and checks it once and sets, in the
# caller's scope:
#   <var>_NUMBER  <var>_TITLE (the chapter's)  <var>_PREFIX (ch02)  <var>_IDS  <var>_FILES  <var>_LAUNCHERS
#   <var>_SPEEDUPS (0 where there is no speed target)  <var>_MIN_CCS  <var>_LINK_LIBRARIES
# (<var>_MIN_CCS: each stage's "min_cc", else the chapter's, else 0.0: the compute capability it
# needs, "X.Y", or "X.Ya" for a stage that uses one architecture's own instructions, e.g. 9.0a: wgmma)
# (the lists have one entry per stage, in order) and <var>_TITLE_<id> for each stage (a title may
# hold a semicolon, which a CMake list cannot). Each mistake stops the configure step with one
# sentence that says which file to fix and how.
#
# workbook_write_stage_header(<folder> <var> <output>) writes what a chapter's grade.cpp includes
# (through harness/chapter_grader.hpp): the chapter's stages.cuh for both tracks, the stage table,
# the launchers of each stage (wb::stages::candidate<K>, previous<K>, current<K>) and
# WORKBOOK_STAGE_TEST_CASES(), one Catch2 TEST_CASE per stage.

function(workbook_json_get out json)
  string(JSON value ERROR_VARIABLE err GET "${json}" ${ARGN})
  if(err OR value STREQUAL "null")
    set(value "")
  endif()
  set(${out} "${value}" PARENT_SCOPE)
endfunction()

# The prefix of a chapter's targets and tests: chapter 2 -> ch02.
function(workbook_chapter_prefix out number)
  if(number LESS 10)
    set(${out} "ch0${number}" PARENT_SCOPE)
  else()
    set(${out} "ch${number}" PARENT_SCOPE)
  endif()
endfunction()

# Reads an optional "min_cc" (the compute capability a stage needs) at the JSON path ARGN into <out>;
# stops with one sentence if it is not a string such as "8.0" or "9.0a".
function(workbook_json_min_cc out json where)
  string(JSON type ERROR_VARIABLE err TYPE "${json}" ${ARGN})
  set(value "")
  if(NOT err AND NOT type STREQUAL "NULL")
    string(JSON value GET "${json}" ${ARGN})
  endif()
  if(NOT err AND NOT type MATCHES "^(NULL|STRING)$" OR NOT value MATCHES "^([1-9][0-9]?\\.[0-9]a?)?$")
    message(FATAL_ERROR "${where} \"min_cc\" is `${value}`; it is a compute capability as a string, "
                        "\"8.0\", or \"9.0a\" for a stage that runs on that architecture alone.")
  endif()
  set(${out} "${value}" PARENT_SCOPE)
endfunction()

function(workbook_read_chapter chapter_dir var)
  set(where "chapters/${chapter_dir}/stages.json")
  set(json_file "${CMAKE_SOURCE_DIR}/${where}")
  if(NOT EXISTS "${json_file}")
    message(FATAL_ERROR "chapters/${chapter_dir} has no stages.json: every chapter lists its stages there.")
  endif()
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${json_file}")
  file(READ "${json_file}" json)
  string(JSON stage_count ERROR_VARIABLE parse_error LENGTH "${json}" stages)
  if(parse_error)
    message(FATAL_ERROR "${where} is not valid JSON with a \"stages\" list (${parse_error}).")
  endif()

  workbook_json_get(number "${json}" chapter)
  if(NOT number MATCHES "^[1-9][0-9]*$" OR NOT chapter_dir MATCHES "^0*${number}_")
    message(FATAL_ERROR "${where}: \"chapter\" is `${number}`, but the folder's number says otherwise: "
                        "chapters/NN_name holds chapter NN.")
  endif()
  workbook_json_get(chapter_op "${json}" op)
  if(NOT chapter_op MATCHES "^[a-z][a-z0-9_]*$")
    message(FATAL_ERROR "${where}: the chapter needs an \"op\" (lower case, e.g. \"transpose\"): every "
                        "launcher is named <op>_<file>.")
  endif()
  workbook_json_get(title "${json}" title)
  workbook_json_min_cc(chapter_min_cc "${json}" "${where}: the chapter's" min_cc)
  workbook_chapter_prefix(prefix ${number})
  set(chapter_title "${title}")

  file(READ "${CMAKE_SOURCE_DIR}/chapters/${chapter_dir}/stages.cuh" contract)
  set(ids "")
  set(files "")
  set(launchers "")
  set(speedups "")
  set(min_ccs "")
  math(EXPR last "${stage_count} - 1")
  foreach(i RANGE ${last})
    math(EXPR expected_id "${i} + 1")
    workbook_json_get(id "${json}" stages ${i} id)
    workbook_json_get(file "${json}" stages ${i} file)
    workbook_json_get(stage_op "${json}" stages ${i} op)
    workbook_json_get(function "${json}" stages ${i} function)
    workbook_json_get(title "${json}" stages ${i} title)
    workbook_json_get(speedup "${json}" stages ${i} speedup)
    workbook_json_min_cc(min_cc "${json}" "${where}: stage ${expected_id}'s" stages ${i} min_cc)
    if(NOT id STREQUAL expected_id)
      message(FATAL_ERROR "${where}: stage number ${expected_id} in the list has \"id\": `${id}`; the ids "
                          "are 1, 2, 3, ... in the order of the list.")
    endif()
    if(NOT function STREQUAL "")
      message(FATAL_ERROR "${where}: stage ${id} has a \"function\"; remove it: the launcher's name is "
                          "derived, <op>_<file>.")
    endif()
    if(NOT file MATCHES "^${id}_[a-z0-9_]+$")
      message(FATAL_ERROR "${where}: stage ${id}'s \"file\" is `${file}`; it must be ${id}_<lower-case words>, "
                          "e.g. ${id}_shared_tile.")
    endif()
    foreach(track exercises solutions)
      if(NOT EXISTS "${CMAKE_SOURCE_DIR}/${track}/${chapter_dir}/${file}.cu")
        message(FATAL_ERROR "Stage ${id} of chapter ${number} needs ${track}/${chapter_dir}/${file}.cu, "
                            "which is missing: restore it with `git checkout -- ${track}/${chapter_dir}`.")
      endif()
    endforeach()
    if(stage_op STREQUAL "")
      set(stage_op "${chapter_op}")
    elseif(NOT stage_op MATCHES "^[a-z][a-z0-9_]*$")
      message(FATAL_ERROR "${where}: stage ${id}'s \"op\" is `${stage_op}`; an op is lower case, e.g. \"dot\".")
    endif()
    set(launcher "${stage_op}_${file}")
    if(NOT contract MATCHES "[^A-Za-z0-9_]${launcher}[ \t\r\n]*\\(")
      message(FATAL_ERROR "chapters/${chapter_dir}/stages.cuh does not declare ${launcher}, the launcher of "
                          "stage ${id} (<op>_<file>): declare it there.")
    endif()
    if(title STREQUAL "" OR title MATCHES "[\n\\\\]")
      message(FATAL_ERROR "${where}: stage ${id} needs a \"title\" on one line, without backslashes.")
    endif()
    if(speedup STREQUAL "")
      set(speedup 0)
    elseif(NOT speedup MATCHES "^[0-9]+(\\.[0-9]+)?$")
      message(FATAL_ERROR "${where}: stage ${id}'s \"speedup\" is `${speedup}`; it is a number (the speed-up "
                          "required over the previous stage) or null (no speed target).")
    endif()
    list(APPEND ids ${id})
    list(APPEND files ${file})
    list(APPEND launchers ${launcher})
    set(${var}_TITLE_${id} "${title}" PARENT_SCOPE)
    list(APPEND speedups ${speedup})
    if(min_cc STREQUAL "")
      set(min_cc "${chapter_min_cc}")
    endif()
    if(min_cc STREQUAL "")
      set(min_cc "0.0")
    endif()
    list(APPEND min_ccs ${min_cc})
  endforeach()

  # Optional "link_libraries": ["CUDA::cublas", ...]: libraries that the chapter's support code needs.
  set(link_libraries "")
  string(JSON link_count ERROR_VARIABLE link_error LENGTH "${json}" link_libraries)
  if(NOT link_error AND link_count GREATER 0)
    math(EXPR link_last "${link_count} - 1")
    foreach(j RANGE ${link_last})
      workbook_json_get(library "${json}" link_libraries ${j})
      list(APPEND link_libraries ${library})
    endforeach()
  endif()

  set(title "${chapter_title}")
  foreach(field NUMBER TITLE PREFIX IDS FILES LAUNCHERS SPEEDUPS MIN_CCS LINK_LIBRARIES)
    string(TOLOWER "${field}" local)
    set(${var}_${field} "${${local}}" PARENT_SCOPE)
  endforeach()
endfunction()

function(workbook_write_stage_header chapter_dir var output)
  set(number "${${var}_NUMBER}")
  set(table "")
  set(launchers "")
  set(test_cases "")
  set(previous "nullptr")
  set(counted_previous "nullptr")
  set(index 0)
  foreach(id IN LISTS ${var}_IDS)
    list(GET ${var}_LAUNCHERS ${index} launcher)
    set(title "${${var}_TITLE_${id}}")
    list(GET ${var}_SPEEDUPS ${index} speedup)
    list(GET ${var}_MIN_CCS ${index} min_cc)
    string(REGEX REPLACE "^([0-9]+)\\.([0-9])(a?)$" "\\1, \\2, \\3" min_cc_fields "${min_cc}")
    string(REGEX REPLACE ", a$" ", true" min_cc_fields "${min_cc_fields}")
    string(REGEX REPLACE ", $" ", false" min_cc_fields "${min_cc_fields}")
    string(REPLACE "\"" "\\\"" title "${title}")
    string(APPEND table "    {${id}, \"${title}\", ${speedup}, ${min_cc_fields}},\n")
    string(APPEND launchers
      "template <> inline constexpr auto candidate<${id}> = &::candidate::${launcher};\n"
      "template <> inline constexpr auto current<${id}> = &::reference::${launcher};\n"
      "template <> inline constexpr auto previous<${id}> = ${previous};\n"
      "template <> inline constexpr auto counted_candidate<${id}> = &::counted_candidate::${launcher};\n"
      "template <> inline constexpr auto counted_current<${id}> = &::counted::${launcher};\n"
      "template <> inline constexpr auto counted_previous<${id}> = ${counted_previous};\n")
    string(APPEND test_cases " \\\n    WORKBOOK_STAGE_TEST_CASE(${id}, \"stage ${id}: ${title}\", \"[stage${id}]\")")
    set(previous "&::reference::${launcher}")
    set(counted_previous "&::counted::${launcher}")
    math(EXPR index "${index} + 1")
  endforeach()

  file(CONFIGURE OUTPUT "${output}" CONTENT
"// Generated by CMake (cmake/WorkbookStages.cmake) from chapters/${chapter_dir}/stages.json.
// Edit stages.json, not this file. Included by harness/chapter_grader.hpp.
#pragma once

// The chapter's contract, once per track: reference:: (solutions/) and learner:: (exercises/).
#define WORKBOOK_TRACK reference
#include \"${chapter_dir}/stages.cuh\"
#undef WORKBOOK_TRACK
#define WORKBOOK_TRACK learner
#include \"${chapter_dir}/stages.cuh\"
#undef WORKBOOK_TRACK
// In the emulated build of a chapter that compares memory behaviour, the references once more,
// instrumented, as counted:: (harness/emulated_profile.hpp); elsewhere counted:: is reference::.
#if WORKBOOK_COUNTED_REFERENCES
#define WORKBOOK_TRACK counted
#include \"${chapter_dir}/stages.cuh\"
#undef WORKBOOK_TRACK
#endif

#include \"harness/stage_info.hpp\"

namespace wb::generated {
inline constexpr int kChapter = ${number};
inline constexpr int kStageCount = ${index};
inline constexpr wb::StageInfo kStages[] = {
${table}};
}  // namespace wb::generated

// The launchers of stage K: the one graded (candidate<K>), reference stage K (current<K>) and
// reference stage K - 1 (previous<K>; nullptr for stage 1). The templates are in chapter_grader.hpp.
namespace wb::stages {
${launchers}}  // namespace wb::stages

/// One Catch2 test case per stage, \"stage K: <title>\" tagged [stageK], that grades the stage with
/// grade_stage_case<K>(wb::Stage&). grade.cpp expands it at its end, after its grade_stage_case.
#define WORKBOOK_STAGE_TEST_CASES()${test_cases}
" @ONLY)
endfunction()
