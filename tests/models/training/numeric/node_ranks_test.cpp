// A run spread over ranks gives the one-process run's bits: ranks as threads of this test
// exchanging messages through in-memory mailboxes (the MPI channel's contract without MPI, so
// that the sanitizers see the exchanges), and the packing of messages.
#include <condition_variable>
#include <deque>
#include <map>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

#include <doctest/doctest.h>

#include "models/training/numeric/node_ranks.hpp"
#include "tests/models/training/coded_training_test_support.hpp"

namespace codesim::models {
namespace {

using namespace testing;

// FIFO mailboxes between every pair of ranks: a broadcast is the root's sends to every other
// rank, an all-gather every rank's; ranks in lockstep make them in the same order.
struct Mailboxes {
  std::mutex mutex;
  std::condition_variable arrived;
  std::map<std::pair<int, int>, std::deque<Bytes>> queues;  // (from, to)
};

class ThreadChannel final : public RankChannel {
 public:
  ThreadChannel(Mailboxes& boxes, int rank, int size) : boxes_(boxes), rank_(rank), size_(size) {}
  int rank() const override { return rank_; }
  int size() const override { return size_; }
  void broadcast(int root, Bytes& bytes) override {
    if (rank_ == root) {
      for (int r = 0; r < size_; ++r)
        if (r != root) send(r, bytes);
    } else {
      bytes = receive(root);
    }
  }
  std::vector<Bytes> all_gather(const Bytes& mine) override {
    for (int r = 0; r < size_; ++r)
      if (r != rank_) send(r, mine);
    std::vector<Bytes> all(static_cast<std::size_t>(size_));
    for (int r = 0; r < size_; ++r)
      all[static_cast<std::size_t>(r)] = r == rank_ ? mine : receive(r);
    return all;
  }
  void send(int to, const Bytes& bytes) override {
    const std::lock_guard<std::mutex> lock(boxes_.mutex);
    boxes_.queues[{rank_, to}].push_back(bytes);
    boxes_.arrived.notify_all();
  }
  Bytes receive(int from) override {
    std::unique_lock<std::mutex> lock(boxes_.mutex);
    std::deque<Bytes>& queue = boxes_.queues[{from, rank_}];
    boxes_.arrived.wait(lock, [&] { return !queue.empty(); });
    Bytes bytes = std::move(queue.front());
    queue.pop_front();
    return bytes;
  }

 private:
  Mailboxes& boxes_;
  int rank_;
  int size_;
};

// Faults on every target, stragglers, crashes and checkpoints, with the audit.
struct Setting {
  TrainingSpec spec;
  sim::ClusterSpec cluster;
  FaultConfig faults;
};

Setting setting(const std::string& kind) {
  Setting s{training(kind, 40, 2), cluster(), default_fault_config()};
  s.spec.audit = true;
  s.spec.eval_every = 10;
  for (auto& straggler : s.cluster.stragglers)
    straggler = sim::ShiftedExponentialStraggler{1.0, 2.0};
  for (auto& crash : s.cluster.crashes) crash = sim::exponential_crashes(2e-4, 1e-6);
  for (FaultTarget target : {FaultTarget::weights, FaultTarget::product, FaultTarget::update,
                             FaultTarget::decode, FaultTarget::activation})
    s.faults[target].rate.probability_per_operation = 0.01;
  return s;
}

TrainingResult run_alone(const Setting& s) {
  FaultInjector injector(s.faults, s.cluster.node_count(), 3, 0);
  return train_coded(s.cluster, every(5), s.spec, injector, data().train, data().test, 3, 0);
}

// Every rank's result (the root's first).
std::vector<TrainingResult> run_on_ranks(const Setting& s, int ranks) {
  Mailboxes boxes;
  std::vector<TrainingResult> results(static_cast<std::size_t>(ranks));
  std::vector<std::thread> threads;
  for (int r = 0; r < ranks; ++r) {
    threads.emplace_back([&, r] {
      ThreadChannel channel(boxes, r, ranks);
      TrainingSpec spec = s.spec;
      spec.ranks = &channel;
      FaultInjector injector(s.faults, s.cluster.node_count(), 3, 0);
      results[static_cast<std::size_t>(r)] =
          train_coded(s.cluster, every(5), spec, injector, data().train, data().test, 3, 0);
    });
  }
  for (std::thread& t : threads) t.join();
  return results;
}

}  // namespace

TEST_CASE("a run spread over three ranks gives the one-process run's metrics, weights and faults") {
  for (const std::string kind : {"codenet_grid", "mds", "abft_codenet", "replication3"}) {
    CAPTURE(kind);
    const Setting s = setting(kind);
    const TrainingResult alone = run_alone(s);
    const std::vector<TrainingResult> ranks = run_on_ranks(s, 3);
    const TrainingResult& root = ranks.front();
    CHECK(alone.metrics.get("faults_injected") > 10.0);
    CHECK(alone.metrics.get("regenerations") + alone.metrics.get("rollbacks") > 0.0);
    CHECK(alone.metrics.get("crashes") > 0.0);
    CHECK(root.metrics.scalars() == alone.metrics.scalars());
    CHECK(root.metrics.series("accuracy_vs_time").values ==
          alone.metrics.series("accuracy_vs_time").values);
    CHECK(root.faults.records == alone.faults.records);
    REQUIRE(root.parameters.weights.size() == alone.parameters.weights.size());
    for (std::size_t l = 0; l < alone.parameters.weights.size(); ++l)
      CHECK(root.parameters.weights[l] == alone.parameters.weights[l]);
    // The other ranks log the same faults; the root alone holds the decoded weights.
    CHECK(ranks[1].faults.records == alone.faults.records);
    CHECK(ranks[2].parameters.weights.front().size() == 0);
  }
}

TEST_CASE("nodes are dealt to the ranks in turn, every rank owning one at least") {
  Mailboxes boxes;
  ThreadChannel channel(boxes, 1, 3);
  const NodeRanks ranks(channel, 7);
  std::vector<int> owners;
  for (int p = 0; p < 7; ++p) owners.push_back(ranks.owner(p));
  CHECK(owners == std::vector<int>{0, 1, 2, 0, 1, 2, 0});
  CHECK(ranks.nodes_of(0) == 3);
  CHECK(ranks.nodes_of(2) == 2);
  CHECK(ranks.residency() == std::vector<char>{0, 1, 0, 0, 1, 0, 0});
  CHECK_FALSE(NodeRanks().distributed());
  CHECK(NodeRanks().mine(5));
}

TEST_CASE("a padded view packs as its rows alone and unpacks equal") {
  Matrix padded = Matrix::Random(6, 3);
  const Eigen::Ref<const Matrix> view = padded.topRows(4);
  Packer packer;
  packer.put<int>(42);
  packer.put_matrix(view);
  CHECK(packer.bytes().size() == sizeof(int) + 2 * sizeof(std::int64_t) + 12 * sizeof(double));
  Unpacker unpacker(packer.bytes());
  CHECK(unpacker.get<int>() == 42);
  CHECK(unpacker.get_matrix() == Matrix(padded.topRows(4)));
}

}  // namespace codesim::models
