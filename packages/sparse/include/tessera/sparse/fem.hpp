#pragma once
// Finite elements for the sparse package, namespace tessera::sparse::fem:
// P1/P2 Lagrange elements on triangles and tetrahedra, element kernels
// (Poisson with a variable coefficient, mass, linear elasticity), box meshes
// and the Gmsh reader, and parallel assembly into CrsMatrix with symmetric
// Dirichlet conditions. Manual: packages/sparse/docs/README.md (finite elements).
#include <tessera/sparse/fem/reference_element.hpp>
#include <tessera/sparse/fem/element_kernels.hpp>
#include <tessera/sparse/fem/mesh.hpp>
#include <tessera/sparse/fem/assembly.hpp>
