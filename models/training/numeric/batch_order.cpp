// The training batches in their seeded epoch orders.
#include "models/training/numeric/batch_order.hpp"

#include "sim/random_stream.hpp"

namespace codesim::models::detail {

void BatchOrder::load(int iteration, Matrix& x0, std::vector<int>& labels) {
  const int n = train_.samples();
  x0.resize(train_.features(), batch_);
  labels.resize(static_cast<std::size_t>(batch_));
  for (int b = 0; b < batch_; ++b) {
    const std::int64_t k = static_cast<std::int64_t>(iteration) * batch_ + b;
    const std::int64_t epoch = k / n;
    const int position = static_cast<int>(k % n);
    const std::vector<int>& order = permutation(epoch);
    const int sample = order[static_cast<std::size_t>(position)];
    x0.col(b) = train_.images.col(sample);
    labels[static_cast<std::size_t>(b)] = train_.labels[static_cast<std::size_t>(sample)];
  }
}

const std::vector<int>& BatchOrder::permutation(std::int64_t epoch) {
  for (auto& [cached_epoch, order] : permutations_)
    if (cached_epoch == epoch) return order;
  const std::uint64_t key =
      sim::stream_seed({seed_, replica_, "batch_order", static_cast<std::uint64_t>(epoch)});
  permutations_[next_slot_] = {epoch, seeded_permutation(train_.samples(), key)};
  const std::size_t used = next_slot_;
  next_slot_ = 1 - next_slot_;
  return permutations_[used].second;
}

}  // namespace codesim::models::detail
