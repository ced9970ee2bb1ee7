/// @file hopper.cuh
/// @brief Hopper's (compute capability 9.0) matrix machinery as C++ functions: TMA tile copies, mbarriers
/// and `wgmma`.
///
/// Chapter 8 uses these from stage 6 on. Each device function is one or two PTX instructions of the
/// sm_90a target (`wgmma` and `setmaxnreg` exist on compute capability 9.0 alone; the build adds the "a"
/// when it targets a 9.0 GPU). Built for any other target, or on the CPU emulator, they compile to a trap:
/// the stages that use them declare "min_cc": "9.0a" in stages.json and are skipped, with the reason,
/// everywhere else.
///
/// The three pieces, and how they fit together:
/// - **TMA** (the Tensor Memory Accelerator): one thread asks the copy engine for a whole 2-D box of a
///   matrix (tma_load_2d), described once on the host by a *tensor map* (make_tensor_map_2d: base
///   address, sizes, row stride, box size, swizzle). Rows and columns outside the matrix arrive as zeros,
///   so tile edges need no code. The engine writes shared memory in the 128-byte swizzled layout that
///   chapter 8's stage 5 built by hand (16-byte chunk c of row r stored at chunk c ^ (r % 8)). It also
///   stores boxes back (tma_store_2d, skipping what lies outside the matrix), in groups whose progress
///   bulk_wait_read and bulk_wait_all track.
/// - **mbarrier**: a barrier object in shared memory that counts arrivals and bytes. A copy announces
///   its bytes (mbarrier_arrive_expect_tx) and the copy engine counts them down as they land; threads
///   wait for the barrier's *phase* to flip (mbarrier_wait with the parity they expect: 0, then 1, then
///   0 ... each time the buffer is refilled).
/// - **wgmma**: a *warpgroup* (4 consecutive warps, the first a multiple of 4) multiplies a 64 x N x 16
///   piece, A and B read straight from shared memory through 64-bit descriptors (smem_descriptor), the
///   fp32 accumulators in registers. It is asynchronous: wgmma_fence before, wgmma_commit after a batch,
///   wgmma_wait<n> until at most n batches are still running.
///
/// Accumulator layout of wgmma m64nNk16 (fp32): warp w of the warpgroup owns rows 16 w .. 16 w + 15;
/// with g = lane / 4 and t = lane % 4, register 4 j + e holds
///     row 16 w + g + 8 (e / 2), column 8 j + 2 t + e % 2          (j = 0 .. N / 8 - 1, e = 0 .. 3),
/// the mma.sync m16n8 layout of chapters/common/tensor_core.cuh repeated along N.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>

#if defined(WORKBOOK_EMULATED)
/// The emulator has no TMA: a tensor map is an opaque block of the same size (never filled in).
struct alignas(64) CUtensorMap {
    unsigned long long opaque[16];
};
#else
#include <cuda.h>   // CUtensorMap and its enums (the driver function itself is fetched at run time)
#endif

// WB_SM90A: this compilation pass targets sm_90a, where wgmma, setmaxnreg and TMA exist.
#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define WB_SM90A 1
#else
#define WB_SM90A 0
#endif

