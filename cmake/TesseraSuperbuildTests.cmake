# ctest checks of the super-build itself (label "slow": exclude with ctest -LE slow):
#  - headers_<pkg>:     every public header of <pkg> compiles alone in its own TU;
#  - examples_install:  installs this build into a temporary prefix, then builds
#                       and runs every examples/*/ project against it;
#  - find_package_all:  an outside project finds every built component, links
#                       Tessera::all_libs and runs; unknown/unbuilt components fail;
#  - superbuild_subset: configures and builds a super-build with only core and graph;
#  - superbuild_option_conflict: an explicitly disabled dependency fails configure.
# The tests that run nested builds hold the resource lock tessera_build_tree so
# that ctest -j never runs two of them at once, and reserve TESSERA_CHECK_JOBS
# processors (the nested builds' jobs), so that ctest -j 2 runs nothing beside them.
include_guard(GLOBAL)

set(_tessera_script_dir ${CMAKE_CURRENT_LIST_DIR}/scripts)
set(TESSERA_CHECK_JOBS 2 CACHE STRING "Parallel jobs of the nested builds run by the slow super-build tests")

# Flags the nested projects must share with this build (sanitizers, compilers, CUDA).
set(_tessera_forward
  -DCMAKE_BUILD_TYPE=${CMAKE_BUILD_TYPE}
  -DCMAKE_CXX_COMPILER=${CMAKE_CXX_COMPILER}
  "-DCMAKE_CXX_FLAGS=${CMAKE_CXX_FLAGS}"
  "-DCMAKE_EXE_LINKER_FLAGS=${CMAKE_EXE_LINKER_FLAGS}")
if(Tessera_ENABLE_CUDA)
  list(APPEND _tessera_forward -DCMAKE_CUDA_COMPILER=${CMAKE_CUDA_COMPILER}
       "-DCMAKE_CUDA_ARCHITECTURES=${CMAKE_CUDA_ARCHITECTURES}" "-DCMAKE_CUDA_FLAGS=${CMAKE_CUDA_FLAGS}")
