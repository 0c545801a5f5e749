// NodeRanks: the owner of each node and the protocol's exchanges between ranks.
#include "models/training/numeric/node_ranks.hpp"

#include <utility>

#include "sim/check.hpp"

namespace codesim::models {

void Packer::put_matrix(const Eigen::Ref<const Matrix>& m) {
  put<std::int64_t>(m.rows());
  put<std::int64_t>(m.cols());
  const std::size_t column = static_cast<std::size_t>(m.rows()) * sizeof(double);
  std::size_t at = bytes_.size();
  bytes_.resize(at + column * static_cast<std::size_t>(m.cols()));
  for (Eigen::Index c = 0; c < m.cols(); ++c, at += column)
    std::memcpy(bytes_.data() + at, m.col(c).data(), column);
}

void Unpacker::take(void* out, std::size_t size) {
  CODESIM_CHECK(at_ + size <= bytes_.size(), "a message holds what its sender packed");
  std::memcpy(out, bytes_.data() + at_, size);
  at_ += size;
}

Matrix Unpacker::get_matrix() {
  const auto rows = get<std::int64_t>();
  const auto cols = get<std::int64_t>();
  Matrix m(rows, cols);
  take(m.data(), static_cast<std::size_t>(m.size()) * sizeof(double));
  return m;
}

NodeRanks::NodeRanks(RankChannel& channel, int nodes) : channel_(&channel), nodes_(nodes) {
  CODESIM_CHECK(channel.size() >= 1 && channel.size() <= nodes, "every rank owns a node");
}

int NodeRanks::owner(int node) const {
  if (channel_ == nullptr) return 0;
  return node % channel_->size();
}

int NodeRanks::nodes_of(int rank) const {
  int count = 0;
  for (int p = 0; p < nodes_; ++p) count += owner(p) == rank;
  return count;
}

std::vector<char> NodeRanks::residency() const {
  if (channel_ == nullptr) return {};
  std::vector<char> resident(static_cast<std::size_t>(nodes_));
  for (int p = 0; p < nodes_; ++p) resident[static_cast<std::size_t>(p)] = mine(p);
  return resident;
}

void NodeRanks::broadcast_from_owner(int node, Bytes& bytes) const {
  if (channel_ != nullptr) channel_->broadcast(owner(node), bytes);
}

void NodeRanks::share_partials(std::vector<std::optional<Matrix>>& partials) const {
  if (channel_ == nullptr) return;
  Packer mine;
  for (std::size_t p = 0; p < partials.size(); ++p) {
    if (partials[p] && this->mine(static_cast<int>(p))) mine.put_matrix(*partials[p]);
  }
  const std::vector<Bytes> all = channel_->all_gather(mine.bytes());
  for (int rank = 0; rank < channel_->size(); ++rank) {
    if (rank == channel_->rank()) continue;
    Unpacker theirs(all[static_cast<std::size_t>(rank)]);
    for (std::size_t p = 0; p < partials.size(); ++p) {
      if (partials[p] && owner(static_cast<int>(p)) == rank) partials[p] = theirs.get_matrix();
    }
  }
}

bool NodeRanks::lend_blocks(CodingScheme& scheme, int source, int node) const {
  if (channel_ == nullptr || owner(source) == owner(node)) return false;
  if (mine(source)) {
    Packer blocks;
    for (Matrix* storage : scheme.block_storage(source)) blocks.put_matrix(*storage);
    channel_->send(owner(node), blocks.bytes());
    return false;
  }
  if (!mine(node)) return false;
  const Bytes bytes = channel_->receive(owner(source));
  Unpacker blocks(bytes);
  for (Matrix* storage : scheme.block_storage(source)) *storage = blocks.get_matrix();
  return true;
}

bool NodeRanks::lend_blocks_to_all(CodingScheme& scheme, int source) const {
  if (channel_ == nullptr) return false;
  Packer blocks;
  if (mine(source)) {
    for (Matrix* storage : scheme.block_storage(source)) blocks.put_matrix(*storage);
  }
  broadcast_from_owner(source, blocks.bytes());
  if (mine(source)) return false;
  Unpacker unpacker(blocks.bytes());
  for (Matrix* storage : scheme.block_storage(source)) *storage = unpacker.get_matrix();
  return true;
}

void NodeRanks::share_from_owner(int node, CheckedPartial& checked) const {
  if (channel_ == nullptr) return;
  Packer packer;
  if (mine(node)) {
    packer.put(checked.check);
    packer.put<char>(checked.partial.has_value());
    if (checked.partial) packer.put_matrix(*checked.partial);
  }
  broadcast_from_owner(node, packer.bytes());
  if (mine(node)) return;
  Unpacker unpacker(packer.bytes());
  checked.check = unpacker.get<DecodeStatus>();
  if (unpacker.get<char>() != 0) checked.partial = unpacker.get_matrix();
}

void NodeRanks::give_back(CodingScheme& scheme, int source) {
  for (Matrix* storage : scheme.block_storage(source)) *storage = Matrix();
}

FaultRecord NodeRanks::fault_from_owner(int node, const FaultRecord* record) const {
  Packer packer;
  if (record != nullptr) {
    packer.put(record->rows);
    packer.put(record->cols);
    packer.put(record->scalar);
    packer.put<std::uint64_t>(record->entries.size());
    for (const FaultEntry& entry : record->entries) packer.put(entry);
  }
  broadcast_from_owner(node, packer.bytes());
  if (record != nullptr) return *record;
  Unpacker unpacker(packer.bytes());
  FaultRecord made;
  made.rows = unpacker.get<std::int64_t>();
  made.cols = unpacker.get<std::int64_t>();
  made.scalar = unpacker.get<ScalarType>();
  made.entries.resize(unpacker.get<std::uint64_t>());
  for (FaultEntry& entry : made.entries) entry = unpacker.get<FaultEntry>();
  return made;
}

}  // namespace codesim::models
