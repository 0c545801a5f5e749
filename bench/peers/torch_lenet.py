#!/usr/bin/env python3
"""PyTorch peer of `codesim-bench cnn`: the same convolutional network, one thread, float64.

Two modes:

  replay DIR   trains the network that `codesim-bench cnn --agree` wrote to DIR from codesim's
               initial weights on codesim's batches, in codesim's order, and prints
               {"losses": [...], "accuracies": [[step, accuracy], ...]} (every loss before its
               step; test accuracy after the listed steps). Plain SGD (no momentum, no weight
               decay) at the given learning rate; loss = mean softmax cross-entropy.
  speed        times LeNet-5 SGD steps on a fixed random batch (5 warm-up steps, then --steps) and
               prints {"steps": n, "wall_s": x, "steps_per_s": y}.

DIR holds network.json and raw little-endian files it names:
  network.json  {"format": "codesim-cnn-replay", "version": 1, "input": [C, H, W],
                 "layers": [{"kind": "conv2d", "out_channels": .., "kernel": .., "stride": ..,
                             "padding": ..} | {"kind": "max_pool" | "avg_pool", "kernel": ..,
                             "stride": ..} | {"kind": "flatten"} | {"kind": "dense", "units": ..}
                            | {"kind": "relu"}, ...],
                 "learning_rate": eta, "batch_size": B, "steps": S, "evaluate_after": [steps],
                 "parameters": [{"weight": FILE, "shape": [..], "bias": FILE}, ...]  (one per conv
                 or dense layer, in order; weights row-major in PyTorch's shape, i.e. C_out x C_in
                 x k x k for a conv and units x inputs for a dense layer),
                 "train": {"images": FILE, "labels": FILE, "samples": S B},
                 "test": {"images": FILE, "labels": FILE, "samples": n}}
  images: float64, sample after sample, each C H W values in (c, h, w) order (NCHW);
  labels: int32, one per sample. The train files hold the S B samples in step order.

Usage: bench/peers/torch_lenet.py replay DIR
       bench/peers/torch_lenet.py speed [--batch 64] [--steps 60] [--warmup 5] [--lr 0.05]
                                        [--seed 1] [--json]
Needs Debian's python3-torch (run it with /usr/bin/python3 when another python3 comes first).
"""
import argparse
import json
import os
import time

import torch_steps  # first: one thread, before torch loads its BLAS

import torch  # noqa: E402

DTYPE = torch.float64

LENET5 = [
    {"kind": "conv2d", "out_channels": 6, "kernel": 5, "stride": 1, "padding": 2},
    {"kind": "relu"}, {"kind": "max_pool", "kernel": 2, "stride": 2},
    {"kind": "conv2d", "out_channels": 16, "kernel": 5, "stride": 1, "padding": 0},
    {"kind": "relu"}, {"kind": "max_pool", "kernel": 2, "stride": 2},
    {"kind": "flatten"}, {"kind": "dense", "units": 120}, {"kind": "relu"},
    {"kind": "dense", "units": 84}, {"kind": "relu"}, {"kind": "dense", "units": 10},
]


def build(input_shape, layers):
    """torch.nn.Sequential of the layers and its weighted modules in order."""
    channels, height, width = input_shape
    features = None  # set after flatten
    modules, weighted = [], []
    for layer in layers:
        kind = layer["kind"]
        if kind == "conv2d":
            conv = torch.nn.Conv2d(channels, layer["out_channels"], layer["kernel"],
                                   stride=layer["stride"], padding=layer["padding"], dtype=DTYPE)
            modules.append(conv)
            weighted.append(conv)
            k, s, p = layer["kernel"], layer["stride"], layer["padding"]
            channels = layer["out_channels"]
            height, width = (height + 2 * p - k) // s + 1, (width + 2 * p - k) // s + 1
        elif kind in ("max_pool", "avg_pool"):
            k, s = layer["kernel"], layer["stride"]
            pool = torch.nn.MaxPool2d if kind == "max_pool" else torch.nn.AvgPool2d
            modules.append(pool(k, stride=s))
            height, width = (height - k) // s + 1, (width - k) // s + 1
        elif kind == "flatten":
            modules.append(torch.nn.Flatten())
            features = channels * height * width
        elif kind == "dense":
            linear = torch.nn.Linear(features, layer["units"], dtype=DTYPE)
            modules.append(linear)
            weighted.append(linear)
            features = layer["units"]
        elif kind == "relu":
            modules.append(torch.nn.ReLU())
        else:
            raise ValueError(f"unknown layer kind {kind!r}")
    return torch.nn.Sequential(*modules), weighted


