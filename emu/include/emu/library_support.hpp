/// @file library_support.hpp
/// @brief Host work in stream order, for the CPU backend's library stand-ins (cuBLAS, CUB) and for
/// the harness (through emu/grader_api.hpp).
#pragma once

#include "emu/runtime_api.hpp"

#include <functional>

namespace emu {
/// Runs @p work on the device's worker after everything queued on @p stream before it, as a library
/// kernel would (and records it when the stream is captured); returns the sticky error if a kernel
/// already failed.
cudaError_t run_in_stream_order(cudaStream_t stream, std::function<void()> work);
}   // namespace emu
