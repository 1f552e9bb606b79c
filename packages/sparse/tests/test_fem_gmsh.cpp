// Gmsh .msh 4.1 reader: the committed cube meshes (facts in
// examples/data/README.md; two written by hand, two by Gmsh itself), patch
// tests solved on them, and bad files refused with the file and line at
// fault.
#include "fem_test_util.hpp"
#include "tessera_test_temp.hpp"

#include <filesystem>
#include <fstream>

using namespace fem_test;
using tessera::test::write_temp_file;

template <class Space>
class FemGmshTest : public SpaceTest<Space> {};
TYPED_TEST_SUITE(FemGmshTest, tessera::test::ExecutionSpaces, tessera::test::SpaceNames);

namespace {

struct QuadraticU {  // -lap u = -(2 + 2 - 2) = -2
  TESSERA_INLINE_FUNCTION double operator()(const double* x) const {
    return 0.5 + x[0] - 2 * x[2] + x[0] * x[0] + x[1] * x[1] - x[2] * x[2] + 3 * x[0] * x[2];
  }
};

// Expects read_gmsh(text) to throw a message holding every word of `expect`.
void expect_refused(const std::string& name, const std::string& text, const std::vector<std::string>& expect) {
  const std::string path = write_temp_file(name, text);
  try {
    (void)fem::read_gmsh(path);
    ADD_FAILURE() << name << ": accepted";
  } catch (const ts::sparse_error& e) {
    const std::string msg = e.what();
    for (const auto& w : expect) EXPECT_NE(msg.find(w), std::string::npos) << name << ": \"" << msg << "\" lacks " << w;
  }
}

const std::string header = "$MeshFormat\n4.1 0 8\n$EndMeshFormat\n";
const std::string one_tet_nodes = "$Nodes\n1 4 1 4\n3 1 0 4\n1\n2\n3\n4\n0 0 0\n1 0 0\n0 1 0\n0 0 1\n$EndNodes\n";

}  // namespace

TEST(FemGmsh, ReadsTheCommittedCubes) {
  const auto m1 = fem::read_gmsh(sparse_test::data_file("meshes/cube_12tet.msh"));
  EXPECT_EQ(m1.type, fem::ElementType::Tetrahedron4);
  EXPECT_EQ(m1.num_nodes(), 9);
  EXPECT_EQ(m1.num_elements(), 12);  // the 12 boundary triangles are skipped
  EXPECT_NEAR(m1.measure(), 1.0, 1e-15);
  EXPECT_EQ(fem::boundary_nodes(m1).size(), 8u);
  const auto m2 = fem::read_gmsh(sparse_test::data_file("meshes/cube_12tet_p2.msh"));
  EXPECT_EQ(m2.type, fem::ElementType::Tetrahedron10);
  EXPECT_EQ(m2.num_nodes(), 35);
  EXPECT_EQ(m2.num_elements(), 12);
  EXPECT_NEAR(m2.measure(), 1.0, 1e-15);
  EXPECT_EQ(fem::boundary_nodes(m2).size(), 26u);
  // Node tags 101.. (sparse) were renumbered in file order after 1..9.
  EXPECT_EQ(m2.coords(8, 0), 0.5);
  EXPECT_EQ(m2.coords(8, 2), 0.5);
}

TYPED_TEST(FemGmshTest, QuadraticPatchTestOnTheP2Cube) {
  using Space = TypeParam;
  const auto mesh = fem::read_gmsh(sparse_test::data_file("meshes/cube_12tet_p2.msh"));
  fem::Assembler<Space> assembler(mesh, 1);
  assembler.assemble(fem::PoissonKernel<fem::P2Tetrahedron, fem::Constant>{fem::Constant{1.0}, fem::Constant{-2.0}});
  const auto boundary = fem::boundary_nodes(mesh);
  std::vector<double> g;
  for (auto i : boundary) g.push_back(QuadraticU{}(&mesh.coords(i, 0)));
  assembler.apply_dirichlet(fem::node_dofs(boundary, 1), g);
  const auto x = solve(assembler.matrix(), assembler.rhs());
  for (std::int64_t i = 0; i < mesh.num_nodes(); ++i)
    EXPECT_NEAR(x[std::size_t(i)], QuadraticU{}(&mesh.coords(i, 0)), 1e-13) << "node " << i;
}

