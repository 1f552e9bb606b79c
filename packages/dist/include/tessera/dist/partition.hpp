#pragma once
// A 1-D partition of the global index range [0, n) into one contiguous range
// per rank. Balanced by a weight (a graph's edges, a matrix's nonzeros), not
// by count: rank r owns [offsets[r], offsets[r+1]), and the ranges' weights
// differ by at most the largest single weight.
#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace tessera::dist {

class Partition {
 public:
  Partition() = default;
  // From the ranges' first indices: offsets[0] = 0, nondecreasing, offsets.back() = n.
  explicit Partition(std::vector<std::int64_t> offsets) : m_offsets(std::move(offsets)) {
    if (m_offsets.size() < 2 || m_offsets.front() != 0)
      throw std::invalid_argument("tessera::dist::Partition: offsets must start at 0 and name at least one rank");
    for (std::size_t r = 1; r < m_offsets.size(); ++r)
      if (m_offsets[r] < m_offsets[r - 1])
        throw std::invalid_argument("tessera::dist::Partition: offsets decrease at rank " + std::to_string(r - 1));
  }
  // n indices over `ranks`, equal counts (the first n % ranks get one more).
  static Partition uniform(std::int64_t n, int ranks) {
    std::vector<std::int64_t> o(std::size_t(ranks) + 1);
    for (int r = 0; r <= ranks; ++r) o[std::size_t(r)] = n / ranks * r + std::min<std::int64_t>(r, n % ranks);
    return Partition(std::move(o));
  }
  // Balanced by weight: prefix[i] = total weight of indices below i
  // (size n + 1). Rank r's range ends at the first index whose prefix
  // reaches r+1 shares of the total.
  static Partition balanced(const std::vector<std::int64_t>& prefix, int ranks) {
    const std::int64_t n = std::int64_t(prefix.size()) - 1;
    const std::int64_t total = prefix.back();
    std::vector<std::int64_t> o(std::size_t(ranks) + 1, n);
    o[0] = 0;
    for (int r = 1; r < ranks; ++r) {
      const std::int64_t target = (total * r + ranks - 1) / ranks;
      o[std::size_t(r)] = std::max(o[std::size_t(r) - 1], std::int64_t(std::lower_bound(prefix.begin(), prefix.end(), target) - prefix.begin()));
      o[std::size_t(r)] = std::min(o[std::size_t(r)], n);
    }
    return Partition(std::move(o));
  }

  int ranks() const noexcept { return int(m_offsets.size()) - 1; }
  std::int64_t size() const noexcept { return m_offsets.back(); }
  std::int64_t begin(int r) const noexcept { return m_offsets[std::size_t(r)]; }
  std::int64_t end(int r) const noexcept { return m_offsets[std::size_t(r) + 1]; }
  std::int64_t count(int r) const noexcept { return end(r) - begin(r); }
  const std::vector<std::int64_t>& offsets() const noexcept { return m_offsets; }
  // The rank owning global index i (0 <= i < size()).
  int owner(std::int64_t i) const noexcept {
    return int(std::upper_bound(m_offsets.begin() + 1, m_offsets.end(), i) - m_offsets.begin()) - 1;
  }

 private:
  std::vector<std::int64_t> m_offsets{0, 0};
};

}  // namespace tessera::dist
