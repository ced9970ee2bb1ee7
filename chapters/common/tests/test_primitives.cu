// Tests of the reduction library in primitives.cuh: every operator (Sum, Max, the online-softmax
// pair, Welford's state) through warp_allreduce (every group width) and block_allreduce (block
// sizes of 1, 2, 3, 8 and 32 warps), against float64 results computed here. The same source runs on
// the CPU emulator (CI) and on an NVIDIA GPU (the CUDA build).
#include "harness/catch.hpp"

#include "common/primitives.cuh"
#if WORKBOOK_EMULATED
#include "emu/grader_api.hpp"   // emu::last_fault_report
#endif

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();

// ---- device side: one kernel for the warp version, one for the block version ---------------------

/// out[t] = the combination of in[] over thread t's group of kWidth lanes.
template <typename Op, int kWidth>
__global__ void warp_kernel(const typename Op::value_type* in, typename Op::value_type* out)
{
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    out[t] = wb::warp_allreduce<Op, kWidth>(in[t]);
}

/// out[t] = the combination of in[] over thread t's block. With a reusable scratch, a second
/// reduction (of the block's values in reverse order) follows at once in the same scratch:
/// out_again[t] must equal it, and the emulator's race checks watch the reuse.
template <typename Op, int kBlock, wb::Scratch kAfter>
__global__ void __launch_bounds__(kBlock)
    block_kernel(const typename Op::value_type* in, typename Op::value_type* out, typename Op::value_type* out_again)
{
    using Value = typename Op::value_type;
    __shared__ Value scratch[kBlock / wb::kWarpSize];
    const int base = blockIdx.x * kBlock;
    const Value first = wb::block_allreduce<Op, kBlock, kAfter>(in[base + threadIdx.x], scratch);
    if constexpr (kAfter == wb::Scratch::reusable) {
        out_again[base + threadIdx.x] = wb::block_allreduce<Op, kBlock>(in[base + kBlock - 1 - threadIdx.x], scratch);
    }
    out[base + threadIdx.x] = first;
}

/// The wrappers chapters 2 to 6 call by name: sum and max, warp and block.
template <int kBlock>
__global__ void __launch_bounds__(kBlock) wrapper_kernel(const float* in, float* out)
{
    __shared__ float scratch[kBlock / wb::kWarpSize];
    const float v = in[threadIdx.x];
    const float warp_sum = wb::warp_reduce_sum(v);
    const float warp_max = wb::warp_reduce_max(v);
    const float group_sum = wb::warp_reduce_sum<4>(v);
    const float block_sum = wb::block_reduce_sum<kBlock>(v, scratch);
    const float block_max = wb::block_reduce_max<kBlock>(v, scratch);
    float* o = out + threadIdx.x * 5;
    o[0] = warp_sum;
    o[1] = warp_max;
    o[2] = group_sum;
    o[3] = block_sum;
    o[4] = block_max;
}

// ---- host side ----------------------------------------------------------------------------------

/// A device copy of a host vector that frees itself.
template <typename T>
struct Device {
    explicit Device(const std::vector<T>& host) : count(host.size())
    {
        REQUIRE(cudaMalloc(reinterpret_cast<void**>(&data), count * sizeof(T)) == cudaSuccess);
        REQUIRE(cudaMemcpy(data, host.data(), count * sizeof(T), cudaMemcpyHostToDevice) == cudaSuccess);
    }
    explicit Device(std::size_t n) : Device(std::vector<T>(n)) {}
    ~Device() { cudaFree(data); }
    Device(const Device&) = delete;
    Device& operator=(const Device&) = delete;
    std::vector<T> download() const
    {
        std::vector<T> host(count);
        REQUIRE(cudaMemcpy(host.data(), data, count * sizeof(T), cudaMemcpyDeviceToHost) == cudaSuccess);
        return host;
    }
    T* data = nullptr;
    std::size_t count;
};

