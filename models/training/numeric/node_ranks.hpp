// A numeric run distributed over MPI ranks (codesim run --distribute nodes): which rank owns each
// simulated node's blocks, and the messages the protocol exchanges. Every rank runs the same
// engine and protocol in lockstep (the same events, the same random draws, the same decodes); a
// node's own arithmetic (its products, updates, regenerations and the faults that strike its data)
// runs on its owner only, and what the others need of it crosses as a message: the partial results
// at the end of a round, a fault's changed entries, a node's own check, blocks for a regeneration
// or the read-out. Since every rank decides from the same numbers, the run is the single-process
// run, bit for bit, whatever the number of ranks.
#pragma once

#include <cstddef>
#include <cstring>
#include <optional>
#include <span>
#include <type_traits>
#include <vector>

#include "models/coding/coding_scheme.hpp"
#include "models/faults/fault_log.hpp"

namespace codesim::models {

using Bytes = std::vector<char>;

/// The ranks of one run; app/exec implements it over MPI. Every call is made by every rank at the
/// same point of the run, except send and receive, which only the two ranks named make.
class RankChannel {
 public:
  virtual ~RankChannel() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  /// Rank `root`'s `bytes` to every rank (replaced on the others).
  virtual void broadcast(int root, Bytes& bytes) = 0;
  /// Every rank's `mine`, indexed by rank.
  virtual std::vector<Bytes> all_gather(const Bytes& mine) = 0;
  virtual void send(int to, const Bytes& bytes) = 0;
  virtual Bytes receive(int from) = 0;
};

/// Appends plain values and matrices to a message.
class Packer {
 public:
  template <typename T>
  void put(const T& value) {
    static_assert(std::is_trivially_copyable_v<T>);
    const std::size_t at = bytes_.size();
    bytes_.resize(at + sizeof(T));
    std::memcpy(bytes_.data() + at, &value, sizeof(T));
  }
  /// Rows, columns, then the values column by column (a view's padding is not sent).
  void put_matrix(const Eigen::Ref<const Matrix>& m);
  Bytes& bytes() { return bytes_; }

 private:
  Bytes bytes_;
};

/// Reads what a Packer wrote, in the same order.
class Unpacker {
 public:
  explicit Unpacker(const Bytes& bytes) : bytes_(bytes) {}
  template <typename T>
  T get() {
    static_assert(std::is_trivially_copyable_v<T>);
    T value;
    take(&value, sizeof(T));
    return value;
  }
  Matrix get_matrix();

 private:
  void take(void* out, std::size_t size);
  const Bytes& bytes_;
  std::size_t at_ = 0;
};

/// Which rank owns each of the P simulated nodes (round robin: node p on rank p mod R, which
/// spreads every round's participants evenly: a grid row or column is consecutive nodes) and the
/// exchanges of the protocol. Default: one process owning every node, where every exchange is
/// a no-op.
class NodeRanks {
 public:
  NodeRanks() = default;
  /// `channel` outlives this. Precondition: 1 <= channel.size() <= nodes.
  NodeRanks(RankChannel& channel, int nodes);

  bool distributed() const { return channel_ != nullptr; }
  /// The rank that writes results (rank 0; the only one when not distributed).
  bool root() const { return channel_ == nullptr || channel_->rank() == 0; }
  int owner(int node) const;
  bool mine(int node) const { return channel_ == nullptr || owner(node) == channel_->rank(); }
  /// SchemeContext::resident for this rank: empty (every node) when not distributed.
  std::vector<char> residency() const;
  /// The nodes each rank owns, for the preflight: node count per rank.
  int nodes_of(int rank) const;

  /// Point to point, for the read-out: to the root, and the root's receive.
  void send_to_root(const Bytes& bytes) const { channel_->send(0, bytes); }
  Bytes receive_from(int rank) const { return channel_->receive(rank); }
  /// Node `node`'s owner's bytes to every rank.
  void broadcast_from_owner(int node, Bytes& bytes) const;
  /// The present partials (has_value on every rank; an empty placeholder where the node's owner
  /// is another rank) become their owners' values on every rank.
  void share_partials(std::vector<std::optional<Matrix>>& partials) const;
  /// Node `source`'s block storage (layer scheme `scheme`) lent to the owner of `node`, when it is
  /// another rank: sent by the source's owner, held there until `give_back`. Returns whether a
  /// loan was made to this rank.
  bool lend_blocks(CodingScheme& scheme, int source, int node) const;
  /// Node `source`'s block storage lent to every other rank (give_back after use); whether a
  /// loan was made to this rank.
  bool lend_blocks_to_all(CodingScheme& scheme, int source) const;
  static void give_back(CodingScheme& scheme, int source);
  /// Node `node`'s checked partial, computed on its owner (`checked` there), on every rank.
  void share_from_owner(int node, CheckedPartial& checked) const;
  /// A plain value computed on node `node`'s owner (`value` there), on every rank.
  template <typename T>
  void value_from_owner(int node, T& value) const {
    if (channel_ == nullptr) return;
    Packer packer;
    if (mine(node)) packer.put(value);
    broadcast_from_owner(node, packer.bytes());
    if (!mine(node)) value = Unpacker(packer.bytes()).get<T>();
  }

  /// The entries a fault changed on its owner (`record` there, null elsewhere), as every rank
  /// gets them: rows, cols, scalar and entries.
  FaultRecord fault_from_owner(int node, const FaultRecord* record) const;

  RankChannel* channel() const { return channel_; }

 private:
  RankChannel* channel_ = nullptr;
  int nodes_ = 0;
};

}  // namespace codesim::models
