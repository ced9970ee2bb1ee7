// Catalog, chapter 1, stage 1: the element index computed in int (32 bits).
// expect: crashed "illegal memory access"
// emulated: skip "the emulated sizes stay far below 2^31 elements, the GPU grader checks n = 2^31 + 2^20 + 5"
//
// The reference stage 1 with the signature of many first kernels: `int n` and `int i`. Right for
// every n below 2^31, which is every size a small test uses. The contract allows more, and the
// grader adds one case past 2^31 where the GPU has the memory (28 GiB): n converted to int is
// negative there (about -2^31 + 2^20), and so is the index of every thread past 2^31 (the unsigned
// product wraps, then turns negative in the int): those threads pass `i < n` and write before the
// start of c. Seen on an H100: an illegal memory access. Needs a GPU with 28 GiB free; on a smaller
// one the case is skipped and this entry passes.
#include "01_elementwise/stages.cuh"
#include "common/primitives.cuh"

namespace WORKBOOK_TRACK {

namespace {

__global__ void add_naive_kernel(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c,
                                 int n)   // the bug: the size in 32 bits
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];   // the last block is partly outside the array
}

}   // namespace

void add_1_naive(const float* a, const float* b, float* c, std::int64_t n, cudaStream_t stream)
{
    constexpr int kThreads = 256;   // a multiple of 32; 256 keeps enough blocks per SM resident
    const auto blocks = static_cast<unsigned>(wb::ceil_div<std::int64_t>(n, kThreads));
    add_naive_kernel<<<blocks, kThreads, 0, stream>>>(a, b, c, static_cast<int>(n));
    WB_CHECK_LAUNCH();
}

}   // namespace WORKBOOK_TRACK