namespace wb::hopper {

// ---- host: tensor maps ----------------------------------------------------------------------------

/// The element of a tensor map: the two 16-bit types of chapter 8.
enum class Element16 { f16, bf16 };

namespace detail {
/// Every element type a tensor map of this file describes: the two 16-bit inputs and fp32 (C).
enum class MapElement { f16, bf16, f32 };

inline MapElement map_element(Element16 element)
{
    return element == Element16::f16 ? MapElement::f16 : MapElement::bf16;
}

/// cuTensorMapEncodeTiled for @p planes matrices of @p rows x @p cols, as a map of rank @p rank (2: one matrix,
/// addressed by row and column; 3: plane, row and column). The rank must match the load instruction.
/// Boxes of @p box_rows rows x 128 bytes (64 16-bit elements or 32 floats), one 128-byte swizzled row each.
inline CUtensorMap encode_tensor_map(const void* base, MapElement element, unsigned rank, std::int64_t planes,
                                     std::int64_t rows, std::int64_t cols, int box_rows)
{
#if defined(WORKBOOK_EMULATED)
    (void)base, (void)element, (void)rank, (void)planes, (void)rows, (void)cols, (void)box_rows;
    throw std::logic_error("TMA tensor maps are not emulated: this stage runs on a GPU of compute capability 9.0 only");
#else
    // cuTensorMapEncodeTiled is a driver function; the runtime hands out its address, so the workbook
    // needs no link against the driver library.
    using Encode = CUresult (*)(CUtensorMap*, CUtensorMapDataType, cuuint32_t, void*, const cuuint64_t*,
                                const cuuint64_t*, const cuuint32_t*, const cuuint32_t*, CUtensorMapInterleave,
                                CUtensorMapSwizzle, CUtensorMapL2promotion, CUtensorMapFloatOOBfill);
    static const Encode encode = [] {
        void* fn = nullptr;
        cudaDriverEntryPointQueryResult found{};
        const cudaError_t err =
            cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000, cudaEnableDefault, &found);
        if (err != cudaSuccess || found != cudaDriverEntryPointSuccess || fn == nullptr)
            throw std::runtime_error(
                "the CUDA driver does not provide cuTensorMapEncodeTiled: update the NVIDIA "
                "driver to one for CUDA 12 or newer");
        return reinterpret_cast<Encode>(fn);
    }();
    CUtensorMap map{};
    const cuuint64_t sizes[3] = {static_cast<cuuint64_t>(cols), static_cast<cuuint64_t>(rows),
                                 static_cast<cuuint64_t>(planes)};   // innermost first
    const int element_bytes = element == MapElement::f32 ? 4 : 2;
    const auto bytes = static_cast<cuuint64_t>(element_bytes);
    const cuuint64_t strides_bytes[2] = {static_cast<cuuint64_t>(cols) * bytes,
                                         static_cast<cuuint64_t>(rows * cols) * bytes};
    const cuuint32_t box[3] = {static_cast<cuuint32_t>(128 / element_bytes), static_cast<cuuint32_t>(box_rows), 1};
    const cuuint32_t unit_steps[3] = {1, 1, 1};
    const CUtensorMapDataType type = element == MapElement::f32   ? CU_TENSOR_MAP_DATA_TYPE_FLOAT32
                                     : element == MapElement::f16 ? CU_TENSOR_MAP_DATA_TYPE_FLOAT16
                                                                  : CU_TENSOR_MAP_DATA_TYPE_BFLOAT16;
    const CUresult result = encode(&map, type, rank, const_cast<void*>(base), sizes, strides_bytes, box, unit_steps,
                                   CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                                   CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    if (result != CUDA_SUCCESS)
        throw std::runtime_error("cuTensorMapEncodeTiled refused a " + std::to_string(rows) + " x " +
                                 std::to_string(cols) + " matrix (error " + std::to_string(result) +
                                 "): the base must be 16-byte aligned and a row a multiple of 16 bytes");
    return map;
#endif
}
}   // namespace detail

/// A tensor map for a row-major matrix of @p rows x @p cols 16-bit elements (row stride @p cols), read in
/// boxes of @p box_rows x 64 columns (64 elements = 128 bytes, the width of the 128-byte swizzle), stored
/// in shared memory with that swizzle. Outside the matrix the box is filled with zeros. Needs @p cols % 8
/// == 0 and a 16-byte-aligned @p base (TMA's rules for the row stride and the address).
inline CUtensorMap make_tensor_map_2d(const void* base, Element16 element, std::int64_t rows, std::int64_t cols,
                                      int box_rows)
{
    return detail::encode_tensor_map(base, detail::map_element(element), 2, 1, rows, cols, box_rows);
}

/// The same for a stack of @p planes such matrices (e.g. [batch * heads][rows][cols]): boxes of @p box_rows x
/// 64 inside one plane, zeros past the plane's last row, so a tile never reads its neighbour's rows.
inline CUtensorMap make_tensor_map_3d(const void* base, Element16 element, std::int64_t planes, std::int64_t rows,
                                      std::int64_t cols, int box_rows)
{
    return detail::encode_tensor_map(base, detail::map_element(element), 3, planes, rows, cols, box_rows);
}

/// A tensor map for a row-major fp32 matrix of @p rows x @p cols (row stride @p cols), written (or read) in
/// boxes of @p box_rows x 32 columns (32 floats = 128 bytes, the width of the 128-byte swizzle), swizzled in
/// shared memory like the 16-bit maps. A TMA store skips the box's rows and columns outside the matrix.
/// Needs @p cols % 4 == 0 and a 16-byte-aligned @p base.
inline CUtensorMap make_tensor_map_2d_f32(const float* base, std::int64_t rows, std::int64_t cols, int box_rows)
{
    return detail::encode_tensor_map(base, detail::MapElement::f32, 2, 1, rows, cols, box_rows);
}

// ---- device ---------------------------------------------------------------------------------------

/// The shared-memory address (as the PTX state space sees it) of a pointer into shared memory.
__device__ __forceinline__ std::uint32_t smem_address(const void* p)
{
    return static_cast<std::uint32_t>(__cvta_generic_to_shared(p));
}

/// Prepares the mbarrier at @p bar to expect @p arrivals arrivals per phase (one thread does this, then
/// fence_barrier_init and a __syncthreads before anyone uses it).
__device__ __forceinline__ void mbarrier_init(std::uint64_t* bar, unsigned arrivals)
{
#if WB_SM90A
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(smem_address(bar)), "r"(arrivals) : "memory");
#else
    (void)bar, (void)arrivals;
    __trap();
#endif
}

