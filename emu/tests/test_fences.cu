// The fence checker (emu/src/fences.cpp): a value that one block stores and announces with an atomic,
// with no __threadfence() between the store and the atomic, read by another block of the same launch.
// Each wrong placement of the fence in the last-block reduction is reported with its lines; the right
// placements, and atomics that announce nothing another block reads, are not.
#include "emu_test.hpp"

#include <cuda_runtime.h>

#include <string>
#include <vector>

using emu_test::contains;
using emu_test::DeviceArray;

namespace {

constexpr int kBlock = 64;
constexpr int kBlocks = 8;

enum class Fence { none, before_ticket, after_ticket, block_scope, before_store };

/// The single-pass sum: thread 0 of each block stores the block's partial sum and takes a ticket; the
/// block with the last ticket adds the partials. kFence says where (and whether) the fence is.
template <Fence kFence>
__global__ void last_block_sum(const float* in, float* partials, unsigned* counter, float* out)
{
    __shared__ bool is_last;
    if (threadIdx.x == 0) {
        float sum = 0.0f;
        for (int i = 0; i < kBlock; ++i) sum += in[blockIdx.x * kBlock + i];
        if (kFence == Fence::before_store) __threadfence();
        partials[blockIdx.x] = sum;
        if (kFence == Fence::before_ticket) __threadfence();
        if (kFence == Fence::block_scope) __threadfence_block();
        is_last = atomicAdd(counter, 1u) == gridDim.x - 1;
        if (kFence == Fence::after_ticket) __threadfence();
    }
    __syncthreads();
    if (!is_last) return;
    if (threadIdx.x == 0) {
        __threadfence();
        float sum = 0.0f;
        for (unsigned b = 0; b < gridDim.x; ++b) sum += partials[b];
        *out = sum;
        *counter = 0;
    }
}

/// Every thread stores one value; after a barrier thread 0 fences and takes the ticket (the fence of one
/// thread after the barrier publishes the block's stores); the last block reads them all.
__global__ void all_threads_store_then_one_fence(const float* in, float* values, unsigned* counter, float* out)
{
    __shared__ bool is_last;
    const int i = blockIdx.x * kBlock + threadIdx.x;
    values[i] = 2.0f * in[i];
    __syncthreads();
    if (threadIdx.x == 0) {
        __threadfence();
        is_last = atomicAdd(counter, 1u) == gridDim.x - 1;
    }
    __syncthreads();
    if (!is_last) return;
    __threadfence();
    float sum = 0.0f;
    for (int b = 0; b < static_cast<int>(gridDim.x); ++b) sum += values[b * kBlock + threadIdx.x];
    out[threadIdx.x] = sum;
    if (threadIdx.x == 0) *counter = 0;
}

/// Each block writes its own outputs and counts them with an atomic, no fence: no other block reads them.
__global__ void own_outputs_and_a_count(const float* in, float* out, unsigned* count)
{
    const int i = blockIdx.x * kBlock + threadIdx.x;
    out[i] = in[i] + 1.0f;
    if (in[i] > 0.0f) atomicAdd(count, 1u);
    const float mine = out[i];   // a block may read its own stores
    out[i] = mine * 2.0f;
}

__device__ float g_partials[kBlocks];
__device__ unsigned g_ticket;

/// The last-block sum over `__device__` variables instead of buffers, with no fence.
__global__ void last_block_sum_in_device_variables(const float* in, float* out)
{
    __shared__ bool is_last;
    if (threadIdx.x == 0) {
        float sum = 0.0f;
        for (int i = 0; i < kBlock; ++i) sum += in[blockIdx.x * kBlock + i];
        g_partials[blockIdx.x] = sum;
        is_last = atomicAdd(&g_ticket, 1u) == gridDim.x - 1;
    }
    __syncthreads();
    if (is_last && threadIdx.x == 0) {
        float sum = 0.0f;
        for (unsigned b = 0; b < gridDim.x; ++b) sum += g_partials[b];
        *out = sum;
        g_ticket = 0;
    }
}

__global__ void reset_ticket() { g_ticket = 0; }

struct Buffers {
    DeviceArray<float> in{std::vector<float>(kBlocks * kBlock, 1.0f)};
    DeviceArray<float> partials{kBlocks * kBlock};
    DeviceArray<unsigned> counter{std::vector<unsigned>(1, 0u)};
    DeviceArray<float> out{kBlock};
};

/// Runs the last-block sum twice (the checker learns at a kernel's first atomic that it uses them) and
/// returns the first failure's report, or "" with the sum checked.
template <Fence kFence>
std::string run_last_block_sum()
{
    Buffers b;
    for (int round = 0; round < 2; ++round) {
        last_block_sum<kFence><<<kBlocks, kBlock>>>(b.in.data, b.partials.data, b.counter.data, b.out.data);
        const auto outcome = emu_test::finish();
        if (!outcome.ok()) return outcome.report;
        CHECK(b.out.download()[0] == static_cast<float>(kBlocks * kBlock));
    }
    return "";
}

}   // namespace

TEST_CASE("a partial stored and announced by a ticket with no __threadfence() between is reported", "[emu][fences]")
{
    for (int schedule = 0; schedule < 3; ++schedule) {
        emu_test::ScheduleScope scope(schedule);
        const std::string none = run_last_block_sum<Fence::none>();
        INFO(none);
        CHECK(contains(none, "no __threadfence() between the store and the atomic"));
        CHECK(contains(none, "test_fences.cu:"));
        CHECK(contains(none, "announced with an atomic at"));
        CHECK(!run_last_block_sum<Fence::after_ticket>().empty());
        CHECK(!run_last_block_sum<Fence::block_scope>().empty());
        CHECK(!run_last_block_sum<Fence::before_store>().empty());

        Buffers b;
        std::string report;
        for (int round = 0; round < 2 && report.empty(); ++round) {
            reset_ticket<<<1, 1>>>();   // a stopped launch leaves the ticket counted part of the way
            last_block_sum_in_device_variables<<<kBlocks, kBlock>>>(b.in.data, b.out.data);
            report = emu_test::finish().report;
        }
        INFO(report);
        CHECK(contains(report, "no __threadfence() between the store and the atomic"));
    }
}

TEST_CASE("a fence between the store and the atomic, or atomics that announce nothing read, are not reported",
          "[emu][fences]")
{
    for (int schedule = 0; schedule < 3; ++schedule) {
        emu_test::ScheduleScope scope(schedule);
        CHECK(run_last_block_sum<Fence::before_ticket>().empty());

        Buffers b;
        for (int round = 0; round < 2; ++round) {
            all_threads_store_then_one_fence<<<kBlocks, kBlock>>>(b.in.data, b.partials.data, b.counter.data,
                                                                  b.out.data);
            const auto outcome = emu_test::finish();
            INFO(outcome.report);
            REQUIRE(outcome.ok());
            CHECK(b.out.download()[5] == 2.0f * kBlocks);
        }
        DeviceArray<unsigned> count(std::vector<unsigned>(1, 0u));
        for (int round = 0; round < 2; ++round) {
            own_outputs_and_a_count<<<kBlocks, kBlock>>>(b.in.data, b.partials.data, count.data);
            const auto outcome = emu_test::finish();
            INFO(outcome.report);
            REQUIRE(outcome.ok());
        }
        CHECK(count.download()[0] == 2u * kBlocks * kBlock);
        CHECK(b.partials.download()[kBlock + 3] == 4.0f);
    }
}
