// Finite-element assembly: the sparsity against a brute-force pattern, the
// three strategies against a serial loop over a dense matrix, symmetric
// Dirichlet conditions against elimination by hand, and convergence of the
// manufactured Poisson problem at the element's order (L2 error ratio per
// halving of h: about 4 for P1, 8 for P2).
#include "fem_test_util.hpp"

#include <map>
#include <set>

using namespace fem_test;

template <class Space>
class FemAssemblyTest : public SpaceTest<Space> {};
TYPED_TEST_SUITE(FemAssemblyTest, tessera::test::ExecutionSpaces, tessera::test::SpaceNames);

namespace {

// The assembled matrix as a map (row, col) -> value, summed by a serial loop
// over the elements in the given order: the reference. The element matrices
// and load vectors it sums are computed on Space, as the assembler computes
// them: a GPU rounds them differently from the host (fused multiply-adds,
// its own sin and cos), and the bit-for-bit checks below test the order of
// the sums, not the element kernel.
template <class Space, class Kernel>
std::map<std::pair<std::int64_t, std::int64_t>, double> serial_reference(const fem::Mesh& mesh, const Kernel& kernel,
                                                                          const std::vector<std::int64_t>& order,
                                                                          std::vector<double>& rhs) {
  using E = typename Kernel::element;
  using Mem = typename Space::memory_space;
  using Rows = tessera::View<double**, tessera::LayoutRight, Mem>;
  constexpr int n = E::nodes, D = E::dim, dpn = Kernel::dofs_per_node, m = Kernel::dofs;
  const std::int64_t ne = mesh.num_elements();
  Rows x("x", ne, n * D), Ke("Ke", ne, m * m), fe("fe", ne, m);
  auto hx = tessera::create_mirror_view(x);
  for (std::int64_t e = 0; e < ne; ++e)
    for (int v = 0; v < n; ++v)
      for (int d = 0; d < D; ++d) hx(e, v * D + d) = mesh.coords(mesh.elements(e, v), d);
  tessera::deep_copy(x, hx);
  tessera::parallel_for(
      "element values", tessera::RangePolicy<Space>(0, ne),
      TESSERA_LAMBDA(std::int64_t e) { kernel(&x(e, 0), &Ke(e, 0), &fe(e, 0)); });
  const auto hK = tessera::create_mirror_view_and_copy(tessera::HostSpace(), Ke);
  const auto hf = tessera::create_mirror_view_and_copy(tessera::HostSpace(), fe);

  std::map<std::pair<std::int64_t, std::int64_t>, double> a;
  rhs.assign(std::size_t(mesh.num_nodes() * dpn), 0.0);
  for (std::int64_t e : order) {
    for (int A = 0; A < m; ++A) {
      const std::int64_t r = std::int64_t(mesh.elements(e, A / dpn)) * dpn + A % dpn;
      rhs[std::size_t(r)] += hf(e, A);
      for (int B = 0; B < m; ++B) a[{r, std::int64_t(mesh.elements(e, B / dpn)) * dpn + B % dpn}] += hK(e, A * m + B);
    }
  }
  return a;
}

std::vector<std::int64_t> iota(std::int64_t n) {
  auto v = std::vector<std::int64_t>(std::size_t(n));
  for (std::int64_t i = 0; i < n; ++i) v[std::size_t(i)] = i;
  return v;
}

}  // namespace

TYPED_TEST(FemAssemblyTest, PatternIsEveryPairOfNodesSharingAnElement) {
  using Space = TypeParam;
  for (int order : {1, 2}) {
    const auto mesh = fem::box_mesh({.cells = {3, 2, 2}, .order = order});
    for (int dpn : {1, 3}) {
      fem::Assembler<Space> assembler(mesh, dpn);
      std::set<std::pair<std::int64_t, std::int64_t>> expected;
      for (std::int64_t e = 0; e < mesh.num_elements(); ++e)
        for (int a = 0; a < mesh.nodes_per_element(); ++a)
          for (int b = 0; b < mesh.nodes_per_element(); ++b)
            for (int c = 0; c < dpn; ++c)
              for (int d = 0; d < dpn; ++d)
                expected.insert({std::int64_t(mesh.elements(e, a)) * dpn + c, std::int64_t(mesh.elements(e, b)) * dpn + d});
      const auto A = assembler.matrix();
      ASSERT_EQ(A.nnz(), std::int64_t(expected.size()));
      auto it = expected.begin();
      for (std::int64_t i = 0; i < A.num_rows(); ++i)
        for (std::int64_t k = A.row_map()[i]; k < A.row_map()[i + 1]; ++k, ++it)
          ASSERT_EQ(*it, std::make_pair(i, std::int64_t(A.col_idx()[k]))) << "order " << order << " dpn " << dpn;
    }
  }
}

