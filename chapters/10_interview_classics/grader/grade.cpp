// Chapter 10 grader: every stage against a float64 CPU reference, on small integers (exact in any
// order of additions), uniform floats, -inf and the softmax traps (negatives, -0.0, ties, huge and
// tiny values); then timed against the reference stages in the same run. See harness/stage.hpp.
//
// Tolerances. Atomics fix no order of the additions, so a sum is compared within
// depth * 2^-24 * sum|term| with the depth of ch10::depth_for (stages.cuh explains it); a dot
// product's depth counts one more rounding for the product. Sums of small integers are exact in any
// order and are compared exactly (the timed inputs too: -1 or 1). Softmax uses chapter 3's bound with
// this depth, and the all-equal vector is compared within 2 (3 log n + 32) units of 2^-24 (the sum of
// ones is exact, so the result is 1/n up to the exponential's error): one element lost or counted twice
// is off by 1/n there, 256 units at n = 65537.
#include "harness/chapter_grader.hpp"   // the stages of stages.json: both tracks, launchers, test cases

#include "10_interview_classics/grader/reference.hpp"
#include "harness/device_kernels.hpp"
#include "harness/emulated_profile.hpp"
#include "harness/past_int_range.hpp"
#include "harness/sampling.hpp"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace {

using std::int64_t;
using SumLauncher = void (*)(const float*, float*, int64_t, cudaStream_t);
using DotLauncher = void (*)(const float*, const float*, float*, int64_t, cudaStream_t);
using SoftmaxLauncher = void (*)(const float*, float*, int64_t, float*, cudaStream_t);

/// Sizes of the exact checks: tiny, around the warp and block sizes, odd and prime sizes, and
/// 65537 (small enough for one atomic per element on the CPU emulator).
const std::vector<int64_t> kExactSizes = {1, 2, 3, 5, 31, 32, 33, 255, 256, 257, 1000, 1023, 1025, 4097, 65537};

constexpr int64_t kTimedElements = int64_t(1) << 24;   // 64 MiB per array: beyond the L2 of any GPU
constexpr int kOutSlots = 64;                          // out holds 64 floats; only out[0] may be written
constexpr int kCallsPerCase = 2;                       // atomics: the second call must not add to the first
constexpr double kExactLimit = 16777215.0;             // 2^24 - 1: every partial sum below it is exact

/// One input of a sum or a dot product, and what the result must be.
struct Case {
    std::string label;
    std::vector<float> x, y;   // y is empty for sums
    double expected = 0.0;
    wb::Tolerance tolerance;
    bool exact = false;
};

std::string fmt(double v) { return wb::format_number(v); }

/// A likely cause for a wrong single-value result, from the shape of the error.
std::string likely_cause(const Case& c, double got, int call, bool first_call_ok)
{
    const double expected = c.expected;
    if (call > 1 && first_call_ok) {
        if (std::fabs(got - 2 * expected) <= std::fabs(expected) * 1e-5 + 1e-30)
            return "twice the right value on the second call: out[0] was set to 0 on the first call only (a static "
                   "flag?), so the second call added to the first result: set it to 0 on every call.";
        return "the first call was right and this one is not: state left behind by the previous call.";
    }
    if (std::isnan(got)) {
        return "NaN: the grader fills out with NaN before each call, and atomicAdd into a NaN stays NaN: set "
               "out[0] to 0 on the stream (cudaMemsetAsync) before the kernel.";
    }
    if (std::isinf(expected)) return "the -inf element did not reach the result: it was skipped.";
    double largest_term = 0.0;   // what one element lost or read twice can add, besides the guard
    for (std::size_t i = 0; i < c.x.size(); ++i) {
        const double term = c.y.empty() ? c.x[i] : static_cast<double>(c.x[i]) * c.y[i];
        largest_term = std::max(largest_term, std::fabs(term));
    }
    if (std::string cause = wb::guard_read_cause(expected, got, 2 * largest_term); !cause.empty()) return cause;
    if (expected != 0.0) {
        const double ratio = got / expected;
        const double m = std::round(ratio);
        if (m >= 2.0 && m <= 4096.0 && std::fabs(ratio - m) <= 1e-6 * m)
            return "exactly " + fmt(m) + " times the right value: every value counted " + fmt(m) +
                   " times (each block reading the whole input? a grid-stride loop that steps by blockDim.x only?).";
    }
    if (got == 0.0 && expected != 0.0) {
        return "0: nothing was added to out[0]: a grid-stride loop that skips the grid-stride tail (on a small "
               "input every element is in the tail), or a kernel that exits before its atomic.";
    }
    if (c.exact) {
        return "an exact sum came out wrong, so values were lost or counted twice: the grid-stride tail (elements "
               "past the last whole stride) not read, blocks that store out[0] = their sum instead of adding it "
               "with atomicAdd (only one block's sum survives), or a plain += on out[0] that loses updates (a race).";
    }
    return "the error is far beyond rounding: values lost or counted twice (wrong indices, a plain += on out[0] "
           "from several blocks, a block sum read before every warp wrote its part).";
}

