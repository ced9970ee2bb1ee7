// The emulator's checks of undefined behaviour that may happen to give right numbers: shared-memory
// races, reads of unwritten or out-of-bounds shared memory, barriers and warp operations that threads
// reach divergently, reads past the end of a buffer, and crashes. Each detector has a test that it
// fires and tests that legitimate code (barriers, __syncwarp, shuffles, atomics, early exits, double
// buffers) stays clean. Every block is checked here (CheckScope(2)).
#include "emu_test.hpp"

#include <cstring>

using emu_test::contains;
using emu_test::DeviceArray;

namespace {

constexpr int kBlock = 128;

// ---- kernels that must be reported ----------------------------------------------------------------------

/// Reads a neighbour's slot with no barrier after the stores.
__global__ void no_barrier_after_store(const float* in, float* out)
{
    __shared__ float slots[kBlock];
    const int t = threadIdx.x;
    slots[t] = in[t];
    out[t] = slots[(t + 1) % kBlock];
}

/// A tile loop without the barrier at the end of each iteration: the next tile overwrites slots that
/// other threads still read.
__global__ void tile_loop_missing_trailing_barrier(const float* in, float* out, int tiles)
{
    __shared__ float tile[kBlock];
    const int t = threadIdx.x;
    float sum = 0.0f;
    for (int k = 0; k < tiles; ++k) {
        tile[t] = in[k * kBlock + t];
        __syncthreads();
        sum += tile[kBlock - 1 - t];
    }
    out[t] = sum;
}

/// The pre-Volta warp-synchronous tail: volatile, no __syncwarp.
__global__ void volatile_warp_tail(const float* in, float* out)
{
    __shared__ float s[64];
    const int t = threadIdx.x;   // 32 threads
    s[t] = in[t];
    s[t + 32] = in[t + 32];
    __syncwarp();
    volatile float* v = s;
    v[t] += v[t + 32];
    v[t] += v[t + 16];
    v[t] += v[t + 8];
    if (t == 0) out[0] = v[0];
}

/// Reads a slot that no thread stores (only kBlock - 1 are filled).
__global__ void reads_unwritten(float* out)
{
    __shared__ float s[kBlock];
    const int t = threadIdx.x;
    if (t < kBlock - 1) s[t] = 1.0f;
    __syncthreads();
    out[t] = fmaxf(s[t], 0.0f);   // the poison would vanish in a maximum with a large value, not here
}

/// Reads one element past the end of a shared array, through a pointer (an index into the array itself
/// is stopped earlier, by the bounds checks: see the next kernel).
__global__ void reads_past_shared_end(float* out)
{
    __shared__ float s[kBlock];
    const int t = threadIdx.x;
    s[t] = 1.0f;
    __syncthreads();
    const float* row = s;
    out[t] = row[t + 1];
}

/// Writes one element past the end of a local array: a loop bound one too far.
__global__ void writes_past_local_end(float* out, int count)
{
    float v[4];
    for (int i = 0; i <= count; ++i) v[i] = static_cast<float>(i);
    out[threadIdx.x] = v[0] + v[1] + v[2] + v[3];
}

/// A __syncthreads() that only the threads taking the branch reach, in a loop.
__global__ void barrier_in_branch(float* out)
{
    __shared__ float s[kBlock];
    const int t = threadIdx.x;
    s[t] = 1.0f;
    __syncthreads();
    for (int stride = kBlock / 2; stride > 0; stride /= 2) {
        if (t < stride) {
            s[t] += s[t + stride];
            __syncthreads();
        }
    }
    if (t == 0) out[0] = s[0];
}

/// Two halves of the warp call the same shuffle from two branches.
__global__ void shuffle_from_two_branches(float* out)
{
    float v = static_cast<float>(threadIdx.x);
    if (threadIdx.x < 16) {
        v += __shfl_xor_sync(0xffffffffu, v, 16);
    } else {
        v -= __shfl_xor_sync(0xffffffffu, v, 16);
    }
    out[threadIdx.x] = v;
}

/// Reads one element past the end of its input.
__global__ void reads_past_input_end(const float* in, float* out, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = in[i] + in[i + 1];   // i + 1 == n for the last thread
    (void)n;
}

/// float4 loads over an array of @p n floats, n not a multiple of 4: the last load starts inside the
/// array and ends past it; only the lanes inside are used.
__global__ void float4_over_partial_tail(const float* in, float* out, int n)
{
    const int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (4 * v >= n) return;
    const float4 x = reinterpret_cast<const float4*>(in)[v];
    const float lanes[4] = {x.x, x.y, x.z, x.w};
    for (int k = 0; k < 4 && 4 * v + k < n; ++k) out[4 * v + k] = lanes[k];
}

/// float4 loads from @p in + @p offset floats: misaligned unless offset is a multiple of 4.
__global__ void float4_from_offset(const float* in, float* out, int offset)
{
    const float4 x = reinterpret_cast<const float4*>(in + offset)[threadIdx.x];
    out[threadIdx.x] = x.x + x.y + x.z + x.w;
}

__global__ void dereferences_null(float* out)
{
    float* nowhere = nullptr;
    out[threadIdx.x] = nowhere[threadIdx.x + 16];
}

__global__ void divides_by_zero(int* out, int divisor)
{
    out[threadIdx.x] = 100 / (divisor + static_cast<int>(threadIdx.x % 2) * 0);
}

// ---- legitimate kernels that must stay clean -----------------------------------------------------------

/// Tree reduction with the barriers, the last warp with shuffles.
__global__ void good_reduction(const float* in, float* out)
{
    __shared__ float s[kBlock];
    const int t = threadIdx.x;
    s[t] = in[blockIdx.x * kBlock + t];
    __syncthreads();
    for (int stride = kBlock / 2; stride >= 32; stride /= 2) {
        if (t < stride) s[t] += s[t + stride];
        __syncthreads();
    }
    if (t < 32) {
        float v = s[t];
        for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
        if (t == 0) out[blockIdx.x] = v;
    }
}

/// The warp-synchronous tail done right: __syncwarp between reading and writing.
__global__ void syncwarp_tail(const float* in, float* out)
{
    __shared__ float s[64];
    const int t = threadIdx.x;   // 32 threads
    s[t] = in[t];
    s[t + 32] = in[t + 32];
    __syncwarp();
    for (int stride = 32; stride > 0; stride /= 2) {
        const float mine = t < stride ? s[t] + s[t + stride] : 0.0f;
        __syncwarp();
        if (t < stride) s[t] = mine;
        __syncwarp();
    }
    if (t == 0) out[0] = s[0];
}

/// Lanes of a warp hand values through shared memory, ordered by a shuffle (a warp operation both
/// lanes take part in) instead of __syncwarp.
__global__ void ordered_by_shuffle(float* out)
{
    __shared__ float s[32];
    const int t = threadIdx.x;
    s[t] = static_cast<float>(t);
    const float dummy = __shfl_sync(0xffffffffu, 1.0f, 0);
    out[t] = s[31 - t] + dummy;
}

/// Double buffer: load the next tile into the other buffer while computing on this one; one barrier
/// per iteration is enough because the buffer written in iteration k was last read in iteration k - 1,
/// before that iteration's barrier.
__global__ void double_buffer(const float* in, float* out, int tiles)
{
    __shared__ float tile[2][kBlock];
    const int t = threadIdx.x;
    tile[0][t] = in[t];
    __syncthreads();
    float sum = 0.0f;
    for (int k = 0; k < tiles; ++k) {
        if (k + 1 < tiles) tile[(k + 1) % 2][t] = in[(k + 1) * kBlock + t];
        sum += tile[k % 2][kBlock - 1 - t];
        __syncthreads();
    }
    out[t] = sum;
}

/// Threads past the end return before the barrier (allowed since Volta: exited threads are not waited for).
__global__ void early_exit_then_barrier(const float* in, float* out, int n)
{
    __shared__ float s[kBlock];
    const int t = threadIdx.x;
    if (t >= n) return;
    s[t] = in[t];
    __syncthreads();
    out[t] = s[(t + 1) % n];
}

/// Counting with shared atomics, and many threads storing the same flag.
__global__ void atomics_and_flags(const int* in, int* out)
{
    __shared__ int count;
    __shared__ int any_negative;
    const int t = threadIdx.x;
    if (t == 0) {
        count = 0;
        any_negative = 0;
    }
    __syncthreads();
    if (in[t] > 0) atomicAdd(&count, 1);
    if (in[t] < 0) any_negative = 1;
    __syncthreads();
    if (t == 0) out[0] = count * 2 + any_negative;
}

/// A barrier in a uniform loop, with the block reduction of the harness, twice in a row.
__global__ void uniform_loops(const float* in, float* out, int rounds)
{
    __shared__ float s[kBlock];
    const int t = threadIdx.x;
    float v = in[t];
    for (int r = 0; r < rounds; ++r) {
        s[t] = v;
        __syncthreads();
        v = 0.5f * (s[t] + s[(t + 1) % kBlock]);
        __syncthreads();
    }
    out[t] = v;
}

}   // namespace

