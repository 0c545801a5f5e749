// ABFT overhead: each node's products through its augmented block (3 checksum rows and columns)
// against the same products on a plain copy of its share, the node's check of its partial, and
// the checksummed rank-B update against a plain one. The overhead is a difference of two long
// times on a shared machine, so the two sides run interleaved node by node (alternating which goes
// first) and
// the fraction is the median of the per-repetition differences over the median plain time.
#include "bench/abft_overhead_bench.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <iomanip>
#include <memory>
#include <ostream>
#include <sstream>

#include "bench/bench_timing.hpp"
#include "models/coding/scheme_spec.hpp"

namespace codesim::bench {
namespace {

using models::Direction;
using models::Matrix;
using Clock = std::chrono::steady_clock;

struct AbftConfig {
  std::string name;
  int m = 1;
  int n = 1;
  int rows = 0;
  int cols = 0;
};

std::vector<AbftConfig> abft_configs(bool quick) {
  if (quick) return {{"abft 1x1", 1, 1, 1024, 1024}, {"abft 5x4", 5, 4, 1020, 1020}};
  // The paper's CodeNet layer (10000 x 10000 on a 5x4 grid) gives 2000 x 2500 blocks: one node's
  // block is the 1x1 grid of that shape (the whole layer would need 0.8 GB per copy).
  return {{"abft 1x1", 1, 1, 4096, 4096},
          {"abft 5x4", 5, 4, 4080, 4080},
          {"abft paper block", 1, 1, 2000, 2500}};
}

// Linear interpolation between order statistics; `values` non-empty.
double quantile(std::vector<double> values, double q) {
  std::sort(values.begin(), values.end());
  const double position = q * static_cast<double>(values.size() - 1);
  const auto below = static_cast<std::size_t>(std::floor(position));
  const std::size_t above = std::min(below + 1, values.size() - 1);
  return values[below] + (position - static_cast<double>(below)) * (values[above] - values[below]);
}

// Interleaved timings of a baseline and the same work with something added.
struct Paired {
  std::vector<double> base_s;
  std::vector<double> test_s;

  std::vector<double> after_s;  // what runs right after each test, timed apart (may be empty)

