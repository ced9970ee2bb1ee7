// Chapter 7, stage 7: warp tiling, each lane owns four 4 x 4 blocks spread over its warp's tile.          (reference solution)
//
// Why it is faster than stage 6: a 128-bit shared load is served a quarter-warp at a time (8 lanes
// x 16 bytes = 128 bytes per phase). In stage 6 a thread's 8 columns are contiguous, so the 8 lanes
// of a phase read float4s of Bs 32 bytes apart, 256 bytes in all: lanes i and i + 4 hit the same
// banks (a 2-way conflict on both B fragment loads, half of the four fragment loads per k). Here
// each warp owns a 64 x 32 part of the block tile and each lane four 4 x 4 blocks, 32 rows and 16
// columns apart: a phase reads 2 consecutive float4 of As or 4 of Bs, each shared by several lanes
// (no conflict; the whole warp covers 128 bytes of As and 64 of Bs), and a warp works on a small
// fixed part of the tile, so its loads stay close together.
#include "07_sgemm/epilogue.cuh"
#include "07_sgemm/stages.cuh"
#include "common/primitives.cuh"

namespace WORKBOOK_TRACK {

namespace {

constexpr int kBM = 128;
constexpr int kBN = 128;
constexpr int kBK = 8;
constexpr int kWM = 64;   // a warp's tile: kWM x kWN outputs
constexpr int kWN = 32;
constexpr int kLanesN = 4;                             // lanes across the warp tile (lane % 4) ...
constexpr int kLanesM = 32 / kLanesN;                  // ... and down it (lane / 4)
constexpr int kTM = kWM / kLanesM;                     // 8 outputs per lane down: 2 blocks of 4, 32 rows apart
constexpr int kTN = kWN / kLanesN;                     // 8 across: 2 blocks of 4, 16 columns apart
constexpr int kWarpsN = kBN / kWN;                     // 4
constexpr int kThreads = (kBM / kWM) * kWarpsN * 32;   // 256
constexpr int kPadA = 4;
static_assert(kBM * kBK / 4 == kThreads && kBK * kBN / 4 == kThreads, "one float4 of each tile per thread");

template <bool kVec>
__device__ __forceinline__ float4 load4(const float* row, int col, int limit, bool row_ok)
{
    if constexpr (kVec) {
        return (row_ok && col < limit) ? *reinterpret_cast<const float4*>(row + col) : make_float4(0.f, 0.f, 0.f, 0.f);
    } else {
        float v[4];
#pragma unroll
        for (int i = 0; i < 4; ++i) v[i] = (row_ok && col + i < limit) ? row[col + i] : 0.0f;
        return make_float4(v[0], v[1], v[2], v[3]);
    }
}

template <bool kVec>
__global__ void __launch_bounds__(kThreads)
    sgemm_warp_tiling_kernel(int M, int N, int K, float alpha, const float* __restrict__ A, const float* __restrict__ B,
                             float beta, float* __restrict__ C)
{
    __shared__ __align__(16) float As[kBK][kBM + kPadA];   // transposed: As[k][m]
    __shared__ __align__(16) float Bs[kBK][kBN];
    const int t = threadIdx.x;
    const int warp = t / 32, lane = t % 32;
    const int m0 = blockIdx.y * kBM;
    const int n0 = blockIdx.x * kBN;
    // Where this lane's outputs are inside the block tile: rows warp_m + lane_m * 4 + s * 32 + r,
    // columns warp_n + lane_n * 4 + q * 16 + c, for s, q in {0, 1} and r, c in 0..3.
    const int warp_m = (warp / kWarpsN) * kWM;
    const int warp_n = (warp % kWarpsN) * kWN;
    const int lane_m = (lane / kLanesN) * 4;
    const int lane_n = (lane % kLanesN) * 4;

    const int a_row = t / 2, a_k = (t % 2) * 4;
    const int b_k = t / 32, b_col = (t % 32) * 4;
    const bool a_row_ok = m0 + a_row < M;
    const float* a_src = A + static_cast<std::int64_t>(a_row_ok ? m0 + a_row : 0) * K;

    float acc[kTM][kTN] = {};
    for (int k0 = 0; k0 < K; k0 += kBK) {
        const float4 a = load4<kVec>(a_src, k0 + a_k, K, a_row_ok);
        const bool b_row_ok = k0 + b_k < K;
        const float4 b =
            load4<kVec>(B + static_cast<std::int64_t>(b_row_ok ? k0 + b_k : 0) * N, n0 + b_col, N, b_row_ok);
        As[a_k + 0][a_row] = a.x;
        As[a_k + 1][a_row] = a.y;
        As[a_k + 2][a_row] = a.z;
        As[a_k + 3][a_row] = a.w;
        *reinterpret_cast<float4*>(&Bs[b_k][b_col]) = b;
        __syncthreads();
#pragma unroll
        for (int k = 0; k < kBK; ++k) {
            alignas(16) float a_frag[kTM];   // float4 stores below: 16-byte aligned
            alignas(16) float b_frag[kTN];
#pragma unroll
            for (int s = 0; s < kTM / 4; ++s) {   // the warp reads 8 consecutive float4, a phase 2: no conflict
                *reinterpret_cast<float4*>(&a_frag[s * 4]) =
                    *reinterpret_cast<const float4*>(&As[k][warp_m + s * (kWM / (kTM / 4)) + lane_m]);
            }
#pragma unroll
            for (int q = 0; q < kTN / 4; ++q) {   // 4 consecutive float4 per phase and per warp: no conflict
                *reinterpret_cast<float4*>(&b_frag[q * 4]) =
                    *reinterpret_cast<const float4*>(&Bs[k][warp_n + q * (kWN / (kTN / 4)) + lane_n]);
            }
#pragma unroll
            for (int i = 0; i < kTM; ++i) {
#pragma unroll
                for (int j = 0; j < kTN; ++j) acc[i][j] = fmaf(a_frag[i], b_frag[j], acc[i][j]);
            }
        }
        __syncthreads();
    }

#pragma unroll
    for (int i = 0; i < kTM; ++i) {
        const int row = m0 + warp_m + (i / 4) * (kWM / (kTM / 4)) + lane_m + i % 4;
        if (row >= M) continue;
        float* c_row = C + static_cast<std::int64_t>(row) * N;
#pragma unroll
        for (int j = 0; j < kTN; j += 4) {
            const int col = n0 + warp_n + (j / 4) * (kWN / (kTN / 4)) + lane_n;
            const float4 r =
                make_float4(alpha * acc[i][j], alpha * acc[i][j + 1], alpha * acc[i][j + 2], alpha * acc[i][j + 3]);
            ch07::store_c4<kVec>(c_row, col, N, r, beta);
        }
    }
}

}   // namespace

void sgemm_7_warp_tiling(int M, int N, int K, float alpha, const float* A, const float* B, float beta, float* C,
                         cudaStream_t stream)
{
    const dim3 grid(wb::ceil_div(N, kBN), wb::ceil_div(M, kBM));
    if (K % 4 == 0 && N % 4 == 0) {
        sgemm_warp_tiling_kernel<true><<<grid, kThreads, 0, stream>>>(M, N, K, alpha, A, B, beta, C);
    } else {
        sgemm_warp_tiling_kernel<false><<<grid, kThreads, 0, stream>>>(M, N, K, alpha, A, B, beta, C);
    }
    WB_CHECK_LAUNCH();
}

}   // namespace WORKBOOK_TRACK