/// Makes the initialised mbarriers visible to the copy engine (the "async proxy").
__device__ __forceinline__ void fence_barrier_init()
{
#if WB_SM90A
    asm volatile("fence.mbarrier_init.release.cluster;\n\tfence.proxy.async.shared::cta;" ::: "memory");
#else
    __trap();
#endif
}

/// One arrival on @p bar that also announces @p bytes still to come from the copy engine: the phase
/// completes when all arrivals are in and all the bytes have landed.
__device__ __forceinline__ void mbarrier_arrive_expect_tx(std::uint64_t* bar, unsigned bytes)
{
#if WB_SM90A
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem_address(bar)), "r"(bytes)
                 : "memory");
#else
    (void)bar, (void)bytes;
    __trap();
#endif
}

/// One plain arrival on @p bar (e.g. "this buffer has been read, refill it").
__device__ __forceinline__ void mbarrier_arrive(std::uint64_t* bar)
{
#if WB_SM90A
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(smem_address(bar)) : "memory");
#else
    (void)bar;
    __trap();
#endif
}

/// Waits until the phase of @p bar with parity @p parity (0 or 1) has completed.
__device__ __forceinline__ void mbarrier_wait(std::uint64_t* bar, unsigned parity)
{
#if WB_SM90A
    std::uint32_t done = 0;
    do {
        asm volatile(
            "{\n\t.reg .pred p;\n\t"
            "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n\t"
            "selp.u32 %0, 1, 0, p;\n\t}"
            : "=r"(done)
            : "r"(smem_address(bar)), "r"(parity)
            : "memory");
    } while (!done);
#else
    (void)bar, (void)parity;
    __trap();
#endif
}

/// Asks the copy engine for the box of @p map whose first element is (row @p row, column @p col) into
/// @p dst (1024-byte aligned for the 128-byte swizzle); its bytes count down @p bar. One thread calls it.
__device__ __forceinline__ void tma_load_2d(void* dst, const CUtensorMap* map, std::uint64_t* bar, int row, int col)
{
#if WB_SM90A
    // The tensor map's coordinates run innermost first: {column, row}.
    const std::uint64_t map_address = reinterpret_cast<std::uint64_t>(map);
    asm volatile(
        "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
        " [%0], [%1, {%2, %3}], [%4];"
        :
        : "r"(smem_address(dst)), "l"(map_address), "r"(col), "r"(row), "r"(smem_address(bar))
        : "memory");
#else
    (void)dst, (void)map, (void)bar, (void)row, (void)col;
    __trap();
#endif
}

/// The same for a 3-D tensor map: the box at (plane @p plane, row @p row, column @p col).
__device__ __forceinline__ void tma_load_3d(void* dst, const CUtensorMap* map, std::uint64_t* bar, int plane, int row,
                                            int col)
{
#if WB_SM90A
    const std::uint64_t map_address = reinterpret_cast<std::uint64_t>(map);
    asm volatile(
        "cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
        " [%0], [%1, {%2, %3, %4}], [%5];"
        :
        : "r"(smem_address(dst)), "l"(map_address), "r"(col), "r"(row), "r"(plane), "r"(smem_address(bar))
        : "memory");
#else
    (void)dst, (void)map, (void)bar, (void)plane, (void)row, (void)col;
    __trap();
#endif
}

/// Stores the box at @p src in shared memory (laid out as the tensor map's swizzle says) to the matrix of
/// @p map at (@p row, @p col), asynchronously: the copy engine reads shared memory after this returns. Rows and
/// columns outside the matrix are not written. The stores issued since the last bulk_commit form one group.
__device__ __forceinline__ void tma_store_2d(const CUtensorMap* map, const void* src, int row, int col)
{
#if WB_SM90A
    const std::uint64_t map_address = reinterpret_cast<std::uint64_t>(map);
    asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%1, %2}], [%3];" ::"l"(map_address),
                 "r"(col), "r"(row), "r"(smem_address(src))
                 : "memory");