/// Judges the 64 floats of `out` after one call: out[0] must hold the result, out[1..] the poison.
wb::CompareReport judge(const Case& c, const std::vector<float>& out, int call, bool first_call_ok)
{
    wb::CompareReport report;
    report.count = 1;
    const float got = out[0];
    int written_past = -1;
    for (int k = 1; k < kOutSlots && written_past < 0; ++k) {
        if (!wb::is_poison(out[k])) written_past = k;
    }
    if (written_past >= 0) {
        report.ok = false;
        report.message = "out[" + std::to_string(written_past) + "] was written: the result is ONE float at out[0].";
        return report;
    }
    if (wb::is_poison(got) && (call == 1 || !first_call_ok)) {
        report.ok = false;
        report.nothing_written = true;
        report.untouched = 1;
        report.message =
            "not implemented yet: *out was never written (it still holds the NaN poison the grader "
            "put there).";
        return report;
    }
    const wb::CompareReport value = wb::compare(std::vector<double>{c.expected}, std::vector<float>{got}, c.tolerance);
    if (value.ok) return value;
    report.ok = false;
    report.bad = 1;
    report.first_bad = 0;
    report.expected_at_first = c.expected;
    report.got_at_first = got;
    report.message = "expected " + fmt(c.expected) + ", got " + fmt(got) + " (allowed error " + c.tolerance.describe() +
                     ")\n  likely cause: " + likely_cause(c, got, call, first_call_ok);
    return report;
}

/// |x_i| * n < 2^24 for sums, |x_i y_i| * n < 2^24 for dot products: exact in any order.
int exact_limit(int64_t n, bool dot)
{
    const double per_term = kExactLimit / static_cast<double>(n);
    const double limit = dot ? std::floor(std::sqrt(per_term)) : std::floor(per_term);
    return static_cast<int>(std::clamp(limit, 1.0, dot ? 100.0 : 1000.0));
}

std::vector<Case> all_cases(bool dot, int stage)
{
    wb::Rng rng(dot ? 1020 : 1010);
    std::vector<Case> cases;
    for (int64_t n : kExactSizes) {
        Case c;
        c.label = "n = " + std::to_string(n) + ", small non-zero integers (exact in any order)";
        c.x = wb::nonzero_small_integers(n, exact_limit(n, dot), rng);
        if (dot) c.y = wb::nonzero_small_integers(n, exact_limit(n, dot), rng);
        c.expected = ch10::sum_reference(c.x, c.y);
        c.tolerance = wb::Tolerance::exact();
        c.exact = true;
        cases.push_back(std::move(c));
    }
    auto real = [&](std::string label, std::vector<float> x, std::vector<float> y) {
        Case c;
        c.label = std::move(label);
        c.x = std::move(x);
        c.y = std::move(y);
        const auto n = static_cast<int64_t>(c.x.size());
        c.expected = ch10::sum_reference(c.x, c.y);
        c.tolerance =
            wb::Tolerance::sum_of(ch10::sum_abs_reference(c.x, c.y), ch10::depth_for(stage, n) + (c.y.empty() ? 0 : 1));
        cases.push_back(std::move(c));
    };
    auto maybe = [&](int64_t n) { return dot ? wb::uniform_floats(n, -1.f, 1.f, rng) : std::vector<float>{}; };
    for (int64_t n : {int64_t(1), int64_t(33), int64_t(1000), int64_t(65537)})
        real("n = " + std::to_string(n) + ", uniform in [-1, 1)", wb::uniform_floats(n, -1.f, 1.f, rng), maybe(n));
    for (int64_t where : {int64_t(1234), int64_t(4098)}) {   // in the middle, then the very last element
        const int64_t n = 4099;
        auto x = wb::uniform_floats(n, -1.f, 1.f, rng);
        auto y = maybe(n);
        x[where] = -INFINITY;
        if (dot) y[where] = 2.0f;
        real("n = 4099, one -inf at index " + std::to_string(where), std::move(x), std::move(y));
    }
    return cases;
}

/// Runs every case twice on the same `out` (poisoned before each call) through `launch(x, y, out, n)`.
template <typename Launch>
void check_cases(wb::Stage& stage, const std::vector<Case>& cases, Launch launch)
{
    wb::DeviceBuffer<float> out(kOutSlots);
    for (const Case& c : cases) {
        const auto n = static_cast<int64_t>(c.x.size());
        wb::DeviceBuffer<float> dx(c.x);
        wb::DeviceBuffer<float> dy(c.y.empty() ? std::vector<float>{0.0f} : c.y);
        dx.protect(), dy.protect();   // const inputs: stage.run names a write into them
        bool first_ok = false;
        for (int call = 1; call <= kCallsPerCase; ++call) {
            out.poison();
            stage.run([&](cudaStream_t s) { launch(dx.data(), dy.data(), out.data(), n, s); });
            wb::CompareReport report = judge(c, out.download(), call, first_ok);
            if (call == 1) first_ok = report.ok;
            stage.expect(report, c.label + (call > 1 ? " (call " + std::to_string(call) + ")" : ""));
        }
    }
}

// ---- past the int range (GPU only) -----------------------------------------------------------------

/// The size of the cases past the 32-bit range: 11% of the elements lie past index 2^31 - 1, and
/// n % 4 = 3, so a float4 loop has a tail to handle there too.
constexpr int64_t kHugeElements = (int64_t(1) << 31) + (int64_t(1) << 28) + 3;

/// The sums' second size, where the GPU has the memory: 6% of the elements past index 2^32 - 1, where an
/// index computed in unsigned 32-bit arithmetic wraps.
constexpr int64_t kHugerElements = (int64_t(1) << 32) + (int64_t(1) << 28) + 3;

