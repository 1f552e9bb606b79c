#pragma once
// Serial reference algorithms the parallel ones are checked against.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <numeric>
#include <queue>
#include <vector>

namespace graph_ref {

using adj_t = std::vector<std::vector<std::int64_t>>;

inline std::vector<int> bfs_levels(const adj_t& a, const std::vector<std::int64_t>& sources) {
  std::vector<int> lvl(a.size(), -1);
  std::queue<std::int64_t> q;
  for (auto s : sources)
    if (lvl[s] < 0) lvl[s] = 0, q.push(s);
  while (!q.empty()) {
    auto u = q.front();
    q.pop();
    for (auto v : a[u])
      if (lvl[v] < 0) lvl[v] = lvl[u] + 1, q.push(v);
  }
  return lvl;
}

// Weak components labelled by their smallest vertex.
inline std::vector<std::int64_t> components(const adj_t& a) {
  std::vector<std::int64_t> p(a.size());
  std::iota(p.begin(), p.end(), 0);
  std::function<std::int64_t(std::int64_t)> find = [&](std::int64_t x) { return p[x] == x ? x : p[x] = find(p[x]); };
  for (std::size_t u = 0; u < a.size(); ++u)
    for (auto v : a[u]) {
      auto ru = find(std::int64_t(u)), rv = find(v);
      if (ru != rv) p[std::max(ru, rv)] = std::min(ru, rv);
    }
  std::vector<std::int64_t> c(a.size());
  for (std::size_t v = 0; v < a.size(); ++v) c[v] = find(std::int64_t(v));
  return c;
}

// Strongly connected components (Tarjan, iterative), labelled by smallest vertex.
inline std::vector<std::int64_t> scc(const adj_t& a) {
  const std::int64_t n = std::int64_t(a.size());
  std::vector<std::int64_t> idx(n, -1), low(n, 0), comp(n, -1), st;
  std::vector<char> on(n, 0);
  std::int64_t counter = 0;
  for (std::int64_t s = 0; s < n; ++s) {
    if (idx[s] >= 0) continue;
    std::vector<std::pair<std::int64_t, std::size_t>> call{{s, 0}};
    idx[s] = low[s] = counter++;
    st.push_back(s);
    on[s] = 1;
    while (!call.empty()) {
      auto& [v, k] = call.back();
      if (k < a[v].size()) {
        auto w = a[v][k++];
        if (idx[w] < 0) {
          idx[w] = low[w] = counter++;
          st.push_back(w);
          on[w] = 1;
          call.push_back({w, 0});
        } else if (on[w]) {
          low[v] = std::min(low[v], idx[w]);
        }
      } else {
        if (low[v] == idx[v]) {
          std::vector<std::int64_t> members;
          std::int64_t w;
          do {
            w = st.back();
            st.pop_back();
            on[w] = 0;
            members.push_back(w);
          } while (w != v);
          auto m = *std::min_element(members.begin(), members.end());
          for (auto x : members) comp[x] = m;
        }
        auto vv = v;
        call.pop_back();
        if (!call.empty()) low[call.back().first] = std::min(low[call.back().first], low[vv]);
      }
    }
  }
  return comp;
}

// Power iteration with the same formula as tessera::graph::pagerank.
inline std::vector<double> pagerank(const adj_t& out, double d, int iters) {
  const std::size_t n = out.size();
  std::vector<double> r(n, 1.0 / double(n)), nx(n);
  for (int it = 0; it < iters; ++it) {
    double dangling = 0;
    std::fill(nx.begin(), nx.end(), 0.0);
    for (std::size_t u = 0; u < n; ++u) {
      if (out[u].empty()) dangling += r[u];
      for (auto v : out[u]) nx[v] += r[u] / double(out[u].size());
    }
    for (std::size_t v = 0; v < n; ++v) nx[v] = (1 - d) / double(n) + d * (nx[v] + dangling / double(n));
    std::swap(r, nx);
  }
  return r;
}

inline std::vector<std::array<std::int64_t, 3>> triangles(const adj_t& a) {
  std::vector<std::array<std::int64_t, 3>> t;
  for (std::size_t u = 0; u < a.size(); ++u)
    for (auto v : a[u])
      if (v > std::int64_t(u))
        for (auto w : a[v])
          if (w > v && std::binary_search(a[u].begin(), a[u].end(), w)) t.push_back({std::int64_t(u), v, w});
  return t;
}

inline std::vector<double> dijkstra(const std::vector<std::vector<std::pair<std::int64_t, double>>>& a, std::int64_t s) {
  std::vector<double> d(a.size(), std::numeric_limits<double>::max());
  using item = std::pair<double, std::int64_t>;
  std::priority_queue<item, std::vector<item>, std::greater<item>> pq;
  d[s] = 0;
  pq.push({0, s});
  while (!pq.empty()) {
    auto [du, u] = pq.top();
    pq.pop();
    if (du > d[u]) continue;
    for (auto [v, w] : a[u])
      if (du + w < d[v]) d[v] = du + w, pq.push({d[v], v});
  }
  return d;
}

}  // namespace graph_ref
