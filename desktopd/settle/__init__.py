"""Settling after an act: the screen's changes as the backend reports them (changes.py), the
browser's word on a click (browser.py), and the wait that ends on their evidence (settler.py)."""
