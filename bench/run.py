"""Every tfops benchmark, each a ratio against a baseline measured in the same run.

Run: ``python bench/run.py`` (``--quick`` for fewer repeats, ``--json PATH`` to keep the
numbers, ``--only mlp softmax`` for some sections). TensorFlow's and JAX's columns need
``tensorflow-cpu`` and ``jax`` (the ``bench`` extra: ``pip install -e '.[bench]'``); without
them they read ``n/a`` and everything else still runs. A contender that fails (the XLA backend
lacking a lowering, say) reads ``n/a`` with its error in the notes.

The workloads are in ``bench/workloads.py`` (docs/performance.md says what each target means):

- overhead and throughput: the stable softmax and its gradient, on 10 elements (the cost of one
  run), and on 1e5, 1e6 and 1e7 elements (throughput), with the effective bandwidth against
  ``np.copyto``'s;
- mlp: one SGD step of a 784-512-512-10 perceptron, batch 256, with both cores free and with
  one of them kept busy by another process;
- construction: microseconds per op to build a chain of 10,000 elementwise ops (the chain of
  ``bench/gradient_chain.py``), against TensorFlow graph mode; each build, ours and
  TensorFlow's, starts after a ``gc.collect()``, so that neither pays for the garbage of the
  build before it;
- gradient construction: microseconds per forward op to build the gradient of chains of 1,000
  and 10,000 ops, against ``tf.gradients``;
- memory: peak resident memory of one forward and backward pass at 1e7 float32 elements, each
  measured in a fresh subprocess, against the numpy function (and TensorFlow, for reference).

How the timed workloads (overhead, throughput, mlp) are measured, the same way for every
contender: each contender runs in a child process of its own, started with the same environment
(``ALLOCATOR``: the C library's allocator keeps the memory programs free and hands it out again,
the state a long-running loop reaches, so that nobody's temporaries are freshly mapped pages),
warmed up, then called back to back for a while; its time is the median of those calls. The
contenders of a row take turns, three times (once with ``--quick``; the MLP two more, each turn
timing a contender with both cores free, then with one kept busy), and each keeps the best of
its medians (the machine's other work only ever slows a contender down). ``bench/profile.py``
shows where a numpy-backend run spends its time.
"""

from __future__ import annotations

import argparse
import gc
import importlib.util
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # runnable from a checkout
sys.path.insert(0, str(ROOT / "bench"))

from gradient_chain import buildChain  # noqa: E402
from workloads import (  # noqa: E402
    handSoftmaxGrad,
    makeMlp,
    makeSoftmax,
    softmaxInputs,
    tensorflow,
    tfopsSoftmaxGrad,
    tfSoftmaxGrad,
)

from tfops import Graph, Ops  # noqa: E402

Array = np.ndarray[Any, Any]

ALLOCATOR = {"MALLOC_MMAP_THRESHOLD_": str(1 << 30), "MALLOC_TRIM_THRESHOLD_": str(1 << 30)}
"""The environment of every timed child process: glibc's allocator serves every block below
1 GiB from its heap (not from a fresh mapping of its own) and never gives freed memory back to
the system. Without it, on this machine's glibc, numpy's temporaries of 400 KB and more come
from fresh pages on every call of a loop (the heap's top is trimmed when they are freed, and
blocks of 32 MiB and more are always mapped anew), and the page faults cost up to seven times
the arithmetic; how much depends on what else the process did. Set alike for every contender,
it gives each the same warm allocator, the best case for numpy by hand."""

def allocator() -> dict[str, str]:
    """The allocator settings of the timed children (none with ``--default-malloc``)."""
    return {} if os.environ.get("TFOPS_BENCH_DEFAULT_MALLOC") else ALLOCATOR


NAMES = {"numpy": "numpy backend", "xla": "xla backend", "tf": "TF graph mode",
         "jax": "JAX jit", "hand": "numpy by hand"}
SIZES = (100_000, 1_000_000, 10_000_000)


def has(module: str) -> bool:
    """Whether ``module`` is installed (TensorFlow: and not switched off with ``--no-tf``)."""
    if module == "tensorflow" and os.environ.get("TFOPS_BENCH_NO_TF"):
        return False
    return importlib.util.find_spec(module) is not None


