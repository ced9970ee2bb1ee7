// Catalog, chapter 9, stage 3: the offset of a head's keys and values kept in a std::uint32_t.
// expect: wrong "32 of K and V (head r reads"
// emulated: skip "the emulated shapes stay far below 2^31 elements, the GPU grader checks K and V past 2^32"
//
// The reference stage 3 with `const std::uint32_t kv_offset = bh * shape.kv_len * D;` for the place of
// the block's head in K and V: computed in 64 bits (bh is std::int64_t), then kept in one 32-bit register
// instead of two, on the reasoning that an offset is never negative and an unsigned int reaches 4.29
// billion, twice what an int does. Q and O keep the reference's 64-bit offsets. Every shape below 2^32
// elements passes, the grader's case whose K and V hold 4 x 4099 x 1091 x 128 = 2,289,668,608 elements
// included (its last head starts at 2,289,528,960). The contract allows 2^16 heads of 2^17 keys of 128
// dimensions, 2^40 elements, and the case with 4 x 8198 heads (4,579,337,216 elements in each of K and
// V, fp16) passes 2^32: head bh reads elements bh * 139648 on, head 30755 (from 4,294,874,240) straddles
// 2^32 and is still read right (load_rows adds its rows to a 64-bit pointer), and head 30756's offset,
// 4,295,013,888, wraps to 46,592, key 364 of head 0. From there on every head bh is computed from the
// 1091 keys and values that start at key 364 of head bh - 30756: the 2036 heads from 30756 on get wrong
// outputs and lse, those before are right. The grader must name head 30756 as the first head that reads
// past element 2^32 of K and V (the expect line quotes that message from after its '^', which a phrase
// may not hold). On a GPU without the memory the case is skipped and this entry passes.
#include "09_attention/stages.cuh"
#include "common/primitives.cuh"

#include <algorithm>

