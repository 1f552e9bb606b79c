# The register/spill check of the CUDA task driver (issue gpu-tasking part 5),
# run by ctest as tasking_cuda_driver_resources:
#   cmake -DNVCC=... -DARCH=90 -DSRC=driver_probe.cpp -DINCLUDES="a|b|c" -DOUT=<dir>
#         -DMAX_REGISTERS=168 -P check_driver_resources.cmake
# Compiles driver_probe.cpp with -Xptxas -v and reads what ptxas says of the
# driver kernel (the entry function named cuda_task_driver):
#  * spill stores or loads > 0 fail: the worker loop is the hot path of every
#    task, and a spill there is local-memory traffic on every batch;
#  * registers > MAX_REGISTERS fail: the kernel is sized by occupancy, and
#    with 128-thread blocks 168 registers is the most that keeps 3 blocks
#    (12 worker warps) per SM; more halves the workers per SM to 8.
# The task entries (CudaTask<F>::run, called through a device function
# pointer) are reported, not checked: an indirect call follows the ABI, so
# such a function saves the callee-saved registers it uses on its stack, and
# ptxas counts those saves as "spill stores" (128 bytes for the probe's Fib).
# They depend on the user's functor, not on the driver.
#  * the deepest stack of the library's own tasks must fit the per-thread
#    stack the driver asks for (kCudaTaskStackBytes, read from
#    cuda_driver.hpp): the driver's frame + the frame of a host_spawn_for
#    tree node of the widest body Cuda accepts (it copies the body into every
#    child) + when_all_tree's + cuda_allocate_record's (the calls a node
#    makes; counted as if nested, an upper bound). An overflow would not be
#    seen at compile time otherwise, and on the GPU it is an illegal address.
foreach(v NVCC ARCH SRC INCLUDES OUT MAX_REGISTERS DRIVER_HEADER)
  if(NOT DEFINED ${v})
    message(FATAL_ERROR "check_driver_resources.cmake: -D${v}=... is missing")
  endif()
endforeach()
string(REPLACE "|" ";" _dirs "${INCLUDES}")
set(_inc "")
foreach(d IN LISTS _dirs)
  if(d)
    list(APPEND _inc "-I${d}")
  endif()
endforeach()
file(MAKE_DIRECTORY "${OUT}")
execute_process(
  COMMAND "${NVCC}" -x cu -c -std=c++20 -O3 -DNDEBUG --extended-lambda --expt-relaxed-constexpr
          "--generate-code=arch=compute_${ARCH},code=sm_${ARCH}" -Xptxas -v ${_inc}
          "${SRC}" -o "${OUT}/driver_probe.o"
  RESULT_VARIABLE _rc OUTPUT_VARIABLE _out ERROR_VARIABLE _err)
set(_log "${_out}${_err}")
file(WRITE "${OUT}/ptxas.txt" "${_log}")
if(NOT _rc EQUAL 0)
  message(FATAL_ERROR "nvcc failed (${_rc}) on ${SRC}:\n${_log}")
endif()

