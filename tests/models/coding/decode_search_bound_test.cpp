// The error search's work bound: a long code with many errors gives up (detected) within
// kSearchWorkBudget instead of screening every candidate the count caps allow.
#include <doctest/doctest.h>

#include <algorithm>
#include <optional>
#include <vector>

#include "models/coding/code_generators.hpp"
#include "models/coding/linear_code.hpp"
#include "tests/models/coding/scheme_test_support.hpp"

namespace {

using codesim::models::CodeDecodeResult;
using codesim::models::DecodeOptions;
using codesim::models::DecodeStatus;
using codesim::models::ErrorModel;
using codesim::models::kSearchWorkBudget;
using codesim::models::LinearCode;
using codesim::models::Matrix;
using codesim::models::testing::random_matrix;

// The symbols struck by `errors` errors: 0, 2, ..., 62, then 1, 3, ...
std::vector<int> struck(int errors) {
  std::vector<int> symbols;
  for (int i = 0; i < errors; ++i) symbols.push_back(2 * i < 64 ? 2 * i : 2 * i - 63);
  std::sort(symbols.begin(), symbols.end());
  return symbols;
}

// Decodes a 64-symbol, dimension-19 codeword (the size of GPD 4x4 on 64 nodes, forward) with
// the symbols struck(errors) carrying noise ten times as large as the codeword.
CodeDecodeResult decode_with_errors(int errors, ErrorModel model) {
  const LinearCode code(codesim::models::systematic_gaussian_generator(64, 19, 2017));
  const Matrix codeword = code.encode(random_matrix(19, 4, 40));
  std::vector<std::optional<Eigen::RowVectorXd>> received;
  for (Eigen::Index s = 0; s < codeword.rows(); ++s) received.emplace_back(codeword.row(s));
  const Matrix noise = random_matrix(errors, 4, 41);
  const std::vector<int> symbols = struck(errors);
  for (int i = 0; i < errors; ++i) {
    *received[static_cast<std::size_t>(symbols[static_cast<std::size_t>(i)])] +=
        10.0 * noise.row(i);
  }
  DecodeOptions options;
  options.error_model = model;
  options.inner_dimension = 16;
  return code.decode(received, options);
}

}  // namespace

TEST_CASE("a search that reaches its work bound stops there and blames only struck symbols") {
  // 30 errors among 64 symbols (45 checks): within the random model's 44, but screening every
  // candidate the count caps allow took seconds.
  const CodeDecodeResult result = decode_with_errors(30, ErrorModel::random);
  CHECK(result.search_work <= kSearchWorkBudget);
  CHECK(result.search_work > 0.99 * kSearchWorkBudget);
  if (result.status == DecodeStatus::corrected) CHECK(result.erroneous_symbols == struck(30));
}

TEST_CASE("a search that finds nothing within its work bound gives up as detected") {
  const CodeDecodeResult result = decode_with_errors(44, ErrorModel::random);
  CHECK(result.status == DecodeStatus::detected);
  CHECK(result.search_work > 0.0);
  CHECK(result.search_work <= kSearchWorkBudget);
}

TEST_CASE("a decode with few errors on the same long code still corrects them") {
  const CodeDecodeResult result = decode_with_errors(3, ErrorModel::adversarial);
  REQUIRE(result.status == DecodeStatus::corrected);
  CHECK(result.erroneous_symbols == std::vector<int>{0, 2, 4});
  CHECK(result.search_work <= kSearchWorkBudget);
}

TEST_CASE("a clean decode runs no search") {
  CHECK(decode_with_errors(0, ErrorModel::adversarial).search_work == 0.0);
}
