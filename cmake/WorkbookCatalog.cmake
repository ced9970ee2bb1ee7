# workbook_add_catalog(<folder under chapters/>)
#
# The catalog of known-wrong kernels (catalog/NN_name/*.cu, never shipped as exercises): each file is
# one deliberately wrong version of one stage, with the verdict the grader must give it. `make selfcheck`
# builds and runs them; ordinary builds skip them (WORKBOOK_CATALOG is OFF by default), so that a
# learner's `make check-chapter` and CI compile nothing extra.
#
# An entry's file name starts with its stage number (2_no_tail.cu is a stage 2 entry), and its header has
#   // expect: <status> "<phrase>"        or `// expect: passed` for a right kernel in another style
# and optionally `// emulated: <status> "<phrase>"` or `// emulated: skip "<reason>"` for the CPU
# emulator's build. The grammar is parsed and judged in one place, tools/wbtools/catalog.py (its
# docstring lists the statuses and what each means); tools/selfcheck.py uses the same module.
# For each entry this creates chNN_catalog_<name> in bin/catalog/: the chapter's grader compiled as for
# the exercises, whose learner stages are the entry for its stage and the reference solutions (compiled
# into the learner's namespace) for every other stage. grade.cpp and the solutions are compiled once per
# chapter (OBJECT libraries); each entry adds one compile and one link. One ctest test per entry, label
# "catalog": the catalog module runs the entry's grader and passes it when the verdict is the expected one.
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
  workbook_read_chapter(${chapter_dir} chapter)   # cmake/WorkbookStages.cmake
  set(number ${chapter_NUMBER})
  set(prefix ${chapter_PREFIX})
  set(stage_ids ${chapter_IDS})
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
  foreach(id file IN ZIP_LISTS chapter_IDS chapter_FILES)
    add_library(${prefix}_catalog_stage${id} OBJECT "${CMAKE_SOURCE_DIR}/solutions/${chapter_dir}/${file}.cu")
    target_compile_definitions(${prefix}_catalog_stage${id} PRIVATE WORKBOOK_TRACK=learner)
    target_include_directories(${prefix}_catalog_stage${id} PRIVATE "${CMAKE_SOURCE_DIR}/chapters")
    target_link_libraries(${prefix}_catalog_stage${id} PRIVATE workbook_device)
    workbook_emulated_target(${prefix}_catalog_stage${id} REFERENCE)
  endforeach()

  # The entries' headers are parsed and judged by one module, tools/wbtools/catalog.py, which
  # tools/selfcheck.py uses too: here it lists the entries (a header it cannot parse stops the
  # configuration with its sentence), and each entry's test runs the grader through it.
  if(NOT Python3_Interpreter_FOUND)
    message(FATAL_ERROR "The catalog (WORKBOOK_CATALOG=ON) needs Python 3, which reads the entries' headers: "
                        "install python3, or configure with -DWORKBOOK_CATALOG=OFF.")
  endif()
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${entries})   # a header edit re-configures
  set(catalog_tool ${Python3_EXECUTABLE} -B -m wbtools.catalog)
  set(emulated_flag "")
  if(WORKBOOK_EMULATED)
    set(emulated_flag --emulated)
  endif()
  execute_process(COMMAND ${catalog_tool} cmake ${emulated_flag} "${catalog}"
                  WORKING_DIRECTORY "${CMAKE_SOURCE_DIR}/tools"
                  OUTPUT_VARIABLE manifest ERROR_VARIABLE manifest_error RESULT_VARIABLE manifest_result)
  if(NOT manifest_result EQUAL 0)
    message(FATAL_ERROR "${manifest_error}")
  endif()
  string(REPLACE "\n" ";" manifest_lines "${manifest}")   # one line per entry: name|stage|skip reason

  foreach(line IN LISTS manifest_lines)
    if(line STREQUAL "")
      continue()
    endif()
    string(REPLACE "|" ";" fields "${line}")
    list(GET fields 0 name)
    list(GET fields 1 stage)
    list(GET fields 2 skip_reason)
    set(entry "${catalog}/${name}.cu")
    file(RELATIVE_PATH shown "${CMAKE_SOURCE_DIR}" "${entry}")
    if(NOT stage IN_LIST stage_ids)
      message(FATAL_ERROR "${shown}: chapter ${number} has no stage ${stage} (stages: ${stage_ids}).")
    endif()

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

    if(skip_reason)
      add_test(NAME ${prefix}.catalog.${name} COMMAND ${CMAKE_COMMAND} -E echo "WORKBOOK-SKIP: ${skip_reason}")
    else()
      add_test(NAME ${prefix}.catalog.${name}
               COMMAND ${catalog_tool} judge ${emulated_flag} --timeout ${WORKBOOK_STAGE_TIMEOUT} "${entry}"
                       $<TARGET_FILE:${target}>
               WORKING_DIRECTORY "${CMAKE_SOURCE_DIR}/tools")
    endif()
    math(EXPR judge_timeout "${WORKBOOK_STAGE_TIMEOUT} + 60")   # the judge stops a hung grader first
    set_tests_properties(${prefix}.catalog.${name} PROPERTIES TIMEOUT ${judge_timeout}
                         SKIP_REGULAR_EXPRESSION "WORKBOOK-SKIP")
    if(WORKBOOK_EMULATED)
      set_tests_properties(${prefix}.catalog.${name} PROPERTIES LABELS "emulated;catalog;${prefix}")
    else()
      set_tests_properties(${prefix}.catalog.${name} PROPERTIES LABELS "gpu;catalog;${prefix}" RUN_SERIAL TRUE)
    endif()
  endforeach()
endfunction()
