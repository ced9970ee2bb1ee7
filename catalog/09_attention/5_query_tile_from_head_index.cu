// Catalog, chapter 9, stage 5: without the causal mask, the query tile is computed from the head index.
// expect: wrong "O, "
// emulated: wrong "O, "
//
// The reference stage 5 with `bh % q_tiles` where `blockIdx.x % q_tiles` was meant in the branch without
// the causal mask: the two indices of a block, its head and its query tile, mixed up. All the blocks of a
// head then compute the same tile, and its other rows are never written. Every case with the mask, and
// every case with one query tile per head, is right; a case without the mask and several tiles per head
// is not.
#include "09_attention/stages.cuh"
#include "common/primitives.cuh"
#include "common/tensor_core.cuh"

#include <cmath>

namespace WORKBOOK_TRACK {

namespace {

/// The tile sizes. Three knobs: kMTiles (16-row mma tiles per warp: 1 or 2), kBlockK (keys per tile: 32 or
/// 64), kQInRegisters; every combination that fits in shared memory is correct (each was checked in emulation).
template <int D>
struct Config {
    static constexpr int kMTiles = 2;                // 32 query rows per warp
    static constexpr int kBlockK = 64;               // keys per tile: FlashAttention-2's 128 x 64
    static constexpr bool kQInRegisters = D == 64;   // D = 128: 64 more registers would not fit
    static constexpr int kSTiles = kBlockK / 8;      // 16 x 8 mma tiles of S per 16 query rows and tile
    static constexpr int kWarps = 4;
    static constexpr int kThreads = kWarps * 32;
    static constexpr int kBlockQ = kWarps * 16 * kMTiles;   // 128 query rows per block
    static constexpr int kTileElems = kBlockK * D;
    // Shared memory: K0, V0, K1, V1 (double buffers), then Q. Where Q goes to registers, it passes through
    // K1 and V1 before they are first written and needs no room of its own.
    static constexpr int kQElems = kBlockQ * D;
    static_assert(!kQInRegisters || kQElems <= 2 * kTileElems, "Q fits in the second K and V buffers");
    static constexpr std::size_t kSmemBytes = (4 * kTileElems + (kQInRegisters ? 0 : kQElems)) * sizeof(std::uint16_t);
};

/// Element (r, c) of a [rows][D] tile: chunk c / 8 of row r stored at chunk (c / 8) ^ (r % 8). @p c is a
/// multiple of 8 in every use (the start of a 16-byte chunk, as cp.async and ldmatrix need).
template <int D>
__device__ __forceinline__ int swz(int r, int c)
{
    return r * D + (((c / ch08::kChunkElems) ^ (r % 8)) * ch08::kChunkElems);
}

/// Issues the cp.async copies of rows r0 .. r0 + kRows - 1 of a [rows][D] matrix into a swizzled tile;
/// rows past the end are zero-filled (their source is not read). Thread i copies chunk i % (D / 8) of
/// rows i / (D / 8) + kRowsPerPass p: passes are a multiple of 8 rows apart, so r % 8, and with it the
/// swizzle, is the same in every pass, and one source and one destination address serve them all.
template <int D, int kRows, int kThreads>
__device__ __forceinline__ void copy_tile_async(std::uint16_t* tile, const std::uint16_t* src, int r0, int rows)
{
    constexpr int kChunksPerRow = D / ch08::kChunkElems;
    constexpr int kRowsPerPass = kThreads / kChunksPerRow;
    static_assert(kRowsPerPass % 8 == 0 && kRows % kRowsPerPass == 0, "every pass starts on a multiple of 8 rows");
    const int r = threadIdx.x / kChunksPerRow, c = (threadIdx.x % kChunksPerRow) * ch08::kChunkElems;
    std::uint16_t* to = tile + swz<D>(r, c);
    const std::uint16_t* from = src + static_cast<std::int64_t>(r0 + r) * D + c;
#pragma unroll
    for (int pass = 0; pass < kRows / kRowsPerPass; ++pass) {
        const bool inside = r0 + r + pass * kRowsPerPass < rows;
        ch08::cp_async16(to + pass * kRowsPerPass * D, inside ? from + pass * kRowsPerPass * D : src, inside);
    }
}

/// The per-warp state of the online softmax, per 16-row tile mt: O (16 x D), and for rows g and g + 8 the
/// running max (log2 units) and this lane's part of the running sum.
template <int D, int kM>
struct RowState {
    float o[kM][D / 8][4];
    float m[kM][2];
    float l[kM][2];
};

/// The warp's Q: A fragments in registers (loaded once), or read again from shared memory at each use,
/// which trades shared-memory reads for the registers that 32 rows x 128 columns would need.
template <int D, int kM, bool kInRegisters>
struct QFragments {
    std::uint32_t a[kInRegisters ? kM : 1][kInRegisters ? D / 16 : 1][4];
    const std::uint16_t* qs;   // the block's Q tile
    int row;                   // this lane's ldmatrix row for mt = 0: warp * 16 kM + lane % 16