// ---- the reports -----------------------------------------------------------------------------------------

TEST_CASE("a read of another thread's store without a barrier is a race", "[emu][checks]")
{
    emu_test::CheckScope all(2);
    DeviceArray<float> in(std::vector<float>(kBlock, 1.0f)), out(kBlock);
    for (int schedule = 0; schedule < 3; ++schedule) {
        emu_test::ScheduleScope scope(schedule);
        no_barrier_after_store<<<1, kBlock>>>(in.data, out.data);
        const auto outcome = emu_test::finish();
        INFO(outcome.report);
        CHECK(contains(outcome.report, "shared memory race on"));
        CHECK(contains(outcome.report, "`slots`"));
        CHECK(contains(outcome.report, "test_checks.cu:"));   // the lines of both accesses
    }
}

TEST_CASE("overwriting a tile that others still read is a race", "[emu][checks]")
{
    emu_test::CheckScope all(2);
    DeviceArray<float> in(std::vector<float>(4 * kBlock, 1.0f)), out(kBlock);
    tile_loop_missing_trailing_barrier<<<1, kBlock>>>(in.data, out.data, 4);
    const auto outcome = emu_test::finish();
    INFO(outcome.report);
    CHECK(contains(outcome.report, "shared memory race on"));
    CHECK(contains(outcome.report, "`tile`"));
}

