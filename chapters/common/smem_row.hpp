/// @file smem_row.hpp
/// @brief The block size of a kernel that gives each row to one block and caches the row in
/// dynamic shared memory (chapters 3 and 4, stage 6), or 0 when the row does not fit.
///
/// Host code: occupancy queries, no kernel. The stage keeps its kernel and its launch; this header
/// only answers "how many threads", the same way for every such kernel.
#pragma once

#include <cuda_runtime.h>

#include "common/cuda_check.hpp"
#include "common/primitives.cuh"   // wb::device_attribute

#include <cstddef>
#include <cstdint>

namespace wb {

/// The block sizes a shared-memory row kernel is compiled for: smem_row_threads takes the kernel
/// compiled for each, in this order. (Instantiations of one kernel template that differ only in the
/// block size have the same type.)
inline constexpr int kSmemRowThreads[4] = {128, 256, 512, 1024};

/// Blocks of @p kernel (@p threads threads, @p smem bytes of dynamic shared memory) that fit on one
/// SM at once. Opts the kernel in to @p smem bytes first: above 48 KB a launch needs it.
template <typename Kernel>
int smem_row_blocks_per_sm(Kernel* kernel, int threads, std::size_t smem)
{
    WB_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem)));
    int blocks = 0;
    WB_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, threads, smem));
    return blocks;
}

/// Threads per block for a row of @p packs packs and @p smem bytes cached in shared memory;
/// 0 when the row does not fit. @p k128 ... @p k1024: the kernel compiled for each of kSmemRowThreads.
///
/// The rule comes from measurements (chapter 3's README, stage 6): about four packs per thread
/// (enough independent loads per thread, few threads to wait at each barrier), between 128 and 1024
/// threads; then halved while that lets more rows share an SM, up to three, so that one row's
/// barriers overlap another row's loads. The occupancy queries cost microseconds of CPU time inside
/// a timed launch, so the answer is remembered for the last (device, kernel, row) asked about.
template <typename Kernel>
int smem_row_threads(Kernel* k128, Kernel* k256, Kernel* k512, Kernel* k1024, std::int64_t packs, std::size_t smem)
{
    Kernel* const kernels[4] = {k128, k256, k512, k1024};
    struct Choice {
        int device = -1;
        Kernel* kernel = nullptr;
        std::int64_t packs = -1;
        std::size_t smem = 0;
        int threads = 0;
    };
    static thread_local Choice last;
    int device = 0;
    WB_CUDA_CHECK(cudaGetDevice(&device));
    if (last.device == device && last.kernel == kernels[0] && last.packs == packs && last.smem == smem) {
        return last.threads;
    }

    // The row and the kernel's own __shared__ arrays (the largest block's) must fit in one block's share.
    const int optin = device_attribute(cudaDevAttrMaxSharedMemoryPerBlockOptin);
    cudaFuncAttributes largest{};
    WB_CUDA_CHECK(cudaFuncGetAttributes(&largest, kernels[3]));
    int threads = 0;
    if (smem + largest.sharedSizeBytes <= static_cast<std::size_t>(optin)) {
        int size = 0;   // index into kSmemRowThreads
        while (size < 3 && kSmemRowThreads[size + 1] * 4 <= packs) ++size;
        int blocks = smem_row_blocks_per_sm(kernels[size], kSmemRowThreads[size], smem);
        while (size > 0 && blocks < 3) {
            const int with_half = smem_row_blocks_per_sm(kernels[size - 1], kSmemRowThreads[size - 1], smem);
            if (with_half <= blocks) break;
            --size;
            blocks = with_half;
        }
        threads = blocks > 0 ? kSmemRowThreads[size] : 0;
    }
    last = {device, kernels[0], packs, smem, threads};
    return threads;
}

}   // namespace wb
