// y^T A x with A = ones(N, M), x = ones(M), y = ones(N): the inner-product
// exercise of the Kokkos tutorials, as a Kokkos program (Kokkos names only).
// Built against Tessera through Tessera::kokkos_compat with no change to this
// file. Result: N * M.
#include <Kokkos_Core.hpp>

#include <cstdio>
#include <cstdlib>

int main(int argc, char* argv[]) {
  Kokkos::initialize(argc, argv);
  {
    const int N = argc > 1 ? std::atoi(argv[1]) : 1000;
    const int M = argc > 2 ? std::atoi(argv[2]) : 1000;
    using ViewVector = Kokkos::View<double*>;
    using ViewMatrix = Kokkos::View<double**>;
    ViewVector y("y", N);
    ViewVector x("x", M);
    ViewMatrix A("A", N, M);
    auto h_y = Kokkos::create_mirror_view(y);
    auto h_x = Kokkos::create_mirror_view(x);
    auto h_A = Kokkos::create_mirror_view(A);
    for (int i = 0; i < N; ++i) h_y(i) = 1;
    for (int j = 0; j < M; ++j) h_x(j) = 1;
    for (int i = 0; i < N; ++i)
      for (int j = 0; j < M; ++j) h_A(i, j) = 1;
    Kokkos::deep_copy(y, h_y);
    Kokkos::deep_copy(x, h_x);
    Kokkos::deep_copy(A, h_A);

    using team_policy = Kokkos::TeamPolicy<>;
    using member_type = team_policy::member_type;
    Kokkos::Timer timer;
    double result = 0;
    Kokkos::parallel_reduce(
        "yAx", team_policy(N, Kokkos::AUTO),
        KOKKOS_LAMBDA(const member_type& team, double& update) {
          const int j = team.league_rank();
          double temp = 0;
          Kokkos::parallel_reduce(
              Kokkos::TeamThreadRange(team, M), [&](const int i, double& inner) { inner += A(j, i) * x(i); }, temp);
          Kokkos::single(Kokkos::PerTeam(team), [&]() { update += y(j) * temp; });
        },
        result);
    Kokkos::fence();
    std::printf("y^T A x = %.0f (expected %.0f) on %s in %.3g s\n", result, double(N) * M,
                Kokkos::DefaultExecutionSpace::name(), timer.seconds());
  }
  Kokkos::finalize();
  return 0;
}
