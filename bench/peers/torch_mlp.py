#!/usr/bin/env python3
"""PyTorch peer of `codesim-bench training`: plain SGD steps of the same MLP, one thread, float64.

The MLP has ReLU hidden layers with bias and a softmax cross-entropy output; each step is one
forward pass, one backward pass and a plain SGD update (no momentum, no weight decay) on a fixed
synthetic batch of the same shape as codesim's. After warm-up steps it times --steps steps and
prints {"steps": n, "wall_s": x, "steps_per_s": y} (with --json only that line).

Usage: bench/peers/torch_mlp.py [--layers 784,1024,1024,10] [--batch 64] [--steps 50]
                                [--warmup 5] [--lr 0.005] [--seed 1] [--json]
Needs Debian's python3-torch (run it with /usr/bin/python3 when another python3 comes first).
"""
import argparse

import torch_steps  # first: one thread, before torch loads its BLAS

import torch  # noqa: E402


def parse_layers(text):
    sizes = [int(part) for part in text.split(",")]
    if len(sizes) < 2 or min(sizes) < 1:
        raise argparse.ArgumentTypeError("--layers expects at least two positive sizes")
    return sizes


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--layers", type=parse_layers, default=[784, 1024, 1024, 10])
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--steps", type=int, default=50)
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument("--lr", type=float, default=0.005)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if args.batch < 1 or args.steps < 1 or args.warmup < 0:
        parser.error("--batch and --steps must be >= 1 and --warmup >= 0")

    torch.set_num_threads(1)
    torch.set_num_interop_threads(1)
    torch.manual_seed(args.seed)
    dtype = torch.float64
    sizes = args.layers

    layers = []
    for fan_in, fan_out in zip(sizes[:-1], sizes[1:]):
        linear = torch.nn.Linear(fan_in, fan_out, dtype=dtype)
        # Glorot-normal weights and zero biases, like codesim's glorot_init.
        torch.nn.init.normal_(linear.weight, 0.0, (2.0 / (fan_in + fan_out)) ** 0.5)
        torch.nn.init.zeros_(linear.bias)
        layers.append(linear)
    modules = []
    for index, linear in enumerate(layers):
        modules.append(linear)
        if index + 1 < len(layers):
            modules.append(torch.nn.ReLU())
    model = torch.nn.Sequential(*modules)
    # A fixed synthetic batch of the benchmark's shape (samples are rows in PyTorch).
    inputs = torch.randn(args.batch, sizes[0], dtype=dtype)
    labels = torch.randint(0, sizes[-1], (args.batch,))
    wall_s = torch_steps.timed_sgd_steps(model, inputs, labels, args.lr, args.warmup, args.steps)
    torch_steps.report(args.steps, wall_s,
                       f"layers {','.join(map(str, sizes))}, batch {args.batch}", args.json)


if __name__ == "__main__":
    main()
