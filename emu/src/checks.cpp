// The checks compiled into kernel code. The emulated .cu files are built with -fsanitize=thread (see
// cmake/WorkbookBackend.cmake): the compiler then calls __tsan_readN(address) before every load and
// __tsan_writeN(address) before every store of that code, and turns atomic operations into calls of
// __tsan_atomicN_*. No sanitizer runtime is linked: these functions are the whole of it, the atomics
// done here for real (and never reported: atomics do not race).
// They cost a call and a comparison per access (and one more for the counters of a profile, which
// record every access only while a profile is on, see profile.cpp, one more for the fence checker, and
// a look into a table for the race checker between blocks);
// the work happens only for
//   - accesses to the shared arena of a block the checker watches (races, unwritten or out-of-bounds
//     reads: BlockRun::check_shared),
//   - reads whose bytes, or the last 4 of a vector load, look like the guard after a device buffer (a byte
//     repeated, 0x7F or a byte of the harness's guard range, 0xA0 to 0xDF): then the allocation is looked up
//     (check_guard_read);
//   - stores of a kernel that uses global atomics, reads while some bytes of the running launch were
//     announced by an atomic before any fence published them, and every atomic (the fence checker,
//     fences.cpp);
//   - every store of a block outside shared memory and its own stack, noted in a table, and every load
//     of a block that has not yet synchronised with the others, looked up in it (the race checker
//     between blocks, block_races.cpp).
// This file itself is compiled without instrumentation.
#include "engine.hpp"

#include <atomic>
#include <cstdint>
#include <cstring>

extern __thread std::uintptr_t emu_tls_watch_lo;
extern __thread std::uintptr_t emu_tls_watch_span;
extern __thread bool emu_tls_profiling;
extern __thread bool emu_tls_note_stores;         // fences.cpp: this block's global stores are noted
extern std::atomic<bool> emu_fence_unsafe_any;    // fences.cpp: some bytes were announced without a fence
extern __thread bool emu_tls_races_note_stores;   // block_races.cpp: in a block, its stores are noted
extern __thread bool emu_tls_races_check_loads;   // block_races.cpp: ... and it has not synchronised yet

namespace {

inline void on_access(const void* p, std::size_t bytes, bool write, const void* pc)
{
    // Counting for a profile (emu/profile.hpp): off unless asked for, one test of a flag.
    if (__builtin_expect(emu_tls_profiling, false)) emu::detail::profile_access(p, bytes, write, pc);
    // The fence checker (fences.cpp): stores of kernels that use global atomics, reads while some
    // bytes are unsafe. Both off for almost every kernel: one test of a flag each.
    if (write) {
        if (__builtin_expect(emu_tls_note_stores, false)) emu::detail::fences_note_store(p, bytes, pc);
    } else if (__builtin_expect(emu_fence_unsafe_any.load(std::memory_order_relaxed), false)) {
        emu::detail::fences_check_read(p, bytes, pc);
    }
    const auto address = reinterpret_cast<std::uintptr_t>(p);
    // The race checker between blocks (block_races.cpp): every store of a block, its loads until it
    // synchronises with the other blocks; not the thread's own variables (on its stack, at or above this
    // frame) nor shared memory, which are most accesses, so that they cost two comparisons here.
    if (write ? emu_tls_races_note_stores : emu_tls_races_check_loads) {
        const bool own =
            emu::detail::on_own_stack(address, __builtin_frame_address(0)) || emu::detail::in_shared_arena(address);
        if (!own) {
            if (write)
                emu::detail::races_note_store(p, bytes, pc);
            else
                emu::detail::races_check_load(p, bytes, pc);
        }
    }
    if (address - emu_tls_watch_lo < emu_tls_watch_span) {
        emu::detail::check_shared_access(address, bytes, write, pc);
    } else if (!write && bytes >= 2 &&
               (emu::detail::looks_like_guard(p, bytes) ||
                (bytes >= 8 && emu::detail::looks_like_guard(static_cast<const char*>(p) + bytes - 4, 4)))) {
        // All of it in a guard, or a vector load whose last element is: one that starts inside the
        // array and ends past it (a float4 over the last, partial vector) is a read past the end too.
        emu::detail::check_guard_read(p, bytes, pc);
    }
}

/// An access the compiler made with the type's own alignment (__tsan_readN rather than
/// __tsan_unaligned_readN): a float2, float4, double or 64-bit integer whose address is not a multiple
/// of its size is the GPU's "misaligned address" error.
inline void on_aligned_access(const void* p, std::size_t bytes, bool write, const void* pc)
{
    if (bytes >= 8 && (reinterpret_cast<std::uintptr_t>(p) & (bytes - 1)) != 0)
        emu::detail::report_misaligned(p, bytes, write, pc);
    on_access(p, bytes, write, pc);
}

}   // namespace

#define EMU_CHECK_SIZE(n)                                                                                      \
    extern "C" void __tsan_read##n(void* p) { on_aligned_access(p, n, false, __builtin_return_address(0)); }   \
    extern "C" void __tsan_write##n(void* p) { on_aligned_access(p, n, true, __builtin_return_address(0)); }   \
    extern "C" void __tsan_unaligned_read##n(void* p) { on_access(p, n, false, __builtin_return_address(0)); } \
    extern "C" void __tsan_unaligned_write##n(void* p) { on_access(p, n, true, __builtin_return_address(0)); } \
    extern "C" void __tsan_volatile_read##n(void* p)                                                           \
    {                                                                                                          \
        emu::detail::races_note_sync(p); /* a flag polled the old way: the block synchronises */               \
        on_aligned_access(p, n, false, __builtin_return_address(0));                                           \
    }                                                                                                          \
    extern "C" void __tsan_volatile_write##n(void* p) { on_aligned_access(p, n, true, __builtin_return_address(0)); }
