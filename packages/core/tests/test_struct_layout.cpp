// Views of described structs (struct_fields.hpp, struct_view.hpp): the same
// kernel on LayoutAoS and LayoutSoA storage gives the same values (checked
// against closed forms), whole elements copy out and in, mixed member types,
// array members, subviews, deep_copy between layouts and spaces, mirrors,
// member-array alignment, compile-time offsets and errors for bad use.
#include "tessera_test_spaces.hpp"

#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace {

struct Particle {
  double x, y, z, vx, vy, vz;
  float mass;
  TESSERA_STRUCT_FIELDS(Particle, x, y, z, vx, vy, vz, mass)
};

struct Mixed {
  float f;
  double d;
  int i;
  bool flag;
  TESSERA_STRUCT_FIELDS(Mixed, f, d, i, flag)
};

template <class T, int D>
struct State {
  T u[D];
  bool valid;
  TESSERA_STRUCT_FIELDS(State, u, valid)
};
using State3 = State<double, 3>;

// The offsets are compile-time facts: member arrays follow each other in
// declaration order, each sizeof(member) bytes per element of capacity.
using PF = tessera::StructFields<Particle>;
static_assert(PF::count == 7);
static_assert(PF::bytes_per_element == 6 * sizeof(double) + sizeof(float));
static_assert(PF::soa_bytes_before<&Particle::x> == 0);
static_assert(PF::soa_bytes_before<&Particle::vx> == 3 * sizeof(double));
static_assert(PF::soa_bytes_before<&Particle::mass> == 6 * sizeof(double));
using MF = tessera::StructFields<Mixed>;
static_assert(MF::bytes_per_element == 4 + 8 + 4 + 1);
static_assert(MF::soa_bytes_before<&Mixed::d> == 4 && MF::soa_bytes_before<&Mixed::i> == 12 &&
              MF::soa_bytes_before<&Mixed::flag> == 16);
using SF = tessera::StructFields<State3>;
static_assert(SF::bytes_per_element == 3 * sizeof(double) + 1 && SF::soa_bytes_before<&State3::valid> == 24);
// Describing a struct changes neither its size nor its triviality.
static_assert(sizeof(Particle) == 56 && std::is_trivially_copyable_v<Particle> && std::is_standard_layout_v<Particle>);

// The accessor types: references into the storage for scalars; arrays are
// indexed with [c] in both layouts.
using SoAParticles = tessera::View<Particle*, tessera::LayoutSoA, tessera::HostSpace>;
using AoSParticles = tessera::View<Particle*, tessera::LayoutAoS, tessera::HostSpace>;
static_assert(std::is_same_v<decltype(std::declval<SoAParticles>()(0).x()), double&>);
static_assert(std::is_same_v<decltype(std::declval<AoSParticles>()(0).mass()), float&>);
static_assert(SoAParticles::is_struct_of_arrays && !AoSParticles::is_struct_of_arrays);

// One explicit step of x += v * dt, written once for every storage.
template <class V>
void push(const V& p, double dt) {
  using Exec = typename V::execution_space;
  tessera::parallel_for(tessera::RangePolicy<Exec>(0, p.extent(0)), TESSERA_LAMBDA(std::size_t i) {
    auto q = p(i);
    q.x() += q.vx() * dt;
    q.y() += q.vy() * dt;
    q.z() += q.vz() * dt;
  });
}

template <class V>
void fill_particles(const V& p) {
  using Exec = typename V::execution_space;
  tessera::parallel_for(tessera::RangePolicy<Exec>(0, p.extent(0)), TESSERA_LAMBDA(std::size_t i) {
    Particle q{};
    q.x = double(i);
    q.y = -double(i);
    q.z = 0.5 * double(i);
    q.vx = 1.0;
    q.vy = double(i % 7);
    q.vz = -2.0;
    q.mass = float(i) + 0.25f;
    p(i) = q;  // whole element in
  });
}

