# Helpers every Tessera package calls: options, back-end configuration, package
# discovery and dependency resolution, library/test declaration, install/export.
#
# This file is used three ways: by the super-build (top-level CMakeLists.txt),
# by packages/core/CMakeLists.txt when core is configured on its own, and --
# installed next to TesseraCoreConfig.cmake -- by every other package configured
# standalone against an install prefix (find_package(TesseraCore) loads it).
#
# Guarded per directory, not GLOBAL: the file sets variables the functions
# read (TESSERA_HELPERS_DIR, TESSERA_TOOLS_SUPPORT_DIR, the test support and
# MPI test environment), and variables live in a directory's scope. A
# project that calls find_package(Tessera) in two sibling directories (the
# examples_install test adds every example folder to one project) must get
# them in both; the file only sets variables and defines functions, so
# reading it again is harmless.
include_guard(DIRECTORY)

set(TESSERA_HELPERS_DIR "${CMAKE_CURRENT_LIST_DIR}")
include(GNUInstallDirs)

# The packages in dependency order, and what each one needs directly (the map
# in ARCHITECTURE.md). Order matters: a package appears after its needs.
set(TESSERA_KNOWN_PACKAGES core mempool tasking graph sparse analytics dist kokkos_compat)
set(TESSERA_DEPS_core "")
set(TESSERA_DEPS_mempool core)
set(TESSERA_DEPS_tasking mempool core)
set(TESSERA_DEPS_graph core)
set(TESSERA_DEPS_sparse tasking graph)
set(TESSERA_DEPS_analytics graph tasking)
set(TESSERA_DEPS_dist analytics sparse graph)
set(TESSERA_DEPS_kokkos_compat core)
set(TESSERA_BACKEND_OPTIONS SERIAL THREADS OPENMP CUDA BOUNDS_CHECK)

# tessera_package_cmake_name(<pkg> <outvar>): core -> Core (TesseraCore).
function(tessera_package_cmake_name pkg outvar)
  string(SUBSTRING "${pkg}" 0 1 _first)
  string(SUBSTRING "${pkg}" 1 -1 _rest)
  string(TOUPPER "${_first}" _first)
  set(${outvar} "${_first}${_rest}" PARENT_SCOPE)
endfunction()

# tessera_package_closure(<outvar> pkg...): the packages plus everything they
# need, in dependency order.
function(tessera_package_closure outvar)
  set(_todo ${ARGN})
  set(_seen "")
  while(_todo)
    list(POP_FRONT _todo _p)
    if(NOT _p IN_LIST _seen)
      list(APPEND _seen ${_p})
      list(APPEND _todo ${TESSERA_DEPS_${_p}})
    endif()
  endwhile()
  set(_ordered "")
  foreach(_p IN LISTS TESSERA_KNOWN_PACKAGES)
    if(_p IN_LIST _seen)
      list(APPEND _ordered ${_p})
    endif()
  endforeach()
  set(${outvar} ${_ordered} PARENT_SCOPE)
endfunction()

# Build options shared by the super-build and standalone packages.
macro(tessera_declare_options)
  option(Tessera_ENABLE_SERIAL "Serial back-end (always on)" ON)
  option(Tessera_ENABLE_THREADS "std::thread back-end" ON)
  option(Tessera_ENABLE_OPENMP "OpenMP back-end" ON)
  option(Tessera_ENABLE_CUDA "CUDA back-end (needs nvcc)" OFF)
  option(Tessera_ENABLE_TESTS "Build the GoogleTest suites" ON)
  option(Tessera_ENABLE_BENCHMARKS "Build the benchmarks" OFF)
  option(Tessera_ENABLE_EXAMPLES "Build the demonstration and test the examples" ON)
  option(Tessera_ENABLE_TOOLS "Build the packages' command-line programs (tessera-graph, tessera-solve, ...)" ON)
  option(Tessera_ENABLE_BOUNDS_CHECK "Check every View index" OFF)
  option(Tessera_ENABLE_WERROR "Treat compiler warnings in Tessera's own targets as errors (CI)" OFF)
  option(Tessera_ENABLE_TEST_PCH
         "Clang builds: compile GoogleTest, core and the standard headers the tests use once, as one precompiled header that every test program reuses" ON)
  set(Tessera_TEST_WITHOUT_SERIAL_IN "" CACHE STRING
      "Packages whose typed test suites leave Serial out when Threads is built (a sanitizer row's time; see tessera_test_spaces)")
  if(NOT CMAKE_BUILD_TYPE AND NOT CMAKE_CONFIGURATION_TYPES)
    set(CMAKE_BUILD_TYPE Release CACHE STRING "Build type" FORCE)
  endif()
endmacro()

macro(tessera_set_language_standards)
  set(CMAKE_CXX_STANDARD 20)
  set(CMAKE_CXX_STANDARD_REQUIRED ON)
  set(CMAKE_CXX_EXTENSIONS OFF)
  # The CUDA standard is set by tessera_enable_cuda_language, after
  # enable_language(CUDA): CMake's compiler checks must not need it.
endmacro()

# Enables the CUDA language (needs to happen in every project that compiles
# Tessera kernels with nvcc); a clear error if nvcc cannot be found.
macro(tessera_enable_cuda_language)
  if(NOT CMAKE_CUDA_COMPILER_LOADED)
    if(NOT CMAKE_CUDA_COMPILER AND EXISTS /usr/local/cuda/bin/nvcc)
      set(CMAKE_CUDA_COMPILER /usr/local/cuda/bin/nvcc)
    endif()
    include(CheckLanguage)
    check_language(CUDA)
    if(NOT CMAKE_CUDA_COMPILER)
      message(FATAL_ERROR "Tessera_ENABLE_CUDA=ON but no CUDA compiler (nvcc) was found. "
                          "Install the CUDA toolkit or set CMAKE_CUDA_COMPILER=/path/to/nvcc.")
    endif()
    if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
      # Hopper by default (the project's GPU); override with -DCMAKE_CUDA_ARCHITECTURES.
      set(CMAKE_CUDA_ARCHITECTURES 90)
    endif()
    enable_language(CUDA)
  endif()
  # CMake 3.25 does not know nvcc's C++20 flag (3.26 does): teach it.
  if(NOT CMAKE_CUDA20_STANDARD_COMPILE_OPTION)
    set(CMAKE_CUDA20_STANDARD_COMPILE_OPTION "-std=c++20")
    set(CMAKE_CUDA20_EXTENSION_COMPILE_OPTION "-std=c++20")
  endif()
  set(CMAKE_CUDA_STANDARD 20)
  set(CMAKE_CUDA_STANDARD_REQUIRED ON)
  set(CMAKE_CUDA_EXTENSIONS OFF)
