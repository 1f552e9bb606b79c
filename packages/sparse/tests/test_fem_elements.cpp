// Reference elements, element kernels and box meshes against closed forms:
// quadrature exact on every monomial of its degree (a! b! c! / (a+b+c+dim)!),
// the P1 stiffness of the reference triangle and tetrahedron, P1/P2 mass
// matrices, rows of stiffness matrices summing to zero, rigid motions in the
// kernel of the elasticity matrix of every element, P1 elasticity equal to
// the textbook constant-strain element (B^T C B), and patch tests: a linear (P1) or
// quadratic (P2) exact solution reproduced to rounding on perturbed meshes.
#include "fem_test_util.hpp"

using namespace fem_test;

template <class Space>
class FemElementsTest : public SpaceTest<Space> {};
TYPED_TEST_SUITE(FemElementsTest, tessera::test::ExecutionSpaces, tessera::test::SpaceNames);

namespace {

double factorial(int k) { return k <= 1 ? 1.0 : k * factorial(k - 1); }

template <class E>
void expect_rule_exact() {
  constexpr int D = E::dim;
  for (int a = 0; a <= E::quadrature_degree; ++a)
    for (int b = 0; a + b <= E::quadrature_degree; ++b)
      for (int c = 0; a + b + c <= E::quadrature_degree; ++c) {
        if (D == 2 && c > 0) continue;
        double s = 0;
        for (int q = 0; q < E::quadrature_points; ++q) {
          double l[D + 1], w;
          E::quadrature(q, l, w);
          // Reference coordinates are lambda_1..lambda_D; measure 1/D!.
          s += w / factorial(D) * std::pow(l[1], a) * std::pow(l[2], b) * (D == 3 ? std::pow(l[3], c) : 1.0);
        }
        const double exact = factorial(a) * factorial(b) * factorial(c) / factorial(a + b + c + D);
        EXPECT_NEAR(s, exact, 1e-15) << fem::to_string(E::type) << " x^" << a << " y^" << b << " z^" << c;
      }
}

template <class Kernel>
std::vector<double> element_matrix(const Kernel& k, const std::vector<double>& x, std::vector<double>* fe = nullptr) {
  std::vector<double> Ke(Kernel::dofs * Kernel::dofs), f(Kernel::dofs);
  k(x.data(), Ke.data(), f.data());
  if (fe) *fe = f;
  return Ke;
}

// Reference simplex vertices, plus P2 edge midpoints (Gmsh's edge order).
template <class E>
std::vector<double> reference_nodes() {
  constexpr int D = E::dim;
  std::vector<double> x(std::size_t(E::nodes * D), 0.0);
  for (int v = 1; v <= D; ++v) x[std::size_t(v * D + v - 1)] = 1.0;
  if constexpr (E::order == 2)
    for (int e = 0; e < E::edges; ++e) {
      int a, b;
      fem::detail::simplex_edge(D, e, a, b);
      for (int d = 0; d < D; ++d)
        x[std::size_t((E::vertices + e) * D + d)] = 0.5 * (x[std::size_t(a * D + d)] + x[std::size_t(b * D + d)]);
    }
  return x;
}

struct P1u {  // linear
  TESSERA_INLINE_FUNCTION double operator()(const double* x) const { return 1 + 2 * x[0] - x[1] + 0.5 * x[2]; }
};
struct P1f {  // -(k_x u_x) = -2
  TESSERA_INLINE_FUNCTION double operator()(const double*) const { return -2.0; }
};
struct P2u {
  TESSERA_INLINE_FUNCTION double operator()(const double* x) const {
    return 1 + x[0] - x[1] + x[0] * x[0] + 2 * x[0] * x[1] - 0.5 * x[2] * x[2] + x[1] * x[2];
  }
};
struct P2f {  // -(k_x u_x + k lap u), k = 1 + x, u_x = 1 + 2x + 2y, lap u = 2 - 1
  TESSERA_INLINE_FUNCTION double operator()(const double* x) const {
    return -((1 + 2 * x[0] + 2 * x[1]) + (1 + x[0]) * 1.0);
  }
};

struct Linear {  // 1 + x, a coefficient the rules integrate exactly
  TESSERA_INLINE_FUNCTION double operator()(const double* x) const { return 1.0 + x[0]; }
};

}  // namespace

TEST(FemElements, QuadratureRulesAreExactToTheirDegree) {
  expect_rule_exact<fem::P1Triangle>();
  expect_rule_exact<fem::P2Triangle>();
  expect_rule_exact<fem::P1Tetrahedron>();
  expect_rule_exact<fem::P2Tetrahedron>();
}

