// The tables of `codesim theory --table`: T1, GPD recovery thresholds, and T3, errors tolerated
// versus nodes with the GPD / replication ratio (models/theory/tolerance_tables.hpp), as typed
// values with their JSON and their text.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/theory/tolerance_tables.hpp"

namespace codesim::app {

/// A T1 row and what its (m, n) reduces to ("" for none).
struct ThresholdsRow {
  models::ThresholdRow thresholds;
  std::string note;
};

/// T1.
struct ThresholdsTable {
  std::vector<ThresholdsRow> rows;
};

/// T3 for one (m, n) and orientation, and the GPD / replication ratio of square splits.
struct ToleranceReport {
  int m = 1;
  int n = 1;
  bool mirrored = false;
  std::vector<models::ToleranceRow> rows;
  std::vector<models::RatioRow> ratio;
};

ThresholdsTable thresholds_table();
/// Precondition: m, n >= 1 with m n <= 1024.
ToleranceReport tolerance_report(int m, int n, bool mirrored);

/// One T3 row as the tolerance tables print it; an absent count is null.
nlohmann::ordered_json tolerance_row_json(const models::ToleranceRow& row);

/// As `codesim theory --table ... --json` prints them; an absent count is null.
nlohmann::ordered_json to_json(const ThresholdsTable& table);
nlohmann::ordered_json to_json(const ToleranceReport& report);

/// As `codesim theory --table ...` prints them; an absent count is "-".
void print_text(const ThresholdsTable& table, std::ostream& out);
void print_text(const ToleranceReport& report, std::ostream& out);

}  // namespace codesim::app
