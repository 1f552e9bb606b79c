#pragma once
// Afforest's "most frequent label among the sampled vertices", and where it
// is computed.
//
// host: the sample is copied to the host and counted in a std::map; the label
// is a host value. device: one reduction finds the label without the host
// (a copy to the host waits for the device; on a GPU that round trip cost
// more than the rest of the sampling step). Both pick the same label.
//
// The host count keeps the first label whose count exceeds the current
// leader's, so among the labels with the largest count it picks the one
// that reached that count first in sample order. The device form gives
// sample position i the rank of s(i) among s(0..i) (how many times the label
// has occurred up to and including i); the largest rank is the largest
// count, and the smallest position holding it is where that count was first
// reached. MaxLoc keeps exactly that (ties go to the smaller position), so
// the two agree on every sample, ties included. The sample is at most 1024
// labels, so the quadratic count is one short kernel.
#include <tessera/core.hpp>

#include <cstdint>

namespace tessera::graph::detail {

enum class AfforestSample { host, device };
template <class Exec>
inline constexpr AfforestSample default_afforest_sample =
    is_host_execution_space<Exec>::value ? AfforestSample::host : AfforestSample::device;

using sample_rank = tessera::ValLocScalar<std::int64_t, std::int64_t>;

// best() = (count of the most frequent label, its first position reaching
// that count); the label is sample(best().loc). Returns without waiting when
// best lives in device memory.
template <class Exec, class V, class S>
void most_frequent_sample_label(const tessera::View<V*, S>& sample,
                                const tessera::View<sample_rank, S>& best) {
  const std::int64_t ns = std::int64_t(sample.extent(0));
  tessera::parallel_reduce(
      "graph::cc::sample_mode", tessera::RangePolicy<Exec>(0, ns),
      TESSERA_LAMBDA(std::int64_t i, sample_rank & b) {
        const V s = sample(i);
        std::int64_t rank = 0;
        for (std::int64_t j = 0; j <= i; ++j) rank += sample(j) == s ? 1 : 0;
        if (rank > b.val || (rank == b.val && i < b.loc)) {
          b.val = rank;
          b.loc = i;
        }
      },
      tessera::MaxLoc<std::int64_t, std::int64_t, S>(best));
}

// The giant label of the finishing pass: a host value, or read from the
// device reduction's result.
template <class V>
struct giant_value {
  V label;
  TESSERA_INLINE_FUNCTION V operator()() const { return label; }
};
template <class SampleView, class BestView>
struct giant_in_view {
  SampleView sample;
  BestView best;
  TESSERA_INLINE_FUNCTION auto operator()() const { return sample(best().loc); }
};

}  // namespace tessera::graph::detail
