// MpiRankChannel: broadcasts, gathers and point-to-point messages of bytes over a duplicate of
// MPI_COMM_WORLD, cut into pieces of at most 1 GiB (MPI counts are ints).
#include "app/exec/mpi_rank_channel.hpp"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "app/exec/unit_executor.hpp"

#ifdef CODESIM_WITH_MPI
#include <mpi.h>
#endif

namespace codesim::app {

#ifdef CODESIM_WITH_MPI
namespace {

constexpr std::size_t kPieceBytes = std::size_t{1} << 30;

void check(int code, const char* what) {
  if (code != MPI_SUCCESS) throw std::runtime_error(std::string("MPI failure in ") + what);
}

// Counts a call's bytes and time into `traffic`.
class Metered {
 public:
  Metered(RankTraffic& traffic, std::size_t bytes) : traffic_(traffic) {
    traffic_.bytes += static_cast<double>(bytes);
    traffic_.messages += 1;
  }
  ~Metered() {
    traffic_.seconds +=
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  }
  Metered(const Metered&) = delete;
  Metered& operator=(const Metered&) = delete;

 private:
  RankTraffic& traffic_;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

class MpiRankChannel final : public models::RankChannel {
 public:
  MpiRankChannel() {
    check(MPI_Comm_dup(MPI_COMM_WORLD, &comm_), "MPI_Comm_dup");
    MPI_Comm_rank(comm_, &rank_);
    MPI_Comm_size(comm_, &size_);
  }
  ~MpiRankChannel() override { MPI_Comm_free(&comm_); }
  MpiRankChannel(const MpiRankChannel&) = delete;
  MpiRankChannel& operator=(const MpiRankChannel&) = delete;

  int rank() const override { return rank_; }
  int size() const override { return size_; }

  void broadcast(int root, models::Bytes& bytes) override {
    const Metered metered(traffic_, rank_ == root ? bytes.size() : 0);
    std::uint64_t length = bytes.size();
    check(MPI_Bcast(&length, 1, MPI_UINT64_T, root, comm_), "MPI_Bcast");
    if (rank_ != root) {
      bytes.resize(length);
      traffic_.bytes += static_cast<double>(length);
    }
    for (std::size_t at = 0; at < length; at += kPieceBytes) {
      const int count = static_cast<int>(std::min(kPieceBytes, length - at));
      check(MPI_Bcast(bytes.data() + at, count, MPI_CHAR, root, comm_), "MPI_Bcast");
    }
  }

  std::vector<models::Bytes> all_gather(const models::Bytes& mine) override {
    // One MPI_Allgatherv when the counts fit in ints, else a broadcast from every rank.
    std::uint64_t length = mine.size();
    std::vector<std::uint64_t> lengths(static_cast<std::size_t>(size_));
    check(MPI_Allgather(&length, 1, MPI_UINT64_T, lengths.data(), 1, MPI_UINT64_T, comm_),
          "MPI_Allgather");
    std::uint64_t total = 0;
    for (std::uint64_t l : lengths) total += l;
    if (total < kPieceBytes) return gather_in_one(mine, lengths, total);
    std::vector<models::Bytes> all(static_cast<std::size_t>(size_));
    for (int root = 0; root < size_; ++root) {
      models::Bytes& bytes = all[static_cast<std::size_t>(root)];
      if (root == rank_) bytes = mine;
      broadcast(root, bytes);
    }
    return all;
  }

  void send(int to, const models::Bytes& bytes) override {
    const Metered metered(traffic_, bytes.size());
    std::uint64_t length = bytes.size();
    check(MPI_Send(&length, 1, MPI_UINT64_T, to, 0, comm_), "MPI_Send");
    for (std::size_t at = 0; at < length; at += kPieceBytes) {
      const int count = static_cast<int>(std::min(kPieceBytes, length - at));
      check(MPI_Send(bytes.data() + at, count, MPI_CHAR, to, 0, comm_), "MPI_Send");
    }
  }

  models::Bytes receive(int from) override {
    const Metered metered(traffic_, 0);
    std::uint64_t length = 0;
    check(MPI_Recv(&length, 1, MPI_UINT64_T, from, 0, comm_, MPI_STATUS_IGNORE), "MPI_Recv");
    models::Bytes bytes(length);
    traffic_.bytes += static_cast<double>(length);
    for (std::size_t at = 0; at < length; at += kPieceBytes) {
      const int count = static_cast<int>(std::min(kPieceBytes, length - at));
      check(MPI_Recv(bytes.data() + at, count, MPI_CHAR, from, 0, comm_, MPI_STATUS_IGNORE),
            "MPI_Recv");
    }
    return bytes;
  }

  const RankTraffic& traffic() const { return traffic_; }

 private:
  std::vector<models::Bytes> gather_in_one(const models::Bytes& mine,
                                           const std::vector<std::uint64_t>& lengths,
                                           std::uint64_t total) {
    const Metered metered(traffic_, total);
    std::vector<int> counts(lengths.size()), offsets(lengths.size());
    int at = 0;
    for (std::size_t r = 0; r < lengths.size(); ++r) {
      counts[r] = static_cast<int>(lengths[r]);
      offsets[r] = at;
      at += counts[r];
    }
    models::Bytes joined(total);
    check(MPI_Allgatherv(mine.data(), counts[static_cast<std::size_t>(rank_)], MPI_CHAR,
                         joined.data(), counts.data(), offsets.data(), MPI_CHAR, comm_),
          "MPI_Allgatherv");
    std::vector<models::Bytes> all(lengths.size());
    for (std::size_t r = 0; r < lengths.size(); ++r)
      all[r].assign(joined.begin() + offsets[r], joined.begin() + offsets[r] + counts[r]);
    return all;
  }

  RankTraffic traffic_;
  MPI_Comm comm_ = MPI_COMM_NULL;
  int rank_ = 0;
  int size_ = 1;
};

}  // namespace

std::unique_ptr<models::RankChannel> make_rank_channel() {
  if (!mpi_active()) return nullptr;
  return std::make_unique<MpiRankChannel>();
}

RankTraffic rank_traffic(const models::RankChannel& channel) {
  const auto* mpi = dynamic_cast<const MpiRankChannel*>(&channel);
  return mpi != nullptr ? mpi->traffic() : RankTraffic{};
}

int ranks_on_this_machine() {
  if (!mpi_active()) return 1;
  MPI_Comm local = MPI_COMM_NULL;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &local);
  int size = 1;
  MPI_Comm_size(local, &size);
  MPI_Comm_free(&local);
  return size;
}

#else

std::unique_ptr<models::RankChannel> make_rank_channel() { return nullptr; }
RankTraffic rank_traffic(const models::RankChannel&) { return {}; }
int ranks_on_this_machine() { return 1; }

#endif

}  // namespace codesim::app
