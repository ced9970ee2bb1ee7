# Where the kernels run: on an NVIDIA GPU (the CUDA backend, nvcc) or on the CPU (the emulator in
# emu/, g++ and Boost.Context: correctness only, no timing).
#
#   -DWORKBOOK_BACKEND=auto   (default) cuda when nvidia-smi finds a GPU, or when WORKBOOK_CUDA_ARCH is
#                             given; cpu otherwise (cuda, compile-only, when Boost.Context is missing).
#                             The choice is kept for the life of the build folder.
#   -DWORKBOOK_BACKEND=cuda   always compile with nvcc for a GPU (what a machine with a GPU uses)
#   -DWORKBOOK_BACKEND=cpu    always use the CPU emulator (no CUDA Toolkit needed)
#
# Sets WORKBOOK_EMULATED (ON for the CPU backend) and defines workbook_emulated_target(), which the
# chapter and harness targets call; it does nothing for the CUDA backend.
set(WORKBOOK_BACKEND "auto" CACHE STRING "Where kernels run: auto, cuda (an NVIDIA GPU) or cpu (the emulator)")
set_property(CACHE WORKBOOK_BACKEND PROPERTY STRINGS auto cuda cpu)

if(WORKBOOK_BACKEND STREQUAL "cuda" OR WORKBOOK_BACKEND STREQUAL "cpu")
  set(backend "${WORKBOOK_BACKEND}")
  set(backend_reason "chosen with WORKBOOK_BACKEND")
elseif(WORKBOOK_BACKEND STREQUAL "auto")
  if(WORKBOOK_BACKEND_CHOSEN)
    set(backend "${WORKBOOK_BACKEND_CHOSEN}")
    set(backend_reason "chosen when this build folder was first configured")
  elseif(WORKBOOK_CUDA_ARCH)
    set(backend cuda)
    set(backend_reason "WORKBOOK_CUDA_ARCH asks for a GPU architecture")
  elseif(CMAKE_CUDA_COMPILER AND CMAKE_CUDA_ARCHITECTURES)
    set(backend cuda)
    set(backend_reason "this build folder was configured for CUDA before; `make clean` to let it choose again")
  else()
    set(backend cpu)
    set(backend_reason "no NVIDIA GPU found")
    find_program(WORKBOOK_NVIDIA_SMI nvidia-smi)
    if(WORKBOOK_NVIDIA_SMI)
      execute_process(COMMAND "${WORKBOOK_NVIDIA_SMI}" --query-gpu=name --format=csv,noheader
                      OUTPUT_VARIABLE smi_gpus RESULT_VARIABLE smi_rc ERROR_QUIET
                      OUTPUT_STRIP_TRAILING_WHITESPACE TIMEOUT 20)
      if(smi_rc EQUAL 0 AND NOT smi_gpus STREQUAL "")
        set(backend cuda)
        set(backend_reason "nvidia-smi found a GPU")
      endif()
    endif()
    if(backend STREQUAL "cpu")
      find_package(Boost 1.66 QUIET CONFIG COMPONENTS context)
      if(NOT Boost_FOUND OR NOT TARGET Boost::context)
        set(backend cuda)
        message(STATUS "Workbook: no NVIDIA GPU and no Boost.Context: everything is compiled, nothing is graded. "
                       "Install libboost-context-dev and run `make clean` to grade correctness on the CPU.")
      endif()
    endif()
  endif()
else()
  message(FATAL_ERROR "WORKBOOK_BACKEND='${WORKBOOK_BACKEND}' is not one of auto, cuda, cpu.")
endif()
set(WORKBOOK_BACKEND_CHOSEN "${backend}" CACHE INTERNAL "The backend this build folder uses")

if(backend STREQUAL "cpu")
  set(WORKBOOK_EMULATED ON)
  set(WORKBOOK_LINKER_LANGUAGE CXX)
  message(STATUS "Workbook: kernels run on the CPU emulator (${backend_reason}): correctness only, speed needs a GPU")
