#pragma once
// Lagrange reference elements on simplices: P1 and P2 on triangles and
// tetrahedra, their shape functions in barycentric coordinates and the
// quadrature rules the element kernels integrate with.
//
//   using E = tessera::sparse::fem::P2Tetrahedron;
//   E::nodes == 10; E::quadrature_points == 11; E::shape(lambda, N);
//
// Node order is Gmsh's (so that a .msh file needs no renumbering): the
// vertices first, then one node per edge at its midpoint, edges in the order
// of edge_vertices(): triangle (0,1) (1,2) (2,0); tetrahedron (0,1) (1,2)
// (2,0) (3,0) (3,2) (3,1).
//
// Elements are affine (straight-sided, P2 edge nodes at the midpoints), so
// the barycentric gradients are constant on an element and every shape
// function is a polynomial in the barycentric coordinates lambda:
//   P1: N_v = lambda_v;   P2: N_v = lambda_v (2 lambda_v - 1), N_(a,b) = 4 lambda_a lambda_b.
//
// Quadrature (points in barycentric coordinates, weights summing to 1, to be
// multiplied by the element's measure): degree 2 for P1 (the stiffness
// integrand is the coefficient times a constant), degree 4 for P2 (gradients
// are P1, their products P2, times the coefficient). Triangle degree 2: the
// 3 points (2/3, 1/6, 1/6) and permutations; triangle degree 4: Dunavant's
// 6-point rule; tetrahedron degree 2: the 4-point rule with a = (5 + 3 sqrt 5)/20;
// tetrahedron degree 4: Keast's 11-point rule (one negative weight at the
// centroid). tests/test_fem_elements.cpp checks each rule on every monomial
// of its degree against the closed form a! b! c! d! / (a + b + c + d + dim)!.
#include <tessera/core.hpp>

namespace tessera::sparse::fem {

enum class ElementType { Triangle3, Triangle6, Tetrahedron4, Tetrahedron10 };

const char* to_string(ElementType t);
constexpr int dimension_of(ElementType t) {
  return t == ElementType::Triangle3 || t == ElementType::Triangle6 ? 2 : 3;
}
constexpr int nodes_of(ElementType t) {
  switch (t) {
    case ElementType::Triangle3: return 3;
    case ElementType::Triangle6: return 6;
    case ElementType::Tetrahedron4: return 4;
    case ElementType::Tetrahedron10: return 10;
  }
  return 0;
}
constexpr int order_of(ElementType t) {
  return t == ElementType::Triangle3 || t == ElementType::Tetrahedron4 ? 1 : 2;
}

namespace detail {

// Vertices (a, b) of edge e, Gmsh's order.
TESSERA_INLINE_FUNCTION void simplex_edge(int dim, int e, int& a, int& b) {
  const int tri[3][2] = {{0, 1}, {1, 2}, {2, 0}};
  const int tet[6][2] = {{0, 1}, {1, 2}, {2, 0}, {3, 0}, {3, 2}, {3, 1}};
  a = dim == 2 ? tri[e][0] : tet[e][0];
  b = dim == 2 ? tri[e][1] : tet[e][1];
}

// Fully symmetric rules: point q's barycentric coordinates and weight.
TESSERA_INLINE_FUNCTION void triangle_degree2(int q, double* l, double& w) {
  for (int v = 0; v < 3; ++v) l[v] = 1.0 / 6.0;
  l[q] = 2.0 / 3.0;
  w = 1.0 / 3.0;
}
TESSERA_INLINE_FUNCTION void triangle_degree4(int q, double* l, double& w) {
  const double a = 0.445948490915965, wa = 0.223381589678011;  // Dunavant (1985), degree 4
  const double b = 0.091576213509771, wb = 0.109951743655322;
  const double p = q < 3 ? a : b;
  for (int v = 0; v < 3; ++v) l[v] = p;
  l[q % 3] = 1.0 - 2.0 * p;
  w = q < 3 ? wa : wb;
}
TESSERA_INLINE_FUNCTION void tetrahedron_degree2(int q, double* l, double& w) {
  const double a = 0.5854101966249685, b = 0.1381966011250105;  // (5 + 3 sqrt 5)/20, (5 - sqrt 5)/20
  for (int v = 0; v < 4; ++v) l[v] = b;
  l[q] = a;
  w = 0.25;
}
TESSERA_INLINE_FUNCTION void tetrahedron_degree4(int q, double* l, double& w) {
  // Keast (1986), 11 points, weights here for a unit measure (his times 6).
  if (q == 0) {
    for (int v = 0; v < 4; ++v) l[v] = 0.25;
    w = -444.0 / 5625.0;
  } else if (q < 5) {
    for (int v = 0; v < 4; ++v) l[v] = 1.0 / 14.0;
    l[q - 1] = 11.0 / 14.0;
    w = 2058.0 / 45000.0;
  } else {
    const double c = 0.3994035761667992, d = 0.1005964238332008;  // (1 +- sqrt(5/14)) / 4
    int a, b;
    simplex_edge(3, q - 5, a, b);
    for (int v = 0; v < 4; ++v) l[v] = d;
    l[a] = c;
    l[b] = c;
    w = 336.0 / 2250.0;
  }
}

// Shape functions of a simplex of dimension dim and order 1 or 2 at
// barycentric point l; gradients from the barycentric gradients gl[v][dim].
template <int Dim, int Order>
struct SimplexBasis {
  static constexpr int vertices = Dim + 1;
  static constexpr int edges = Dim == 2 ? 3 : 6;
  static constexpr int nodes = Order == 1 ? vertices : vertices + edges;