#else
    (void)map, (void)src, (void)row, (void)col;
    __trap();
#endif
}

/// Closes the group of this thread's TMA stores issued since the last commit.
__device__ __forceinline__ void bulk_commit()
{
#if WB_SM90A
    asm volatile("cp.async.bulk.commit_group;" ::: "memory");
#else
    __trap();
#endif
}

/// Waits until at most @p kPending of this thread's store groups still have to *read* their shared memory:
/// the buffers of the others may be written again (their global writes may still be on the way).
template <int kPending>
__device__ __forceinline__ void bulk_wait_read()
{
#if WB_SM90A
    asm volatile("cp.async.bulk.wait_group.read %0;" ::"n"(kPending) : "memory");
#else
    __trap();
#endif
}

/// Waits until all of this thread's store groups are complete (their writes to global memory done).
__device__ __forceinline__ void bulk_wait_all()
{
#if WB_SM90A
    asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
#else
    __trap();
#endif
}

/// Makes this thread's ordinary writes to shared memory visible to the copy engine (the async proxy):
/// between writing a box and the barrier after which one thread hands it to tma_store_2d.
__device__ __forceinline__ void fence_async_shared()
{
#if WB_SM90A
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
#else
    __trap();
#endif
}

/// The 64-bit wgmma descriptor of a K-major operand tile in shared memory stored as TMA's 128-byte
/// swizzle writes it: rows of 64 elements (128 bytes), groups of 8 rows 1024 bytes apart. @p tile is
/// where the instruction's first row and first K element live: a 1024-byte aligned tile start, plus
/// 32 bytes per 16 elements of K (the hardware applies the swizzle to the address it computes).
__device__ __forceinline__ std::uint64_t smem_descriptor(const void* tile)
{
    const std::uint64_t address = smem_address(tile);
    std::uint64_t desc = (address & 0x3FFFF) >> 4;   // bits 0-13: start address / 16
    desc |= std::uint64_t{1} << 16;                  // bits 16-29: leading byte offset / 16 (unused by this layout)
    desc |= std::uint64_t{1024 >> 4} << 32;          // bits 32-45: stride byte offset / 16: 8 rows of 128 bytes
    desc |= std::uint64_t{1} << 62;                  // bits 62-63: 1 = 128-byte swizzle
    return desc;
}

/// The descriptor of an N-major operand (kTransB: B stored as K rows of N contiguous elements, like V in
/// P V) in the same TMA layout: boxes of 64 columns (128 bytes, swizzled) by R rows of K, the boxes
/// @p box_bytes apart along N. Per 16 of K, move @p tile 16 rows (2048 bytes) further.
__device__ __forceinline__ std::uint64_t smem_descriptor_n_major(const void* tile, unsigned box_bytes)
{
    const std::uint64_t address = smem_address(tile);
    std::uint64_t desc = (address & 0x3FFFF) >> 4;            // start address / 16
    desc |= std::uint64_t{(box_bytes >> 4) & 0x3FFF} << 16;   // leading byte offset: the next 64 columns of N
    desc |= std::uint64_t{1024 >> 4} << 32;                   // stride byte offset: the next 8 rows of K
    desc |= std::uint64_t{1} << 62;                           // 128-byte swizzle
    return desc;
}

/// Named barriers (ids 1-15; __syncthreads is barrier 0) among @p threads threads: sync waits until that
/// many have arrived or synced, arrive counts this thread without waiting. Two consumer warpgroups take
/// turns with them (one syncs on its id, the other arrives on it).
__device__ __forceinline__ void named_barrier_sync(unsigned id, unsigned threads)
{
#if WB_SM90A
    asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(threads) : "memory");
#else
    (void)id, (void)threads;
    __trap();
#endif
}
__device__ __forceinline__ void named_barrier_arrive(unsigned id, unsigned threads)
{
#if WB_SM90A
    asm volatile("bar.arrive %0, %1;" ::"r"(id), "r"(threads) : "memory");
#else
    (void)id, (void)threads;
    __trap();
#endif
}

/// Orders this warpgroup's register writes before the wgmma that read or accumulate into them.
__device__ __forceinline__ void wgmma_fence()
{
#if WB_SM90A
    asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
#else
    __trap();
#endif
}

