# workbook_add_catalog(<folder under chapters/>)
#
# The catalog of known-wrong kernels (catalog/NN_name/*.cu, never shipped as exercises): each file is
# one deliberately wrong version of one stage, with the verdict the grader must give it. `make selfcheck`
# builds and runs them; ordinary builds skip them (WORKBOOK_CATALOG is OFF by default), so that a
# learner's `make check-chapter` and CI compile nothing extra.
#
# An entry's file name starts with its stage number (2_no_tail.cu is a stage 2 entry), and its header has
#   // expect: <status> "<phrase>"
# status: wrong, not-implemented, too-slow, crashed or hung (what WORKBOOK-RESULT must say); phrase: words
# the grader's message must contain (letters, digits, spaces and - _ , ' : ( ) . = % / only);
# "a | b" accepts either (a race that the output shows on some runs and the sanitizer on others).
# The catalog also holds right kernels written in other styles (cooperative groups, other launch
# geometries): their header says `// expect: passed`, with no phrase, and the grader must pass them.
# An entry whose bug the CPU emulator sees differently, or cannot see, may add one line
#   // emulated: <status> "<phrase>"      the verdict to expect from the emulated build instead (too-slow:
#                                         the memory-behaviour counters, harness/emulated_profile.hpp)
#   // emulated: skip "<reason>"           no emulated test (the reason is printed as the skip)
# A bug that no output can show (a race that the hardware happens not to lose) has status `race`: its test runs the
# grader's correctness checks under compute-sanitizer's racecheck, which must report a hazard, and
# tools/selfcheck.py runs the reference of the same stage the same way as a control (no hazard).
#
# For each entry this creates chNN_catalog_<name> in bin/catalog/: the chapter's grader compiled as for
# the exercises, whose learner stages are the entry for its stage and the reference solutions (compiled
# into the learner's namespace) for every other stage. grade.cpp and the solutions are compiled once per
# chapter (OBJECT libraries); each entry adds one compile and one link. One ctest test per entry, label
# "catalog": it passes when the status and the phrase match.
option(WORKBOOK_CATALOG "Build the catalog of known-wrong kernels that make selfcheck runs" OFF)

