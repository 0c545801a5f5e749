// RandomStream: key hashing and thin wrappers over Boost.Random distributions.
#include "sim/random_stream.hpp"

#include <boost/random/bernoulli_distribution.hpp>
#include <boost/random/exponential_distribution.hpp>
#include <boost/random/lognormal_distribution.hpp>
#include <boost/random/normal_distribution.hpp>
#include <boost/random/uniform_01.hpp>
#include <boost/random/uniform_int_distribution.hpp>
#include <boost/random/uniform_real_distribution.hpp>

#include <array>
#include <cmath>

#include "sim/check.hpp"

namespace codesim::sim {
namespace {
std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

std::uint64_t fnv1a(std::string_view text) {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (unsigned char c : text) h = (h ^ c) * 0x100000001b3ULL;
  return h;
}
}  // namespace

std::uint64_t stream_seed(const StreamKey& key) {
  std::uint64_t h = splitmix64(key.seed);
  h = splitmix64(h ^ key.replica);
  h = splitmix64(h ^ fnv1a(key.component));
  return splitmix64(h ^ key.index);
}

RandomStream::RandomStream(const StreamKey& key) {
  // One 32-bit word per Tausworthe component, all drawn from the key's 64-bit seed.
  std::uint64_t state = stream_seed(key);
  std::array<std::uint32_t, 3> words{};
  for (auto& word : words) word = static_cast<std::uint32_t>((state = splitmix64(state)) >> 32);
  auto first = words.begin();
  generator_.seed(first, words.end());
}

double RandomStream::uniform01() { return boost::random::uniform_01<double>{}(generator_); }

double RandomStream::uniform(double lo, double hi) {
  return boost::random::uniform_real_distribution<double>(lo, hi)(generator_);
}

std::int64_t RandomStream::uniform_int(std::int64_t lo, std::int64_t hi) {
  return boost::random::uniform_int_distribution<std::int64_t>(lo, hi)(generator_);
}

double RandomStream::exponential(double rate) {
  CODESIM_CHECK(rate > 0.0, "exponential rate must be positive");
  return boost::random::exponential_distribution<double>(rate)(generator_);
}

double RandomStream::normal(double mean, double sigma) {
  if (sigma == 0.0) return mean;
  return boost::random::normal_distribution<double>(mean, sigma)(generator_);
}

double RandomStream::lognormal(double mu, double sigma) {
  // Boost's lognormal_distribution takes (m, s) of the underlying normal.
  if (sigma == 0.0) return std::exp(mu);
  return boost::random::lognormal_distribution<double>(mu, sigma)(generator_);
}

bool RandomStream::bernoulli(double p) {
  if (p <= 0.0) return false;
  if (p >= 1.0) return true;
  return uniform01() < p;
}

}  // namespace codesim::sim