TYPED_TEST(FemAssemblyTest, StrategiesAgreeWithASerialLoop) {
  using Space = TypeParam;
  const auto mesh = fem::box_mesh({.cells = {4, 3, 3}, .order = 2, .perturbation = 0.15, .seed = 7});
  const fem::PoissonKernel<fem::P2Tetrahedron, Coefficient, Source<3>> kernel{Coefficient{}, Source<3>{}};
  fem::Assembler<Space> assembler(mesh, 1);
  std::vector<double> ref_rhs;
  const auto ref = serial_reference<Space>(mesh, kernel, iota(mesh.num_elements()), ref_rhs);

  // (c) the element map sums in element order: the serial loop's bits.
  assembler.assemble(kernel, fem::AssemblyStrategy::ElementMap);
  auto A = assembler.matrix();
  auto b = assembler.rhs();
  const std::vector<double> first(A.values(), A.values() + A.nnz());
  for (std::int64_t i = 0; i < A.num_rows(); ++i) {
    EXPECT_EQ(b(i), ref_rhs[std::size_t(i)]) << "rhs " << i;
    for (std::int64_t k = A.row_map()[i]; k < A.row_map()[i + 1]; ++k)
      ASSERT_EQ(A.values()[k], (ref.at({i, A.col_idx()[k]}))) << "element map, entry " << i << ", " << A.col_idx()[k];
  }

  // (b) colouring sums in colour order (blocks of a colour in block order,
  // elements of a block in element order): the serial loop over that order,
  // bit for bit. Blocks of 64 (the host default), single elements (the
  // device default) and 7 (a last block shorter than the others).
  EXPECT_EQ(assembler.colouring_block(), tessera::is_host_execution_space<Space>::value ? 64 : 1);
  for (std::int64_t B : {std::int64_t(64), std::int64_t(1), std::int64_t(7)}) {
    assembler.set_colouring_block(B);
    assembler.assemble(kernel, fem::AssemblyStrategy::Colouring);
    // The same greedy rule, written out here: a block takes the smallest
    // colour unused by any earlier block sharing a node with it.
    const std::int64_t nblocks = (mesh.num_elements() + B - 1) / B;
    auto colour = std::vector<int>(std::size_t(nblocks));
    std::vector<std::set<std::int64_t>> at_node(std::size_t(mesh.num_nodes()));  // earlier blocks at a node
    int ncol = 0;
    for (std::int64_t k = 0; k < nblocks; ++k) {
      std::set<int> used;
      for (std::int64_t e = k * B; e < std::min(mesh.num_elements(), (k + 1) * B); ++e)
        for (int a = 0; a < mesh.nodes_per_element(); ++a)
          for (std::int64_t j : at_node[std::size_t(mesh.elements(e, a))]) used.insert(colour[std::size_t(j)]);
      int c = 0;
      while (used.count(c)) ++c;
      colour[std::size_t(k)] = c;
      ncol = std::max(ncol, c + 1);
      for (std::int64_t e = k * B; e < std::min(mesh.num_elements(), (k + 1) * B); ++e)
        for (int a = 0; a < mesh.nodes_per_element(); ++a) at_node[std::size_t(mesh.elements(e, a))].insert(k);
    }
    EXPECT_EQ(assembler.num_colours(), ncol) << "block " << B;
    if (B == 1) {
      EXPECT_GT(ncol, 10);
    }
    std::vector<std::int64_t> colour_order;
    for (int c = 0; c < ncol; ++c)
      for (std::int64_t k = 0; k < nblocks; ++k)
        if (colour[std::size_t(k)] == c)
          for (std::int64_t e = k * B; e < std::min(mesh.num_elements(), (k + 1) * B); ++e) colour_order.push_back(e);
    std::vector<double> col_rhs;
    const auto col_ref = serial_reference<Space>(mesh, kernel, colour_order, col_rhs);
    A = assembler.matrix();
    b = assembler.rhs();
    for (std::int64_t i = 0; i < A.num_rows(); ++i) {
      ASSERT_EQ(b(i), col_rhs[std::size_t(i)]) << "rhs " << i << ", block " << B;
      for (std::int64_t k = A.row_map()[i]; k < A.row_map()[i + 1]; ++k)
        ASSERT_EQ(A.values()[k], (col_ref.at({i, A.col_idx()[k]})))
            << "colouring, entry " << i << ", " << A.col_idx()[k] << ", block " << B;
    }
  }

  // (a) ScatterView: thread-dependent order, equal to rounding.
  assembler.assemble(kernel, fem::AssemblyStrategy::ScatterView);
  A = assembler.matrix();
  b = assembler.rhs();
  const double scale = A.norm_inf();
  for (std::int64_t i = 0; i < A.num_rows(); ++i) {
    EXPECT_NEAR(b(i), ref_rhs[std::size_t(i)], 1e-14 * 64);
    for (std::int64_t k = A.row_map()[i]; k < A.row_map()[i + 1]; ++k)
      ASSERT_NEAR(A.values()[k], (ref.at({i, A.col_idx()[k]})), 1e-14 * scale) << "scatter, entry " << i;
  }

  // Assembling again gives the same values (every strategy starts from zero).
  assembler.assemble(kernel, fem::AssemblyStrategy::ElementMap);
  const auto again = assembler.matrix();
  for (std::int64_t k = 0; k < again.nnz(); ++k) ASSERT_EQ(again.values()[k], first[std::size_t(k)]);
}

