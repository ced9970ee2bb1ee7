// Chapter 1 grader: every stage against a float64 CPU reference on adversarial inputs, then timed
// against the reference stages in the same run. See harness/stage.hpp for the rules.
#include "harness/chapter_grader.hpp"   // the stages of stages.json: both tracks, launchers, test cases

#include "01_elementwise/grader/baselines.hpp"
#include "01_elementwise/grader/reference.hpp"
#include "harness/emulated_profile.hpp"
#include "harness/past_int_range.hpp"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <limits>

namespace {

using ch01::Activation;
using std::int64_t;

/// Sizes every stage must get right: tiny, around warp and block sizes, every remainder mod 4 and
/// mod 8, a prime, and a large one with a tail.
const std::vector<int64_t> kSizes = {
    1, 2, 3, 4, 5, 7, 8, 9, 15, 31, 32, 33, 255, 256, 257, 1000, 4097, 65537, (int64_t(1) << 20) + 3};

/// The timed size: 3 arrays of 256 MiB, far beyond any L2, and not a multiple of 8.
constexpr int64_t kTimedElements = (int64_t(1) << 26) + 3;

/// More than 2^31 elements: the index of an element past 2^31 - 1 does not fit in an int. Checked
/// on a GPU with the memory for it (3 arrays of 8 GiB in float), on a sample of the output.
constexpr int64_t kHugeElements = (int64_t(1) << 31) + (int64_t(1) << 20) + 5;

/// More than 2^32 elements, where the GPU has the memory (3 arrays of 16 GiB in float): past 2^32 - 1,
/// blockIdx.x * blockDim.x (a product of two unsigned ints) wraps too.
constexpr int64_t kHugerElements = (int64_t(1) << 32) + (int64_t(1) << 20) + 5;

/// The element counts of the large case: past 2^31, then past 2^32 where the GPU has the memory.
const int64_t kHugeCounts[] = {kHugeElements, kHugerElements};

/// The sizes of the large case, for 3 arrays of @p element_bytes each, in the order of kHugeCounts
/// (wb::for_each_large_size).
std::vector<wb::LargeSize> huge_sizes(std::size_t element_bytes)
{
    std::vector<wb::LargeSize> sizes;
    for (const int64_t n : kHugeCounts) {
        sizes.push_back({3 * static_cast<std::size_t>(n) * element_bytes,
                         "n = " + wb::as_powers_of_two(n) +
                             (n > wb::kUintLimit ? " (past the unsigned 32-bit range; checked on a sample)"
                                                 : " (past the int range; checked on a sample)")});
    }
    return sizes;
}


/// IEEE special values mixed into ordinary ones.
std::vector<float> with_specials(std::vector<float> v, bool include_nan)
{
    const float specials[] = {INFINITY, -INFINITY, FLT_MAX, -FLT_MAX, FLT_MIN,
                              -FLT_MIN, 1e-40f,    -0.0f,   0.0f,     include_nan ? NAN : 1.0f};
    for (std::size_t i = 0; i < v.size(); ++i) {
        if (i % 3 == 0) v[i] = specials[(i / 3) % (sizeof specials / sizeof specials[0])];
    }
    return v;
}

std::string name_of(Activation act) { return act == Activation::relu ? "relu" : "sigmoid"; }

/// 32 float ulps for sigmoid (the fast __expf has a few ulps per unit of |x|), exact for relu.
wb::Tolerance activation_tolerance(Activation act)
{
    return act == Activation::relu ? wb::Tolerance::exact() : wb::Tolerance{1e-30, 32 * 0x1.0p-23};
}

// ---- large outputs, checked on windows spread over the array ----------------------------------------

/// Compares windows of 4096 elements of @p y (the first, the last, 14 spread between and @p extra
/// starts) with @p reference of the same windows of @p a and @p b: the float64 CPU reference of a
/// whole large array would take seconds. Reports the first wrong window (harness/past_int_range.hpp).
template <typename T, typename Reference>
void expect_windows(wb::Stage& stage, const T* a, const T* b, const T* y, int64_t n, std::vector<int64_t> extra,
                    Reference reference, const wb::Tolerance& tolerance, const std::string& label)
{
    constexpr int64_t kWidth = 4096;
    std::vector<int64_t> starts = wb::spread_windows(n, kWidth, 16);
    for (int64_t start : extra) {
        if (start >= 0 && start < n) starts.push_back(start);
    }
    std::sort(starts.begin(), starts.end());
    std::vector<wb::SampledWindow> windows;
    for (int64_t start : starts) {
        wb::SampledWindow w;
        w.first = start;
        w.count = std::min(kWidth, n - start);
        w.name = "elements " + std::to_string(w.first) + " to " + std::to_string(w.first + w.count - 1);
        const std::vector<T> as = wb::download_part(a, w.first, w.count), bs = wb::download_part(b, w.first, w.count);
        w.report = wb::compare(reference(as, bs), wb::download_part(y, w.first, w.count), tolerance);
        windows.push_back(w);
    }
    wb::expect_windows(stage, windows, label);
}

/// Windows around the places where 32-bit arithmetic breaks: 2^31 (int) and 2^32 (unsigned); the end is
/// always one. Those past the array are dropped.
std::vector<int64_t> windows_past_int_limit()
{
    return {wb::kIntLimit - 2048, wb::kIntLimit + 4096 * 64 + 17, wb::kUintLimit - 2048,
            wb::kUintLimit + 4096 * 64 + 17};
}

// ---- float add (stages 1, 2) -------------------------------------------------------------------

using AddLauncher = void (*)(const float*, const float*, float*, int64_t, cudaStream_t);

void check_add_once(wb::Stage& stage, AddLauncher add, const std::vector<float>& a, const std::vector<float>& b,
                    const std::string& label)
{
    wb::DeviceBuffer<float> da(a), db(b), dc(a.size());
    da.protect(), db.protect();
    dc.poison();
    stage.run([&](cudaStream_t s) { add(da.data(), db.data(), dc.data(), static_cast<int64_t>(a.size()), s); });
    stage.expect(wb::compare(ch01::add_reference(a, b), dc.download(), wb::Tolerance::exact()), label);
}

/// n = 2^31 + 2^20 + 5 on a GPU with 28 GiB free (3 arrays of 8 GiB, 4 to spare), then n = 2^32 + 2^20 + 5
/// where 52 GiB are free: filled on the GPU, checked on windows.
void check_add_huge(wb::Stage& stage, AddLauncher add)
{
    const std::vector<wb::LargeSize> sizes = huge_sizes(sizeof(float));
    wb::for_each_large_size(sizes, [&](std::size_t k) {
        const int64_t n = kHugeCounts[k];
        const std::string& label = sizes[k].label;
        wb::DeviceBuffer<float> a(n), b(n), c(n);
        wb::fill_uniform_device(a.data(), n, wb::seed() + 13, -100.f, 100.f, stage.stream());
        wb::fill_uniform_device(b.data(), n, wb::seed() + 14, -100.f, 100.f, stage.stream());
        c.poison();
        wb::run_past_int_range(
            stage, [&](cudaStream_t s) { add(a.data(), b.data(), c.data(), n, s); }, label, n > wb::kUintLimit);
        expect_windows(stage, a.data(), b.data(), c.data(), n, windows_past_int_limit(), ch01::add_reference,
                       wb::Tolerance::exact(), label);
    });
}

void check_add(wb::Stage& stage, AddLauncher add)
{
    wb::Rng rng(1);
    for (int64_t n : kSizes) {
        const auto a = wb::uniform_floats(n, -100.f, 100.f, rng);
        const auto b = wb::uniform_floats(n, -100.f, 100.f, rng);
        check_add_once(stage, add, a, b, "n = " + std::to_string(n));
    }
    const auto a = with_specials(wb::uniform_floats(997, -1e30f, 1e30f, rng), true);
    const auto b = with_specials(wb::uniform_floats(997, -1e30f, 1e30f, rng), false);
    check_add_once(stage, add, a, b, "n = 997 with inf, -inf, NaN, FLT_MAX, denormals, -0");
    check_add_huge(stage, add);
}

void time_add(wb::Stage& stage, AddLauncher add, AddLauncher previous, AddLauncher current)
{
    if (!stage.measures_speed()) return;   // nothing timed (CPU emulator, WORKBOOK_CORRECTNESS_ONLY): no large inputs
    const int64_t n = kTimedElements;
    wb::DeviceBuffer<float> a(n), b(n), c(n);
    wb::fill_uniform_device(a.data(), n, wb::seed() + 11, -1.f, 1.f, stage.stream());
    wb::fill_uniform_device(b.data(), n, wb::seed() + 12, -1.f, 1.f, stage.stream());
    auto launch_of = [&](AddLauncher f) { return [&, f](cudaStream_t s) { f(a.data(), b.data(), c.data(), n, s); }; };
    wb::SpeedCase speed;
    speed.description = "2^26 + 3 floats";
    speed.candidate = launch_of(add);
    if (previous) speed.previous_reference = launch_of(previous);
    speed.current_reference = launch_of(current);
    speed.bytes = 3.0 * n * sizeof(float);
    speed.recheck = [&] {
        c.poison();
        stage.run(launch_of(add));
        stage.expect(wb::compare(ch01::add_reference(a.download(), b.download()), c.download(), wb::Tolerance::exact()),
                     "the timed inputs, after timing");
    };
    stage.check_speed(speed);
}

// ---- fused add + activation (stages 3, 4) ----------------------------------------------------------

template <typename T>
using ActLauncher = void (*)(const T*, const T*, T*, int64_t, Activation, cudaStream_t);

/// act(a + b) in double, rounded to the output type T.
template <typename T>
std::vector<double> add_act_expected(const std::vector<T>& a, const std::vector<T>& b, Activation act)
{
    const std::vector<double> exact = ch01::add_act_reference(a, b, act);
    return std::is_same_v<T, __half> ? wb::round_to_half(exact) : wb::round_to_float(exact);
}

/// The tolerance after rounding to T: the activation's for float, one half-precision ulp for __half.
template <typename T>
wb::Tolerance add_act_tolerance(Activation act)
{
    if constexpr (std::is_same_v<T, __half>) {
        return {0x1.0p-24, 0x1.0p-10};   // one half-precision ulp (subnormal spacing near zero)
    } else {
        return activation_tolerance(act);
    }
}

template <typename T>
void check_add_act_once(wb::Stage& stage, ActLauncher<T> f, const std::vector<T>& a, const std::vector<T>& b,
                        Activation act, const std::string& label)
{
    wb::DeviceBuffer<T> da(a), db(b), dy(a.size());
    da.protect(), db.protect();
    dy.poison();
    stage.run([&](cudaStream_t s) { f(da.data(), db.data(), dy.data(), static_cast<int64_t>(a.size()), act, s); });
    stage.expect(wb::compare(add_act_expected(a, b, act), dy.download(), add_act_tolerance<T>(act)),
                 label + ", " + name_of(act));
}

/// The large fused case on a GPU with the memory: n = 2^31 + 2^20 + 5, then n = 2^32 + 2^20 + 5 where it
/// fits, filled on the GPU, checked on windows.
template <typename T>
void check_add_act_huge(wb::Stage& stage, ActLauncher<T> f)
{
    const Activation act = Activation::relu;
    std::vector<wb::LargeSize> sizes = huge_sizes(sizeof(T));
    for (wb::LargeSize& size : sizes) size.label += ", relu";
    wb::for_each_large_size(sizes, [&](std::size_t k) {
        const int64_t n = kHugeCounts[k];
        const std::string& label = sizes[k].label;
        wb::DeviceBuffer<T> a(n), b(n), y(n);
        wb::fill_uniform_device(a.data(), n, wb::seed() + 23, -5.f, 5.f, stage.stream());
        wb::fill_uniform_device(b.data(), n, wb::seed() + 24, -5.f, 5.f, stage.stream());
        y.poison();
        wb::run_past_int_range(
            stage, [&](cudaStream_t s) { f(a.data(), b.data(), y.data(), n, act, s); }, label, n > wb::kUintLimit);
        expect_windows(
            stage, a.data(), b.data(), y.data(), n, windows_past_int_limit(),
            [&](const std::vector<T>& as, const std::vector<T>& bs) { return add_act_expected(as, bs, act); },
            add_act_tolerance<T>(act), label);
    });
}

template <typename T>
void check_add_act(wb::Stage& stage, ActLauncher<T> f)
{
    wb::Rng rng(2);
    auto convert = [](const std::vector<float>& v) { return wb::convert_from_float<T>(v); };
    for (Activation act : {Activation::relu, Activation::sigmoid}) {
        for (int64_t n : kSizes) {
            const auto a = convert(wb::uniform_floats(n, -5.f, 5.f, rng));
            const auto b = convert(wb::uniform_floats(n, -5.f, 5.f, rng));
            check_add_act_once<T>(stage, f, a, b, act, "n = " + std::to_string(n));
        }
        // Infinities and huge values (no NaN: relu of NaN is not pinned down by the contract).
        const auto a = convert(with_specials(wb::uniform_floats(999, -60.f, 60.f, rng), false));
        const auto b = convert(wb::uniform_floats(999, -60.f, 60.f, rng));
        check_add_act_once<T>(stage, f, a, b, act, "n = 999 with inf, -inf, huge and tiny values");
    }
    check_add_act_huge<T>(stage, f);
}

/// After timing: the timed output of a fused stage on windows spread over it (the end included).
template <typename T>
void recheck_add_act(wb::Stage& stage, ActLauncher<T> f, const wb::DeviceBuffer<T>& a, const wb::DeviceBuffer<T>& b,
                     wb::DeviceBuffer<T>& y, int64_t n, Activation act)
{
    y.poison();
    stage.run([&](cudaStream_t s) { f(a.data(), b.data(), y.data(), n, act, s); });
    expect_windows(
        stage, a.data(), b.data(), y.data(), n, {},
        [&](const std::vector<T>& as, const std::vector<T>& bs) { return add_act_expected(as, bs, act); },
        add_act_tolerance<T>(act), "the timed inputs, after timing (checked on a sample), " + name_of(act));
}

/// The input of the emulator's memory counters: 2^14 elements, whole warps and whole vectors.
constexpr int64_t kCountedElements = int64_t(1) << 14;

/// On the CPU emulator, after the correctness checks: the sectors per request of an add stage beside
/// reference stages K - 1 and K (harness/emulated_profile.hpp). Advice beside a pass, never a failure.
void compare_add_memory(wb::Stage& stage, AddLauncher candidate, AddLauncher previous, AddLauncher current)
{
    if (!wb::emulated()) return;
    const int64_t n = kCountedElements;
    wb::DeviceBuffer<float> a(n), b(n), c(n);
    wb::fill_uniform_device(a.data(), n, wb::seed() + 15, -1.f, 1.f, stage.stream());
    wb::fill_uniform_device(b.data(), n, wb::seed() + 16, -1.f, 1.f, stage.stream());
    auto launch_of = [&](AddLauncher f) -> wb::Launch {
        if (!f) return nullptr;
        return [&, f](cudaStream_t s) { f(a.data(), b.data(), c.data(), n, s); };
    };
    stage.compare_memory_behaviour({"2^14 floats", launch_of(candidate), launch_of(previous), launch_of(current)});
}

/// The same for a fused stage, beside reference stage K only (stage K - 1 computes something else).
template <typename T>
void compare_add_act_memory(wb::Stage& stage, ActLauncher<T> candidate, ActLauncher<T> current)
{
    if (!wb::emulated()) return;
    const int64_t n = kCountedElements;
    wb::DeviceBuffer<T> a(n), b(n), y(n);
    wb::fill_uniform_device(a.data(), n, wb::seed() + 17, -4.f, 4.f, stage.stream());
    wb::fill_uniform_device(b.data(), n, wb::seed() + 18, -4.f, 4.f, stage.stream());
    auto launch_of = [&](ActLauncher<T> f) -> wb::Launch {
        return [&, f](cudaStream_t s) { f(a.data(), b.data(), y.data(), n, Activation::sigmoid, s); };
    };
    stage.compare_memory_behaviour({sizeof(T) == 2 ? "2^14 halves, sigmoid" : "2^14 floats, sigmoid",
                                    launch_of(candidate), nullptr, launch_of(current)});
}

}   // namespace