else()
  set(WORKBOOK_EMULATED OFF)
  set(WORKBOOK_LINKER_LANGUAGE CUDA)
endif()

# Compiles the .cu sources of <target> for the CPU backend: as C++, through the emulator's rewrite
# step (emu/tools/emu_cc.cpp), with the emulator's cuda_runtime.h included first, as nvcc includes
# the real one, and as device code of compute capability 8.0 (__CUDA_ARCH__ = 800: cp.async paths are
# the ones emulated). Warnings that nvcc does not give for device code are left out.
option(WORKBOOK_EMU_CHECKS "CPU backend: compile kernel code with the emulator's access checks (races, bad reads)" ON)
option(WORKBOOK_EMU_CHECK_REFERENCES "CPU backend: the access checks for the reference solutions too (slower CI)" OFF)

# The compiler options that instrument kernel code for the access checks (see below). -fno-tree-sra
# keeps a vector load that is then used lane by lane (`float2 v = *p; a = v.x; b = v.y;`) one 8- or
# 16-byte access, as nvcc emits it, instead of separate 4-byte loads: the memory-behaviour counters
# (emu/profile.hpp) see the access width the GPU sees.
# -fsanitize=bounds with traps (no sanitizer runtime either): an index past the end of an array whose size
# is known at compile time (a local array, a __shared__ tile) stops the kernel with SIGILL, which the
# emulator reports with the line. A GPU gives no error for these: the access lands on a neighbour.
set(WORKBOOK_EMU_CHECK_FLAGS "-fsanitize=thread;--param=tsan-instrument-func-entry-exit=0;--param=tsan-distinguish-volatile=1;-fsanitize=bounds;-fsanitize-undefined-trap-on-error;-fno-tree-sra;-g1;-Wno-tsan")

# workbook_emulated_target(<target> [REFERENCE]): REFERENCE marks code known to be right (the reference
# solutions, library baselines). It is compiled without the access checks, which make kernels about
# three times slower, unless WORKBOOK_EMU_CHECK_REFERENCES is ON.
function(workbook_emulated_target target)
  if(NOT WORKBOOK_EMULATED)
    return()
  endif()
  # Every load and store of the kernel code calls the emulator's checks (emu/src/checks.cpp): races and
  # bad reads of shared memory, reads past the end of a buffer. The thread sanitizer's instrumentation
  # is used for its calls only (it reports every access, unlike the address sanitizer's, which skips a
  # store to an address it just checked a load of); no sanitizer runtime is linked. -g1 gives the line
  # tables that name the lines of a race.
  set(emulator_checks "${WORKBOOK_EMU_CHECK_FLAGS}")
  if(NOT WORKBOOK_EMU_CHECKS OR ("REFERENCE" IN_LIST ARGN AND NOT WORKBOOK_EMU_CHECK_REFERENCES))
    set(emulator_checks "-g1")
  endif()
  get_target_property(sources ${target} SOURCES)
  foreach(source IN LISTS sources)
    if(source MATCHES "\\.cu$")
      set_source_files_properties(${source} PROPERTIES LANGUAGE CXX COMPILE_OPTIONS
        "-include;${CMAKE_SOURCE_DIR}/emu/include/cuda_runtime.h;-D__CUDA_ARCH__=800;${emulator_checks};-Wno-sign-compare;-Wno-unknown-pragmas;-Wno-unused-function;-Wno-unused-parameter;-Wno-unused-variable;-Wno-unused-but-set-variable")
    endif()
  endforeach()
  set_target_properties(${target} PROPERTIES CXX_COMPILER_LAUNCHER "${CMAKE_BINARY_DIR}/bin/emu-cc")
  target_compile_options(${target} PRIVATE -fno-strict-aliasing)
  add_dependencies(${target} emu-cc)
endfunction()
