# CUDA backend: on when nvcc is found (and SILT_ENABLE_CUDA), architectures default to 90 (H100/H200),
# never `native`, so that a build machine without a GPU builds the same code as the GPU machine.
set(SILT_CUDA OFF)
if(SILT_ENABLE_CUDA)
  include(CheckLanguage)
  if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
    set(CMAKE_CUDA_ARCHITECTURES 90)
  endif()
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    enable_language(CUDA)
    set(CMAKE_CUDA_STANDARD 17)
    set(CMAKE_CUDA_STANDARD_REQUIRED ON)
    set(CMAKE_CUDA_EXTENSIONS OFF)
    find_package(CUDAToolkit REQUIRED)
    set(SILT_CUDA ON)
  else()
    message(STATUS "nvcc not found: building the CPU backend only")
  endif()
endif()

# Flags every CUDA translation unit of silt gets (AMReX's habit: host/device mistakes are errors).
set(SILT_CUDA_FLAGS --extended-lambda --expt-relaxed-constexpr
    "SHELL:-Werror cross-execution-space-call" --Wext-lambda-captures-this
    "SHELL:-Xcudafe --diag_suppress=esa_on_defaulted_function_ignored")

# silt_backend_sources(target): compile the target's .cpp sources with nvcc when the CUDA backend is
# on, so that its parallel_for calls can launch on the GPU; with g++ and OpenMP otherwise.
function(silt_backend_sources target)
  if(SILT_CUDA)
    get_target_property(srcs ${target} SOURCES)
    get_target_property(dir ${target} SOURCE_DIR)
    foreach(s IN LISTS srcs)
      if(s MATCHES "\\.cpp$")
        set_source_files_properties(${s} TARGET_DIRECTORY ${target} PROPERTIES LANGUAGE CUDA)
      endif()
    endforeach()
    target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:${SILT_CUDA_FLAGS}>)
  endif()
endfunction()
