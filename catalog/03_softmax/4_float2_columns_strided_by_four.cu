// Catalog, chapter 3, stage 4: the float2 kernel (cols % 4 == 2) copied from the float4 one, column index still `* 4`.
// expect: wrong "never written"
//
// The learner wrote the float4 kernel first (the "softmax + vec4" of interview notes), then, told
// that a row of cols % 4 != 0 floats starts misaligned, added a scalar kernel for odd rows and a
// float2 kernel for the others by copying the float4 one and changing the types. The column of a pack
// is still (p * 32 + lane) * 4, so the float2 kernel reads and writes columns 0-1, 4-5, 8-9, ...: half
// the row is never read (the maximum and the sum miss it) and never written. That path runs only when
// cols % 4 == 2, and the grader's only such row length was 2 (kCols, and the GPU's 1048577 x 2), where
// one pack of lane 0 is the whole row and the kernel is right. Rows of 6, 34, 66, 98, 130, 514 or 1022
// floats fail. Kernels that choose a path by the row length are only checked where every path gets
// row lengths of more than one pack per lane: every remainder mod 4 and mod 8 beyond the first packs.
// (Before the grader had such row lengths, an H100 passed it, at x1.79 over reference stage 3, as the
// emulator did.)
#include "03_softmax/stages.cuh"
#include "common/primitives.cuh"

#include <stdexcept>

