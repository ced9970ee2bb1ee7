/// @file stage_info.hpp
/// @brief One row of a chapter's stage table (generated from the chapter's stages.json).
#pragma once

namespace wb {

/// What the grader knows about one stage, read from chapters/NN_name/stages.json at build time.
struct StageInfo {
    int id;                  ///< 1, 2, 3, ... in teaching order
    const char* title;       ///< a few words on the stage's idea
    double speedup_target;   ///< required speed-up over the previous reference stage (0: no speed check)
};

}   // namespace wb