/// The sum (or, with @p dot, the dot product) of n = 2^31 + 2^28 + 3 elements on a GPU with the memory
/// (9 GiB per array, 4 to spare), then of n = 2^32 + 2^28 + 3 where it fits (17 GiB per array). x is 0
/// everywhere but at the markers of wb::sum_markers, which hold 1, 2, 4, ... (set on the GPU after x is
/// filled there); y is 1 everywhere. Every partial sum is an integer below 2^24 and adding 0 is exact, so
/// every order and grouping of the additions gives the exact sum, stage 1's single chain of atomics
/// included: the check is exact, and a wrong result names the marked elements it lacks. Not n ones: a
/// float sum of n ones is not exact (a single chain of atomics stops at 2^24) and the contract's bound,
/// depth n / 128 + 32, exceeds n, so the elements lost past 2^31 could not be told from rounding. A
/// 32-bit index crashes (run_past_int_range says why) or loses the markers from index 2^31 on; an index
/// wrapping at 2^32 (blockIdx.x * blockDim.x in unsigned) reads the first elements twice instead.
void check_huge_once(wb::Stage& stage, bool dot, int64_t n,
                     const std::function<void(const float*, const float*, float*, int64_t, cudaStream_t)>& launch)
{
    const std::vector<wb::SumMarker> markers = wb::sum_markers(n);
    const std::string label = wb::sum_markers_label(n, markers.size(), dot);
    wb::DeviceBuffer<float> x(static_cast<std::size_t>(n)), out(kOutSlots);
    wb::DeviceBuffer<float> y(dot ? static_cast<std::size_t>(n) : 1);
    wb::fill_uniform_device(x.data(), n, wb::seed() + 1061, 0.f, 0.f, stage.stream());
    wb::fill_uniform_device(y.data(), static_cast<int64_t>(y.size()), wb::seed() + 1062, 1.f, 1.f, stage.stream());
    const double expected = wb::place_sum_markers(x.data(), markers, stage.stream());
    out.poison();
    wb::run_past_int_range(
        stage, [&](cudaStream_t s) { launch(x.data(), y.data(), out.data(), n, s); }, label, n > wb::kUintLimit);
    Case c;
    c.label = label;
    c.expected = expected;
    c.tolerance = wb::Tolerance::exact();
    c.exact = true;
    const std::vector<float> result = out.download();
    wb::CompareReport report = judge(c, result, 1, false);
    if (!report.ok && !report.nothing_written && !std::isnan(result[0]))
        wb::replace_likely_cause(report, wb::sum_markers_cause(markers, n, result[0]));
    stage.expect(report, label);
}

void check_huge(wb::Stage& stage, bool dot,
                const std::function<void(const float*, const float*, float*, int64_t, cudaStream_t)>& launch)
{
    const std::size_t arrays = dot ? 2 : 1;
    const int64_t counts[] = {kHugeElements, kHugerElements};
    std::vector<wb::LargeSize> sizes;
    for (const int64_t n : counts) {
        sizes.push_back({arrays * static_cast<std::size_t>(n) * sizeof(float),
                         wb::sum_markers_label(n, wb::sum_markers(n).size(), dot)});
    }
    wb::for_each_large_size(sizes, [&](std::size_t k) { check_huge_once(stage, dot, counts[k], launch); });
}

void check_sum(wb::Stage& stage, SumLauncher sum)
{
    auto launch = [&](const float* x, const float*, float* out, int64_t n, cudaStream_t s) { sum(x, out, n, s); };
    check_cases(stage, all_cases(false, stage.info().id), launch);
    check_huge(stage, false, launch);
}

void check_dot(wb::Stage& stage, DotLauncher dot)
{
    auto launch = [&](const float* x, const float* y, float* out, int64_t n, cudaStream_t s) { dot(x, y, out, n, s); };
    check_cases(stage, all_cases(true, stage.info().id), launch);
    check_huge(stage, true, launch);
}

// ---- softmax -------------------------------------------------------------------------------------

/// One softmax input: its label, its values, and whether the all-equal (tight) tolerance applies.
struct SoftmaxCase {
    std::string label;
    std::vector<float> x;
    bool ties = false;
    std::string hint;   ///< what this input catches, added to a failure
};

