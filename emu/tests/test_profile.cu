// The memory-behaviour counters (emu/profile.hpp) on the cases every CUDA course uses to teach them,
// with the exact numbers a GPU profiler gives for the same access pattern: coalesced and strided
// global accesses, a shared tile read down a column with and without padding, float4 and float2
// accesses, and the two classic shared-memory reductions for divergence.
#include "emu_test.hpp"

#include "emu/profile.hpp"

#include <numeric>

using emu_test::DeviceArray;

namespace {

constexpr int kSide = 64;   // a 64 x 64 matrix: 4096 floats, 128 warp-wide accesses of 32 floats

/// Stage 1 of the transpose chapter: a warp reads 32 consecutive floats of a row (4 sectors) and writes
/// them down a column of the output, each 4-byte store in a sector of its own (32 sectors).
__global__ void transpose_naive(const float* in, float* out, int side)
{
    const int c = blockIdx.x * 32 + threadIdx.x;
    const int r = blockIdx.y * 8 + threadIdx.y;
    out[c * side + r] = in[r * side + c];
}

/// Stages 3 and 4: through a 32 x (32 + Pad) shared tile, 32 x 8 threads, 4 rows each. Both global
/// accesses are coalesced; the tile is written along rows and read down columns.
template <int Pad>
__global__ void transpose_tile(const float* in, float* out, int side)
{
    __shared__ float tile[32][32 + Pad];
    const int x = blockIdx.x * 32 + threadIdx.x;
    const int y = blockIdx.y * 32 + threadIdx.y;
    for (int k = 0; k < 32; k += 8) tile[threadIdx.y + k][threadIdx.x] = in[(y + k) * side + x];
    __syncthreads();
    const int ox = blockIdx.y * 32 + threadIdx.x;
    const int oy = blockIdx.x * 32 + threadIdx.y;
    for (int k = 0; k < 32; k += 8) out[(oy + k) * side + ox] = tile[threadIdx.x][threadIdx.y + k];
}

constexpr int kReduceBlock = 256;

/// Interleaved addressing: at stride s only the threads with tid % 2s == 0 add, so every warp that
/// takes part in a level does so with a fraction of its lanes.
__global__ void reduce_interleaved(const float* in, float* out)
{
    __shared__ float s[kReduceBlock];
    const unsigned tid = threadIdx.x;
    s[tid] = in[blockIdx.x * kReduceBlock + tid];
    __syncthreads();
    for (unsigned stride = 1; stride < kReduceBlock; stride *= 2) {
        if (tid % (2 * stride) == 0) s[tid] += s[tid + stride];
        __syncthreads();
    }
    if (tid == 0) out[blockIdx.x] = s[0];
}

/// Sequential addressing: at stride s the threads tid < s add, whole warps until s drops below 32.
__global__ void reduce_sequential(const float* in, float* out)
{
    __shared__ float s[kReduceBlock];
    const unsigned tid = threadIdx.x;
    s[tid] = in[blockIdx.x * kReduceBlock + tid];
    __syncthreads();
    for (unsigned stride = kReduceBlock / 2; stride > 0; stride /= 2) {
        if (tid < stride) s[tid] += s[tid + stride];
        __syncthreads();
    }
    if (tid == 0) out[blockIdx.x] = s[0];
}

/// One float4 per lane: 32 lanes x 16 bytes = 512 contiguous bytes per warp request.
__global__ void copy_float4(const float4* in, float4* out)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = in[i];
}

/// float2 (8-byte) shared accesses, served per half-warp: lane L at float2 index L * Stride.
template <int Stride>
__global__ void shared_float2(const float2* in, float2* out)
{
    __shared__ float2 s[32 * Stride];
    const int lane = threadIdx.x;
    s[lane * Stride] = in[lane];
    __syncwarp();
    out[lane] = s[lane * Stride];
}

/// Every lane reads the same shared word: a broadcast, one wavefront.
__global__ void shared_broadcast(const float* in, float* out)
{
    __shared__ float s[32];
    s[threadIdx.x] = in[threadIdx.x];
    __syncthreads();
    out[threadIdx.x] = s[0];
}

std::vector<float> iota_floats(std::size_t n)
{
    std::vector<float> v(n);
    std::iota(v.begin(), v.end(), 0.0f);
    return v;
}

/// Runs @p launch under a profile; the counters of its one kernel.
template <class F>
emu::KernelCounters profile_of(F launch)
{
    emu::profile_begin();
    launch();
    const std::vector<emu::KernelCounters> kernels = emu::profile_end();
    REQUIRE(emu_test::finish().ok());
    REQUIRE(kernels.size() == 1);
    return kernels.front();
}

}   // namespace

