/// @file ledger.hpp
/// @brief What one call of a launcher did, as the CPU backend saw it: the grader's window on the
/// runtime (harness/launch_ledger.hpp reads it; the GPU build reads the same facts from CUPTI).
///
/// Between ledger_begin() and ledger_end() the runtime writes down every kernel launch, copy and fill
/// with the stream it was given, and every device allocation and release. Allocations made inside a
/// window and never released stay on a list across windows, so the grader can tell a launcher that
/// frees what it allocates from one that leaks on every call.
#pragma once

#include "emu/runtime_api.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace emu {

/// A kernel launched inside the window.
struct LedgerKernel {
    std::string name;    ///< the kernel's name as written at the launch
    std::string where;   ///< file:line of the launch
    dim3 grid;
    dim3 block;
    std::size_t dynamic_shared = 0;
    std::size_t static_shared = 0;   ///< bytes of static __shared__ arrays a block placed (0 if none ran)
    cudaStream_t stream = nullptr;
};

/// A copy or fill inside the window.
struct LedgerOperation {
    std::string what;                ///< e.g. "cudaMemcpy (device to host)"
    cudaStream_t stream = nullptr;   ///< nullptr for the legacy default stream (synchronous calls too)
};

/// A device allocation made inside the window.
struct LedgerAllocation {
    std::uintptr_t address = 0;
    std::size_t bytes = 0;
};

struct Ledger {
    std::vector<LedgerKernel> kernels;
    std::vector<LedgerOperation> operations;
    std::vector<LedgerAllocation> allocated;   ///< device allocations made in the window
    std::vector<std::uintptr_t> released;      ///< device allocations released in the window
};

/// Starts writing down what the calling host thread's runtime calls do.
void ledger_begin();
/// Stops and returns what was written down. Call it after synchronizing, so that every kernel of
/// the window has run (static shared memory is known once a block ran).
Ledger ledger_end();

}   // namespace emu