TEST(FemElements, P1ReferenceStiffnessAndMassMatchClosedForms) {
  using PT = fem::PoissonKernel<fem::P1Triangle, fem::Constant>;
  const auto Kt = element_matrix(PT{fem::Constant{1.0}}, reference_nodes<fem::P1Triangle>());
  const double kt[9] = {1, -0.5, -0.5, -0.5, 0.5, 0, -0.5, 0, 0.5};
  for (int k = 0; k < 9; ++k) EXPECT_NEAR(Kt[std::size_t(k)], kt[k], 1e-15) << k;
  using P4 = fem::PoissonKernel<fem::P1Tetrahedron, fem::Constant>;
  const auto K4 = element_matrix(P4{fem::Constant{2.0}}, reference_nodes<fem::P1Tetrahedron>());
  for (int a = 0; a < 4; ++a)
    for (int b = 0; b < 4; ++b) {
      const double expect = 2.0 / 6.0 * (a == 0 && b == 0 ? 3.0 : a == 0 || b == 0 ? -1.0 : a == b ? 1.0 : 0.0);
      EXPECT_NEAR(K4[std::size_t(a * 4 + b)], expect, 1e-15) << a << "," << b;
    }
  // P1 triangle mass: area / 12 * (1 + delta_ab), on a scaled, shifted triangle.
  const std::vector<double> tri = {1, 1, 4, 1, 1, 3};  // area 3
  const auto M = element_matrix(fem::MassKernel<fem::P1Triangle>{}, tri);
  for (int a = 0; a < 3; ++a)
    for (int b = 0; b < 3; ++b) EXPECT_NEAR(M[std::size_t(a * 3 + b)], 3.0 / 12.0 * (a == b ? 2 : 1), 1e-14);
}

TEST(FemElements, P2TriangleMassMatchesTheClosedForm) {
  // Area A times: vertex-vertex 6/180 (same) or -1/180; vertex and the edge
  // opposite it -4/180, other vertex-edge 0; edge-edge 32/180 (same) or 16/180.
  std::vector<double> x = {0, 0, 2, 0, 0, 3};  // area 3
  x.resize(12);
  for (int e = 0; e < 3; ++e) {
    int a, b;
    fem::detail::simplex_edge(2, e, a, b);
    for (int d = 0; d < 2; ++d) x[std::size_t((3 + e) * 2 + d)] = 0.5 * (x[std::size_t(a * 2 + d)] + x[std::size_t(b * 2 + d)]);
  }
  const auto M = element_matrix(fem::MassKernel<fem::P2Triangle>{}, x);
  auto on_edge = [](int v, int e) {
    int a, b;
    fem::detail::simplex_edge(2, e, a, b);
    return v == a || v == b;
  };
  for (int i = 0; i < 6; ++i)
    for (int j = 0; j < 6; ++j) {
      double c;
      if (i < 3 && j < 3) c = i == j ? 6 : -1;
      else if (i >= 3 && j >= 3) c = i == j ? 32 : 16;
      else {
        const int v = i < 3 ? i : j, e = (i < 3 ? j : i) - 3;
        c = on_edge(v, e) ? 0 : -4;
      }
      EXPECT_NEAR(M[std::size_t(i * 6 + j)], 3.0 * c / 180.0, 1e-14) << i << "," << j;
    }
}

TEST(FemElements, StiffnessRowsSumToZeroAndMassSumsToTheMeasure) {
  // A skewed tetrahedron with P2 nodes at the midpoints.
  std::vector<double> x = {0.1, 0.2, 0.0, 1.3, 0.1, 0.2, 0.4, 1.1, -0.1, 0.2, 0.3, 0.9};
  x.resize(30);
  for (int e = 0; e < 6; ++e) {
    int a, b;
    fem::detail::simplex_edge(3, e, a, b);
    for (int d = 0; d < 3; ++d) x[std::size_t((4 + e) * 3 + d)] = 0.5 * (x[std::size_t(a * 3 + d)] + x[std::size_t(b * 3 + d)]);
  }
  const double vol = std::abs(fem::AffineGeometry<3>(x.data()).det) / 6.0;
  const auto K = element_matrix(fem::PoissonKernel<fem::P2Tetrahedron, Coefficient>{}, x);
  const auto M = element_matrix(fem::MassKernel<fem::P2Tetrahedron>{}, x);
  double msum = 0, kmax = 0;
  for (double v : K) kmax = std::max(kmax, std::abs(v));
  for (int a = 0; a < 10; ++a) {
    double row = 0;
    for (int b = 0; b < 10; ++b) {
      row += K[std::size_t(a * 10 + b)];
      msum += M[std::size_t(a * 10 + b)];
      EXPECT_NEAR(K[std::size_t(a * 10 + b)], K[std::size_t(b * 10 + a)], 1e-14 * kmax);
    }
    EXPECT_NEAR(row, 0.0, 1e-13 * kmax) << "row " << a;
  }
  EXPECT_NEAR(msum, vol, 1e-14);
}

