/// @file 05_transpose/grader/reference.hpp
/// @brief Chapter 5's CPU reference: the transpose, element by element.
#pragma once

#include <cstdint>
#include <string>
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

/// The likely cause when the first wrong element of output row @p out_row of a transpose of a @p rows x
/// @p cols input lies at position @p first_bad of that row, every earlier one right: when that element is
/// the first of the row read from input index 2^31 (or 2^32) on, `r * cols + c` on the load side wraps
/// there, in an int (or an unsigned int). Output row o holds input column o, so its element r was read
/// from input index r * cols + o. Empty otherwise. Pure logic.
inline std::string wrapped_load_cause(std::int64_t out_row, std::int64_t first_bad, std::int64_t rows,
                                      std::int64_t cols)
{
    if (first_bad < 1 || first_bad >= rows) return "";
    const std::int64_t read_from = first_bad * cols + out_row, read_before = read_from - cols;
    for (const int bits : {32, 31}) {
        const std::int64_t limit = std::int64_t(1) << bits;
        if (read_before >= limit || read_from < limit) continue;
        return "output row " + std::to_string(out_row) + " is right up to its element " +
               std::to_string(first_bad - 1) + " and wrong from element " + std::to_string(first_bad) +
               " on: exactly the elements read from input index 2^" + std::to_string(bits) + " on (input row " +
               std::to_string(first_bad) + ", column " + std::to_string(out_row) + " is element " +
               std::to_string(read_from) + " of the input). The load index r * cols + c wraps at 2^" +
               std::to_string(bits) + ": it is held in " + (bits == 32 ? "an unsigned int (or uint32_t)" : "an int") +
               ". Keep it in std::int64_t, on the store side (c * rows + r) too.";
    }
    return "";
}

}   // namespace ch05