def available(kind: str) -> str | None:
    """Why contender ``kind`` cannot run here, or ``None``."""
    if kind == "tf" and not has("tensorflow"):
        return "TensorFlow not installed"
    if kind in ("jax", "xla") and not has("jax"):
        return "JAX not installed"
    return None


def tfChain(tf: Any, n: int) -> tuple[Any, Any]:
    """``bench/gradient_chain.py``'s chain in TensorFlow graph mode (call inside a graph)."""
    from gradient_chain import ADD, MUL

    x = tf.compat.v1.placeholder(tf.float64)
    y = x
    for i in range(n):
        step = i % 4
        if step == 0:
            y = tf.multiply(y, MUL)
        elif step == 1:
            y = tf.add(y, ADD)
        elif step == 2:
            y = tf.exp(y)
        else:
            y = tf.math.log(y)
    return x, y


# -- timing in child processes ---------------------------------------------------------------
@dataclass
class Timed:
    """What a child process measured: median seconds per call, minor page faults per call, the
    first result (to check that contenders agree), or the error that stopped it."""

    seconds: float | None = None
    faults: float = 0.0
    first: float | None = None
    error: str = ""


def timedChild(workload: str, kind: str, n: int, budget: float) -> None:
    """Times one contender (in a child process); prints a ``Timed`` as JSON."""
    try:
        if workload == "copy":
            source = np.ones(n, np.float32)
            target = np.empty_like(source)

            def run() -> object:
                np.copyto(target, source)
                return target
        elif workload == "mlp":
            run = makeMlp(kind)
        else:
            run = makeSoftmax(kind, n)
        first = run()
        for _ in range(4):
            run()  # warm: compiled, caches and allocator settled
        samples: list[float] = []
        faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
        end = time.perf_counter() + budget
        while len(samples) < 15 or (time.perf_counter() < end and len(samples) < 20_000):
            start = time.perf_counter()
            run()
            samples.append(time.perf_counter() - start)
        faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt - faults
        check = np.asarray(first[0] if isinstance(first, (list, tuple)) else first)
        result = Timed(statistics.median(samples), faults / len(samples),
                       float(np.sum(check, dtype=np.float64)))
    except Exception as e:  # reported as n/a, with the error
        lines = [line for line in str(e).strip().splitlines() if line.strip()]
        result = Timed(error=f"{type(e).__name__}: {lines[0] if lines else ''}"[:160])
    print(json.dumps(result.__dict__))


def spinner() -> subprocess.Popen[bytes]:
    """Another process keeping one core busy."""
    return subprocess.Popen([sys.executable, "-c", "while True: pass"])


def timeChild(workload: str, kind: str, n: int, budget: float, busy: bool) -> Timed:
    """One child process timing contender ``kind`` (with a core kept busy, if ``busy``)."""
    busyWith = spinner() if busy else None
    try:
        done = subprocess.run(
            [sys.executable, __file__, "--timed-child", workload, kind, str(n), str(budget)],
            capture_output=True, text=True, env={**os.environ, **allocator()},
        )
    finally:
        if busyWith is not None:
            busyWith.kill()
            busyWith.wait()
    lines = done.stdout.strip().splitlines()
    try:
        return Timed(**json.loads(lines[-1]))
    except (IndexError, ValueError):
        tail = done.stderr.strip().splitlines()
        return Timed(error=(tail[-1] if tail else "no output")[:160])


def measure(
    workload: str, n: int, kinds: list[str], rounds: int, budget: float,
    busy: tuple[bool, ...] = (False,),
) -> list[dict[str, Timed]]:
    """Each contender timed in child processes, ``rounds`` turns, the best median kept; for
    each entry of ``busy``, one after the other in every turn (with a core kept busy or not), so
    that what else the machine does hits both alike."""
    found: list[dict[str, list[Timed]]] = [{k: [] for k in kinds} for _ in busy]
    for k in kinds:
        reason = available(k)
        if reason is not None:
            for f in found:
                f[k].append(Timed(error=reason))
    for r in range(rounds):
        for k in (kinds if r % 2 == 0 else kinds[::-1]):
            for f, b in zip(found, busy, strict=True):
                if not (f[k] and f[k][0].error):
                    f[k].append(timeChild(workload, k, n, budget, b))
    best: list[dict[str, Timed]] = []
    for f in found:
        best.append({})
        for k, results in f.items():
            good = [t for t in results if t.seconds is not None]
            best[-1][k] = min(good, key=lambda t: t.seconds or 0.0) if good else results[0]
    return best


