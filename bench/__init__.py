"""Benchmarks. Each one uses its own database (``anamnesis_bench``), never the development or test ones."""
