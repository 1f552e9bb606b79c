#pragma once
// Tacho (Trilinos 13.2, Debian libtrilinos-shylu-dev) behind a plain-array
// interface, so that Kokkos's headers are compiled in tacho_peer.cpp alone
// and never meet Tessera's in one translation unit.
#include <cstdint>
#include <memory>
#include <vector>

namespace tessera::bench {

class TachoPeer {
 public:
  // Kokkos (Serial, the only back-end Debian's Kokkos 3.4 has) is started
  // once per process, before the first TachoPeer and after the last one.
  static void initialize_kokkos();
  static void finalize_kokkos();

  TachoPeer();
  ~TachoPeer();
  TachoPeer(const TachoPeer&) = delete;
  TachoPeer& operator=(const TachoPeer&) = delete;

  // Symbolic analysis of the full symmetric pattern (both triangles, as in
  // Tessera's CrsMatrix) under the given ordering (perm[new] = old). The
  // values are copied into Tacho's own array here, untimed.
  void analyze(std::int64_t n, const std::int64_t* row_map, const std::int32_t* col_idx, const double* values,
               const std::vector<std::int64_t>& perm);
  void factorize();  // the timed region: Tacho's numeric factorization
  void solve(const double* b, double* x);
  // The ordering Tacho factorized with, perm[new] = old (its symbolic phase may
  // postorder the one it was given).
  std::vector<std::int64_t> permutation() const;
  int num_supernodes() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace tessera::bench