# -- rows ------------------------------------------------------------------------------------
@dataclass
class Row:
    """One line of the table: a contender against a baseline, with the target for the ratio."""

    section: str
    name: str
    contender: str
    value: float | None
    baselineName: str
    baseline: float | None
    unit: str
    target: float | None = None  # the ratio value / baseline must be at most this
    note: str = ""

    @property
    def ratio(self) -> float | None:
        if self.value is None or self.baseline is None:
            return None
        return self.value / self.baseline

    @property
    def holds(self) -> str:
        if self.target is None:
            return ""
        if self.ratio is None:
            return "n/a"
        return "yes" if self.ratio <= self.target else "MISSED"


def timedRow(
    section: str, name: str, t: dict[str, Timed], kind: str, base: str, scale: float, unit: str,
    target: float | None = None, note: str = "",
) -> Row:
    """A row comparing contender ``kind`` with contender ``base`` (times scaled to ``unit``);
    a contender that failed reads n/a, its error in the notes."""
    errors = [f"{NAMES[k]}: {t[k].error}" for k in (kind, base) if t[k].error]
    value, baseline = t[kind].seconds, t[base].seconds
    return Row(section, name, NAMES[kind], None if value is None else value * scale,
               NAMES[base], None if baseline is None else baseline * scale, unit, target,
               "; ".join(errors) or note)


def faults(t: dict[str, Timed]) -> str:
    """The page faults per call of each contender that ran."""
    return "faults/call " + ", ".join(
        f"{k} {v.faults:.0f}" for k, v in t.items() if v.seconds is not None)


def agree(t: dict[str, Timed], what: str) -> None:
    """Warns when the contenders' first results disagree (they must do the same work)."""
    firsts = {k: v.first for k, v in t.items() if v.first is not None}
    values = [v for v in firsts.values() if v is not None]
    if values and max(values) - min(values) > 1e-3 * max(1.0, abs(values[0])):
        print(f"  WARNING {what}: the contenders' results differ: {firsts}", file=sys.stderr)


def overhead(rounds: int, budget: float) -> list[Row]:
    (t,) = measure("softmax", 10, ["numpy", "xla", "tf", "jax", "hand"], rounds, budget)
    agree(t, "overhead")
    section, name = "run overhead, 10 elements", "softmax fwd+grad, us/run"
    return [
        timedRow(section, name, t, "numpy", "tf", 1e6, "us", 0.1),
        timedRow(section, name, t, "numpy", "jax", 1e6, "us", 1.5),
        timedRow(section, name, t, "numpy", "hand", 1e6, "us"),
        timedRow(section, name, t, "xla", "jax", 1e6, "us"),
        timedRow(section, name, t, "xla", "tf", 1e6, "us"),
    ]


def throughput(n: int, rounds: int, budget: float) -> list[Row]:
    (t,) = measure("softmax", n, ["numpy", "hand", "xla", "jax", "tf"], rounds, budget)
    agree(t, f"softmax {n}")
    copy = measure("copy", n, ["hand"], 1, budget)[0]["hand"].seconds
    moved = 4 * n * 4  # float32 x and w read, p and dx written

    def bandwidth(k: str) -> str:
        s = t[k].seconds
        if s is None:
            return "n/a"
        share = f" = {moved / s / (2 * n * 4 / copy):.0%} of copyto's" if copy else ""
        return f"{moved / s / 1e9:.1f} GB/s{share}"

    section = f"throughput, {n:.0e} elements".replace("e+0", "e")
    name = "softmax fwd+grad, ms/run"
    large = n >= 10_000_000
    numbers = (f"{bandwidth('numpy')} (numpy by hand {bandwidth('hand')}; copyto "
               f"{2 * n * 4 / copy / 1e9:.1f} GB/s); " if copy else "") + faults(t)
    return [
        timedRow(section, name, t, "numpy", "hand", 1e3, "ms", None if large else 1.15, numbers),
        timedRow(section, name, t, "numpy", "tf", 1e3, "ms", 1.0 if large else None,
                 f"TF {bandwidth('tf')}"),
        timedRow(section, name, t, "xla", "jax", 1e3, "ms", 1.05),
    ]


