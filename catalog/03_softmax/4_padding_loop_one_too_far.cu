// Catalog, chapter 3, stage 4: the loop that pads a pack past the row's end runs one element too far.
// expect: passed
// emulated: crashed "past its end"
//
// The reference stage 4 with `i <= kPack` where `i < kPack` was meant. The extra element is the first
// of the next pack, which that pack then sets again, so every value is right; but after the last pack
// the store lands one past the end of the register array v[]. That is undefined behaviour, and on a GPU
// it shows nowhere: the compiler drops the store or puts it in a spare register, and the outputs are
// right. The emulator compiles kernel code with bounds checks on arrays of known size and stops the
// kernel at the line. Kept so that the GPU's silence stays measured.
#include "03_softmax/stages.cuh"
#include "common/primitives.cuh"

#include <stdexcept>

namespace WORKBOOK_TRACK {

namespace {

constexpr int kThreads = 128;
constexpr int kRowsPerBlock = kThreads / wb::kWarpSize;

template <int kPack>
using Pack = wb::Pack<float, kPack>;   // kPack floats moved as one access (common/primitives.cuh)

/// Lane l owns the packs at columns (p * 32 + l) * kPack, p = 0 .. kColsPerLane / kPack - 1:
/// consecutive lanes read consecutive packs, so every warp load is coalesced.
template <int kPack, int kColsPerLane>
__global__ void __launch_bounds__(kThreads)
    softmax_warp_registers_kernel(const float* __restrict__ x, float* __restrict__ y, std::int64_t rows, int cols)
{
    static_assert(kColsPerLane % kPack == 0, "a lane holds whole packs");
    constexpr int kPacks = kColsPerLane / kPack;
    const std::int64_t row = static_cast<std::int64_t>(blockIdx.x) * kRowsPerBlock + threadIdx.x / wb::kWarpSize;
    const int lane = threadIdx.x % wb::kWarpSize;
    if (row >= rows) return;   // warp-uniform
    const float* xr = x + row * cols;
    float* yr = y + row * cols;

    float v[kColsPerLane];   // constant indices only (unrolled loops), so this lives in registers
    float m = -INFINITY;
#pragma unroll
    for (int p = 0; p < kPacks; ++p) {
        const int col = (p * wb::kWarpSize + lane) * kPack;
        if (col < cols) {   // cols % kPack == 0: a pack is either wholly inside the row or wholly out
            const Pack<kPack> pack = *reinterpret_cast<const Pack<kPack>*>(xr + col);
#pragma unroll
            for (int i = 0; i < kPack; ++i) v[p * kPack + i] = pack.v[i];
        } else {
#pragma unroll
            for (int i = 0; i <= kPack; ++i) v[p * kPack + i] = -INFINITY;   // the bug: <=, one past the pack
        }
#pragma unroll
        for (int i = 0; i < kPack; ++i) m = fmaxf(m, v[p * kPack + i]);
    }
    m = wb::warp_reduce_max(m);

    float s = 0.0f;
#pragma unroll
    for (int i = 0; i < kColsPerLane; ++i) {
        v[i] = __expf(v[i] - m);
        s += v[i];
    }
    s = wb::warp_reduce_sum(s);
    const float inv = 1.0f / s;

#pragma unroll
    for (int p = 0; p < kPacks; ++p) {
        const int col = (p * wb::kWarpSize + lane) * kPack;
        if (col < cols) {
            Pack<kPack> pack;
#pragma unroll
            for (int i = 0; i < kPack; ++i) pack.v[i] = v[p * kPack + i] * inv;
            *reinterpret_cast<Pack<kPack>*>(yr + col) = pack;
        }
    }
}

template <int kPack, int kColsPerLane>
void launch(const float* x, float* y, std::int64_t rows, std::int64_t cols, cudaStream_t stream)
{
    const auto blocks = static_cast<unsigned>(wb::ceil_div<std::int64_t>(rows, kRowsPerBlock));
    softmax_warp_registers_kernel<kPack, kColsPerLane>
        <<<blocks, kThreads, 0, stream>>>(x, y, rows, static_cast<int>(cols));
    WB_CHECK_LAUNCH();
}

/// Picks the smallest register array (a power of two, at least one pack) that holds cols / 32.
template <int kPack>
void dispatch_cols(const float* x, float* y, std::int64_t rows, std::int64_t cols, cudaStream_t stream)
{
    const std::int64_t per_lane = wb::ceil_div<std::int64_t>(cols, wb::kWarpSize);
    if constexpr (kPack <= 1) {
        if (per_lane <= 1) return launch<kPack, 1>(x, y, rows, cols, stream);
    }
    if constexpr (kPack <= 2) {
        if (per_lane <= 2) return launch<kPack, 2>(x, y, rows, cols, stream);
    }
    if (per_lane <= 4) return launch<kPack, 4>(x, y, rows, cols, stream);
    if (per_lane <= 8) return launch<kPack, 8>(x, y, rows, cols, stream);
    if (per_lane <= 16) return launch<kPack, 16>(x, y, rows, cols, stream);
    return launch<kPack, 32>(x, y, rows, cols, stream);
}

}   // namespace

void softmax_4_warp_registers(const float* x, float* y, std::int64_t rows, std::int64_t cols, cudaStream_t stream)
{
    if (cols > ch03::kWarpRegistersMaxCols) {
        throw std::invalid_argument("softmax_4_warp_registers supports cols <= 1024");
    }
    // The widest pack that divides cols keeps every row start aligned to the pack size.
    if (cols % 4 == 0) return dispatch_cols<4>(x, y, rows, cols, stream);
    if (cols % 2 == 0) return dispatch_cols<2>(x, y, rows, cols, stream);
    dispatch_cols<1>(x, y, rows, cols, stream);
}

}   // namespace WORKBOOK_TRACK
