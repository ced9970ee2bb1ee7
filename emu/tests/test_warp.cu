// Warp operations on the CPU backend: barriers among the lanes of the mask, with CUDA's results,
// widths and error cases.
#include "emu_test.hpp"

#include <cstring>

using emu_test::contains;
using emu_test::DeviceArray;

namespace {

enum Kind { kShfl, kUp, kDown, kXor };

__global__ void shuffle(const int* in, int* out, int kind, int param, int width)
{
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    const int v = in[t];
    int r = 0;
    switch (kind) {
        case kShfl: r = __shfl_sync(0xffffffffu, v, param, width); break;
        case kUp: r = __shfl_up_sync(0xffffffffu, v, param, width); break;
        case kDown: r = __shfl_down_sync(0xffffffffu, v, param, width); break;
        case kXor: r = __shfl_xor_sync(0xffffffffu, v, param, width); break;
    }
    out[t] = r;
}

/// What CUDA's documentation says each lane receives.
int expected_shuffle(const std::vector<int>& in, int t, int kind, int param, int width)
{
    const int lane = t % 32, base = t - lane;
    const int segment = lane / width * width;
    int source = lane;
    switch (kind) {
        case kShfl: source = segment + param % width; break;
        case kUp: source = lane - segment >= param ? lane - param : lane; break;
        case kDown: source = lane - segment + param < width ? lane + param : lane; break;
        case kXor: source = ((lane ^ param) / width * width) > segment ? lane : (lane ^ param); break;
    }
    return in[base + source];
}

__global__ void votes(const int* pred, unsigned* out)
{
    const int t = threadIdx.x;
    const int p = pred[t];
    out[0 * 64 + t] = __ballot_sync(0xffffffffu, p);
    out[1 * 64 + t] = static_cast<unsigned>(__any_sync(0xffffffffu, p));
    out[2 * 64 + t] = static_cast<unsigned>(__all_sync(0xffffffffu, p));
    out[3 * 64 + t] = __reduce_add_sync(0xffffffffu, static_cast<unsigned>(t));
    out[4 * 64 + t] = static_cast<unsigned>(__reduce_max_sync(0xffffffffu, p ? t : -t));
    out[5 * 64 + t] = static_cast<unsigned>(__reduce_min_sync(0xffffffffu, p ? t : -t));
    out[6 * 64 + t] = __reduce_or_sync(0xffffffffu, 1u << (t % 32));
    out[7 * 64 + t] = __match_any_sync(0xffffffffu, t % 4);
}

/// The lower half-warp shuffles among itself; lane 15 reads lane 16, which is outside the mask.
__global__ void half_warp(float* out)
{
    const int lane = threadIdx.x;
    if (lane < 16) {
        out[lane] = __shfl_down_sync(0x0000ffffu, static_cast<float>(lane), 1);
    }
}

constexpr int kOutsideLine = __LINE__ + 1;   // the __shfl_sync of the next line
__global__ void not_in_own_mask(int* out) { out[threadIdx.x] = __shfl_sync(0x0000000fu, 1, 0); }

__global__ void exited_lane(int* out)
{
    if (threadIdx.x == 5) return;
    out[threadIdx.x] = __shfl_xor_sync(0xffffffffu, static_cast<int>(threadIdx.x), 1);
}

__global__ void partial_warp(int* out)
{
    out[threadIdx.x] = __shfl_xor_sync(0xffffffffu, static_cast<int>(threadIdx.x), 1);
}

__global__ void sync_then_read(int* shared_out)
{
    __shared__ int s[32];
    const int lane = threadIdx.x;
    s[lane] = lane * 3;
    __syncwarp();
    shared_out[lane] = s[31 - lane];
}

__global__ void shuffle_doubles(double* out)
{
    const double v = 1.0 + threadIdx.x / 1024.0;
    out[threadIdx.x] = __shfl_xor_sync(0xffffffffu, v, 16);
}

}   // namespace

TEST_CASE("shuffles give each lane CUDA's source lane, for every width", "[emu][warp]")
{
    std::vector<int> in(64);
    for (int i = 0; i < 64; ++i) in[i] = 1000 + i * 7;
    DeviceArray<int> din(in), dout(64);
    for (int kind : {kShfl, kUp, kDown, kXor}) {
        for (int width : {32, 16, 8, 2}) {
            for (int param : {0, 1, 3, 5, 17}) {
                shuffle<<<1, 64>>>(din.data, dout.data, kind, param, width);
                REQUIRE(emu_test::finish().ok());
                const auto out = dout.download();
                for (int t = 0; t < 64; ++t) {
                    INFO("kind " << kind << " width " << width << " param " << param << " thread " << t);
                    CHECK(out[t] == expected_shuffle(in, t, kind, param, width));
                }
            }
        }
    }
}

