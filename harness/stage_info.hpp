/// @file stage_info.hpp
/// @brief One row of a chapter's stage table (generated from the chapter's stages.json).
#pragma once

namespace wb {

/// What the grader knows about one stage, read from chapters/NN_name/stages.json at build time.
struct StageInfo {
    int id;                  ///< 1, 2, 3, ... in teaching order
    const char* title;       ///< a few words on the stage's idea
    double speedup_target;   ///< required speed-up over the previous reference stage (0: no speed check)
    /// The compute capability the stage needs ("min_cc" of the stage, else of the chapter; 0.0: none).
    /// On an older GPU, or on the CPU emulator where it models less, the stage is skipped with the reason.
    int min_cc_major = 0;
    int min_cc_minor = 0;
    /// "min_cc": "9.0a": the stage uses features of that architecture alone (sm_90a: wgmma, setmaxnreg),
    /// which later GPUs lack: it runs on compute capability min_cc_major.min_cc_minor exactly.
    bool arch_specific = false;
};

}   // namespace wb
