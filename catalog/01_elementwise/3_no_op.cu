// Catalog, chapter 1, stage 3: a launcher that returns without doing anything.
// expect: not-implemented "not implemented yet"
//
// The kernel is written but never launched (the launch line was lost in an edit). No case writes a
// single element, so the verdict is "not implemented yet", and the stage must never get as far as a
// speed measurement.
#include "01_elementwise/activation.cuh"
#include "01_elementwise/stages.cuh"
#include "common/primitives.cuh"

namespace WORKBOOK_TRACK {

namespace {

template <ch01::Activation act>
__global__ void add_activation_kernel(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ y,
                                      std::int64_t n)
{
    const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i < n) y[i] = ch01::activate<act>(a[i] + b[i]);
}

}   // namespace

void add_act_3_fused(const float* a, const float* b, float* y, std::int64_t n, ch01::Activation act,
                     cudaStream_t stream)
{
    // the bug: add_activation_kernel<...><<<...>>> is never called
    (void)a, (void)b, (void)y, (void)n, (void)act, (void)stream;
}

}   // namespace WORKBOOK_TRACK
