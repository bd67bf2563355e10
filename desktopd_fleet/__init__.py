"""Fleets of desktops: rollouts on Ray (ray_runner), the desktops they run on (provision), a
local multi-node Ray cluster for trying it (local_cluster). Ray and docker are optional extras,
imported only where used."""
