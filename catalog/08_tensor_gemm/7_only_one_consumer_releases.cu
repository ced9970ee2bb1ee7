// Catalog, chapter 8, stage 7: only the first consumer warpgroup arrives on the "empty" barriers.
// expect: hung "still running"
// emulated: skip "wgmma and TMA are not emulated: the stage is graded on a GPU of compute capability 9.0 only"
//
// The empty barriers still expect 8 arrivals per fill (4 warps x 2 consumers), but the second
// consumer never arrives: each phase gets 4 and never completes. The first round passes (the
// buffers start empty); when the producer comes back to buffer 0 it waits forever, and so do the
// consumers, for data that never comes. Shapes with at most 4 K tiles and one output tile per block
// finish; the first larger one hangs.
#include "08_tensor_gemm/stages.cuh"
#include "common/hopper.cuh"
#include "common/primitives.cuh"

namespace WORKBOOK_TRACK {

namespace {

namespace hw = wb::hopper;

constexpr int kBM = 128, kBN = 256, kBK = 64;   // output tile; K tile = one 128-byte swizzled row
constexpr int kStages = 4;                      // shared-memory buffers
constexpr int kConsumers = kBM / 64;            // consumer warpgroups, 64 rows of the tile each
constexpr int kThreads = (1 + kConsumers) * 128;
constexpr int kATileBytes = kBM * kBK * 2, kBTileBytes = kBN * kBK * 2;
constexpr int kStageBytes = kATileBytes + kBTileBytes;   // 48 KiB
// The buffers (1024-byte aligned for the swizzle), a "full" and an "empty" mbarrier per buffer, 1 KiB of
// slack to align.
constexpr std::size_t kSmemBytes = kStages * kStageBytes + 2 * kStages * sizeof(std::uint64_t) + 1024;
constexpr int kGroupRows = 16;   // tile rows per raster group
constexpr int kProducerRegisters = 40, kConsumerRegisters = 232;

/// A position in the ring of buffers: which buffer, and the parity of its current fill.
struct Ring {
    int stage = 0;
    unsigned phase = 0;
    __device__ void advance()
    {
        if (++stage == kStages) stage = 0, phase ^= 1;
    }
};

/// The producer (one thread): every K tile of every output tile of this block, into the next free buffer.
__device__ void produce(std::uint8_t* smem, std::uint64_t* full, std::uint64_t* empty, const CUtensorMap* a_map,
                        const CUtensorMap* b_map, int tiles_m, int tiles_n, int k_tiles)
{
    Ring ring;
    for (int tile = blockIdx.x; tile < tiles_m * tiles_n; tile += gridDim.x) {
        int tm, tn;
        ch08::grouped_tile(tile, tiles_m, tiles_n, kGroupRows, tm, tn);
        for (int k = 0; k < k_tiles; ++k, ring.advance()) {
            // Wait until both consumers released the buffer's previous fill (the first round passes:
            // waiting on the parity of the phase "before" the first completes at once).
            hw::mbarrier_wait(&empty[ring.stage], ring.phase ^ 1);
            std::uint8_t* stage = smem + ring.stage * kStageBytes;
            hw::mbarrier_arrive_expect_tx(&full[ring.stage], kStageBytes);
            hw::tma_load_2d(stage, a_map, &full[ring.stage], tm * kBM, k * kBK);
            hw::tma_load_2d(stage + kATileBytes, b_map, &full[ring.stage], tn * kBN, k * kBK);
        }
    }
}

/// A consumer warpgroup (@p consumer = 0 or 1: rows 64 * consumer .. + 63 of each tile): every K tile
/// of every output tile of this block, then that tile's epilogue.
template <typename T>
__device__ void consume(const std::uint8_t* smem, std::uint64_t* full, std::uint64_t* empty, int consumer, int tiles_m,
                        int tiles_n, int k_tiles, int M, int N, float alpha, float beta, float* C)
{
    const int warp_in_group = (threadIdx.x % 128) / 32;
    Ring ring;
    for (int tile = blockIdx.x; tile < tiles_m * tiles_n; tile += gridDim.x) {
        int tm, tn;
        ch08::grouped_tile(tile, tiles_m, tiles_n, kGroupRows, tm, tn);
        float acc[128] = {};
        for (int k = 0; k < k_tiles; ++k, ring.advance()) {
            hw::mbarrier_wait(&full[ring.stage], ring.phase);
            const std::uint8_t* stage = smem + ring.stage * kStageBytes;
            const std::uint8_t* a_rows = stage + consumer * 64 * 128;
            hw::wgmma_fence();
#pragma unroll
            for (int kk = 0; kk < kBK / 16; ++kk)
                hw::wgmma_m64n256k16<T>(acc, hw::smem_descriptor(a_rows + kk * 32),
                                        hw::smem_descriptor(stage + kATileBytes + kk * 32));
            hw::wgmma_commit();
            hw::wgmma_wait<0>();
            // The bug: only the first consumer's 4 warps arrive; the barrier waits for 8.
            if (consumer == 0 && threadIdx.x % 32 == 0) hw::mbarrier_arrive(&empty[ring.stage]);
        }
        ch08::store_wgmma_64x256(acc, tm * kBM + consumer * 64 + warp_in_group * 16, tn * kBN, M, N, alpha, beta, C);
    }
}

template <typename T>
__global__ void __launch_bounds__(kThreads, 1)
    hgemm_warp_specialized_kernel(const __grid_constant__ CUtensorMap a_map, const __grid_constant__ CUtensorMap b_map,
                                  int M, int N, int K, float alpha, float beta, float* __restrict__ C)
{
    extern __shared__ std::uint8_t smem_raw[];
    // The 128-byte swizzle repeats every 1024 bytes: tiles start on such a boundary.
    auto* smem =
        reinterpret_cast<std::uint8_t*>((reinterpret_cast<std::uintptr_t>(smem_raw) + 1023) & ~std::uintptr_t{1023});
    auto* full = reinterpret_cast<std::uint64_t*>(smem + kStages * kStageBytes);
    auto* empty = full + kStages;

    if (threadIdx.x == 0) {
        for (int s = 0; s < kStages; ++s) {
            hw::mbarrier_init(&full[s], 1);                 // the producer's arrival (and the bytes)
            hw::mbarrier_init(&empty[s], kConsumers * 4);   // one arrival per consumer warp
        }
        hw::fence_barrier_init();
    }
    __syncthreads();

    const int tiles_m = wb::ceil_div(M, kBM), tiles_n = wb::ceil_div(N, kBN), k_tiles = wb::ceil_div(K, kBK);
    const int warpgroup = threadIdx.x / 128;
    if (warpgroup == 0) {
        hw::release_registers<kProducerRegisters>();
        if (threadIdx.x == 0) produce(smem, full, empty, &a_map, &b_map, tiles_m, tiles_n, k_tiles);
    } else {
        hw::claim_registers<kConsumerRegisters>();
        consume<T>(smem, full, empty, warpgroup - 1, tiles_m, tiles_n, k_tiles, M, N, alpha, beta, C);
    }
}

template <typename T>
void launch(int M, int N, int K, float alpha, const void* A, const void* B, ch08::Dtype dtype, float beta, float* C,
            cudaStream_t stream)
{
    auto kernel = hgemm_warp_specialized_kernel<T>;
    static const int sms = [&] {   // 193 KiB of shared memory: far more than the default 48 KiB
        WB_CUDA_CHECK(
            cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(kSmemBytes)));
        int device = 0, count = 0;
        WB_CUDA_CHECK(cudaGetDevice(&device));
        WB_CUDA_CHECK(cudaDeviceGetAttribute(&count, cudaDevAttrMultiProcessorCount, device));
        return count;
    }();
    const auto element = dtype == ch08::Dtype::f16 ? hw::Element16::f16 : hw::Element16::bf16;
    const CUtensorMap a_map = hw::make_tensor_map_2d(A, element, M, K, kBM);
    const CUtensorMap b_map = hw::make_tensor_map_2d(B, element, N, K, kBN);
    const int tiles = wb::ceil_div(M, kBM) * wb::ceil_div(N, kBN);
    const int blocks = tiles < sms ? tiles : sms;   // one per SM at most: each walks its share of the tiles
    kernel<<<blocks, kThreads, kSmemBytes, stream>>>(a_map, b_map, M, N, K, alpha, beta, C);
    WB_CHECK_LAUNCH();
}

}   // namespace

void hgemm_7_warp_specialized(int M, int N, int K, float alpha, const void* A, const void* B, ch08::Dtype dtype,
                              float beta, float* C, cudaStream_t stream)
{
    if (dtype == ch08::Dtype::f16) {
        launch<__half>(M, N, K, alpha, A, B, dtype, beta, C, stream);
    } else {
        launch<__nv_bfloat16>(M, N, K, alpha, A, B, dtype, beta, C, stream);
    }
}

}   // namespace WORKBOOK_TRACK
