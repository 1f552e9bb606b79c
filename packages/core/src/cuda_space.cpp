// The CUDA back-end's host side: initialization (and the unavailable state on
// machines without a driver or device), instances and their scratch, the
// three CUDA memory spaces, and raw copies between spaces. Compiled as plain
// C++ against the CUDA runtime API; kernels live in the headers.
#include <tessera/config.hpp>
#include <tessera/core/backends/cuda/cuda_memory_copy.hpp>
#include <tessera/core/backends/cuda/cuda_space.hpp>
#include <tessera/core/backends/cuda/cuda_trap_report.hpp>
#include <tessera/core/initialize.hpp>
#include <tessera/core/profiling.hpp>

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <ostream>
#include <stdexcept>
#include <string>

namespace tessera {
namespace {

enum class CudaState { not_initialized, available, unavailable, finalized };

CudaState g_state = CudaState::not_initialized;
std::string g_reason = "CUDA back-end unavailable: tessera::initialize() has not been called";
detail::CudaDeviceInfo g_info;
std::shared_ptr<detail::CudaInstance> g_default;
// CudaSpace from the device's stream-ordered pool (see CudaSpace::impl_allocate).
bool g_malloc_async = false;
// The mapped buffer a trapping kernel writes its report into (cuda_trap_report.hpp).
detail::CudaTrapReport* g_trap_host = nullptr;
detail::CudaTrapReport* g_trap_device = nullptr;

std::string bytes_text(std::size_t bytes) { return std::to_string(bytes) + " bytes"; }

// Common body of the three allocators: `bytes` are taken, `logical` (the
// size the user asked for, without a View's label header) is what errors name.
template <class Alloc>
void* cuda_allocate(const char* space, const char* label, std::size_t bytes, std::size_t logical, Alloc alloc) {
  if (g_state != CudaState::available)
    throw std::runtime_error(std::string("tessera::") + space + "Space: cannot allocate " + bytes_text(logical) +
                             " for '" + label + "': " + Cuda::impl_unavailable_reason());
  void* ptr = nullptr;
  // Zero bytes still gets a distinct pointer, as in HostSpace.
  cudaError_t e = alloc(&ptr, bytes == 0 ? 1 : bytes);
  if (e != cudaSuccess || !ptr) {
    (void)cudaGetLastError();  // allocation failures are not sticky; clear them
    throw allocation_error(std::string("tessera::") + space + "Space: failed to allocate " + bytes_text(logical) +
                           " for '" + label + "': " + detail::cuda_error_text(e));
  }
  return ptr;
}

// CudaSpace's allocation. Stream-ordered allocations are made and freed on
// the legacy default stream: it waits for all earlier work of every blocking
// stream (Tessera's default instance is one, and so is every stream made by
// cudaStreamCreate), and all their later work waits for it. So a block is
// reused only after every kernel queued on those streams before its free has
// finished, without the host waiting (cudaFree waits for the whole device),
// and a new block may be used on any blocking stream at once. Streams created
// non-blocking must be fenced before a View they use is destroyed.
cudaError_t device_malloc(void** ptr, std::size_t bytes) {
  if (!g_malloc_async) return cudaMalloc(ptr, bytes);
  cudaError_t e = cudaMallocAsync(ptr, bytes, cudaStreamLegacy);
  if (e == cudaErrorMemoryAllocation) {
    // Blocks freed in stream order may not be back in the pool yet: wait for
    // the frees queued so far, then try once more.
    (void)cudaGetLastError();
    if (cudaStreamSynchronize(cudaStreamLegacy) == cudaSuccess) e = cudaMallocAsync(ptr, bytes, cudaStreamLegacy);
  }
  return e;
}
cudaError_t device_free(void* ptr) { return g_malloc_async ? cudaFreeAsync(ptr, cudaStreamLegacy) : cudaFree(ptr); }

// Deallocation runs from View destructors: report failures, never throw.
void report_free_error(const char* space, const char* label, cudaError_t e) {
  if (e == cudaSuccess || e == cudaErrorCudartUnloading) return;
  (void)cudaGetLastError();
  std::fprintf(stderr, "tessera::%sSpace: freeing '%s' failed: %s\n", space, label,
               detail::cuda_error_text(e).c_str());
}

}  // namespace

namespace detail {

std::string cuda_error_text(cudaError_t error) {
  return std::string(cudaGetErrorName(error)) + " (" + cudaGetErrorString(error) + ")";
}

CudaTrapReport* cuda_trap_report_host() { return g_trap_host; }
CudaTrapReport* cuda_trap_report_device() { return g_trap_device; }

void throw_cuda_error(cudaError_t error, const std::string& what) {
  (void)cudaGetLastError();
  if (g_trap_host && g_trap_host->kind == kTrapBoundsError) {
    const CudaTrapReport& r = *g_trap_host;
    throw std::runtime_error("tessera: device-side View bounds error in View '" + std::string(r.label) +
                             "': index " + std::to_string(r.index) + " of dimension " + std::to_string(r.dimension) +
                             " is outside [0, " + std::to_string(r.extent) + ") (rank " + std::to_string(r.rank) +
                             "). The kernel stopped itself with a trap, which loses the CUDA context: this process "
                             "must not use the GPU again. Reported by " +
                             what + ": " + cuda_error_text(error));
  }
  throw std::runtime_error(what + ": " + cuda_error_text(error));
}

const CudaDeviceInfo& cuda_device_info() {
  Cuda::impl_require_available("tessera::Cuda device query");
  return g_info;
}

CudaInstance::Scratch CudaInstance::scratch(std::size_t functor_bytes, std::size_t data_bytes) {
  constexpr std::size_t kAlign = 256;
  auto round = [](std::size_t n) { return (n + kAlign - 1) / kAlign * kAlign; };
  const std::size_t fbytes = std::max(round(functor_bytes), m_functor_bytes);
  const std::size_t need = kAlign + fbytes + round(data_bytes);
  if (need > m_scratch_bytes || fbytes > m_functor_bytes) {
    const std::size_t grown = std::max(need, m_scratch_bytes + m_scratch_bytes / 2);
    void* p = nullptr;
    cudaError_t e = cudaMalloc(&p, grown);
    if (e != cudaSuccess) {
      (void)cudaGetLastError();
      throw allocation_error("tessera::Cuda: failed to allocate " + bytes_text(grown) +
                             " of dispatch scratch: " + cuda_error_text(e));
    }
    char* fresh = static_cast<char*>(p);
    // The counter is zero between dispatches.
    cuda_check(cudaMemsetAsync(fresh, 0, kAlign, stream), "tessera::Cuda scratch: clearing the counter");
    if (m_scratch) {
      // A functor copied earlier in this dispatch must survive the move, and
      // kernels queued earlier may still read the old buffer.
      if (m_functor_bytes)
        cuda_check(cudaMemcpyAsync(fresh + kAlign, m_scratch + kAlign, m_functor_bytes, cudaMemcpyDeviceToDevice, stream),
                   "tessera::Cuda scratch: moving the functor copy");
      cuda_check(cudaStreamSynchronize(stream), "tessera::Cuda scratch: synchronizing before growing");
      cuda_check(cudaFree(m_scratch), "tessera::Cuda scratch: freeing");
    }
    m_scratch = fresh;
    m_scratch_bytes = grown;
    m_functor_bytes = fbytes;
  }
  return {reinterpret_cast<unsigned*>(m_scratch), m_scratch + kAlign, m_scratch + kAlign + m_functor_bytes};
}

void* CudaInstance::pinned(std::size_t bytes) {
  if (bytes > m_pinned_bytes) {
    if (m_pinned) cuda_check(cudaFreeHost(m_pinned), "tessera::Cuda: freeing the result buffer");
    m_pinned = nullptr;
    m_pinned_bytes = 0;
    const std::size_t grown = std::max<std::size_t>(bytes, 4096);
    cuda_check(cudaMallocHost(&m_pinned, grown), "tessera::Cuda: allocating the result buffer");
    m_pinned_bytes = grown;
  }
  return m_pinned;
}

CudaInstance::~CudaInstance() {
  // The runtime may already be gone at program exit; errors are ignored here.
  if (m_scratch) (void)cudaFree(m_scratch);
  if (m_pinned) (void)cudaFreeHost(m_pinned);
  if (owns_stream && stream) (void)cudaStreamDestroy(stream);
  (void)cudaGetLastError();
}

void cuda_memcpy(const Cuda* exec, void* dst, const void* src, std::size_t bytes) {
  if (bytes == 0 || dst == src) return;
  Cuda::impl_require_available("tessera::deep_copy with CUDA memory");
  const Cuda instance = exec ? *exec : Cuda();
  cudaStream_t stream = instance.cuda_stream();
  auto* d = static_cast<char*>(dst);
  auto* s = static_cast<const char*>(src);
  if (d < s + bytes && s < d + bytes) {
    // cudaMemcpy does not allow overlap: go through a temporary.
    void* tmp = nullptr;
    cuda_check(cudaMalloc(&tmp, bytes), "tessera::deep_copy: allocating a temporary for an overlapping copy");
    cudaError_t e = cudaMemcpyAsync(tmp, src, bytes, cudaMemcpyDefault, stream);
    if (e == cudaSuccess) e = cudaMemcpyAsync(dst, tmp, bytes, cudaMemcpyDefault, stream);
    if (e == cudaSuccess) e = cudaStreamSynchronize(stream);
    (void)cudaFree(tmp);
    cuda_check(e, "tessera::deep_copy: overlapping copy");
    return;
  }
  cuda_check(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, stream),
             ("tessera::deep_copy: cudaMemcpyAsync of " + bytes_text(bytes)).c_str());
  // Without a Cuda instance the caller expects the copy to be complete.
  if (!exec) cuda_check(cudaStreamSynchronize(stream), "tessera::deep_copy: synchronizing the copy");
}

void* cuda_stream_allocate(const Cuda& exec, std::size_t bytes, const char* what) {
  Cuda::impl_require_available(what);
  void* p = nullptr;
  const std::size_t n = bytes == 0 ? 1 : bytes;
  cudaError_t e = g_malloc_async ? cudaMallocAsync(&p, n, exec.cuda_stream()) : cudaMalloc(&p, n);
  if (e == cudaErrorMemoryAllocation && g_malloc_async) {
    (void)cudaGetLastError();
    if (cudaDeviceSynchronize() == cudaSuccess) e = cudaMallocAsync(&p, n, exec.cuda_stream());
  }
  if (e != cudaSuccess || !p) {
    (void)cudaGetLastError();
    throw allocation_error(std::string(what) + ": failed to allocate " + bytes_text(bytes) +
                           " of device scratch: " + cuda_error_text(e));
  }
  return p;
}

void cuda_stream_free(const Cuda& exec, void* ptr) {
  if (!ptr) return;
  report_free_error("Cuda", "(stream scratch)", g_malloc_async ? cudaFreeAsync(ptr, exec.cuda_stream()) : cudaFree(ptr));
}

void cuda_store_bytes(const Cuda& exec, void* dst, const void* src, std::size_t bytes) {
  cuda_memcpy(&exec, dst, src, bytes);
  exec.fence("tessera::Cuda store");
}

}  // namespace detail

