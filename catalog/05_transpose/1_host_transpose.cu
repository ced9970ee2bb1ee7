// Catalog, chapter 5, stage 1: the transpose done on the CPU between two copies.
// expect: wrong "launched no kernel"
//
// The matrix goes to the host on the given stream, is transposed there and comes back. Right values,
// no speed target at stage 1: only the launch ledger, which sees no kernel in any call, can tell.
#include "05_transpose/stages.cuh"

#include <vector>

namespace WORKBOOK_TRACK {

void transpose_1_naive(const float* in, float* out, std::int64_t rows, std::int64_t cols, cudaStream_t stream)
{
    const std::size_t n = static_cast<std::size_t>(rows * cols);
    std::vector<float> host_in(n), host_out(n);
    WB_CUDA_CHECK(cudaMemcpyAsync(host_in.data(), in, n * sizeof(float), cudaMemcpyDeviceToHost, stream));
    WB_CUDA_CHECK(cudaStreamSynchronize(stream));
    for (std::int64_t r = 0; r < rows; ++r) {
        for (std::int64_t c = 0; c < cols; ++c) host_out[c * rows + r] = host_in[r * cols + c];
    }
    WB_CUDA_CHECK(cudaMemcpyAsync(out, host_out.data(), n * sizeof(float), cudaMemcpyHostToDevice, stream));
    WB_CUDA_CHECK(cudaStreamSynchronize(stream));
}

}   // namespace WORKBOOK_TRACK
