"""Sweeps: the result store (SQLite), task specs, executors generic over the function they
run, the runner, TOML grid files, progress, the Dask worker entry."""
