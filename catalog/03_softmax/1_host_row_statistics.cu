// Catalog, chapter 3, stage 1: the row maxima and sums computed on the host; only the last pass is a kernel.
// expect: wrong "copies data from the GPU to the host"
//
// Kernels 1 and 2 are the part of stage 1 that takes thought (a loop over a row per thread, a
// workspace between kernels), so this launcher copies x to the CPU on the stream it was given, waits,
// finds every row's maximum and sum of exponentials in a host loop, uploads those 2 * rows floats and
// launches one elementwise kernel for y = exp(x - max) / sum. Every copy is on the right stream and a
// kernel of the learner's own is launched, so neither "launched no kernel" nor "another stream" applies,
// and the numbers are right. It is still the result computed on the host: the stage asks for the
// reduction kernels, the launcher blocks the CPU on the stream in the middle of a call, and the whole
// matrix crosses PCIe twice. Stage 1 has no speed target, so a GPU would not reject it as slow either.
// The grader must see a launcher that copies the input to the host and computes from it.
#include "03_softmax/stages.cuh"
#include "common/primitives.cuh"

#include <cmath>
#include <vector>

namespace WORKBOOK_TRACK {

namespace {

/// y[i] = exp(x[i] - max of its row) / sum of its row, one thread per element; stats holds (max, sum) per row.
__global__ void normalise_from_stats_kernel(const float* __restrict__ x, const float* __restrict__ stats,
                                            float* __restrict__ y, std::int64_t n, std::int64_t cols)
{
    const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const std::int64_t row = i / cols;
    y[i] = __expf(x[i] - stats[2 * row]) / stats[2 * row + 1];
}

}   // namespace

void softmax_1_three_kernels(const float* x, float* y, std::int64_t rows, std::int64_t cols, cudaStream_t stream)
{
    constexpr int kThreads = 256;
    const std::int64_t n = rows * cols;

    // The bug: the statistics come from a host loop over a copy of x, not from kernels.
    std::vector<float> host_x(static_cast<std::size_t>(n));
    WB_CUDA_CHECK(cudaMemcpyAsync(host_x.data(), x, n * sizeof(float), cudaMemcpyDeviceToHost, stream));
    WB_CUDA_CHECK(cudaStreamSynchronize(stream));
    std::vector<float> stats(static_cast<std::size_t>(2 * rows));
    for (std::int64_t r = 0; r < rows; ++r) {
        const float* xr = host_x.data() + r * cols;
        float m = -INFINITY;
        for (std::int64_t c = 0; c < cols; ++c) m = std::fmax(m, xr[c]);
        float s = 0.0f;
        for (std::int64_t c = 0; c < cols; ++c) s += std::exp(xr[c] - m);
        stats[2 * r] = m;
        stats[2 * r + 1] = s;
    }

    float* d_stats = nullptr;
    WB_CUDA_CHECK(cudaMallocAsync(reinterpret_cast<void**>(&d_stats), stats.size() * sizeof(float), stream));
    WB_CUDA_CHECK(cudaMemcpyAsync(d_stats, stats.data(), stats.size() * sizeof(float), cudaMemcpyHostToDevice, stream));
    const auto blocks = static_cast<unsigned>(wb::ceil_div<std::int64_t>(n, kThreads));
    normalise_from_stats_kernel<<<blocks, kThreads, 0, stream>>>(x, d_stats, y, n, cols);
    WB_CHECK_LAUNCH();
    WB_CUDA_CHECK(cudaFreeAsync(d_stats, stream));
    WB_CUDA_CHECK(cudaStreamSynchronize(stream));   // stats (host memory) must outlive the upload
}

}   // namespace WORKBOOK_TRACK
