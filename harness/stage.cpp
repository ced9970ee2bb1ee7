#include "harness/stage.hpp"

#include "common/cuda_check.hpp"
#include "harness/emulated_profile.hpp"
#include "harness/sanitizer_pass.hpp"

#if WORKBOOK_EMULATED
#include "emu/grader_api.hpp"
#endif

#include <cstdio>
#include <cstdlib>
#include <sstream>

#if !WORKBOOK_EMULATED
#include <cuda_profiler_api.h>
#endif

#if WORKBOOK_EMULATED
#include <fcntl.h>
#include <unistd.h>
#endif

namespace wb {

const char* status_name(Status status)
{
    switch (status) {
        case Status::passed: return "passed";
        case Status::wrong: return "wrong";
        case Status::not_implemented: return "not-implemented";
        case Status::too_slow: return "too-slow";
        case Status::crashed: return "crashed";
        case Status::hung: return "hung";
        case Status::skipped: return "skipped";
    }
    return "unknown";
}

/// A JSON string literal for the result lines (quotes, backslashes and newlines escaped).
std::string json_string(const std::string& text)
{
    std::string out = "\"";
    for (char c : text) {
        switch (c) {
            case '"': out += "\\\""; break;
            case '\\': out += "\\\\"; break;
            case '\n': out += "\\n"; break;
            case '\t': out += "\\t"; break;
            default:
                if (static_cast<unsigned char>(c) < 0x20) continue;
                out += c;
        }
    }
    return out + "\"";
}

namespace {


std::string json_number(double value)
{
    if (!std::isfinite(value)) return "null";
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, "%.6g", value);
    return buffer;
}

std::string memcheck_hint(int chapter)
{
    return "Run `make memcheck-chapter " + std::to_string(chapter) +
           "` to see the line that made the bad access (compute-sanitizer).";
}

/// Errors that leave the GPU usable are a rejected launch configuration; the rest are crashes.
bool is_launch_configuration_error(cudaError_t code)
{
    return code == cudaErrorInvalidConfiguration || code == cudaErrorInvalidValue ||
           code == cudaErrorLaunchOutOfResources || code == cudaErrorInvalidDeviceFunction ||
           code == cudaErrorNoKernelImageForDevice;
}

StageFailure failure_from_cuda(const CudaError& error, int chapter)
{
#if WORKBOOK_EMULATED
    // The CPU emulator knows more than the error code: the kernel, the block and thread, the lines.
    if (const std::string report = emu::last_fault_report(error.code()); !report.empty()) {
        if (is_launch_configuration_error(error.code()))
            return {Status::crashed, "your launch was rejected: " + report};
        return {emu::last_fault_is_deadlock() ? Status::hung : Status::crashed,
                "the CPU emulator stopped your kernel: " + report};
    }
#endif
    if (is_launch_configuration_error(error.code())) {
        return {Status::crashed, std::string("your launch was rejected: ") + error.what() +
                                     ".\n  likely cause: more than 1024 threads per block, a grid or block of "
                                     "size 0, a grid's y or z dimension above 65535 (rows or heads on blockIdx.y), "
                                     "more shared memory than the GPU allows, or too many registers for the "
                                     "block size."};
    }
    return {Status::crashed, std::string("the GPU reported an error: ") + error.what() +
                                 ".\n  likely cause: a kernel read or wrote outside its arrays (an index past the "
                                 "end, a missing bounds test, a misaligned vector access).\n  " +
                                 memcheck_hint(chapter)};
}

void print_result(const GraderContext& context, const StageInfo& info, Status status, const std::string& message,
                  const std::string& fields)
{
    std::string first_line = message.substr(0, message.find('\n'));
    // A failure also carries its whole message, so that tools can match more than the first line.
    const std::string details = (status == Status::passed || status == Status::skipped)
                                    ? std::string()
                                    : ", \"details\": " + json_string(message);
    std::printf(
        "WORKBOOK-RESULT {\"chapter\": %d, \"stage\": %d, \"track\": \"%s\", \"status\": \"%s\", "
        "\"title\": %s%s, \"summary\": %s%s}\n",
        context.chapter, info.id, context.track, status_name(status), json_string(info.title).c_str(), fields.c_str(),
        json_string(first_line).c_str(), details.c_str());
    std::fflush(stdout);
}

}   // namespace

namespace {

/// Why an input can come out entirely unwritten while others were handled.
std::string not_covered_cause(std::int64_t row_length)
{
    if (row_length > 0 && row_length < UnwrittenOutputs::kShortRow) {
        return "every row of this input has only " + std::to_string(row_length) +
               (row_length == 1 ? " element" : " elements") +
               ", and none of them was written: the loop over a row stops early, at the last full vector or "
               "step (a row shorter than your step is then skipped whole; handle the columns past it).";
    }
    return "for this input the launch covers no element: a grid rounded down instead of up (use ceil_div), or "
           "a tail (the elements past the last full block or vector) that no thread handles.";
}

}   // namespace

