// Catalog, chapter 4, stage 4: 16-byte loads and stores for every row, whatever cols % 4, with a scalar tail.
// expect: crashed "misaligned"
//
// The learner keeps the row in registers as in the reference, but takes the 16-byte path for every
// row length: whole packs of 4 with float4, the last one to three columns one by one ("the tail is
// handled, so any cols works"). Rows start at x + row * cols: when cols is not a multiple of 4 most rows
// start 4, 8 or 12 bytes past a 16-byte boundary, and a float4 load there is a misaligned address on a
// GPU, which ends the kernel. cudaMalloc's 256-byte alignment holds only for the first row; the
// contract promises nothing more. On the CPU emulator the aligned 16-byte move the host compiler emits
// for the pack faults the same way, and the crash report names a misaligned vector access among its
// causes (docs/emulation.md warns that unaligned accesses may also just work on a CPU).
#include "04_layernorm/stages.cuh"
#include "common/primitives.cuh"

#include <stdexcept>

namespace WORKBOOK_TRACK {

namespace {

constexpr int kThreads = 128;
constexpr int kRowsPerBlock = kThreads / wb::kWarpSize;
constexpr int kPack = 4;

using Pack4 = wb::Pack<float, kPack>;

template <int kColsPerLane>
__global__ void __launch_bounds__(kThreads)
    layernorm_warp_registers_kernel(const float* __restrict__ x, const float* __restrict__ gamma,
                                    const float* __restrict__ beta, float* __restrict__ y, float* __restrict__ mean,
                                    float* __restrict__ rstd, std::int64_t rows, int cols, float eps)
{
    constexpr int kPacks = kColsPerLane / kPack;
    const std::int64_t row = static_cast<std::int64_t>(blockIdx.x) * kRowsPerBlock + threadIdx.x / wb::kWarpSize;
    const int lane = threadIdx.x % wb::kWarpSize;
    if (row >= rows) return;   // warp-uniform
    const float* xr = x + row * cols;
    float* yr = y + row * cols;

    float v[kColsPerLane];
    float sum = 0.0f;
#pragma unroll
    for (int p = 0; p < kPacks; ++p) {
        const int col = (p * wb::kWarpSize + lane) * kPack;
        if (col + kPack <= cols) {   // a whole pack: the bug, xr + col is 16-byte aligned only if row * cols is
            const Pack4 pack = *reinterpret_cast<const Pack4*>(xr + col);
#pragma unroll
            for (int i = 0; i < kPack; ++i) v[p * kPack + i] = pack.v[i];
        } else {   // the tail, one by one
#pragma unroll
            for (int i = 0; i < kPack; ++i) v[p * kPack + i] = col + i < cols ? xr[col + i] : 0.0f;
        }
#pragma unroll
        for (int i = 0; i < kPack; ++i) sum += v[p * kPack + i];
    }
    const float n = static_cast<float>(cols);
    const float mu = wb::warp_reduce_sum(sum) / n;

    float squares = 0.0f;
#pragma unroll
    for (int p = 0; p < kPacks; ++p) {
        const int col = (p * wb::kWarpSize + lane) * kPack;
#pragma unroll
        for (int i = 0; i < kPack; ++i) {
            if (col + i < cols) {
                const float d = v[p * kPack + i] - mu;
                squares += d * d;
            }
        }
    }
    const float r = rsqrtf(wb::warp_reduce_sum(squares) / n + eps);
    if (lane == 0) {
        mean[row] = mu;
        rstd[row] = r;
    }

#pragma unroll
    for (int p = 0; p < kPacks; ++p) {
        const int col = (p * wb::kWarpSize + lane) * kPack;
        if (col + kPack <= cols) {
            const Pack4 g = *reinterpret_cast<const Pack4*>(gamma + col);   // gamma and beta are aligned
            const Pack4 b = *reinterpret_cast<const Pack4*>(beta + col);
            Pack4 out;
#pragma unroll
            for (int i = 0; i < kPack; ++i) out.v[i] = (v[p * kPack + i] - mu) * r * g.v[i] + b.v[i];
            *reinterpret_cast<Pack4*>(yr + col) = out;   // the same misaligned rows
        } else {
#pragma unroll
            for (int i = 0; i < kPack; ++i) {
                if (col + i < cols) yr[col + i] = (v[p * kPack + i] - mu) * r * gamma[col + i] + beta[col + i];
            }
        }
    }
}

template <int kColsPerLane>
void launch(const float* x, const float* gamma, const float* beta, float* y, float* mean, float* rstd,
            std::int64_t rows, std::int64_t cols, float eps, cudaStream_t stream)
{
    const auto blocks = static_cast<unsigned>(wb::ceil_div<std::int64_t>(rows, kRowsPerBlock));
    layernorm_warp_registers_kernel<kColsPerLane>
        <<<blocks, kThreads, 0, stream>>>(x, gamma, beta, y, mean, rstd, rows, static_cast<int>(cols), eps);
    WB_CHECK_LAUNCH();
}

}   // namespace

void layernorm_4_warp_registers(const float* x, const float* gamma, const float* beta, float* y, float* mean,
                                float* rstd, std::int64_t rows, std::int64_t cols, float eps, cudaStream_t stream)
{
    if (cols > ch04::kWarpRegistersMaxCols) {
        throw std::invalid_argument("layernorm_4_warp_registers supports cols <= 1024");
    }
    // Packs of 4 for every row length: the smallest register array of whole packs that holds the row.
    const std::int64_t per_lane = wb::ceil_div<std::int64_t>(cols, wb::kWarpSize * kPack) * kPack;
    if (per_lane <= 4) return launch<4>(x, gamma, beta, y, mean, rstd, rows, cols, eps, stream);
    if (per_lane <= 8) return launch<8>(x, gamma, beta, y, mean, rstd, rows, cols, eps, stream);
    if (per_lane <= 16) return launch<16>(x, gamma, beta, y, mean, rstd, rows, cols, eps, stream);
    launch<32>(x, gamma, beta, y, mean, rstd, rows, cols, eps, stream);
}

}   // namespace WORKBOOK_TRACK
