#pragma once
// Shared helpers of the finite-element tests: a manufactured Poisson problem
// with a variable coefficient, the solve through the sparse Cholesky, and
// the L2 error of a finite-element function against a closed form.
#include "sparse_test_util.hpp"

#include <cmath>
#include <vector>

namespace fem_test {

namespace ts = tessera::sparse;
namespace fem = tessera::sparse::fem;

constexpr double pi = 3.14159265358979323846;

// u = sin(pi x) sin(pi y) [sin(pi z)], zero on the boundary of the unit box;
// k = 1 + x + y^2; f = -div(k grad u) = -(k_x u_x + k_y u_y) + dim pi^2 k u.
template <int D>
struct Exact {
  TESSERA_INLINE_FUNCTION double operator()(const double* x) const {
    double u = 1;
    for (int d = 0; d < D; ++d) u *= sin(pi * x[d]);
    return u;
  }
};
struct Coefficient {
  TESSERA_INLINE_FUNCTION double operator()(const double* x) const { return 1.0 + x[0] + x[1] * x[1]; }
};
template <int D>
struct Source {
  TESSERA_INLINE_FUNCTION double operator()(const double* x) const {
    const double sx = sin(pi * x[0]), sy = sin(pi * x[1]), sz = D == 3 ? sin(pi * x[2]) : 1.0;
    const double ux = pi * cos(pi * x[0]) * sy * sz, uy = pi * sx * cos(pi * x[1]) * sz;
    const double k = 1.0 + x[0] + x[1] * x[1];
    return -(1.0 * ux + 2.0 * x[1] * uy) + D * pi * pi * k * sx * sy * sz;
  }
};

// Solves A x = b with the package's Cholesky (host).
inline std::vector<double> solve(const ts::CrsMatrix<double>& A, const tessera::View<double*, tessera::HostSpace>& b) {
  ts::Cholesky<double, tessera::DefaultHostExecutionSpace> chol({.ordering = ts::Ordering::Metis});
  chol.analyze(A);
  chol.factorize(A);
  std::vector<double> x(std::size_t(A.num_rows()));
  std::vector<double> rhs(b.data(), b.data() + b.extent(0));
  chol.solve(x.data(), rhs.data(), 1);
  return x;
}

// || u_h - u ||_L2 over the mesh, with a degree-4 rule (Keast / Dunavant)
// on every element; u_h(x) = sum_a x[dof(a)] N_a.
template <class Element, class F>
double l2_error(const fem::Mesh& mesh, const std::vector<double>& uh, const F& exact) {
  constexpr int D = Element::dim, n = Element::nodes;
  using Rule = fem::ReferenceElement<D == 2 ? fem::ElementType::Triangle6 : fem::ElementType::Tetrahedron10>;
  double err2 = 0;
  for (std::int64_t e = 0; e < mesh.num_elements(); ++e) {
    double x[n * D];
    for (int a = 0; a < n; ++a)
      for (int d = 0; d < D; ++d) x[a * D + d] = mesh.coords(mesh.elements(e, a), d);
    const fem::AffineGeometry<D> g(x);
    for (int q = 0; q < Rule::quadrature_points; ++q) {
      double l[D + 1], w, p[D], N[n];
      Rule::quadrature(q, l, w);
      g.point(x, l, p);
      Element::shape(l, N);
      double v = 0;
      for (int a = 0; a < n; ++a) v += uh[std::size_t(mesh.elements(e, a))] * N[a];
      const double diff = v - exact(p);
      err2 += w * g.measure * diff * diff;
    }
  }
  return std::sqrt(err2);
}

// Assembles and solves the manufactured problem on `mesh`, returns the L2 error.
template <class Space, class Element>
double poisson_error(const fem::Mesh& mesh, fem::AssemblyStrategy strategy) {
  constexpr int D = Element::dim;
  fem::Assembler<Space> assembler(mesh, 1);
  assembler.assemble(fem::PoissonKernel<Element, Coefficient, Source<D>>{Coefficient{}, Source<D>{}}, strategy);
  const auto boundary = fem::boundary_nodes(mesh);
  assembler.apply_dirichlet(fem::node_dofs(boundary, 1), std::vector<double>(boundary.size(), 0.0));
  const auto x = solve(assembler.matrix(), assembler.rhs());
  return l2_error<Element>(mesh, x, Exact<D>{});
}

}  // namespace fem_test
