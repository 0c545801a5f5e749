// The error search of LinearCode::decode: when the usable symbols are inconsistent as a whole,
// find the error support whose removal leaves a consistent rest. Internal to models/coding.
#pragma once

#include <optional>
#include <vector>

#include "models/coding/linear_code_passes.hpp"

namespace codesim::models::detail {

// A support found by the search and the message solved without it.
struct ErrorSupport {
  std::vector<int> blamed;  // symbol indices, ascending
  RowMajorMatrix message;   // all K rows, solved from usable \ blamed
  double condition = 0.0;   // of the generator rows of usable \ blamed
};

// What a search found (nullopt: nothing within its caps, detected) and the work it spent.
struct SearchOutcome {
  std::optional<ErrorSupport> support;
  double work = 0.0;  // units of CodeDecodeResult::search_work
};

// Searches for E, |E| <= max_errors, with usable \ E consistent (checked on the data itself);
// `usable` (ascending) is known to be inconsistent and factored as `factor`; `peak` holds every
// symbol's peak. Candidates come from the syndrome's column space under enumeration, work
// (kSearchWorkBudget) and verification caps; no support (detected) when none is found within
// them, never a guess.
SearchOutcome find_error_support(const Matrix& generator, Symbols symbols, std::vector<int> usable,
                                 const std::vector<double>& peak, Index length,
                                 const DecodeOptions& options, const DenseKernels& kernels,
                                 int max_errors, const SubsetFactor& factor);

}  // namespace codesim::models::detail