    __device__ __forceinline__ void load(const std::uint16_t* q_tile, int warp, int lane)
    {
        qs = q_tile;
        row = warp * 16 * kM + lane % 16;
        if constexpr (kInRegisters) {
#pragma unroll
            for (int mt = 0; mt < kM; ++mt)
#pragma unroll
                for (int kk = 0; kk < D / 16; ++kk) read(a[mt][kk], mt, kk, lane);
        }
    }
    __device__ __forceinline__ void read(std::uint32_t (&frag)[4], int mt, int kk, int lane) const
    {
        // swz<D>(row + 16 mt, 16 kk + 8 (lane / 16)): row % 8 = lane % 8 for every mt, so the chunk part is
        // the one of kk = 0 XOR 16 kk.
        const int at_kk0 = row * D + (((lane / 16) ^ (lane % 8)) * ch08::kChunkElems);
        wb::ldmatrix_x4(frag, qs + mt * 16 * D + (at_kk0 ^ (16 * kk)));
    }
    /// The fragment of rows mt, columns 16 kk .. 16 kk + 15.
    __device__ __forceinline__ void get(std::uint32_t (&frag)[4], int mt, int kk, int lane) const
    {
        if constexpr (kInRegisters) {
            frag[0] = a[mt][kk][0], frag[1] = a[mt][kk][1], frag[2] = a[mt][kk][2], frag[3] = a[mt][kk][3];
        } else {
            read(frag, mt, kk, lane);
        }
    }
};

/// S = Q K^T for one key tile (32 x 64 per warp), in log2 units: scale * log2(e) * q.k. Every K fragment
/// (one ldmatrix.x4: two 16 x 8 tiles) serves kM row tiles.
template <typename T, int D, int kM, int kSTiles, bool kQRegs>
__device__ __forceinline__ void scores(float (&s)[kM][kSTiles][4], const QFragments<D, kM, kQRegs>& qf,
                                       const std::uint16_t* ks, int lane, float scale_log2)
{
#pragma unroll
    for (int mt = 0; mt < kM; ++mt)
#pragma unroll
        for (int j = 0; j < kSTiles; ++j) s[mt][j][0] = s[mt][j][1] = s[mt][j][2] = s[mt][j][3] = 0.0f;
#pragma unroll
    for (int kk = 0; kk < D / 16; ++kk) {
        std::uint32_t a[kM][4];
#pragma unroll
        for (int mt = 0; mt < kM; ++mt) qf.get(a[mt], mt, kk, lane);
#pragma unroll
        for (int j = 0; j < kSTiles; j += 2) {
            std::uint32_t r[4];
            // swz<D>(8 j + 8 (lane / 16) + lane % 8, 16 kk + 8 ((lane / 8) % 2)), as in QFragments::read.
            const int at_kk0 = ((lane / 16) * 8 + lane % 8) * D + ((((lane / 8) % 2) ^ (lane % 8)) * ch08::kChunkElems);
            wb::ldmatrix_x4(r, ks + j * 8 * D + (at_kk0 ^ (16 * kk)));
            const std::uint32_t b0[2] = {r[0], r[1]}, b1[2] = {r[2], r[3]};
#pragma unroll
            for (int mt = 0; mt < kM; ++mt) {
                wb::mma_m16n8k16<T>(s[mt][j], a[mt], b0, s[mt][j]);
                wb::mma_m16n8k16<T>(s[mt][j + 1], a[mt], b1, s[mt][j + 1]);
            }
        }
    }
#pragma unroll
    for (int mt = 0; mt < kM; ++mt)
#pragma unroll
        for (int j = 0; j < kSTiles; ++j)
#pragma unroll
            for (int e = 0; e < 4; ++e) s[mt][j][e] *= scale_log2;
}

/// The online-softmax update of one tile: new row max, P = 2^(S - max) left in @p s, and the old sum and O
/// rescaled where a row's maximum moved.
template <int D, int kM, int kSTiles>
__device__ __forceinline__ void softmax_update(RowState<D, kM>& st, float (&s)[kM][kSTiles][4])
{
#pragma unroll
    for (int mt = 0; mt < kM; ++mt)
#pragma unroll
        for (int h = 0; h < 2; ++h) {   // h = 0: row g (elements 0, 1), h = 1: row g + 8 (elements 2, 3)
            float tile_max = -INFINITY;
#pragma unroll
            for (int j = 0; j < kSTiles; ++j) tile_max = fmaxf(tile_max, fmaxf(s[mt][j][2 * h], s[mt][j][2 * h + 1]));
            const float m_new = fmaxf(st.m[mt][h], wb::warp_reduce_max<4>(tile_max));
            const float m_use = m_new == -INFINITY ? 0.0f : m_new;   // a row with no visible key yet: no NaN
            // Did the maximum of any of the warp's 8 rows g (h = 0) or g + 8 (h = 1) move? Uniform per warp.
            const bool moved = __any_sync(0xffffffffu, m_new != st.m[mt][h]);
            const float alpha = wb::exp2_fast(st.m[mt][h] - m_use);   // 0 on the first tile with a visible key
            st.m[mt][h] = m_new;
            float sum = 0.0f;
#pragma unroll
            for (int j = 0; j < kSTiles; ++j)
#pragma unroll
                for (int e = 2 * h; e < 2 * h + 2; ++e) {
                    s[mt][j][e] = wb::exp2_fast(s[mt][j][e] - m_use);   // masked keys: 2^-inf = 0
                    sum += s[mt][j][e];
                }
            if (moved) {   // otherwise alpha = 1 in every lane: nothing to rescale
                st.l[mt][h] = st.l[mt][h] * alpha + sum;
#pragma unroll
                for (int n = 0; n < D / 8; ++n) st.o[mt][n][2 * h] *= alpha, st.o[mt][n][2 * h + 1] *= alpha;
            } else {
                st.l[mt][h] += sum;
            }
        }
}

/// O += P V for one key tile, P straight from the S accumulators (see stage 4 for the layout argument).
/// Every V fragment (one ldmatrix.x4.trans: two 16 x 8 tiles) serves kM row tiles.
template <typename T, int D, int kM, int kSTiles>
__device__ __forceinline__ void accumulate_pv(RowState<D, kM>& st, const float (&p)[kM][kSTiles][4],
                                              const std::uint16_t* vs, int lane)
{
#pragma unroll
    for (int kk = 0; kk < kSTiles / 2; ++kk) {
        std::uint32_t pa[kM][4];
#pragma unroll
        for (int mt = 0; mt < kM; ++mt) {
            pa[mt][0] = wb::pack2_from_floats<T>(p[mt][2 * kk][0], p[mt][2 * kk][1]);
            pa[mt][1] = wb::pack2_from_floats<T>(p[mt][2 * kk][2], p[mt][2 * kk][3]);
            pa[mt][2] = wb::pack2_from_floats<T>(p[mt][2 * kk + 1][0], p[mt][2 * kk + 1][1]);
            pa[mt][3] = wb::pack2_from_floats<T>(p[mt][2 * kk + 1][2], p[mt][2 * kk + 1][3]);
        }
#pragma unroll
        for (int n = 0; n < D / 8; n += 2) {
            std::uint32_t r[4];
            // swz<D>(16 kk + lane % 16, 8 n + 8 (lane / 16)) with n even, as in QFragments::read.
            const int at_n0 = (lane % 16) * D + (((lane / 16) ^ (lane % 8)) * ch08::kChunkElems);
            wb::ldmatrix_x4_trans(r, vs + kk * 16 * D + (at_n0 ^ (8 * n)));
            const std::uint32_t b0[2] = {r[0], r[1]}, b1[2] = {r[2], r[3]};
#pragma unroll
            for (int mt = 0; mt < kM; ++mt) {
                wb::mma_m16n8k16<T>(st.o[mt][n], pa[mt], b0, st.o[mt][n]);
                wb::mma_m16n8k16<T>(st.o[mt][n + 1], pa[mt], b1, st.o[mt][n + 1]);
            }
        }
    }
}

template <typename T, int D>
__global__ void __launch_bounds__(Config<D>::kThreads)
    attention_pipelined_kernel(ch09::Shape shape, int q_tiles, const T* __restrict__ Q, const T* __restrict__ K,
                               const T* __restrict__ V, T* __restrict__ O, float* __restrict__ lse)
{
    using C = Config<D>;
    constexpr int kM = C::kMTiles, kBlockK = C::kBlockK, kSTiles = C::kSTiles;
    extern __shared__ __align__(128) std::uint16_t smem[];
    // Buffer b = tile % 2 holds K at smem + 2b tiles and V right after it (pointer arithmetic, not an array of
    // pointers: an array indexed at run time would live in local memory).
    auto k_buf = [&](int tile) { return smem + (tile % 2) * 2 * C::kTileElems; };
    auto v_buf = [&](int tile) { return smem + (tile % 2) * 2 * C::kTileElems + C::kTileElems; };
    std::uint16_t* qs = C::kQInRegisters ? k_buf(1) : smem + 4 * C::kTileElems;

    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int g = lane / 4, t = lane % 4;
    const int bh = blockIdx.x / q_tiles;
    const int qt = shape.causal ? q_tiles - 1 - blockIdx.x % q_tiles : bh % q_tiles;   // BUG: bh, not blockIdx.x
    const int q0 = qt * C::kBlockQ;
    const std::int64_t q_base = static_cast<std::int64_t>(bh) * shape.q_len * D;
    const std::int64_t kv_base = static_cast<std::int64_t>(bh) * shape.kv_len * D;
    const auto* q_bits = reinterpret_cast<const std::uint16_t*>(Q) + q_base;
    const auto* k_bits = reinterpret_cast<const std::uint16_t*>(K) + kv_base;
    const auto* v_bits = reinterpret_cast<const std::uint16_t*>(V) + kv_base;

    // Which tiles: [0, kv_tiles) are needed; from `first_masked` on they need the mask (kv_len tail, or a key
    // past the diagonal of the block's first row: query i sees key j iff j <= i + diag).
    const int diag = shape.kv_len - shape.q_len;
    int kv_end = shape.kv_len;
    int unmasked_end = shape.kv_len / kBlockK * kBlockK;   // keys of full tiles
    if (shape.causal) {
        kv_end = min(kv_end, max(0, min(q0 + C::kBlockQ, shape.q_len) + diag));
        unmasked_end = min(unmasked_end, max(0, q0 + diag + 1));   // keys every row of the block sees
    }
    const int kv_tiles = wb::ceil_div(kv_end, kBlockK);
    const int first_masked = min(kv_tiles, unmasked_end / kBlockK);

    auto issue_k = [&](int tile) {
        if (tile < kv_tiles)
            copy_tile_async<D, kBlockK, C::kThreads>(k_buf(tile), k_bits, tile * kBlockK, shape.kv_len);
        ch08::cp_async_commit();   // an empty group past the end keeps the wait counts uniform
    };
    auto issue_v = [&](int tile) {
        if (tile < kv_tiles)
            copy_tile_async<D, kBlockK, C::kThreads>(v_buf(tile), v_bits, tile * kBlockK, shape.kv_len);
        ch08::cp_async_commit();
    };

    // Prologue: Q, K0, V0 in flight as three groups; wait for Q only.
    copy_tile_async<D, C::kBlockQ, C::kThreads>(qs, q_bits, q0, shape.q_len);
    ch08::cp_async_commit();
    issue_k(0);
    issue_v(0);
    ch08::cp_async_wait<2>();
    __syncthreads();
    QFragments<D, kM, C::kQInRegisters> qf;
    qf.load(qs, warp, lane);

    RowState<D, kM> st;
#pragma unroll
    for (int mt = 0; mt < kM; ++mt) {
#pragma unroll
        for (int n = 0; n < D / 8; ++n) st.o[mt][n][0] = st.o[mt][n][1] = st.o[mt][n][2] = st.o[mt][n][3] = 0.0f;
        st.m[mt][0] = st.m[mt][1] = -INFINITY;
        st.l[mt][0] = st.l[mt][1] = 0.0f;
    }
    const float scale_log2 = shape.scale * ch09::kLog2e;
    const int row0 = q0 + warp * 16 * kM + g;   // this lane's rows: row0 + 16 mt + 8 h

    // One key tile. Group order: ..., K(t), V(t) committed before the top; K(t + 1) inside.
    auto step = [&](int tile, auto masked) {
        ch08::cp_async_wait<1>();   // K(t) has landed (V(t) may still be in flight) ...
        __syncthreads();            // ... for every thread; and everyone is done with K(t - 1), V(t - 1), Q
        issue_k(tile + 1);          // into the buffer of K(t - 1)
        float s[kM][kSTiles][4];
        scores<T, D>(s, qf, k_buf(tile), lane, scale_log2);
        if constexpr (decltype(masked)::value) {
            const int k0 = tile * kBlockK;
#pragma unroll
            for (int mt = 0; mt < kM; ++mt)
#pragma unroll
                for (int j = 0; j < kSTiles; ++j)
#pragma unroll
                    for (int e = 0; e < 4; ++e) {
                        const int key = k0 + j * 8 + 2 * t + e % 2, row = row0 + mt * 16 + (e / 2) * 8;
                        if (key >= shape.kv_len || (shape.causal && key > row + diag)) s[mt][j][e] = -INFINITY;
                    }
        }
        softmax_update<D>(st, s);
        ch08::cp_async_wait<1>();   // V(t) has landed (K(t + 1) may be in flight) ...
        __syncthreads();            // ... for every thread
        issue_v(tile + 1);          // into the buffer of V(t - 1): everyone passed the barrier above after using it
        accumulate_pv<T, D>(st, s, v_buf(tile), lane);
    };

    int tile = 0;
    for (; tile < first_masked; ++tile) step(tile, std::false_type{});
    for (; tile < kv_tiles; ++tile) step(tile, std::true_type{});
    ch08::cp_async_wait<0>();   // no copy may still target shared memory when the block ends

    // Epilogue: O / l, lse = ln(2) * (m + log2(l)); a row with no visible key gets O = 0, lse = -inf.
#pragma unroll
    for (int mt = 0; mt < kM; ++mt)
#pragma unroll
        for (int h = 0; h < 2; ++h) {
            const float sum = wb::warp_reduce_sum<4>(st.l[mt][h]);
            const float inv = sum > 0.0f ? 1.0f / sum : 0.0f;
            const int row = row0 + mt * 16 + h * 8;
            if (row >= shape.q_len) continue;
            T* out = O + q_base + static_cast<std::int64_t>(row) * D;
#pragma unroll
            for (int n = 0; n < D / 8; ++n)
                *reinterpret_cast<std::uint32_t*>(out + n * 8 + 2 * t) =
                    wb::pack2_from_floats<T>(st.o[mt][n][2 * h] * inv, st.o[mt][n][2 * h + 1] * inv);
            if (t == 0)
                lse[static_cast<std::int64_t>(bh) * shape.q_len + row] =
                    sum > 0.0f ? (st.m[mt][h] + log2f(sum)) * ch09::kLn2 : -INFINITY;
        }
}

template <typename T, int D>
void launch(const ch09::Shape& shape, const void* q, const void* k, const void* v, void* o, float* lse,
            cudaStream_t stream)
{
    using C = Config<D>;
    auto kernel = attention_pipelined_kernel<T, D>;
    static const bool configured = [&] {   // D = 128: 96 KiB, over the default 48 KiB
        WB_CUDA_CHECK(
            cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(C::kSmemBytes)));
        return true;
    }();
    (void)configured;
    const int q_tiles = wb::ceil_div(shape.q_len, C::kBlockQ);
    const unsigned blocks = static_cast<unsigned>(shape.batch * shape.heads) * static_cast<unsigned>(q_tiles);
    kernel<<<blocks, C::kThreads, C::kSmemBytes, stream>>>(shape, q_tiles, static_cast<const T*>(q),
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

void attention_5_pipelined(const ch09::Shape& shape, const void* q, const void* k, const void* v, ch08::Dtype dtype,
                           void* o, float* lse, cudaStream_t stream)
{
    if (dtype == ch08::Dtype::f16) {
        launch_dim<__half>(shape, q, k, v, o, lse, stream);
    } else {
        launch_dim<__nv_bfloat16>(shape, q, k, v, o, lse, stream);
    }
}

}   // namespace WORKBOOK_TRACK
