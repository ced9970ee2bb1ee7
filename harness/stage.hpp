/// @file harness/stage.hpp
/// @brief The grading core: a stage's context, its checks, its verdict and its result line.
///
/// One grade.cpp gives three executables (see cmake/WorkbookChapter.cmake): chNN_grade_exercises with
/// the learner's stages as the candidate (`make check-chapter N`), chNN_grade_solutions with the
/// reference stages as the candidate (`make test`), and chNN_grade_drill with a drill file. The
/// reference stages are always linked too, so the speed check can time them in the same run.
///
/// Every stage prints one machine-readable line that the tools read:
///     WORKBOOK-RESULT {"chapter": 2, "stage": 3, "status": "passed", ...}
/// with status one of passed, wrong, not-implemented, too-slow, crashed, hung, skipped. "summary" is the
/// first line of the verdict; a failed stage also carries "details", the whole message (make selfcheck
/// matches the phrase a catalog entry expects there).
#pragma once

#include "harness/buffers.hpp"
#include "harness/catch.hpp"
#include "harness/compare.hpp"
#include "harness/device.hpp"
#include "harness/device_kernels.hpp"
#include "harness/launch_ledger.hpp"
#include "harness/random.hpp"
#include "harness/sanitizer_plan.hpp"
#include "harness/stage_info.hpp"
#include "harness/timing.hpp"

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>


