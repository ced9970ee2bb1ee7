// The schedules: a missing barrier must give a wrong result in at least one of them (the point of
// emulating at all), and correct code must give the right result in all of them.
#include "emu_test.hpp"

#include "common/primitives.cuh"

#include <cmath>

using emu_test::DeviceArray;

namespace {

constexpr int kBlock = 256;

enum Variant {
    kCorrect,              // barriers where they belong
    kNoBarrierAfterLoad,   // reads neighbours' slots before they are written
    kNoBarrierInLoop,      // tree reduction without the barrier between levels
    kVolatileWarp,         // the old warp-synchronous tail: no __syncwarp between the steps
    kPrimitives,           // wb::block_reduce_sum from chapters/common/primitives.cuh
};

__global__ void block_sum(const float* in, float* out, int variant)
{
    __shared__ float s[kBlock];
    const int t = threadIdx.x;
    const float value = in[blockIdx.x * kBlock + t];
    if (variant == kPrimitives) {
        __shared__ float scratch[kBlock / 32];
        const float total = wb::block_reduce_sum<kBlock>(value, scratch);
        if (t == 0) out[blockIdx.x] = total;
        return;
    }
    s[t] = value;
    if (variant != kNoBarrierAfterLoad) __syncthreads();
    const int stop = variant == kVolatileWarp ? 32 : 0;
    for (int stride = kBlock / 2; stride > stop; stride /= 2) {
        if (t < stride) s[t] += s[t + stride];
        if (variant != kNoBarrierInLoop) __syncthreads();
    }
    if (variant == kVolatileWarp && t < 32) {
        volatile float* v = s;
        v[t] += v[t + 32];
        v[t] += v[t + 16];
        v[t] += v[t + 8];
        v[t] += v[t + 4];
        v[t] += v[t + 2];
        v[t] += v[t + 1];
    }
    if (t == 0) out[blockIdx.x] = s[0];
}

/// Runs the variant in one schedule; true when every block's sum is right.
bool sums_right(int variant, int schedule)
{
    emu_test::ScheduleScope scope(schedule);
    // The racy variants would be stopped by the shared-memory checker (see test_checks): these tests
    // are about the schedules alone. The right ones run checked, to show it finds nothing there.
    emu_test::CheckScope checks(variant == kCorrect || variant == kPrimitives ? 2 : 0);
    constexpr int kBlocks = 6;
    std::vector<float> in(kBlocks * kBlock);
    for (std::size_t i = 0; i < in.size(); ++i) in[i] = static_cast<float>(i % 7) + 1.0f;
    DeviceArray<float> din(in), dout(kBlocks);
    block_sum<<<kBlocks, kBlock>>>(din.data, dout.data, variant);
    REQUIRE(emu_test::finish().ok());
    const auto out = dout.download();
    for (int b = 0; b < kBlocks; ++b) {
        double expected = 0.0;
        for (int t = 0; t < kBlock; ++t) expected += in[b * kBlock + t];
        if (!(std::fabs(out[b] - expected) < 1e-3)) return false;
    }
    return true;
}

}   // namespace

TEST_CASE("correct reductions are right in every schedule", "[emu][schedule]")
{
    for (int schedule = 0; schedule < 3; ++schedule) {
        CHECK(sums_right(kCorrect, schedule));
        CHECK(sums_right(kPrimitives, schedule));
    }
}

TEST_CASE("a missing __syncthreads is a wrong result in at least one schedule", "[emu][schedule]")
{
    for (int variant : {kNoBarrierAfterLoad, kNoBarrierInLoop}) {
        int wrong = 0;
        for (int schedule = 0; schedule < 3; ++schedule) wrong += sums_right(variant, schedule) ? 0 : 1;
        INFO("variant " << variant);
        CHECK(wrong >= 1);
    }
}

TEST_CASE("the volatile warp-synchronous reduction fails, as it may on Volta and later GPUs", "[emu][schedule]")
{
    int wrong = 0;
    for (int schedule = 0; schedule < 3; ++schedule) wrong += sums_right(kVolatileWarp, schedule) ? 0 : 1;
    CHECK(wrong >= 1);
}

TEST_CASE("without a forced schedule, one launch of several blocks sees every schedule", "[emu][schedule]")
{
    // The default rotation gives consecutive blocks different schedules, so one launch of three or
    // more blocks is enough to catch the missing barrier of kNoBarrierInLoop.
    constexpr int kBlocks = 6;
    emu_test::CheckScope unchecked(0);
    std::vector<float> in(kBlocks * kBlock, 1.0f);
    DeviceArray<float> din(in), dout(kBlocks);
    block_sum<<<kBlocks, kBlock>>>(din.data, dout.data, kNoBarrierInLoop);
    REQUIRE(emu_test::finish().ok());
    int wrong = 0;
    for (float v : dout.download()) wrong += v == static_cast<float>(kBlock) ? 0 : 1;
    CHECK(wrong >= 1);
}
