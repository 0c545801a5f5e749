// Properties every coding scheme must have: exact recovery from any K symbols, detection below K,
// never a silently wrong product, exact encoded updates, regeneration and batched products.
#include <doctest/doctest.h>

#include <algorithm>
#include <bit>
#include <boost/random/uniform_int_distribution.hpp>
#include <boost/random/uniform_real_distribution.hpp>
#include <cmath>
#include <cstring>
#include <limits>
#include <set>

#include "models/coding/coding_scheme.hpp"
#include "tests/models/coding/scheme_test_support.hpp"

namespace codesim::models {
namespace {

using testing::clean_symbols;
using testing::exact_product;
using testing::random_input;
using testing::random_matrix;
using testing::relative_error;
using testing::small_configs;
using testing::SmallConfig;

constexpr Direction kDirections[] = {Direction::forward, Direction::backward};

const char* direction_name(Direction dir) {
  return dir == Direction::forward ? "forward" : "backward";
}

// One independently decoded codeword: its symbols and how many of them it needs.
struct Codeword {
  std::vector<int> symbols;
  int dimension = 0;
};

// Replication and uncoded decode each block row (column) on its own; the others decode one code.
std::vector<Codeword> codewords_of(const SmallConfig& config, const CodingScheme& scheme,
                                   Direction dir) {
  const SchemeSpec& spec = config.spec;
  const int count = scheme.symbol_count(dir);
  if (repetition_copies(spec) > 0) {
    const int blocks = dir == Direction::forward ? block_grid(spec).first : block_grid(spec).second;
    std::vector<Codeword> words(blocks);
    for (int s = 0; s < count; ++s) {
      words[s % blocks].symbols.push_back(s);
      words[s % blocks].dimension = 1;
    }
    return words;
  }
  Codeword word;
  for (int s = 0; s < count; ++s) word.symbols.push_back(s);
  const SchemeSummary summary = scheme.summary();
  word.dimension = dir == Direction::forward ? summary.forward.recovery_threshold
                                             : summary.backward.recovery_threshold;
  return {word};
}

std::unique_ptr<CodingScheme> encoded_scheme(const SmallConfig& config, std::uint64_t seed,
                                             Matrix* weights) {
  auto scheme = make_scheme(config.spec, config.rows, config.cols);
  *weights = random_matrix(config.rows, config.cols, seed);
  scheme->encode(*weights);
  return scheme;
}

bool next_subset(std::vector<int>& combo, int n) {
  const auto t = static_cast<int>(combo.size());
  int i = t - 1;
  while (i >= 0 && combo[i] == n - t + i) --i;
  if (i < 0) return false;
  ++combo[i];
  for (int j = i + 1; j < t; ++j) combo[j] = combo[j - 1] + 1;
  return true;
}

TEST_CASE(
    "every coded scheme decodes from every K-subset of symbols and detects every smaller one") {
  for (const auto& config : small_configs()) {
    if (repetition_copies(config.spec) > 0) continue;
    Matrix weights;
    const auto scheme = encoded_scheme(config, 11, &weights);
    for (Direction dir : kDirections) {
      CAPTURE(config.name);
      CAPTURE(direction_name(dir));
      const Matrix input = random_input(config, dir, 2, 12);
      const Matrix expected = exact_product(weights, dir, input);
      const auto symbols = clean_symbols(*scheme, dir, input);
      const int count = scheme->symbol_count(dir);
      const int needed = codewords_of(config, *scheme, dir).front().dimension;
      for (int size : {needed, needed - 1}) {
        if (size < 1) continue;
        std::vector<int> subset(size);
        for (int i = 0; i < size; ++i) subset[i] = i;
        int subsets = 0;
        do {
          std::vector<std::optional<Matrix>> present(count);
          for (int s : subset) present[s] = symbols[s];
          const ProductDecode decoded = scheme->decode(dir, present, DecodeOptions{});
          if (size == needed) {
            REQUIRE(decoded.status == DecodeStatus::clean);
            REQUIRE(relative_error(decoded.product, expected) < 1e-9);
            REQUIRE(decoded.condition_number >= 1.0);
          } else {
            REQUIRE(decoded.status == DecodeStatus::detected);
            REQUIRE(decoded.product.size() == 0);
          }
          ++subsets;
        } while (next_subset(subset, count));
        CHECK(subsets > 0);
      }
    }
  }
}

TEST_CASE("replication and uncoded decode exactly when every block has a copy") {
  for (const auto& config : small_configs()) {
    if (repetition_copies(config.spec) == 0) continue;
    Matrix weights;
    const auto scheme = encoded_scheme(config, 21, &weights);
    for (Direction dir : kDirections) {
      CAPTURE(config.name);
      CAPTURE(direction_name(dir));
      const Matrix input = random_input(config, dir, 1, 22);
      const Matrix expected = exact_product(weights, dir, input);
      const auto symbols = clean_symbols(*scheme, dir, input);
      const int count = scheme->symbol_count(dir);
      const auto words = codewords_of(config, *scheme, dir);
      for (int mask = 0; mask < (1 << count); ++mask) {
        std::vector<std::optional<Matrix>> present(count);
        for (int s = 0; s < count; ++s) {
          if (mask & (1 << s)) present[s] = symbols[s];
        }
        const bool complete = std::all_of(words.begin(), words.end(), [&](const Codeword& w) {
          return std::any_of(w.symbols.begin(), w.symbols.end(),
                             [&](int s) { return (mask & (1 << s)) != 0; });
        });
        const ProductDecode decoded = scheme->decode(dir, present, DecodeOptions{});
        if (complete) {
          REQUIRE(decoded.status == DecodeStatus::clean);
          REQUIRE(relative_error(decoded.product, expected) < 1e-12);
        } else {
          REQUIRE(decoded.status == DecodeStatus::detected);
        }
      }
    }
  }
}

// A seeded source of fault patterns for the randomized trials.
class FaultDice {
 public:
  explicit FaultDice(std::uint64_t seed) : engine_(seed) {}
  int integer(int low, int high) {
    return boost::random::uniform_int_distribution<int>(low, high)(engine_);
  }
  double real(double low, double high) {
    return boost::random::uniform_real_distribution<double>(low, high)(engine_);
  }
  double gaussian() { return random_matrix(1, 1, engine_())(0, 0); }
  // k distinct values from `values`, in random order.
  std::vector<int> choose(std::vector<int> values, int k) {
    for (int i = 0; i < k; ++i)
      std::swap(values[i], values[integer(i, static_cast<int>(values.size()) - 1)]);
    values.resize(k);
    return values;
  }