std::optional<StageFailure> UnwrittenOutputs::on_report(const CompareReport& report, const std::string& case_name)
{
    if (report.nothing_written) {
        // Rows shorter than a warp can be skipped whole by a row loop that stops at its last full step.
        const bool short_rows = report.row_length > 0 && report.row_length < kShortRow;
        if (!written_ && report.count >= kUnwrittenDecidesAlone && !short_rows) {
            return StageFailure{Status::not_implemented, report.message};   // no launch skips that many
        }
        if (written_) {
            return StageFailure{Status::wrong,
                                "wrong result for " + case_name +
                                    ": the output was never written (every element still holds "
                                    "the poison), although other inputs were handled.\n  likely cause: " +
                                    not_covered_cause(report.row_length)};
        }
        if (pending_case_.empty()) {
            pending_case_ = case_name;
            pending_message_ = report.message;
            pending_row_length_ = report.row_length;
        }
        return std::nullopt;   // no verdict yet: "not implemented" or a size the launch does not cover
    }
    written_ = true;
    const std::string also =
        pending_case_.empty() ? std::string() : "\n  also: nothing at all was written for " + pending_case_ + ".";
    if (!report.ok) return StageFailure{Status::wrong, "wrong result for " + case_name + ": " + report.message + also};
    if (!pending_case_.empty()) {
        return StageFailure{Status::wrong, "wrong result for " + pending_case_ +
                                               ": the output was never written (every element still holds the "
                                               "poison), although other inputs such as " +
                                               case_name + " came out right.\n  likely cause: " +
                                               not_covered_cause(pending_row_length_)};
    }
    return std::nullopt;
}

std::optional<StageFailure> UnwrittenOutputs::at_end() const
{
    if (written_ || pending_case_.empty()) return std::nullopt;
    return StageFailure{Status::not_implemented, pending_message_};
}

std::optional<StageFailure> stream_probe_verdict(cudaError_t capture_error, std::size_t nodes)
{
    static const char* const kAdvice =
        "\n  likely cause: a kernel launched without its stream, kernel<<<grid, block>>>(...), runs on the "
        "default stream (so does a stream of your own), unordered with the grader's work and outside its "
        "timing. Pass the stream you were given: kernel<<<grid, block, shared_bytes, stream>>>(...).";
    if (capture_error == cudaErrorStreamCaptureImplicit) {
        return StageFailure{Status::wrong,
                            "your launcher used the legacy default stream instead of the stream it "
                            "was given." +
                                std::string(kAdvice)};
    }
    if (capture_error != cudaSuccess || nodes > 0) return std::nullopt;
    return StageFailure{Status::wrong,
                        "your launcher put no work on the stream it was given: the grader recorded "
                        "that stream while calling your launcher once and found nothing on it." +
                            std::string(kAdvice)};
}

StageFailure recheck_failure(const StageFailure& failure)
{
    static const char* const kCause =
        "\n  likely cause: the launcher was right before timing, so it behaves differently on a repeated call: "
        "a result cached from an earlier call with the same arguments (work skipped), or state kept between calls.";
    if (failure.status == Status::not_implemented) {
        return {Status::wrong,
                "after timing, a call wrote nothing, although the same launcher wrote the right "
                "result before timing." +
                    std::string(kCause)};
    }
    if (failure.status == Status::wrong) return {Status::wrong, "after timing, " + failure.message + kCause};
    return failure;
}

Stage::Stage(const GraderContext& context, const StageInfo& info)
    : context_(context), info_(info), ledger_(context.track ? context.track : "learner")
{}

std::string Stage::memcheck_hint() const { return wb::memcheck_hint(context_.chapter); }

std::string needed_compute_capability(const StageInfo& info)
{
    return std::to_string(info.min_cc_major) + "." + std::to_string(info.min_cc_minor) +
           (info.arch_specific ? "a" : "");
}