namespace wb {

struct MemoryCase;   // harness/emulated_profile.hpp

/// Which grader is running: the chapter, and whose stages are the candidate.
struct GraderContext {
    int chapter;
    const char* track;   ///< "learner" or "reference"
};

/// How a stage ended.
enum class Status { passed, wrong, not_implemented, too_slow, crashed, hung, skipped };
const char* status_name(Status status);

/// @p text as a JSON string literal, for the machine-readable lines the graders print.
std::string json_string(const std::string& text);

/// `grader --workbook-profile <stage> <which>` (tools/wbtools/profile.py runs it under Nsight Compute):
/// the stage's checks are skipped (its launcher is not called, nothing is compared) until its first
/// speed case, where only one launcher runs: `learner` (the stage graded), `previous` (reference k-1 or
/// the chapter's baseline) or `current` (reference k). It runs once to warm up and once between
/// cudaProfilerStart and cudaProfilerStop (ncu --profile-from-start off profiles only that call), untimed
/// and unchecked. Its launch facts are printed as a WORKBOOK-PROFILE line.
struct ProfileRequest {
    int stage = 0;
    std::string which;   ///< learner | previous | current
};
void request_profile(const ProfileRequest& request);
/// The request of this process, if it runs in profile mode.
const std::optional<ProfileRequest>& profile_request();
/// Thrown by Stage::check_speed in profile mode once the launcher was profiled: the stage ends there.
struct ProfileDone {};
/// The WORKBOOK-PROFILE line of one launcher's kernels (pure logic).
std::string profile_line(int stage, const std::string& which, const std::string& label,
                         const std::vector<KernelFacts>& kernels);

/// The message of a "too slow" verdict: its first line names the likeliest cause that the launch facts
/// show (@p why), then the speed-up against the rule (@p speedup_line), the other causes and the facts
/// side by side. Without launch facts the first line is the speed-up. Pure logic.
std::string too_slow_message(const std::string& speedup_line, const SlowLaunch& why);

/// The compute capability the emulator models (cudaGetDeviceProperties on the CPU emulator): mma.sync,
/// ldmatrix and cp.async are emulated; Hopper's wgmma and TMA are not.
inline constexpr int kEmulatedCcMajor = 8;
inline constexpr int kEmulatedCcMinor = 0;

/// "X.Y" (or "X.Ya" for an architecture-specific stage): the compute capability that @p info needs.
std::string needed_compute_capability(const StageInfo& info);

/// Why stage @p info of chapter @p chapter cannot run here, or "" when it can: the GPU's compute
/// capability (@p cc_major.@p cc_minor) is older than the stage's "min_cc" in stages.json (or not
/// that architecture, for an architecture-specific "X.Ya"), or, on the CPU emulator (@p emulated),
/// the stage needs more than the emulator models. run_stage reports such a stage as skipped with this
/// sentence before its checks start. Pure logic: tested without a GPU.
std::string compute_capability_skip(int chapter, const StageInfo& info, int cc_major, int cc_minor, bool emulated);

/// Thrown by the checks to end a stage with a verdict.
struct StageFailure {
    Status status;
    std::string message;
};

/// One timed comparison: the candidate against the reference stages on the same inputs.
struct SpeedCase {
    std::string description;         ///< the workload, e.g. "2^26 floats"
    Launch candidate;                ///< the stage being graded
    Launch previous_reference;       ///< what the stage must beat (reference stage k-1, or the chapter's baseline)
    Launch current_reference;        ///< the reference of this stage, to scale the target to this GPU
    double bytes = 0.0;              ///< bytes the job must move (inputs read once, outputs written once)
    double flops = 0.0;              ///< floating-point operations, for compute-bound stages
    std::string previous_label;      ///< how to name previous_reference in the report
    std::function<void()> recheck;   ///< optional: correctness again after timing (catches cached results)
    /// Appended to the keys this case adds to the result line ("ms", "tflops", "speedup", ...), for a
    /// stage timed on more than one case: "_bf16" gives "ms_bf16". The first case keeps the plain keys.
    std::string key_suffix;
};

/// Decides what an output that was never written means (see Stage::expect).
///
/// "Not implemented yet" is the verdict only when no case of the stage wrote anything. An output left
/// untouched for one input while another input was handled is a wrong result (a tail or a small size
/// the launch does not cover), so the verdict on a small untouched output (fewer than
/// kUnwrittenDecidesAlone elements) waits until a case writes something or the correctness checks
/// end. A larger output that nothing was written to, before anything was written anywhere, is "not
/// implemented yet" at once: no tail is that long, and later cases may not start from the poison
/// (e.g. C of a GEMM with beta != 0). Except for a matrix whose rows have fewer than kShortRow
/// elements: a loop over a row that stops at its last full vector or warp-wide step writes nothing at
/// all there, so that verdict waits too. Pure logic: tested without a GPU.
class UnwrittenOutputs {
public:
    static constexpr std::int64_t kUnwrittenDecidesAlone = 64;
    static constexpr std::int64_t kShortRow = 32;
    /// The failure to raise now for this comparison, if any (the comparison itself included).
    std::optional<StageFailure> on_report(const CompareReport& report, const std::string& case_name);
    /// At the end of the correctness checks: "not implemented yet" when nothing was ever written.
    std::optional<StageFailure> at_end() const;

private:
    bool written_ = false;       ///< some case wrote at least one element
    std::string pending_case_;   ///< the first case that wrote nothing, while nothing was written
    std::string pending_message_;
    std::int64_t pending_row_length_ = 0;
};

/// The verdict of the stream probe (Stage::check_stream_use): the candidate's launcher was called once
/// while the grader captured its stream into a CUDA graph. @p capture_error is the first error of the
/// capture (cudaSuccess if none); @p nodes counts the operations captured. No operation captured, or
/// the runtime refusing a launch on the legacy default stream during the capture, means the work went
/// to another stream. Any other error leaves the question open (no verdict): never reject right code.
std::optional<StageFailure> stream_probe_verdict(cudaError_t capture_error, std::size_t nodes);

/// Wraps a failure found by SpeedCase::recheck (correctness again, after timing): the stage was right
/// before timing, so even an output that was never written is a wrong result, not "not implemented".
StageFailure recheck_failure(const StageFailure& failure);

/// The context a stage's checks run in.
class Stage {
public:
    Stage(const GraderContext& context, const StageInfo& info);
    const StageInfo& info() const { return info_; }
    cudaStream_t stream() const { return stream_.get(); }

    /// Runs the candidate's launcher once and waits for it, turning a rejected launch, a crash or a
    /// hang into a clear failure. The call is recorded by the launch ledger: work on another stream
    /// fails at once, no kernel and leaked memory at the end of the correctness checks. Under
    /// compute-sanitizer (sanitizer_pass.hpp) the call after the planned ones ends the stage. Only the
    /// candidate's calls go through here: a library baseline run inside would count as the candidate's
    /// kernels, which the ledger rejects as not the learner's work.
    void run(const Launch& launch);

    /// Ends the stage when @p report found wrong values. @p case_name says which input it was.
    /// An output that was never written ends it as "not implemented yet" only when no case of the stage
    /// wrote anything (UnwrittenOutputs): that verdict waits for the end of the correctness checks.
    void expect(const CompareReport& report, const std::string& case_name);

    /// Times the case and applies the speed rule (timing.hpp). Stages without a target only report.
    /// In order: the verdicts kept for the end of the correctness checks (never-written outputs, the
    /// launch ledger), the stream probe (check_stream_use, only where the ledger cannot record), the
    /// timing, the recheck, the implausible-speed test, the speed rule; a "too slow" verdict explains
    /// itself from the launch facts (explain_launch_difference).
    void check_speed(const SpeedCase& speed);