namespace stages = wb::stages;   // candidate<K>, previous<K>, current<K>: the launchers of stage K

/// Stages 1 and 2: the float add on every size, then timed against reference stages K - 1 and K.
template <int K>
void grade_stage_case(wb::Stage& stage)
{
    check_add(stage, stages::candidate<K>);
    compare_add_memory(stage, stages::counted_candidate<K>, stages::counted_previous<K>, stages::counted_current<K>);
    time_add(stage, stages::candidate<K>, stages::previous<K>, stages::current<K>);
}

/// Stage 3: the fused add + activation, timed against the unfused pair it replaces.
template <>
void grade_stage_case<3>(wb::Stage& stage)
{
    check_add_act<float>(stage, stages::candidate<3>);
    compare_add_act_memory<float>(stage, stages::counted_candidate<3>, stages::counted_current<3>);
    if (!stage.measures_speed()) return;   // nothing timed (CPU emulator, WORKBOOK_CORRECTNESS_ONLY): no large inputs
    const int64_t n = kTimedElements;
    wb::DeviceBuffer<float> a(n), b(n), sum(n), y(n);
    wb::fill_uniform_device(a.data(), n, wb::seed() + 21, -4.f, 4.f, stage.stream());
    wb::fill_uniform_device(b.data(), n, wb::seed() + 22, -4.f, 4.f, stage.stream());
    const Activation act = Activation::sigmoid;
    wb::SpeedCase speed;
    speed.description = "2^26 + 3 floats, sigmoid";
    speed.candidate = [&](cudaStream_t s) { stages::candidate<3>(a.data(), b.data(), y.data(), n, act, s); };
    speed.current_reference = [&](cudaStream_t s) { stages::current<3>(a.data(), b.data(), y.data(), n, act, s); };
    speed.previous_reference = [&](cudaStream_t s) {
        stages::previous<3>(a.data(), b.data(), sum.data(), n, s);   // reference stage 2's add
        ch01::activation_pass(sum.data(), y.data(), n, act, s);
    };
    speed.previous_label = "the unfused pair (stage 2 add, then an activation kernel)";
    speed.bytes = 3.0 * n * sizeof(float);
    speed.recheck = [&] { recheck_add_act<float>(stage, stages::candidate<3>, a, b, y, n, act); };
    stage.check_speed(speed);
}