TEST_CASE("profile: naive transpose reads 4 sectors and writes 32 per warp request", "[profile]")
{
    DeviceArray<float> in(iota_floats(kSide * kSide)), out(kSide * kSide);
    const emu::KernelCounters k =
        profile_of([&] { transpose_naive<<<dim3(kSide / 32, kSide / 8), dim3(32, 8)>>>(in.data, out.data, kSide); });
    CHECK(k.launches == 1);
    CHECK(k.blocks == 16);
    CHECK(k.global_load.requests == 128);
    CHECK(k.global_load.sectors == 128 * 4);
    CHECK(k.global_store.requests == 128);
    CHECK(k.global_store.sectors == 128 * 32);   // 32 lanes, 32 output rows, 32 sectors
    CHECK(k.global_store.sectors_per_request() == 32.0);
    CHECK(k.global_store.sectors_per_128_bytes() == 32.0);
    CHECK(k.shared_load.requests + k.shared_store.requests == 0);
    CHECK(k.divergent_requests() == 0);
    CHECK(k.barriers == 0);
}

TEST_CASE("profile: a [32][32] tile read down a column has 32-way bank conflicts, [32][33] none", "[profile]")
{
    DeviceArray<float> in(iota_floats(kSide * kSide)), out(kSide * kSide);
    const dim3 grid(kSide / 32, kSide / 32), block(32, 8);
    const emu::KernelCounters plain = profile_of([&] { transpose_tile<0><<<grid, block>>>(in.data, out.data, kSide); });
    const emu::KernelCounters padded =
        profile_of([&] { transpose_tile<1><<<grid, block>>>(in.data, out.data, kSide); });
    for (const emu::KernelCounters* k : {&plain, &padded}) {
        // 4 blocks x 8 warps x 4 rows: 128 requests of each kind; both global sides coalesced.
        CHECK(k->global_load.requests == 128);
        CHECK(k->global_load.sectors == 128 * 4);
        CHECK(k->global_store.requests == 128);
        CHECK(k->global_store.sectors == 128 * 4);
        CHECK(k->global_store.sectors_per_128_bytes() == 4.0);
        // Writing a tile row: 32 consecutive words, 32 banks.
        CHECK(k->shared_store.requests == 128);
        CHECK(k->shared_store.wavefronts == 128);
        CHECK(k->shared_store.conflict_degree() == 1.0);
        CHECK(k->shared_load.requests == 128);
        CHECK(k->shared_load.ideal_wavefronts == 128);
        CHECK(k->barriers_per_block() == 1.0);
        CHECK(k->divergent_requests() == 0);
    }
    // Reading a column: words 32 apart, all in one bank (32 wavefronts); 33 apart, 32 banks (one).
    CHECK(plain.shared_load.wavefronts == 128 * 32);
    CHECK(plain.shared_load.conflict_degree() == 32.0);
    CHECK(padded.shared_load.wavefronts == 128);
    CHECK(padded.shared_load.conflict_degree() == 1.0);
}

// Divergence, counted as requests in which fewer lanes take part than the warp has (the emulator sees
// accesses, not branches). Each level of the loop makes 3 shared requests per warp that takes part
// (loads of s[tid] and s[tid + stride], the store of s[tid]); lane L's k-th pass through the loop body
// belongs to the request of level k, because a lane that adds at a level added at every level before.
// Outside the loop: the load of the input and the store into s (full warps), and the final
// `if (tid == 0)`: the load of s[0] and the store of the result, one lane each (divergent in both).
TEST_CASE("profile: interleaved reduction diverges at every level, sequential addressing only below 32", "[profile]")
{
    constexpr int kBlocks = 2;
    DeviceArray<float> in(iota_floats(kBlocks * kReduceBlock)), out(kBlocks);
    const emu::KernelCounters interleaved =
        profile_of([&] { reduce_interleaved<<<kBlocks, kReduceBlock>>>(in.data, out.data); });
    const emu::KernelCounters sequential =
        profile_of([&] { reduce_sequential<<<kBlocks, kReduceBlock>>>(in.data, out.data); });

    // Interleaved, per block: strides 1, 2, 4, 8, 16 involve all 8 warps with 16, 8, 4, 2, 1 of their
    // 32 lanes; strides 32, 64, 128 involve lane 0 of 4, 2 and 1 warps. 47 warp-levels, all divergent:
    // 3 x 47 = 141 requests, plus the 2 of `tid == 0`.
    CHECK(interleaved.shared_load.requests == kBlocks * (2 * 47 + 1));
    CHECK(interleaved.shared_store.requests == kBlocks * (8 + 47));
    CHECK(interleaved.divergent_requests() == kBlocks * (3 * 47 + 2));
    CHECK(interleaved.barriers_per_block() == 9.0);

    // Sequential, per block: strides 128, 64, 32 involve 4, 2, 1 whole warps (7 warp-levels, none
    // divergent); strides 16, 8, 4, 2, 1 involve warp 0 only, with 16 to 1 lanes: 5 divergent
    // warp-levels, 3 x 5 = 15 requests, plus the 2 of `tid == 0`.
    CHECK(sequential.shared_load.requests == kBlocks * (2 * 12 + 1));
    CHECK(sequential.shared_store.requests == kBlocks * (8 + 12));
    CHECK(sequential.divergent_requests() == kBlocks * (3 * 5 + 2));
    CHECK(sequential.barriers_per_block() == 9.0);

    // Both read the input with coalesced, full-warp loads and write one float per block.
    CHECK(interleaved.global_load.requests == kBlocks * 8);
    CHECK(interleaved.global_load.divergent == 0);
    CHECK(sequential.global_store.requests == kBlocks);
    CHECK(sequential.global_store.divergent == kBlocks);
    CHECK(out.download()[0] == 255.0f * 256.0f / 2.0f);
}

