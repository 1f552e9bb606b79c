#pragma once
// Assembler<Exec>: finite-element assembly into CRS, on any execution space.
//
//   fem::Assembler<tessera::OpenMP> asm(mesh, /*dofs_per_node=*/1);   // sparsity, once, in parallel
//   asm.assemble(kernel, fem::AssemblyStrategy::Colouring);           // values and right-hand side
//   asm.apply_dirichlet(dofs, values);                                  // symmetric elimination
//   ts::CrsMatrix<double> A = asm.matrix();  auto b = asm.rhs();        // host copies for the solvers
//
// Degree of freedom (node i, component c) is i * dofs_per_node + c. The
// pattern couples every pair of dofs of nodes that share an element (and a
// node with itself), both triangles stored, columns sorted: what CrsMatrix
// and the Cholesky solver take. It is built in parallel on Exec:
// node -> element lists (atomic counts, scan, fill, per-node sort), each
// node's neighbours gathered from its elements into its own segment of a
// buffer, sorted and deduplicated there, then expanded to dofs.
//
// Three ways to add the element matrices into the values (same pattern):
//  - ScatterView: one parallel loop over elements; each entry found by
//    binary search in its row and added through a tessera::ScatterView
//    (per-thread copies on Threads/OpenMP, atomics on CUDA, plain on
//    Serial). Sums in a thread-dependent order: equal to rounding.
//  - Colouring: blocks of consecutive elements (64 on host spaces, single
//    elements on devices) coloured greedily so that no two blocks of one
//    colour share a node; one parallel loop per colour over its blocks,
//    plain '+='. No atomics; every value sums its contributions in colour
//    order (element order inside a block), so the result is the same bits
//    on every host back-end and thread count, and from run to run on a GPU
//    (whose element matrices round differently: fused multiply-adds).
//  - ElementMap: the element-to-value map (for each element entry, its
//    position in values) precomputed and inverted once; assembly computes
//    all element matrices in parallel into a buffer, then each value gathers
//    its contributions in element order. No atomics, bitwise reproducible,
//    and no search at assembly time, for the memory of one element matrix
//    per element and the map.
// The colouring and the map are built on first use (or by prepare()).
#include <tessera/core.hpp>
#include <tessera/sparse/crs_matrix.hpp>
#include <tessera/sparse/fem/element_kernels.hpp>
#include <tessera/sparse/fem/mesh.hpp>

#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

