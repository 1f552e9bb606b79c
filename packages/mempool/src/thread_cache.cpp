// The heavy side of the thread caches' asymmetric handshake.
#include <tessera/mempool/detail/thread_cache.hpp>

#include <cstdio>
#include <cstdlib>

#if defined(__linux__)
#include <linux/membarrier.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

namespace tessera::detail::mempool {

namespace {

#if defined(__SANITIZE_THREAD__)
#define TESSERA_MEMPOOL_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define TESSERA_MEMPOOL_TSAN 1
#endif
#endif

bool register_membarrier() {
#if defined(TESSERA_MEMPOOL_TSAN)
  // ThreadSanitizer does not model membarrier: use symmetric fences so that
  // what it checks is what runs.
  return false;
#elif defined(__linux__) && defined(SYS_membarrier)
  const long cmds = syscall(SYS_membarrier, MEMBARRIER_CMD_QUERY, 0, 0);
  if (cmds < 0 || !(cmds & MEMBARRIER_CMD_PRIVATE_EXPEDITED)) return false;
  return syscall(SYS_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0) == 0;
#else
  return false;
#endif
}

}  // namespace

bool asymmetric_fences() {
  static const bool available = register_membarrier();
  return available;
}

void heavy_fence() {
#if defined(__linux__) && defined(SYS_membarrier) && !defined(TESSERA_MEMPOOL_TSAN)
  // Cannot fail once registration succeeded; if it ever did, owners (which
  // only stop the compiler) would be unprotected, so stop loudly.
  if (syscall(SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0) == 0) return;
#endif
  std::fprintf(stderr, "tessera::MemoryPool: membarrier failed after registration\n");
  std::abort();
}

}  // namespace tessera::detail::mempool