// What is counted for vector accesses: a warp request of 32 lanes x 16 bytes asks for 512 contiguous
// bytes, 16 sectors; per 128 requested bytes that is 4 sectors, the same as 32 lanes x 4 bytes.
TEST_CASE("profile: float4 loads use 16 sectors per request, 4 per 128 bytes", "[profile]")
{
    constexpr int kVectors = 256;
    DeviceArray<float4> in(kVectors), out(kVectors);
    REQUIRE(cudaMemset(in.data, 0, kVectors * sizeof(float4)) == cudaSuccess);
    const emu::KernelCounters k = profile_of([&] { copy_float4<<<kVectors / 128, 128>>>(in.data, out.data); });
    CHECK(k.global_load.requests == kVectors / 32);
    CHECK(k.global_load.bytes == kVectors * 16);
    CHECK(k.global_load.sectors_per_request() == 16.0);
    CHECK(k.global_load.sectors_per_128_bytes() == 4.0);
    CHECK(k.global_store.sectors_per_request() == 16.0);
}

// 8-byte shared accesses are served per half-warp: 16 lanes x 8 bytes = 128 bytes, one wavefront when
// they are contiguous. Two phases per request, so the ideal is 2 wavefronts.
TEST_CASE("profile: float2 shared accesses are served per half-warp", "[profile]")
{
    DeviceArray<float2> in(32), out(32);
    REQUIRE(cudaMemset(in.data, 0, 32 * sizeof(float2)) == cudaSuccess);
    const emu::KernelCounters contiguous = profile_of([&] { shared_float2<1><<<1, 32>>>(in.data, out.data); });
    CHECK(contiguous.shared_store.requests == 1);
    CHECK(contiguous.shared_store.ideal_wavefronts == 2);
    CHECK(contiguous.shared_store.wavefronts == 2);
    CHECK(contiguous.shared_load.wavefronts == 2);
    // 16 bytes apart: a half-warp spans 256 bytes, two words in every bank it touches: 2 per phase.
    const emu::KernelCounters strided = profile_of([&] { shared_float2<2><<<1, 32>>>(in.data, out.data); });
    CHECK(strided.shared_store.ideal_wavefronts == 2);
    CHECK(strided.shared_store.wavefronts == 4);
    CHECK(strided.shared_store.conflict_degree() == 2.0);
}

TEST_CASE("profile: lanes reading one shared word share a wavefront", "[profile]")
{
    DeviceArray<float> in(iota_floats(32)), out(32);
    const emu::KernelCounters k = profile_of([&] { shared_broadcast<<<1, 32>>>(in.data, out.data); });
    CHECK(k.shared_load.requests == 1);
    CHECK(k.shared_load.wavefronts == 1);
    CHECK(k.global_load.sectors == 4);
}

TEST_CASE("profile: nothing is counted outside a profile", "[profile]")
{
    DeviceArray<float> in(iota_floats(kSide * kSide)), out(kSide * kSide);
    transpose_naive<<<dim3(kSide / 32, kSide / 8), dim3(32, 8)>>>(in.data, out.data, kSide);
    REQUIRE(emu_test::finish().ok());
    emu::profile_begin();
    CHECK(emu::profile_end().empty());
}