// Meshes written by Gmsh itself (4.8.4, from the .geo in
// examples/data/README.md): the P1 file keeps only its physical groups, the
// P2 file every entity (points, lines, triangles, tetrahedra). Checked
// against the geometry, not against Gmsh's counts: the cube's volume, the
// boundary nodes being exactly the nodes on its faces, and the patch tests
// (a linear and a quadratic solution reproduced to rounding).
TYPED_TEST(FemGmshTest, MeshesWrittenByGmshReadAndPassThePatchTests) {
  using Space = TypeParam;
  for (int order : {1, 2}) {
    SCOPED_TRACE("P" + std::to_string(order));
    const auto mesh = fem::read_gmsh(
        sparse_test::data_file(order == 1 ? "meshes/cube_gmsh_p1.msh" : "meshes/cube_gmsh_p2.msh"));
    EXPECT_EQ(mesh.type, order == 1 ? fem::ElementType::Tetrahedron4 : fem::ElementType::Tetrahedron10);
    EXPECT_NEAR(mesh.measure(), 1.0, 1e-12);
    auto on_face = [&](std::int64_t i) {
      for (int d = 0; d < 3; ++d)
        if (std::abs(mesh.coords(i, d)) < 1e-12 || std::abs(mesh.coords(i, d) - 1) < 1e-12) return true;
      return false;
    };
    const auto boundary = fem::boundary_nodes(mesh);
    std::int64_t on_faces = 0;
    for (std::int64_t i = 0; i < mesh.num_nodes(); ++i) on_faces += on_face(i) ? 1 : 0;
    EXPECT_EQ(std::int64_t(boundary.size()), on_faces);
    EXPECT_LT(on_faces, mesh.num_nodes()) << "no interior node: the patch test would solve nothing";
    for (auto i : boundary) EXPECT_TRUE(on_face(i)) << "node " << i;

    fem::Assembler<Space> assembler(mesh, 1);
    auto exact = [&](std::int64_t i) {
      const double* x = &mesh.coords(i, 0);
      return order == 1 ? 0.5 + x[0] - 2 * x[1] + 3 * x[2] : QuadraticU{}(x);
    };
    if (order == 1)
      assembler.assemble(
          fem::PoissonKernel<fem::P1Tetrahedron, fem::Constant>{fem::Constant{1.0}, fem::Constant{0.0}});
    else
      assembler.assemble(
          fem::PoissonKernel<fem::P2Tetrahedron, fem::Constant>{fem::Constant{1.0}, fem::Constant{-2.0}});
    std::vector<double> g;
    for (auto i : boundary) g.push_back(exact(i));
    assembler.apply_dirichlet(fem::node_dofs(boundary, 1), g);
    const auto x = solve(assembler.matrix(), assembler.rhs());
    for (std::int64_t i = 0; i < mesh.num_nodes(); ++i)
      EXPECT_NEAR(x[std::size_t(i)], exact(i), 1e-12) << "node " << i;
  }
}

