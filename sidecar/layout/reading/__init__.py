"""The reads of a tab: what every reader makes (``capture``), the readers behind one interface
(``readers``), and the reads themselves: ``read_whole`` (the reference read and the rescan),
``read_patch`` (only the changed subtrees) and ``read_frames`` (a page's top document alone)."""