namespace WORKBOOK_TRACK {

namespace {

constexpr int kThreads = 128;
constexpr int kRowsPerBlock = kThreads / wb::kWarpSize;

/// cols % 4 == 0: lane l owns the float4 packs at columns (p * 32 + l) * 4.
template <int kColsPerLane>
__global__ void __launch_bounds__(kThreads)
    softmax_vec4_kernel(const float* __restrict__ x, float* __restrict__ y, std::int64_t rows, int cols)
{
    constexpr int kPacks = kColsPerLane / 4;
    const std::int64_t row = static_cast<std::int64_t>(blockIdx.x) * kRowsPerBlock + threadIdx.x / wb::kWarpSize;
    const int lane = threadIdx.x % wb::kWarpSize;
    if (row >= rows) return;
    const float* xr = x + row * cols;
    float* yr = y + row * cols;
    float v[kColsPerLane];
    float m = -INFINITY;
#pragma unroll
    for (int p = 0; p < kPacks; ++p) {
        const int col = (p * wb::kWarpSize + lane) * 4;
        float4 t = make_float4(-INFINITY, -INFINITY, -INFINITY, -INFINITY);
        if (col < cols) t = *reinterpret_cast<const float4*>(xr + col);
        v[4 * p] = t.x;
        v[4 * p + 1] = t.y;
        v[4 * p + 2] = t.z;
        v[4 * p + 3] = t.w;
        m = fmaxf(m, fmaxf(fmaxf(t.x, t.y), fmaxf(t.z, t.w)));
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
    for (int p = 0; p < kPacks; ++p) {
        const int col = (p * wb::kWarpSize + lane) * 4;
        if (col < cols) {
            *reinterpret_cast<float4*>(yr + col) =
                make_float4(v[4 * p] * inv, v[4 * p + 1] * inv, v[4 * p + 2] * inv, v[4 * p + 3] * inv);
        }
    }
}

/// cols % 4 == 2: float2 packs, copied from the kernel above.
template <int kColsPerLane>
__global__ void __launch_bounds__(kThreads)
    softmax_vec2_kernel(const float* __restrict__ x, float* __restrict__ y, std::int64_t rows, int cols)
{
    constexpr int kPacks = kColsPerLane / 2;
    const std::int64_t row = static_cast<std::int64_t>(blockIdx.x) * kRowsPerBlock + threadIdx.x / wb::kWarpSize;
    const int lane = threadIdx.x % wb::kWarpSize;
    if (row >= rows) return;
    const float* xr = x + row * cols;
    float* yr = y + row * cols;
    float v[kColsPerLane];
    float m = -INFINITY;
#pragma unroll
    for (int p = 0; p < kPacks; ++p) {
        const int col = (p * wb::kWarpSize + lane) * 4;   // the bug: a float2 pack is 2 columns, not 4
        float2 t = make_float2(-INFINITY, -INFINITY);
        if (col < cols) t = *reinterpret_cast<const float2*>(xr + col);
        v[2 * p] = t.x;
        v[2 * p + 1] = t.y;
        m = fmaxf(m, fmaxf(t.x, t.y));
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
    for (int p = 0; p < kPacks; ++p) {
        const int col = (p * wb::kWarpSize + lane) * 4;   // the same index on the way out
        if (col < cols) *reinterpret_cast<float2*>(yr + col) = make_float2(v[2 * p] * inv, v[2 * p + 1] * inv);
    }
}

/// Odd cols: one float at a time, lane l owns columns p * 32 + l.
template <int kColsPerLane>
__global__ void __launch_bounds__(kThreads)
    softmax_scalar_kernel(const float* __restrict__ x, float* __restrict__ y, std::int64_t rows, int cols)
{
    const std::int64_t row = static_cast<std::int64_t>(blockIdx.x) * kRowsPerBlock + threadIdx.x / wb::kWarpSize;
    const int lane = threadIdx.x % wb::kWarpSize;
    if (row >= rows) return;
    const float* xr = x + row * cols;
    float* yr = y + row * cols;
    float v[kColsPerLane];
    float m = -INFINITY;
#pragma unroll
    for (int p = 0; p < kColsPerLane; ++p) {
        const int col = p * wb::kWarpSize + lane;
        v[p] = col < cols ? xr[col] : -INFINITY;
        m = fmaxf(m, v[p]);
    }
    m = wb::warp_reduce_max(m);
    float s = 0.0f;
#pragma unroll
    for (int p = 0; p < kColsPerLane; ++p) {
        v[p] = __expf(v[p] - m);
        s += v[p];
    }
    const float inv = 1.0f / wb::warp_reduce_sum(s);
#pragma unroll
    for (int p = 0; p < kColsPerLane; ++p) {
        const int col = p * wb::kWarpSize + lane;
        if (col < cols) yr[col] = v[p] * inv;
    }
}

template <int kColsPerLane>
void launch_vec4(const float* x, float* y, std::int64_t rows, std::int64_t cols, cudaStream_t stream)
{
    const auto blocks = static_cast<unsigned>(wb::ceil_div<std::int64_t>(rows, kRowsPerBlock));
    softmax_vec4_kernel<kColsPerLane><<<blocks, kThreads, 0, stream>>>(x, y, rows, static_cast<int>(cols));
    WB_CHECK_LAUNCH();
}

template <int kColsPerLane>
void launch_vec2(const float* x, float* y, std::int64_t rows, std::int64_t cols, cudaStream_t stream)
{
    const auto blocks = static_cast<unsigned>(wb::ceil_div<std::int64_t>(rows, kRowsPerBlock));
    softmax_vec2_kernel<kColsPerLane><<<blocks, kThreads, 0, stream>>>(x, y, rows, static_cast<int>(cols));
    WB_CHECK_LAUNCH();
}

template <int kColsPerLane>
void launch_scalar(const float* x, float* y, std::int64_t rows, std::int64_t cols, cudaStream_t stream)
{
    const auto blocks = static_cast<unsigned>(wb::ceil_div<std::int64_t>(rows, kRowsPerBlock));
    softmax_scalar_kernel<kColsPerLane><<<blocks, kThreads, 0, stream>>>(x, y, rows, static_cast<int>(cols));
    WB_CHECK_LAUNCH();
}

}   // namespace

void softmax_4_warp_registers(const float* x, float* y, std::int64_t rows, std::int64_t cols, cudaStream_t stream)
{
    if (cols > ch03::kWarpRegistersMaxCols) throw std::invalid_argument("softmax_4_warp_registers: cols <= 1024");
    const std::int64_t per_lane = wb::ceil_div<std::int64_t>(cols, wb::kWarpSize);   // columns each lane holds
    if (cols % 4 == 0) {
        if (per_lane <= 4) return launch_vec4<4>(x, y, rows, cols, stream);
        if (per_lane <= 8) return launch_vec4<8>(x, y, rows, cols, stream);
        if (per_lane <= 16) return launch_vec4<16>(x, y, rows, cols, stream);
        return launch_vec4<32>(x, y, rows, cols, stream);
    }
    if (cols % 2 == 0) {
        if (per_lane <= 2) return launch_vec2<2>(x, y, rows, cols, stream);
        if (per_lane <= 4) return launch_vec2<4>(x, y, rows, cols, stream);
        if (per_lane <= 8) return launch_vec2<8>(x, y, rows, cols, stream);
        if (per_lane <= 16) return launch_vec2<16>(x, y, rows, cols, stream);
        return launch_vec2<32>(x, y, rows, cols, stream);
    }
    if (per_lane <= 1) return launch_scalar<1>(x, y, rows, cols, stream);
    if (per_lane <= 2) return launch_scalar<2>(x, y, rows, cols, stream);
    if (per_lane <= 4) return launch_scalar<4>(x, y, rows, cols, stream);
    if (per_lane <= 8) return launch_scalar<8>(x, y, rows, cols, stream);
    if (per_lane <= 16) return launch_scalar<16>(x, y, rows, cols, stream);
    launch_scalar<32>(x, y, rows, cols, stream);
}

}   // namespace WORKBOOK_TRACK