def mlp(rounds: int, budget: float) -> list[Row]:
    kinds = ["numpy", "hand", "xla", "jax", "tf"]
    # numpy's BLAS threads make the step very sensitive to whatever else runs: more turns
    quiet, busy = measure("mlp", 0, kinds, rounds + 2, budget * 0.6, busy=(False, True))
    agree(quiet, "mlp")
    section, name = "MLP SGD step, 784-512-512-10, batch 256", "ms/step"
    rows = [
        timedRow(section, name, quiet, "numpy", "hand", 1e3, "ms", 1.1, faults(quiet)),
        timedRow(section, name, quiet, "numpy", "tf", 1e3, "ms"),
        timedRow(section, name, quiet, "xla", "jax", 1e3, "ms", 1.05),
        timedRow(section, name, quiet, "xla", "tf", 1e3, "ms", 1.0),
    ]
    slowdown: dict[str, Timed] = {}
    for k in kinds:
        q, b = quiet[k].seconds, busy[k].seconds
        slowdown[k] = Timed(b / q if q and b else None, error=quiet[k].error or busy[k].error)
    note = "one core busy: " + ", ".join(
        f"{NAMES[k]} {(busy[k].seconds or 0) * 1e3:.1f} ms ({slowdown[k].seconds:.2f}x)"
        for k in kinds if slowdown[k].seconds is not None)
    section = "MLP SGD step, one core busy"
    name = "slowdown (busy / quiet)"
    return rows + [
        timedRow(section, name, slowdown, "numpy", "hand", 1, "x", 1.0, note),
        timedRow(section, name, slowdown, "xla", "jax", 1, "x"),
    ]


def baselines(only: set[str], repeats: int) -> dict[str, float]:
    """TensorFlow's construction numbers, measured in a child process."""
    if not has("tensorflow") or not only & {"construction", "gradient"}:
        return {}
    out = subprocess.run(
        [sys.executable, __file__, "--baselines-child", str(repeats), *only],
        capture_output=True, text=True, check=True,
    ).stdout
    result: dict[str, float] = json.loads(out.strip().splitlines()[-1])
    return result


