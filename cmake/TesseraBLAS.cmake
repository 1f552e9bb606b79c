# tessera_find_blas_lapack(<found_var> [REQUIRED] [GLOBAL]): the one place
# Tessera looks for BLAS, LAPACK, LAPACKE and the C headers cblas.h and
# lapacke.h. Defines the imported target Tessera::blas_lapack (libraries and
# header folders) and sets <found_var> to TRUE or FALSE; with REQUIRED a
# missing piece is a FATAL_ERROR naming the Debian packages.
#
# The libraries come from CMake's FindBLAS and FindLAPACK, so BLA_VENDOR
# picks the implementation: unset, Debian 12 finds OpenBLAS
# (libopenblas-dev); OpenBLAS, FLAME (BLIS, libblis-dev), Intel10_64lp or
# Intel10_64lp_seq (MKL), Generic (the reference BLAS) also serve. LAPACKE
# and the CBLAS interface are taken from those libraries when they hold
# them (MKL, OpenBLAS) and looked for beside them otherwise (Debian's
# liblapacke). cblas.h is looked for first in the folder named after the
# library's own (Debian keeps OpenBLAS's in .../openblas-pthread), so that
# the header matches the library; MKL names its headers mkl_cblas.h and
# mkl_lapacke.h, and gets a cblas.h and a lapacke.h that include them,
# written into the build folder.
#
# Used three ways: by packages/sparse (Tessera::sparse links the target
# PUBLIC), by the benchmarks that call BLAS directly, and by the installed
# TesseraSparseConfig.cmake, which runs the same lookup in the user's
# project with the BLA_VENDOR Tessera was built with (unless the project
# sets its own). GLOBAL (the super-build): one target for every directory,
# the link interface of Tessera::sparse names it from sibling directories.
# Without GLOBAL (a user's project) the target is the calling directory's,
# as every imported target of Tessera's package configs is.
include_guard(DIRECTORY)
include(CheckCXXSourceCompiles)
include(CMakePushCheckState)