function(workbook_add_catalog chapter_dir)
  set(catalog "${CMAKE_SOURCE_DIR}/catalog/${chapter_dir}")
  if(NOT WORKBOOK_CATALOG OR NOT IS_DIRECTORY "${catalog}")
    return()
  endif()
  file(GLOB entries CONFIGURE_DEPENDS "${catalog}/*.cu")
  if(NOT entries)
    return()
  endif()

  set(src "${CMAKE_SOURCE_DIR}/chapters/${chapter_dir}")
  file(READ "${src}/stages.json" json)
  string(JSON number GET "${json}" chapter)
  string(JSON stage_count LENGTH "${json}" stages)
  workbook_chapter_prefix(prefix ${number})
  set(gen "${CMAKE_BINARY_DIR}/generated/${chapter_dir}")

  # The grader, compiled once as for the exercises (its candidate namespace is `learner`).
  add_library(${prefix}_catalog_grader OBJECT "${src}/grader/grade.cpp")
  target_include_directories(${prefix}_catalog_grader PRIVATE "${CMAKE_SOURCE_DIR}/chapters" "${gen}")
  target_link_libraries(${prefix}_catalog_grader PRIVATE workbook_harness)
  if(${prefix}_COUNTED_LIBRARY)
    target_compile_definitions(${prefix}_catalog_grader PRIVATE WORKBOOK_COUNTED_REFERENCES=1)
  endif()
  workbook_emulated_target(${prefix}_catalog_grader)

  # Every reference stage compiled into the learner's namespace: the stages an entry does not replace.
  set(stage_ids "")
  math(EXPR last "${stage_count} - 1")
  foreach(i RANGE ${last})
    string(JSON id GET "${json}" stages ${i} id)
    string(JSON file GET "${json}" stages ${i} file)
    list(APPEND stage_ids ${id})
    add_library(${prefix}_catalog_stage${id} OBJECT "${CMAKE_SOURCE_DIR}/solutions/${chapter_dir}/${file}.cu")
    target_compile_definitions(${prefix}_catalog_stage${id} PRIVATE WORKBOOK_TRACK=learner)
    target_include_directories(${prefix}_catalog_stage${id} PRIVATE "${CMAKE_SOURCE_DIR}/chapters")
    target_link_libraries(${prefix}_catalog_stage${id} PRIVATE workbook_device)
    workbook_emulated_target(${prefix}_catalog_stage${id} REFERENCE)
  endforeach()

  foreach(entry IN LISTS entries)
    get_filename_component(name "${entry}" NAME_WE)
    file(RELATIVE_PATH shown "${CMAKE_SOURCE_DIR}" "${entry}")
    if(NOT name MATCHES "^([0-9]+)_[A-Za-z0-9_]+$")
      message(FATAL_ERROR "${shown}: a catalog entry's name is <stage>_<what_is_wrong>.cu, e.g. 2_no_tail.cu.")
    endif()
    set(stage "${CMAKE_MATCH_1}")
    if(NOT stage IN_LIST stage_ids)
      message(FATAL_ERROR "${shown}: chapter ${number} has no stage ${stage} (stages: ${stage_ids}).")
    endif()
    file(STRINGS "${entry}" expect_lines REGEX "^// expect: ")
    list(LENGTH expect_lines expect_count)
    if(NOT expect_count EQUAL 1)
      message(FATAL_ERROR "${shown}: needs exactly one line `// expect: <status> \"<phrase>\"`.")
    endif()
    if(expect_lines MATCHES "^// expect: passed *$")
      set(status passed)
      set(phrase "")
    elseif(expect_lines MATCHES "^// expect: (wrong|not-implemented|too-slow|crashed|hung|race) \"([-A-Za-z0-9_ ,':().=%/|]+)\" *$")
      set(status "${CMAKE_MATCH_1}")
      set(phrase "${CMAKE_MATCH_2}")
    else()
      message(FATAL_ERROR "${shown}: `${expect_lines}` is not `// expect: <status> \"<phrase>\"` (status: wrong, "
                          "not-implemented, too-slow, crashed, hung or race; phrase: letters, digits, spaces, - _ , ' : ( ) . = % /), "
                          "nor `// expect: passed` for a right kernel.")
    endif()
    file(STRINGS "${entry}" emulated_lines REGEX "^// emulated: ")
    set(emulated_skip "")
    set(emulated_verdict FALSE)
    if(WORKBOOK_EMULATED AND emulated_lines)
      if(emulated_lines MATCHES "^// emulated: skip \"([^\"]+)\" *$")
        set(emulated_skip "${CMAKE_MATCH_1}")
      elseif(emulated_lines MATCHES "^// emulated: (wrong|not-implemented|too-slow|crashed|hung|passed) \"([-A-Za-z0-9_ ,':().=%/|]*)\" *$")
        set(status "${CMAKE_MATCH_1}")
        set(phrase "${CMAKE_MATCH_2}")
        set(emulated_verdict TRUE)
      else()
        message(FATAL_ERROR "${shown}: `${emulated_lines}` is not `// emulated: <status> \"<phrase>\"` nor "
                            "`// emulated: skip \"<reason>\"`.")
      endif()
    endif()
    string(REGEX REPLACE "([().])" "\\\\\\1" phrase_regex "${phrase}")
    string(REPLACE " | " "|" phrase_regex "${phrase_regex}")

    set(target ${prefix}_catalog_${name})
    add_executable(${target} "${entry}")
    target_compile_definitions(${target} PRIVATE WORKBOOK_TRACK=learner)
    target_include_directories(${target} PRIVATE "${CMAKE_SOURCE_DIR}/chapters")
    target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:-diag-suppress=177>)
    target_link_libraries(${target} PRIVATE ${prefix}_catalog_grader workbook_harness ${prefix}_reference
                          ${${prefix}_COUNTED_LIBRARY})
    foreach(other IN LISTS stage_ids)
      if(NOT other STREQUAL stage)
        target_link_libraries(${target} PRIVATE ${prefix}_catalog_stage${other})
      endif()
    endforeach()
    if(TARGET ${prefix}_support)
      target_link_libraries(${target} PRIVATE ${prefix}_support)
    endif()
    set_target_properties(${target} PROPERTIES LINKER_LANGUAGE ${WORKBOOK_LINKER_LANGUAGE}
                          RUNTIME_OUTPUT_DIRECTORY "${CMAKE_BINARY_DIR}/bin/catalog")
    workbook_emulated_target(${target})

    if(emulated_skip)
      add_test(NAME ${prefix}.catalog.${name} COMMAND ${CMAKE_COMMAND} -E echo "WORKBOOK-SKIP: ${emulated_skip}")
      set_tests_properties(${prefix}.catalog.${name} PROPERTIES LABELS "emulated;catalog;${prefix}"
                           SKIP_REGULAR_EXPRESSION "WORKBOOK-SKIP")
    elseif(WORKBOOK_EMULATED AND NOT emulated_verdict AND (status STREQUAL "too-slow" OR phrase MATCHES "implausibly fast|cached"))
      # The CPU emulator times nothing: a verdict of the speed checks cannot be reached there (unless the
      # entry names the emulated verdict, e.g. too-slow from the memory-behaviour counters).
      add_test(NAME ${prefix}.catalog.${name} COMMAND ${CMAKE_COMMAND} -E echo
               "WORKBOOK-SKIP: its verdict comes from the speed checks, which need a GPU")
      set_tests_properties(${prefix}.catalog.${name} PROPERTIES LABELS "emulated;catalog;${prefix}"
                           SKIP_REGULAR_EXPRESSION "WORKBOOK-SKIP")
    elseif(WORKBOOK_EMULATED AND status STREQUAL "race")
      # A race that only racecheck sees on a GPU must be a failing verdict under the emulator's schedules.
      add_test(NAME ${prefix}.catalog.${name} COMMAND ${target} "[stage${stage}]")
      set_tests_properties(${prefix}.catalog.${name} PROPERTIES
        LABELS "emulated;catalog;${prefix}" TIMEOUT ${WORKBOOK_STAGE_TIMEOUT}
        PASS_REGULAR_EXPRESSION "WORKBOOK-RESULT .*\"status\": \"(wrong|crashed|hung)\"")
    elseif(status STREQUAL "race")
      find_program(WORKBOOK_COMPUTE_SANITIZER compute-sanitizer HINTS "${CUDAToolkit_BIN_DIR}")
      if(WORKBOOK_COMPUTE_SANITIZER)
        add_test(NAME ${prefix}.catalog.${name}
                 COMMAND ${WORKBOOK_COMPUTE_SANITIZER} --tool racecheck --print-limit 3 $<TARGET_FILE:${target}>
                         "[stage${stage}]")
      else()
        add_test(NAME ${prefix}.catalog.${name}
                 COMMAND ${CMAKE_COMMAND} -E echo "WORKBOOK-SKIP: compute-sanitizer (CUDA Toolkit, bin/) was not found")
      endif()
      set_tests_properties(${prefix}.catalog.${name} PROPERTIES
        LABELS "gpu;catalog;${prefix}" TIMEOUT ${WORKBOOK_STAGE_TIMEOUT} RUN_SERIAL TRUE
        ENVIRONMENT "WORKBOOK_CORRECTNESS_ONLY=1;WORKBOOK_SANITIZE=0" SKIP_REGULAR_EXPRESSION "WORKBOOK-SKIP"
        PASS_REGULAR_EXPRESSION "RACECHECK SUMMARY: [1-9][0-9]* hazard")
    else()
      add_test(NAME ${prefix}.catalog.${name} COMMAND ${target} "[stage${stage}]")
      set_tests_properties(${prefix}.catalog.${name} PROPERTIES
        LABELS "gpu;catalog;${prefix}" TIMEOUT ${WORKBOOK_STAGE_TIMEOUT} RUN_SERIAL TRUE
        SKIP_REGULAR_EXPRESSION "WORKBOOK-SKIP"
        PASS_REGULAR_EXPRESSION "WORKBOOK-RESULT .*\"status\": \"${status}\".*\"summary\": .*(${phrase_regex})")
      if(status STREQUAL "passed")
        # A right kernel: any other status is a false failure of the grader.
        set_tests_properties(${prefix}.catalog.${name} PROPERTIES FAIL_REGULAR_EXPRESSION
                             "WORKBOOK-RESULT .*\"status\": \"(wrong|not-implemented|too-slow|crashed|hung)\"")
      endif()
    endif()
  endforeach()
endfunction()
