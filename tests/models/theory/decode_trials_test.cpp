// Monte Carlo decoding with random-valued symbol errors matches each scheme's correction bound.
#include <doctest/doctest.h>

#include "models/theory/decode_trials.hpp"

namespace codesim::models {
namespace {

std::vector<DecodeTrialCounts> trials(const SchemeSpec& spec, Direction dir, ErrorModel model,
                                      int count, int max_errors) {
  DecodeOptions options;
  options.error_model = model;
  return run_decode_trials(spec, dir, options, count, max_errors, 7);
}

TEST_CASE("GPD decode trials are exact up to floor((P-K)/2) adversarial errors, then detected") {
  // P = 9, K = mn + n - 1 = 5 forward: corrects 2, detects 4.
  const auto rows = trials(gpd_spec(2, 2, 9), Direction::forward, ErrorModel::adversarial, 30, 5);
  REQUIRE(rows.size() == 6);
  for (const DecodeTrialCounts& row : rows) {
    CAPTURE(row.errors);
    CHECK(row.trials == 30);
    CHECK(row.wrong == 0);
    CHECK(row.exact + row.detected == 30);
    if (row.errors <= 2) {
      CHECK(row.exact == 30);
      CHECK(row.worst_relative_error < kExactRelativeError);
    } else {
      CHECK(row.detected == 30);
    }
  }
}

TEST_CASE("GPD decode trials under the random-valued model correct up to P-K-1 errors") {
  const auto rows = trials(gpd_spec(2, 2, 9), Direction::forward, ErrorModel::random, 20, 5);
  for (const DecodeTrialCounts& row : rows) {
    CAPTURE(row.errors);
    CHECK(row.wrong == 0);
    CHECK(row.exact == (row.errors <= 3 ? 20 : 0));
  }
}

TEST_CASE("decode trials of the backward product use the backward threshold") {
  // GPD (2, 2) backward: K = 2mn - n = 6 on 9 nodes: corrects 1 adversarial error.
  const auto rows = trials(gpd_spec(2, 2, 9), Direction::backward, ErrorModel::adversarial, 20, 3);
  CHECK(rows[1].exact == 20);
  CHECK(rows[2].detected == 20);
}

TEST_CASE("replication with two copies detects one erroneous copy and corrects none") {
  const auto rows =
      trials(replication_spec(2, 1, 2), Direction::forward, ErrorModel::adversarial, 20, 1);
  CHECK(rows[0].exact == 20);
  CHECK(rows[1].detected == 20);
  CHECK(rows[1].wrong == 0);
}

TEST_CASE("decode trials are reproducible for a seed") {
  const auto a = trials(gpd_spec(2, 1, 6), Direction::forward, ErrorModel::adversarial, 10, 3);
  const auto b = trials(gpd_spec(2, 1, 6), Direction::forward, ErrorModel::adversarial, 10, 3);
  REQUIRE(a.size() == b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    CHECK(a[i].exact == b[i].exact);
    CHECK(a[i].worst_relative_error == b[i].worst_relative_error);
  }
}

TEST_CASE("the decode trials' cost counts every decode codes --trials runs and bounds its work") {
  // GPD 4 x 4 on 64 nodes: S = 64 symbols, e = 0 .. S - K + 1 in each direction (K = 19
  // forward, 28 backward), random values under both decoder error models and adversarial values
  // under one. Each decode may use the full search bound.
  const SchemeSpec spec = gpd_spec(4, 4, 64);
  const SchemeSummary summary = summarize_scheme(spec);
  REQUIRE(summary.forward.recovery_threshold == 19);
  REQUIRE(summary.backward.recovery_threshold == 28);
  const DecodeTrialsCost one = decode_trials_cost(spec, summary, 1, 1);
  CHECK(one.decodes == 3 * ((64 - 19 + 2) + (64 - 28 + 2)));
  CHECK(one.operations >= one.decodes * kSearchWorkBudget);
  CHECK(one.operations <= one.decodes * (kSearchWorkBudget + 64.0 * 64 * 64));
  const DecodeTrialsCost three = decode_trials_cost(spec, summary, 3, 3);
  CHECK(three.decodes == 3 * one.decodes);
  CHECK(three.bytes == one.bytes);
  // A short code's search screens at most its 2^S subsets: GPD 2 x 2 on 12 nodes (20 trials,
  // as check-unchanged runs) stays far below the bound, so codes prints no estimate for it.
  const SchemeSpec short_code = gpd_spec(2, 2, 12);
  const DecodeTrialsCost small =
      decode_trials_cost(short_code, summarize_scheme(short_code), 20, 20);
  CHECK(small.operations < 30e9);
  CHECK(small.operations < small.decodes * kSearchWorkBudget / 10.0);
  // Replication decodes by comparing copies: no search; ABFT's blocks dominate its memory.
  const SchemeSpec copies = replication_spec(2, 2, 3);
  CHECK(decode_trials_cost(copies, summarize_scheme(copies), 1, 1).operations < 1e6);
  const SchemeSpec abft = abft_spec(100, 100);
  CHECK(decode_trials_cost(abft, summarize_scheme(abft), 1, 1).bytes > 2.0 * 400 * 400 * 8);
}

}  // namespace
}  // namespace codesim::models
