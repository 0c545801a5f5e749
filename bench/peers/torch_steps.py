"""What the PyTorch peers (torch_mlp.py, torch_lenet.py) share: one thread, and the timed loop of
plain SGD steps on a fixed batch with its report. Import it before torch: it pins the BLAS and
OpenMP threads to one before torch loads them."""
import os

# One thread everywhere: set before torch (and its BLAS) load.
for variable in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[variable] = "1"

import json  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402

import torch  # noqa: E402


def timed_sgd_steps(model, inputs, labels, lr, warmup, steps):
    """Wall seconds of `steps` plain SGD steps (mean cross-entropy, no momentum) of `model` on
    the fixed batch, after `warmup` untimed ones."""
    optimizer = torch.optim.SGD(model.parameters(), lr=lr)
    loss_function = torch.nn.CrossEntropyLoss()  # mean softmax cross-entropy over the batch

    def step():
        optimizer.zero_grad(set_to_none=True)
        loss = loss_function(model(inputs), labels)
        loss.backward()
        optimizer.step()
        return loss

    for _ in range(warmup):
        step()
    start = time.perf_counter()
    for _ in range(steps):
        loss = step()
    loss.item()  # the last step has finished (CPU ops are synchronous anyway)
    return time.perf_counter() - start


def report(steps, wall_s, description, json_only):
    """Prints {"steps", "wall_s", "steps_per_s"} on stdout, and `description` on stderr unless
    `json_only`."""
    if not json_only:
        print(f"pytorch {torch.__version__}, threads {torch.get_num_threads()}, float64, "
              f"{description}", file=sys.stderr)
    print(json.dumps({"steps": steps, "wall_s": wall_s, "steps_per_s": steps / wall_s}))