namespace tessera::sparse::fem {

enum class AssemblyStrategy { ScatterView, Colouring, ElementMap };
const char* to_string(AssemblyStrategy s);

namespace detail {

// In-place heap sort of a[0..n), usable inside kernels (a node's segment).
template <class T>
TESSERA_INLINE_FUNCTION void heap_sort(T* a, std::int64_t n) {
  auto sift = [a](std::int64_t root, std::int64_t end) {
    while (2 * root + 1 < end) {
      std::int64_t child = 2 * root + 1;
      if (child + 1 < end && a[child] < a[child + 1]) ++child;
      if (!(a[root] < a[child])) return;
      const T t = a[root];
      a[root] = a[child];
      a[child] = t;
      root = child;
    }
  };
  for (std::int64_t s = n / 2 - 1; s >= 0; --s) sift(s, n);
  for (std::int64_t end = n - 1; end > 0; --end) {
    const T t = a[0];
    a[0] = a[end];
    a[end] = t;
    sift(0, end);
  }
}

// First position in [lo, hi) of sorted a holding x (the caller knows it is there).
TESSERA_INLINE_FUNCTION std::int64_t find_column(const std::int32_t* a, std::int64_t lo, std::int64_t hi, std::int32_t x) {
  while (lo < hi) {
    const std::int64_t mid = lo + (hi - lo) / 2;
    if (a[mid] < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

// Element e's node coordinates, node-major.
template <int N, int D, class C, class E>
TESSERA_INLINE_FUNCTION void gather_coordinates(const C& coords, const E& elems, std::int64_t e, double* x) {
  for (int a = 0; a < N; ++a)
    for (int d = 0; d < D; ++d) x[a * D + d] = coords(elems(e, a), d);
}

// Exclusive scan of v(0..n-1) into v(0..n), on Exec; returns the total.
template <class Exec, class V>
std::int64_t exclusive_scan(const std::string& label, const V& v, std::int64_t n) {
  std::int64_t total = 0;
  parallel_scan(
      label, RangePolicy<Exec>(0, n + 1),
      TESSERA_LAMBDA(std::int64_t i, std::int64_t & upd, bool final) {
        const std::int64_t x = i < n ? std::int64_t(v(i)) : 0;
        if (final) v(i) = upd;
        upd += x;
      },
      total);
  return total;
}

}  // namespace detail

template <class Exec>
class Assembler {
 public:
  using execution_space = Exec;
  using memory_space = typename Exec::memory_space;
  using size_type = std::int64_t;
  using ordinal_type = std::int32_t;
  using row_map_view = View<size_type*, Exec>;
  using index_view = View<ordinal_type*, Exec>;
  using values_view = View<double*, Exec>;

  Assembler(const Mesh& mesh, int dofs_per_node);

  // Adds every element's Ke, fe (Kernel: see element_kernels.hpp) into the
  // matrix values and the right-hand side, both zeroed first.
  template <class Kernel>
  void assemble(const Kernel& kernel, AssemblyStrategy strategy = AssemblyStrategy::Colouring);
  // Builds what a strategy needs (colouring, element map, ScatterView) ahead
  // of the first assemble(), e.g. outside a timed region.
  void prepare(AssemblyStrategy strategy);

  // Symmetric Dirichlet conditions u(dofs[k]) = values[k]: every other row
  // moves the column of a fixed dof to its right-hand side (b_i -= a_ij g_j)
  // and drops it; a fixed row keeps only its diagonal d, with b = d g. The
  // matrix stays symmetric, and positive definite if it was on the free dofs.
  void apply_dirichlet(const std::vector<std::int64_t>& dofs, const std::vector<double>& values);

  // Host copies for the solvers.
  CrsMatrix<double> matrix() const;
  View<double*, HostSpace> rhs() const;

  std::int64_t num_dofs() const { return m_ndofs; }
  std::int64_t nnz() const { return m_nnz; }
  std::int64_t num_elements() const { return m_nelem; }
  int dofs_per_node() const { return m_dpn; }
  int num_colours() const { return int(m_colour_begin.size()) - 1; }
  // Consecutive elements coloured as one (64 on host spaces, 1 on devices).
  std::int64_t colouring_block() const { return m_colour_block; }
  void set_colouring_block(std::int64_t elements) {
    if (elements < 1) throw sparse_error("fem::Assembler::set_colouring_block: " + std::to_string(elements));
    if (elements != m_colour_block) m_colour_begin.clear();  // recoloured on next use
    m_colour_block = elements;
  }
  const Mesh& mesh() const { return m_mesh; }

  // The arrays on Exec (values and right-hand side as last assembled).
  row_map_view row_map() const { return m_row_map; }
  index_view col_idx() const { return m_col_idx; }
  values_view values() const { return m_values; }
  values_view rhs_view() const { return m_rhs; }

  // Steps of the constructor and of prepare(). Public only because nvcc's
  // extended lambdas may not live in private member functions; not API.
  void build_pattern();
  void build_element_map();

 private:
  template <class Kernel>
  void check_kernel() const;
  void build_colouring();

  Mesh m_mesh;
  int m_dpn = 1, m_npe = 0, m_dim = 0;
  std::int64_t m_nnodes = 0, m_nelem = 0, m_ndofs = 0, m_nnz = 0;
  View<double**, LayoutRight, Exec> m_coords;
  View<std::int32_t**, LayoutRight, Exec> m_elements;
  View<std::int64_t*, Exec> m_node_elem_ptr;  // node -> elements (sorted)
  View<std::int32_t*, Exec> m_node_elem;
  row_map_view m_row_map;
  index_view m_col_idx;
  values_view m_values, m_rhs;
  // Colouring: the blocks of colour c are m_colour_blocks[m_colour_begin[c] .. m_colour_begin[c+1]);
  // block k holds elements [k * m_colour_block, (k + 1) * m_colour_block).
  std::int64_t m_colour_block = is_host_execution_space<Exec>::value ? 64 : 1;
  std::vector<std::int64_t> m_colour_begin;
  View<std::int32_t*, Exec> m_colour_blocks;
  // Element map, inverted: value k sums m_ke(m_contrib(m_contrib_ptr(k) .. m_contrib_ptr(k+1))).
  View<std::int64_t*, Exec> m_contrib_ptr, m_contrib;
  View<double*, Exec> m_ke, m_fe;
  bool m_have_map = false;
  // ScatterView strategy: kept between assemblies (reset, not reallocated).
  decltype(create_scatter_view(values_view())) m_scatter_values, m_scatter_rhs;
  bool m_have_scatter = false;
};

// ---------------------------------------------------------------------------

template <class Exec>
Assembler<Exec>::Assembler(const Mesh& mesh, int dofs_per_node) : m_mesh(mesh), m_dpn(dofs_per_node) {
  const std::string where = mesh.origin.empty() ? std::string("mesh") : mesh.origin;
  if (dofs_per_node < 1 || dofs_per_node > 3)
    throw sparse_error("fem::Assembler: dofs_per_node " + std::to_string(dofs_per_node) + " (1 to 3 supported)");
  m_npe = mesh.nodes_per_element();
  m_dim = mesh.dim();
  m_nnodes = mesh.num_nodes();
  m_nelem = mesh.num_elements();
  m_ndofs = m_nnodes * m_dpn;
  if (m_ndofs > std::int64_t(std::numeric_limits<ordinal_type>::max()))
    throw sparse_error("fem::Assembler: " + where + " has " + std::to_string(m_ndofs) +
                       " dofs, more than 32-bit column indices hold");
  if (mesh.elements.extent(1) != std::size_t(m_npe) || mesh.coords.extent(1) != std::size_t(m_dim))
    throw sparse_error("fem::Assembler: " + where + ": arrays do not match its element type " + to_string(mesh.type));
  m_coords = View<double**, LayoutRight, Exec>("fem::coords", m_nnodes, m_dim);
  m_elements = View<std::int32_t**, LayoutRight, Exec>("fem::elements", m_nelem, m_npe);
  deep_copy(m_coords, mesh.coords);
  deep_copy(m_elements, mesh.elements);
  build_pattern();
  m_values = values_view("fem::values", m_nnz);
  m_rhs = values_view("fem::rhs", m_ndofs);
}

template <class Exec>
void Assembler<Exec>::build_pattern() {
  const auto elems = m_elements;
  const int npe = m_npe, dpn = m_dpn;
  const std::int64_t nnodes = m_nnodes, nelem = m_nelem;
  // Node -> element lists.
  View<std::int64_t*, Exec> ptr("fem::node_elem_ptr", nnodes + 1);
  parallel_for(
      "fem::count_node_elements", RangePolicy<Exec>(0, nelem * npe),
      TESSERA_LAMBDA(std::int64_t k) { atomic_inc(&ptr(elems(k / npe, k % npe))); });
  const std::int64_t total = detail::exclusive_scan<Exec>("fem::scan_node_elements", ptr, nnodes);
  View<std::int32_t*, Exec> list("fem::node_elem", total);
  View<std::int64_t*, Exec> cursor("fem::cursor", nnodes);
  parallel_for(
      "fem::fill_node_elements", RangePolicy<Exec>(0, nelem * npe), TESSERA_LAMBDA(std::int64_t k) {
        const std::int32_t node = elems(k / npe, k % npe);
        list(ptr(node) + atomic_fetch_add(&cursor(node), std::int64_t(1))) = std::int32_t(k / npe);
      });
  parallel_for(
      "fem::sort_node_elements", RangePolicy<Exec>(0, nnodes),
      TESSERA_LAMBDA(std::int64_t i) { detail::heap_sort(list.data() + ptr(i), ptr(i + 1) - ptr(i)); });
  m_node_elem_ptr = ptr;
  m_node_elem = list;

  // Each node's neighbours (itself included) in its own segment.
  View<std::int64_t*, Exec> seg("fem::neighbour_segments", nnodes + 1);
  parallel_for(
      "fem::size_segments", RangePolicy<Exec>(0, nnodes),
      TESSERA_LAMBDA(std::int64_t i) { seg(i) = (ptr(i + 1) - ptr(i)) * npe + 1; });
  const std::int64_t seg_total = detail::exclusive_scan<Exec>("fem::scan_segments", seg, nnodes);
  View<std::int32_t*, Exec> nbr("fem::neighbours", seg_total);
  View<std::int64_t*, Exec> count("fem::neighbour_count", nnodes + 1);
  parallel_for(
      "fem::gather_neighbours", RangePolicy<Exec>(0, nnodes), TESSERA_LAMBDA(std::int64_t i) {
        std::int32_t* s = nbr.data() + seg(i);
        std::int64_t n = 0;
        s[n++] = std::int32_t(i);
        for (std::int64_t k = ptr(i); k < ptr(i + 1); ++k)
          for (int a = 0; a < npe; ++a) s[n++] = elems(list(k), a);
        detail::heap_sort(s, n);
        std::int64_t u = 0;
        for (std::int64_t k = 0; k < n; ++k)
          if (k == 0 || s[k] != s[u - 1]) s[u++] = s[k];
        count(i) = u;
      });
  // Rows of dofs: node i's row repeated for each component, columns expanded.
  row_map_view rm("fem::row_map", m_ndofs + 1);
  parallel_for(
      "fem::row_lengths", RangePolicy<Exec>(0, m_ndofs),
      TESSERA_LAMBDA(std::int64_t r) { rm(r) = count(r / dpn) * dpn; });
  m_nnz = detail::exclusive_scan<Exec>("fem::scan_rows", rm, m_ndofs);
  index_view ci("fem::col_idx", m_nnz);
  parallel_for(
      "fem::fill_columns", RangePolicy<Exec>(0, m_ndofs), TESSERA_LAMBDA(std::int64_t r) {
        const std::int32_t* s = nbr.data() + seg(r / dpn);
        std::int64_t out = rm(r);
        for (std::int64_t k = 0; k < count(r / dpn); ++k)
          for (int c = 0; c < dpn; ++c) ci(out++) = s[k] * dpn + c;
      });
  Exec().fence();
  m_row_map = rm;
  m_col_idx = ci;
}

// Greedy colouring on the host (setup, run once) of blocks of
// colouring_block() consecutive elements: a block takes the smallest colour
// that no block sharing a node with it holds. A colour's loop gives each
// thread whole blocks, so neighbouring elements (numbered together, as the
// generators and most mesh files do) are assembled together and the values
// they share stay in cache; colouring single elements instead scatters each
// colour over the whole mesh, and every colour re-reads the values array.
template <class Exec>
void Assembler<Exec>::build_colouring() {
  auto elems = create_mirror_view(m_elements);
  deep_copy(elems, m_elements);
  auto ptr = create_mirror_view(m_node_elem_ptr);
  deep_copy(ptr, m_node_elem_ptr);
  auto list = create_mirror_view(m_node_elem);
  deep_copy(list, m_node_elem);
  const std::int64_t B = m_colour_block, nblocks = (m_nelem + B - 1) / B;
  std::vector<int> colour(std::size_t(nblocks), -1);
  std::vector<std::int64_t> taken;  // taken[c] == k: colour c is held by a neighbour of block k
  int ncolours = 0;
  for (std::int64_t k = 0; k < nblocks; ++k) {
    for (std::int64_t e = k * B; e < std::min(m_nelem, (k + 1) * B); ++e)
      for (int a = 0; a < m_npe; ++a) {
        const std::int32_t node = elems(e, a);
        for (std::int64_t j = ptr(node); j < ptr(node + 1); ++j) {
          const int c = colour[std::size_t(list(j) / B)];
          if (c >= 0) taken[std::size_t(c)] = k;
        }
      }
    int c = 0;
    while (c < ncolours && taken[std::size_t(c)] == k) ++c;
    if (c == ncolours) {
      ++ncolours;
      taken.push_back(-1);
    }
    colour[std::size_t(k)] = c;
  }
  m_colour_begin.assign(std::size_t(ncolours) + 1, 0);
  for (int c : colour) ++m_colour_begin[std::size_t(c) + 1];
  for (int c = 0; c < ncolours; ++c) m_colour_begin[std::size_t(c) + 1] += m_colour_begin[std::size_t(c)];
  View<std::int32_t*, HostSpace> sorted("fem::colour_blocks", nblocks);
  std::vector<std::int64_t> pos(m_colour_begin.begin(), m_colour_begin.end() - 1);
  for (std::int64_t k = 0; k < nblocks; ++k) sorted(pos[std::size_t(colour[std::size_t(k)])]++) = std::int32_t(k);
  m_colour_blocks = View<std::int32_t*, Exec>("fem::colour_blocks", nblocks);
  deep_copy(m_colour_blocks, sorted);
}

// The element-to-value map (entry (e, A, B) -> its position in values),
// inverted into value -> the entries that add into it, in element order.
template <class Exec>
void Assembler<Exec>::build_element_map() {
  const int m = m_npe * m_dpn, dpn = m_dpn;
  const std::int64_t per = std::int64_t(m) * m, nentries = m_nelem * per;
  const auto elems = m_elements;
  const auto rm = m_row_map;
  const auto ci = m_col_idx;
  View<std::int64_t*, Exec> position("fem::element_to_value", nentries);
  View<std::int64_t*, Exec> cptr("fem::contrib_ptr", m_nnz + 1);
  parallel_for(
      "fem::element_to_value", RangePolicy<Exec>(0, nentries), TESSERA_LAMBDA(std::int64_t k) {
        const std::int64_t e = k / per, A = (k % per) / m, B = k % m;
        const std::int32_t row = elems(e, A / dpn) * dpn + std::int32_t(A % dpn);
        const std::int32_t col = elems(e, B / dpn) * dpn + std::int32_t(B % dpn);
        const std::int64_t p = detail::find_column(ci.data(), rm(row), rm(row + 1), col);
        position(k) = p;
        atomic_inc(&cptr(p));
      });
  detail::exclusive_scan<Exec>("fem::scan_contributions", cptr, m_nnz);
  View<std::int64_t*, Exec> contrib("fem::contributions", nentries);
  View<std::int64_t*, Exec> cursor("fem::cursor", m_nnz);
  parallel_for(
      "fem::invert_element_map", RangePolicy<Exec>(0, nentries), TESSERA_LAMBDA(std::int64_t k) {
        const std::int64_t p = position(k);
        contrib(cptr(p) + atomic_fetch_add(&cursor(p), std::int64_t(1))) = k;
      });
  parallel_for(
      "fem::sort_contributions", RangePolicy<Exec>(0, m_nnz),
      TESSERA_LAMBDA(std::int64_t p) { detail::heap_sort(contrib.data() + cptr(p), cptr(p + 1) - cptr(p)); });
  Exec().fence();
  m_contrib_ptr = cptr;
  m_contrib = contrib;
  m_ke = View<double*, Exec>(view_alloc(WithoutInitializing, "fem::element_matrices"), nentries);
  m_fe = View<double*, Exec>(view_alloc(WithoutInitializing, "fem::element_vectors"), m_nelem * m);
  m_have_map = true;
}

template <class Exec>
void Assembler<Exec>::prepare(AssemblyStrategy s) {
  if (s == AssemblyStrategy::Colouring && m_colour_begin.empty()) build_colouring();
  if (s == AssemblyStrategy::ElementMap && !m_have_map) build_element_map();
  if (s == AssemblyStrategy::ScatterView && !m_have_scatter) {
    m_scatter_values = create_scatter_view(m_values);
    m_scatter_rhs = create_scatter_view(m_rhs);
    m_have_scatter = true;
  }
}

template <class Exec>
template <class Kernel>
void Assembler<Exec>::check_kernel() const {
  using E = typename Kernel::element;
  if (E::type != m_mesh.type)
    throw sparse_error(std::string("fem::Assembler::assemble: the kernel integrates a ") + to_string(E::type) +
                       " but " + (m_mesh.origin.empty() ? std::string("the mesh") : m_mesh.origin) + " has " +
                       to_string(m_mesh.type) + " elements");
  if (Kernel::dofs_per_node != m_dpn)
    throw sparse_error("fem::Assembler::assemble: the kernel has " + std::to_string(Kernel::dofs_per_node) +
                       " dofs per node, the assembler was built for " + std::to_string(m_dpn));
}

template <class Exec>
template <class Kernel>
void Assembler<Exec>::assemble(const Kernel& kernel, AssemblyStrategy strategy) {
  check_kernel<Kernel>();
  prepare(strategy);
  using E = typename Kernel::element;
  constexpr int D = E::dim, n = E::nodes, dpn = Kernel::dofs_per_node, m = Kernel::dofs;
  const auto coords = m_coords;
  const auto elems = m_elements;
  const auto rm = m_row_map;
  const auto ci = m_col_idx;
  const auto vals = m_values;
  const auto rhs = m_rhs;
  if (strategy == AssemblyStrategy::ScatterView) {
    m_scatter_values.reset_except(m_values);
    m_scatter_rhs.reset_except(m_rhs);
    deep_copy(Exec(), m_values, 0.0);
    deep_copy(Exec(), m_rhs, 0.0);
    const auto sv = m_scatter_values;
    const auto sb = m_scatter_rhs;
    parallel_for(
        "fem::assemble_scatter", RangePolicy<Exec>(0, m_nelem), TESSERA_LAMBDA(std::int64_t e) {
          double x[n * D], Ke[m * m], fe[m];
          detail::gather_coordinates<n, D>(coords, elems, e, x);
          kernel(x, Ke, fe);
          auto av = sv.access();
          auto ab = sb.access();
          for (int A = 0; A < m; ++A) {
            const std::int32_t row = elems(e, A / dpn) * dpn + A % dpn;
            ab(row) += fe[A];
            for (int B = 0; B < m; ++B) {
              const std::int32_t col = elems(e, B / dpn) * dpn + B % dpn;
              av(detail::find_column(ci.data(), rm(row), rm(row + 1), col)) += Ke[A * m + B];
            }
          }
        });
    contribute(m_values, m_scatter_values);
    contribute(m_rhs, m_scatter_rhs);
  } else if (strategy == AssemblyStrategy::Colouring) {
    deep_copy(Exec(), m_values, 0.0);
    deep_copy(Exec(), m_rhs, 0.0);
    const auto blocks = m_colour_blocks;
    const std::int64_t B = m_colour_block, nelem = m_nelem;
    for (std::size_t c = 0; c + 1 < m_colour_begin.size(); ++c)
      parallel_for(
          "fem::assemble_colour", RangePolicy<Exec>(m_colour_begin[c], m_colour_begin[c + 1]),
          TESSERA_LAMBDA(std::int64_t k) {
            const std::int64_t first = std::int64_t(blocks(k)) * B;
            const std::int64_t last = first + B < nelem ? first + B : nelem;
            for (std::int64_t e = first; e < last; ++e) {
              double x[n * D], Ke[m * m], fe[m];
              detail::gather_coordinates<n, D>(coords, elems, e, x);
              kernel(x, Ke, fe);
              for (int A = 0; A < m; ++A) {
                const std::int32_t row = elems(e, A / dpn) * dpn + A % dpn;
                rhs(row) += fe[A];
                double* rv = vals.data();
                for (int Bc = 0; Bc < m; ++Bc) {
                  const std::int32_t col = elems(e, Bc / dpn) * dpn + Bc % dpn;
                  rv[detail::find_column(ci.data(), rm(row), rm(row + 1), col)] += Ke[A * m + Bc];
                }
              }
            }
          });
  } else {
    const auto ke = m_ke;
    const auto fe_all = m_fe;
    const auto cptr = m_contrib_ptr;
    const auto contrib = m_contrib;
    const auto nptr = m_node_elem_ptr;
    const auto nlist = m_node_elem;
    parallel_for(
        "fem::element_matrices", RangePolicy<Exec>(0, m_nelem), TESSERA_LAMBDA(std::int64_t e) {
          double x[n * D];
          detail::gather_coordinates<n, D>(coords, elems, e, x);
          kernel(x, ke.data() + e * m * m, fe_all.data() + e * m);
        });
    parallel_for(
        "fem::gather_values", RangePolicy<Exec>(0, m_nnz), TESSERA_LAMBDA(std::int64_t p) {
          double s = 0;
          for (std::int64_t k = cptr(p); k < cptr(p + 1); ++k) s += ke(contrib(k));
          vals(p) = s;
        });
    parallel_for(
        "fem::gather_rhs", RangePolicy<Exec>(0, m_ndofs), TESSERA_LAMBDA(std::int64_t r) {
          const std::int32_t node = std::int32_t(r / dpn);
          double s = 0;
          for (std::int64_t k = nptr(node); k < nptr(node + 1); ++k) {
            const std::int32_t e = nlist(k);
            int a = 0;
            while (elems(e, a) != node) ++a;
            s += fe_all(std::int64_t(e) * m + a * dpn + r % dpn);
          }
          rhs(r) = s;
        });
  }
  Exec().fence();
}

template <class Exec>
void Assembler<Exec>::apply_dirichlet(const std::vector<std::int64_t>& dofs, const std::vector<double>& values) {
  if (dofs.size() != values.size())
    throw sparse_error("fem::Assembler::apply_dirichlet: " + std::to_string(dofs.size()) + " dofs but " +
                       std::to_string(values.size()) + " values");
  View<char*, HostSpace> fixed_h("fem::fixed", m_ndofs);
  View<double*, HostSpace> g_h("fem::dirichlet_values", m_ndofs);
  for (std::size_t k = 0; k < dofs.size(); ++k) {
    const std::int64_t r = dofs[k];
    if (r < 0 || r >= m_ndofs)
      throw sparse_error("fem::Assembler::apply_dirichlet: entry " + std::to_string(k) + " names dof " +
                         std::to_string(r) + ", outside 0.." + std::to_string(m_ndofs - 1));
    if (fixed_h(r) && g_h(r) != values[k])
      throw sparse_error("fem::Assembler::apply_dirichlet: dof " + std::to_string(r) + " is given two values (" +
                         std::to_string(g_h(r)) + " and " + std::to_string(values[k]) + ")");
    fixed_h(r) = 1;
    g_h(r) = values[k];
  }
  View<char*, Exec> fixed("fem::fixed", m_ndofs);
  View<double*, Exec> g("fem::dirichlet_values", m_ndofs);
  deep_copy(fixed, fixed_h);
  deep_copy(g, g_h);
  const auto rm = m_row_map;
  const auto ci = m_col_idx;
  const auto vals = m_values;
  const auto rhs = m_rhs;
  parallel_for(
      "fem::dirichlet", RangePolicy<Exec>(0, m_ndofs), TESSERA_LAMBDA(std::int64_t r) {
        if (fixed(r)) {
          double d = 0;
          std::int64_t diag = -1;
          for (std::int64_t k = rm(r); k < rm(r + 1); ++k) {
            if (ci(k) == r) {
              diag = k;
              d = vals(k);
            } else {
              vals(k) = 0;
            }
          }
          if (d == 0) d = 1;  // a dof no element touches
          vals(diag) = d;
          rhs(r) = d * g(r);
        } else {
          double b = rhs(r);
          for (std::int64_t k = rm(r); k < rm(r + 1); ++k)
            if (fixed(ci(k))) {
              b -= vals(k) * g(ci(k));
              vals(k) = 0;
            }
          rhs(r) = b;
        }
      });
  Exec().fence();
}

template <class Exec>
CrsMatrix<double> Assembler<Exec>::matrix() const {
  using M = CrsMatrix<double>;
  typename M::row_map_view rm(view_alloc(WithoutInitializing, "sparse::row_map"), m_ndofs + 1);
  typename M::index_view ci(view_alloc(WithoutInitializing, "sparse::col_idx"), m_nnz);
  typename M::values_view v(view_alloc(WithoutInitializing, "sparse::values"), m_nnz);
  deep_copy(rm, m_row_map);
  deep_copy(ci, m_col_idx);
  deep_copy(v, m_values);
  return M(m_ndofs, rm, ci, v, m_mesh.origin.empty() ? std::string("fem") : "fem on " + m_mesh.origin);
}

template <class Exec>
View<double*, HostSpace> Assembler<Exec>::rhs() const {
  View<double*, HostSpace> b(view_alloc(WithoutInitializing, "fem::rhs"), m_ndofs);
  deep_copy(b, m_rhs);
  return b;
}

// Dofs of the given nodes: component c of node i is i * dofs_per_node + c
// (components: every one, or just `component` when it is >= 0).
inline std::vector<std::int64_t> node_dofs(const std::vector<std::int32_t>& nodes, int dofs_per_node,
                                           int component = -1) {
  std::vector<std::int64_t> out;
  for (std::int32_t i : nodes)
    for (int c = 0; c < dofs_per_node; ++c)
      if (component < 0 || c == component) out.push_back(std::int64_t(i) * dofs_per_node + c);
  return out;
}

}  // namespace tessera::sparse::fem
