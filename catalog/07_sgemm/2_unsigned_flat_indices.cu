// Catalog, chapter 7, stage 2: every index an unsigned int, as blockIdx and threadIdx are.
// expect: wrong "32 of A (row r reads"
// emulated: skip "the emulated shapes stay far below 2^31 elements, the GPU grader adds operands past 2^32"
//
// The reference stage 2 with `unsigned row, col` and the sizes copied into unsigned ints, so that every
// comparison and product is unsigned: "an index is never negative, and unsigned arithmetic reaches
// 4.29 billion, twice what int reaches". That is true, and it is why this kernel passes every case past
// the int range: A of 300007 x 7701, B of 7604 x 300004 and C of 46001 x 50012 all hold fewer than 2^32
// elements. The grader then takes each operand past 2^32 (about 20 GiB free needed), A first: A of
// 300007 x 14503 holds 4,351,001,521 elements, and row * depth wraps from row 296144 on (296144 * 14503
// = 4,294,976,432, 9136 past 2^32), so those rows of C are computed from rows at the start of A. The
// grader must name row 296144 as the first row of C that reads past element 2^32 of A (the expect line
// quotes that message from after its '^', which a phrase may not hold). The same kernel would go wrong
// on B past 2^32 (k * cols) and C past 2^32 (row * cols + col) too; 8_unsigned_c_row_offset keeps the
// unsigned product in C's offset alone. On a GPU without the memory the case is skipped and this entry
// passes.
#include "07_sgemm/stages.cuh"
#include "common/primitives.cuh"

namespace WORKBOOK_TRACK {

namespace {

constexpr int kBlockX = 32;   // along the columns of C: contiguous in memory
constexpr int kBlockY = 16;   // along the rows

__global__ void sgemm_coalesced_kernel(int M, int N, int K, float alpha, const float* __restrict__ A,
                                       const float* __restrict__ B, float beta, float* __restrict__ C)
{
    const unsigned col = blockIdx.x * blockDim.x + threadIdx.x;   // unsigned, as the built-ins are
    const unsigned row = blockIdx.y * blockDim.y + threadIdx.y;
    const unsigned rows = M, cols = N, depth = K;
    if (row >= rows || col >= cols) return;
    const float* a = A + row * depth;
    float acc = 0.0f;
    for (unsigned k = 0; k < depth; ++k) acc = fmaf(a[k], B[k * cols + col], acc);
    float* c = C + row * cols + col;                             // the bug: an unsigned product, which wraps at 2^32
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
