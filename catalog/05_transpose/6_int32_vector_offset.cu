// Catalog, chapter 5, stage 6: the element offsets of the float2 paths held in int variables.
// expect: crashed "32 bits"
// emulated: skip "the emulated shapes stay far below 2^31 elements, the GPU grader transposes 40006 x 62498"
//
// The reference stage 6, where the learner named the offset of each float2 before the cast,
// `const int src = (row0 + ty + k) * cols + col0 + 2 * tx;`, out of the habit of int indices. The
// right side is computed in std::int64_t, but storing it in an int keeps its low 32 bits: past index
// 2^31 - 1 the offset is negative. Only the vector paths have it, and they run only on whole tiles of
// matrices with even sides; the scalar paths (edges, odd sizes) stay right. Every small shape, 16384 x
// 16384 and the timed 8192 x 12288 stay below 2^31 elements. The case past the int range (40006 x
// 62498: both sides even, so the whole tiles take the float2 loads and stores; 18.6 GiB for both
// arrays, about 23 GiB free needed) gives the tiles from input row 34360 on a load offset near -2^31:
// 7.2 to 8.6 GB before `in`, an illegal memory access that the grader must explain as a 32-bit index.
// On a GPU without the memory the case is skipped and this entry passes.
#include "05_transpose/stages.cuh"
#include "common/primitives.cuh"

namespace WORKBOOK_TRACK {

namespace {

constexpr int kTile = 64;
constexpr int kThreadsX = kTile / 2;
constexpr int kThreadsY = 8;
constexpr int kThreads = kThreadsX * kThreadsY;
constexpr int kMinBlocks = 8;

__global__ void __launch_bounds__(kThreads, kMinBlocks)
    transpose_vectorized_kernel(const float* __restrict__ in, float* __restrict__ out, std::int64_t rows,
                                std::int64_t cols)
{
    __shared__ float tile[kTile][kTile + 1];

    const std::int64_t row0 = static_cast<std::int64_t>(blockIdx.x) * kTile;
    const std::int64_t col0 = static_cast<std::int64_t>(blockIdx.y) * kTile;
    const int tx = threadIdx.x;
    const int ty = threadIdx.y;
    const int t = ty * kThreadsX + tx;
    const bool whole_tile = row0 + kTile <= rows && col0 + kTile <= cols;

    if (whole_tile && cols % 2 == 0) {
#pragma unroll
        for (int k = 0; k < kTile; k += kThreadsY) {
            const int src = (row0 + ty + k) * cols + col0 + 2 * tx;   // the bug: a 64-bit offset kept in an int
            const float2 v = *reinterpret_cast<const float2*>(in + src);
            tile[ty + k][2 * tx + 0] = v.x;
            tile[ty + k][2 * tx + 1] = v.y;
        }
    } else {
        for (int i = t; i < kTile * kTile; i += kThreads) {
            const int k = i / kTile;
            const int j = i % kTile;
            if (row0 + k < rows && col0 + j < cols) tile[k][j] = in[(row0 + k) * cols + col0 + j];
        }
    }
    __syncthreads();
    if (whole_tile && rows % 2 == 0) {
#pragma unroll
        for (int k = 0; k < kTile; k += kThreadsY) {
            const int j = ty + k;
            const int dst = (col0 + j) * rows + row0 + 2 * tx;   // the same bug on the store side
            *reinterpret_cast<float2*>(out + dst) = make_float2(tile[2 * tx + 0][j], tile[2 * tx + 1][j]);
        }
    } else {
        for (int i = t; i < kTile * kTile; i += kThreads) {
            const int j = i / kTile;
            const int k = i % kTile;
            if (col0 + j < cols && row0 + k < rows) out[(col0 + j) * rows + row0 + k] = tile[k][j];
        }
    }
}

}   // namespace

void transpose_6_vectorized(const float* in, float* out, std::int64_t rows, std::int64_t cols, cudaStream_t stream)
{
    const dim3 block(kThreadsX, kThreadsY);
    const dim3 grid(static_cast<unsigned>(wb::ceil_div<std::int64_t>(rows, kTile)),
                    static_cast<unsigned>(wb::ceil_div<std::int64_t>(cols, kTile)));
    transpose_vectorized_kernel<<<grid, block, 0, stream>>>(in, out, rows, cols);
    WB_CHECK_LAUNCH();
}

}   // namespace WORKBOOK_TRACK