std::string compute_capability_skip(int chapter, const StageInfo& info, int cc_major, int cc_minor, bool emulated)
{
    if (info.min_cc_major == 0 && info.min_cc_minor == 0) return "";
    const std::string stage = "chapter " + std::to_string(chapter) + ", stage " + std::to_string(info.id);
    const std::string needed = std::to_string(info.min_cc_major) + "." + std::to_string(info.min_cc_minor);
    const auto older = [&](int major, int minor) {
        return major < info.min_cc_major || (major == info.min_cc_major && minor < info.min_cc_minor);
    };
    if (emulated) {
        const bool modelled = info.arch_specific
                                  ? info.min_cc_major == kEmulatedCcMajor && info.min_cc_minor == kEmulatedCcMinor
                                  : !older(kEmulatedCcMajor, kEmulatedCcMinor);
        if (modelled) return "";
        const std::string why = info.min_cc_major == 9
                                    ? "wgmma/TMA are not emulated"
                                    : "the CPU emulator models compute capability " + std::to_string(kEmulatedCcMajor) +
                                          "." + std::to_string(kEmulatedCcMinor);
        return stage + " needs a GPU of compute capability " + needed + " (" + why +
               "): it is graded on such a GPU only";
    }
    const std::string here = std::to_string(cc_major) + "." + std::to_string(cc_minor);
    if (info.arch_specific) {
        if (cc_major == info.min_cc_major && cc_minor == info.min_cc_minor) return "";
        return stage + " needs a GPU of compute capability " + needed + " exactly (it uses sm_" +
               std::to_string(info.min_cc_major) + std::to_string(info.min_cc_minor) +
               "a instructions, which other GPUs lack); this GPU has " + here + ": grade it on such a GPU";
    }
    if (!older(cc_major, cc_minor)) return "";
    return stage + " needs compute capability " + needed + " or newer; this GPU has " + here +
           ": grade it on a newer GPU";
}

void Stage::record(const std::string& key, double value)
{
    extra_fields_ += ", " + json_string(key) + ": " + json_number(value);
}

void Stage::run(const Launch& launch)
{
    // Under compute-sanitizer only the planned calls run (the first, small cases, and on to the first call of
    // each kernel they miss: sanitizer_plan.hpp): the tools slow kernels down a hundredfold. The rest of the
    // stage (larger cases, their references, timing) ends here.
    if (under_sanitizer() && ++sanitizer_runs_ > sanitizer_calls_for(info_.id)) throw SanitizerCasesDone{};
    if (calls_.empty()) first_call_ = std::chrono::steady_clock::now();
    if (profile_request()) return;   // profile mode: only the speed case's launcher runs (check_speed)
    // Every call is recorded (launch_ledger.hpp): kernels and their streams, allocations kept.
    ledger_begin(stream());
    // A step that fails ends the ledger's record before the failure is reported.
    auto abandon_ledger_on_failure = [&](const auto& step) {
        try {
            step();
        } catch (const CudaError& error) {
            ledger_abandon();
            throw failure_from_cuda(error, context_.chapter);
        } catch (...) {
            ledger_abandon();
            throw;
        }
    };
    abandon_ledger_on_failure([&] { launch(stream()); });
    const cudaError_t launch_error = cudaGetLastError();
    if (launch_error != cudaSuccess) {
        ledger_abandon();
        throw failure_from_cuda(
            CudaError(launch_error, std::string(cudaGetErrorName(launch_error)) + " (" +
                                        cudaGetErrorString(launch_error) + ") after your launcher returned"),
            context_.chapter);
    }
    abandon_ledger_on_failure([&] { synchronize_with_timeout(stream()); });
    const LaunchRecord record = ledger_end();
    ledger_.add(record);
    if (record.available) last_kernels_ = record.kernels;
    CallRecord call;
    for (const KernelFacts& kernel : record.kernels)
        call.kernels.push_back(kernel.origin.empty() ? kernel.name : kernel.origin);
    call.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - first_call_).count();
    calls_.push_back(std::move(call));
    // A write past the end of any of the grader's arrays (an input or a workspace too, which nobody
    // downloads) is named at once, before the values it may have spoiled are judged.
    if (const std::optional<std::string> problem = written_guard()) throw StageFailure{Status::wrong, *problem};
    // So is a write into an input the grader declared const (DeviceBuffer::protect).
    if (const std::optional<std::string> problem = modified_input()) throw StageFailure{Status::wrong, *problem};
    // Work on another stream is named at once: the wrong values it may cause would hide the reason.
    if (!record.elsewhere.empty()) {
        if (const std::optional<std::string> problem = ledger_.verdict()) throw StageFailure{Status::wrong, *problem};
    }
}

SanitizerPlan Stage::sanitizer_plan() const
{
    return plan_sanitizer_calls(calls_, sanitizer_run_limit(), kSanitizerBudgetSeconds);
}

void Stage::expect(const CompareReport& report, const std::string& case_name)
{
    if (profile_request()) return;   // profile mode: nothing ran, nothing to compare
    if (rechecking_) {               // after timing: check_speed turns these into "wrong" (recheck_failure)
        if (report.ok) {
            std::printf("  ok    %s\n", case_name.c_str());
            return;
        }
        if (report.nothing_written) throw StageFailure{Status::not_implemented, report.message};
        throw StageFailure{Status::wrong, "wrong result for " + case_name + ": " + report.message};
    }
    const std::optional<StageFailure> failure = unwritten_.on_report(report, case_name);
    if (report.ok) {
        std::printf("  ok    %s\n", case_name.c_str());
    } else if (report.nothing_written && !failure) {
        std::printf("  --    %s: nothing written\n", case_name.c_str());
    }
    if (failure) throw *failure;
}