endmacro()

# Finds what the enabled back-ends need and generates <tessera/config.hpp>.
# Called once, by the super-build or by core configured on its own.
macro(tessera_configure_backends)
  tessera_set_language_standards()
  find_package(Threads REQUIRED)
  if(NOT Tessera_ENABLE_SERIAL)
    message(STATUS "Tessera: the Serial back-end is always built")
    set(Tessera_ENABLE_SERIAL ON CACHE BOOL "Serial back-end (always on)" FORCE)
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
    tessera_enable_cuda_language()
    find_package(CUDAToolkit REQUIRED)
  endif()
  foreach(_b IN LISTS TESSERA_BACKEND_OPTIONS)
    set(TESSERA_ENABLE_${_b} ${Tessera_ENABLE_${_b}})
  endforeach()
  set(TESSERA_GENERATED_INCLUDE_DIR ${CMAKE_BINARY_DIR}/generated/include)
  configure_file(${TESSERA_HELPERS_DIR}/config.hpp.in
                 ${TESSERA_GENERATED_INCLUDE_DIR}/tessera/config.hpp)
  set(_tessera_backends "")
  foreach(_b SERIAL THREADS OPENMP CUDA)
    if(Tessera_ENABLE_${_b})
      list(APPEND _tessera_backends ${_b})
    endif()
  endforeach()
  message(STATUS "Tessera back-ends: ${_tessera_backends} (hwloc: ${TESSERA_HAVE_HWLOC}, "
                 "bounds check: ${Tessera_ENABLE_BOUNDS_CHECK})")
endmacro()

# Super-build: offers Tessera_ENABLE_<PKG> for every package present under
# packages/, and resolves the dependency graph.
#
# Tessera_ENABLE_<PKG> is ON, OFF or empty (the default: follow
# Tessera_ENABLE_ALL_PACKAGES, which is ON). Rules, as in TriBITS:
#  - a package explicitly ON enables everything it needs;
#  - if something it needs is explicitly OFF, configuration fails naming both;
#  - a package left at its default is dropped (with a message) when something
#    it needs is explicitly OFF or absent.
# Afterwards Tessera_ENABLE_<PKG> is a normal variable ON/OFF for every known
# package, and TESSERA_ENABLED_PACKAGES lists the enabled ones in order.
macro(tessera_resolve_packages)
  option(Tessera_ENABLE_ALL_PACKAGES "Enable every package not explicitly set with Tessera_ENABLE_<PKG>" ON)
  set(TESSERA_PRESENT_PACKAGES "")
  foreach(_p IN LISTS TESSERA_KNOWN_PACKAGES)
    string(TOUPPER ${_p} _P)
    set(_present OFF)
    if(EXISTS ${PROJECT_SOURCE_DIR}/packages/${_p}/CMakeLists.txt)
      set(_present ON)
      # dist exists only where MPI does: without it the package is absent
      # (no option), said in one line.
      if(_p STREQUAL "dist")
        find_package(MPI QUIET COMPONENTS CXX)
        if(NOT MPI_CXX_FOUND)
          set(_present OFF)
          message(STATUS "Tessera: package 'dist' absent: no MPI found (Debian 12: apt-get install libopenmpi-dev openmpi-bin)")
        endif()
      endif()
    endif()
    if(_present)
      list(APPEND TESSERA_PRESENT_PACKAGES ${_p})
      set(Tessera_ENABLE_${_P} "" CACHE STRING
          "Build package ${_p}: ON, OFF, or empty to follow Tessera_ENABLE_ALL_PACKAGES")
      set_property(CACHE Tessera_ENABLE_${_P} PROPERTY STRINGS "" ON OFF)
    elseif(DEFINED CACHE{Tessera_ENABLE_${_P}} AND "$CACHE{Tessera_ENABLE_${_P}}")
      message(FATAL_ERROR "Tessera_ENABLE_${_P}=$CACHE{Tessera_ENABLE_${_P}} but package '${_p}' is not "
                          "in this source tree (no packages/${_p}/CMakeLists.txt).")
    endif()
  endforeach()
  tessera_resolve_package_graph()
endmacro()

