// Catalog, chapter 4, stage 1: the row statistics computed on the host; only the normalisation is a kernel.
// expect: wrong "copies data from the GPU to the host"
//
// Stage 1's first kernel is the lesson (a block reduction per row, twice); this launcher skips it. It
// copies x to the CPU on the given stream, waits, computes every row's mean and rstd in double on the
// host, copies them to mean and rstd, and launches only the elementwise kernel. Everything runs on the
// stream it was given and a kernel of its own is launched in every call, so the output (more exact than
// any float kernel's) passes every comparison, and stage 1 has no speed target. The launch ledger only
// rejects a launcher that launches no kernel at all; host work beside a kernel is host work too: the
// grader must reject the device-to-host copy of the input, whatever the numbers.
#include "04_layernorm/stages.cuh"
#include "common/primitives.cuh"

#include <cmath>
#include <vector>

namespace WORKBOOK_TRACK {

namespace {

constexpr int kThreads = 256;

/// y = (x - mean) * rstd * gamma + beta, one thread per element.
__global__ void __launch_bounds__(kThreads)
    normalise_kernel(const float* __restrict__ x, const float* __restrict__ gamma, const float* __restrict__ beta,
                     const float* __restrict__ mean, const float* __restrict__ rstd, float* __restrict__ y,
                     std::int64_t n, std::int64_t cols)
{
    const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * kThreads + threadIdx.x;
    if (i >= n) return;
    const std::int64_t row = i / cols;
    const std::int64_t col = i - row * cols;
    y[i] = (x[i] - mean[row]) * rstd[row] * gamma[col] + beta[col];
}

}   // namespace

void layernorm_1_two_kernels(const float* x, const float* gamma, const float* beta, float* y, float* mean, float* rstd,
                             std::int64_t rows, std::int64_t cols, float eps, cudaStream_t stream)
{
    const std::int64_t n = rows * cols;
    std::vector<float> host_x(static_cast<std::size_t>(n));
    std::vector<float> host_mean(static_cast<std::size_t>(rows)), host_rstd(static_cast<std::size_t>(rows));
    // The bug: the statistics are computed on the CPU (the copies stay on the given stream).
    WB_CUDA_CHECK(cudaMemcpyAsync(host_x.data(), x, n * sizeof(float), cudaMemcpyDeviceToHost, stream));
    WB_CUDA_CHECK(cudaStreamSynchronize(stream));
    for (std::int64_t r = 0; r < rows; ++r) {
        const float* xr = host_x.data() + r * cols;
        double sum = 0.0;
        for (std::int64_t c = 0; c < cols; ++c) sum += xr[c];
        const double mu = sum / static_cast<double>(cols);
        double squares = 0.0;
        for (std::int64_t c = 0; c < cols; ++c) squares += (xr[c] - mu) * (xr[c] - mu);
        host_mean[r] = static_cast<float>(mu);
        host_rstd[r] = static_cast<float>(1.0 / std::sqrt(squares / static_cast<double>(cols) + eps));
    }
    WB_CUDA_CHECK(cudaMemcpyAsync(mean, host_mean.data(), rows * sizeof(float), cudaMemcpyHostToDevice, stream));
    WB_CUDA_CHECK(cudaMemcpyAsync(rstd, host_rstd.data(), rows * sizeof(float), cudaMemcpyHostToDevice, stream));
    const auto blocks = static_cast<unsigned>(wb::ceil_div<std::int64_t>(n, kThreads));
    normalise_kernel<<<blocks, kThreads, 0, stream>>>(x, gamma, beta, mean, rstd, y, n, cols);
    WB_CHECK_LAUNCH();
    // host_mean and host_rstd are pageable: the copies above are done when cudaMemcpyAsync returns,
    // but wait anyway before the vectors go out of scope.
    WB_CUDA_CHECK(cudaStreamSynchronize(stream));
}

}   // namespace WORKBOOK_TRACK
