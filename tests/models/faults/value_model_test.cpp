// Value models: bit flips change exactly the chosen bits with the hand-computed results, bit
// fields restrict positions, entry counts follow the documented rule, additive and replacement
// models stay in range, and float32 data is handled in its own representation.
#include "models/faults/value_model.hpp"

#include <doctest/doctest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <set>
#include <vector>

using namespace codesim::models;
using codesim::sim::RandomStream;
using codesim::sim::StreamKey;

namespace {

RandomStream test_stream(std::uint64_t index = 0) {
  return RandomStream(StreamKey{2024, 0, "fault_value_test", index});
}

/// A bitflip of exactly `bit` on one entry.
ValueModelSpec flip_of(int bit) {
  ValueModelSpec spec = value_model_defaults(ValueModelKind::bitflip);
  spec.bit_list = {bit};
  return spec;
}

/// `value` with `bit` flipped by the bitflip model (on a 1 x 1 matrix).
double flipped(double value, int bit) {
  Eigen::MatrixXd m(1, 1);
  m(0, 0) = value;
  RandomStream stream = test_stream();
  const std::vector<FaultEntry> changes = apply_value_model(flip_of(bit), m, stream);
  REQUIRE(changes.size() == 1);
  CHECK(changes[0].bit == bit);
  CHECK(changes[0].old_bits == bits_of(value));
  CHECK(changes[0].new_bits == bits_of(m(0, 0)));
  return m(0, 0);
}

float flipped(float value, int bit) {
  Eigen::MatrixXf m(1, 1);
  m(0, 0) = value;
  RandomStream stream = test_stream();
  const std::vector<FaultEntry> changes = apply_value_model(flip_of(bit), m, stream);
  REQUIRE(changes.size() == 1);
  CHECK(changes[0].old_bits == bits_of(value));
  CHECK(changes[0].new_bits == bits_of(m(0, 0)));
  return m(0, 0);
}

Eigen::MatrixXd ramp(Eigen::Index rows, Eigen::Index cols) {
  Eigen::MatrixXd m(rows, cols);
  for (Eigen::Index i = 0; i < m.size(); ++i) m.data()[i] = 0.25 + 0.125 * static_cast<double>(i);
  return m;
}

}  // namespace

TEST_CASE("a single-bit flip changes exactly that bit of the entry") {
  const double value = -1234.5678e-3;
  for (int bit = 0; bit < 64; ++bit) {
    CAPTURE(bit);
    const double after = flipped(value, bit);
    CHECK((bits_of(value) ^ bits_of(after)) == (std::uint64_t{1} << bit));
  }
  const float small = 0.375f;
  for (int bit = 0; bit < 32; ++bit) {
    CAPTURE(bit);
    CHECK((bits_of(small) ^ bits_of(flipped(small, bit))) == (std::uint64_t{1} << bit));
  }
}

TEST_CASE("bit flips of 1.0, 2.0 and 3.0 give the hand-computed values") {
  // 1.0 = 0x3FF0000000000000: sign 0, exponent 0x3FF (bit 62 clear, bits 61..52 set), mantissa 0.
  CHECK(bits_of(flipped(1.0, 63)) == 0xBFF0000000000000ULL);  // -1.0
  CHECK(flipped(1.0, 63) == -1.0);
  CHECK(bits_of(flipped(1.0, 62)) == 0x7FF0000000000000ULL);  // exponent all ones: +inf
  CHECK(flipped(1.0, 62) == std::numeric_limits<double>::infinity());
  CHECK(flipped(1.0, 61) == std::ldexp(1.0, -512));  // exponent 0x1FF = 511
  CHECK(flipped(1.0, 52) == 0.5);                    // exponent 0x3FE
  CHECK(flipped(1.0, 51) == 1.5);                    // top mantissa bit
  CHECK(flipped(1.0, 0) == 1.0 + std::ldexp(1.0, -52));
  // 2.0 = 0x4000000000000000: clearing bit 62 leaves +0.0.
  CHECK(bits_of(flipped(2.0, 62)) == 0);
  // 3.0 = 0x4008000000000000: clearing bit 62 leaves the subnormal 2^51 * 2^-1074 = 2^-1023.
  CHECK(bits_of(flipped(3.0, 62)) == 0x0008000000000000ULL);
  CHECK(flipped(3.0, 62) == std::ldexp(1.0, -1023));
  CHECK(std::fpclassify(flipped(3.0, 62)) == FP_SUBNORMAL);
  // 1.5 = 0x3FF8000000000000: setting bit 62 gives 0x7FF8000000000000, a quiet NaN.
  CHECK(std::isnan(flipped(1.5, 62)));
  CHECK(bits_of(flipped(1.5, 62)) == 0x7FF8000000000000ULL);
  // float32 1.0f = 0x3F800000: exponent 0x7F in bits 30..23.
  CHECK(flipped(1.0f, 30) == std::numeric_limits<float>::infinity());
  CHECK(flipped(1.0f, 29) == std::ldexp(1.0f, -64));  // exponent 0x3F = 63
  CHECK(flipped(1.0f, 23) == 0.5f);
  CHECK(flipped(1.0f, 31) == -1.0f);
  CHECK(flipped(1.0f, 22) == 1.5f);
}

