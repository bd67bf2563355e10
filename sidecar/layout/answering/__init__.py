"""A capture answered for the view now (``answer``), its interactive nodes hit-tested by the
browser (``hits``)."""
