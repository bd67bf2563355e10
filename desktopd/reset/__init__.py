"""The episode reset: what it does to the desktop and the browser (episode.py), its route (handlers.py)."""