namespace {

// Vertices (and P2 edge midpoints) of one skewed element of type E.
template <class E>
std::vector<double> skewed_nodes() {
  constexpr int D = E::dim;
  const std::vector<double> v3 = {0.1, 0.2, 0.0, 1.3, 0.1, 0.2, 0.4, 1.1, -0.1, 0.2, 0.3, 0.9};
  const std::vector<double> v2 = {0.1, 0.2, 1.3, 0.4, 0.5, 1.2};
  std::vector<double> x(static_cast<std::size_t>(E::nodes * D));
  for (int i = 0; i < E::vertices * D; ++i)
    x[std::size_t(i)] = D == 3 ? v3[std::size_t(i)] : v2[std::size_t(i)];
  if constexpr (E::order == 2)
    for (int e = 0; e < E::edges; ++e) {
      int a, b;
      fem::detail::simplex_edge(D, e, a, b);
      for (int d = 0; d < D; ++d)
        x[std::size_t((E::vertices + e) * D + d)] =
            0.5 * (x[std::size_t(a * D + d)] + x[std::size_t(b * D + d)]);
    }
  return x;
}

// The textbook constant-strain element, written without the kernel's Lame
// form: K = measure * B^T C B, with B the strain-displacement matrix (Voigt
// order, engineering shears) built from the vertex gradients, and C the
// isotropic stiffness (plane strain in 2-D). The gradients come from the
// inverse of the edge matrix by cofactors.
template <int D>
std::vector<double> constant_strain_matrix(const std::vector<double>& x, double E, double nu) {
  constexpr int n = D + 1, m = n * D, S = D == 2 ? 3 : 6;
  double J[3][3] = {}, inv[3][3] = {}, det = 0;
  for (int r = 0; r < D; ++r)
    for (int c = 0; c < D; ++c)
      J[r][c] = x[std::size_t((c + 1) * D + r)] - x[std::size_t(r)];  // column c: edge 0 -> c+1
  if (D == 2) {
    det = J[0][0] * J[1][1] - J[0][1] * J[1][0];
    inv[0][0] = J[1][1] / det, inv[0][1] = -J[0][1] / det, inv[1][0] = -J[1][0] / det,
    inv[1][1] = J[0][0] / det;
  } else {
    det = J[0][0] * (J[1][1] * J[2][2] - J[1][2] * J[2][1]) -
          J[0][1] * (J[1][0] * J[2][2] - J[1][2] * J[2][0]) +
          J[0][2] * (J[1][0] * J[2][1] - J[1][1] * J[2][0]);
    for (int r = 0; r < 3; ++r)
      for (int c = 0; c < 3; ++c) {
        const int r1 = (c + 1) % 3, r2 = (c + 2) % 3, c1 = (r + 1) % 3, c2 = (r + 2) % 3;
        inv[r][c] = (J[r1][c1] * J[r2][c2] - J[r1][c2] * J[r2][c1]) / det;
      }
  }
  // Row r of J^-1 is the gradient of barycentric coordinate r+1.
  double grad[4][3] = {};
  for (int a = 1; a < n; ++a)
    for (int d = 0; d < D; ++d) {
      grad[a][d] = inv[a - 1][d];
      grad[0][d] -= inv[a - 1][d];
    }
  double B[6][12] = {};
  for (int a = 0; a < n; ++a) {
    const double* g = grad[a];
    const int c = a * D;
    if (D == 2) {
      B[0][c] = g[0], B[1][c + 1] = g[1], B[2][c] = g[1], B[2][c + 1] = g[0];
    } else {
      B[0][c] = g[0], B[1][c + 1] = g[1], B[2][c + 2] = g[2];
      B[3][c] = g[1], B[3][c + 1] = g[0];
      B[4][c + 1] = g[2], B[4][c + 2] = g[1];
      B[5][c] = g[2], B[5][c + 2] = g[0];
    }
  }
  const double f = E / ((1 + nu) * (1 - 2 * nu));
  double C[6][6] = {};
  for (int i = 0; i < D; ++i)
    for (int j = 0; j < D; ++j) C[i][j] = f * (i == j ? 1 - nu : nu);
  for (int i = D; i < S; ++i) C[i][i] = f * (1 - 2 * nu) / 2;
  const double measure = std::abs(det) / (D == 2 ? 2.0 : 6.0);
  std::vector<double> K(std::size_t(m * m), 0.0);
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < m; ++j)
      for (int p = 0; p < S; ++p)
        for (int q = 0; q < S; ++q) K[std::size_t(i * m + j)] += measure * B[p][i] * C[p][q] * B[q][j];
  return K;
}

