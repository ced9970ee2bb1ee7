// Right code in styles the CPU backend must accept as nvcc does: cooperative groups, host code
// that names its own gridDim/blockDim, the runtime's less common enums and functions, asynchronous
// copies on a captured stream, constexpr host functions in device code.
#include "emu_test.hpp"

#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

#include <limits>
#include <numeric>

namespace cg = cooperative_groups;
using emu_test::contains;
using emu_test::DeviceArray;

namespace {

// ---- cooperative groups ------------------------------------------------------------------------------
/// One sum per block: a warp sum with cg::reduce, then the first warp adds the warps' sums.
__global__ void block_sum_cg(const float* in, float* out, int n)
{
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    __shared__ float warp_sums[32];
    const int i = static_cast<int>(block.group_index().x * block.size() + block.thread_rank());
    float v = i < n ? in[i] : 0.0f;
    v = cg::reduce(warp, v, cg::plus<float>());
    if (warp.thread_rank() == 0) warp_sums[warp.meta_group_rank()] = v;
    block.sync();
    if (warp.meta_group_rank() == 0) {
        v = warp.thread_rank() < warp.meta_group_size() ? warp_sums[warp.thread_rank()] : 0.0f;
        v = cg::reduce(warp, v, cg::plus<float>());
        if (block.thread_rank() == 0) out[block.group_index().x] = v;
    }
}

/// Per lane: rank, size, meta rank, a shuffle, a shfl_down, a ballot and the min and max, in tiles of 8.
__global__ void tile8_facts(const int* in, int* out)
{
    auto block = cg::this_thread_block();
    auto tile = cg::tiled_partition<8>(block);
    const int t = static_cast<int>(block.thread_rank());
    const int v = in[t];
    int* o = out + t * 8;
    o[0] = static_cast<int>(tile.thread_rank());
    o[1] = static_cast<int>(tile.size());
    o[2] = static_cast<int>(tile.meta_group_rank());
    o[3] = tile.shfl(v, 3);
    o[4] = tile.shfl_down(v, 1);
    o[5] = static_cast<int>(tile.ballot(v % 2 == 0));
    o[6] = cg::reduce(tile, v, cg::less<int>());
    o[7] = cg::reduce(tile, v, cg::greater<int>());
}

/// Tiles of 16 cut from tiles of 32, and a tile seen as a thread_group.
__global__ void tiles_of_tiles(int* out)
{
    const auto warp = cg::tiled_partition<32>(cg::this_thread_block());
    const auto half = cg::tiled_partition<16>(warp);
    const cg::thread_group as_group = half;
    const int t = static_cast<int>(threadIdx.x);
    as_group.sync();
    out[t * 4 + 0] = static_cast<int>(half.meta_group_rank());
    out[t * 4 + 1] = static_cast<int>(half.meta_group_size());
    out[t * 4 + 2] = cg::reduce(half, t, cg::plus<int>());
    out[t * 4 + 3] = static_cast<int>(as_group.size() * 100 + as_group.thread_rank());
}

/// Tiles whose size is known at run time only: rank, size and sync.
__global__ void dynamic_tiles(int* out, unsigned tile_size)
{
    cg::thread_block block = cg::this_thread_block();
    cg::thread_group tile = cg::tiled_partition(block, tile_size);
    __shared__ int slots[64];
    slots[block.thread_rank()] = static_cast<int>(tile.thread_rank());
    cg::sync(tile);
    // the neighbour in the tile wrote its rank before the tile's sync
    const unsigned next = (tile.thread_rank() + 1) % tile.size();
    out[block.thread_rank()] =
        slots[block.thread_rank() - tile.thread_rank() + next] + 1000 * static_cast<int>(tile.size());
}

/// A lane of the tile returns before the tile's reduction: reported as for __shfl_xor_sync.
__global__ void tile_with_exited_lane(float* out)
{
    auto warp = cg::tiled_partition<32>(cg::this_thread_block());
    if (warp.thread_rank() == 7) return;
    out[threadIdx.x] = cg::reduce(warp, 1.0f, cg::plus<float>());
}

TEST_CASE("cooperative groups: a block sum with cg::reduce over tiles of 32", "[emu][compat]")
{
    const int n = 1000, threads = 256, blocks = (n + threads - 1) / threads;
    std::vector<float> host(n);
    for (int i = 0; i < n; ++i) host[i] = static_cast<float>(i % 7);
    DeviceArray<float> in(host), out(blocks);
    block_sum_cg<<<blocks, threads>>>(in.data, out.data, n);
    REQUIRE(emu_test::finish().ok());
    const auto sums = out.download();
    for (int b = 0; b < blocks; ++b) {
        float expected = 0.0f;
        for (int i = b * threads; i < std::min(n, (b + 1) * threads); ++i) expected += host[i];
        CHECK(sums[b] == expected);
    }
}

TEST_CASE("cooperative groups: tiles of 8 shuffle, vote and reduce within the tile", "[emu][compat]")
{
    const int threads = 64;
    std::vector<int> host(threads);
    for (int i = 0; i < threads; ++i) host[i] = (i * 37) % 101;
    DeviceArray<int> in(host), out(threads * 8);
    tile8_facts<<<1, threads>>>(in.data, out.data);
    REQUIRE(emu_test::finish().ok());
    const auto o = out.download();
    for (int t = 0; t < threads; ++t) {
        const int base = t / 8 * 8, rank = t % 8;
        unsigned ballot = 0;
        int lo = host[base], hi = host[base];
        for (int r = 0; r < 8; ++r) {
            ballot |= static_cast<unsigned>(host[base + r] % 2 == 0) << r;
            lo = std::min(lo, host[base + r]);
            hi = std::max(hi, host[base + r]);
        }
        INFO("thread " << t);
        CHECK(o[t * 8 + 0] == rank);
        CHECK(o[t * 8 + 1] == 8);
        CHECK(o[t * 8 + 2] == t / 8);
        CHECK(o[t * 8 + 3] == host[base + 3]);
        CHECK(o[t * 8 + 4] == (rank < 7 ? host[t + 1] : host[t]));
        CHECK(o[t * 8 + 5] == static_cast<int>(ballot));
        CHECK(o[t * 8 + 6] == lo);
        CHECK(o[t * 8 + 7] == hi);
    }
}

TEST_CASE("cooperative groups: tiles of tiles, and tiles as thread_group", "[emu][compat]")
{
    DeviceArray<int> out(64 * 4);
    tiles_of_tiles<<<1, 64>>>(out.data);
    REQUIRE(emu_test::finish().ok());
    const auto o = out.download();
    for (int t = 0; t < 64; ++t) {
        const int first = t / 16 * 16;
        INFO("thread " << t);
        CHECK(o[t * 4 + 0] == (t % 32) / 16);
        CHECK(o[t * 4 + 1] == 2);
        CHECK(o[t * 4 + 2] == 16 * first + 120);   // first + (first + 1) + ... + (first + 15)
        CHECK(o[t * 4 + 3] == 1600 + t % 16);
    }
}

TEST_CASE("cooperative groups: tiled_partition(block, n) with n known at run time", "[emu][compat]")
{
    for (unsigned size : {1u, 4u, 16u, 32u}) {
        DeviceArray<int> out(64);
        dynamic_tiles<<<1, 64>>>(out.data, size);
        REQUIRE(emu_test::finish().ok());
        const auto o = out.download();
        for (int t = 0; t < 64; ++t) CHECK(o[t] == static_cast<int>((t % size + 1) % size + 1000 * size));
    }
    DeviceArray<int> out(64);
    dynamic_tiles<<<1, 64>>>(out.data, 3u);
    const auto outcome = emu_test::finish();
    CHECK(outcome.error != cudaSuccess);
    CHECK(contains(outcome.report, "power of two"));
}

TEST_CASE("cooperative groups: a tile lane that has returned is reported at the tile's operation", "[emu][compat]")
{
    DeviceArray<float> out(32);
    tile_with_exited_lane<<<1, 32>>>(out.data);
    const auto outcome = emu_test::finish();
    CHECK(outcome.error != cudaSuccess);
    CHECK(contains(outcome.report, "lane 7"));
    CHECK(contains(outcome.report, "test_compat.cu"));
}

// ---- host code may name its own gridDim, blockDim, threadIdx, blockIdx --------------------------------
__global__ void write_index(int* out, int n)
{
    const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
    if (i < n) out[i] = i + static_cast<int>(gridDim.x) * 0;
}

void launch_with_own_names(int* out, int n)
{
    dim3 blockDim(128);
    dim3 gridDim((n + blockDim.x - 1) / blockDim.x);
    const int threadIdx = 0, blockIdx = 0;   // as silly as it is legal with nvcc
    write_index<<<gridDim, blockDim>>>(out, n + threadIdx + blockIdx);
}

TEST_CASE("host code may declare variables named gridDim and blockDim", "[emu][compat]")
{
    DeviceArray<int> out(300);
    launch_with_own_names(out.data, 300);
    REQUIRE(emu_test::finish().ok());
    const auto o = out.download();
    for (int i = 0; i < 300; ++i) CHECK(o[i] == i);
}

// ---- constexpr host functions in device code (nvcc: --expt-relaxed-constexpr) --------------------------
__global__ void max_with_limits(const float* in, float* out, int n)
{
    float m = -std::numeric_limits<float>::infinity();
    for (int i = static_cast<int>(threadIdx.x); i < n; i += static_cast<int>(blockDim.x)) m = fmaxf(m, in[i]);
    m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, 16));
    m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, 8));
    m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, 4));
    m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, 2));
    m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, 1));
    if (threadIdx.x == 0) *out = m;
}

