// Chapter 4, stage 6: a LayerNorm that picks its kernel by row length; fp32, fp16, bf16.          (your exercise)
//
// Write the kernel and the launch. The contract (sizes, alignment, what is checked) is in
// chapters/04_layernorm/stages.cuh; the lesson is chapters/04_layernorm/README.md.
// Grade it with `make check-chapter 4`. You may change anything in this file except the
// launcher's name and parameters. `make hint CH=4 STAGE=6` when stuck.
#include "04_layernorm/stages.cuh"
#include "04_layernorm/welford.cuh"
#include "common/primitives.cuh"

namespace WORKBOOK_TRACK {

namespace {

/// The longest row the register (warp) path handles: 64 floats per lane.
constexpr int kWarpMaxCols = 2048;
constexpr int kWarpPathThreads = 128;   // threads per block of the warp path
constexpr int kUncachedThreads = 512;   // threads per block of the uncached path

template <typename T, int kPack>
struct alignas(sizeof(T) * kPack) Pack {
    T v[kPack];
};

__device__ __forceinline__ float to_float(float v) { return v; }
__device__ __forceinline__ float to_float(__half v) { return __half2float(v); }
__device__ __forceinline__ float to_float(__nv_bfloat16 v) { return __bfloat162float(v); }
template <typename T>
__device__ __forceinline__ T from_float(float v);
template <>
__device__ __forceinline__ float from_float<float>(float v)
{
    return v;
}
template <>
__device__ __forceinline__ __half from_float<__half>(float v)
{
    return __float2half_rn(v);
}
template <>
__device__ __forceinline__ __nv_bfloat16 from_float<__nv_bfloat16>(float v)
{
    return __float2bfloat16_rn(v);
}

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

/// Narrow groups (1 to 16 lanes, two rows each) for short rows, whole warps up to kWarpMaxCols.
template <typename T, int kPack>
void dispatch_warp_path(const Args<T>& a, cudaStream_t stream)
{
    // TODO: as in chapter 3 stage 6: the narrowest group width w (1, 2, 4, 8, 16) with
    //       cols <= w * kPack, two rows per group; otherwise 32 lanes and the smallest power of
    //       two kColsPerThread (at least kPack) with kColsPerThread * 32 >= cols, one row.
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

/// Launches the shared-memory path when the row fits; false otherwise.
template <typename T, int kPack>
bool try_launch_smem(const Args<T>& a, cudaStream_t stream)
{
    // TODO: as in chapter 3 stage 6: give up when cols * sizeof(T) exceeds the opt-in limit;
    //       otherwise about four packs per thread (128 to 1024 threads), halved while fewer than
    //       3 blocks fit on an SM and the half size fits more (cudaFuncSetAttribute, then
    //       cudaOccupancyMaxActiveBlocksPerMultiprocessor). Remember the choice for the last cols seen.
    (void)a, (void)stream;
    return false;
}

// ---- path 3: rows too long for shared memory: Welford over global memory, then a second read ------

template <typename T, int kPack>
__global__ void __launch_bounds__(kUncachedThreads)
    layernorm_uncached_kernel(const T* __restrict__ x, const T* __restrict__ gamma, const T* __restrict__ beta,
                              T* __restrict__ y, float* __restrict__ mean, float* __restrict__ rstd,
                              std::int64_t cols, float eps)
{
    // TODO: one block per row. ch04::welford_update over the thread's packs, then
    //       ch04::block_welford_reduce<kUncachedThreads>(state, scratch) with a
    //       __shared__ ch04::Welford scratch[kUncachedThreads / 32]. Thread 0 writes mean and
    //       rstd; then read x again and write y.
}

// ---- the dispatch -------------------------------------------------------------------------------

template <typename T>
void dispatch(const Args<T>& a, cudaStream_t stream)
{
    // TODO: kPack = 16 / sizeof(T) when it divides cols, else 1. cols <= kWarpMaxCols: the warp
    //       path; else try_launch_smem; else the uncached kernel with one block per row.
    (void)a, (void)stream;
}

}  // namespace

void layernorm_6_dispatch(const float* x, const float* gamma, const float* beta, float* y, float* mean,
                          float* rstd, std::int64_t rows, std::int64_t cols, float eps, cudaStream_t stream)
{
    // TODO: dispatch<float>({x, gamma, beta, y, mean, rstd, rows, cols, eps}, stream);
    (void)x, (void)gamma, (void)beta, (void)y, (void)mean, (void)rstd, (void)rows, (void)cols, (void)eps,
        (void)stream;
}

void layernorm_6_dispatch_half(const __half* x, const __half* gamma, const __half* beta, __half* y, float* mean,
                               float* rstd, std::int64_t rows, std::int64_t cols, float eps, cudaStream_t stream)
{
    // TODO: dispatch<__half>(...);
    (void)x, (void)gamma, (void)beta, (void)y, (void)mean, (void)rstd, (void)rows, (void)cols, (void)eps,
        (void)stream;
}

void layernorm_6_dispatch_bf16(const __nv_bfloat16* x, const __nv_bfloat16* gamma, const __nv_bfloat16* beta,
                               __nv_bfloat16* y, float* mean, float* rstd, std::int64_t rows, std::int64_t cols,
                               float eps, cudaStream_t stream)
{
    // TODO: dispatch<__nv_bfloat16>(...);
    (void)x, (void)gamma, (void)beta, (void)y, (void)mean, (void)rstd, (void)rows, (void)cols, (void)eps,
        (void)stream;
}

}  // namespace WORKBOOK_TRACK
