// The adversarial (worst-case) error values of the decode trials: the decoder keeps its promise
// against them inside its bounds, and they find what random values miss outside them.
#include <doctest/doctest.h>

#include <algorithm>
#include <optional>
#include <vector>

#include "models/coding/linear_code.hpp"
#include "models/theory/decode_trials.hpp"

namespace codesim::models {
namespace {

std::vector<DecodeTrialCounts> adversarial(const SchemeSpec& spec, Direction dir, int count,
                                           int max_errors,
                                           ErrorValues values = ErrorValues::adversarial) {
  return run_decode_trials(spec, dir, DecodeOptions{}, count, max_errors, 11, values);
}

// r = S - K checks: corrects t = floor(r / 2), detects r - t.
void check_within_bounds(const SchemeSpec& spec, Direction dir, int checks, int count) {
  const int t = checks / 2;
  const auto rows = adversarial(spec, dir, count, checks - t);
  for (const DecodeTrialCounts& row : rows) {
    CAPTURE(row.errors);
    CHECK(row.wrong == 0);
    if (row.errors <= t) {
      CHECK(row.exact == count);
    } else {
      CHECK(row.detected == count);
    }
  }
}

TEST_CASE("adversarial errors within floor((S-K)/2) are corrected and up to S-K-t detected") {
  // GPD (2, 2) on 12 nodes: forward K = 5 (r = 7: corrects 3, detects 4), backward K = 6
  // (r = 6: corrects 3, detects 3).
  check_within_bounds(gpd_spec(2, 2, 12), Direction::forward, 7, 150);
  check_within_bounds(gpd_spec(2, 2, 12), Direction::backward, 6, 150);
  // A systematic-free MDS code of K = 4 on 9 nodes: r = 5, corrects 2, detects 3.
  check_within_bounds(mds_spec(4, 9), Direction::forward, 5, 150);
}

TEST_CASE("beyond the detection bound adversarial errors fool the decoder and random ones do not") {
  // GPD (2, 2) on 12 nodes forward: e = 5 leaves another codeword d - e = 3 from the received
  // word, within the 3 the decoder corrects; random values leave none within 3.
  const SchemeSpec spec = gpd_spec(2, 2, 12);
  const auto worst = adversarial(spec, Direction::forward, 100, 5);
  const auto random = adversarial(spec, Direction::forward, 100, 5, ErrorValues::random);
  CHECK(worst[5].wrong >= 90);
  CHECK(random[5].wrong == 0);
  CHECK(random[5].detected == 100);
}

TEST_CASE(
    "on replication the adversarial model makes a majority of copies agree on a wrong value") {
  // Three copies correct one error by majority; two copies agreeing outvote the right one.
  const auto worst = adversarial(replication_spec(2, 1, 3), Direction::forward, 50, 2);
  const auto random =
      adversarial(replication_spec(2, 1, 3), Direction::forward, 50, 2, ErrorValues::random);
  CHECK(worst[1].exact == 50);
  CHECK(worst[2].wrong == 50);
  CHECK(random[2].wrong == 0);
}

// A deliberately buggy decoder: when the real one detects, it also tries every support of t + 1
// symbols and accepts the first whose rest is consistent (one error more than it may correct).
std::optional<Matrix> buggy_decode(const LinearCode& code, const Matrix& received, int t) {
  std::vector<std::optional<Eigen::RowVectorXd>> symbols;
  for (Eigen::Index s = 0; s < received.rows(); ++s) symbols.emplace_back(received.row(s));
  const CodeDecodeResult honest = code.decode(symbols, DecodeOptions{});
  if (honest.status != DecodeStatus::detected) return Matrix(honest.message);
  const int n = code.symbol_count();
  std::vector<bool> dropped(static_cast<std::size_t>(n), false);
  std::fill(dropped.end() - (t + 1), dropped.end(), true);
  do {
    std::vector<int> rest;
    for (int s = 0; s < n; ++s)
      if (!dropped[static_cast<std::size_t>(s)]) rest.push_back(s);
    Matrix rows(static_cast<Eigen::Index>(rest.size()), received.cols());
    for (std::size_t i = 0; i < rest.size(); ++i)
      rows.row(static_cast<Eigen::Index>(i)) = received.row(rest[i]);
    const Matrix message = code.solve_from(rest, rows);
    Matrix residual = rows;
    for (std::size_t i = 0; i < rest.size(); ++i)
      residual.row(static_cast<Eigen::Index>(i)) -= code.generator().row(rest[i]) * message;
    if (residual.cwiseAbs().maxCoeff() <= 1e-9 * received.cwiseAbs().maxCoeff()) return message;
  } while (std::next_permutation(dropped.begin(), dropped.end()));
  return std::nullopt;
}

// Wrong messages the buggy decoder accepts over `count` codewords with `errors` errors.
int fooled(const LinearCode& code, ErrorValues values, int errors, int count) {
  sim::RandomStream stream({3, 0, "adversarial_trials_test", static_cast<std::uint64_t>(values)});
  const int t = (code.symbol_count() - code.dimension()) / 2;
  int wrong = 0;
  for (int trial = 0; trial < count; ++trial) {
    Matrix message(code.dimension(), 3);
    for (Eigen::Index i = 0; i < message.size(); ++i) message.data()[i] = stream.normal(0, 1);
    Matrix received = code.encode(message);
    const auto noise = [&stream] {
      Eigen::RowVectorXd v(3);
      for (Eigen::Index i = 0; i < 3; ++i) v(i) = stream.normal(0, 1);
      return v;
    };
    AdversarialErrors pattern;
    if (values == ErrorValues::adversarial) {
      pattern = adversarial_errors(&code.generator(), code.symbol_count(), 0, errors, stream);
    } else {
      std::vector<int> order(static_cast<std::size_t>(code.symbol_count()));
      for (int s = 0; s < code.symbol_count(); ++s) order[static_cast<std::size_t>(s)] = s;
      for (int i = 0; i < errors; ++i)
        std::swap(order[static_cast<std::size_t>(i)],
                  order[static_cast<std::size_t>(stream.uniform_int(i, code.symbol_count() - 1))]);
      pattern.independent.assign(order.begin(), order.begin() + errors);
    }
    const Eigen::RowVectorXd shared = noise();
    for (std::size_t i = 0; i < pattern.correlated.size(); ++i)
      received.row(pattern.correlated[i]) += pattern.coefficients[i] * shared;
    for (int s : pattern.independent) received.row(s) += noise();
    const std::optional<Matrix> decoded = buggy_decode(code, received, t);
    if (decoded && (*decoded - message).cwiseAbs().maxCoeff() > 1e-6) ++wrong;
  }
  return wrong;
}

TEST_CASE("a decoder that corrects one error too many is fooled by adversarial values only") {
  // GPD (2, 2) on 12 nodes forward: r = 7, t = 3. At e = t + 1 = 4 random values leave one
  // consistent rest (the right one); adversarial ones leave a second, d - e = 4 from the word.
  const std::unique_ptr<CodingScheme> scheme = make_trial_scheme(gpd_spec(2, 2, 12));
  const LinearCode code(*scheme->symbol_generator(Direction::forward));
  REQUIRE(code.symbol_count() - code.dimension() == 7);
  const int random = fooled(code, ErrorValues::random, 4, 60);
  const int worst = fooled(code, ErrorValues::adversarial, 4, 60);
  CHECK(random == 0);
  CHECK(worst > random);
  CHECK(worst >= 10);
}

}  // namespace
}  // namespace codesim::models
