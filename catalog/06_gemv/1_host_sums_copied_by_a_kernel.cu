// Catalog, chapter 6, stage 1: y computed on the host, then put in place by a one-line copy kernel.
// expect: wrong "copies data from the GPU to the host"
//
// The chapter 1 and 5 catalogs hold a launcher that does the work on the CPU and launches nothing; the
// launch ledger rejects that because not one kernel ran. This one adds a kernel: A and x go to the
// host on the given stream, the dot products are summed there (in double, even), the results go to a
// device buffer and a kernel copies them into y, one thread per row, "so that the kernel writes y". The
// ledger only asks that some kernel of the learner's ran on the stream, and stage 1 has no speed
// target, so nothing is left to notice on a GPU or on the emulator. The grader must see the work moved
// off the GPU: a launcher that copies its inputs to the host (device-to-host copies in the window), or
// kernels that together read far fewer bytes than A holds. (Seen on an H200 with the launch ledger of
// the working tree, which now records copies to the host: wrong, "your launcher copies data from the
// GPU to the host".)
#include "06_gemv/stages.cuh"
#include "common/primitives.cuh"

#include <vector>

namespace WORKBOOK_TRACK {

namespace {

constexpr int kThreads = 256;

__global__ void copy_rows_kernel(const float* __restrict__ from, float* __restrict__ y, std::int64_t M)
{
    const std::int64_t row = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (row < M) y[row] = from[row];
}

}   // namespace

void gemv_1_thread_per_row(const float* A, const float* x, float* y, std::int64_t M, std::int64_t K,
                           cudaStream_t stream)
{
    // the bug: the whole product is done on the CPU
    std::vector<float> hA(static_cast<std::size_t>(M * K)), hx(static_cast<std::size_t>(K)),
        hy(static_cast<std::size_t>(M));
    WB_CUDA_CHECK(cudaMemcpyAsync(hA.data(), A, hA.size() * sizeof(float), cudaMemcpyDeviceToHost, stream));
    WB_CUDA_CHECK(cudaMemcpyAsync(hx.data(), x, hx.size() * sizeof(float), cudaMemcpyDeviceToHost, stream));
    WB_CUDA_CHECK(cudaStreamSynchronize(stream));
    for (std::int64_t i = 0; i < M; ++i) {
        double sum = 0.0;
        for (std::int64_t k = 0; k < K; ++k) sum += static_cast<double>(hA[i * K + k]) * hx[k];
        hy[i] = static_cast<float>(sum);
    }
    float* staged = nullptr;
    WB_CUDA_CHECK(cudaMalloc(&staged, hy.size() * sizeof(float)));
    WB_CUDA_CHECK(cudaMemcpyAsync(staged, hy.data(), hy.size() * sizeof(float), cudaMemcpyHostToDevice, stream));
    const auto blocks = static_cast<unsigned>(wb::ceil_div<std::int64_t>(M, kThreads));
    copy_rows_kernel<<<blocks, kThreads, 0, stream>>>(staged, y, M);
    WB_CHECK_LAUNCH();
    WB_CUDA_CHECK(cudaStreamSynchronize(stream));   // hy and staged must outlive the copies
    WB_CUDA_CHECK(cudaFree(staged));
}

}   // namespace WORKBOOK_TRACK
