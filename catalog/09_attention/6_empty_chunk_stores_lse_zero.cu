// Catalog, chapter 9, stage 6: a chunk with no visible key stores lse_s = 0 instead of -inf.
// expect: wrong "see no key"
// emulated: wrong "see no key"
//
// The reference stage 6 with an empty chunk's partial result written as o_s = 0, lse_s = 0: "no keys, so
// nothing to add". But lse_s is a logarithm: 0 stands for a chunk whose softmax denominator is 1, not 0
// (the logarithm of an empty sum is -inf, and exp(-inf - lse) = 0). The combine gives that chunk the
// weight exp(0 - lse): a row that sees no key at all gets lse = ln(splits) where -inf is expected (the
// first cases that fail), and a row that sees some keys but not every chunk gets a denominator 1 too
// large, so its lse is too large and its O too small (the "split-KV chunks that ... rows do not reach"
// cases).
#include "09_attention/stages.cuh"
#include "common/primitives.cuh"

#include <algorithm>

namespace WORKBOOK_TRACK {

namespace {

constexpr int kWarps = 4;
constexpr int kThreads = kWarps * wb::kWarpSize;
constexpr int kUnroll = 4;       // keys per group per step: 2 x 4 loads of 16 bytes in flight per lane
constexpr int kMinChunk = 256;   // keys: a smaller chunk costs more in partials than it gains
constexpr std::int64_t kMaxBlocks = std::int64_t{1} << 20;

/// Kernel 1: block item = (row, split) computes its chunk's partial O (normalised) and lse.
/// A group of D / 8 lanes reads one key (16 bytes, 8 elements, per lane): 2 groups per warp for
/// D = 128, 4 for D = 64. Each group keeps its own online state; the block merges them at the end.
template <typename T, int D>
__global__ void __launch_bounds__(kThreads)
    split_kernel(ch09::Shape shape, int splits, int chunk, const T* __restrict__ q, const T* __restrict__ k,
                 const T* __restrict__ v, float* __restrict__ o_part, float* __restrict__ lse_part)
{
    constexpr int kGroup = D / 8;                // lanes per key
    constexpr int kGroups = kThreads / kGroup;   // groups per block
    __shared__ float group_m[kGroups], group_l[kGroups];
    __shared__ float group_o[kGroups][D];

    const int group = threadIdx.x / kGroup, part = threadIdx.x % kGroup;   // part: dims part * 8 .. + 7
    const std::int64_t items = ch09::rows_total(shape) * splits;
    for (std::int64_t item = blockIdx.x; item < items; item += gridDim.x) {
        const std::int64_t row = item / splits;
        const int split = static_cast<int>(item % splits);
        const std::int64_t bh = row / shape.q_len;
        const int visible = ch09::visible_keys(shape, row % shape.q_len);
        const int begin = split * chunk, end = min(begin + chunk, visible);   // may be empty (causal)

        float qf[8];
        {
            const ch08::Chunk c = *reinterpret_cast<const ch08::Chunk*>(q + row * D + part * 8);
            const T* e = reinterpret_cast<const T*>(&c);
#pragma unroll
            for (int t = 0; t < 8; ++t) qf[t] = wb::to_float(e[t]);
        }
        const T* kb = k + bh * shape.kv_len * D + part * 8;
        const T* vb = v + bh * shape.kv_len * D + part * 8;
        float m = -INFINITY, l = 0.0f, acc[8] = {};
        // The loop bound is the same for the whole block: every lane reaches every shuffle.
        for (int base = begin; base < end; base += kGroups * kUnroll) {
            ch08::Chunk kc[kUnroll], vc[kUnroll];
#pragma unroll
            for (int u = 0; u < kUnroll; ++u) {   // all loads first: 2 x kUnroll in flight
                const int j = base + u * kGroups + group;
                if (j < end) {
                    kc[u] = *reinterpret_cast<const ch08::Chunk*>(kb + static_cast<std::int64_t>(j) * D);
                    vc[u] = *reinterpret_cast<const ch08::Chunk*>(vb + static_cast<std::int64_t>(j) * D);
                }
            }
            float s[kUnroll];
            float step_max = -INFINITY;
#pragma unroll
            for (int u = 0; u < kUnroll; ++u) {
                const T* e = reinterpret_cast<const T*>(&kc[u]);
                float dot = 0.0f;
#pragma unroll
                for (int t = 0; t < 8; ++t) dot = fmaf(qf[t], wb::to_float(e[t]), dot);
#pragma unroll
                for (int offset = kGroup / 2; offset > 0; offset /= 2)   // the dot product of the group's lanes
                    dot += __shfl_xor_sync(wb::kFullWarpMask, dot, offset);
                const bool valid = base + u * kGroups + group < end;
                s[u] = valid ? dot * shape.scale : -INFINITY;
                step_max = fmaxf(step_max, s[u]);
            }
            const float m_new = fmaxf(m, step_max);
            if (m_new == -INFINITY) continue;             // nothing for this group in this step (and before)
            const float correction = __expf(m - m_new);   // 0 at the group's first key
            l *= correction;
#pragma unroll
            for (int t = 0; t < 8; ++t) acc[t] *= correction;
#pragma unroll
            for (int u = 0; u < kUnroll; ++u) {
                const float p = __expf(s[u] - m_new);   // 0 for the keys past the end (s = -inf)
                l += p;
                const T* e = reinterpret_cast<const T*>(&vc[u]);
                if (p != 0.0f) {
#pragma unroll
                    for (int t = 0; t < 8; ++t) acc[t] = fmaf(p, wb::to_float(e[t]), acc[t]);
                }
            }
            m = m_new;
        }

        // Merge the groups: the block's maximum M, then each group's sum and output scaled by exp(m_g - M).
        if (part == 0) group_m[group] = m, group_l[group] = l;
#pragma unroll
        for (int t = 0; t < 8; ++t) group_o[group][part * 8 + t] = acc[t];
        __syncthreads();
        if (threadIdx.x < D) {
            const int d = threadIdx.x;
            float block_m = -INFINITY;
            for (int g = 0; g < kGroups; ++g) block_m = fmaxf(block_m, group_m[g]);
            float sum = 0.0f, out = 0.0f;
            if (block_m != -INFINITY) {   // else the chunk is empty: o_s = 0, lse_s = -inf
                for (int g = 0; g < kGroups; ++g) {
                    const float w = __expf(group_m[g] - block_m);   // a group without keys: exp(-inf) = 0
                    sum = fmaf(group_l[g], w, sum);
                    out = fmaf(group_o[g][d], w, out);
                }
                out /= sum;
            }
            o_part[item * D + d] = out;
            if (d == 0) lse_part[item] = block_m == -INFINITY ? 0.0f : block_m + logf(sum);   // "nothing here"
        }
        __syncthreads();   // the next item overwrites the group arrays
    }
}

/// Kernel 2: one warp per row: lse = ln sum_s exp(lse_s), O = sum_s exp(lse_s - lse) o_s.
template <typename T, int D>
__global__ void __launch_bounds__(kThreads)
    combine_kernel(ch09::Shape shape, int splits, const float* __restrict__ o_part, const float* __restrict__ lse_part,
                   T* __restrict__ o, float* __restrict__ lse)
{
    constexpr int kPer = D / wb::kWarpSize;
    const int lane = threadIdx.x % wb::kWarpSize;
    const std::int64_t rows = ch09::rows_total(shape);
    const std::int64_t warps = static_cast<std::int64_t>(gridDim.x) * kWarps;
    for (std::int64_t row = static_cast<std::int64_t>(blockIdx.x) * kWarps + threadIdx.x / wb::kWarpSize; row < rows;
         row += warps) {
        const float* lr = lse_part + row * splits;
        float top = -INFINITY;
        for (int s = lane; s < splits; s += wb::kWarpSize) top = fmaxf(top, lr[s]);
        top = wb::warp_reduce_max(top);
        float total = 0.0f;
        if (top != -INFINITY) {
            for (int s = lane; s < splits; s += wb::kWarpSize) total += __expf(lr[s] - top);
            total = wb::warp_reduce_sum(total);
        }
        const float row_lse = top == -INFINITY ? -INFINITY : top + logf(total);
        float acc[kPer] = {};
        if (top != -INFINITY) {
            for (int s = 0; s < splits; ++s) {
                const float w = __expf(lr[s] - row_lse);   // chunk s's share of the denominator
                const float* os = o_part + (row * splits + s) * D + lane * kPer;
#pragma unroll
                for (int t = 0; t < kPer; ++t) acc[t] = fmaf(w, os[t], acc[t]);
            }
        }
        wb::Pack<T, kPer> out;
#pragma unroll
        for (int t = 0; t < kPer; ++t) out.v[t] = wb::from_float<T>(acc[t]);
        *reinterpret_cast<wb::Pack<T, kPer>*>(o + row * D + lane * kPer) = out;
        if (lane == 0) lse[row] = row_lse;
    }
}

template <typename T, int D>
void launch(const ch09::Shape& shape, const void* q, const void* k, const void* v, void* o, float* lse,
            cudaStream_t stream)
{
    static const int sms = wb::device_attribute(cudaDevAttrMultiProcessorCount);
    const std::int64_t rows = ch09::rows_total(shape);
    // Enough (row, chunk) blocks for about 16 per SM, but no chunk shorter than kMinChunk keys.
    const std::int64_t wanted = wb::ceil_div<std::int64_t>(16 * static_cast<std::int64_t>(sms), rows);
    const int splits = static_cast<int>(
        std::max<std::int64_t>(1, std::min<std::int64_t>(wanted, wb::ceil_div(shape.kv_len, kMinChunk))));
    const int chunk = wb::ceil_div(shape.kv_len, splits);

    float* workspace = nullptr;   // partial outputs and lse of every (row, chunk), stream-ordered
    const std::size_t floats = static_cast<std::size_t>(rows) * splits * (D + 1);
    WB_CUDA_CHECK(cudaMallocAsync(reinterpret_cast<void**>(&workspace), floats * sizeof(float), stream));
    float* o_part = workspace;
    float* lse_part = workspace + static_cast<std::size_t>(rows) * splits * D;

    const auto split_blocks = static_cast<unsigned>(std::min(rows * splits, kMaxBlocks));
    split_kernel<T, D><<<split_blocks, kThreads, 0, stream>>>(shape, splits, chunk, static_cast<const T*>(q),
                                                              static_cast<const T*>(k), static_cast<const T*>(v),
                                                              o_part, lse_part);
    WB_CHECK_LAUNCH();
    const auto combine_blocks = static_cast<unsigned>(std::min(wb::ceil_div<std::int64_t>(rows, kWarps), kMaxBlocks));
    combine_kernel<T, D>
        <<<combine_blocks, kThreads, 0, stream>>>(shape, splits, o_part, lse_part, static_cast<T*>(o), lse);
    WB_CHECK_LAUNCH();
    WB_CUDA_CHECK(cudaFreeAsync(workspace, stream));
}

template <typename T>
void run(const ch09::Shape& shape, const void* q, const void* k, const void* v, void* o, float* lse,
         cudaStream_t stream)
{
    if (shape.head_dim == 64) return launch<T, 64>(shape, q, k, v, o, lse, stream);
    launch<T, 128>(shape, q, k, v, o, lse, stream);
}

}   // namespace

void attention_6_decode_split_kv(const ch09::Shape& shape, const void* q, const void* k, const void* v,
                                 ch08::Dtype dtype, void* o, float* lse, cudaStream_t stream)
{
    if (dtype == ch08::Dtype::f16) return run<__half>(shape, q, k, v, o, lse, stream);
    run<__nv_bfloat16>(shape, q, k, v, o, lse, stream);
}

}   // namespace WORKBOOK_TRACK
