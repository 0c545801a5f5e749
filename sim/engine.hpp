// The discrete-event engine: a plain value holding simulated time and a queue of closures.
#pragma once

#include <cstdint>
#include <functional>
#include <new>
#include <vector>

namespace codesim::sim {

/// Simulated time in seconds.
using SimTime = double;

/// Handle of a scheduled event; stays valid (and harmless to cancel) after the event ran.
struct EventId {
  std::uint32_t slot = 0;
  std::uint32_t generation = 0;
};

/// Allocates on cache-line boundaries (std::allocator only promises 16 bytes).
template <class T>
struct CacheLineAllocator {
  using value_type = T;
  static constexpr std::align_val_t kAlignment{64};
  CacheLineAllocator() = default;
  template <class U>
  CacheLineAllocator(const CacheLineAllocator<U>& /*other*/) {}
  T* allocate(std::size_t n) { return static_cast<T*>(::operator new(n * sizeof(T), kAlignment)); }
  void deallocate(T* p, std::size_t /*n*/) { ::operator delete(p, kAlignment); }
  friend bool operator==(const CacheLineAllocator&, const CacheLineAllocator&) { return true; }
};

/// Gives tests access to the engine's internals (engine_sequence_test.cpp).
struct EngineTestAccess;

/// Events are closures run in (time, scheduling sequence) order, so equal times run FIFO.
/// No globals: every replica owns its engine.
class Engine {
 public:
  using Action = std::function<void()>;
  /// The fast path's event: `callback(context)`, nothing to copy, call through or destroy.
  using Callback = void (*)(void* context);

  /// Schedules `action` at absolute time `time_s` (>= now()). At +infinity (a delay that
  /// overflowed, a process that never fires) the event never runs: it is dropped and its
  /// handle cancels nothing.
  EventId schedule_at(SimTime time_s, Action action);
  /// Same as above for an event that runs `callback(context)` (`callback` not null); `context`
  /// must outlive the event.
  EventId schedule_at(SimTime time_s, Callback callback, void* context);
  /// Schedules `action` `delay_s` (>= 0, may be +infinity) seconds after now().
  EventId schedule_in(SimTime delay_s, Action action) {
    return schedule_at(now_ + delay_s, std::move(action));
  }
  EventId schedule_in(SimTime delay_s, Callback callback, void* context) {
    return schedule_at(now_ + delay_s, callback, context);
  }
  /// Cancels a pending event; returns false when it already ran or was cancelled.
  bool cancel(EventId id);
  /// Runs events until the queue is empty or stop() is called.
  void run();
  /// Runs events with time <= `end_s`, then advances now() to `end_s` unless stopped first.
  void run_until(SimTime end_s);
  /// Makes run()/run_until() return after the current event.
  void stop() { stopped_ = true; }
  /// Makes run()/run_until() return after the current event with now() at `end_s` (>= now()),
  /// the events before it left unrun: for a run whose outcome up to `end_s` is already known.
  void finish_at(SimTime end_s);

  SimTime now() const { return now_; }
  bool empty() const { return pending_ == 0; }
  std::size_t pending_events() const { return pending_; }
  std::uint64_t events_run() const { return events_run_; }
  /// Entries in the queue, cancelled ones not yet dropped included: at most about twice
  /// pending_events(), whatever the number of cancellations (the queue's memory follows it).
  std::size_t queue_entries() const { return heap_size_ - (hole_ != kNoHole ? 1 : 0); }

 private:
  friend struct EngineTestAccess;
  // Times are >= 0, so their IEEE-754 bit patterns order like the values and compare as integers.
  // `order` is the scheduling sequence in its high 32 bits (it breaks ties) and the slot in its
  // low ones: 16 bytes, four entries per cache line.
  struct QueueEntry {
    std::uint64_t time_bits;
    std::uint64_t order;
  };
  // A slot belongs to one queue entry from scheduling until that entry leaves the queue, so the
  // entry needs no generation: a cancelled event only clears its callback. The generation changes
  // when the event runs or is cancelled, so a handle is current exactly when it matches; it starts
  // at 1, so EventId{} matches nothing. std::function events keep their action in actions_.
  struct Slot {
    Callback callback = nullptr;  // null once cancelled; kStoredAction for actions_[slot]
    void* context = nullptr;
    std::uint32_t generation = 1;
    std::uint32_t next_free = 0;  // the free list's next slot, while free
  };
  static void stored_action(void* engine);  // a marker, never called
  static constexpr Callback kStoredAction = &stored_action;

  std::uint32_t acquire_slot();
  void release(std::uint32_t slot);
  void push(SimTime time_s, std::uint32_t slot);
  // Moves the heap's last entry into the hole the last pop left, if any.
  void fill_hole();
  bool pop_and_run_next(SimTime end_s);
  void run_stored_action(std::uint32_t slot);
  // Drops the cancelled entries from the heap and rebuilds it.
  void compact();
  // Gives the queued entries the sequences 0, 1, ... in their order, when the 32 bits run out.
  void renumber();

  // heap()[0, heap_size_) is a 4-ary min-heap; the entries after it are sentinels that run after
  // everything, so a group of four children can always be read whole. It starts 3 entries into
  // heap_, which is cache-line aligned: the four children of an entry, 64 bytes, are one line.
  static constexpr std::size_t kHeapOffset = 3;
  QueueEntry* heap() { return heap_.data() + kHeapOffset; }
  std::vector<QueueEntry, CacheLineAllocator<QueueEntry>> heap_;
  std::size_t heap_size_ = 0;
  std::vector<Slot> slots_;
  std::vector<Action> actions_;  // sized lazily: the fast path never touches it
  static constexpr std::uint32_t kNoSlot = ~std::uint32_t{0};
  std::uint32_t free_head_ = kNoSlot;  // free slots form a list through Slot::next_free
  // A leaf of the heap whose entry is stale: the last pop sank the root's hole there, and the
  // running event's first schedule fills it (saving a sift) or fill_hole() does.
  static constexpr std::size_t kNoHole = ~std::size_t{0};
  std::size_t hole_ = kNoHole;
  SimTime now_ = 0.0;
  std::uint64_t next_sequence_ = 0;
  std::uint64_t events_run_ = 0;
  std::size_t pending_ = 0;
  bool stopped_ = false;
};

}  // namespace codesim::sim
