# SPDX-License-Identifier: Apache-2.0
# Compiler settings shared by every target chunked builds itself (library, tests, examples,
# benchmarks), never imposed on projects that consume chunked.

# Applies the language level, warnings (CHUNKED_WERROR), sanitizers (CHUNKED_SANITIZE) and CUDA
# front-end flags to <target>.
function(chunked_target_options target)
  target_compile_features(${target} PUBLIC cxx_std_20)
  set_target_properties(${target} PROPERTIES CXX_EXTENSIONS OFF)

  # Warnings are for our C++ only: nvcc would pass -Wpedantic to the host compiler for code that
  # the CUDA front end generated, which is not ours to fix.
  set(warnings -Wall -Wextra -Wpedantic)
  # GCC 12 reports -Wrestrict inside libstdc++'s std::string concatenation at -O2 and above, a
  # false positive (GCC bug 105329) that would break -Werror builds.
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
    list(APPEND warnings -Wno-restrict)
  endif()
  if(CHUNKED_WERROR)
    list(APPEND warnings -Werror)
  endif()
  target_compile_options(${target} PRIVATE "$<$<COMPILE_LANGUAGE:CXX>:${warnings}>")

  if(CHUNKED_HAS_CUDA)
    set_target_properties(${target} PROPERTIES CUDA_STANDARD 20 CUDA_STANDARD_REQUIRED ON
                                               CUDA_EXTENSIONS OFF CUDA_SEPARABLE_COMPILATION OFF)
    target_compile_options(${target}
      PRIVATE "$<$<COMPILE_LANGUAGE:CUDA>:--expt-relaxed-constexpr;--extended-lambda>")
  endif()

  if(CHUNKED_SANITIZE)
    set(sanitize -fsanitize=${CHUNKED_SANITIZE} -fno-sanitize-recover=all -fno-omit-frame-pointer)
    target_compile_options(${target} PRIVATE "$<$<COMPILE_LANGUAGE:CXX>:${sanitize}>")
    target_link_options(${target} PRIVATE ${sanitize})
  endif()
endfunction()
