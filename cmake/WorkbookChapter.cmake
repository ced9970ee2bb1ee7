# workbook_add_chapter(<folder under chapters/>)
#
# Reads the chapter's stages.json (the one place that lists its stages; cmake/WorkbookStages.cmake),
# generates the grader's header chapter_stages.hpp from it, and creates:
#   chNN_reference        the solutions/ stages, compiled into namespace `reference`
#   chNN_learner          the exercises/ stages, compiled into namespace `learner`
#   chNN_grade_solutions  the grader with the reference stages as the candidate (what `make test` runs)
#   chNN_grade_exercises  the grader with the learner's stages as the candidate (`make check-chapter N`)
#   chNN_grade_drill      built only on request (`make drill`): the candidate of a stage is
#                         drill/NN_name/<file>.cu when that file exists, else the reference solution
# and one ctest test per stage and track, so that a crash or hang in one stage fails that stage alone.
# Chapter support code (chapters/<folder>/grader/*.cu beside grade.cpp, e.g. a library baseline) becomes
# chNN_support; an optional "link_libraries" list in stages.json (e.g. ["CUDA::cublas"]) is linked to it.
# A chapter with tune/candidates.json also gets the autotuner's programs (cmake/WorkbookTuning.cmake).
set(WORKBOOK_STAGE_TIMEOUT 300 CACHE STRING "Seconds one stage's grader may run before it counts as hung")

include(WorkbookStages)   # workbook_read_chapter(): the one reader of stages.json
include(WorkbookTuning)   # workbook_add_tuner(): make tune-chapter N, for a chapter with tune/candidates.json

