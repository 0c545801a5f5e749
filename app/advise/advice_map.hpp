// codesim advise --map: the advice over a grid of one or two scenario parameters (for example the
// soft-error probability and the node MTBF), each cell advised on its own, so that a user sees
// where coding pays, where replication pays, where plain checkpointing pays and where ABFT pays.
#pragma once

#include <array>
#include <string>
#include <string_view>
#include <vector>

#include "app/advise/advice.hpp"
#include "app/exec/unit_executor.hpp"

namespace codesim::app {

/// Points an axis takes when its range gives no count.
inline constexpr int kDefaultMapPoints = 6;

/// One parameter of the map and the values it takes.
struct MapAxis {
  std::string pointer;
  std::vector<double> values;  ///< ascending, distinct
  bool logarithmic = false;    ///< geometric spacing (LO > 0 and HI >= 10 LO)
  bool integer = false;        ///< the scenario holds an integer there: values are rounded
};

/// Parses `text`, "PTR=LO..HI[:N]" (N points, default kDefaultMapPoints; geometric spacing when
/// LO > 0 and HI >= 10 LO, else linear), against `resolved` (the resolved scenario: PTR must hold
/// a number, or null for a rate left unset). A ScenarioError of `file` at PTR otherwise.
MapAxis parse_map_axis(const std::string& text, const Json& resolved, const std::string& file);

/// The kind of strategy that wins a cell: no coding and no checkpoints, no coding with
/// checkpoints, copies of the blocks, a code, nodes that check their own blocks (ABFT), or a code
/// whose nodes also check their blocks (the ABFT-checked CodeNet grid). A code without redundant
/// symbols (a grid of m x n nodes) counts as uncoded or ABFT.
enum class StrategyFamily { uncoded, checkpointing, replication, coding, abft, coding_abft };
inline constexpr std::array<std::string_view, 6> kStrategyFamilyNames = {
    "uncoded", "checkpointing", "replication", "coding", "abft", "coding_abft"};

/// `configuration`'s family; `own` is the scenario's checkpoint (what the baseline's "scenario"
/// choice runs).
StrategyFamily strategy_family(const Configuration& configuration, const sim::CheckpointSpec& own);

struct AdviceMap {
  Json scenario;  ///< the resolved scenario of the first cell, the axes' values aside
  std::uint64_t seed = 1;
  AdviseObjective objective = AdviseObjective::time;
  double budget_s = 0.0;  ///< per cell
  std::vector<MapAxis> axes;
  /// One row per cell that finished (the first axis outermost), in the columns of map_columns().
  std::vector<Json> cells;
  /// False when a stop request (a signal) left cells out: `cells` holds those that finished.
  bool complete = true;
};

/// ADVICE_MAP.json's cell columns.
const std::vector<std::string>& map_columns();

/// Advises on every cell of the grid `axes` span over `document` (a scenario document: its sweep
/// is left out), each cell a unit of `executor` on `jobs` threads with the stage 1 probes shared
/// between them; `on_progress` counts cells. Every cell is checked before any runs (a cell's bad
/// value is a ScenarioError at its key). On the root returns the map; elsewhere an empty one. A
/// stop request leaves out the cells it cut short (complete false); AdviseInterrupted when no
/// cell finished.
AdviceMap advise_map(const Json& document, const std::string& file,
                     const std::vector<MapAxis>& axes, AdviseOptions options,
                     UnitExecutor& executor, int jobs, const UnitProgress& on_progress);

/// The map as JSON (kind "advice_map"); the same map gives the same bytes.
Json to_json(const AdviceMap& map);

/// One line per cell: its values, the recommendation, its family and cost.
void print_map(const AdviceMap& map, std::ostream& out);

}  // namespace codesim::app