EMU_CHECK_SIZE(1)
EMU_CHECK_SIZE(2)
EMU_CHECK_SIZE(4)
EMU_CHECK_SIZE(8)
EMU_CHECK_SIZE(16)
#undef EMU_CHECK_SIZE

extern "C" void __tsan_read_range(void* p, unsigned long n) { on_access(p, n, false, __builtin_return_address(0)); }
extern "C" void __tsan_write_range(void* p, unsigned long n) { on_access(p, n, true, __builtin_return_address(0)); }
extern "C" void __tsan_init() {}
extern "C" void __tsan_func_entry(void*) {}
extern "C" void __tsan_func_exit() {}
extern "C" void __tsan_vptr_update(void**, void*) {}
extern "C" void __tsan_vptr_read(void**) {}

// Atomics, sequentially consistent whatever order was asked for (the order arguments are ignored). Every
// one but a load may announce stores to other blocks: the fence checker hears of it (fences.cpp).
#define EMU_ANNOUNCE(a)                                                                            \
    emu::detail::races_note_sync(const_cast<const void*>(static_cast<const volatile void*>(a)));   \
    emu::detail::fences_note_atomic(const_cast<const void*>(static_cast<const volatile void*>(a)), \
                                    __builtin_return_address(0))
#define EMU_ATOMICS(bits, T)                                                                         \
    extern "C" T __tsan_atomic##bits##_load(const volatile T* a, int)                                \
    {                                                                                                \
        emu::detail::races_note_sync(const_cast<const void*>(static_cast<const volatile void*>(a))); \
        return __atomic_load_n(a, __ATOMIC_SEQ_CST);                                                 \
    }                                                                                                \
    extern "C" void __tsan_atomic##bits##_store(volatile T* a, T v, int)                             \
    {                                                                                                \
        EMU_ANNOUNCE(a);                                                                             \
        __atomic_store_n(a, v, __ATOMIC_SEQ_CST);                                                    \
    }                                                                                                \
    extern "C" T __tsan_atomic##bits##_exchange(volatile T* a, T v, int)                             \
    {                                                                                                \
        EMU_ANNOUNCE(a);                                                                             \
        return __atomic_exchange_n(a, v, __ATOMIC_SEQ_CST);                                          \
    }                                                                                                \
    extern "C" T __tsan_atomic##bits##_fetch_add(volatile T* a, T v, int)                            \
    {                                                                                                \
        EMU_ANNOUNCE(a);                                                                             \
        return __atomic_fetch_add(a, v, __ATOMIC_SEQ_CST);                                           \
    }                                                                                                \
    extern "C" T __tsan_atomic##bits##_fetch_sub(volatile T* a, T v, int)                            \
    {                                                                                                \
        EMU_ANNOUNCE(a);                                                                             \
        return __atomic_fetch_sub(a, v, __ATOMIC_SEQ_CST);                                           \
    }                                                                                                \
    extern "C" T __tsan_atomic##bits##_fetch_and(volatile T* a, T v, int)                            \
    {                                                                                                \
        EMU_ANNOUNCE(a);                                                                             \
        return __atomic_fetch_and(a, v, __ATOMIC_SEQ_CST);                                           \
    }                                                                                                \
    extern "C" T __tsan_atomic##bits##_fetch_or(volatile T* a, T v, int)                             \
    {                                                                                                \
        EMU_ANNOUNCE(a);                                                                             \
        return __atomic_fetch_or(a, v, __ATOMIC_SEQ_CST);                                            \
    }                                                                                                \
    extern "C" T __tsan_atomic##bits##_fetch_xor(volatile T* a, T v, int)                            \
    {                                                                                                \
        EMU_ANNOUNCE(a);                                                                             \
        return __atomic_fetch_xor(a, v, __ATOMIC_SEQ_CST);                                           \
    }                                                                                                \
    extern "C" T __tsan_atomic##bits##_fetch_nand(volatile T* a, T v, int)                           \
    {                                                                                                \
        EMU_ANNOUNCE(a);                                                                             \
        return __atomic_fetch_nand(a, v, __ATOMIC_SEQ_CST);                                          \
    }                                                                                                \
    extern "C" int __tsan_atomic##bits##_compare_exchange_strong(volatile T* a, T* c, T v, int, int) \
    {                                                                                                \
        EMU_ANNOUNCE(a);                                                                             \
        return __atomic_compare_exchange_n(a, c, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);      \
    }                                                                                                \
    extern "C" int __tsan_atomic##bits##_compare_exchange_weak(volatile T* a, T* c, T v, int, int)   \
    {                                                                                                \
        EMU_ANNOUNCE(a);                                                                             \
        return __atomic_compare_exchange_n(a, c, v, true, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);       \
    }                                                                                                \
    extern "C" T __tsan_atomic##bits##_compare_exchange_val(volatile T* a, T c, T v, int, int)       \
    {                                                                                                \
        EMU_ANNOUNCE(a);                                                                             \
        __atomic_compare_exchange_n(a, &c, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);            \
        return c;                                                                                    \
    }
EMU_ATOMICS(8, std::uint8_t)
EMU_ATOMICS(16, std::uint16_t)
EMU_ATOMICS(32, std::uint32_t)
EMU_ATOMICS(64, std::uint64_t)
#undef EMU_ATOMICS
#undef EMU_ANNOUNCE
extern "C" void __tsan_atomic_thread_fence(int) { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
extern "C" void __tsan_atomic_signal_fence(int) { __atomic_signal_fence(__ATOMIC_SEQ_CST); }
