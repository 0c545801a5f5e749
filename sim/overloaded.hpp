// Overloaded: one visitor made of several lambdas, for std::visit over a variant whose every
// alternative must be handled, so that a new alternative fails to compile where it is visited.
#pragma once

namespace codesim::sim {

/// std::visit(Overloaded{[](const A&) { ... }, [](const B&) { ... }}, variant).
template <class... F>
struct Overloaded : F... {
  using F::operator()...;
};

}  // namespace codesim::sim
