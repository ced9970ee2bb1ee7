// The CPU backend's source rewrite: the two pieces of CUDA syntax that C++ cannot express.
//
//   kernel<<<grid, block, bytes, stream>>>(args)   ->  ::emu::launch(site, [=](auto&... a) { kernel(a...); },
//                                                                     ::emu::config(grid, block, bytes, stream), args)
//   __shared__ float tile[32][33];                  ->  a slot in the block's shared-memory arena
//   extern __shared__ float smem[];                 ->  a pointer to the launch's dynamic shared memory
//
// It works on preprocessed source (so launches and declarations inside headers and macros are
// seen too) and never adds or removes a line: the compiler's line markers keep pointing at the
// learner's file and line. Everything else is copied unchanged.
#pragma once

#include <string>
#include <vector>

namespace emu::rewrite {

struct Result {
    std::string text;                  ///< the rewritten source
    std::vector<std::string> errors;   ///< "file:line: error: ..." for constructs it cannot rewrite
};

/// Rewrites one translation unit (preprocessed, or plain source: comments are understood too).
Result rewrite(const std::string& source);

}   // namespace emu::rewrite