void Stage::end_of_correctness()
{
    if (const std::optional<StageFailure> failure = unwritten_.at_end()) throw *failure;
    if (const std::optional<std::string> problem = ledger_.verdict()) throw StageFailure{Status::wrong, *problem};
    if (stream_failure_) {
        const StageFailure failure = *stream_failure_;
        stream_failure_.reset();
        throw failure;
    }
}

void Stage::compare_memory_behaviour(const MemoryCase& memory)
{
    if (!emulated()) return;
    // WORKBOOK_EMU_COUNTERS=off skips the comparison (docs/emulation.md): correctness only, a little faster.
    if (const char* counters = std::getenv("WORKBOOK_EMU_COUNTERS"); counters && std::string(counters) == "off") return;
    end_of_correctness();   // the verdicts kept for the end of the correctness checks come first
    const EmulatedMemoryJudgement judgement = judge_memory_behaviour(info_.id, memory, stream());
    for (const auto& [key, value] : judgement.fields) record(key, value);
    // The test of the reference stages in the emulated build keeps each stage's counters, from which
    // tools/emu_profile_table.py checks the table of docs/emulated_counters.md (no grader runs twice).
    if (const char* folder = std::getenv("WORKBOOK_EMU_COUNTERS_DIR"); folder && *folder && !judgement.record.empty()) {
        const std::string path = std::string(folder) + "/ch" + (context_.chapter < 10 ? "0" : "") +
                                 std::to_string(context_.chapter) + "_stage" + std::to_string(info_.id) + ".json";
        if (std::FILE* file = std::fopen(path.c_str(), "w")) {
            std::fprintf(file, "{\"input\": %s, %s\n", json_string(memory.description).c_str(),
                         judgement.record.c_str() + 1);
            std::fclose(file);
        }
    }
    if (judgement.failure) throw *judgement.failure;
    passed_note_ = judgement.note;
}

void Stage::check_stream_use(const Launch& launch)
{
    // Relaxed mode: a launcher may allocate (cudaMalloc) while its stream is being captured.
    if (cudaStreamBeginCapture(stream(), cudaStreamCaptureModeRelaxed) != cudaSuccess) {
        (void)cudaGetLastError();
        return;   // no capture, no verdict
    }
    cudaError_t error = cudaSuccess;
    try {
        launch(stream());
    } catch (const CudaError& e) {
        error = e.code();
    } catch (...) {
        error = cudaErrorUnknown;
    }
    const cudaError_t last = cudaGetLastError();
    if (error == cudaSuccess) error = last;
    cudaGraph_t graph = nullptr;
    const cudaError_t end = cudaStreamEndCapture(stream(), &graph);
    if (error == cudaSuccess) error = end;
    std::size_t nodes = 0;
    if (graph != nullptr) {
        if (cudaGraphGetNodes(graph, nullptr, &nodes) != cudaSuccess && error == cudaSuccess) error = cudaErrorUnknown;
        cudaGraphDestroy(graph);
    }
    (void)cudaGetLastError();   // errors of the capture are the probe's business only
    if (const std::optional<StageFailure> failure = stream_probe_verdict(error, nodes)) throw *failure;
}

void Stage::check_idea(const Launch& launch, const std::function<std::string(const std::vector<KernelFacts>&)>& rule)
{
    end_of_correctness();
    if (under_sanitizer() || profile_request()) return;   // checked in the grader's own run
    const std::vector<KernelFacts> kernels = launch_facts(launch, stream());
    if (kernels.empty()) {
        std::printf("  the stage's idea is not checked: no launch facts could be read here\n");
        return;
    }
    const std::string missing = rule(kernels);
    if (missing.empty()) return;
    throw StageFailure{Status::wrong,
                       "right results, but not this stage's idea: " + missing +
                           "\n  your launch: " + describe_kernels(kernels) +
                           ".\n  Re-read the stage's contract (stages.cuh) and its section of the chapter README."};
}

bool Stage::measures_speed()
{
    const std::string reason = timing_unavailable_reason();
    if (reason.empty()) return true;
    if (!speed_reason_printed_) std::printf("  speed not measured: %s\n", reason.c_str());
    speed_reason_printed_ = true;
    return false;
}

