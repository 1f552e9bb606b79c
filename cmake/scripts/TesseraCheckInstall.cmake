# cmake -P script run by ctest (see cmake/TesseraSuperbuildTests.cmake).
#  MODE=examples:     install BUILD_DIR into WORK_DIR/prefix, then configure,
#                     build and ctest every SOURCE_DIR/examples/*/ project against it,
#                     all as subfolders of one outside project (skipping those
#                     that need a component that was not built).
#  MODE=find_package: install, then an outside project asks for every built
#                     component, links Tessera::all_libs and runs; asking for an
#                     unknown and for an unbuilt component must fail naming it.
cmake_minimum_required(VERSION 3.25)
foreach(_v MODE BUILD_DIR SOURCE_DIR WORK_DIR GENERATOR JOBS ENABLED)
  if(NOT DEFINED ${_v})
    message(FATAL_ERROR "TesseraCheckInstall.cmake: -D${_v}=... is required")
  endif()
endforeach()
string(REPLACE "|" ";" ENABLED "${ENABLED}")
string(REPLACE "|" ";" FORWARD "${FORWARD}")
set(_prefix ${WORK_DIR}/prefix)
set(_gen -G "${GENERATOR}")
if(MAKE_PROGRAM)
  list(APPEND _gen -DCMAKE_MAKE_PROGRAM=${MAKE_PROGRAM})
endif()

function(run_step what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT rc EQUAL 0)
    message("${out}")
    message(FATAL_ERROR "FAILED: ${what} (exit ${rc})")
  endif()
  message(STATUS "ok: ${what}")
endfunction()

file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR})
run_step("install ${BUILD_DIR} into ${_prefix}" ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${_prefix})

# configure + build + ctest one project against the prefix.
function(check_project name src)
  set(b ${WORK_DIR}/${name})
  run_step("configure ${name}" ${CMAKE_COMMAND} -S ${src} -B ${b} ${_gen} -DCMAKE_PREFIX_PATH=${_prefix} ${FORWARD})
  run_step("build ${name}" ${CMAKE_COMMAND} --build ${b} --parallel ${JOBS})
  execute_process(COMMAND ${CMAKE_CTEST_COMMAND} --test-dir ${b} --output-on-failure --no-tests=error
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  message("${out}")
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "FAILED: running ${name} (its ctest exit ${rc}; an example must register its program with add_test)")
  endif()
endfunction()

