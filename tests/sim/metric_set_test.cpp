// MetricSet: scalars keep insertion order; series keep rows under named columns.
#include "sim/metric_set.hpp"

#include <doctest/doctest.h>

#include <vector>

using namespace codesim::sim;

TEST_CASE("scalars are set, added to and listed in insertion order") {
  MetricSet m;
  m.set("b", 2.0);
  m.add("a", 1.5);
  m.add("a", 1.0);
  m.set("b", 3.0);
  CHECK(m.get("a") == 2.5);
  CHECK(m.get("b") == 3.0);
  CHECK_FALSE(m.contains("c"));
  REQUIRE(m.scalars().size() == 2);
  CHECK(m.scalars()[0].first == "b");
  CHECK(m.scalars()[1].first == "a");
}

TEST_CASE("a series keeps its rows in order under its named columns") {
  MetricSet m;
  m.add_series("accuracy_vs_time", {"time_s", "iteration", "test_accuracy"});
  m.append_row("accuracy_vs_time", {0.0, 0.0, 0.1});
  const std::vector<double> second{2.5, 10.0, 0.8};
  m.append_row("accuracy_vs_time", second);
  m.add_series("loss", {"iteration", "loss"});
  CHECK(m.contains_series("accuracy_vs_time"));
  CHECK_FALSE(m.contains_series("missing"));
  const MetricSeries& s = m.series("accuracy_vs_time");
  CHECK(s.rows() == 2);
  CHECK(s.at(1, 0) == 2.5);
  CHECK(s.at(0, 2) == 0.1);
  CHECK(s.column_index("iteration") == 1);
  CHECK(s.column("test_accuracy") == std::vector<double>{0.1, 0.8});
  CHECK(m.series("loss").rows() == 0);
  REQUIRE(m.all_series().size() == 2);
  CHECK(m.all_series()[0].name == "accuracy_vs_time");
  CHECK(m.all_series()[1].name == "loss");
  CHECK(m.scalars().empty());
}
