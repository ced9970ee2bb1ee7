/// @file launch_ledger.hpp
/// @brief What a stage's launcher really did on the GPU: which kernels it launched (with their
/// launch facts), on which streams, and which device memory it allocated and kept.
///
/// Stage::run opens a window around every call of the learner's launcher. Inside it the backend writes
/// down the work: on a GPU through CUPTI's activity records (CUDA 13 and newer, when libcupti is found),
/// on the CPU emulator through its runtime. From those records the grader rejects what no output can
/// show: a launcher that computes on the host and launches no kernel, work on another stream than the
/// one it was given (the legacy default stream included), and device memory that grows with every call.
/// The same records give the launch facts (grid, block, shared memory, registers, spills) that a "too
/// slow" verdict prints beside the reference stages'.
#pragma once

#include "harness/timing.hpp"

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace wb {

/// One kernel launched inside a window.
struct KernelFacts {
    std::string name;   ///< demangled, without its parameter list
    dim3 grid{1, 1, 1};
    dim3 block{1, 1, 1};
    std::size_t static_shared = 0;    ///< bytes of static __shared__ arrays per block
    std::size_t dynamic_shared = 0;   ///< bytes asked for at the launch
    int registers = -1;               ///< per thread; -1 where the backend cannot tell (the emulator)
    int local_bytes = -1;             ///< local memory (spills, arrays indexed at run time) per thread; -1: unknown
    double occupancy = -1.0;          ///< theoretical: resident threads per SM over the most an SM holds; -1: unknown
    std::string occupancy_limit;      ///< what limits the resident blocks, as a phrase (occupancy_limit); "" unknown
    bool on_given_stream = true;
    /// Where the kernel comes from, for the check that a launcher runs kernels of its own: on a GPU its
    /// qualified name ("learner::(anonymous namespace)::reduce_kernel<256>"), on the CPU emulator the
    /// file and line of its launch. "" where the backend cannot tell.
    std::string origin;

    std::int64_t blocks() const { return std::int64_t(grid.x) * grid.y * grid.z; }
    std::int64_t threads_per_block() const { return std::int64_t(block.x) * block.y * block.z; }
    std::size_t shared_per_block() const { return static_shared + dynamic_shared; }
};

/// What one call of a launcher did.
struct LaunchRecord {
    bool available = false;               ///< false: this backend cannot record (no CUPTI); nothing below is known
    std::vector<KernelFacts> kernels;     ///< every kernel, in launch order (on any stream)
    std::vector<std::string> elsewhere;   ///< work that went to another stream, described for the learner
    std::vector<std::string> to_host;     ///< copies from device to host (on any stream), described
    std::map<std::uintptr_t, std::size_t> allocated;   ///< device allocations made in the window
    std::vector<std::uintptr_t> released;              ///< device allocations released in the window

    int kernels_on_given_stream() const;
};

/// Why launch records cannot be made here, or "" when they can (asks the backend once).
const std::string& ledger_unavailable_reason();

/// Opens a window on @p stream (the grader's). Cheap when records cannot be made.
void ledger_begin(cudaStream_t stream);
/// Closes the window after synchronizing the device, and returns what happened in it.
LaunchRecord ledger_end();
/// Closes a window without reading it (after a launch failed).
void ledger_abandon();

/// The verdicts the records lead to, over all the calls of a stage (pure logic, tested without a GPU).
class LedgerJudge {
public:
    /// @p candidate_track: the namespace of the stages being graded ("learner" or "reference"): a
    /// learner's launcher that runs the reference solution's kernels is not the learner's work.
    explicit LedgerJudge(std::string candidate_track = "learner") : track_(std::move(candidate_track)) {}
    /// Adds the record of one call of the candidate's launcher.
    void add(const LaunchRecord& record);
    /// At the end of the correctness checks, the message of a wrong result, if any: a launcher that ran
    /// kernels that are not its own (the reference solution's, or a library's), that copied data to the
    /// host, that put work on another stream, that never launched a kernel, or whose device memory grew
    /// with its calls.
    std::optional<std::string> verdict() const;

private:
    std::string track_;
    std::vector<std::string> foreign_;   ///< kernels that are not the candidate's, described (a few)
    int calls_ = 0;
    int kernels_on_stream_ = 0;
    std::vector<std::string> elsewhere_;
    std::vector<std::string> to_host_;   ///< copies to the host, described (a few)
    int calls_copying_to_host_ = 0;
    std::map<std::uintptr_t, std::size_t> kept_;   ///< allocations made by the launcher and not released yet
    int calls_that_kept_memory_ = 0;
};

/// Whose kernel @p kernel is, when it is not the work of a launcher of track @p candidate_track: "the
/// reference solution's" or "a library's" (CUB, Thrust, CUTLASS, cuBLAS), or "" when it may be the
/// candidate's own (also when nothing is known of its origin). Pure logic.
std::string foreign_kernel_owner(const KernelFacts& kernel, const std::string& candidate_track);

/// "2 kernels: `reduce_kernel` grid 528 x 256 threads, 1024 B shared, 32 registers; ..." for messages.
std::string describe_kernels(const std::vector<KernelFacts>& kernels);

}   // namespace wb

