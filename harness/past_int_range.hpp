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
#include <functional>
#include <string>
#include <vector>

namespace wb {

/// 2^31: the first index that a signed 32-bit int cannot hold.
inline constexpr std::int64_t kIntLimit = std::int64_t(1) << 31;

/// 2^32: the first index that an unsigned 32-bit int cannot hold. blockIdx.x * blockDim.x is such a
/// product (two unsigned ints): it wraps at 2^32 even when the result is stored in a std::int64_t.
inline constexpr std::int64_t kUintLimit = std::int64_t(1) << 32;

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
    /// True when @p bytes are free too, with the same room to spare: asked while the lock is held, to run
    /// a larger case (past 2^32 elements) on a GPU that has the memory for it. Otherwise prints that the
    /// case @p label is skipped, and why (nothing when the first case was not allowed either).
    bool fits(std::size_t bytes, const std::string& label) const;

private:
    int lock_fd_ = -1;
    bool allowed_ = false;
};

/// One size of a chapter's large case: the GPU memory it takes, and its name for the learner (its failures
/// and its skip line). What the case is (its element count, its shape) stays with the chapter, in a list
/// parallel to the sizes.
struct LargeSize {
    std::size_t bytes = 0;
    std::string label;
};

/// Runs @p check(k) for each size @p sizes[k] (ascending: the case past 2^31, then the one past 2^32) that
/// this GPU has the memory for, under one LargeCase. None when the first does not fit; else the first, then
/// each later one that fits, decided before the first runs. A skip line is printed for each size left out.
/// The case past 2^31 runs first on every GPU with room for it, so a kernel whose index goes wrong there
/// gets the same verdict whatever more memory the GPU has.
void for_each_large_size(const std::vector<LargeSize>& sizes, const std::function<void(std::size_t k)>& check);

/// One window of a large output, compared with its reference.
struct SampledWindow {
    std::int64_t first = 0;   ///< its first element, as an index into the whole output
    std::int64_t count = 0;   ///< how many elements it holds
    std::string name;         ///< where it is, for the learner: "elements 0 to 4095", "rows 7 to 9"
    CompareReport report;     ///< the window compared with its reference (indices within the window)
};

/// What the wrong windows of a large output most likely mean, from where they lie. Nothing written
/// anywhere: the size converted to int. Every element below index 2^31 right and a wrong one past it:
/// an index computed in 32 bits. Every element below 2^32 right and a wrong one past it: an index
/// computed in unsigned 32-bit arithmetic (blockIdx.x * blockDim.x). Right at the start and wrong from
/// some index below 2^31 on: a grid that stops short (capped at 65535 blocks without a grid-stride
/// loop). Empty when the first window is already wrong: that window's own report says more. Pure logic.
std::string sampled_output_cause(const std::vector<SampledWindow>& windows, const SampledWindow& first_wrong);

/// The message of the wrong window @p w: where it lies, what its comparison found, and @p cause (when not
/// empty) in place of the comparison's own likely cause, which sees the window alone. Pure logic.
std::string window_failure_message(const SampledWindow& w, const std::string& cause);

/// Ends the stage at the first wrong window of @p windows (sorted by position), naming the window,
/// what its report found, and sampled_output_cause, or @p cause where the chapter found one in what the
/// windows hold (a transpose's wrapped loads, seen from the input's side).
void expect_windows(Stage& stage, const std::vector<SampledWindow>& windows, const std::string& label,
                    const std::string& cause = "");

/// Stage::run for a case past the 32-bit range. A crash there, after every smaller case passed, is
/// almost always an index or a size held in an int (negative past 2^31 - 1, so the address it makes
/// lies before the array): the failure says so, and names the case.
/// @p past_uint: the case passes 2^32 elements and follows one past 2^31 that came out right, so the likely
/// cause named is an index wrapping at 2^32 (or a buffer of the learner's own sized too small).
void run_past_int_range(Stage& stage, const Launch& launch, const std::string& label, bool past_uint = false);

/// The likely cause when output row @p first_wrong_row is the first wrong one (every earlier row checked
/// right) and output row r reads elements [r * @p row_length, (r + 1) * @p row_length) of a large input
/// (a GEMV's rows of A): when it is the first row that reads past input index 2^31 or 2^32 (the row that
/// straddles that index, or the one after it), the row offset r * row_length wraps there, in an int or
/// an unsigned int. Empty otherwise. @p unit names what r counts ("row"; "head" where each head of an
/// attention reads its own part of K and V) and @p input the array read ("the input", "A", "K and V").
/// Pure logic.
std::string row_offset_wrap_cause(std::int64_t first_wrong_row, std::int64_t row_length,
                                  const std::string& unit = "row", const std::string& input = "the input");

/// One marked element of a large sum: its index, and where it lies, for the learner.
struct SumMarker {
    std::int64_t index;
    std::string where;
};

/// The marked elements of a large sum of @p n elements, in index order: marker k will hold 2^k and every
/// other element 0. Each sits where some launch stops reaching: the first and last elements, past the
/// 65535 blocks of a capped grid (of 256 and of 1024 threads), on both sides of index 2^31 and (when n
/// passes it) of index 2^32, and in the float4 tail (n - 3). At most 12: the sum stays below 2^24, so
/// every order of the float additions gives it exactly.
std::vector<SumMarker> sum_markers(std::int64_t n);

/// Writes the markers' values 1, 2, 4, ... into @p x (a device array already filled with 0) and waits for
/// the copies. Returns their sum, the exact result of the large sum.
double place_sum_markers(float* x, const std::vector<SumMarker>& markers, cudaStream_t stream);

/// The name of the large sum of @p n elements with @p markers marked ones: "n = 2^32 + 2^28 + 3, every input
/// 0 but 12 marked elements summing to 4095 (past the unsigned 32-bit range)". @p with_y: a dot product,
/// whose x holds the markers and whose y is 1 everywhere. Pure logic.
std::string sum_markers_label(std::int64_t n, std::size_t markers, bool with_y);

/// What a wrong result @p got of the large sum of @p n elements with @p markers says. The bits of a result
/// below 2^m name the marked elements that never reached it; where they lie tells a size converted to int
/// (none reached it), an index computed in 32 bits (those past 2^31), a grid that stops short (those from
/// some index on). The exact value an index taken modulo 2^32 gives (the first n - 2^32 elements read
/// twice, none past 2^32) is recognised as such. Pure logic.
std::string sum_markers_cause(const std::vector<SumMarker>& markers, std::int64_t n, double got);

/// @p value as a sum of powers of two and a small rest, as the large cases are written: "2^32 + 2^28 + 3".
/// Powers from 2^10 on are named; the rest below 1024 is written in decimal. Pure logic.
std::string as_powers_of_two(std::int64_t value);

/// @p value with its thousands separated by commas ("2,359,301"), for the labels of large cases.
std::string with_commas(std::int64_t value);

/// The first rows of windows of @p width rows spread over a matrix of @p rows x @p cols: the first and
/// the last rows, 14 between, and the rows around the places where 32-bit arithmetic breaks: the rows
/// whose elements cross index 2^31 and (when there are that many) index 2^32, and row 2^24 (65535 blocks
/// of 256 rows). Sorted and distinct.
std::vector<std::int64_t> row_windows_past_int_range(std::int64_t rows, std::int64_t cols, std::int64_t width);

}   // namespace wb