def baselinesChild(repeats: int, only: list[str]) -> None:
    tf = tensorflow()
    found: dict[str, float] = {}
    if "construction" in only:
        found["construction"] = statistics.median(
            tfChainSeconds(tf, 10_000, gradient=False) for _ in range(max(1, repeats // 2))
        ) / 10_000 * 1e6
    if "gradient" in only:
        for n in (1_000, 10_000):
            times = 3 if n <= 1_000 else 1  # tf.gradients of 10,000 ops takes most of a minute
            found[f"gradient {n}"] = statistics.median(
                tfChainSeconds(tf, n, gradient=True) for _ in range(times)
            ) / n * 1e6
    print(json.dumps(found))


def tfChainSeconds(tf: Any, n: int, gradient: bool) -> float:
    """Seconds TensorFlow takes to build the chain of n ops, or its gradient."""
    graph = tf.Graph()
    with graph.as_default():
        gc.collect()  # as for tfops: no garbage of an earlier build is collected in this one
        start = time.perf_counter()
        x, y = tfChain(tf, n)
        if not gradient:
            return time.perf_counter() - start
        gc.collect()
        start = time.perf_counter()
        tf.gradients(y, [x])
        return time.perf_counter() - start


def construction(base: dict[str, float], repeats: int) -> list[Row]:
    n = 10_000

    def seconds() -> float:
        with Graph() as graph:
            ops = Ops.create(graph)
            gc.collect()  # as for TensorFlow: no garbage of an earlier build is collected here
            start = time.perf_counter()
            buildChain(ops, n)
            return time.perf_counter() - start

    ours = statistics.median(seconds() for _ in range(repeats)) / n * 1e6
    return [Row("construction", "10,000-op chain, us/op", "tfops", ours, "TF graph mode",
                base.get("construction"), "us", 0.05)]


def gradientConstruction(base: dict[str, float], repeats: int) -> list[Row]:
    rows = []
    for n in (1_000, 10_000):

        def seconds(n: int = n) -> float:
            with Graph() as graph:
                ops = Ops.create(graph)
                x, y = buildChain(ops, n)
                gc.collect()
                start = time.perf_counter()
                ops.gradients(y, [x])
                return time.perf_counter() - start

        ours = statistics.median(seconds() for _ in range(repeats)) / n * 1e6
        rows.append(Row("gradient construction", f"{n:,}-op chain, us per forward op", "tfops",
                        ours, "tf.gradients", base.get(f"gradient {n}"), "us", 0.05))
    return rows


def memory() -> list[Row]:
    kinds = ["numpy", "hand"] + (["tf"] if has("tensorflow") else [])
    peaks: dict[str, dict[str, float]] = {}
    for kind in kinds:
        out = subprocess.run(
            [sys.executable, __file__, "--memory-child", kind],
            capture_output=True, text=True, check=True, env={**os.environ, "PYTHONHASHSEED": "0"},
        ).stdout
        peaks[kind] = json.loads(out.strip().splitlines()[-1])
    section = "memory, 1e7 elements"
    note = (f"during the run: numpy backend +{peaks['numpy']['run']:.0f} MB, "
            f"numpy by hand +{peaks['hand']['run']:.0f} MB (inputs "
            f"{peaks['hand']['inputs']:.0f} MB)")
    rows = [Row(section, "peak RSS, MB", NAMES["numpy"], peaks["numpy"]["peak"], NAMES["hand"],
                peaks["hand"]["peak"], "MB", 1.25, note)]
    if "tf" in peaks:
        rows.append(Row(section, "peak RSS, MB", NAMES["numpy"], peaks["numpy"]["peak"],
                        NAMES["tf"], peaks["tf"]["peak"], "MB", None,
                        f"TF +{peaks['tf']['run']:.0f} MB during the run"))
    return rows


def _status(key: str) -> float:
    """A memory figure of this process from /proc/self/status, in MB (VmRSS, VmHWM: peak)."""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1]) / 1024
    raise RuntimeError(f"no {key} in /proc/self/status")


def memoryChild(kind: str) -> None:
    """Builds the workload at 1e7 elements, runs it once; prints peak RSS figures in MB.
    (The default allocator here: the point is the memory a run holds at its peak.)"""
    x, w = softmaxInputs(10_000_000)
    inputsMb = (x.nbytes + w.nbytes) / 2**20
    run: Callable[[], object]
    if kind == "numpy":
        run = tfopsSoftmaxGrad(x, w)
        del w  # the graph holds its own copy of the constant
    elif kind == "hand":
        def run() -> object:
            return handSoftmaxGrad(x, w)
    else:
        run = tfSoftmaxGrad(tensorflow(), x, w)
        del w
    gc.collect()
    before = _status("VmRSS")
    result = run()
    peak = _status("VmHWM")  # the peak of this process (ru_maxrss would include its parent's)
    del result
    print(json.dumps({"peak": peak, "run": peak - before, "inputs": inputsMb}))


# -- the table -------------------------------------------------------------------------------
def fmt(value: float | None, unit: str) -> str:
    if value is None:
        return "n/a"
    if unit == "us":
        return f"{value:.1f}"
    if unit == "ms":
        return f"{value:.3f}" if value < 10 else f"{value:.1f}"
    if unit == "x":
        return f"{value:.2f}"
    return f"{value:.0f}"


def table(rows: list[Row]) -> str:
    header = ["benchmark", "contender", "value", "baseline", "baseline value", "ratio",
              "target", "holds", "notes"]
    out = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    for r in rows:
        cells = [
            f"{r.section}: {r.name}", r.contender, fmt(r.value, r.unit), r.baselineName,
            fmt(r.baseline, r.unit), "n/a" if r.ratio is None else f"{r.ratio:.3f}",
            "" if r.target is None else f"<= {r.target:g}", r.holds, r.note,
        ]
        out.append("| " + " | ".join(cells) + " |")
    return "\n".join(out)


