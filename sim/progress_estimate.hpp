// Lower bounds on how long a job with rollbacks is expected to run, from closed forms, so that a
// preflight can refuse a run that cannot finish within its time limit before it starts.
#pragma once

#include "sim/checkpoint_policy.hpp"
#include "sim/cluster.hpp"
#include "sim/iterative_job.hpp"

namespace codesim::sim {

/// Expected iterations executed to complete `iterations` useful ones when each rolls back
/// independently with probability p to the last checkpoint, written every `interval` iterations:
/// iterations / interval intervals of ((1 - p)^-interval - 1) / p executed iterations each
/// (iterations when p = 0, infinite when p = 1).
double expected_executed_iterations(double p, double iterations, double interval);

/// The checkpoint interval in iterations that expected_executed_iterations should assume:
/// every_iterations' own, the whole run without checkpoints, and 1 for the time-based policies
/// (the smallest, so the bound stays a lower bound).
double checkpoint_interval_iterations(const CheckpointSpec& checkpoint, int iterations);

/// Probability that an iteration of `job` on `cluster` holds a detected soft error (and rolls
/// back): 1 - prod over its tasks of (1 - strike probability); 0 when errors are not detected.
double iterative_job_rollback_probability(const ClusterSpec& cluster, const IterativeJobSpec& job);

/// The iteration's compute time if its tasks' flops spread perfectly over every node: a lower
/// bound on its simulated time.
double iterative_job_min_iteration_s(const ClusterSpec& cluster, const IterativeJobSpec& job);

}  // namespace codesim::sim
