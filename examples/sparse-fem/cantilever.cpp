// A 3-D linear-elastic cantilever under its own weight: a slender beam
// [0, L] x [0, b] x [0, h] (L/h = 10) clamped at x = 0, P2 tetrahedra,
// assembled and solved with the sparse Cholesky on every enabled host
// back-end. Check: the tip deflection (mean vertical displacement of the
// face x = L) against Euler-Bernoulli beam theory, w = q L^4 / (8 E I) with
// q = rho g b h and I = b h^3 / 12, within 3 % (nu = 0, so that the clamp
// adds no Poisson stiffening); and against Timoshenko's beam, which adds the
// shear deflection q L^2 / (2 kappa G A) (kappa = 5/6; +0.8 % at L/h = 10),
// within 1 %.
#include <tessera/sparse.hpp>

#include <cmath>
#include <cstdio>
#include <vector>

namespace ts = tessera::sparse;
namespace fem = tessera::sparse::fem;

template <class Space>
bool run() {
  const double L = 10, b = 1, h = 1, E = 1000, weight = 1;  // weight: rho g per unit volume
  bool ok = true;
  for (int cells : {1, 2}) {
    const auto mesh = fem::box_mesh({.cells = {10 * cells, cells, cells}, .lengths = {L, b, h}, .order = 2});
    fem::ElasticityKernel<fem::P2Tetrahedron> kernel;
    kernel.youngs_modulus = E;
    kernel.poisson_ratio = 0;
    kernel.body_force[2] = -weight;

    fem::Assembler<Space> assembler(mesh, 3);
    assembler.assemble(kernel, fem::AssemblyStrategy::Colouring);
    const auto clamped = fem::nodes_where(mesh, [](const double* x) { return x[0] == 0.0; });
    assembler.apply_dirichlet(fem::node_dofs(clamped, 3), std::vector<double>(clamped.size() * 3, 0.0));
    const ts::CrsMatrix<double> K = assembler.matrix();
    auto f = assembler.rhs();

    ts::Cholesky<double, Space> chol({.ordering = ts::Ordering::Metis});
    chol.analyze(K);
    chol.factorize(K);
    std::vector<double> u(K.num_rows());
    chol.solve(u.data(), f.data(), 1);

    const auto tip = fem::nodes_where(mesh, [L](const double* x) { return std::abs(x[0] - L) < 1e-12; });
    double w = 0;
    for (auto i : tip) w += u[std::size_t(i) * 3 + 2];
    w /= double(tip.size());
    const double q = weight * b * h, I = b * h * h * h / 12, beam = -q * L * L * L * L / (8 * E * I);
    const double G = E / 2, kappa = 5.0 / 6.0, timoshenko = beam - q * L * L / (2 * kappa * G * b * h);
    const double rel = w / beam - 1, rel_t = w / timoshenko - 1;
    const bool pass = std::abs(rel) < 0.03 && std::abs(rel_t) < 0.01;
    ok = ok && pass;
    std::printf(
        "%-8s cantilever %gx%gx%g, %lld P2 tetrahedra, %lld dofs, nnz(L) %.0f: tip deflection %.5f, "
        "Euler-Bernoulli %.5f (%+.2f %%), Timoshenko %.5f (%+.2f %%)%s\n",
        Space::name(), L, b, h, (long long)mesh.num_elements(), (long long)K.num_rows(), chol.stats().nnz_l,
        w, beam, 100 * rel, timoshenko, 100 * rel_t, pass ? "" : "  <-- FAIL (3 % / 1 % allowed)");
  }
  return ok;
}

int main(int argc, char* argv[]) {
  tessera::ScopeGuard guard(argc, argv);
  bool ok = run<tessera::Serial>();
#if TESSERA_ENABLE_THREADS
  ok = run<tessera::Threads>() && ok;
#endif
#if TESSERA_ENABLE_OPENMP
  ok = run<tessera::OpenMP>() && ok;
#endif
  std::printf("%s\n", ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
