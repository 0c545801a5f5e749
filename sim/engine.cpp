// Engine: a binary min-heap of (time, sequence) entries pointing into reusable closure slots.
#include "sim/engine.hpp"

#include <algorithm>
#include <cmath>

#include "sim/check.hpp"

namespace codesim::sim {
namespace {
// std heap functions build a max-heap, so "less" means "runs later".
struct RunsLater {
  template <class Entry>
  bool operator()(const Entry& a, const Entry& b) const {
    return a.time_s != b.time_s ? a.time_s > b.time_s : a.sequence > b.sequence;
  }
};
}  // namespace

EventId Engine::schedule_at(SimTime time_s, Action action) {
  CODESIM_CHECK(std::isfinite(time_s), "event time must be finite");
  CODESIM_CHECK(time_s >= now_, "cannot schedule an event in the past");
  std::uint32_t slot;
  if (!free_slots_.empty()) {
    slot = free_slots_.back();
    free_slots_.pop_back();
  } else {
    slot = static_cast<std::uint32_t>(slots_.size());
    slots_.emplace_back();
  }
  Slot& s = slots_[slot];
  s.action = std::move(action);
  s.live = true;
  heap_.push_back({time_s, next_sequence_++, slot, s.generation});
  std::push_heap(heap_.begin(), heap_.end(), RunsLater{});
  ++pending_;
  return {slot, s.generation};
}

bool Engine::cancel(EventId id) {
  if (id.slot >= slots_.size()) return false;
  Slot& s = slots_[id.slot];
  if (!s.live || s.generation != id.generation) return false;
  release(id.slot);  // the heap entry stays and is skipped when popped
  --pending_;
  return true;
}

void Engine::release(std::uint32_t slot) {
  Slot& s = slots_[slot];
  s.action = nullptr;
  s.live = false;
  ++s.generation;
  free_slots_.push_back(slot);
}

bool Engine::pop_and_run_next(SimTime end_s) {
  while (!heap_.empty()) {
    const QueueEntry top = heap_.front();
    if (top.time_s > end_s) return false;
    std::pop_heap(heap_.begin(), heap_.end(), RunsLater{});
    heap_.pop_back();
    Slot& s = slots_[top.slot];
    if (!s.live || s.generation != top.generation) continue;  // cancelled
    Action action = std::move(s.action);
    release(top.slot);
    --pending_;
    now_ = top.time_s;
    ++events_run_;
    action();
    return true;
  }
  return false;
}

void Engine::run() {
  stopped_ = false;
  while (!stopped_ && pop_and_run_next(INFINITY)) {
  }
}

void Engine::run_until(SimTime end_s) {
  CODESIM_CHECK(end_s >= now_, "run_until into the past");
  stopped_ = false;
  while (!stopped_ && pop_and_run_next(end_s)) {
  }
  if (!stopped_) now_ = end_s;
}

}  // namespace codesim::sim
