#pragma once
// Loading a binary CSR file (.tgb) into a graph's space: the arrays go from
// the file into Views of that space at the widths the file stores them,
// are checked there in parallel, and are converted to the graph's index
// types in parallel only when those differ. On a host space the file is
// read straight into the View; on a device space through a bounded host
// buffer, chunk by chunk. Nothing walks the arrays element by element on
// one host thread, and a bad value is still named by its place in the file
// (io.cpp builds the messages).
#include <tessera/core.hpp>
#include <tessera/graph/detail/util.hpp>

#include <algorithm>
#include <cstdint>
#include <istream>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>

namespace tessera::graph::detail {

// In io.cpp: the file opened for reading, the bytes [at, at + bytes) of it
// into dst, and the io_error naming a bad row offset (k, its byte, its
// value, the rule) or a bad target (j, its row, its value).
std::unique_ptr<std::istream> open_binary_csr_bytes(const std::string& path);
void read_binary_csr_bytes(std::istream& in, const std::string& path, std::uint64_t at, std::uint64_t bytes,
                           void* dst);
[[noreturn]] void throw_binary_csr_bad_offset(const std::string& path, std::int64_t k, std::int64_t value,
                                              const std::string& why);
[[noreturn]] void throw_binary_csr_bad_target(const std::string& path, std::int64_t j, std::int64_t row,
                                              std::int64_t value, std::int64_t n);

// `count` values of type T stored at byte `at` of the file, in a View of S.
template <class T, class S>
tessera::View<T*, S> load_binary_array(const std::string& path, std::uint64_t at, std::int64_t count,
                                       const std::string& label) {
  tessera::View<T*, S> v(tessera::view_alloc(label, tessera::WithoutInitializing), count);
  using M = typename tessera::View<T*, S>::memory_space;
  if (count == 0) return v;
  const auto in = open_binary_csr_bytes(path);
  if constexpr (tessera::detail::host_accessible<M>::value) {
    read_binary_csr_bytes(*in, path, at, std::uint64_t(count) * sizeof(T), v.data());
  } else {
    // 8 MiB of host memory at a time, whatever the file's size.
    const std::int64_t chunk = std::min<std::int64_t>(count, std::int64_t(1) << 20);
    tessera::View<T*, tessera::HostSpace> buffer(tessera::view_alloc(label + "(host chunk)", tessera::WithoutInitializing),
                                                 chunk);
    for (std::int64_t b = 0; b < count; b += chunk) {
      const std::int64_t e = std::min(count, b + chunk);
      read_binary_csr_bytes(*in, path, at + std::uint64_t(b) * sizeof(T), std::uint64_t(e - b) * sizeof(T),
                            buffer.data());
      tessera::deep_copy(tessera::subview(v, std::make_pair(b, e)),
                         tessera::subview(buffer, std::make_pair(std::int64_t(0), e - b)));
    }
  }
  return v;
}

// Row offsets from 0 to the m entries, never decreasing: the first one
// that is not is named, with the file's byte and the rule it breaks.
template <class Exec, class S>
void check_binary_row_offsets(const std::string& path, const tessera::View<std::int64_t*, S>& rows, std::int64_t n,
                              std::int64_t m) {
  std::int64_t first_bad = n + 1;
  tessera::parallel_reduce(
      "graph::read_binary_csr::check_offsets", tessera::RangePolicy<Exec>(0, n + 1),
      TESSERA_LAMBDA(std::int64_t k, std::int64_t & bad) {
        const std::int64_t o = rows(k);
        const bool wrong = k == 0 ? o != 0 : (o < rows(k - 1) || o > m);
        if (wrong && k < bad) bad = k;
      },
      tessera::Min<std::int64_t>(first_bad));
  if (first_bad <= n) {
    const std::int64_t o = read_one(rows, first_bad);
    if (first_bad == 0) throw_binary_csr_bad_offset(path, 0, o, "the first offset must be 0");
    const std::int64_t before = read_one(rows, first_bad - 1);
    if (o < before)
      throw_binary_csr_bad_offset(path, first_bad, o,
                                  "below the previous offset " + std::to_string(before) + " (offsets must not decrease)");
    throw_binary_csr_bad_offset(path, first_bad, o, "beyond the " + std::to_string(m) + " entries of the file");
  }
  const std::int64_t last = read_one(rows, n);
  if (last != m)
    throw_binary_csr_bad_offset(path, n, last, "the last offset must equal the " + std::to_string(m) + " entries of the file");
}

// Targets in [0, n), checked at the stored width (before any narrowing):
// the first that is not is named with its row.
template <class Exec, class S, class T>
void check_binary_targets(const std::string& path, const tessera::View<std::int64_t*, S>& rows,
                          const tessera::View<T*, S>& entries, std::int64_t n) {
  const std::int64_t m = std::int64_t(entries.extent(0));
  std::int64_t first_bad = m;
  tessera::parallel_reduce(
      "graph::read_binary_csr::check_targets", tessera::RangePolicy<Exec>(0, m),
      TESSERA_LAMBDA(std::int64_t j, std::int64_t & bad) {
        const std::int64_t v = std::int64_t(entries(j));
        if ((v < 0 || v >= n) && j < bad) bad = j;
      },
      tessera::Min<std::int64_t>(first_bad));
  if (first_bad < m) {
    const auto h = to_host_vector(rows);  // an error path: the row of the bad entry
    const std::int64_t row = std::upper_bound(h.begin(), h.end(), first_bad) - h.begin() - 1;
    throw_binary_csr_bad_target(path, first_bad, row, std::int64_t(read_one(entries, first_bad)), n);
  }
}

// `from` as a View of To in the same space: the same View when the types
// agree, else converted in parallel (the values are known to fit).
template <class To, class Exec, class S, class From>
tessera::View<To*, S> convert_binary_array(const tessera::View<From*, S>& from) {
  if constexpr (std::is_same_v<To, From>) {
    return from;
  } else {
    tessera::View<To*, S> to(tessera::view_alloc(from.label(), tessera::WithoutInitializing), from.extent(0));
    tessera::parallel_for(
        "graph::read_binary_csr::convert", tessera::RangePolicy<Exec>(0, std::int64_t(from.extent(0))),
        TESSERA_LAMBDA(std::int64_t i) { to(i) = To(from(i)); });
    return to;
  }
}

// The file's targets (stored as T) checked in [0, n), as a View of V.
template <class V, class Exec, class S, class T>
tessera::View<V*, S> load_binary_targets(const std::string& path, std::uint64_t at, std::int64_t m,
                                         const tessera::View<std::int64_t*, S>& rows, std::int64_t n) {
  auto stored = load_binary_array<T, S>(path, at, m, "graph::entries");
  check_binary_targets<Exec>(path, rows, stored, n);
  return convert_binary_array<V, Exec>(stored);
}

}  // namespace tessera::graph::detail
