/// @file device_functions.hpp
/// @brief Device-side built-ins on the CPU: barriers, warp operations, atomics, memory fences,
/// cache-hinted loads and the math intrinsics.
///
/// Barriers and warp operations are real barriers among fibers (emu/src/block.cpp): a warp
/// operation waits until every lane named in its mask has arrived, so code that relies on lanes
/// running in lock-step without saying so fails here, as it may on Volta and later GPUs. Each
/// call records its source line (the default arguments are evaluated where it is called), so a
/// divergent barrier or a deadlock is reported with the lines involved.
#pragma once

#include "emu/platform.hpp"
#include "emu/vector_types.hpp"

#include <atomic>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <math.h>
#include <type_traits>

namespace emu::detail {

enum class WarpOp : int {
    sync,
    shfl,
    shfl_up,
    shfl_down,
    shfl_xor,
    ballot,
    any,
    all,
    reduce_add,
    reduce_min_signed,
    reduce_max_signed,
    reduce_min,
    reduce_max,
    reduce_and,
    reduce_or,
    reduce_xor,
    match_any,
    match_all,
};
enum class BarrierKind : int { plain, count, all, any };

/// One warp operation for the calling CUDA thread; returns the 64 result bits of this lane.
std::uint64_t warp_op(WarpOp op, unsigned mask, std::uint64_t value, int param, int width, const char* what,
                      const char* file, int line);
/// __syncthreads and its counting variants; returns the count / and / or where asked.
int block_barrier(BarrierKind kind, int predicate, const char* what, const char* file, int line);
/// A memory fence by the running thread: of GPU scope (__threadfence) or of block scope (fences.cpp).
void fences_note_fence(bool gpu_scope);
/// The lanes of the caller's warp that have not exited.
unsigned active_mask();
/// Lets the other threads of the block run (used by __nanosleep, so that spin-waits make progress).
void yield_thread();
/// Ends the kernel with an error, as __trap() does on the GPU.
[[noreturn]] void trap(const char* what, const char* file, int line);
/// The shared-memory address of @p p (an offset in the block's arena), as __cvta_generic_to_shared;
/// @p what names the call for the message when @p p is not shared memory.
std::size_t shared_address(const void* p, const char* what, const char* file, int line);
/// cp.async (__pipeline_memcpy_async, <cuda_pipeline.h>): copy @p src_bytes from @p src to the shared
/// address @p dst and zero the rest of @p copy_bytes. The copy is only queued: it happens when the
/// thread waits for its group (__pipeline_wait_prior) or returns, so data read before the wait is
/// still the poison.
void cp_async(std::size_t dst, const void* src, int copy_bytes, int src_bytes, const char* file, int line);
void cp_async_commit();
void cp_async_wait(int pending_groups);

template <class T>
std::uint64_t to_bits(const T& v)
{
    static_assert(std::is_trivially_copyable_v<T> && sizeof(T) <= 8, "warp operations move at most 8 bytes per lane");
    std::uint64_t bits = 0;
    std::memcpy(&bits, &v, sizeof(T));
    return bits;
}
template <class T>
T from_bits(std::uint64_t bits)
{
    T v;
    std::memcpy(&v, &bits, sizeof(T));
    return v;
}

}   // namespace emu::detail

#define EMU_SITE const char *emu_file = __builtin_FILE(), int emu_line = __builtin_LINE()

