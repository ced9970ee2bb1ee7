// Catalog, chapter 2, stage 5: the last warp unrolled the pre-Volta way, volatile and no __syncwarp.
// expect: wrong "compute-sanitizer's racecheck found"
// emulated: crashed "shared memory race"
//
// The tree stops at 64 values and warp 0 finishes through a `volatile float*` with six unsynchronised
// read-modify-writes of its neighbours' slots, counting on the 32 lanes to run in lock-step. Since
// Volta nothing guarantees that: lanes may be scheduled apart, and each step reads a slot that another
// lane writes in the same step, a data race. On today's GPUs the warp usually stays converged and the
// sums come out right, so no output can convict it: the grader's compute-sanitizer pass, which runs
// every stage that passed once more under racecheck, must report the hazard. (The emulator's
// shared-memory checker sees lane 30 read the slot lane 31 wrote with nothing ordering the two.)
#include "02_reduce/stages.cuh"
#include "common/primitives.cuh"

namespace WORKBOOK_TRACK {

namespace {

constexpr int kThreads = 256;
constexpr int kPerBlock = 2 * kThreads;

__device__ void last_warp_volatile(volatile float* s, unsigned tid)
{
    // the bug: no __syncwarp() between the steps (and volatile instead of shuffles)
    s[tid] += s[tid + 32];
    s[tid] += s[tid + 16];
    s[tid] += s[tid + 8];
    s[tid] += s[tid + 4];
    s[tid] += s[tid + 2];
    s[tid] += s[tid + 1];
}

__global__ void reduce_volatile_warp_kernel(const float* __restrict__ in, float* __restrict__ partial, std::int64_t n)
{
    __shared__ float sdata[kThreads];
    const unsigned tid = threadIdx.x;
    const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * (2 * blockDim.x) + tid;
    float v = i < n ? in[i] : 0.0f;
    if (i + blockDim.x < n) v += in[i + blockDim.x];
    sdata[tid] = v;
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 32; s /= 2) {
        if (tid < s) sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid < 32) last_warp_volatile(sdata, tid);
    if (tid == 0) partial[blockIdx.x] = sdata[0];
}

}   // namespace

void sum_5_unroll_last_warp(const float* in, float* out, std::int64_t n, float* workspace, cudaStream_t stream)
{
    ch02::reduce_in_passes(in, out, n, workspace, kPerBlock,
                           [&](const float* src, float* dst, std::int64_t count, unsigned blocks) {
                               reduce_volatile_warp_kernel<<<blocks, kThreads, 0, stream>>>(src, dst, count);
                               WB_CHECK_LAUNCH();
                           });
}

}   // namespace WORKBOOK_TRACK
