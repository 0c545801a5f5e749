// The numeric run's training batches: batch i holds samples i B .. i B + B - 1 of the
// concatenated epochs, each epoch in its own seeded order, so every strategy sees the same
// batches (common random numbers).
#pragma once

#include <array>
#include <cstdint>
#include <utility>
#include <vector>

#include "models/data/dataset.hpp"
#include "models/nn/mlp.hpp"

namespace codesim::models::detail {

class BatchOrder {
 public:
  /// Batches of `batch` samples of `train` (which must outlive this), epoch e in
  /// seeded_permutation order keyed by (seed, replica, "batch_order", e).
  BatchOrder(const Dataset& train, int batch, std::uint64_t seed, std::uint64_t replica)
      : train_(train), batch_(batch), seed_(seed), replica_(replica) {}

  int batch() const { return batch_; }
  /// Batch `iteration`'s samples (features x B) and labels.
  void load(int iteration, Matrix& x0, std::vector<int>& labels);

 private:
  const std::vector<int>& permutation(std::int64_t epoch);

  const Dataset& train_;
  int batch_;
  std::uint64_t seed_;
  std::uint64_t replica_;
  // Two slots: a batch may straddle two epochs.
  std::array<std::pair<std::int64_t, std::vector<int>>, 2> permutations_{{{-1, {}}, {-1, {}}}};
  std::size_t next_slot_ = 0;
};

}  // namespace codesim::models::detail
