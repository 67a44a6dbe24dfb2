"""A property-based fuzzer (hypothesis): random small graphs drawn from the op registry.

A program is a list of steps, each an op of ``builtinOps()`` built one of three ways: its valid
sample (``test_every_op``'s ``SAMPLES`` or default sample), chained onto outputs built before,
or with random arguments, valid and invalid (Python values out of range, ragged lists, strings,
``None``, numpy dtypes tfops does not support, operands of another graph, operands whose
``asOutput()`` is not an ``Output``, parameters of the wrong kind or beyond int64, options of
another op class). The program is drawn before it is built, so one program builds the same graph
however many threads build others beside it. What must hold:

- a failed construction raises a ``tfops.errors`` error of a builtin kind whose message names
  the op, and changes nothing: the same ops, the same names still free;
- a built graph runs, or raises an ``OpError`` naming one of its ops;
- every result equals the op-by-op evaluation: each op built again alone, in a new graph, on
  the values its inputs had in the run, gives the same values;
- the same, with 8 threads building and running their programs in one graph and one session at
  once (then every op of the graph is one that a thread built, and every input is in the graph).

The default run keeps to a few seconds; ``-m slow`` runs the longer profile.
"""

from __future__ import annotations

import inspect
import itertools
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_every_op import className, defaultSample, opClass, sampleOf

from tfops import Graph, Operation, Ops, Output, Session, Shape
from tfops.errors import OpError, TfopsError
from tfops.op.core import Max, Placeholder, Sum, Unstack
from tfops.opdef import OpDef
from tfops.spec import builtinOps
from tfops.types import TBool, TFloat16, TFloat32, TFloat64, TInt32, TInt64, TType, TUint8

THREADS = 8
OPS: tuple[OpDef, ...] = tuple(builtinOps())
CHAINABLE: tuple[OpDef, ...] = tuple(d for d in OPS if defaultSample(d) is not None)


class _Impostor:
    """An operand whose ``asOutput()`` returns something that is not an ``Output``."""

    def asOutput(self) -> object:
        return 5

    def __repr__(self) -> str:
        return "_Impostor()"


_FOREIGN = Ops.create(Graph()).withName("foreign").constant([1.0, 2.0])

# Values given where an operand is expected, the valid ones, then the invalid.
VALID: tuple[Any, ...] = (
    1.0, 2, True, [1.0, -2.0], [[1.0, 2.0], [3.0, 4.0]], [1, 0], [True, False], 0, -1,
    np.array([0.5, -1.5], np.float32), np.array([[1.0, 2.0], [3.0, 4.0]]),
    np.array([1, 2], np.int32), np.array([1, 2], np.int64), np.array([3, 250], np.uint8),
    np.float16(1.5), np.array([], np.float32), np.array([0.0, np.inf, np.nan], np.float32),
)
VALUES: tuple[Any, ...] = VALID + (
    2**40, 2**70, -(2**64), [[1.0], [1.0, 2.0]], "hello", None, np.array([1, 2], np.int8),
    np.array([1], np.uint64), np.array([1j]), np.array(["a"]), _Impostor(), _FOREIGN,
)

# Values of each kind of parameter and option: valid ones first, then the invalid.
PARAMS: dict[str, tuple[Any, ...]] = {
    "bool": (False, True, None, "yes", 1),
    "int": (0, 1, -1, 2, None, 2**63, -(2**63) - 1, 2**70, 1.5, True),
    "float": (0.5, 1.0, None, float("nan"), 2**2000, "x"),
    "type": (TFloat32, TInt32, TFloat64, TInt64, TUint8, TBool, TFloat16, None, np.float32,
             "float32", TType),
    "shape": (Shape.of(2), Shape.unknown(), Shape.of(-1, 2), [2], Shape.scalar(), None,
              [2**64], "2", [-2], [1.5]),
    "string": ("NHWC", "message", None, "NCHW", 3),
    "list(int)": ([0], [], [-1], None, [2**64], 3, ["a"]),
    "tensor": VALUES,
}

# Options of several op classes, each given where it belongs and where it does not.
OPTIONS: tuple[Any, ...] = (
    Max.keepDims(True), Sum.keepDims(True), Unstack.axis(0), Placeholder.shape(Shape.of(2)),
    Max.keepDims("yes"), "not an option",
)

# Values fed to a placeholder of each data type.
_FEEDS = {t: np.array([1, 0], t.DTYPE) for t in (TFloat16, TFloat32, TFloat64, TInt32, TInt64,
                                                   TUint8, TBool)}


