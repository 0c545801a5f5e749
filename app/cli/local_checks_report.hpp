// What the nodes of an ABFT scheme (abft, abft_codenet) check and correct on their own, for
// `codesim codes`: the checksums they keep, what a product check corrects, and the chance that
// one weight strike under each value model's defaults is corrected at the node.
#pragma once

#include <ostream>

#include <nlohmann/json.hpp>

#include "models/coding/scheme_spec.hpp"

namespace codesim::app {

/// The local checks of `spec` (precondition: models::checks_at_nodes(spec)); with a rows x cols
/// W (0 x 0: unknown), the node block's shape, its storage with the checksums and the chance of
/// correcting one strike of each value model.
nlohmann::ordered_json local_checks_json(const models::SchemeSpec& spec, int rows, int cols);
/// The same as text lines.
void print_local_checks(const nlohmann::ordered_json& checks, std::ostream& out);

}  // namespace codesim::app