endif()
# The nested builds check packaging (install, find_package, a subset
# configure, every example's CMakeLists.txt) and run small programs: they
# compile at -O0, with the build type's other flags (Release keeps NDEBUG).
# The main build compiles the libraries and the demo with the build type's
# optimization; at -O3 the examples' nested build took twice the CPU time
# (386 against 196 CPU-s, GCC 12, 2026-11-28); at -O0 its programs ran in
# 6.7 s against 5.0 s.
if(CMAKE_BUILD_TYPE AND CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
  string(TOUPPER "${CMAKE_BUILD_TYPE}" _tessera_bt)
  string(REGEX REPLACE "(^| )-O[0-9sgz]?( |$)" " " _tessera_check_flags "${CMAKE_CXX_FLAGS_${_tessera_bt}}")
  string(STRIP "${_tessera_check_flags} -O0" _tessera_check_flags)
  list(APPEND _tessera_forward "-DCMAKE_CXX_FLAGS_${_tessera_bt}=${_tessera_check_flags}")
endif()
string(REPLACE ";" "|" _tessera_forward_arg "${_tessera_forward}")
# The back-end options a nested super-build must share with this one.
set(_tessera_options "")
foreach(_opt SERIAL THREADS OPENMP CUDA BOUNDS_CHECK WERROR)
  list(APPEND _tessera_options -DTessera_ENABLE_${_opt}=${Tessera_ENABLE_${_opt}})
endforeach()
string(REPLACE ";" "|" _tessera_options_arg "${_tessera_options}")
string(REPLACE ";" "|" _tessera_enabled_arg "${TESSERA_ENABLED_PACKAGES}")
string(REPLACE ";" "|" _tessera_present_arg "${TESSERA_PRESENT_PACKAGES}")

# --- header self-containment -------------------------------------------------
foreach(_pkg IN LISTS TESSERA_ENABLED_PACKAGES)
  set(_inc ${PROJECT_SOURCE_DIR}/packages/${_pkg}/include)
  file(GLOB_RECURSE _headers CONFIGURE_DEPENDS RELATIVE ${_inc} ${_inc}/*.hpp)
  set(_tus "")
  foreach(_h IN LISTS _headers)
    # Back-end headers are only valid when their back-end is built.
    if((_h MATCHES "/backends/cuda/" AND NOT Tessera_ENABLE_CUDA)
       OR (_h MATCHES "/backends/openmp/" AND NOT Tessera_ENABLE_OPENMP)
       OR (_h MATCHES "/backends/threads/" AND NOT Tessera_ENABLE_THREADS))
      continue()
    endif()
    string(REGEX REPLACE "[/.]" "_" _stem "${_h}")
    set(_tu ${CMAKE_BINARY_DIR}/header_check/${_pkg}/${_stem}.cpp)
    # Included twice: the second inclusion checks the include guard.
    file(CONFIGURE OUTPUT ${_tu} CONTENT
         "// Generated: ${_h} must compile on its own.\n#include <${_h}>\n#include <${_h}>\n")
    list(APPEND _tus ${_tu})
  endforeach()
  if(_tus)
    add_library(tessera_header_check_${_pkg} OBJECT EXCLUDE_FROM_ALL ${_tus})
    tessera_sources_as_cuda(${_tus})
    target_link_libraries(tessera_header_check_${_pkg} PRIVATE Tessera::${_pkg})
    tessera_target_defaults(tessera_header_check_${_pkg})
    # A header either compiles alone or not: no code to optimize (-O0 after
    # the build type's -O3 takes an eighth off the check).
    if(CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
      target_compile_options(tessera_header_check_${_pkg} PRIVATE $<$<COMPILE_LANGUAGE:CXX>:-O0>)
    endif()
    add_test(NAME headers_${_pkg}
             COMMAND ${CMAKE_COMMAND} --build ${CMAKE_BINARY_DIR} --target tessera_header_check_${_pkg}
                     --parallel ${TESSERA_CHECK_JOBS})
    set_tests_properties(headers_${_pkg} PROPERTIES LABELS "slow;headers;${_pkg}" TIMEOUT 1800
                         RESOURCE_LOCK tessera_build_tree PROCESSORS ${TESSERA_CHECK_JOBS})
  endif()
endforeach()

# --- install + examples, find_package of every component -----------------------
set(_tessera_install_modes find_package)
if(Tessera_ENABLE_EXAMPLES)
  list(PREPEND _tessera_install_modes examples)
endif()
foreach(_mode IN LISTS _tessera_install_modes)
  if(_mode STREQUAL "examples")
    set(_name examples_install)
  else()
    set(_name find_package_all)
  endif()
  add_test(NAME ${_name}
           COMMAND ${CMAKE_COMMAND}
                   -DMODE=${_mode}
                   -DBUILD_DIR=${CMAKE_BINARY_DIR}
                   -DSOURCE_DIR=${PROJECT_SOURCE_DIR}
                   -DWORK_DIR=${CMAKE_BINARY_DIR}/check-${_mode}
                   -DGENERATOR=${CMAKE_GENERATOR}
                   -DMAKE_PROGRAM=${CMAKE_MAKE_PROGRAM}
                   -DJOBS=${TESSERA_CHECK_JOBS}
                   "-DENABLED=${_tessera_enabled_arg}"
                   "-DFORWARD=${_tessera_forward_arg}"
                   -P ${_tessera_script_dir}/TesseraCheckInstall.cmake)
  set_tests_properties(${_name} PROPERTIES LABELS "slow;install" TIMEOUT 2400 RESOURCE_LOCK tessera_build_tree
                                           PROCESSORS ${TESSERA_CHECK_JOBS})
endforeach()

# --- super-build subset and option conflict -------------------------------------
add_test(NAME superbuild_subset
         COMMAND ${CMAKE_COMMAND}
                 -DMODE=subset
                 -DSOURCE_DIR=${PROJECT_SOURCE_DIR}
                 -DWORK_DIR=${CMAKE_BINARY_DIR}/check-subset
                 -DGENERATOR=${CMAKE_GENERATOR}
                 -DMAKE_PROGRAM=${CMAKE_MAKE_PROGRAM}
                 -DJOBS=${TESSERA_CHECK_JOBS}
                 "-DOPTIONS=${_tessera_options_arg}"
                 "-DPRESENT=${_tessera_present_arg}"
                 "-DFORWARD=${_tessera_forward_arg}"
                 -P ${_tessera_script_dir}/TesseraCheckSuperbuild.cmake)
set_tests_properties(superbuild_subset PROPERTIES LABELS "slow;superbuild" TIMEOUT 2400
                     RESOURCE_LOCK tessera_build_tree PROCESSORS ${TESSERA_CHECK_JOBS})
add_test(NAME superbuild_option_conflict
         COMMAND ${CMAKE_COMMAND}
                 -DMODE=conflict
                 -DSOURCE_DIR=${PROJECT_SOURCE_DIR}
                 -DWORK_DIR=${CMAKE_BINARY_DIR}/check-conflict
                 -DGENERATOR=${CMAKE_GENERATOR}
                 -DMAKE_PROGRAM=${CMAKE_MAKE_PROGRAM}
                 "-DPRESENT=${_tessera_present_arg}"
                 "-DFORWARD=${_tessera_forward_arg}"
                 -P ${_tessera_script_dir}/TesseraCheckSuperbuild.cmake)
set_tests_properties(superbuild_option_conflict PROPERTIES LABELS "slow;superbuild" TIMEOUT 600)

# Every CLI with --json on a small input, its output parsed with a JSON
# parser (packages/core/tools/tests/test_cli_json.cpp): one object, the
# manuals' members, the same key for the same meaning in every CLI.
set(_cli_defs TESSERA_DATA_DIR="${PROJECT_SOURCE_DIR}/examples/data")
set(_cli_deps "")
foreach(_pair graph:tessera-graph minitri:tessera-minitri solve:tessera-solve dist:tessera-dist)
  string(REPLACE ":" ";" _pair "${_pair}")
  list(GET _pair 0 _key)
  list(GET _pair 1 _target)
  string(TOUPPER ${_key} _key)
  if(TARGET ${_target})
    list(APPEND _cli_defs TESSERA_CLI_${_key}="$<TARGET_FILE:${_target}>")
    list(APPEND _cli_deps ${_target})
  else()
    list(APPEND _cli_defs TESSERA_CLI_${_key}="")
  endif()
endforeach()
set(_cli_mpiexec "")
if(TARGET tessera-dist)
  tessera_mpiexec_command(_cli_run 2)
  string(REPLACE ";" " " _cli_mpiexec "${_cli_run}")
endif()
list(APPEND _cli_defs TESSERA_CLI_MPIEXEC="${_cli_mpiexec}")
if(_cli_deps)
  find_package(GTest REQUIRED)
  add_executable(tools_test_cli_json ${PROJECT_SOURCE_DIR}/packages/core/tools/tests/test_cli_json.cpp)
  target_link_libraries(tools_test_cli_json PRIVATE GTest::gtest_main)
  tessera_use_tools_support(tools_test_cli_json)
  tessera_target_defaults(tools_test_cli_json)
  target_compile_definitions(tools_test_cli_json PRIVATE ${_cli_defs})
  add_dependencies(tools_test_cli_json ${_cli_deps})
  add_test(NAME tools_cli_json COMMAND tools_test_cli_json)
  set_tests_properties(tools_cli_json PROPERTIES LABELS "tools;mpi" TIMEOUT 300 PROCESSORS 2
                       ENVIRONMENT "${TESSERA_MPI_TEST_ENVIRONMENT}")
endif()
