// Catalog, chapter 9, stage 1: the element count of each kernel's grid-stride loop kept in an int.
// expect: wrong "converted to int"
// emulated: skip "the emulated shapes stay far below 2^31 elements, the GPU grader checks Q and O of 2.28e9"
//
// The reference stage 1 with `const int total = ...` as the bound of the grid-stride loops of the scores
// and of P V: the 64-bit product is narrowed to int without a word, the habit of first kernels. Every
// graded shape keeps rows * head_dim and rows * kv_len far below 2^31, the timed one included (2^24), and
// so does the grader's case whose K and V pass 2^31 (its Q has 6.3e6 elements). On its case whose Q and O
// hold 4 x 68 x 131071 x 64 = 2,281,683,968 elements (fp16, 9.2 GiB for Q and O, run where the GPU has
// 21 GiB free) the count of P V wraps to -2,013,283,328: no thread enters the loop and not one element
// of O is written, while lse (written by the softmax kernel) is right. The grader must say that nothing
// was written anywhere in O, although smaller shapes came out right, and that a count was converted to
// int. On a GPU without the memory the case is skipped and this entry passes.
#include "09_attention/stages.cuh"
#include "common/primitives.cuh"

#include <algorithm>

namespace WORKBOOK_TRACK {

namespace {

constexpr int kThreads = 256;

/// A grid of at most this many blocks, walked with a grid-stride loop: the number of scores
/// (batch * heads * q_len * kv_len) can exceed what one grid dimension holds.
constexpr std::int64_t kMaxBlocks = std::int64_t{1} << 20;

unsigned grid_for(std::int64_t items, int per_block)
{
    return static_cast<unsigned>(std::min(wb::ceil_div<std::int64_t>(items, per_block), kMaxBlocks));
}

/// Kernel 1: S[bh][i][j] = scale * q_i . k_j, -inf where the causal mask hides key j from query i.
/// Consecutive threads take consecutive keys j of one query row: their writes to S are coalesced.
template <typename T>
__global__ void scores_kernel(ch09::Shape shape, const T* __restrict__ q, const T* __restrict__ k,
                              float* __restrict__ s)
{
    const int D = shape.head_dim;
    const int total = ch09::rows_total(shape) * shape.kv_len;   // the bug: the count in 32 bits
    for (std::int64_t e = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; e < total;
         e += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
        const std::int64_t row = e / shape.kv_len;   // (b * heads + h) * q_len + i
        const int j = static_cast<int>(e % shape.kv_len);
        const std::int64_t bh = row / shape.q_len;
        if (j >= ch09::visible_keys(shape, row % shape.q_len)) {
            s[e] = -INFINITY;
            continue;
        }
        const T* qr = q + row * D;
        const T* kr = k + (bh * shape.kv_len + j) * D;
        float dot = 0.0f;
        for (int d = 0; d < D; ++d) dot = fmaf(wb::to_float(qr[d]), wb::to_float(kr[d]), dot);
        s[e] = shape.scale * dot;
    }
}

/// Kernel 2: one warp per row of S: P = exp(S - max) / sum in place, lse = max + ln(sum).
__global__ void softmax_rows_kernel(std::int64_t rows, int cols, float* __restrict__ s, float* __restrict__ lse)
{
    const int lane = threadIdx.x % wb::kWarpSize;
    const std::int64_t warps = static_cast<std::int64_t>(gridDim.x) * (blockDim.x / wb::kWarpSize);
    for (std::int64_t row = (static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) / wb::kWarpSize;
         row < rows; row += warps) {   // the whole warp takes the same rows: the shuffles see all 32 lanes
        float* sr = s + row * cols;
        float m = -INFINITY;
        for (int j = lane; j < cols; j += wb::kWarpSize) m = fmaxf(m, sr[j]);
        m = wb::warp_reduce_max(m);
        if (m == -INFINITY) {   // no visible key: exp(-inf - -inf) would be NaN
            for (int j = lane; j < cols; j += wb::kWarpSize) sr[j] = 0.0f;
            if (lane == 0) lse[row] = -INFINITY;
            continue;
        }
        float l = 0.0f;
        for (int j = lane; j < cols; j += wb::kWarpSize) l += __expf(sr[j] - m);   // exp(-inf) = 0: masked keys
        l = wb::warp_reduce_sum(l);
        const float inv = 1.0f / l;
        for (int j = lane; j < cols; j += wb::kWarpSize) sr[j] = __expf(sr[j] - m) * inv;
        if (lane == 0) lse[row] = m + logf(l);
    }
}

/// Kernel 3: O[row][d] = sum_j P[row][j] * V[j][d]; consecutive threads on consecutive d read
/// consecutive elements of a V row (coalesced), and all of them the same P element (a broadcast).
template <typename T>
__global__ void pv_kernel(ch09::Shape shape, const float* __restrict__ p, const T* __restrict__ v, T* __restrict__ o)
{
    const int D = shape.head_dim;
    const int total = ch09::rows_total(shape) * D;   // the bug: negative past 2^31 - 1
    for (std::int64_t e = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; e < total;
         e += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
        const std::int64_t row = e / D;
        const int d = static_cast<int>(e % D);
        const std::int64_t bh = row / shape.q_len;
        const float* pr = p + row * shape.kv_len;
        const T* vb = v + bh * shape.kv_len * D + d;
        const int visible = ch09::visible_keys(shape, row % shape.q_len);   // P is 0 beyond: skip it
        float acc = 0.0f;
        for (int j = 0; j < visible; ++j) acc = fmaf(pr[j], wb::to_float(vb[static_cast<std::int64_t>(j) * D]), acc);
        o[e] = wb::from_float<T>(acc);
    }
}

template <typename T>
void run(const ch09::Shape& shape, const void* q, const void* k, const void* v, void* o, float* lse,
         cudaStream_t stream)
{
    const std::int64_t rows = ch09::heads_total(shape) * shape.q_len;
    const std::int64_t scores = rows * shape.kv_len;
    // The workspace: every score of every head, stream-ordered (it lives exactly as long as the kernels).
    float* s = nullptr;
    WB_CUDA_CHECK(
        cudaMallocAsync(reinterpret_cast<void**>(&s), static_cast<std::size_t>(scores) * sizeof(float), stream));
    scores_kernel<T><<<grid_for(scores, kThreads), kThreads, 0, stream>>>(shape, static_cast<const T*>(q),
                                                                          static_cast<const T*>(k), s);
    WB_CHECK_LAUNCH();
    softmax_rows_kernel<<<grid_for(rows, kThreads / wb::kWarpSize), kThreads, 0, stream>>>(rows, shape.kv_len, s, lse);
    WB_CHECK_LAUNCH();
    pv_kernel<T><<<grid_for(rows * shape.head_dim, kThreads), kThreads, 0, stream>>>(shape, s, static_cast<const T*>(v),
                                                                                     static_cast<T*>(o));
    WB_CHECK_LAUNCH();
    WB_CUDA_CHECK(cudaFreeAsync(s, stream));
}

}   // namespace

void attention_1_three_kernels(const ch09::Shape& shape, const void* q, const void* k, const void* v, ch08::Dtype dtype,
                               void* o, float* lse, cudaStream_t stream)
{
    if (dtype == ch08::Dtype::f16) return run<__half>(shape, q, k, v, o, lse, stream);
    run<__nv_bfloat16>(shape, q, k, v, o, lse, stream);
}

}   // namespace WORKBOOK_TRACK
