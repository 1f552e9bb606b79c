// The CUDA task driver's cold paths on the host: functor names from the
// device compiler's spelling, and the errors wait() throws.
#include <tessera/tasking.hpp>

#include <stdexcept>
#include <string>

namespace tessera::detail::tasking {

// cuda_functor_name<F>() spells "... [with F = Type]" (or "F = Type" in
// another form): keep Type.
std::string cuda_functor_display_name(const char* pretty) {
  std::string s = pretty ? pretty : "";
  const std::size_t at = s.find("F = ");
  if (at == std::string::npos) return s;
  std::string name = s.substr(at + 4);
  while (!name.empty() && (name.back() == ']' || name.back() == ' ')) name.pop_back();
  return name;
}

void throw_cuda_task_error(int kind, const std::string& name, const std::string& message, long long value,
                           std::uint64_t count) {
  const std::string task = name.empty() ? std::string("a task") : "task " + name;
  std::string m = "tessera::wait (Cuda): ";
  switch (CudaError(kind)) {
    case CudaError::TaskFail:
      m += task + " failed: " + message + " (" + std::to_string(count) + " tasks cancelled)";
      break;
    case CudaError::TaskTooLarge:
      m += "task_spawn in device code: a task record of " + std::to_string(value) +
           " bytes is larger than the pool's largest block; give the scheduler's pool a larger max_block_bytes "
           "(or make the functor smaller)";
      break;
    case CudaError::Stalled:
      m += "watchdog: no task completed for " + std::to_string(value) + " ms while " + std::to_string(count) +
           " tasks were incomplete (a livelock of tasks that respawn and retry, e.g. a pool too small for the "
           "DAG, or a task that waits on another by spinning); make the pool larger, or raise the limit with "
           "TaskScheduler<Cuda>::set_watchdog_seconds";
      break;
    case CudaError::Cycle:
      m += std::to_string(value) +
           " tasks are left waiting on tasks that never complete (a dependence cycle), with nothing left to "
           "run; this scheduler cannot be used again";
      break;
    case CudaError::ForeignModule:
      m += message;
      break;
    case CudaError::WhenAllTooLarge:
      m += "when_all in device code: " + message + " (" + std::to_string(value) +
           " bytes); give the scheduler's pool a larger max_block_bytes";
      break;
    case CudaError::BadRespawn:
      m += task + ": " + message;
      break;
    case CudaError::BadTeamSize:
      m += "TaskTeam(...).set_team_size(" + std::to_string(value) + ") in device code: " + message +
           "; a team task runs on one warp split into M members x V vector lanes with M * V = 32, so ask for 1, "
           "2, 4, 8, 16 or 32 (larger requests get 32)";
      break;
    case CudaError::BadSpawnFor:
      m += "task_spawn_for in device code: " + message + " (" + std::to_string(value) +
           "); a count of indices and a grain are at least 0 (grain 0 picks one)";
      break;
    default:
      m += "unknown failure " + std::to_string(kind) + ": " + message;
  }
  throw TaskFailure(m);
}

}  // namespace tessera::detail::tasking
