// Chapter 3, stage 4: one warp per row, the row in registers, vector loads.          (your exercise)
//
// Write the kernel and the launch. The contract (sizes, alignment, what is checked) is in
// chapters/03_softmax/stages.cuh; the lesson is chapters/03_softmax/README.md.
// Grade it with `make check-chapter 3`. You may change anything in this file except the
// launcher's name and parameters. `make hint CH=3 STAGE=4` when stuck.
#include "03_softmax/stages.cuh"
#include "common/primitives.cuh"

#include <stdexcept>

namespace WORKBOOK_TRACK {

//@ guided
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
    // TODO: float v[kColsPerLane] with every loop over it `#pragma unroll`ed (constant indices keep
    //       it in registers). Load pack p of this lane as *reinterpret_cast<const Pack<kPack>*>(row + col)
    //       when col < cols, else fill it with -INFINITY. Then the maximum (wb::warp_reduce_max),
    //       v[i] = __expf(v[i] - max) and their sum (wb::warp_reduce_sum), and store v[i] * (1 / sum)
    //       pack by pack for the packs inside the row. x is read once.
}

}   // namespace
//@ end
//@ outline
// TODO: stage 3's kernel with the row read once, by vector loads, into an array of registers whose length the launcher
//       picks at compile time, so that the maximum, the sum and the outputs all come from registers.
//@ end

void softmax_4_warp_registers(const float* x, float* y, std::int64_t rows, std::int64_t cols, cudaStream_t stream)
{
    //@ guided
    // TODO: kPack = 4 if cols % 4 == 0, else 2 if cols is even, else 1 (row starts stay aligned);
    //       kColsPerLane = the smallest power of two >= max(kPack, ceil(cols / 32)), at most 32.
    //       Launch softmax_warp_registers_kernel<kPack, kColsPerLane> (one `if` per instance;
    //       `if constexpr` avoids instances whose kColsPerLane is not a multiple of kPack).
    //@ end
    //@ outline
    // TODO: launch your kernel on `stream` with the grid, block and shared memory you choose, then
    //       check the launch with WB_CHECK_LAUNCH.
    //@ end
    (void)x, (void)y, (void)rows, (void)cols, (void)stream;
}

}   // namespace WORKBOOK_TRACK
