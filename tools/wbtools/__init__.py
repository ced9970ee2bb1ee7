"""The learner's tools of the CUDA Kernel Workbook, behind `tools/workbook.py` and the Makefile.

core      where things are, the chapters and their stages, running one stage of a grader
state     build/progress.json: latest result per stage, hints seen, drills
ui        terminal output: colours, symbols, progress bar, durations
check     `make check-chapter`   bench  `make bench`         chapters  `make chapters`
progress  `make progress`        hints  `make hint`          reset  `make reset-chapter`
watch     `make watch-chapter`   drill  `make drill`         plot   `make plot-chapter`
catalog   the catalog's header grammar and judge (CMake, ctest and selfcheck.py use it)
static_check  `make selfcheck-static`: the files against stages.json, with no build
scaffold  the three scaffold levels of a stage from its template in scaffolds/ (reset, drill, CMake)

Standard library only, except plot, which needs matplotlib and says so when it is missing.
"""