/// Waits for the kernel. An error fails the test with what is known about it (on the emulator: the
/// kernel, thread and lines, a race on the scratch included), and resets the device so that the
/// next test starts clean.
void finish_launch()
{
    cudaError_t error = cudaGetLastError();
    if (error == cudaSuccess) error = cudaDeviceSynchronize();
    if (error == cudaSuccess) return;
    std::string what = cudaGetErrorString(error);
#if WORKBOOK_EMULATED
    if (const std::string report = emu::last_fault_report(error); !report.empty()) what = report;
#endif
    cudaDeviceReset();
    FAIL("the kernel failed: " << what);
}

/// True when a device (GPU or emulator) is there to run the kernels; prints WORKBOOK-SKIP once
/// otherwise (ctest then reports the test as skipped, as the graders do).
bool have_device()
{
    int count = 0;
    static const bool present = cudaGetDeviceCount(&count) == cudaSuccess && count > 0;
    static bool said = false;
    if (!present && !said) {
        std::printf("WORKBOOK-SKIP no CUDA device: the reduction library's tests need one (or the emulator)\n");
        said = true;
    }
    return present;
}

bool same_bits(const void* a, const void* b, std::size_t n) { return std::memcmp(a, b, n) == 0; }

/// Runs warp_kernel<Op, kWidth> on @p in (a multiple of 32 values, in blocks of 64 threads).
template <typename Op, int kWidth>
std::vector<typename Op::value_type> run_warp(const std::vector<typename Op::value_type>& in)
{
    using Value = typename Op::value_type;
    REQUIRE(in.size() % 64 == 0);
    Device<Value> din(in), dout(in.size());
    warp_kernel<Op, kWidth><<<static_cast<unsigned>(in.size() / 64), 64>>>(din.data, dout.data);
    finish_launch();
    return dout.download();
}

/// What a block_kernel run gives: the first reduction and, with a reusable scratch, the second.
template <typename Value>
struct BlockResult {
    std::vector<Value> first;
    std::vector<Value> again;
};

template <typename Op, int kBlock, wb::Scratch kAfter>
BlockResult<typename Op::value_type> run_block(const std::vector<typename Op::value_type>& in)
{
    using Value = typename Op::value_type;
    REQUIRE(in.size() % kBlock == 0);
    Device<Value> din(in), dout(in.size()), dagain(in.size());
    const auto blocks = static_cast<unsigned>(in.size() / kBlock);
    block_kernel<Op, kBlock, kAfter><<<blocks, kBlock>>>(din.data, dout.data, dagain.data);
    finish_launch();
    return {dout.download(), dagain.download()};
}

/// Checks every group of @p group consecutive results: every member holds the same bits, and the
/// first one passes @p check (given the group's inputs and where the group starts).
template <typename Value, typename Check>
void check_groups(const std::vector<Value>& in, const std::vector<Value>& out, int group, Check check)
{
    for (std::size_t start = 0; start < in.size(); start += group) {
        for (int i = 1; i < group; ++i) {
            INFO("group of " << group << " starting at thread " << start << ": thread " << start + i
                             << " differs from the first thread of its group");
            CHECK(same_bits(&out[start], &out[start + i], sizeof(Value)));
        }
        const std::vector<Value> members(in.begin() + start, in.begin() + start + group);
        INFO("group of " << group << " starting at thread " << start);
        check(members, out[start]);
    }
}

// ---- inputs and references, per operator ----------------------------------------------------------

std::mt19937& rng()
{
    static std::mt19937 generator(20240611u);
    return generator;
}

/// Small integers as floats: every partial sum is an integer below 2^24, so every order of the sum
/// is exact and the result must equal the float64 one.
std::vector<float> integer_floats(std::size_t n)
{
    std::uniform_int_distribution<int> pick(-1000, 1000);
    std::vector<float> v(n);
    for (float& x : v) x = static_cast<float>(pick(rng()));
    return v;
}

/// Values for the maximum: random floats, some -inf (never the whole input: that is tested apart).
std::vector<float> max_inputs(std::size_t n)
{
    std::normal_distribution<float> pick(0.0f, 100.0f);
    std::vector<float> v(n);
    for (std::size_t i = 0; i < n; ++i) v[i] = i % 7 == 3 ? -kInf : pick(rng());
    return v;
}

void check_exact_sum(const std::vector<float>& in, float got)
{
    double sum = 0.0;
    for (float x : in) sum += x;
    CHECK(got == static_cast<float>(sum));
}

