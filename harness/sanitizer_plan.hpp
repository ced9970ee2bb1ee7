/// @file sanitizer_plan.hpp
/// @brief Which calls of a stage's launcher the compute-sanitizer pass runs (sanitizer_pass.hpp).
///
/// The tools slow kernels down a hundredfold, so the pass runs only the first calls, the small cases.
/// But a fast path that only some sizes take (whole tiles, rows of a multiple of 4 floats, a branch of a
/// dispatch) may first run in a later case, and the first calls would never show it to the tools. So
/// the grader's own run writes down what each call launched, and the pass runs on to the first call of
/// every kernel the first calls miss, within a time budget. It follows the candidate's own kernels,
/// not the reference's: a learner's fast path is reached wherever the learner put it.
#pragma once

#include <string>
#include <vector>

namespace wb {

/// One call of a stage's launcher in the grader's own run, as the sanitizer pass's plan needs it.
struct CallRecord {
    std::vector<std::string> kernels;   ///< what it launched (KernelFacts::origin, else the name)
    double seconds = 0.0;               ///< from the start of the stage's first call to the end of this one
};

/// How much of a stage the sanitizer pass runs.
struct SanitizerPlan {
    int calls = 0;                        ///< the first `calls` calls of the launcher
    std::vector<std::string> unreached;   ///< kernels that only later calls launch (past the budget)
};

/// The grader's run may take this long up to the last call the sanitizer pass runs: the tools slow
/// kernels down 10 to 100 times, and each tool computes the CPU references of those cases again.
inline constexpr double kSanitizerBudgetSeconds = 2.0;

/// Pure logic: the first @p minimum calls, extended to the first call that launches each kernel those
/// do not (a fast path that only some sizes take: whole tiles, rows of a multiple of 4 floats, a branch
/// of a dispatch), as long as the grader's run reached the end of that call within @p budget_seconds.
/// The kernels first launched later are `unreached`.
SanitizerPlan plan_sanitizer_calls(const std::vector<CallRecord>& calls, int minimum, double budget_seconds);

}   // namespace wb