TEST_CASE("bit positions are uniform over all 64 bits by default") {
  ValueModelSpec spec = value_model_defaults(ValueModelKind::bitflip);
  Eigen::MatrixXd m = Eigen::MatrixXd::Constant(1, 1, 1.0);
  RandomStream stream = test_stream(1);
  std::vector<int> counts(64, 0);
  const int draws = 64 * 400;
  for (int i = 0; i < draws; ++i) {
    const std::vector<FaultEntry> changes = apply_value_model(spec, m, stream);
    REQUIRE(changes.size() == 1);
    ++counts[static_cast<std::size_t>(changes[0].bit)];
  }
  // Each count is Binomial(25600, 1/64): mean 400, sd ~19.8; allow 5 sd.
  for (int bit = 0; bit < 64; ++bit) {
    CAPTURE(bit);
    CHECK(std::abs(counts[static_cast<std::size_t>(bit)] - 400) < 100);
  }
}

TEST_CASE("bit fields and explicit lists restrict the flipped positions") {
  auto positions = [](ValueModelSpec spec, bool float32) {
    std::set<int> seen;
    RandomStream stream = test_stream(2);
    for (int i = 0; i < 2000; ++i) {
      if (float32) {
        Eigen::MatrixXf m = Eigen::MatrixXf::Constant(2, 2, 1.0f);
        for (const FaultEntry& e : apply_value_model(spec, m, stream)) seen.insert(e.bit);
      } else {
        Eigen::MatrixXd m = Eigen::MatrixXd::Constant(2, 2, 1.0);
        for (const FaultEntry& e : apply_value_model(spec, m, stream)) seen.insert(e.bit);
      }
    }
    return seen;
  };
  auto range = [](int first, int last) {
    std::set<int> s;
    for (int b = first; b <= last; ++b) s.insert(b);
    return s;
  };
  ValueModelSpec spec = value_model_defaults(ValueModelKind::bitflip);
  spec.field = BitField::sign;
  CHECK(positions(spec, false) == std::set<int>{63});
  CHECK(positions(spec, true) == std::set<int>{31});
  spec.field = BitField::exponent;
  CHECK(positions(spec, false) == range(52, 62));
  CHECK(positions(spec, true) == range(23, 30));
  spec.field = BitField::mantissa;
  CHECK(positions(spec, false) == range(0, 51));
  CHECK(positions(spec, true) == range(0, 22));
  spec.field = BitField::any;
  spec.bit_list = {3, 60};
  CHECK(positions(spec, false) == std::set<int>{3, 60});
}

TEST_CASE("a bitflip of k bits flips k distinct bits per entry, chained in the record") {
  ValueModelSpec spec = value_model_defaults(ValueModelKind::bitflip);
  spec.entries = 2;
  spec.bits = 3;
  Eigen::MatrixXd m = ramp(4, 4);
  const Eigen::MatrixXd before = m;
  RandomStream stream = test_stream(3);
  const std::vector<FaultEntry> changes = apply_value_model(spec, m, stream);
  REQUIRE(changes.size() == 6);
  for (std::size_t e = 0; e < 2; ++e) {
    const FaultEntry* c = &changes[3 * e];
    CHECK(c[0].index == c[1].index);
    CHECK(c[1].index == c[2].index);
    CHECK(c[0].bit < c[1].bit);
    CHECK(c[1].bit < c[2].bit);
    CHECK(c[1].old_bits == c[0].new_bits);
    CHECK(c[2].old_bits == c[1].new_bits);
    const std::uint64_t mask = (std::uint64_t{1} << c[0].bit) | (std::uint64_t{1} << c[1].bit) |
                               (std::uint64_t{1} << c[2].bit);
    const auto index = static_cast<Eigen::Index>(c[0].index);
    CHECK((bits_of(before.data()[index]) ^ bits_of(m.data()[index])) == mask);
    CHECK(c[2].new_bits == bits_of(m.data()[index]));
  }
  CHECK(changes[0].index < changes[3].index);
  // Everything else is untouched.
  Eigen::MatrixXd diff = m;
  diff.data()[changes[0].index] = before.data()[changes[0].index];
  diff.data()[changes[3].index] = before.data()[changes[3].index];
  CHECK(diff == before);
}

