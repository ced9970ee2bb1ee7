// __syncthreads on the CPU backend: a counting barrier among the threads that have not exited;
// a divergent barrier or a deadlock ends the kernel with both source lines.
#include "emu_test.hpp"

#include "common/primitives.cuh"

#include <numeric>

using emu_test::contains;
using emu_test::DeviceArray;

namespace {

constexpr int kBlock = 128;

/// Each thread writes its slot, waits, then reads its neighbour's: right only with a real barrier.
__global__ void rotate(const int* in, int* out)
{
    __shared__ int s[kBlock];
    const int t = threadIdx.x;
    s[t] = in[blockIdx.x * kBlock + t];
    __syncthreads();
    out[blockIdx.x * kBlock + t] = s[(t + 1) % kBlock];
}

/// Threads past `active` return before the barrier; the others must not wait for them.
__global__ void early_exit(int* out, int active)
{
    __shared__ int s[kBlock];
    const int t = threadIdx.x;
    if (t >= active) return;
    s[t] = t * 10;
    __syncthreads();
    out[t] = s[(t + 1) % active];
}

constexpr int kDivergentLineA = __LINE__ + 5;
constexpr int kDivergentLineB = __LINE__ + 6;
__global__ void divergent(int* out)
{
    if (threadIdx.x < 16) {
        __syncthreads();
    } else {
        __syncthreads();
    }
    out[threadIdx.x] = 1;
}

constexpr int kDeadlockBarrierLine = __LINE__ + 6;
constexpr int kDeadlockShuffleLine = __LINE__ + 7;
__global__ void barrier_against_shuffle(int* out)
{
    int v = threadIdx.x;
    if (threadIdx.x == 0) {
        __syncthreads();
    } else {
        v = __shfl_xor_sync(0xffffffffu, v, 1);
    }
    out[threadIdx.x] = v;
}

__global__ void counting(int* out)
{
    const int t = threadIdx.x;
    out[0 * kBlock + t] = __syncthreads_count(t % 3 == 0);
    out[1 * kBlock + t] = __syncthreads_and(t < kBlock);
    out[2 * kBlock + t] = __syncthreads_and(t != 7);
    out[3 * kBlock + t] = __syncthreads_or(t == 99);
    out[4 * kBlock + t] = __syncthreads_or(0);
}

__global__ void barrier_in_loop(int* out, int rounds)
{
    __shared__ int s[kBlock];
    const int t = threadIdx.x;
    s[t] = 1;
    for (int r = 0; r < rounds; ++r) {
        __syncthreads();
        const int left = s[(t + kBlock - 1) % kBlock];
        __syncthreads();
        s[t] += left;
    }
    __syncthreads();
    out[t] = s[t];
}

std::string line_of(int line) { return "test_barriers.cu:" + std::to_string(line); }

}   // namespace

TEST_CASE("a barrier makes every thread's shared write visible, in every schedule", "[emu][barrier]")
{
    std::vector<int> in(4 * kBlock);
    std::iota(in.begin(), in.end(), 0);
    for (int schedule = 0; schedule < 3; ++schedule) {
        emu_test::ScheduleScope scope(schedule);
        DeviceArray<int> din(in), dout(in.size());
        rotate<<<4, kBlock>>>(din.data, dout.data);
        REQUIRE(emu_test::finish().ok());
        const auto out = dout.download();
        for (int b = 0; b < 4; ++b) {
            for (int t = 0; t < kBlock; ++t) CHECK(out[b * kBlock + t] == in[b * kBlock + (t + 1) % kBlock]);
        }
    }
}

TEST_CASE("threads that returned do not hold up a barrier", "[emu][barrier]")
{
    for (int schedule = 0; schedule < 3; ++schedule) {
        emu_test::ScheduleScope scope(schedule);
        DeviceArray<int> out(kBlock);
        early_exit<<<1, kBlock>>>(out.data, 40);
        REQUIRE(emu_test::finish().ok());
        const auto host = out.download();
        for (int t = 0; t < 40; ++t) CHECK(host[t] == ((t + 1) % 40) * 10);
    }
}

