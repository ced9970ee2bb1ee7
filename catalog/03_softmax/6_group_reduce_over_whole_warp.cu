// Catalog, chapter 3, stage 6: narrow thread groups per row whose reductions still shuffle across the whole warp.
// expect: wrong "elements are wrong"
//
// For short rows the learner gives each row a group of G lanes (G = 1 to 16, the smallest power of two
// that covers the row), so a warp serves 32 / G rows, as the lesson says. But the maximum and the sum
// are the stage 3 reductions unchanged: wb::warp_reduce_max(v) and wb::warp_reduce_sum(v) without the
// width, that is five butterfly steps over all 32 lanes. Each group then gets the maximum and the sum
// of all the rows of its warp, so every row of a group narrower than 32 is divided by the sum of up to
// 32 rows (or underflows to 0 / 0 next to a row of larger values). The width argument of the
// shuffles (warp_reduce_max<G>) keeps a reduction inside its group. Rows longer than 16 use whole
// warps and the long-row paths are right, so this must fail on the short rows, in all three variants
// (fp32, fp16 and log-softmax).
#include "03_softmax/stages.cuh"
#include "common/primitives.cuh"

namespace WORKBOOK_TRACK {

namespace {

enum class Op { softmax, log_softmax };

constexpr int kGroupThreads = 128;   // threads per block of the group path
constexpr int kBlockThreads = 256;   // threads per block of the long-row path
constexpr std::int64_t kGroupMaxCols = 1024;

template <Op op>
__device__ __forceinline__ float finish(float x, float m, float sum)
{
    if constexpr (op == Op::softmax) {
        return __expf(x - m) / sum;
    } else {
        return (x - m) - logf(sum);
    }
}

/// kGroup lanes per row, each striding over the row; no lane returns early (full-mask shuffles).
template <typename T, Op op, int kGroup>
__global__ void __launch_bounds__(kGroupThreads)
    softmax_group_kernel(const T* __restrict__ x, T* __restrict__ y, std::int64_t rows, std::int64_t cols)
{
    const std::int64_t row = (static_cast<std::int64_t>(blockIdx.x) * kGroupThreads + threadIdx.x) / kGroup;
    const int lane = threadIdx.x % kGroup;
    const bool active = row < rows;
    const T* xr = x + (active ? row : 0) * cols;
    T* yr = y + (active ? row : 0) * cols;

    float m = -INFINITY;
    if (active) {
        for (std::int64_t c = lane; c < cols; c += kGroup) m = fmaxf(m, wb::to_float(xr[c]));
    }
    m = wb::warp_reduce_max(m);   // the bug: all 32 lanes, every row of the warp (warp_reduce_max<kGroup>)

    float s = 0.0f;
    if (active) {
        for (std::int64_t c = lane; c < cols; c += kGroup) s += __expf(wb::to_float(xr[c]) - m);
    }
    s = wb::warp_reduce_sum(s);   // the same bug for the sum

    if (active) {
        for (std::int64_t c = lane; c < cols; c += kGroup) {
            yr[c] = wb::from_float<T>(finish<op>(wb::to_float(xr[c]), m, s));
        }
    }
}

/// Long rows: one block per row, three strided passes, block reductions (right).
template <typename T, Op op>
__global__ void __launch_bounds__(kBlockThreads)
    softmax_block_kernel(const T* __restrict__ x, T* __restrict__ y, std::int64_t cols)
{
    __shared__ float scratch[kBlockThreads / wb::kWarpSize];
    const T* xr = x + static_cast<std::int64_t>(blockIdx.x) * cols;
    T* yr = y + static_cast<std::int64_t>(blockIdx.x) * cols;
    float m = -INFINITY;
    for (std::int64_t c = threadIdx.x; c < cols; c += kBlockThreads) m = fmaxf(m, wb::to_float(xr[c]));
    m = wb::block_reduce_max<kBlockThreads>(m, scratch);
    float s = 0.0f;
    for (std::int64_t c = threadIdx.x; c < cols; c += kBlockThreads) s += __expf(wb::to_float(xr[c]) - m);
    s = wb::block_reduce_sum<kBlockThreads>(s, scratch);
    for (std::int64_t c = threadIdx.x; c < cols; c += kBlockThreads) {
        yr[c] = wb::from_float<T>(finish<op>(wb::to_float(xr[c]), m, s));
    }
}

template <typename T, Op op, int kGroup>
void launch_groups(const T* x, T* y, std::int64_t rows, std::int64_t cols, cudaStream_t stream)
{
    if constexpr (kGroup < wb::kWarpSize) {
        if (cols > kGroup) return launch_groups<T, op, kGroup * 2>(x, y, rows, cols, stream);
    }
    constexpr int kRowsPerBlock = kGroupThreads / kGroup;
    const auto blocks = static_cast<unsigned>(wb::ceil_div<std::int64_t>(rows, kRowsPerBlock));
    softmax_group_kernel<T, op, kGroup><<<blocks, kGroupThreads, 0, stream>>>(x, y, rows, cols);
    WB_CHECK_LAUNCH();
}

template <typename T, Op op>
void dispatch(const T* x, T* y, std::int64_t rows, std::int64_t cols, cudaStream_t stream)
{
    if (cols <= kGroupMaxCols) return launch_groups<T, op, 1>(x, y, rows, cols, stream);
    softmax_block_kernel<T, op><<<static_cast<unsigned>(rows), kBlockThreads, 0, stream>>>(x, y, cols);
    WB_CHECK_LAUNCH();
}

}   // namespace

void softmax_6_dispatch(const float* x, float* y, std::int64_t rows, std::int64_t cols, cudaStream_t stream)
{
    dispatch<float, Op::softmax>(x, y, rows, cols, stream);
}

void softmax_6_dispatch_half(const __half* x, __half* y, std::int64_t rows, std::int64_t cols, cudaStream_t stream)
{
    dispatch<__half, Op::softmax>(x, y, rows, cols, stream);
}

void log_softmax_6_dispatch(const float* x, float* y, std::int64_t rows, std::int64_t cols, cudaStream_t stream)
{
    dispatch<float, Op::log_softmax>(x, y, rows, cols, stream);
}

}   // namespace WORKBOOK_TRACK