function(tessera_resolve_package_graph)
  # 1. Classify each present package: explicit ON / explicit OFF / default.
  set(_explicit_on "")
  set(_explicit_off "")
  set(_default "")
  foreach(_p IN LISTS TESSERA_PRESENT_PACKAGES)
    string(TOUPPER ${_p} _P)
    set(_v "$CACHE{Tessera_ENABLE_${_P}}")
    if(_v STREQUAL "")
      list(APPEND _default ${_p})
    elseif(_v)
      list(APPEND _explicit_on ${_p})
    else()
      list(APPEND _explicit_off ${_p})
    endif()
  endforeach()
  # 2. Explicitly enabled packages pull in what they need.
  set(_enabled "")
  foreach(_p IN LISTS _explicit_on)
    string(TOUPPER ${_p} _P)
    tessera_package_closure(_need ${_p})
    foreach(_d IN LISTS _need)
      string(TOUPPER ${_d} _D)
      if(_d IN_LIST _explicit_off)
        message(FATAL_ERROR "Tessera: package '${_p}' (Tessera_ENABLE_${_P}=ON) needs '${_d}', but "
                            "Tessera_ENABLE_${_D}=OFF was set explicitly. Enable ${_d} (or clear "
                            "Tessera_ENABLE_${_D}) or disable ${_p}.")
      endif()
      if(NOT _d IN_LIST TESSERA_PRESENT_PACKAGES)
        message(FATAL_ERROR "Tessera: package '${_p}' needs '${_d}', which is not in this source tree.")
      endif()
      list(APPEND _enabled ${_d})
    endforeach()
  endforeach()
  # 3. Default packages follow Tessera_ENABLE_ALL_PACKAGES unless something they
  #    need is off or missing.
  if(Tessera_ENABLE_ALL_PACKAGES)
    foreach(_p IN LISTS _default)
      tessera_package_closure(_need ${_p})
      set(_blocked "")
      foreach(_d IN LISTS _need)
        if(_d IN_LIST _explicit_off OR NOT _d IN_LIST TESSERA_PRESENT_PACKAGES)
          list(APPEND _blocked ${_d})
        endif()
      endforeach()
      if(_blocked)
        string(REPLACE ";" ", " _blocked "${_blocked}")
        message(STATUS "Tessera: package '${_p}' disabled because it needs ${_blocked} (disabled or absent)")
      else()
        list(APPEND _enabled ${_need})
      endif()
    endforeach()
  endif()
  list(REMOVE_DUPLICATES _enabled)
  set(_ordered "")
  foreach(_p IN LISTS TESSERA_KNOWN_PACKAGES)
    string(TOUPPER ${_p} _P)
    if(_p IN_LIST _enabled)
      list(APPEND _ordered ${_p})
      set(Tessera_ENABLE_${_P} ON PARENT_SCOPE)
    else()
      set(Tessera_ENABLE_${_P} OFF PARENT_SCOPE)
    endif()
  endforeach()
  if(NOT _ordered)
    message(FATAL_ERROR "Tessera: no package is enabled (Tessera_ENABLE_ALL_PACKAGES=${Tessera_ENABLE_ALL_PACKAGES}, "
                        "present: ${TESSERA_PRESENT_PACKAGES}). Enable at least one, e.g. -DTessera_ENABLE_CORE=ON.")
  endif()
  set(TESSERA_ENABLED_PACKAGES ${_ordered} PARENT_SCOPE)
  set(TESSERA_PRESENT_PACKAGES ${TESSERA_PRESENT_PACKAGES} PARENT_SCOPE)
  string(REPLACE ";" " " _msg "${_ordered}")
  message(STATUS "Tessera packages enabled: ${_msg}")
endfunction()

# tessera_package(<pkg>): first call in every packages/<pkg>/CMakeLists.txt,
# after project(). Inside the super-build it only records the package name.
# Standalone it declares the options, sets the language standards, enables
# CUDA when the installed core was built with it, turns on testing and finds
# the Tessera packages <pkg> needs (their config files find the rest).
macro(tessera_package pkg)
  set(TESSERA_CURRENT_PACKAGE ${pkg})
  if(NOT Tessera_IN_SUPERBUILD)
    tessera_declare_options()
    if("${pkg}" STREQUAL "core")
      tessera_configure_backends()
    else()
      tessera_set_language_standards()
      if(Tessera_ENABLE_CUDA)
        tessera_enable_cuda_language()
      endif()
      foreach(_tessera_dep IN LISTS TESSERA_DEPS_${pkg})
        tessera_package_cmake_name(${_tessera_dep} _tessera_dep_name)
        find_package(Tessera${_tessera_dep_name} ${PROJECT_VERSION} REQUIRED)
      endforeach()
    endif()
    if(Tessera_ENABLE_TESTS)
      enable_testing()
    endif()
  endif()
endmacro()

# tessera_data_dir(): sets the cache variable TESSERA_DATA_DIR to the
# repository's examples/data (the test data kept in the repository). Every
# package folder sits two levels below the repository root, in the
# super-build and when the package is configured on its own.
macro(tessera_data_dir)
  get_filename_component(_tessera_repo_root ${CMAKE_CURRENT_SOURCE_DIR}/../.. ABSOLUTE)
  set(TESSERA_DATA_DIR "${_tessera_repo_root}/examples/data" CACHE PATH
      "The repository's test data (graphs/, matrices/); a missing file fails its test")
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
  # GCC 12 at -O2/-O3 reports -Wrestrict inside libstdc++'s std::string
  # operator+ (a false positive, GCC bug 105651, fixed in GCC 13).
  target_compile_options(${target} PRIVATE
    $<$<AND:$<COMPILE_LANG_AND_ID:CXX,GNU>,$<VERSION_LESS:$<CXX_COMPILER_VERSION>,13>>:-Wno-restrict>)
  if(Tessera_ENABLE_WERROR)
    target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:CXX>:-Werror>)
  endif()
  if(Tessera_ENABLE_CUDA)
    target_compile_options(${target} PRIVATE
      $<$<COMPILE_LANGUAGE:CUDA>:--extended-lambda --expt-relaxed-constexpr -Xcompiler=-Wall,-Wextra>)
    if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
      # nvcc's host compiler is GCC 12 too: same false positive as above.
      target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-Wno-restrict>)
    endif()
    if(Tessera_ENABLE_WERROR)
      target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-Werror>)
    endif()
  endif()
endfunction()

# Splits a source list: cuda_*.cpp and *.cu files are CUDA back-end code; they
# are compiled by nvcc when the CUDA back-end is on and left out otherwise.
function(tessera_filter_cuda_sources outvar)
  set(_kept "")
  foreach(_s IN LISTS ARGN)
    get_filename_component(_n "${_s}" NAME)
    if(_n MATCHES "^cuda_.*\\.cpp$" OR _n MATCHES "\\.cu$")
      if(Tessera_ENABLE_CUDA)
        set_source_files_properties(${_s} PROPERTIES LANGUAGE CUDA)
        list(APPEND _kept ${_s})
      endif()
    else()
      list(APPEND _kept ${_s})
    endif()
  endforeach()
  set(${outvar} ${_kept} PARENT_SCOPE)
