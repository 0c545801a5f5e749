// Uncoded: a replication scheme with one copy, summarized as "uncoded".
#include "models/coding/uncoded_scheme.hpp"

namespace codesim::models {
UncodedScheme::UncodedScheme(int m, int n, int rows, int cols)
    : ReplicationScheme(uncoded_spec(m, n), 1, rows, cols) {}

}  // namespace codesim::models
