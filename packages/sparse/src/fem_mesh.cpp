// Mesh checks, the structured box generator and boundary detection
// (tessera/sparse/fem/mesh.hpp).
#include <tessera/sparse/fem/assembly.hpp>
#include <tessera/sparse/fem/mesh.hpp>

#include <algorithm>
#include <cmath>
#include <random>

namespace tessera::sparse::fem {

const char* to_string(ElementType t) {
  switch (t) {
    case ElementType::Triangle3: return "P1 triangle";
    case ElementType::Triangle6: return "P2 triangle";
    case ElementType::Tetrahedron4: return "P1 tetrahedron";
    case ElementType::Tetrahedron10: return "P2 tetrahedron";
  }
  return "?";
}

const char* to_string(AssemblyStrategy s) {
  switch (s) {
    case AssemblyStrategy::ScatterView: return "scatterview";
    case AssemblyStrategy::Colouring: return "colouring";
    case AssemblyStrategy::ElementMap: return "element-map";
  }
  return "?";
}

namespace {

// Signed measure (det J) of element e and its longest vertex-to-vertex edge.
double element_det(const Mesh& m, std::int64_t e, double& longest) {
  const int D = m.dim();
  double x[4][3] = {};
  for (int v = 0; v <= D; ++v)
    for (int d = 0; d < D; ++d) x[v][d] = m.coords(m.elements(e, v), d);
  longest = 0;
  for (int a = 0; a <= D; ++a)
    for (int b = a + 1; b <= D; ++b) {
      double s = 0;
      for (int d = 0; d < D; ++d) s += (x[a][d] - x[b][d]) * (x[a][d] - x[b][d]);
      longest = std::max(longest, std::sqrt(s));
    }
  double flat[12];
  for (int v = 0; v <= D; ++v)
    for (int d = 0; d < D; ++d) flat[v * D + d] = x[v][d];
  return D == 2 ? AffineGeometry<2>(flat).det : AffineGeometry<3>(flat).det;
}

}  // namespace

void Mesh::check() const {
  const std::string where = origin.empty() ? std::string("mesh") : origin;
  const int n = nodes_per_element();
  if (coords.extent(1) != std::size_t(dim()))
    throw sparse_error(where + ": coordinates have " + std::to_string(coords.extent(1)) + " components, a " +
                       to_string(type) + " mesh needs " + std::to_string(dim()));
  if (elements.extent(1) != std::size_t(n))
    throw sparse_error(where + ": elements have " + std::to_string(elements.extent(1)) + " nodes, a " +
                       to_string(type) + " has " + std::to_string(n));
  if (num_nodes() > std::int64_t(std::numeric_limits<std::int32_t>::max()))
    throw sparse_error(where + ": " + std::to_string(num_nodes()) + " nodes exceed the 32-bit node index");
  for (std::int64_t e = 0; e < num_elements(); ++e) {
    for (int a = 0; a < n; ++a) {
      const std::int64_t v = elements(e, a);
      if (v < 0 || v >= num_nodes())
        throw sparse_error(where + ": element " + std::to_string(e) + " local node " + std::to_string(a) +
                           " is node " + std::to_string(v) + ", outside 0.." + std::to_string(num_nodes() - 1));
      for (int b = 0; b < a; ++b)
        if (elements(e, b) == v)
          throw sparse_error(where + ": element " + std::to_string(e) + " lists node " + std::to_string(v) +
                             " twice (local nodes " + std::to_string(b) + " and " + std::to_string(a) + ")");
    }
    double longest = 0;
    const double det = element_det(*this, e, longest);
    if (!(std::abs(det) > 1e-12 * std::pow(longest, dim())))
      throw sparse_error(where + ": element " + std::to_string(e) + " is degenerate (det J = " + std::to_string(det) +
                         " for an edge of " + std::to_string(longest) + ")");
  }
}

double Mesh::measure() const {
  double total = 0, longest = 0;
  const double fact = dim() == 2 ? 2.0 : 6.0;
  for (std::int64_t e = 0; e < num_elements(); ++e) total += std::abs(element_det(*this, e, longest)) / fact;
  return total;
}

Mesh box_mesh(const BoxMeshOptions& o) {
  const int D = o.cells[2] > 0 ? 3 : 2;
  const int p = o.order;
  if (p != 1 && p != 2) throw sparse_error("box_mesh: order " + std::to_string(p) + " (1 or 2 supported)");
  for (int d = 0; d < D; ++d) {
    if (o.cells[d] < 1) throw sparse_error("box_mesh: cells[" + std::to_string(d) + "] = " + std::to_string(o.cells[d]));
    if (!(o.lengths[d] > 0))
      throw sparse_error("box_mesh: lengths[" + std::to_string(d) + "] = " + std::to_string(o.lengths[d]));
  }
  if (!(o.perturbation >= 0 && o.perturbation < 0.25))
    throw sparse_error("box_mesh: perturbation " + std::to_string(o.perturbation) + " outside [0, 0.25)");

  const std::int64_t nc[3] = {o.cells[0] + 1, o.cells[1] + 1, D == 3 ? o.cells[2] + 1 : 1};  // coarse vertices
  const std::int64_t nf[3] = {p * o.cells[0] + 1, p * o.cells[1] + 1, D == 3 ? p * o.cells[2] + 1 : 1};
  const double h[3] = {o.lengths[0] / o.cells[0], o.lengths[1] / o.cells[1],
                       D == 3 ? o.lengths[2] / o.cells[2] : 1.0};
  if (nf[0] * nf[1] * nf[2] > std::int64_t(std::numeric_limits<std::int32_t>::max()))
    throw sparse_error("box_mesh: too many nodes for 32-bit node indices");

  // Coarse vertex positions: the grid, interior vertices displaced.
  std::vector<double> vx(std::size_t(nc[0] * nc[1] * nc[2] * D));
  std::mt19937_64 rng(o.seed);
  std::uniform_real_distribution<double> unif(-1.0, 1.0);
  for (std::int64_t k = 0; k < nc[2]; ++k)
    for (std::int64_t j = 0; j < nc[1]; ++j)
      for (std::int64_t i = 0; i < nc[0]; ++i) {
        const std::int64_t c[3] = {i, j, k};
        const std::int64_t v = i + nc[0] * (j + nc[1] * k);
        bool interior = true;
        for (int d = 0; d < D; ++d) interior = interior && c[d] > 0 && c[d] < nc[d] - 1;
        for (int d = 0; d < D; ++d) {
          const double shift = o.perturbation > 0 ? o.perturbation * h[d] * unif(rng) : 0.0;
          vx[v * D + d] = c[d] * h[d] + (interior ? shift : 0.0);
        }
      }

  Mesh m;
  m.type = D == 2 ? (p == 1 ? ElementType::Triangle3 : ElementType::Triangle6)
                  : (p == 1 ? ElementType::Tetrahedron4 : ElementType::Tetrahedron10);
  m.origin = "box " + std::to_string(o.cells[0]) + "x" + std::to_string(o.cells[1]) +
             (D == 3 ? "x" + std::to_string(o.cells[2]) : std::string()) + " P" + std::to_string(p);
  const std::int64_t nnodes = nf[0] * nf[1] * nf[2];
  m.coords = View<double**, LayoutRight, HostSpace>("fem::coords", nnodes, D);
  // A fine-grid node f is the midpoint of the coarse vertices f/p and
  // f/p + f%p: every Kuhn edge runs in a nonnegative direction, so each
  // node of the P2 grid is the midpoint of exactly that edge (or a vertex).
  for (std::int64_t k = 0; k < nf[2]; ++k)
    for (std::int64_t j = 0; j < nf[1]; ++j)
      for (std::int64_t i = 0; i < nf[0]; ++i) {
        const std::int64_t f[3] = {i, j, k};
        std::int64_t a[3] = {0, 0, 0}, b[3] = {0, 0, 0};
        for (int d = 0; d < D; ++d) {
          a[d] = f[d] / p;
          b[d] = a[d] + f[d] % p;
        }
        const std::int64_t va = a[0] + nc[0] * (a[1] + nc[1] * a[2]), vb = b[0] + nc[0] * (b[1] + nc[1] * b[2]);
        const std::int64_t node = i + nf[0] * (j + nf[1] * k);
        for (int d = 0; d < D; ++d) m.coords(node, d) = 0.5 * (vx[va * D + d] + vx[vb * D + d]);
      }

  // Cell-local simplices as chains of unit steps from (0,0,0) to (1,1,1).
  std::vector<std::array<std::array<int, 3>, 4>> simplices;
  if (D == 2) {
    simplices.push_back({{{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 0, 0}}});
    simplices.push_back({{{0, 0, 0}, {1, 1, 0}, {0, 1, 0}, {0, 0, 0}}});
  } else {
    int perm[3] = {0, 1, 2};
    do {
      std::array<std::array<int, 3>, 4> s{};
      for (int v = 1; v <= 3; ++v) {
        s[v] = s[v - 1];
        s[v][perm[v - 1]] = 1;
      }
      // Positive orientation: det of the three steps is the permutation's sign.
      const int inversions = (perm[0] > perm[1]) + (perm[0] > perm[2]) + (perm[1] > perm[2]);
      if (inversions % 2) std::swap(s[1], s[2]);
      simplices.push_back(s);
    } while (std::next_permutation(perm, perm + 3));
  }
  const int n = nodes_of(m.type), nv = D + 1;
  const std::int64_t ncells = std::int64_t(o.cells[0]) * o.cells[1] * (D == 3 ? o.cells[2] : 1);
  m.elements = View<std::int32_t**, LayoutRight, HostSpace>("fem::elements", ncells * std::int64_t(simplices.size()), n);
  std::int64_t e = 0;
  for (std::int64_t ck = 0; ck < (D == 3 ? o.cells[2] : 1); ++ck)
    for (std::int64_t cj = 0; cj < o.cells[1]; ++cj)
      for (std::int64_t ci = 0; ci < o.cells[0]; ++ci)
        for (const auto& s : simplices) {
          auto fine = [&](const std::array<int, 3>& off2) {  // off2: twice the offset in cells, scaled to p
            const std::int64_t f[3] = {p * ci + off2[0], p * cj + off2[1], p * ck + off2[2]};
            return std::int32_t(f[0] + nf[0] * (f[1] + nf[1] * f[2]));
          };
          for (int v = 0; v < nv; ++v) m.elements(e, v) = fine({p * s[v][0], p * s[v][1], p * s[v][2]});
          if (p == 2)
            for (int ed = 0; ed < n - nv; ++ed) {
              int a, b;
              detail::simplex_edge(D, ed, a, b);
              m.elements(e, nv + ed) = fine({s[a][0] + s[b][0], s[a][1] + s[b][1], s[a][2] + s[b][2]});
            }
          ++e;
        }
  if (o.perturbation > 0)
    for (std::int64_t el = 0; el < m.num_elements(); ++el) {
      double longest = 0;
      if (!(element_det(m, el, longest) > 0))
        throw sparse_error(m.origin + ": perturbation " + std::to_string(o.perturbation) + " folded element " +
                           std::to_string(el) + "; use a smaller perturbation");
    }
  m.check();
  return m;
}

std::vector<std::int32_t> boundary_nodes(const Mesh& m) {
  const int D = m.dim(), nv = D + 1, n = m.nodes_per_element();
  // One row per (element, local facet): the facet's sorted vertices (unused
  // third entry -1 in 2-D), the element, the local vertex opposite it.
  using Facet = std::array<std::int64_t, 5>;
  std::vector<Facet> facets(std::size_t(m.num_elements() * nv));
  for (std::int64_t e = 0; e < m.num_elements(); ++e)
    for (int f = 0; f < nv; ++f) {
      Facet& t = facets[std::size_t(e * nv + f)];
      t = {-1, -1, -1, e, f};
      int k = 0;
      for (int v = 0; v < nv; ++v)
        if (v != f) t[std::size_t(k++)] = m.elements(e, v);
      std::sort(t.begin(), t.begin() + D);
    }
  std::sort(facets.begin(), facets.end());  // equal facets are now adjacent
  auto same = [](const Facet& a, const Facet& b) { return a[0] == b[0] && a[1] == b[1] && a[2] == b[2]; };
  std::vector<std::int32_t> out;
  for (std::size_t i = 0; i < facets.size();) {
    std::size_t j = i + 1;
    while (j < facets.size() && same(facets[j], facets[i])) ++j;
    if (j == i + 1) {  // on one element only: a boundary facet
      const std::int64_t e = facets[i][3];
      const int opposite = int(facets[i][4]);
      for (int v = 0; v < nv; ++v)
        if (v != opposite) out.push_back(m.elements(e, v));
      for (int ed = 0; ed < n - nv; ++ed) {
        int a, b;
        detail::simplex_edge(D, ed, a, b);
        if (a != opposite && b != opposite) out.push_back(m.elements(e, nv + ed));
      }
    }
    i = j;
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::vector<std::int32_t> nodes_where(const Mesh& m, const std::function<bool(const double*)>& where) {
  std::vector<std::int32_t> out;
  for (std::int64_t i = 0; i < m.num_nodes(); ++i)
    if (where(&m.coords(i, 0))) out.push_back(std::int32_t(i));
  return out;
}

}  // namespace tessera::sparse::fem
