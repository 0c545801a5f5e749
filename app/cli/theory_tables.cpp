// T1 and T3 of `codesim theory --table`, in JSON and text.
#include "app/cli/theory_tables.hpp"

#include <iomanip>
#include <optional>
#include <ostream>

#include "app/config/text_format.hpp"

namespace codesim::app {
namespace {

using Json = nlohmann::ordered_json;

std::string threshold_note(int m, int n) {
  if (m == 1 && n == 1) return "one block: K = 1";
  if (n == 1) return "n = 1: polynomial / MDS row split, K_ff = m";
  if (m == 1) return "m = 1: MatDot, K_ff = 2n - 1";
  return "";
}

Json optional_json(const std::optional<int>& value) { return value ? Json(*value) : Json(nullptr); }

// A count for text output, "-" when absent.
std::string cell(const std::optional<int>& value) {
  return value ? std::to_string(*value) : std::string("-");
}

// A ratio for text output: 4 significant digits.
std::string ratio_text(double value) { return significant(value, 4); }

Json tolerance_rows_json(const std::vector<models::ToleranceRow>& rows) {
  Json json = Json::array();
  for (const models::ToleranceRow& row : rows) json.push_back(tolerance_row_json(row));
  return json;
}

Json ratio_rows_json(const std::vector<models::RatioRow>& rows) {
  Json json = Json::array();
  for (const models::RatioRow& row : rows) {
    json.push_back({{"m", row.m},
                    {"n", row.n},
                    {"blocks", row.m * row.n},
                    {"gpd_at_2mn", row.gpd_at_2mn},
                    {"replication_detectable_at_2mn", row.replication_detectable_at_2mn},
                    {"detection_ratio_at_2mn", row.detection_ratio_at_2mn},
                    {"gpd_at_3mn", row.gpd_at_3mn},
                    {"replication_at_3mn", row.replication_at_3mn},
                    {"ratio_at_3mn", row.ratio_at_3mn},
                    {"gpd_backward_at_3mn", row.gpd_backward_at_3mn},
                    {"training_ratio_at_3mn", row.training_ratio_at_3mn}});
  }
  return json;
}

void print_tolerance_rows(const std::vector<models::ToleranceRow>& rows, std::ostream& out) {
  for (const models::ToleranceRow& row : rows) {
    const std::string codenet =
        row.codenet ? cell(row.codenet) + " (" + std::to_string(row.codenet_nodes) + ")" : "-";
    const std::string replication = row.replication_copies
                                        ? cell(row.replication_copies) + ": " +
                                              cell(row.replication_correctable) + "/" +
                                              cell(row.replication_detectable)
                                        : "-";
    out << std::setw(6) << row.nodes << std::setw(8) << cell(row.gpd_forward) << std::setw(8)
        << cell(row.gpd_backward) << std::setw(15) << cell(row.gpd_forward_random) << std::setw(15)
        << cell(row.gpd_backward_random) << std::setw(16) << codenet << std::setw(5)
        << cell(row.mds) << "  " << replication << "\n";
  }
}

void print_ratio_rows(const std::vector<models::RatioRow>& rows, std::ostream& out) {
  for (const models::RatioRow& row : rows) {
    out << std::setw(4) << row.m << std::setw(4) << row.n << std::setw(5) << row.m * row.n
        << std::setw(9) << row.gpd_at_2mn << std::setw(16) << row.replication_detectable_at_2mn
        << std::setw(18) << ratio_text(row.detection_ratio_at_2mn) << std::setw(9) << row.gpd_at_3mn
        << std::setw(9) << row.replication_at_3mn << std::setw(11) << ratio_text(row.ratio_at_3mn)
        << std::setw(12) << row.gpd_backward_at_3mn << std::setw(20)
        << ratio_text(row.training_ratio_at_3mn) << "\n";
  }
}

}  // namespace

Json tolerance_row_json(const models::ToleranceRow& row) {
  return {{"nodes", row.nodes},
          {"gpd_forward", optional_json(row.gpd_forward)},
          {"gpd_backward", optional_json(row.gpd_backward)},
          {"gpd_forward_random", optional_json(row.gpd_forward_random)},
          {"gpd_backward_random", optional_json(row.gpd_backward_random)},
          {"codenet", optional_json(row.codenet)},
          {"codenet_nodes", row.codenet_nodes},
          {"mds", optional_json(row.mds)},
          {"replication_copies", optional_json(row.replication_copies)},
          {"replication_correctable", optional_json(row.replication_correctable)},
          {"replication_detectable", optional_json(row.replication_detectable)}};
}

ThresholdsTable thresholds_table() {
  ThresholdsTable table;
  for (const models::ThresholdRow& row : models::gpd_threshold_table()) {
    table.rows.push_back({row, threshold_note(row.m, row.n)});
  }
  return table;
}

ToleranceReport tolerance_report(int m, int n, bool mirrored) {
  return {.m = m,
          .n = n,
          .mirrored = mirrored,
          .rows = models::tolerance_table(m, n, mirrored),
          .ratio = models::gpd_replication_ratio_table(8, mirrored)};
}

Json to_json(const ThresholdsTable& table) {
  Json rows = Json::array();
  for (const ThresholdsRow& row : table.rows) {
    const models::ThresholdRow& t = row.thresholds;
    rows.push_back({{"m", t.m},
                    {"n", t.n},
                    {"forward", t.forward},
                    {"backward", t.backward},
                    {"mirrored_forward", t.mirrored_forward},
                    {"mirrored_backward", t.mirrored_backward},
                    {"note", row.note}});
  }
  return {{"table", "thresholds"}, {"rows", rows}};
}

Json to_json(const ToleranceReport& report) {
  return {{"table", "tolerance"},
          {"m", report.m},
          {"n", report.n},
          {"orientation", report.mirrored ? "mirrored" : "default"},
          {"errors", "erroneous nodes per decode, worst case; adversarial unless *_random"},
          {"rows", tolerance_rows_json(report.rows)},
          {"ratio", ratio_rows_json(report.ratio)}};
}

void print_text(const ThresholdsTable& table, std::ostream& out) {
  out << "GPD recovery thresholds: any K of the P nodes decode (T1)\n";
  out << "   m   n   K_ff   K_bp   K_ff_mirrored   K_bp_mirrored\n";
  for (const ThresholdsRow& row : table.rows) {
    const models::ThresholdRow& t = row.thresholds;
    out << std::setw(4) << t.m << std::setw(4) << t.n << std::setw(7) << t.forward << std::setw(7)
        << t.backward << std::setw(16) << t.mirrored_forward << std::setw(16)
        << t.mirrored_backward;
    if (!row.note.empty()) out << "   " << row.note;
    out << "\n";
  }
}

void print_text(const ToleranceReport& report, std::ostream& out) {
  out << "errors tolerated per decode vs nodes P (T3): m " << report.m << ", n " << report.n
      << ", orientation " << (report.mirrored ? "mirrored" : "default")
      << "; every node stores 1/(mn) of W\n";
  out << "  codenet: P_r = m + 2t, P_c = n + 2t in P nodes; mds: k = 2mn (row- and column-split "
         "blocks); replication: floor(P / mn) copies (correct / detect)\n";
  out << "     P  gpd_ff  gpd_bp  gpd_ff_random  gpd_bp_random  codenet(nodes)  mds  "
         "replication(copies: correct/detect)\n";
  print_tolerance_rows(report.rows, out);
  out << "GPD (adversarial) versus replication at P = 2mn and 3mn (square splits); training "
         "needs both products, so its ratio takes the smaller of forward and backward:\n";
  out << "   m   n   mn  gpd@2mn  rep_detect@2mn  detect_ratio@2mn  gpd@3mn  rep@3mn  "
         "ratio@3mn  gpd_bp@3mn  training_ratio@3mn\n";
  print_ratio_rows(report.ratio, out);
}

}  // namespace codesim::app