/// Closes the batch of wgmma issued since the last commit.
__device__ __forceinline__ void wgmma_commit()
{
#if WB_SM90A
    asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
#else
    __trap();
#endif
}

/// Waits until at most @p kPending committed wgmma batches of this warpgroup are still running.
template <int kPending>
__device__ __forceinline__ void wgmma_wait()
{
#if WB_SM90A
    asm volatile("wgmma.wait_group.sync.aligned %0;" ::"n"(kPending) : "memory");
#else
    __trap();
#endif
}

/// Gives this warpgroup's registers back (a producer that only issues copies), or takes more (the
/// consumers holding accumulators). The kernel needs __launch_bounds__(threads, 1); every warp of the
/// warpgroup executes the same call.
template <int kRegisters>
__device__ __forceinline__ void release_registers()
{
#if WB_SM90A
    asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;" ::"n"(kRegisters));
#else
    __trap();
#endif
}
template <int kRegisters>
__device__ __forceinline__ void claim_registers()
{
#if WB_SM90A
    asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;" ::"n"(kRegisters));
#else
    __trap();
#endif
}

// ---- wgmma shapes -----------------------------------------------------------------------------------
// Each wrapper is one wgmma.mma_async, warpgroup-collective, accumulating into d (the predicate p = true;
// false would overwrite d). "ss": A and B from shared memory through descriptors, both K-major. "rs": A
// from registers (a[0..3]: this warp's 16 rows x 16 K in the mma.sync A-fragment layout of
// common/tensor_core.cuh), B through a descriptor, K-major (kTransB = false) or N-major (true: B stored
// as K rows of N elements, e.g. V in P V). The last immediates: scale A and B by 1, then the transposes.
// The asm operand lists below name every accumulator register: "+f"(d[0]) ... "+f"(d[N / 2 - 1]).
#define WB_ACC8(i)                                                                                              \
    "+f"(d[i]), "+f"(d[i + 1]), "+f"(d[i + 2]), "+f"(d[i + 3]), "+f"(d[i + 4]), "+f"(d[i + 5]), "+f"(d[i + 6]), \
        "+f"(d[i + 7])
#define WB_ACC32 WB_ACC8(0), WB_ACC8(8), WB_ACC8(16), WB_ACC8(24)
#define WB_ACC64 WB_ACC8(0), WB_ACC8(8), WB_ACC8(16), WB_ACC8(24), WB_ACC8(32), WB_ACC8(40), WB_ACC8(48), WB_ACC8(56)
#define WB_ACC128                                                                                                      \
    WB_ACC8(0), WB_ACC8(8), WB_ACC8(16), WB_ACC8(24), WB_ACC8(32), WB_ACC8(40), WB_ACC8(48), WB_ACC8(56), WB_ACC8(64), \
        WB_ACC8(72), WB_ACC8(80), WB_ACC8(88), WB_ACC8(96), WB_ACC8(104), WB_ACC8(112), WB_ACC8(120)
#define WB_REGS32                                                                                                \
    "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, " \
    "%23, %24, %25, %26, %27, %28, %29, %30, %31}"
#define WB_REGS64                                                                                                \
    "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, " \
    "%23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, "  \
    "%44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}"
#define WB_REGS128                                                                                                 \
    "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, "   \
    "%23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, "    \
    "%44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, %64, "    \
    "%65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, %80, %81, %82, %83, %84, %85, "    \
    "%86, %87, %88, %89, %90, %91, %92, %93, %94, %95, %96, %97, %98, %99, %100, %101, %102, %103, %104, %105, "   \
    "%106, %107, %108, %109, %110, %111, %112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, " \
    "%124, %125, %126, %127}"
#define WB_WGMMA_PRED "{\n\t.reg .pred p;\n\tsetp.ne.b32 p, 1, 0;\n\t"

