// Engine: a 4-ary min-heap of (time, sequence, slot) entries pointing into reusable event slots.
#include "sim/engine.hpp"

#include <algorithm>
#include <bit>
#include <cmath>

#include "sim/check.hpp"

namespace codesim::sim {
namespace {
// A 4-ary heap has half the depth of a binary one, and the earliest of four children is found
// without jumps, which matters because event times are random and branches would mispredict.
constexpr std::size_t kArity = 4;

// (time, sequence) as one 128-bit integer: one compare-and-borrow instead of jumps that would
// mispredict on random times. GCC and Clang both provide the type (__extension__ keeps -Wpedantic
// quiet).
__extension__ using OrderKey = unsigned __int128;

// True when `a` runs before `b`: earlier time, or equal time and scheduled earlier.
template <class Entry>
bool runs_before(const Entry& a, const Entry& b) {
  return ((OrderKey{a.time_bits} << 64) | a.order) < ((OrderKey{b.time_bits} << 64) | b.order);
}

// Runs after every real entry (real times are finite, so their bits are below all ones).
template <class Entry>
constexpr Entry kSentinel{~std::uint64_t{0}, ~std::uint64_t{0}};

// The sequence sits above the slot in an entry's `order`.
constexpr int kSlotBits = 32;
constexpr std::uint64_t kSlotMask = (std::uint64_t{1} << kSlotBits) - 1;
constexpr std::uint64_t kSequenceLimit = std::uint64_t{1} << (64 - kSlotBits);

// Cancelled entries may outnumber the pending ones by this many before the heap is compacted.
constexpr std::size_t kStaleSlack = 64;

// Moves the hole at `hole` up until `entry` fits there.
template <class Entry>
void sift_up(Entry* heap, std::size_t hole, const Entry& entry) {
  while (hole > 0) {
    const std::size_t parent = (hole - 1) / kArity;
    if (!runs_before(entry, heap[parent])) break;
    heap[hole] = heap[parent];
    hole = parent;
  }
  heap[hole] = entry;
}

// Index of the earliest of the four children starting at `first` (sentinels pad a partial group).
template <class Entry>
std::size_t earliest_child(const Entry* heap, std::size_t first) {
  const std::size_t low = first + runs_before(heap[first + 1], heap[first]);
  const std::size_t high = first + 2 + runs_before(heap[first + 3], heap[first + 2]);
  const std::size_t pick_high = runs_before(heap[high], heap[low]);
  return low ^ ((low ^ high) & (std::size_t{0} - pick_high));  // a select GCC keeps branch-free
}

// Moves heap[hole] down until it runs before its children, in a heap of `size` entries followed
// by sentinels.
template <class Entry>
void sift_down(Entry* heap, std::size_t hole, std::size_t size) {
  const Entry entry = heap[hole];
  for (std::size_t first = kArity * hole + 1; first < size; first = kArity * hole + 1) {
    const std::size_t child = earliest_child(heap, first);
    if (!runs_before(heap[child], entry)) break;
    heap[hole] = heap[child];
    hole = child;
  }
  heap[hole] = entry;
}

// Floyd's method for removing heap[0] from a heap of `size` > 0 entries, first half: the hole
// sinks to a leaf along the earliest children. Returns the leaf, whose entry is now stale.
template <class Entry>
std::size_t sink_root(Entry* heap, std::size_t size) {
  std::size_t hole = 0;
  for (std::size_t first = 1; first < size; first = kArity * hole + 1) {
    const std::size_t child = earliest_child(heap, first);
    heap[hole] = heap[child];
    hole = child;
  }
  return hole;
}

// Appends a fresh slot. Kept out of line: inlined, its reallocation path would make every
// schedule save and restore all callee-saved registers.
template <class Slots>
[[gnu::noinline]] std::uint32_t add_slot(Slots& slots) {
  CODESIM_CHECK(slots.size() < kSlotMask, "more than 2^32 - 1 events in the queue");
  slots.emplace_back();
  return static_cast<std::uint32_t>(slots.size() - 1);
}
}  // namespace

void Engine::stored_action(void* /*engine*/) {}

std::uint32_t Engine::acquire_slot() {
  if (free_head_ != kNoSlot) {
    const std::uint32_t index = free_head_;
    free_head_ = slots_[index].next_free;
    return index;
  }
  return add_slot(slots_);
}

void Engine::release(std::uint32_t slot) {
  slots_[slot].next_free = free_head_;
  free_head_ = slot;
}

void Engine::push(SimTime time_s, std::uint32_t slot) {
  if (next_sequence_ == kSequenceLimit) renumber();
  // + 0.0 turns -0.0 into +0.0, whose bits order correctly.
  const QueueEntry entry{std::bit_cast<std::uint64_t>(time_s + 0.0),
                         (next_sequence_++ << kSlotBits) | slot};
  ++pending_;
  if (hole_ != kNoHole) {
    // The running event's leaf: the new entry rises from there instead of the heap's last one,
    // which stays in place.
    sift_up(heap(), hole_, entry);
    hole_ = kNoHole;
    return;
  }
  if (heap_.size() < kHeapOffset + heap_size_ + 1 + kArity) {
    heap_.resize(kHeapOffset + heap_size_ + 1 + kArity, kSentinel<QueueEntry>);
  }
  sift_up(heap(), heap_size_, entry);
  ++heap_size_;
}

void Engine::fill_hole() {
  if (hole_ == kNoHole) return;
  // Floyd's second half: the last entry rises from the hole (usually by a step or none).
  QueueEntry* const entries = heap();
  const std::size_t last = --heap_size_;
  if (hole_ != last) sift_up(entries, hole_, entries[last]);
  entries[last] = kSentinel<QueueEntry>;
  hole_ = kNoHole;
}

EventId Engine::schedule_at(SimTime time_s, Callback callback, void* context) {
  CODESIM_CHECK(time_s >= now_, "cannot schedule an event in the past");  // NaN fails too
  CODESIM_CHECK(callback != nullptr, "an event needs a callback");
  if (time_s == INFINITY) return {};  // never runs: not queued, and the handle matches nothing
  const std::uint32_t index = acquire_slot();
  push(time_s, index);
  Slot& slot = slots_[index];
  slot.callback = callback;
  slot.context = context;
  return {index, slot.generation};
}

EventId Engine::schedule_at(SimTime time_s, Action action) {
  CODESIM_CHECK(time_s >= now_, "cannot schedule an event in the past");  // NaN fails too
  if (time_s == INFINITY) return {};  // never runs: not queued, and the handle matches nothing
  const std::uint32_t index = acquire_slot();
  if (actions_.size() <= index) actions_.resize(slots_.size());
  push(time_s, index);
  Slot& slot = slots_[index];
  slot.callback = kStoredAction;
  slot.context = this;  // prefetched like any context: harmless
  // Last: the caller has usually just built `action`, and copying it right away would stall on
  // store-to-load forwarding (its 16-byte copy reads two 8-byte stores still in flight).
  actions_[index] = std::move(action);
  return {index, slot.generation};
}

bool Engine::cancel(EventId id) {
  if (id.slot >= slots_.size()) return false;
  Slot& slot = slots_[id.slot];
  if (slot.generation != id.generation) return false;
  if (slot.callback == kStoredAction) actions_[id.slot] = nullptr;
  slot.callback = nullptr;  // the heap entry stays, keeps the slot, and is skipped when popped
  ++slot.generation;
  --pending_;
  // Far-future entries may never reach the top: drop them once they dominate the heap, so
  // memory follows the pending events, not the cancellations (amortized O(1) per cancel).
  if (heap_size_ - pending_ > pending_ + kStaleSlack) compact();
  return true;
}

void Engine::compact() {
  fill_hole();
  QueueEntry* const entries = heap();
  std::size_t live = 0;
  for (std::size_t i = 0; i < heap_size_; ++i) {
    const QueueEntry entry = entries[i];
    const auto slot = static_cast<std::uint32_t>(entry.order & kSlotMask);
    if (slots_[slot].callback != nullptr) {
      entries[live++] = entry;
    } else {
      release(slot);
    }
  }
  heap_.resize(kHeapOffset + live + 1 + kArity);
  std::fill(heap_.begin() + static_cast<std::ptrdiff_t>(kHeapOffset + live), heap_.end(),
            kSentinel<QueueEntry>);
  heap_size_ = live;
  // Floyd's heap construction; (time, sequence) keys are unique, so the order of the events
  // that run does not depend on the heap's layout.
  for (std::size_t i = live / kArity + 1; i-- > 0;) sift_down(heap(), i, live);
}

void Engine::renumber() {
  fill_hole();
  if (heap_size_ == 0) {  // heap_ may not be allocated yet
    next_sequence_ = 0;
    return;
  }
  // A sorted array is a heap, and keeps its order under the new sequences.
  QueueEntry* const entries = heap();
  std::sort(entries, entries + heap_size_,
            [](const QueueEntry& a, const QueueEntry& b) { return runs_before(a, b); });
  for (std::size_t i = 0; i < heap_size_; ++i) {
    entries[i].order = (std::uint64_t{i} << kSlotBits) | (entries[i].order & kSlotMask);
  }
  next_sequence_ = heap_size_;
}

void Engine::run_stored_action(std::uint32_t slot) {
  // Moved out first: the action may schedule events that reuse the slot or grow actions_.
  const Action action = std::move(actions_[slot]);
  actions_[slot] = nullptr;
  action();
}

// Inlined into run() and run_until(): a call per event costs a dozen instructions.
[[gnu::always_inline]] inline bool Engine::pop_and_run_next(SimTime end_s) {
  for (;;) {
    fill_hole();  // left by the previous event when it scheduled nothing
    if (heap_size_ == 0) return false;
    QueueEntry* const entries = heap();  // not before: heap_ may not be allocated yet
    const QueueEntry top = entries[0];
    const SimTime time_s = std::bit_cast<SimTime>(top.time_bits);
    if (time_s > end_s) return false;
    const auto index = static_cast<std::uint32_t>(top.order & kSlotMask);
    Slot& slot = slots_[index];
    const Slot event = slot;
    // The callback reads its context right away: start loading it during the pop.
    __builtin_prefetch(event.context);
    // The hole is filled by the first event this one schedules, else by fill_hole().
    hole_ = sink_root(entries, heap_size_);
    // The next event's slot, most likely a cache miss, arrives while this one runs.
    if (heap_size_ > 1) __builtin_prefetch(&slots_[entries[0].order & kSlotMask]);
    release(index);
    if (event.callback == nullptr) continue;  // cancelled
    ++slot.generation;
    --pending_;
    now_ = time_s;
    ++events_run_;
    if (event.callback == kStoredAction) {
      run_stored_action(index);
    } else {
      event.callback(event.context);
    }
    return true;
  }
}

void Engine::run() {
  stopped_ = false;
  while (!stopped_ && pop_and_run_next(INFINITY)) {
  }
}

void Engine::finish_at(SimTime end_s) {
  CODESIM_CHECK(end_s >= now_, "finish_at into the past");
  now_ = end_s;
  stopped_ = true;
}

void Engine::run_until(SimTime end_s) {
  CODESIM_CHECK(end_s >= now_, "run_until into the past");
  stopped_ = false;
  while (!stopped_ && pop_and_run_next(end_s)) {
  }
  if (!stopped_) now_ = end_s;
}

}  // namespace codesim::sim