TEST_CASE("std::numeric_limits in device code", "[emu][compat]")
{
    DeviceArray<float> in(std::vector<float>{-5.0f, -3.0f, -7.0f}), out(1);
    max_with_limits<<<1, 32>>>(in.data, out.data, 3);
    REQUIRE(emu_test::finish().ok());
    CHECK(out.download()[0] == -3.0f);
}

// ---- __device__ lambdas passed from host code (nvcc: --extended-lambda), vector type layout ----------------
static_assert(sizeof(float4) == 16 && alignof(float4) == 16, "float4 as in CUDA");
static_assert(sizeof(float2) == 8 && alignof(float2) == 8, "float2 as in CUDA");
static_assert(sizeof(int4) == 16 && alignof(int4) == 16, "int4 as in CUDA");

template <class F>
__global__ void apply_each(float* p, int n, F f)
{
    const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
    if (i < n) p[i] = f(p[i]);
}

TEST_CASE("a __device__ lambda written in host code runs in a kernel", "[emu][compat]")
{
    DeviceArray<float> p(std::vector<float>{1.0f, 2.0f, 3.0f});
    const float scale = 2.5f;
    apply_each<<<1, 32>>>(p.data, 3, [scale] __device__(float x) { return scale * x; });
    REQUIRE(emu_test::finish().ok());
    CHECK(p.download() == std::vector<float>{2.5f, 5.0f, 7.5f});
}

