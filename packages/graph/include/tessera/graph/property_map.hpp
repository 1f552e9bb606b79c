#pragma once
// Property maps backed by Views: one value per vertex or per edge index.
//
//   vertex_property_map<G, int> level(g, -1, "level");   // allocated in g's space
//   get(level, v); put(level, v, 3); level[v] = 3;         // in kernels
//   deep_get(level, v); deep_put(level, v, 3);             // from the host, any space
//   auto h = create_mirror_map(level); deep_copy(h, level); h[v] ...
//
// A property map is a handle (copies share the data), captured by value in
// kernels. Edge maps are indexed by get_edge_index(e, g) in
// [0, edge_index_bound(g)): both directions of an undirected edge share it.
#include <tessera/graph/detail/util.hpp>
#include <tessera/graph/graph_traits.hpp>

#include <string>

namespace tessera::graph {

namespace detail {
template <class Derived, class G, class T, class Space>
class property_map_base {
 public:
  using graph_type = G;
  using value_type = T;
  using view_type = tessera::View<T*, Space>;
  using memory_space = typename view_type::memory_space;

  property_map_base() = default;
  explicit property_map_base(const view_type& v) : m_data(v) {}

  TESSERA_INLINE_FUNCTION std::int64_t size() const { return std::int64_t(m_data.extent(0)); }
  const view_type& view() const { return m_data; }
  std::string label() const { return m_data.label(); }
  TESSERA_INLINE_FUNCTION T* data() const { return m_data.data(); }

 protected:
  view_type m_data;
};
}  // namespace detail

template <class G, class T, class Space = typename G::space_type>
class vertex_property_map : public detail::property_map_base<vertex_property_map<G, T, Space>, G, T, Space> {
  using base = detail::property_map_base<vertex_property_map<G, T, Space>, G, T, Space>;

 public:
  using key_type = typename graph_traits<G>::vertex_descriptor;
  using typename base::view_type;
  vertex_property_map() = default;
  explicit vertex_property_map(const view_type& v) : base(v) {}
  explicit vertex_property_map(const G& g, const std::string& label = "vertex_property")
      : base(view_type(label, std::size_t(num_vertices(g)))) {}
  vertex_property_map(const G& g, const T& init, const std::string& label = "vertex_property")
      : base(view_type(tessera::view_alloc(label, tessera::WithoutInitializing), std::size_t(num_vertices(g)))) {
    tessera::deep_copy(this->m_data, init);
  }
  TESSERA_INLINE_FUNCTION T& operator[](key_type v) const { return this->m_data(v); }
  TESSERA_INLINE_FUNCTION T& operator()(key_type v) const { return this->m_data(v); }

};

template <class G, class T, class Space = typename G::space_type>
class edge_property_map : public detail::property_map_base<edge_property_map<G, T, Space>, G, T, Space> {
  using base = detail::property_map_base<edge_property_map<G, T, Space>, G, T, Space>;

