// Catalog, chapter 8, stage 7: C goes through TMA even when beta != 0, so beta * C is dropped.
// expect: wrong "C is left out"
// emulated: skip "wgmma and TMA are not emulated: the stage is graded on a GPU of compute capability 9.0 only"
//
// The staged epilogue writes alpha * acc and lets the copy engine store it: right when beta = 0, but a TMA
// store overwrites, it cannot add beta * C. The launch takes the staged path whenever C's rows suit a
// tensor map, without asking about beta, so every case with beta != 0 and N % 4 == 0 loses its C term.
// The class: an epilogue that handles beta on one path only (see also the beta = 0 path that reads C).
// The results are then alpha * A * B exactly, and the grader must say that beta * C is left out.
#include "08_tensor_gemm/stages.cuh"
#include "common/hopper.cuh"
#include "common/primitives.cuh"

namespace WORKBOOK_TRACK {

namespace {

namespace hw = wb::hopper;

constexpr int kBM = 128, kBN = 256, kBK = 64;   // output tile; K tile = one 128-byte swizzled row
constexpr int kStages = 3;                      // shared-memory buffers of A and B
constexpr int kConsumers = kBM / 64;            // consumer warpgroups, 64 rows of the tile each
constexpr int kThreads = (1 + kConsumers) * 128;
constexpr int kATileBytes = kBM * kBK * 2, kBTileBytes = kBN * kBK * 2;
constexpr int kStageBytes = kATileBytes + kBTileBytes;    // 48 KiB
constexpr int kBoxRows = 64, kBoxCols = 32;               // one TMA box of C: 64 rows x 128 bytes of fp32
constexpr int kBoxBytes = kBoxRows * kBoxCols * 4;        // 8 KiB
constexpr int kStagedBoxes = 4;                           // a consumer stages 64 x 128 of C at a time
constexpr int kStagingBytes = kStagedBoxes * kBoxBytes;   // 32 KiB per consumer
// The buffers and the staging (1024-byte aligned for the swizzle), a "full" and an "empty" mbarrier per
// buffer, 1 KiB of slack to align: 209 KiB of the 227 an SM offers.
constexpr std::size_t kSmemBytes =
    kStages * kStageBytes + kConsumers * kStagingBytes + 2 * kStages * sizeof(std::uint64_t) + 1024;
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

/// Byte offset of fp32 column @p col (0 .. 31) of row @p row in a box of C: rows of 128 bytes, 16-byte chunk
/// c of row r at chunk c ^ (r % 8), the 128-byte swizzle the tensor map of C declares. A warp's float2
/// writes (8 rows x 4 column pairs, 256 bytes) then fill each 16-byte group of banks exactly twice: two
/// wavefronts, the least 256 bytes can take.
__device__ __forceinline__ int box_offset(int row, int col)
{
    return row * kBoxCols * 4 + (((col / 4) ^ (row % 8)) * 16) + (col % 4) * 4;
}

/// The epilogue through shared memory, for one consumer's 64 x 256 accumulators at (@p row0, @p col0) of C:
/// twice, 64 x 128 of alpha * acc into the consumer's staging buffer, then one thread hands its 4 boxes to
/// TMA. @p barrier names the warpgroup's named barrier (the consumers' own, not __syncthreads).
__device__ __forceinline__ void store_staged(const float (&acc)[128], std::uint8_t* staging, const CUtensorMap* c_map,
                                             int row0, int col0, float alpha, unsigned barrier)
{
    const int in_group = threadIdx.x % 128, warp = in_group / 32, g = (threadIdx.x % 32) / 4, t = threadIdx.x % 4;
#pragma unroll
    for (int half = 0; half < 2; ++half) {
        // The buffer is free once TMA has read what the last half (or tile) left in it.
        if (in_group == 0) hw::bulk_wait_read<0>();
        hw::named_barrier_sync(barrier, 128);
#pragma unroll
        for (int jj = 0; jj < 16; ++jj) {   // accumulator columns 8 j .. 8 j + 7, j = 16 half + jj
            const int j = 16 * half + jj, col = 8 * jj + 2 * t;
#pragma unroll
            for (int e = 0; e < 2; ++e) {
                const int row = 16 * warp + g + 8 * e;
                *reinterpret_cast<float2*>(staging + (col / kBoxCols) * kBoxBytes + box_offset(row, col % kBoxCols)) =
                    make_float2(alpha * acc[4 * j + 2 * e], alpha * acc[4 * j + 2 * e + 1]);
            }
        }
        hw::fence_async_shared();   // each thread's writes, visible to the copy engine ...
        hw::named_barrier_sync(barrier, 128);
        if (in_group == 0) {   // ... before one thread starts it
#pragma unroll
            for (int box = 0; box < kStagedBoxes; ++box)
                hw::tma_store_2d(c_map, staging + box * kBoxBytes, row0, col0 + 128 * half + kBoxCols * box);
            hw::bulk_commit();
        }
    }
}

/// A consumer warpgroup (@p consumer = 0 or 1: rows 64 * consumer .. + 63 of each tile): every K tile
/// of every output tile of this block, then that tile's epilogue, through @p staging and TMA when
/// @p staged, else with its own stores.
template <typename T>
__device__ void consume(const std::uint8_t* smem, std::uint64_t* full, std::uint64_t* empty, int consumer, int tiles_m,
                        int tiles_n, int k_tiles, int M, int N, float alpha, float beta, float* C, bool staged,
                        std::uint8_t* staging, const CUtensorMap* c_map)
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
            // Every warp of both consumers arrives once: the buffer is free when all 8 have.
            if (threadIdx.x % 32 == 0) hw::mbarrier_arrive(&empty[ring.stage]);
        }
        if (staged) {
            store_staged(acc, staging, c_map, tm * kBM + consumer * 64, tn * kBN, alpha, 1 + consumer);
        } else {
            ch08::store_wgmma_64x256(acc, tm * kBM + consumer * 64 + warp_in_group * 16, tn * kBN, M, N, alpha, beta,
                                     C);
        }
    }
    // Shared memory must outlive the copy engine's last reads of it, and C be written, before the block ends.
    if (staged && threadIdx.x % 128 == 0) hw::bulk_wait_all();
}

