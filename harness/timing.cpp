#include "harness/timing.hpp"

#include "common/cuda_check.hpp"
#include "harness/device.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <thread>

#if WORKBOOK_EMULATED
#include "emu/grader_api.hpp"
#endif

namespace wb {

double median(std::vector<double> values)
{
    if (values.empty()) throw std::invalid_argument("median of nothing");
    const std::size_t mid = values.size() / 2;
    std::nth_element(values.begin(), values.begin() + mid, values.end());
    double upper = values[mid];
    if (values.size() % 2 == 1) return upper;
    const double lower = *std::max_element(values.begin(), values.begin() + mid);
    return 0.5 * (lower + upper);
}

double speedup_cap(double reference_gain)
{
    const double half_the_gain = 1.0 + 0.5 * (reference_gain - 1.0);
    return std::max(0.8 * reference_gain, std::min(half_the_gain, 0.95 * reference_gain));
}

double required_speedup(double target, double reference_gain) { return std::min(target, speedup_cap(reference_gain)); }

SpeedRule speed_rule_applied(double target, double reference_gain)
{
    const double cap = speedup_cap(reference_gain);
    if (target <= cap) return SpeedRule::target;
    if (cap == 0.8 * reference_gain) return SpeedRule::eighty_percent_of_gain;
    if (cap == 0.95 * reference_gain) return SpeedRule::ninety_five_percent_of_gain;
    return SpeedRule::half_of_gain;
}

std::string describe_speed_rule(double target, double reference_gain, int stage)
{
    char text[256];
    const std::string gains = " that reference stage " + std::to_string(stage) + " gains on this GPU";
    switch (speed_rule_applied(target, reference_gain)) {
        case SpeedRule::target:
            std::snprintf(text, sizeof text, "the stage's target x%.2f, not capped: below what the x%.2f%s allows",
                          target, reference_gain, gains.c_str());
            break;
        case SpeedRule::eighty_percent_of_gain:
            std::snprintf(text, sizeof text, "target x%.2f, capped at 80%% of the x%.2f%s", target, reference_gain,
                          gains.c_str());
            break;
        case SpeedRule::half_of_gain:
            std::snprintf(text, sizeof text,
                          "target x%.2f, capped at half of the gain, 1 + (G - 1) / 2, with the "
                          "G = x%.2f%s",
                          target, reference_gain, gains.c_str());
            break;
        case SpeedRule::ninety_five_percent_of_gain:
            std::snprintf(text, sizeof text, "target x%.2f, capped at 95%% of the x%.2f%s", target, reference_gain,
                          gains.c_str());
            break;
    }
    return text;
}

namespace {
std::function<void(double)>& hang_handler()
{
    static std::function<void(double)> handler;
    return handler;
}
}   // namespace

void set_hang_handler(std::function<void(double seconds)> handler) { hang_handler() = std::move(handler); }

void synchronize_with_timeout(cudaStream_t stream)
{
    static const double limit_seconds = [] {
        const char* env = std::getenv("WORKBOOK_KERNEL_TIMEOUT");
        const double value = env ? std::atof(env) : 0.0;
        // Emulated kernels run 100 to 1000 times slower, and the emulator reports deadlocks at once.
        return value > 0.0 ? value : (emulated() ? 120.0 : 30.0);
    }();
    const auto start = std::chrono::steady_clock::now();
    auto last_progress = start;
#if WORKBOOK_EMULATED
    // On the CPU backend the limit counts from the last block that started: a launch of many blocks
    // that takes long on a loaded machine is slow, not hung (a deadlock is reported at once anyway).
    std::uint64_t blocks = emu::blocks_started();
#endif
    for (;;) {
        const cudaError_t status = cudaStreamQuery(stream);
        if (status == cudaSuccess) return;
        if (status != cudaErrorNotReady) WB_CUDA_CHECK(status);
        const auto now = std::chrono::steady_clock::now();
#if WORKBOOK_EMULATED
        if (const std::uint64_t started = emu::blocks_started(); started != blocks) {
            blocks = started;
            last_progress = now;
        }
#endif
        const double waited = std::chrono::duration<double>(now - start).count();
        if (std::chrono::duration<double>(now - last_progress).count() > limit_seconds) {
            if (hang_handler()) hang_handler()(waited);   // does not return
            throw HangError{waited};
        }
        std::this_thread::sleep_for(std::chrono::microseconds(waited < 0.01 ? 20 : 1000));
    }
}

namespace {

class Event {
public:
    Event() { WB_CUDA_CHECK(cudaEventCreate(&event_)); }
    ~Event() { cudaEventDestroy(event_); }
    Event(const Event&) = delete;
    Event& operator=(const Event&) = delete;
    cudaEvent_t get() const { return event_; }

private:
    cudaEvent_t event_ = nullptr;
};

double time_once(cudaStream_t stream, const Launch& launch, const Event& start, const Event& stop)
{
    WB_CUDA_CHECK(cudaEventRecord(start.get(), stream));
    launch(stream);
    WB_CUDA_CHECK(cudaGetLastError());
    WB_CUDA_CHECK(cudaEventRecord(stop.get(), stream));
    synchronize_with_timeout(stream);
    float ms = 0.0f;
    WB_CUDA_CHECK(cudaEventElapsedTime(&ms, start.get(), stop.get()));
    return ms;
}

}   // namespace

std::vector<double> interleaved_median_ms(cudaStream_t stream, const std::vector<Launch>& launches, TimingPlan plan)
{
    Event start, stop;
    for (int w = 0; w < plan.warmup; ++w) {
        for (const Launch& launch : launches) time_once(stream, launch, start, stop);
    }
    std::vector<std::vector<double>> samples(launches.size());
    for (int r = 0; r < std::max(plan.repetitions, 1); ++r) {
        for (std::size_t i = 0; i < launches.size(); ++i) {
            samples[i].push_back(time_once(stream, launches[i], start, stop));
        }
    }
    std::vector<double> medians;
    for (const auto& s : samples) medians.push_back(median(s));
    return medians;
}

std::vector<std::vector<double>> steady_state_samples(std::size_t launch_count, SteadyStatePlan plan,
                                                      const std::function<double(std::size_t)>& time_launch,
                                                      const std::function<double()>& now)
{
    std::vector<std::vector<double>> samples(launch_count);
    for (int round = 0; round < std::max(plan.rounds, 1); ++round) {
        for (std::size_t i = 0; i < launch_count; ++i) {
            const double segment_start = now();
            int kept = 0;
            for (;;) {
                const double elapsed = now() - segment_start;
                if (elapsed >= plan.segment_seconds && kept >= plan.min_samples) break;
                const double ms = time_launch(i);
                if (elapsed >= 0.5 * plan.segment_seconds) {   // the first half brings the clock to this launch's own
                    samples[i].push_back(ms);
                    ++kept;
                }
            }
        }
    }
    return samples;
}

std::vector<double> steady_state_median_ms(cudaStream_t stream, const std::vector<Launch>& launches,
                                           SteadyStatePlan plan)
{
    Event start, stop;
    const auto seconds = [] {
        return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
    };
    const auto samples = steady_state_samples(
        launches.size(), plan, [&](std::size_t i) { return time_once(stream, launches[i], start, stop); }, seconds);
    std::vector<double> medians;
    for (const auto& s : samples) medians.push_back(median(s));
    return medians;
}

double median_ms(cudaStream_t stream, const Launch& launch, TimingPlan plan)
{
    return interleaved_median_ms(stream, {launch}, plan).front();
}

}   // namespace wb