// ---- memory spaces ----------------------------------------------------------

void* CudaSpace::impl_allocate(const char* label, std::size_t total, std::size_t logical) const {
  void* p = cuda_allocate("Cuda", label, total, logical, device_malloc);
  if (profiling::active()) profiling::detail::on_allocate(name(), label, p, logical);
  return p;
}
void CudaSpace::impl_deallocate(const char* label, void* ptr, std::size_t, std::size_t logical) const {
  if (!ptr) return;
  if (profiling::active()) profiling::detail::on_deallocate(name(), label, ptr, logical);
  report_free_error("Cuda", label, device_free(ptr));
}
void* CudaSpace::allocate(const char* label, std::size_t bytes) const { return impl_allocate(label, bytes, bytes); }
void CudaSpace::deallocate(const char* label, void* ptr, std::size_t bytes) const {
  impl_deallocate(label, ptr, bytes, bytes);
}

void* CudaHostPinnedSpace::impl_allocate(const char* label, std::size_t total, std::size_t logical) const {
  void* p = cuda_allocate("CudaHostPinned", label, total, logical,
                          [](void** ptr, std::size_t n) { return cudaMallocHost(ptr, n); });
  if (profiling::active()) profiling::detail::on_allocate(name(), label, p, logical);
  return p;
}
void CudaHostPinnedSpace::impl_deallocate(const char* label, void* ptr, std::size_t, std::size_t logical) const {
  if (!ptr) return;
  if (profiling::active()) profiling::detail::on_deallocate(name(), label, ptr, logical);
  report_free_error("CudaHostPinned", label, cudaFreeHost(ptr));
}
void* CudaHostPinnedSpace::allocate(const char* label, std::size_t bytes) const {
  return impl_allocate(label, bytes, bytes);
}
void CudaHostPinnedSpace::deallocate(const char* label, void* ptr, std::size_t bytes) const {
  impl_deallocate(label, ptr, bytes, bytes);
}

