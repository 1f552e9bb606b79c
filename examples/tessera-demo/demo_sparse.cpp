// Rows of the sparse package: a 3-D Laplacian factorized and solved on the
// task DAG and on level sets, with its backward error and GFLOP/s, and the
// shared SPD and indefinite matrices when the data folder is there. Sparse
// solvers run on host back-ends only.
#include "demo.hpp"

#include <tessera/sparse.hpp>

#include <algorithm>
#include <cmath>
#include <vector>

using tessera_demo::Check;
using tessera_demo::format;
namespace ts = tessera::sparse;

namespace {

// ||b - A x||_inf / (||A||_inf ||x||_inf + ||b||_inf)
double backward_error(const ts::CrsMatrix<double>& A, const std::vector<double>& x, const std::vector<double>& b) {
  std::vector<double> ax(x.size());
  A.multiply(x.data(), ax.data());
  double r = 0, xn = 0, bn = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    r = std::max(r, std::abs(b[i] - ax[i]));
    xn = std::max(xn, std::abs(x[i]));
    bn = std::max(bn, std::abs(b[i]));
  }
  return r / (A.norm_inf() * xn + bn);
}

template <class Space>
Check factor_and_solve(const ts::CrsMatrix<double>& A, ts::Options opt) {
  ts::Cholesky<double, Space> chol(opt);
  chol.factorize(A);
  std::vector<double> ones(A.num_rows(), 1.0), b(A.num_rows()), x(A.num_rows());
  A.multiply(ones.data(), b.data());
  chol.solve(x.data(), b.data(), 1);
  const double be = backward_error(A, x, b);
  const auto& st = chol.stats();
  std::string what = format("n %lld, nnz(L) %.3g, backward error %.1e", (long long)A.num_rows(), st.nnz_l, be);
  if (opt.factorization == ts::Factorization::LDLt)
    what += format(", inertia (+%lld, -%lld, 0:%lld)", (long long)st.inertia.positive, (long long)st.inertia.negative,
                   (long long)st.inertia.zero);
  return Check{be <= 1e-12, what, st.factorize_seconds, format("%.1f GFLOP/s", st.flops / st.factorize_seconds * 1e-9)};
}

template <class Space>
void sparse_rows(tessera_demo::Report& report, const tessera_demo::Context& ctx) {
  if constexpr (tessera::is_host_execution_space<Space>::value) {
    const int nx = ctx.quick ? 16 : 40;
    const auto A = ts::laplacian_3d<double>(nx);
    for (auto sch : {ts::Scheduler::Tasks, ts::Scheduler::LevelSet}) {
      report.run<Space>("sparse", format("Cholesky of lap3d:%d, METIS, %s (factorize time)", nx, ts::to_string(sch)), [&] {
        ts::Options opt;
        opt.scheduler = sch;
        return factor_and_solve<Space>(A, opt);
      });
    }
    if (ctx.have_data()) {
      report.run<Space>("sparse", "Cholesky of bcsstk13 (structural, cond 1e10)", [&] {
        return factor_and_solve<Space>(ts::read_matrix_market<double>((ctx.data_dir / "matrices/bcsstk13.mtx").string()), {});
      });
      report.run<Space>("sparse", "LDL^T of hangGlider_2 (indefinite, 733 zero diagonals)", [&] {
        ts::Options opt;
        opt.factorization = ts::Factorization::LDLt;
        return factor_and_solve<Space>(ts::read_matrix_market<double>((ctx.data_dir / "matrices/hangGlider_2.mtx").string()), opt);
      });
    }
  }
}

}  // namespace

void run_sparse(tessera_demo::Report& report, const tessera_demo::Context& ctx) {
  tessera_demo::for_each_space([&]<class Space>() { sparse_rows<Space>(report, ctx); });
}