std::vector<SoftmaxCase> softmax_cases()
{
    wb::Rng rng(1050);
    std::vector<SoftmaxCase> cases;
    for (int64_t n : {int64_t(1), int64_t(2), int64_t(3), int64_t(31), int64_t(32), int64_t(33), int64_t(255),
                      int64_t(256), int64_t(257), int64_t(1000), int64_t(1023), int64_t(4097), int64_t(65537)}) {
        cases.push_back({"n = " + std::to_string(n) + ", uniform in [-8, 8)", wb::uniform_floats(n, -8.f, 8.f, rng)});
    }
    for (int64_t n : {int64_t(1), int64_t(7), int64_t(1000), int64_t(65537)}) {
        cases.push_back({"n = " + std::to_string(n) + ", ties: every value 3.25", std::vector<float>(n, 3.25f), true,
                         "every output must be 1/n: a missed or doubled element makes the sum n - 1 or n + 1."});
    }
    const std::string subtract_max =
        "every exp(x) underflows to 0 unless the maximum is subtracted first, and 0 / 0 is NaN; a maximum that "
        "starts at 0, or an atomicMax on the int bits (right only for values >= +0.0), gets it wrong.";
    for (int64_t n : {int64_t(33), int64_t(1000)}) {
        // Far below the maximum: a maximum that misses the -0.0 lands near -100, and exp(0 - (-100))
        // overflows (softmax does not depend on the maximum subtracted, only on no overflow).
        auto x = wb::uniform_floats(n, -120.f, -100.f, rng);
        x[n / 2] = -0.0f;
        cases.push_back({"n = " + std::to_string(n) +
                             ", every value in [-120, -100) but one: the maximum -0.0 at index " +
                             std::to_string(n / 2),
                         std::move(x), false,
                         "the maximum is -0.0, whose sign bit is set: a float atomicMax that sends it down the "
                         "`value >= 0` (int) path, or an atomicMax on the int bits, never stores it and leaves the "
                         "maximum at its start; negative floats order backwards as ints."});
    }
    {
        auto x = wb::uniform_floats(1000, -3.f, -1.f, rng);
        cases.push_back({"n = 1000, every value in [-3, -1)", std::move(x), false,
                         "all values negative: an atomicMax on the int bits keeps the most negative value (or the "
                         "starting -inf), not the maximum."});
    }
    cases.push_back(
        {"n = 4097, every value in [-120, -100)", wb::uniform_floats(4097, -120.f, -100.f, rng), false, subtract_max});
    {
        auto x = wb::uniform_floats(4097, 1.f, 2.f, rng);
        for (float& v : x) v *= -1e30f;
        x[0] = -1e30f;
        x[4096] = -1e30f;
        cases.push_back({"n = 4097, every value near -1e30, the maximum twice", std::move(x), false, subtract_max});
    }
    {
        // Below -1e30, -1e38 and -3.4e38, the finite starts some kernels give the maximum in place of -inf.
        const float span = FLT_MAX * 5e-4f;
        auto x = wb::uniform_floats(4097, 0.f, 1.f, rng);
        for (float& v : x) v = -FLT_MAX + span * v;
        x[0] = -FLT_MAX + span;
        x[4096] = -FLT_MAX + span;
        cases.push_back({"n = 4097, every value within 0.05% of -FLT_MAX, the maximum twice", std::move(x), false,
                         "every value is below a finite start of the maximum such as -1e30 or -3e38, so every "
                         "exp(x - max) underflows to 0 and 0 / 0 is NaN: start the maximum at -INFINITY (or at "
                         "-FLT_MAX, which no finite value lies below)."});
    }
    cases.push_back({"n = 4097, values near 1e4 (exp overflows unless the maximum is subtracted)",
                     wb::uniform_floats(4097, 9980.f, 1e4f, rng), false,
                     "exp(1e4) is inf in float: subtract the maximum before the exponential."});
    {
        auto x = wb::uniform_floats(1001, -8.f, 8.f, rng);
        for (std::size_t i = 1; i < x.size(); i += 2) x[i] = -INFINITY;
        cases.push_back({"n = 1001, -inf at every odd index", std::move(x), false,
                         "exp(-inf - max) is 0: those outputs must be 0, and must not turn the sum into NaN."});
    }
    {
        std::vector<float> x(513, -INFINITY);
        x[300] = 2.5f;
        cases.push_back({"n = 513, one finite value (index 300), every other value -inf", std::move(x), false,
                         "the finite value's output is 1 and every other output 0; a block that saw only -inf "
                         "must not lower or spoil the maximum."});
    }
    {
        auto x = wb::uniform_floats(2049, -1.f, 1.f, rng);
        for (float& v : x) v *= 1e30f;
        x[1] = -FLT_MAX;
        x[0] = FLT_MAX;
        x[2048] = FLT_MAX;
        cases.push_back({"n = 2049, huge values: +-FLT_MAX and +-1e30, the maximum twice", std::move(x), false,
                         "x - max overflows to -inf for -FLT_MAX (exp gives 0, as it should); the two maxima each "
                         "give 1/2."});
    }
    return cases;
}

wb::Tolerance softmax_tolerance(const SoftmaxCase& c)
{
    if (c.ties) {
        // Every output is 1/n. Computed as exp(0) / n that is one rounding; computed as exp(x - max - log(sum))
        // (a log-sum-exp form) the exponential's argument is -log n, and a fast __expf or __logf misses by
        // up to about 3 log n + 32 units of 2^-24 (doubled below). One element lost or counted twice is off by
        // 1/n: 256 units at the largest n, 65537, so it still fails.
        const double n = static_cast<double>(c.x.size());
        return {0.0, 2.0 * (3.0 * std::log(n) + 32.0) * 0x1.0p-24};
    }
    const double depth = ch10::depth_for(5, static_cast<int64_t>(c.x.size()));
    return {0x1.0p-126, ch10::softmax_error_bound(ch10::value_spread(c.x), depth)};
}

/// True when every output of an all-equal input is finite and within 1e-4 (relative) of 1/n: the sum was
/// right up to rounding, which exact arithmetic would not have had (see check_softmax).
bool rounding_off_uniform(const std::vector<float>& got)
{
    const double expected = 1.0 / static_cast<double>(got.size());
    return std::all_of(got.begin(), got.end(), [&](float v) {
        return std::isfinite(v) && std::fabs(static_cast<double>(v) - expected) <= 1e-4 * expected;
    });
}