namespace wb {

/// The kernels @p launch launches, without running them where the backend allows it: on a GPU the
/// launcher is recorded into a CUDA graph and the kernel nodes are read (grid, block, dynamic shared
/// memory; registers, static shared and local memory from the function's attributes); on the CPU
/// emulator it runs once inside a ledger window. Empty when nothing could be learned.
std::vector<KernelFacts> launch_facts(const Launch& launch, cudaStream_t stream);

}   // namespace wb

namespace wb {

/// What one SM holds at most: the limits that decide how many blocks of a kernel are resident at once.
struct SmLimits {
    int threads = 0;          ///< resident threads (2048 on Hopper)
    int blocks = 0;           ///< resident blocks (32 on Hopper)
    int registers = 0;        ///< 32-bit registers (65536)
    std::size_t shared = 0;   ///< shared memory, bytes
};

/// Which limit of @p sm keeps the fewest blocks of @p kernel resident, as a phrase for a learner, e.g.
/// "blocks of 32 threads, and an SM holds at most 32 blocks: 1024 of its 2048 threads". "" when the
/// facts are unknown or the SM is filled to its thread limit. An estimate (registers are allocated per
/// warp in units of 256, shared memory with 1 KiB reserved per block); the occupancy itself comes from
/// the CUDA runtime. Pure logic.
std::string occupancy_limit(const KernelFacts& kernel, const SmLimits& sm);

/// Why a correct stage is slow, from the launch facts alone (explain_launch_difference).
struct SlowLaunch {
    std::vector<std::string> causes;   ///< sentences, the one that most likely costs the most time first
    std::string table;                 ///< the facts side by side, one line per row (starts with a newline)
    /// "why: <first cause> also: <the others>" and the table; "" when there are no facts.
    std::string text() const;
};

/// The launch facts of a slow stage beside those of the reference stages, for a "too slow" verdict.
/// Every difference that can cost time is a cause, ranked by a rough estimate of the time it costs:
/// SMs left idle by a grid smaller than the GPU (the share of idle SMs), local-memory spills, occupancy
/// below the reference's (by its limit: block size, registers or shared memory), more launches, and
/// fewer bytes per thread. No cause when the launches look alike. Pure logic.
/// @param bytes the bytes the job moves (0 if unknown): gives the bytes each thread moves.
SlowLaunch explain_launch_difference(const std::vector<KernelFacts>& yours, const std::vector<KernelFacts>& previous,
                                     const std::vector<KernelFacts>& current, int current_id, int sm_count,
                                     double bytes);

}   // namespace wb