void check_exact_max(const std::vector<float>& in, float got)
{
    float max = -kInf;
    for (float x : in) max = std::fmax(max, x);
    CHECK(got == max);
}

/// Pairs of single values {x, 1} (a thread that saw one value), empty pairs {-inf, 0} (a thread
/// that saw none, or only -inf) every fifth thread, and whole groups of 32 empty pairs from thread
/// 64 on, every 256: rows of -inf.
std::vector<wb::MaxSum> pair_inputs(std::size_t n)
{
    std::normal_distribution<float> pick(0.0f, 3.0f);
    std::vector<wb::MaxSum> v(n);
    for (std::size_t i = 0; i < n; ++i) {
        const bool empty = i % 5 == 2 || (i % 256 >= 64 && i % 256 < 96);
        v[i] = empty ? wb::MaxSum{-kInf, 0.0f} : wb::MaxSum{pick(rng()), 1.0f};
    }
    return v;
}

/// m is exact (one of the inputs); s = sum of s_i exp(m_i - m) within rounding and __expf's error.
/// A group of empty pairs gives exactly the empty pair: no NaN.
void check_pair(const std::vector<wb::MaxSum>& in, wb::MaxSum got)
{
    float m = -kInf;
    for (const auto& p : in) m = std::fmax(m, p.m);
    double s = 0.0;
    if (m != -kInf) {
        for (const auto& p : in) s += p.m == -kInf ? 0.0 : p.s * std::exp(static_cast<double>(p.m) - m);
    }
    INFO("expected (m, s) = (" << m << ", " << s << "), got (" << got.m << ", " << got.s << ")");
    CHECK(got.m == m);
    CHECK_FALSE(std::isnan(got.s));
    CHECK(std::fabs(got.s - s) <= 1e-5 * s * std::sqrt(static_cast<double>(in.size())) + 1e-30);
}

/// Welford states of one value each {x, 0, 1}, empty states (count 0) every third thread and whole
/// groups of 32 empty states every 256 threads. @p offset shifts the values: near 1e4 with a spread
/// of 1, a sum of squares in float cancels catastrophically; Welford does not.
std::vector<wb::Welford> welford_inputs(std::size_t n, float offset)
{
    std::uniform_real_distribution<float> pick(-1.0f, 1.0f);
    std::vector<wb::Welford> v(n);
    for (std::size_t i = 0; i < n; ++i) {
        const bool empty = i % 3 == 1 || (i % 256 >= 128 && i % 256 < 160);
        wb::Welford w;
        if (!empty) {
            w.mean = offset + pick(rng());
            w.count = 1.0f;
        }
        v[i] = w;
    }
    return v;
}

/// count exact; mean and m2 close to float64 two-pass results (m2 within @p m2_tolerance,
/// relative). Empty groups give {0, 0, 0}.
void check_welford_within(const std::vector<wb::Welford>& in, wb::Welford got, double m2_tolerance)
{
    double count = 0.0, sum = 0.0;
    for (const auto& w : in) {
        count += w.count;
        sum += static_cast<double>(w.mean) * w.count;
    }
    CHECK(got.count == static_cast<float>(count));
    if (count == 0.0) {
        CHECK(got.mean == 0.0f);
        CHECK(got.m2 == 0.0f);
        return;
    }
    const double mean = sum / count;
    double m2 = 0.0;
    for (const auto& w : in) {
        m2 += w.m2 + w.count * (w.mean - mean) * (w.mean - mean);
    }
    INFO("expected mean " << mean << ", m2 " << m2 << "; got mean " << got.mean << ", m2 " << got.m2);
    CHECK(std::fabs(got.mean - mean) <= 1e-6 * (std::fabs(mean) + 1.0));
    CHECK(std::fabs(got.m2 - m2) <= m2_tolerance * m2 + 1e-6);
}

/// Values near 0 or 3: every merge rounds at most a few ulps of numbers of the size of the spread.
void check_welford(const std::vector<wb::Welford>& in, wb::Welford got) { check_welford_within(in, got, 1e-4); }

// ---- every width, every block size ----------------------------------------------------------------