TEST(FemGmsh, BadFilesNameTheLine) {
  expect_refused("v2.msh", "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n", {"v2.msh:2:", "2.2", "4.1"});
  expect_refused("binary.msh", "$MeshFormat\n4.1 1 8\n$EndMeshFormat\n", {"binary.msh:2:", "binary"});
  expect_refused("no_end.msh", header + "$Nodes\n1 4 1 4\n3 1 0 4\n1\n2\n3\n4\n0 0 0\n1 0 0\n0 1 0\n0 0 1\n",
                 {"no_end.msh:", "ends"});
  expect_refused("bad_number.msh",
                 header + "$Nodes\n1 4 1 4\n3 1 0 4\n1\n2\n3\n4\n0 0 0\n1 x 0\n0 1 0\n0 0 1\n$EndNodes\n",
                 {"bad_number.msh:12:", "1 x 0"});
  expect_refused("short_coords.msh",
                 header + "$Nodes\n1 4 1 4\n3 1 0 4\n1\n2\n3\n4\n0 0 0\n1 0\n0 1 0\n0 0 1\n$EndNodes\n",
                 {"short_coords.msh:12:", "node 2"});
  expect_refused("unknown_node.msh", header + one_tet_nodes + "$Elements\n1 1 1 1\n3 1 4 1\n7 1 2 3 9\n$EndElements\n",
                 {"unknown_node.msh:19:", "element 7", "node 9"});
  expect_refused("hexahedra.msh", header + one_tet_nodes + "$Elements\n1 1 1 1\n3 1 5 1\n1 1 2 3 4 1 2 3 4\n$EndElements\n",
                 {"hexahedra.msh:18:", "type 5"});
  expect_refused("too_few_nodes.msh", header + one_tet_nodes + "$Elements\n1 1 1 1\n3 1 4 1\n1 1 2 3\n$EndElements\n",
                 {"too_few_nodes.msh:19:", "expected 5"});
  expect_refused("duplicate_tag.msh",
                 header + "$Nodes\n1 4 1 4\n3 1 0 4\n1\n2\n2\n4\n0 0 0\n1 0 0\n0 1 0\n0 0 1\n$EndNodes\n",
                 {"duplicate_tag.msh:9:", "node tag 2"});
  expect_refused("flat.msh",
                 header + "$Nodes\n1 4 1 4\n3 1 0 4\n1\n2\n3\n4\n0 0 0\n1 0 0\n0 1 0\n1 1 0\n$EndNodes\n" +
                     "$Elements\n1 1 1 1\n3 1 4 1\n1 1 2 3 4\n$EndElements\n",
                 {"flat.msh", "element 0", "degenerate"});
  expect_refused("nan_coordinate.msh",
                 header + "$Nodes\n1 4 1 4\n3 1 0 4\n1\n2\n3\n4\n0 0 0\n1 0 0\n0 nan 0\n0 0 1\n$EndNodes\n",
                 {"nan_coordinate.msh:13:", "node 3", "coordinate y is not finite"});
  expect_refused("inf_coordinate.msh",
                 header + "$Nodes\n1 4 1 4\n3 1 0 4\n1\n2\n3\n4\n0 0 0\n1 0 0\n0 1 0\n0 0 -inf\n$EndNodes\n",
                 {"inf_coordinate.msh:14:", "node 4", "coordinate z is not finite"});
  expect_refused("no_elements.msh", header + one_tet_nodes, {"no_elements.msh", "$Elements"});
  expect_refused("not_msh.msh", "hello\n", {"not_msh.msh:1:", "section"});
  // Counts are checked against what the file holds before anything is
  // sized by them (a fuzzed header once asked for 10^11 node tags).
  expect_refused("huge_block.msh", header + "$Nodes\n1 2147483647 1 2147483647\n3 1 0 100000000000\n1\n",
                 {"huge_block.msh:6:", "a node block of 100000000000 nodes", "2147483647 in all"});
  expect_refused("second_block_too_big.msh",
                 header + "$Nodes\n2 5 1 5\n3 1 0 4\n1\n2\n3\n4\n0 0 0\n1 0 0\n0 1 0\n0 0 1\n3 2 0 2\n5\n6\n",
                 {"second_block_too_big.msh:15:", "a node block of 2 nodes", "announced 5 in all and 4 came before"});
  expect_refused("negative_block.msh", header + "$Nodes\n1 4 1 4\n3 1 0 -1\n$EndNodes\n",
                 {"negative_block.msh:6:", "a node block of -1 nodes"});
  expect_refused("announced_too_many.msh",
                 header + "$Nodes\n1 2147483647 1 2147483647\n3 1 0 4\n1\n2\n3\n4\n0 0 0\n1 0 0\n0 1 0\n0 0 1\n"
                          "$EndNodes\n",
                 {"announced_too_many.msh:14:", "announced 2147483647 nodes, its blocks hold 4"});
  EXPECT_THROW(fem::read_gmsh("/nonexistent/cube.msh"), ts::sparse_error);
}