  // One repetition: the baseline and the test of every node (work(node)), alternating which runs
  // first from node to node and from repetition to repetition, so that each pair is timed within
  // a few milliseconds and the machine's slow phases hit both sides alike. `after_test`, when
  // given, runs right after each test (on its warm output, as a node would) and is timed apart.
  void run(int repetition, std::size_t nodes, const std::function<void(std::size_t)>& base,
           const std::function<void(std::size_t)>& test,
           const std::function<void(std::size_t)>& after_test = {}) {
    const auto timed = [](const std::function<void(std::size_t)>& work, std::size_t node) {
      const auto start = Clock::now();
      work(node);
      return seconds_since(start);
    };
    double base_total = 0.0;
    double test_total = 0.0;
    double after_total = 0.0;
    for (std::size_t node = 0; node < nodes; ++node) {
      const bool base_first = (static_cast<std::size_t>(repetition) + node) % 2 == 0;
      if (base_first) base_total += timed(base, node);
      test_total += timed(test, node);
      if (after_test) after_total += timed(after_test, node);
      if (!base_first) base_total += timed(base, node);
    }
    base_s.push_back(base_total);
    test_s.push_back(test_total);
    if (after_test) after_s.push_back(after_total);
  }
  std::vector<double> ratios() const {
    std::vector<double> out;
    for (std::size_t i = 0; i < base_s.size(); ++i) out.push_back(test_s[i] / base_s[i] - 1.0);
    return out;
  }
  // Median of the paired differences over the median baseline.
  double fraction() const {
    std::vector<double> differences;
    for (std::size_t i = 0; i < base_s.size(); ++i) differences.push_back(test_s[i] - base_s[i]);
    return median(differences) / median(base_s);
  }
  // Fastest over fastest: the time each side takes when nothing else runs (preemption on a busy
  // machine only ever adds time), a steadier estimate than the medians there.
  double min_fraction() const {
    return *std::min_element(test_s.begin(), test_s.end()) /
               *std::min_element(base_s.begin(), base_s.end()) -
           1.0;
  }
  double noise() const { return 0.5 * (quantile(ratios(), 0.75) - quantile(ratios(), 0.25)); }
};

// One node's share: its grid position and a plain copy of its block.
struct NodeShare {
  int node = 0;
  Eigen::Index row_first = 0;  // of W's rows (the backward input's, the forward output's)
  Eigen::Index col_first = 0;  // of W's columns (the forward input's)
  Matrix plain;
};

struct Setup {
  std::unique_ptr<models::CodingScheme> scheme;
  models::DenseKernels kernels;
  std::vector<NodeShare> shares;
  Eigen::Index height = 0;
  Eigen::Index width = 0;
};

Setup make_setup(const AbftConfig& config, models::Arithmetic arithmetic) {
  Setup setup{models::make_scheme(models::abft_spec(config.m, config.n), config.rows, config.cols,
                                  arithmetic),
              models::DenseKernels(arithmetic),
              {},
              config.rows / config.m,
              config.cols / config.n};
  setup.scheme->encode(Matrix::Random(config.rows, config.cols));
  for (int node = 0; node < config.m * config.n; ++node) {
    NodeShare share;
    share.node = node;
    share.row_first = (node / config.n) * setup.height;
    share.col_first = (node % config.n) * setup.width;
    share.plain = setup.scheme->stored_blocks(node)[0].topLeftCorner(setup.height, setup.width);
    setup.shares.push_back(std::move(share));
  }
  return setup;
}

std::string worse(const std::string& a, models::DecodeStatus status) {
  const std::string b = status == models::DecodeStatus::clean       ? "clean"
                        : status == models::DecodeStatus::corrected ? "corrected"
                                                                    : "detected";
  const auto rank = [](const std::string& s) {
    return s == "clean" ? 0 : s == "corrected" ? 1 : 2;
  };
  return rank(b) > rank(a) ? b : a;
}

// Products (plain and augmented), checks and, forward, updates of every node, `repetitions`
// times after one unmeasured warm-up.
AbftOverheadCase run_case(const AbftConfig& config, Setup& setup, int batch, Direction dir,
                          int repetitions) {
  const bool forward = dir == Direction::forward;
  const Matrix x = Matrix::Random(config.cols, batch);  // forward input
  const Matrix d = Matrix::Random(config.rows, batch);  // backward input (the deltas)
  const double eta = 1e-9;                              // keeps W where it was
  const auto node_input = [&](const NodeShare& s) -> Eigen::Ref<const Matrix> {
    return forward ? x.middleRows(s.col_first, setup.width)
                   : d.middleRows(s.row_first, setup.height);
  };
  std::vector<Matrix> partials(setup.shares.size());
  Matrix plain_out;
  Paired products, updates, warm_up;  // the warm-up's times are dropped
  std::string status = "clean";
  for (int rep = -1; rep < repetitions; ++rep) {
    Paired& into = rep < 0 ? warm_up : products;
    const NodeShare* shares = setup.shares.data();
    into.run(
        rep + 1, setup.shares.size(),
        [&](std::size_t i) {
          plain_out =
              forward ? setup.kernels.product(shares[i].plain, node_input(shares[i]))
                      : setup.kernels.transposed_product(shares[i].plain, node_input(shares[i]));
        },
        [&](std::size_t i) {
          partials[i] = setup.scheme->multiply(shares[i].node, dir, node_input(shares[i]));
        },
        [&](std::size_t i) {
          const models::PartialCheck check = setup.scheme->check_partial(
              shares[i].node, dir, partials[i], models::DecodeOptions{});
          status = worse(status, check.status);
        });
    if (!forward) continue;
    Paired& update_into = rep < 0 ? warm_up : updates;
    update_into.run(
        rep + 1, setup.shares.size(),
        [&](std::size_t i) {
          // As the uncoded scheme updates: eta D_r formed first, X_c read in place.
          NodeShare& s = setup.shares[i];
          const Matrix delta_part = eta * d.middleRows(s.row_first, setup.height);
          setup.kernels.add_outer_product(s.plain, 1.0, delta_part,
                                          x.middleRows(s.col_first, setup.width));
        },
        [&](std::size_t i) { setup.scheme->update(shares[i].node, d, x, eta); });
  }
  AbftOverheadCase out;
  out.config = config.name;
  out.rows = config.rows;
  out.cols = config.cols;
  out.nodes = static_cast<int>(setup.shares.size());
  out.batch = batch;
  out.dir = dir;
  out.plain_s = median(products.base_s);
  out.products_s = median(products.test_s);
  out.check_s = median(products.after_s);
  out.checksum_fraction = products.fraction();
  out.checksum_noise = products.noise();
  out.checksum_min_fraction = products.min_fraction();
  out.check_fraction = out.check_s / out.plain_s;
  out.status = status;
  if (forward) {
    out.has_update = true;
    out.plain_update_s = median(updates.base_s);
    out.update_s = median(updates.test_s);
    out.update_fraction = updates.fraction();
    out.update_noise = updates.noise();
    out.update_min_fraction = updates.min_fraction();
  }
  return out;
}

}  // namespace

std::vector<AbftOverheadCase> run_abft_overhead(bool quick, models::Arithmetic arithmetic,
                                                int repetitions) {
  std::vector<AbftOverheadCase> cases;
  for (const AbftConfig& config : abft_configs(quick)) {
    Setup setup = make_setup(config, arithmetic);
    for (int batch : {1, 64}) {
      for (Direction dir : {Direction::forward, Direction::backward}) {
        cases.push_back(run_case(config, setup, batch, dir, repetitions));
      }
    }
  }
  return cases;
}

void print_abft_overhead(const std::vector<AbftOverheadCase>& cases, int repetitions,
                         std::ostream& out) {
  out << "\nABFT overhead (single thread, " << repetitions
      << " interleaved repetitions; fractions of the plain products, +- half the interquartile "
         "range of the paired fraction)\n";
  out << std::left << std::setw(18) << "config" << std::right << std::setw(12) << "W"
      << std::setw(6) << "nodes" << std::setw(6) << "batch" << std::setw(10) << "dir"
      << std::setw(11) << "plain ms" << std::setw(18) << "checksums" << std::setw(8) << "(min)"
      << std::setw(9) << "check" << std::setw(9) << "total" << std::setw(18) << "update"
      << std::setw(8) << "(min)" << std::setw(8) << "status"
      << "\n";
  const auto percent = [](double fraction, double noise) {
    std::ostringstream s;
    s << std::fixed << std::setprecision(2) << fraction * 100 << "% +-" << std::setprecision(2)
      << noise * 100;
    return s.str();
  };
  for (const auto& c : cases) {
    out << std::left << std::setw(18) << c.config << std::right << std::setw(12)
        << (std::to_string(c.rows) + "x" + std::to_string(c.cols)) << std::setw(6) << c.nodes
        << std::setw(6) << c.batch << std::setw(10)
        << (c.dir == Direction::forward ? "forward" : "backward") << std::fixed
        << std::setprecision(2) << std::setw(11) << c.plain_s * 1e3 << std::setw(18)
        << percent(c.checksum_fraction, c.checksum_noise) << std::setw(7)
        << c.checksum_min_fraction * 100 << "%" << std::setw(8) << c.check_fraction * 100 << "%"
        << std::setw(8) << c.total_fraction() * 100 << "%" << std::setw(18)
        << (c.has_update ? percent(c.update_fraction, c.update_noise) : "-") << std::setw(8)
        << (c.has_update ? percent(c.update_min_fraction, 0.0).substr(0, 6) : "-") << std::setw(8)
        << c.status << std::defaultfloat << "\n";
  }
  out << "checksums = (products through the augmented blocks - the same on plain blocks) / plain; "
         "check = check_partial / plain; total = checksums + check (target <= 1%); update = "
         "(checksummed update - plain add_outer_product) / plain update (forward rows); (min) = "
         "fastest repetition over fastest repetition\n";
}

nlohmann::ordered_json abft_overhead_json(const std::vector<AbftOverheadCase>& cases) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (const auto& c : cases) {
    nlohmann::ordered_json entry = {
        {"config", c.config},
        {"rows", c.rows},
        {"cols", c.cols},
        {"nodes", c.nodes},
        {"batch", c.batch},
        {"direction", c.dir == Direction::forward ? "forward" : "backward"},
        {"plain_products_s", c.plain_s},
        {"node_products_s", c.products_s},
        {"check_s", c.check_s},
        {"checksum_fraction", c.checksum_fraction},
        {"checksum_noise", c.checksum_noise},
        {"checksum_min_fraction", c.checksum_min_fraction},
        {"check_fraction", c.check_fraction},
        {"total_fraction", c.total_fraction()},
        {"check_status", c.status}};
    if (c.has_update) {
      entry["plain_update_s"] = c.plain_update_s;
      entry["update_s"] = c.update_s;
      entry["update_fraction"] = c.update_fraction;
      entry["update_noise"] = c.update_noise;
      entry["update_min_fraction"] = c.update_min_fraction;
    }
    out.push_back(entry);
  }
  return out;
}

}  // namespace codesim::bench
