/// @file harness/chapter_grader.hpp
/// @brief What a chapter's grade.cpp includes: the chapter's stage table, the `candidate`
/// namespace, and grade_stage(), which runs one stage and reports its verdict to Catch2.
///
/// Include the chapter's stages.cuh for both tracks first (see any grade.cpp).
#pragma once

#include "harness/stage.hpp"

#include "stage_table.hpp"   // generated from the chapter's stages.json

#if WORKBOOK_GRADE_SOLUTIONS
namespace candidate = reference;   ///< the stages being graded: the references (make test)
#define WORKBOOK_CANDIDATE_TRACK "reference"
#else
namespace candidate = learner;     ///< the stages being graded: the learner's (make check-chapter)
#define WORKBOOK_CANDIDATE_TRACK "learner"
#endif

// The stages whose memory behaviour the emulator counts (Stage::compare_memory_behaviour): they must be
// instrumented. The emulated build compiles the references a second time, instrumented, into namespace
// `counted`; the learner's code is instrumented already. On a GPU nothing is counted: `counted` is the
// reference itself.
#if WORKBOOK_COUNTED_REFERENCES
#define WORKBOOK_TRACK counted
#include WORKBOOK_STAGES_HEADER
#undef WORKBOOK_TRACK
#else
namespace counted = reference;
#endif
#if WORKBOOK_GRADE_SOLUTIONS
namespace counted_candidate = counted;   ///< the reference, instrumented
#else
namespace counted_candidate = learner;   ///< the learner's stages (instrumented in the emulated build)
#endif

namespace wb {

/// This grader's identity (the chapter from stages.json, the track from the build).
inline GraderContext grader_context() { return {generated::kChapter, WORKBOOK_CANDIDATE_TRACK}; }

/// The stage table row of stage @p id in this chapter.
inline const StageInfo& stage_info(int id)
{
    for (const StageInfo& s : generated::kStages) {
        if (s.id == id) return s;
    }
    throw std::out_of_range("no stage " + std::to_string(id) + " in stages.json");
}

/// The body of every stage test case: grade stage @p id with @p body, report to Catch2.
inline void grade_stage(int id, const std::function<void(Stage&)>& body)
{
    const StageVerdict verdict = run_stage(grader_context(), stage_info(id), body);
    if (verdict.status == Status::skipped) return;   // ctest shows it as skipped (WORKBOOK-SKIP)
    if (verdict.status != Status::passed) FAIL(verdict.message);
    SUCCEED();
}

inline void print_bench_row(const BenchRow& row) { print_bench_row(generated::kChapter, row); }

}  // namespace wb

namespace wb {

/// For `make bench` test cases: false (and a WORKBOOK-SKIP line) when there is no usable GPU.
inline bool bench_can_run()
{
    if (emulated()) {
        std::printf("WORKBOOK-SKIP: benchmarks need an NVIDIA GPU; this build runs kernels on the CPU emulator.\n");
        return false;
    }
    const std::string& unavailable = gpu_unavailable_reason();
    if (unavailable.empty()) return true;
    std::printf("WORKBOOK-SKIP: %s.\n", unavailable.c_str());
    return false;
}

}  // namespace wb
