"""Output: reports and JSON of a run, figures, atomic files, progress on stderr."""