@dataclass(frozen=True)
class Step:
    """One construction: ``mode`` "sample", "chain" or "random"; ``op`` indexes the ops the mode
    draws from; ``picks`` choose the inputs and parameters (interpreted modulo what exists)."""

    mode: str
    op: int
    picks: tuple[int, ...]
    option: int


@dataclass(frozen=True)
class Program:
    steps: tuple[Step, ...]
    feedAll: bool


_pick = st.integers(0, 1_000)
_step = st.builds(
    Step,
    mode=st.sampled_from(["sample", "chain", "chain", "random"]),
    op=st.integers(0, len(OPS) - 1),
    picks=st.lists(_pick, min_size=14, max_size=14).map(tuple),
    option=st.integers(0, 2 * len(OPTIONS)),
)


def programs(maxSteps: int) -> st.SearchStrategy[Program]:
    return st.builds(Program, st.lists(_step, min_size=1, max_size=maxSteps).map(tuple),
                     st.booleans())


# -- building ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Snapshot:
    """What a failed construction must leave as it was: the ops, and every name taken."""

    operations: list[str]
    names: dict[str, dict[str, int]]

    @staticmethod
    def of(graph: Graph) -> Snapshot:
        taken = graph.nameRegistry()._ids  # prefix -> {name taken -> next suffix}
        return Snapshot([op.name() for op in graph.operations()],
                        {prefix: dict(ids) for prefix, ids in taken.items() if ids})


_SIGNATURES: dict[type, list[inspect.Parameter]] = {}


def _parameters(cls: type) -> list[inspect.Parameter]:
    found = _SIGNATURES.get(cls)
    if found is None:
        found = _SIGNATURES[cls] = list(inspect.signature(cls.create).parameters.values())[1:]
    return found


def _call(spec: OpDef, tf: Ops, args: dict[str, Any], options: Sequence[Any]) -> Any:
    """``spec``'s class's ``create`` with ``args`` by parameter name, then ``options``."""
    positional, keywords = [], {}
    for p in _parameters(opClass(spec)):
        if p.kind is p.VAR_POSITIONAL:
            positional.extend(options)
        elif p.name in args:
            if p.kind is p.KEYWORD_ONLY:
                keywords[p.name] = args[p.name]
            else:
                positional.append(args[p.name])
    return opClass(spec).create(tf.scope(), *positional, **keywords)


class Builder:
    """Builds a program's steps into a graph with ``tf``, keeping the outputs built so far
    (``pool``) and every op it made (``made``)."""

    def __init__(self, tf: Ops, atomic: bool) -> None:
        self.tf = tf
        self.graph = tf.scope().env()
        assert isinstance(self.graph, Graph)
        self.atomic = atomic  # alone in the graph: a failure must leave it exactly as it was
        self.pool: list[Output[TType]] = []
        self.made: list[Operation] = []
        self.known: set[Operation] = set()

    def build(self, step: Step) -> None:
        if step.mode == "sample":
            spec = OPS[step.op]
            self._attempt(spec, lambda: sampleOf(spec)(self.tf))
            return
        if step.mode == "chain":
            spec = CHAINABLE[step.op % len(CHAINABLE)]
        else:
            spec = OPS[step.op]
        picks = itertools.cycle(step.picks)
        args: dict[str, Any] = {}
        for i in spec.inputs:
            value = self._operand(step.mode, next(picks), next(picks))
            args[i.name] = [value, value] if i.isList else value
        for a in spec.attrs:
            if a.param:
                choices = PARAMS[a.kind]
                n = next(picks)
                args[a.param] = choices[n % (2 if step.mode == "chain" else len(choices))]
        options: list[Any] = []
        if step.mode == "random" and step.option < len(OPTIONS):
            options.append(OPTIONS[step.option])
        self._attempt(spec, lambda: _call(spec, self.tf, args, options))

    def _operand(self, mode: str, kind: int, n: int) -> Any:
        pool = [o for o in self.pool if mode != "chain" or o.dataType() in (TFloat32, TBool)]
        if pool and (mode == "chain" or kind % 3 != 0):
            return pool[n % len(pool)]
        return VALUES[n % (len(VALID) if mode == "chain" else len(VALUES))]

    def _attempt(self, spec: OpDef, construct: Callable[[], Any]) -> None:
        before = Snapshot.of(self.graph) if self.atomic else None
        try:
            created = construct()
        except TfopsError as e:
            assert isinstance(e, (ValueError, TypeError, LookupError, RuntimeError)), repr(e)
            names = {spec.type, className(spec)}
            assert any(n in str(e) for n in names), f"{e!r} does not name {names}"
            if before is not None:
                assert Snapshot.of(self.graph) == before, f"{spec.type}: {e!r} left a trace"
            return
        self._record(created.op())
        for init in self.graph.initializers():  # a variable's Assign, with the value it assigns
            if init not in self.known and init.inputs() and init.inputs()[0].op() in self.known:
                self._record(init)

    def _record(self, op: Operation) -> None:
        """Adds ``op`` and the ops it was built on that this builder had not seen (the
        constants its Python values became, a sample's inputs)."""
        stack = [op]
        while stack:
            o = stack.pop()
            if o in self.known:
                continue
            self.known.add(o)
            self.made.append(o)
            self.pool.extend(x for x in o.outputs() if not _isRef(x))
            stack.extend(i.op() for i in o.inputs())


