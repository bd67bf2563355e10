"""A DOM snapshot (DOMSnapshot.captureSnapshot) read: border boxes by backendNodeId and frames
placed in the tab (``dom_boxes``, ``documents``), its parent links (``ancestry``) and its rendering
as far as the accessibility tree depends on it (``restyle``)."""
