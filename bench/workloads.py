"""The timed workloads of ``bench/run.py``, one function per workload and contender.

Each ``make*`` function builds its contender and returns a function of no arguments that runs
one step and returns its results as numpy arrays on the host (the contract of a tfops
``run()``: the caller gets numpy arrays), so every contender does the same work per call.

Contenders: ``numpy`` (tfops, numpy backend), ``xla`` (tfops, XLA backend), ``tf`` (TensorFlow
graph mode: ``tf.compat.v1`` Graph and Session), ``jax`` (a hand-written ``jax.jit`` function)
and ``hand`` (numpy written by hand).

- ``softmax``: the stable softmax ``p = exp(x - stopGradient(max x)) / sum(...)`` of ``n``
  float32 elements and the gradient ``dx`` of ``sum(w * p)``; ``x`` fed, ``p`` and ``dx``
  fetched. The hand-written numpy uses the simplified formula ``dx = w·p - p·sum(w·p)``.
- ``mlp``: one SGD step of a 784-512-512-10 perceptron (ReLU, softmax cross-entropy averaged
  over a batch of 256, float32, learning rate 0.01): the batch fed, the loss fetched, the six
  parameters updated in place (variables for tfops and TensorFlow, donated buffers for JAX).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

import numpy as np

Array = np.ndarray[Any, Any]
Step = Callable[[], Any]

CONTENDERS = ("numpy", "xla", "tf", "jax", "hand")
LAYERS = (784, 512, 512, 10)
BATCH = 256
LEARNING_RATE = np.float32(0.01)


# -- the stable softmax and its gradient ---------------------------------------------------
def softmaxInputs(n: int) -> tuple[Array, Array]:
    """``x`` (standard normal) and the weights ``w`` (0.5 to 1.5), float32."""
    x = np.random.default_rng(0).standard_normal(n).astype(np.float32)
    return x, np.linspace(0.5, 1.5, n, dtype=np.float32)


def handSoftmaxGrad(x: Array, w: Array) -> tuple[Array, Array]:
    """The hand-written numpy version: softmax, then d sum(w * p) / dx = p * (w - sum(w * p))."""
    z = x - x.max()
    e = np.exp(z)
    p = e / e.sum()
    wp = w * p
    dx = wp - p * wp.sum()
    return p, dx


def makeSoftmax(kind: str, n: int) -> Step:
    """The softmax workload of ``n`` elements for contender ``kind``."""
    x, w = softmaxInputs(n)
    if kind == "hand":
        return lambda: handSoftmaxGrad(x, w)
    if kind in ("numpy", "xla"):
        return tfopsSoftmaxGrad(x, w, kind)
    if kind == "tf":
        return tfSoftmaxGrad(tensorflow(), x, w)
    if kind == "jax":
        return jaxSoftmaxGrad(x, w)
    raise ValueError(kind)


def tfopsSoftmaxGrad(x: Array, w: Array, backend: str = "numpy") -> Step:
    """A function running the tfops graph once (x fed, p and dx fetched)."""
    from tfops import Graph, Ops, Session
    from tfops import Shape as TShape
    from tfops.op.core import Placeholder
    from tfops.output import Operand
    from tfops.types import TFloat32

    graph = Graph()
    tf = Ops.create(graph)
    xIn = tf.placeholder(TFloat32, Placeholder.shape(TShape.of(x.size)))
    z = tf.math.sub(xIn, tf.stopGradient(tf.max(xIn, 0)))
    e = tf.math.exp(z)
    p = tf.math.div(e, tf.sum(e, 0))
    weights: Operand[TFloat32] = tf.constant(w, TFloat32)
    loss = tf.sum(tf.math.mul(weights, p), 0)
    dx = tf.gradients(loss, [xIn]).dy(0)
    assert dx is not None
    session = Session(graph, backend=backend)

    def run() -> list[Array]:
        return list(session.runner().feed(xIn, x).fetch(p).fetch(dx).run())

    return run


def tensorflow() -> Any:
    """The ``tensorflow`` module (its C++ logging quiet)."""
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    import tensorflow as tf  # type: ignore[import-untyped,unused-ignore]

    return tf


def tfSoftmaxGrad(tf: Any, x: Array, w: Array) -> Step:
    """The same in TensorFlow graph mode: one ``Session.run`` per call."""
    v1 = tf.compat.v1
    graph = tf.Graph()
    with graph.as_default():
        xIn = v1.placeholder(tf.float32, [x.size])
        z = xIn - tf.stop_gradient(tf.reduce_max(xIn, 0))
        e = tf.exp(z)
        p = e / tf.reduce_sum(e, 0)
        loss = tf.reduce_sum(tf.constant(w) * p, 0)
        dx = tf.gradients(loss, [xIn])[0]
        session = v1.Session(graph=graph)

    def run() -> list[Array]:
        return list(session.run([p, dx], {xIn: x}))

    return run


def jaxSoftmaxGrad(x: Array, w: Array) -> Step:
    """The same with ``jax.jit``; the results brought to the host as numpy arrays."""
    import jax
    import jax.numpy as jnp

    weights = jnp.asarray(w)

    def loss(x: Any) -> Any:
        p = jax.nn.softmax(x)
        return jnp.sum(weights * p), p

    step = jax.jit(jax.value_and_grad(loss, has_aux=True))

    def run() -> list[Array]:
        (_, p), dx = step(x)
        return [np.asarray(p), np.asarray(dx)]

    return run


# -- the MLP training step -----------------------------------------------------------------
def mlpData() -> tuple[Array, Array, list[Array]]:
    """A batch (inputs, one-hot labels) and the initial parameters (He-initialized weights,
    zero biases: w1, b1, w2, b2, w3, b3), float32."""
    rng = np.random.default_rng(0)
    x = rng.standard_normal((BATCH, LAYERS[0])).astype(np.float32)
    labels = np.eye(LAYERS[-1], dtype=np.float32)[rng.integers(0, LAYERS[-1], BATCH)]
    params: list[Array] = []
    for a, b in zip(LAYERS[:-1], LAYERS[1:], strict=True):
        params.append((rng.standard_normal((a, b)) * np.sqrt(2 / a)).astype(np.float32))
        params.append(np.zeros(b, np.float32))
    return x, labels, params


def makeMlp(kind: str) -> Step:
    """The MLP step for contender ``kind``; each call returns the loss before the update."""
    x, labels, params = mlpData()
    if kind == "hand":
        return handMlp(x, labels, params)
    if kind in ("numpy", "xla"):
        return tfopsMlp(x, labels, params, kind)
    if kind == "tf":
        return tfMlp(tensorflow(), x, labels, params)
    if kind == "jax":
        return jaxMlp(x, labels, params)
    raise ValueError(kind)


def handMlp(x: Array, labels: Array, params: list[Array]) -> Step:
    """Forward and backward written by hand in numpy, the update in place."""
    w1, b1, w2, b2, w3, b3 = params
    scale = np.float32(1 / BATCH)

    def run() -> Array:
        h1 = x @ w1 + b1
        a1 = np.maximum(h1, 0)
        h2 = a1 @ w2 + b2
        a2 = np.maximum(h2, 0)
        logits = a2 @ w3 + b3
        z = logits - logits.max(axis=1, keepdims=True)
        e = np.exp(z)
        s = e.sum(axis=1, keepdims=True)
        loss = np.mean(np.log(s[:, 0]) - (labels * z).sum(axis=1))
        d3 = (e / s - labels) * scale  # d loss / d logits
        d2 = (d3 @ w3.T) * (h2 > 0)
        d1 = (d2 @ w2.T) * (h1 > 0)
        grads = (x.T @ d1, d1.sum(axis=0), a1.T @ d2, d2.sum(axis=0), a2.T @ d3, d3.sum(axis=0))
        for p, g in zip(params, grads, strict=True):
            p -= LEARNING_RATE * g
        return np.asarray(loss)

    return run


def tfopsMlp(x: Array, labels: Array, params: list[Array], backend: str) -> Step:
    """The step as a tfops graph: variables, ``tf.gradients``, ``applyGradientDescent``; one
    ``run()`` feeds the batch, fetches the loss and runs the updates."""
    from tfops import Graph, Ops, Session
    from tfops import Shape as TShape
    from tfops.op.core import Placeholder
    from tfops.types import TFloat32

    graph = Graph()
    tf = Ops.create(graph)
    xIn = tf.placeholder(TFloat32, Placeholder.shape(TShape.of(*x.shape)))
    yIn = tf.placeholder(TFloat32, Placeholder.shape(TShape.of(*labels.shape)))
    variables = [tf.variable(tf.constant(p)) for p in params]
    h: Any = xIn
    for k in range(3):
        h = tf.math.add(tf.linalg.matMul(h, variables[2 * k]), variables[2 * k + 1])
        if k < 2:
            h = tf.nn.relu(h)
    loss = tf.math.mean(tf.nn.softmaxCrossEntropyWithLogits(h, yIn).loss(), tf.constant([0]))
    updates = []
    for v, g in zip(variables, tf.gradients(loss, variables), strict=True):
        assert g is not None
        updates.append(tf.train.applyGradientDescent(v, LEARNING_RATE, g))
    update = tf.withControlDependencies(updates).noOp()
    session = Session(graph, backend=backend)
    session.initialize()

    def run() -> Array:
        result: Array = session.runner().feed(xIn, x).feed(yIn, labels).fetch(loss).addTarget(
            update).run()[0]
        return result

    return run


def tfMlp(tf: Any, x: Array, labels: Array, params: list[Array]) -> Step:
    """The step in TensorFlow graph mode, with its ``GradientDescentOptimizer``."""
    v1 = tf.compat.v1
    graph = tf.Graph()
    with graph.as_default():
        xIn = v1.placeholder(tf.float32, x.shape)
        yIn = v1.placeholder(tf.float32, labels.shape)
        variables = [tf.Variable(p) for p in params]
        h = xIn
        for k in range(3):
            h = tf.matmul(h, variables[2 * k]) + variables[2 * k + 1]
            if k < 2:
                h = tf.nn.relu(h)
        loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(labels=yIn, logits=h))
        train = v1.train.GradientDescentOptimizer(float(LEARNING_RATE)).minimize(
            loss, var_list=variables)
        session = v1.Session(graph=graph)
        session.run(v1.global_variables_initializer())

    def run() -> Array:
        return np.asarray(session.run([loss, train], {xIn: x, yIn: labels})[0])

    return run


def jaxMlp(x: Array, labels: Array, params: list[Array]) -> Step:
    """The step with ``jax.jit`` (``value_and_grad``, the parameters' buffers donated)."""
    import jax
    import jax.numpy as jnp

    def lossOf(params: list[Any], x: Any, labels: Any) -> Any:
        h = x
        for k in range(3):
            h = h @ params[2 * k] + params[2 * k + 1]
            if k < 2:
                h = jax.nn.relu(h)
        return jnp.mean(-jnp.sum(labels * jax.nn.log_softmax(h), axis=-1))

    def step(params: list[Any], x: Any, labels: Any) -> tuple[list[Any], Any]:
        loss, grads = jax.value_and_grad(lossOf)(params, x, labels)
        return [p - LEARNING_RATE * g for p, g in zip(params, grads, strict=True)], loss

    compiled = jax.jit(step, donate_argnums=0)
    state = [[jnp.asarray(p) for p in params]]

    def run() -> Array:
        state[0], loss = compiled(state[0], x, labels)
        return np.asarray(loss)

    return run