TEST_CASE("the volatile warp tail without __syncwarp is a race between lanes", "[emu][checks]")
{
    emu_test::CheckScope all(2);
    DeviceArray<float> in(std::vector<float>(64, 1.0f)), out(1);
    volatile_warp_tail<<<1, 32>>>(in.data, out.data);
    const auto outcome = emu_test::finish();
    INFO(outcome.report);
    CHECK(contains(outcome.report, "shared memory race on"));
    CHECK(contains(outcome.report, "lanes of one warp"));
}

TEST_CASE("reading shared memory that no thread wrote is reported", "[emu][checks]")
{
    emu_test::CheckScope all(2);
    DeviceArray<float> out(kBlock);
    reads_unwritten<<<1, kBlock>>>(out.data);
    const auto outcome = emu_test::finish();
    INFO(outcome.report);
    CHECK(contains(outcome.report, "read shared memory that no thread wrote"));
    CHECK(contains(outcome.report, "bytes 508 to 511 of the shared array `s`"));
}

TEST_CASE("a read past the end of a shared array is reported", "[emu][checks]")
{
    emu_test::CheckScope all(2);
    DeviceArray<float> out(kBlock);
    reads_past_shared_end<<<1, kBlock>>>(out.data);
    const auto outcome = emu_test::finish();
    INFO(outcome.report);
    CHECK(contains(outcome.report, "read out of bounds of shared memory"));
    CHECK(contains(outcome.report, "0 bytes past the end of the shared array `s`"));
}

TEST_CASE("an index past the end of a local array stops the kernel at its line", "[emu][checks]")
{
    emu_test::CheckScope all(2);
    DeviceArray<float> out(kBlock);
    writes_past_local_end<<<1, kBlock>>>(out.data, 4);
    const auto outcome = emu_test::finish();
    INFO(outcome.report);
    CHECK(contains(outcome.report, "an index outside an array whose size the compiler knows"));
    CHECK(contains(outcome.report, "test_checks.cu:"));
}

TEST_CASE("a barrier that some threads skip and then return is barrier divergence", "[emu][checks]")
{
    DeviceArray<float> out(1);
    barrier_in_branch<<<1, kBlock>>>(out.data);
    const auto outcome = emu_test::finish();
    INFO(outcome.report);
    CHECK(contains(outcome.report, "barrier divergence"));
    CHECK(outcome.deadlock);
}

TEST_CASE("a shuffle whose lanes come from two branches is divergent", "[emu][checks]")
{
    DeviceArray<float> out(32);
    shuffle_from_two_branches<<<1, 32>>>(out.data);
    const auto outcome = emu_test::finish();
    INFO(outcome.report);
    CHECK(contains(outcome.report, "divergent warp operation"));
}

TEST_CASE("a read of the guard after a declared buffer is a read past the end of an input array", "[emu][checks]")
{
    constexpr int n = 256;
    constexpr std::size_t guard = 4096;
    float* in = nullptr;
    REQUIRE(cudaMalloc(&in, n * sizeof(float) + guard) == cudaSuccess);
    REQUIRE(cudaMemset(in, 0, n * sizeof(float)) == cudaSuccess);
    REQUIRE(cudaMemset(in + n, 0xA7, guard) == cudaSuccess);
    DeviceArray<float> out(n);
    reads_past_input_end<<<1, n>>>(in, out.data, n);
    CHECK(emu_test::finish().ok());   // nothing declared: the guard is part of the allocation

    emu::declare_buffer_extent(in, n * sizeof(float));
    reads_past_input_end<<<1, n>>>(in, out.data, n);
    const auto outcome = emu_test::finish();
    INFO(outcome.report);
    CHECK(contains(outcome.report, "read past the end of an input array"));
    CHECK(contains(outcome.report, "(the first byte after its end)"));
    cudaFree(in);
}