template <typename T>
__global__ void __launch_bounds__(kThreads, 1)
    hgemm_warp_specialized_kernel(const __grid_constant__ CUtensorMap a_map, const __grid_constant__ CUtensorMap b_map,
                                  const __grid_constant__ CUtensorMap c_map, bool staged, int M, int N, int K,
                                  float alpha, float beta, float* __restrict__ C)
{
    extern __shared__ std::uint8_t smem_raw[];
    // The 128-byte swizzle repeats every 1024 bytes: tiles start on such a boundary.
    auto* smem =
        reinterpret_cast<std::uint8_t*>((reinterpret_cast<std::uintptr_t>(smem_raw) + 1023) & ~std::uintptr_t{1023});
    std::uint8_t* staging = smem + kStages * kStageBytes;   // kConsumers x kStagingBytes
    auto* full = reinterpret_cast<std::uint64_t*>(staging + kConsumers * kStagingBytes);
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
        consume<T>(smem, full, empty, warpgroup - 1, tiles_m, tiles_n, k_tiles, M, N, alpha, beta, C, staged,
                   staging + (warpgroup - 1) * kStagingBytes, &c_map);
    }
}

template <typename T>
void launch(int M, int N, int K, float alpha, const void* A, const void* B, ch08::Dtype dtype, float beta, float* C,
            cudaStream_t stream)
{
    auto kernel = hgemm_warp_specialized_kernel<T>;
    static const int sms = [&] {   // 209 KiB of shared memory: far more than the default 48 KiB
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
    // TMA writes C when nothing of C is read (beta = 0) and its rows are whole 16-byte units from a 16-byte
    // aligned start, as a tensor map needs.
    const bool staged = N % 4 == 0 && reinterpret_cast<std::uintptr_t>(C) % 16 == 0;   // BUG: beta not asked
    const CUtensorMap c_map = staged ? hw::make_tensor_map_2d_f32(C, M, N, kBoxRows) : CUtensorMap{};
    const int tiles = wb::ceil_div(M, kBM) * wb::ceil_div(N, kBN);
    const int blocks = tiles < sms ? tiles : sms;   // one per SM at most: each walks its share of the tiles
    kernel<<<blocks, kThreads, kSmemBytes, stream>>>(a_map, b_map, c_map, staged, M, N, K, alpha, beta, C);
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
