"""Takes the docs' screenshot of the stable softmax graph in TensorBoard's Graphs dashboard.

``python docs/pictures/tensorboard_screenshot.py`` writes the graph of the stable softmax and its
gradient with ``tfops.summary.SummaryWriter.addGraph`` into a temporary log directory, starts
``tensorboard --logdir`` on it, opens the Graphs dashboard in headless Chromium (driven through
the DevTools protocol over a pipe: no browser-automation package needed), expands the ``stable``
and ``Gradients`` name scopes and saves ``tensorboard_stable_softmax.png`` next to this script.
It needs the ``summary`` and ``interop`` extras and a ``chromium`` on the PATH.
"""

from __future__ import annotations

import base64
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

from tfops import Graph, Ops, Shape
from tfops.examples.stable_softmax import stableSoftmax
from tfops.summary import SummaryWriter
from tfops.types import TFloat64

HERE = Path(__file__).resolve().parent
# every element matching a selector, inside the dashboard's shadow roots too
DEEP = """(sel => { const out = []; (function walk(root) {
  root.querySelectorAll(sel).forEach(e => out.push(e));
  root.querySelectorAll('*').forEach(e => { if (e.shadowRoot) walk(e.shadowRoot); });
})(document); return out; })"""


def writeGraph(logdir: str) -> None:
    graph = Graph()
    tf = Ops.create(graph)
    x = tf.withName("x").placeholder(TFloat64, shape=Shape.of(3))
    tf.gradients(stableSoftmax(tf.withSubScope("stable"), x), [x])
    with SummaryWriter(logdir) as writer:
        writer.addGraph(graph)


class Chromium:
    """Headless Chromium, driven with DevTools protocol messages on fds 3 (in) and 4 (out)."""

    def __init__(self, profile: str) -> None:
        toChrome, self._commands = os.pipe()
        self._responses, fromChrome = os.pipe()

        def pipes() -> None:
            os.dup2(toChrome, 3)
            os.dup2(fromChrome, 4)
            os.set_inheritable(3, True)
            os.set_inheritable(4, True)

        self.process = subprocess.Popen(
            ["chromium", "--headless=new", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
             "--remote-debugging-pipe", f"--user-data-dir={profile}", "about:blank"],
            preexec_fn=pipes, close_fds=False, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        os.close(toChrome)
        os.close(fromChrome)
        self._pending = b""
        self._id = 0
        self.session: str | None = None

    def send(self, method: str, **params: Any) -> Any:
        self._id += 1
        message: dict[str, Any] = {"id": self._id, "method": method, "params": params}
        if self.session is not None:
            message["sessionId"] = self.session
        os.write(self._commands, json.dumps(message).encode() + b"\0")
        while True:
            while b"\0" not in self._pending:
                self._pending += os.read(self._responses, 1 << 20)
            raw, self._pending = self._pending.split(b"\0", 1)
            answer = json.loads(raw)
            if answer.get("id") == self._id:
                if "error" in answer:
                    raise RuntimeError(f"{method}: {answer['error']}")
                return answer["result"]

    def evaluate(self, expression: str) -> Any:
        result = self.send("Runtime.evaluate", expression=expression, returnByValue=True)
        return result["result"].get("value")

    def close(self) -> None:
        self.process.kill()
        self.process.wait()


def freePort() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def main() -> None:
    with tempfile.TemporaryDirectory() as work:
        logdir = os.path.join(work, "logs")
        writeGraph(logdir)
        port = freePort()
        board = subprocess.Popen(
            [sys.executable, "-m", "tensorboard.main", "--logdir", logdir, "--port", str(port),
             "--host", "127.0.0.1"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        chromium = None
        try:
            for _ in range(120):
                try:
                    urllib.request.urlopen(f"http://127.0.0.1:{port}/data/runs", timeout=1)
                    break
                except OSError:
                    time.sleep(0.5)
            chromium = Chromium(os.path.join(work, "profile"))
            target = chromium.send("Target.createTarget", url="about:blank")["targetId"]
            chromium.session = chromium.send(
                "Target.attachToTarget", targetId=target, flatten=True
            )["sessionId"]
            chromium.send("Emulation.setDeviceMetricsOverride", width=1600, height=1000,
                          deviceScaleFactor=1, mobile=False)  # fmt: skip
            chromium.send("Page.navigate", url=f"http://127.0.0.1:{port}/#graphs&run=.")
            time.sleep(12)
            for scope in ("stable", "Gradients", "Gradients/stable"):
                found = chromium.evaluate(
                    f"{DEEP}('g.node[data-name=\"{scope}\"]').map(n => {{ "
                    "(n.querySelector('.nodeshape') || n).dispatchEvent("
                    "new MouseEvent('dblclick', {bubbles: true})); return 1; }).length"
                )
                if found != 1:
                    sys.exit(f"TensorBoard shows no name scope {scope!r}")
                time.sleep(3)
            chromium.evaluate(f"{DEEP}('tf-graph').forEach(g => {{ g.selectedNode = null; }})")
            chromium.evaluate(f"{DEEP}('tf-graph-scene').forEach(s => s.fit())")
            time.sleep(3)
            shot = chromium.send("Page.captureScreenshot", format="png")
            out = HERE / "tensorboard_stable_softmax.png"
            out.write_bytes(base64.b64decode(shot["data"]))
            print(f"wrote {out.relative_to(HERE.parent.parent)}")
        finally:
            if chromium is not None:
                chromium.close()
            board.kill()
            board.wait()


if __name__ == "__main__":
    main()
