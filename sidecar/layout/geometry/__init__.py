"""Bounds: rectangles and the three coordinate spaces (``spaces``), what clips a node
(``clipping``), the line fragments of wrapped inline content (``fragments``) and where to click a
node (``click_point``). Plain arithmetic over boxes: no I/O."""
