/// @file 05_transpose/grader/reference.hpp
/// @brief Chapter 5's CPU reference: the transpose, element by element.
#pragma once

#include <cstdint>
#include <vector>

namespace ch05 {

/// The `cols x rows` transpose of the `rows x cols` row-major matrix @p in, as doubles (exact: a
/// transpose only moves values).
inline std::vector<double> transpose_reference(const std::vector<float>& in, std::int64_t rows, std::int64_t cols)
{
    std::vector<double> out(in.size());
    for (std::int64_t r = 0; r < rows; ++r) {
        for (std::int64_t c = 0; c < cols; ++c) out[c * rows + r] = in[r * cols + c];
    }
    return out;
}

}   // namespace ch05
