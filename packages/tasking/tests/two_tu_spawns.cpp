// The second translation unit of tasking_test_task_two_tu: without
// relocatable device code it is its own CUDA module, with its own copy of
// the task driver kernel and its own module marker.
#include "two_tu_spawns.hpp"

namespace two_tu {
namespace {
template <class Sched>
struct AddTen {
  long long* count;
  TESSERA_FUNCTION void operator()(typename Sched::member_type&) { tessera::atomic_add(count, 10ll); }
};
}  // namespace

void spawn_from_other_tu(tessera::TaskScheduler<tessera::Serial>& sched, long long* count) {
  using Sched = tessera::TaskScheduler<tessera::Serial>;
  tessera::host_spawn(tessera::TaskSingle(sched), AddTen<Sched>{count});
}
#if TESSERA_ENABLE_CUDA
void spawn_from_other_tu(tessera::TaskScheduler<tessera::Cuda>& sched, long long* count) {
  using Sched = tessera::TaskScheduler<tessera::Cuda>;
  tessera::host_spawn(tessera::TaskSingle(sched), AddTen<Sched>{count});
}
void wait_from_other_tu(tessera::TaskScheduler<tessera::Cuda>& sched) { tessera::wait(sched); }
#endif

}  // namespace two_tu