// ---- the runtime: enums and functions learners use --------------------------------------------------
__global__ void noop_kernel(float*) {}

TEST_CASE("shared-memory carveout, cache config and device attributes", "[emu][compat]")
{
    CHECK(cudaFuncSetAttribute(noop_kernel, cudaFuncAttributePreferredSharedMemoryCarveout,
                               cudaSharedmemCarveoutMaxShared) == cudaSuccess);
    CHECK(cudaFuncSetAttribute(noop_kernel, cudaFuncAttributePreferredSharedMemoryCarveout,
                               cudaSharedmemCarveoutDefault) == cudaSuccess);
    CHECK(cudaFuncSetAttribute(noop_kernel, cudaFuncAttributePreferredSharedMemoryCarveout,
                               cudaSharedmemCarveoutMaxL1) == cudaSuccess);
    CHECK(cudaFuncSetAttribute(noop_kernel, cudaFuncAttributePreferredSharedMemoryCarveout, 101) ==
          cudaErrorInvalidValue);
    (void)cudaGetLastError();
    CHECK(cudaFuncSetCacheConfig(noop_kernel, cudaFuncCachePreferShared) == cudaSuccess);
    int value = 0;
    CHECK(cudaDeviceGetAttribute(&value, cudaDevAttrMaxSharedMemoryPerBlockOptin, 0) == cudaSuccess);
    CHECK(value > 48 * 1024);
    CHECK(cudaDeviceGetAttribute(&value, cudaDevAttrMultiProcessorCount, 0) == cudaSuccess);
    CHECK(value > 0);
    CHECK(cudaDeviceGetAttribute(&value, cudaDevAttrMemoryPoolsSupported, 0) == cudaSuccess);
    CHECK(cudaDeviceGetAttribute(&value, cudaDevAttrComputeCapabilityMajor, 0) == cudaSuccess);
    CHECK(value == 8);
    int blocks = 0;
    CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, noop_kernel, 128, 0) == cudaSuccess);
    CHECK(blocks > 0);
}

