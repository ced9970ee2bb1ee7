// Chapter 3, stage 6: a softmax that picks its kernel by row length; fp32, fp16, log-softmax.          (your exercise)
//
// Write the kernel and the launch. The contract (sizes, alignment, what is checked) is in
// chapters/03_softmax/stages.cuh; the lesson is chapters/03_softmax/README.md.
// Grade it with `make check-chapter 3`. You may change anything in this file except the
// launcher's name and parameters. `make hint CH=3 STAGE=6` when stuck.
#include "03_softmax/stages.cuh"
#include "common/primitives.cuh"
#include "common/smem_row.hpp"

namespace WORKBOOK_TRACK {

//@ guided
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
    // TODO: stage 4's kernel, generalised. lane = threadIdx.x % kGroupWidth; the group's first
    //       row is (global thread index / kGroupWidth) * kRowsPerGroup. float v[kRowsPerGroup][kColsPerThread]:
    //       load pack p of each row at column (p * kGroupWidth + lane) * kPack (to_float on each
    //       element), -INFINITY past the end of the row or past the last row. Reduce with
    //       wb::warp_reduce_max<kGroupWidth> / wb::warp_reduce_sum<kGroupWidth>.
    //       Never return early: the shuffles use the full warp mask, so every lane must reach them.
    //       Store with from_float<T>: exp(x - max) / sum, or (x - max) - log(sum) for log-softmax.
}

template <typename T, Op op, int kPack, int kColsPerThread, int kGroupWidth, int kRowsPerGroup>
void launch_warp(const T* x, T* y, std::int64_t rows, std::int64_t cols, cudaStream_t stream)
{
    // TODO: blocks of kWarpPathThreads threads serve kWarpPathThreads / kGroupWidth * kRowsPerGroup
    //       rows each; launch softmax_warp_kernel<...> on `stream`, then WB_CHECK_LAUNCH().
    (void)x, (void)y, (void)rows, (void)cols, (void)stream;
}

/// Whole warps per row: the smallest power-of-two register array that holds the row.
template <typename T, Op op, int kPack, int kColsPerThread>
void dispatch_whole_warps(const T* x, T* y, std::int64_t rows, std::int64_t cols, cudaStream_t stream)
{
    // TODO: if cols > kColsPerThread * 32 (and kColsPerThread * 32 < kWarpMaxCols, an `if constexpr`),
    //       recurse with kColsPerThread * 2; otherwise launch_warp<T, op, kPack, kColsPerThread, 32, 1>.
    (void)x, (void)y, (void)rows, (void)cols, (void)stream;
}

/// Groups narrower than a warp while one pack per lane holds the row; two rows per group.
template <typename T, Op op, int kPack, int kGroupWidth>
void dispatch_groups(const T* x, T* y, std::int64_t rows, std::int64_t cols, cudaStream_t stream)
{
    // TODO: for kGroupWidth < 32: if cols > kGroupWidth * kPack recurse with kGroupWidth * 2, else
    //       launch_warp<T, op, kPack, kPack, kGroupWidth, 2>. At 32: dispatch_whole_warps<T, op, kPack, kPack>.
    (void)x, (void)y, (void)rows, (void)cols, (void)stream;
}

// ---- path 2: one block per row, the row cached in shared memory ---------------------------------

template <typename T, Op op, int kPack, int kBlock>
__global__ void __launch_bounds__(kBlock) softmax_smem_kernel(const T* __restrict__ x, T* __restrict__ y, int cols)
{
    // TODO: extern __shared__ __align__(16) unsigned char smem[]; holds the row (cols elements of
    //       T). Loop over the packs (p = threadIdx.x; p < cols / kPack; p += kBlock): load from x,
    //       store into shared memory, keep the maximum; wb::block_reduce_max<kBlock> (its
    //       __syncthreads makes the cached row visible to all). Sum of __expf(v - max) from shared
    //       memory, wb::block_reduce_sum<kBlock>; then write every output from shared memory.
}

