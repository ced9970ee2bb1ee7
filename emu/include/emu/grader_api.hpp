/// @file grader_api.hpp
/// @brief What the workbook's harness may ask of the CPU backend beyond the CUDA runtime API: the
/// whole public surface for graders (harness/ and chapters/*/grader/). Nothing outside emu/ names
/// emu::detail; what a grader needs and CUDA has no call for is declared here.
///
/// - why a launch failed: the CUDA error code carries no text, the emulator's report does;
/// - where an input's data ends, so a read past it stops the kernel;
/// - which thread order the blocks run in, to tell a race from a plain wrong result;
/// - host work ordered on a stream like a kernel (fills of large inputs, library stand-ins);
/// - the launch ledger (emu/ledger.hpp): what one call of a launcher launched, copied and allocated.
#pragma once

#include "emu/ledger.hpp"
#include "emu/library_support.hpp"
#include "emu/runtime_api.hpp"

#include <cstddef>
#include <cstdint>
#include <string>

namespace emu {

/// The CPU backend's own explanation of the error @p code, when it is the last error the backend
/// explained (which kernel, block and thread, which source lines); otherwise empty. The CUDA error
/// code alone cannot carry it.
std::string last_fault_report(cudaError_t code);

/// True when the last explained failure is a deadlock (a GPU would hang).
bool last_fault_is_deadlock();

/// Says that only the first @p bytes of the device allocation at @p ptr hold data and the rest is a
/// guard (the harness's DeviceBuffer): a kernel reading from the rest is stopped with "read past the
/// end of an input array". Writes there are reported after the launch, as for any allocation.
void declare_buffer_extent(const void* ptr, std::size_t bytes);

/// How many blocks have started since the process began, over every launch: a kernel whose count
/// stops growing for long is hung; one whose many short blocks take long is only slow (the graders'
/// time limit on the CPU backend waits for this count to stop).
std::uint64_t blocks_started();

/// Runs every block in one order from now on: 0 forward, 1 reverse, 2 random; -1 goes back to the
/// rotation (or to WORKBOOK_EMU_SCHEDULE). For the graders, to tell whether a wrong result is a race.
void force_schedule(int schedule);

}   // namespace emu