 private:
  boost::random::mt19937_64 engine_;
};

enum class FaultKind { bit_flip, nan, inf, huge, noise, sparse, replaced, count };

// Corrupts a partial result in place; the matrix is never left unchanged. Bit flips within one
// trial hit distinct (entry, bit) pairs: two replicas flipped identically are aligned errors,
// which no decoder that corrects can tell from a majority.
void corrupt(Matrix& partial, FaultKind kind, FaultDice& dice,
             std::set<std::pair<Eigen::Index, int>>& used_flips) {
  const double scale = std::max(partial.cwiseAbs().maxCoeff(), 1e-300);
  const auto entry = [&]() -> double& {
    return partial(dice.integer(0, static_cast<int>(partial.rows()) - 1),
                   dice.integer(0, static_cast<int>(partial.cols()) - 1));
  };
  switch (kind) {
    case FaultKind::bit_flip: {
      Eigen::Index index = 0;
      int bit = 0;
      do {
        index = dice.integer(0, static_cast<int>(partial.size()) - 1);
        bit = dice.integer(0, 63);
      } while (!used_flips.emplace(index, bit).second);
      double& value = partial.data()[index];
      value =
          std::bit_cast<double>(std::bit_cast<std::uint64_t>(value) ^ (std::uint64_t{1} << bit));
      break;
    }
    case FaultKind::nan:
      entry() = std::numeric_limits<double>::quiet_NaN();
      break;
    case FaultKind::inf:
      entry() = dice.integer(0, 1) ? std::numeric_limits<double>::infinity()
                                   : -std::numeric_limits<double>::infinity();
      break;
    case FaultKind::huge:
      entry() = dice.integer(0, 1) ? 1e300 : -1e300;
      break;
    case FaultKind::noise: {
      const double size = scale * std::pow(10.0, dice.real(-8.0, 3.0));
      for (Eigen::Index i = 0; i < partial.size(); ++i) partial.data()[i] += size * dice.gaussian();
      break;
    }
    case FaultKind::sparse: {
      entry() += 5.0 * dice.real(-1.0, 1.0) * scale;
      for (Eigen::Index i = 0; i < partial.size(); ++i) {
        if (dice.real(0.0, 1.0) < 0.3) partial.data()[i] += 5.0 * dice.real(-1.0, 1.0) * scale;
      }
      break;
    }
    default:
      for (Eigen::Index i = 0; i < partial.size(); ++i) partial.data()[i] = scale * dice.gaussian();
      break;
  }
}

struct TrialTally {
  int corrected = 0;
  int detected = 0;
  int trials = 0;
};

// One randomized trial: per codeword, erasures and errors drawn by `budget(redundancy)`; checks
// that a correctable pattern is corrected and that an accepted product is never wrong.
template <typename Budget>
void run_trial(const SmallConfig& config, CodingScheme& scheme, const Matrix& weights,
               Direction dir, FaultDice& dice, ErrorModel model, bool gross_only,
               const Budget& budget, TrialTally& tally) {
  const auto words = codewords_of(config, scheme, dir);
  std::vector<int> erased_symbols;
  std::vector<int> wrong_symbols;
  bool correctable = true;
  for (const auto& word : words) {
    const int redundancy = static_cast<int>(word.symbols.size()) - word.dimension;
    const auto [erasures, errors, within_correction] = budget(redundancy, dice);
    correctable = correctable && within_correction;
    const auto picked = dice.choose(word.symbols, erasures + errors);
    erased_symbols.insert(erased_symbols.end(), picked.begin(), picked.begin() + erasures);
    wrong_symbols.insert(wrong_symbols.end(), picked.begin() + erasures, picked.end());
  }
  // Node-level faults: one member of each erased symbol drops out; a random non-empty subset of
  // each wrong symbol's members is corrupted.
  std::vector<int> dropped;
  std::vector<std::pair<int, FaultKind>> faults;
  std::vector<int> wrong_members;
  for (int s : erased_symbols) {
    const auto members = scheme.symbol_members(dir, s);
    dropped.push_back(members[dice.integer(0, static_cast<int>(members.size()) - 1)]);
  }
  for (int s : wrong_symbols) {
    const auto members = scheme.symbol_members(dir, s);
    wrong_members.insert(wrong_members.end(), members.begin(), members.end());
    const int how_many = dice.integer(1, static_cast<int>(members.size()));
    for (int node : dice.choose(members, how_many)) {
      const int kinds = static_cast<int>(FaultKind::count);
      FaultKind kind = static_cast<FaultKind>(dice.integer(0, kinds - 1));
      if (gross_only) kind = dice.integer(0, 1) ? FaultKind::replaced : FaultKind::noise;
      faults.emplace_back(node, kind);
    }
  }
  const int batch = dice.integer(1, 3);
  const Matrix input = random_input(config, dir, batch, dice.integer(0, 1 << 30));
  const Matrix expected = exact_product(weights, dir, input);
  DecodeOptions options;
  options.error_model = model;
  std::set<std::pair<Eigen::Index, int>> used_flips;
  const ProductDecode decoded =
      compute_and_decode(scheme, dir, input, options, [&](int node, Matrix& partial) {
        if (std::find(dropped.begin(), dropped.end(), node) != dropped.end()) return false;
        for (const auto& [faulty, kind] : faults) {
          if (faulty != node) continue;
          if (gross_only && kind == FaultKind::noise) {
            partial.array() += partial.cwiseAbs().maxCoeff() * (1.0 + dice.real(0.0, 1.0));
          } else {
            corrupt(partial, kind, dice, used_flips);
          }
        }
        return true;
      });
  ++tally.trials;
  if (decoded.status == DecodeStatus::detected) {
    ++tally.detected;
    REQUIRE_MESSAGE(!correctable, "a correctable pattern was only detected");
    return;
  }
  // Never silently wrong: an accepted product is right.
  CAPTURE(wrong_symbols.size());
  CAPTURE(erased_symbols.size());
  REQUIRE(relative_error(decoded.product, expected) < 1e-9);
  if (wrong_symbols.empty()) REQUIRE(decoded.status == DecodeStatus::clean);
  if (decoded.status == DecodeStatus::corrected) ++tally.corrected;
  // Blame is exact when every error is gross; an error near the round-off threshold (a low bit
  // flip, faint noise) may stay unblamed and shift the blame to a healthy symbol.
  const bool subtle =
      !gross_only && std::any_of(faults.begin(), faults.end(), [](const auto& fault) {
        return fault.second == FaultKind::bit_flip || fault.second == FaultKind::noise;
      });
  if (subtle) return;
  for (int node : decoded.blamed_nodes) {
    REQUIRE(std::find(wrong_members.begin(), wrong_members.end(), node) != wrong_members.end());
  }
  for (const auto& fault : faults) {
    REQUIRE(std::find(decoded.blamed_nodes.begin(), decoded.blamed_nodes.end(), fault.first) !=
            decoded.blamed_nodes.end());
  }
}

struct Draw {
  int erasures;
  int errors;
  bool within_correction;
};

TEST_CASE(
    "adversarial decoding corrects within the bound and is never silently wrong within detection") {
  // Per codeword: e errors and f erasures with 2e + f <= redundancy (correctable) or
  // e + f <= redundancy (detectable); values include bit flips, NaN, Inf, 1e300 and noise at
  // random positions. (With correction on, detection of e > ceil(r / 2) errors is guaranteed only
  // for errors that are not aligned with a codeword, e.g. not identical in a majority of replicas;
  // random positions and values make such alignment improbable.)
  const auto budget = [](int redundancy, FaultDice& dice) {
    const int erasures = dice.integer(0, redundancy);
    const int left = redundancy - erasures;
    if (dice.integer(0, 1) == 0) return Draw{erasures, dice.integer(0, left / 2), true};
    const int errors = dice.integer(0, left);
    return Draw{erasures, errors, 2 * errors + erasures <= redundancy};
  };
  int index = 0;
  for (const auto& config : small_configs()) {
    CAPTURE(config.name);
    Matrix weights;
    const auto scheme = encoded_scheme(config, 31 + index, &weights);
    FaultDice dice(1000 + index++);
    TrialTally tally;
    for (int trial = 0; trial < 3000; ++trial) {
      const Direction dir = kDirections[trial % 2];
      run_trial(config, *scheme, weights, dir, dice, ErrorModel::adversarial, false, budget, tally);
    }
    CHECK(tally.trials == 3000);
    // The trials must exercise all outcomes where the code has redundancy.
    if (!std::holds_alternative<UncodedSpec>(config.spec)) {
      CHECK(tally.corrected > 50);
      CHECK(tally.detected > 20);
    }
  }
}

TEST_CASE("random-valued errors are corrected up to the redundancy minus one") {
  // Per codeword: e random-valued errors and f erasures with e + f <= redundancy - 1.
  const auto budget = [](int redundancy, FaultDice& dice) {
    if (redundancy < 1) return Draw{0, 0, true};
    const int erasures = dice.integer(0, redundancy - 1);
    return Draw{erasures, dice.integer(0, redundancy - 1 - erasures), true};
  };
  int index = 0;
  for (const auto& config : small_configs()) {
    CAPTURE(config.name);
    Matrix weights;
    const auto scheme = encoded_scheme(config, 41 + index, &weights);
    FaultDice dice(2000 + index++);
    TrialTally tally;
    for (int trial = 0; trial < 2000; ++trial) {
      const Direction dir = kDirections[trial % 2];
      run_trial(config, *scheme, weights, dir, dice, ErrorModel::random, true, budget, tally);
    }
    CHECK(tally.detected == 0);
    if (repetition_copies(config.spec) == 0) {
      CHECK(tally.corrected > 100);
    }
  }
}

TEST_CASE("a thousand encoded updates leave the blocks equal to a fresh encoding") {
  int index = 0;
  for (const auto& config : small_configs()) {
    CAPTURE(config.name);
    Matrix weights;
    const auto scheme = encoded_scheme(config, 51 + index, &weights);
    boost::random::mt19937_64 seeds(3000 + index++);
    for (int step = 0; step < 1000; ++step) {
      const int batch = 1 + step % 3;
      const Matrix delta = random_matrix(config.rows, batch, seeds());
      const Matrix input = random_matrix(config.cols, batch, seeds());
      const double eta = 0.01;
      for (int node = 0; node < scheme->node_count(); ++node) {
        scheme->update(node, delta, input, eta);
      }
      weights += eta * delta * input.transpose();
    }
    const auto fresh = make_scheme(config.spec, config.rows, config.cols);
    fresh->encode(weights);
    for (int node = 0; node < scheme->node_count(); ++node) {
      const auto updated = scheme->stored_blocks(node);
      const auto expected = fresh->stored_blocks(node);
      REQUIRE(updated.size() == expected.size());
      for (std::size_t b = 0; b < updated.size(); ++b) {
        REQUIRE(relative_error(updated[b], expected[b]) < 1e-10);
      }
    }
    CHECK(relative_error(scheme->decode_weights(), weights) < 1e-10);
    // The updated blocks still decode clean.
    for (Direction dir : kDirections) {
      const Matrix input = random_input(config, dir, 2, 77);
      const ProductDecode decoded = compute_and_decode(*scheme, dir, input, DecodeOptions{});
      CHECK(decoded.status == DecodeStatus::clean);
      CHECK(relative_error(decoded.product, exact_product(weights, dir, input)) < 1e-9);
    }
  }
}

TEST_CASE("regeneration restores every corrupted block to round-off") {
  int index = 0;
  for (const auto& config : small_configs()) {
    CAPTURE(config.name);
    Matrix weights;
    const auto scheme = encoded_scheme(config, 61 + index++, &weights);
    for (int node = 0; node < scheme->node_count(); ++node) {
      CAPTURE(node);
      std::vector<Matrix> originals;
      for (BlockRef block : scheme->stored_blocks(node)) {
        originals.push_back(block);
        block +=
            random_matrix(static_cast<int>(block.rows()), static_cast<int>(block.cols()), node + 5);
      }
      const std::vector<int> exclude = {node};
      const auto sources = scheme->regeneration_sources(node, exclude);
      if (std::holds_alternative<UncodedSpec>(config.spec)) {
        CHECK(sources.empty());
        CHECK_FALSE(scheme->regenerate(node, sources));
        for (std::size_t b = 0; b < originals.size(); ++b)
          scheme->stored_blocks(node)[b] = originals[b];
        continue;
      }
      REQUIRE_FALSE(sources.empty());
      CHECK(std::find(sources.begin(), sources.end(), node) == sources.end());
      REQUIRE(scheme->regenerate(node, sources));
      const auto blocks = scheme->stored_blocks(node);
      for (std::size_t b = 0; b < blocks.size(); ++b) {
        CHECK(relative_error(blocks[b], originals[b]) < 1e-12);
      }
      // One source fewer than the code needs cannot determine the block (MDS reads every
      // healthy node; k of them determine it).
      std::size_t needed = sources.size();
      if (const auto* mds = std::get_if<MdsSpec>(&config.spec))
        needed = static_cast<std::size_t>(mds->k);
      std::vector<int> fewer(sources.begin(), sources.begin() + static_cast<long>(needed) - 1);
      if (!std::holds_alternative<CodenetGridSpec>(config.spec))
        CHECK_FALSE(scheme->regenerate(node, fewer));
    }
    CHECK(relative_error(scheme->decode_weights(), weights) < 1e-12);
  }
}

TEST_CASE("a batched product equals the products of its columns") {
  int index = 0;
  for (const auto& config : small_configs()) {
    CAPTURE(config.name);
    Matrix weights;
    const auto scheme = encoded_scheme(config, 71 + index++, &weights);
    for (Direction dir : kDirections) {
      const Matrix input = random_input(config, dir, 5, 72);
      const ProductDecode batched = compute_and_decode(*scheme, dir, input, DecodeOptions{});
      REQUIRE(batched.status == DecodeStatus::clean);
      REQUIRE(batched.product.cols() == 5);
      for (int b = 0; b < 5; ++b) {
        const ProductDecode single =
            compute_and_decode(*scheme, dir, input.col(b), DecodeOptions{});
        REQUIRE(single.status == DecodeStatus::clean);
        CHECK(relative_error(batched.product.col(b), single.product) < 1e-12);
      }
      CHECK(relative_error(batched.product, exact_product(weights, dir, input)) < 1e-10);
    }
  }
}

TEST_CASE("summaries agree with the codes the schemes build") {
  for (const auto& config : small_configs()) {
    CAPTURE(config.name);
    const auto scheme = make_scheme(config.spec, config.rows, config.cols);
    const SchemeSummary summary = scheme->summary();
    const SchemeSummary unbuilt = summarize_scheme(config.spec, config.rows, config.cols);
    CHECK(summary.nodes == unbuilt.nodes);
    CHECK(summary.scheme == scheme_name(config.spec));
    CHECK(scheme->node_count() == summary.nodes);
    for (Direction dir : kDirections) {
      const DirectionCapability& capability =
          dir == Direction::forward ? summary.forward : summary.backward;
      const auto words = codewords_of(config, *scheme, dir);
      // Worst case over codewords, for one erroneous node per symbol.
      const auto& word = words.front();
      const LinearCode shape(
          Matrix::Identity(static_cast<int>(word.symbols.size()), word.dimension));
      CHECK(capability.correctable_adversarial ==
            shape.correctable_errors(ErrorModel::adversarial));
      CHECK(capability.correctable_random == shape.correctable_errors(ErrorModel::random));
      CHECK(capability.detectable == shape.detectable_errors());
      // Every participant sends one partial result of the symbol's length.
      const Matrix input = random_input(config, dir, 1, 5);
      const auto symbols = clean_symbols(*scheme, dir, input);
      CHECK(capability.elements_sent_per_node == doctest::Approx(symbols.front()->size()));
      CHECK(capability.elements_received_per_node ==
            doctest::Approx(symbols.front()->size() * symbols.size()));
      std::size_t stored = 0;
      for (int node = 0; node < scheme->node_count(); ++node) {
        for (const BlockRef& block : scheme->stored_blocks(node)) stored += block.size();
      }
      CHECK(summary.redundancy ==
            doctest::Approx(static_cast<double>(stored) / (config.rows * config.cols)));
      CHECK(summary.storage_fraction_per_node * config.rows * config.cols ==
            doctest::Approx(static_cast<double>(stored) / summary.nodes));
    }
  }
}

}  // namespace
}  // namespace codesim::models