function(workbook_add_chapter chapter_dir)
  set(src "${CMAKE_SOURCE_DIR}/chapters/${chapter_dir}")
  workbook_read_chapter(${chapter_dir} chapter)
  set(prefix ${chapter_PREFIX})
  set(stage_ids ${chapter_IDS})
  set(reference_sources "")
  set(learner_sources "")
  foreach(file IN LISTS chapter_FILES)
    list(APPEND reference_sources "${CMAKE_SOURCE_DIR}/solutions/${chapter_dir}/${file}.cu")
    list(APPEND learner_sources "${CMAKE_SOURCE_DIR}/exercises/${chapter_dir}/${file}.cu")
  endforeach()

  # What grade.cpp includes (through harness/chapter_grader.hpp): stages.cuh for both tracks, the stage
  # table, each stage's launchers and one test case per stage, all from stages.json.
  set(gen "${CMAKE_BINARY_DIR}/generated/${chapter_dir}")
  workbook_write_stage_header(${chapter_dir} chapter "${gen}/chapter_stages.hpp")

  # The interview drill writes one blank stage into drill/<chapter>/; every other stage of the drill
  # grader is the reference solution, so a half-edited exercise can never break a drill build.
  # CONFIGURE_DEPENDS: creating or removing a drill file re-runs CMake on the next build.
  file(GLOB drill_files CONFIGURE_DEPENDS "${CMAKE_SOURCE_DIR}/drill/${chapter_dir}/*.cu")
  set(drill_sources "")
  foreach(source IN LISTS reference_sources)
    get_filename_component(name "${source}" NAME)
    if("${CMAKE_SOURCE_DIR}/drill/${chapter_dir}/${name}" IN_LIST drill_files)
      list(APPEND drill_sources "${CMAKE_SOURCE_DIR}/drill/${chapter_dir}/${name}")
    else()
      list(APPEND drill_sources "${source}")
    endif()
  endforeach()

  # Chapter-specific support code (e.g. a library baseline for the benchmark) lives beside the grader.
  file(GLOB support_sources CONFIGURE_DEPENDS "${src}/grader/*.cu")

  foreach(track reference learner drill)
    if(track STREQUAL "drill")
      add_library(${prefix}_drill STATIC EXCLUDE_FROM_ALL ${drill_sources})
      target_compile_definitions(${prefix}_drill PRIVATE WORKBOOK_TRACK=learner)
    else()
      add_library(${prefix}_${track} STATIC ${${track}_sources})
      target_compile_definitions(${prefix}_${track} PRIVATE WORKBOOK_TRACK=${track})
    endif()
    target_include_directories(${prefix}_${track} PRIVATE "${CMAKE_SOURCE_DIR}/chapters")
    target_compile_options(${prefix}_${track} PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:${WORKBOOK_CUDA_WARNINGS}>)
    if(NOT track STREQUAL "reference")
      # An untouched skeleton declares kernels it does not launch yet; that is expected, not a warning.
      target_compile_options(${prefix}_${track} PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:-diag-suppress=177>)
    endif()
    target_link_libraries(${prefix}_${track} PUBLIC workbook_device)
    if(track STREQUAL "reference")
      workbook_emulated_target(${prefix}_${track} REFERENCE)
    else()
      workbook_emulated_target(${prefix}_${track})
    endif()
  endforeach()
  # The "link_libraries" of stages.json (e.g. ["CUDA::cublas"]): libraries that the support code (a
  # library baseline) needs. They are linked to chNN_support only, never to the learner's stages.
  set(support_libraries "")
  foreach(library IN LISTS chapter_LINK_LIBRARIES)
    if(WORKBOOK_EMULATED AND library MATCHES "^CUDA::")
      continue()   # the CPU backend has small stand-ins for the library baselines (emu/include)
    endif()
    if(NOT TARGET ${library})
      message(FATAL_ERROR "chapters/${chapter_dir}/stages.json links ${library}, which is not a known target "
                          "(CUDA Toolkit libraries are named CUDA::cublas, CUDA::curand, ...).")
    endif()
    list(APPEND support_libraries ${library})
  endforeach()
  if(support_sources)
    add_library(${prefix}_support STATIC ${support_sources})
    target_include_directories(${prefix}_support PRIVATE "${CMAKE_SOURCE_DIR}" "${CMAKE_SOURCE_DIR}/chapters" "${gen}")
    target_link_libraries(${prefix}_support PUBLIC workbook_device ${support_libraries})
    workbook_emulated_target(${prefix}_support REFERENCE)
  elseif(support_libraries)
    message(FATAL_ERROR "chapters/${chapter_dir}/stages.json names link_libraries but the chapter has no "
                        "support code (*.cu in grader/ beside grade.cpp) to link them to.")
  endif()

  # The emulated build's instrumented copy of the references, in namespace `counted`: what the
  # memory-behaviour counters of reference stages k-1 and k are taken from (harness/emulated_profile.hpp).
  # The references themselves stay uninstrumented, so grading them is no slower. Only chapters whose
  # grader compares memory behaviour get it (each copy costs one more compile per stage).
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${src}/grader/grade.cpp")
  set(counted_library "")
  file(READ "${src}/grader/grade.cpp" grader_text)
  string(FIND "${grader_text}" "compare_memory_behaviour" compares_memory)
  if(WORKBOOK_EMULATED AND WORKBOOK_EMU_CHECKS AND compares_memory GREATER -1)
    set(counted_library ${prefix}_counted)
    add_library(${counted_library} STATIC ${reference_sources})
    target_compile_definitions(${counted_library} PRIVATE WORKBOOK_TRACK=counted)
    target_include_directories(${counted_library} PRIVATE "${CMAKE_SOURCE_DIR}/chapters")
    target_link_libraries(${counted_library} PUBLIC workbook_device)
    workbook_emulated_target(${counted_library} REFERENCE)
    # The options of workbook_emulated_target are properties of the source files, which the reference
    # library shares: the instrumentation is added to this target instead.
    target_compile_options(${counted_library} PRIVATE ${WORKBOOK_EMU_CHECK_FLAGS})
  endif()
  set(${prefix}_COUNTED_LIBRARY "${counted_library}" CACHE INTERNAL "The instrumented references of ${prefix}")
  if(counted_library)
    file(MAKE_DIRECTORY "${CMAKE_BINARY_DIR}/emu_counters")
  endif()

  foreach(track solutions exercises drill)
    set(grader ${prefix}_grade_${track})
    if(track STREQUAL "drill")
      add_executable(${grader} EXCLUDE_FROM_ALL "${src}/grader/grade.cpp")
    else()
      add_executable(${grader} "${src}/grader/grade.cpp")
    endif()
    target_include_directories(${grader} PRIVATE "${CMAKE_SOURCE_DIR}/chapters" "${gen}")
    target_link_libraries(${grader} PRIVATE workbook_harness ${prefix}_reference)
    if(track STREQUAL "exercises")
      target_link_libraries(${grader} PRIVATE ${prefix}_learner)
    elseif(track STREQUAL "drill")
      target_link_libraries(${grader} PRIVATE ${prefix}_drill)
    else()
      target_compile_definitions(${grader} PRIVATE WORKBOOK_GRADE_SOLUTIONS=1)
    endif()
    if(support_sources)
      target_link_libraries(${grader} PRIVATE ${prefix}_support)
    endif()
    if(counted_library)
      target_link_libraries(${grader} PRIVATE ${counted_library})
      target_compile_definitions(${grader} PRIVATE WORKBOOK_COUNTED_REFERENCES=1)
    endif()
    set_target_properties(${grader} PROPERTIES LINKER_LANGUAGE ${WORKBOOK_LINKER_LANGUAGE}
                          RUNTIME_OUTPUT_DIRECTORY "${CMAKE_BINARY_DIR}/bin")
  endforeach()
  add_custom_target(${prefix} DEPENDS ${prefix}_grade_exercises)

  # One ctest test per stage. Without a GPU the grader prints WORKBOOK-SKIP and ctest reports "skipped".
  # On the CPU backend the graders check correctness on the CPU instead; with nothing to time, the
  # stages need not run one at a time.
  set(where_label gpu)
  set(serial TRUE)
  if(WORKBOOK_EMULATED)
    set(where_label emulated)
    set(serial FALSE)
  endif()
  foreach(id IN LISTS stage_ids)
    add_test(NAME ${prefix}.solutions.stage${id} COMMAND ${prefix}_grade_solutions "[stage${id}]")
    set_tests_properties(${prefix}.solutions.stage${id} PROPERTIES
      LABELS "${where_label};solutions;${prefix}" TIMEOUT ${WORKBOOK_STAGE_TIMEOUT} RUN_SERIAL ${serial}
      SKIP_REGULAR_EXPRESSION "WORKBOOK-SKIP")
    if(counted_library)
      # The emulator's counters of each reference stage, kept for the check of docs/emulated_counters.md
      # (tools/emu_profile_table.py, test tools.emu_counters_table): no grader runs twice for it.
      set_tests_properties(${prefix}.solutions.stage${id} PROPERTIES
        ENVIRONMENT "WORKBOOK_EMU_COUNTERS_DIR=${CMAKE_BINARY_DIR}/emu_counters" FIXTURES_SETUP emu_counters)
    endif()
    # The skeleton check: an untouched exercise must report "not implemented yet" (make selfcheck).
    add_test(NAME ${prefix}.skeletons.stage${id} COMMAND ${prefix}_grade_exercises "[stage${id}]")
    set_tests_properties(${prefix}.skeletons.stage${id} PROPERTIES
      LABELS "${where_label};skeletons;${prefix}" TIMEOUT ${WORKBOOK_STAGE_TIMEOUT} RUN_SERIAL ${serial}
      SKIP_REGULAR_EXPRESSION "WORKBOOK-SKIP"
      PASS_REGULAR_EXPRESSION "WORKBOOK-RESULT .*\"status\": \"not-implemented\"")
  endforeach()

  workbook_add_tuner(${chapter_dir} ${prefix})
  set_property(GLOBAL APPEND PROPERTY WORKBOOK_CHAPTERS "${chapter_dir}")
endfunction()