// ---- barriers -------------------------------------------------------------------------------------
inline void __syncthreads(EMU_SITE)
{
    emu::detail::block_barrier(emu::detail::BarrierKind::plain, 0, "__syncthreads()", emu_file, emu_line);
}
inline int __syncthreads_count(int predicate, EMU_SITE)
{
    return emu::detail::block_barrier(emu::detail::BarrierKind::count, predicate != 0, "__syncthreads_count()",
                                      emu_file, emu_line);
}
inline int __syncthreads_and(int predicate, EMU_SITE)
{
    return emu::detail::block_barrier(emu::detail::BarrierKind::all, predicate != 0, "__syncthreads_and()", emu_file,
                                      emu_line);
}
inline int __syncthreads_or(int predicate, EMU_SITE)
{
    return emu::detail::block_barrier(emu::detail::BarrierKind::any, predicate != 0, "__syncthreads_or()", emu_file,
                                      emu_line);
}
inline void __syncwarp(unsigned mask = 0xffffffffu, EMU_SITE)
{
    emu::detail::warp_op(emu::detail::WarpOp::sync, mask, 0, 0, 32, "__syncwarp", emu_file, emu_line);
}
// A fence of GPU (or system) scope publishes the block's stores to other blocks; one of block scope
// orders the block only (the fence checker, emu/src/fences.cpp, tells them apart).
inline void __threadfence()
{
    std::atomic_thread_fence(std::memory_order_seq_cst);
    emu::detail::fences_note_fence(true);
}
inline void __threadfence_block()
{
    std::atomic_thread_fence(std::memory_order_seq_cst);
    emu::detail::fences_note_fence(false);
}
inline void __threadfence_system()
{
    std::atomic_thread_fence(std::memory_order_seq_cst);
    emu::detail::fences_note_fence(true);
}
inline unsigned __activemask() { return emu::detail::active_mask(); }
inline void __nanosleep(unsigned) { emu::detail::yield_thread(); }
[[noreturn]] inline void __trap(EMU_SITE) { emu::detail::trap("__trap()", emu_file, emu_line); }
inline long long clock64() { return static_cast<long long>(__builtin_ia32_rdtsc()); }
inline std::size_t __cvta_generic_to_shared(const void* p, EMU_SITE)
{
    return emu::detail::shared_address(p, "__cvta_generic_to_shared", emu_file, emu_line);
}

// ---- warp shuffles and votes ------------------------------------------------------------------------
#define EMU_SHUFFLE(name, op)                                                                                         \
    template <class T>                                                                                                \
    inline T name(unsigned mask, T var, int lane_or_delta, int width = warpSize, EMU_SITE)                            \
    {                                                                                                                 \
        return emu::detail::from_bits<T>(emu::detail::warp_op(emu::detail::WarpOp::op, mask,                          \
                                                              emu::detail::to_bits(var), lane_or_delta, width, #name, \
                                                              emu_file, emu_line));                                   \
    }
EMU_SHUFFLE(__shfl_sync, shfl)
EMU_SHUFFLE(__shfl_up_sync, shfl_up)
EMU_SHUFFLE(__shfl_down_sync, shfl_down)
EMU_SHUFFLE(__shfl_xor_sync, shfl_xor)
#undef EMU_SHUFFLE

inline unsigned __ballot_sync(unsigned mask, int predicate, EMU_SITE)
{
    return static_cast<unsigned>(emu::detail::warp_op(emu::detail::WarpOp::ballot, mask, predicate != 0, 0, 32,
                                                      "__ballot_sync", emu_file, emu_line));
}
inline int __any_sync(unsigned mask, int predicate, EMU_SITE)
{
    return static_cast<int>(
        emu::detail::warp_op(emu::detail::WarpOp::any, mask, predicate != 0, 0, 32, "__any_sync", emu_file, emu_line));
}
inline int __all_sync(unsigned mask, int predicate, EMU_SITE)
{
    return static_cast<int>(
        emu::detail::warp_op(emu::detail::WarpOp::all, mask, predicate != 0, 0, 32, "__all_sync", emu_file, emu_line));
}
template <class T>
inline unsigned __match_any_sync(unsigned mask, T value, EMU_SITE)
{
    return static_cast<unsigned>(emu::detail::warp_op(emu::detail::WarpOp::match_any, mask, emu::detail::to_bits(value),
                                                      0, 32, "__match_any_sync", emu_file, emu_line));
}
template <class T>
inline unsigned __match_all_sync(unsigned mask, T value, int* pred, EMU_SITE)
{
    const unsigned result =
        static_cast<unsigned>(emu::detail::warp_op(emu::detail::WarpOp::match_all, mask, emu::detail::to_bits(value), 0,
                                                   32, "__match_all_sync", emu_file, emu_line));
    *pred = result != 0;
    return result;
}