TEST_CASE("the number of entries struck follows round(density * size), at least one") {
  ValueModelSpec spec = value_model_defaults(ValueModelKind::sparse_additive);
  CHECK(spec.density == 0.005);
  CHECK(spec.magnitude == 5.0);
  CHECK(entries_to_corrupt(spec, 5000) == 25);
  CHECK(entries_to_corrupt(spec, 9) == 1);  // round(0.045) = 0, raised to 1
  CHECK(entries_to_corrupt(spec, 0) == 0);
  spec.density = 0.0013;
  CHECK(entries_to_corrupt(spec, 1000) == 1);
  spec.density = 0.0017;
  CHECK(entries_to_corrupt(spec, 1000) == 2);
  spec.density = 1.0;
  CHECK(entries_to_corrupt(spec, 77) == 77);
  spec.entries = 7;
  CHECK(entries_to_corrupt(spec, 1000) == 7);
  CHECK(entries_to_corrupt(spec, 5) == 5);
  CHECK(value_model_defaults(ValueModelKind::bitflip).entries == 1);
}

TEST_CASE("sparse_additive adds U(-magnitude, magnitude) to the documented number of entries") {
  const ValueModelSpec spec = value_model_defaults(ValueModelKind::sparse_additive);
  RandomStream stream = test_stream(4);
  double sum = 0.0;
  double lowest = 0.0;
  double highest = 0.0;
  int deltas = 0;
  for (int trial = 0; trial < 40; ++trial) {
    Eigen::MatrixXd m = ramp(100, 50);
    const Eigen::MatrixXd before = m;
    const std::vector<FaultEntry> changes = apply_value_model(spec, m, stream);
    REQUIRE(changes.size() == 25);
    std::set<std::int64_t> indices;
    for (const FaultEntry& c : changes) {
      CHECK(c.bit == -1);
      CHECK(c.old_bits == bits_of(before.data()[c.index]));
      CHECK(c.new_bits == bits_of(m.data()[c.index]));
      const double delta = m.data()[c.index] - before.data()[c.index];
      CHECK(delta >= -5.0 - 1e-12);
      CHECK(delta <= 5.0 + 1e-12);
      sum += delta;
      lowest = std::min(lowest, delta);
      highest = std::max(highest, delta);
      ++deltas;
      indices.insert(c.index);
    }
    CHECK(indices.size() == 25);  // without replacement
    CHECK(
        std::is_sorted(changes.begin(), changes.end(),
                       [](const FaultEntry& a, const FaultEntry& b) { return a.index < b.index; }));
    CHECK((m.array() != before.array()).count() == 25);
  }
  // 1000 deltas of U(-5, 5): sd of the mean = 5 / sqrt(3) / sqrt(1000) ~ 0.091.
  CHECK(std::abs(sum / deltas) < 0.5);
  CHECK(lowest < -4.8);
  CHECK(highest > 4.8);
  // Magnitude 0 is a valid no-op (and must not hang in the uniform draw).
  ValueModelSpec zero = spec;
  zero.magnitude = 0.0;
  Eigen::MatrixXd same = ramp(10, 10);
  CHECK(apply_value_model(zero, same, stream).size() == 1);
  CHECK(same == ramp(10, 10));
  // A small block still gets one entry.
  Eigen::MatrixXd tiny = ramp(3, 3);
  CHECK(apply_value_model(spec, tiny, stream).size() == 1);
}

