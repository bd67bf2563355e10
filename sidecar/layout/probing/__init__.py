"""The in-page change signal: the probe and tracker every frame runs (``probe``, page scripts in
js/) and the freshness check made of the probes and the layout metrics (``change_signal``)."""
