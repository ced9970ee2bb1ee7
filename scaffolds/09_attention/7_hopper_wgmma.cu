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

//@ outline
// TODO: stage 5's FlashAttention loop on Hopper's machinery: the copy engine streams K and V tiles into shared memory
//       for one copying warpgroup, and computing warpgroups multiply with wgmma, the probabilities staying in
//       registers between the two products, buffers handed back through barriers.
//@ end

void attention_7_hopper_wgmma(const ch09::Shape& shape, const void* q, const void* k, const void* v, ch08::Dtype dtype,
                              void* o, float* lse, cudaStream_t stream)
{
    //@ guided
    // TODO: three 3-D tensor maps (one plane per batch and head, boxes of 128 rows x 64 columns), passed by value as
    //       const __grid_constant__ CUtensorMap; a block per 128 query rows and head: 384 threads, about 161 KiB of
    //       dynamic shared memory (cudaFuncSetAttribute).
    // TODO: the producer loads Q once, then K and V of each key tile into 2 buffers (separate barriers for K and V);
    //       each consumer warpgroup owns 64 query rows: S = Q K^T with wgmma, online softmax in registers,
    //       O += P V with P from registers and V read N-major; then O / l and lse.
    // TODO: hide the softmax: issue S(t) and P(t - 1) V(t - 1) together and run the softmax of S(t) while the
    //       P V is in flight, touching no register that an unfinished wgmma owns (O, P's fragments).
    // TODO: launch on `stream` for T = __half when dtype == ch08::Dtype::f16, __nv_bfloat16 otherwise, then
    //       WB_CHECK_LAUNCH().
    //@ end
    //@ outline
    // TODO: launch your kernel on `stream` with the grid, block and shared memory you choose, then check the launch
    //       with WB_CHECK_LAUNCH.
    //@ end
    (void)shape, (void)q, (void)k, (void)v, (void)dtype, (void)o, (void)lse, (void)stream;
}

}   // namespace WORKBOOK_TRACK
