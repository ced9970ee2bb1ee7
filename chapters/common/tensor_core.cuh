/// @file tensor_core.cuh
/// @brief Tensor cores without WMMA: `ldmatrix` and `mma.sync` m16n8k16 as C++ functions.
///
/// Chapter 8 uses these from stage 3 on. Each wrapper is one PTX instruction on a GPU of compute
/// capability 8.0 or newer, with exactly the instruction's semantics; on the CPU emulator it runs
/// the same instruction in C++ with the fragment layouts of the PTX ISA, so a kernel that puts an
/// element in the wrong lane or register gets the same wrong answer in both places.
///
/// Both are *warp-collective*: all 32 lanes of a warp must call the same function at the same
/// place in the code (never inside a branch that only some lanes take). The emulator reports a
/// divergent call, or a call from a warp of fewer than 32 threads, with your source line.
///
/// Fragments (one warp computes D = A B + C for a 16 x 16 tile of A, 16 x 8 of B and 16 x 8 of C/D).
/// With g = lane / 4 (the "group") and t = lane % 4 (the thread in the group), each lane holds:
///
///     A (16 x 16, row-major):  a[0] = A[g    ][2t, 2t+1]     a[1] = A[g + 8][2t, 2t+1]
///                              a[2] = A[g    ][2t+8, 2t+9]   a[3] = A[g + 8][2t+8, 2t+9]
///     B (16 x 8, "col": K down the rows):
///                              b[0] = B[2t, 2t+1][g]         b[1] = B[2t+8, 2t+9][g]
///     C, D (16 x 8, fp32):     c[0], c[1] = C[g][2t], C[g][2t+1]
///                              c[2], c[3] = C[g + 8][2t], C[g + 8][2t+1]
///
/// where "[2t, 2t+1]" means two 16-bit elements packed into one 32-bit register, the lower index in
/// the low half (see pack2()). `ldmatrix_x4` on a 16 x 16 tile of A stored row by row (lanes 0-15
/// pointing at rows 0-15 of columns 0-7, lanes 16-31 at rows 0-15 of columns 8-15) delivers exactly
/// a[0..3]. For B, `ldmatrix_x2_trans` on a 16 x 8 tile stored row by row (K rows of N elements; lanes
/// 0-15 pointing at rows k = 0-15) delivers b[0..1]; so does `ldmatrix_x2` (no .trans) when B is stored
/// transposed, N rows of K elements (lanes 0-7 at rows n = 0-7 of columns k = 0-7, lanes 8-15 at the
/// same rows, columns k = 8-15). `ldmatrix_x4` / `ldmatrix_x4_trans` load two such B tiles (n and n + 8).
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

#if defined(WORKBOOK_EMULATED)
#include "emu/tensor_core.hpp"
// The emulator names your source line in its reports: each wrapper takes it as default arguments.
#define WB_TC_SITE , const char *wb_file = __builtin_FILE(), int wb_line = __builtin_LINE()
#else
#define WB_TC_SITE
#endif