namespace {

/// "1.234 ms, 812 GB/s (41% of copy bandwidth)" or "..., 12.3 TFLOP/s": one timing as a learner reads it.
std::string describe_rate(const SpeedCase& speed, double ms, double copy_gbps)
{
    std::ostringstream text;
    text.setf(std::ios::fixed);
    text.precision(3);
    text << ms << " ms";
    text.precision(0);
    if (speed.flops > 0) {
        text.precision(2);
        text << ", " << speed.flops / (ms * 1e-3) / 1e12 << " TFLOP/s";
    } else if (speed.bytes > 0) {
        const double gbps = speed.bytes / (ms * 1e-3) / 1e9;
        text << ", " << gbps << " GB/s (" << 100.0 * gbps / copy_gbps << "% of copy bandwidth)";
    }
    return text.str();
}

/// "x0.96 over reference stage 3 (1.234 ms); required x1.31 (<the speed rule>)".
std::string describe_speedup(double speedup, const std::string& previous, double t_previous, double required,
                             const std::string& rule)
{
    char line[512];
    std::snprintf(line, sizeof line, "x%.2f over %s (%.3f ms); required x%.2f (%s)", speedup, previous.c_str(),
                  t_previous, required, rule.c_str());
    return line;
}

}   // namespace

/// The three timings of a speed case and what the speed rule makes of them.
struct Stage::SpeedTiming {
    bool has_target = false;   ///< the stage has a speed target and a previous stage to beat
    double candidate_ms = 0, reference_ms = 0, previous_ms = 0;
    double speedup = 0;    ///< previous / candidate
    double gain = 0;       ///< previous / reference: what the reference gains on this GPU
    double required = 0;   ///< the speed-up the rule asks for (timing.hpp)
    bool fast_enough = true;
};

/// Times the candidate beside the references, interleaved; a slow result is measured again (up to three
/// attempts) before it counts, so that one noisy run does not fail a right stage.
Stage::SpeedTiming Stage::time_against_references(const SpeedCase& speed)
{
    SpeedTiming timing;
    timing.has_target = info_.speedup_target > 0.0 && speed.previous_reference;
    std::vector<Launch> launches{speed.candidate, speed.current_reference};
    if (timing.has_target) launches.push_back(speed.previous_reference);
    const int attempts = timing.has_target ? 3 : 1;
    for (int attempt = 1; attempt <= attempts; ++attempt) {
        std::vector<double> ms;
        try {
            ms = interleaved_median_ms(stream(), launches);
        } catch (const CudaError& error) {
            throw failure_from_cuda(error, context_.chapter);
        }
        timing.candidate_ms = ms[0];
        timing.reference_ms = ms[1];
        if (!timing.has_target) break;
        timing.previous_ms = ms[2];
        timing.speedup = timing.previous_ms / timing.candidate_ms;
        timing.gain = timing.previous_ms / timing.reference_ms;
        timing.required = required_speedup(info_.speedup_target, timing.gain);
        timing.fast_enough = timing.speedup >= timing.required;
        if (timing.fast_enough) break;
        if (attempt < attempts)
            std::printf("  speed x%.2f < x%.2f: measuring again\n", timing.speedup, timing.required);
    }
    return timing;
}

/// Prints the candidate's rate and adds it to the result line.
void Stage::record_rate(const SpeedCase& speed, double ms, double copy_gbps)
{
    std::printf("  speed (%s): this stage %s\n", speed.description.c_str(),
                describe_rate(speed, ms, copy_gbps).c_str());
    const std::string& suffix = speed.key_suffix;
    record("ms" + suffix, ms);
    if (suffix.empty()) record("copy_gbps", copy_gbps);
    if (speed.bytes > 0) {
        const double gbps = speed.bytes / (ms * 1e-3) / 1e9;
        record("gbps" + suffix, gbps);
        record("pct_copy" + suffix, 100.0 * gbps / copy_gbps);
    }
    if (speed.flops > 0) record("tflops" + suffix, speed.flops / (ms * 1e-3) / 1e12);
}

/// Correctness again on the timed inputs: a wrong result is the clearer diagnosis than a speed.
void Stage::recheck_after_timing(const SpeedCase& speed)
{
    if (!speed.recheck) return;
    rechecking_ = true;
    try {
        speed.recheck();
    } catch (const StageFailure& failure) {
        rechecking_ = false;
        throw recheck_failure(failure);
    }
    rechecking_ = false;
}