void* CudaUVMSpace::impl_allocate(const char* label, std::size_t total, std::size_t logical) const {
  void* p = cuda_allocate("CudaUVM", label, total, logical,
                          [](void** ptr, std::size_t n) { return cudaMallocManaged(ptr, n, cudaMemAttachGlobal); });
  if (profiling::active()) profiling::detail::on_allocate(name(), label, p, logical);
  return p;
}
void CudaUVMSpace::impl_deallocate(const char* label, void* ptr, std::size_t, std::size_t logical) const {
  if (!ptr) return;
  if (profiling::active()) profiling::detail::on_deallocate(name(), label, ptr, logical);
  report_free_error("CudaUVM", label, cudaFree(ptr));
}
void* CudaUVMSpace::allocate(const char* label, std::size_t bytes) const { return impl_allocate(label, bytes, bytes); }
void CudaUVMSpace::deallocate(const char* label, void* ptr, std::size_t bytes) const {
  impl_deallocate(label, ptr, bytes, bytes);
}

// ---- events -------------------------------------------------------------------

bool CudaEvent::is_complete() const {
  if (!m_event) return true;
  const cudaError_t e = cudaEventQuery(m_event.get());
  if (e == cudaErrorNotReady) {
    (void)cudaGetLastError();
    return false;
  }
  detail::cuda_check(e, "tessera::CudaEvent::is_complete (an earlier kernel failed?)");
  return true;
}