  TESSERA_INLINE_FUNCTION static void shape(const double* l, double* N) {
    if constexpr (Order == 1) {
      for (int v = 0; v < vertices; ++v) N[v] = l[v];
    } else {
      for (int v = 0; v < vertices; ++v) N[v] = l[v] * (2.0 * l[v] - 1.0);
      for (int e = 0; e < edges; ++e) {
        int a, b;
        simplex_edge(Dim, e, a, b);
        N[vertices + e] = 4.0 * l[a] * l[b];
      }
    }
  }
  TESSERA_INLINE_FUNCTION static void gradients(const double* l, const double (*gl)[Dim], double (*dN)[Dim]) {
    if constexpr (Order == 1) {
      for (int v = 0; v < vertices; ++v)
        for (int d = 0; d < Dim; ++d) dN[v][d] = gl[v][d];
    } else {
      for (int v = 0; v < vertices; ++v)
        for (int d = 0; d < Dim; ++d) dN[v][d] = (4.0 * l[v] - 1.0) * gl[v][d];
      for (int e = 0; e < edges; ++e) {
        int a, b;
        simplex_edge(Dim, e, a, b);
        for (int d = 0; d < Dim; ++d) dN[vertices + e][d] = 4.0 * (l[a] * gl[b][d] + l[b] * gl[a][d]);
      }
    }
  }
};

}  // namespace detail

// One reference element: its type, sizes, basis and quadrature.
template <ElementType Type>
struct ReferenceElement : detail::SimplexBasis<dimension_of(Type), order_of(Type)> {
  static constexpr ElementType type = Type;
  static constexpr int dim = dimension_of(Type);
  static constexpr int order = order_of(Type);
  static constexpr int quadrature_degree = 2 * order;
  static constexpr int quadrature_points = dim == 2 ? (order == 1 ? 3 : 6) : (order == 1 ? 4 : 11);

  // Point q of the rule: barycentric coordinates l[dim + 1] and weight w.
  TESSERA_INLINE_FUNCTION static void quadrature(int q, double* l, double& w) {
    if constexpr (dim == 2 && order == 1) detail::triangle_degree2(q, l, w);
    else if constexpr (dim == 2) detail::triangle_degree4(q, l, w);
    else if constexpr (order == 1) detail::tetrahedron_degree2(q, l, w);
    else detail::tetrahedron_degree4(q, l, w);
  }
};

using P1Triangle = ReferenceElement<ElementType::Triangle3>;
using P2Triangle = ReferenceElement<ElementType::Triangle6>;
using P1Tetrahedron = ReferenceElement<ElementType::Tetrahedron4>;
using P2Tetrahedron = ReferenceElement<ElementType::Tetrahedron10>;

// The affine map of one element: x = X0 + J xi. From the vertex coordinates
// x[v * Dim + d] (the first Dim + 1 nodes) it gives det J, the measure
// |det J| / Dim! and the (constant) gradients of the barycentric coordinates.
template <int Dim>
struct AffineGeometry {
  double det = 0;
  double measure = 0;
  double grad_lambda[Dim + 1][Dim] = {};

  TESSERA_INLINE_FUNCTION explicit AffineGeometry(const double* x) {
    double J[Dim][Dim];  // J[r][c] = x_(c+1)[r] - x_0[r]
    for (int r = 0; r < Dim; ++r)
      for (int c = 0; c < Dim; ++c) J[r][c] = x[(c + 1) * Dim + r] - x[r];
    double inv[Dim][Dim];  // rows of J^-1 are the gradients of lambda_1..lambda_Dim
    if constexpr (Dim == 2) {
      det = J[0][0] * J[1][1] - J[0][1] * J[1][0];
      inv[0][0] = J[1][1] / det;
      inv[0][1] = -J[0][1] / det;
      inv[1][0] = -J[1][0] / det;
      inv[1][1] = J[0][0] / det;
      measure = (det < 0 ? -det : det) / 2.0;
    } else {
      const double c00 = J[1][1] * J[2][2] - J[1][2] * J[2][1];
      const double c01 = J[1][2] * J[2][0] - J[1][0] * J[2][2];
      const double c02 = J[1][0] * J[2][1] - J[1][1] * J[2][0];
      det = J[0][0] * c00 + J[0][1] * c01 + J[0][2] * c02;
      inv[0][0] = c00 / det;
      inv[1][0] = c01 / det;
      inv[2][0] = c02 / det;
      inv[0][1] = (J[0][2] * J[2][1] - J[0][1] * J[2][2]) / det;
      inv[1][1] = (J[0][0] * J[2][2] - J[0][2] * J[2][0]) / det;
      inv[2][1] = (J[0][1] * J[2][0] - J[0][0] * J[2][1]) / det;
      inv[0][2] = (J[0][1] * J[1][2] - J[0][2] * J[1][1]) / det;
      inv[1][2] = (J[0][2] * J[1][0] - J[0][0] * J[1][2]) / det;
      inv[2][2] = (J[0][0] * J[1][1] - J[0][1] * J[1][0]) / det;
      measure = (det < 0 ? -det : det) / 6.0;
    }
    for (int d = 0; d < Dim; ++d) {
      grad_lambda[0][d] = 0;
      for (int v = 1; v <= Dim; ++v) {
        grad_lambda[v][d] = inv[v - 1][d];
        grad_lambda[0][d] -= inv[v - 1][d];
      }
    }
  }
  // Physical point of barycentric coordinates l.
  TESSERA_INLINE_FUNCTION void point(const double* x, const double* l, double* p) const {
    for (int d = 0; d < Dim; ++d) {
      p[d] = 0;
      for (int v = 0; v <= Dim; ++v) p[d] += l[v] * x[v * Dim + d];
    }
  }
};

}  // namespace tessera::sparse::fem
