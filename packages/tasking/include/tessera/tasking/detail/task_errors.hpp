#pragma once
// The scheduler's cold paths, defined out of line (src/tasking.cpp): task
// names for messages and the exceptions wait() throws.
#include <exception>
#include <cstddef>
#include <cstdint>
#include <string>
#include <typeinfo>

namespace tessera {
namespace detail::tasking {

struct TaskBase;

std::string demangle(const std::type_info& type);
std::string task_name(const TaskBase* t);
[[noreturn]] void throw_task_failure(const std::string& task, std::exception_ptr error, std::uint64_t cancelled);
[[noreturn]] void throw_dependence_cycle(std::uint64_t waiting);
[[noreturn]] void throw_pool_exhausted(const char* where, const std::string& what, std::size_t bytes,
                                       std::size_t capacity, std::size_t max_block);
// TaskScheduler<Cuda>'s host-side refusals (a std::runtime_error).
[[noreturn]] void throw_cuda_tasking(const std::string& message);
[[noreturn]] void throw_task_too_large(const char* where, const std::string& what, std::size_t bytes,
                                       std::size_t max_block);

// What a thread is doing for the tasking runtime. Null queue: plain host code.

}  // namespace detail::tasking
}  // namespace tessera