def _isRef(out: Output[TType]) -> bool:
    return out.op().type() == "VariableV2"


# -- running ----------------------------------------------------------------------------------


def _comparable(op: Operation) -> bool:
    spec = _spec(op)
    return bool(
        op.numOutputs() and not spec.stateful and op.type() != "Placeholder"
        and not any(i.isRef for i in spec.inputs) and sum(i.isList for i in spec.inputs) <= 1
    )


_SPECS = {d.type: d for d in OPS}


def _spec(op: Operation) -> OpDef:
    return _SPECS[op.type()]


def _feed(runner: Any, ops: Sequence[Operation], feedAll: bool) -> None:
    placeholders = [op for op in ops if op.type() == "Placeholder"]
    for n, op in enumerate(placeholders):
        if feedAll or n % 2:
            out = op.output(0)
            value = _FEEDS[out.dataType()]
            dims = out.shape().asArray()
            if dims is not None:
                value = np.ones([2 if d == -1 else d for d in dims], value.dtype)
            runner.feed(out, value)


def _checkRunError(e: BaseException, graph: Graph) -> None:
    assert isinstance(e, OpError), f"a run raised {e!r}, not an OpError"
    assert e.op is not None and e.op.graph() is graph, f"{e!r} names no op of the graph"
    assert f"op '{e.op.name()}'" in str(e), f"{e!r} does not name its op"


def runAndCompare(session: Session, ops: Sequence[Operation], feedAll: bool) -> None:
    """Runs ``ops`` (fetching every output of those compared and their inputs) in
    ``session``; then each op alone, on its inputs' values, must give the same values on the
    numpy backend. A run that fails must raise an ``OpError`` naming an op; then each op is
    tried on its own."""
    graph = session.graph()
    compared = [op for op in ops if _comparable(op)]
    if not compared:
        return
    try:
        values = _fetch(session, compared, ops, feedAll)
    except TfopsError as e:
        _checkRunError(e, graph)
        for op in compared:
            try:
                _compare(op, _fetch(session, [op], ops, feedAll))
            except TfopsError as e2:
                _checkRunError(e2, graph)
        return
    for op in compared:
        _compare(op, values)


def _fetch(
    session: Session, compared: Sequence[Operation], ops: Sequence[Operation], feedAll: bool
) -> dict[Output[TType], np.ndarray[Any, Any]]:
    wanted: list[Output[TType]] = []
    for op in compared:
        for out in [*op.inputs(), *op.outputs()]:
            if out not in wanted:
                wanted.append(out)
    runner = session.runner()
    _feed(runner, ops, feedAll)
    for out in wanted:
        runner.fetch(out)
    return dict(zip(wanted, runner.run(), strict=True))


def _compare(op: Operation, values: dict[Output[TType], np.ndarray[Any, Any]]) -> None:
    """Builds ``op`` alone in a new graph on constants of its inputs' values and checks that
    it gives the values the full run gave."""
    spec = _spec(op)
    with Graph() as alone:
        scope = alone.baseScope()
        inputs = []
        for n, i in enumerate(op.inputs()):
            value = values[i]
            inputs.append(scope.opBuilder("Const", f"in{n}").setAttr("value", value)
                          .setAttr("dtype", i.dataType()).build().output(0))
        builder = scope.opBuilder(op.type(), "op")
        single = sum(not i.isList for i in spec.inputs)
        position = 0
        for i in spec.inputs:
            if i.isList:
                count = len(inputs) - single
                builder.addInputList(inputs[position:position + count])
                position += count
            else:
                builder.addInput(inputs[position])
                position += 1
        for name, value in op.attrs().items():
            builder.setAttr(name, value)
        rebuilt = builder.build()
        with Session(alone, backend="numpy") as session:
            runner = session.runner()
            for out in rebuilt.outputs():
                runner.fetch(out)
            expected = runner.run()
    for out, want in zip(op.outputs(), expected, strict=True):
        got = values[out]
        where = f"{op.type()} '{op.name()}' output {out.index()}"
        assert got.dtype == want.dtype and got.shape == want.shape, where
        if got.dtype.kind == "f":
            rtol = {2: 1e-3, 4: 1e-5}.get(got.dtype.itemsize, 1e-12)
            np.testing.assert_allclose(got, want, rtol=rtol, atol=rtol, equal_nan=True,
                                       err_msg=where)
        else:
            np.testing.assert_array_equal(got, want, err_msg=where)


