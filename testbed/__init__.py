"""The one home of the helpers tests and benchmarks share: real local parts (Xvfb, a window
manager, test pages, desktopd and sidecar stacks, child processes), recorders and checks. It
imports no test, so scripts/ and tests/ both use it without importing each other."""
