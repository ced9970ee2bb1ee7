/// @file mma.h
/// @brief WMMA (nvcuda::wmma) on the CPU: the 16 x 16 x 16 shape with __half or __nv_bfloat16 inputs
/// and float or __half accumulators, as a kernel that includes <mma.h> uses it on a GPU.
///
/// What is there: fragment<matrix_a | matrix_b | accumulator, 16, 16, 16, T, row_major | col_major>
/// (num_elements and x[] as on compute capability 8.0: 16 elements for __half A/B, 8 for
/// __nv_bfloat16 A/B and for accumulators), fill_fragment, load_matrix_sync, store_matrix_sync
/// (mem_row_major / mem_col_major) and mma_sync. Other shapes (32x8x16, 8x32x16, 16x16x8 tf32),
/// integer and sub-byte types stop the build with a message.
///
/// Which element of a fragment holds which element of the matrix is unspecified by CUDA and differs
/// between GPU generations. The emulator therefore uses a deliberately scrambled mapping (a fixed
/// permutation, different for A, B and accumulators): code that reads or writes fragment.x[i]
/// assuming a position gets wrong results here, as it may on some GPU. Element-wise operations that
/// treat all elements alike (scaling an accumulator, converting a float accumulator to a __half one
/// element by element) do not depend on the mapping and work, as on a GPU. A __half A or B fragment
/// holds each element twice (16 elements for 256 values); mma_sync reads one of the two copies.
///
/// load_matrix_sync, store_matrix_sync and mma_sync are operations of the whole warp: all 32 lanes
/// must call them at the same place (a divergent call or a warp of fewer than 32 threads is
/// reported with the source line). Their requirements are checked: ldm a multiple of 16 bytes (8
/// elements of 16 bits, 4 floats) and the pointer 16-byte aligned (CUDA asks for 32 bytes: see
/// check_memory). mma_sync multiplies in fp32 (products
/// exact, fused multiply-adds in k order); a __half accumulator is rounded to __half once at the end.
#pragma once

#include "emu/tensor_core.hpp"

#include "cuda_bf16.h"
#include "cuda_fp16.h"

#include <cstdint>
#include <string>
#include <type_traits>