// Closed form after `steps` steps of dt = 0.5 (all values exact in binary).
void expect_pushed(const Particle& q, std::size_t i, int steps, const char* what) {
  const double t = 0.5 * steps;
  EXPECT_EQ(q.x, double(i) + t) << what << " element " << i;
  EXPECT_EQ(q.y, -double(i) + double(i % 7) * t) << what << " element " << i;
  EXPECT_EQ(q.z, 0.5 * double(i) - 2.0 * t) << what << " element " << i;
  EXPECT_EQ(q.mass, float(i) + 0.25f) << what << " element " << i;
}

}  // namespace

template <class Space>
class StructLayout : public SpaceTest<Space> {};
TYPED_TEST_SUITE(StructLayout, tessera::test::ExecutionSpaces, tessera::test::SpaceNames);

TYPED_TEST(StructLayout, SameKernelGivesTheClosedFormInEveryLayout) {
  using Space = TypeParam;
  const std::size_t n = 1000;
  tessera::View<Particle*, tessera::LayoutSoA, Space> soa("soa", n);
  tessera::View<Particle*, tessera::LayoutAoS, Space> aos("aos", n);
  fill_particles(soa);
  fill_particles(aos);
  for (int s = 0; s < 3; ++s) {
    push(soa, 0.5);
    push(aos, 0.5);
  }
  auto hs = tessera::create_mirror_view_and_copy(tessera::HostSpace(), soa);
  auto ha = tessera::create_mirror_view_and_copy(tessera::HostSpace(), aos);
  for (std::size_t i = 0; i < n; ++i) {
    expect_pushed(hs(i), i, 3, "SoA");
    expect_pushed(ha(i), i, 3, "AoS");
  }
}

TYPED_TEST(StructLayout, WholeElementsCopyOutAndIn) {
  using Space = TypeParam;
  const std::size_t n = 77;
  tessera::View<Particle*, tessera::LayoutSoA, Space> p("p", n);
  tessera::View<Particle*, tessera::LayoutAoS, Space> r("r", n);
  fill_particles(p);
  // Reverse p into r element by element (proxy to proxy across layouts),
  // then get()/set() a modified copy back into p.
  tessera::parallel_for(tessera::RangePolicy<Space>(0, n), TESSERA_LAMBDA(std::size_t i) {
    r(n - 1 - i) = p(i);
    Particle q = p(i).get();
    q.mass *= 2.0f;
    q.vz = double(i);
    p(i).set(q);
  });
  auto hp = tessera::create_mirror_view_and_copy(tessera::HostSpace(), p);
  auto hr = tessera::create_mirror_view_and_copy(tessera::HostSpace(), r);
  for (std::size_t i = 0; i < n; ++i) {
    const Particle a = hp(i);
    EXPECT_EQ(a.mass, 2.0f * (float(i) + 0.25f));
    EXPECT_EQ(a.vz, double(i));
    EXPECT_EQ(a.x, double(i));
    const Particle b = hr(n - 1 - i);
    EXPECT_EQ(b.x, double(i));
    EXPECT_EQ(b.y, -double(i));
    EXPECT_EQ(b.vz, -2.0) << "r holds p's values before the set";
    EXPECT_EQ(b.mass, float(i) + 0.25f);
  }
  // A copied proxy still refers to the element: assigning through it writes.
  auto e = hp(5);
  e.x() = 123.0;
  EXPECT_EQ(hp(5).x(), 123.0);
}

