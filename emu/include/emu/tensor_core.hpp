/// @file tensor_core.hpp
/// @brief Tensor-core instructions on the CPU: ldmatrix (m8n8, .x1/.x2/.x4, .trans) and
/// mma.sync m16n8k16 with f16 or bf16 inputs and f32 accumulation, with the fragment layouts of the
/// PTX ISA; and the warp exchange they (and <mma.h>'s WMMA) are built on.
///
/// Learner code does not include this file: chapters/common/tensor_core.cuh calls it in the emulated
/// build and issues the PTX instructions on a GPU.
///
/// How a warp-collective instruction runs here: every lane puts what it holds (the row it reads for
/// ldmatrix, its fragments for mma) in a per-warp exchange area, then meets the other 31 lanes in one
/// warp operation (emu::detail::warp_op, a shuffle with the full mask), so a call from a divergent
/// branch, from a warp that has fewer than 32 threads or after a lane has returned is reported like a
/// divergent shuffle, with the source line. After it, each lane computes its own result from the
/// 32 contributions, with the formulas of the ISA (section "Warp-level matrix load instruction:
/// ldmatrix" and "Matrix Fragments for mma.m16n8k16 with floating point type").
///
/// Accesses to the learner's memory (the rows of ldmatrix, the loads and stores of WMMA) are made by
/// the lane that names them, in code compiled with the access checks, so races and reads of unwritten
/// shared memory are reported as for plain loads. The exchange itself is emulator bookkeeping and is
/// left out of the checks.
#pragma once

#include "emu/device_functions.hpp"
#include "emu/shared_memory.hpp"
#include "emu/small_floats.hpp"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

struct __half;
struct __nv_bfloat16;

#define EMU_TC_UNCHECKED __attribute__((no_sanitize("thread"), noinline))

