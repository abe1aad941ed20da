"""NumPy sampling and measurement, mpmath reference numerics (may import ``theory``)."""