TEST_CASE("votes and warp reductions combine the lanes of the mask", "[emu][warp]")
{
    std::vector<int> pred(64);
    for (int t = 0; t < 64; ++t) pred[t] = (t % 5 == 0) ? 1 : 0;
    pred[32 + 0] = 0;   // the second warp: no lane set at all
    for (int t = 32; t < 64; ++t) pred[t] = 0;
    DeviceArray<int> dp(pred);
    DeviceArray<unsigned> out(8 * 64);
    votes<<<1, 64>>>(dp.data, out.data);
    REQUIRE(emu_test::finish().ok());
    const auto h = out.download();
    unsigned ballot0 = 0;
    for (int l = 0; l < 32; ++l) ballot0 |= (pred[l] ? 1u : 0u) << l;
    for (int t = 0; t < 64; ++t) {
        const bool first = t < 32;
        CHECK(h[0 * 64 + t] == (first ? ballot0 : 0u));
        CHECK(h[1 * 64 + t] == (first ? 1u : 0u));
        CHECK(h[2 * 64 + t] == 0u);
        CHECK(h[3 * 64 + t] == (first ? 496u : 496u + 32u * 32u));
        CHECK(static_cast<int>(h[4 * 64 + t]) == (first ? 30 : -32));
        CHECK(static_cast<int>(h[5 * 64 + t]) == (first ? -31 : -63));
        CHECK(h[6 * 64 + t] == 0xffffffffu);
        CHECK(h[7 * 64 + t] == (0x11111111u << (t % 4)));
    }
}

TEST_CASE("a lane reading from a lane outside the mask gets undefined bytes, not a neighbour's value", "[emu][warp]")
{
    DeviceArray<float> out(16);
    half_warp<<<1, 32>>>(out.data);
    REQUIRE(emu_test::finish().ok());
    const auto h = out.download();
    for (int l = 0; l < 15; ++l) CHECK(h[l] == static_cast<float>(l + 1));
    unsigned bits = 0;
    std::memcpy(&bits, &h[15], 4);
    CHECK(bits == 0x7f7f7f7fu);
}

TEST_CASE("calling a warp operation with a mask that leaves out the caller is reported", "[emu][warp]")
{
    DeviceArray<int> out(32);
    not_in_own_mask<<<1, 32>>>(out.data);
    const auto outcome = emu_test::finish();
    CHECK(outcome.error == cudaErrorLaunchFailure);
    CHECK(contains(outcome.report, "does not name its own lane"));
    CHECK(contains(outcome.report, "test_warp.cu:" + std::to_string(kOutsideLine)));
}

TEST_CASE("a lane of the mask that has returned is reported", "[emu][warp]")
{
    DeviceArray<int> out(32);
    exited_lane<<<1, 32>>>(out.data);
    const auto outcome = emu_test::finish();
    CHECK(outcome.error != cudaSuccess);
    CHECK(contains(outcome.report, "lane 5"));
    CHECK(contains(outcome.report, "returned from the kernel"));
}

TEST_CASE("a full mask in a block that is not a multiple of 32 threads is reported", "[emu][warp]")
{
    DeviceArray<int> out(48);
    partial_warp<<<1, 48>>>(out.data);
    const auto outcome = emu_test::finish();
    CHECK(outcome.error == cudaErrorLaunchFailure);
    CHECK(contains(outcome.report, "only 16 lanes"));
}

TEST_CASE("__syncwarp orders shared memory among the lanes", "[emu][warp]")
{
    for (int schedule = 0; schedule < 3; ++schedule) {
        emu_test::ScheduleScope scope(schedule);
        DeviceArray<int> out(32);
        sync_then_read<<<1, 32>>>(out.data);
        REQUIRE(emu_test::finish().ok());
        const auto h = out.download();
        for (int l = 0; l < 32; ++l) CHECK(h[l] == (31 - l) * 3);
    }
}

TEST_CASE("8-byte values shuffle whole", "[emu][warp]")
{
    DeviceArray<double> out(32);
    shuffle_doubles<<<1, 32>>>(out.data);
    REQUIRE(emu_test::finish().ok());
    const auto h = out.download();
    for (int l = 0; l < 32; ++l) CHECK(h[l] == 1.0 + (l ^ 16) / 1024.0);
}

TEST_CASE("warpSize is 32", "[emu][warp]")
{
    static_assert(warpSize == 32, "warpSize");
    cudaDeviceProp prop;
    REQUIRE(cudaGetDeviceProperties(&prop, 0) == cudaSuccess);
    CHECK(prop.warpSize == 32);
}
