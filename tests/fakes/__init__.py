"""Local fakes of outside systems, real HTTP servers on 127.0.0.1, and helpers to run processes against them, for
tests, benchmarks and development. Never for real patient data."""
