#pragma once
// Element kernels: the element matrix Ke and load vector fe of one element,
// written once as TESSERA_INLINE_FUNCTIONs so that the same code runs inside
// the assembly kernels of every back-end (Serial, Threads, OpenMP, CUDA).
//
//   auto k = [](const double* x) { return 1 + x[0]; };        // TESSERA_LAMBDA on CUDA
//   auto f = [](const double* x) { return 1.0; };
//   fem::PoissonKernel<fem::P2Tetrahedron, decltype(k), decltype(f)> kernel{k, f};
//   kernel(x, Ke, fe);   // x: the element's node coordinates, node-major (nodes x dim)
//
// A kernel is any copyable type with
//   using element = <a ReferenceElement>;     static constexpr int dofs_per_node;
//   static constexpr int dofs = element::nodes * dofs_per_node;
//   TESSERA_INLINE_FUNCTION void operator()(const double* x, double* Ke, double* fe) const;
// Ke is dofs x dofs row-major, local dof (node a, component i) = a * dofs_per_node + i;
// the Assembler (assembly.hpp) calls it once per element. Coefficients and
// sources are functors of the physical point x[dim].
#include <tessera/sparse/fem/reference_element.hpp>

namespace tessera::sparse::fem {

// A coefficient or source that is the same everywhere.
struct Constant {
  double value = 0;
  TESSERA_INLINE_FUNCTION double operator()(const double*) const { return value; }
};

// -div(k grad u) = f:  Ke_ab = integral k grad N_a . grad N_b,  fe_a = integral f N_a.
template <class Element, class Coefficient, class Source = Constant>
struct PoissonKernel {
  using element = Element;
  static constexpr int dofs_per_node = 1;
  static constexpr int dofs = Element::nodes;
  Coefficient k;
  Source f{};

  TESSERA_INLINE_FUNCTION void operator()(const double* x, double* Ke, double* fe) const {
    constexpr int D = Element::dim, n = Element::nodes;
    const AffineGeometry<D> g(x);
    for (int a = 0; a < n * n; ++a) Ke[a] = 0;
    for (int a = 0; a < n; ++a) fe[a] = 0;
    for (int q = 0; q < Element::quadrature_points; ++q) {
      double l[D + 1], w, p[D], N[n], dN[n][D];
      Element::quadrature(q, l, w);
      g.point(x, l, p);
      Element::shape(l, N);
      Element::gradients(l, g.grad_lambda, dN);
      const double wk = w * g.measure * k(p), wf = w * g.measure * f(p);
      for (int a = 0; a < n; ++a) {
        fe[a] += wf * N[a];
        for (int b = 0; b < n; ++b) {
          double s = 0;
          for (int d = 0; d < D; ++d) s += dN[a][d] * dN[b][d];
          Ke[a * n + b] += wk * s;
        }
      }
    }
  }
};

// The mass matrix Me_ab = integral N_a N_b and fe_a = integral N_a (so that
// the entries of the assembled M sum to the domain's measure).
template <class Element>
struct MassKernel {
  using element = Element;
  static constexpr int dofs_per_node = 1;
  static constexpr int dofs = Element::nodes;

  TESSERA_INLINE_FUNCTION void operator()(const double* x, double* Ke, double* fe) const {
    constexpr int D = Element::dim, n = Element::nodes;
    const AffineGeometry<D> g(x);
    for (int a = 0; a < n * n; ++a) Ke[a] = 0;
    for (int a = 0; a < n; ++a) fe[a] = 0;
    for (int q = 0; q < Element::quadrature_points; ++q) {
      double l[D + 1], w, N[n];
      Element::quadrature(q, l, w);
      Element::shape(l, N);
      const double wm = w * g.measure;
      for (int a = 0; a < n; ++a) {
        fe[a] += wm * N[a];
        for (int b = 0; b < n; ++b) Ke[a * n + b] += wm * N[a] * N[b];
      }
    }
  }
};

// Isotropic linear elasticity, -div sigma(u) = body_force, sigma = lambda
// tr(eps) I + 2 mu eps with the Lame constants of Young's modulus E and
// Poisson's ratio nu:
//   K_(a i)(b j) = integral lambda dN_a/dx_i dN_b/dx_j + mu (delta_ij grad N_a . grad N_b + dN_a/dx_j dN_b/dx_i),
//   f_(a i)      = integral body_force_i N_a.
template <class Element>
struct ElasticityKernel {
  using element = Element;
  static constexpr int dofs_per_node = Element::dim;
  static constexpr int dofs = Element::nodes * Element::dim;
  double youngs_modulus = 1;
  double poisson_ratio = 0;
  double body_force[3] = {0, 0, 0};

  TESSERA_INLINE_FUNCTION void operator()(const double* x, double* Ke, double* fe) const {
    constexpr int D = Element::dim, n = Element::nodes, m = dofs;
    const double E = youngs_modulus, nu = poisson_ratio;
    const double lambda = E * nu / ((1 + nu) * (1 - 2 * nu)), mu = E / (2 * (1 + nu));
    const AffineGeometry<D> g(x);
    for (int a = 0; a < m * m; ++a) Ke[a] = 0;
    for (int a = 0; a < m; ++a) fe[a] = 0;
    for (int q = 0; q < Element::quadrature_points; ++q) {
      double l[D + 1], w, N[n], dN[n][D];
      Element::quadrature(q, l, w);
      Element::shape(l, N);
      Element::gradients(l, g.grad_lambda, dN);
      const double wq = w * g.measure;
      for (int a = 0; a < n; ++a) {
        for (int i = 0; i < D; ++i) fe[a * D + i] += wq * body_force[i] * N[a];
        for (int b = 0; b < n; ++b) {
          double dot = 0;
          for (int d = 0; d < D; ++d) dot += dN[a][d] * dN[b][d];
          for (int i = 0; i < D; ++i)
            for (int j = 0; j < D; ++j)
              Ke[(a * D + i) * m + b * D + j] +=
                  wq * (lambda * dN[a][i] * dN[b][j] + mu * ((i == j ? dot : 0.0) + dN[a][j] * dN[b][i]));
        }
      }
    }
  }
};

}  // namespace tessera::sparse::fem
