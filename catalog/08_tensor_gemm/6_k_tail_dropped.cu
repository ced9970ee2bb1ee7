// Catalog, chapter 8, stage 6: the number of K tiles is rounded down.
// expect: wrong "the K loop stops at the last whole tile"
// emulated: skip "wgmma and TMA are not emulated: the stage is graded on a GPU of compute capability 9.0 only"
//
// tiles = K / 64 instead of ceil(K / 64): TMA would have zero-filled the columns past K in the last,
// partial tile, but that tile is never loaded, so every product with K % 64 != 0 misses its last
// K % 64 terms (and K < 64 gives C = beta C). The grader's first case (K = 24) is then beta * C alone,
// and the grader must say that the K loop stops at the last whole tile.
#include "08_tensor_gemm/stages.cuh"
#include "common/hopper.cuh"
#include "common/primitives.cuh"

namespace WORKBOOK_TRACK {

namespace {

namespace hw = wb::hopper;

constexpr int kBM = 128, kBN = 256, kBK = 64;   // block tile; K tile = one 128-byte swizzled row
constexpr int kStages = 4;                      // shared-memory buffers
constexpr int kWarpgroups = kBM / 64;           // each owns 64 rows of the block tile
constexpr int kThreads = kWarpgroups * 128;
constexpr int kATileBytes = kBM * kBK * 2, kBTileBytes = kBN * kBK * 2;
constexpr int kStageBytes = kATileBytes + kBTileBytes;   // 48 KiB
// The buffers (1024-byte aligned for the swizzle), then one mbarrier per buffer; 1 KiB of slack to align.
constexpr std::size_t kSmemBytes = kStages * kStageBytes + kStages * sizeof(std::uint64_t) + 1024;
constexpr int kGroupRows = 8;   // block rows per raster group (stage 5)

/// Thread 0: the copies of K tile @p tile into buffer @p stage; @p full counts their bytes.
__device__ __forceinline__ void load_tile(std::uint8_t* stage, std::uint64_t* full, const CUtensorMap* a_map,
                                          const CUtensorMap* b_map, int m0, int n0, int tile)
{
    hw::mbarrier_arrive_expect_tx(full, kStageBytes);   // the whole boxes count, zero-filled parts too
    hw::tma_load_2d(stage, a_map, full, m0, tile * kBK);
    hw::tma_load_2d(stage + kATileBytes, b_map, full, n0, tile * kBK);
}

/// This warpgroup's 64 x 256 x 64 of one K tile: 4 wgmma of K = 16, each 32 bytes further along the rows.
template <typename T>
__device__ __forceinline__ void multiply_tile(float (&acc)[128], const std::uint8_t* a_rows, const std::uint8_t* b_rows)
{
    hw::wgmma_fence();
#pragma unroll
    for (int k = 0; k < kBK / 16; ++k)
        hw::wgmma_m64n256k16<T>(acc, hw::smem_descriptor(a_rows + k * 32), hw::smem_descriptor(b_rows + k * 32));
    hw::wgmma_commit();
}

template <typename T>
__global__ void __launch_bounds__(kThreads, 1)
    hgemm_tma_wgmma_kernel(const __grid_constant__ CUtensorMap a_map, const __grid_constant__ CUtensorMap b_map, int M,
                           int N, int K, float alpha, float beta, float* __restrict__ C)
{
    extern __shared__ std::uint8_t smem_raw[];
    // The 128-byte swizzle repeats every 1024 bytes: tiles start on such a boundary.
    auto* smem =
        reinterpret_cast<std::uint8_t*>((reinterpret_cast<std::uintptr_t>(smem_raw) + 1023) & ~std::uintptr_t{1023});
    auto* full = reinterpret_cast<std::uint64_t*>(smem + kStages * kStageBytes);

    int bm, bn;
    ch08::grouped_tile(blockIdx.x, wb::ceil_div(M, kBM), wb::ceil_div(N, kBN), kGroupRows, bm, bn);
    const int m0 = bm * kBM, n0 = bn * kBN;
    const int tiles = K / kBK;
    const int warpgroup = threadIdx.x / 128;

    if (threadIdx.x == 0) {
        for (int s = 0; s < kStages; ++s) hw::mbarrier_init(&full[s], 1);
        hw::fence_barrier_init();
        for (int t = 0; t < kStages && t < tiles; ++t)
            load_tile(smem + t * kStageBytes, &full[t], &a_map, &b_map, m0, n0, t);
    }
    __syncthreads();

    float acc[128] = {};
    for (int t = 0; t < tiles; ++t) {
        const int s = t % kStages;
        std::uint8_t* stage = smem + s * kStageBytes;
        hw::mbarrier_wait(&full[s], (t / kStages) % 2);   // this buffer's fill number t / kStages has landed
        multiply_tile<T>(acc, stage + warpgroup * 64 * 128, stage + kATileBytes);
        hw::wgmma_wait<0>();
        __syncthreads();   // both warpgroups are done reading buffer s
        if (threadIdx.x == 0 && t + kStages < tiles) load_tile(stage, &full[s], &a_map, &b_map, m0, n0, t + kStages);
    }

    const int warp_in_group = (threadIdx.x % 128) / 32;
    ch08::store_wgmma_64x256(acc, m0 + warpgroup * 64 + warp_in_group * 16, n0, M, N, alpha, beta, C);
}

template <typename T>
void launch(int M, int N, int K, float alpha, const void* A, const void* B, ch08::Dtype dtype, float beta, float* C,
            cudaStream_t stream)
{
    auto kernel = hgemm_tma_wgmma_kernel<T>;
    static const bool configured = [&] {   // 193 KiB: far more than the default 48 KiB
        WB_CUDA_CHECK(
            cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(kSmemBytes)));
        return true;
    }();
    (void)configured;
    const auto element = dtype == ch08::Dtype::f16 ? hw::Element16::f16 : hw::Element16::bf16;
    const CUtensorMap a_map = hw::make_tensor_map_2d(A, element, M, K, kBM);
    const CUtensorMap b_map = hw::make_tensor_map_2d(B, element, N, K, kBN);
    const int blocks = wb::ceil_div(M, kBM) * wb::ceil_div(N, kBN);
    kernel<<<blocks, kThreads, kSmemBytes, stream>>>(a_map, b_map, M, N, K, alpha, beta, C);
    WB_CHECK_LAUNCH();
}

}   // namespace

void hgemm_6_tma_wgmma(int M, int N, int K, float alpha, const void* A, const void* B, ch08::Dtype dtype, float beta,
                       float* C, cudaStream_t stream)
{
    if (dtype == ch08::Dtype::f16) {
        launch<__half>(M, N, K, alpha, A, B, dtype, beta, C, stream);
    } else {
        launch<__nv_bfloat16>(M, N, K, alpha, A, B, dtype, beta, C, stream);
    }
}

}   // namespace WORKBOOK_TRACK