/// Applies the speed rule; a "too slow" verdict whose first sentence names the likely cause, read from
/// the launch facts of the three launchers (launch_ledger.hpp), then the speed-up and the facts.
void Stage::judge_speedup(const SpeedCase& speed, const SpeedTiming& timing)
{
    record("speedup" + speed.key_suffix, timing.speedup);
    record("required" + speed.key_suffix, timing.required);
    record("reference_gain" + speed.key_suffix, timing.gain);
    const std::string previous =
        speed.previous_label.empty() ? "reference stage " + std::to_string(info_.id - 1) : speed.previous_label;
    // A stage timed on more than one case names the case of a later verdict (e.g. "4096^3 bf16, ...: x1.1 ...").
    const std::string line = (speed.key_suffix.empty() ? "" : speed.description + ": ") +
                             describe_speedup(timing.speedup, previous, timing.previous_ms, timing.required,
                                              describe_speed_rule(info_.speedup_target, timing.gain, info_.id));
    std::printf("        %s\n", line.c_str());
    if (timing.fast_enough) return;
    const SlowLaunch why = explain_launch_difference(
        launch_facts(speed.candidate, stream()), launch_facts(speed.previous_reference, stream()),
        launch_facts(speed.current_reference, stream()), info_.id, device_info().sm_count, speed.bytes);
    throw StageFailure{Status::too_slow, too_slow_message(line, why)};
}

void Stage::check_speed(const SpeedCase& speed)
{
    end_of_correctness();
    if (profile_request()) profile_one_launcher(speed);
    if (!measures_speed()) return;
    // The ledger saw every call already; without it, a capture of one call finds work on another stream.
    if (!ledger_unavailable_reason().empty()) check_stream_use(speed.candidate);
    const double copy_gbps = copy_bandwidth_gbps();
    const SpeedTiming timing = time_against_references(speed);
    record_rate(speed, timing.candidate_ms, copy_gbps);
    recheck_after_timing(speed);
    if (speed.bytes > 0 && speed.bytes / (timing.candidate_ms * 1e-3) / 1e9 > 1.3 * copy_gbps) {
        throw StageFailure{Status::wrong, "implausibly fast: " + describe_rate(speed, timing.candidate_ms, copy_gbps) +
                                              " is more than the memory can deliver. Does the kernel really "
                                              "read every input and write every output on the stream it is given?"};
    }
    if (!timing.has_target) {
        std::printf("        reference stage %d: %s (no speed target for this stage)\n", info_.id,
                    describe_rate(speed, timing.reference_ms, copy_gbps).c_str());
        return;
    }
    judge_speedup(speed, timing);
}

std::string too_slow_message(const std::string& speedup_line, const SlowLaunch& why)
{
    const std::string closing =
        "Re-read the stage's idea in the chapter README, or `make hint`; "
        "`make profile-chapter` shows the hardware counters on a GPU with Nsight Compute.";
    if (why.causes.empty()) return "correct, but too slow: " + speedup_line + ".\n  " + closing;
    std::string also;
    for (std::size_t i = 1; i < why.causes.size(); ++i) also += "\n  also: " + why.causes[i];
    return "correct, but too slow: " + why.causes.front() + "\n  speed: " + speedup_line + "." + also + why.table +
           "\n  " + closing;
}

// ---- profile mode (`grader --workbook-profile <stage> <which>`) ------------------------------------

namespace {
std::optional<ProfileRequest>& profile_request_storage()
{
    static std::optional<ProfileRequest> request;
    return request;
}
}   // namespace

void request_profile(const ProfileRequest& request) { profile_request_storage() = request; }

const std::optional<ProfileRequest>& profile_request() { return profile_request_storage(); }

std::string profile_line(int stage, const std::string& which, const std::string& label,
                         const std::vector<KernelFacts>& kernels)
{
    std::ostringstream line;
    line << "WORKBOOK-PROFILE {\"stage\": " << stage << ", \"which\": " << json_string(which)
         << ", \"label\": " << json_string(label) << ", \"kernels\": [";
    for (std::size_t i = 0; i < kernels.size(); ++i) {
        const KernelFacts& k = kernels[i];
        line << (i ? ", " : "") << "{\"name\": " << json_string(k.name) << ", \"blocks\": " << k.blocks()
             << ", \"threads_per_block\": " << k.threads_per_block() << ", \"registers\": " << k.registers
             << ", \"shared_bytes\": " << k.shared_per_block() << ", \"local_bytes\": " << k.local_bytes
             << ", \"occupancy\": " << json_number(k.occupancy)
             << ", \"occupancy_limit\": " << json_string(k.occupancy_limit) << "}";
    }
    line << "]}";
    return line.str();
}

