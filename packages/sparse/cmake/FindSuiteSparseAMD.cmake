# FindSuiteSparseAMD: SuiteSparse's approximate minimum degree ordering
# (AMD, amd_l_order) and the SuiteSparse_config library it needs.
#
# Sets SuiteSparseAMD_FOUND, SuiteSparseAMD_INCLUDE_DIR (the directory that
# holds suitesparse/amd.h: include it as <suitesparse/amd.h>),
# SuiteSparseAMD_LIBRARIES (full paths: libamd, libsuitesparseconfig) and
# SuiteSparseAMD_VERSION (from amd.h).
#
# Full paths rather than an imported target: a static Tessera::sparse
# carries them in its exported link interface, so a project that links the
# installed package needs no Find module of its own. The layout
# include/suitesparse/amd.h is SuiteSparse's since 5.x (Debian 12's
# libsuitesparse-dev, SuiteSparse 7's own install, Homebrew, conda);
# SuiteSparseAMD_ROOT or CMAKE_PREFIX_PATH point at another prefix.
find_path(SuiteSparseAMD_INCLUDE_DIR suitesparse/amd.h)
find_library(SuiteSparseAMD_AMD_LIBRARY amd)
find_library(SuiteSparseAMD_CONFIG_LIBRARY suitesparseconfig)
if(SuiteSparseAMD_INCLUDE_DIR AND EXISTS "${SuiteSparseAMD_INCLUDE_DIR}/suitesparse/amd.h")
  file(STRINGS "${SuiteSparseAMD_INCLUDE_DIR}/suitesparse/amd.h" _amd_version_lines
       REGEX "^#define[ \t]+AMD_(MAIN|SUB)_VERSION[ \t]+[0-9]+")
  string(REGEX REPLACE ".*AMD_MAIN_VERSION[ \t]+([0-9]+).*" "\\1" _amd_main "${_amd_version_lines}")
  string(REGEX REPLACE ".*AMD_SUB_VERSION[ \t]+([0-9]+).*" "\\1" _amd_sub "${_amd_version_lines}")
  if(_amd_main MATCHES "^[0-9]+$" AND _amd_sub MATCHES "^[0-9]+$")
    set(SuiteSparseAMD_VERSION "${_amd_main}.${_amd_sub}")
  endif()
endif()
include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(SuiteSparseAMD
  REQUIRED_VARS SuiteSparseAMD_INCLUDE_DIR SuiteSparseAMD_AMD_LIBRARY SuiteSparseAMD_CONFIG_LIBRARY
  VERSION_VAR SuiteSparseAMD_VERSION
  REASON_FAILURE_MESSAGE "On Debian 12: apt-get install libsuitesparse-dev")
if(SuiteSparseAMD_FOUND)
  set(SuiteSparseAMD_LIBRARIES ${SuiteSparseAMD_AMD_LIBRARY} ${SuiteSparseAMD_CONFIG_LIBRARY})
endif()
mark_as_advanced(SuiteSparseAMD_INCLUDE_DIR SuiteSparseAMD_AMD_LIBRARY SuiteSparseAMD_CONFIG_LIBRARY)