TYPED_TEST(StructLayout, MixedMemberTypes) {
  using Space = TypeParam;
  const std::size_t n = 130;
  tessera::View<Mixed*, tessera::LayoutSoA, Space> s("s", n);
  tessera::View<Mixed*, tessera::LayoutAoS, Space> a("a", n);
  tessera::parallel_for(tessera::RangePolicy<Space>(0, n), TESSERA_LAMBDA(std::size_t k) {
    s(k).f() = 0.5f * float(k);
    s(k).d() = 1e10 + double(k);
    s(k).i() = -int(k);
    s(k).flag() = (k % 3 == 0);
    a(k) = s(k);
    a(k).i() += 1000;
  });
  auto hs = tessera::create_mirror_view_and_copy(tessera::HostSpace(), s);
  auto ha = tessera::create_mirror_view_and_copy(tessera::HostSpace(), a);
  for (std::size_t k = 0; k < n; ++k) {
    EXPECT_EQ(hs(k).f(), 0.5f * float(k));
    EXPECT_EQ(hs(k).d(), 1e10 + double(k));
    EXPECT_EQ(hs(k).i(), -int(k));
    EXPECT_EQ(hs(k).flag(), k % 3 == 0);
    const Mixed m = ha(k);
    EXPECT_EQ(m.i, 1000 - int(k));
    EXPECT_EQ(m.flag, k % 3 == 0);
    EXPECT_EQ(m.d, 1e10 + double(k));
  }
  // Value-initialized on allocation, as a plain View.
  tessera::View<Mixed*, tessera::LayoutSoA, tessera::HostSpace> z("z", 3);
  EXPECT_EQ(z(2).d(), 0.0);
  EXPECT_FALSE(z(1).flag());
}

TYPED_TEST(StructLayout, ArrayMembersOnATwoDimensionalGrid) {
  using Space = TypeParam;
  const std::size_t nx = 9, ny = 13;
  tessera::View<State3**, tessera::LayoutSoA, Space> u("u", nx, ny);
  tessera::parallel_for(tessera::RangePolicy<Space>(0, nx * ny), TESSERA_LAMBDA(std::size_t k) {
    const std::size_t i = k / ny, j = k % ny;
    auto s = u(i, j);
    for (int c = 0; c < 3; ++c) s.u()[c] = double(100 * c) + double(i) + 0.5 * double(j);
    s.valid() = (i + j) % 2 == 0;
  });
  auto h = tessera::create_mirror_view_and_copy(tessera::HostSpace(), u);
  // Row-major element numbering; component c of element k at u[c * capacity + k].
  const double* u0 = h.template member_data<&State3::u>();
  for (std::size_t i = 0; i < nx; ++i)
    for (std::size_t j = 0; j < ny; ++j) {
      const State3 s = h(i, j);
      for (int c = 0; c < 3; ++c) {
        const double want = double(100 * c) + double(i) + 0.5 * double(j);
        EXPECT_EQ(s.u[c], want);
        EXPECT_EQ(u0[c * h.capacity() + i * ny + j], want);
      }
      EXPECT_EQ(s.valid, (i + j) % 2 == 0);
    }
  // The AoS copy holds the same states.
  tessera::View<State3**, tessera::LayoutAoS, tessera::HostSpace> a("a", nx, ny);
  tessera::deep_copy(a, h);
  EXPECT_EQ(a(4, 7).u()[2], 200.0 + 4 + 3.5);
  EXPECT_TRUE(a(4, 6).valid());
}