def read_raw(path, dtype, count):
    data = bytearray(open(path, "rb").read())
    tensor = torch.frombuffer(data, dtype=dtype)
    if tensor.numel() != count:
        raise ValueError(f"{path}: {tensor.numel()} values, expected {count}")
    return tensor


def accuracy(model, images, labels, chunk=256):
    correct = 0
    with torch.no_grad():
        for first in range(0, images.shape[0], chunk):
            logits = model(images[first:first + chunk])
            correct += int((logits.argmax(dim=1) == labels[first:first + chunk]).sum())
    return correct / images.shape[0]


def replay(directory):
    with open(os.path.join(directory, "network.json")) as file:
        spec = json.load(file)
    if spec.get("format") != "codesim-cnn-replay" or spec.get("version") != 1:
        raise ValueError("network.json is not a codesim-cnn-replay version 1 header")
    shape = spec["input"]
    model, weighted = build(shape, spec["layers"])
    with torch.no_grad():
        for module, entry in zip(weighted, spec["parameters"], strict=True):
            weight_count = module.weight.numel()
            module.weight.copy_(read_raw(os.path.join(directory, entry["weight"]), DTYPE,
                                         weight_count).view(entry["shape"]))
            module.bias.copy_(read_raw(os.path.join(directory, entry["bias"]), DTYPE,
                                       module.bias.numel()))

    def samples(part):
        count = spec[part]["samples"]
        images = read_raw(os.path.join(directory, spec[part]["images"]), DTYPE,
                          count * shape[0] * shape[1] * shape[2]).view(count, *shape)
        labels = read_raw(os.path.join(directory, spec[part]["labels"]), torch.int32,
                          count).long()
        return images, labels

    train_images, train_labels = samples("train")
    test_images, test_labels = samples("test")
    batch, steps = spec["batch_size"], spec["steps"]
    evaluate_after = set(spec.get("evaluate_after", []))
    optimizer = torch.optim.SGD(model.parameters(), lr=spec["learning_rate"])
    loss_function = torch.nn.CrossEntropyLoss()  # mean softmax cross-entropy over the batch
    losses, accuracies = [], []
    start = time.perf_counter()
    for step in range(steps):
        images = train_images[step * batch:(step + 1) * batch]
        labels = train_labels[step * batch:(step + 1) * batch]
        optimizer.zero_grad(set_to_none=True)
        loss = loss_function(model(images), labels)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
        if step + 1 in evaluate_after:
            accuracies.append([step + 1, accuracy(model, test_images, test_labels)])
    wall_s = time.perf_counter() - start
    print(json.dumps({"losses": losses, "accuracies": accuracies, "wall_s": wall_s,
                      "torch": torch.__version__}))


def speed(args):
    torch.manual_seed(args.seed)
    model, _ = build([1, 28, 28], LENET5)
    inputs = torch.rand(args.batch, 1, 28, 28, dtype=DTYPE)
    labels = torch.randint(0, 10, (args.batch,))
    wall_s = torch_steps.timed_sgd_steps(model, inputs, labels, args.lr, args.warmup, args.steps)
    torch_steps.report(args.steps, wall_s, f"LeNet-5, batch {args.batch}", args.json)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    modes = parser.add_subparsers(dest="mode", required=True)
    replay_parser = modes.add_parser("replay")
    replay_parser.add_argument("directory")
    speed_parser = modes.add_parser("speed")
    speed_parser.add_argument("--batch", type=int, default=64)
    speed_parser.add_argument("--steps", type=int, default=60)
    speed_parser.add_argument("--warmup", type=int, default=5)
    speed_parser.add_argument("--lr", type=float, default=0.05)
    speed_parser.add_argument("--seed", type=int, default=1)
    speed_parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    torch.set_num_threads(1)
    torch.set_num_interop_threads(1)
    if args.mode == "replay":
        replay(args.directory)
    else:
        if args.batch < 1 or args.steps < 1 or args.warmup < 0:
            parser.error("--batch and --steps must be >= 1 and --warmup >= 0")
        speed(args)


if __name__ == "__main__":
    main()