TYPED_TEST(FemAssemblyTest, ElasticityStrategiesAgree) {
  using Space = TypeParam;
  const auto mesh = fem::box_mesh({.cells = {3, 2, 2}, .order = 2, .perturbation = 0.1});
  fem::ElasticityKernel<fem::P2Tetrahedron> kernel;
  kernel.youngs_modulus = 200;
  kernel.poisson_ratio = 0.3;
  kernel.body_force[2] = -1;
  fem::Assembler<Space> assembler(mesh, 3);
  std::vector<double> ref_rhs;
  const auto ref = serial_reference<Space>(mesh, kernel, iota(mesh.num_elements()), ref_rhs);
  for (auto s : {fem::AssemblyStrategy::ScatterView, fem::AssemblyStrategy::Colouring, fem::AssemblyStrategy::ElementMap}) {
    assembler.assemble(kernel, s);
    const auto A = assembler.matrix();
    const auto b = assembler.rhs();
    const double scale = A.norm_inf();
    for (std::int64_t i = 0; i < A.num_rows(); ++i) {
      EXPECT_NEAR(b(i), ref_rhs[std::size_t(i)], 1e-13) << fem::to_string(s);
      for (std::int64_t k = A.row_map()[i]; k < A.row_map()[i + 1]; ++k)
        ASSERT_NEAR(A.values()[k], (ref.at({i, A.col_idx()[k]})), 1e-14 * scale) << fem::to_string(s);
    }
  }
}

TYPED_TEST(FemAssemblyTest, SymmetricDirichletMatchesEliminationByHand) {
  using Space = TypeParam;
  const auto mesh = fem::box_mesh({.cells = {3, 3, 0}, .order = 2, .perturbation = 0.1});
  const fem::PoissonKernel<fem::P2Triangle, Coefficient, Source<2>> kernel{Coefficient{}, Source<2>{}};
  fem::Assembler<Space> assembler(mesh, 1);
  assembler.assemble(kernel);
  const auto K = assembler.matrix();
  const auto f = assembler.rhs();
  // Fixed: the boundary, with u = 1 + x + 2y (some nonzero data).
  const auto boundary = fem::boundary_nodes(mesh);
  std::vector<double> g;
  for (auto i : boundary) g.push_back(1 + mesh.coords(i, 0) + 2 * mesh.coords(i, 1));
  assembler.apply_dirichlet(fem::node_dofs(boundary, 1), g);
  const auto A = assembler.matrix();
  const auto b = assembler.rhs();
  A.check_symmetric_pattern();
  for (std::int64_t i = 0; i < A.num_rows(); ++i)
    for (std::int64_t k = A.row_map()[i]; k < A.row_map()[i + 1]; ++k)
      ASSERT_EQ(A.values()[k], A.at(A.col_idx()[k], i)) << "not symmetric at " << i << ", " << A.col_idx()[k];
  const auto x = solve(A, b);
  // By hand: free dofs F, fixed dofs C: K_FF u_F = f_F - K_FC g.
  const std::int64_t n = K.num_rows();
  std::vector<char> fixed(std::size_t(n), 0);
  std::vector<double> gfull(std::size_t(n), 0.0);
  for (std::size_t k = 0; k < boundary.size(); ++k) {
    fixed[std::size_t(boundary[k])] = 1;
    gfull[std::size_t(boundary[k])] = g[k];
  }
  std::vector<std::int64_t> rows, cols;
  std::vector<double> vals;
  std::vector<std::int64_t> index(std::size_t(n), -1);
  std::int64_t nf = 0;
  for (std::int64_t i = 0; i < n; ++i)
    if (!fixed[std::size_t(i)]) index[std::size_t(i)] = nf++;
  tessera::View<double*, tessera::HostSpace> rhs("rhs", nf);
  for (std::int64_t i = 0; i < n; ++i) {
    if (fixed[std::size_t(i)]) continue;
    rhs(index[std::size_t(i)]) += f(i);
    for (std::int64_t k = K.row_map()[i]; k < K.row_map()[i + 1]; ++k) {
      const std::int64_t j = K.col_idx()[k];
      if (fixed[std::size_t(j)]) {
        rhs(index[std::size_t(i)]) -= K.values()[k] * gfull[std::size_t(j)];
      } else {
        rows.push_back(index[std::size_t(i)]);
        cols.push_back(index[std::size_t(j)]);
        vals.push_back(K.values()[k]);
      }
    }
  }
  const auto xf = solve(ts::CrsMatrix<double>::from_triplets(nf, rows, cols, vals, ts::Storage::Full), rhs);
  for (std::int64_t i = 0; i < n; ++i) {
    const double expect = fixed[std::size_t(i)] ? gfull[std::size_t(i)] : xf[std::size_t(index[std::size_t(i)])];
    EXPECT_NEAR(x[std::size_t(i)], expect, 1e-12) << "dof " << i;
  }
}