TYPED_TEST(StructLayout, SubviewOfARangeSharesTheElements) {
  using Space = TypeParam;
  const std::size_t n = 40;
  tessera::View<Particle*, tessera::LayoutSoA, Space> p("p", n);
  fill_particles(p);
  auto mid = tessera::subview(p, std::make_pair(10, 30));
  static_assert(std::is_same_v<typename decltype(mid)::array_layout, tessera::LayoutSoA>);
  EXPECT_EQ(mid.extent(0), 20u);
  EXPECT_EQ(mid.label(), "p");
  EXPECT_EQ(mid.use_count(), p.use_count());
  push(mid, 0.5);
  auto h = tessera::create_mirror_view_and_copy(tessera::HostSpace(), p);
  for (std::size_t i = 0; i < n; ++i) expect_pushed(h(i), i, (i >= 10 && i < 30) ? 1 : 0, "subview");
  // A mirror of the subview holds only its elements.
  auto hm = tessera::create_mirror_view_and_copy(tessera::HostSpace(), mid);
  EXPECT_EQ(hm.extent(0), 20u);
  expect_pushed(hm(0), 10, 1, "mirror of subview");

  // Rows, columns and blocks of a 2-D View of structs.
  tessera::View<State3**, tessera::LayoutAoS, tessera::HostSpace> g("g", 4, 5);
  for (std::size_t i = 0; i < 4; ++i)
    for (std::size_t j = 0; j < 5; ++j) g(i, j).u()[0] = double(10 * i + j);
  auto row = tessera::subview(g, 2, tessera::ALL);
  auto col = tessera::subview(g, tessera::ALL, 3);
  auto block = tessera::subview(g, std::make_pair(1, 3), std::make_pair(2, 5));
  static_assert(decltype(row)::rank == 1 && decltype(block)::rank == 2);
  EXPECT_EQ(row(4).u()[0], 24.0);
  EXPECT_EQ(col(1).u()[0], 13.0);
  EXPECT_EQ(block(1, 2).u()[0], 24.0);
  EXPECT_FALSE(block.span_is_contiguous());
  // Rank 5: row-major numbering, integers drop dimensions.
  tessera::View<Mixed*****, tessera::LayoutSoA, tessera::HostSpace> v5("v5", 2, 3, 2, 4, 3);
  for (int a = 0; a < 2; ++a)
    for (int b = 0; b < 3; ++b)
      for (int c = 0; c < 2; ++c)
        for (int d = 0; d < 4; ++d)
          for (int e = 0; e < 3; ++e) v5(a, b, c, d, e).i() = (((a * 3 + b) * 2 + c) * 4 + d) * 3 + e;
  auto s3 = tessera::subview(v5, 1, tessera::ALL, 0, std::make_pair(1, 3), tessera::ALL);
  static_assert(decltype(s3)::rank == 3);
  EXPECT_EQ(s3.extent(0), 3u);
  EXPECT_EQ(s3.extent(1), 2u);
  EXPECT_EQ(s3(2, 1, 2).i(), (((1 * 3 + 2) * 2 + 0) * 4 + 2) * 3 + 2);
  EXPECT_EQ(v5.template member_data<&Mixed::i>()[71], 71) << "element k of member i is at i[k]";

  tessera::View<State3**, tessera::LayoutSoA, tessera::HostSpace> copy("copy", 2, 3);
  tessera::deep_copy(copy, block);  // strided AoS -> compact SoA
  EXPECT_EQ(copy(0, 0).u()[0], 12.0);
  EXPECT_EQ(copy(1, 2).u()[0], 24.0);
}