if(MODE STREQUAL "examples")
  file(GLOB _examples LIST_DIRECTORIES true ${SOURCE_DIR}/examples/*)
  set(_ran "")
  set(_skipped "")
  set(_subdirs "")
  foreach(_ex IN LISTS _examples)
    if(NOT EXISTS ${_ex}/CMakeLists.txt)
      continue()
    endif()
    get_filename_component(_name ${_ex} NAME)
    # The components the example asks for: find_package(Tessera ... COMPONENTS a b).
    file(READ ${_ex}/CMakeLists.txt _txt)
    set(_need "")
    if(_txt MATCHES "find_package\\(Tessera[^)]*COMPONENTS([^)]*)\\)")
      string(REGEX REPLACE "[ \t\r\n]+" ";" _need "${CMAKE_MATCH_1}")
      list(REMOVE_ITEM _need "" REQUIRED OPTIONAL_COMPONENTS CONFIG QUIET)
    endif()
    set(_missing "")
    foreach(_c IN LISTS _need)
      if(NOT _c IN_LIST ENABLED)
        list(APPEND _missing ${_c})
      endif()
    endforeach()
    if(_missing)
      list(APPEND _skipped "${_name} (needs ${_missing})")
      continue()
    endif()
    list(APPEND _ran ${_name})
    string(APPEND _subdirs "add_subdirectory(\"${_ex}\" ${_name})\n")
  endforeach()
  if(NOT _ran)
    message(FATAL_ERROR "FAILED: no example under ${SOURCE_DIR}/examples could be built")
  endif()
  # One outside project that adds every example folder: each example's own
  # CMakeLists.txt still runs its find_package(Tessera ...) against the
  # prefix, in its own directory scope, but there is one configure instead of
  # one per example, and one build whose jobs span the examples (most are a
  # single source file, so building them one project at a time left a core
  # idle). A failure names the example's folder (its build subfolder).
  set(_all ${WORK_DIR}/all-examples-src)
  file(WRITE ${_all}/CMakeLists.txt "cmake_minimum_required(VERSION 3.25)
project(tessera_examples_against_install LANGUAGES CXX)
enable_testing()
${_subdirs}")
  check_project(examples ${_all})
  string(REPLACE ";" ", " _ran "${_ran}")
  message(STATUS "examples built and run against the installed Tessera: ${_ran}")
  if(_skipped)
    string(REPLACE ";" ", " _skipped "${_skipped}")
    message(STATUS "skipped (component not built): ${_skipped}")
  endif()
elseif(MODE STREQUAL "find_package")
  # 1. Every built component, through the umbrella, with Tessera::all_libs.
  set(_src ${WORK_DIR}/all-src)
  string(REPLACE ";" " " _comps "${ENABLED}")
  set(_includes "")
  foreach(_c IN LISTS ENABLED)
    if(EXISTS ${SOURCE_DIR}/packages/${_c}/include/tessera/${_c}.hpp)
      string(APPEND _includes "#include <tessera/${_c}.hpp>\n")
    endif()
  endforeach()
  file(WRITE ${_src}/CMakeLists.txt "cmake_minimum_required(VERSION 3.25)
project(tessera_all_components LANGUAGES CXX)
find_package(Tessera 0.1 REQUIRED COMPONENTS ${_comps})
foreach(c ${_comps})
  if(NOT Tessera_\${c}_FOUND OR NOT TARGET Tessera::\${c})
    message(FATAL_ERROR \"Tessera_\${c}_FOUND / Tessera::\${c} missing\")
  endif()
endforeach()
if(NOT DEFINED Tessera_ENABLE_OPENMP OR NOT Tessera_ENABLE_SERIAL)
  message(FATAL_ERROR \"back-end variables missing from the installed package\")
endif()
if(Tessera_ENABLE_CUDA)
  enable_language(CUDA)
  tessera_sources_as_cuda(main.cpp)
endif()
add_executable(all_components main.cpp)
target_link_libraries(all_components PRIVATE Tessera::all_libs)
enable_testing()
add_test(NAME all_components COMMAND all_components)
")
  file(WRITE ${_src}/main.cpp "// Every built component's umbrella header, one program.
${_includes}#include <tessera/config.hpp>
#include <cstdio>
int main(int argc, char** argv) {
  tessera::ScopeGuard guard(argc, argv);
  std::printf(\"Tessera %s: components ${_comps}\\n\", TESSERA_VERSION_STRING);
  return TESSERA_VERSION == 100 ? 0 : 1;
}
")
  check_project(all ${_src})

  # 2. Unknown and unbuilt components must fail at configure time, naming them.
  set(_bad nosuchcomponent)
  foreach(_c sparse analytics graph tasking mempool)
    if(NOT _c IN_LIST ENABLED)
      list(APPEND _bad ${_c})
      break()
    endif()
  endforeach()
  foreach(_c IN LISTS _bad)
    set(_s ${WORK_DIR}/bad-${_c})
    file(WRITE ${_s}/CMakeLists.txt "cmake_minimum_required(VERSION 3.25)
project(bad LANGUAGES CXX)
find_package(Tessera 0.1 REQUIRED COMPONENTS core ${_c})
")
    execute_process(COMMAND ${CMAKE_COMMAND} -S ${_s} -B ${_s}/b ${_gen} -DCMAKE_PREFIX_PATH=${_prefix}
                    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
    if(rc EQUAL 0)
      message(FATAL_ERROR "FAILED: find_package(Tessera COMPONENTS ${_c}) succeeded but '${_c}' was not built")
    endif()
    string(REGEX REPLACE "[ \t\r\n]+" " " _flat "${out}")
    if(NOT _flat MATCHES "component '${_c}'")
      message("${out}")
      message(FATAL_ERROR "FAILED: the error for component '${_c}' does not name it")
    endif()
    message(STATUS "ok: find_package(Tessera COMPONENTS ${_c}) fails naming '${_c}'")
  endforeach()
else()
  message(FATAL_ERROR "unknown MODE=${MODE}")
endif()