/// Stage 4: the fused add + activation in half precision, timed against reference stage 3 on floats.
template <>
void grade_stage_case<4>(wb::Stage& stage)
{
    check_add_act<__half>(stage, stages::candidate<4>);
    compare_add_act_memory<__half>(stage, stages::counted_candidate<4>, stages::counted_current<4>);
    if (!stage.measures_speed()) return;   // nothing timed (CPU emulator, WORKBOOK_CORRECTNESS_ONLY): no large inputs
    const int64_t n = kTimedElements;
    wb::DeviceBuffer<__half> a(n), b(n), y(n);
    wb::DeviceBuffer<float> af(n), bf(n), yf(n);
    wb::fill_uniform_device(a.data(), n, wb::seed() + 31, -4.f, 4.f, stage.stream());
    wb::fill_uniform_device(b.data(), n, wb::seed() + 32, -4.f, 4.f, stage.stream());
    wb::fill_uniform_device(af.data(), n, wb::seed() + 33, -4.f, 4.f, stage.stream());
    wb::fill_uniform_device(bf.data(), n, wb::seed() + 34, -4.f, 4.f, stage.stream());
    const Activation act = Activation::sigmoid;
    wb::SpeedCase speed;
    speed.description = "2^26 + 3 halves, sigmoid";
    speed.candidate = [&](cudaStream_t s) { stages::candidate<4>(a.data(), b.data(), y.data(), n, act, s); };
    speed.current_reference = [&](cudaStream_t s) { stages::current<4>(a.data(), b.data(), y.data(), n, act, s); };
    speed.previous_reference = [&](cudaStream_t s) { stages::previous<4>(af.data(), bf.data(), yf.data(), n, act, s); };
    speed.previous_label = "reference stage 3 on as many floats";
    speed.bytes = 3.0 * n * sizeof(__half);
    speed.recheck = [&] { recheck_add_act<__half>(stage, stages::candidate<4>, a, b, y, n, act); };
    stage.check_speed(speed);
}

