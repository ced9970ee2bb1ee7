// Catalog, chapter 10, stage 3: the dot product computed on the host, stored by a one-thread kernel.
// expect: wrong "copies data from the GPU to the host"
//
// The launcher copies x and y to the host on the stream it was given (cudaMemcpyAsync), waits for
// the stream, computes the dot product in double on the CPU and launches a kernel of one thread on
// that stream whose only work is `out[0] = value`. Every result is right (better rounded than any
// GPU sum), all work is on the given stream, and a kernel runs, so the launch ledger's rule "a
// launcher that launches no kernel computed the result on the host" does not fire; the launch is one
// block, as stage 3 asks; and stage 3 has no speed target, so its slowness decides nothing. It is
// not a kernel that computes anything: the inputs are copied device-to-host in every call and the
// kernel reads neither of them. The grader must reject it for what it is.
#include "10_interview_classics/stages.cuh"
#include "common/primitives.cuh"

#include <vector>

namespace WORKBOOK_TRACK {

namespace {

__global__ void store_kernel(float* out, float value) { out[0] = value; }

}   // namespace

void dot_3_one_block(const float* x, const float* y, float* out, std::int64_t n, cudaStream_t stream)
{
    std::vector<float> hx(static_cast<std::size_t>(n)), hy(static_cast<std::size_t>(n));
    WB_CUDA_CHECK(cudaMemcpyAsync(hx.data(), x, n * sizeof(float), cudaMemcpyDeviceToHost, stream));
    WB_CUDA_CHECK(cudaMemcpyAsync(hy.data(), y, n * sizeof(float), cudaMemcpyDeviceToHost, stream));
    WB_CUDA_CHECK(cudaStreamSynchronize(stream));
    double sum = 0.0;   // the bug: the whole stage, on the CPU
    for (std::int64_t i = 0; i < n; ++i) sum += static_cast<double>(hx[i]) * hy[i];
    store_kernel<<<1, 1, 0, stream>>>(out, static_cast<float>(sum));
    WB_CHECK_LAUNCH();
}

}   // namespace WORKBOOK_TRACK