/// Every *Async copy and fill honours its stream: under capture it is recorded on that stream,
/// not run on the legacy default stream (which would invalidate the capture).
TEST_CASE("asynchronous copies and fills stay on their stream, also under capture", "[emu][compat]")
{
    cudaStream_t stream;
    REQUIRE(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking) == cudaSuccess);
    DeviceArray<float> a(64), b(64);
    std::vector<float> host(64);
    std::iota(host.begin(), host.end(), 0.0f);
    a.upload(host);

    REQUIRE(cudaStreamBeginCapture(stream, cudaStreamCaptureModeRelaxed) == cudaSuccess);
    CHECK(cudaMemcpy2DAsync(b.data, 8 * sizeof(float), a.data, 8 * sizeof(float), 8 * sizeof(float), 8,
                            cudaMemcpyDeviceToDevice, stream) == cudaSuccess);
    CHECK(cudaMemset2DAsync(b.data, 8 * sizeof(float), 0, 4 * sizeof(float), 8, stream) == cudaSuccess);
    CHECK(cudaMemcpyAsync(b.data, a.data, 64 * sizeof(float), cudaMemcpyDeviceToDevice, stream) == cudaSuccess);
    CHECK(cudaMemsetAsync(b.data, 0, 64 * sizeof(float), stream) == cudaSuccess);
    cudaGraph_t graph = nullptr;
    REQUIRE(cudaStreamEndCapture(stream, &graph) == cudaSuccess);
    std::size_t nodes = 0;
    CHECK(cudaGraphGetNodes(graph, nullptr, &nodes) == cudaSuccess);
    CHECK(nodes >= 4);
    cudaGraphDestroy(graph);

    // and outside a capture they run, in order
    REQUIRE(cudaMemcpy2DAsync(b.data, 8 * sizeof(float), a.data, 8 * sizeof(float), 8 * sizeof(float), 8,
                              cudaMemcpyDeviceToDevice, stream) == cudaSuccess);
    REQUIRE(cudaMemset2DAsync(b.data, 8 * sizeof(float), 0, 4 * sizeof(float), 8, stream) == cudaSuccess);
    REQUIRE(cudaStreamSynchronize(stream) == cudaSuccess);
    const auto got = b.download();
    for (int i = 0; i < 64; ++i) CHECK(got[i] == (i % 8 < 4 ? 0.0f : host[i]));
    cudaStreamDestroy(stream);
    REQUIRE(emu_test::finish().ok());
}

}   // namespace