/// Whole-vector softmax past the int range, on a GPU with the memory (x and out, 9 GiB each): n = 2^31 +
/// 2^28 + 3, every value -1000 (filled on the GPU) but about 40 markers in [0, 2], two in the middle of
/// each window that is checked, the first and the last element, and the maximum, 2, at index 2^31. The
/// output is compared on windows of 4096 elements: the first, the last, 14 between, and those across
/// element 2^24 and 65535 x 1024 (a grid capped at 65535 blocks stops there) and index 2^31. A 32-bit
/// index crashes, leaves the windows past 2^31 unwritten, or loses markers from the maximum or the sum,
/// which changes every marker's output.
///
/// Tolerance. exp(-1000 - max) is 0 in float (and in double), and adding 0 is exact, so the sum holds
/// only the M markers' terms, and its longest chain of roundings is M - 1 in any order and on any grid:
/// chapter 3's bound (ch10::softmax_error_bound) with depth M and, for a log-sum-exp form whose
/// exponential's argument reaches D + log M, spread D + log M. With M = 42 and D = 2 that is about
/// 3e-5 relative, and one marker lost from the sum moves every output by more than 0.5%. Not a
/// constant input: its sum of n terms of 1 is not exact in float (the contract's depth, n / 128 + 32,
/// allows a relative error above 10 at this n, and a right kernel with one atomic per 128 elements
/// stalls at 2^31), so losing the 11% past index 2^31 would not show in the values.
void check_softmax_huge(wb::Stage& stage, SoftmaxLauncher softmax)
{
    const int64_t n = kHugeElements;
    constexpr int64_t kWidth = 4096;
    constexpr float kBackground = -1000.0f;
    const std::string label =
        "n = 2^31 + 2^28 + 3, every value -1000 but about 40 in [0, 2] (past the int range; "
        "checked on windows of 4096 elements)";
    const wb::LargeCase large(2 * static_cast<std::size_t>(n) * sizeof(float), label);
    if (!large) return;

    std::vector<int64_t> starts = wb::spread_windows(n, kWidth, 16);
    for (int64_t start : {(int64_t(1) << 24) - kWidth / 2, int64_t(65535) * 1024 - kWidth / 2,
                          wb::kIntLimit - kWidth / 2, wb::kIntLimit + (int64_t(1) << 27) + 17})
        starts.push_back(start);
    std::sort(starts.begin(), starts.end());
    starts.erase(std::unique(starts.begin(), starts.end()), starts.end());
    std::map<int64_t, float> markers{{0, 1.0f}, {n - 1, 1.5f}};
    for (std::size_t k = 0; k < starts.size(); ++k) {
        const float step = 0.25f * static_cast<float>(k % 8);
        markers[starts[k] + kWidth / 2 - 1] = step;       // in the window across 2^31: index 2^31 - 1
        markers[starts[k] + kWidth / 2] = 1.75f - step;   // and index 2^31, the maximum below
    }
    markers[wb::kIntLimit] = 2.0f;

    wb::DeviceBuffer<float> x(static_cast<std::size_t>(n)), y(static_cast<std::size_t>(n));
    wb::DeviceBuffer<float> workspace(static_cast<std::size_t>(ch10::kWorkspaceFloats));
    wb::fill_uniform_device(x.data(), n, wb::seed() + 1063, kBackground, kBackground, stage.stream());
    std::vector<float> values{kBackground};   // what decides the maximum and the sum: the markers, and -1000
    for (const auto& [index, value] : markers) {
        values.push_back(value);
        WB_CUDA_CHECK(cudaMemcpyAsync(x.data() + index, &value, sizeof(float), cudaMemcpyHostToDevice, stage.stream()));
    }
    WB_CUDA_CHECK(cudaStreamSynchronize(stage.stream()));
    y.poison();
    workspace.poison();
    wb::run_past_int_range(
        stage, [&](cudaStream_t s) { softmax(x.data(), y.data(), n, workspace.data(), s); }, label);

    // The maximum and the sum of the whole vector, in double: the n - M values of -1000 add
    // exp(-1000 - max), which is 0 in double too.
    const double max = *std::max_element(values.begin(), values.end());
    const auto terms = static_cast<double>(markers.size());
    double sum = (static_cast<double>(n) - terms) * std::exp(static_cast<double>(kBackground) - max);
    for (const auto& [index, value] : markers) sum += std::exp(static_cast<double>(value) - max);
    const wb::Tolerance tolerance{0x1.0p-126,
                                  ch10::softmax_error_bound(ch10::value_spread(values) + std::log(terms), terms)};
    std::vector<wb::SampledWindow> windows;
    for (int64_t start : starts) {
        wb::SampledWindow w;
        w.first = start;
        w.count = std::min(kWidth, n - start);
        w.name = "elements " + std::to_string(w.first) + " to " + std::to_string(w.first + w.count - 1);
        const std::vector<float> xs = wb::download_part(x.data(), w.first, w.count);
        std::vector<double> expected(xs.size());
        for (std::size_t i = 0; i < xs.size(); ++i) expected[i] = std::exp(static_cast<double>(xs[i]) - max) / sum;
        w.report = wb::compare(expected, wb::download_part(y.data(), w.first, w.count), tolerance, wb::Layout::vector(),
                               wb::Operation::exponential());
        windows.push_back(std::move(w));
    }
    wb::expect_windows(stage, windows, label);
}

