"""A client of Sway's IPC (the i3 protocol) and readers of its answers: a library of its own,
which desktopd's Sway backend and the sidecar's compositor window both use."""
