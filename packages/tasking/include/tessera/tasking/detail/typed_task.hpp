#pragma once
// The typed task: a record followed by the task's result slot and its
// functor, with the vtable the scheduler calls it through, and how a
// functor's result type is found (F::value_type, or the second parameter of
// a lambda taking (member_type&, T&)).
#include <tessera/tasking/detail/task_record.hpp>

#include <new>
#include <type_traits>
#include <typeinfo>
#include <utility>

namespace tessera {
namespace detail::tasking {


// A task functor's result type: F::value_type if declared; otherwise, for a
// lambda (member_type&, T&), T; otherwise void.
template <class M>
struct second_parameter {
  using type = void;
};
template <class C, class R, class A1, class A2>
struct second_parameter<R (C::*)(A1, A2) const> {
  using type = std::remove_cvref_t<A2>;
};
template <class C, class R, class A1, class A2>
struct second_parameter<R (C::*)(A1, A2)> {
  using type = std::remove_cvref_t<A2>;
};
template <class F, class = void>
struct lambda_value {
  using type = void;
};
template <class F>
struct lambda_value<F, std::void_t<decltype(&F::operator())>> {
  using type = typename second_parameter<decltype(&F::operator())>::type;
};
template <class F, class = void>
struct task_value {
  using type = typename lambda_value<F>::type;
};
template <class F>
struct task_value<F, std::void_t<typename F::value_type>> {
  using type = typename F::value_type;
};
template <class F>
using task_value_t = typename task_value<std::remove_cvref_t<F>>::type;

template <class T>
struct ValueSlot {
  alignas(T) unsigned char bytes[sizeof(T)];
  T& get() noexcept { return *std::launder(reinterpret_cast<T*>(bytes)); }
  const T& get() const noexcept { return *std::launder(reinterpret_cast<const T*>(bytes)); }
};
template <>
struct ValueSlot<void> {};

// The part of a task record that holds its result: a future of T reaches it
// by a static cast, without knowing the functor's type.
// [[no_unique_address]]: a void task's empty slot takes no byte, so a task
// whose functor is one pointer fills exactly one 64-byte pool block (with
// the byte, padding made it 72 bytes and it took a 128-byte block: twice
// the memory a fan-out of small tasks touches).
template <class T>
struct ResultTask : TaskBase {
  [[no_unique_address]] ValueSlot<T> value;
};

template <class Member, class F>
struct Task final : ResultTask<task_value_t<F>> {
  using value_type = task_value_t<F>;
  alignas(F) unsigned char closure_bytes[sizeof(F)];

  F& functor() noexcept { return *std::launder(reinterpret_cast<F*>(closure_bytes)); }

  static void run(TaskBase* b, void* m) {
    auto* t = static_cast<Task*>(b);
    Member& member = *static_cast<Member*>(m);
    if constexpr (std::is_void_v<value_type>) {
      t->functor()(member);
    } else {
      t->functor()(member, t->value.get());
    }
  }
  static void destroy_closure(TaskBase* b) { static_cast<Task*>(b)->functor().~F(); }
  static void destroy_value(TaskBase* b) {
    if constexpr (!std::is_void_v<value_type>) static_cast<Task*>(b)->value.get().~value_type();
  }
  static void* closure_of(TaskBase* b) noexcept { return &static_cast<Task*>(b)->functor(); }
  static void* value_of(TaskBase* b) noexcept {
    if constexpr (std::is_void_v<value_type>) return nullptr;
    else return &static_cast<Task*>(b)->value.get();
  }
  static const TaskVTable vtable;
};

template <class Member, class F>
const TaskVTable Task<Member, F>::vtable = {
    &Task::run, std::is_trivially_destructible_v<F> ? nullptr : &Task::destroy_closure,
    std::is_void_v<value_type> || std::is_trivially_destructible_v<value_type> ? nullptr : &Task::destroy_value,
    &typeid(F), &Task::closure_of, &Task::value_of};

}  // namespace detail::tasking
}  // namespace tessera