TYPED_TEST(StructLayout, DeepCopyBetweenLayoutsAndSpaces) {
  using Space = TypeParam;
  const std::size_t n = 200;
  tessera::View<Particle*, tessera::LayoutSoA, Space> soa("soa", n);
  tessera::View<Particle*, tessera::LayoutAoS, Space> aos("aos", n);
  tessera::View<Particle*, Space> plain("plain", n);  // an ordinary View of structs
  fill_particles(soa);
  tessera::deep_copy(aos, soa);    // SoA -> AoS, same space
  tessera::deep_copy(plain, aos);  // AoS -> plain View
  tessera::View<Particle*, tessera::LayoutSoA, tessera::HostSpace> back("back", n);
  tessera::deep_copy(back, plain);  // plain View, any space -> SoA on the host
  for (std::size_t i = 0; i < n; ++i) expect_pushed(back(i), i, 0, "SoA->AoS->plain->SoA");

  // Host SoA -> device AoS -> host AoS mirror, then a fill.
  for (std::size_t i = 0; i < n; ++i) back(i).x() = -1.0 * double(i);
  tessera::deep_copy(aos, back);
  auto ha = tessera::create_mirror(aos);
  static_assert(std::is_same_v<decltype(ha), typename decltype(aos)::HostMirror>);
  EXPECT_EQ(ha.label(), "aos_mirror");
  EXPECT_EQ(ha(7).x(), 0.0) << "create_mirror does not copy";
  tessera::deep_copy(ha, aos);
  EXPECT_EQ(ha(7).x(), -7.0);
  EXPECT_EQ(ha(7).vy(), 0.0);
  Particle one{};
  one.mass = 3.0f;
  tessera::deep_copy(soa, one);
  auto hs = tessera::create_mirror_view(soa);
  tessera::deep_copy(hs, soa);
  EXPECT_EQ(hs(n - 1).mass(), 3.0f);
  EXPECT_EQ(hs(n - 1).x(), 0.0);

  // Overlapping parts of one allocation copy as from an untouched source.
  for (std::size_t i = 0; i < n; ++i) back(i).x() = double(i);
  tessera::deep_copy(tessera::subview(back, std::make_pair(1, 101)), tessera::subview(back, std::make_pair(0, 100)));
  for (std::size_t i = 1; i <= 100; ++i) EXPECT_EQ(back(i).x(), double(i - 1));

  // Host mirrors are the View itself on host spaces.
  if constexpr (std::is_same_v<typename Space::memory_space, tessera::HostSpace>) {
    auto same = tessera::create_mirror_view(soa);
    EXPECT_EQ(same.data(), soa.data());
  }
}

TYPED_TEST(StructLayout, EveryMemberArrayIsAligned) {
  using Space = TypeParam;
  for (std::size_t n : {1u, 63u, 64u, 65u, 1000u}) {
    tessera::View<Mixed*, tessera::LayoutSoA, Space> s("s", n);
    EXPECT_EQ(s.capacity() % 64, 0u);
    EXPECT_GE(s.capacity(), n);
    auto aligned = [](const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 64 == 0; };
    EXPECT_TRUE(aligned(s.template member_data<&Mixed::f>())) << n;
    EXPECT_TRUE(aligned(s.template member_data<&Mixed::d>())) << n;
    EXPECT_TRUE(aligned(s.template member_data<&Mixed::i>())) << n;
    EXPECT_TRUE(aligned(s.template member_data<&Mixed::flag>())) << n;
    tessera::View<State3*, tessera::LayoutSoA, Space> u("u", n);
    for (std::size_t c = 0; c < 3; ++c) EXPECT_TRUE(aligned(u.template member_data<&State3::u>() + c * u.capacity()));
  }
}

TYPED_TEST(StructLayout, BadUseGivesClearErrors) {
  using Space = TypeParam;
  tessera::View<Particle*, tessera::LayoutSoA, Space> a("alpha", 10);
  tessera::View<Particle*, tessera::LayoutAoS, Space> b("beta", 12);
  try {
    tessera::deep_copy(a, b);
    ADD_FAILURE() << "deep_copy of different extents did not throw";
  } catch (const std::runtime_error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("extents differ"), std::string::npos) << what;
    EXPECT_NE(what.find("'alpha' (10)"), std::string::npos) << what;
    EXPECT_NE(what.find("'beta' (12)"), std::string::npos) << what;
  }
  try {
    auto s = tessera::subview(a, std::make_pair(5, 11));
    ADD_FAILURE() << "subview past the end did not throw";
  } catch (const std::runtime_error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("'alpha'"), std::string::npos) << what;
    EXPECT_NE(what.find("[5, 11)"), std::string::npos) << what;
  }
  using Grid = tessera::View<State3**, tessera::LayoutSoA, Space>;
  EXPECT_THROW(Grid("grid", 4), std::runtime_error);
  tessera::View<Particle*, tessera::LayoutSoA, Space> empty;
  EXPECT_THROW(tessera::deep_copy(a, empty), std::runtime_error);
}