template <typename Op, typename Check>
void check_every_width(const std::vector<typename Op::value_type>& in, Check check)
{
    check_groups(in, run_warp<Op, 1>(in), 1, check);
    check_groups(in, run_warp<Op, 2>(in), 2, check);
    check_groups(in, run_warp<Op, 4>(in), 4, check);
    check_groups(in, run_warp<Op, 8>(in), 8, check);
    check_groups(in, run_warp<Op, 16>(in), 16, check);
    check_groups(in, run_warp<Op, 32>(in), 32, check);
}

/// Both scratch modes; with the reusable one, the second reduction too (the same values reversed
/// within each block, so the same result up to the order of the combination).
template <typename Op, int kBlock, typename Check>
void check_block(const std::vector<typename Op::value_type>& in, Check check)
{
    using Value = typename Op::value_type;
    const auto reusable = run_block<Op, kBlock, wb::Scratch::reusable>(in);
    check_groups(in, reusable.first, kBlock, check);
    std::vector<Value> reversed(in.size());
    for (std::size_t b = 0; b < in.size(); b += kBlock) {
        for (int t = 0; t < kBlock; ++t) reversed[b + t] = in[b + kBlock - 1 - t];
    }
    check_groups(reversed, reusable.again, kBlock, check);
    check_groups(in, run_block<Op, kBlock, wb::Scratch::last_use>(in).first, kBlock, check);
}

template <typename Op, typename Make, typename Check>
void check_every_block_size(Make make, Check check)
{
    check_block<Op, 32>(make(3 * 32), check);
    check_block<Op, 64>(make(3 * 64), check);
    check_block<Op, 96>(make(3 * 96), check);   // three warps: not a power of two
    check_block<Op, 256>(make(2 * 256), check);
    check_block<Op, 1024>(make(2 * 1024), check);
}

}   // namespace

TEST_CASE("warp_allreduce: sums of integers are exact at every group width", "[primitives][warp]")
{
    if (!have_device()) return;
    check_every_width<wb::Sum<float>>(integer_floats(256), check_exact_sum);
    const std::vector<int> ints = {1,  -2, 3,  40000, -5, 6,  7,  8,  9,  10, 11, 12, 13, 14, 15, 16,
                                   17, 18, 19, 20,    21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, -1000000};
    std::vector<int> in;
    for (int i = 0; i < 2; ++i) in.insert(in.end(), ints.begin(), ints.end());
    check_groups(in, run_warp<wb::Sum<int>, 32>(in), 32, [](const std::vector<int>& g, int got) {
        long long sum = 0;
        for (int x : g) sum += x;
        CHECK(got == sum);
    });
}

TEST_CASE("warp_allreduce: the maximum is exact at every group width, -inf included", "[primitives][warp]")
{
    if (!have_device()) return;
    check_every_width<wb::Max<float>>(max_inputs(256), check_exact_max);
    std::vector<float> all_inf(64, -kInf);
    check_groups(all_inf, run_warp<wb::Max<float>, 32>(all_inf), 32, check_exact_max);
    std::vector<int> ints(64);
    for (int i = 0; i < 64; ++i) ints[i] = (i * 37) % 64 - 100;
    check_groups(ints, run_warp<wb::Max<int>, 16>(ints), 16, [](const std::vector<int>& g, int got) {
        int max = std::numeric_limits<int>::lowest();
        for (int x : g) max = std::max(max, x);
        CHECK(got == max);
    });
}

TEST_CASE("warp_allreduce: online-softmax pairs at every width, rows of -inf give the empty pair", "[primitives][warp]")
{
    if (!have_device()) return;
    check_every_width<wb::MaxSumMerge>(pair_inputs(512), check_pair);
}

TEST_CASE("warp_allreduce: Welford states at every width, empty states included", "[primitives][warp]")
{
    if (!have_device()) return;
    check_every_width<wb::WelfordMerge>(welford_inputs(512, 0.0f), check_welford);
}