    /// False (after printing why, once) when speed cannot be measured here: on the CPU emulator or with
    /// WORKBOOK_CORRECTNESS_ONLY. Graders call it before allocating and filling their timing inputs;
    /// check_speed() asks it too.
    bool measures_speed();

    /// Calls @p launch once while the stage's stream is captured into a CUDA graph (nothing runs on it)
    /// and fails the stage when the launcher put no work on that stream: a kernel launched on the
    /// default stream or on a stream of its own is neither ordered with the grader's work nor timed.
    void check_stream_use(const Launch& launch);

    /// Adds "key": value to the result line.
    void record(const std::string& key, double value);

    /// Checks the idea of the stage where its speed alone cannot (a stage whose reference gains little
    /// over the previous one on some GPU, so that a copy of the previous stage would pass): @p rule gets
    /// the kernels that @p launch launches (launch_facts) and returns "" when they show the idea, else
    /// what is missing. A complaint ends the stage as a wrong result; where no launch facts can be had,
    /// it says so and checks nothing.
    void check_idea(const Launch& launch, const std::function<std::string(const std::vector<KernelFacts>&)>& rule);

    /// On the CPU emulator, after the correctness checks: the memory-behaviour counters of the candidate
    /// beside reference stages k-1 and k on one small input, and the verdict drawn from them (see
    /// harness/emulated_profile.hpp). Does nothing on a GPU.
    void compare_memory_behaviour(const MemoryCase& memory);

    /// The kernels of the last call of the candidate's launcher (empty where they cannot be recorded).
    const std::vector<KernelFacts>& last_kernels() const { return last_kernels_; }

    /// The calls the compute-sanitizer pass runs (sanitizer_pass.hpp), from the calls made so far.
    SanitizerPlan sanitizer_plan() const;

private:
    friend struct StageVerdict run_stage(const GraderContext&, const StageInfo&, const std::function<void(Stage&)>&);
    std::string memcheck_hint() const;
    struct SpeedTiming;
    SpeedTiming time_against_references(const SpeedCase& speed);
    void record_rate(const SpeedCase& speed, double ms, double copy_gbps);
    void recheck_after_timing(const SpeedCase& speed);
    void judge_speedup(const SpeedCase& speed, const SpeedTiming& timing);
    [[noreturn]] void profile_one_launcher(const SpeedCase& speed);
    void end_of_correctness();
    GraderContext context_;
    const StageInfo& info_;
    Stream stream_;
    std::string extra_fields_;
    UnwrittenOutputs unwritten_;
    bool rechecking_ = false;
    bool speed_reason_printed_ = false;
    std::optional<StageFailure> stream_failure_;   ///< its verdict, given at the end of the correctness checks
    LedgerJudge ledger_;                           ///< what every call of the candidate's launcher did
    int sanitizer_runs_ = 0;                       ///< calls made under compute-sanitizer (sanitizer_pass.hpp)
    std::vector<CallRecord> calls_;                ///< every call of the launcher, for sanitizer_plan()
    std::chrono::steady_clock::time_point first_call_{};
    std::vector<KernelFacts> last_kernels_;
    std::string passed_note_;   ///< the verdict line of a stage that passes (compare_memory_behaviour)
};

/// Runs @p body for one stage and prints its verdict; returns the status and message.
struct StageVerdict {
    Status status;
    std::string message;
};
StageVerdict run_stage(const GraderContext& context, const StageInfo& info, const std::function<void(Stage&)>& body);

/// One row of `make bench`: printed as a WORKBOOK-BENCH line that tools/wbtools reads (`make bench`).
struct BenchRow {
    std::string op;        ///< e.g. "sum"
    std::string variant;   ///< e.g. "stage 9: vectorised single pass" or "CUB DeviceReduce::Sum"
    std::string shape;     ///< e.g. "268435456" or "[49152, 1024]"
    std::string dtype = "float32";
    double ms = 0.0;
    double bytes = 0.0;
    double flops = 0.0;
    int stage = 0;   ///< 0 for library baselines
    /// Where a library baseline was timed interleaved with this row in the same run: its milliseconds,
    /// printed as "vs_library" (the library's time over this row's: 1.0 is level, above is faster) and
    /// "library_ms". 0: no such comparison.
    double library_ms = 0.0;
    /// Where library_ms comes from each kernel's own steady state (wb::steady_state_median_ms): the same
    /// ratio from launches alternated one by one, printed as "vs_library_alternated". 0: not measured.
    double vs_library_alternated = 0.0;
};
void print_bench_row(int chapter, const BenchRow& row);

}   // namespace wb