TEST_CASE("a barrier used many times in a loop keeps the threads in step", "[emu][barrier]")
{
    for (int schedule = 0; schedule < 3; ++schedule) {
        emu_test::ScheduleScope scope(schedule);
        DeviceArray<int> out(kBlock);
        barrier_in_loop<<<1, kBlock>>>(out.data, 5);
        REQUIRE(emu_test::finish().ok());
        for (int v : out.download()) CHECK(v == 32);   // 2^5: each round doubles every value
    }
}

TEST_CASE("a divergent barrier is reported with both lines, not a hang", "[emu][barrier]")
{
    DeviceArray<int> out(64);
    divergent<<<1, 64>>>(out.data);
    const auto outcome = emu_test::finish();
    CHECK(outcome.error == cudaErrorLaunchTimeout);
    CHECK(outcome.deadlock);
    CHECK(contains(outcome.report, "divergent barrier"));
    CHECK(contains(outcome.report, line_of(kDivergentLineA)));
    CHECK(contains(outcome.report, line_of(kDivergentLineB)));
    CHECK(contains(outcome.report, "kernel `divergent`"));
}

TEST_CASE("a barrier and a warp operation waiting for each other are a deadlock with both lines", "[emu][barrier]")
{
    DeviceArray<int> out(32);
    barrier_against_shuffle<<<1, 32>>>(out.data);
    const auto outcome = emu_test::finish();
    CHECK(outcome.error == cudaErrorLaunchTimeout);
    CHECK(contains(outcome.report, "deadlock"));
    CHECK(contains(outcome.report, line_of(kDeadlockBarrierLine)));
    CHECK(contains(outcome.report, line_of(kDeadlockShuffleLine)));
}

TEST_CASE("__syncthreads_count, _and and _or combine the predicates of the block", "[emu][barrier]")
{
    DeviceArray<int> out(5 * kBlock);
    counting<<<1, kBlock>>>(out.data);
    REQUIRE(emu_test::finish().ok());
    const auto host = out.download();
    const int multiples_of_3 = (kBlock + 2) / 3;
    for (int t = 0; t < kBlock; ++t) {
        CHECK(host[0 * kBlock + t] == multiples_of_3);
        CHECK(host[1 * kBlock + t] == 1);
        CHECK(host[2 * kBlock + t] == 0);
        CHECK(host[3 * kBlock + t] == 1);
        CHECK(host[4 * kBlock + t] == 0);
    }
}

namespace {

/// The largest block: 1024 fibers at once, each with a few KB of locals, meeting at barriers and shuffles.
__global__ void big_block(const float* in, float* out)
{
    __shared__ float scratch[32];
    float local[512];   // 2 KB of stack per thread, all of it live across the barriers
    for (int k = 0; k < 512; ++k) local[k] = in[threadIdx.x] * static_cast<float>(k % 3);
    float value = 0.0f;
    for (int k = 0; k < 512; ++k) value += local[k];
    const float total = wb::block_reduce_sum<1024>(value, scratch);
    out[threadIdx.x] = total + local[threadIdx.x % 512] * 0.0f;
}

}   // namespace

TEST_CASE("1024-thread blocks run as 1024 fibers with guarded stacks", "[emu][barrier]")
{
    std::vector<float> in(1024);
    for (int i = 0; i < 1024; ++i) in[i] = static_cast<float>(i % 7);
    double expected = 0.0;
    for (float v : in) expected += v * 511.0;   // the sum of k % 3 over k < 512 is 511
    for (int schedule = 0; schedule < 3; ++schedule) {
        emu_test::ScheduleScope scope(schedule);
        DeviceArray<float> din(in), dout(1024);
        big_block<<<2, 1024>>>(din.data, dout.data);
        REQUIRE(emu_test::finish().ok());
        for (float v : dout.download()) CHECK(v == static_cast<float>(expected));
    }
}