namespace wb {

/// Two 16-bit values in one 32-bit register, @p lo in bits 0-15 (the lower column or row index of
/// a fragment pair), @p hi in bits 16-31: the form mma and ldmatrix use.
__device__ __forceinline__ std::uint32_t pack2(__half lo, __half hi)
{
    return static_cast<std::uint32_t>(__half_as_ushort(lo)) | (static_cast<std::uint32_t>(__half_as_ushort(hi)) << 16);
}
__device__ __forceinline__ std::uint32_t pack2(__nv_bfloat16 lo, __nv_bfloat16 hi)
{
    return static_cast<std::uint32_t>(__bfloat16_as_ushort(lo)) |
           (static_cast<std::uint32_t>(__bfloat16_as_ushort(hi)) << 16);
}

/// Two floats rounded to T (__half or __nv_bfloat16) and packed as pack2() does.
template <typename T>
__device__ __forceinline__ std::uint32_t pack2_from_floats(float lo, float hi)
{
    static_assert(std::is_same_v<T, __half> || std::is_same_v<T, __nv_bfloat16>, "T: __half or __nv_bfloat16");
    if constexpr (std::is_same_v<T, __half>) {
        return pack2(__float2half_rn(lo), __float2half_rn(hi));
    } else {
        return pack2(__float2bfloat16_rn(lo), __float2bfloat16_rn(hi));
    }
}

namespace detail {
/// Stops the kernel on a GPU that has no such instruction (compiled for an older architecture).
/// The chapter's grader skips tensor-core stages there, so this is only reached by other code.
__device__ __forceinline__ void tensor_core_unsupported() { __trap(); }

#if defined(__CUDA_ARCH__) && !defined(WORKBOOK_EMULATED)
/// The shared-memory address (state space .shared) of a generic pointer into shared memory.
__device__ __forceinline__ std::uint32_t shared_address(const void* p)
{
    return static_cast<std::uint32_t>(__cvta_generic_to_shared(p));
}
#endif
}   // namespace detail

// ---- ldmatrix: 8 x 8 matrices of 16-bit elements from shared memory into fragments ------------------
//
// Each of the lanes 0 to 8N - 1 passes the shared-memory address of one 16-byte row (8 elements,
// 16-byte aligned): lanes 8i to 8i + 7 give rows 0 to 7 of matrix i. (The other lanes must call too;
// their address is not used.) Lane l then receives in regs[i] the elements (l / 4, 2 (l % 4)) and
// (l / 4, 2 (l % 4) + 1) of matrix i: one row of 8 is spread over 4 lanes, as mma's fragments want.
// The _trans forms deliver the transposed matrix: elements (2 (l % 4), l / 4) and (2 (l % 4) + 1, l / 4).

/// ldmatrix.sync.aligned.m8n8.x1.shared.b16
__device__ __forceinline__ void ldmatrix_x1(std::uint32_t (&regs)[1], const void* smem_row WB_TC_SITE)
{
#if defined(WORKBOOK_EMULATED)
    emu::tc::ldmatrix<1, false>(regs, smem_row, "wb::ldmatrix_x1", wb_file, wb_line);
#elif defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 750
    asm volatile("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];\n"
                 : "=r"(regs[0])
                 : "r"(detail::shared_address(smem_row)));
#elif defined(__CUDA_ARCH__)
    detail::tensor_core_unsupported();
#endif
}

/// ldmatrix.sync.aligned.m8n8.x2.shared.b16
__device__ __forceinline__ void ldmatrix_x2(std::uint32_t (&regs)[2], const void* smem_row WB_TC_SITE)
{
#if defined(WORKBOOK_EMULATED)
    emu::tc::ldmatrix<2, false>(regs, smem_row, "wb::ldmatrix_x2", wb_file, wb_line);
#elif defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 750
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0, %1}, [%2];\n"
                 : "=r"(regs[0]), "=r"(regs[1])
                 : "r"(detail::shared_address(smem_row)));
#elif defined(__CUDA_ARCH__)
    detail::tensor_core_unsupported();
#endif
}

/// ldmatrix.sync.aligned.m8n8.x4.shared.b16
__device__ __forceinline__ void ldmatrix_x4(std::uint32_t (&regs)[4], const void* smem_row WB_TC_SITE)
{
#if defined(WORKBOOK_EMULATED)
    emu::tc::ldmatrix<4, false>(regs, smem_row, "wb::ldmatrix_x4", wb_file, wb_line);
#elif defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 750
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(regs[0]), "=r"(regs[1]), "=r"(regs[2]), "=r"(regs[3])
                 : "r"(detail::shared_address(smem_row)));
#elif defined(__CUDA_ARCH__)
    detail::tensor_core_unsupported();
#endif
}