# ptxas writes, per function:
#   ptxas info    : Function properties for NAME
#       56 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
# and, for an entry function, after "Compiling entry function 'NAME'":
#   ptxas info    : Used 168 registers, ...
string(REPLACE "\n" ";" _lines "${_log}")
set(_found FALSE)
set(_in_driver FALSE)
set(_props_for "")
set(_fail "")
foreach(line IN LISTS _lines)
  if(line MATCHES "Compiling entry function '([^']+)'")
    set(_in_driver FALSE)
    if(CMAKE_MATCH_1 MATCHES "cuda_task_driver")
      set(_in_driver TRUE)
      set(_found TRUE)
      set(_driver "${CMAKE_MATCH_1}")
    endif()
  elseif(line MATCHES "Function properties for ([^ ]+)")
    set(_props_for "${CMAKE_MATCH_1}")
  elseif(line MATCHES "([0-9]+) bytes stack frame, ([0-9]+) bytes spill stores, ([0-9]+) bytes spill loads")
    set(_stack "${CMAKE_MATCH_1}")
    set(_st "${CMAKE_MATCH_2}")
    set(_ld "${CMAKE_MATCH_3}")
    if(_props_for MATCHES "cuda_task_driver")
      set(_driver_stack "${_stack}")
      message(STATUS "driver kernel: ${_stack}-byte stack frame, ${_st} bytes spill stores, ${_ld} bytes spill loads")
      if(_st GREATER 0 OR _ld GREATER 0)
        string(APPEND _fail "the task driver kernel spills (${_st} bytes stored, ${_ld} loaded; stack frame ${_stack} bytes)\n")
      endif()
    elseif(_props_for MATCHES "SpawnForNode.*3run")
      message(STATUS "spawn_for tree node (widest body) ${_props_for}: ${_stack}-byte stack frame")
      if(NOT DEFINED _node_stack OR _stack GREATER _node_stack)
        set(_node_stack "${_stack}")
      endif()
    elseif(_props_for MATCHES "cuda_allocate_record")
      set(_allocate_stack "${_stack}")
    elseif(_props_for MATCHES "when_all_tree")
      if(NOT DEFINED _when_all_stack OR _stack GREATER _when_all_stack)
        set(_when_all_stack "${_stack}")
      endif()
    elseif(_props_for MATCHES "CudaTask.*3run")
      message(STATUS "task entry ${_props_for}: ${_stack}-byte stack frame, ${_st}/${_ld} bytes spill stores/loads (ABI saves; reported only)")
    endif()
  elseif(_in_driver AND line MATCHES "Used ([0-9]+) registers")
    set(_regs "${CMAKE_MATCH_1}")
    message(STATUS "driver kernel: ${_regs} registers (limit ${MAX_REGISTERS})")
    if(_regs GREATER MAX_REGISTERS)
      string(APPEND _fail "the task driver kernel uses ${_regs} registers, more than ${MAX_REGISTERS}: fewer 128-thread "
                          "blocks fit an SM (3 blocks need at most 168). Reduce the worker loop's live state, or raise the "
                          "limit with -DTESSERA_CUDA_DRIVER_MAX_REGISTERS=N if the lower occupancy is intended\n")
    endif()
    set(_in_driver FALSE)
  endif()
endforeach()
if(NOT _found)
  message(FATAL_ERROR "ptxas reported no entry function named cuda_task_driver (see ${OUT}/ptxas.txt); the check "
                      "no longer finds the driver kernel")
endif()
if(NOT DEFINED _regs OR NOT DEFINED _driver_stack)
  message(FATAL_ERROR "could not read the driver kernel's registers or stack frame from ptxas's report "
                      "(${OUT}/ptxas.txt): the report's format changed?")
endif()
file(STRINGS "${DRIVER_HEADER}" _limit_line REGEX "kCudaTaskStackBytes = [0-9]+")
if(NOT _limit_line MATCHES "kCudaTaskStackBytes = ([0-9]+)")
  message(FATAL_ERROR "no 'kCudaTaskStackBytes = N' in ${DRIVER_HEADER}: the check no longer finds the stack limit")
endif()
set(_stack_limit "${CMAKE_MATCH_1}")
foreach(v _node_stack _allocate_stack _when_all_stack)
  if(NOT DEFINED ${v})
    message(FATAL_ERROR "ptxas reported no stack frame for ${v} (see ${OUT}/ptxas.txt): a function was renamed or "
                        "inlined, and the stack-depth check no longer sees it")
  endif()
endforeach()
math(EXPR _deepest "${_driver_stack} + ${_node_stack} + ${_when_all_stack} + ${_allocate_stack}")
message(STATUS "deepest library task stack: driver ${_driver_stack} + spawn_for node ${_node_stack} + when_all_tree "
               "${_when_all_stack} + cuda_allocate_record ${_allocate_stack} = ${_deepest} bytes (limit ${_stack_limit})")
if(_deepest GREATER _stack_limit)
  string(APPEND _fail "a host_spawn_for tree node of the widest body Cuda accepts may need ${_deepest} bytes of stack, "
                      "more than the ${_stack_limit} the driver asks for (kCudaTaskStackBytes in ${DRIVER_HEADER}): "
                      "lower kSpawnForCudaMaxBodyBytes (spawn_for.hpp) or raise the limit\n")
endif()
if(_fail)
  message(FATAL_ERROR "${_fail}(full report: ${OUT}/ptxas.txt)")
endif()
message(STATUS "the task driver kernel: ${_regs} registers, ${_driver_stack}-byte stack frame, no spills")
