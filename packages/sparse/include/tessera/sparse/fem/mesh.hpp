#pragma once
// Mesh: an unstructured simplex mesh in host memory (node coordinates and
// element connectivity), what the generators and the Gmsh reader return and
// what the Assembler copies to its execution space.
//
//   auto mesh = fem::box_mesh({.cells = {8, 8, 8}, .order = 2, .perturbation = 0.2});
//   mesh.coords(node, d);  mesh.elements(e, a);   // a: local node, Gmsh's order
//   auto fixed = fem::boundary_nodes(mesh);       // nodes on boundary facets
#include <tessera/core.hpp>
#include <tessera/sparse/crs_matrix.hpp>
#include <tessera/sparse/fem/reference_element.hpp>

#include <array>
#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <vector>

namespace tessera::sparse::fem {

struct Mesh {
  ElementType type = ElementType::Triangle3;
  View<double**, LayoutRight, HostSpace> coords;          // num_nodes x dim
  View<std::int32_t**, LayoutRight, HostSpace> elements;  // num_elements x nodes_per_element, 0-based
  std::string origin;                                     // "box 8x8x8 P2", a file name, ...

  int dim() const { return dimension_of(type); }
  int order() const { return order_of(type); }
  int nodes_per_element() const { return nodes_of(type); }
  std::int64_t num_nodes() const { return std::int64_t(coords.extent(0)); }
  std::int64_t num_elements() const { return std::int64_t(elements.extent(0)); }

  // Throws sparse_error naming the first element with a node index out of
  // range, a repeated node, or a (near-)zero measure.
  void check() const;
  // Sum of the element measures (area or volume).
  double measure() const;
};

// A structured mesh of the box [0, lengths[0]] x ... : cells[d] cells per
// direction, each cell split into 2 triangles (along its (0,0)-(1,1)
// diagonal) or 6 tetrahedra (Kuhn's split along the (0,0,0)-(1,1,1)
// diagonal, so that neighbouring cells' faces match). cells[2] == 0 gives a
// 2-D triangle mesh. With perturbation p > 0 every interior vertex moves by
// a uniform random amount in [-p h_d, p h_d] per direction (the boundary
// stays put; P2 edge nodes stay at the midpoints); p must be below 0.25 so
// that no element folds.
struct BoxMeshOptions {
  std::array<int, 3> cells = {4, 4, 4};
  std::array<double, 3> lengths = {1.0, 1.0, 1.0};
  int order = 1;
  double perturbation = 0;
  std::uint64_t seed = 1;
};
Mesh box_mesh(const BoxMeshOptions& options);

// Gmsh .msh format 4.1, ASCII: the elements of the highest dimension
// present (3-node or 6-node triangles, 4-node or 10-node tetrahedra, one type
// per mesh); points, lines and boundary faces are skipped. Node tags may be
// sparse; the nodes those elements use are renumbered 0.. in the order of
// the file (others are dropped). A 2-D mesh keeps x and y. Errors:
// sparse_error "file:line: problem" (MSH 2.x, 4.0 and binary files are refused).
Mesh read_gmsh(const std::string& path);

// Nodes on the boundary, found topologically (facets that belong to one
// element), P2 edge nodes of those facets included; sorted.
std::vector<std::int32_t> boundary_nodes(const Mesh& mesh);
// Nodes whose coordinates satisfy where(x) (x has mesh.dim() entries); sorted.
std::vector<std::int32_t> nodes_where(const Mesh& mesh, const std::function<bool(const double*)>& where);

}  // namespace tessera::sparse::fem