endfunction()

# tessera_add_package_library(NAME <pkg>
#     [SOURCES src...]          compiled sources; none = header-only (INTERFACE) library
#     [HEADERS_DIR include]     public headers, installed under include/
#     [DEPENDS core ...]        Tessera packages linked PUBLIC (Tessera::<dep>)
#     [PUBLIC_LIBS ...] [PRIVATE_LIBS ...]   other link dependencies
#     [CONFIG_CODE "..."])      CMake code for the installed Tessera<Pkg>Config.cmake,
#                               e.g. "find_dependency(MPI)" for external libraries
# Declares tessera_<pkg> with ALIAS Tessera::<pkg>, installs it with its
# headers, and writes Tessera<Pkg>Config.cmake (+ version file) both into the
# install tree and into <build>/lib/cmake/Tessera<Pkg> (build-tree export).
function(tessera_add_package_library)
  cmake_parse_arguments(A "" "NAME;HEADERS_DIR" "SOURCES;DEPENDS;PUBLIC_LIBS;PRIVATE_LIBS;CONFIG_CODE" ${ARGN})
  if(NOT A_NAME)
    message(FATAL_ERROR "tessera_add_package_library: NAME is required")
  endif()
  if(NOT A_HEADERS_DIR)
    set(A_HEADERS_DIR include)
  endif()
  if(NOT A_DEPENDS)
    set(A_DEPENDS ${TESSERA_DEPS_${A_NAME}})
  endif()
  set(_tgt tessera_${A_NAME})
  tessera_filter_cuda_sources(_srcs ${A_SOURCES})
  if(_srcs)
    add_library(${_tgt} ${_srcs})
    set(_scope PUBLIC)
    tessera_target_defaults(${_tgt})
    set_target_properties(${_tgt} PROPERTIES POSITION_INDEPENDENT_CODE ON)
  else()
    add_library(${_tgt} INTERFACE)
    set(_scope INTERFACE)
  endif()
  add_library(Tessera::${A_NAME} ALIAS ${_tgt})
  set_target_properties(${_tgt} PROPERTIES EXPORT_NAME ${A_NAME})
  target_include_directories(${_tgt} ${_scope}
    $<BUILD_INTERFACE:${CMAKE_CURRENT_SOURCE_DIR}/${A_HEADERS_DIR}>
    $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
  target_compile_features(${_tgt} ${_scope} cxx_std_20)
  foreach(_d IN LISTS A_DEPENDS)
    target_link_libraries(${_tgt} ${_scope} Tessera::${_d})
  endforeach()
  if(A_PUBLIC_LIBS)
    target_link_libraries(${_tgt} ${_scope} ${A_PUBLIC_LIBS})
  endif()
  if(A_PRIVATE_LIBS)
    if(_srcs)
      target_link_libraries(${_tgt} PRIVATE ${A_PRIVATE_LIBS})
    else()
      message(FATAL_ERROR "tessera_add_package_library(${A_NAME}): PRIVATE_LIBS needs SOURCES")
    endif()
  endif()

  # Install and export.
  tessera_package_cmake_name(${A_NAME} _Name)
  set(_pkgname Tessera${_Name})
  set(_destdir ${CMAKE_INSTALL_LIBDIR}/cmake/${_pkgname})
  install(TARGETS ${_tgt} EXPORT ${_pkgname}Targets
          ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
          LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
          RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
          INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
  install(DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR}/${A_HEADERS_DIR}/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
          FILES_MATCHING PATTERN "*.hpp" PATTERN "*.h" PATTERN "*.inl")
  install(EXPORT ${_pkgname}Targets NAMESPACE Tessera:: DESTINATION ${_destdir})
  set(_build_cfg_dir ${CMAKE_BINARY_DIR}/${CMAKE_INSTALL_LIBDIR}/cmake/${_pkgname})
  export(EXPORT ${_pkgname}Targets NAMESPACE Tessera:: FILE ${_build_cfg_dir}/${_pkgname}Targets.cmake)

  set(TESSERA_COMPONENT ${A_NAME})
  set(TESSERA_COMPONENT_PACKAGE ${_pkgname})
  set(TESSERA_COMPONENT_DEPENDS "")
  foreach(_d IN LISTS A_DEPENDS)
    tessera_package_cmake_name(${_d} _DName)
    string(APPEND TESSERA_COMPONENT_DEPENDS "find_dependency(Tessera${_DName} ${PROJECT_VERSION})\n")
  endforeach()
  string(JOIN "\n" TESSERA_COMPONENT_CONFIG_CODE ${A_CONFIG_CODE})
  set(TESSERA_COMPONENT_IS_CORE FALSE)
  if(A_NAME STREQUAL "core")
    set(TESSERA_COMPONENT_IS_CORE TRUE)
    tessera_core_config_code(_core_code)
    string(PREPEND TESSERA_COMPONENT_CONFIG_CODE "${_core_code}\n")
  endif()
  # Installed config: helpers sit next to it.
  set(TESSERA_CONFIG_HELPERS_DIR "\${CMAKE_CURRENT_LIST_DIR}")
  configure_file(${TESSERA_HELPERS_DIR}/TesseraComponentConfig.cmake.in
                 ${CMAKE_CURRENT_BINARY_DIR}/install-config/${_pkgname}Config.cmake @ONLY)
  # Build-tree config: helpers from the source tree.
  set(TESSERA_CONFIG_HELPERS_DIR "${TESSERA_HELPERS_DIR}")
  configure_file(${TESSERA_HELPERS_DIR}/TesseraComponentConfig.cmake.in
                 ${_build_cfg_dir}/${_pkgname}Config.cmake @ONLY)
  include(CMakePackageConfigHelpers)
  write_basic_package_version_file(${_build_cfg_dir}/${_pkgname}ConfigVersion.cmake
                                   VERSION ${PROJECT_VERSION} COMPATIBILITY SameMajorVersion)
  install(FILES ${CMAKE_CURRENT_BINARY_DIR}/install-config/${_pkgname}Config.cmake
                ${_build_cfg_dir}/${_pkgname}ConfigVersion.cmake
          DESTINATION ${_destdir})
  set_property(GLOBAL APPEND PROPERTY TESSERA_BUILT_PACKAGES ${A_NAME})
endfunction()

# The part of TesseraCoreConfig.cmake that restores the back-end facts and
# finds what core's link interface needs.
function(tessera_core_config_code outvar)
  set(_c "# Back-ends and facts this Tessera was built with (same as <tessera/config.hpp>).\n")
  foreach(_b IN LISTS TESSERA_BACKEND_OPTIONS)
    if(Tessera_ENABLE_${_b})
      string(APPEND _c "set(Tessera_ENABLE_${_b} ON)\n")
    else()
      string(APPEND _c "set(Tessera_ENABLE_${_b} OFF)\n")
    endif()
  endforeach()
  string(APPEND _c "set(Tessera_HAVE_HWLOC ${TESSERA_HAVE_HWLOC})\n")
  string(APPEND _c "set(Tessera_CXX_COMPILER_ID \"${CMAKE_CXX_COMPILER_ID}\")\n")
  string(APPEND _c "set(Tessera_CXX_STANDARD 20)\n")
  string(APPEND _c "set(THREADS_PREFER_PTHREAD_FLAG ON)\nfind_dependency(Threads)\n")
  if(Tessera_ENABLE_OPENMP)
    string(APPEND _c "find_dependency(OpenMP COMPONENTS CXX)\n")
  endif()
  if(TESSERA_HAVE_HWLOC)
    string(APPEND _c "find_dependency(PkgConfig)\n"
                     "if(NOT TARGET PkgConfig::HWLOC)\n"
                     "  pkg_check_modules(HWLOC REQUIRED IMPORTED_TARGET hwloc)\n"
                     "endif()\n")
  endif()
  if(Tessera_ENABLE_CUDA)
    # A consumer compiles its kernels with nvcc as Tessera was: CUDA enabled
    # here (the architectures Tessera was built for unless the project set
    # its own, and nvcc's C++20 flag, which CMake 3.25 does not know).
    string(APPEND _c "set(Tessera_CUDA_ARCHITECTURES \"${CMAKE_CUDA_ARCHITECTURES}\")\n"
                     "if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)\n"
                     "  set(CMAKE_CUDA_ARCHITECTURES \"\${Tessera_CUDA_ARCHITECTURES}\")\n"
                     "endif()\n"
                     "tessera_enable_cuda_language()\n"
                     "find_dependency(CUDAToolkit)\n")
  endif()
  set(${outvar} "${_c}" PARENT_SCOPE)
endfunction()

# Called once by core: installs <tessera/config.hpp>, these helpers (so that
# packages configure standalone against the prefix), the test support files,
# and the umbrella TesseraConfig.cmake (build tree and install tree).
function(tessera_install_common)
  install(FILES ${TESSERA_GENERATED_INCLUDE_DIR}/tessera/config.hpp
          DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/tessera)
  set(_core_cfg ${CMAKE_INSTALL_LIBDIR}/cmake/TesseraCore)
  install(FILES ${TESSERA_HELPERS_DIR}/TesseraHelpers.cmake ${TESSERA_HELPERS_DIR}/lsan-openmpi.supp
                ${TESSERA_HELPERS_DIR}/TesseraCheckCommand.cmake ${TESSERA_HELPERS_DIR}/TesseraBLAS.cmake
                ${TESSERA_HELPERS_DIR}/TesseraComponentConfig.cmake.in
                ${TESSERA_HELPERS_DIR}/TesseraConfig.cmake.in
                ${TESSERA_HELPERS_DIR}/config.hpp.in
          DESTINATION ${_core_cfg})
  install(FILES ${TESSERA_TEST_SUPPORT_SOURCES} DESTINATION ${_core_cfg}/testing)
  install(DIRECTORY ${TESSERA_TOOLS_SUPPORT_DIR}/tessera DESTINATION ${_core_cfg}/tools)

  set(_dest ${CMAKE_INSTALL_LIBDIR}/cmake/Tessera)
  set(_build_dir ${CMAKE_BINARY_DIR}/${CMAKE_INSTALL_LIBDIR}/cmake/Tessera)
  string(REPLACE ";" " " TESSERA_KNOWN_PACKAGES_STR "${TESSERA_KNOWN_PACKAGES}")
  configure_file(${TESSERA_HELPERS_DIR}/TesseraConfig.cmake.in ${_build_dir}/TesseraConfig.cmake @ONLY)
  include(CMakePackageConfigHelpers)
  write_basic_package_version_file(${_build_dir}/TesseraConfigVersion.cmake
                                   VERSION ${PROJECT_VERSION} COMPATIBILITY SameMajorVersion)
  install(FILES ${_build_dir}/TesseraConfig.cmake ${_build_dir}/TesseraConfigVersion.cmake DESTINATION ${_dest})
endfunction()

# The command-line support every Tessera program shares (the CLIs, the demo,
# the benchmarks): CLI11 parsing with the --tessera-* flags taken out first,
# the nlohmann-json writer, progress on stderr and result digests
# (<tessera/tools/*.hpp>). packages/core/tools/support in the source tree,
# <prefix>/lib/cmake/TesseraCore/tools once installed.
if(EXISTS ${TESSERA_HELPERS_DIR}/../packages/core/tools/support/tessera/tools/cli.hpp)
  get_filename_component(TESSERA_TOOLS_SUPPORT_DIR ${TESSERA_HELPERS_DIR}/../packages/core/tools/support ABSOLUTE)
else()
  set(TESSERA_TOOLS_SUPPORT_DIR ${TESSERA_HELPERS_DIR}/tools)
endif()

# tessera_use_tools_support(<target>): <tessera/tools/*.hpp> on the target's
# include path, with CLI11 (Debian libcli11-dev) and nlohmann-json (Debian
# nlohmann-json3-dev), both header-only.
function(tessera_use_tools_support target)
  find_package(CLI11 REQUIRED CONFIG)
  find_package(nlohmann_json 3.10 REQUIRED CONFIG)
  target_include_directories(${target} PRIVATE ${TESSERA_TOOLS_SUPPORT_DIR})
  target_link_libraries(${target} PRIVATE CLI11::CLI11 nlohmann_json::nlohmann_json)
endfunction()

# What every test process that starts Tessera gets in its environment (not
# MPI runs): hwloc without its plugins. Tessera asks hwloc only for the
# CPUs' order, which its built-in Linux discovery gives; the plugins (PCI,
# OpenCL, GL, libxml2 with ICU's data) cost 12-35 ms at the first topology
# of every process, a tenth of a do-nothing test case, and find nothing
# Tessera reads. Programs users run keep hwloc's defaults: a library must
# not set another library's environment (Open MPI reads the same hwloc).
set(TESSERA_TEST_ENVIRONMENT_MODIFICATION
    "HWLOC_PLUGINS_BLACKLIST=set:hwloc_pci,hwloc_opencl,hwloc_gl,hwloc_xml_libxml")

# tessera_add_cli_test(NAME <name> EXIT <status|nonzero> [STDERR <regex>...]
#                      [NOT_STDERR <regex>...] [STDOUT <regex>...] [STDOUT_EMPTY] [TIMEOUT <s>] [LABELS ...]
#                      [ENVIRONMENT ...] [PROCESSORS <n>] COMMAND <program> <args>...):
# a ctest test that runs a program (a CLI or its target name, or mpiexec and a program) and
# checks its exit status and what it printed. The command is killed after
# TIMEOUT seconds (default 120) and the test fails saying so, so a hang is a
# failure with a message, not a stall of the suite.
function(tessera_add_cli_test)
  cmake_parse_arguments(T "STDOUT_EMPTY" "NAME;EXIT;TIMEOUT;PROCESSORS" "STDERR;NOT_STDERR;STDOUT;LABELS;ENVIRONMENT;COMMAND"
                        ${ARGN})
  if(NOT T_TIMEOUT)
    set(T_TIMEOUT 120)
  endif()
  # A target name as the program, as add_test takes it.
  list(GET T_COMMAND 0 _program)
  if(TARGET ${_program})
    list(POP_FRONT T_COMMAND)
    list(PREPEND T_COMMAND "$<TARGET_FILE:${_program}>")
  endif()
  string(ASCII 31 _sep)
  foreach(_v COMMAND STDERR NOT_STDERR STDOUT)
    string(REPLACE ";" "${_sep}" _${_v} "${T_${_v}}")
  endforeach()
  set(_empty OFF)
  if(T_STDOUT_EMPTY)
    set(_empty ON)
  endif()
  add_test(NAME ${T_NAME}
           COMMAND ${CMAKE_COMMAND} "-DCOMMAND=${_COMMAND}" "-DEXIT=${T_EXIT}" "-DSTDERR=${_STDERR}"
                   "-DNOT_STDERR=${_NOT_STDERR}" "-DSTDOUT=${_STDOUT}" -DSTDOUT_EMPTY=${_empty} -DTIMEOUT=${T_TIMEOUT}
                   -P ${TESSERA_HELPERS_DIR}/TesseraCheckCommand.cmake)
  set(_labels ${T_LABELS})
  if(TESSERA_CURRENT_PACKAGE)
    list(APPEND _labels ${TESSERA_CURRENT_PACKAGE})
  endif()
  math(EXPR _ctest_timeout "${T_TIMEOUT} + 30")
  set_tests_properties(${T_NAME} PROPERTIES LABELS "${_labels}" TIMEOUT ${_ctest_timeout})
  if(T_ENVIRONMENT)
    set_tests_properties(${T_NAME} PROPERTIES ENVIRONMENT "${T_ENVIRONMENT}")
  endif()
  if(NOT _program MATCHES "mpiexec|mpirun")
    set_tests_properties(${T_NAME} PROPERTIES ENVIRONMENT_MODIFICATION "${TESSERA_TEST_ENVIRONMENT_MODIFICATION}")
  endif()
  if(T_PROCESSORS)
    set_tests_properties(${T_NAME} PROPERTIES PROCESSORS ${T_PROCESSORS})
  endif()
endfunction()

# The GoogleTest main and typed-test helpers shared by every package's tests:
# packages/core/tests in the source tree, <prefix>/lib/cmake/TesseraCore/testing
# once installed.
if(EXISTS ${TESSERA_HELPERS_DIR}/../packages/core/tests/test_main.cpp)
  get_filename_component(TESSERA_TEST_SUPPORT_DIR ${TESSERA_HELPERS_DIR}/../packages/core/tests ABSOLUTE)
else()
  set(TESSERA_TEST_SUPPORT_DIR ${TESSERA_HELPERS_DIR}/testing)
endif()
# test_main.cpp and every tessera_test_*.hpp helper header next to it.
file(GLOB TESSERA_TEST_SUPPORT_SOURCES ${TESSERA_TEST_SUPPORT_DIR}/tessera_test_*.hpp)
list(PREPEND TESSERA_TEST_SUPPORT_SOURCES ${TESSERA_TEST_SUPPORT_DIR}/test_main.cpp)

# The tests' shared precompiled header (Tessera_ENABLE_TEST_PCH), in Clang
# builds: tessera_test_main compiles tessera_test_pch.hpp (GoogleTest,
# tessera/core.hpp, the standard headers) once, and every test program made
# by tessera_add_test that links tessera_test_main reuses it. Measured
# 2026-12-02, Clang 14 with the asan row's flags: core's deep_copy test 14.1
# against 11.9 s, sparse's LDL^T test 11.3 against 9.6, tasking's portable
# test 8.2 against 6.9 (the header itself 3.7 s, once). GCC 12 gains
# nothing: the README test's 108 test sources took 1,439 CPU-s with its
# 150 MB precompiled header against 1,441 without. A reused header must be
# compiled with the test programs' own flags, hence the same optimization on
# tessera_test_main. Not under nvcc (CMake has no CUDA precompiled headers).
# A source that must see its own macros before any Tessera header
# (test_bounds_check.cpp defines TESSERA_ENABLE_BOUNDS_CHECK) sets
# SKIP_PRECOMPILE_HEADERS. The header checks (headers_<pkg>) never use it:
# they check that each header compiles alone.
function(tessera_test_pch_enabled outvar)
  if(Tessera_ENABLE_TEST_PCH AND NOT Tessera_ENABLE_CUDA AND CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    set(${outvar} ON PARENT_SCOPE)
  else()
    set(${outvar} OFF PARENT_SCOPE)
  endif()
endfunction()

# tessera_test_main: static library with the GoogleTest main() (initializes the
# runtime) and tessera_test_spaces.hpp on its include path. Link it (or its
# alias Tessera::test_main) from any package's tests; defined on first use.
function(tessera_ensure_test_main)
  if(TARGET tessera_test_main)
    return()
  endif()
  find_package(GTest REQUIRED)
  add_library(tessera_test_main STATIC ${TESSERA_TEST_SUPPORT_DIR}/test_main.cpp)
  tessera_sources_as_cuda(${TESSERA_TEST_SUPPORT_DIR}/test_main.cpp)
  target_link_libraries(tessera_test_main PUBLIC Tessera::core GTest::gtest)
  target_include_directories(tessera_test_main PUBLIC ${TESSERA_TEST_SUPPORT_DIR})
  tessera_target_defaults(tessera_test_main)
  tessera_test_optimization(tessera_test_main)
  tessera_test_pch_enabled(_pch)
  if(_pch)
    target_precompile_headers(tessera_test_main PRIVATE ${TESSERA_TEST_SUPPORT_DIR}/tessera_test_pch.hpp)
  endif()
  set_target_properties(tessera_test_main PROPERTIES CUDA_ARCHITECTURES "${CMAKE_CUDA_ARCHITECTURES}")
  add_library(Tessera::test_main ALIAS tessera_test_main)
endfunction()

# Test programs check behaviour, not speed: in Release builds GCC compiles
# them at -Og and Clang at -O1 instead of -O3 (the option comes after the
# build type's flags, and the last -O wins). The typed suites instantiate
# every algorithm for every back-end, and compiling them is most of a 2-core
# CI's build. History, GCC 12: the 90 test sources of the host build took
# 1,556 CPU-s at -O1 (2,122 at -O2, 2,647 at -O3; 2026-11-28/29), their
# non-slow cases ran in 218 CPU-s at -O1 against 186 at -O2. -Og (GCC's -O1
# without the passes that get in a debugger's way) against -O1, side by side
# on 2026-12-02: graph's algorithm test 66 against 94 s, core's sort 30
# against 41, sparse's device Cholesky 25 against 32, tasking's kernel graphs
# 25 against 27; the README test's main build 16.7 min against 19.7 (its 108
# test sources 1,411 CPU-s against 1,811), and its 1,622 non-slow cases ran
# in 296 s against 283 (summed over ctest -j 2). Clang's -Og is its -O1.
# Every package's build passes -Werror at -Og.
# Libraries, tools, examples and benchmarks keep the build type's flags,
# and the CLI tests run the tools.
function(tessera_test_optimization target)
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    target_compile_options(${target} PRIVATE $<$<AND:$<COMPILE_LANGUAGE:CXX>,$<CONFIG:Release>>:-Og>)
  elseif(CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    target_compile_options(${target} PRIVATE $<$<AND:$<COMPILE_LANGUAGE:CXX>,$<CONFIG:Release>>:-O1>)
  endif()
endfunction()

# tessera_test_spaces(target): the back-ends the target's typed suites run
# on (tessera_test_spaces.hpp: every enabled one). A package named in
# Tessera_TEST_WITHOUT_SERIAL_IN runs them on Threads and the others but not
# Serial, when Threads is built. For the ASan row (ci/matrix.sh): the
# algorithm packages above the runtime run the same code on one worker or
# two, so their Serial half repeated the Threads half under the sanitizer;
# core, mempool and tasking, whose Serial back-end or driver is code of its
# own, keep it.
function(tessera_test_spaces target)
  if(Tessera_ENABLE_THREADS AND TESSERA_CURRENT_PACKAGE AND TESSERA_CURRENT_PACKAGE IN_LIST Tessera_TEST_WITHOUT_SERIAL_IN)
    target_compile_definitions(${target} PRIVATE TESSERA_TEST_WITHOUT_SERIAL)
  endif()
endfunction()

# tessera_add_test(NAME name SOURCES ... LIBS ... [LABELS ...]): one GoogleTest
# executable registered with ctest (each test case discovered separately).
# Every test gets the label of its package (e.g. "core"); add "concurrency" to
# tests that exercise threads racing each other (the ThreadSanitizer CI row
# runs exactly those), "slow" to tests excluded from quick runs.
function(tessera_add_test)
  cmake_parse_arguments(T "" "NAME;TIMEOUT" "SOURCES;LIBS;LABELS" ${ARGN})
  find_package(GTest REQUIRED)
  if("tessera_test_main" IN_LIST T_LIBS OR "Tessera::test_main" IN_LIST T_LIBS)
    tessera_ensure_test_main()
  endif()
  add_executable(${T_NAME} ${T_SOURCES})
  tessera_sources_as_cuda(${T_SOURCES})
  target_link_libraries(${T_NAME} PRIVATE ${T_LIBS} GTest::gtest)
  tessera_target_defaults(${T_NAME})
  tessera_test_optimization(${T_NAME})
  tessera_test_spaces(${T_NAME})
  tessera_test_pch_enabled(_pch)
  if(_pch AND ("tessera_test_main" IN_LIST T_LIBS OR "Tessera::test_main" IN_LIST T_LIBS))
    target_precompile_headers(${T_NAME} REUSE_FROM tessera_test_main)
  endif()
  set(_labels ${T_LABELS})
  if(TESSERA_CURRENT_PACKAGE)
    list(APPEND _labels ${TESSERA_CURRENT_PACKAGE})
  endif()
  if(NOT T_TIMEOUT)
    set(T_TIMEOUT 300)
  endif()
  # tessera_concurrency_tests builds exactly the executables the
  # ThreadSanitizer row runs, so that row compiles nothing else.
  if("concurrency" IN_LIST _labels)
    if(NOT TARGET tessera_concurrency_tests)
      add_custom_target(tessera_concurrency_tests)
    endif()
    add_dependencies(tessera_concurrency_tests ${T_NAME})
  endif()
  include(GoogleTest)
  # Labels and timeout are set by a script ctest reads after the discovered
  # tests: gtest_discover_tests (CMake 3.25) splits its PROPERTIES on ";", so
  # a list of labels given there keeps only the first and loses TIMEOUT.
  gtest_discover_tests(${T_NAME} DISCOVERY_TIMEOUT 60 TEST_LIST ${T_NAME}_TESTS)
  set(_props "${CMAKE_CURRENT_BINARY_DIR}/${T_NAME}_properties.cmake")
  file(WRITE "${_props}"
       "if(${T_NAME}_TESTS)\n"
       "  set_tests_properties(\${${T_NAME}_TESTS} PROPERTIES LABELS \"${_labels}\" TIMEOUT ${T_TIMEOUT}\n"
       "                      ENVIRONMENT_MODIFICATION \"${TESSERA_TEST_ENVIRONMENT_MODIFICATION}\")\n"
       "endif()\n")
  set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES "${_props}")
endfunction()

# The environment of every MPI program ctest runs: one thread per rank unless
# told, oversubscription allowed, and what LeakSanitizer needs to tell Open
# MPI's lifetime allocations from ours in a sanitized build (MCA components
# kept loaded so that their frames have names, full unwinding through Open
# MPI's frames, the MPI libraries suppressed, and the table of suppressions
# used left out of stderr, where the CLI tests check every line).
set(TESSERA_MPI_TEST_ENVIRONMENT
    "OMP_NUM_THREADS=1" "TESSERA_NUM_THREADS=1" "OMPI_MCA_rmaps_base_oversubscribe=1"
    "OMPI_MCA_mca_base_component_disable_dlclose=1"
    "LSAN_OPTIONS=suppressions=${TESSERA_HELPERS_DIR}/lsan-openmpi.supp:fast_unwind_on_malloc=0:print_suppressions=0")

# tessera_mpiexec_command(<outvar> <ranks>): the command line that starts
# a program on <ranks> ranks (append the program and its arguments). More
# ranks than cores run oversubscribed; as root (CI containers) Open MPI also
# needs --allow-run-as-root.
function(tessera_mpiexec_command outvar ranks)
  find_package(MPI REQUIRED COMPONENTS CXX)
  set(_cmd ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} ${ranks} ${MPIEXEC_PREFLAGS} --oversubscribe)
  execute_process(COMMAND id -u OUTPUT_VARIABLE _uid OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  if(_uid STREQUAL "0")
    list(APPEND _cmd --allow-run-as-root)
  endif()
  set(${outvar} ${_cmd} PARENT_SCOPE)
endfunction()

# tessera_add_mpi_test(NAME n SOURCES ... LIBS ... [RANKS 1 2 4] [LABELS ...]):
# one GoogleTest executable run by mpiexec once per rank count, each run one
# ctest test (n_np<P>).
function(tessera_add_mpi_test)
  cmake_parse_arguments(T "" "NAME;TIMEOUT" "SOURCES;LIBS;LABELS;RANKS" ${ARGN})
  find_package(GTest REQUIRED)
  find_package(MPI REQUIRED COMPONENTS CXX)
  if(NOT T_RANKS)
    set(T_RANKS 1 2 4)
  endif()
  if(NOT T_TIMEOUT)
    set(T_TIMEOUT 300)
  endif()
  add_executable(${T_NAME} ${T_SOURCES})
  target_link_libraries(${T_NAME} PRIVATE ${T_LIBS} GTest::gtest MPI::MPI_CXX)
  tessera_target_defaults(${T_NAME})
  tessera_test_optimization(${T_NAME})
  tessera_test_spaces(${T_NAME})
  set(_labels ${T_LABELS} mpi)
  if(TESSERA_CURRENT_PACKAGE)
    list(APPEND _labels ${TESSERA_CURRENT_PACKAGE})
  endif()
  foreach(_np IN LISTS T_RANKS)
    tessera_mpiexec_command(_run ${_np})
    add_test(NAME ${T_NAME}_np${_np} COMMAND ${_run} $<TARGET_FILE:${T_NAME}>)
    # One thread per rank (TESSERA_MPI_TEST_ENVIRONMENT): a Threads pool of
    # one thread per core in each of 4 ranks on 2 cores spins at every
    # fork/join (the dist solve suite took 110 s instead of 10).
    set_tests_properties(${T_NAME}_np${_np} PROPERTIES LABELS "${_labels}" TIMEOUT ${T_TIMEOUT} PROCESSORS ${_np}
                         ENVIRONMENT "${TESSERA_MPI_TEST_ENVIRONMENT}")
  endforeach()
endfunction()
