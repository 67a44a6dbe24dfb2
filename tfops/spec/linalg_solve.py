"""Factorizations and solvers (``tfops.op.linalg``): MatrixInverse, MatrixDeterminant, Cholesky,
Qr, MatrixSolve, MatrixTriangularSolve.
"""