// Translations and infinitesimal rotations of the element's nodes: D + D(D-1)/2 modes.
template <class E>
void expect_rigid_motions_in_kernel() {
  constexpr int D = E::dim, n = E::nodes, m = n * D;
  const auto x = skewed_nodes<E>();
  fem::ElasticityKernel<E> k;
  k.youngs_modulus = 70;
  k.poisson_ratio = 0.33;
  const auto K = element_matrix(k, x);
  double kmax = 0;
  for (double v : K) kmax = std::max(kmax, std::abs(v));
  const int modes = D == 2 ? 3 : 6;
  for (int mode = 0; mode < modes; ++mode) {
    std::vector<double> r(static_cast<std::size_t>(m));
    for (int a = 0; a < n; ++a) {
      const double* p = &x[std::size_t(a * D)];
      double u[3] = {0, 0, 0};
      if (mode < D)
        u[mode] = 1;
      else if (D == 2)
        u[0] = -p[1], u[1] = p[0];
      else {
        const double w[3] = {double(mode == 3), double(mode == 4), double(mode == 5)};
        u[0] = w[1] * p[2] - w[2] * p[1];
        u[1] = w[2] * p[0] - w[0] * p[2];
        u[2] = w[0] * p[1] - w[1] * p[0];
      }
      for (int i = 0; i < D; ++i) r[std::size_t(a * D + i)] = u[i];
    }
    for (int i = 0; i < m; ++i) {
      double s = 0;
      for (int j = 0; j < m; ++j) s += K[std::size_t(i * m + j)] * r[std::size_t(j)];
      EXPECT_NEAR(s, 0.0, 1e-12 * kmax) << fem::to_string(E::type) << " mode " << mode << " row " << i;
    }
  }
}

}  // namespace

TEST(FemElements, LinearElasticityMatchesTheConstantStrainElement) {
  for (double nu : {0.0, 0.3}) {
    const auto xt = skewed_nodes<fem::P1Triangle>();
    fem::ElasticityKernel<fem::P1Triangle> kt;
    kt.youngs_modulus = 7;
    kt.poisson_ratio = nu;
    const auto Kt = element_matrix(kt, xt), Ct = constant_strain_matrix<2>(xt, 7, nu);
    for (std::size_t i = 0; i < Kt.size(); ++i)
      EXPECT_NEAR(Kt[i], Ct[i], 1e-12 * 7) << "triangle nu " << nu << " entry " << i;
    const auto x4 = skewed_nodes<fem::P1Tetrahedron>();
    fem::ElasticityKernel<fem::P1Tetrahedron> k4;
    k4.youngs_modulus = 7;
    k4.poisson_ratio = nu;
    const auto K4 = element_matrix(k4, x4), C4 = constant_strain_matrix<3>(x4, 7, nu);
    for (std::size_t i = 0; i < K4.size(); ++i)
      EXPECT_NEAR(K4[i], C4[i], 1e-12 * 7) << "tetrahedron nu " << nu << " entry " << i;
  }
}

TEST(FemElements, RigidMotionsAreInTheKernelOfTheElasticityMatrix) {
  expect_rigid_motions_in_kernel<fem::P1Triangle>();
  expect_rigid_motions_in_kernel<fem::P2Triangle>();
  expect_rigid_motions_in_kernel<fem::P1Tetrahedron>();
  expect_rigid_motions_in_kernel<fem::P2Tetrahedron>();
}