function(tessera_find_blas_lapack found_var)
  cmake_parse_arguments(A "REQUIRED;GLOBAL" "" "" ${ARGN})
  if(TARGET Tessera::blas_lapack)
    set(${found_var} TRUE PARENT_SCOPE)
    return()
  endif()
  set(_quiet QUIET)
  if(A_REQUIRED)
    set(_quiet "")
  endif()
  if(BLA_VENDOR STREQUAL "FLAME")
    set(_debian "apt-get install libblis-dev libflame-dev liblapacke-dev (BLIS and its LAPACK, libflame)")
  elseif(BLA_VENDOR MATCHES "^Intel")
    set(_debian "install Intel oneMKL and set MKLROOT (source <oneAPI>/setvars.sh)")
  else()
    set(_debian "apt-get install libopenblas-dev liblapacke-dev (or set BLA_VENDOR to another BLAS: "
                "FLAME for BLIS, Intel10_64lp for MKL)")
  endif()
  set(_missing "")
  find_package(BLAS ${_quiet})
  if(BLAS_FOUND)
    find_package(LAPACK ${_quiet})
  endif()
  if(NOT BLAS_FOUND OR NOT LAPACK_FOUND)
    set(_missing "BLAS and LAPACK (BLA_VENDOR=${BLA_VENDOR})")
  endif()

  set(_libs ${LAPACK_LIBRARIES} ${BLAS_LIBRARIES})
  list(REMOVE_DUPLICATES _libs)
  set(_is_mkl FALSE)
  if(_libs MATCHES "mkl_")
    set(_is_mkl TRUE)
  endif()

  # The headers: first in the folder named like the library's own
  # (Debian: /usr/lib/<arch>/openblas-pthread/libopenblas.so.0 and
  # /usr/include/<arch>/openblas-pthread/cblas.h).
  set(_suffixes "")
  foreach(_l IN LISTS BLAS_LIBRARIES)
    if(IS_ABSOLUTE "${_l}" AND EXISTS "${_l}")
      file(REAL_PATH "${_l}" _real)
      get_filename_component(_dir "${_real}" DIRECTORY)
      get_filename_component(_dir "${_dir}" NAME)
      list(APPEND _suffixes ${_dir})
    endif()
  endforeach()
  list(APPEND _suffixes openblas-pthread openblas openblas-openmp blis flexiblas mkl)
  list(REMOVE_DUPLICATES _suffixes)
  if(_is_mkl)
    find_path(TESSERA_MKL_INCLUDE_DIR mkl_cblas.h HINTS ENV MKLROOT PATH_SUFFIXES include mkl)
    set(_incs ${TESSERA_MKL_INCLUDE_DIR})
    if(TESSERA_MKL_INCLUDE_DIR)
      set(_shim "${CMAKE_CURRENT_BINARY_DIR}/tessera-mkl-headers")
      file(WRITE "${_shim}/cblas.h.in" "// Written by TesseraBLAS.cmake: MKL's CBLAS.\n#include <mkl_cblas.h>\n")
      file(WRITE "${_shim}/lapacke.h.in" "// Written by TesseraBLAS.cmake: MKL's LAPACKE.\n#include <mkl_lapacke.h>\n")
      configure_file("${_shim}/cblas.h.in" "${_shim}/cblas.h" COPYONLY)
      configure_file("${_shim}/lapacke.h.in" "${_shim}/lapacke.h" COPYONLY)
      list(APPEND _incs "${_shim}")
    else()
      list(APPEND _missing "MKL's mkl_cblas.h (set MKLROOT)")
    endif()
  else()
    find_path(TESSERA_CBLAS_INCLUDE_DIR cblas.h PATH_SUFFIXES ${_suffixes})
    find_path(TESSERA_LAPACKE_INCLUDE_DIR lapacke.h PATH_SUFFIXES ${_suffixes})
    set(_incs ${TESSERA_CBLAS_INCLUDE_DIR} ${TESSERA_LAPACKE_INCLUDE_DIR})
    if(NOT TESSERA_CBLAS_INCLUDE_DIR)
      list(APPEND _missing "cblas.h")
    endif()
    if(NOT TESSERA_LAPACKE_INCLUDE_DIR)
      list(APPEND _missing "lapacke.h")
    endif()
  endif()
  list(REMOVE_DUPLICATES _incs)

  # CBLAS and LAPACKE: in the BLAS/LAPACK libraries, or libraries of their own.
  if(NOT _missing)
    cmake_push_check_state(RESET)
    set(CMAKE_REQUIRED_QUIET ON)
    set(CMAKE_REQUIRED_LIBRARIES ${_libs})
    check_cxx_source_compiles([[
      extern "C" void cblas_dscal(int, double, double*, int);
      int main() { double x = 1; cblas_dscal(1, 2.0, &x, 1); return x == 2 ? 0 : 1; }]] TESSERA_BLAS_HAS_CBLAS)
    check_cxx_source_compiles([[
      extern "C" int LAPACKE_dpotrf(int, char, int, double*, int);
      int main() { double a = 4; return LAPACKE_dpotrf(102, 'L', 1, &a, 1); }]] TESSERA_LAPACK_HAS_LAPACKE)
    cmake_pop_check_state()
    if(NOT TESSERA_LAPACK_HAS_LAPACKE)
      find_library(TESSERA_LAPACKE_LIBRARY lapacke)
      if(TESSERA_LAPACKE_LIBRARY)
        list(PREPEND _libs ${TESSERA_LAPACKE_LIBRARY})
      else()
        list(APPEND _missing "liblapacke")
      endif()
    endif()
    if(NOT TESSERA_BLAS_HAS_CBLAS)
      find_library(TESSERA_CBLAS_LIBRARY cblas)
      if(TESSERA_CBLAS_LIBRARY)
        list(PREPEND _libs ${TESSERA_CBLAS_LIBRARY})
      else()
        list(APPEND _missing "a CBLAS library")
      endif()
    endif()
  endif()

  if(_missing)
    string(REPLACE ";" ", " _missing "${_missing}")
    if(A_REQUIRED)
      string(JOIN "" _msg "Tessera needs BLAS, LAPACK and LAPACKE with their C headers; not found: ${_missing}. "
             "On Debian 12: " ${_debian} ".")
      message(FATAL_ERROR "${_msg}")
    endif()
    set(${found_var} FALSE PARENT_SCOPE)
    return()
  endif()

  if(A_GLOBAL)
    add_library(Tessera::blas_lapack INTERFACE IMPORTED GLOBAL)
  else()
    add_library(Tessera::blas_lapack INTERFACE IMPORTED)
  endif()
  # The resolved libraries, not BLAS::BLAS / LAPACK::LAPACK: those are
  # imported into this directory only.
  # dlsym (the BLAS thread seam, src/blas_threads.cpp) needs libdl before glibc 2.34.
  list(APPEND _libs ${CMAKE_DL_LIBS})
  set_target_properties(Tessera::blas_lapack PROPERTIES INTERFACE_LINK_LIBRARIES "${_libs}"
                                                        INTERFACE_INCLUDE_DIRECTORIES "${_incs}")
  if(NOT TESSERA_BLAS_LAPACK_REPORTED)
    set(TESSERA_BLAS_LAPACK_REPORTED ON CACHE INTERNAL "")
    string(REPLACE ";" " " _shown "${_libs}")
    message(STATUS "Tessera BLAS/LAPACK: ${_shown} (headers: ${_incs})")
  endif()
  set(${found_var} TRUE PARENT_SCOPE)
endfunction()