void CudaEvent::synchronize() const {
  if (!m_event) return;
  detail::cuda_check(cudaEventSynchronize(m_event.get()), "tessera::CudaEvent::synchronize (an earlier kernel failed?)");
}

CudaEvent Cuda::record_event() const {
  impl_require_available("tessera::Cuda::record_event");
  cudaEvent_t e = nullptr;
  detail::cuda_check(cudaEventCreateWithFlags(&e, cudaEventDisableTiming), "tessera::Cuda::record_event: creating");
  CudaEvent out;
  out.m_event = std::shared_ptr<CUevent_st>(e, [](cudaEvent_t ev) { (void)cudaEventDestroy(ev); });
  detail::cuda_check(cudaEventRecord(e, cuda_stream()), "tessera::Cuda::record_event");
  return out;
}

void Cuda::wait(const CudaEvent& event) const {
  if (event.empty()) return;
  impl_require_available("tessera::Cuda::wait");
  detail::cuda_check(cudaStreamWaitEvent(cuda_stream(), event.cuda_event(), 0), "tessera::Cuda::wait");
}

void Cuda::wait(const Cuda& other) const {
  if (other.cuda_stream() == cuda_stream()) return;  // one stream is already in order
  wait(other.record_event());
}

bool Cuda::impl_uses_malloc_async() { return g_state == CudaState::available && g_malloc_async; }