namespace nvcuda {
namespace wmma {

struct row_major;
struct col_major;
struct matrix_a;
struct matrix_b;
struct accumulator;

enum layout_t { mem_row_major, mem_col_major };

namespace emu_detail {

/// How many elements each lane's fragment has (as on compute capability 8.0); 0: not supported.
template <class Use, class T>
constexpr int element_count()
{
    if constexpr (std::is_same_v<Use, accumulator>) {
        return (std::is_same_v<T, float> || std::is_same_v<T, __half>) ? 8 : 0;
    } else if constexpr (std::is_same_v<Use, matrix_a> || std::is_same_v<Use, matrix_b>) {
        return std::is_same_v<T, __half> ? 16 : (std::is_same_v<T, __nv_bfloat16> ? 8 : 0);
    } else {
        return 0;
    }
}

/// The scrambled mapping: lane l's element i is slot s = l * n + i (n = num_elements), which holds
/// matrix element p = (s * multiplier + offset) mod (32 n), taken mod 256 (row p / 16, column p % 16).
/// The multiplier is odd, so this is a permutation of the slots; with 16 elements per lane each
/// matrix element has two slots, and the copy mma_sync reads is the one whose value before the
/// last "mod 256" is below 256.
template <class Use>
constexpr int multiplier()
{
    return std::is_same_v<Use, matrix_a> ? 109 : (std::is_same_v<Use, matrix_b> ? 77 : 45);
}
template <class Use>
constexpr int offset()
{
    return std::is_same_v<Use, matrix_a> ? 37 : (std::is_same_v<Use, matrix_b> ? 150 : 91);
}

template <class Use, int kElements>
constexpr int scrambled(int lane, int i)
{
    return ((lane * kElements + i) * multiplier<Use>() + offset<Use>()) % (32 * kElements);
}

/// Which (lane, element) holds matrix element p (0..255) in the copy that mma_sync reads.
struct Holder {
    int lane, index;
};
template <class Use, int kElements>
struct HolderTable {
    Holder of[256];
    constexpr HolderTable() : of{}
    {
        for (int lane = 0; lane < 32; ++lane) {
            for (int i = 0; i < kElements; ++i) {
                const int q = scrambled<Use, kElements>(lane, i);
                if (q < 256) of[q] = Holder{lane, i};
            }
        }
    }
};
template <class Use, int kElements>
inline constexpr HolderTable<Use, kElements> kHolders{};

template <class T>
inline float to_float(T v)
{
    return static_cast<float>(v);
}
template <class T>
inline T from_float(float v)
{
    if constexpr (std::is_same_v<T, float>) {
        return v;
    } else {
        return __float2half_rn(v);
    }
}

inline std::string describe_call(const char* what) { return std::string("nvcuda::wmma::") + what; }

/// CUDA's requirements on the memory of a load or store: a 256-bit (32-byte) aligned pointer and ldm a
/// multiple of 16 bytes. The pointer is checked for 16-byte alignment only: the emulator places shared
/// arrays 16-byte aligned, so a tile that happens to be 32-byte aligned on a GPU may not be here, and a
/// pointer that is not even 16-byte aligned is wrong everywhere. (A GPU gives undefined results or a
/// misaligned-address error; the emulator stops the kernel with the line.)
template <class T>
inline void check_memory(const void* p, unsigned ldm, const char* what, const char* file, int line)
{
    if (reinterpret_cast<std::uintptr_t>(p) % 16 != 0) {
        emu::tc::misuse(describe_call(what) + " with the pointer " + emu::tc::hex_address(p) +
                            " (not even 16-byte aligned: WMMA needs 256-bit, 32-byte, aligned pointers)",
                        file, line);
    }
    if ((ldm * sizeof(T)) % 16 != 0) {
        emu::tc::misuse(describe_call(what) + " with ldm = " + std::to_string(ldm) + " (WMMA needs a multiple of " +
                            std::to_string(16 / sizeof(T)) + " elements, 16 bytes)",
                        file, line);
    }
}

/// The memory offset of matrix element (row, col) for a leading dimension ldm.
inline std::size_t memory_offset(int row, int col, unsigned ldm, bool row_major)
{
    return row_major ? static_cast<std::size_t>(row) * ldm + col : static_cast<std::size_t>(col) * ldm + row;
}

template <class Layout>
constexpr bool is_row_major()
{
    static_assert(std::is_same_v<Layout, row_major> || std::is_same_v<Layout, col_major>,
                  "a matrix_a or matrix_b fragment names its layout: row_major or col_major");
    return std::is_same_v<Layout, row_major>;
}

}   // namespace emu_detail

/// The storage of every fragment: x[num_elements], as in CUDA.
template <class T, int kElements>
struct __align__(8) emu_fragment_base
{
    enum { num_elements = kElements, num_storage_elements = kElements };
    typedef T element_type;
    typedef T storage_element_type;
    T x[kElements];
};

template <class Use, int m, int n, int k, class T, class Layout = void>
class fragment
    : public emu_fragment_base<T, emu_detail::element_count<Use, T>() == 0 ? 1 : emu_detail::element_count<Use, T>()> {
    static_assert(m == 16 && n == 16 && k == 16,
                  "the CPU emulator has WMMA's 16x16x16 shape only (use m = n = k = 16, or grade on a GPU)");
    static_assert(emu_detail::element_count<Use, T>() != 0,
                  "the CPU emulator has WMMA fragments of __half or __nv_bfloat16 (matrix_a, matrix_b) and of float "
                  "or __half (accumulator) only");
    static_assert(std::is_same_v<Use, accumulator>
                      ? std::is_void_v<Layout>
                      : (std::is_same_v<Layout, row_major> || std::is_same_v<Layout, col_major>),
                  "matrix_a and matrix_b fragments name row_major or col_major; accumulators name no layout");
};

/// Every element of @p f set to @p v (not an operation of the whole warp).
template <class Use, int m, int n, int k, class T, class Layout, class V>
inline void fill_fragment(fragment<Use, m, n, k, T, Layout>& f, const V& v)
{
    const T value = static_cast<T>(v);
    for (int i = 0; i < f.num_elements; ++i) f.x[i] = value;
}

/// Loads a 16 x 16 tile of A or B from @p p (global or shared memory), leading dimension @p ldm elements.
template <class Use, class T, class Layout>
inline void load_matrix_sync(fragment<Use, 16, 16, 16, T, Layout>& f, const T* p, unsigned ldm,
                             const char* file = __builtin_FILE(), int line = __builtin_LINE())
{
    static_assert(!std::is_same_v<Use, accumulator>,
                  "an accumulator load names its layout: mem_row_major or mem_col_major");
    constexpr int kElements = fragment<Use, 16, 16, 16, T, Layout>::num_elements;
    emu_detail::check_memory<T>(p, ldm, "load_matrix_sync", file, line);
    emu::tc::warp_meet("nvcuda::wmma::load_matrix_sync", file, line);
    const int lane = emu::tc::lane_id();
    for (int i = 0; i < kElements; ++i) {
        const int q = emu_detail::scrambled<Use, kElements>(lane, i) % 256;
        f.x[i] = p[emu_detail::memory_offset(q / 16, q % 16, ldm, emu_detail::is_row_major<Layout>())];
    }
}

/// Loads a 16 x 16 accumulator tile (float or __half) from @p p, stored as @p layout says.
template <class T>
inline void load_matrix_sync(fragment<accumulator, 16, 16, 16, T>& f, const T* p, unsigned ldm, layout_t layout,
                             const char* file = __builtin_FILE(), int line = __builtin_LINE())
{
    emu_detail::check_memory<T>(p, ldm, "load_matrix_sync", file, line);
    emu::tc::warp_meet("nvcuda::wmma::load_matrix_sync", file, line);
    const int lane = emu::tc::lane_id();
    for (int i = 0; i < 8; ++i) {
        const int q = emu_detail::scrambled<accumulator, 8>(lane, i);
        f.x[i] = p[emu_detail::memory_offset(q / 16, q % 16, ldm, layout == mem_row_major)];
    }
}

/// Stores a 16 x 16 accumulator tile to @p p, leading dimension @p ldm elements, as @p layout says.
/// Every element is written once. The warp meets after the stores, so the lanes may read each other's
/// elements right after the call (as a GPU's __syncwarp() would allow).
template <class T>
inline void store_matrix_sync(T* p, const fragment<accumulator, 16, 16, 16, T>& f, unsigned ldm, layout_t layout,
                              const char* file = __builtin_FILE(), int line = __builtin_LINE())
{
    emu_detail::check_memory<T>(p, ldm, "store_matrix_sync", file, line);
    const int lane = emu::tc::lane_id();
    for (int i = 0; i < 8; ++i) {
        const int q = emu_detail::scrambled<accumulator, 8>(lane, i);
        p[emu_detail::memory_offset(q / 16, q % 16, ldm, layout == mem_row_major)] = f.x[i];
    }
    emu::tc::warp_meet("nvcuda::wmma::store_matrix_sync", file, line);
}

namespace emu_detail {

/// One lane's A and B elements for mma_sync (the 16-bit patterns).
template <int kA, int kB>
struct Operands {
    std::uint16_t a[kA];
    std::uint16_t b[kB];
};

template <class T>
inline float value_of(std::uint16_t bits)
{
    return static_cast<float>(
        emu::detail::from_16(bits, std::is_same_v<T, __nv_bfloat16> ? emu::detail::kBfloat16 : emu::detail::kHalf));
}

/// This lane's eight elements of D = A B + C, each an fp32 fused multiply-add chain over k from C.
template <class T, int kA, int kB, class Exchanged>
EMU_TC_UNCHECKED void mma_compute(float (&out)[8], const float (&c)[8], const Exchanged& all, int lane)
{
    const auto& a_holders = kHolders<matrix_a, kA>;
    const auto& b_holders = kHolders<matrix_b, kB>;
    for (int i = 0; i < 8; ++i) {
        const int q = scrambled<accumulator, 8>(lane, i);
        const int row = q / 16, col = q % 16;
        float acc = c[i];
        for (int kk = 0; kk < 16; ++kk) {
            const Holder ha = a_holders.of[row * 16 + kk];
            const Holder hb = b_holders.of[kk * 16 + col];
            acc = std::fmaf(value_of<T>(all[ha.lane].a[ha.index]), value_of<T>(all[hb.lane].b[hb.index]), acc);
        }
        out[i] = acc;
    }
}

template <class T>
inline std::uint16_t bits_of(const T& v)
{
    std::uint16_t bits;
    std::memcpy(&bits, &v, 2);
    return bits;
}

}   // namespace emu_detail

/// D = A B + C for one 16 x 16 x 16 tile, all 32 lanes of the warp together. @p d may be @p c.
template <class TD, class T, class LayoutA, class LayoutB, class TC>
inline void mma_sync(fragment<accumulator, 16, 16, 16, TD>& d, const fragment<matrix_a, 16, 16, 16, T, LayoutA>& a,
                     const fragment<matrix_b, 16, 16, 16, T, LayoutB>& b,
                     const fragment<accumulator, 16, 16, 16, TC>& c, const char* file = __builtin_FILE(),
                     int line = __builtin_LINE())
{
    constexpr int kA = fragment<matrix_a, 16, 16, 16, T, LayoutA>::num_elements;
    constexpr int kB = fragment<matrix_b, 16, 16, 16, T, LayoutB>::num_elements;
    emu_detail::Operands<kA, kB> mine;
    for (int i = 0; i < kA; ++i) mine.a[i] = emu_detail::bits_of(a.x[i]);
    for (int i = 0; i < kB; ++i) mine.b[i] = emu_detail::bits_of(b.x[i]);
    float c_values[8];
    for (int i = 0; i < 8; ++i) c_values[i] = emu_detail::to_float(c.x[i]);
    const auto all = emu::tc::warp_exchange(mine, "nvcuda::wmma::mma_sync", file, line);
    float out[8];
    emu_detail::mma_compute<T, kA, kB>(out, c_values, all, emu::tc::lane_id());
    for (int i = 0; i < 8; ++i) d.x[i] = emu_detail::from_float<TD>(out[i]);
}

}   // namespace wmma
}   // namespace nvcuda
