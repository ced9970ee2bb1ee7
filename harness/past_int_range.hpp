/// @file past_int_range.hpp
/// @brief Cases past the 32-bit range: more than 2^31 elements, or more rows than a grid capped at
/// 65535 blocks reaches. They run only on a GPU with the memory for them (device_memory_allows), are
/// filled on the GPU, and are checked on windows of the output (sampling.hpp); a failure says what the
/// place of the first wrong window most likely means.
#pragma once

#include "harness/compare.hpp"
#include "harness/sampling.hpp"
#include "harness/stage.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace wb {

/// 2^31: the first index that a signed 32-bit int cannot hold.
inline constexpr std::int64_t kIntLimit = std::int64_t(1) << 31;

/// The right to run one large case: GPU memory for it, held by one grader process at a time. Graders
/// of several stages may run at once (ctest -j, selfcheck): each would find the memory free, and all
/// but one would then fail to allocate it. The constructor waits for an exclusive lock shared by every
/// grader of this machine (a file in the temporary directory), then checks that @p bytes are free with
/// 4 GiB to spare (device_memory_allows: on the CPU emulator, never). False: the case is skipped, and
/// the grader printed why. Keep it alive for the whole case.
class LargeCase {
public:
    LargeCase(std::size_t bytes, const std::string& label);
    ~LargeCase();
    LargeCase(const LargeCase&) = delete;
    LargeCase& operator=(const LargeCase&) = delete;
    explicit operator bool() const { return allowed_; }

private:
    int lock_fd_ = -1;
    bool allowed_ = false;
};

/// One window of a large output, compared with its reference.
struct SampledWindow {
    std::int64_t first = 0;   ///< its first element, as an index into the whole output
    std::int64_t count = 0;   ///< how many elements it holds
    std::string name;         ///< where it is, for the learner: "elements 0 to 4095", "rows 7 to 9"
    CompareReport report;     ///< the window compared with its reference (indices within the window)
};

/// What the wrong windows of a large output most likely mean, from where they lie. Nothing written
/// anywhere: the size converted to int. Every element below index 2^31 right and a wrong one past it:
/// an index computed in 32 bits. Right at the start and wrong from some index below 2^31 on: a grid
/// that stops short (capped at 65535 blocks without a grid-stride loop). Empty when the first window
/// is already wrong: that window's own report says more. Pure logic.
std::string sampled_output_cause(const std::vector<SampledWindow>& windows, const SampledWindow& first_wrong);

/// Ends the stage at the first wrong window of @p windows (sorted by position), naming the window,
/// what its report found, and sampled_output_cause.
void expect_windows(Stage& stage, const std::vector<SampledWindow>& windows, const std::string& label);

/// Stage::run for a case past the 32-bit range. A crash there, after every smaller case passed, is
/// almost always an index or a size held in an int (negative past 2^31 - 1, so the address it makes
/// lies before the array): the failure says so, and names the case.
void run_past_int_range(Stage& stage, const Launch& launch, const std::string& label);

/// @p value with its thousands separated by commas ("2,359,301"), for the labels of large cases.
std::string with_commas(std::int64_t value);

/// The first rows of windows of @p width rows spread over a matrix of @p rows x @p cols: the first and
/// the last rows, 14 between, and the rows around the two places where 32-bit arithmetic breaks, the
/// row whose elements cross index 2^31 and (when there are that many) row 2^24 (65535 blocks of 256
/// rows). Sorted and distinct.
std::vector<std::int64_t> row_windows_past_int_range(std::int64_t rows, std::int64_t cols, std::int64_t width);

}   // namespace wb
