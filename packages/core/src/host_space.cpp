#include <tessera/core/memory_space.hpp>
#include <tessera/core/profiling.hpp>

#include <cstdlib>
#include <string>

namespace tessera {

void* HostSpace::impl_allocate(const char* label, std::size_t bytes, std::size_t logical_bytes) const {
  // aligned_alloc wants a multiple of the alignment; zero bytes still gets a
  // unique pointer so that empty views have distinct, freeable storage.
  std::size_t rounded = (bytes + alignment - 1) / alignment * alignment;
  if (rounded == 0) rounded = alignment;
  if (rounded < bytes) {  // overflow in the rounding
    throw allocation_error("tessera::HostSpace: cannot allocate " + std::to_string(logical_bytes) +
                           " bytes for '" + label + "': size overflows");
  }
  void* ptr = std::aligned_alloc(alignment, rounded);
  if (!ptr) {
    throw allocation_error("tessera::HostSpace: failed to allocate " + std::to_string(logical_bytes) +
                           " bytes for '" + label + "'");
  }
  if (profiling::active()) profiling::detail::on_allocate(name(), label, ptr, logical_bytes);
  return ptr;
}

void HostSpace::impl_deallocate(const char* label, void* ptr, std::size_t, std::size_t logical_bytes) const {
  if (!ptr) return;
  if (profiling::active()) profiling::detail::on_deallocate(name(), label, ptr, logical_bytes);
  std::free(ptr);
}

void* HostSpace::allocate(const char* label, std::size_t bytes) const { return impl_allocate(label, bytes, bytes); }

void HostSpace::deallocate(const char* label, void* ptr, std::size_t bytes) const {
  impl_deallocate(label, ptr, bytes, bytes);
}

}  // namespace tessera
