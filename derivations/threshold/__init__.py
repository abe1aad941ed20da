"""The threshold audit: its modes (what a sweep measures), the fits and verdicts, and the
sweep with its resumable store."""
