"""Where GPD's simulated time goes (T6's note: the GPD abstract claims negligible decoding overhead, which the quickstart's times seem to contradict): the decode's flops computed from the
scheme on the node model, against the protocol's share (communication, checkpoints and their
verification passes, restarts, work lost to rollbacks), from a training results file."""

from __future__ import annotations

from dataclasses import dataclass

import common

# The training time breakdown (models/training/protocol/time_breakdown.hpp); they add up to the
# completion time.
PARTS = ("time_compute_s", "time_decode_s", "time_communication_s", "time_checkpoint_s",
         "time_restart_s", "time_lost_s", "time_eval_s")
PROTOCOL_PARTS = ("time_communication_s", "time_checkpoint_s", "time_restart_s", "time_lost_s")


def gpd_flops_per_iteration(strategy: dict, layers: list[int], batch: int) -> dict[str, float]:
    """Flops of one training iteration of GPD (m, n) on P nodes on an MLP of `layers`, as the
    time model charges them (models/training/protocol/round_costs.cpp):

    - decode: each round's P symbols (every node's partial; the round waits for all) of L x B
      values, decoded at 2 P^2 L B flops (L = rows / m forward, cols / n backward): a least-squares
      solve over all P symbols, not only K of them; layer 0 has no backward round;
    - a node's task: its (rows / m) x (cols / n) block times the input it encodes itself
      (2 (rows/m)(cols/n) B + 2 cols B forward, 2 (rows/m)(cols/n) B + 2 rows B backward);
    - a node's update: 2 (rows/m)(cols/n) B + 2 (rows + cols) B.
    Also returns K forward and backward (mn + n - 1, 2mn - n)."""
    m, n, nodes = strategy["m"], strategy["n"], strategy["nodes"]
    decode = task = update = 0.0
    for layer, (cols, rows) in enumerate(zip(layers, layers[1:])):
        block = (rows / m) * (cols / n)
        decode += 2.0 * nodes * nodes * (rows / m) * batch
        task += 2.0 * block * batch + 2.0 * cols * batch
        update += 2.0 * block * batch + 2.0 * (rows + cols) * batch
        if layer > 0:
            decode += 2.0 * nodes * nodes * (cols / n) * batch
            task += 2.0 * block * batch + 2.0 * rows * batch
    return {"decode": decode, "task": task, "update": update,
            "k_forward": m * n + n - 1, "k_backward": 2 * m * n - n}


@dataclass
class CostBreakdown:
    label: str
    completion_s: float        # mean over replicas
    shares: dict[str, float]   # each time_*_s over the completion time, pooled over replicas
    protocol_share: float      # communication + checkpoint + restart + lost work
    decode_flops: float        # per iteration, from the scheme
    task_flops: float          # per iteration, one node's products (with its input encoding)
    decode_s_predicted: float  # decode flops / node speed x iterations executed
    decode_s_measured: float   # time_decode_s: committed decodes (redone ones are lost work)
    compute_s_predicted: float  # (task + update flops) / node speed x iterations
    compute_s_measured: float   # time_compute_s (committed)
    k_forward: int
    k_backward: int
    nodes: int
    blocks: int                # m n: each node's block is 1 / (m n) of W


def gpd_breakdown(results: common.Results, label_part: str = "gpd") -> CostBreakdown | None:
    """The breakdown of the first point whose label contains `label_part` and whose strategy is
    GPD; None when there is none."""
    scenario = results.scenario
    for point in results.points:
        strategy = point.params.get("/strategy", scenario.get("strategy", {}))
        label = results.label(point)
        if label_part not in label or strategy.get("scheme") != "gpd" or not point.replicas:
            continue
        workload = scenario["workload"]
        flops = gpd_flops_per_iteration(strategy, workload["layers"], workload.get("batch", 1))
        reps = point.replicas
        total = sum(r["completion_time_s"] for r in reps)
        shares = {part: sum(r.get(part, 0.0) for r in reps) / total for part in PARTS}
        speed = scenario.get("cluster", {}).get("speed_flops_per_s", 1e9)
        # Committed decodes: the useful iterations' (redone ones are inside time_lost_s).
        iterations = sum(r["iterations"] for r in reps)
        return CostBreakdown(
            label=label, completion_s=total / len(reps), shares=shares,
            protocol_share=sum(shares[p] for p in PROTOCOL_PARTS),
            decode_flops=flops["decode"], task_flops=flops["task"],
            decode_s_predicted=flops["decode"] / speed * iterations / len(reps),
            decode_s_measured=sum(r["time_decode_s"] for r in reps) / len(reps),
            compute_s_predicted=(flops["task"] + flops["update"]) / speed * iterations / len(reps),
            compute_s_measured=sum(r["time_compute_s"] for r in reps) / len(reps),
            k_forward=flops["k_forward"], k_backward=flops["k_backward"],
            nodes=strategy["nodes"], blocks=strategy["m"] * strategy["n"])
    return None


def breakdown_note(b: CostBreakdown, codenet_decode_share: float | None = None) -> str:
    """The report's sentence on where GPD's time went."""
    s = b.shares
    text = (f"Where {b.label}'s time went ({b.completion_s:.2f} s per run): decode "
            f"{100 * s['time_decode_s']:.1f}%, node compute {100 * s['time_compute_s']:.1f}%, "
            f"protocol {100 * b.protocol_share:.1f}% (communication "
            f"{100 * s['time_communication_s']:.1f}%, checkpoints with their verification passes "
            f"{100 * s['time_checkpoint_s']:.1f}%, restarts {100 * s['time_restart_s']:.1f}%, "
            f"work lost to rollbacks {100 * s['time_lost_s']:.1f}%), evaluation "
            f"{100 * s['time_eval_s']:.1f}%. From the scheme, each iteration decodes every round "
            f"from all {b.nodes} symbols (K = {b.k_forward} forward, {b.k_backward} backward) at "
            f"2 P^2 L B flops: {b.decode_flops / 1e6:.2f} Mflop per iteration, "
            f"{b.decode_flops / b.task_flops:.2f} times a node's own products "
            f"({b.task_flops / 1e6:.2f} Mflop); at the node speed that is "
            f"{b.decode_s_predicted:.3f} s of decode per run against {b.decode_s_measured:.3f} s "
            "measured (the rest: decodes with errors cost 4 times a clean one). Its nodes' own "
            f"products and updates (a 1/{b.blocks} block of each layer's W per node) predict "
            f"{b.compute_s_predicted:.3f} s of compute per run against "
            f"{b.compute_s_measured:.3f} s measured")
    if codenet_decode_share is not None:
        text += (f". CodeNet's decode is {100 * codenet_decode_share:.1f}% of its time: its "
                 "codewords are short (a grid row or column) and its symbols small")
    return text + "."


def compute_ratio_note(results: common.Results, gpd: CostBreakdown) -> str:
    """Each other strategy's mean completion and compute time beside GPD's, and GPD's compute
    over theirs (the share of each product a node computes sets it when compute dominates)."""
    parts = []
    for point in results.points:
        label = results.label(point)
        if label == gpd.label or not point.replicas:
            continue
        compute = sum(r["time_compute_s"] for r in point.replicas) / len(point.replicas)
        parts.append(f"{label} {point.mean('completion_time_s'):.1f} s (compute {compute:.1f} s, "
                     f"GPD's {gpd.compute_s_measured / compute:.2f} times it)")
    return "; ".join(parts)
