// -div(k grad u) = f on the unit cube, tetrahedral meshes, with the
// manufactured solution u = sin(pi x) sin(pi y) sin(pi z) and k = 1 + x + y^2:
// assembled on every host back-end (the three assembly strategies), solved
// with the sparse Cholesky, the L2 error printed at two mesh sizes. Check:
// the error falls at the element's order when h halves (ratio about 4 for
// P1, 8 for P2) and every back-end and strategy gives the same solution.
#include <tessera/sparse.hpp>

#include <cmath>
#include <cstdio>
#include <vector>

namespace ts = tessera::sparse;
namespace fem = tessera::sparse::fem;

constexpr double pi = 3.14159265358979323846;

struct Exact {
  TESSERA_INLINE_FUNCTION double operator()(const double* x) const {
    return sin(pi * x[0]) * sin(pi * x[1]) * sin(pi * x[2]);
  }
};
struct Coefficient {
  TESSERA_INLINE_FUNCTION double operator()(const double* x) const { return 1.0 + x[0] + x[1] * x[1]; }
};
struct Source {  // -div(k grad u) = -(k_x u_x + k_y u_y) + 3 pi^2 k u
  TESSERA_INLINE_FUNCTION double operator()(const double* x) const {
    const double sx = sin(pi * x[0]), sy = sin(pi * x[1]), sz = sin(pi * x[2]);
    const double ux = pi * cos(pi * x[0]) * sy * sz, uy = pi * sx * cos(pi * x[1]) * sz;
    return -(ux + 2.0 * x[1] * uy) + 3.0 * pi * pi * (1.0 + x[0] + x[1] * x[1]) * sx * sy * sz;
  }
};

// L2 error of u_h = sum_a x_a N_a, integrated with the P2 tetrahedron's degree-4 rule.
template <class Element>
double l2_error(const fem::Mesh& mesh, const std::vector<double>& uh) {
  constexpr int n = Element::nodes;
  double err2 = 0;
  for (std::int64_t e = 0; e < mesh.num_elements(); ++e) {
    double x[n * 3];
    for (int a = 0; a < n; ++a)
      for (int d = 0; d < 3; ++d) x[a * 3 + d] = mesh.coords(mesh.elements(e, a), d);
    const fem::AffineGeometry<3> g(x);
    for (int q = 0; q < fem::P2Tetrahedron::quadrature_points; ++q) {
      double l[4], w, p[3], N[n];
      fem::P2Tetrahedron::quadrature(q, l, w);
      g.point(x, l, p);
      Element::shape(l, N);
      double v = 0;
      for (int a = 0; a < n; ++a) v += uh[mesh.elements(e, a)] * N[a];
      err2 += w * g.measure * (v - Exact{}(p)) * (v - Exact{}(p));
    }
  }
  return std::sqrt(err2);
}

template <class Space, class Element>
std::vector<double> solve(const fem::Mesh& mesh, fem::AssemblyStrategy strategy) {
  fem::Assembler<Space> assembler(mesh, 1);  // sparsity, once, in parallel on Space
  assembler.assemble(fem::PoissonKernel<Element, Coefficient, Source>{Coefficient{}, Source{}}, strategy);
  const auto boundary = fem::boundary_nodes(mesh);
  assembler.apply_dirichlet(fem::node_dofs(boundary, 1), std::vector<double>(boundary.size(), 0.0));
  const ts::CrsMatrix<double> A = assembler.matrix();
  auto b = assembler.rhs();
  ts::Cholesky<double, tessera::DefaultHostExecutionSpace> chol({.ordering = ts::Ordering::Metis});
  chol.analyze(A);
  chol.factorize(A);
  std::vector<double> x(A.num_rows());
  chol.solve(x.data(), b.data(), 1);
  return x;
}

template <class Space, class Element>
bool convergence(int coarse) {
  constexpr int order = Element::order;
  double err[2];
  std::vector<double> reference;
  bool same = true;
  for (int level = 0; level < 2; ++level) {
    const int n = coarse << level;
    const auto mesh = fem::box_mesh({.cells = {n, n, n}, .order = order});
    for (auto s : {fem::AssemblyStrategy::Colouring, fem::AssemblyStrategy::ElementMap,
                   fem::AssemblyStrategy::ScatterView}) {
      const auto x = solve<Space, Element>(mesh, s);
      if (s == fem::AssemblyStrategy::Colouring) {
        err[level] = l2_error<Element>(mesh, x);
        reference = x;
      } else {
        for (std::size_t i = 0; i < x.size(); ++i) same = same && std::abs(x[i] - reference[i]) < 1e-12;
      }
    }
    std::printf("  %-8s P%d  h = 1/%-3d %7lld elements %6lld nodes  L2 error %.3e\n", Space::name(), order, n,
                (long long)mesh.num_elements(), (long long)mesh.num_nodes(), err[level]);
  }
  const double ratio = err[0] / err[1], expect = order == 1 ? 4.0 : 8.0;
  const bool ok = ratio > 0.85 * expect && ratio < 1.15 * expect && same;
  std::printf("  %-8s P%d  error ratio %.2f (h^%d: %.0f)%s%s\n", Space::name(), order, ratio, order + 1, expect,
              same ? "" : ", strategies DIFFER", ok ? "" : "  <-- FAIL");
  return ok;
}

template <class Space>
bool run() {
  return convergence<Space, fem::P1Tetrahedron>(6) && convergence<Space, fem::P2Tetrahedron>(3);
}

int main(int argc, char* argv[]) {
  tessera::ScopeGuard guard(argc, argv);
  std::printf("-div((1 + x + y^2) grad u) = f on the unit cube, u = sin(pi x) sin(pi y) sin(pi z)\n");
  bool ok = run<tessera::Serial>();
#if TESSERA_ENABLE_THREADS
  ok = run<tessera::Threads>() && ok;
#endif
#if TESSERA_ENABLE_OPENMP
  ok = run<tessera::OpenMP>() && ok;
#endif
  std::printf("%s\n", ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