void check_softmax(wb::Stage& stage, SoftmaxLauncher softmax)
{
    wb::DeviceBuffer<float> workspace(static_cast<std::size_t>(ch10::kWorkspaceFloats));
    for (const SoftmaxCase& c : softmax_cases()) {
        const auto n = static_cast<int64_t>(c.x.size());
        wb::DeviceBuffer<float> dx(c.x), dy(c.x.size());
        dx.protect();
        bool first_ok = false;
        for (int call = 1; call <= kCallsPerCase; ++call) {
            dy.poison();
            workspace.poison();
            stage.run([&](cudaStream_t s) { softmax(dx.data(), dy.data(), n, workspace.data(), s); });
            const std::vector<float> got = dy.download();
            wb::CompareReport report = wb::compare(ch10::softmax_reference(c.x), got, softmax_tolerance(c),
                                                   wb::Layout::vector(), wb::Operation::exponential());
            if (call == 1) first_ok = report.ok;
            if (!report.ok && call > 1 && first_ok) {
                const std::string state =
                    "state left behind by the previous call. The grader fills the workspace with NaN before every "
                    "call: set the running maximum and sum at the start of every call (not once, behind a static "
                    "flag).";
                if (report.nothing_written) {
                    report.nothing_written = false;
                    report.message =
                        "this call wrote nothing, although the first call on the same input wrote the "
                        "right result.\n  likely cause: " +
                        state;
                } else {
                    report.message += "\n  this input: the first call on it was right and this one is not: " + state;
                }
            } else if (!report.ok && !report.nothing_written) {
                if (c.ties && rounding_off_uniform(got)) {
                    report.message +=
                        "\n  this input: every value is equal, so exp(x - max) is exactly 1 for "
                        "each element and every output exactly 1/n, but only when the maximum you "
                        "subtract is exactly the maximum. Your outputs are all near 1/n and not exact: "
                        "the maximum you subtracted is not the maximum (for instance, a float atomicMax "
                        "that converts values where it must reinterpret bits stores garbage).";
                } else if (!c.hint.empty()) {
                    report.message += "\n  this input: " + c.hint;
                } else if (std::signbit(*std::max_element(c.x.begin(), c.x.end()))) {
                    report.message +=
                        "\n  this input: every value is negative. A float atomicMax on the int bits is "
                        "right only for values >= +0.0: negative floats order backwards as ints, so it "
                        "keeps the most negative value (or the starting -inf) instead of the maximum.";
                }
            }
            stage.expect(report, c.label + (call > 1 ? " (call " + std::to_string(call) + ")" : ""));
        }
    }
    check_softmax_huge(stage, softmax);
}

// ---- speed ---------------------------------------------------------------------------------------

/// The timed inputs: 2^24 values of -1 or 1. Every partial sum (and product) is then an integer of at
/// most 2^24 in magnitude, exact in float in any order, so the check after timing is exact: an element
/// lost only at this size (a grid capped at 65535 blocks of 256 threads covers 2^24 - 256 of them) shows.
std::vector<float> plus_minus_ones(int64_t n, wb::Rng& rng) { return wb::nonzero_small_integers(n, 1, rng); }

Case exact_timed_case(const std::string& label, const std::vector<float>& x, const std::vector<float>& y)
{
    Case c;
    c.label = label;
    c.x = x;
    c.y = y;
    c.expected = ch10::sum_reference(x, y);
    c.tolerance = wb::Tolerance::exact();
    c.exact = true;
    return c;
}

/// Times a single-value stage (sum or dot) on 2^24 elements against reference stages K - 1 and K.
/// `launch(f, out)` calls launcher f on the timed input; `expected` computes the case after timing.
template <typename F, typename Launch>
void time_single_value(wb::Stage& stage, F candidate, F previous, F current, const std::string& description,
                       double bytes, Launch launch, const std::function<Case()>& recheck_case)
{
    wb::DeviceBuffer<float> out(kOutSlots);
    wb::SpeedCase speed;
    speed.description = description;
    speed.candidate = [&, candidate](cudaStream_t s) { launch(candidate, out.data(), s); };
    if (previous) speed.previous_reference = [&, previous](cudaStream_t s) { launch(previous, out.data(), s); };
    speed.current_reference = [&, current](cudaStream_t s) { launch(current, out.data(), s); };
    speed.bytes = bytes;
    speed.recheck = [&] {
        out.poison();
        stage.run([&](cudaStream_t s) { launch(candidate, out.data(), s); });
        stage.expect(judge(recheck_case(), out.download(), 1, false), "the timed input, after timing");
    };
    stage.check_speed(speed);
}

void time_sum(wb::Stage& stage, SumLauncher candidate, SumLauncher previous, SumLauncher current)
{
    if (!stage.measures_speed()) return;   // nothing timed (CPU emulator, WORKBOOK_CORRECTNESS_ONLY): no large inputs
    const int64_t n = kTimedElements;
    wb::Rng rng(wb::seed() + 1041);
    const std::vector<float> values = plus_minus_ones(n, rng);
    wb::DeviceBuffer<float> in(values);
    time_single_value(
        stage, candidate, previous, current, "2^24 floats", 4.0 * n,
        [&](SumLauncher f, float* out, cudaStream_t s) { f(in.data(), out, n, s); },
        [&] { return exact_timed_case("2^24 floats, each -1 or 1 (exact in any order)", values, {}); });
}

