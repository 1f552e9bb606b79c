#pragma once
// tessera_malloc / tessera_realloc / tessera_free: raw bytes in a memory
// space (Kokkos' kokkos_malloc family, renamed). Allocations go through the
// space's allocate(), so profiling tools see them with their label.
//
//   double* p = static_cast<double*>(tessera_malloc<CudaSpace>("p", n * sizeof(double)));
//   p = static_cast<double*>(tessera_realloc<CudaSpace>(p, 2 * n * sizeof(double)));  // keeps the first n
//   tessera_free<CudaSpace>(p);
//
// The size and label of every live allocation are kept in a host-side table
// (what realloc and free need); freeing a pointer that is not a live
// allocation of that space throws.
#include <tessera/core/default_spaces.hpp>
#include <tessera/core/detail/memory_copy.hpp>
#include <tessera/core/error.hpp>

#include <cstddef>
#include <cstdio>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>

namespace tessera {

namespace detail {
class MallocTable {
 public:
  struct Entry {
    std::size_t bytes;
    std::string label;
    const char* space;
  };
  static MallocTable& get() {
    static MallocTable t;
    return t;
  }
  void insert(void* p, Entry e) {
    std::lock_guard<std::mutex> lock(m_mutex);
    m_live.emplace(p, std::move(e));
  }
  // Removes p and returns its entry; throws naming `what` when p is unknown.
  Entry take(void* p, const char* space, const char* what) {
    std::lock_guard<std::mutex> lock(m_mutex);
    auto it = m_live.find(p);
    if (it == m_live.end() || std::string(it->second.space) != space) {
      char addr[32];
      std::snprintf(addr, sizeof(addr), "%p", p);
      throw_runtime_error(std::string("tessera::") + what + "<" + space + ">: " + addr +
                          " is not a live tessera_malloc allocation of that memory space");
    }
    Entry e = std::move(it->second);
    m_live.erase(it);
    return e;
  }

 private:
  std::mutex m_mutex;
  std::unordered_map<void*, Entry> m_live;
};
}  // namespace detail

template <class MemorySpace = typename DefaultExecutionSpace::memory_space>
void* tessera_malloc(const std::string& label, std::size_t bytes) {
  void* p = MemorySpace().allocate(label.c_str(), bytes);
  detail::MallocTable::get().insert(p, {bytes, label, MemorySpace::name()});
  return p;
}
template <class MemorySpace = typename DefaultExecutionSpace::memory_space>
void* tessera_malloc(std::size_t bytes) {
  return tessera_malloc<MemorySpace>(std::string("no-label"), bytes);
}

// Frees a tessera_malloc allocation; nullptr is ignored.
template <class MemorySpace = typename DefaultExecutionSpace::memory_space>
void tessera_free(void* ptr) {
  if (!ptr) return;
  auto e = detail::MallocTable::get().take(ptr, MemorySpace::name(), "tessera_free");
  MemorySpace().deallocate(e.label.c_str(), ptr, e.bytes);
}

// A new allocation of `bytes` holding the first min(old, new) bytes of ptr,
// which is freed; nullptr allocates.
template <class MemorySpace = typename DefaultExecutionSpace::memory_space>
void* tessera_realloc(void* ptr, std::size_t bytes) {
  if (!ptr) return tessera_malloc<MemorySpace>(bytes);
  auto e = detail::MallocTable::get().take(ptr, MemorySpace::name(), "tessera_realloc");
  void* q = nullptr;
  try {
    q = MemorySpace().allocate(e.label.c_str(), bytes);
  } catch (...) {
    detail::MallocTable::get().insert(ptr, std::move(e));  // ptr stays valid, as with std::realloc
    throw;
  }
  using Exec = typename detail::default_execution_space_for<MemorySpace>::type;
  detail::MemoryCopy<MemorySpace, MemorySpace>::copy(Exec(), q, ptr, e.bytes < bytes ? e.bytes : bytes);
  Exec().fence();
  MemorySpace().deallocate(e.label.c_str(), ptr, e.bytes);
  detail::MallocTable::get().insert(q, {bytes, e.label, MemorySpace::name()});
  return q;
}

}  // namespace tessera