TEST(FemElements, BoxMeshesHaveTheirVolumeCountsAndBoundary) {
  for (int order : {1, 2})
    for (double p : {0.0, 0.2}) {
      const auto m = fem::box_mesh({.cells = {3, 4, 5}, .lengths = {1.0, 2.0, 0.5}, .order = order, .perturbation = p});
      EXPECT_EQ(m.num_elements(), 6 * 3 * 4 * 5);
      const std::int64_t nx = order * 3 + 1, ny = order * 4 + 1, nz = order * 5 + 1;
      EXPECT_EQ(m.num_nodes(), nx * ny * nz);
      EXPECT_NEAR(m.measure(), 1.0, 1e-13);
      EXPECT_EQ(std::int64_t(fem::boundary_nodes(m).size()), nx * ny * nz - (nx - 2) * (ny - 2) * (nz - 2));
      const auto t = fem::box_mesh({.cells = {3, 4, 0}, .lengths = {2.0, 3.0, 1.0}, .order = order, .perturbation = p});
      EXPECT_EQ(t.num_elements(), 2 * 3 * 4);
      EXPECT_NEAR(t.measure(), 6.0, 1e-13);
      EXPECT_EQ(std::int64_t(fem::boundary_nodes(t).size()), 2 * (order * 3 + order * 4));
    }
  EXPECT_THROW(fem::box_mesh({.cells = {2, 2, 2}, .order = 3}), ts::sparse_error);
  EXPECT_THROW(fem::box_mesh({.cells = {2, 0, 2}}), ts::sparse_error);
  EXPECT_THROW(fem::box_mesh({.cells = {2, 2, 2}, .perturbation = 0.3}), ts::sparse_error);
}

// Patch tests: -div((1 + x) grad u) = f with u in the element's space; the
// quadrature is exact for these data, so the discrete solution is u itself.
TYPED_TEST(FemElementsTest, PatchTestsReproduceLinearAndQuadraticSolutions) {
  using Space = TypeParam;
  for (int order : {1, 2}) {
    const auto mesh = fem::box_mesh({.cells = {3, 3, 3}, .order = order, .perturbation = 0.2, .seed = 3});
    fem::Assembler<Space> assembler(mesh, 1);
    std::vector<double> exact(std::size_t(mesh.num_nodes()));
    for (std::int64_t i = 0; i < mesh.num_nodes(); ++i)
      exact[std::size_t(i)] = order == 1 ? P1u{}(&mesh.coords(i, 0)) : P2u{}(&mesh.coords(i, 0));
    if (order == 1) assembler.assemble(fem::PoissonKernel<fem::P1Tetrahedron, Linear, P1f>{Linear{}, P1f{}});
    else assembler.assemble(fem::PoissonKernel<fem::P2Tetrahedron, Linear, P2f>{Linear{}, P2f{}});
    const auto boundary = fem::boundary_nodes(mesh);
    std::vector<double> g;
    for (auto i : boundary) g.push_back(exact[std::size_t(i)]);
    assembler.apply_dirichlet(fem::node_dofs(boundary, 1), g);
    const auto x = solve(assembler.matrix(), assembler.rhs());
    for (std::int64_t i = 0; i < mesh.num_nodes(); ++i)
      ASSERT_NEAR(x[std::size_t(i)], exact[std::size_t(i)], 1e-11) << "P" << order << " node " << i;
  }
}

TYPED_TEST(FemElementsTest, ElasticityPatchTestReproducesALinearDisplacement) {
  using Space = TypeParam;
  const auto mesh = fem::box_mesh({.cells = {2, 3, 2}, .order = 2, .perturbation = 0.2, .seed = 5});
  fem::ElasticityKernel<fem::P2Tetrahedron> kernel;
  kernel.youngs_modulus = 10;
  kernel.poisson_ratio = 0.25;
  fem::Assembler<Space> assembler(mesh, 3);
  assembler.assemble(kernel);
  auto disp = [](const double* p, int i) {
    const double A[3][3] = {{0.01, 0.002, -0.003}, {0.004, -0.02, 0.001}, {0.0, 0.005, 0.015}};
    return 0.1 * i + A[i][0] * p[0] + A[i][1] * p[1] + A[i][2] * p[2];
  };
  const auto boundary = fem::boundary_nodes(mesh);
  const auto dofs = fem::node_dofs(boundary, 3);
  std::vector<double> g;
  for (auto dof : dofs) g.push_back(disp(&mesh.coords(dof / 3, 0), int(dof % 3)));
  assembler.apply_dirichlet(dofs, g);
  const auto x = solve(assembler.matrix(), assembler.rhs());
  for (std::int64_t i = 0; i < mesh.num_nodes(); ++i)
    for (int c = 0; c < 3; ++c) ASSERT_NEAR(x[std::size_t(i * 3 + c)], disp(&mesh.coords(i, 0), c), 1e-12);
}
