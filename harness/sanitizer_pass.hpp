/// @file sanitizer_pass.hpp
/// @brief After a stage passes on a GPU, its correctness checks run once more under compute-sanitizer.
///
/// A missing __syncthreads(), a barrier inside divergent code or a read past the end of an input can
/// give the right numbers on today's GPU and the wrong ones on the next. So a stage that passed is run
/// again, in child processes of the grader, under three of compute-sanitizer's tools at once: memcheck
/// (accesses outside an array: every buffer lies between fences in this run, harness/buffers.hpp, so a
/// read one byte past either end is caught), racecheck (shared-memory hazards between threads) and synccheck (barriers
/// not reached by every thread). The first few correctness cases run (the small ones), and on to the
/// first case of every kernel those never launched (sanitizer_plan.hpp); nothing is timed. A finding
/// fails the stage with the tool's first report and its source line.
#pragma once

#include "harness/sanitizer_plan.hpp"
#include "harness/stage.hpp"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace wb {

/// True in the child process that compute-sanitizer runs (WORKBOOK_UNDER_SANITIZER is set).
bool under_sanitizer();

/// The calls of the launcher that always run under the tools: WORKBOOK_SANITIZER_RUNS, default 8.
int sanitizer_run_limit();

/// In that child: how many calls of stage @p stage's launcher run; the next call ends the stage
/// (SanitizerCasesDone). The grader's own run decides it (plan_sanitizer_calls) and passes it in
/// WORKBOOK_SANITIZER_CALLS ("3:8,6:21": stage 3 runs 8 calls, stage 6 runs 21); sanitizer_run_limit()
/// for a stage it does not name.
int sanitizer_calls_for(int stage);

/// Thrown by Stage::run in that child once its calls are made: the stage ends there, as passed.
struct SanitizerCasesDone {};

/// What one tool's output says, pure logic: nothing when it found nothing, else the failure message.
std::optional<std::string> describe_sanitizer_findings(const std::string& tool, const std::string& output, int chapter);

/// Runs the stage's correctness checks again under the three tools, its first @p plan.calls calls; the
/// stage's failure if one found a problem. Prints one line either way ("not sanitizer-checked: ..." when
/// the tool is missing), naming the kernels the plan leaves unreached.
std::optional<StageFailure> sanitizer_verdict(const GraderContext& context, const StageInfo& info,
                                              const SanitizerPlan& plan);

/// The same for several stages at once, one process per tool for all of them (what `make
/// check-chapter` uses: the tools' start-up is paid once per chapter, not once per stage). Prints one
/// `WORKBOOK-SANITIZER {"stage": k, "status": "clean" | "wrong" | "not-checked", ...}` line per stage.
/// Called as `grader --workbook-sanitize <chapter> <stage>,<stage>,...`; returns the exit status.
int sanitize_stages_command(int chapter, const std::vector<int>& stages);

/// Splits a tool's output into the parts printed while each stage ran (after its "== chapter N, stage
/// K" header), without the tool's closing summary (it counts the whole run). Pure logic.
std::map<int, std::string> output_by_stage(const std::string& output);

}   // namespace wb