/// Launches the shared-memory path when the row fits; false otherwise. wb::smem_row_threads
/// (common/smem_row.hpp) picks the block size with occupancy queries and remembers its answer.
template <typename T, Op op, int kPack>
bool try_launch_smem(const T* x, T* y, std::int64_t rows, std::int64_t cols, cudaStream_t stream)
{
    // TODO: smem = cols * sizeof(T) (the row, as loaded); threads = wb::smem_row_threads(
    //       softmax_smem_kernel<T, op, kPack, 128>, ... 256, 512, 1024>, cols / kPack, smem). Read
    //       how it chooses (common/smem_row.hpp). 0: return false. Otherwise launch rows blocks of
    //       that many threads with smem bytes of dynamic shared memory (a switch over the four sizes).
    (void)x, (void)y, (void)rows, (void)cols, (void)stream;
    return false;
}

// ---- path 3: rows too long for shared memory: online softmax (stage 5), two reads ----------------

using wb::MaxSum;   // {m, s}: the largest value seen and the sum of exp(x - m); merged by wb::MaxSumMerge

__device__ __forceinline__ void online_add(MaxSum& a, float x)
{
    // TODO: stage 5's update.
}

template <typename T, Op op, int kPack>
__global__ void __launch_bounds__(kUncachedThreads)
    softmax_uncached_kernel(const T* __restrict__ x, T* __restrict__ y, std::int64_t cols)
{
    // TODO: stage 5's kernel on T: pass 1 builds the (max, sum) pair and merges the block's pairs
    //       (wb::block_allreduce<wb::MaxSumMerge, kUncachedThreads>), pass 2 reads x again and
    //       writes finish<op>(to_float(v), max, row_scale<op>(sum)).
}

// ---- the dispatch -------------------------------------------------------------------------------

template <typename T, Op op, int kPack>
void dispatch_paths(const T* x, T* y, std::int64_t rows, std::int64_t cols, cudaStream_t stream)
{
    // TODO: cols <= kWarpMaxCols: dispatch_groups<T, op, kPack, 1>; else the shared-memory path if
    //       try_launch_smem succeeds; else softmax_uncached_kernel, one block of kUncachedThreads per row.
    (void)x, (void)y, (void)rows, (void)cols, (void)stream;
}

template <typename T, Op op>
void dispatch(const T* x, T* y, std::int64_t rows, std::int64_t cols, cudaStream_t stream)
{
    // TODO: kPack = 16 / sizeof(T) when it divides cols (16-byte accesses stay aligned), else 1:
    //       dispatch_paths<T, op, kPack>.
    (void)x, (void)y, (void)rows, (void)cols, (void)stream;
}

}   // namespace
//@ end
//@ outline
// TODO: a kernel that holds short rows in registers, a group of lanes (or a whole warp) per row, several rows per group
//       when rows are very short.
// TODO: a kernel for medium rows: a block per row, the row cached in shared memory so that global memory is read only
//       once.
// TODO: a kernel for rows too long for shared memory: the online softmax of stage 5, one block per row; the launchers
//       pick one of the three by row length and element type.
//@ end

void softmax_6_dispatch(const float* x, float* y, std::int64_t rows, std::int64_t cols, cudaStream_t stream)
{
    //@ guided
    // TODO: dispatch<float, Op::softmax>(x, y, rows, cols, stream);
    //@ end
    //@ outline
    // TODO: pick the kernel for this shape and launch it on `stream` with the grid, block and shared
    //       memory you choose, then check the launch with WB_CHECK_LAUNCH.
    //@ end
    (void)x, (void)y, (void)rows, (void)cols, (void)stream;
}

void softmax_6_dispatch_half(const __half* x, __half* y, std::int64_t rows, std::int64_t cols, cudaStream_t stream)
{
    //@ guided
    // TODO: dispatch<__half, Op::softmax>(x, y, rows, cols, stream);
    //@ end
    //@ outline
    // TODO: pick the kernel for this shape and launch it on `stream` with the grid, block and shared
    //       memory you choose, then check the launch with WB_CHECK_LAUNCH.
    //@ end
    (void)x, (void)y, (void)rows, (void)cols, (void)stream;
}

void log_softmax_6_dispatch(const float* x, float* y, std::int64_t rows, std::int64_t cols, cudaStream_t stream)
{
    //@ guided
    // TODO: dispatch<float, Op::log_softmax>(x, y, rows, cols, stream);
    //@ end
    //@ outline
    // TODO: pick the kernel for this shape and launch it on `stream` with the grid, block and shared
    //       memory you choose, then check the launch with WB_CHECK_LAUNCH.
    //@ end
    (void)x, (void)y, (void)rows, (void)cols, (void)stream;
}

}   // namespace WORKBOOK_TRACK
