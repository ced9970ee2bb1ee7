// Catalog, chapter 1, stage 1: the sum computed on the host, no kernel at all.
// expect: wrong "launched no kernel"
//
// The launcher copies both inputs to the CPU on the given stream, waits, adds them in a loop and copies
// the result back. Every output is exactly right, and stage 1 has no speed target: only the launch
// ledger, which sees that not one kernel ran in any call, can tell.
#include "01_elementwise/stages.cuh"

#include <vector>

namespace WORKBOOK_TRACK {

void add_1_naive(const float* a, const float* b, float* c, std::int64_t n, cudaStream_t stream)
{
    std::vector<float> ha(static_cast<std::size_t>(n)), hb(ha.size());
    WB_CUDA_CHECK(cudaMemcpyAsync(ha.data(), a, n * sizeof(float), cudaMemcpyDeviceToHost, stream));
    WB_CUDA_CHECK(cudaMemcpyAsync(hb.data(), b, n * sizeof(float), cudaMemcpyDeviceToHost, stream));
    WB_CUDA_CHECK(cudaStreamSynchronize(stream));
    for (std::size_t i = 0; i < ha.size(); ++i) ha[i] += hb[i];
    WB_CUDA_CHECK(cudaMemcpyAsync(c, ha.data(), n * sizeof(float), cudaMemcpyHostToDevice, stream));
    WB_CUDA_CHECK(cudaStreamSynchronize(stream));
}

}   // namespace WORKBOOK_TRACK
