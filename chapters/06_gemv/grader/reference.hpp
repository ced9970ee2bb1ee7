/// @file 06_gemv/grader/reference.hpp
/// @brief Chapter 6's CPU reference: y = A x in double precision, and the error bound of each row.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

namespace ch06 {

/// The exact (double) product and, for the tolerance, the largest sum_k |A_ik x_k| over the rows.
struct GemvReference {
    std::vector<double> y;
    double max_sum_abs = 0.0;
};

/// y = A x for the row-major M x K matrix @p A, accumulated in double.
inline GemvReference gemv_reference(const std::vector<float>& A, const std::vector<float>& x, std::int64_t M,
                                    std::int64_t K)
{
    GemvReference ref;
    ref.y.resize(static_cast<std::size_t>(M));
    for (std::int64_t i = 0; i < M; ++i) {
        const float* a = A.data() + i * K;
        double sum = 0.0, sum_abs = 0.0;
        for (std::int64_t k = 0; k < K; ++k) {
            const double p = static_cast<double>(a[k]) * x[k];
            sum += p;
            sum_abs += std::fabs(p);
        }
        ref.y[i] = sum;
        ref.max_sum_abs = std::max(ref.max_sum_abs, sum_abs);
    }
    return ref;
}

}   // namespace ch06
