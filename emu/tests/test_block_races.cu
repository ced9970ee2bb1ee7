// The race checker between blocks (emu/src/block_races.cpp): a plain load of a value that another block
// of the same launch stored, by a block that has not synchronised with the others. Lost updates
// (`out[0] += block_sum`), a block reading its neighbour's outputs and an accumulator in a `__device__`
// variable are reported with both lines; loads after an atomic ticket or a polled volatile flag, a block's
// own stores, two blocks storing the same flag, and values stored by an earlier launch are not.
#include "emu_test.hpp"

#include <cuda_runtime.h>

#include <string>
#include <vector>

using emu_test::contains;
using emu_test::DeviceArray;

namespace {

constexpr int kBlock = 64;
constexpr int kBlocks = 8;

/// The block's sum, in thread 0.
__device__ float block_sum(const float* in)
{
    __shared__ float sums[kBlock];
    sums[threadIdx.x] = in[blockIdx.x * kBlock + threadIdx.x];
    __syncthreads();
    float sum = 0.0f;
    if (threadIdx.x == 0) {
        for (int i = 0; i < kBlock; ++i) sum += sums[i];
    }
    return sum;
}

/// The lost update: every block adds its sum into out[0] with a plain load and store.
__global__ void plain_add_of_block_sums(const float* in, float* out)
{
    const float sum = block_sum(in);
    if (threadIdx.x == 0) out[0] += sum;
}

/// Each block adds its neighbour's first output to its own: an in-place chain across blocks.
__global__ void reads_the_previous_block(float* values)
{
    const int i = blockIdx.x * kBlock + threadIdx.x;
    values[i] += 1.0f;
    __syncthreads();
    if (threadIdx.x == 0 && blockIdx.x > 0) values[i] += values[i - kBlock];
}

__device__ float g_total;

/// The lost update again, into a `__device__` variable.
__global__ void plain_add_into_device_variable(const float* in)
{
    const float sum = block_sum(in);
    if (threadIdx.x == 0) g_total += sum;
}

/// The last-block sum, fenced: the last block reads the partials after its own atomic ticket.
__global__ void last_block_sum(const float* in, float* partials, unsigned* counter, float* out)
{
    __shared__ bool is_last;
    const float sum = block_sum(in);
    if (threadIdx.x == 0) {
        partials[blockIdx.x] = sum;
        __threadfence();
        is_last = atomicAdd(counter, 1u) == gridDim.x - 1;
    }
    __syncthreads();
    if (!is_last) return;
    __threadfence();
    float total = 0.0f;
    for (unsigned b = 0; b < gridDim.x; ++b) total += partials[b];
    if (threadIdx.x == 0) {
        *out = total;
        *counter = 0;
    }
}

/// A chain of blocks passing a running sum through flags polled with volatile reads (block b waits for
/// block b - 1; the emulator starts blocks in order, so the one waited for is always running or done).
__global__ void chained_by_volatile_flags(const float* in, float* running, int* flags)
{
    const float sum = block_sum(in);
    if (threadIdx.x != 0) return;
    float before = 0.0f;
    if (blockIdx.x > 0) {
        while (static_cast<volatile int*>(flags)[blockIdx.x - 1] == 0) {}
        __threadfence();
        before = running[blockIdx.x - 1];
    }
    running[blockIdx.x] = before + sum;
    __threadfence();
    static_cast<volatile int*>(flags)[blockIdx.x] = 1;
}

/// Every block stores the same flag and reads back only its own outputs.
__global__ void same_flag_and_own_outputs(const float* in, float* out, int* flag)
{
    const int i = blockIdx.x * kBlock + threadIdx.x;
    if (threadIdx.x == 0) *flag = 1;
    out[i] = in[i] * 2.0f;
    out[i] = out[i] + 1.0f;
}

/// Adds out[0] (stored by the previous launch) to every output: an earlier launch is ordered.
__global__ void reads_the_last_launch(float* out)
{
    const int i = blockIdx.x * kBlock + threadIdx.x;
    if (i > 0) out[i] += out[0];
}

}   // namespace

TEST_CASE("a block loading what another block of the launch stored, unsynchronised, is reported", "[emu][block_races]")
{
    for (int schedule = 0; schedule < 3; ++schedule) {
        emu_test::ScheduleScope scope(schedule);
        DeviceArray<float> in(std::vector<float>(kBlocks * kBlock, 1.0f));
        DeviceArray<float> out(std::vector<float>(kBlocks * kBlock, 0.0f));

        plain_add_of_block_sums<<<kBlocks, kBlock>>>(in.data, out.data);
        const std::string lost = emu_test::finish().report;
        INFO(lost);
        CHECK(contains(lost, "of the same launch stored at"));
        CHECK(contains(lost, "test_block_races.cu:"));
        CHECK(contains(lost, "atomicAdd"));

        reads_the_previous_block<<<kBlocks, kBlock>>>(out.data);
        const std::string chain = emu_test::finish().report;
        INFO(chain);
        CHECK(contains(chain, "of the same launch stored at"));

        plain_add_into_device_variable<<<kBlocks, kBlock>>>(in.data);
        const std::string variable = emu_test::finish().report;
        INFO(variable);
        CHECK(contains(variable, "of the same launch stored at"));
    }
}

TEST_CASE("loads after an atomic or a volatile flag, own stores and earlier launches are not reported",
          "[emu][block_races]")
{
    for (int schedule = 0; schedule < 3; ++schedule) {
        emu_test::ScheduleScope scope(schedule);
        DeviceArray<float> in(std::vector<float>(kBlocks * kBlock, 1.0f));
        DeviceArray<float> partials(kBlocks * kBlock);
        DeviceArray<unsigned> counter(std::vector<unsigned>(1, 0u));
        DeviceArray<float> out(std::vector<float>(kBlocks * kBlock, 0.0f));
        for (int round = 0; round < 2; ++round) {
            last_block_sum<<<kBlocks, kBlock>>>(in.data, partials.data, counter.data, out.data);
            const auto outcome = emu_test::finish();
            INFO(outcome.report);
            REQUIRE(outcome.ok());
            CHECK(out.download()[0] == static_cast<float>(kBlocks * kBlock));
        }

        DeviceArray<int> flags(std::vector<int>(kBlocks, 0));
        chained_by_volatile_flags<<<kBlocks, kBlock>>>(in.data, partials.data, flags.data);
        auto outcome = emu_test::finish();
        INFO(outcome.report);
        REQUIRE(outcome.ok());
        CHECK(partials.download()[kBlocks - 1] == static_cast<float>(kBlocks * kBlock));

        DeviceArray<int> flag(std::vector<int>(1, 0));
        same_flag_and_own_outputs<<<kBlocks, kBlock>>>(in.data, out.data, flag.data);
        outcome = emu_test::finish();
        INFO(outcome.report);
        REQUIRE(outcome.ok());
        reads_the_last_launch<<<kBlocks, kBlock>>>(out.data);
        outcome = emu_test::finish();
        INFO(outcome.report);
        REQUIRE(outcome.ok());
        CHECK(out.download()[kBlock] == 6.0f);
    }
}
