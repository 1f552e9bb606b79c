#pragma once
// MemoryCopy<Dst, Src>: moves raw bytes between memory spaces. Host to host
// is a parallel memcpy (so pages are touched by the threads that use them);
// the CUDA back-end specializes the device cases.
#include <tessera/core/default_spaces.hpp>
#include <tessera/core/parallel.hpp>

#include <cstring>

namespace tessera::detail {

template <class DstSpace, class SrcSpace>
struct MemoryCopy;

template <>
struct MemoryCopy<HostSpace, HostSpace> {
  template <class Exec>
  static void copy(const Exec&, void* dst, const void* src, std::size_t bytes) {
    constexpr std::size_t kChunk = std::size_t(1) << 20;
    auto* d = static_cast<char*>(dst);
    auto* s = static_cast<const char*>(src);
    const bool overlap = d < s + bytes && s < d + bytes;
    if (bytes <= 4 * kChunk || overlap) {
      std::memmove(d, s, bytes);
      return;
    }
    using Host = std::conditional_t<is_host_execution_space<Exec>::value, Exec, DefaultHostExecutionSpace>;
    const std::size_t chunks = (bytes + kChunk - 1) / kChunk;
    parallel_for("tessera::deep_copy (memcpy)", RangePolicy<Host>(0, chunks), [=](std::size_t c) {
      const std::size_t off = c * kChunk;
      std::memcpy(d + off, s + off, off + kChunk <= bytes ? kChunk : bytes - off);
    });
  }
};

}  // namespace tessera::detail
