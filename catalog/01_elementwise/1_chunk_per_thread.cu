// Catalog, chapter 1, stage 1: each thread adds eight consecutive floats (a chunk per thread).
// expect: passed
// emulated: passed "global writes use 8.0x the sectors of reference stage 1"
//
// Right values, and stage 1 has no speed target, so it passes on a GPU and on the CPU emulator. But the
// lanes of a warp are eight floats apart at every access: lane L touches element 8 L + j in the j-th
// iteration, so each warp-wide load and store uses a 32-byte sector per lane for 4 useful bytes (32
// sectors per 128 bytes where one thread per element needs 4). On a GPU the L1 cache saves some of the
// reads, not the writes. The emulator's counters see it, and the pass comes with that advice.
#include "01_elementwise/stages.cuh"
#include "common/primitives.cuh"

namespace WORKBOOK_TRACK {

namespace {

constexpr int kChunk = 8;   // consecutive elements per thread

__global__ void add_chunk_kernel(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c,
                                 std::int64_t n)
{
    const std::int64_t first = (static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) * kChunk;
    for (int j = 0; j < kChunk; ++j) {
        const std::int64_t i = first + j;
        if (i < n) c[i] = a[i] + b[i];
    }
}

}   // namespace

void add_1_naive(const float* a, const float* b, float* c, std::int64_t n, cudaStream_t stream)
{
    constexpr int kThreads = 256;
    const auto blocks =
        static_cast<unsigned>(wb::ceil_div<std::int64_t>(wb::ceil_div<std::int64_t>(n, kChunk), kThreads));
    add_chunk_kernel<<<blocks, kThreads, 0, stream>>>(a, b, c, n);
    WB_CHECK_LAUNCH();
}

}   // namespace WORKBOOK_TRACK