TEST_CASE("a vector load that starts inside a declared buffer and ends in its guard is a read past the end",
          "[emu][checks]")
{
    constexpr int n = 258;   // 64 whole float4, then 2 floats: the 65th float4 reaches 8 bytes past the end
    constexpr std::size_t guard = 4096;
    float* in = nullptr;
    REQUIRE(cudaMalloc(&in, n * sizeof(float) + guard) == cudaSuccess);
    REQUIRE(cudaMemset(in, 0, n * sizeof(float)) == cudaSuccess);
    REQUIRE(cudaMemset(in + n, 0xA7, guard) == cudaSuccess);
    emu::declare_buffer_extent(in, n * sizeof(float));
    DeviceArray<float> out(n);
    float4_over_partial_tail<<<1, 64>>>(in, out.data, n);
    CHECK(emu_test::finish().ok());   // 64 threads: every float4 inside the array
    float4_over_partial_tail<<<1, 96>>>(in, out.data, n);
    const auto outcome = emu_test::finish();
    INFO(outcome.report);
    CHECK(contains(outcome.report, "read past the end of an input array"));
    CHECK(contains(outcome.report, "bytes 1024 to 1039 of an array of 1032 bytes (its last 8 bytes past its end)"));
    cudaFree(in);
}

TEST_CASE("a float4 load from an address that is not a multiple of 16 is a misaligned access", "[emu][checks]")
{
    DeviceArray<float> in(256), out(32);
    float4_from_offset<<<1, 32>>>(in.data, out.data, 4);
    CHECK(emu_test::finish().ok());
    float4_from_offset<<<1, 32>>>(in.data, out.data, 1);
    const auto outcome = emu_test::finish();
    INFO(outcome.report);
    CHECK(contains(outcome.report, "misaligned 16-byte read"));
    CHECK(contains(outcome.report, "4 bytes past a multiple of 16"));
}

TEST_CASE("a crash in a kernel ends the launch with a report, not the process", "[emu][checks]")
{
    DeviceArray<float> out(32);
    dereferences_null<<<1, 32>>>(out.data);
    auto outcome = emu_test::finish();
    INFO(outcome.report);
    CHECK(outcome.error == cudaErrorLaunchFailure);
    CHECK(contains(outcome.report, "crash in thread"));
    CHECK(contains(outcome.report, "no array owns"));

    DeviceArray<int> ints(32);
    divides_by_zero<<<1, 32>>>(ints.data, 0);
    outcome = emu_test::finish();
    INFO(outcome.report);
    CHECK(contains(outcome.report, "division or remainder by zero"));

    // And the device works again afterwards.
    DeviceArray<float> in(std::vector<float>(kBlock, 1.0f)), sums(1);
    good_reduction<<<1, kBlock>>>(in.data, sums.data);
    REQUIRE(emu_test::finish().ok());
    CHECK(sums.download()[0] == static_cast<float>(kBlock));
}

// ---- and silence on right code -------------------------------------------------------------------------

TEST_CASE("legitimate synchronisation is not reported", "[emu][checks]")
{
    emu_test::CheckScope all(2);
    for (int schedule = 0; schedule < 3; ++schedule) {
        emu_test::ScheduleScope scope(schedule);
        DeviceArray<float> in(std::vector<float>(4 * kBlock, 1.0f)), out(4 * kBlock);

        good_reduction<<<4, kBlock>>>(in.data, out.data);
        REQUIRE(emu_test::finish().ok());
        CHECK(out.download()[3] == static_cast<float>(kBlock));

        syncwarp_tail<<<1, 32>>>(in.data, out.data);
        REQUIRE(emu_test::finish().ok());
        CHECK(out.download()[0] == 64.0f);

        ordered_by_shuffle<<<1, 32>>>(out.data);
        REQUIRE(emu_test::finish().ok());

        double_buffer<<<1, kBlock>>>(in.data, out.data, 4);
        REQUIRE(emu_test::finish().ok());
        CHECK(out.download()[5] == 4.0f);

        early_exit_then_barrier<<<1, kBlock>>>(in.data, out.data, 100);
        REQUIRE(emu_test::finish().ok());

        uniform_loops<<<1, kBlock>>>(in.data, out.data, 3);
        REQUIRE(emu_test::finish().ok());
        CHECK(out.download()[7] == 1.0f);

        std::vector<int> values(kBlock, 1);
        values[9] = -1;
        DeviceArray<int> ints(values), result(1);
        atomics_and_flags<<<1, kBlock>>>(ints.data, result.data);
        REQUIRE(emu_test::finish().ok());
        CHECK(result.download()[0] == 2 * (kBlock - 1) + 1);
    }
}