namespace emu::tc {

/// The most bytes one lane hands in to one exchange (two 16x16 half fragments).
inline constexpr int kExchangeBytes = 64;
/// The emulator's shared arena (emu/src/block.cpp): a row address of ldmatrix must lie inside it.
inline constexpr std::size_t kSharedArenaBytes = 2 * 1024 * 1024;

/// The calling CUDA thread's linear index in its block and its lane.
inline int linear_thread()
{
    return static_cast<int>(threadIdx.x + threadIdx.y * blockDim.x + threadIdx.z * blockDim.x * blockDim.y);
}
inline int lane_id() { return linear_thread() % 32; }

/// One warp's exchange area on this worker thread. Two buffers used in turn: a lane reads the
/// contributions of exchange k before it arrives at exchange k+1, and no lane can write exchange k+2
/// before every lane has arrived at k+1, so buffer k % 2 is never overwritten while it is read.
struct WarpExchange {
    std::uint64_t generation = ~std::uint64_t(0);   // the block it belongs to (emu_tls_shared_generation)
    unsigned char turn[32] = {};                    // per lane: the buffer of its next exchange
    alignas(16) unsigned char data[2][32][kExchangeBytes];
};

EMU_TC_UNCHECKED inline WarpExchange& exchange_area(int warp)
{
    static thread_local std::vector<std::unique_ptr<WarpExchange>> areas;   // per worker thread
    if (static_cast<int>(areas.size()) <= warp) areas.resize(static_cast<std::size_t>(warp) + 1);
    std::unique_ptr<WarpExchange>& area = areas[static_cast<std::size_t>(warp)];
    if (!area) area = std::make_unique<WarpExchange>();
    if (area->generation != emu_tls_shared_generation) {   // first use in this block: start afresh
        area->generation = emu_tls_shared_generation;
        std::memset(area->turn, 0, sizeof area->turn);
    }
    return *area;
}

/// The 32 contributions of one exchange, lane by lane.
template <class T>
struct Exchanged {
    const unsigned char* base;
    const T& operator[](int lane) const { return *reinterpret_cast<const T*>(base + lane * kExchangeBytes); }
};

/// Hands in @p mine for the calling lane, waits for the 32 lanes of the warp (full mask, same call)
/// and returns the 32 contributions. Valid until this lane's next exchange.
template <class T>
EMU_TC_UNCHECKED Exchanged<T> warp_exchange(const T& mine, const char* what, const char* file, int line)
{
    static_assert(sizeof(T) <= kExchangeBytes && std::is_trivially_copyable_v<T>, "exchange at most 64 bytes per lane");
    const int linear = linear_thread();
    const int lane = linear % 32;
    WarpExchange& area = exchange_area(linear / 32);
    const int buffer = area.turn[lane];
    area.turn[lane] = static_cast<unsigned char>(buffer ^ 1);
    std::memcpy(area.data[buffer][lane], &mine, sizeof(T));
    // The meeting point: a shuffle of the whole warp, so divergence and missing lanes are reported here.
    emu::detail::warp_op(emu::detail::WarpOp::shfl, 0xffffffffu, 0, 0, 32, what, file, line);
    static_assert(alignof(T) <= 16, "exchange types are at most 16-byte aligned");
    return Exchanged<T>{&area.data[buffer][0][0]};
}

/// A warp operation with no data: the lanes meet, and a call that is divergent or made by a partial
/// warp is reported (WMMA's load and store are "sync" operations of the whole warp).
inline void warp_meet(const char* what, const char* file, int line)
{
    emu::detail::warp_op(emu::detail::WarpOp::shfl, 0xffffffffu, 0, 0, 32, what, file, line);
}

[[noreturn]] inline void misuse(const std::string& message, const char* file, int line)
{
    emu::detail::trap(message.c_str(), file, line);
}

inline std::string hex_address(const void* p)
{
    char text[32];
    std::snprintf(text, sizeof text, "%p", p);
    return text;
}

// ---- ldmatrix ----------------------------------------------------------------------------------------

/// One 16-byte row of an 8x8 matrix of 16-bit elements.
struct Row16 {
    std::uint16_t e[8];
};

/// The checks of one lane's row address: in shared memory and 16-byte aligned, as the ISA requires.
inline void check_row_address(const void* row, int lane, const char* what, const char* file, int line)
{
    const auto* p = static_cast<const unsigned char*>(row);
    const bool shared =
        emu_tls_shared_base != nullptr && p >= emu_tls_shared_base && p < emu_tls_shared_base + kSharedArenaBytes;
    if (!shared) {
        misuse(std::string(what) + " with lane " + std::to_string(lane) + "'s row address " + hex_address(row) +
                   " (not shared memory: ldmatrix reads shared memory only, so stage the tile in a "
                   "__shared__ array first)",
               file, line);
    }
    if (reinterpret_cast<std::uintptr_t>(row) % 16 != 0) {
        misuse(std::string(what) + " with lane " + std::to_string(lane) + "'s row address " + hex_address(row) +
                   " (not 16-byte aligned: each of the lanes 0 to 8 x matrices - 1 passes the start "
                   "of one 16-byte row of 8 elements)",
               file, line);
    }
}

/// Reads the calling lane's row, as the loads of the kernel code (checked for races and unwritten
/// shared memory): one 16-byte load, as the hardware reads a row. The memory counters then serve the
/// warp's rows per quarter-warp, eight rows (one 8 x 8 matrix) at a time, which is how ldmatrix meets
/// the banks: a layout whose eight rows of a matrix fall in eight different 16-byte bank groups is
/// conflict-free (four 4-byte loads would have counted the same layout as 4-way conflicted).
inline Row16 read_row(const void* row)
{
    Row16 r;
    const uint4 v = *static_cast<const uint4*>(row);
    const std::uint32_t words[4] = {v.x, v.y, v.z, v.w};
    for (int w = 0; w < 4; ++w) {
        r.e[2 * w] = static_cast<std::uint16_t>(words[w] & 0xffffu);
        r.e[2 * w + 1] = static_cast<std::uint16_t>(words[w] >> 16);
    }
    return r;
}

/// What lane @p lane receives in register i (matrix i) from the 32 rows of the warp (ISA, ldmatrix):
/// without .trans, row lane / 4 and columns 2 (lane % 4) and 2 (lane % 4) + 1 of matrix i; with
/// .trans, the same of the transposed matrix: column lane / 4 of rows 2 (lane % 4) and 2 (lane % 4) + 1.
template <int kMatrices, bool kTrans>
EMU_TC_UNCHECKED void ldmatrix_distribute(std::uint32_t (&regs)[kMatrices], const Exchanged<Row16>& rows, int lane)
{
    for (int i = 0; i < kMatrices; ++i) {
        std::uint16_t lo, hi;
        if (kTrans) {
            lo = rows[8 * i + 2 * (lane % 4)].e[lane / 4];
            hi = rows[8 * i + 2 * (lane % 4) + 1].e[lane / 4];
        } else {
            const Row16& row = rows[8 * i + lane / 4];
            lo = row.e[2 * (lane % 4)];
            hi = row.e[2 * (lane % 4) + 1];
        }
        regs[i] = static_cast<std::uint32_t>(lo) | (static_cast<std::uint32_t>(hi) << 16);
    }
}

/// ldmatrix.sync.aligned.m8n8.x{kMatrices}[.trans].shared.b16: lanes 0 to 8 kMatrices - 1 each
/// give the address of one row (lanes 8i to 8i+7: rows 0 to 7 of matrix i); the others' addresses
/// are not used, as on the GPU.
template <int kMatrices, bool kTrans>
inline void ldmatrix(std::uint32_t (&regs)[kMatrices], const void* row, const char* what, const char* file, int line)
{
    static_assert(kMatrices == 1 || kMatrices == 2 || kMatrices == 4, "ldmatrix loads 1, 2 or 4 matrices");
    const int lane = lane_id();
    Row16 mine{};
    if (lane < 8 * kMatrices) {
        check_row_address(row, lane, what, file, line);
        mine = read_row(row);
    }
    const Exchanged<Row16> rows = warp_exchange(mine, what, file, line);
    ldmatrix_distribute<kMatrices, kTrans>(regs, rows, lane);
}

// ---- mma.sync.aligned.m16n8k16.row.col.f32.{f16,bf16}.{f16,bf16}.f32 -------------------------------------

/// Where the ISA puts the elements of each fragment ("Matrix Fragments for mma.m16n8k16 with floating
/// point type"), with groupID = lane >> 2 and threadID_in_group = lane % 4:
///   A (16 x 16, row): a_i, i = 0..7 (register i / 2, half i % 2):
///       row = groupID + 8 for i in {2, 3, 6, 7}, else groupID; col = 2 threadID_in_group + (i & 1) + 8 (i >= 4)
///   B (16 x 8, col):  b_i, i = 0..3: row = 2 threadID_in_group + (i & 1) + 8 (i >= 2); col = groupID
///   C, D (16 x 8):    c_i, i = 0..3: row = groupID + 8 (i >= 2); col = 2 threadID_in_group + (i & 1)
struct FragmentPosition {
    int row, col;
};
constexpr FragmentPosition a_position(int lane, int i)
{
    return {lane / 4 + ((i / 2) % 2) * 8, 2 * (lane % 4) + (i & 1) + (i >= 4 ? 8 : 0)};
}
constexpr FragmentPosition b_position(int lane, int i)
{
    return {2 * (lane % 4) + (i & 1) + (i >= 2 ? 8 : 0), lane / 4};
}
constexpr FragmentPosition c_position(int lane, int i)
{
    return {lane / 4 + (i >= 2 ? 8 : 0), 2 * (lane % 4) + (i & 1)};
}

/// The inverse of a_position / b_position: which lane holds element (row, col), and its index there.
struct Holder {
    int lane, index;
};
constexpr Holder a_holder(int row, int col)
{
    return {(row % 8) * 4 + (col % 8) / 2, (row / 8) * 2 + (col / 8) * 4 + (col & 1)};
}
constexpr Holder b_holder(int row, int col) { return {col * 4 + (row % 8) / 2, (row / 8) * 2 + (row & 1)}; }

/// One lane's part of an mma: the A and B registers (C stays with the lane: D has C's layout).
struct MmaOperands {
    std::uint32_t a[4];
    std::uint32_t b[2];
};

/// The value of 16-bit element @p half (0: low, 1: high) of @p reg, of type In.
template <class In>
inline float element(std::uint32_t reg, int half)
{
    const auto bits = static_cast<std::uint16_t>(half ? reg >> 16 : reg & 0xffffu);
    constexpr const emu::detail::Format16& format =
        std::is_same_v<In, __nv_bfloat16> ? emu::detail::kBfloat16 : emu::detail::kHalf;
    return static_cast<float>(emu::detail::from_16(bits, format));   // exact
}

/// D = A B + C for this lane's four elements of D. Each element is an fp32 fused multiply-add chain
/// over k = 0..15 starting from C: the products of two 16-bit values are exact in fp32, and the ISA
/// does not specify the order in which the hardware adds them, so results may differ from a GPU's in
/// the last bits of fp32, far inside any tolerance that allows for the 16-bit inputs.
template <class In>
EMU_TC_UNCHECKED void mma_compute(float (&d)[4], const Exchanged<MmaOperands>& all, const float (&c)[4], int lane)
{
    float result[4];
    for (int i = 0; i < 4; ++i) {
        const FragmentPosition at = c_position(lane, i);
        float acc = c[i];
        for (int k = 0; k < 16; ++k) {
            const Holder ha = a_holder(at.row, k);
            const Holder hb = b_holder(k, at.col);
            const float a = element<In>(all[ha.lane].a[ha.index / 2], ha.index % 2);
            const float b = element<In>(all[hb.lane].b[hb.index / 2], hb.index % 2);
            acc = std::fmaf(a, b, acc);
        }
        result[i] = acc;
    }
    for (int i = 0; i < 4; ++i) d[i] = result[i];   // d may be c
}

template <class In>
inline void mma_m16n8k16(float (&d)[4], const std::uint32_t (&a)[4], const std::uint32_t (&b)[2], const float (&c)[4],
                         const char* what, const char* file, int line)
{
    static_assert(std::is_same_v<In, __half> || std::is_same_v<In, __nv_bfloat16>,
                  "mma_m16n8k16 takes __half or __nv_bfloat16 inputs");
    MmaOperands mine;
    for (int i = 0; i < 4; ++i) mine.a[i] = a[i];
    for (int i = 0; i < 2; ++i) mine.b[i] = b[i];
    const float c_copy[4] = {c[0], c[1], c[2], c[3]};
    const Exchanged<MmaOperands> all = warp_exchange(mine, what, file, line);
    mma_compute<In>(d, all, c_copy, lane_id());
}

}   // namespace emu::tc
