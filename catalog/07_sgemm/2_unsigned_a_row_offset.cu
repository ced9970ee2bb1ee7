// Catalog, chapter 7, stage 2: the row offset into A kept in a std::uint32_t, "an offset is never negative".
// expect: wrong "32 of A (row r reads"
// emulated: skip "the emulated shapes stay far below 2^31 elements, the GPU grader adds A past 2^32"
//
// The reference stage 2 with the offset of the thread's row of A computed as
// `static_cast<std::uint32_t>(row) * static_cast<std::uint32_t>(K)`: one 32-bit register instead of a
// 64-bit pair, on the reasoning that an offset is never negative and an unsigned int reaches 4.29 billion,
// twice what an int does. B and C keep their 64-bit offsets. The reasoning holds for every shape up to
// 2^32 elements, so this kernel passes the grader's case past the int range, A of 300007 x 7701
// (2,310,353,907 elements; the last row starts at 2,310,346,206). But the contract only bounds each size
// by 2^19, so M * K may reach 2^38, and the case A of 300007 x 14503 (4,351,001,521 elements, 17.4 GB)
// passes 2^32 inside row 296143 (at column 5367). That row still works: its offset, 4,294,961,929, fits,
// and a[k] adds k to a 64-bit pointer. The next one does not: 296144 * 14503 = 4,294,976,432 wraps to
// 9136, so row 296144 of C is computed from the 14503 floats that start at column 9136 of row 0 of A, and
// every row r from there on from those at column 9136 of row r - 296144 (the last, 300006, reads from row
// 3862). The 3863 rows of C from 296144 on are wrong, all those before right: the grader must name row
// 296144 as the first row that reads past element 2^32 of A (the expect line quotes that message from
// after its '^', which a phrase may not hold). The fix is the reference's: the row offset in
// std::int64_t. On a GPU without the memory the case is skipped and this entry passes.
#include "07_sgemm/stages.cuh"
#include "common/primitives.cuh"

namespace WORKBOOK_TRACK {

namespace {

constexpr int kBlockX = 32;   // along the columns of C: contiguous in memory
constexpr int kBlockY = 16;   // along the rows

__global__ void sgemm_coalesced_kernel(int M, int N, int K, float alpha, const float* __restrict__ A,
                                       const float* __restrict__ B, float beta, float* __restrict__ C)
{
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    const int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row >= M || col >= N) return;
    const std::uint32_t a_offset = static_cast<std::uint32_t>(row) * static_cast<std::uint32_t>(K);   // the bug
    const float* a = A + a_offset;
    float acc = 0.0f;
    for (int k = 0; k < K; ++k) acc = fmaf(a[k], B[static_cast<std::int64_t>(k) * N + col], acc);
    float* c = C + static_cast<std::int64_t>(row) * N + col;
    *c = beta == 0.0f ? alpha * acc : alpha * acc + beta * *c;   // beta == 0: C is never read
}

}   // namespace

void sgemm_2_coalesced(int M, int N, int K, float alpha, const float* A, const float* B, float beta, float* C,
                       cudaStream_t stream)
{
    const dim3 block(kBlockX, kBlockY);
    const dim3 grid(wb::ceil_div(N, kBlockX), wb::ceil_div(M, kBlockY));
    sgemm_coalesced_kernel<<<grid, block, 0, stream>>>(M, N, K, alpha, A, B, beta, C);
    WB_CHECK_LAUNCH();
}

}   // namespace WORKBOOK_TRACK
