// Catalog, chapter 4, stage 6: the shared-memory path loads each thread's next pack of x one turn early, unguarded.
// expect: wrong "memcheck found"
// emulated: crashed "read past the end of an input array"
//
// The reference stage 6 with a software prefetch in the first loop of the shared-memory path (rows
// longer than 2048): a thread loads the pack it will cache on its next turn before it caches this one,
// and its first pack before the loop, without the test p < packs. The packs loaded past a row's end are
// never used, so every y, mean and rstd is right; but the last turn of each thread reads one block's
// width of packs past the row: into the next row (harmless), and on the last row past the end of x.
// Only the shared-memory path does it. On a GPU memcheck sees it once the sanitizer pass runs on to the
// first call that launches that kernel (harness/sanitizer_plan.hpp); the first 8 calls of the chapter
// have short rows and run only the register path. The emulator stops the first load that reaches the
// guard bytes after x.
#include "04_layernorm/stages.cuh"
#include "04_layernorm/welford.cuh"
#include "common/primitives.cuh"
#include "common/smem_row.hpp"

namespace WORKBOOK_TRACK {

namespace {

/// The longest row the register (warp) path handles: 64 floats per lane.
constexpr int kWarpMaxCols = 2048;
constexpr int kWarpPathThreads = 128;   // threads per block of the warp path
constexpr int kUncachedThreads = 512;   // threads per block of the uncached path

using wb::Pack;   // kPack elements moved as one access (common/primitives.cuh)

using wb::from_float;
using wb::to_float;

/// y for one pack: (v - mean) * rstd * gamma + beta, rounded once to T.
template <typename T, int kPack>
__device__ __forceinline__ Pack<T, kPack> normalise(const float (&v)[kPack], float mu, float r, const Pack<T, kPack>& g,
                                                    const Pack<T, kPack>& b)
{
    Pack<T, kPack> out;
#pragma unroll
    for (int i = 0; i < kPack; ++i) out.v[i] = from_float<T>((v[i] - mu) * r * to_float(g.v[i]) + to_float(b.v[i]));
    return out;
}

// ---- path 1: rows in registers, kGroupWidth lanes per row, kRowsPerGroup rows per group ----------

template <typename T, int kPack, int kColsPerThread, int kGroupWidth, int kRowsPerGroup>
__global__ void __launch_bounds__(kWarpPathThreads)
    layernorm_warp_kernel(const T* __restrict__ x, const T* __restrict__ gamma, const T* __restrict__ beta,
                          T* __restrict__ y, float* __restrict__ mean, float* __restrict__ rstd, std::int64_t rows,
                          int cols, float eps)
{
    static_assert(kColsPerThread % kPack == 0 && wb::kWarpSize % kGroupWidth == 0, "whole packs, whole groups");
    constexpr int kPacks = kColsPerThread / kPack;
    const int lane = threadIdx.x % kGroupWidth;
    const std::int64_t group = (static_cast<std::int64_t>(blockIdx.x) * kWarpPathThreads + threadIdx.x) / kGroupWidth;
    const std::int64_t first_row = group * kRowsPerGroup;
    const float n = static_cast<float>(cols);

    // No early return: the shuffles use the full warp mask, so every lane must reach them.
    float v[kRowsPerGroup][kPacks][kPack];
    float mu[kRowsPerGroup];
#pragma unroll
    for (int r = 0; r < kRowsPerGroup; ++r) {
        const std::int64_t row = first_row + r;
        float sum = 0.0f;
#pragma unroll
        for (int p = 0; p < kPacks; ++p) {
            const int col = (p * kGroupWidth + lane) * kPack;
            if (row < rows && col < cols) {
                const Pack<T, kPack> pack = *reinterpret_cast<const Pack<T, kPack>*>(x + row * cols + col);
#pragma unroll
                for (int i = 0; i < kPack; ++i) v[r][p][i] = to_float(pack.v[i]);
            } else {
#pragma unroll
                for (int i = 0; i < kPack; ++i) v[r][p][i] = 0.0f;
            }
#pragma unroll
            for (int i = 0; i < kPack; ++i) sum += v[r][p][i];
        }
        mu[r] = sum;
    }
#pragma unroll
    for (int r = 0; r < kRowsPerGroup; ++r) mu[r] = wb::warp_reduce_sum<kGroupWidth>(mu[r]) / n;

    float rs[kRowsPerGroup];   // second pass over the registers: exact two-pass variance
#pragma unroll
    for (int r = 0; r < kRowsPerGroup; ++r) {
        float squares = 0.0f;
#pragma unroll
        for (int p = 0; p < kPacks; ++p) {
            if ((p * kGroupWidth + lane) * kPack < cols) {
#pragma unroll
                for (int i = 0; i < kPack; ++i) {
                    const float d = v[r][p][i] - mu[r];
                    squares += d * d;
                }
            }
        }
        rs[r] = squares;
    }
#pragma unroll
    for (int r = 0; r < kRowsPerGroup; ++r) rs[r] = rsqrtf(wb::warp_reduce_sum<kGroupWidth>(rs[r]) / n + eps);

#pragma unroll
    for (int r = 0; r < kRowsPerGroup; ++r) {
        const std::int64_t row = first_row + r;
        if (row >= rows) continue;
        if (lane == 0) {
            mean[row] = mu[r];
            rstd[row] = rs[r];
        }
#pragma unroll
        for (int p = 0; p < kPacks; ++p) {
            const int col = (p * kGroupWidth + lane) * kPack;
            if (col < cols) {
                const Pack<T, kPack> g = *reinterpret_cast<const Pack<T, kPack>*>(gamma + col);
                const Pack<T, kPack> b = *reinterpret_cast<const Pack<T, kPack>*>(beta + col);
                *reinterpret_cast<Pack<T, kPack>*>(y + row * cols + col) =
                    normalise<T, kPack>(v[r][p], mu[r], rs[r], g, b);
            }
        }
    }
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

template <typename T, int kPack, int kColsPerThread, int kGroupWidth, int kRowsPerGroup>
void launch_warp(const Args<T>& a, cudaStream_t stream)
{
    constexpr int kRowsPerBlock = kWarpPathThreads / kGroupWidth * kRowsPerGroup;
    const auto blocks = static_cast<unsigned>(wb::ceil_div<std::int64_t>(a.rows, kRowsPerBlock));
    layernorm_warp_kernel<T, kPack, kColsPerThread, kGroupWidth, kRowsPerGroup>
        <<<blocks, kWarpPathThreads, 0, stream>>>(a.x, a.gamma, a.beta, a.y, a.mean, a.rstd, a.rows,
                                                  static_cast<int>(a.cols), a.eps);
    WB_CHECK_LAUNCH();
}

/// Whole warps per row: the smallest power-of-two register array that holds the row.
template <typename T, int kPack, int kColsPerThread>
void dispatch_whole_warps(const Args<T>& a, cudaStream_t stream)
{
    if constexpr (kColsPerThread * wb::kWarpSize < kWarpMaxCols) {
        if (a.cols > kColsPerThread * wb::kWarpSize)
            return dispatch_whole_warps<T, kPack, kColsPerThread * 2>(a, stream);
    }
    launch_warp<T, kPack, kColsPerThread, wb::kWarpSize, 1>(a, stream);
}

/// Groups narrower than a warp while one pack per lane holds the row; two rows per group.
template <typename T, int kPack, int kGroupWidth>
void dispatch_groups(const Args<T>& a, cudaStream_t stream)
{
    if constexpr (kGroupWidth < wb::kWarpSize) {
        if (a.cols > kGroupWidth * kPack) return dispatch_groups<T, kPack, kGroupWidth * 2>(a, stream);
        launch_warp<T, kPack, kPack, kGroupWidth, 2>(a, stream);
    } else {
        dispatch_whole_warps<T, kPack, kPack>(a, stream);
    }
}

// ---- path 2: one block per row, the row cached in shared memory ---------------------------------

template <typename T, int kPack, int kBlock>
__global__ void __launch_bounds__(kBlock)
    layernorm_smem_kernel(const T* __restrict__ x, const T* __restrict__ gamma, const T* __restrict__ beta,
                          T* __restrict__ y, float* __restrict__ mean, float* __restrict__ rstd, int cols, float eps)
{
    extern __shared__ __align__(16) unsigned char smem[];
    auto* cache = reinterpret_cast<Pack<T, kPack>*>(smem);   // the row, as loaded
    __shared__ float scratch[kBlock / wb::kWarpSize];
    const std::int64_t row = blockIdx.x;
    const auto* xr = reinterpret_cast<const Pack<T, kPack>*>(x + row * cols);
    auto* yr = reinterpret_cast<Pack<T, kPack>*>(y + row * cols);
    const auto* g = reinterpret_cast<const Pack<T, kPack>*>(gamma);
    const auto* b = reinterpret_cast<const Pack<T, kPack>*>(beta);
    const int packs = cols / kPack;
    const float n = static_cast<float>(cols);

    float sum = 0.0f;
    Pack<T, kPack> next = xr[threadIdx.x];   // the first pack, before the loop (no test against packs)
#pragma unroll 4
    for (int p = threadIdx.x; p < packs; p += kBlock) {   // the only read of x
        const Pack<T, kPack> pack = next;
        next = xr[p + kBlock];   // the next turn's pack, loaded early: past the row on the last turn
        cache[p] = pack;
#pragma unroll
        for (int i = 0; i < kPack; ++i) sum += to_float(pack.v[i]);
    }
    const float mu = wb::block_reduce_sum<kBlock>(sum, scratch) / n;   // its barrier publishes the cache

    float squares = 0.0f;
#pragma unroll 4
    for (int p = threadIdx.x; p < packs; p += kBlock) {
        const Pack<T, kPack> pack = cache[p];
#pragma unroll
        for (int i = 0; i < kPack; ++i) {
            const float d = to_float(pack.v[i]) - mu;
            squares += d * d;
        }
    }
    const float r = rsqrtf(wb::block_reduce_sum<kBlock>(squares, scratch) / n + eps);
    if (threadIdx.x == 0) {
        mean[row] = mu;
        rstd[row] = r;
    }

#pragma unroll 4
    for (int p = threadIdx.x; p < packs; p += kBlock) {
        const Pack<T, kPack> pack = cache[p];
        const Pack<T, kPack> gp = g[p];   // copies: 16-byte loads (passed by reference,
        const Pack<T, kPack> bp = b[p];   // g[p] would be read element by element)
        float v[kPack];
#pragma unroll
        for (int i = 0; i < kPack; ++i) v[i] = to_float(pack.v[i]);
        yr[p] = normalise<T, kPack>(v, mu, r, gp, bp);
    }
}

/// Launches the shared-memory path when the row fits; false otherwise. wb::smem_row_threads
/// (common/smem_row.hpp) picks the block size with occupancy queries and remembers its answer.
template <typename T, int kPack>
bool try_launch_smem(const Args<T>& a, cudaStream_t stream)
{
    const std::size_t smem = static_cast<std::size_t>(a.cols) * sizeof(T);   // the row, as loaded
    const int threads = wb::smem_row_threads(layernorm_smem_kernel<T, kPack, 128>, layernorm_smem_kernel<T, kPack, 256>,
                                             layernorm_smem_kernel<T, kPack, 512>,
                                             layernorm_smem_kernel<T, kPack, 1024>, a.cols / kPack, smem);
    const auto blocks = static_cast<unsigned>(a.rows);
    const int c = static_cast<int>(a.cols);
    switch (threads) {
        case 1024:
            layernorm_smem_kernel<T, kPack, 1024>
                <<<blocks, 1024, smem, stream>>>(a.x, a.gamma, a.beta, a.y, a.mean, a.rstd, c, a.eps);
            break;
        case 512:
            layernorm_smem_kernel<T, kPack, 512>
                <<<blocks, 512, smem, stream>>>(a.x, a.gamma, a.beta, a.y, a.mean, a.rstd, c, a.eps);
            break;
        case 256:
            layernorm_smem_kernel<T, kPack, 256>
                <<<blocks, 256, smem, stream>>>(a.x, a.gamma, a.beta, a.y, a.mean, a.rstd, c, a.eps);
            break;
        case 128:
            layernorm_smem_kernel<T, kPack, 128>
                <<<blocks, 128, smem, stream>>>(a.x, a.gamma, a.beta, a.y, a.mean, a.rstd, c, a.eps);
            break;
        default: return false;
    }
    WB_CHECK_LAUNCH();
    return true;
}

// ---- path 3: rows too long for shared memory: Welford over global memory, then a second read ------

template <typename T, int kPack>
__global__ void __launch_bounds__(kUncachedThreads)
    layernorm_uncached_kernel(const T* __restrict__ x, const T* __restrict__ gamma, const T* __restrict__ beta,
                              T* __restrict__ y, float* __restrict__ mean, float* __restrict__ rstd, std::int64_t cols,
                              float eps)
{
    __shared__ ch04::Welford scratch[kUncachedThreads / wb::kWarpSize];
    const std::int64_t row = blockIdx.x;
    const auto* xr = reinterpret_cast<const Pack<T, kPack>*>(x + row * cols);
    auto* yr = reinterpret_cast<Pack<T, kPack>*>(y + row * cols);
    const auto* g = reinterpret_cast<const Pack<T, kPack>*>(gamma);
    const auto* b = reinterpret_cast<const Pack<T, kPack>*>(beta);
    const std::int64_t packs = cols / kPack;

    ch04::Welford state;
#pragma unroll 4
    for (std::int64_t p = threadIdx.x; p < packs; p += kUncachedThreads) {
        const Pack<T, kPack> pack = xr[p];
#pragma unroll
        for (int i = 0; i < kPack; ++i) ch04::welford_update(state, to_float(pack.v[i]));
    }
    state = wb::block_allreduce<wb::WelfordMerge, kUncachedThreads>(state, scratch);
    const float mu = state.mean;
    const float r = rsqrtf(state.m2 / state.count + eps);
    if (threadIdx.x == 0) {
        mean[row] = mu;
        rstd[row] = r;
    }

#pragma unroll 4
    for (std::int64_t p = threadIdx.x; p < packs; p += kUncachedThreads) {
        const Pack<T, kPack> pack = xr[p];
        const Pack<T, kPack> gp = g[p];
        const Pack<T, kPack> bp = b[p];
        float v[kPack];
#pragma unroll
        for (int i = 0; i < kPack; ++i) v[i] = to_float(pack.v[i]);
        yr[p] = normalise<T, kPack>(v, mu, r, gp, bp);
    }
}

// ---- the dispatch -------------------------------------------------------------------------------

template <typename T, int kPack>
void dispatch_paths(const Args<T>& a, cudaStream_t stream)
{
    if (a.cols <= kWarpMaxCols) return dispatch_groups<T, kPack, 1>(a, stream);
    if (try_launch_smem<T, kPack>(a, stream)) return;
    layernorm_uncached_kernel<T, kPack><<<static_cast<unsigned>(a.rows), kUncachedThreads, 0, stream>>>(
        a.x, a.gamma, a.beta, a.y, a.mean, a.rstd, a.cols, a.eps);
    WB_CHECK_LAUNCH();
}

template <typename T>
void dispatch(const Args<T>& a, cudaStream_t stream)
{
    constexpr int kWidest = 16 / sizeof(T);   // 16-byte accesses: 4 floats or 8 halves
    // Rows start at multiples of cols elements: 16-byte packs stay aligned only if kWidest divides cols.
    if (a.cols % kWidest == 0) return dispatch_paths<T, kWidest>(a, stream);
    dispatch_paths<T, 1>(a, stream);
}

}   // namespace

void layernorm_6_dispatch(const float* x, const float* gamma, const float* beta, float* y, float* mean, float* rstd,
                          std::int64_t rows, std::int64_t cols, float eps, cudaStream_t stream)
{
    dispatch<float>({x, gamma, beta, y, mean, rstd, rows, cols, eps}, stream);
}

void layernorm_6_dispatch_half(const __half* x, const __half* gamma, const __half* beta, __half* y, float* mean,
                               float* rstd, std::int64_t rows, std::int64_t cols, float eps, cudaStream_t stream)
{
    dispatch<__half>({x, gamma, beta, y, mean, rstd, rows, cols, eps}, stream);
}

void layernorm_6_dispatch_bf16(const __nv_bfloat16* x, const __nv_bfloat16* gamma, const __nv_bfloat16* beta,
                               __nv_bfloat16* y, float* mean, float* rstd, std::int64_t rows, std::int64_t cols,
                               float eps, cudaStream_t stream)
{
    dispatch<__nv_bfloat16>({x, gamma, beta, y, mean, rstd, rows, cols, eps}, stream);
}

}   // namespace WORKBOOK_TRACK
