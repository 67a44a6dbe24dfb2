"""TensorFlow interop: tfops graphs to and from TensorFlow's ``GraphDef`` protobuf.

``Graph.toGraphDef()``, ``Graph.importGraphDef(bytes, prefix)`` and ``Session.freeze(fetches)``
delegate here. The protobuf schema (GraphDef, NodeDef, AttrValue, TensorProto) is TensorFlow's
own, compiled for the ``protobuf`` library and shipped by the ``tensorboard`` package: the
optional extra ``pip install 'tfops-java[interop]'``; TensorFlow itself is not needed.
"""

from tfops.interop.graphdef import exportGraphDef, importGraphDef

__all__ = ["exportGraphDef", "importGraphDef"]
