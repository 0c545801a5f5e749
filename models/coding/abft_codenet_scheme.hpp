// The hybrid of ABFT and the CodeNet grid: local checks at every node, the grid code across them.
#pragma once

#include "models/coding/scheme_spec.hpp"

namespace codesim::models {

/// The abft_codenet descriptor: the CodeNet grid's fields and rules, and a CodenetGridScheme
/// whose blocks carry ABFT checksums. A node corrects one wrong entry per column of its partial
/// (and repairs its block) before the grid decode; what it cannot fix it withholds, an erasure
/// the grid code tolerates like a straggler's; the grid handles stragglers and crashes.
const SchemeDescriptor& abft_codenet_descriptor();

}  // namespace codesim::models
