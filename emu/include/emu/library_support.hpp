/// @file library_support.hpp
/// @brief For the CPU backend's library stand-ins (cuBLAS, CUB): queue host work in stream order.
#pragma once

#include "emu/runtime_api.hpp"

#include <functional>

namespace emu::detail {
/// Runs @p work on the device's worker after everything queued before it (as a library kernel would);
/// returns the sticky error if a kernel already failed.
cudaError_t submit_device_work(cudaStream_t stream, std::function<void()> work);
}  // namespace emu::detail