#define EMU_REDUCE(name, T, op)                                                                                      \
    inline T name(unsigned mask, T value, EMU_SITE)                                                                  \
    {                                                                                                                \
        return static_cast<T>(emu::detail::warp_op(emu::detail::WarpOp::op, mask, static_cast<std::uint32_t>(value), \
                                                   0, 32, #name, emu_file, emu_line));                               \
    }
EMU_REDUCE(__reduce_add_sync, unsigned, reduce_add)
EMU_REDUCE(__reduce_add_sync, int, reduce_add)
EMU_REDUCE(__reduce_min_sync, unsigned, reduce_min)
EMU_REDUCE(__reduce_min_sync, int, reduce_min_signed)
EMU_REDUCE(__reduce_max_sync, unsigned, reduce_max)
EMU_REDUCE(__reduce_max_sync, int, reduce_max_signed)
EMU_REDUCE(__reduce_and_sync, unsigned, reduce_and)
EMU_REDUCE(__reduce_or_sync, unsigned, reduce_or)
EMU_REDUCE(__reduce_xor_sync, unsigned, reduce_xor)
#undef EMU_REDUCE

// ---- atomics: real atomic operations (blocks may one day run on several worker threads) -------------
namespace emu::detail {
template <class T, class F>
T atomic_update(T* address, F f)
{
    using Bits = std::conditional_t<sizeof(T) == 2, std::uint16_t,
                                    std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>>;
    static_assert(sizeof(T) == sizeof(Bits), "atomics on 2, 4 or 8 bytes");
    Bits* word = reinterpret_cast<Bits*>(address);
    Bits expected = __atomic_load_n(word, __ATOMIC_RELAXED);
    for (;;) {
        const T old = from_bits<T>(expected);
        const T next = f(old);
        Bits desired = 0;
        std::memcpy(&desired, &next, sizeof(T));
        if (__atomic_compare_exchange_n(word, &expected, desired, false, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED))
            return old;
    }
}
}   // namespace emu::detail

#define EMU_ATOMIC_INTEGER(T)                                                                   \
    inline T atomicAdd(T* a, T v) { return __atomic_fetch_add(a, v, __ATOMIC_SEQ_CST); }        \
    inline T atomicSub(T* a, T v) { return __atomic_fetch_sub(a, v, __ATOMIC_SEQ_CST); }        \
    inline T atomicExch(T* a, T v) { return __atomic_exchange_n(a, v, __ATOMIC_SEQ_CST); }      \
    inline T atomicAnd(T* a, T v) { return __atomic_fetch_and(a, v, __ATOMIC_SEQ_CST); }        \
    inline T atomicOr(T* a, T v) { return __atomic_fetch_or(a, v, __ATOMIC_SEQ_CST); }          \
    inline T atomicXor(T* a, T v) { return __atomic_fetch_xor(a, v, __ATOMIC_SEQ_CST); }        \
    inline T atomicMax(T* a, T v)                                                               \
    {                                                                                           \
        return emu::detail::atomic_update(a, [v](T old) { return old > v ? old : v; });         \
    }                                                                                           \
    inline T atomicMin(T* a, T v)                                                               \
    {                                                                                           \
        return emu::detail::atomic_update(a, [v](T old) { return old < v ? old : v; });         \
    }                                                                                           \
    inline T atomicCAS(T* a, T compare, T v)                                                    \
    {                                                                                           \
        __atomic_compare_exchange_n(a, &compare, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST); \
        return compare;                                                                         \
    }
EMU_ATOMIC_INTEGER(int)
EMU_ATOMIC_INTEGER(unsigned int)
EMU_ATOMIC_INTEGER(long long)
EMU_ATOMIC_INTEGER(unsigned long long)
#undef EMU_ATOMIC_INTEGER
inline unsigned short atomicCAS(unsigned short* a, unsigned short compare, unsigned short v)
{
    __atomic_compare_exchange_n(a, &compare, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
    return compare;
}
inline float atomicAdd(float* a, float v)
{
    return emu::detail::atomic_update(a, [v](float old) { return old + v; });
}
inline double atomicAdd(double* a, double v)
{
    return emu::detail::atomic_update(a, [v](double old) { return old + v; });
}
inline float atomicExch(float* a, float v)
{
    return emu::detail::atomic_update(a, [v](float) { return v; });
}
inline unsigned atomicInc(unsigned* a, unsigned limit)
{
    return emu::detail::atomic_update(a, [limit](unsigned old) { return old >= limit ? 0u : old + 1; });
}
inline unsigned atomicDec(unsigned* a, unsigned limit)
{
    return emu::detail::atomic_update(a, [limit](unsigned old) { return (old == 0 || old > limit) ? limit : old - 1; });
}
template <class T, class V>
inline T atomicAdd_block(T* a, V v)
{
    return atomicAdd(a, static_cast<T>(v));
}
template <class T, class V>
inline T atomicAdd_system(T* a, V v)
{
    return atomicAdd(a, static_cast<T>(v));
}

// ---- loads and stores with cache hints: plain accesses on the CPU ---------------------------------------
template <class T>
inline T __ldg(const T* p)
{
    return *p;
}
template <class T>
inline T __ldcg(const T* p)
{
    return *p;
}
template <class T>
inline T __ldca(const T* p)
{
    return *p;
}
template <class T>
inline T __ldcs(const T* p)
{
    return *p;
}
template <class T>
inline T __ldlu(const T* p)
{
    return *p;
}
/// A volatile load on the GPU (fetched again every time): a flag polled this way synchronises the block
/// with the others for the race checker between blocks, as a volatile read does.
template <class T>
inline T __ldcv(const T* p)
{
    if constexpr (std::is_arithmetic_v<T>)
        return *static_cast<const volatile T*>(p);
    else
        return *p;
}
template <class T>
inline void __stwb(T* p, T v)
{
    *p = v;
}
template <class T>
inline void __stcg(T* p, T v)
{
    *p = v;
}
template <class T>
inline void __stcs(T* p, T v)
{
    *p = v;
}
template <class T>
inline void __stwt(T* p, T v)
{
    *p = v;
}

// ---- math: the fast intrinsics are computed with the accurate libm functions --------------------------
inline float rsqrtf(float x) { return 1.0f / sqrtf(x); }
inline double rsqrt(double x) { return 1.0 / std::sqrt(x); }
inline float rcbrtf(float x) { return 1.0f / cbrtf(x); }
inline float __expf(float x) { return expf(x); }
inline float __exp10f(float x) { return exp10f(x); }
inline float __logf(float x) { return logf(x); }
inline float __log2f(float x) { return log2f(x); }
inline float __log10f(float x) { return log10f(x); }
inline float __powf(float x, float y) { return powf(x, y); }
inline float __sinf(float x) { return sinf(x); }
inline float __cosf(float x) { return cosf(x); }
inline float __tanf(float x) { return tanf(x); }
inline void __sincosf(float x, float* s, float* c) { sincosf(x, s, c); }
inline float __tanhf(float x) { return tanhf(x); }
inline float __fdividef(float x, float y) { return x / y; }
inline float fdividef(float x, float y) { return x / y; }
inline float __frcp_rn(float x) { return 1.0f / x; }
inline float __fsqrt_rn(float x) { return sqrtf(x); }
inline float __frsqrt_rn(float x) { return 1.0f / sqrtf(x); }
inline float __fadd_rn(float x, float y) { return x + y; }
inline float __fsub_rn(float x, float y) { return x - y; }
inline float __fmul_rn(float x, float y) { return x * y; }
inline float __fdiv_rn(float x, float y) { return x / y; }
inline float __fmaf_rn(float x, float y, float z) { return fmaf(x, y, z); }
inline double __dadd_rn(double x, double y) { return x + y; }
inline double __dmul_rn(double x, double y) { return x * y; }
inline double __fma_rn(double x, double y, double z) { return fma(x, y, z); }
inline float __saturatef(float x) { return x < 0.0f ? 0.0f : (x > 1.0f ? 1.0f : (x != x ? 0.0f : x)); }

inline int __float_as_int(float x) { return emu::detail::from_bits<int>(emu::detail::to_bits(x)); }
inline unsigned __float_as_uint(float x) { return emu::detail::from_bits<unsigned>(emu::detail::to_bits(x)); }
inline float __int_as_float(int x) { return emu::detail::from_bits<float>(emu::detail::to_bits(x)); }
inline float __uint_as_float(unsigned x) { return emu::detail::from_bits<float>(emu::detail::to_bits(x)); }
inline long long __double_as_longlong(double x) { return emu::detail::from_bits<long long>(emu::detail::to_bits(x)); }
inline double __longlong_as_double(long long x) { return emu::detail::from_bits<double>(emu::detail::to_bits(x)); }
inline float __int2float_rn(int x) { return static_cast<float>(x); }
inline int __float2int_rn(float x) { return static_cast<int>(nearbyintf(x)); }
inline int __float2int_rz(float x) { return static_cast<int>(x); }
inline int __float2int_rd(float x) { return static_cast<int>(floorf(x)); }
inline int __float2int_ru(float x) { return static_cast<int>(ceilf(x)); }
inline unsigned __float2uint_rn(float x) { return static_cast<unsigned>(nearbyintf(x)); }

inline int __popc(unsigned x) { return __builtin_popcount(x); }
inline int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
inline int __clz(int x) { return x == 0 ? 32 : __builtin_clz(static_cast<unsigned>(x)); }
inline int __clzll(long long x) { return x == 0 ? 64 : __builtin_clzll(static_cast<unsigned long long>(x)); }
inline int __ffs(int x) { return __builtin_ffs(x); }
inline int __ffsll(long long x) { return __builtin_ffsll(x); }
inline unsigned __brev(unsigned x)
{
    unsigned r = 0;
    for (int i = 0; i < 32; ++i) r |= ((x >> i) & 1u) << (31 - i);
    return r;
}
inline int __mul24(int x, int y) { return ((x << 8) >> 8) * ((y << 8) >> 8); }
inline unsigned __umul24(unsigned x, unsigned y) { return (x & 0xffffffu) * (y & 0xffffffu); }
inline int __mulhi(int x, int y) { return static_cast<int>((static_cast<long long>(x) * y) >> 32); }
inline unsigned __umulhi(unsigned x, unsigned y)
{
    return static_cast<unsigned>((static_cast<unsigned long long>(x) * y) >> 32);
}
inline unsigned long long __umul64hi(unsigned long long x, unsigned long long y)
{
    return static_cast<unsigned long long>((static_cast<unsigned __int128>(x) * y) >> 64);
}
inline unsigned __funnelshift_l(unsigned lo, unsigned hi, unsigned shift)
{
    const unsigned long long v = (static_cast<unsigned long long>(hi) << 32) | lo;
    return static_cast<unsigned>((v << (shift & 31)) >> 32);
}
inline unsigned __funnelshift_r(unsigned lo, unsigned hi, unsigned shift)
{
    const unsigned long long v = (static_cast<unsigned long long>(hi) << 32) | lo;
    return static_cast<unsigned>(v >> (shift & 31));
}

// CUDA's global min and max for device code (the host code may keep using std::min/std::max).
inline int min(int a, int b) { return a < b ? a : b; }
inline int max(int a, int b) { return a > b ? a : b; }
inline unsigned min(unsigned a, unsigned b) { return a < b ? a : b; }
inline unsigned max(unsigned a, unsigned b) { return a > b ? a : b; }
inline unsigned min(int a, unsigned b) { return min(static_cast<unsigned>(a), b); }
inline unsigned min(unsigned a, int b) { return min(a, static_cast<unsigned>(b)); }
inline unsigned max(int a, unsigned b) { return max(static_cast<unsigned>(a), b); }
inline unsigned max(unsigned a, int b) { return max(a, static_cast<unsigned>(b)); }
inline long long min(long long a, long long b) { return a < b ? a : b; }
inline long long max(long long a, long long b) { return a > b ? a : b; }
inline long min(long a, long b) { return a < b ? a : b; }
inline long max(long a, long b) { return a > b ? a : b; }
inline unsigned long long min(unsigned long long a, unsigned long long b) { return a < b ? a : b; }
inline unsigned long long max(unsigned long long a, unsigned long long b) { return a > b ? a : b; }
inline unsigned long min(unsigned long a, unsigned long b) { return a < b ? a : b; }
inline unsigned long max(unsigned long a, unsigned long b) { return a > b ? a : b; }
inline float min(float a, float b) { return fminf(a, b); }
inline float max(float a, float b) { return fmaxf(a, b); }
inline double min(double a, double b) { return fmin(a, b); }
inline double max(double a, double b) { return fmax(a, b); }
inline unsigned umin(unsigned a, unsigned b) { return a < b ? a : b; }
inline unsigned umax(unsigned a, unsigned b) { return a > b ? a : b; }
inline long long llmin(long long a, long long b) { return a < b ? a : b; }
inline long long llmax(long long a, long long b) { return a > b ? a : b; }

#undef EMU_SITE