 public:
  using key_type = typename graph_traits<G>::edge_descriptor;
  using index_type = std::int64_t;
  using typename base::view_type;
  edge_property_map() = default;
  explicit edge_property_map(const view_type& v) : base(v) {}
  explicit edge_property_map(const G& g, const std::string& label = "edge_property")
      : base(view_type(label, std::size_t(edge_index_bound(g)))) {}
  edge_property_map(const G& g, const T& init, const std::string& label = "edge_property")
      : base(view_type(tessera::view_alloc(label, tessera::WithoutInitializing), std::size_t(edge_index_bound(g)))) {
    tessera::deep_copy(this->m_data, init);
  }
  TESSERA_INLINE_FUNCTION T& operator[](const key_type& e) const { return this->m_data(e.id); }
  TESSERA_INLINE_FUNCTION T& operator()(index_type i) const { return this->m_data(i); }

};

// get / put: in kernels (and on the host for host-accessible maps).
template <class G, class T, class S>
TESSERA_INLINE_FUNCTION T get(const vertex_property_map<G, T, S>& pm,
                              std::type_identity_t<typename graph_traits<G>::vertex_descriptor> v) {
  return pm[v];
}
template <class G, class T, class S>
TESSERA_INLINE_FUNCTION void put(const vertex_property_map<G, T, S>& pm,
                                 std::type_identity_t<typename graph_traits<G>::vertex_descriptor> v,
                                 const std::type_identity_t<T>& x) {
  pm[v] = x;
}
template <class G, class T, class S>
TESSERA_INLINE_FUNCTION T get(const edge_property_map<G, T, S>& pm, const typename graph_traits<G>::edge_descriptor& e) {
  return pm[e];
}
template <class G, class T, class S>
TESSERA_INLINE_FUNCTION void put(const edge_property_map<G, T, S>& pm, const typename graph_traits<G>::edge_descriptor& e,
                                 const std::type_identity_t<T>& x) {
  pm[e] = x;
}

namespace detail {
template <class PM>
void check_index(const PM& pm, std::int64_t i, const char* what) {
  if (i < 0 || i >= pm.size())
    fail(std::string(what) + " of property map '" + pm.label() + "': index " + std::to_string(i) + " outside [0, " +
         std::to_string(pm.size()) + ")");
}
}  // namespace detail

// Host access to single values, whatever the map's memory space.
template <class G, class T, class S>
T deep_get(const vertex_property_map<G, T, S>& pm, std::int64_t v) {
  detail::check_index(pm, v, "deep_get");
  return detail::read_one(pm.view(), v);
}
template <class G, class T, class S>
void deep_put(const vertex_property_map<G, T, S>& pm, std::int64_t v, const T& x) {
  detail::check_index(pm, v, "deep_put");
  detail::write_one(pm.view(), v, x);
}
template <class G, class T, class S>
T deep_get(const edge_property_map<G, T, S>& pm, const typename graph_traits<G>::edge_descriptor& e) {
  detail::check_index(pm, std::int64_t(e.id), "deep_get");
  return detail::read_one(pm.view(), e.id);
}
template <class G, class T, class S>
T deep_get(const edge_property_map<G, T, S>& pm, std::int64_t edge_index) {
  detail::check_index(pm, edge_index, "deep_get");
  return detail::read_one(pm.view(), edge_index);
}
template <class G, class T, class S>
void deep_put(const edge_property_map<G, T, S>& pm, const typename graph_traits<G>::edge_descriptor& e, const T& x) {
  detail::check_index(pm, std::int64_t(e.id), "deep_put");
  detail::write_one(pm.view(), e.id, x);
}
template <class G, class T, class S>
void deep_put(const edge_property_map<G, T, S>& pm, std::int64_t edge_index, const T& x) {
  detail::check_index(pm, edge_index, "deep_put");
  detail::write_one(pm.view(), edge_index, x);
}

// A host map of the same shape (contents not copied: use deep_copy), as
// create_mirror does for Views.
template <class G, class T, class S>
vertex_property_map<G, T, tessera::HostSpace> create_mirror_map(const vertex_property_map<G, T, S>& pm) {
  return vertex_property_map<G, T, tessera::HostSpace>(tessera::create_mirror(tessera::HostSpace(), pm.view()));
}
template <class G, class T, class S>
edge_property_map<G, T, tessera::HostSpace> create_mirror_map(const edge_property_map<G, T, S>& pm) {
  return edge_property_map<G, T, tessera::HostSpace>(tessera::create_mirror(tessera::HostSpace(), pm.view()));
}

template <class G, class T, class S1, class S2>
void deep_copy(const vertex_property_map<G, T, S1>& dst, const vertex_property_map<G, T, S2>& src) {
  if (dst.size() != src.size())
    detail::fail("deep_copy of property maps: '" + dst.label() + "' has " + std::to_string(dst.size()) +
                 " values, '" + src.label() + "' has " + std::to_string(src.size()));
  tessera::deep_copy(dst.view(), src.view());
}
template <class G, class T, class S1, class S2>
void deep_copy(const edge_property_map<G, T, S1>& dst, const edge_property_map<G, T, S2>& src) {
  if (dst.size() != src.size())
    detail::fail("deep_copy of property maps: '" + dst.label() + "' has " + std::to_string(dst.size()) +
                 " values, '" + src.label() + "' has " + std::to_string(src.size()));
  tessera::deep_copy(dst.view(), src.view());
}
template <class G, class T, class S>
void deep_copy(const vertex_property_map<G, T, S>& dst, const T& value) {
  tessera::deep_copy(dst.view(), value);
}
template <class G, class T, class S>
void deep_copy(const edge_property_map<G, T, S>& dst, const T& value) {
  tessera::deep_copy(dst.view(), value);
}

}  // namespace tessera::graph