void Stage::profile_one_launcher(const SpeedCase& speed)
{
    const std::string& which = profile_request()->which;
    const Launch& launch = which == "learner"    ? speed.candidate
                           : which == "previous" ? speed.previous_reference
                                                 : speed.current_reference;
    std::string label = which == "current" ? "reference stage " + std::to_string(info_.id) : "your stage";
    if (which == "learner" && std::string(context_.track) == "reference")
        label = "reference stage " + std::to_string(info_.id);
    if (which == "previous") {
        label = speed.previous_label.empty() ? "reference stage " + std::to_string(info_.id - 1) : speed.previous_label;
    }
    std::vector<KernelFacts> kernels;
    if (launch) {
        kernels = launch_facts(launch, stream());
        try {
            launch(stream());   // warm-up: first-call allocations and caches, outside the profiled range
            WB_CUDA_CHECK(cudaStreamSynchronize(stream()));
#if !WORKBOOK_EMULATED
            WB_CUDA_CHECK(cudaProfilerStart());
            launch(stream());
            WB_CUDA_CHECK(cudaStreamSynchronize(stream()));
            WB_CUDA_CHECK(cudaProfilerStop());
#endif
        } catch (const CudaError& error) {
            throw failure_from_cuda(error, context_.chapter);
        }
    }
    std::printf("%s\n", profile_line(info_.id, which, launch ? label : "", kernels).c_str());
    std::fflush(stdout);
    throw ProfileDone{};
}

#if WORKBOOK_EMULATED
/// On the CPU emulator, a wrong result that comes and goes with the order in which threads run is a
/// race: runs the stage's checks again (quietly) once in each of the emulator's fixed schedules and,
/// when they disagree, says so and names the schedules. Empty when every schedule gives the same verdict.
std::string schedule_dependence(const std::function<void()>& run_checks)
{
    static const char* const kNames[] = {"forward", "reverse", "random"};
    std::string wrong_in, right_in;
    std::fflush(stdout);
    const int saved_stdout = dup(STDOUT_FILENO);
    const int quiet = open("/dev/null", O_WRONLY);
    if (saved_stdout < 0 || quiet < 0) return "";
    for (int schedule = 0; schedule < 3; ++schedule) {
        emu::force_schedule(schedule);
        dup2(quiet, STDOUT_FILENO);
        Status status = Status::passed;
        try {
            run_checks();
        } catch (const StageFailure& failure) {
            status = failure.status;
        } catch (...) {
            status = Status::crashed;
        }
        std::fflush(stdout);
        dup2(saved_stdout, STDOUT_FILENO);
        if (status != Status::passed && status != Status::wrong) (void)cudaDeviceReset();   // a fault is sticky
        std::string& list = status == Status::passed ? right_in : wrong_in;
        list += (list.empty() ? "" : ", ") + std::string(kNames[schedule]);
    }
    emu::force_schedule(-1);
    close(quiet);
    close(saved_stdout);
    if (wrong_in.empty() || right_in.empty()) return "";
    auto schedules = [](const std::string& list) {
        return list + (list.find(',') == std::string::npos ? " schedule" : " schedules");
    };
    return "\n  the result depends on thread order: a race. Run again in each of the emulator's thread orders, "
           "the checks fail in the " +
           schedules(wrong_in) + " and pass in the " + schedules(right_in) +
           " (replay one with WORKBOOK_EMU_SCHEDULE=" + wrong_in.substr(0, wrong_in.find(',')) +
           "). Look for a missing __syncthreads() or __syncwarp(), or threads updating one element without atomics.";
}
#endif

