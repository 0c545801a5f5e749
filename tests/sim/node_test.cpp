// Node: task timing from speed and straggler law, busy state, cancellation, loss on a crash.
#include "sim/node.hpp"

#include <doctest/doctest.h>

#include <memory>

#include "sim/engine.hpp"
#include "sim/straggler_model.hpp"

using namespace codesim::sim;

namespace {
Node make_node(const StragglerSpec& law, double speed_flops_per_s = 1e9) {
  std::shared_ptr<const StragglerModel> model = make_straggler_model(law);
  return Node(3, speed_flops_per_s, model, RandomStream({7, 0, "straggler", 3}));
}
}  // namespace

TEST_CASE("with the none law a task takes exactly flops / speed") {
  Engine engine;
  Node node = make_node({}, 2e9);
  CHECK(node.id() == 3);
  CHECK(node.speed_flops_per_s() == 2e9);
  CHECK(node.draw_task_duration_s(4e9) == 2.0);
  bool done = false;
  const double duration_s = node.run_task(engine, 1e9, [&] { done = true; });
  CHECK(duration_s == 0.5);
  CHECK(node.is_busy());
  engine.run();
  CHECK(done);
  CHECK(engine.now() == 0.5);
  CHECK_FALSE(node.is_busy());
}

TEST_CASE("a task's duration is the nominal time times the straggler factor") {
  const StragglerSpec law = ShiftedExponentialStraggler{2.0, 1.0};
  Node node = make_node(law, 1e9);
  auto model = make_straggler_model(law);
  RandomStream same({7, 0, "straggler", 3});
  for (int i = 0; i < 20; ++i) {
    const double duration_s = node.draw_task_duration_s(3e9);
    CHECK(duration_s == doctest::Approx(3.0 * model->sample_factor(same)).epsilon(1e-12));
    CHECK(duration_s >= 6.0);
  }
}

TEST_CASE("a node runs tasks one after another once each has finished") {
  Engine engine;
  Node node = make_node({});
  int finished = 0;
  node.run_task(engine, 1e9, [&] {
    ++finished;
    CHECK_FALSE(node.is_busy());
    node.run_task(engine, 2e9, [&] { ++finished; });
  });
  engine.run();
  CHECK(finished == 2);
  CHECK(engine.now() == 3.0);
}

TEST_CASE("a crash loses the running task and repair brings the node back idle") {
  Engine engine;
  Node node = make_node({});
  bool done = false;
  node.run_task(engine, 5e9, [&] { done = true; });
  bool lost = false;
  engine.schedule_at(1.0, [&] { lost = node.crash(engine); });
  engine.run_until(2.0);
  CHECK(lost);
  CHECK(node.state() == NodeState::down);
  CHECK_FALSE(node.is_up());
  CHECK_FALSE(node.is_busy());
  engine.run();
  CHECK_FALSE(done);
  node.repair();
  CHECK(node.is_up());
  bool later = false;
  node.run_task(engine, 1e9, [&] { later = true; });
  engine.run();
  CHECK(later);
  CHECK(engine.now() == 3.0);
}

TEST_CASE("crashing an idle node loses nothing") {
  Engine engine;
  Node node = make_node({});
  bool done = false;
  node.run_task(engine, 1e9, [&] { done = true; });
  engine.run();
  REQUIRE(done);
  CHECK_FALSE(node.crash(engine));
  CHECK(node.state() == NodeState::down);
}

TEST_CASE("cancelling a task abandons it but keeps the node up and ready for another") {
  Engine engine;
  Node node = make_node({});
  bool first = false;
  bool second = false;
  node.run_task(engine, 5e9, [&] { first = true; });
  engine.schedule_at(1.0, [&] {
    node.cancel_task(engine);
    CHECK(node.is_up());
    CHECK_FALSE(node.is_busy());
    node.run_task(engine, 1e9, [&] { second = true; });
  });
  engine.run();
  CHECK_FALSE(first);
  CHECK(second);
  CHECK(engine.now() == 2.0);
  node.cancel_task(engine);  // nothing running: harmless
  CHECK(node.is_up());
}
