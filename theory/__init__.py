"""Symbolic derivations (SymPy, evaluated with mpmath). Never samples, never imports numerics."""
