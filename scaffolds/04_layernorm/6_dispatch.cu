// Chapter 4, stage 6: a LayerNorm that picks its kernel by row length; fp32, fp16, bf16.          (your exercise)
//
// Write the kernel and the launch. The contract (sizes, alignment, what is checked) is in
// chapters/04_layernorm/stages.cuh; the lesson is chapters/04_layernorm/README.md.
// Grade it with `make check-chapter 4`. You may change anything in this file except the
// launcher's name and parameters. `make hint CH=4 STAGE=6` when stuck.
#include "04_layernorm/stages.cuh"
#include "04_layernorm/welford.cuh"
#include "common/primitives.cuh"
#include "common/smem_row.hpp"

namespace WORKBOOK_TRACK {

//@ guided
namespace {

/// The longest row the register (warp) path handles: 64 floats per lane.
constexpr int kWarpMaxCols = 2048;
constexpr int kWarpPathThreads = 128;   // threads per block of the warp path
constexpr int kUncachedThreads = 512;   // threads per block of the uncached path

using wb::Pack;   // kPack elements moved as one access (common/primitives.cuh)

using wb::from_float;
using wb::to_float;

/// All the arguments of a launch, passed along the dispatch.
template <typename T>
struct Args {
    const T* x;
    const T* gamma;
    const T* beta;
    T* y;
    float* mean;
    float* rstd;
    std::int64_t rows;
    std::int64_t cols;
    float eps;
};

/// y for one pack: (v - mean) * rstd * gamma + beta, rounded once to T.
template <typename T, int kPack>
__device__ __forceinline__ Pack<T, kPack> normalise(const float (&v)[kPack], float mu, float r, const Pack<T, kPack>& g,
                                                    const Pack<T, kPack>& b)
{
    // TODO: out.v[i] = from_float<T>((v[i] - mu) * r * to_float(g.v[i]) + to_float(b.v[i])).
    //       Callers: copy gamma and beta packs into locals first (one 16-byte load each); a pack
    //       passed straight from global memory by reference may be read element by element.
    return Pack<T, kPack>{};
}

// ---- path 1: rows in registers, kGroupWidth lanes per row, kRowsPerGroup rows per group ----------

template <typename T, int kPack, int kColsPerThread, int kGroupWidth, int kRowsPerGroup>
__global__ void __launch_bounds__(kWarpPathThreads)
    layernorm_warp_kernel(const T* __restrict__ x, const T* __restrict__ gamma, const T* __restrict__ beta,
                          T* __restrict__ y, float* __restrict__ mean, float* __restrict__ rstd, std::int64_t rows,
                          int cols, float eps)
{
    // TODO: stage 4's kernel generalised to groups: lane = threadIdx.x % kGroupWidth, the group's
    //       first row = (global thread index / kGroupWidth) * kRowsPerGroup, pack p of a row at
    //       column (p * kGroupWidth + lane) * kPack. Reductions with wb::warp_reduce_sum<kGroupWidth>.
    //       No early return (full-mask shuffles): rows past the end load zeros and store nothing.
    //       Convert with to_float on load and from_float<T> on store; mean and rstd stay float.
}

template <typename T, int kPack, int kColsPerThread, int kGroupWidth, int kRowsPerGroup>
void launch_warp(const Args<T>& a, cudaStream_t stream)
{
    // TODO: blocks of kWarpPathThreads threads serve kWarpPathThreads / kGroupWidth * kRowsPerGroup
    //       rows each; launch layernorm_warp_kernel<...> on `stream`, then WB_CHECK_LAUNCH().
    (void)a, (void)stream;
}

/// Whole warps per row: the smallest power-of-two register array that holds the row.
template <typename T, int kPack, int kColsPerThread>
void dispatch_whole_warps(const Args<T>& a, cudaStream_t stream)
{
    // TODO: as in chapter 3 stage 6: recurse with kColsPerThread * 2 while the row does not fit
    //       (up to kWarpMaxCols), then launch_warp<T, kPack, kColsPerThread, 32, 1>.
    (void)a, (void)stream;
}

/// Groups narrower than a warp while one pack per lane holds the row; two rows per group.
template <typename T, int kPack, int kGroupWidth>
void dispatch_groups(const Args<T>& a, cudaStream_t stream)
{
    // TODO: as in chapter 3 stage 6: the narrowest width (1 to 16) with cols <= width * kPack gets
    //       launch_warp<T, kPack, kPack, width, 2>; otherwise dispatch_whole_warps<T, kPack, kPack>.
    (void)a, (void)stream;
}

// ---- path 2: one block per row, the row cached in shared memory ---------------------------------

template <typename T, int kPack, int kBlock>
__global__ void __launch_bounds__(kBlock)
    layernorm_smem_kernel(const T* __restrict__ x, const T* __restrict__ gamma, const T* __restrict__ beta,
                          T* __restrict__ y, float* __restrict__ mean, float* __restrict__ rstd, int cols, float eps)
{
    // TODO: stage 5's kernel on T (cache the row as loaded: cols * sizeof(T) bytes), with
    //       wb::block_reduce_sum<kBlock>.
}

/// Launches the shared-memory path when the row fits; false otherwise. wb::smem_row_threads
/// (common/smem_row.hpp) picks the block size with occupancy queries and remembers its answer.
template <typename T, int kPack>
bool try_launch_smem(const Args<T>& a, cudaStream_t stream)
{
    // TODO: as in chapter 3 stage 6: smem = cols * sizeof(T); threads = wb::smem_row_threads(the
    //       kernel for 128, 256, 512 and 1024 threads, cols / kPack, smem); false when it is 0, else
    //       launch rows blocks of that many threads (a switch over the four sizes).
    (void)a, (void)stream;
    return false;
}

// ---- path 3: rows too long for shared memory: Welford over global memory, then a second read ------

template <typename T, int kPack>
__global__ void __launch_bounds__(kUncachedThreads)
    layernorm_uncached_kernel(const T* __restrict__ x, const T* __restrict__ gamma, const T* __restrict__ beta,
                              T* __restrict__ y, float* __restrict__ mean, float* __restrict__ rstd, std::int64_t cols,
                              float eps)
{
    // TODO: one block per row. ch04::welford_update over the thread's packs, then
    //       wb::block_allreduce<wb::WelfordMerge, kUncachedThreads>(state, scratch) with a
    //       __shared__ ch04::Welford scratch[kUncachedThreads / 32]. Thread 0 writes mean and
    //       rstd; then read x again and write y.
}

// ---- the dispatch -------------------------------------------------------------------------------

template <typename T, int kPack>
void dispatch_paths(const Args<T>& a, cudaStream_t stream)
{
    // TODO: cols <= kWarpMaxCols: dispatch_groups<T, kPack, 1>; else try_launch_smem; else the
    //       uncached kernel with one block of kUncachedThreads per row.
    (void)a, (void)stream;
}

template <typename T>
void dispatch(const Args<T>& a, cudaStream_t stream)
{
    // TODO: kPack = 16 / sizeof(T) when it divides cols, else 1: dispatch_paths<T, kPack>.
    (void)a, (void)stream;
}

}   // namespace
//@ end
//@ outline
// TODO: a kernel that holds short rows in registers, a warp or a group of lanes per row.
// TODO: a kernel for medium rows: a block per row, the row cached in shared memory.
// TODO: a kernel for rows too long for shared memory, reading the row twice; the launchers pick one of the three by row
//       length and element type.
//@ end

void layernorm_6_dispatch(const float* x, const float* gamma, const float* beta, float* y, float* mean, float* rstd,
                          std::int64_t rows, std::int64_t cols, float eps, cudaStream_t stream)
{
    //@ guided
    // TODO: dispatch<float>({x, gamma, beta, y, mean, rstd, rows, cols, eps}, stream);
    //@ end
    //@ outline
    // TODO: pick the kernel for this shape and launch it on `stream` with the grid, block and shared
    //       memory you choose, then check the launch with WB_CHECK_LAUNCH.
    //@ end
    (void)x, (void)gamma, (void)beta, (void)y, (void)mean, (void)rstd, (void)rows, (void)cols, (void)eps, (void)stream;
}

void layernorm_6_dispatch_half(const __half* x, const __half* gamma, const __half* beta, __half* y, float* mean,
                               float* rstd, std::int64_t rows, std::int64_t cols, float eps, cudaStream_t stream)
{
    //@ guided
    // TODO: dispatch<__half>(...);
    //@ end
    //@ outline
    // TODO: pick the kernel for this shape and launch it on `stream` with the grid, block and shared
    //       memory you choose, then check the launch with WB_CHECK_LAUNCH.
    //@ end
    (void)x, (void)gamma, (void)beta, (void)y, (void)mean, (void)rstd, (void)rows, (void)cols, (void)eps, (void)stream;
}

void layernorm_6_dispatch_bf16(const __nv_bfloat16* x, const __nv_bfloat16* gamma, const __nv_bfloat16* beta,
                               __nv_bfloat16* y, float* mean, float* rstd, std::int64_t rows, std::int64_t cols,
                               float eps, cudaStream_t stream)
{
    //@ guided
    // TODO: dispatch<__nv_bfloat16>(...);
    //@ end
    //@ outline
    // TODO: pick the kernel for this shape and launch it on `stream` with the grid, block and shared
    //       memory you choose, then check the launch with WB_CHECK_LAUNCH.
    //@ end
    (void)x, (void)gamma, (void)beta, (void)y, (void)mean, (void)rstd, (void)rows, (void)cols, (void)eps, (void)stream;
}

}   // namespace WORKBOOK_TRACK
