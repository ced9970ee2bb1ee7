// Chapter 7, stage 6: float4 global and shared accesses, the A tile transposed in shared memory.          (reference solution)
//
// Why it is faster than stage 5: the same 8 x 8 outer products, with a quarter of the memory
// instructions. A and B arrive from global memory as float4 (one load per thread per tile instead
// of four), C leaves as float4, and the fragments come out of shared memory as float4: 4 shared
// loads per k instead of 16. For A that needs the tile stored k-major (As[k][m], transposed), so that
// a thread's 8 values of A for one k are contiguous. With fewer load instructions in the way, the
// FMA units are busy a larger part of the time.
#include "07_sgemm/epilogue.cuh"
#include "07_sgemm/stages.cuh"
#include "common/primitives.cuh"

namespace WORKBOOK_TRACK {

namespace {

constexpr int kBM = 128;
constexpr int kBN = 128;
constexpr int kBK = 8;
constexpr int kTM = 8;
constexpr int kTN = 8;
constexpr int kThreads = (kBM / kTM) * (kBN / kTN);   // 256
constexpr int kPadA = 4;   // As rows of 132 floats: the transposing stores hit 32 different banks,
                           // and 132 * 4 bytes keeps every row 16-byte aligned for float4 reads
static_assert(kBM * kBK / 4 == kThreads && kBK * kBN / 4 == kThreads, "one float4 of each tile per thread");

/// Four consecutive floats of a row, zero where the row ends (at column @p limit). With kVec, the
/// row and the column are multiples of 4 and one float4 load does it.
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
    sgemm_vectorized_kernel(int M, int N, int K, float alpha, const float* __restrict__ A, const float* __restrict__ B,
                            float beta, float* __restrict__ C)
{
    __shared__ __align__(16) float As[kBK][kBM + kPadA];   // transposed: As[k][m]
    __shared__ __align__(16) float Bs[kBK][kBN];
    const int t = threadIdx.x;
    const int m0 = blockIdx.y * kBM;
    const int n0 = blockIdx.x * kBN;
    const int thread_row = t / (kBN / kTN);
    const int thread_col = t % (kBN / kTN);
    // Loads: A tile row t / 2, k (t % 2) * 4 .. + 3; B tile row t / 32, columns (t % 32) * 4 .. + 3.
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
        As[a_k + 0][a_row] = a.x;   // the transpose: four scalar stores
        As[a_k + 1][a_row] = a.y;
        As[a_k + 2][a_row] = a.z;
        As[a_k + 3][a_row] = a.w;
        *reinterpret_cast<float4*>(&Bs[b_k][b_col]) = b;
        __syncthreads();
#pragma unroll
        for (int k = 0; k < kBK; ++k) {
            alignas(16) float a_frag[kTM];   // float4 stores below: 16-byte aligned
            alignas(16) float b_frag[kTN];
            *reinterpret_cast<float4*>(&a_frag[0]) = *reinterpret_cast<const float4*>(&As[k][thread_row * kTM]);
            *reinterpret_cast<float4*>(&a_frag[4]) = *reinterpret_cast<const float4*>(&As[k][thread_row * kTM + 4]);
            *reinterpret_cast<float4*>(&b_frag[0]) = *reinterpret_cast<const float4*>(&Bs[k][thread_col * kTN]);
            *reinterpret_cast<float4*>(&b_frag[4]) = *reinterpret_cast<const float4*>(&Bs[k][thread_col * kTN + 4]);
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
        const int row = m0 + thread_row * kTM + i;
        if (row >= M) break;
        float* c_row = C + static_cast<std::int64_t>(row) * N;
#pragma unroll
        for (int j = 0; j < kTN; j += 4) {
            const int col = n0 + thread_col * kTN + j;
            const float4 r =
                make_float4(alpha * acc[i][j], alpha * acc[i][j + 1], alpha * acc[i][j + 2], alpha * acc[i][j + 3]);
            ch07::store_c4<kVec>(c_row, col, N, r, beta);
        }
    }
}

}   // namespace

void sgemm_6_vectorized(int M, int N, int K, float alpha, const float* A, const float* B, float beta, float* C,
                        cudaStream_t stream)
{
    const dim3 grid(wb::ceil_div(N, kBN), wb::ceil_div(M, kBM));
    if (K % 4 == 0 && N % 4 == 0) {   // every row of A, B and C starts on a 16-byte boundary
        sgemm_vectorized_kernel<true><<<grid, kThreads, 0, stream>>>(M, N, K, alpha, A, B, beta, C);
    } else {
        sgemm_vectorized_kernel<false><<<grid, kThreads, 0, stream>>>(M, N, K, alpha, A, B, beta, C);
    }
    WB_CHECK_LAUNCH();
}

}   // namespace WORKBOOK_TRACK
