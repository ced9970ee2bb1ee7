# Run by `make docs` before Doxygen (cmake -P): writes the "Benchmark plots" page from the plots that
# `make plot-chapter N` left in the build folder, and stages their images for Doxygen's IMAGE_PATH.
#   -DSOURCE_DIR=<workbook>  -DPLOTS_DIR=<build>/plots  -DIMAGES_DIR=<docs out>/images  -DPAGE=<file.dox>
#   -DCHAPTER_TITLES=<file>  each chapter's number and title, written at configure time by the one
#                            reader of stages.json (cmake/WorkbookStages.cmake)
# With no plots the page says how to make them, so the documentation builds (warning-free) anywhere.
include("${CHAPTER_TITLES}")
file(REMOVE_RECURSE "${IMAGES_DIR}")
file(MAKE_DIRECTORY "${IMAGES_DIR}")

set(page "/**\n\\page benchmark_plots Benchmark plots\n\n")
string(APPEND page "The stage ladder of each chapter as measured by `make bench` on this machine, drawn by "
                   "`make plot-chapter N` (bars: the reference stages and the baselines; dashed line: the "
                   "device's copy bandwidth, or cuBLAS for SGEMM). `make docs` picks up the latest plots.\n\n")

file(GLOB plots "${PLOTS_DIR}/chapter[0-9][0-9]_*.svg")
list(SORT plots)
set(count 0)
foreach(svg IN LISTS plots)
  get_filename_component(stem "${svg}" NAME_WE)
  string(REGEX REPLACE "^chapter" "" chapter_dir "${stem}")
  if(NOT DEFINED chapter_${chapter_dir}_NUMBER)
    continue()   # a plot of a chapter this copy of the workbook does not have
  endif()
  set(number "${chapter_${chapter_dir}_NUMBER}")
  set(title "${chapter_${chapter_dir}_TITLE}")
  file(COPY "${svg}" DESTINATION "${IMAGES_DIR}")
  set(caption "")
  if(EXISTS "${PLOTS_DIR}/${stem}.caption")
    file(READ "${PLOTS_DIR}/${stem}.caption" caption)
    string(STRIP "${caption}" caption)
    string(REPLACE "\"" "'" caption "${caption}")
  endif()
  string(APPEND page "\\section plots_${chapter_dir} Chapter ${number}: ${title}\n\n")
  set(readme "${SOURCE_DIR}/chapters/${chapter_dir}/README.md")
  if(EXISTS "${readme}")
    file(STRINGS "${readme}" anchor REGEX "\\{#chapter${chapter_dir}\\}")
    if(anchor)
      string(APPEND page "The lesson: \\ref chapter${chapter_dir}.\n\n")
    endif()
  endif()
  string(APPEND page "\\image html ${stem}.svg \"${caption}\" width=100%\n\n")
  math(EXPR count "${count} + 1")
endforeach()

if(count EQUAL 0)
  string(APPEND page "No plots yet. On a machine with an NVIDIA GPU, run `make bench`, then "
                     "`make plot-chapter N` for each chapter (it needs matplotlib: "
                     "`sudo apt-get install python3-matplotlib`), then `make docs` again.\n")
endif()
string(APPEND page "*/\n")
file(WRITE "${PAGE}" "${page}")
