// Chapter 7, stage 6: float4 global and shared accesses, the A tile transposed in shared memory.          (your exercise)
//
// Write the kernel and the launch. The contract (sizes, alignment, what is checked) is in
// chapters/07_sgemm/stages.cuh; the lesson is chapters/07_sgemm/README.md.
// Grade it with `make check-chapter 7`. You may change anything in this file except the
// launcher's name and parameters. `make hint CH=7 STAGE=6` when stuck.
#include "07_sgemm/epilogue.cuh"
#include "07_sgemm/stages.cuh"
#include "common/primitives.cuh"

namespace WORKBOOK_TRACK {

//@ guided
namespace {

constexpr int kBM = 128;
constexpr int kBN = 128;
constexpr int kBK = 8;
constexpr int kTM = 8;
constexpr int kTN = 8;
constexpr int kThreads = (kBM / kTM) * (kBN / kTN);   // 256
constexpr int kPadA = 4;   // As rows of 132 floats: the transposing stores hit 32 different banks,
                           // and 132 * 4 bytes keeps every row 16-byte aligned for float4 reads
static_assert(kBM * kBK / 4 == kThreads && kBK * kBN / 4 == kThreads, "one float4 of each tile per thread");

/// Four consecutive floats of a row, zero where the row ends (at column @p limit). With kVec, the
/// row and the column are multiples of 4 and one float4 load does it.
template <bool kVec>
__device__ __forceinline__ float4 load4(const float* row, int col, int limit, bool row_ok)
{
    // TODO: kVec: one float4 load (reinterpret_cast<const float4*>(row + col)) when row_ok and
    //       col < limit, else zeros. !kVec: four scalar loads, each tested (col + i < limit).
    return make_float4(0.f, 0.f, 0.f, 0.f);
}

template <bool kVec>
__global__ void __launch_bounds__(kThreads)
    sgemm_vectorized_kernel(int M, int N, int K, float alpha, const float* __restrict__ A, const float* __restrict__ B,
                            float beta, float* __restrict__ C)
{
    // TODO: __shared__ __align__(16) float As[kBK][kBM + kPadA] (transposed: As[k][m]) and
    //       Bs[kBK][kBN]. Thread t owns rows (t / 16) * 8 .. + 7 and columns (t % 16) * 8 .. + 7.
    // TODO: each K step: thread t loads one float4 of A (row t / 2, k (t % 2) * 4 .. + 3) and stores
    //       its 4 values down a column of As (As[k + i][row]), and one float4 of B (row t / 32,
    //       columns (t % 32) * 4 .. + 3) stored as a float4 into Bs. __syncthreads().
    // TODO: for k in 0..kBK-1: a_frag = two float4 from As[k][row0 ..], b_frag = two float4 from
    //       Bs[k][col0 ..], 64 FMAs; __syncthreads(). Declare the fragments alignas(16) float
    //       a_frag[8]: a float4 store needs a 16-byte aligned address, a plain float array has 4.
    // TODO: epilogue: for each row < M of the thread and each group of 4 columns,
    //       ch07::store_c4<kVec>(c_row, col, N, alpha * those 4 accumulators as a float4, beta).
    //       Read it in chapters/07_sgemm/epilogue.cuh: float4 stores where rows are aligned, C not
    //       read when beta == 0, every column tested against N.
}

}   // namespace
//@ end
//@ outline
// TODO: stage 5's kernel with vector loads from global and shared memory, the tile of A stored transposed in shared
//       memory so that its values can be read as vectors too.
//@ end

void sgemm_6_vectorized(int M, int N, int K, float alpha, const float* A, const float* B, float beta, float* C,
                        cudaStream_t stream)
{
    //@ guided
    // TODO: a grid of ceil(N / kBN) x ceil(M / kBM) blocks of kThreads; the <true> kernel when
    //       K % 4 == 0 and N % 4 == 0 (every row 16-byte aligned), the <false> one otherwise;
    //       WB_CHECK_LAUNCH().
    //@ end
    //@ outline
    // TODO: launch your kernel on `stream` with the grid, block and shared memory you choose, then
    //       check the launch with WB_CHECK_LAUNCH.
    //@ end
    (void)M, (void)N, (void)K, (void)alpha, (void)A, (void)B, (void)beta, (void)C, (void)stream;
}

}   // namespace WORKBOOK_TRACK
