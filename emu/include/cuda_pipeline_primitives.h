/// @file cuda_pipeline_primitives.h
/// @brief The CPU backend's stand-in for CUDA's pipeline primitives: cp.async on the CPU.
///
/// On a GPU of compute capability 8.0 or newer each call is one instruction: __pipeline_memcpy_async
/// is cp.async (LDGSTS), __pipeline_commit is cp.async.commit_group, __pipeline_wait_prior is
/// cp.async.wait_group. Here a copy is queued per thread and lands when the thread waits for its
/// group or returns (emu/src/block.cpp), so reading the destination before the wait (or before the
/// __syncthreads() after it) reads the shared-memory poison, as a race would on a GPU. The size and
/// alignment rules of cp.async are checked and reported at the caller's line.
#pragma once

#include "emu/device_functions.hpp"

#include <cstddef>

/// Copies @p size_and_align bytes (4, 8 or 16; both addresses aligned to it) from global memory to
/// shared memory, of which the last @p zfill bytes are zeroed instead of read.
inline void __pipeline_memcpy_async(void* __restrict__ dst_shared, const void* __restrict__ src_global,
                                    std::size_t size_and_align, std::size_t zfill = 0,
                                    const char* emu_file = __builtin_FILE(), int emu_line = __builtin_LINE())
{
    const int bytes = static_cast<int>(size_and_align);
    const int source_bytes = zfill > size_and_align ? -1 : bytes - static_cast<int>(zfill);
    const std::size_t dst =
        emu::detail::shared_address(dst_shared, "__pipeline_memcpy_async (its destination)", emu_file, emu_line);
    emu::detail::cp_async(dst, src_global, bytes, source_bytes, emu_file, emu_line);
}

/// Closes the calling thread's group of copies issued since the last commit.
inline void __pipeline_commit() { emu::detail::cp_async_commit(); }

/// Waits until at most @p prior of the calling thread's committed groups are still in flight
/// (CUDA's header waits for at most 8, as here).
inline void __pipeline_wait_prior(std::size_t prior)
{
    emu::detail::cp_async_wait(static_cast<int>(prior < 8 ? prior : 8));
}