TEST_CASE("entries are chosen uniformly without replacement") {
  RandomStream stream = test_stream(5);
  std::vector<int> counts(10, 0);
  const int trials = 20000;
  for (int t = 0; t < trials; ++t) {
    const std::vector<std::int64_t> chosen = choose_without_replacement(10, 3, stream);
    REQUIRE(chosen.size() == 3);
    CHECK(chosen[0] < chosen[1]);
    CHECK(chosen[1] < chosen[2]);
    for (const std::int64_t c : chosen) ++counts[static_cast<std::size_t>(c)];
  }
  // Each element is chosen with probability 0.3: mean 6000, sd ~64.8; allow 5 sd.
  for (const int c : counts) CHECK(std::abs(c - 6000) < 325);
  // The set path (small share of n) also gives distinct sorted picks.
  const std::vector<std::int64_t> few = choose_without_replacement(1'000'000, 50, stream);
  CHECK(std::set<std::int64_t>(few.begin(), few.end()).size() == 50);
  CHECK(std::is_sorted(few.begin(), few.end()));
  CHECK(choose_without_replacement(4, 4, stream) == std::vector<std::int64_t>{0, 1, 2, 3});
  CHECK(choose_without_replacement(4, 0, stream).empty());
}

TEST_CASE("random_value, gaussian and stuck_at_zero produce values of their law") {
  RandomStream stream = test_stream(6);
  ValueModelSpec spec = value_model_defaults(ValueModelKind::random_value);
  spec.lo = 10.0;
  spec.hi = 12.0;
  spec.density = 0.5;
  Eigen::MatrixXd m = ramp(20, 20);
  std::vector<FaultEntry> changes = apply_value_model(spec, m, stream);
  CHECK(changes.size() == 200);
  for (const FaultEntry& c : changes) {
    const double v = value_of_bits(c.new_bits, ScalarType::float64);
    CHECK(v >= 10.0);
    CHECK(v < 12.0);
  }

  spec = value_model_defaults(ValueModelKind::gaussian);
  spec.sigma = 2.0;
  spec.density = 1.0;
  m = Eigen::MatrixXd::Zero(100, 100);
  changes = apply_value_model(spec, m, stream);
  CHECK(changes.size() == 10000);
  const double mean = m.mean();
  const double sd = std::sqrt((m.array() - mean).square().sum() / (m.size() - 1.0));
  CHECK(std::abs(mean) < 0.1);       // sd of the mean 0.02
  CHECK(std::abs(sd - 2.0) < 0.06);  // sd of the sd ~0.014

  spec = value_model_defaults(ValueModelKind::stuck_at_zero);
  spec.entries = 5;
  m = ramp(4, 4);
  changes = apply_value_model(spec, m, stream);
  CHECK(changes.size() == 5);
  for (const FaultEntry& c : changes) CHECK(c.new_bits == 0);  // +0.0
  CHECK((m.array() == 0.0).count() == 5);
}

TEST_CASE("float32 data is corrupted in float32 arithmetic") {
  RandomStream stream = test_stream(7);
  ValueModelSpec spec = value_model_defaults(ValueModelKind::sparse_additive);
  spec.density = 0.1;
  Eigen::MatrixXf m = Eigen::MatrixXf::Constant(10, 10, 0.5f);
  const std::vector<FaultEntry> changes = apply_value_model(spec, m, stream);
  CHECK(changes.size() == 10);
  for (const FaultEntry& c : changes) {
    CHECK(c.old_bits == bits_of(0.5f));
    CHECK(c.new_bits <= 0xFFFFFFFFULL);
    CHECK(c.new_bits == bits_of(m.data()[c.index]));
    CHECK(std::abs(m.data()[c.index] - 0.5f) <= 5.0f);
  }
}

TEST_CASE("a model applied to a block changes only the block, with block-local indices") {
  Eigen::MatrixXd m = ramp(6, 6);
  const Eigen::MatrixXd before = m;
  ValueModelSpec spec = value_model_defaults(ValueModelKind::stuck_at_zero);
  spec.density = 1.0;
  RandomStream stream = test_stream(8);
  const std::vector<FaultEntry> changes = apply_value_model(spec, m.block(1, 2, 3, 2), stream);
  REQUIRE(changes.size() == 6);
  for (std::size_t j = 0; j < 6; ++j) {
    CHECK(changes[j].index == static_cast<std::int64_t>(j));
    // Column-major within the block: index = col * 3 + row.
    CHECK(changes[j].old_bits == bits_of(before(1 + static_cast<Eigen::Index>(j % 3),
                                                2 + static_cast<Eigen::Index>(j / 3))));
  }
  CHECK(m.block(1, 2, 3, 2).isZero(0.0));
  Eigen::MatrixXd rest = m;
  rest.block(1, 2, 3, 2) = before.block(1, 2, 3, 2);
  CHECK(rest == before);
  // A vector binds too.
  Eigen::VectorXd v = Eigen::VectorXd::Ones(4);
  spec.entries = 1;
  CHECK(apply_value_model(spec, v, stream).size() == 1);
  CHECK(v.sum() == 3.0);
}

