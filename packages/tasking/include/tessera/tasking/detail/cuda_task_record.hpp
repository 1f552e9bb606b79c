#pragma once
// Task records of the CUDA driver: the record every device task and when_all
// node starts with, the typed task (record, result slot, functor), and how a
// record names its functor type without run-time type information.
//
// The records follow the host protocol of task_record.hpp (refs counts
// futures, waiters' dependences and when_all inputs; wait_head is the wait
// queue, CLOSED once complete, ORPHANED when the last reference went before
// completion; whichever of completion and last release comes second frees
// the record), but in device memory and with device function pointers
// instead of a host vtable: `run` is the address of CudaTask<F>::run taken
// in device code (or read once per type from a __device__ variable, for
// host_spawn), so no relocatable device code is needed. `module` is the
// address of a device variable private to the translation unit that made the
// record (each TU is its own module without RDC); the driver refuses a record
// of another module, since a function pointer of one module called from the
// kernel of another is not something CUDA promises to support.
#include <tessera/core.hpp>
#include <tessera/tasking/detail/record_atomics.hpp>
#include <tessera/tasking/detail/typed_task.hpp>

#include <cstddef>
#include <cstdint>
#include <new>
#include <type_traits>

#if defined(__CUDACC__)

namespace tessera {
template <class ExecSpace>
class TaskScheduler;
namespace detail::tasking {

struct CudaTaskRecord;
struct CudaQueueState;
class CudaTaskMember;

using CudaRunFn = void (*)(CudaTaskRecord*, CudaTaskMember&);
using CudaDestroyFn = void (*)(CudaTaskRecord*);

// Marker values of wait_head (never dereferenced): complete, and not
// complete with no reference left.
TESSERA_INLINE_FUNCTION CudaTaskRecord* cuda_closed_marker() {
  return reinterpret_cast<CudaTaskRecord*>(std::uintptr_t(1));
}
TESSERA_INLINE_FUNCTION CudaTaskRecord* cuda_orphan_marker() {
  return reinterpret_cast<CudaTaskRecord*>(std::uintptr_t(2));
}

struct CudaTaskRecord {
  CudaTaskRecord* next = nullptr;       // link in a wait queue, an inbox or the overflow stack
  CudaTaskRecord* wait_head = nullptr;  // waiters; cuda_closed_marker() once complete (atomic_field)
  CudaTaskRecord* dep = nullptr;        // dependence while waiting (holds a reference); ready: overflow chain link
  CudaRunFn run = nullptr;              // null for when_all nodes
  CudaDestroyFn destroy = nullptr;      // destroys the functor at completion (null: trivial)
  const void* module = nullptr;         // the making TU's marker (see above)
  CudaQueueState* queue = nullptr;      // the scheduler's device state
  std::int32_t refs = 0;                // futures + waiters' dependences + when_all inputs (atomic_field)
  std::uint32_t alloc_bytes = 0;        // what was taken from the pool (0: a record of the host arena)
  std::uint8_t kind = 0;                // TaskKind
  std::uint8_t priority = 1;
  std::uint8_t respawn_requested = 0;
  std::uint8_t failed = 0;              // cancelled after a failure, or failed itself
  std::uint32_t count = 0;              // when_all: number of inputs
  std::uint32_t next_dep = 0;           // when_all: the input waited on
  std::uint16_t team_size = 0;          // team tasks: members M of the warp's M x V split (1, 2, ..., 32)
  std::uint16_t pad = 0;

  TESSERA_INLINE_FUNCTION bool is_complete() const {
    return atomic_field(wait_head).load(std::memory_order_acquire) == cuda_closed_marker();
  }
  TESSERA_INLINE_FUNCTION bool is_aggregate() const { return kind == std::uint8_t(TaskKind::Aggregate); }
  TESSERA_INLINE_FUNCTION CudaTaskRecord** deps() { return reinterpret_cast<CudaTaskRecord**>(this + 1); }
};
static_assert(sizeof(CudaTaskRecord) % alignof(CudaTaskRecord*) == 0);

template <class T>
struct CudaValueSlot {
  alignas(T) unsigned char bytes[sizeof(T)];
  TESSERA_INLINE_FUNCTION T& get() { return *reinterpret_cast<T*>(bytes); }
  TESSERA_INLINE_FUNCTION const T& get() const { return *reinterpret_cast<const T*>(bytes); }
};
template <>
struct CudaValueSlot<void> {};

// A record followed by its result slot: a future of T reaches the result
// at offsetof(CudaResultLayout<T>, value) without knowing the functor type.
// Standard-layout structs (no base class), so that offsetof is defined and
// a record pointer converts to and from the struct's address.
template <class T>
struct CudaResultLayout {
  CudaTaskRecord rec;
  CudaValueSlot<T> value;
};
template <class T>
TESSERA_INLINE_FUNCTION T& cuda_result_of(CudaTaskRecord* r) {
  return reinterpret_cast<CudaResultLayout<T>*>(r)->value.get();
}

// The functor's type as the device compiler spells it, for failure messages
// (the host extracts the part after "F = ").
template <class F>
__device__ inline const char* cuda_functor_name() {
  return __PRETTY_FUNCTION__;
}

template <class F>
struct CudaTask {
  using value_type = task_value_t<F>;
  CudaTaskRecord rec;
  CudaValueSlot<value_type> value;
  alignas(F) unsigned char closure_bytes[sizeof(F)];

  TESSERA_INLINE_FUNCTION F& functor() { return *reinterpret_cast<F*>(closure_bytes); }
  TESSERA_INLINE_FUNCTION static CudaTask* of(CudaTaskRecord* r) { return reinterpret_cast<CudaTask*>(r); }
  // respawn(this, ...) finds the record from the functor's address.
  TESSERA_INLINE_FUNCTION static CudaTask* of_functor(const F* f) {
    return reinterpret_cast<CudaTask*>(reinterpret_cast<char*>(const_cast<F*>(f)) - offsetof(CudaTask, closure_bytes));
  }

  static __device__ void run(CudaTaskRecord* b, CudaTaskMember& member);
  static __device__ void destroy_closure(CudaTaskRecord* b) { of(b)->functor().~F(); }
};

// What is per translation unit has internal linkage: without relocatable
// device code each TU is its own CUDA module, and with external linkage the
// host linker would keep one TU's copy of a host shadow variable (or of a
// function reading it) for the whole program, so that a host_spawn compiled
// in one TU could stamp another module's marker and function pointers.
namespace {
// Its device address names the module whose code made a record.
__device__ char cuda_module_marker;

// Device function pointers of a task type, read once per type by host_spawn
// (cudaMemcpyFromSymbol): this module's.
template <class F>
__device__ CudaRunFn cuda_run_fn = &CudaTask<F>::run;
template <class F>
__device__ CudaDestroyFn cuda_destroy_fn = std::is_trivially_destructible_v<F> ? nullptr : &CudaTask<F>::destroy_closure;
}  // namespace

}  // namespace detail::tasking
}  // namespace tessera

#endif  // __CUDACC__
