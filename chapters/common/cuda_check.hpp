/// @file cuda_check.hpp
/// @brief Checking every CUDA call and every kernel launch.
///
/// CUDA reports errors through return codes, and a kernel launch reports nothing at all until you
/// ask. Wrap every runtime call in WB_CUDA_CHECK and follow every `<<<...>>>` with WB_CHECK_LAUNCH():
/// a bad launch configuration (too many threads, too much shared memory) then fails at the line
/// that caused it, with the file and line in the message.
#pragma once

#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

namespace wb {

/// A CUDA runtime error, with the failing call and where it was made.
class CudaError : public std::runtime_error {
public:
    CudaError(cudaError_t code, const std::string& message) : std::runtime_error(message), code_(code) {}
    cudaError_t code() const { return code_; }

private:
    cudaError_t code_;
};

/// Throws CudaError when @p code is not cudaSuccess. Use through WB_CUDA_CHECK.
inline void check_cuda(cudaError_t code, const char* what, const char* file, int line)
{
    if (code == cudaSuccess) return;
    throw CudaError(code, std::string(cudaGetErrorName(code)) + " (" + cudaGetErrorString(code) + ") in `" + what +
                              "` at " + file + ":" + std::to_string(line));
}

}   // namespace wb

/// Checks the result of one CUDA runtime call.
#define WB_CUDA_CHECK(call) ::wb::check_cuda((call), #call, __FILE__, __LINE__)

/// Checks that the kernel launch just before it was accepted (grid, block and shared-memory sizes).
/// It does not wait for the kernel: errors *inside* the kernel surface at the next synchronisation.
#define WB_CHECK_LAUNCH() ::wb::check_cuda(cudaGetLastError(), "kernel launch", __FILE__, __LINE__)
