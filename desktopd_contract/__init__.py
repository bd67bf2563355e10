"""What desktopd and the harness kit both hold to: the vendor action formats' declarations and
the bounds their fields share. It imports nothing of either side (tests/architecture checks it),
so the kit plans actions without loading the server."""
