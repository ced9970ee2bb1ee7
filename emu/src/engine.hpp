// Internal interfaces of the CPU backend, shared by the block scheduler (block.cpp) and the
// runtime API (runtime.cpp). Nothing here is seen by kernels or graders.
#pragma once

#include "cuda_runtime.h"

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

namespace emu::detail {

/// The order in which a block's threads run between barriers.
enum class Schedule { forward, reverse, random };
const char* schedule_name(Schedule schedule);

/// One kernel launch, as the worker thread runs it.
struct LaunchState {
    KernelSite site{};
    dim3 grid;
    dim3 block;
    std::size_t dynamic_shared = 0;
    std::unique_ptr<KernelBody> body;
    std::uint64_t index = 0;   ///< launches so far in this process: picks the schedules
    mutable std::atomic<std::size_t> static_shared_seen{
        0};   ///< largest static __shared__ bytes of a block (for the ledger)
};

/// Why a launch failed: a report for the learner, and whether a GPU would have hung.
struct KernelFailure {
    std::string report;
    bool deadlock = false;
};

/// Runs every block of @p launch on the calling thread (the device's worker).
std::optional<KernelFailure> run_grid(const LaunchState& launch);

/// For tests: run every block in @p schedule from now on (-1: back to the rotation, or to
/// WORKBOOK_EMU_SCHEDULE). 0 forward, 1 reverse, 2 random.
void set_schedule_override(int schedule);

/// For tests: which blocks the shared-memory checker watches from now on (-1: WORKBOOK_EMU_CHECK again).
/// 0 none, 1 the first two and the last of each launch, 2 all.
void set_check_override(int mode);

/// Largest dynamic shared memory any kernel was allowed (cudaFuncSetAttribute), for launch checks.
std::size_t max_dynamic_shared_allowed();

/// What memory nobody wrote holds on the CPU backend. Never the grader's output poison (harness/buffers.hpp):
/// a value computed from it must not look like an output that was never written. As a float 0x7F
/// bytes read 3.4e38 and 0xFE bytes -1.7e38 (both NaN as a half); shared memory alternates the two
/// from block to block, so a stale read shows in a sum, a maximum and a minimum alike.
inline constexpr unsigned char kUndefinedByte = 0x7F;
inline constexpr unsigned char kUndefinedByteAlternate = 0xFE;

/// Limits of the emulated device (reported by cudaGetDeviceProperties, enforced by launches).
inline constexpr std::size_t kSharedPerBlock = 48 * 1024;
inline constexpr std::size_t kSharedPerBlockOptin = 232448;   // 227 KiB
inline constexpr std::size_t kSharedPerSm = 233472;
inline constexpr int kMaxThreadsPerSm = 2048;
inline constexpr int kMaxBlocksPerSm = 32;
/// As many SMs as an H100 or H200: a grid sized to the GPU (resident blocks times SMs) has the size it
/// has on such a GPU, so that a loop over one partial result per block takes more than one turn here
/// too (with 16 SMs, a last block of 256 threads gathering the partials of at most 128 blocks never
/// did). WORKBOOK_EMU_SMS sets another count (read once, by cudaGetDeviceProperties).
inline constexpr int kSmCount = 132;

/// The ledger (emu/ledger.hpp): the runtime reports what a launcher does while a window is open.
void ledger_note_kernel(const std::shared_ptr<const LaunchState>& launch, cudaStream_t stream);
void ledger_note_operation(const char* what, cudaStream_t stream);
void ledger_note_allocation(const void* address, std::size_t bytes);
void ledger_note_release(const void* address);

/// A source position for messages: "exercises/02_reduce/3_x.cu:41" (paths shortened to the repository).
std::string where(const char* file, int line);
/// "(x,y,z)", as reports name blocks and threads.
std::string triple(uint3 v);

/// Gives the calling thread an alternate signal stack, so that the crash handler can report a fault
/// on a fiber's stack (a stack overflow included); installs the handler once.
void prepare_worker_thread();

/// Called by the crash handler: a description of the CUDA thread running on this worker, if any.
bool describe_running_thread(char* buffer, std::size_t size, const void* fault_address);
/// Called by the crash handler: when a CUDA thread runs on this worker, ends its block with a report of
/// the crash and does not return; otherwise returns.
void escape_crash(int signal_number, const void* fault_address);

/// The checks compiled into kernel code (emu/src/checks.cpp) report here. An access of @p bytes at
/// @p address in the checked block's shared arena, from the code at @p pc.
void check_shared_access(std::uintptr_t address, std::size_t bytes, bool write, const void* pc);
/// Ends the running CUDA thread's block with "<thread> <report>" (no return when a kernel runs).
void fail_running_thread(const std::string& report);
/// A read of @p bytes at @p address whose bytes look like a guard's: reported when it is past the end
/// of a device allocation (see emu::declare_buffer_extent).
void check_guard_read(const void* address, std::size_t bytes, const void* pc);
/// The source of an asynchronous copy (cp.async), whose bytes the emulator copies itself and no
/// instrumented load sees: stops the running thread when [@p address, + @p bytes) reaches past the end of
/// a device allocation. @p site names the copy (" (cp.async at file:line)").
void check_copy_source(const void* address, std::size_t bytes, const std::string& site);
/// True when @p bytes bytes at @p p are one byte repeated that a guard or fence is filled with (the
/// emulator's kUndefinedByte, or the harness's guard bytes 0xA0 to 0xDF): only then can a read be past
/// the end of an allocation.
inline bool looks_like_guard(const void* p, std::size_t bytes)
{
    const auto* b = static_cast<const unsigned char*>(p);
    const unsigned char first = b[0];
    if (first != kUndefinedByte && (first < 0xA0 || first > 0xDF)) return false;
    for (std::size_t i = 1; i < bytes; ++i) {
        if (b[i] != first) return false;
    }
    return true;
}
/// "file:line" of a code address of this program, or "" (see block.cpp).
std::string source_line(const void* pc);
/// Blocks started by every launch so far (emu::blocks_started).
std::uint64_t blocks_started();
/// Stops the running kernel thread: a @p bytes access at @p address that is not a multiple of @p bytes.
void report_misaligned(const void* address, std::size_t bytes, bool write, const void* pc);

/// The bytes of a block's shared-memory arena (addresses in [base, base + this) are shared memory).
inline constexpr std::size_t kSharedArenaBytes = 2 * 1024 * 1024;
/// The bytes of a CUDA thread's stack (a fiber's, block.cpp) and a window twice that size above a frame
/// of the running thread: an address in it is one of the thread's own variables.
inline constexpr std::size_t kThreadStackBytes = 128 * 1024;
inline constexpr std::size_t kOwnStackWindow = 2 * kThreadStackBytes;
/// When @p address lies in a device allocation (cudaMalloc, cudaMallocManaged): true, with its bounds.
bool device_allocation_bounds(std::uintptr_t address, std::uintptr_t& lo, std::uintptr_t& hi);

/// The fence checker (fences.cpp): a value one block stores and another reads, announced by an atomic
/// with no __threadfence() between the store and the atomic. run_grid calls fences_launch_begin and
/// fences_launch_end around a launch, a block calls fences_block_begin and fences_block_end; checks.cpp
/// reports stores (while emu_tls_note_stores), atomics and reads (while emu_fence_unsafe_any);
/// __threadfence() and its variants report fences (fences_note_fence, declared for device code).
void fences_launch_begin(const KernelSite& site);
void fences_launch_end();
void fences_block_begin();
void fences_block_end();
void fences_note_store(const void* address, std::size_t bytes, const void* pc);
void fences_note_atomic(const void* address, const void* pc);
void fences_check_read(const void* address, std::size_t bytes, const void* pc);

/// When @p address is in device memory (a device allocation, or the program's static storage, where
/// `__device__` variables live): true, with the bounds of that range (fences.cpp).
bool device_memory(std::uintptr_t address, std::uintptr_t& lo, std::uintptr_t& hi);
/// source_line(pc), or "an unknown line" (fences.cpp).
std::string line_of(const void* pc);
}   // namespace emu::detail