# -- the properties ---------------------------------------------------------------------------


@pytest.fixture(autouse=True)
def _switchThreadsOften() -> Iterator[None]:
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-5)
    try:
        yield
    finally:
        sys.setswitchinterval(interval)


def checkProgram(program: Program, backend: str = "numpy") -> None:
    with Graph() as graph:
        builder = Builder(Ops.create(graph), atomic=True)
        for step in program.steps:
            builder.build(step)
        assert set(graph.operations()) == set(builder.made)
        with Session(graph, backend=backend) as session:
            try:
                session.initialize()
            except TfopsError as e:
                _checkRunError(e, graph)
            runAndCompare(session, builder.made, program.feedAll)


def checkThreaded(programs: Sequence[Program], backend: str = "numpy") -> None:
    """Each thread builds its program into one graph (through the root scope: names contend)
    and runs it in one session while the others build and run theirs."""
    errors: list[BaseException] = []
    builders: list[Builder] = []
    with Graph() as graph, Session(graph, backend=backend) as session:
        tf = Ops.create(graph)
        start = threading.Barrier(len(programs))

        def work(program: Program) -> None:
            try:
                builder = Builder(tf, atomic=False)
                builders.append(builder)
                start.wait()
                for step in program.steps:
                    builder.build(step)
                for op in graph.initializers():  # this thread's variables' Assigns
                    if op.inputs() and op.inputs()[0].op() in builder.known:
                        session.run(op)
                runAndCompare(session, builder.made, program.feedAll)
            except BaseException as e:  # reported below
                errors.append(e)

        threads = [threading.Thread(target=work, args=(p,)) for p in programs]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        if errors:
            raise errors[0]
        ops = list(graph.operations())
        made = set().union(*(b.made for b in builders))
        assert set(ops) == made, "an op in the graph that no thread built"
        assert len({op.name() for op in ops}) == len(ops)
        assert all(i.op() in made for op in ops for i in op.inputs())


# the default run: a few seconds, the same examples every time; the long profile (-m slow):
# minutes, new examples each time
_FAST = settings(max_examples=1500, deadline=None, derandomize=True,
                 suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                        HealthCheck.function_scoped_fixture])
_FAST_THREADS = settings(_FAST, max_examples=150)
_FAST_XLA = settings(_FAST, max_examples=150)
_LONG = settings(_FAST, max_examples=20_000, derandomize=False)
_LONG_THREADS = settings(_FAST, max_examples=2_000, derandomize=False)
_LONG_XLA = settings(_FAST, max_examples=3_000, derandomize=False)


@_FAST
@given(programs(8))
def test_randomGraphsBuildAtomicallyAndRunAsTheirOpsDoAlone(program: Program) -> None:
    checkProgram(program)


@_FAST_XLA
@given(programs(8))
def test_randomGraphsRunOnXlaAsTheirOpsDoAloneOnNumpy(program: Program) -> None:
    checkProgram(program, backend="xla")


@_FAST_THREADS
@given(st.lists(programs(5), min_size=THREADS, max_size=THREADS))
def test_randomGraphsBuiltAndRunBy8ThreadsAtOnce(programs: list[Program]) -> None:
    checkThreaded(programs)


@pytest.mark.slow
@_LONG
@given(programs(12))
def test_randomGraphsLongProfile(program: Program) -> None:
    checkProgram(program)


@pytest.mark.slow
@_LONG_XLA
@given(programs(12))
def test_randomGraphsOnXlaLongProfile(program: Program) -> None:
    checkProgram(program, backend="xla")


@pytest.mark.slow
@_LONG_THREADS
@given(st.lists(programs(8), min_size=THREADS, max_size=THREADS))
def test_randomGraphsBy8ThreadsLongProfile(programs: list[Program]) -> None:
    checkThreaded(programs)


@pytest.mark.slow
@_LONG_THREADS
@given(st.lists(programs(8), min_size=THREADS, max_size=THREADS))
def test_randomGraphsBy8ThreadsOnXlaLongProfile(programs: list[Program]) -> None:
    checkThreaded(programs, backend="xla")
