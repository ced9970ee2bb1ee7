/// @file timing.hpp
/// @brief Timing kernels with CUDA events, and the rule that turns times into a pass or a fail.
///
/// ## How a stage is timed
/// - CUDA events recorded on the launch stream around each launch (no host clocks).
/// - Warm-up launches first (module load, first-touch, clocks ramping up), then at least 20 timed
///   launches; the median is reported, so one interrupted run cannot decide the result.
/// - The learner's launch and the reference launches are interleaved (learner, previous reference,
///   current reference, learner, ...), so clock and temperature drift affect all of them alike.
/// - Inputs are several times larger than L2, so the memory system is measured, not the cache.
///
/// ## Long compute-bound kernels: steady state (`make bench` of chapter 8)
/// A GPU at its power limit sets its clock from the power drawn over the last tens to hundreds of
/// milliseconds. Launches of a few milliseconds that alternate one by one then run at a clock set by
/// their neighbour as much as by themselves: on an H100 at 8192^3, chapter 8's stage 5 against cuBLAS
/// read 0.57x to 0.66x in runs minutes apart, depending on input data and on what ran just before.
/// steady_state_median_ms() runs each launch back to back for a second, keeps the second half of
/// that segment, and lets the launches take turns by segment: each is measured at the clock its own
/// power allows (0.657x to 0.662x in six repetitions of the same comparison).
///
/// ## The speed rule
/// Stage k must be `target_k` times faster than reference stage k-1 (the target comes from the
/// chapter's stages.json), capped by what the reference stage k itself gains over stage k-1 on this
/// GPU in the same run, G = t(reference k-1) / t(reference k):
///     required = min(target_k, cap(G)),   cap(G) = max(0.8 G, min(1 + (G - 1) / 2, 0.95 G))
/// - For a large gain (G >= 5/3) the cap is 80% of it: a GPU on which an optimisation matters less
///   asks less of the learner.
/// - For a modest gain (10/9 <= G <= 5/3) the cap is half of the gain, 1 + (G - 1) / 2: a plain 80%
///   of G would drop below 1 for G < 1.25 and let a copy of stage k-1 pass, a check that cannot fail.
/// - For the smallest gains (G <= 10/9) the cap is 95% of G, and it never exceeds that anywhere, so
///   a stage as good as the reference passes with a 5% margin for noise.
/// A failing check is measured again (up to three measurements in all) before it is reported.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace wb {

/// One launch of something to time; it must put all its work on the stream it is given.
using Launch = std::function<void(cudaStream_t)>;

/// Median of a list of numbers (the list is copied).
double median(std::vector<double> values);

/// How many warm-up and timed launches to make. Speed checks always use the default (25 timed
/// launches, so the median is robust); benchmarks of very slow variants may ask for fewer.
struct TimingPlan {
    int warmup = 3;
    int repetitions = 25;
};

/// Median milliseconds of one launch.
double median_ms(cudaStream_t stream, const Launch& launch, TimingPlan plan = {});

/// Median milliseconds of each launch, timed round-robin so that drift hits all of them alike.
std::vector<double> interleaved_median_ms(cudaStream_t stream, const std::vector<Launch>& launches,
                                          TimingPlan plan = {});

/// How steady_state_median_ms() runs: each launch back to back for @p segment_seconds, its times
/// kept from the segment's second half on (at least @p min_samples of them, however slow one launch
/// is); the launches take turns by segment, @p rounds times.
struct SteadyStatePlan {
    double segment_seconds = 1.0;
    int rounds = 2;
    int min_samples = 3;
};

/// Median milliseconds of each launch in its own steady state (see "Long compute-bound kernels").
std::vector<double> steady_state_median_ms(cudaStream_t stream, const std::vector<Launch>& launches,
                                           SteadyStatePlan plan = {});

/// The schedule of steady_state_median_ms(), apart from the GPU so that it can be tested without one:
/// @p time_launch(i) runs launch i once and returns its milliseconds, @p now() is a clock in seconds.
/// Returns the times kept for each of the @p launch_count launches.
std::vector<std::vector<double>> steady_state_samples(std::size_t launch_count, SteadyStatePlan plan,
                                                      const std::function<double(std::size_t)>& time_launch,
                                                      const std::function<double()>& now);

/// Waits for @p stream, but gives up after WORKBOOK_KERNEL_TIMEOUT seconds (default 30, 120 on the CPU emulator) and
/// reports a hang instead of waiting forever (throws HangError).
void synchronize_with_timeout(cudaStream_t stream);

/// Thrown when a kernel does not finish in time: a deadlock (a barrier not every thread reaches)
/// or an endless loop. The GPU cannot be recovered from this inside the process.
struct HangError {
    double seconds;
};

/// What synchronize_with_timeout does on a hang, before anything else can run: the stage runner installs
/// one that prints the stage's verdict and ends the process at once. Unwinding instead would run
/// destructors that free device memory, and cudaFree waits for the hung kernel: forever. Without a
/// handler (an empty function), HangError is thrown.
void set_hang_handler(std::function<void(double seconds)> handler);

/// cap(G) of the file comment: the most a stage can be asked to gain, given the reference's gain G.
double speedup_cap(double reference_gain);

/// The speed rule of the file comment: the speed-up stage k must reach over reference stage k-1.
double required_speedup(double target, double reference_gain);

/// Which part of the speed rule gave required_speedup(): the target itself, or one piece of the cap.
enum class SpeedRule { target, eighty_percent_of_gain, half_of_gain, ninety_five_percent_of_gain };
SpeedRule speed_rule_applied(double target, double reference_gain);

/// The rule that applied, in words for the speed report, e.g. "target x1.50, capped at 80% of the x1.70
/// that reference stage 3 gains on this GPU".
std::string describe_speed_rule(double target, double reference_gain, int stage);

}   // namespace wb