SECTIONS = ("overhead", "throughput", "mlp", "construction", "gradient", "memory")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer repeats (noisier)")
    parser.add_argument("--json", type=Path, help="also write the rows to this file")
    parser.add_argument("--only", nargs="*", default=None, help=f"sections: {' '.join(SECTIONS)}")
    parser.add_argument("--sizes", nargs="*", type=float, default=None,
                        help="throughput sizes (default: 1e5 1e6 1e7)")
    parser.add_argument("--no-tf", action="store_true",
                        help="leave TensorFlow out, as if it were not installed")
    parser.add_argument("--default-malloc", action="store_true",
                        help="time with the C library's default allocator settings (not the "
                        "warm allocator of ALLOCATOR): what a fresh process gets")
    parser.add_argument("--memory-child", help=argparse.SUPPRESS)
    parser.add_argument("--baselines-child", nargs="+", help=argparse.SUPPRESS)
    parser.add_argument("--timed-child", nargs=4, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.memory_child:
        memoryChild(args.memory_child)
        return 0
    if args.timed_child:
        workload, kind, n, budget = args.timed_child
        timedChild(workload, kind, int(n), float(budget))
        return 0
    if args.baselines_child:
        repeats, *only = args.baselines_child
        baselinesChild(int(repeats), only)
        return 0
    rounds = 1 if args.quick else 3
    budget = 0.5 if args.quick else 1.0
    repeats = 3 if args.quick else 5
    only = set(args.only or SECTIONS)
    if only - set(SECTIONS):
        parser.error(f"unknown sections {sorted(only - set(SECTIONS))}; sections: "
                     f"{' '.join(SECTIONS)}")
    sizes = [int(s) for s in args.sizes] if args.sizes else list(SIZES)
    if args.no_tf:
        os.environ["TFOPS_BENCH_NO_TF"] = "1"  # for the child processes too
    if args.default_malloc:
        os.environ["TFOPS_BENCH_DEFAULT_MALLOC"] = "1"
    print(f"tfops benchmarks, {time.strftime('%Y-%m-%d %H:%M')}: Python "
          f"{platform.python_version()}, numpy {np.__version__}, TensorFlow "
          f"{'installed' if has('tensorflow') else 'not installed'}, JAX "
          f"{'installed' if has('jax') else 'not installed'}, {os.cpu_count()} CPUs, "
          f"{platform.machine()}; timed with "
          f"{' '.join(f'{k}={v}' for k, v in allocator().items()) or 'the default allocator'}",
          flush=True)
    start = time.perf_counter()
    base = baselines(only, repeats)
    if base:
        print(f"  TensorFlow construction (in a child process): "
              f"{time.perf_counter() - start:.1f} s", file=sys.stderr)
    steps: list[tuple[str, Callable[[], list[Row]]]] = [
        ("overhead", lambda: overhead(rounds, budget)),
        *[("throughput", lambda n=n: throughput(n, rounds, budget)) for n in sizes],
        ("mlp", lambda: mlp(rounds, budget)),
        ("construction", lambda: construction(base, repeats)),
        ("gradient", lambda: gradientConstruction(base, repeats)),
        ("memory", memory),
    ]
    rows: list[Row] = []
    for section, step in steps:
        if section in only:
            start = time.perf_counter()
            new = step()
            rows += new
            print(f"  {new[0].section}: {time.perf_counter() - start:.1f} s", file=sys.stderr,
                  flush=True)
    print(table(rows))
    counts = {h: sum(r.holds == h for r in rows) for h in ("yes", "MISSED", "n/a")}
    print(f"\ntargets: {counts['yes']} hold, {counts['MISSED']} missed, {counts['n/a']} n/a")
    if args.json:
        args.json.write_text(json.dumps(
            [r.__dict__ | {"ratio": r.ratio, "holds": r.holds} for r in rows], indent=2
        ))
    return 0


if __name__ == "__main__":
    sys.exit(main())
