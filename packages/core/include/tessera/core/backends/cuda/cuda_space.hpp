#pragma once
// Cuda: the NVIDIA GPU execution space.
//
// An instance is a CUDA stream: work dispatched on one instance runs in
// order, different instances may overlap. The default instance (Cuda())
// uses a stream that Tessera creates at initialize(); Cuda(stream) wraps a
// stream the caller owns (and must keep alive while the instance is used).
//
// On a machine without a usable GPU (no driver, no device) initialize()
// still succeeds: the CUDA back-end records why it is unavailable,
// impl_is_available() returns false, and every dispatch or allocation on
// Cuda throws std::runtime_error with impl_unavailable_reason(). The host
// back-ends are unaffected.
#include <tessera/core/backends/cuda/cuda_error.hpp>
#include <tessera/core/backends/cuda/cuda_memory_spaces.hpp>
#include <tessera/core/layout.hpp>
#include <tessera/core/macros.hpp>
#include <tessera/core/memory_space.hpp>
#include <tessera/core/space_traits.hpp>

#include <cuda_runtime_api.h>

#include <cstddef>
#include <iosfwd>
#include <memory>
#include <mutex>
#include <string>

namespace tessera {

class InitializationSettings;
class Cuda;

// A point in one instance's stream (a CUDA event without timing): recorded by
// Cuda::record_event(); another instance waits for it with Cuda::wait(event)
// without the host blocking, the host with synchronize(). Copies share the
// event; it is destroyed with the last copy. A default-constructed event is
// empty: waiting for it returns at once.
class CudaEvent {
 public:
  CudaEvent() = default;
  // True once the work before the event has completed (or for an empty
  // event). Throws the CUDA error if that work failed.
  bool is_complete() const;
  // Blocks the calling host thread until the work before the event has completed.
  void synchronize() const;
  bool empty() const { return m_event == nullptr; }
  cudaEvent_t cuda_event() const { return m_event.get(); }

 private:
  friend class Cuda;
  std::shared_ptr<CUevent_st> m_event;
};

namespace detail {

// Properties of the device the back-end runs on, read once at initialize().
struct CudaDeviceInfo {
  int id = 0;
  int sm_count = 0;
  int max_threads_per_sm = 0;
  int max_threads_per_block = 0;
  int max_shared_per_block = 0;  // default (non-opt-in) limit, bytes
  int warp_size = 32;
  int max_grid_x = 0;
  int cc_major = 0;
  int cc_minor = 0;
  std::size_t global_memory = 0;
  int runtime_version = 0;
  int driver_version = 0;
  std::string name;
};

// What an execution-space instance owns: its stream and the scratch buffers
// that reductions, scans and oversized functors use. The mutex is held by a
// dispatch while it uses the scratch (two host threads may share an instance).
struct CudaInstance {
  cudaStream_t stream = nullptr;
  bool owns_stream = false;
  std::mutex mutex;

  // Device scratch, laid out as [launch counter | functor copy | data].
  struct Scratch {
    unsigned* counter;  // zero between dispatches; reset by the last block
    void* functor;
    void* data;
  };
  // Grows the device scratch as needed (synchronizing the stream before a
  // buffer in use is freed). Caller holds `mutex`.
  Scratch scratch(std::size_t functor_bytes, std::size_t data_bytes);
  // Page-locked host buffer for results copied back. Caller holds `mutex`.
  void* pinned(std::size_t bytes);

  CudaInstance() = default;
  CudaInstance(const CudaInstance&) = delete;
  CudaInstance& operator=(const CudaInstance&) = delete;
  ~CudaInstance();

 private:
  char* m_scratch = nullptr;
  std::size_t m_scratch_bytes = 0;
  std::size_t m_functor_bytes = 0;
  void* m_pinned = nullptr;
  std::size_t m_pinned_bytes = 0;
};

// The device in use; throws the unavailability reason when there is none.
const CudaDeviceInfo& cuda_device_info();

// Device scratch for one operation on `exec` (sort's buffers, say), ordered
// on its stream: usable by work queued there after the call, and given back
// for reuse once the work queued before cuda_stream_free has run, without
// the host waiting (stream-ordered pool; with --tessera-cuda-malloc-async=0,
// cudaMalloc / cudaFree). Throws allocation_error naming `what` and the size.
void* cuda_stream_allocate(const Cuda& exec, std::size_t bytes, const char* what);
void cuda_stream_free(const Cuda& exec, void* ptr);

}  // namespace detail

class Cuda {
 public:
  using execution_space = Cuda;
  using memory_space = CudaSpace;
  using device_type = Device<Cuda, CudaSpace>;
  using size_type = unsigned int;
  using array_layout = LayoutLeft;  // consecutive threads touch consecutive addresses
  using scratch_memory_space = CudaSpace;

  // The default instance (Tessera's stream).
  Cuda() = default;
  // An instance on the caller's stream; the stream is not destroyed by Tessera.
  explicit Cuda(cudaStream_t stream);

  static constexpr const char* name() { return "Cuda"; }

  // The stream this instance dispatches on, and the device id.
  cudaStream_t cuda_stream() const;
  int cuda_device() const;

  // Threads resident on the whole device at once (SMs x threads per SM);
  // 0 when the back-end is unavailable.
  int concurrency() const;
  // Waits for the work queued on this instance. Never throws for an
  // unavailable back-end (there is nothing to wait for).
  void fence(const std::string& label = "") const;
  // Marks the current end of this instance's stream; work queued here later
  // is not covered by the event.
  CudaEvent record_event() const;
  // Work queued on this instance after the call starts only once the work
  // before `event` (on whatever instance recorded it) has completed. The host
  // does not wait.
  void wait(const CudaEvent& event) const;
  // Orders this instance after everything queued on `other` so far (an event
  // recorded there, waited for here); the host does not wait.
  void wait(const Cuda& other) const;
  // Whether CudaSpace allocates from CUDA's stream-ordered pool (the
  // default when the device supports it) or with cudaMalloc.
  static bool impl_uses_malloc_async();
  // Waits for all work on the device (every instance).
  static void impl_static_fence(const std::string& label = "");
  // True inside a kernel.
  TESSERA_INLINE_FUNCTION static bool in_parallel() { return TESSERA_IMPL_ON_DEVICE != 0; }
  static void print_configuration(std::ostream& out, bool verbose = false);

  static void impl_initialize(const InitializationSettings& settings);
  static void impl_finalize();
  static bool impl_is_available();
  // "CUDA back-end unavailable: <CUDA error> (no GPU driver?)" and the like;
  // empty when available.
  static std::string impl_unavailable_reason();
  // Throws std::runtime_error("<what>: <reason>") when unavailable.
  static void impl_require_available(const char* what);

  // Execution-space protocol shared with the host back-ends (trait detection).
  int impl_thread_pool_size() const { return concurrency(); }
  static int impl_thread_pool_rank() { return 0; }

  // The instance's stream and scratch; requires an available back-end.
  detail::CudaInstance& impl_internal() const;

  friend bool operator==(const Cuda& a, const Cuda& b) { return a.cuda_stream() == b.cuda_stream(); }

 private:
  std::shared_ptr<detail::CudaInstance> m_instance;  // null: the default instance
};

template <>
struct is_host_execution_space<Cuda> : std::false_type {};

}  // namespace tessera