/// ldmatrix.sync.aligned.m8n8.x1.trans.shared.b16
__device__ __forceinline__ void ldmatrix_x1_trans(std::uint32_t (&regs)[1], const void* smem_row WB_TC_SITE)
{
#if defined(WORKBOOK_EMULATED)
    emu::tc::ldmatrix<1, true>(regs, smem_row, "wb::ldmatrix_x1_trans", wb_file, wb_line);
#elif defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 750
    asm volatile("ldmatrix.sync.aligned.m8n8.x1.trans.shared.b16 {%0}, [%1];\n"
                 : "=r"(regs[0])
                 : "r"(detail::shared_address(smem_row)));
#elif defined(__CUDA_ARCH__)
    detail::tensor_core_unsupported();
#endif
}

/// ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16
__device__ __forceinline__ void ldmatrix_x2_trans(std::uint32_t (&regs)[2], const void* smem_row WB_TC_SITE)
{
#if defined(WORKBOOK_EMULATED)
    emu::tc::ldmatrix<2, true>(regs, smem_row, "wb::ldmatrix_x2_trans", wb_file, wb_line);
#elif defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 750
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0, %1}, [%2];\n"
                 : "=r"(regs[0]), "=r"(regs[1])
                 : "r"(detail::shared_address(smem_row)));
#elif defined(__CUDA_ARCH__)
    detail::tensor_core_unsupported();
#endif
}

/// ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16
__device__ __forceinline__ void ldmatrix_x4_trans(std::uint32_t (&regs)[4], const void* smem_row WB_TC_SITE)
{
#if defined(WORKBOOK_EMULATED)
    emu::tc::ldmatrix<4, true>(regs, smem_row, "wb::ldmatrix_x4_trans", wb_file, wb_line);
#elif defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 750
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(regs[0]), "=r"(regs[1]), "=r"(regs[2]), "=r"(regs[3])
                 : "r"(detail::shared_address(smem_row)));
#elif defined(__CUDA_ARCH__)
    detail::tensor_core_unsupported();
#endif
}

// ---- mma.sync m16n8k16: D (16 x 8, fp32) = A (16 x 16) B (16 x 8) + C, 16-bit inputs ------------------

/// mma.sync.aligned.m16n8k16.row.col.f32.{f16,bf16}.{f16,bf16}.f32 d, a, b, c. @p T is the input type,
/// __half or __nv_bfloat16 (both A and B). @p d may be the same array as @p c (accumulate in place:
/// `mma_m16n8k16<__half>(acc, a, b, acc)`). The products are exact and accumulated in fp32; the order
/// of the additions inside one mma is not specified by NVIDIA (the emulator uses fused multiply-adds in
/// k order), so compare results with a tolerance.
template <typename T>
__device__ __forceinline__ void mma_m16n8k16(float (&d)[4], const std::uint32_t (&a)[4], const std::uint32_t (&b)[2],
                                             const float (&c)[4] WB_TC_SITE)
{
    static_assert(std::is_same_v<T, __half> || std::is_same_v<T, __nv_bfloat16>,
                  "mma_m16n8k16<T>: T is __half or __nv_bfloat16");
#if defined(WORKBOOK_EMULATED)
    emu::tc::mma_m16n8k16<T>(d, a, b, c,
                             std::is_same_v<T, __half> ? "wb::mma_m16n8k16<__half>" : "wb::mma_m16n8k16<__nv_bfloat16>",
                             wb_file, wb_line);
#elif defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    if constexpr (std::is_same_v<T, __half>) {
        asm volatile(
            "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
            "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%10, %11, %12, %13};\n"
            : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
            : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "f"(c[0]), "f"(c[1]), "f"(c[2]),
              "f"(c[3]));
    } else {
        asm volatile(
            "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 "
            "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%10, %11, %12, %13};\n"
            : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
            : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "f"(c[0]), "f"(c[1]), "f"(c[2]),
              "f"(c[3]));
    }
#elif defined(__CUDA_ARCH__)
    detail::tensor_core_unsupported();
#endif
}

}   // namespace wb

#undef WB_TC_SITE