void time_dot(wb::Stage& stage, DotLauncher candidate, DotLauncher previous, DotLauncher current)
{
    if (!stage.measures_speed()) return;   // nothing timed (CPU emulator, WORKBOOK_CORRECTNESS_ONLY): no large inputs
    const int64_t n = kTimedElements;
    wb::Rng rng(wb::seed() + 1043);
    const std::vector<float> x_values = plus_minus_ones(n, rng), y_values = plus_minus_ones(n, rng);
    wb::DeviceBuffer<float> x(x_values), y(y_values);
    time_single_value(
        stage, candidate, previous, current, "2^24 floats in x and in y", 8.0 * n,
        [&](DotLauncher f, float* out, cudaStream_t s) { f(x.data(), y.data(), out, n, s); },
        [&] {
            return exact_timed_case("2^24 floats in x and in y, each -1 or 1 (exact in any order)", x_values, y_values);
        });
}

// ---- memory behaviour (CPU emulator) -----------------------------------------------------------

constexpr int64_t kCountedElements = 1 << 14;

/// On the CPU emulator, after the correctness checks: the stage's memory counters beside reference
/// stages K - 1 (when it computes the same thing; nullptr otherwise) and K on 2^14 floats; advice, never
/// a failure here. `call(f, s)` calls launcher f (instrumented: the learner's, or namespace counted) on
/// the caller's buffers.
template <typename F, typename Call>
void compare_memory(wb::Stage& stage, F candidate, F previous, F current, const std::string& description, Call call)
{
    auto launch_of = [&](F f) -> wb::Launch {
        if (!f) return nullptr;
        return [&, f](cudaStream_t s) { call(f, s); };
    };
    stage.compare_memory_behaviour({description, launch_of(candidate), launch_of(previous), launch_of(current)});
}

void compare_sum_memory(wb::Stage& stage, SumLauncher candidate, SumLauncher previous, SumLauncher current)
{
    if (!wb::emulated()) return;
    wb::DeviceBuffer<float> in(kCountedElements), out(kOutSlots);
    wb::fill_uniform_device(in.data(), kCountedElements, wb::seed() + 1051, -1.f, 1.f, stage.stream());
    compare_memory(stage, candidate, previous, current, "2^14 floats",
                   [&](SumLauncher f, cudaStream_t s) { f(in.data(), out.data(), kCountedElements, s); });
}

void compare_dot_memory(wb::Stage& stage, DotLauncher candidate, DotLauncher previous, DotLauncher current)
{
    if (!wb::emulated()) return;
    wb::DeviceBuffer<float> x(kCountedElements), y(kCountedElements), out(kOutSlots);
    wb::fill_uniform_device(x.data(), kCountedElements, wb::seed() + 1052, -1.f, 1.f, stage.stream());
    wb::fill_uniform_device(y.data(), kCountedElements, wb::seed() + 1053, -1.f, 1.f, stage.stream());
    compare_memory(stage, candidate, previous, current, "2^14 floats in x and in y",
                   [&](DotLauncher f, cudaStream_t s) { f(x.data(), y.data(), out.data(), kCountedElements, s); });
}

void compare_softmax_memory(wb::Stage& stage, SoftmaxLauncher candidate, SoftmaxLauncher current)
{
    if (!wb::emulated()) return;
    wb::DeviceBuffer<float> x(kCountedElements), y(kCountedElements), workspace(ch10::kWorkspaceFloats);
    wb::fill_uniform_device(x.data(), kCountedElements, wb::seed() + 1054, -8.f, 8.f, stage.stream());
    compare_memory(
        stage, candidate, SoftmaxLauncher{nullptr}, current, "2^14 floats",
        [&](SoftmaxLauncher f, cudaStream_t s) { f(x.data(), y.data(), kCountedElements, workspace.data(), s); });
}

}   // namespace

namespace stages = wb::stages;   // candidate<K>, previous<K>, current<K>: the launchers of stage K

/// Stage 1: the atomic sum; no speed target, its bandwidth is shown.
template <int K>
void grade_stage_case(wb::Stage& stage);

template <>
void grade_stage_case<1>(wb::Stage& stage)
{
    check_sum(stage, stages::candidate<1>);
    compare_sum_memory(stage, stages::counted_candidate<1>, nullptr, stages::counted_current<1>);
    time_sum(stage, stages::candidate<1>, nullptr, stages::current<1>);
}

/// Stage 2: the same sum, timed against reference stage 1.
template <>
void grade_stage_case<2>(wb::Stage& stage)
{
    check_sum(stage, stages::candidate<2>);
    compare_sum_memory(stage, stages::counted_candidate<2>, stages::counted_previous<2>, stages::counted_current<2>);
    time_sum(stage, stages::candidate<2>, stages::previous<2>, stages::current<2>);
}

/// Stage 3: the first dot product; its previous stage is a sum, so no speed target (null in stages.json).
template <>
void grade_stage_case<3>(wb::Stage& stage)
{
    check_dot(stage, stages::candidate<3>);
    compare_dot_memory(stage, stages::counted_candidate<3>, nullptr, stages::counted_current<3>);
    // The stage is the one-block version (the contract says so, and stage 4's lesson is the grid): a
    // grid here is right but skips the point. Checked on one launch of a mid-size input.
    const int64_t n = 1 << 20;
    wb::DeviceBuffer<float> x(n), y(n), out(kOutSlots);
    wb::fill_uniform_device(x.data(), n, wb::seed() + 1047, -1.f, 1.f, stage.stream());
    wb::fill_uniform_device(y.data(), n, wb::seed() + 1048, -1.f, 1.f, stage.stream());
    stage.check_idea([&](cudaStream_t s) { stages::candidate<3>(x.data(), y.data(), out.data(), n, s); },
                     [](const std::vector<wb::KernelFacts>& kernels) -> std::string {
                         for (const wb::KernelFacts& k : kernels) {
                             if (k.blocks() > 1)
                                 return "stage 3 computes the dot product in one block, and `" + k.name + "` runs " +
                                        std::to_string(k.blocks()) +
                                        " blocks (a grid with one atomic per block is stage 4).";
                         }
                         return "";
                     });
    time_dot(stage, stages::candidate<3>, nullptr, stages::current<3>);
}

