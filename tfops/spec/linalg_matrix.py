"""Matrix structure ops (``tfops.op.linalg``): MatrixDiag(V3), MatrixDiagPart(V3),
MatrixSetDiag(V3), MatrixBandPart, Einsum.
"""
