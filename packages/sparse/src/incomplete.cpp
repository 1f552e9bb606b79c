// Level-k patterns by the incomplete fill-path rule, and the level sets of
// a triangular pattern's dependences.
#include <tessera/sparse/incomplete.hpp>

#include <algorithm>

namespace tessera::sparse::detail {

void level_k_row(std::int64_t i, int k, const std::int64_t* rm, const std::int32_t* ci,
                 const std::vector<std::int64_t>& perm, const std::vector<std::int64_t>& iperm,
                 std::vector<std::int32_t>& cols, std::vector<std::int32_t>& levels) {
  cols.clear();
  levels.clear();
  auto for_neighbours = [&](std::int64_t v, auto&& f) {
    const std::int64_t old = perm[v];
    for (std::int64_t q = rm[old]; q < rm[old + 1]; ++q) {
      const std::int64_t u = iperm[ci[q]];
      if (u != v) f(u);
    }
  };
  // 1. Every vertex below i within k + 1 edges of i through vertices below
  // i: all that a fill path of row i can touch.
  std::vector<std::int64_t> seen, frontier{i}, next;
  for (int depth = 1; depth <= k + 1 && !frontier.empty(); ++depth) {
    next.clear();
    for (std::int64_t v : frontier)
      for_neighbours(v, [&](std::int64_t u) {
        if (u < i) next.push_back(u);
      });
    std::sort(next.begin(), next.end());
    next.erase(std::unique(next.begin(), next.end()), next.end());
    std::vector<std::int64_t> fresh;
    std::set_difference(next.begin(), next.end(), seen.begin(), seen.end(), std::back_inserter(fresh));
    std::vector<std::int64_t> merged;
    std::merge(seen.begin(), seen.end(), fresh.begin(), fresh.end(), std::back_inserter(merged));
    seen.swap(merged);
    frontier.swap(fresh);
  }
  // 2. Targets in increasing order. dist[x] is the length of the shortest
  // path from i to seen[x] whose interior lies among the vertices already
  // processed (all below the current target): exactly the paths the rule
  // allows for the current target and for every later one.
  const std::int32_t far = k + 2;
  std::vector<std::int32_t> dist(seen.size(), far);
  std::vector<std::size_t> queue;
  auto position = [&](std::int64_t u) -> std::int64_t {
    const auto it = std::lower_bound(seen.begin(), seen.end(), u);
    return (it != seen.end() && *it == u) ? it - seen.begin() : -1;
  };
  for (std::size_t x = 0; x < seen.size(); ++x) {
    const std::int64_t v = seen[x];
    std::int32_t d = far;
    for_neighbours(v, [&](std::int64_t u) {
      if (u == i) d = 1;
      else if (u < v) {
        const std::int64_t pu = position(u);
        if (pu >= 0 && dist[pu] + 1 < d) d = dist[pu] + 1;
      }
    });
    dist[x] = d;
    if (d <= k + 1) {
      cols.push_back(std::int32_t(v));
      levels.push_back(d - 1);
    }
    // v may now be interior: shorten the processed vertices' paths through it.
    queue.assign(1, x);
    while (!queue.empty()) {
      const std::size_t y = queue.back();
      queue.pop_back();
      if (dist[y] >= k + 1) continue;  // a longer interior path reaches no target within k + 1
      for_neighbours(seen[y], [&](std::int64_t u) {
        if (u > v) return;  // not processed yet
        const std::int64_t pu = position(u);
        if (pu >= 0 && dist[y] + 1 < dist[pu]) {
          dist[pu] = dist[y] + 1;
          queue.push_back(std::size_t(pu));
        }
      });
    }
  }
}

std::vector<std::vector<std::int64_t>> row_levels(const LevelPattern& p, bool transpose) {
  const std::int64_t n = p.n;
  std::vector<std::int64_t> level(n, 0);
  std::int64_t top = -1;
  if (!transpose) {
    for (std::int64_t i = 0; i < n; ++i) {
      for (std::int64_t q = p.row_ptr[i]; q + 1 < p.row_ptr[i + 1]; ++q) level[i] = std::max(level[i], level[p.cols[q]] + 1);
      top = std::max(top, level[i]);
    }
  } else {
    for (std::int64_t j = n - 1; j >= 0; --j) {
      top = std::max(top, level[j]);
      for (std::int64_t q = p.row_ptr[j]; q + 1 < p.row_ptr[j + 1]; ++q)
        level[p.cols[q]] = std::max(level[p.cols[q]], level[j] + 1);
    }
  }
  std::vector<std::vector<std::int64_t>> sets(std::size_t(top + 1));
  for (std::int64_t i = 0; i < n; ++i) sets[level[i]].push_back(i);
  return sets;
}

}  // namespace tessera::sparse::detail
