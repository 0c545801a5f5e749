// The local-checks section of `codesim codes`, from the ABFT closed forms
// (models/theory/abft_correction.hpp).
#include "app/cli/local_checks_report.hpp"

#include <iomanip>
#include <string>

#include "models/coding/abft_checksums.hpp"
#include "models/faults/value_model.hpp"
#include "models/theory/abft_correction.hpp"

namespace codesim::app {

nlohmann::ordered_json local_checks_json(const models::SchemeSpec& spec, int rows, int cols) {
  nlohmann::ordered_json out;
  out["checksum_lines"] = models::abft::kChecksums;
  out["product_errors_corrected_per_column"] = 1;
  out["product_errors_detected_per_column"] = "2 or more (beyond round-off)";
  out["block_errors_corrected"] = "1 per column of the block, else 1 per row";
  if (rows <= 0 || cols <= 0) return out;
  const auto [m, n] = models::block_grid(spec);
  const models::AbftBlockShape shape{.rows = rows / m, .cols = cols / n};
  out["block"] = {{"rows", shape.rows}, {"cols", shape.cols}};
  out["stored_entries_per_node"] = shape.stored_entries();
  out["checksum_storage_fraction"] =
      static_cast<double>(shape.stored_entries()) / (static_cast<double>(shape.rows) * shape.cols) -
      1.0;
  nlohmann::ordered_json strikes = nlohmann::ordered_json::object();
  for (const models::ValueModelKind kind :
       {models::ValueModelKind::sparse_additive, models::ValueModelKind::bitflip,
        models::ValueModelKind::random_value, models::ValueModelKind::gaussian,
        models::ValueModelKind::stuck_at_zero}) {
    const models::ValueModelSpec defaults = models::value_model_defaults(kind);
    const models::AbftStrikeModel model = models::abft_strike_model(defaults, shape);
    const models::AbftCorrection correction(shape, model, 1);
    strikes[std::string(models::to_string(kind))] = {{"entries_per_strike", model.entries},
                                                     {"corrected_at_node", correction.per_strike()},
                                                     {"exact", correction.exact()}};
  }
  out["one_weight_strike"] = strikes;
  return out;
}

void print_local_checks(const nlohmann::ordered_json& checks, std::ostream& out) {
  out << "local checks at each node: " << checks["checksum_lines"].get<int>()
      << " checksum rows and columns per block; a product corrects "
      << checks["product_errors_corrected_per_column"].get<int>()
      << " wrong entry per column and detects "
      << checks["product_errors_detected_per_column"].get<std::string>() << "; a block repairs "
      << checks["block_errors_corrected"].get<std::string>() << "\n";
  if (!checks.contains("block")) return;
  out << "node block: " << checks["block"]["rows"].get<int>() << " x "
      << checks["block"]["cols"].get<int>()
      << " (+ checksums: " << checks["stored_entries_per_node"].get<std::int64_t>() << " entries, "
      << std::setprecision(3) << 100.0 * checks["checksum_storage_fraction"].get<double>()
      << "% more)\n";
  out << "one weight strike (value model defaults)   entries  corrected at the node\n";
  for (const auto& [kind, row] : checks["one_weight_strike"].items()) {
    out << "  " << std::left << std::setw(40) << kind << std::right << std::setw(9)
        << row["entries_per_strike"].get<std::int64_t>() << std::setw(13) << std::setprecision(4)
        << row["corrected_at_node"].get<double>()
        << (row["exact"].get<bool>() ? "" : " (upper bound)") << "\n";
  }
}

}  // namespace codesim::app