namespace WORKBOOK_TRACK {

namespace {

constexpr int kRows = 64;   // query rows per block
constexpr int kKeys = 32;   // keys per tile: one per lane
constexpr int kWarps = 8;
constexpr int kThreads = kWarps * wb::kWarpSize;
constexpr int kRowsPerWarp = kRows / kWarps;   // 8
constexpr std::int64_t kMaxBlocks = std::int64_t{1} << 20;

/// Shared memory, in floats: Q (64 x D), K (32 x (D + 4): the padding puts the rows 4 banks apart, so
/// the 8 lanes of one phase of a float4 read hit 8 different groups of banks), V (32 x D), P (a
/// 8 x 32 tile per warp).
template <int D>
struct Smem {
    static constexpr int kKStride = D + 4;
    static constexpr int kQ = 0;
    static constexpr int kK = kQ + kRows * D;
    static constexpr int kV = kK + kKeys * kKStride;
    static constexpr int kP = kV + kKeys * D;
    static constexpr int kFloats = kP + kWarps * kRowsPerWarp * kKeys;
    static constexpr std::size_t kBytes = kFloats * sizeof(float);
};

/// Copies @p count rows of D 16-bit elements, from row @p first of a [rows_in, D] matrix, into floats
/// at @p dst (row stride @p stride); rows past the end become zeros. 16-byte chunks, all threads.
template <typename T, int D>
__device__ void load_rows(float* dst, int stride, const T* src, std::int64_t first, std::int64_t rows_in, int count)
{
    constexpr int kChunksPerRow = D / 8;
    for (int c = threadIdx.x; c < count * kChunksPerRow; c += kThreads) {
        const int r = c / kChunksPerRow, d = (c % kChunksPerRow) * 8;
        float4 lo = make_float4(0.0f, 0.0f, 0.0f, 0.0f), hi = lo;
        if (first + r < rows_in) {
            const ch08::Chunk chunk = *reinterpret_cast<const ch08::Chunk*>(src + (first + r) * D + d);
            const T* e = reinterpret_cast<const T*>(&chunk);
            lo = make_float4(wb::to_float(e[0]), wb::to_float(e[1]), wb::to_float(e[2]), wb::to_float(e[3]));
            hi = make_float4(wb::to_float(e[4]), wb::to_float(e[5]), wb::to_float(e[6]), wb::to_float(e[7]));
        }
        *reinterpret_cast<float4*>(dst + r * stride + d) = lo;
        *reinterpret_cast<float4*>(dst + r * stride + d + 4) = hi;
    }
}

template <typename T, int D>
__global__ void __launch_bounds__(kThreads)
    tiled_kernel(ch09::Shape shape, const T* __restrict__ q, const T* __restrict__ k, const T* __restrict__ v,
                 T* __restrict__ o, float* __restrict__ lse)
{
    using S = Smem<D>;
    constexpr int kPer = D / wb::kWarpSize;   // output dims per lane (consecutive): 2 or 4
    using VPack = wb::Pack<float, kPer>;
    using OPack = wb::Pack<T, kPer>;
    extern __shared__ float4 smem_raw[];
    float* smem = reinterpret_cast<float*>(smem_raw);
    float* q_tile = smem + S::kQ;
    float* k_tile = smem + S::kK;
    float* v_tile = smem + S::kV;

    const int warp = threadIdx.x / wb::kWarpSize, lane = threadIdx.x % wb::kWarpSize;
    float* p_tile = smem + S::kP + warp * kRowsPerWarp * kKeys;
    const std::int64_t q_tiles = wb::ceil_div<std::int64_t>(shape.q_len, kRows);
    const std::int64_t items = ch09::heads_total(shape) * q_tiles;

    for (std::int64_t item = blockIdx.x; item < items; item += gridDim.x) {
        const std::int64_t bh = item / q_tiles;
        const int r0 = static_cast<int>(item % q_tiles) * kRows;
        const std::uint32_t kv_offset = bh * shape.kv_len * D;   // the bug: "an offset is never negative"
        const T* kb = k + kv_offset;
        const T* vb = v + kv_offset;
        __syncthreads();   // the previous item's last reads of the tiles are done
        load_rows<T, D>(q_tile, D, q + (bh * shape.q_len) * D, r0, shape.q_len, kRows);

        // This warp's rows: how many keys each sees (0 for rows past q_len), and their online state.
        int visible[kRowsPerWarp];
        float m[kRowsPerWarp], l[kRowsPerWarp], acc[kRowsPerWarp][kPer];
#pragma unroll
        for (int r = 0; r < kRowsPerWarp; ++r) {
            const int row = r0 + warp * kRowsPerWarp + r;
            visible[r] = row < shape.q_len ? ch09::visible_keys(shape, row) : 0;
            m[r] = -INFINITY, l[r] = 0.0f;
#pragma unroll
            for (int d = 0; d < kPer; ++d) acc[r][d] = 0.0f;
        }
        // The block's last row sees the most keys (the mask is monotonic): no tile beyond is loaded.
        const int last_row = min(r0 + kRows, shape.q_len) - 1;
        const int block_keys = ch09::visible_keys(shape, last_row);

        for (int j0 = 0; j0 < block_keys; j0 += kKeys) {
            __syncthreads();   // every warp is done with the previous K and V tiles (and Q is loaded)
            load_rows<T, D>(k_tile, S::kKStride, kb, j0, shape.kv_len, kKeys);
            load_rows<T, D>(v_tile, D, vb, j0, shape.kv_len, kKeys);
            __syncthreads();   // the tiles are complete before anyone reads them

            // Scores of key j0 + lane for the warp's 8 rows.
            float s[kRowsPerWarp] = {};
            const float* kr = k_tile + lane * S::kKStride;
#pragma unroll 4
            for (int d = 0; d < D; d += 4) {
                const float4 kk = *reinterpret_cast<const float4*>(kr + d);
#pragma unroll
                for (int r = 0; r < kRowsPerWarp; ++r) {   // the Q row: one address for all lanes (broadcast)
                    const float4 qq = *reinterpret_cast<const float4*>(q_tile + (warp * kRowsPerWarp + r) * D + d);
                    s[r] = fmaf(qq.x, kk.x, fmaf(qq.y, kk.y, fmaf(qq.z, kk.z, fmaf(qq.w, kk.w, s[r]))));
                }
            }
            // The online softmax, one tile at a time.
#pragma unroll
            for (int r = 0; r < kRowsPerWarp; ++r) {
                const float score = j0 + lane < visible[r] ? s[r] * shape.scale : -INFINITY;
                const float m_new = fmaxf(m[r], wb::warp_reduce_max(score));
                // A row that has seen no key yet keeps m = -inf: exp(-inf - -inf) would be NaN.
                const float correction = m_new == -INFINITY ? 1.0f : __expf(m[r] - m_new);
                const float p = m_new == -INFINITY ? 0.0f : __expf(score - m_new);
                l[r] = l[r] * correction + p;   // per lane; summed across the warp once, at the end
#pragma unroll
                for (int d = 0; d < kPer; ++d) acc[r][d] *= correction;
                m[r] = m_new;
                p_tile[r * kKeys + lane] = p;
            }
            __syncwarp();   // the warp's P tile is complete
                            // O += P V: 4 keys at a time, each V float read by the lane that owns its dims.
#pragma unroll 2
            for (int j = 0; j < kKeys; j += 4) {
                VPack vv[4];
#pragma unroll
                for (int t = 0; t < 4; ++t) vv[t] = *reinterpret_cast<const VPack*>(v_tile + (j + t) * D + lane * kPer);
#pragma unroll
                for (int r = 0; r < kRowsPerWarp; ++r) {
                    const float4 pp = *reinterpret_cast<const float4*>(p_tile + r * kKeys + j);
#pragma unroll
                    for (int d = 0; d < kPer; ++d)
                        acc[r][d] =
                            fmaf(pp.x, vv[0].v[d],
                                 fmaf(pp.y, vv[1].v[d], fmaf(pp.z, vv[2].v[d], fmaf(pp.w, vv[3].v[d], acc[r][d]))));
                }
            }
            __syncwarp();   // P is read before the next tile overwrites it
        }

#pragma unroll
        for (int r = 0; r < kRowsPerWarp; ++r) {
            const int row = r0 + warp * kRowsPerWarp + r;
            const float sum = wb::warp_reduce_sum(l[r]);
            if (row >= shape.q_len) continue;
            const std::int64_t out_row = bh * shape.q_len + row;
            const float inv = visible[r] > 0 ? 1.0f / sum : 0.0f;   // a row that sees no key: O = 0
            OPack out;
#pragma unroll
            for (int d = 0; d < kPer; ++d) out.v[d] = wb::from_float<T>(acc[r][d] * inv);
            *reinterpret_cast<OPack*>(o + out_row * D + lane * kPer) = out;
            if (lane == 0) lse[out_row] = visible[r] > 0 ? m[r] + logf(sum) : -INFINITY;
        }
    }
}

template <typename T, int D>
void launch(const ch09::Shape& shape, const void* q, const void* k, const void* v, void* o, float* lse,
            cudaStream_t stream)
{
    constexpr std::size_t kBytes = Smem<D>::kBytes;   // 72.5 KiB for D = 128: above the default 48 KiB
    static const bool configured = [] {
        WB_CUDA_CHECK(cudaFuncSetAttribute(tiled_kernel<T, D>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                           static_cast<int>(kBytes)));
        return true;
    }();
    (void)configured;
    const std::int64_t items = ch09::heads_total(shape) * wb::ceil_div<std::int64_t>(shape.q_len, kRows);
    const auto blocks = static_cast<unsigned>(std::min(items, kMaxBlocks));
    tiled_kernel<T, D><<<blocks, kThreads, kBytes, stream>>>(shape, static_cast<const T*>(q), static_cast<const T*>(k),
                                                             static_cast<const T*>(v), static_cast<T*>(o), lse);
    WB_CHECK_LAUNCH();
}

template <typename T>
void run(const ch09::Shape& shape, const void* q, const void* k, const void* v, void* o, float* lse,
         cudaStream_t stream)
{
    if (shape.head_dim == 64) return launch<T, 64>(shape, q, k, v, o, lse, stream);
    launch<T, 128>(shape, q, k, v, o, lse, stream);
}

}   // namespace

void attention_3_tiled(const ch09::Shape& shape, const void* q, const void* k, const void* v, ch08::Dtype dtype,
                       void* o, float* lse, cudaStream_t stream)
{
    if (dtype == ch08::Dtype::f16) return run<__half>(shape, q, k, v, o, lse, stream);
    run<__nv_bfloat16>(shape, q, k, v, o, lse, stream);
}

}   // namespace WORKBOOK_TRACK
