/// @file track.hpp
/// @brief How the stage files are kept apart at link time: the learner's track and the reference track.
///
/// Every stage file (exercises/NN_name/K_stage.cu and solutions/NN_name/K_stage.cu) puts its
/// launcher and kernels inside `namespace WORKBOOK_TRACK { ... }`. The build defines WORKBOOK_TRACK
/// as `learner` for exercises/ and `reference` for solutions/, so one grader can link both and time
/// your stage k against the reference stages k-1 and k in the same run.
///
/// Keep every kernel and helper of a stage file inside that namespace (or mark helpers `static`):
/// then stage files never clash with each other or with the reference at link time.
#pragma once

#ifndef WORKBOOK_TRACK
#define WORKBOOK_TRACK learner
#endif