TEST_CASE("the same stream key gives the same corruption") {
  const ValueModelSpec spec = value_model_defaults(ValueModelKind::sparse_additive);
  Eigen::MatrixXd a = ramp(40, 40);
  Eigen::MatrixXd b = ramp(40, 40);
  RandomStream sa = test_stream(9);
  RandomStream sb = test_stream(9);
  CHECK(apply_value_model(spec, a, sa) == apply_value_model(spec, b, sb));
  CHECK(a == b);
  Eigen::MatrixXd c = ramp(40, 40);
  RandomStream sc = test_stream(10);
  apply_value_model(spec, c, sc);
  CHECK(c != a);
}

TEST_CASE("invalid value models are rejected with a reason") {
  auto problem = [](auto change, ValueModelKind kind = ValueModelKind::bitflip,
                    ScalarType scalar = ScalarType::float64) {
    ValueModelSpec spec = value_model_defaults(kind);
    change(spec);
    return validate_value_model(spec, scalar);
  };
  CHECK(problem([](ValueModelSpec&) {}).empty());
  CHECK(problem([](ValueModelSpec&) {}, ValueModelKind::sparse_additive).empty());
  CHECK(!problem([](ValueModelSpec& s) { s.entries = -1; }).empty());
  CHECK(!problem([](ValueModelSpec& s) { s.density = 1.5; }, ValueModelKind::gaussian).empty());
  CHECK(!problem([](ValueModelSpec& s) { s.density = 0.0; }, ValueModelKind::gaussian).empty());
  CHECK(!problem([](ValueModelSpec& s) { s.bits = 0; }).empty());
  CHECK(!problem([](ValueModelSpec& s) {
           s.field = BitField::sign;
           s.bits = 2;
         }).empty());
  CHECK(!problem([](ValueModelSpec& s) { s.bit_list = {64}; }).empty());
  CHECK(!problem([](ValueModelSpec& s) { s.bit_list = {3, 3}; }).empty());
  CHECK(!problem([](ValueModelSpec& s) {
           s.bit_list = {3};
           s.field = BitField::exponent;
         }).empty());
  CHECK(problem([](ValueModelSpec& s) { s.bit_list = {40}; }).empty());
  CHECK(!problem([](ValueModelSpec& s) { s.bit_list = {40}; }, ValueModelKind::bitflip,
                 ScalarType::float32)
             .empty());
  auto nine_exponent_bits = [](ValueModelSpec& s) {
    s.field = BitField::exponent;
    s.bits = 9;
  };
  CHECK(problem(nine_exponent_bits).empty());  // float64 has 11 exponent bits
  CHECK(!problem(nine_exponent_bits, ValueModelKind::bitflip, ScalarType::float32).empty());
  CHECK(!problem([](ValueModelSpec& s) { s.lo = s.hi; }, ValueModelKind::random_value).empty());
  CHECK(!problem(
             [](ValueModelSpec& s) {
               s.lo = -1e308;
               s.hi = 1e308;
             },
             ValueModelKind::random_value)
             .empty());
  CHECK(!problem([](ValueModelSpec& s) { s.magnitude = 1e308; }, ValueModelKind::sparse_additive)
             .empty());
  CHECK(!problem([](ValueModelSpec& s) { s.sigma = -1.0; }, ValueModelKind::gaussian).empty());
  CHECK(!problem([](ValueModelSpec& s) { s.magnitude = std::nan(""); },
                 ValueModelKind::sparse_additive)
             .empty());
}

TEST_CASE("model, field and scalar names round-trip") {
  for (const std::string_view name : kValueModelKindNames) {
    REQUIRE(parse_value_model_kind(name).has_value());
    CHECK(to_string(*parse_value_model_kind(name)) == name);
  }
  for (const std::string_view name : kBitFieldNames)
    CHECK(to_string(*parse_bit_field(name)) == name);
  for (const std::string_view name : kScalarTypeNames) {
    CHECK(to_string(*parse_scalar_type(name)) == name);
  }
  CHECK(!parse_value_model_kind("bit_flip").has_value());
  CHECK(is_nan_bits(0x7FF0000000000001ULL, ScalarType::float64));
  CHECK(is_inf_bits(0xFF800000ULL, ScalarType::float32));
  CHECK(!is_inf_bits(0x7F7FFFFFULL, ScalarType::float32));
}