TEST_CASE("block_allreduce: every operator at 1, 2, 3, 8 and 32 warps, scratch reused or not", "[primitives][block]")
{
    if (!have_device()) return;
    SECTION("sum of integers, exact") { check_every_block_size<wb::Sum<float>>(integer_floats, check_exact_sum); }
    SECTION("maximum, exact") { check_every_block_size<wb::Max<float>>(max_inputs, check_exact_max); }
    SECTION("online-softmax pairs") { check_every_block_size<wb::MaxSumMerge>(pair_inputs, check_pair); }
    SECTION("Welford states")
    {
        check_every_block_size<wb::WelfordMerge>([](std::size_t n) { return welford_inputs(n, 3.0f); }, check_welford);
    }
}

TEST_CASE("block_allreduce: a block of -inf gives the empty pair, a block of empty states the empty state",
          "[primitives][block]")
{
    if (!have_device()) return;
    check_block<wb::MaxSumMerge, 96>(std::vector<wb::MaxSum>(96, wb::MaxSum{-kInf, 0.0f}), check_pair);
    check_block<wb::WelfordMerge, 96>(std::vector<wb::Welford>(96), check_welford);
}

TEST_CASE("Welford's merge keeps the variance of values that cancel; the sum of squares loses it",
          "[primitives][block]")
{
    if (!have_device()) return;
    constexpr int kBlock = 1024;
    const auto states = welford_inputs(kBlock, 1.0e4f);   // values in 1e4 +- 1, variance about 1/3
    // Near 1e4 a float's spacing is 1e-3: each merge rounds the mean by that much, a few tenths of a
    // percent of the deviations it is built from.
    check_groups(states, run_block<wb::WelfordMerge, kBlock, wb::Scratch::reusable>(states).first, kBlock,
                 [](const std::vector<wb::Welford>& in, wb::Welford got) { check_welford_within(in, got, 1e-2); });

    // The same values, reduced the naive way: var = E[x^2] - E[x]^2 in float.
    std::vector<float> values, squares, counts;
    for (const auto& w : states) {
        values.push_back(w.mean * w.count);
        squares.push_back(w.mean * w.mean * w.count);
        counts.push_back(w.count);
    }
    const float sum = run_block<wb::Sum<float>, kBlock, wb::Scratch::reusable>(values).first[0];
    const float sum_sq = run_block<wb::Sum<float>, kBlock, wb::Scratch::reusable>(squares).first[0];
    const float n = run_block<wb::Sum<float>, kBlock, wb::Scratch::reusable>(counts).first[0];
    const float naive_var = sum_sq / n - (sum / n) * (sum / n);
    const wb::Welford merged = run_block<wb::WelfordMerge, kBlock, wb::Scratch::reusable>(states).first[0];
    double mean = 0.0, m2 = 0.0;
    for (const auto& w : states) mean += static_cast<double>(w.mean) * w.count / n;
    for (const auto& w : states) m2 += w.count * (w.mean - mean) * (w.mean - mean);
    const double var = m2 / n;
    INFO("exact variance " << var << ", Welford " << merged.m2 / merged.count << ", naive " << naive_var);
    CHECK(std::fabs(merged.m2 / merged.count - var) <= 1e-2 * var);
    CHECK(std::fabs(naive_var - var) > 10 * std::fabs(merged.m2 / merged.count - var));   // why Welford
}

TEST_CASE("warp_reduce_sum, warp_reduce_max, block_reduce_sum and block_reduce_max keep their meaning",
          "[primitives][wrappers]")
{
    if (!have_device()) return;
    constexpr int kBlock = 96;
    const std::vector<float> in = integer_floats(kBlock);
    Device<float> din(in), dout(kBlock * 5);
    wrapper_kernel<kBlock><<<1, kBlock>>>(din.data, dout.data);
    finish_launch();
    const auto out = dout.download();
    for (int t = 0; t < kBlock; ++t) {
        INFO("thread " << t);
        const auto span = [&](int first, int count) {
            return std::vector<float>(in.begin() + first, in.begin() + first + count);
        };
        check_exact_sum(span(t / 32 * 32, 32), out[t * 5 + 0]);
        check_exact_max(span(t / 32 * 32, 32), out[t * 5 + 1]);
        check_exact_sum(span(t / 4 * 4, 4), out[t * 5 + 2]);
        check_exact_sum(in, out[t * 5 + 3]);
        check_exact_max(in, out[t * 5 + 4]);
    }
}