/// d = A B (+ d when @p accumulate) for a 64 x 256 x 16 piece, A (64 x 16) and B (256 rows of 16 K elements)
/// K-major in shared memory. accumulate = false starts a new sum without zeroing d first.
template <typename T>
__device__ __forceinline__ void wgmma_m64n256k16(float (&d)[128], std::uint64_t a_desc, std::uint64_t b_desc,
                                                 bool accumulate = true)
{
#if WB_SM90A
    if constexpr (std::is_same_v<T, __half>) {
        asm volatile(
            "{\n\t.reg .pred p;\n\tsetp.ne.b32 p, %130, 0;\n\t"
            "wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16 " WB_REGS128 ", %128, %129, p, 1, 1, 0, 0;\n\t}"
            : WB_ACC128
            : "l"(a_desc), "l"(b_desc), "r"(static_cast<int>(accumulate)));
    } else {
        asm volatile(
            "{\n\t.reg .pred p;\n\tsetp.ne.b32 p, %130, 0;\n\t"
            "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16 " WB_REGS128 ", %128, %129, p, 1, 1, 0, 0;\n\t}"
            : WB_ACC128
            : "l"(a_desc), "l"(b_desc), "r"(static_cast<int>(accumulate)));
    }
#else
    (void)d, (void)a_desc, (void)b_desc, (void)accumulate;
    __trap();
#endif
}

/// d = A B (+ d when @p accumulate) for a 64 x 128 x 16 piece, A (64 x 16) and B (128 rows of 16 K elements)
/// K-major in shared memory. accumulate = false starts a new sum without zeroing d first.
template <typename T>
__device__ __forceinline__ void wgmma_m64n128k16(float (&d)[64], std::uint64_t a_desc, std::uint64_t b_desc,
                                                 bool accumulate = true)
{
#if WB_SM90A
    if constexpr (std::is_same_v<T, __half>) {
        asm volatile(
            "{\n\t.reg .pred p;\n\tsetp.ne.b32 p, %66, 0;\n\t"
            "wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 " WB_REGS64 ", %64, %65, p, 1, 1, 0, 0;\n\t}"
            : WB_ACC64
            : "l"(a_desc), "l"(b_desc), "r"(static_cast<int>(accumulate)));
    } else {
        asm volatile(
            "{\n\t.reg .pred p;\n\tsetp.ne.b32 p, %66, 0;\n\t"
            "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 " WB_REGS64 ", %64, %65, p, 1, 1, 0, 0;\n\t}"
            : WB_ACC64
            : "l"(a_desc), "l"(b_desc), "r"(static_cast<int>(accumulate)));
    }
#else
    (void)d, (void)a_desc, (void)b_desc, (void)accumulate;
    __trap();
#endif
}

/// d += A B for a 64 x 128 x 16 piece, A from registers, B (128 x 16) in shared memory (N-major when kTransB).
template <typename T, bool kTransB>
__device__ __forceinline__ void wgmma_m64n128k16_rs(float (&d)[64], const std::uint32_t (&a)[4], std::uint64_t b_desc)
{
#if WB_SM90A
    if constexpr (std::is_same_v<T, __half>) {
        asm volatile(WB_WGMMA_PRED "wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 " WB_REGS64
                                   ", {%64, %65, %66, %67}, %68, p, 1, 1, %69;\n\t}"
                     : WB_ACC64
                     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b_desc), "n"(kTransB ? 1 : 0));
    } else {
        asm volatile(WB_WGMMA_PRED "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 " WB_REGS64
                                   ", {%64, %65, %66, %67}, %68, p, 1, 1, %69;\n\t}"
                     : WB_ACC64
                     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b_desc), "n"(kTransB ? 1 : 0));
    }
#else
    (void)d, (void)a, (void)b_desc;
    __trap();
#endif
}

/// d += A B for a 64 x 64 x 16 piece, A from registers, B (64 x 16) in shared memory (N-major when kTransB).
template <typename T, bool kTransB>
__device__ __forceinline__ void wgmma_m64n64k16_rs(float (&d)[32], const std::uint32_t (&a)[4], std::uint64_t b_desc)
{
#if WB_SM90A
    if constexpr (std::is_same_v<T, __half>) {
        asm volatile(WB_WGMMA_PRED "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 " WB_REGS32
                                   ", {%32, %33, %34, %35}, %36, p, 1, 1, %37;\n\t}"
                     : WB_ACC32
                     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b_desc), "n"(kTransB ? 1 : 0));
    } else {
        asm volatile(WB_WGMMA_PRED "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 " WB_REGS32
                                   ", {%32, %33, %34, %35}, %36, p, 1, 1, %37;\n\t}"
                     : WB_ACC32
                     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b_desc), "n"(kTransB ? 1 : 0));
    }
#else
    (void)d, (void)a, (void)b_desc;
    __trap();
#endif
}

#undef WB_ACC8
#undef WB_ACC32
#undef WB_ACC64
#undef WB_ACC128
#undef WB_REGS32
#undef WB_REGS64
#undef WB_REGS128
#undef WB_WGMMA_PRED

}   // namespace wb::hopper