/// Stage 4: the grid dot product, timed against reference stage 3 (one block).
template <>
void grade_stage_case<4>(wb::Stage& stage)
{
    check_dot(stage, stages::candidate<4>);
    compare_dot_memory(stage, stages::counted_candidate<4>, stages::counted_previous<4>, stages::counted_current<4>);
    time_dot(stage, stages::candidate<4>, stages::previous<4>, stages::current<4>);
}

/// Stage 5: whole-vector softmax; an operation of its own, so no speed target: its bandwidth is
/// shown, counted as 8 bytes per element (x read once, out written once: the least any softmax moves;
/// three passes read x three times).
template <>
void grade_stage_case<5>(wb::Stage& stage)
{
    check_softmax(stage, stages::candidate<5>);
    compare_softmax_memory(stage, stages::counted_candidate<5>, stages::counted_current<5>);
    if (!stage.measures_speed()) return;   // nothing timed (CPU emulator, WORKBOOK_CORRECTNESS_ONLY): no large inputs
    const int64_t n = kTimedElements;
    wb::DeviceBuffer<float> x(n), y(n), w_candidate(ch10::kWorkspaceFloats), w_current(ch10::kWorkspaceFloats);
    wb::fill_uniform_device(x.data(), n, wb::seed() + 1045, -8.f, 8.f, stage.stream());
    wb::SpeedCase speed;
    speed.description = "2^24 floats";
    speed.candidate = [&](cudaStream_t s) { stages::candidate<5>(x.data(), y.data(), n, w_candidate.data(), s); };
    speed.current_reference = [&](cudaStream_t s) { stages::current<5>(x.data(), y.data(), n, w_current.data(), s); };
    speed.bytes = 8.0 * n;
    speed.recheck = [&] {
        y.poison();
        stage.run(speed.candidate);
        const std::vector<float> all = x.download();
        const std::vector<double> expected = ch10::softmax_reference(all);
        const std::vector<float> got = y.download();
        const wb::Tolerance tolerance{0x1.0p-126,
                                      ch10::softmax_error_bound(ch10::value_spread(all), ch10::depth_for(5, n))};
        stage.expect(wb::compare(expected, got, tolerance, wb::Layout::vector(), wb::Operation::exponential()),
                     "the timed input, after timing");
    };
    stage.check_speed(speed);
}

// `make bench`: every reference stage on 2^24 floats (64 MiB per array), and a device-to-device
// copy of the same bytes for scale. The atomic sum of stage 1 is the slow end of the table.
TEST_CASE("bench: chapter 10", "[.bench]")
{
    if (!wb::bench_can_run()) return;
    const int64_t n = kTimedElements;
    wb::Stream stream;
    const cudaStream_t s = stream.get();
    wb::DeviceBuffer<float> x(n), y(n), tmp(n), out(kOutSlots), workspace(ch10::kWorkspaceFloats);
    wb::fill_uniform_device(x.data(), n, 1, -1.f, 1.f, s);
    wb::fill_uniform_device(y.data(), n, 2, -1.f, 1.f, s);
    auto row = [&](const std::string& op, const std::string& variant, int stage_id, double bytes,
                   const wb::Launch& launch) {
        wb::print_bench_row(
            {op, variant, std::to_string(n), "float32", wb::median_ms(s, launch), bytes, 0.0, stage_id});
    };
    row("copy", "cudaMemcpyAsync device to device", 0, 8.0 * n, [&](cudaStream_t st) {
        WB_CUDA_CHECK(cudaMemcpyAsync(tmp.data(), x.data(), n * sizeof(float), cudaMemcpyDeviceToDevice, st));
    });
    row("sum", wb::stage_label(1), 1, 4.0 * n,
        [&](cudaStream_t st) { stages::current<1>(x.data(), out.data(), n, st); });
    row("sum", wb::stage_label(2), 2, 4.0 * n,
        [&](cudaStream_t st) { stages::current<2>(x.data(), out.data(), n, st); });
    row("dot", wb::stage_label(3), 3, 8.0 * n,
        [&](cudaStream_t st) { stages::current<3>(x.data(), y.data(), out.data(), n, st); });
    row("dot", wb::stage_label(4), 4, 8.0 * n,
        [&](cudaStream_t st) { stages::current<4>(x.data(), y.data(), out.data(), n, st); });
    row("softmax", wb::stage_label(5), 5, 8.0 * n,
        [&](cudaStream_t st) { stages::current<5>(x.data(), tmp.data(), n, workspace.data(), st); });
}

// One test case per stage of stages.json ("stage K: <title>", tag [stageK]), each running grade_stage_case<K>.
WORKBOOK_STAGE_TEST_CASES()
