/// @file harness/chapter_grader.hpp
/// @brief What a chapter's grade.cpp includes: the chapter's stages (both tracks), the `candidate`
/// namespace, each stage's launchers, and the test cases that grade one stage each.
///
/// Everything about a stage's identity comes from the chapter's stages.json, through the header that
/// CMake generates from it (chapter_stages.hpp, cmake/WorkbookStages.cmake):
///   - the chapter's stages.cuh, compiled once into `reference` (solutions/) and once into `learner`
///     (exercises/); `candidate` is the track being graded;
///   - wb::stages::candidate<K>, wb::stages::current<K> and wb::stages::previous<K>: the launcher of
///     stage K being graded, reference stage K, and reference stage K - 1 (nullptr for stage 1);
///   - WORKBOOK_STAGE_TEST_CASES(): one Catch2 test case per stage, "stage K: <title>" tagged [stageK].
///
/// A grade.cpp defines `template <int K> void grade_stage_case(wb::Stage&)`, the grading of stage K
/// (generic, with explicit specialisations for stages that check more), and ends with
/// WORKBOOK_STAGE_TEST_CASES().
#pragma once

#include "harness/stage.hpp"

#include <array>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <utility>

// The tracks (defined by the chapter's stages.cuh, included by the generated header below).
namespace reference {}
namespace learner {}

#if WORKBOOK_GRADE_SOLUTIONS
namespace candidate = reference;   ///< the stages being graded: the references (make test)
#define WORKBOOK_CANDIDATE_TRACK "reference"
#else
namespace candidate = learner;   ///< the stages being graded: the learner's (make check-chapter)
#define WORKBOOK_CANDIDATE_TRACK "learner"
#endif

// The stages whose memory behaviour the emulator counts (Stage::compare_memory_behaviour) must be
// instrumented. The emulated build of such a chapter compiles the references a second time,
// instrumented, into namespace `counted` (the generated header includes stages.cuh for it); the
// learner's code is instrumented already. Elsewhere nothing is counted: `counted` is the reference.
#if WORKBOOK_COUNTED_REFERENCES
namespace counted {}
#else
namespace counted = reference;
#endif
#if WORKBOOK_GRADE_SOLUTIONS
namespace counted_candidate = counted;   ///< the reference, instrumented
#else
namespace counted_candidate = learner;   ///< the learner's stages (instrumented in the emulated build)
#endif

namespace wb::stages {

/// Instantiated only for a stage number that stages.json does not list.
template <int K>
struct NoSuchStage {
    static_assert(K < 0, "stages.json lists no stage with this number");
    static constexpr std::nullptr_t value = nullptr;
};

// One explicit specialisation per stage in the generated header; the launchers' types differ by stage.
template <int K>
inline constexpr auto candidate = NoSuchStage<K>::value;   ///< the launcher of stage K being graded
template <int K>
inline constexpr auto current = NoSuchStage<K>::value;   ///< reference stage K's launcher
template <int K>
inline constexpr auto previous = NoSuchStage<K>::value;   ///< reference stage K - 1's (nullptr for K = 1)
// The same three, instrumented for the emulator's memory counters (the references themselves on a GPU).
template <int K>
inline constexpr auto counted_candidate = NoSuchStage<K>::value;
template <int K>
inline constexpr auto counted_current = NoSuchStage<K>::value;
template <int K>
inline constexpr auto counted_previous = NoSuchStage<K>::value;

}   // namespace wb::stages

#include "chapter_stages.hpp"   // generated from the chapter's stages.json

namespace wb::stages {

template <int First, int... Offset>
constexpr auto reference_launchers_from(std::integer_sequence<int, Offset...>)
{
    return std::array{current<First + Offset>...};
}

/// The reference launchers of stages @p First to @p Last (every stage by default), in order, for a
/// benchmark of the ladder. They must share one type (one signature).
template <int First = 1, int Last = generated::kStageCount>
constexpr auto reference_launchers()
{
    return reference_launchers_from<First>(std::make_integer_sequence<int, Last - First + 1>{});
}

}   // namespace wb::stages

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

/// "stage K: <title>": how benchmarks and messages name a stage.
inline std::string stage_label(int id) { return "stage " + std::to_string(id) + ": " + stage_info(id).title; }

/// The body of every stage test case: grade stage @p id with @p body, report to Catch2.
inline void grade_stage(int id, const std::function<void(Stage&)>& body)
{
    const StageVerdict verdict = run_stage(grader_context(), stage_info(id), body);
    if (verdict.status == Status::skipped) return;   // ctest shows it as skipped (WORKBOOK-SKIP)
    if (verdict.status != Status::passed) FAIL(verdict.message);
    SUCCEED();
}

inline void print_bench_row(const BenchRow& row) { print_bench_row(generated::kChapter, row); }

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

}   // namespace wb

namespace wb {

/// For `make bench` test cases, once bench_can_run(): why reference stage @p id cannot run on this GPU
/// (its "min_cc" in stages.json), or "" when it can. A benchmark leaves such a stage out and says so.
inline std::string bench_stage_skip_reason(int id)
{
    return compute_capability_skip(generated::kChapter, stage_info(id), device_info().cc_major, device_info().cc_minor,
                                   emulated());
}

}   // namespace wb

/// One test case of WORKBOOK_STAGE_TEST_CASES(): stage @p K graded by the chapter's grade_stage_case<K>.
#define WORKBOOK_STAGE_TEST_CASE(K, name, tag)                                    \
    TEST_CASE(name, tag)                                                          \
    {                                                                             \
        wb::grade_stage(K, [](wb::Stage& stage) { grade_stage_case<K>(stage); }); \
    }