TYPED_TEST(FemAssemblyTest, BadDirichletInputIsRefusedWithTheDof) {
  using Space = TypeParam;
  const auto mesh = fem::box_mesh({.cells = {2, 2, 0}});
  fem::Assembler<Space> assembler(mesh, 1);
  try {
    assembler.apply_dirichlet({3, 9}, {0.0, 1.0});
    FAIL() << "dof 9 of 9 accepted";
  } catch (const ts::sparse_error& e) {
    EXPECT_NE(std::string(e.what()).find("dof 9"), std::string::npos) << e.what();
  }
  try {
    assembler.apply_dirichlet({3, 3}, {0.0, 1.0});
    FAIL() << "two values for dof 3 accepted";
  } catch (const ts::sparse_error& e) {
    EXPECT_NE(std::string(e.what()).find("dof 3"), std::string::npos) << e.what();
  }
  EXPECT_THROW(assembler.assemble(fem::MassKernel<fem::P2Triangle>{}), ts::sparse_error);  // P1 mesh
  EXPECT_THROW(assembler.assemble(fem::ElasticityKernel<fem::P1Triangle>{}), ts::sparse_error);  // 2 dofs per node
}

TYPED_TEST(FemAssemblyTest, P1PoissonConvergesAtSecondOrderInL2) {
  using Space = TypeParam;
  double err[2];
  for (int level = 0; level < 2; ++level) {
    const int n = 6 << level;
    err[level] = poisson_error<Space, fem::P1Tetrahedron>(
        fem::box_mesh({.cells = {n, n, n}, .order = 1}), fem::AssemblyStrategy::Colouring);
  }
  const double ratio = err[0] / err[1];
  std::printf("P1 tetrahedra: L2 errors %.3e (h = 1/6), %.3e (h = 1/12), ratio %.2f (h^2: 4)\n", err[0], err[1], ratio);
  EXPECT_GT(ratio, 3.4);
  EXPECT_LT(ratio, 4.6);
}

TYPED_TEST(FemAssemblyTest, P2PoissonConvergesAtThirdOrderInL2) {
  using Space = TypeParam;
  double err[2];
  for (int level = 0; level < 2; ++level) {
    const int n = 3 << level;
    err[level] = poisson_error<Space, fem::P2Tetrahedron>(fem::box_mesh({.cells = {n, n, n}, .order = 2}),
                                                          fem::AssemblyStrategy::ElementMap);
  }
  const double ratio = err[0] / err[1];
  std::printf("P2 tetrahedra: L2 errors %.3e (h = 1/3), %.3e (h = 1/6), ratio %.2f (h^3: 8)\n", err[0], err[1], ratio);
  EXPECT_GT(ratio, 7.0);
  EXPECT_LT(ratio, 9.0);
}

TYPED_TEST(FemAssemblyTest, TrianglesConvergeAtTheirOrders) {
  using Space = TypeParam;
  for (int order : {1, 2}) {
    double err[2];
    for (int level = 0; level < 2; ++level) {
      const int n = (order == 1 ? 8 : 4) << level;
      const auto mesh = fem::box_mesh({.cells = {n, n, 0}, .order = order});
      err[level] = order == 1 ? poisson_error<Space, fem::P1Triangle>(mesh, fem::AssemblyStrategy::ScatterView)
                              : poisson_error<Space, fem::P2Triangle>(mesh, fem::AssemblyStrategy::ScatterView);
    }
    const double ratio = err[0] / err[1], expect = order == 1 ? 4.0 : 8.0;
    std::printf("P%d triangles: L2 errors %.3e, %.3e, ratio %.2f (expected about %.0f)\n", order, err[0], err[1], ratio,
                expect);
    EXPECT_GT(ratio, 0.85 * expect);
    EXPECT_LT(ratio, 1.15 * expect);
  }
}