StageVerdict run_stage(const GraderContext& context, const StageInfo& info, const std::function<void(Stage&)>& body)
{
    std::printf("== chapter %d, stage %d: %s (%s) ==\n", context.chapter, info.id, info.title,
                context.track == std::string("learner") ? "your code" : "reference solution");
    const std::string& unavailable = gpu_unavailable_reason();
    if (!unavailable.empty()) {
        std::printf("WORKBOOK-SKIP: %s.\n", unavailable.c_str());
        print_result(context, info, Status::skipped, unavailable, "");
        return {Status::skipped, unavailable};
    }
    // A stage that needs a newer GPU (stages.json's "min_cc") is skipped before anything runs.
    if (const std::string too_old =
            compute_capability_skip(context.chapter, info, device_info().cc_major, device_info().cc_minor, emulated());
        !too_old.empty()) {
        std::printf("WORKBOOK-SKIP: %s.\n", too_old.c_str());
        print_result(context, info, Status::skipped, too_old,
                     ", \"needs_cc\": " + json_string(needed_compute_capability(info)));
        return {Status::skipped, too_old};
    }
    seed();
    StageVerdict verdict{Status::passed, ""};
    std::string fields;
    SanitizerPlan plan;
    // A hung kernel is reported where the wait gives up, and the process ends there: the GPU cannot be
    // freed from it inside this process, and unwinding would block in the first cudaFree.
    const auto report_hang = [&](double seconds) {
        const std::string message =
            "a kernel was still running after " + std::to_string(static_cast<int>(seconds)) +
            " s: a deadlock (a __syncthreads() that not every thread of the block reaches, or an mbarrier wait "
            "that nothing completes: a parity that does not flip, fewer arrivals or bytes than the barrier "
            "expects) or a loop that never ends.\n  " +
            memcheck_hint(context.chapter);
        print_result(context, info, Status::hung, message, fields);
        std::printf("FAILED: %s\n", message.c_str());
        std::fflush(stdout);
        std::_Exit(1);
    };
    set_hang_handler(report_hang);
    struct ClearHandler {
        ~ClearHandler() { set_hang_handler({}); }
    } clear_handler;
    try {
        const DeviceInfo& gpu = device_info();
        std::printf("GPU: %s (compute capability %d.%d, %d SMs)\n", gpu.name.c_str(), gpu.cc_major, gpu.cc_minor,
                    gpu.sm_count);
        Stage stage(context, info);
        if (emulated()) {
            std::printf("emulated on the CPU: correctness only, speed needs a GPU\n");
            stage.extra_fields_ += ", \"emulated\": true";
        }
        auto keep_plan = [&] {   // what the sanitizer pass below (or `make check-chapter`'s) will run
            plan = stage.sanitizer_plan();
            stage.record("sanitizer_calls", plan.calls);
            std::string unreached;
            for (const std::string& kernel : plan.unreached) unreached += (unreached.empty() ? "" : ", ") + kernel;
            if (!unreached.empty()) stage.extra_fields_ += ", \"sanitizer_unreached\": " + json_string(unreached);
            fields = stage.extra_fields_;
        };
        try {
            body(stage);
            stage.end_of_correctness();
        } catch (...) {
            keep_plan();
            throw;
        }
        keep_plan();
        verdict.message = stage.passed_note_;
    } catch (const StageFailure& failure) {
        verdict = {failure.status, failure.message};
    } catch (const ProfileDone&) {
        return {Status::passed, ""};   // the WORKBOOK-PROFILE line is this run's result
    } catch (const SanitizerCasesDone&) {
        // The child that compute-sanitizer runs has checked its cases: what the tools saw is their verdict.
    } catch (const HangError& hang) {
        report_hang(hang.seconds);
    } catch (const CudaError& error) {
        const StageFailure failure = failure_from_cuda(error, context.chapter);
        verdict = {failure.status, failure.message};
    } catch (const OutOfBoundsWrite& error) {
        verdict = {Status::wrong, error.what()};
    } catch (const std::exception& error) {
        verdict = {Status::crashed, std::string("the grader stopped: ") + error.what()};
    }
#if WORKBOOK_EMULATED
    if (verdict.status == Status::wrong) {
        verdict.message += schedule_dependence([&] {
            Stage stage(context, info);
            body(stage);
            stage.end_of_correctness();
        });
    }
#else
    // Right results (passed, or only too slow): undefined behaviour that today's output hides is the
    // verdict that matters first.
    if ((verdict.status == Status::passed || verdict.status == Status::too_slow) && !profile_request()) {
        if (std::optional<StageFailure> failure = sanitizer_verdict(context, info, plan)) {
            verdict = {failure->status, failure->message};
        }
    }
#endif
    print_result(context, info, verdict.status, verdict.message, fields);
    if (verdict.status == Status::passed) {
        std::printf("PASSED: stage %d\n", info.id);
    } else if (verdict.status == Status::skipped) {
        std::printf("SKIPPED: %s\n", verdict.message.c_str());   // not a failure: ctest shows it as skipped
    } else {
        std::printf("FAILED (%s): %s\n", status_name(verdict.status), verdict.message.c_str());
    }
    return verdict;
}

void print_bench_row(int chapter, const BenchRow& row)
{
    std::string line = "WORKBOOK-BENCH {\"chapter\": " + std::to_string(chapter) + ", \"op\": " + json_string(row.op) +
                       ", \"variant\": " + json_string(row.variant) + ", \"stage\": " + std::to_string(row.stage) +
                       ", \"shape\": " + json_string(row.shape) + ", \"dtype\": " + json_string(row.dtype) +
                       ", \"ms\": " + json_number(row.ms);
    if (row.bytes > 0) {
        const double gbps = row.bytes / (row.ms * 1e-3) / 1e9;
        line +=
            ", \"gbps\": " + json_number(gbps) + ", \"pct_copy\": " + json_number(100.0 * gbps / copy_bandwidth_gbps());
    }
    if (row.flops > 0) line += ", \"tflops\": " + json_number(row.flops / (row.ms * 1e-3) / 1e12);
    if (row.library_ms > 0) {
        line += ", \"library_ms\": " + json_number(row.library_ms) +
                ", \"vs_library\": " + json_number(row.library_ms / row.ms);
    }
    if (row.vs_library_alternated > 0) line += ", \"vs_library_alternated\": " + json_number(row.vs_library_alternated);
    line += ", \"gpu\": " + json_string(device_info().name) + ", \"copy_gbps\": " + json_number(copy_bandwidth_gbps()) +
            "}";
    std::printf("%s\n", line.c_str());
    std::fflush(stdout);
}

}   // namespace wb
