// Seeded random streams keyed by (seed, replica, component, index), on Boost.Random.
#pragma once

#include <cstdint>
#include <string_view>

#include <boost/random/independent_bits.hpp>
#include <boost/random/taus88.hpp>

namespace codesim::sim {

/// Identifies one independent stream. `component` names the consumer ("straggler", "crash", ...)
/// and `index` the instance (usually a node id), so adding a component never shifts another's
/// draws.
struct StreamKey {
  std::uint64_t seed = 0;
  std::uint64_t replica = 0;
  std::string_view component;
  std::uint64_t index = 0;
};

/// The generator behind every stream: Boost's taus88 (L'Ecuyer's combined Tausworthe, period
/// about 2^88, 12 bytes of state) widened to 64-bit outputs. The small state matters: a cluster of
/// 20,000 nodes holds two streams per node, and a Mersenne Twister's 2.5 KB each would not fit in
/// cache.
using StreamGenerator = boost::random::independent_bits_engine<boost::random::taus88, 64, std::uint64_t>;

/// A portable random stream: StreamGenerator with Boost distributions (identical on every
/// platform).
class RandomStream {
 public:
  explicit RandomStream(const StreamKey& key);

  /// Uniform on [0, 1).
  double uniform01();
  /// Uniform on [lo, hi).
  double uniform(double lo, double hi);
  /// Uniform integer on [lo, hi] inclusive.
  std::int64_t uniform_int(std::int64_t lo, std::int64_t hi);
  /// Exponential with the given rate (mean 1 / rate); rate > 0.
  double exponential(double rate);
  /// Normal with mean and standard deviation sigma >= 0.
  double normal(double mean, double sigma);
  /// exp(Normal(mu, sigma)).
  double lognormal(double mu, double sigma);
  /// True with probability p in [0, 1].
  bool bernoulli(double p);

  StreamGenerator& generator() { return generator_; }

 private:
  StreamGenerator generator_;
};

/// The 64-bit seed a key maps to (splitmix64 over the fields; FNV-1a over the component name).
std::uint64_t stream_seed(const StreamKey& key);

}  // namespace codesim::sim
