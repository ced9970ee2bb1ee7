// Chapter 10, stage 5: softmax over a whole vector. (your exercise)
//
// Write the kernel and the launch. The contract (sizes, alignment, what is checked) is in
// chapters/10_interview_classics/stages.cuh; the lesson is chapters/10_interview_classics/README.md.
// Grade it with `make check-chapter 10`. You may change anything in this file except the
// launcher's name and parameters. `make hint CH=10 STAGE=5` when stuck.
#include "10_interview_classics/stages.cuh"
#include "common/primitives.cuh"

namespace WORKBOOK_TRACK {

//@ guided
namespace {

constexpr int kThreads = 256;

// *address = max(*address, value) for floats. CUDA has no float atomicMax: read the word, and while
// the float it holds is below `value`, atomicCAS the bits of `value` in; compare bits, not floats,
// to know whether your swap went in.
__device__ void atomic_max_float(float* address, float value)
{
    // TODO: the atomicCAS loop described above.
}

__global__ void init_kernel(float* state)
{
    // TODO: state[0] = -INFINITY (the running maximum), state[1] = 0 (the running sum).
}

__global__ void max_kernel(const float* __restrict__ in, float* state, std::int64_t n)
{
    // TODO: a grid-stride maximum, wb::block_reduce_max<kThreads>, thread 0: atomic_max_float(&state[0], m).
}

__global__ void sum_kernel(const float* __restrict__ in, float* state, std::int64_t n)
{
    // TODO: m = state[0]; a grid-stride sum of expf(in[i] - m), wb::block_reduce_sum<kThreads>,
    //       thread 0: atomicAdd(&state[1], s).
}

__global__ void normalise_kernel(const float* __restrict__ in, float* __restrict__ out, const float* state,
                                 std::int64_t n)
{
    // TODO: out[i] = expf(in[i] - state[0]) / state[1] over a grid-stride loop.
}

}   // namespace
//@ end
//@ outline
// TODO: a float atomic maximum built on atomicCAS (CUDA has no atomicMax for float).
// TODO: a kernel that gives the workspace its starting values.
// TODO: a kernel for the maximum of the vector, kept in the workspace.
// TODO: a kernel for the sum of the exponentials of each element less that maximum, kept in the workspace.
// TODO: a kernel that writes the output from the two.
//@ end

void softmax_5_whole_vector(const float* in, float* out, std::int64_t n, float* workspace, cudaStream_t stream)
{
    //@ guided
    // TODO: init_kernel<<<1, 1, 0, stream>>>(workspace) (it holds NaN when you are called), then the
    //       three kernels on `stream` with a grid sized to the GPU, WB_CHECK_LAUNCH() after each.
    //@ end
    //@ outline
    // TODO: set the workspace's starting values (it holds NaN when you are called), then run the
    //       passes on `stream`.
    //@ end
    (void)in, (void)out, (void)n, (void)workspace, (void)stream;
}

}   // namespace WORKBOOK_TRACK
