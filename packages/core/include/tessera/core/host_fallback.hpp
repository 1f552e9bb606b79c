#pragma once
// Programs (command-line tools, examples) that run on DefaultExecutionSpace
// and must still run on a machine without a GPU. In a CUDA build the default
// space is Cuda, which cannot run anything when initialize() found no driver
// or device; such a program falls back to DefaultHostExecutionSpace and says
// so in one line on stderr, the same line in every program:
//
//   tessera-graph: no CUDA device (no CUDA-capable device is detected); running on OpenMP
//
//   tessera::ScopeGuard guard(argc, argv);
//   return tessera::run_on_usable_default_space("my-tool", [&]<class Space>() { return my_main<Space>(); });
//
// In a build without CUDA the default space is a host space: it is always
// usable, nothing is printed and only that instantiation is compiled.
#include <tessera/config.hpp>
#include <tessera/core/default_spaces.hpp>
#include <tessera/core/memory_space.hpp>

#include <cstdio>
#include <string>
#include <string_view>

namespace tessera {

// Whether DefaultExecutionSpace can run work in this process: always for a
// host default space; for Cuda, once initialize() has found a device.
inline bool default_execution_space_usable() {
#if TESSERA_ENABLE_CUDA
  return Cuda::impl_is_available();
#else
  return true;
#endif
}

// Why it cannot ("" when it can): the CUDA back-end's reason, without its
// "CUDA back-end unavailable: " lead.
inline std::string default_execution_space_unusable_reason() {
#if TESSERA_ENABLE_CUDA
  std::string reason = Cuda::impl_unavailable_reason();
  constexpr std::string_view lead = "CUDA back-end unavailable: ";
  if (reason.compare(0, lead.size(), lead) == 0) reason.erase(0, lead.size());
  return reason;
#else
  return {};
#endif
}

// "<program>: no CUDA device (<reason>); <instead>", the one wording of the
// notice; `instead` says what the program does about it ("running on OpenMP",
// "Cuda rows skipped").
inline std::string no_device_notice(std::string_view program, std::string_view instead) {
  std::string line(program);
  line += ": no CUDA device (";
  line += default_execution_space_unusable_reason();
  line += "); ";
  line += instead;
  return line;
}

// Calls f.template operator()<DefaultExecutionSpace>() when that space is
// usable; otherwise prints no_device_notice(program, "running on <host
// space>") on stderr and calls f.template operator()<DefaultHostExecutionSpace>().
// Call it after initialize(). Both calls must return the same type; its value
// is returned. Kernels (device lambdas) belong in a named function template
// that f calls: nvcc refuses them directly inside a generic lambda. Give f a
// capture ([&]<class Space>() {...}): for a capture-less template lambda nvcc
// warns (#445-D) about its conversion to a function pointer.
template <class F>
decltype(auto) run_on_usable_default_space(std::string_view program, F&& f) {
#if TESSERA_ENABLE_CUDA
  if (!default_execution_space_usable()) {
    const std::string line =
        no_device_notice(program, std::string("running on ") + DefaultHostExecutionSpace::name());
    std::fprintf(stderr, "%s\n", line.c_str());
    std::fflush(stderr);
    return f.template operator()<DefaultHostExecutionSpace>();
  }
#else
  (void)program;
#endif
  return f.template operator()<DefaultExecutionSpace>();
}

}  // namespace tessera
