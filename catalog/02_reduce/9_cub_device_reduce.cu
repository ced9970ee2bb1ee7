// Catalog, chapter 2, stage 9: the sum handed to CUB's DeviceReduce::Sum.
// expect: wrong "not yours"
// emulated: wrong "launched no kernel"
//
// CUB ships with the CUDA Toolkit, and its device-wide sum is right and fast: the stage would pass
// every comparison and the speed check, having taught nothing. On a GPU the launch ledger sees CUB's
// kernels (namespace cub) and says they are not the learner's; the emulator's stand-in for CUB sums
// on the host in stream order, so there the ledger sees no kernel at all.
#include "02_reduce/stages.cuh"

#include <cub/cub.cuh>

namespace WORKBOOK_TRACK {

void sum_9_vectorized_single_pass(const float* in, float* out, std::int64_t n, float* workspace, cudaStream_t stream)
{
    (void)workspace;
    std::size_t bytes = 0;
    WB_CUDA_CHECK(cub::DeviceReduce::Sum(nullptr, bytes, in, out, n, stream));
    void* temp = nullptr;
    WB_CUDA_CHECK(cudaMallocAsync(&temp, bytes, stream));
    WB_CUDA_CHECK(cub::DeviceReduce::Sum(temp, bytes, in, out, n, stream));
    WB_CUDA_CHECK(cudaFreeAsync(temp, stream));
}

}   // namespace WORKBOOK_TRACK