// `make bench`: every reference stage at the size of the anchor measurements (2^28 elements).
TEST_CASE("bench: chapter 1", "[.bench]")
{
    if (!wb::bench_can_run()) return;
    const int64_t n = int64_t(1) << 28;
    const std::string shape = std::to_string(n);
    wb::Stream stream;
    const cudaStream_t s = stream.get();
    wb::DeviceBuffer<float> a(n), b(n), c(n), d(n);
    wb::fill_uniform_device(a.data(), n, 1, -4.f, 4.f, s);
    wb::fill_uniform_device(b.data(), n, 2, -4.f, 4.f, s);
    const double bytes3 = 3.0 * n * sizeof(float);
    auto row = [&](const std::string& op, const std::string& variant, int stage_id, double ms, double bytes,
                   const std::string& dtype) {
        wb::print_bench_row({op, variant, shape, dtype, ms, bytes, 0.0, stage_id});
    };
    row("copy", "cudaMemcpyAsync device to device", 0,
        wb::median_ms(s,
                      [&](cudaStream_t st) {
                          WB_CUDA_CHECK(
                              cudaMemcpyAsync(c.data(), a.data(), n * sizeof(float), cudaMemcpyDeviceToDevice, st));
                      }),
        2.0 * n * sizeof(float), "float32");
    const auto adds = stages::reference_launchers<1, 2>();   // the float adds: stages 1 and 2
    for (int id = 1; id <= 2; ++id) {
        const AddLauncher add = adds[id - 1];
        row("add", wb::stage_label(id), id,
            wb::median_ms(s, [&](cudaStream_t st) { add(a.data(), b.data(), c.data(), n, st); }), bytes3, "float32");
    }
    for (Activation act : {Activation::relu, Activation::sigmoid}) {
        row("add+" + name_of(act), "unfused: stage 2 add, then activation", 0,
            wb::median_ms(s,
                          [&](cudaStream_t st) {
                              stages::current<2>(a.data(), b.data(), c.data(), n, st);
                              ch01::activation_pass(c.data(), d.data(), n, act, st);
                          }),
            bytes3, "float32");
        row("add+" + name_of(act), wb::stage_label(3), 3,
            wb::median_ms(s, [&](cudaStream_t st) { stages::current<3>(a.data(), b.data(), c.data(), n, act, st); }),
            bytes3, "float32");
    }
    wb::DeviceBuffer<__half> ha(n), hb(n), hc(n);
    wb::fill_uniform_device(ha.data(), n, 3, -4.f, 4.f, s);
    wb::fill_uniform_device(hb.data(), n, 4, -4.f, 4.f, s);
    for (Activation act : {Activation::relu, Activation::sigmoid}) {
        row("add+" + name_of(act), wb::stage_label(4), 4,
            wb::median_ms(s, [&](cudaStream_t st) { stages::current<4>(ha.data(), hb.data(), hc.data(), n, act, st); }),
            3.0 * n * sizeof(__half), "float16");
    }
}

// One test case per stage of stages.json ("stage K: <title>", tag [stageK]), each running grade_stage_case<K>.
WORKBOOK_STAGE_TEST_CASES()
