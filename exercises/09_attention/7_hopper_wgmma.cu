// Chapter 9, stage 7: Hopper: TMA, wgmma and producer/consumer warpgroups (FlashAttention-3 style). (your exercise)
//
// Write the kernel and the launch. The contract (layouts, the causal mask, masked rows, what is checked)
// is in chapters/09_attention/stages.cuh; the lesson is chapters/09_attention/README.md; the Hopper
// instructions (TMA, mbarrier, wgmma, setmaxnreg) are C++ functions in chapters/common/hopper.cuh.
// Grade it with `make check-chapter 9` on a GPU of compute capability 9.0 (H100, H200): other GPUs and the
// CPU emulator skip this stage, with the reason. You may change anything in this file except the
// launcher's name and parameters. `make hint CH=9 STAGE=7` when stuck.
#include "09_attention/stages.cuh"
#include "common/hopper.cuh"
#include "common/primitives.cuh"
#include "common/tensor_core.cuh"

namespace WORKBOOK_TRACK {

// TODO: stage 5's FlashAttention loop on Hopper's machinery: the copy engine streams K and V tiles into shared memory
//       for one copying warpgroup, and computing warpgroups multiply with wgmma, the probabilities staying in
//       registers between the two products, buffers handed back through barriers.

void attention_7_hopper_wgmma(const ch09::Shape& shape, const void* q, const void* k, const void* v, ch08::Dtype dtype,
                              void* o, float* lse, cudaStream_t stream)
{
    // TODO: launch your kernel on `stream` with the grid, block and shared memory you choose, then check the launch
    //       with WB_CHECK_LAUNCH.
    (void)shape, (void)q, (void)k, (void)v, (void)dtype, (void)o, (void)lse, (void)stream;
}

}   // namespace WORKBOOK_TRACK
