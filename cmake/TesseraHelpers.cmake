# Helpers every Tessera package calls: back-end configuration, library and test declaration.
include_guard(GLOBAL)

# Sets up the back-end options, finds what they need and generates <tessera/config.hpp>.
macro(tessera_configure_backends)
  set(CMAKE_CXX_STANDARD 20)
  set(CMAKE_CXX_STANDARD_REQUIRED ON)
  set(CMAKE_CXX_EXTENSIONS OFF)
  find_package(Threads REQUIRED)
  if(NOT Tessera_ENABLE_SERIAL)
    message(STATUS "Tessera: the Serial back-end is always built")
    set(Tessera_ENABLE_SERIAL ON CACHE BOOL "" FORCE)
  endif()
  if(Tessera_ENABLE_OPENMP)
    find_package(OpenMP REQUIRED COMPONENTS CXX)
  endif()
  find_package(PkgConfig QUIET)
  set(TESSERA_HAVE_HWLOC OFF)
  if(PkgConfig_FOUND)
    pkg_check_modules(HWLOC QUIET IMPORTED_TARGET hwloc)
    if(HWLOC_FOUND)
      set(TESSERA_HAVE_HWLOC ON)
    endif()
  endif()
  if(Tessera_ENABLE_CUDA)
    include(CheckLanguage)
    check_language(CUDA)
    if(NOT CMAKE_CUDA_COMPILER)
      message(FATAL_ERROR "Tessera_ENABLE_CUDA=ON but no CUDA compiler (nvcc) was found. "
                          "Install the CUDA toolkit or set CMAKE_CUDA_COMPILER=/path/to/nvcc.")
    endif()
    enable_language(CUDA)
    set(CMAKE_CUDA_STANDARD 20)
    set(CMAKE_CUDA_STANDARD_REQUIRED ON)
    find_package(CUDAToolkit REQUIRED)
  endif()
  foreach(_b SERIAL THREADS OPENMP CUDA BOUNDS_CHECK)
    set(TESSERA_ENABLE_${_b} ${Tessera_ENABLE_${_b}})
  endforeach()
  set(TESSERA_GENERATED_INCLUDE_DIR ${PROJECT_BINARY_DIR}/generated/include)
  configure_file(${CMAKE_CURRENT_LIST_DIR}/cmake/config.hpp.in
                 ${TESSERA_GENERATED_INCLUDE_DIR}/tessera/config.hpp)
endmacro()

# Marks sources to be compiled by nvcc when the CUDA back-end is on, so that
# kernels written once with TESSERA_LAMBDA reach the device.
function(tessera_sources_as_cuda)
  if(Tessera_ENABLE_CUDA)
    set_source_files_properties(${ARGN} PROPERTIES LANGUAGE CUDA)
  endif()
endfunction()

function(tessera_target_defaults target)
  target_compile_options(${target} PRIVATE
    $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic>)
  if(Tessera_ENABLE_CUDA)
    target_compile_options(${target} PRIVATE
      $<$<COMPILE_LANGUAGE:CUDA>:--extended-lambda --expt-relaxed-constexpr -Xcompiler=-Wall,-Wextra>)
  endif()
endfunction()

# tessera_add_test(NAME name SOURCES ... LIBS ...): one GoogleTest executable
# registered with ctest.
function(tessera_add_test)
  cmake_parse_arguments(T "" "NAME" "SOURCES;LIBS;LABELS" ${ARGN})
  find_package(GTest REQUIRED)
  add_executable(${T_NAME} ${T_SOURCES})
  tessera_sources_as_cuda(${T_SOURCES})
  target_link_libraries(${T_NAME} PRIVATE ${T_LIBS} GTest::gtest)
  tessera_target_defaults(${T_NAME})
  include(GoogleTest)
  gtest_discover_tests(${T_NAME} DISCOVERY_TIMEOUT 60 PROPERTIES LABELS "${T_LABELS}")
endfunction()
