// Catalog, chapter 3, stage 6: the path for the longest rows loads each thread's next pack one turn early, unguarded.
// expect: wrong "memcheck found"
// emulated: crashed "read past the end of an input array"
//
// The reference stage 6 with a software prefetch in the second loop of the uncached path (rows too long
// for shared memory, which read x twice): a thread loads the pack it will write on its next turn before
// it writes this one, and its first pack before the loop, without the test p < packs. The packs loaded
// past a row's end are never used, so every y is right; but the last turn of each thread reads a block's
// width of packs past the row: into the next row (harmless), and on the last row past the end of x. Only
// rows longer than shared memory holds (65537 floats among the graded lengths) take this path. On a GPU
// memcheck sees it once the sanitizer pass runs on to the first call that launches that kernel
// (harness/sanitizer_plan.hpp); the first 8 calls of the chapter have short rows. The emulator stops the
// first load that reaches the guard bytes after x.
#include "03_softmax/stages.cuh"
#include "common/primitives.cuh"
#include "common/smem_row.hpp"

namespace WORKBOOK_TRACK {

namespace {

enum class Op { softmax, log_softmax };

/// The longest row the register (warp) path handles: 64 floats per lane.
constexpr int kWarpMaxCols = 2048;
constexpr int kWarpPathThreads = 128;   // threads per block of the warp path
constexpr int kUncachedThreads = 512;   // threads per block of the online (uncached) path

using wb::Pack;   // kPack elements moved as one access (common/primitives.cuh)

using wb::from_float;
using wb::to_float;

/// The row statistic the output needs: 1 / sum for softmax, log(sum) for log-softmax.
template <Op op>
__device__ __forceinline__ float row_scale(float sum)
{
    if constexpr (op == Op::softmax) {
        return 1.0f / sum;
    } else {
        return logf(sum);
    }
}

/// One output element from x and the row's maximum and scale.
template <Op op>
__device__ __forceinline__ float finish(float x, float max, float scale)
{
    if constexpr (op == Op::softmax) {
        return __expf(x - max) * scale;
    } else {
        return (x - max) - scale;   // -inf stays -inf
    }
}

// ---- path 1: rows in registers, kGroupWidth lanes per row, kRowsPerGroup rows per group ----------

template <typename T, Op op, int kPack, int kColsPerThread, int kGroupWidth, int kRowsPerGroup>
__global__ void __launch_bounds__(kWarpPathThreads)
    softmax_warp_kernel(const T* __restrict__ x, T* __restrict__ y, std::int64_t rows, int cols)
{
    static_assert(kColsPerThread % kPack == 0 && wb::kWarpSize % kGroupWidth == 0, "whole packs, whole groups");
    constexpr int kPacks = kColsPerThread / kPack;
    const int lane = threadIdx.x % kGroupWidth;
    const std::int64_t group = (static_cast<std::int64_t>(blockIdx.x) * kWarpPathThreads + threadIdx.x) / kGroupWidth;
    const std::int64_t first_row = group * kRowsPerGroup;

    // No early return anywhere: the shuffles below use the full warp mask, so all 32 lanes must
    // reach them, also those whose rows are past the end (they compute on -inf and store nothing).
    float v[kRowsPerGroup][kColsPerThread];
    float max[kRowsPerGroup];
#pragma unroll
    for (int r = 0; r < kRowsPerGroup; ++r) {
        const std::int64_t row = first_row + r;
        max[r] = -INFINITY;
#pragma unroll
        for (int p = 0; p < kPacks; ++p) {
            const int col = (p * kGroupWidth + lane) * kPack;
            if (row < rows && col < cols) {
                const Pack<T, kPack> pack = *reinterpret_cast<const Pack<T, kPack>*>(x + row * cols + col);
#pragma unroll
                for (int i = 0; i < kPack; ++i) v[r][p * kPack + i] = to_float(pack.v[i]);
            } else {
#pragma unroll
                for (int i = 0; i < kPack; ++i) v[r][p * kPack + i] = -INFINITY;
            }
#pragma unroll
            for (int i = 0; i < kPack; ++i) max[r] = fmaxf(max[r], v[r][p * kPack + i]);
        }
    }
#pragma unroll
    for (int r = 0; r < kRowsPerGroup; ++r) max[r] = wb::warp_reduce_max<kGroupWidth>(max[r]);

    float scale[kRowsPerGroup];
#pragma unroll
    for (int r = 0; r < kRowsPerGroup; ++r) {
        float sum = 0.0f;
#pragma unroll
        for (int i = 0; i < kColsPerThread; ++i) {
            if constexpr (op == Op::softmax) {
                v[r][i] = __expf(v[r][i] - max[r]);   // kept: the output is this times 1 / sum
                sum += v[r][i];
            } else {
                sum += __expf(v[r][i] - max[r]);
            }
        }
        scale[r] = row_scale<op>(wb::warp_reduce_sum<kGroupWidth>(sum));
    }

#pragma unroll
    for (int r = 0; r < kRowsPerGroup; ++r) {
        const std::int64_t row = first_row + r;
#pragma unroll
        for (int p = 0; p < kPacks; ++p) {
            const int col = (p * kGroupWidth + lane) * kPack;
            if (row < rows && col < cols) {
                Pack<T, kPack> pack;
#pragma unroll
                for (int i = 0; i < kPack; ++i) {
                    const float value = v[r][p * kPack + i];   // exp(x - max) for softmax, x for log-softmax
                    if constexpr (op == Op::softmax) {
                        pack.v[i] = from_float<T>(value * scale[r]);
                    } else {
                        pack.v[i] = from_float<T>((value - max[r]) - scale[r]);
                    }
                }
                *reinterpret_cast<Pack<T, kPack>*>(y + row * cols + col) = pack;
            }
        }
    }
}

template <typename T, Op op, int kPack, int kColsPerThread, int kGroupWidth, int kRowsPerGroup>
void launch_warp(const T* x, T* y, std::int64_t rows, std::int64_t cols, cudaStream_t stream)
{
    constexpr int kRowsPerBlock = kWarpPathThreads / kGroupWidth * kRowsPerGroup;
    const auto blocks = static_cast<unsigned>(wb::ceil_div<std::int64_t>(rows, kRowsPerBlock));
    softmax_warp_kernel<T, op, kPack, kColsPerThread, kGroupWidth, kRowsPerGroup>
        <<<blocks, kWarpPathThreads, 0, stream>>>(x, y, rows, static_cast<int>(cols));
    WB_CHECK_LAUNCH();
}

/// Whole warps per row: the smallest power-of-two register array that holds the row.
template <typename T, Op op, int kPack, int kColsPerThread>
void dispatch_whole_warps(const T* x, T* y, std::int64_t rows, std::int64_t cols, cudaStream_t stream)
{
    if constexpr (kColsPerThread * wb::kWarpSize < kWarpMaxCols) {
        if (cols > kColsPerThread * wb::kWarpSize) {
            return dispatch_whole_warps<T, op, kPack, kColsPerThread * 2>(x, y, rows, cols, stream);
        }
    }
    launch_warp<T, op, kPack, kColsPerThread, wb::kWarpSize, 1>(x, y, rows, cols, stream);
}

/// Groups narrower than a warp while one pack per lane holds the row; two rows per group.
template <typename T, Op op, int kPack, int kGroupWidth>
void dispatch_groups(const T* x, T* y, std::int64_t rows, std::int64_t cols, cudaStream_t stream)
{
    if constexpr (kGroupWidth < wb::kWarpSize) {
        if (cols > kGroupWidth * kPack) return dispatch_groups<T, op, kPack, kGroupWidth * 2>(x, y, rows, cols, stream);
        launch_warp<T, op, kPack, kPack, kGroupWidth, 2>(x, y, rows, cols, stream);
    } else {
        dispatch_whole_warps<T, op, kPack, kPack>(x, y, rows, cols, stream);
    }
}

// ---- path 2: one block per row, the row cached in shared memory ---------------------------------

template <typename T, Op op, int kPack, int kBlock>
__global__ void __launch_bounds__(kBlock) softmax_smem_kernel(const T* __restrict__ x, T* __restrict__ y, int cols)
{
    extern __shared__ __align__(16) unsigned char smem[];
    auto* cache = reinterpret_cast<Pack<T, kPack>*>(smem);   // the row, as loaded (cols * sizeof(T) bytes)
    __shared__ float scratch[kBlock / wb::kWarpSize];
    const std::int64_t row = blockIdx.x;
    const auto* xr = reinterpret_cast<const Pack<T, kPack>*>(x + row * cols);
    auto* yr = reinterpret_cast<Pack<T, kPack>*>(y + row * cols);
    const int packs = cols / kPack;

    float max = -INFINITY;
#pragma unroll 4
    for (int p = threadIdx.x; p < packs; p += kBlock) {   // the only read of x
        const Pack<T, kPack> pack = xr[p];
        cache[p] = pack;
#pragma unroll
        for (int i = 0; i < kPack; ++i) max = fmaxf(max, to_float(pack.v[i]));
    }
    max = wb::block_reduce_max<kBlock>(max, scratch);   // its __syncthreads also publishes the cache

    float sum = 0.0f;
#pragma unroll 4
    for (int p = threadIdx.x; p < packs; p += kBlock) {
        const Pack<T, kPack> pack = cache[p];
#pragma unroll
        for (int i = 0; i < kPack; ++i) sum += __expf(to_float(pack.v[i]) - max);
    }
    const float scale = row_scale<op>(wb::block_reduce_sum<kBlock>(sum, scratch));

#pragma unroll 4
    for (int p = threadIdx.x; p < packs; p += kBlock) {
        const Pack<T, kPack> pack = cache[p];
        Pack<T, kPack> out;
#pragma unroll
        for (int i = 0; i < kPack; ++i) out.v[i] = from_float<T>(finish<op>(to_float(pack.v[i]), max, scale));
        yr[p] = out;
    }
}

/// Launches the shared-memory path when the row fits; false otherwise. wb::smem_row_threads
/// (common/smem_row.hpp) picks the block size with occupancy queries and remembers its answer.
template <typename T, Op op, int kPack>
bool try_launch_smem(const T* x, T* y, std::int64_t rows, std::int64_t cols, cudaStream_t stream)
{
    const std::size_t smem = static_cast<std::size_t>(cols) * sizeof(T);   // the row, as loaded
    const int threads = wb::smem_row_threads(
        softmax_smem_kernel<T, op, kPack, 128>, softmax_smem_kernel<T, op, kPack, 256>,
        softmax_smem_kernel<T, op, kPack, 512>, softmax_smem_kernel<T, op, kPack, 1024>, cols / kPack, smem);
    const auto blocks = static_cast<unsigned>(rows);
    const int c = static_cast<int>(cols);
    switch (threads) {
        case 1024: softmax_smem_kernel<T, op, kPack, 1024><<<blocks, 1024, smem, stream>>>(x, y, c); break;
        case 512: softmax_smem_kernel<T, op, kPack, 512><<<blocks, 512, smem, stream>>>(x, y, c); break;
        case 256: softmax_smem_kernel<T, op, kPack, 256><<<blocks, 256, smem, stream>>>(x, y, c); break;
        case 128: softmax_smem_kernel<T, op, kPack, 128><<<blocks, 128, smem, stream>>>(x, y, c); break;
        default: return false;
    }
    WB_CHECK_LAUNCH();
    return true;
}

// ---- path 3: rows too long for shared memory: online softmax (stage 5), two reads ----------------

using wb::MaxSum;   // {m, s}: the largest value seen and the sum of exp(x - m); merged by wb::MaxSumMerge

__device__ __forceinline__ void online_add(MaxSum& a, float x)
{
    if (x > a.m) {
        a.s = a.s * __expf(a.m - x) + 1.0f;
        a.m = x;
    } else if (a.m != -INFINITY) {
        a.s += __expf(x - a.m);
    }
}

template <typename T, Op op, int kPack>
__global__ void __launch_bounds__(kUncachedThreads)
    softmax_uncached_kernel(const T* __restrict__ x, T* __restrict__ y, std::int64_t cols)
{
    constexpr int kWarps = kUncachedThreads / wb::kWarpSize;
    __shared__ MaxSum scratch[kWarps];
    const std::int64_t row = blockIdx.x;
    const auto* xr = reinterpret_cast<const Pack<T, kPack>*>(x + row * cols);
    auto* yr = reinterpret_cast<Pack<T, kPack>*>(y + row * cols);
    const std::int64_t packs = cols / kPack;

    MaxSum a{-INFINITY, 0.0f};
#pragma unroll 4
    for (std::int64_t p = threadIdx.x; p < packs; p += kUncachedThreads) {
        const Pack<T, kPack> pack = xr[p];
#pragma unroll
        for (int i = 0; i < kPack; ++i) online_add(a, to_float(pack.v[i]));
    }
    a = wb::block_allreduce<wb::MaxSumMerge, kUncachedThreads, wb::Scratch::last_use>(a, scratch);
    const float scale = row_scale<op>(a.s);

    Pack<T, kPack> next = xr[threadIdx.x];   // the first pack, before the loop (no test against packs)
#pragma unroll 4
    for (std::int64_t p = threadIdx.x; p < packs; p += kUncachedThreads) {
        const Pack<T, kPack> pack = next;
        next = xr[p + kUncachedThreads];   // the next turn's pack, loaded early: past the row on the last turn
        Pack<T, kPack> out;
#pragma unroll
        for (int i = 0; i < kPack; ++i) out.v[i] = from_float<T>(finish<op>(to_float(pack.v[i]), a.m, scale));
        yr[p] = out;
    }
}

// ---- the dispatch -------------------------------------------------------------------------------

template <typename T, Op op, int kPack>
void dispatch_paths(const T* x, T* y, std::int64_t rows, std::int64_t cols, cudaStream_t stream)
{
    if (cols <= kWarpMaxCols) return dispatch_groups<T, op, kPack, 1>(x, y, rows, cols, stream);
    if (try_launch_smem<T, op, kPack>(x, y, rows, cols, stream)) return;
    softmax_uncached_kernel<T, op, kPack><<<static_cast<unsigned>(rows), kUncachedThreads, 0, stream>>>(x, y, cols);
    WB_CHECK_LAUNCH();
}

template <typename T, Op op>
void dispatch(const T* x, T* y, std::int64_t rows, std::int64_t cols, cudaStream_t stream)
{
    constexpr int kWidest = 16 / sizeof(T);   // 16-byte accesses: 4 floats or 8 halves
    // Rows start at multiples of cols elements: 16-byte packs stay aligned only if kWidest divides cols.
    if (cols % kWidest == 0) return dispatch_paths<T, op, kWidest>(x, y, rows, cols, stream);
    dispatch_paths<T, op, 1>(x, y, rows, cols, stream);
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