// ---- the execution space ----------------------------------------------------

Cuda::Cuda(cudaStream_t stream) : m_instance(std::make_shared<detail::CudaInstance>()) {
  m_instance->stream = stream;
  m_instance->owns_stream = false;
}

bool Cuda::impl_is_available() { return g_state == CudaState::available; }

std::string Cuda::impl_unavailable_reason() { return g_state == CudaState::available ? std::string() : g_reason; }

void Cuda::impl_require_available(const char* what) {
  if (g_state != CudaState::available) throw std::runtime_error(std::string(what) + ": " + g_reason);
}

detail::CudaInstance& Cuda::impl_internal() const {
  impl_require_available("tessera::Cuda");
  return m_instance ? *m_instance : *g_default;
}

cudaStream_t Cuda::cuda_stream() const {
  if (m_instance) return m_instance->stream;
  return g_default ? g_default->stream : nullptr;
}

int Cuda::cuda_device() const { return g_state == CudaState::available ? g_info.id : -1; }

int Cuda::concurrency() const {
  return g_state == CudaState::available ? g_info.sm_count * g_info.max_threads_per_sm : 0;
}

void Cuda::fence(const std::string& label) const {
  if (g_state != CudaState::available) return;
  profiling::KernelScope scope(profiling::Kind::fence, label.empty() ? "tessera::Cuda::fence" : label, name());
  detail::cuda_check(cudaStreamSynchronize(cuda_stream()),
                     ("tessera::Cuda::fence" + (label.empty() ? std::string() : " '" + label + "'") +
                      " (an earlier kernel on this instance failed?)")
                         .c_str());
}

void Cuda::impl_static_fence(const std::string& label) {
  if (g_state != CudaState::available) return;
  profiling::KernelScope scope(profiling::Kind::fence, label.empty() ? "tessera::fence" : label, name());
  detail::cuda_check(cudaDeviceSynchronize(),
                     ("tessera::fence" + (label.empty() ? std::string() : " '" + label + "'") +
                      " on the CUDA device (an earlier kernel failed?)")
                         .c_str());
}

