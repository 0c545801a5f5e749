// BuildOnceMap: values that are costly to build and pure in their key (correction tables, fault-
// free probes), built once per process by the first thread that asks; a thread asking for another
// key never waits for that build, and one asking for the same key waits for it only.
#pragma once

#include <map>
#include <mutex>
#include <optional>

namespace codesim::sim {

template <typename Key, typename Value>
class BuildOnceMap {
 public:
  /// The value of `key`, built by `build()` (returning a Value) if no thread has built it yet.
  /// The reference stays valid for the map's lifetime (std::map never moves its entries). When
  /// `build` throws, the exception propagates and the next call builds again.
  template <typename Build>
  const Value& get(const Key& key, const Build& build) {
    Entry* entry = nullptr;
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      entry = &entries_[key];
    }
    std::call_once(entry->built, [&] { entry->value.emplace(build()); });
    return *entry->value;
  }

 private:
  struct Entry {
    std::once_flag built;
    std::optional<Value> value;
  };
  std::mutex mutex_;
  std::map<Key, Entry> entries_;
};

}  // namespace codesim::sim
