// Cold paths of the tasking package: type names, error messages, printing.
#include <tessera/tasking.hpp>

#include <cxxabi.h>

#include <cstdlib>
#include <memory>
#include <ostream>
#include <sstream>
#include <stdexcept>

namespace tessera {

namespace detail::tasking {

std::string demangle(const std::type_info& type) {
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> name(abi::__cxa_demangle(type.name(), nullptr, nullptr, &status), std::free);
  return status == 0 && name ? std::string(name.get()) : std::string(type.name());
}

std::string task_name(const TaskBase* t) {
  if (t == nullptr) return "no task";
  if (t->kind == TaskKind::Aggregate) return "when_all";
  return demangle(*t->vt->functor_type);
}

void throw_task_failure(const std::string& task, std::exception_ptr error, std::uint64_t failed) {
  std::string what = "unknown exception";
  try {
    std::rethrow_exception(error);
  } catch (const std::exception& e) {
    what = e.what();
  } catch (...) {
  }
  std::ostringstream msg;
  msg << "tessera::wait: task " << task << " threw: " << what << " (" << failed
      << " task(s) failed or were cancelled; the DAG was drained)";
  try {
    std::rethrow_exception(error);
  } catch (...) {
    std::throw_with_nested(TaskFailure(msg.str()));
  }
}

void throw_dependence_cycle(std::uint64_t waiting) {
  throw std::logic_error(
      "tessera::wait: " + std::to_string(waiting) +
      " task(s) can never run: they wait on each other in a dependence cycle (a respawn whose "
      "dependence waits, directly or through other tasks, on the respawning task); they and "
      "the tasks waiting on them were cancelled (their futures are ready, get() throws) and "
      "their memory is freed with their last future");
}

// The CUDA scheduler's host-side refusals (thrown by cuda_staging.hpp too,
// which host builds compile for its tests; src/cuda_*.cpp are CUDA builds only).
void throw_cuda_tasking(const std::string& message) { throw std::runtime_error(message); }

void throw_pool_exhausted(const char* where, const std::string& what, std::size_t bytes, std::size_t capacity,
                          std::size_t max_block) {
  throw allocation_error(std::string(where) + ": the task pool is full (capacity " + std::to_string(capacity) +
                         " bytes, blocks up to " + std::to_string(max_block) + " bytes) and cannot hold " + what +
                         " (" + std::to_string(bytes) +
                         " bytes); give the TaskScheduler a larger pool, or spawn from a driver task that "
                         "throttles on null futures");
}

void throw_task_too_large(const char* where, const std::string& what, std::size_t bytes, std::size_t max_block) {
  throw std::length_error(std::string(where) + ": a task of functor " + what + " needs " + std::to_string(bytes) +
                          " bytes but the scheduler's pool serves blocks of at most " + std::to_string(max_block) +
                          " bytes (raise max_block when constructing the TaskScheduler)");
}

void throw_future_error(const char* what, const TaskBase* t) {
  const std::string w = what;
  if (w == "null") throw std::logic_error("tessera::Future::get: the future is null");
  if (w == "early")
    throw std::logic_error("tessera::Future::get: task " + task_name(t) +
                           " has not completed yet (call wait(scheduler) first, or from a task respawn with "
                           "this future as dependence)");
  throw std::runtime_error(
      "tessera::Future::get: task " + task_name(t) +
      " did not complete normally (it threw, or was cancelled: another task threw, or it "
      "was caught in a dependence cycle)");
}

void throw_bad_policy(const std::string& message) { throw std::invalid_argument(message); }
void throw_bad_respawn(const std::string& message) { throw std::logic_error(message); }
void throw_bad_spawn_for(const char* where, const char* what, long long value) {
  throw std::invalid_argument(std::string(where) + ": " + what + " = " + std::to_string(value) +
                              " is negative (a count of indices and a grain are at least 0; grain 0 picks one)");
}

}  // namespace detail::tasking

void TaskStatistics::print(std::ostream& out) const {
  out << "tessera::TaskScheduler statistics\n"
      << "  tasks spawned " << spawned << ", executed " << executed << " (respawned " << respawned
      << "), completed " << completed << " (incl. " << aggregates << " when_all nodes), failed " << failed << "\n"
      << "  failed spawns (pool full) " << failed_spawns << ", steals " << steals << ", peak ready+running "
      << peak_ready << "\n"
      << "  threads " << threads << ", default team size " << team_size << "\n"
      << "  pool: capacity " << pool_capacity_bytes << " bytes, high water " << pool_high_water_bytes
      << " bytes, in use " << pool_in_use_bytes << " bytes, largest record " << pool_block_bytes_max << " bytes\n";
}

std::ostream& operator<<(std::ostream& out, const TaskStatistics& s) {
  s.print(out);
  return out;
}

}  // namespace tessera
