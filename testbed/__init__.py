"""Real local parts for tests and benchmarks (Xvfb, test pages, child processes): shared by
tests/ and scripts/, so neither imports the other."""
