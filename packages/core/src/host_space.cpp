#include <tessera/core/memory_space.hpp>
#include <tessera/core/profiling.hpp>

#include <cstdlib>
#include <string>

namespace tessera {

void* HostSpace::allocate(const char* label, std::size_t bytes) const {
  // aligned_alloc wants a multiple of the alignment; zero bytes still gets a
  // unique pointer so that empty views have distinct, freeable storage.
  std::size_t rounded = (bytes + alignment - 1) / alignment * alignment;
  if (rounded == 0) rounded = alignment;
  if (rounded < bytes) {  // overflow in the rounding
    throw allocation_error("tessera::HostSpace: cannot allocate " + std::to_string(bytes) +
                           " bytes for '" + label + "': size overflows");
  }
  void* ptr = std::aligned_alloc(alignment, rounded);
  if (!ptr) {
    throw allocation_error("tessera::HostSpace: failed to allocate " + std::to_string(bytes) +
                           " bytes for '" + label + "'");
  }
  if (profiling::active()) profiling::detail::on_allocate(name(), label, ptr, bytes);
  return ptr;
}

void HostSpace::deallocate(const char* label, void* ptr, std::size_t bytes) const {
  if (!ptr) return;
  if (profiling::active()) profiling::detail::on_deallocate(name(), label, ptr, bytes);
  std::free(ptr);
}

}  // namespace tessera
