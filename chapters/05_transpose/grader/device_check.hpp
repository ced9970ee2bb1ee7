/// @file 05_transpose/grader/device_check.hpp
/// @brief Checking a large transpose on the GPU, element by element.
///
/// A 16384 x 16384 matrix is 1 GiB: comparing it on the CPU would mean copying 2 GiB to the host
/// and 2^28 strided look-ups. Since a transpose only moves values, the check is simple enough to
/// trust on the GPU: one thread per output element compares its bits with the input element it
/// must hold. Every element is checked (not a sample, not a checksum), and the report has the same
/// form as wb::compare's: how many are wrong, how many were never written, the first bad one.
#pragma once

#include "harness/compare.hpp"

#include <cuda_runtime.h>

#include <cstdint>

namespace ch05 {

/// Compares @p out (cols x rows) with the transpose of @p in (rows x cols), bit for bit, on the GPU.
wb::CompareReport compare_transpose_on_device(const float* in, const float* out, std::int64_t rows, std::int64_t cols,
                                              cudaStream_t stream);

}   // namespace ch05
