// Catalog, chapter 9, stage 4: the query tile of a block without the causal mask taken from blockIdx.y.
// expect: wrong "O, "
// emulated: wrong "O, "
//
// The reference stage 4 with `blockIdx.y % q_tiles` where `blockIdx.x % q_tiles` was meant, in the branch
// for attention without the causal mask (found by tools/mutate.py). The grid is one-dimensional, so
// blockIdx.y is 0: every block of a head computes its first query tile, and the rows of the others are
// never written. With the mask, the tiles run in reverse and are right. Until the grader had a case
// without the mask and with more than one query tile per head, the emulator passed this stage: every
// such case had a single tile.
#include "09_attention/stages.cuh"
#include "common/primitives.cuh"
#include "common/tensor_core.cuh"

#include <cmath>

namespace WORKBOOK_TRACK {

namespace {

constexpr int kWarps = 4;
constexpr int kThreads = kWarps * 32;
constexpr int kBlockQ = kWarps * 16;   // query rows per block: 16 per warp (one mma row tile)
constexpr int kBlockK = 64;            // keys per K/V tile
constexpr int kSTiles = kBlockK / 8;   // 16 x 8 mma tiles of S per warp and key tile

template <int D>
struct Layout {
    static constexpr int kLd = D + 8;   // padded shared row: D + 8 elements (16 bytes more)
    static constexpr int kTileElems = kBlockK * kLd;
    static constexpr std::size_t kSmemBytes = 2 * kTileElems * sizeof(std::uint16_t);   // K and V (Q reuses K)
};

/// Copies rows r0 .. r0 + 63 of a [rows][D] matrix into a padded shared tile, zeros for rows past the
/// end (a zero key gives a finite score that the mask then removes; a zero value row keeps 0 * V
/// finite: shared memory that nobody wrote may hold NaN bit patterns).
template <int D>
__device__ __forceinline__ void load_tile(std::uint16_t* tile, const std::uint16_t* src, int r0, int rows)
{
    constexpr int kChunksPerRow = D / ch08::kChunkElems;
    static_assert(kBlockK * kChunksPerRow % kThreads == 0, "the copies divide evenly");
#pragma unroll
    for (int copy = 0; copy < kBlockK * kChunksPerRow / kThreads; ++copy) {
        const int i = threadIdx.x + copy * kThreads;
        const int r = i / kChunksPerRow, c = (i % kChunksPerRow) * ch08::kChunkElems;
        *reinterpret_cast<ch08::Chunk*>(tile + r * Layout<D>::kLd + c) =
            r0 + r < rows ? *reinterpret_cast<const ch08::Chunk*>(src + static_cast<std::int64_t>(r0 + r) * D + c)
                          : ch08::zero_chunk();
    }
}

template <typename T, int D>
__global__ void __launch_bounds__(kThreads)
    attention_mma_kernel(ch09::Shape shape, int q_tiles, const T* __restrict__ Q, const T* __restrict__ K,
                         const T* __restrict__ V, T* __restrict__ O, float* __restrict__ lse)
{
    using L = Layout<D>;
    extern __shared__ __align__(16) std::uint16_t smem[];   // K tile, V tile (Q passes through the K tile first)
    std::uint16_t* ks = smem;
    std::uint16_t* vs = smem + L::kTileElems;

    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int g = lane / 4, t = lane % 4;   // this lane's rows: g and g + 8 of the warp's 16; columns 2t, 2t + 1
    // Blocks of one (batch, head) are adjacent, so their K and V are read from L2 while it still holds them.
    // Under the causal mask, the last query tiles see the most keys: they go first.
    const int bh = blockIdx.x / q_tiles;
    // BUG: blockIdx.y, as if the grid were (tiles, heads); the launch is one-dimensional
    const int qt = shape.causal ? q_tiles - 1 - blockIdx.x % q_tiles : blockIdx.y % q_tiles;
    const int q0 = qt * kBlockQ;
    const std::int64_t q_base = static_cast<std::int64_t>(bh) * shape.q_len * D;
    const std::int64_t kv_base = static_cast<std::int64_t>(bh) * shape.kv_len * D;
    const auto* q_bits = reinterpret_cast<const std::uint16_t*>(Q) + q_base;
    const auto* k_bits = reinterpret_cast<const std::uint16_t*>(K) + kv_base;
    const auto* v_bits = reinterpret_cast<const std::uint16_t*>(V) + kv_base;

    // Bottom-right causal alignment: query i sees key j iff j <= i + diag.
    const int diag = shape.kv_len - shape.q_len;
    int kv_end = shape.kv_len;   // keys this block needs: none past the diagonal of its last row
    if (shape.causal) kv_end = min(kv_end, max(0, min(q0 + kBlockQ, shape.q_len) + diag));
    const int kv_tiles = wb::ceil_div(kv_end, kBlockK);

    // Q: through shared memory into registers, 16 x D per warp as D / 16 A fragments.
    load_tile<D>(ks, q_bits, q0, shape.q_len);
    __syncthreads();
    std::uint32_t qf[D / 16][4];
#pragma unroll
    for (int kk = 0; kk < D / 16; ++kk)
        wb::ldmatrix_x4(qf[kk], ks + (warp * 16 + lane % 16) * L::kLd + kk * 16 + (lane / 16) * 8);

    float o[D / 8][4] = {};                // O: D / 8 mma tiles of 16 x 8
    float m[2] = {-INFINITY, -INFINITY};   // running max of scale * s, rows g and g + 8
    float l[2] = {0.0f, 0.0f};             // this lane's part of the running row sums
    const int row0 = q0 + warp * 16 + g;   // query index of this lane's first row (the second is + 8)

    for (int tile = 0; tile < kv_tiles; ++tile) {
        const int k0 = tile * kBlockK;
        __syncthreads();   // everyone is done with the previous K and V tiles (and with Q in ks)
        load_tile<D>(ks, k_bits, k0, shape.kv_len);
        load_tile<D>(vs, v_bits, k0, shape.kv_len);
        __syncthreads();

        // S = Q K^T: K is stored key-major ([key][d]), the "col" B operand without .trans. One ldmatrix.x4
        // gives the fragments of two 16 x 8 tiles (keys n .. n + 7 and n + 8 .. n + 15) for 16 of d.
        float s[kSTiles][4] = {};
#pragma unroll
        for (int kk = 0; kk < D / 16; ++kk)
#pragma unroll
            for (int j = 0; j < kSTiles; j += 2) {
                std::uint32_t r[4];
                wb::ldmatrix_x4(r, ks + (j * 8 + (lane / 16) * 8 + lane % 8) * L::kLd + kk * 16 + ((lane / 8) % 2) * 8);
                const std::uint32_t b0[2] = {r[0], r[1]}, b1[2] = {r[2], r[3]};
                wb::mma_m16n8k16<T>(s[j], qf[kk], b0, s[j]);
                wb::mma_m16n8k16<T>(s[j + 1], qf[kk], b1, s[j + 1]);
            }

        // Scale, and the mask where this tile needs one (past kv_len, or across the causal diagonal).
        // Lane element e of tile j is row row0 + (e / 2) * 8, key k0 + 8j + 2t + e % 2.
        const bool masked = k0 + kBlockK > shape.kv_len || (shape.causal && k0 + kBlockK - 1 > q0 + diag);
#pragma unroll
        for (int j = 0; j < kSTiles; ++j) {
#pragma unroll
            for (int e = 0; e < 4; ++e) {
                float x = s[j][e] * shape.scale;
                if (masked) {
                    const int key = k0 + j * 8 + 2 * t + e % 2, row = row0 + (e / 2) * 8;
                    if (key >= shape.kv_len || (shape.causal && key > row + diag)) x = -INFINITY;
                }
                s[j][e] = x;
            }
        }

        // Online softmax, per row: new max, factor for what was accumulated, p = exp(x - max).
#pragma unroll
        for (int h = 0; h < 2; ++h) {   // h = 0: row g (elements 0, 1), h = 1: row g + 8 (elements 2, 3)
            float tile_max = -INFINITY;
#pragma unroll
            for (int j = 0; j < kSTiles; ++j) tile_max = fmaxf(tile_max, fmaxf(s[j][2 * h], s[j][2 * h + 1]));
            // The 4 lanes of a quad (4g .. 4g + 3) hold the row: the maximum over the quad is the row's.
            const float m_new = fmaxf(m[h], wb::warp_reduce_max<4>(tile_max));
            // A row that has seen no key yet keeps max -inf: subtract 0 instead, so exp(-inf - 0) = 0, never
            // exp(-inf - -inf) = NaN.
            const float m_use = m_new == -INFINITY ? 0.0f : m_new;
            const float alpha = expf(m[h] - m_use);   // 0 on the first tile with a visible key (m = -inf)
            m[h] = m_new;
            float sum = 0.0f;
#pragma unroll
            for (int j = 0; j < kSTiles; ++j)
#pragma unroll
                for (int e = 2 * h; e < 2 * h + 2; ++e) {
                    s[j][e] = expf(s[j][e] - m_use);
                    sum += s[j][e];
                }
            l[h] = l[h] * alpha + sum;   // the old sum is rescaled as well as O
#pragma unroll
            for (int n = 0; n < D / 8; ++n) o[n][2 * h] *= alpha, o[n][2 * h + 1] *= alpha;
        }

        // O += P V. The accumulators of S tiles 2kk and 2kk + 1 (keys 16kk .. 16kk + 15) are, element for
        // element, the A fragment of P for that k step: a[0] = P[g][2t, 2t+1] (tile 2kk, elements 0, 1),
        // a[1] = P[g+8][2t, 2t+1] (tile 2kk, 2, 3), a[2], a[3] the same from tile 2kk + 1.
        // V is stored [key][d], the row-major B operand: ldmatrix .trans, lanes 0-15 name keys 0-15 at
        // columns n .. n + 7, lanes 16-31 the same keys at n + 8 .. n + 15.
#pragma unroll
        for (int kk = 0; kk < kBlockK / 16; ++kk) {
            const std::uint32_t pa[4] = {wb::pack2_from_floats<T>(s[2 * kk][0], s[2 * kk][1]),
                                         wb::pack2_from_floats<T>(s[2 * kk][2], s[2 * kk][3]),
                                         wb::pack2_from_floats<T>(s[2 * kk + 1][0], s[2 * kk + 1][1]),
                                         wb::pack2_from_floats<T>(s[2 * kk + 1][2], s[2 * kk + 1][3])};
#pragma unroll
            for (int n = 0; n < D / 8; n += 2) {
                std::uint32_t r[4];
                wb::ldmatrix_x4_trans(r, vs + (kk * 16 + lane % 16) * L::kLd + n * 8 + (lane / 16) * 8);
                const std::uint32_t b0[2] = {r[0], r[1]}, b1[2] = {r[2], r[3]};
                wb::mma_m16n8k16<T>(o[n], pa, b0, o[n]);
                wb::mma_m16n8k16<T>(o[n + 1], pa, b1, o[n + 1]);
            }
        }
    }

    // Epilogue: the full row sums, O / l in the input type, lse = max + ln(l). A row with no visible key
    // (l = 0) gets O = 0 and lse = -inf.
#pragma unroll
    for (int h = 0; h < 2; ++h) {
        const float sum = wb::warp_reduce_sum<4>(l[h]);
        const float inv = sum > 0.0f ? 1.0f / sum : 0.0f;
        const int row = row0 + h * 8;
        if (row >= shape.q_len) continue;
        T* out = O + q_base + static_cast<std::int64_t>(row) * D;
#pragma unroll
        for (int n = 0; n < D / 8; ++n)
            *reinterpret_cast<std::uint32_t*>(out + n * 8 + 2 * t) =
                wb::pack2_from_floats<T>(o[n][2 * h] * inv, o[n][2 * h + 1] * inv);
        if (t == 0) lse[static_cast<std::int64_t>(bh) * shape.q_len + row] = sum > 0.0f ? m[h] + logf(sum) : -INFINITY;
    }
}

template <typename T, int D>
void launch(const ch09::Shape& shape, const void* q, const void* k, const void* v, void* o, float* lse,
            cudaStream_t stream)
{
    auto kernel = attention_mma_kernel<T, D>;
    static const bool configured = [&] {   // D = 128: 34 KiB, under the default 48 KiB; said anyway
        WB_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                           static_cast<int>(Layout<D>::kSmemBytes)));
        return true;
    }();
    (void)configured;
    const int q_tiles = wb::ceil_div(shape.q_len, kBlockQ);
    const unsigned blocks = static_cast<unsigned>(shape.batch * shape.heads) * static_cast<unsigned>(q_tiles);
    kernel<<<blocks, kThreads, Layout<D>::kSmemBytes, stream>>>(shape, q_tiles, static_cast<const T*>(q),
                                                                static_cast<const T*>(k), static_cast<const T*>(v),
                                                                static_cast<T*>(o), lse);
    WB_CHECK_LAUNCH();
}

template <typename T>
void launch_dim(const ch09::Shape& shape, const void* q, const void* k, const void* v, void* o, float* lse,
                cudaStream_t stream)
{
    if (shape.head_dim == 64) {
        launch<T, 64>(shape, q, k, v, o, lse, stream);
    } else {
        launch<T, 128>(shape, q, k, v, o, lse, stream);
    }
}

}   // namespace

void attention_4_mma(const ch09::Shape& shape, const void* q, const void* k, const void* v, ch08::Dtype dtype, void* o,
                     float* lse, cudaStream_t stream)
{
    if (dtype == ch08::Dtype::f16) {
        launch_dim<__half>(shape, q, k, v, o, lse, stream);
    } else {
        launch_dim<__nv_bfloat16>(shape, q, k, v, o, lse, stream);
    }
}

}   // namespace WORKBOOK_TRACK