extern __thread unsigned char* emu_tls_shared_base;   // block.cpp: the running block's shared memory

namespace emu::detail {
/// @p address lies in the running block's shared memory.
inline bool in_shared_arena(std::uintptr_t address)
{
    return address - reinterpret_cast<std::uintptr_t>(emu_tls_shared_base) < kSharedArenaBytes;
}
/// @p address is a variable of the running CUDA thread: on its stack, at or above @p frame (a frame of
/// the caller, `__builtin_frame_address(0)`, so that the test inlines into the checks).
inline bool on_own_stack(std::uintptr_t address, const void* frame)
{
    return address - reinterpret_cast<std::uintptr_t>(frame) < kOwnStackWindow;
}

/// The race checker between blocks (block_races.cpp): a plain load of a word that another block of the
/// same launch stored, by a block that has not synchronised with the others (atomic, volatile read).
/// run_grid calls races_launch_begin, a block races_block_begin and races_block_end; checks.cpp reports
/// stores (while emu_tls_races_note_stores), loads (while emu_tls_races_check_loads), atomics and
/// volatile reads (races_note_sync).
void races_launch_begin();
void races_block_begin();
void races_block_end();
void races_note_sync(const void* address);
void races_note_store(const void* address, std::size_t bytes, const void* pc);
void races_check_load(const void* address, std::size_t bytes, const void* pc);

/// The memory-behaviour counters (emu/profile.hpp, profile.cpp). A block calls profile_block_start when
/// profiling_requested() as it starts, which turns on the recording of its accesses (profile_access,
/// from checks.cpp), profile_barrier at every barrier it completes and profile_block_end when it ends.
bool profiling_requested();
void profile_block_start();
void profile_barrier();
void profile_access(const void* address, std::size_t bytes, bool write, const void* pc);
void profile_block_end(const char* kernel);
void profile_launch(const char* kernel);

}   // namespace emu::detail