void Cuda::impl_initialize(const InitializationSettings& settings) {
  int count = 0;
  cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess) {
    (void)cudaGetLastError();
    g_state = CudaState::unavailable;
    g_reason = std::string("CUDA back-end unavailable: ") + cudaGetErrorString(e) + " (no GPU driver?)";
    return;
  }
  if (count == 0) {
    g_state = CudaState::unavailable;
    g_reason = "CUDA back-end unavailable: the driver reports no CUDA device";
    return;
  }
  const int id = settings.has_device_id() ? settings.get_device_id() : 0;
  if (id < 0 || id >= count)
    throw std::invalid_argument("tessera: --tessera-device-id=" + std::to_string(id) + " but this machine has " +
                                std::to_string(count) + " CUDA device(s) (valid ids 0.." +
                                std::to_string(count - 1) + ")");
  detail::cuda_check(cudaSetDevice(id), ("tessera::initialize: cudaSetDevice(" + std::to_string(id) + ")").c_str());
  cudaDeviceProp prop{};
  detail::cuda_check(cudaGetDeviceProperties(&prop, id), "tessera::initialize: cudaGetDeviceProperties");
  g_info.id = id;
  g_info.name = prop.name;
  g_info.sm_count = prop.multiProcessorCount;
  g_info.max_threads_per_sm = prop.maxThreadsPerMultiProcessor;
  g_info.max_threads_per_block = prop.maxThreadsPerBlock;
  g_info.max_shared_per_block = static_cast<int>(prop.sharedMemPerBlock);
  g_info.warp_size = prop.warpSize;
  g_info.max_grid_x = prop.maxGridSize[0];
  g_info.cc_major = prop.major;
  g_info.cc_minor = prop.minor;
  g_info.global_memory = prop.totalGlobalMem;
  (void)cudaRuntimeGetVersion(&g_info.runtime_version);
  (void)cudaDriverGetVersion(&g_info.driver_version);
  if (g_info.warp_size != 32)
    throw std::runtime_error("tessera::initialize: CUDA device " + std::to_string(id) + " has warp size " +
                             std::to_string(g_info.warp_size) + "; Tessera's kernels assume 32");
  // The stream-ordered pool keeps up to half the device's memory after
  // blocks are freed (the default threshold, 0, gives it back at every
  // synchronization, which makes each allocation a driver call again).
  int pools = 0;
  (void)cudaDeviceGetAttribute(&pools, cudaDevAttrMemoryPoolsSupported, id);
  g_malloc_async = false;
  if (pools && settings.get_cuda_malloc_async()) {
    cudaMemPool_t pool = nullptr;
    if (cudaDeviceGetDefaultMemPool(&pool, id) == cudaSuccess) {
      std::uint64_t keep = g_info.global_memory / 2;
      g_malloc_async = cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep) == cudaSuccess;
    }
    (void)cudaGetLastError();
  }
  // The report a trapping kernel leaves for the host (cuda_trap_report.hpp).
  void* report = nullptr;
  if (cudaHostAlloc(&report, sizeof(detail::CudaTrapReport), cudaHostAllocMapped) == cudaSuccess) {
    std::memset(report, 0, sizeof(detail::CudaTrapReport));
    void* on_device = nullptr;
    if (cudaHostGetDevicePointer(&on_device, report, 0) == cudaSuccess) {
      g_trap_host = static_cast<detail::CudaTrapReport*>(report);
      g_trap_device = static_cast<detail::CudaTrapReport*>(on_device);
    } else {
      (void)cudaFreeHost(report);
    }
  }
  (void)cudaGetLastError();
  auto instance = std::make_shared<detail::CudaInstance>();
  // A blocking stream: ordered with work the user puts on the legacy default stream.
  detail::cuda_check(cudaStreamCreate(&instance->stream), "tessera::initialize: creating the default CUDA stream");
  instance->owns_stream = true;
  g_default = std::move(instance);
  g_state = CudaState::available;
  g_reason.clear();
}

void Cuda::impl_finalize() {
  if (g_state == CudaState::available) {
    (void)cudaDeviceSynchronize();
    g_default.reset();
    // Kept when a kernel trapped: the context is lost and the report is
    // what the process still knows about why.
    if (g_trap_host && g_trap_host->kind == 0) {
      (void)cudaFreeHost(g_trap_host);
      g_trap_host = nullptr;
      g_trap_device = nullptr;
    }
  }
  g_state = CudaState::finalized;
  g_reason = "CUDA back-end unavailable: tessera::finalize() has been called";
}

void Cuda::print_configuration(std::ostream& out, bool verbose) {
  if (g_state != CudaState::available) {
    out << "  Cuda: " << g_reason << "\n";
    return;
  }
  out << "  Cuda: device " << g_info.id << " '" << g_info.name << "', compute capability " << g_info.cc_major << "."
      << g_info.cc_minor << ", " << g_info.sm_count << " SMs, " << (g_info.global_memory >> 20) << " MiB\n";
  if (verbose) {
    out << "    runtime " << g_info.runtime_version / 1000 << "." << (g_info.runtime_version % 1000) / 10
        << ", driver " << g_info.driver_version / 1000 << "." << (g_info.driver_version % 1000) / 10
        << ", " << g_info.max_threads_per_sm << " threads/SM, " << g_info.max_shared_per_block
        << " bytes shared memory/block\n";
    out << "    CudaSpace allocations: "
        << (g_malloc_async ? "stream-ordered pool (cudaMallocAsync)" : "cudaMalloc") << "\n";
  }
}

}  // namespace tessera
