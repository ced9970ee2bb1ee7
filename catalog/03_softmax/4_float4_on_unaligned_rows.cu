// Catalog, chapter 3, stage 4: float4 loads and stores for every row length, with a scalar tail, on rows that start unaligned.
// expect: crashed "misaligned address"
//
// The learner's stage 4 always moves whole float4 packs and handles the last cols % 4 columns of a row
// one float at a time, believing the tail is the only thing that a row length which is not a multiple
// of 4 changes. It is not: row r starts r * cols floats into x, so when cols % 4 != 0 most rows start 4,
// 8 or 12 bytes past a 16-byte boundary, and a 16-byte access there is a misaligned address, which a
// GPU refuses (the kernel stops with cudaErrorMisalignedAddress). The contract promises 256-byte
// alignment for x and y, not for their rows. Row lengths 1 to 3 never take a float4 and pass; the
// first length with a whole pack and an unaligned second row (5) must end the stage. The fix is the
// reference's: the widest pack that divides cols (4, 2 or 1), or an unaligned head per row.
#include "03_softmax/stages.cuh"
#include "common/primitives.cuh"

#include <stdexcept>

namespace WORKBOOK_TRACK {

namespace {

constexpr int kThreads = 128;
constexpr int kRowsPerBlock = kThreads / wb::kWarpSize;

/// Lane l owns the 4-column groups starting at (p * 32 + l) * 4; a group that reaches past the row's
/// end is read and written one float at a time.
template <int kColsPerLane>
__global__ void __launch_bounds__(kThreads)
    softmax_vec4_kernel(const float* __restrict__ x, float* __restrict__ y, std::int64_t rows, int cols)
{
    constexpr int kGroups = kColsPerLane / 4;
    const std::int64_t row = static_cast<std::int64_t>(blockIdx.x) * kRowsPerBlock + threadIdx.x / wb::kWarpSize;
    const int lane = threadIdx.x % wb::kWarpSize;
    if (row >= rows) return;
    const float* xr = x + row * cols;
    float* yr = y + row * cols;

    float v[kColsPerLane];
    float m = -INFINITY;
#pragma unroll
    for (int p = 0; p < kGroups; ++p) {
        const int col = (p * wb::kWarpSize + lane) * 4;
        if (col + 3 < cols) {
            // The bug: xr + col is 16-byte aligned only if row * cols is a multiple of 4.
            const float4 t = *reinterpret_cast<const float4*>(xr + col);
            v[4 * p] = t.x;
            v[4 * p + 1] = t.y;
            v[4 * p + 2] = t.z;
            v[4 * p + 3] = t.w;
        } else {
#pragma unroll
            for (int i = 0; i < 4; ++i) v[4 * p + i] = col + i < cols ? xr[col + i] : -INFINITY;   // the tail
        }
#pragma unroll
        for (int i = 0; i < 4; ++i) m = fmaxf(m, v[4 * p + i]);
    }
    m = wb::warp_reduce_max(m);

    float s = 0.0f;
#pragma unroll
    for (int i = 0; i < kColsPerLane; ++i) {
        v[i] = __expf(v[i] - m);
        s += v[i];
    }
    const float inv = 1.0f / wb::warp_reduce_sum(s);

#pragma unroll
    for (int p = 0; p < kGroups; ++p) {
        const int col = (p * wb::kWarpSize + lane) * 4;
        if (col + 3 < cols) {
            *reinterpret_cast<float4*>(yr + col) =
                make_float4(v[4 * p] * inv, v[4 * p + 1] * inv, v[4 * p + 2] * inv, v[4 * p + 3] * inv);
        } else {
#pragma unroll
            for (int i = 0; i < 4; ++i) {
                if (col + i < cols) yr[col + i] = v[4 * p + i] * inv;
            }
        }
    }
}

template <int kColsPerLane>
void launch(const float* x, float* y, std::int64_t rows, std::int64_t cols, cudaStream_t stream)
{
    const auto blocks = static_cast<unsigned>(wb::ceil_div<std::int64_t>(rows, kRowsPerBlock));
    softmax_vec4_kernel<kColsPerLane><<<blocks, kThreads, 0, stream>>>(x, y, rows, static_cast<int>(cols));
    WB_CHECK_LAUNCH();
}

}   // namespace

void softmax_4_warp_registers(const float* x, float* y, std::int64_t rows, std::int64_t cols, cudaStream_t stream)
{
    if (cols > ch03::kWarpRegistersMaxCols) throw std::invalid_argument("softmax_4_warp_registers: cols <= 1024");
    const std::int64_t per_lane = wb::ceil_div<std::int64_t>(cols, wb::kWarpSize);
    if (per_lane <= 4) return launch<4>(x, y, rows, cols, stream);
    if (per_lane <= 8) return launch<8>(x, y, rows, cols, stream);
    if (per_lane <= 16) return launch<16>(x, y, rows, cols, stream);
    launch<32>(x, y, rows, cols, stream);
}

}   // namespace WORKBOOK_TRACK
